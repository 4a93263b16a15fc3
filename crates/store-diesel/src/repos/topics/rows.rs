//! The topic tables' rows, their conversions to domain values, and the batched loads that turn
//! rows into views (the stages of a page of topics, the topics of a page of comments: one
//! query each, whatever the count).

use std::collections::HashMap;

use diesel::prelude::*;
use sounding_domain::{
    subscriber::SubscriberRef,
    topic::{StageRef, Topic, TopicView},
    topic_comment::{CommentSource, TopicComment, TopicCommentView, TopicRef},
    topic_vote::TopicVote,
};
use time::PrimitiveDateTime;

use super::super::{from_db_time, parse_id, parse_json_object, to_db_time, to_json_object};
use crate::{
    connection::DbConnection,
    error::{DbError, DbResult},
    one_of::distinct,
    one_of::one_of,
    schema::{stages, topic_comments, topic_follows, topic_votes, topics},
};

/// A whole `topics` row. Also read by name from the list's hand-written SQL.
#[derive(Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = topics, treat_none_as_default_value = false)]
pub(super) struct TopicRow {
    pub(super) id: String,
    pub(super) team_id: String,
    pub(super) roadmap_id: String,
    pub(super) stage_id: String,
    pub(super) url_id: String,
    pub(super) title: String,
    pub(super) title_key: String,
    pub(super) description: String,
    pub(super) text: String,
    pub(super) subscriber_id: String,
    pub(super) meta: String,
    pub(super) visits: i64,
    pub(super) vote_count: i64,
    pub(super) comment_count: i64,
    pub(super) published_at: Option<PrimitiveDateTime>,
    pub(super) created_at: PrimitiveDateTime,
    pub(super) updated_at: PrimitiveDateTime,
}

/// The sort key of a title: lowercased in Rust, so both engines order titles the same way.
fn title_key(title: &str) -> String {
    title.to_lowercase()
}

/// The columns `update_topic` saves: all but the key, the team, the creation time, the visits
/// and the counts (those belong to the visit, vote and comment transactions).
#[derive(AsChangeset)]
#[diesel(table_name = topics, treat_none_as_null = true)]
pub(super) struct TopicChanges {
    roadmap_id: String,
    stage_id: String,
    url_id: String,
    title: String,
    title_key: String,
    description: String,
    text: String,
    subscriber_id: String,
    meta: String,
    published_at: Option<PrimitiveDateTime>,
    updated_at: PrimitiveDateTime,
}

impl TopicRow {
    /// A new topic's row: counts and visits 0, `title_key` derived from the title.
    pub(super) fn new_topic(t: &Topic) -> DbResult<Self> {
        Ok(Self {
            id: t.id.to_string(),
            team_id: t.team_id.to_string(),
            roadmap_id: t.roadmap_id.to_string(),
            stage_id: t.stage_id.to_string(),
            url_id: t.url_id.clone(),
            title: t.title.clone(),
            title_key: title_key(&t.title),
            description: t.description.clone(),
            text: t.text.clone(),
            subscriber_id: t.subscriber_id.to_string(),
            meta: to_json_object(&t.meta)?,
            visits: 0,
            vote_count: 0,
            comment_count: 0,
            published_at: t.published_at.map(to_db_time),
            created_at: to_db_time(t.created_at),
            updated_at: to_db_time(t.updated_at),
        })
    }

    fn into_topic(self) -> DbResult<Topic> {
        Ok(Topic {
            id: parse_id("topics.id", &self.id)?,
            team_id: parse_id("topics.team_id", &self.team_id)?,
            roadmap_id: parse_id("topics.roadmap_id", &self.roadmap_id)?,
            stage_id: parse_id("topics.stage_id", &self.stage_id)?,
            url_id: self.url_id,
            title: self.title,
            description: self.description,
            text: self.text,
            subscriber_id: parse_id("topics.subscriber_id", &self.subscriber_id)?,
            meta: parse_json_object("topics.meta", &self.meta)?,
            visits: self.visits,
            published_at: self.published_at.map(from_db_time),
            created_at: from_db_time(self.created_at),
            updated_at: from_db_time(self.updated_at),
        })
    }
}

impl TopicChanges {
    pub(super) fn of(t: &Topic) -> DbResult<Self> {
        let row = TopicRow::new_topic(t)?;
        Ok(Self {
            roadmap_id: row.roadmap_id,
            stage_id: row.stage_id,
            url_id: row.url_id,
            title: row.title,
            title_key: row.title_key,
            description: row.description,
            text: row.text,
            subscriber_id: row.subscriber_id,
            meta: row.meta,
            published_at: row.published_at,
            updated_at: row.updated_at,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = topic_votes, treat_none_as_default_value = false)]
pub(super) struct VoteRow {
    pub(super) id: String,
    pub(super) team_id: String,
    pub(super) topic_id: String,
    pub(super) creator_id: String,
    pub(super) created_at: PrimitiveDateTime,
}

impl VoteRow {
    pub(super) fn new(team: &str, v: &TopicVote) -> Self {
        Self {
            id: v.id.to_string(),
            team_id: team.to_owned(),
            topic_id: v.topic_id.to_string(),
            creator_id: v.creator_id.to_string(),
            created_at: to_db_time(v.created_at),
        }
    }
}

/// A whole `topic_comments` row. Also read by name from the thread list's hand-written SQL.
#[derive(Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = topic_comments, treat_none_as_default_value = false)]
pub(super) struct CommentRow {
    pub(super) id: String,
    pub(super) team_id: String,
    pub(super) topic_id: String,
    pub(super) creator_id: String,
    pub(super) parent_id: Option<String>,
    pub(super) root_id: String,
    pub(super) text: String,
    pub(super) source: String,
    pub(super) created_at: PrimitiveDateTime,
    pub(super) updated_at: PrimitiveDateTime,
    pub(super) deleted_at: Option<PrimitiveDateTime>,
}

impl CommentRow {
    pub(super) fn from_domain(c: &TopicComment) -> Self {
        Self {
            id: c.id.to_string(),
            team_id: c.team_id.to_string(),
            topic_id: c.topic_id.to_string(),
            creator_id: c.creator_id.to_string(),
            parent_id: c.parent_id.map(|id| id.to_string()),
            root_id: c.root_id.to_string(),
            text: c.text.clone(),
            source: c.source.as_str().to_owned(),
            created_at: to_db_time(c.created_at),
            updated_at: to_db_time(c.updated_at),
            deleted_at: c.deleted_at.map(to_db_time),
        }
    }

    pub(super) fn into_domain(self) -> DbResult<TopicComment> {
        Ok(TopicComment {
            id: parse_id("topic_comments.id", &self.id)?,
            team_id: parse_id("topic_comments.team_id", &self.team_id)?,
            topic_id: parse_id("topic_comments.topic_id", &self.topic_id)?,
            creator_id: parse_id("topic_comments.creator_id", &self.creator_id)?,
            parent_id: self
                .parent_id
                .map(|raw| parse_id("topic_comments.parent_id", &raw))
                .transpose()?,
            root_id: parse_id("topic_comments.root_id", &self.root_id)?,
            text: self.text,
            source: CommentSource::parse(&self.source)
                .map_err(|e| DbError::corrupt("topic_comments.source", e))?,
            created_at: from_db_time(self.created_at),
            updated_at: from_db_time(self.updated_at),
            deleted_at: self.deleted_at.map(from_db_time),
        })
    }

    /// The comment as shown, with its author and its topic: `topic` is `None` only when the
    /// database is corrupt, as a comment goes with its topic.
    pub(super) fn into_view(
        self,
        author: Option<SubscriberRef>,
        topic: Option<TopicRef>,
    ) -> DbResult<TopicCommentView> {
        let topic = topic.ok_or_else(|| {
            DbError::corrupt(
                "topic_comments.topic_id",
                format!("no topic {}", self.topic_id),
            )
        })?;
        Ok(TopicCommentView {
            comment: self.into_domain()?,
            author,
            topic,
        })
    }
}

super::super::follows::follows!(topic_follows, topic_id);

/// The team's stages among `ids` as shown with a topic, by id, in one query.
fn stages_by_id<'a>(
    conn: &mut DbConnection,
    team: &str,
    ids: impl IntoIterator<Item = &'a str>,
) -> DbResult<HashMap<String, StageRef>> {
    let ids = distinct(ids);
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    stages::table
        .filter(stages::team_id.eq(team))
        .filter(one_of(stages::id, ids))
        .select((
            stages::id,
            stages::name,
            stages::position,
            stages::is_private,
        ))
        .load::<(String, String, i64, bool)>(conn)?
        .into_iter()
        .map(|(id, name, order, is_private)| {
            let stage = StageRef {
                id: parse_id("stages.id", &id)?,
                name,
                order,
                is_private,
            };
            Ok((id, stage))
        })
        .collect()
}

/// The team's topics among `ids` as shown with a comment, by id, in one query (by primary
/// key, the team checked on the rows: see `people_by_id`).
pub(super) fn topic_refs_by_id<'a>(
    conn: &mut DbConnection,
    team: &str,
    ids: impl IntoIterator<Item = &'a str>,
) -> DbResult<HashMap<String, TopicRef>> {
    let ids = distinct(ids);
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    topics::table
        .filter(one_of(topics::id, ids))
        .select((topics::id, topics::team_id, topics::title, topics::url_id))
        .load::<(String, String, String, String)>(conn)?
        .into_iter()
        .filter(|(_, topic_team, ..)| topic_team == team)
        .map(|(id, _, title, url_id)| {
            let topic = TopicRef {
                id: parse_id("topics.id", &id)?,
                title,
                url_id,
            };
            Ok((id, topic))
        })
        .collect()
}

/// The views of `rows`, in their order: one query for their stages however many rows there
/// are, none when there are none.
pub(super) fn views(
    conn: &mut DbConnection,
    team: &str,
    rows: Vec<TopicRow>,
) -> DbResult<Vec<TopicView>> {
    let stages = stages_by_id(conn, team, rows.iter().map(|r| r.stage_id.as_str()))?;
    rows.into_iter()
        .map(|row| {
            // The foreign key keeps a topic's stage; a missing one is a broken database.
            let stage = stages.get(&row.stage_id).cloned().ok_or_else(|| {
                DbError::corrupt("topics.stage_id", format!("no stage {}", row.stage_id))
            })?;
            let (vote_count, comment_count) = (row.vote_count, row.comment_count);
            Ok(TopicView {
                topic: row.into_topic()?,
                stage,
                vote_count,
                comment_count,
            })
        })
        .collect()
}
