//! Webhook subscriptions, deliveries and the sender that makes the attempts.

use crate::{ids::TeamId, page::Paged, ports::StoreResult, timestamp::Timestamp};
use async_trait::async_trait;

/// Webhook subscriptions and their durable deliveries. Events reach deliveries by fan-out from
/// the outbox; workers lease due deliveries so no two send the same attempt at once.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait WebhookStore: Send + Sync {
    /// Inserts the subscription unless the team already has one of the same `target_url` and
    /// `event`; returns the stored one either way (an existing one keeps its id, secret and
    /// date). Atomic: identical inserts at once leave one subscription.
    async fn insert_webhook(
        &self,
        webhook: &crate::webhook::WebhookSubscription,
    ) -> StoreResult<crate::webhook::WebhookSubscription>;
    /// The team's subscriptions, oldest first.
    async fn webhooks(&self, team: TeamId)
        -> StoreResult<Vec<crate::webhook::WebhookSubscription>>;
    /// The team's subscription; `None` when the team has none with this id.
    async fn webhook(
        &self,
        team: TeamId,
        id: crate::ids::WebhookId,
    ) -> StoreResult<Option<crate::webhook::WebhookSubscription>>;
    /// Removes the subscription; its deliveries not yet done end `failed`. `false` when none.
    async fn delete_webhook(&self, team: TeamId, id: crate::ids::WebhookId) -> StoreResult<bool>;

    /// Turns up to `limit` outbox events not yet fanned out (oldest first) into one pending
    /// delivery per subscription of the event's team and name, due at `now`, and marks the
    /// events fanned out — one transaction. The number of events taken. An event no
    /// subscription wanted when it was written is never taken (`OutboxStore`).
    async fn fan_out(&self, now: Timestamp, limit: i64) -> StoreResult<usize>;
    /// Leases up to `request.limit` pending deliveries due by `request.now` whose lease is
    /// free or expired, to `request.owner` until `request.until()`. Two workers never get the
    /// same delivery.
    async fn lease_deliveries(
        &self,
        request: &crate::webhook::LeaseRequest,
    ) -> StoreResult<Vec<crate::webhook::LeasedDelivery>>;
    /// Records an attempt of a delivery `owner` still leases, and releases the lease;
    /// `Failed { unsubscribe: true }` also removes the subscription. `false` when the lease was
    /// lost (nothing written).
    async fn record_attempt(
        &self,
        id: crate::ids::DeliveryId,
        owner: &str,
        record: &crate::webhook::AttemptRecord,
    ) -> StoreResult<bool>;
    /// One page of the team's deliveries, newest first, and the total.
    async fn deliveries(
        &self,
        team: TeamId,
        query: &crate::webhook::DeliveryQuery,
    ) -> StoreResult<Paged<crate::webhook::Delivery>>;
    /// Gives back, without an attempt, the leases `owner` holds on these deliveries: they are
    /// due again at once, for any worker. Ids not leased by `owner` are left alone.
    async fn release_leases(&self, owner: &str, ids: &[crate::ids::DeliveryId]) -> StoreResult<()>;
    /// Makes a delivery pending again, due at `now`, with a fresh retry horizon. `false` when
    /// it is not the team's or its subscription is gone. Conflict `delivery_in_flight`
    /// (nothing changed) while a worker's lease on it is live (`lease_until > now`), so an
    /// attempt under way is never doubled.
    async fn redeliver(
        &self,
        team: TeamId,
        id: crate::ids::DeliveryId,
        now: Timestamp,
    ) -> StoreResult<bool>;
    /// How many deliveries are pending (due now or waiting for a retry), counting no further
    /// than `at_most`: the size of the backlog, for monitoring, at a cost bounded by `at_most`.
    async fn pending_deliveries(&self, at_most: i64) -> StoreResult<i64>;
    /// Retention: deletes up to `limit` finished deliveries last changed before `before`, then
    /// up to `limit` outbox events fanned out before `before` with no delivery left
    /// (`retention`'s rules) — one short transaction. Pending deliveries, events not yet
    /// fanned out and events with a delivery left are never deleted. Safe to run on several
    /// instances at once: rows another prune holds are skipped, never waited for.
    async fn prune_finished(
        &self,
        before: Timestamp,
        limit: i64,
    ) -> StoreResult<crate::retention::Pruned>;
}

/// Looks up the addresses a host name has now, so a webhook target that resolves to a private
/// address is refused when it is subscribed (it is checked again at every connection).
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait HostResolver: Send + Sync {
    /// The addresses of `host`; empty when it does not resolve (or not in time).
    async fn resolve(&self, host: &str) -> Vec<std::net::IpAddr>;
}

/// Sends one webhook attempt: signs it (Standard Webhooks), posts it, and reports what came
/// back. Never follows redirects; refuses addresses the target policy forbids.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// Makes one attempt and reports how it went; a failure to connect or a refused address
    /// is an outcome too, never an error of the call.
    async fn send(
        &self,
        request: &crate::webhook::WebhookRequest,
    ) -> crate::webhook::AttemptOutcome;

    /// How many attempts to `target_url`'s target (scheme, host, port) the sender takes at
    /// once now: the most a pass may lease for it, so that none waits in the sender while its
    /// lease runs out (and another instance could send it too).
    fn attempts_at_once(&self, target_url: &str) -> usize;
}
