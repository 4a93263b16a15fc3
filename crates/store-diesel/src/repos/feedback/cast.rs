//! Casting a vote. On PostgreSQL in one statement: the item locked and checked, the vote, the
//! item's count and the events, committed alone (`tx::one_statement`). The transaction it
//! replaces took six round trips (`BEGIN`, the check, the vote, the count, the event,
//! `COMMIT`), and on PostgreSQL a write's cost is mostly per statement (docs/benchmarks.md,
//! thirteenth round). Votes that arrive while others are being cast go in together, in one
//! statement for them all (`cast_batch`, queued by `batch::Batcher`). SQLite, in process,
//! keeps the transaction (`cast_alone`), grouped by its writer thread.
//!
//! Under READ COMMITTED the lock step waits for a concurrent writer of the item and then
//! reads the item as that writer left it; the count step, which reads the item's vote count
//! row (`feedback_vote_counts`, written only under the item's lock), adds to its latest
//! count. The count has a row of its own so that a vote does not write a new version of the
//! item's row and all its indexes (docs/benchmarks.md, twenty-seventh round). A second vote
//! of the subscriber meets the unique (feedback_id, subscriber_id) index and inserts nothing,
//! so nothing after it runs either.

use diesel::{
    pg::Pg,
    query_builder::{AstPass, Query, QueryFragment, QueryId},
    sql_types::{Array, BigInt, Bool, Nullable, Text, Timestamp},
    PgConnection, QueryResult, RunQueryDsl,
};
use sounding_domain::{
    event::NewEvent,
    feedback::{FeedbackReach, PublicCondition, PUBLICLY_READABLE},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome},
};
use time::PrimitiveDateTime;

use super::{add_votes, lock_item, reach, reach_sql, rows::VoteRow};
use crate::{
    batch::{self, Batcher},
    connection::{per_backend, DbConnection},
    error::DbResult,
    raw_sql::{Param, RawSql},
    repos::{
        lock::Lock,
        outbox::{self, insert_events, EventColumns},
    },
    schema::feedback_votes,
    tx::{self, write_tx},
};

/// A vote waiting to be cast, with what its caller asked.
pub(crate) struct QueuedVote {
    row: VoteRow,
    vote: FeedbackVote,
    access: VoteAccess,
    events: Vec<NewEvent>,
}

impl QueuedVote {
    pub(crate) fn new(
        team: &str,
        vote: &FeedbackVote,
        access: VoteAccess,
        events: &[NewEvent],
    ) -> Self {
        Self {
            row: VoteRow::new(team, vote),
            vote: vote.clone(),
            access,
            events: events.to_vec(),
        }
    }

    /// Whether it may be cast in a batch: the batch's statement writes its events.
    pub(crate) fn batches(&self) -> bool {
        outbox::in_one_statement(&self.events)
    }
}

/// The queue of PostgreSQL votes (`DieselStore::cast_vote`).
pub(crate) type VoteBatcher = Batcher<QueuedVote, VoteOutcome>;

pub(crate) fn vote_batcher() -> VoteBatcher {
    Batcher::new(cast_batch)
}

/// Casts one vote: in one statement on PostgreSQL when its events allow, else in a write
/// transaction.
pub(crate) fn cast_alone(conn: &mut DbConnection, queued: &QueuedVote) -> DbResult<VoteOutcome> {
    let QueuedVote {
        row,
        vote,
        access,
        events,
    } = queued;
    let access = *access;
    if let DbConnection::Postgresql(_) = conn {
        if let Some(outcome) = cast_in_one_statement(conn, row, vote, access, events)? {
            return Ok(outcome);
        }
    }
    write_tx(conn, |conn| {
        // Locked first on PostgreSQL: concurrent votes on one item queue here, and the item
        // cannot go away before the vote is in. A public vote's check is read with the lock,
        // on the locked row, rather than by a read of the caller's own.
        let (team, id) = (&row.team_id, &row.feedback_id);
        if access == VoteAccess::Public {
            match reach(conn, team, id, Some(Lock::Update))? {
                None => return Ok(VoteOutcome::NotFound),
                Some(reach) if !reach.is_publicly_readable() => {
                    return Ok(VoteOutcome::NotPublic(reach))
                }
                Some(_) => {}
            }
        } else if !lock_item(conn, team, id, Lock::Update)? {
            return Ok(VoteOutcome::NotFound);
        }
        // A second vote of the subscriber hits the unique (feedback_id, subscriber_id) index
        // and inserts nothing, without failing the transaction.
        let inserted = per_backend!(conn, |inner| diesel::insert_into(feedback_votes::table)
            .values(row)
            .on_conflict((feedback_votes::feedback_id, feedback_votes::subscriber_id))
            .do_nothing()
            .execute(inner))?;
        if inserted == 0 {
            return Ok(VoteOutcome::AlreadyVoted);
        }
        let total_votes = add_votes(conn, &row.feedback_id, 1)?;
        insert_events(conn, events)?;
        Ok(VoteOutcome::Cast {
            vote: vote.clone(),
            total_votes,
        })
    })
}

/// Casts `votes` (PostgreSQL) in one statement, each vote with its own outcome, or one by one
/// should it fail, so a vote that cannot go in fails alone.
fn cast_batch(conn: &mut DbConnection, votes: Vec<QueuedVote>) -> Vec<DbResult<VoteOutcome>> {
    if !votes.iter().all(QueuedVote::batches) {
        // Not queued so (`QueuedVote::batches`): cast as ever.
        return votes.iter().map(|vote| cast_alone(conn, vote)).collect();
    }
    batch::together_or_alone(conn, &votes, cast_many, cast_alone)
}

/// The statement of `cast_batch`: each vote's outcome, in order.
fn cast_many(conn: &mut PgConnection, votes: &[QueuedVote]) -> DbResult<Vec<VoteOutcome>> {
    let mut many = CastMany {
        ord: Vec::with_capacity(votes.len()),
        id: Vec::with_capacity(votes.len()),
        team_id: Vec::with_capacity(votes.len()),
        feedback_id: Vec::with_capacity(votes.len()),
        subscriber_id: Vec::with_capacity(votes.len()),
        created_at: Vec::with_capacity(votes.len()),
        public: Vec::with_capacity(votes.len()),
        events: EventColumns::new(),
    };
    for (ord, queued) in (0..).zip(votes) {
        let row = &queued.row;
        many.ord.push(ord);
        many.id.push(&row.id);
        many.team_id.push(&row.team_id);
        many.feedback_id.push(&row.feedback_id);
        many.subscriber_id.push(&row.subscriber_id);
        many.created_at.push(row.created_at);
        many.public.push(queued.access == VoteAccess::Public);
        for event in &queued.events {
            let written = many.events.push(ord, event);
            debug_assert!(
                written,
                "`cast_batch` takes only votes whose events it can write"
            );
        }
    }
    let mut found: Vec<Option<CastRow>> = votes.iter().map(|_| None).collect();
    for row in many.load::<CastManyRow>(conn)? {
        if let Some(slot) = usize::try_from(row.ord).ok().and_then(|i| found.get_mut(i)) {
            *slot = row.published.map(|published| CastRow {
                published,
                board_is_public: row.board_is_public,
                total: row.total,
            });
        }
    }
    let mut wrote = false;
    let outcomes = votes
        .iter()
        .zip(found)
        .map(|(queued, row)| {
            let outcome = outcome(row, queued.access, &queued.vote);
            wrote |= matches!(outcome, VoteOutcome::Cast { .. }) && !queued.events.is_empty();
            outcome
        })
        .collect();
    if wrote {
        outbox::wrote_events();
    }
    Ok(outcomes)
}

/// A vote's outcome from what its statement found: the item's reach (`None`: no such item in
/// the team) and its count after the vote (`None`: no vote went in).
fn outcome(found: Option<CastRow>, access: VoteAccess, vote: &FeedbackVote) -> VoteOutcome {
    let Some(found) = found else {
        return VoteOutcome::NotFound;
    };
    let reach = FeedbackReach {
        published: found.published,
        board_is_public: found.board_is_public,
    };
    match found.total {
        Some(total_votes) => VoteOutcome::Cast {
            vote: vote.clone(),
            total_votes,
        },
        None if access == VoteAccess::Public && !reach.is_publicly_readable() => {
            VoteOutcome::NotPublic(reach)
        }
        None => VoteOutcome::AlreadyVoted,
    }
}

/// Casts the vote in one statement; `None` when its events cannot be written in one (they
/// notify followers), for the caller's transaction to do it.
pub(super) fn cast_in_one_statement(
    conn: &mut DbConnection,
    row: &VoteRow,
    vote: &FeedbackVote,
    access: VoteAccess,
    events: &[NewEvent],
) -> DbResult<Option<VoteOutcome>> {
    let mut sql = RawSql::new();
    sql.push("WITH item AS (")
        .append(reach_sql(&row.team_id, &row.feedback_id))
    .push(Lock::Update.clause())
    .push("), vote AS (INSERT INTO feedback_votes (id, team_id, feedback_id, subscriber_id, created_at) SELECT ")
    .text(&row.id)
    .push(", ")
    .text(&row.team_id)
    .push(", item.id, ")
    .text(&row.subscriber_id)
    .push(", ")
    .param(Param::Timestamp(row.created_at))
    .push(" FROM item WHERE ");
    if access == VoteAccess::Public {
        sql.push(&publicly_readable());
    } else {
        sql.push("TRUE");
    }
    sql.push(
        " ON CONFLICT (feedback_id, subscriber_id) DO NOTHING RETURNING feedback_id), \
         counted AS (UPDATE feedback_vote_counts SET vote_count = vote_count + 1 \
         WHERE id = (SELECT feedback_id FROM vote) RETURNING vote_count)",
    );
    if !outbox::event_steps(&mut sql, events, "counted") {
        return Ok(None);
    }
    sql.push(
        " SELECT item.published, item.board_is_public, \
         (SELECT vote_count FROM counted) AS total FROM item",
    );
    let found: Vec<CastRow> = tx::one_statement(conn, |conn| sql.load(conn))?;
    let outcome = outcome(found.into_iter().next(), access, vote);
    if matches!(outcome, VoteOutcome::Cast { .. }) && !events.is_empty() {
        outbox::wrote_events();
    }
    Ok(Some(outcome))
}

/// The domain's `PUBLICLY_READABLE`, said in SQL over the `item` step's columns: `TRUE AND …`.
fn publicly_readable() -> String {
    let mut sql = String::from("TRUE");
    for condition in PUBLICLY_READABLE {
        sql.push_str(match condition {
            PublicCondition::Published => " AND item.published",
            PublicCondition::NotArchived => " AND NOT item.archived",
            PublicCondition::OnPublicBoardOrNone => " AND item.board_is_public IS NOT FALSE",
        });
    }
    sql
}

#[derive(diesel::QueryableByName)]
struct CastRow {
    #[diesel(sql_type = Bool)]
    published: bool,
    #[diesel(sql_type = Nullable<Bool>)]
    board_is_public: Option<bool>,
    /// The item's count after the vote; NULL when no vote went in.
    #[diesel(sql_type = Nullable<BigInt>)]
    total: Option<i64>,
}

/// Votes as columns (`cast_many`): the statement reads them with `unnest`, so it is one text,
/// prepared once per connection, whatever the number of votes.
struct CastMany<'a> {
    ord: Vec<i64>,
    id: Vec<&'a str>,
    team_id: Vec<&'a str>,
    feedback_id: Vec<&'a str>,
    subscriber_id: Vec<&'a str>,
    created_at: Vec<PrimitiveDateTime>,
    public: Vec<bool>,
    events: EventColumns<'a>,
}

impl QueryFragment<Pg> for CastMany<'_> {
    // The steps of `cast_in_one_statement`, for many votes: the items are locked in the order
    // of their ids, so two batches never wait for each other in a circle; the count of an
    // item takes all its votes at once, and each vote's total is the count as it went in.
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("WITH input AS (SELECT * FROM unnest(");
        out.push_bind_param::<Array<BigInt>, _>(&self.ord)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.team_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.feedback_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.subscriber_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Timestamp>, _>(&self.created_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Bool>, _>(&self.public)?;
        out.push_sql(&format!(
            ") AS t(ord, id, team_id, feedback_id, subscriber_id, created_at, public)), \
             item AS (SELECT f.id, f.team_id, f.published_at IS NOT NULL AS published, \
             f.archived_at IS NOT NULL AS archived, \
             (SELECT b.is_public FROM feedback_boards b WHERE b.id = f.board_id \
             AND b.team_id = f.team_id) AS board_is_public FROM feedback f \
             WHERE (f.id, f.team_id) IN (SELECT feedback_id, team_id FROM input) \
             ORDER BY f.id{lock}), \
             vote AS (INSERT INTO feedback_votes (id, team_id, feedback_id, subscriber_id, \
             created_at) SELECT i.id, i.team_id, i.feedback_id, i.subscriber_id, i.created_at \
             FROM input i JOIN item ON item.id = i.feedback_id AND item.team_id = i.team_id \
             WHERE NOT i.public OR ({readable}) ORDER BY i.ord \
             ON CONFLICT (feedback_id, subscriber_id) DO NOTHING RETURNING id, feedback_id), \
             counted AS (UPDATE feedback_vote_counts v SET vote_count = v.vote_count + c.n \
             FROM (SELECT feedback_id, count(*) AS n FROM vote GROUP BY feedback_id) c \
             WHERE v.id = c.feedback_id RETURNING v.id, v.vote_count), \
             cast_vote AS (SELECT i.ord, counted.vote_count - count(*) OVER item_votes \
             + row_number() OVER (item_votes ORDER BY i.ord) AS total \
             FROM vote JOIN input i ON i.id = vote.id JOIN counted ON counted.id = vote.feedback_id \
             WINDOW item_votes AS (PARTITION BY vote.feedback_id))",
            lock = Lock::Update.clause(),
            readable = publicly_readable(),
        ));
        self.events.walk_step("events", "cast_vote", &mut out)?;
        out.push_sql(
            " SELECT i.ord, item.published, item.board_is_public, c.total FROM input i \
             LEFT JOIN item ON item.id = i.feedback_id AND item.team_id = i.team_id \
             LEFT JOIN cast_vote c ON c.ord = i.ord",
        );
        Ok(())
    }
}

impl QueryId for CastMany<'_> {
    type QueryId = ();
    // Kept prepared by its text, which is always the same.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for CastMany<'_> {
    type SqlType = diesel::sql_types::Untyped;
}

impl<Conn> RunQueryDsl<Conn> for CastMany<'_> {}

/// A row of `cast_many`: the vote `ord`, and `CastRow`'s columns, NULL when its item was not
/// found.
#[derive(diesel::QueryableByName)]
struct CastManyRow {
    #[diesel(sql_type = BigInt)]
    ord: i64,
    #[diesel(sql_type = Nullable<Bool>)]
    published: Option<bool>,
    #[diesel(sql_type = Nullable<Bool>)]
    board_is_public: Option<bool>,
    #[diesel(sql_type = Nullable<BigInt>)]
    total: Option<i64>,
}
