//! The webhook worker of one instance: passes of fan-out, lease, send and record
//! (`sounding_app::automation::dispatch_taking_turns`), run back to back while there is work, then
//! waiting for the in-process signal (a commit that wrote outbox events) or the poll interval — the
//! poll is how deliveries due for a retry, and events written by other instances, are found.
//!
//! Two such loops run at once (`WebhookWorker::LOOPS`), each leasing under an owner name of
//! its own, taking turns at sending: one fans out and leases while the other's attempts are in
//! flight. With one loop nothing was sent while a pass fanned out and leased, and under a busy
//! core, each round trip waiting for its turn, passes of 16 attempts fell seconds behind 290
//! new deliveries a second (S7 on PostgreSQL, docs/benchmarks.md twenty-fourth round). The
//! attempts of two passes are never in flight together, so each pass finds the sender's slots
//! free and no attempt waits for one while its lease runs out.
//!
//! Each pass's attempts go into the Prometheus metrics (`monitoring`): by outcome, and the
//! lag of those delivered.
//!
//! Stopping lets the pass under way finish (its attempts are bounded by the sender's
//! timeout) and takes no new one. Deliveries leased by a process that died are retried once
//! their lease expires.

use std::{sync::Arc, time::Duration};

use sounding_app::automation::{dispatch_taking_turns, DispatchOptions, DispatchReport};
use sounding_domain::ports::{Clock, Store, WebhookSender};
use tokio::{
    sync::{watch, Mutex, Notify},
    task::JoinHandle,
};

use crate::{
    config::WebhookConfig,
    monitoring::{OUTCOMES, WEBHOOK_DELIVERIES_TOTAL, WEBHOOK_DELIVERY_LAG_SECONDS},
};

/// A running worker; `stop` ends it gracefully.
pub struct WebhookWorker {
    stop: watch::Sender<bool>,
    loops: Vec<JoinHandle<()>>,
}

impl WebhookWorker {
    /// Passes running at once (module doc).
    pub const LOOPS: usize = 2;

    pub fn spawn(
        store: Arc<dyn Store>,
        sender: Arc<dyn WebhookSender>,
        clock: Arc<dyn Clock>,
        signal: Arc<Notify>,
        config: &WebhookConfig,
    ) -> Self {
        let (stop, stopped) = watch::channel(false);
        let worker = format!(
            "worker-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        );
        let send_turn = Arc::new(Mutex::new(()));
        let loops = (1..=Self::LOOPS)
            .map(|n| {
                let mut options = DispatchOptions::new(format!("{worker}-{n}"));
                options.retry_scale = config.retry_scale;
                // No more per pass than the sender takes at once for one target: a pass gives
                // back what it leased beyond a target's limit, and under a backlog to one
                // target that was 34 of every 50 deliveries, each updated twice a pass, which
                // slowed the lease itself from ~1 to ~80 ms on PostgreSQL (S7) and let the
                // backlog grow.
                options.batch = i64::try_from(config.max_in_flight).unwrap_or(options.batch);
                // A lease outlives two passes' attempts (each bounded by the sender's timeout:
                // the other loop's, then its own) with room to record them.
                options.lease_seconds = i64::try_from(config.timeout.as_secs())
                    .unwrap_or(i64::MAX / 4)
                    .saturating_mul(3)
                    .max(5);
                tokio::spawn(run(
                    Pass {
                        store: store.clone(),
                        sender: sender.clone(),
                        clock: clock.clone(),
                        options,
                        send_turn: send_turn.clone(),
                    },
                    signal.clone(),
                    config.poll_interval,
                    stopped.clone(),
                ))
            })
            .collect();
        Self { stop, loops }
    }

    /// Takes no new pass; waits (at most `grace`) for the ones under way.
    pub async fn stop(self, grace: Duration) {
        let _ = self.stop.send(true);
        let all_stopped = async {
            for running in self.loops {
                let _ = running.await;
            }
        };
        if tokio::time::timeout(grace, all_stopped).await.is_err() {
            tracing::warn!("webhook worker did not stop in time; its leases will expire");
        }
    }
}

/// What one loop's passes run with.
struct Pass {
    store: Arc<dyn Store>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    options: DispatchOptions,
    /// Held by the pass whose attempts are in flight (module doc).
    send_turn: Arc<Mutex<()>>,
}

/// The pass's attempts, in the Prometheus metrics (no-ops when none are served).
fn record(report: &DispatchReport) {
    let [delivered, retry, failed] = OUTCOMES;
    for (outcome, n) in [
        (delivered, report.delivered),
        (retry, report.retried),
        (failed, report.failed),
    ] {
        if n > 0 {
            metrics::counter!(WEBHOOK_DELIVERIES_TOTAL, "outcome" => outcome)
                .increment(u64::try_from(n).unwrap_or(u64::MAX));
        }
    }
    for lag in &report.delivery_lags {
        metrics::histogram!(WEBHOOK_DELIVERY_LAG_SECONDS).record(lag.as_secs_f64());
    }
}

/// How long a woken worker waits for more events before its pass.
const COALESCE: Duration = Duration::from_millis(5);

async fn run(pass: Pass, signal: Arc<Notify>, poll: Duration, mut stopped: watch::Receiver<bool>) {
    let Pass {
        store,
        sender,
        clock,
        options,
        send_turn,
    } = pass;
    tracing::info!(owner = %options.owner, "webhook worker started");
    loop {
        if *stopped.borrow() {
            break;
        }
        let turn = send_turn.lock();
        let busy = match dispatch_taking_turns(&*store, &*sender, &*clock, &options, turn).await {
            Ok(report) => {
                if report.attempted > 0 {
                    tracing::debug!(?report, "webhook pass");
                    record(&report);
                }
                report.busy()
            }
            Err(error) => {
                tracing::warn!(%error, "webhook pass failed");
                false
            }
        };
        if busy {
            continue;
        }
        tokio::select! {
            () = signal.notified() => {
                // Under steady writes signals come faster than passes: gathering a few
                // milliseconds of events makes one pass (two short transactions) serve them
                // all instead of one each, at the cost of that much delivery lag.
                tokio::time::sleep(COALESCE).await;
            }
            () = tokio::time::sleep(poll) => {}
            _ = stopped.changed() => {}
        }
    }
    tracing::info!("webhook worker stopped");
}
