//! Feedback items with their votes, comments and follows. Every write is one `write_tx` that
//! also appends the events it causes; the vote and comment counts on the item change in the
//! transaction that adds or removes the row they count.
//!
//! Writes that depend on the item existing first read it with a row lock on PostgreSQL
//! (`lock_item`), so a concurrent delete of the item waits for them (or they for it) instead
//! of a foreign key failing half-way; on SQLite `BEGIN IMMEDIATE` already serializes writers.

mod cast;
mod curation;
mod insert;
mod list;
mod rows;
mod view;

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::{
    edit::{Blocked, Edit, Edited, RemovalEvents},
    event::NewEvent,
    feedback::{Feedback, FeedbackQuery, FeedbackReach, FeedbackView},
    feedback_comment::{CommentQuery, CommentSort, CommentView, Direction, FeedbackComment},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome, VoteState},
    ids::{FeedbackCommentId, FeedbackId, SubscriberId, TagId, TeamId},
    page::Paged,
    ports::{FeedbackStore, StoreResult},
    timestamp::Timestamp,
    DomainError, Entity,
};

use self::cast::{QueuedVote, VoteBatcher};
use self::insert::{ItemBatcher, QueuedItem};
use self::rows::{follow, followers, unfollow, CommentRow, FeedbackRow, VoteRow};
use self::view::Pick;
use super::{
    lock::{lock_row, Lock},
    outbox::insert_events,
    parse_id,
    subscribers::people_by_id,
    tags::known_tags,
    to_db_time,
};
use crate::{
    connection::DbConnection,
    edits::locked,
    error::{DbError, DbResult},
    failed,
    one_of::one_of,
    raw_sql::{add_to_count, KeptCount, RawSql},
    schema::{feedback, feedback_comments, feedback_follows, feedback_vote_counts, feedback_votes},
    tx::{self, write_tx},
    DieselStore,
};

/// PostgreSQL only: the queues of writes run together while others of their kind run (`batch`).
pub(crate) struct Batches {
    votes: VoteBatcher,
    items: ItemBatcher,
}

impl Batches {
    /// Empty queues: a store with settings of its own needs its own (`batch`).
    pub(crate) fn new() -> Self {
        Self {
            votes: cast::vote_batcher(),
            items: insert::item_batcher(),
        }
    }
}

/// Whether the item exists in the team, its row locked as asked on PostgreSQL. Its vote count
/// row is written only under this lock (or by a trigger of the item's own row).
fn lock_item(conn: &mut DbConnection, team: &str, id: &str, lock: Lock) -> DbResult<bool> {
    let item = || {
        feedback::table
            .filter(feedback::id.eq(id))
            .filter(feedback::team_id.eq(team))
            .select(feedback::id)
    };
    let found: Option<String> = lock_row!(conn, item(), lock)?;
    Ok(found.is_some())
}

/// The item's vote count; `None` when the team has no such item.
fn vote_count(conn: &mut DbConnection, team: &str, id: &str) -> DbResult<Option<i64>> {
    Ok(feedback_vote_counts::table
        .filter(feedback_vote_counts::id.eq(id))
        .filter(feedback_vote_counts::team_id.eq(team))
        .select(feedback_vote_counts::vote_count)
        .get_result(conn)
        .optional()?)
}

/// Who may read the item: one statement, where its view takes four. With `lock`, the item is
/// locked as asked on PostgreSQL, so a public vote locks the item and checks it in one
/// statement. `None` when there is no such item.
fn reach(
    conn: &mut DbConnection,
    team: &str,
    id: &str,
    lock: Option<Lock>,
) -> DbResult<Option<FeedbackReach>> {
    let mut sql = reach_sql(team, id);
    if let (Some(lock), DbConnection::Postgresql(_)) = (lock, &*conn) {
        sql.push(lock.clause());
    }
    let found: Vec<ReachRow> = sql.load(conn)?;
    Ok(found.into_iter().next().map(|row| FeedbackReach {
        published: row.published,
        board_is_public: row.board_is_public,
    }))
}

/// The item's id, `published`, `archived` and `board_is_public` (NULL when on no board): what
/// decides who may read it, for `reach` and the one-statement vote (`cast`) to read and lock.
fn reach_sql(team: &str, id: &str) -> RawSql {
    // The board by a subquery rather than a join: PostgreSQL then locks the item alone (a lock
    // may not reach the nullable side of an outer join).
    let mut sql = RawSql::new();
    sql.push(
        "SELECT f.id, f.published_at IS NOT NULL AS published, \
         f.archived_at IS NOT NULL AS archived, (SELECT b.is_public FROM feedback_boards b \
         WHERE b.id = f.board_id AND b.team_id = f.team_id) AS board_is_public \
         FROM feedback f WHERE f.id = ",
    )
    .text(id)
    .push(" AND f.team_id = ")
    .text(team);
    sql
}

#[derive(QueryableByName)]
struct ReachRow {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    published: bool,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Bool>)]
    board_is_public: Option<bool>,
}

/// Adds `delta` to the item's vote count; the count after.
fn add_votes(conn: &mut DbConnection, id: &str, delta: i64) -> DbResult<i64> {
    add_to_count(conn, VOTES, id, delta)
}

const VOTES: KeptCount = KeptCount {
    table: "feedback_vote_counts",
    column: "vote_count",
};
const COMMENTS: KeptCount = KeptCount {
    table: "feedback",
    column: "comment_count",
};
/// Of `COMMENTS`, the private ones: the comment list's total for a caller who may not see
/// them is the difference (`comments`).
const PRIVATE_COMMENTS: KeptCount = KeptCount {
    table: "feedback",
    column: "private_comment_count",
};

/// The team's comment with its author; locked on PostgreSQL when `lock` (see `edits::locked`).
fn read_comment(
    conn: &mut DbConnection,
    team: &str,
    id: &str,
    lock: bool,
) -> DbResult<Option<CommentView>> {
    // Built per use: the locking clause is PostgreSQL's.
    macro_rules! comment {
        () => {
            feedback_comments::table
                .filter(feedback_comments::id.eq(id))
                .filter(feedback_comments::team_id.eq(team))
                .select(CommentRow::as_select())
        };
    }
    let row: Option<CommentRow> = if lock {
        locked!(conn, comment!())?
    } else {
        comment!().get_result(conn).optional()?
    };
    let Some(row) = row else {
        return Ok(None);
    };
    let author = people_by_id(conn, team, [row.subscriber_id.as_str()])?.remove(&row.subscriber_id);
    Ok(Some(CommentView {
        comment: row.into_domain()?,
        author,
    }))
}

/// The team's comment, locked as a writer of its item's counts must take it on PostgreSQL:
/// the item first (every writer of its counts locks it), then the comment again, as it is now
/// (a concurrent delete may have taken it). `None` when either is gone.
fn lock_comment_and_item(
    conn: &mut DbConnection,
    team: &str,
    id: &str,
) -> DbResult<Option<CommentView>> {
    let Some(found) = read_comment(conn, team, id, false)? else {
        return Ok(None);
    };
    let item = found.comment.feedback_id.to_string();
    if !lock_item(conn, team, &item, Lock::Update)? {
        return Ok(None);
    }
    read_comment(conn, team, id, true)
}

/// The item in the team, as a view, in one statement (`view`).
fn read_view(
    conn: &mut DbConnection,
    team: &str,
    pick: Pick<'_>,
) -> DbResult<Option<FeedbackView>> {
    Ok(view::read(conn, team, pick)?.pop())
}

#[async_trait]
impl FeedbackStore for DieselStore {
    async fn insert_feedback(
        &self,
        feedback: &Feedback,
        tags: &[TagId],
        events: &[NewEvent],
    ) -> StoreResult<()> {
        let row = FeedbackRow::new_item(feedback).map_err(failed)?;
        let mut tags: Vec<String> = tags.iter().map(ToString::to_string).collect();
        tags.sort();
        tags.dedup();
        match &self.batches {
            Some(batches) if QueuedItem::fits(&tags, events) => {
                let queued = QueuedItem::new(row, events);
                self.noted(batches.items.submit(self, queued).await)
            }
            _ => {
                let events = events.to_vec();
                self.run(move |conn| insert::insert_alone(conn, &row, &tags, &events))
                    .await
            }
        }
    }

    async fn feedback(&self, team: TeamId, id: FeedbackId) -> StoreResult<Option<FeedbackView>> {
        let key = (team, id);
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read_cached(
            |cache| &cache.items,
            Some(key),
            move |conn| read_view(conn, &team, Pick::Id(&id)),
        )
        .await
    }

    async fn feedback_reach(
        &self,
        team: TeamId,
        id: FeedbackId,
    ) -> StoreResult<Option<FeedbackReach>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read_one(move |conn| reach(conn, &team, &id, None))
            .await
    }

    async fn feedback_by_url_id(
        &self,
        team: TeamId,
        url_id: &str,
    ) -> StoreResult<Option<FeedbackView>> {
        let (team, url_id) = (team.to_string(), url_id.to_owned());
        self.run_read_one(move |conn| read_view(conn, &team, Pick::UrlId(&url_id)))
            .await
    }

    async fn edit_feedback(
        &self,
        team: TeamId,
        id: FeedbackId,
        edit: Edit<FeedbackView>,
    ) -> StoreResult<Edited<FeedbackView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.edit(
            edit,
            move |conn| {
                // Locked first on PostgreSQL: a concurrent edit, vote or delete of the item
                // waits for this one.
                if !lock_item(conn, &team, &id, Lock::Update)? {
                    return Ok(None);
                }
                read_view(conn, &team, Pick::Id(&id))
            },
            |conn, before, after| {
                let (team, id) = (
                    after.feedback.team_id.to_string(),
                    after.feedback.id.to_string(),
                );
                let tags = (before.tags != after.tags).then(|| {
                    let mut ids: Vec<String> =
                        after.tags.iter().map(|t| t.id.to_string()).collect();
                    ids.sort();
                    ids.dedup();
                    ids
                });
                // Refused before anything is written.
                if let Some(tags) = &tags {
                    if known_tags(conn, &team, tags)? != tags.len() as i64 {
                        return Err(Blocked::Refused(DomainError::NotFound(Entity::Tag)));
                    }
                }
                if before.feedback != after.feedback {
                    curation::save_fields(conn, &after.feedback)?;
                }
                if let Some(tags) = &tags {
                    curation::retag(conn, &team, &id, tags)?;
                }
                Ok(())
            },
        )
        .await
    }

    async fn delete_feedback(
        &self,
        team: TeamId,
        id: FeedbackId,
        events: &[NewEvent],
    ) -> StoreResult<bool> {
        let events = events.to_vec();
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                if !lock_item(conn, &team, &id, Lock::Delete)? {
                    return Ok(false);
                }
                // Explicit rather than by cascade, so the statement says what goes.
                diesel::delete(
                    feedback_follows::table.filter(feedback_follows::feedback_id.eq(&id)),
                )
                .execute(conn)?;
                diesel::delete(
                    feedback_comments::table.filter(feedback_comments::feedback_id.eq(&id)),
                )
                .execute(conn)?;
                diesel::delete(feedback_votes::table.filter(feedback_votes::feedback_id.eq(&id)))
                    .execute(conn)?;
                diesel::delete(feedback::table.find(&id)).execute(conn)?;
                insert_events(conn, &events)?;
                Ok(true)
            })
        })
        .await
    }

    async fn list_feedback(
        &self,
        team: TeamId,
        query: &FeedbackQuery,
    ) -> StoreResult<Paged<FeedbackView>> {
        let key = crate::read_cache::list_key(team, query);
        let (team, query) = (team.to_string(), query.clone());
        self.run_read_cached(
            |cache| &cache.lists,
            key,
            move |conn| tx::read(conn, |conn| list::list(conn, &team, &query)),
        )
        .await
    }

    async fn cast_vote(
        &self,
        team: TeamId,
        vote: &FeedbackVote,
        access: VoteAccess,
        events: &[NewEvent],
    ) -> StoreResult<VoteOutcome> {
        let queued = QueuedVote::new(&team.to_string(), vote, access, events);
        match &self.batches {
            Some(batches) if queued.batches() => {
                self.noted(batches.votes.submit(self, queued).await)
            }
            _ => self.run(move |conn| cast::cast_alone(conn, &queued)).await,
        }
    }

    async fn retract_vote(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: SubscriberId,
    ) -> StoreResult<Option<i64>> {
        let (team, id, subscriber) = (
            team.to_string(),
            feedback.to_string(),
            subscriber.to_string(),
        );
        self.run(move |conn| {
            write_tx(conn, |conn| {
                if !lock_item(conn, &team, &id, Lock::Update)? {
                    return Ok(None);
                }
                let deleted = diesel::delete(
                    feedback_votes::table
                        .filter(feedback_votes::feedback_id.eq(&id))
                        .filter(feedback_votes::subscriber_id.eq(&subscriber)),
                )
                .execute(conn)?;
                if deleted == 0 {
                    // The item is there (locked above), so is its count.
                    let count = vote_count(conn, &team, &id)?;
                    return Ok(Some(count.ok_or(diesel::result::Error::NotFound)?));
                }
                Ok(Some(add_votes(conn, &id, -1)?))
            })
        })
        .await
    }

    async fn vote_state(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: Option<SubscriberId>,
    ) -> StoreResult<Option<VoteState>> {
        let (team, id) = (team.to_string(), feedback.to_string());
        let subscriber = subscriber.map(|s| s.to_string());
        self.run_read(move |conn| {
            let Some(count) = vote_count(conn, &team, &id)? else {
                return Ok(None);
            };
            let vote = match subscriber {
                Some(subscriber) => feedback_votes::table
                    .filter(feedback_votes::feedback_id.eq(&id))
                    .filter(feedback_votes::subscriber_id.eq(subscriber))
                    .select(VoteRow::as_select())
                    .get_result(conn)
                    .optional()?
                    .map(VoteRow::into_domain)
                    .transpose()?,
                None => None,
            };
            Ok(Some(VoteState { count, vote }))
        })
        .await
    }

    async fn voted_among(
        &self,
        _team: TeamId,
        subscriber: SubscriberId,
        items: &[FeedbackId],
    ) -> StoreResult<Vec<FeedbackId>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        // The items were read in the team; a subscriber votes only in their own team.
        let subscriber = subscriber.to_string();
        let ids: Vec<String> = items.iter().map(ToString::to_string).collect();
        self.run_read(move |conn| {
            feedback_votes::table
                .filter(feedback_votes::subscriber_id.eq(&subscriber))
                .filter(one_of(feedback_votes::feedback_id, &ids))
                .select(feedback_votes::feedback_id)
                .load::<String>(conn)?
                .iter()
                .map(|id| parse_id("feedback_votes.feedback_id", id))
                .collect()
        })
        .await
    }

    async fn insert_comment(
        &self,
        comment: &FeedbackComment,
        events: &[NewEvent],
    ) -> StoreResult<bool> {
        let events = events.to_vec();
        let row = CommentRow::from_domain(comment);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                if !lock_item(conn, &row.team_id, &row.feedback_id, Lock::Update)? {
                    return Ok(false);
                }
                diesel::insert_into(feedback_comments::table)
                    .values(&row)
                    .execute(conn)?;
                add_to_count(conn, COMMENTS, &row.feedback_id, 1)?;
                if row.is_private {
                    add_to_count(conn, PRIVATE_COMMENTS, &row.feedback_id, 1)?;
                }
                follow(
                    conn,
                    &row.team_id,
                    &row.feedback_id,
                    &row.subscriber_id,
                    row.created_at,
                )?;
                insert_events(conn, &events)?;
                Ok(true)
            })
        })
        .await
    }

    async fn comments(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        query: &CommentQuery,
    ) -> StoreResult<Paged<CommentView>> {
        let (team, id, query) = (team.to_string(), feedback.to_string(), *query);
        self.run_read(move |conn| {
            // A missing item has no comments (they go with it), so no separate check.
            let visible = || {
                let mut q = feedback_comments::table
                    .filter(feedback_comments::feedback_id.eq(id.clone()))
                    .filter(feedback_comments::team_id.eq(team.clone()))
                    .into_boxed();
                if !query.include_private {
                    q = q.filter(feedback_comments::is_private.eq(false));
                }
                q
            };
            // The item's kept counts, never a count of its comments.
            let counts: Option<(i64, i64)> = feedback::table
                .filter(feedback::id.eq(&id))
                .filter(feedback::team_id.eq(&team))
                .select((feedback::comment_count, feedback::private_comment_count))
                .get_result(conn)
                .optional()?;
            let total = counts.map_or(0, |(all, private)| {
                if query.include_private {
                    all
                } else {
                    all - private
                }
            });
            let rows: Vec<CommentRow> = if total > query.page.offset {
                use feedback_comments::{created_at, id as comment_id, updated_at};
                let q = visible().select(CommentRow::as_select());
                let q = match (query.sort, query.direction) {
                    (CommentSort::CreatedAt, Direction::Asc) => {
                        q.order_by((created_at.asc(), comment_id.asc()))
                    }
                    (CommentSort::CreatedAt, Direction::Desc) => {
                        q.order_by((created_at.desc(), comment_id.desc()))
                    }
                    (CommentSort::UpdatedAt, Direction::Asc) => {
                        q.order_by((updated_at.asc(), comment_id.asc()))
                    }
                    (CommentSort::UpdatedAt, Direction::Desc) => {
                        q.order_by((updated_at.desc(), comment_id.desc()))
                    }
                };
                q.limit(query.page.limit)
                    .offset(query.page.offset)
                    .load(conn)?
            } else {
                Vec::new()
            };
            let authors = people_by_id(conn, &team, rows.iter().map(|r| r.subscriber_id.as_str()))?;
            let items = rows
                .into_iter()
                .map(|row| {
                    let author = authors.get(&row.subscriber_id).cloned();
                    Ok(CommentView {
                        comment: row.into_domain()?,
                        author,
                    })
                })
                .collect::<DbResult<Vec<_>>>()?;
            Ok(Paged {
                items,
                total,
                page: query.page,
            })
        })
        .await
    }

    async fn edit_feedback_comment(
        &self,
        team: TeamId,
        id: FeedbackCommentId,
        edit: Edit<CommentView>,
    ) -> StoreResult<Edited<CommentView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.edit(
            edit,
            // Locked as a delete locks it (a change of privacy moves a count of the item): a
            // concurrent edit or delete of the comment waits.
            move |conn| lock_comment_and_item(conn, &team, &id),
            |conn, before, after| {
                let c = &after.comment;
                if before.comment.is_private != c.is_private {
                    let delta = if c.is_private { 1 } else { -1 };
                    add_to_count(conn, PRIVATE_COMMENTS, &c.feedback_id.to_string(), delta)?;
                }
                diesel::update(
                    feedback_comments::table
                        .filter(feedback_comments::id.eq(c.id.to_string()))
                        .filter(feedback_comments::team_id.eq(c.team_id.to_string())),
                )
                .set((
                    feedback_comments::text.eq(&c.text),
                    feedback_comments::is_private.eq(c.is_private),
                    feedback_comments::updated_at.eq(to_db_time(c.updated_at)),
                ))
                .execute(conn)
                .map_err(DbError::from)?;
                Ok(())
            },
        )
        .await
    }

    async fn delete_feedback_comment(
        &self,
        team: TeamId,
        id: FeedbackCommentId,
        events: RemovalEvents<CommentView>,
    ) -> StoreResult<Option<CommentView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let Some(view) = lock_comment_and_item(conn, &team, &id)? else {
                    return Ok(None);
                };
                let item = view.comment.feedback_id.to_string();
                diesel::delete(feedback_comments::table.find(&id)).execute(conn)?;
                add_to_count(conn, COMMENTS, &item, -1)?;
                if view.comment.is_private {
                    add_to_count(conn, PRIVATE_COMMENTS, &item, -1)?;
                }
                insert_events(conn, &events(&view))?;
                Ok(Some(view))
            })
        })
        .await
    }

    async fn set_following(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: SubscriberId,
        follow_it: bool,
        at: Timestamp,
    ) -> StoreResult<bool> {
        let (team, id, subscriber) = (
            team.to_string(),
            feedback.to_string(),
            subscriber.to_string(),
        );
        let now = to_db_time(at);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                if !lock_item(conn, &team, &id, Lock::KeyShare)? {
                    return Ok(false);
                }
                if follow_it {
                    follow(conn, &team, &id, &subscriber, now)?;
                } else {
                    unfollow(conn, &id, &subscriber)?;
                }
                Ok(true)
            })
        })
        .await
    }

    async fn followers(
        &self,
        team: TeamId,
        feedback: FeedbackId,
    ) -> StoreResult<Vec<SubscriberId>> {
        let (team, id) = (team.to_string(), feedback.to_string());
        self.run_read(move |conn| followers(conn, &team, &id)).await
    }

    async fn is_following(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: SubscriberId,
    ) -> StoreResult<bool> {
        let (team, id, subscriber) = (
            team.to_string(),
            feedback.to_string(),
            subscriber.to_string(),
        );
        self.run_read_one(move |conn| {
            // By the follows' key (item, subscriber): one index probe.
            let follow = feedback_follows::table
                .filter(feedback_follows::feedback_id.eq(id))
                .filter(feedback_follows::subscriber_id.eq(subscriber))
                .filter(feedback_follows::team_id.eq(team));
            Ok(diesel::select(diesel::dsl::exists(follow)).get_result(conn)?)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering::SeqCst;

    use sounding_domain::ids::BoardId;

    use super::list::tests::{insert_item, published_item};
    use super::*;
    use crate::test_support::{count_statements, insert_board};

    /// A public vote locks the item and reads who may read it in one statement, and reads
    /// what an unlocked read reads: on a private board, on none and unpublished, and gone.
    #[test]
    fn the_locked_reach_is_one_statement_and_reads_what_reach_reads() {
        let mut conn = crate::migrations::scratch_sqlite();
        let (team, board) = (TeamId::new(), BoardId::new());
        insert_board(&mut conn, team, board, 0);
        diesel::sql_query(format!(
            "UPDATE feedback_boards SET is_public = false WHERE id = '{board}'"
        ))
        .execute(&mut conn)
        .unwrap();
        let t0 = Timestamp::from_unix_seconds(1_800_000_000).unwrap();
        let on_board = published_item(team, board, t0);
        let unboarded = Feedback {
            id: FeedbackId::new(),
            url_id: "u2".into(),
            board_id: None,
            published_at: None,
            ..on_board.clone()
        };
        insert_item(&mut conn, &on_board);
        insert_item(&mut conn, &unboarded);

        let statements = count_statements(&mut conn);
        let team = team.to_string();
        let mut found = Vec::new();
        for id in [on_board.id, unboarded.id, FeedbackId::new()] {
            let id = id.to_string();
            let before = statements.load(SeqCst);
            let locked = reach(&mut conn, &team, &id, Some(Lock::Update)).unwrap();
            assert_eq!(statements.load(SeqCst) - before, 1, "one statement");
            assert_eq!(locked, reach(&mut conn, &team, &id, None).unwrap());
            found.push(locked);
        }
        let private = FeedbackReach {
            published: true,
            board_is_public: Some(false),
        };
        let unpublished = FeedbackReach {
            published: false,
            board_is_public: None,
        };
        assert_eq!(found, [Some(private), Some(unpublished), None]);
    }
}
