//! The event outbox.

use crate::{
    event::{NewEvent, StoredEvent},
    ids::TeamId,
    ports::StoreResult,
};
use async_trait::async_trait;

/// The events waiting to be fanned out to webhook deliveries (`WebhookStore::fan_out`). Writes
/// usually append their events themselves, in their own transaction.
///
/// An event that no subscription of its team wants (same team, same event name) when it is
/// written is stored already fanned out, at the time it occurred: fan-out never takes it,
/// and no subscription made later gets it. So a subscription receives the events written
/// while it exists, and those that were waiting for fan-out when it was made.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait OutboxStore: Send + Sync {
    /// Appends events on their own (use cases normally pass them to the write they belong to).
    async fn append_events(&self, events: &[NewEvent]) -> StoreResult<()>;
    /// The team's outbox, oldest first.
    async fn events(&self, team: TeamId) -> StoreResult<Vec<StoredEvent>>;
}
