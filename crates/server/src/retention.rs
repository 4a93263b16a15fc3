//! The retention task of one instance: prunes finished webhook history older than
//! `SOUNDING_EVENT_RETENTION` (`sounding_app::automation::prune_history`) at least once a
//! minute (the first time one interval after start), a batch per transaction, and again at
//! once (after a short pause that lets other writes in) while batches come back full.
//!
//! It runs on every `sounding serve`, also with `SOUNDING_WEBHOOKS=off`: the history a
//! delivering instance finished (on a shared database, or before delivery was turned off)
//! would otherwise stay. A prune that finds nothing is two indexed reads; instances pruning
//! the same PostgreSQL database at once skip each other's rows.

use std::{sync::Arc, time::Duration};

use sounding_app::automation::prune_history;
use sounding_domain::{
    ports::{Clock, WebhookStore},
    retention::PRUNE_BATCH,
};
use tokio::{sync::watch, task::JoinHandle};

/// The longest wait between prunes.
const MAX_INTERVAL: Duration = Duration::from_secs(60);
/// The shortest (a retention of a few seconds, in tests).
const MIN_INTERVAL: Duration = Duration::from_secs(1);
/// The pause between two full batches: other writers get the write lock meanwhile.
const BETWEEN_BATCHES: Duration = Duration::from_millis(20);

/// How often an instance prunes: half the retention, between 1 s and a minute, so nothing
/// finished outlives the retention by more than half of it (at most a minute).
pub fn prune_interval(retention: Duration) -> Duration {
    (retention / 2).clamp(MIN_INTERVAL, MAX_INTERVAL)
}

/// A running retention task; `stop` ends it.
pub struct RetentionTask {
    stop: watch::Sender<bool>,
    join: JoinHandle<()>,
}

impl RetentionTask {
    pub fn spawn(store: Arc<dyn WebhookStore>, clock: Arc<dyn Clock>, retention: Duration) -> Self {
        let (stop, stopped) = watch::channel(false);
        let join = tokio::spawn(run(store, clock, retention, stopped));
        Self { stop, join }
    }

    /// Takes no new batch; waits (at most `grace`) for the one under way.
    pub async fn stop(self, grace: Duration) {
        let _ = self.stop.send(true);
        if tokio::time::timeout(grace, self.join).await.is_err() {
            tracing::warn!("the retention task did not stop in time");
        }
    }
}

async fn run(
    store: Arc<dyn WebhookStore>,
    clock: Arc<dyn Clock>,
    retention: Duration,
    mut stopped: watch::Receiver<bool>,
) {
    let interval = prune_interval(retention);
    tracing::debug!(?retention, ?interval, "retention task started");
    // The first prune one interval after start: start-up has enough to do.
    let mut pause = interval;
    loop {
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            _ = stopped.changed() => break,
        }
        if *stopped.borrow() {
            break;
        }
        pause = interval;
        match prune_history(&*store, &*clock, retention, PRUNE_BATCH).await {
            Ok(pruned) => {
                if pruned.deliveries + pruned.events > 0 {
                    tracing::debug!(?pruned, "pruned finished webhook history");
                }
                if pruned.is_full(PRUNE_BATCH) {
                    pause = BETWEEN_BATCHES;
                }
            }
            Err(error) => tracing::warn!(%error, "pruning webhook history failed"),
        }
    }
    tracing::debug!("retention task stopped");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prunes_run_every_half_retention_between_a_second_and_a_minute() {
        assert_eq!(
            prune_interval(Duration::from_secs(2)),
            Duration::from_secs(1)
        );
        assert_eq!(
            prune_interval(Duration::from_secs(1)),
            Duration::from_secs(1)
        );
        assert_eq!(
            prune_interval(Duration::from_secs(90)),
            Duration::from_secs(45)
        );
        assert_eq!(
            prune_interval(Duration::from_secs(7 * 24 * 3600)),
            Duration::from_secs(60)
        );
    }
}
