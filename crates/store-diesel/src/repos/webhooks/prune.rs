//! Retention: deletes finished deliveries and outbox events older than a cut-off, a batch of
//! each per call, inside the caller's `worker_tx`. The conditions are the domain's
//! (`sounding_domain::retention`), spelled in SQL:
//!
//! - a delivery goes when `status <> 'pending'` and `updated_at < :before` (through
//!   `webhook_deliveries_finished_idx`, whose predicate is written as the same literal so
//!   PostgreSQL uses it in a generic plan too);
//! - then an event goes when `dispatched_at < :before` and no delivery of it is left (through
//!   `outbox_events_dispatched_idx`, and the `(event_id, webhook_id)` unique index for the
//!   check). Deliveries go first, so an event whose last deliveries this call deleted goes in
//!   the same call.
//!
//! Each `DELETE` picks its rows oldest first with a `LIMIT` in a subquery (SQLite has no
//! `DELETE … LIMIT` unless built for it). On PostgreSQL the subquery locks them
//! `FOR UPDATE SKIP LOCKED`: two instances pruning at once take different rows, and a row a
//! writer holds (a redelivery making a delivery pending again) is skipped, never waited for.
//! A row that changed before it was locked is checked again against the condition, so a
//! redelivered delivery stays. Deleting these rows takes no other lock: nothing references
//! a delivery or an outbox event by foreign key.

use sounding_domain::{retention::Pruned, timestamp::Timestamp};

use super::super::to_db_time;
use crate::{
    connection::DbConnection,
    error::DbResult,
    raw_sql::{Param, RawSql},
};

pub(super) fn prune(conn: &mut DbConnection, before: Timestamp, limit: i64) -> DbResult<Pruned> {
    if limit <= 0 {
        return Ok(Pruned::default());
    }
    let before = to_db_time(before);
    let lock = match conn {
        DbConnection::Postgresql(_) => " FOR UPDATE SKIP LOCKED",
        DbConnection::Sqlite(_) => "",
    };

    let mut deliveries = RawSql::new();
    deliveries
        .push(
            "DELETE FROM webhook_deliveries WHERE id IN (SELECT d.id FROM webhook_deliveries d \
             WHERE d.status <> 'pending' AND d.updated_at < ",
        )
        .param(Param::Timestamp(before))
        .push(" ORDER BY d.updated_at LIMIT ")
        .param(Param::BigInt(limit))
        .push(lock)
        .push(")");
    let deliveries = deliveries.execute(conn)?;

    let mut events = RawSql::new();
    events
        .push(
            "DELETE FROM outbox_events WHERE seq IN (SELECT e.seq FROM outbox_events e \
             WHERE e.dispatched_at IS NOT NULL AND e.dispatched_at < ",
        )
        .param(Param::Timestamp(before))
        .push(
            " AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id) \
             ORDER BY e.dispatched_at LIMIT ",
        )
        .param(Param::BigInt(limit))
        .push(lock)
        .push(")");
    let events = events.execute(conn)?;

    Ok(Pruned { deliveries, events })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prune_walks_the_partial_indexes_and_scans_no_table() {
        let mut conn = crate::migrations::scratch_sqlite();
        let before = Timestamp::from_unix_seconds(1_780_000_000).unwrap();
        let plans = crate::raw_sql::plans::explained(&mut conn, |conn| {
            assert_eq!(prune(conn, before, 250).unwrap(), Pruned::default());
        });
        assert_eq!(plans.len(), 2, "{plans:?}");
        let (deliveries, events) = (&plans[0], &plans[1]);
        assert!(
            deliveries.1.contains("webhook_deliveries_finished_idx"),
            "finished deliveries, oldest first, through their index: {deliveries:?}"
        );
        assert!(
            events.1.contains("outbox_events_dispatched_idx")
                && events
                    .1
                    .contains("webhook_deliveries_event_id_webhook_id_key"),
            "fanned-out events, oldest first, each checked for deliveries by index: {events:?}"
        );
        for (sql, plan) in &plans {
            assert!(
                !plan.contains("SCAN d") && !plan.contains("SCAN e"),
                "{sql}: {plan}"
            );
            assert!(!plan.contains("TEMP B-TREE"), "{sql}: {plan}");
        }
    }
}
