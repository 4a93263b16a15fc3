//! A new item on PostgreSQL in one statement: the item, its creator's follow and its events
//! as `WITH` steps, committed alone (`tx::one_statement`). The transaction it replaces took
//! six round trips (`BEGIN`, the item, the follow, two events, `COMMIT`); on PostgreSQL a
//! write's cost is mostly per statement (docs/benchmarks.md, fourteenth round). SQLite, in
//! process, keeps the transaction (`FeedbackStore::insert_feedback`), as does an item created
//! with tags, whose check and links are several statements anyway.
//!
//! The follow and the first event read the `item` step, and each event the one before it, so
//! the events keep their order in `seq`. A taken url id fails the whole statement on
//! `feedback_team_id_url_id_key`, as the transaction's `INSERT` did: nothing is left behind.

use diesel::{pg::Pg, prelude::*, query_builder::QueryFragment};
use sounding_domain::event::NewEvent;

use super::rows::FeedbackRow;
use crate::{
    error::DbResult,
    raw_sql::{FirstStep, Param, RawSql},
    repos::outbox,
    schema::feedback,
    tx,
};

/// Inserts the item in one statement; `false`, having written nothing, when its events
/// cannot be written in one (they notify followers), for the caller's transaction to do it.
pub(super) fn insert_in_one_statement(
    conn: &mut PgConnection,
    row: &FeedbackRow,
    events: &[NewEvent],
) -> DbResult<bool> {
    let Some(rest) = after_the_item(row, events) else {
        return Ok(false);
    };
    tx::one_statement(conn, |conn| statement(row, &rest).execute(conn))?;
    if !events.is_empty() {
        outbox::wrote_events();
    }
    Ok(true)
}

/// The whole statement: the item's `INSERT`, from its row's `Insertable`, then `rest`.
fn statement<'a>(
    row: &'a FeedbackRow,
    rest: &'a RawSql,
) -> FirstStep<'a, impl QueryFragment<Pg> + 'a> {
    let item = diesel::insert_into(feedback::table)
        .values(row)
        .returning(feedback::id);
    FirstStep::new("item", item, rest)
}

/// The steps after `item`: the follow and the events; `None` when the events cannot be
/// steps. The follow needs no `ON CONFLICT`: nobody follows an item that did not exist.
fn after_the_item(row: &FeedbackRow, events: &[NewEvent]) -> Option<RawSql> {
    let mut rest = RawSql::new();
    rest.push(
        ", follow AS (INSERT INTO feedback_follows (feedback_id, subscriber_id, team_id, \
         created_at) SELECT item.id, ",
    )
    .text(&row.creator_id)
    .push(", ")
    .text(&row.team_id)
    .push(", ")
    .param(Param::Timestamp(row.created_at))
    .push(" FROM item)");
    if !outbox::event_steps(&mut rest, events, "item") {
        return None;
    }
    rest.push(" SELECT item.id FROM item");
    Some(rest)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use sounding_domain::{event::EventKind, ids::TeamId, timestamp::Timestamp};

    use super::*;
    use crate::repos::feedback::rows::tests::item_with_empty_fields;

    /// The whole statement, the query builder's step included, is one PostgreSQL keeps
    /// prepared: the point of writing it in one.
    #[test]
    fn the_statement_is_kept_prepared() {
        let row = item_with_empty_fields();
        let event = NewEvent::new(
            TeamId::new(),
            EventKind::NewFeedback,
            Timestamp::UNIX_EPOCH,
            &[],
            json!({}),
        );
        let rest = after_the_item(&row, &[event]).unwrap();
        assert!(
            QueryFragment::<Pg>::is_safe_to_cache_prepared(&statement(&row, &rest), &Pg).unwrap()
        );
    }
}
