//! A vote on PostgreSQL in one statement: the item locked and checked, the vote, the item's
//! count and the events, committed alone (`tx::one_statement`). The transaction it replaces
//! took six round trips (`BEGIN`, the check, the vote, the count, the event, `COMMIT`), and on
//! PostgreSQL a write's cost is mostly per statement (docs/benchmarks.md, thirteenth round).
//! SQLite, in process, keeps the transaction (`FeedbackStore::cast_vote`).
//!
//! Under READ COMMITTED the lock step waits for a concurrent writer of the item and then
//! reads the item as that writer left it; the count step, which reads the row again, adds to
//! that same latest count. A second vote of the subscriber meets the unique (feedback_id,
//! subscriber_id) index and inserts nothing, so nothing after it runs either.

use diesel::sql_types::{BigInt, Bool, Nullable};
use sounding_domain::{
    event::NewEvent,
    feedback::{FeedbackReach, PublicCondition, PUBLICLY_READABLE},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome},
};

use super::{reach_sql, rows::VoteRow};
use crate::{
    connection::DbConnection,
    error::DbResult,
    raw_sql::{Param, RawSql},
    repos::{lock::Lock, outbox},
    tx,
};

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
    .push(" FROM item WHERE TRUE");
    if access == VoteAccess::Public {
        publicly_readable(&mut sql);
    }
    sql.push(
        " ON CONFLICT (feedback_id, subscriber_id) DO NOTHING RETURNING feedback_id), \
         counted AS (UPDATE feedback SET vote_count = vote_count + 1 \
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
    let Some(found) = found.into_iter().next() else {
        return Ok(Some(VoteOutcome::NotFound));
    };
    let reach = FeedbackReach {
        published: found.published,
        board_is_public: found.board_is_public,
    };
    Ok(Some(match found.total {
        Some(total_votes) => {
            if !events.is_empty() {
                outbox::wrote_events();
            }
            VoteOutcome::Cast {
                vote: vote.clone(),
                total_votes,
            }
        }
        None if access == VoteAccess::Public && !reach.is_publicly_readable() => {
            VoteOutcome::NotPublic(reach)
        }
        None => VoteOutcome::AlreadyVoted,
    }))
}

/// The domain's `PUBLICLY_READABLE`, said in SQL over the `item` step's columns.
fn publicly_readable(sql: &mut RawSql) {
    for condition in PUBLICLY_READABLE {
        sql.push(match condition {
            PublicCondition::Published => " AND item.published",
            PublicCondition::NotArchived => " AND NOT item.archived",
            PublicCondition::OnPublicBoardOrNone => " AND item.board_is_public IS NOT FALSE",
        });
    }
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
