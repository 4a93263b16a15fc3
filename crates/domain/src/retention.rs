//! Retention of webhook history (issue 17): which outbox events and deliveries are finished,
//! and when a finished one is old enough to be pruned. Both stores apply these rules
//! (`WebhookStore::prune_finished`): the memory store calls the predicates, the diesel store
//! spells the same conditions in SQL.
//!
//! - A **delivery** is finished once it is `delivered` or `failed`; it is pruned once its last
//!   change (`updated_at`: the attempt that finished it, or the unsubscription that failed it)
//!   is older than the cut-off. A pending delivery is never pruned, however old.
//! - An **outbox event** is finished once it is fanned out and none of its deliveries is left:
//!   an event nobody subscribed to right away, one whose deliveries were all pruned (they go
//!   first, in the same pass) only after. It is pruned once it was fanned out before the
//!   cut-off. An event not yet fanned out, or with a delivery left (pending, or finished but
//!   still kept and so still redeliverable), is never pruned: a delivery needs its event's
//!   payload to be sent.

use std::time::Duration;

use crate::{timestamp::Timestamp, webhook::DeliveryStatus};

/// How long finished history is kept by default: a week.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Rows of each kind one prune transaction deletes at most: a few hundred keeps each one a
/// short write (on SQLite it holds the one write lock meanwhile).
pub const PRUNE_BATCH: i64 = 250;

/// The instant before which finished history goes: `now - retention` (the Unix epoch if that
/// would be earlier).
pub fn cutoff(now: Timestamp, retention: Duration) -> Timestamp {
    let retention = time::Duration::try_from(retention).unwrap_or(time::Duration::MAX);
    now.as_offset()
        .checked_sub(retention)
        .map_or(Timestamp::UNIX_EPOCH, Timestamp::from_offset)
        .max(Timestamp::UNIX_EPOCH)
}

/// Whether a delivery may be pruned: finished, and last changed before `cutoff`.
pub fn delivery_is_prunable(
    status: DeliveryStatus,
    updated_at: Timestamp,
    cutoff: Timestamp,
) -> bool {
    status != DeliveryStatus::Pending && updated_at < cutoff
}

/// Whether an outbox event may be pruned: fanned out before `cutoff`, and none of its
/// deliveries left.
pub fn event_is_prunable(
    dispatched_at: Option<Timestamp>,
    has_deliveries: bool,
    cutoff: Timestamp,
) -> bool {
    !has_deliveries && dispatched_at.is_some_and(|at| at < cutoff)
}

/// What one prune deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Finished deliveries deleted.
    pub deliveries: usize,
    /// Outbox events deleted.
    pub events: usize,
}

impl Pruned {
    /// Whether either kind filled its batch of `limit`, so more may be waiting.
    pub fn is_full(&self, limit: i64) -> bool {
        let limit = usize::try_from(limit.max(1)).unwrap_or(usize::MAX);
        self.deliveries >= limit || self.events >= limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(raw: &str) -> Timestamp {
        Timestamp::parse_rfc3339(raw).unwrap()
    }

    #[test]
    fn the_cutoff_is_now_minus_the_retention_and_never_before_the_epoch() {
        let now = at("2026-11-26T12:00:00.500Z");
        assert_eq!(
            cutoff(now, Duration::from_secs(2)),
            at("2026-11-26T11:59:58.500Z")
        );
        assert_eq!(
            cutoff(now, DEFAULT_RETENTION),
            at("2026-11-19T12:00:00.500Z")
        );
        assert_eq!(
            cutoff(now, Duration::from_secs(u64::MAX)),
            Timestamp::UNIX_EPOCH
        );
    }

    #[test]
    fn only_finished_deliveries_older_than_the_cutoff_are_prunable() {
        let cut = at("2026-11-26T12:00:00Z");
        let old = at("2026-11-26T11:00:00Z");
        assert!(delivery_is_prunable(DeliveryStatus::Delivered, old, cut));
        assert!(delivery_is_prunable(DeliveryStatus::Failed, old, cut));
        assert!(!delivery_is_prunable(DeliveryStatus::Pending, old, cut));
        assert!(!delivery_is_prunable(DeliveryStatus::Delivered, cut, cut));
    }

    #[test]
    fn only_fanned_out_events_without_deliveries_are_prunable() {
        let cut = at("2026-11-26T12:00:00Z");
        let old = Some(at("2026-11-26T11:00:00Z"));
        assert!(event_is_prunable(old, false, cut));
        assert!(!event_is_prunable(old, true, cut));
        assert!(!event_is_prunable(None, false, cut));
        assert!(!event_is_prunable(Some(cut), false, cut));
    }

    #[test]
    fn a_prune_is_full_when_either_kind_fills_its_batch() {
        assert!(!Pruned::default().is_full(2));
        assert!(Pruned {
            deliveries: 2,
            events: 0
        }
        .is_full(2));
        assert!(Pruned {
            deliveries: 0,
            events: 2
        }
        .is_full(2));
    }
}
