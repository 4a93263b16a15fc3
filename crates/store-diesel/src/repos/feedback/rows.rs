//! The feedback tables' rows and their conversions to domain values (an item's view is read
//! in `view`).

use diesel::prelude::*;
use sounding_domain::{
    feedback::{Feedback, FeedbackStatus, Priority},
    feedback_comment::FeedbackComment,
    feedback_vote::FeedbackVote,
};
use time::PrimitiveDateTime;

use super::super::{from_db_time, parse_id, parse_json_object, to_db_time, to_json_object};
use crate::{
    error::{DbError, DbResult},
    schema::{feedback, feedback_comments, feedback_follows, feedback_votes},
};

/// A whole `feedback` row. Also read by name from the list's hand-written SQL.
#[derive(Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = feedback, treat_none_as_default_value = false)]
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
#[diesel(table_name = feedback_votes, treat_none_as_default_value = false)]
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
#[diesel(table_name = feedback_comments, treat_none_as_default_value = false)]
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

#[cfg(test)]
pub(super) mod tests {
    use diesel::{pg::Pg, query_builder::QueryFragment};
    use time::macros::datetime;

    use super::*;

    /// An item without a board, a type, a publication or an editor.
    pub(in crate::repos::feedback) fn item_with_empty_fields() -> FeedbackRow {
        let at = datetime!(2026-01-01 0:00);
        FeedbackRow {
            id: "i".into(),
            team_id: "t".into(),
            board_id: None,
            url_id: "u".into(),
            title: "T".into(),
            text: String::new(),
            status: "in_review".into(),
            priority: "medium".into(),
            kind: None,
            creator_id: "c".into(),
            meta: "{}".into(),
            search_text: "t".into(),
            comment_count: 0,
            published_at: None,
            archived_at: None,
            created_at: at,
            updated_at: at,
            last_modified_by_id: None,
        }
    }

    /// Such an item is inserted by a statement PostgreSQL keeps prepared (`repos`): its
    /// `Option` fields are bound, not `DEFAULT`.
    #[test]
    fn an_item_with_empty_fields_is_inserted_by_a_statement_kept_prepared() {
        let row = item_with_empty_fields();
        let insert = diesel::insert_into(feedback::table).values(&row);
        assert!(QueryFragment::<Pg>::is_safe_to_cache_prepared(&insert, &Pg).unwrap());
    }
}
