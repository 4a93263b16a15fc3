//! Retention of webhook history: one prune of finished deliveries and outbox events older than
//! the retention (`sounding_domain::retention` says what is finished). The server calls it on
//! every instance at least once a minute, again at once while batches come back full.

use std::time::Duration;

use sounding_domain::{
    ports::{Clock, WebhookStore},
    retention::{cutoff, Pruned},
};

use crate::error::AppResult;

/// Deletes up to `batch` finished deliveries and up to `batch` finished events that finished
/// more than `retention` ago, in one short transaction. `Pruned::is_full(batch)` says whether
/// more may be waiting.
pub async fn prune_history(
    webhooks: &dyn WebhookStore,
    clock: &dyn Clock,
    retention: Duration,
    batch: i64,
) -> AppResult<Pruned> {
    let before = cutoff(clock.now(), retention);
    Ok(webhooks.prune_finished(before, batch).await?)
}

#[cfg(test)]
mod tests {
    use mockall::predicate::eq;
    use sounding_domain::{
        ports::{MockClock, MockWebhookStore},
        Timestamp,
    };

    use super::*;

    #[tokio::test]
    async fn a_prune_asks_for_history_older_than_the_retention() {
        let now = Timestamp::parse_rfc3339("2026-11-26T12:00:00Z").unwrap();
        let before = Timestamp::parse_rfc3339("2026-11-19T12:00:00Z").unwrap();
        let mut clock = MockClock::new();
        clock.expect_now().return_const(now);
        let mut store = MockWebhookStore::new();
        store
            .expect_prune_finished()
            .with(eq(before), eq(250))
            .times(1)
            .returning(|_, _| {
                Ok(Pruned {
                    deliveries: 250,
                    events: 3,
                })
            });
        let pruned = prune_history(
            &store,
            &clock,
            sounding_domain::retention::DEFAULT_RETENTION,
            250,
        )
        .await
        .unwrap();
        assert!(pruned.is_full(250));
    }
}
