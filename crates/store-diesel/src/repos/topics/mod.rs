//! Topics with their threaded comments, votes, follows and visits. Every write is one
//! `write_tx` that also appends the events it causes; the vote and comment counts and the
//! visits on the topic change in the transaction that adds or removes what they count.
//!
//! Writes that depend on the topic existing first read it with a row lock on PostgreSQL
//! (`lock_topic`), so a concurrent delete waits for them (or they for it) instead of a foreign
//! key failing half-way; on SQLite `BEGIN IMMEDIATE` already serializes writers.

mod list;
mod rows;
mod threads;

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::{
    edit::{Edit, Edited, RemovalEvents},
    event::NewEvent,
    ids::{SubscriberId, TeamId, TopicCommentId, TopicId},
    page::Paged,
    ports::{StoreResult, TopicStore},
    subscriber::Subscriber,
    timestamp::Timestamp,
    topic::{Topic, TopicQuery, TopicView, TopicVisit},
    topic_comment::{CommentThread, Removal, ThreadQuery, TopicComment, TopicCommentView},
    topic_vote::{TopicVote, TopicVoteOutcome, TopicVoteState},
};

use self::rows::{
    follow, followers, topic_refs_by_id, unfollow, views, CommentRow, TopicChanges, TopicRow,
    VoteRow,
};
use super::{
    lock::{lock_row, Lock},
    outbox::insert_events,
    subscribers::{people_by_id, SubscriberRow},
    to_db_time,
};
use crate::{
    connection::{per_backend, DbConnection},
    error::{DbError, DbResult},
    raw_sql::{add_to_count, KeptCount, Param, RawSql},
    schema::{
        stages, subscribers, topic_comments, topic_follows, topic_visits, topic_votes, topics,
    },
    tx::{self, write_tx},
    DieselStore,
};

/// The topic's current vote count and visits if it exists in the team, its row locked as asked
/// on PostgreSQL.
fn lock_topic(
    conn: &mut DbConnection,
    team: &str,
    id: &str,
    lock: Lock,
) -> DbResult<Option<(i64, i64)>> {
    let topic = || {
        topics::table
            .filter(topics::id.eq(id))
            .filter(topics::team_id.eq(team))
            .select((topics::vote_count, topics::visits))
    };
    Ok(lock_row!(conn, topic(), lock)?)
}

/// Adds `delta` to the topic's vote count; the count after.
fn add_votes(conn: &mut DbConnection, id: &str, delta: i64) -> DbResult<i64> {
    add_to_count(conn, VOTES, id, delta)
}

const VOTES: KeptCount = KeptCount {
    table: "topics",
    column: "vote_count",
};

/// Adds `comments` to the topic's `comment_count` and `roots` to its `root_comment_count`, in
/// one statement (hand-written, so it stays prepared, as `add_to_count`); a missing topic is
/// diesel's `NotFound`.
fn add_comments(conn: &mut DbConnection, id: &str, comments: i64, roots: i64) -> DbResult<()> {
    let mut sql = RawSql::new();
    sql.push("UPDATE topics SET comment_count = comment_count + ")
        .param(Param::BigInt(comments))
        .push(", root_comment_count = root_comment_count + ")
        .param(Param::BigInt(roots))
        .push(" WHERE id = ")
        .text(id);
    match sql.execute(conn)? {
        0 => Err(diesel::result::Error::NotFound.into()),
        _ => Ok(()),
    }
}

/// Which topics `purge_topics` removes.
#[derive(Debug, Clone, Copy)]
pub(super) enum TopicsOf<'a> {
    /// The topics on the stage with this id.
    Stage(&'a str),
    /// The topics of the roadmap with this id, or on any of its stages.
    Roadmap(&'a str),
}

/// Whether any topic, published or not, is among `which`.
pub(super) fn any_topic(conn: &mut DbConnection, which: TopicsOf<'_>) -> DbResult<bool> {
    let found = match which {
        TopicsOf::Stage(stage) => topics::table
            .filter(topics::stage_id.eq(stage))
            .select(topics::id)
            .get_result::<String>(conn)
            .optional()?,
        TopicsOf::Roadmap(roadmap) => topics::table
            .filter(
                topics::roadmap_id.eq(roadmap).or(topics::stage_id.eq_any(
                    stages::table
                        .filter(stages::roadmap_id.eq(roadmap))
                        .select(stages::id),
                )),
            )
            .select(topics::id)
            .get_result::<String>(conn)
            .optional()?,
    };
    Ok(found.is_some())
}

/// Removes the topics among `which` with their visits, follows, votes and comments: explicit
/// statements rather than cascades, so each says what goes.
pub(super) fn purge_topics(conn: &mut DbConnection, which: TopicsOf<'_>) -> DbResult<()> {
    macro_rules! purge {
        ($selected:expr) => {{
            diesel::delete(topic_visits::table.filter(
                topic_visits::topic_id.eq_any(topics::table.filter($selected).select(topics::id)),
            ))
            .execute(conn)?;
            diesel::delete(topic_follows::table.filter(
                topic_follows::topic_id.eq_any(topics::table.filter($selected).select(topics::id)),
            ))
            .execute(conn)?;
            diesel::delete(topic_votes::table.filter(
                topic_votes::topic_id.eq_any(topics::table.filter($selected).select(topics::id)),
            ))
            .execute(conn)?;
            diesel::delete(topic_comments::table.filter(
                topic_comments::topic_id.eq_any(topics::table.filter($selected).select(topics::id)),
            ))
            .execute(conn)?;
            diesel::delete(topics::table.filter($selected)).execute(conn)?;
        }};
    }
    match which {
        TopicsOf::Stage(stage) => purge!(topics::stage_id.eq(stage)),
        TopicsOf::Roadmap(roadmap) => purge!(topics::roadmap_id.eq(roadmap).or(topics::stage_id
            .eq_any(
                stages::table
                    .filter(stages::roadmap_id.eq(roadmap))
                    .select(stages::id)
            ))),
    }
    Ok(())
}

/// The team's comment row, tombstones included.
fn comment_row(conn: &mut DbConnection, team: &str, id: &str) -> DbResult<Option<CommentRow>> {
    Ok(topic_comments::table
        .filter(topic_comments::id.eq(id))
        .filter(topic_comments::team_id.eq(team))
        .select(CommentRow::as_select())
        .get_result(conn)
        .optional()?)
}

/// The comment of `row` with its author and topic.
fn comment_view(
    conn: &mut DbConnection,
    team: &str,
    row: CommentRow,
) -> DbResult<TopicCommentView> {
    let author = people_by_id(conn, team, [row.creator_id.as_str()])?.remove(&row.creator_id);
    let topic = topic_refs_by_id(conn, team, [row.topic_id.as_str()])?.remove(&row.topic_id);
    row.into_view(author, topic)
}

/// The team's comment as it is once its topic is locked (every writer of a topic's comments
/// locks the topic first): `None` when it, or its topic, is gone.
fn locked_comment(conn: &mut DbConnection, team: &str, id: &str) -> DbResult<Option<CommentRow>> {
    let Some(found) = comment_row(conn, team, id)? else {
        return Ok(None);
    };
    if lock_topic(conn, team, &found.topic_id, Lock::Update)?.is_none() {
        return Ok(None);
    }
    comment_row(conn, team, id)
}

/// Whether any comment answers `id` (by the `parent_id` index).
fn answered(conn: &mut DbConnection, id: &str) -> DbResult<bool> {
    Ok(diesel::select(diesel::dsl::exists(
        topic_comments::table.filter(topic_comments::parent_id.eq(id)),
    ))
    .get_result::<bool>(conn)?)
}

/// How a topic is looked up.
enum Key {
    Id(String),
    UrlId(String),
}

/// The topic in the team, as a view.
fn read_view(conn: &mut DbConnection, team: &str, key: Key) -> DbResult<Option<TopicView>> {
    let in_team = topics::table
        .filter(topics::team_id.eq(team))
        .select(TopicRow::as_select());
    let row = match key {
        Key::Id(id) => in_team.filter(topics::id.eq(id)).get_result(conn),
        Key::UrlId(url_id) => in_team.filter(topics::url_id.eq(url_id)).get_result(conn),
    }
    .optional()?;
    Ok(match row {
        Some(row) => views(conn, team, vec![row])?.pop(),
        None => None,
    })
}

#[async_trait]
impl TopicStore for DieselStore {
    async fn insert_topic(
        &self,
        topic: &Topic,
        new_creator: Option<Subscriber>,
        events: &[NewEvent],
    ) -> StoreResult<()> {
        let events = events.to_vec();
        let row = TopicRow::new_topic(topic);
        let creator = new_creator.as_ref().map(SubscriberRow::from_domain);
        self.run(move |conn| {
            let row = row?;
            let creator = creator.transpose()?;
            write_tx(conn, |conn| {
                if let Some(creator) = &creator {
                    diesel::insert_into(subscribers::table)
                        .values(creator)
                        .execute(conn)?;
                }
                // A taken url id violates `topics_team_id_url_id_key`, reported as
                // `topic_url_id`; the rollback takes the new creator back too.
                diesel::insert_into(topics::table)
                    .values(&row)
                    .execute(conn)?;
                follow(
                    conn,
                    &row.team_id,
                    &row.id,
                    &row.subscriber_id,
                    row.created_at,
                )?;
                insert_events(conn, &events)
            })
        })
        .await
    }

    async fn topic(&self, team: TeamId, id: TopicId) -> StoreResult<Option<TopicView>> {
        let key = (team, id);
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read_cached(
            |cache| &cache.topics,
            Some(key),
            move |conn| tx::read(conn, |conn| read_view(conn, &team, Key::Id(id))),
        )
        .await
    }

    async fn topic_by_url_id(&self, team: TeamId, url_id: &str) -> StoreResult<Option<TopicView>> {
        let (team, url_id) = (team.to_string(), url_id.to_owned());
        self.run_read(move |conn| read_view(conn, &team, Key::UrlId(url_id)))
            .await
    }

    async fn edit_topic(
        &self,
        team: TeamId,
        id: TopicId,
        edit: Edit<TopicView>,
    ) -> StoreResult<Edited<TopicView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.edit(
            edit,
            move |conn| {
                // Locked first on PostgreSQL: a concurrent edit, vote or delete waits.
                if lock_topic(conn, &team, &id, Lock::Update)?.is_none() {
                    return Ok(None);
                }
                read_view(conn, &team, Key::Id(id))
            },
            |conn, _, after| {
                let topic = &after.topic;
                diesel::update(
                    topics::table
                        .filter(topics::id.eq(topic.id.to_string()))
                        .filter(topics::team_id.eq(topic.team_id.to_string())),
                )
                .set(&TopicChanges::of(topic)?)
                .execute(conn)
                .map_err(DbError::from)?;
                Ok(())
            },
        )
        .await
    }

    async fn delete_topic(
        &self,
        team: TeamId,
        id: TopicId,
        events: &[NewEvent],
    ) -> StoreResult<bool> {
        let events = events.to_vec();
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                if lock_topic(conn, &team, &id, Lock::Delete)?.is_none() {
                    return Ok(false);
                }
                // Explicit rather than by cascade, so the statements say what goes.
                diesel::delete(topic_visits::table.filter(topic_visits::topic_id.eq(&id)))
                    .execute(conn)?;
                diesel::delete(topic_follows::table.filter(topic_follows::topic_id.eq(&id)))
                    .execute(conn)?;
                diesel::delete(topic_votes::table.filter(topic_votes::topic_id.eq(&id)))
                    .execute(conn)?;
                diesel::delete(topic_comments::table.filter(topic_comments::topic_id.eq(&id)))
                    .execute(conn)?;
                diesel::delete(topics::table.find(&id)).execute(conn)?;
                insert_events(conn, &events)?;
                Ok(true)
            })
        })
        .await
    }

    async fn list_topics(&self, team: TeamId, query: &TopicQuery) -> StoreResult<Paged<TopicView>> {
        let (team, query) = (team.to_string(), *query);
        self.run_read(move |conn| list::list(conn, &team, &query))
            .await
    }

    async fn record_topic_visit(
        &self,
        team: TeamId,
        visit: &TopicVisit,
    ) -> StoreResult<Option<i64>> {
        let (team, id) = (team.to_string(), visit.topic.to_string());
        let (viewer, cutoff) = (visit.viewer.clone(), to_db_time(visit.cutoff()));
        let now = to_db_time(visit.at);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // Locked first on PostgreSQL: one topic's visits are counted one at a time.
                let Some((_, visits)) = lock_topic(conn, &team, &id, Lock::Update)? else {
                    return Ok(None);
                };
                // A first view inserts the viewer's row; if it is there already (also when a
                // concurrent first view got in first), a view counts only when the last one
                // that counted is at least the window old.
                let first = per_backend!(conn, |inner| diesel::insert_into(topic_visits::table)
                    .values((
                        topic_visits::topic_id.eq(&id),
                        topic_visits::viewer.eq(&viewer),
                        topic_visits::last_counted_at.eq(now),
                    ))
                    .on_conflict((topic_visits::topic_id, topic_visits::viewer))
                    .do_nothing()
                    .execute(inner))?;
                let counts = first == 1
                    || diesel::update(
                        topic_visits::table
                            .filter(topic_visits::topic_id.eq(&id))
                            .filter(topic_visits::viewer.eq(&viewer))
                            .filter(topic_visits::last_counted_at.le(cutoff)),
                    )
                    .set(topic_visits::last_counted_at.eq(now))
                    .execute(conn)?
                        == 1;
                if !counts {
                    return Ok(Some(visits));
                }
                let visits = diesel::update(topics::table.find(&id))
                    .set(topics::visits.eq(topics::visits + 1))
                    .returning(topics::visits)
                    .get_result::<i64>(conn)?;
                Ok(Some(visits))
            })
        })
        .await
    }

    async fn cast_topic_vote(
        &self,
        team: TeamId,
        vote: &TopicVote,
        events: &[NewEvent],
    ) -> StoreResult<TopicVoteOutcome> {
        let events = events.to_vec();
        let vote = vote.clone();
        let row = VoteRow::new(&team.to_string(), &vote);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // Locked first on PostgreSQL: concurrent votes on one topic queue here, and the
                // topic cannot go away before the vote is in.
                if lock_topic(conn, &row.team_id, &row.topic_id, Lock::Update)?.is_none() {
                    return Ok(TopicVoteOutcome::NotFound);
                }
                // A second vote of the subscriber hits the unique (topic_id, creator_id) index
                // and inserts nothing, without failing the transaction.
                let inserted = per_backend!(conn, |inner| diesel::insert_into(topic_votes::table)
                    .values(&row)
                    .on_conflict((topic_votes::topic_id, topic_votes::creator_id))
                    .do_nothing()
                    .execute(inner))?;
                if inserted == 0 {
                    return Ok(TopicVoteOutcome::AlreadyVoted);
                }
                let vote_count = add_votes(conn, &row.topic_id, 1)?;
                insert_events(conn, &events)?;
                Ok(TopicVoteOutcome::Cast { vote, vote_count })
            })
        })
        .await
    }

    async fn retract_topic_vote(
        &self,
        team: TeamId,
        topic: TopicId,
        subscriber: SubscriberId,
    ) -> StoreResult<Option<i64>> {
        let (team, id, subscriber) = (team.to_string(), topic.to_string(), subscriber.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let Some((count, _)) = lock_topic(conn, &team, &id, Lock::Update)? else {
                    return Ok(None);
                };
                let deleted = diesel::delete(
                    topic_votes::table
                        .filter(topic_votes::topic_id.eq(&id))
                        .filter(topic_votes::creator_id.eq(&subscriber)),
                )
                .execute(conn)?;
                if deleted == 0 {
                    return Ok(Some(count));
                }
                Ok(Some(add_votes(conn, &id, -1)?))
            })
        })
        .await
    }

    async fn topic_vote_state(
        &self,
        team: TeamId,
        topic: TopicId,
        subscriber: Option<SubscriberId>,
    ) -> StoreResult<Option<TopicVoteState>> {
        let (team, id) = (team.to_string(), topic.to_string());
        let subscriber = subscriber.map(|s| s.to_string());
        self.run_read(move |conn| {
            let Some(count) = topics::table
                .filter(topics::id.eq(&id))
                .filter(topics::team_id.eq(&team))
                .select(topics::vote_count)
                .get_result::<i64>(conn)
                .optional()?
            else {
                return Ok(None);
            };
            let voted = match subscriber {
                Some(subscriber) => topic_votes::table
                    .filter(topic_votes::topic_id.eq(&id))
                    .filter(topic_votes::creator_id.eq(subscriber))
                    .select(topic_votes::id)
                    .get_result::<String>(conn)
                    .optional()?
                    .is_some(),
                None => false,
            };
            Ok(Some(TopicVoteState { count, voted }))
        })
        .await
    }

    async fn insert_topic_comment(
        &self,
        comment: &TopicComment,
        events: &[NewEvent],
    ) -> StoreResult<bool> {
        let events = events.to_vec();
        let row = CommentRow::from_domain(comment);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                if lock_topic(conn, &row.team_id, &row.topic_id, Lock::Update)?.is_none() {
                    return Ok(false);
                }
                // A reply needs its parent, on the same topic and not deleted, as it is now
                // (a moderator may have removed it since the use case read it).
                if let Some(parent) = &row.parent_id {
                    let live = topic_comments::table
                        .filter(topic_comments::id.eq(parent))
                        .filter(topic_comments::topic_id.eq(&row.topic_id))
                        .filter(topic_comments::deleted_at.is_null())
                        .select(topic_comments::id)
                        .get_result::<String>(conn)
                        .optional()?;
                    if live.is_none() {
                        return Ok(false);
                    }
                }
                diesel::insert_into(topic_comments::table)
                    .values(&row)
                    .execute(conn)?;
                let root = i64::from(row.parent_id.is_none());
                add_comments(conn, &row.topic_id, 1, root)?;
                follow(
                    conn,
                    &row.team_id,
                    &row.topic_id,
                    &row.creator_id,
                    row.created_at,
                )?;
                insert_events(conn, &events)?;
                Ok(true)
            })
        })
        .await
    }

    async fn topic_comment(
        &self,
        team: TeamId,
        id: TopicCommentId,
    ) -> StoreResult<Option<TopicComment>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read(move |conn| {
            topic_comments::table
                .filter(topic_comments::id.eq(id))
                .filter(topic_comments::team_id.eq(team))
                .select(CommentRow::as_select())
                .get_result(conn)
                .optional()?
                .map(CommentRow::into_domain)
                .transpose()
        })
        .await
    }

    async fn topic_comment_view(
        &self,
        team: TeamId,
        id: TopicCommentId,
    ) -> StoreResult<Option<TopicCommentView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read(move |conn| match comment_row(conn, &team, &id)? {
            Some(row) => Ok(Some(comment_view(conn, &team, row)?)),
            None => Ok(None),
        })
        .await
    }

    async fn edit_topic_comment(
        &self,
        team: TeamId,
        id: TopicCommentId,
        edit: Edit<TopicCommentView>,
    ) -> StoreResult<Edited<TopicCommentView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.edit(
            edit,
            move |conn| match locked_comment(conn, &team, &id)? {
                Some(row) => Ok(Some(comment_view(conn, &team, row)?)),
                None => Ok(None),
            },
            |conn, _, after| {
                let c = &after.comment;
                diesel::update(
                    topic_comments::table
                        .filter(topic_comments::id.eq(c.id.to_string()))
                        .filter(topic_comments::team_id.eq(c.team_id.to_string())),
                )
                .set((
                    topic_comments::text.eq(&c.text),
                    topic_comments::updated_at.eq(to_db_time(c.updated_at)),
                    topic_comments::deleted_at.eq(c.deleted_at.map(to_db_time)),
                ))
                .execute(conn)
                .map_err(DbError::from)?;
                Ok(())
            },
        )
        .await
    }

    async fn delete_topic_comment(
        &self,
        team: TeamId,
        id: TopicCommentId,
        now: Timestamp,
        events: RemovalEvents<TopicCommentView>,
    ) -> StoreResult<Option<TopicCommentView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let Some(row) = locked_comment(conn, &team, &id)? else {
                    return Ok(None);
                };
                let topic = row.topic_id.clone();
                let view = comment_view(conn, &team, row)?;
                if view.comment.is_deleted() {
                    return Ok(None);
                }
                // How many top-level rows the removal takes (a tombstone stays listed).
                let roots_removed = match TopicComment::removal(answered(conn, &id)?) {
                    Removal::Tombstone => {
                        let mut tombstone = view.comment.clone();
                        tombstone.tombstone(now);
                        diesel::update(topic_comments::table.find(&id))
                            .set((
                                topic_comments::text.eq(&tombstone.text),
                                topic_comments::updated_at.eq(to_db_time(tombstone.updated_at)),
                                topic_comments::deleted_at.eq(tombstone.deleted_at.map(to_db_time)),
                            ))
                            .execute(conn)?;
                        0
                    }
                    Removal::Remove => {
                        diesel::delete(topic_comments::table.find(&id)).execute(conn)?;
                        // Each tombstone above it left without replies goes too.
                        let mut parent = view.comment.parent_id.map(|p| p.to_string());
                        let mut root_gone = parent.is_none();
                        while let Some(above) = parent {
                            let Some(row) = comment_row(conn, &team, &above)? else {
                                break;
                            };
                            if row.deleted_at.is_none() || answered(conn, &above)? {
                                break;
                            }
                            diesel::delete(topic_comments::table.find(&above)).execute(conn)?;
                            root_gone = row.parent_id.is_none();
                            parent = row.parent_id;
                        }
                        i64::from(root_gone)
                    }
                };
                add_comments(conn, &topic, -1, -roots_removed)?;
                insert_events(conn, &events(&view))?;
                Ok(Some(view))
            })
        })
        .await
    }

    async fn comment_threads(
        &self,
        team: TeamId,
        query: &ThreadQuery,
    ) -> StoreResult<Paged<CommentThread>> {
        let key = (team, *query);
        let (team, query) = (team.to_string(), *query);
        self.run_read_cached(
            |cache| &cache.threads,
            Some(key),
            move |conn| tx::read(conn, |conn| threads::threads(conn, &team, &query)),
        )
        .await
    }

    async fn set_topic_following(
        &self,
        team: TeamId,
        topic: TopicId,
        subscriber: SubscriberId,
        follow_it: bool,
        at: Timestamp,
    ) -> StoreResult<bool> {
        let (team, id, subscriber) = (team.to_string(), topic.to_string(), subscriber.to_string());
        let at = to_db_time(at);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                if lock_topic(conn, &team, &id, Lock::KeyShare)?.is_none() {
                    return Ok(false);
                }
                if follow_it {
                    follow(conn, &team, &id, &subscriber, at)?;
                } else {
                    unfollow(conn, &id, &subscriber)?;
                }
                Ok(true)
            })
        })
        .await
    }

    async fn topic_followers(
        &self,
        team: TeamId,
        topic: TopicId,
    ) -> StoreResult<Vec<SubscriberId>> {
        let (team, id) = (team.to_string(), topic.to_string());
        self.run_read(move |conn| followers(conn, &team, &id)).await
    }
}
