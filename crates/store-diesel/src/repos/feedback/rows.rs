//! The feedback tables' rows, their conversions to domain values, and the batched loads that
//! turn item rows into views (their boards and people in one query each, whatever the count).

use std::collections::HashMap;

use diesel::prelude::*;
use sounding_domain::{
    feedback::{BoardRef, Feedback, FeedbackStatus, FeedbackView, Priority},
    feedback_comment::FeedbackComment,
    feedback_vote::FeedbackVote,
};
use time::PrimitiveDateTime;

use super::super::{
    from_db_time, parse_id, parse_json_object, subscribers::people_by_id, to_db_time,
    to_json_object,
};
use crate::{
    connection::DbConnection,
    error::{DbError, DbResult},
    one_of::{distinct, one_of},
    schema::{feedback, feedback_boards, feedback_comments, feedback_follows, feedback_votes},
};

/// A whole `feedback` row. Also read by name from the list's hand-written SQL.
#[derive(Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = feedback)]
pub(super) struct FeedbackRow {
    pub(super) id: String,
    pub(super) team_id: String,
    pub(super) board_id: Option<String>,
    pub(super) url_id: String,
    pub(super) title: String,
    pub(super) text: String,
    pub(super) status: String,
    pub(super) priority: String,
    pub(super) kind: Option<String>,
    pub(super) creator_id: String,
    pub(super) meta: String,
    pub(super) search_text: String,
    pub(super) vote_count: i64,
    pub(super) comment_count: i64,
    pub(super) published_at: Option<PrimitiveDateTime>,
    pub(super) archived_at: Option<PrimitiveDateTime>,
    pub(super) created_at: PrimitiveDateTime,
    pub(super) updated_at: PrimitiveDateTime,
    pub(super) last_modified_by_id: Option<String>,
}

/// The columns `update_feedback` saves: all but the key, the team, the creation time and the
/// counts (those belong to the vote and comment transactions).
#[derive(AsChangeset)]
#[diesel(table_name = feedback, treat_none_as_null = true)]
pub(super) struct FeedbackChanges {
    board_id: Option<String>,
    url_id: String,
    title: String,
    text: String,
    status: String,
    priority: String,
    kind: Option<String>,
    creator_id: String,
    meta: String,
    search_text: String,
    published_at: Option<PrimitiveDateTime>,
    archived_at: Option<PrimitiveDateTime>,
    updated_at: PrimitiveDateTime,
    last_modified_by_id: Option<String>,
}

impl FeedbackRow {
    /// A new item's row: counts 0, `search_text` derived from title and text.
    pub(super) fn new_item(f: &Feedback) -> DbResult<Self> {
        Ok(Self {
            id: f.id.to_string(),
            team_id: f.team_id.to_string(),
            board_id: f.board_id.map(|id| id.to_string()),
            url_id: f.url_id.clone(),
            title: f.title.clone(),
            text: f.text.clone(),
            status: f.status.as_str().to_owned(),
            priority: f.priority.as_str().to_owned(),
            kind: f.kind.clone(),
            creator_id: f.creator_id.to_string(),
            meta: to_json_object(&f.meta)?,
            search_text: sounding_domain::feedback::search_text(&f.title, &f.text),
            vote_count: 0,
            comment_count: 0,
            published_at: f.published_at.map(to_db_time),
            archived_at: f.archived_at.map(to_db_time),
            created_at: to_db_time(f.created_at),
            updated_at: to_db_time(f.updated_at),
            last_modified_by_id: f.last_modified_by_id.map(|id| id.to_string()),
        })
    }

    pub(super) fn into_feedback(self) -> DbResult<Feedback> {
        Ok(Feedback {
            id: parse_id("feedback.id", &self.id)?,
            team_id: parse_id("feedback.team_id", &self.team_id)?,
            board_id: self
                .board_id
                .map(|raw| parse_id("feedback.board_id", &raw))
                .transpose()?,
            url_id: self.url_id,
            title: self.title,
            text: self.text,
            status: FeedbackStatus::parse(&self.status)
                .map_err(|e| DbError::corrupt("feedback.status", e))?,
            priority: Priority::parse(&self.priority)
                .map_err(|e| DbError::corrupt("feedback.priority", e))?,
            kind: self.kind,
            creator_id: parse_id("feedback.creator_id", &self.creator_id)?,
            meta: parse_json_object("feedback.meta", &self.meta)?,
            published_at: self.published_at.map(from_db_time),
            archived_at: self.archived_at.map(from_db_time),
            created_at: from_db_time(self.created_at),
            updated_at: from_db_time(self.updated_at),
            last_modified_by_id: self
                .last_modified_by_id
                .map(|raw| parse_id("feedback.last_modified_by_id", &raw))
                .transpose()?,
        })
    }
}

impl FeedbackChanges {
    pub(super) fn of(f: &Feedback) -> DbResult<Self> {
        let row = FeedbackRow::new_item(f)?;
        Ok(Self {
            board_id: row.board_id,
            url_id: row.url_id,
            title: row.title,
            text: row.text,
            status: row.status,
            priority: row.priority,
            kind: row.kind,
            creator_id: row.creator_id,
            meta: row.meta,
            search_text: row.search_text,
            published_at: row.published_at,
            archived_at: row.archived_at,
            updated_at: row.updated_at,
            last_modified_by_id: row.last_modified_by_id,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = feedback_votes)]
pub(super) struct VoteRow {
    pub(super) id: String,
    pub(super) team_id: String,
    pub(super) feedback_id: String,
    pub(super) subscriber_id: String,
    pub(super) created_at: PrimitiveDateTime,
}

impl VoteRow {
    pub(super) fn new(team: &str, v: &FeedbackVote) -> Self {
        Self {
            id: v.id.to_string(),
            team_id: team.to_owned(),
            feedback_id: v.feedback_id.to_string(),
            subscriber_id: v.subscriber_id.to_string(),
            created_at: to_db_time(v.created_at),
        }
    }

    pub(super) fn into_domain(self) -> DbResult<FeedbackVote> {
        Ok(FeedbackVote {
            id: parse_id("feedback_votes.id", &self.id)?,
            feedback_id: parse_id("feedback_votes.feedback_id", &self.feedback_id)?,
            subscriber_id: parse_id("feedback_votes.subscriber_id", &self.subscriber_id)?,
            created_at: from_db_time(self.created_at),
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = feedback_comments)]
pub(super) struct CommentRow {
    pub(super) id: String,
    pub(super) team_id: String,
    pub(super) feedback_id: String,
    pub(super) subscriber_id: String,
    pub(super) text: String,
    pub(super) is_private: bool,
    pub(super) created_at: PrimitiveDateTime,
    pub(super) updated_at: PrimitiveDateTime,
}

impl CommentRow {
    pub(super) fn from_domain(c: &FeedbackComment) -> Self {
        Self {
            id: c.id.to_string(),
            team_id: c.team_id.to_string(),
            feedback_id: c.feedback_id.to_string(),
            subscriber_id: c.subscriber_id.to_string(),
            text: c.text.clone(),
            is_private: c.is_private,
            created_at: to_db_time(c.created_at),
            updated_at: to_db_time(c.updated_at),
        }
    }

    pub(super) fn into_domain(self) -> DbResult<FeedbackComment> {
        Ok(FeedbackComment {
            id: parse_id("feedback_comments.id", &self.id)?,
            team_id: parse_id("feedback_comments.team_id", &self.team_id)?,
            feedback_id: parse_id("feedback_comments.feedback_id", &self.feedback_id)?,
            subscriber_id: parse_id("feedback_comments.subscriber_id", &self.subscriber_id)?,
            text: self.text,
            is_private: self.is_private,
            created_at: from_db_time(self.created_at),
            updated_at: from_db_time(self.updated_at),
        })
    }
}

super::super::follows::follows!(feedback_follows, feedback_id);

/// The team's boards among `ids` as shown with an item, by id, in one query (by primary key,
/// the team checked on the rows: see `people_by_id`).
fn boards_by_id<'a>(
    conn: &mut DbConnection,
    team: &str,
    ids: impl IntoIterator<Item = &'a str>,
) -> DbResult<HashMap<String, BoardRef>> {
    let ids = distinct(ids);
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let columns = (
        feedback_boards::id,
        feedback_boards::team_id,
        feedback_boards::name,
        feedback_boards::slug,
        feedback_boards::is_public,
    );
    type Columns = (String, String, String, String, bool);
    let rows: Vec<Columns> = feedback_boards::table
        .filter(one_of(feedback_boards::id, ids))
        .select(columns)
        .load(conn)?;
    rows.into_iter()
        .filter(|(_, board_team, ..)| board_team == team)
        .map(|(id, _, name, slug, is_public)| {
            let board = BoardRef {
                id: parse_id("feedback_boards.id", &id)?,
                name,
                slug,
                is_public,
            };
            Ok((id, board))
        })
        .collect()
}

/// The views of `rows`, in their order: three queries (boards, creators and last editors,
/// tags) however many rows there are, none when there are none.
pub(super) fn views(
    conn: &mut DbConnection,
    team: &str,
    rows: Vec<FeedbackRow>,
) -> DbResult<Vec<FeedbackView>> {
    let boards = boards_by_id(
        conn,
        team,
        rows.iter().filter_map(|r| r.board_id.as_deref()),
    )?;
    let people = people_by_id(
        conn,
        team,
        rows.iter().flat_map(|r| {
            std::iter::once(r.creator_id.as_str()).chain(r.last_modified_by_id.as_deref())
        }),
    )?;
    let mut tags =
        super::super::tags::tags_of_items(conn, team, rows.iter().map(|r| r.id.as_str()))?;
    rows.into_iter()
        .map(|row| {
            let tags = tags.remove(&row.id).unwrap_or_default();
            let board = row.board_id.as_ref().and_then(|id| boards.get(id)).cloned();
            let creator = people.get(&row.creator_id).cloned();
            let last_modified_by = row
                .last_modified_by_id
                .as_ref()
                .and_then(|id| people.get(id))
                .cloned();
            let (vote_count, comment_count) = (row.vote_count, row.comment_count);
            Ok(FeedbackView {
                feedback: row.into_feedback()?,
                board,
                creator,
                last_modified_by,
                vote_count,
                comment_count,
                tags,
            })
        })
        .collect()
}
