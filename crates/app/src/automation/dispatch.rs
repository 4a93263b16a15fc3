//! The dispatcher: one pass of fan-out (outbox events → deliveries), lease, send and record.
//! A worker calls `dispatch_once` in a loop; several workers (instances) may share a database,
//! and the lease keeps them from sending the same attempt at once.

use std::{collections::HashMap, time::Duration};

use futures_util::future::join_all;
use sounding_domain::{
    ports::{Clock, WebhookSender, WebhookStore},
    webhook::{
        retry_delay, AttemptRecord, AttemptResult, LeaseRequest, LeasedDelivery, WebhookRequest,
        RETRY_HORIZON_SECONDS,
    },
    Timestamp,
};

use crate::error::AppResult;

/// How a worker runs its passes of `dispatch_once`.
#[derive(Debug, Clone)]
pub struct DispatchOptions {
    /// This worker's name in leases (unique per process).
    pub owner: String,
    /// Events fanned out per pass.
    pub fan_out_batch: i64,
    /// Deliveries attempted per pass.
    pub batch: i64,
    /// How long a lease lasts: longer than an attempt can take.
    pub lease_seconds: i64,
    /// Multiplies the retry schedule (1.0 in production; tests shorten it).
    pub retry_scale: f64,
}

impl DispatchOptions {
    /// The production settings for the worker `owner`: fan out 500 events and attempt 50
    /// deliveries per pass, 60-second leases, the full retry schedule.
    pub fn new(owner: impl Into<String>) -> Self {
        Self {
            owner: owner.into(),
            fan_out_batch: 500,
            batch: 50,
            lease_seconds: 60,
            retry_scale: 1.0,
        }
    }
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DispatchReport {
    /// Outbox events this pass fanned out into deliveries.
    pub fanned_out: usize,
    /// Whether the fan-out took a full batch, so more events may be waiting.
    pub fan_out_full: bool,
    /// Deliveries sent (leased and attempted), whatever their outcome. The counts below
    /// leave out attempts whose lease was lost before they were recorded.
    pub attempted: usize,
    /// Attempts the target answered with a 2xx.
    pub delivered: usize,
    /// Attempts that failed and will be tried again.
    pub retried: usize,
    /// Attempts after which the delivery was given up.
    pub failed: usize,
    /// For each delivered attempt, how long after it was queued (`Delivery::queued_at`) the
    /// delivery arrived.
    pub delivery_lags: Vec<Duration>,
}

impl DispatchReport {
    /// Whether another pass right away may find more: events beyond a full fan-out batch, or
    /// deliveries beyond this pass's attempts. Deliveries a fan-out creates are leased by the
    /// same pass, so a partial fan-out alone leaves nothing behind.
    pub fn busy(&self) -> bool {
        self.fan_out_full || self.attempted > 0
    }
}

/// One pass: fans outbox events out into deliveries, leases the deliveries due (no more per
/// target than the sender takes at once; the rest are released), sends them and records each
/// attempt with its next retry or final result. Only the store's errors fail the pass.
pub async fn dispatch_once(
    webhooks: &dyn WebhookStore,
    sender: &dyn WebhookSender,
    clock: &dyn Clock,
    options: &DispatchOptions,
) -> AppResult<DispatchReport> {
    dispatch_taking_turns(webhooks, sender, clock, options, std::future::ready(())).await
}

/// `dispatch_once` for passes that run at once (a worker's loops): between its lease and its
/// attempts a pass waits for `send_turn`, and holds what it yields until its attempts are
/// recorded. With a turn that one pass holds at a time, one pass fans out and leases while
/// another's attempts are in flight, yet attempts of two passes are never in flight together:
/// each pass sees the sender's slots free and keeps no more per target than it takes now
/// (counted once it has the turn), so none of its attempts waits for a slot while its lease
/// runs out. A lease then waits at most one other pass's attempts (each bounded by the
/// sender's timeout) before its own.
pub async fn dispatch_taking_turns<Turn>(
    webhooks: &dyn WebhookStore,
    sender: &dyn WebhookSender,
    clock: &dyn Clock,
    options: &DispatchOptions,
    send_turn: impl std::future::Future<Output = Turn>,
) -> AppResult<DispatchReport> {
    let now = clock.now();
    let fanned_out = webhooks.fan_out(now, options.fan_out_batch).await?;
    let leased = webhooks
        .lease_deliveries(&LeaseRequest {
            owner: options.owner.clone(),
            now,
            seconds: options.lease_seconds,
            limit: options.batch,
        })
        .await?;
    let _turn = if leased.is_empty() {
        None
    } else {
        Some(send_turn.await)
    };
    let (leased, surplus) = per_target(leased, |url| sender.attempts_at_once(url));
    if !surplus.is_empty() {
        webhooks.release_leases(&options.owner, &surplus).await?;
    }
    let attempts = leased
        .iter()
        .map(|lease| attempt(webhooks, sender, clock, options, lease));
    let results = join_all(attempts).await;
    let mut report = DispatchReport {
        fanned_out,
        fan_out_full: i64::try_from(fanned_out).unwrap_or(i64::MAX) >= options.fan_out_batch,
        attempted: leased.len(),
        ..DispatchReport::default()
    };
    for (lease, result) in leased.iter().zip(results) {
        // An attempt whose lease was lost is not on record: the next holder's attempt counts.
        let Some(record) = result? else {
            continue;
        };
        match record.result {
            AttemptResult::Delivered => {
                report.delivered += 1;
                report
                    .delivery_lags
                    .push(record.at.since(lease.delivery.queued_at()));
            }
            AttemptResult::Retry { .. } => report.retried += 1,
            AttemptResult::Failed { .. } => report.failed += 1,
        }
    }
    Ok(report)
}

/// Keeps at most `limit(url)` deliveries per target (scheme, host and port, as the sender
/// counts them; asked once per target), in lease order; the ids of the rest, to give back.
fn per_target(
    leased: Vec<LeasedDelivery>,
    limit: impl Fn(&str) -> usize,
) -> (Vec<LeasedDelivery>, Vec<sounding_domain::DeliveryId>) {
    // Per target: (taken, limit).
    let mut taken: HashMap<String, (usize, usize)> = HashMap::new();
    let mut keep = Vec::with_capacity(leased.len());
    let mut surplus = Vec::new();
    for lease in leased {
        let url = &lease.delivery.target_url;
        let (count, most) = taken
            .entry(target_key(url))
            .or_insert_with(|| (0, limit(url).max(1)));
        if count < most {
            *count += 1;
            keep.push(lease);
        } else {
            surplus.push(lease.delivery.id);
        }
    }
    (keep, surplus)
}

fn target_key(target_url: &str) -> String {
    match url::Url::parse(target_url) {
        Ok(url) => format!(
            "{}://{}:{}",
            url.scheme(),
            url.host_str().unwrap_or_default(),
            url.port_or_known_default().unwrap_or(0)
        ),
        Err(_) => target_url.to_owned(),
    }
}

/// Sends one leased delivery and records what happened: the record, or `None` when the
/// lease was lost before it could be written.
async fn attempt(
    webhooks: &dyn WebhookStore,
    sender: &dyn WebhookSender,
    clock: &dyn Clock,
    options: &DispatchOptions,
    lease: &LeasedDelivery,
) -> AppResult<Option<AttemptRecord>> {
    let started = clock.now();
    let request = WebhookRequest {
        url: lease.delivery.target_url.clone(),
        webhook_id: lease.delivery.id.to_string(),
        timestamp: started.unix_seconds(),
        body: lease.body.clone(),
        secret: lease.secret.clone(),
    };
    let outcome = sender.send(&request).await;
    let at = clock.now();
    let result = decide(lease, &outcome, at, options.retry_scale, rand::random());
    let record = AttemptRecord {
        at,
        outcome,
        result,
    };
    if !webhooks
        .record_attempt(lease.delivery.id, &options.owner, &record)
        .await?
    {
        tracing::warn!(delivery = %lease.delivery.id, "lease lost before the attempt was recorded");
        return Ok(None);
    }
    Ok(Some(record))
}

/// Delivered on 2xx; given up on 410 or when the schedule or the 24-hour horizon runs out;
/// otherwise retried after the schedule's pause (or the target's `Retry-After`, if longer).
pub(crate) fn decide(
    lease: &LeasedDelivery,
    outcome: &sounding_domain::webhook::AttemptOutcome,
    now: Timestamp,
    scale: f64,
    jitter: f64,
) -> AttemptResult {
    if outcome.delivered() {
        return AttemptResult::Delivered;
    }
    if outcome.gone() {
        return AttemptResult::Failed { unsubscribe: true };
    }
    let failed_attempts = u32::try_from(lease.delivery.attempts + 1).unwrap_or(u32::MAX);
    let Some(pause) = retry_delay(failed_attempts, scale, jitter) else {
        return AttemptResult::Failed { unsubscribe: false };
    };
    let pause = pause.max(outcome.retry_after.unwrap_or(Duration::ZERO));
    let first = lease.delivery.first_attempt_at.unwrap_or(now);
    let horizon = first.plus_seconds(horizon_seconds(scale));
    let at = now.plus(pause);
    if at > horizon {
        AttemptResult::Failed { unsubscribe: false }
    } else {
        AttemptResult::Retry { at }
    }
}

fn horizon_seconds(scale: f64) -> i64 {
    ((RETRY_HORIZON_SECONDS as f64 * scale).ceil() as i64).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mockall::predicate::eq;
    use sounding_domain::{
        ports::{MockClock, MockWebhookSender, MockWebhookStore},
        webhook::{AttemptOutcome, Delivery, DeliveryStatus},
        DeliveryId, EventId, TeamId, WebhookId,
    };

    fn t(secs: i64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000 + secs).unwrap()
    }

    fn lease(attempts: i64, first: Option<Timestamp>) -> LeasedDelivery {
        LeasedDelivery {
            delivery: Delivery {
                id: DeliveryId::new(),
                team_id: TeamId::new(),
                webhook_id: WebhookId::new(),
                event_id: EventId::new(),
                event: "new_feedback".into(),
                target_url: "https://hooks.example.com/x".into(),
                status: DeliveryStatus::Pending,
                attempts,
                next_attempt_at: Some(t(0)),
                first_attempt_at: first,
                last_attempt_at: None,
                last_status_code: None,
                last_error: None,
                last_duration_ms: None,
                created_at: t(0),
            },
            body: r#"{"event":"new_feedback"}"#.into(),
            secret: "whsec_AAAA".into(),
        }
    }

    fn answered(status: u16) -> AttemptOutcome {
        AttemptOutcome {
            status: Some(status),
            duration: Duration::from_millis(12),
            error: None,
            retry_after: None,
        }
    }

    #[test]
    fn outcomes_map_to_delivered_gone_retry_or_give_up() {
        let first = lease(0, None);
        assert_eq!(
            decide(&first, &answered(204), t(0), 1.0, 0.5),
            AttemptResult::Delivered
        );
        assert_eq!(
            decide(&first, &answered(410), t(0), 1.0, 0.5),
            AttemptResult::Failed { unsubscribe: true }
        );
        assert_eq!(
            decide(&first, &answered(500), t(0), 1.0, 0.5),
            AttemptResult::Retry { at: t(5) }
        );
        let throttled = AttemptOutcome {
            retry_after: Some(Duration::from_secs(90)),
            ..answered(429)
        };
        assert_eq!(
            decide(&first, &throttled, t(0), 1.0, 0.5),
            AttemptResult::Retry { at: t(90) },
            "a longer Retry-After wins over the schedule"
        );
        assert_eq!(
            decide(&lease(9, Some(t(0))), &answered(500), t(0), 1.0, 0.5),
            AttemptResult::Failed { unsubscribe: false },
            "the schedule has nine pauses"
        );
        assert_eq!(
            decide(&lease(8, Some(t(0))), &answered(500), t(80_000), 1.0, 0.5),
            AttemptResult::Failed { unsubscribe: false },
            "nothing is retried past 24 hours after the first attempt"
        );
    }

    #[test]
    fn a_pass_keeps_at_most_what_the_sender_takes_per_target_and_gives_back_the_rest() {
        let mut leases = Vec::new();
        for i in 0..6 {
            let mut l = lease(0, None);
            l.delivery.target_url = if i % 3 == 2 {
                "https://other.example.com/y".into()
            } else {
                format!("https://hooks.example.com:443/x?n={i}")
            };
            leases.push(l);
        }
        let ids: Vec<_> = leases.iter().map(|l| l.delivery.id).collect();
        let (keep, surplus) = per_target(leases, |url| {
            if url.contains("hooks.example.com") {
                2
            } else {
                1
            }
        });
        let kept: Vec<_> = keep.iter().map(|l| l.delivery.id).collect();
        // hooks.example.com (2 at once): 0, 1, 3, 4 → 0 and 1 kept; other.example.com (1 at
        // once): 2, 5 → 2 kept.
        assert_eq!(kept, vec![ids[0], ids[1], ids[2]]);
        assert_eq!(surplus, vec![ids[3], ids[4], ids[5]]);
    }

    #[tokio::test]
    async fn a_pass_fans_out_sends_signed_requests_and_records_each_attempt() {
        let held = lease(0, None);
        let id = held.delivery.id;
        let mut store = MockWebhookStore::new();
        store
            .expect_fan_out()
            .with(eq(t(0)), eq(500))
            .times(1)
            .returning(|_, _| Ok(3));
        let leased = vec![held.clone()];
        store
            .expect_lease_deliveries()
            .withf(|request| {
                *request
                    == LeaseRequest {
                        owner: "worker-1".into(),
                        now: t(0),
                        seconds: 60,
                        limit: 50,
                    }
            })
            .times(1)
            .returning(move |_| Ok(leased.clone()));
        store
            .expect_record_attempt()
            .withf(move |delivery, owner, record| {
                *delivery == id
                    && owner == "worker-1"
                    // 5 s ± 20 % jitter.
                    && matches!(record.result, AttemptResult::Retry { at } if at >= t(4) && at <= t(6))
                    && record.outcome.status == Some(503)
            })
            .times(1)
            .returning(|_, _, _| Ok(true));
        let mut sender = MockWebhookSender::new();
        sender.expect_attempts_at_once().returning(|_| 16);
        sender
            .expect_send()
            .withf(move |request| {
                request.webhook_id == id.to_string()
                    && request.timestamp == t(0).unix_seconds()
                    && request.body == r#"{"event":"new_feedback"}"#
                    && request.url == "https://hooks.example.com/x"
            })
            .times(1)
            .returning(|_| answered(503));
        let mut clock = MockClock::new();
        clock.expect_now().returning(|| t(0));

        let report = dispatch_once(&store, &sender, &clock, &DispatchOptions::new("worker-1"))
            .await
            .unwrap();
        assert_eq!(
            report,
            DispatchReport {
                fanned_out: 3,
                fan_out_full: false,
                attempted: 1,
                retried: 1,
                ..DispatchReport::default()
            }
        );
    }

    #[test]
    fn only_a_full_fan_out_or_attempts_call_for_another_pass_at_once() {
        let report = |fanned_out, fan_out_full, attempted| DispatchReport {
            fanned_out,
            fan_out_full,
            attempted,
            ..DispatchReport::default()
        };
        assert!(!report(0, false, 0).busy());
        // Under steady writes every pass fans out a few events: waiting for the next signal,
        // not spinning, is what keeps the worker off the write lock.
        assert!(!report(3, false, 0).busy());
        assert!(report(500, true, 0).busy());
        assert!(report(0, false, 1).busy());
    }
}
