//! Webhook subscriptions and their deliveries: listing, fan-out of outbox events (one delivery
//! per matching subscription, each event once), leases that exclude each other until they
//! expire (also under concurrency), attempts moving deliveries through retry, delivered and
//! failed, 410 Gone and deletion failing what is left, leases given back, redelivery (refused
//! while an attempt is in flight), the delivery list, and retention (only finished history
//! older than the cut-off is pruned, a limited batch at a time, also by concurrent prunes).

use std::{
    collections::{BTreeSet, HashSet},
    sync::Arc,
    time::Duration,
};

use serde_json::{json, Value};
use sounding_domain::{
    event::{EventKind, NewEvent},
    ids::{DeliveryId, EventId, TeamId, WebhookId},
    page::PageRequest,
    ports::{Conflict, Store, StoreError},
    retention::Pruned,
    timestamp::Timestamp,
    webhook::{
        AttemptOutcome, AttemptRecord, AttemptResult, Delivery, DeliveryQuery, DeliveryStatus,
        LeasedDelivery, WebhookSubscription,
    },
};
use uuid::Uuid;

use crate::{
    fixtures::empty_page,
    fixtures::{at, event, everything, lease_request, stored_team, t0, webhook},
};

/// Why the deliveries of a removed subscription failed.
const UNSUBSCRIBED: &str = "unsubscribed";
/// Why the other deliveries of a subscription whose target answered 410 Gone failed.
const GONE: &str = "unsubscribed: the target answered 410 Gone";
/// A lease long enough that no check outlives it unless it means to.
const LEASE: i64 = 600;

/// Stores a subscription of `team` to `kind` (created at `t0`) and hands it back.
async fn subscribed(
    store: &dyn Store,
    team: TeamId,
    kind: EventKind,
    url: &str,
) -> WebhookSubscription {
    let w = webhook(team, kind, url, t0());
    let stored = store.insert_webhook(&w).await.expect("insert webhook");
    assert_eq!(stored, w, "a new target and event is stored as given");
    w
}

/// Appends one event of `team` and hands it back.
async fn appended(store: &dyn Store, team: TeamId, kind: EventKind, n: i64) -> NewEvent {
    let e = event(team, kind, t0(), n);
    store
        .append_events(std::slice::from_ref(&e))
        .await
        .expect("append event");
    e
}

fn query(webhook_id: Option<WebhookId>, status: Option<DeliveryStatus>) -> DeliveryQuery {
    DeliveryQuery {
        webhook_id,
        status,
        page: everything(),
    }
}

/// Every delivery of the team, as listed (newest first).
async fn all(store: &dyn Store, team: TeamId) -> Vec<Delivery> {
    let page = store.deliveries(team, &query(None, None)).await.unwrap();
    assert_eq!(page.total, page.items.len() as i64);
    page.items
}

/// The team's delivery of `event` to `webhook`.
async fn delivery_of(
    store: &dyn Store,
    team: TeamId,
    event: EventId,
    webhook: WebhookId,
) -> Delivery {
    let found: Vec<Delivery> = all(store, team)
        .await
        .into_iter()
        .filter(|d| d.event_id == event && d.webhook_id == webhook)
        .collect();
    assert_eq!(found.len(), 1, "one delivery of {event} to {webhook}");
    found.into_iter().next().unwrap()
}

async fn read(store: &dyn Store, team: TeamId, id: DeliveryId) -> Delivery {
    all(store, team)
        .await
        .into_iter()
        .find(|d| d.id == id)
        .unwrap_or_else(|| panic!("delivery {id} is listed"))
}

/// What fan-out makes of `event` for `webhook` at `now`.
fn fanned(
    event: &NewEvent,
    webhook: &WebhookSubscription,
    now: Timestamp,
    id: DeliveryId,
) -> Delivery {
    Delivery::fanned_out(id, (event.id, event.kind.as_str()), webhook, now)
}

fn answered(status: u16, millis: u64) -> AttemptOutcome {
    AttemptOutcome {
        status: Some(status),
        duration: Duration::from_millis(millis),
        error: None,
        retry_after: None,
    }
}

fn record(at: Timestamp, outcome: AttemptOutcome, result: AttemptResult) -> AttemptRecord {
    AttemptRecord {
        at,
        outcome,
        result,
    }
}

fn delivered_at(at: Timestamp) -> AttemptRecord {
    record(at, answered(200, 7), AttemptResult::Delivered)
}

/// Leases every due delivery for `owner` at `now`.
async fn lease(store: &dyn Store, owner: &str, now: Timestamp) -> Vec<LeasedDelivery> {
    store
        .lease_deliveries(&lease_request(owner, now, LEASE, 100))
        .await
        .unwrap()
}

fn ids(leased: &[LeasedDelivery]) -> BTreeSet<DeliveryId> {
    leased.iter().map(|l| l.delivery.id).collect()
}

pub async fn webhooks_are_listed_oldest_first_and_found_within_their_team(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let same = at("2026-03-05T00:00:00.000Z");
    let first = webhook(
        team,
        EventKind::TopicsCreate,
        "https://hooks.example.com/first?x=1&y=✨",
        at("2026-03-04T00:00:00.001Z"),
    );
    let mut tie_high = webhook(team, EventKind::NewFeedback, "https://a.example/h", same);
    tie_high.id = WebhookId(Uuid::from_u128(0xffff_0000_0000_7000_8000_0000_0000_0002));
    let mut tie_low = webhook(team, EventKind::NewFeedback, "https://a.example/l", same);
    tie_low.id = WebhookId(Uuid::from_u128(0x0000_0000_0000_7000_8000_0000_0000_0001));
    let theirs = webhook(other, EventKind::NewFeedback, "https://b.example/", t0());
    for w in [&tie_high, &theirs, &first, &tie_low] {
        store.insert_webhook(w).await.unwrap();
    }

    assert_eq!(
        store.webhooks(team).await.unwrap(),
        vec![first.clone(), tie_low.clone(), tie_high.clone()]
    );
    assert_eq!(store.webhooks(other).await.unwrap(), vec![theirs.clone()]);
    assert_eq!(store.webhooks(TeamId::new()).await.unwrap(), vec![]);
    assert_eq!(
        store.webhook(team, first.id).await.unwrap(),
        Some(first.clone())
    );
    assert_eq!(store.webhook(other, first.id).await.unwrap(), None);
    assert_eq!(store.webhook(team, WebhookId::new()).await.unwrap(), None);

    // Deleting is the owner team's business, and once.
    assert!(!store.delete_webhook(other, first.id).await.unwrap());
    assert!(!store.delete_webhook(team, WebhookId::new()).await.unwrap());
    assert_eq!(store.webhooks(team).await.unwrap().len(), 3);
    assert!(store.delete_webhook(team, first.id).await.unwrap());
    assert!(!store.delete_webhook(team, first.id).await.unwrap());
    assert_eq!(store.webhook(team, first.id).await.unwrap(), None);
    assert_eq!(store.webhooks(team).await.unwrap(), vec![tie_low, tie_high]);
    assert_eq!(store.webhooks(other).await.unwrap(), vec![theirs]);
}

pub async fn subscribing_the_same_target_and_event_again_returns_the_first_subscription(
    store: Arc<dyn Store>,
) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let url = "https://same.example/hook";
    let first = webhook(team, EventKind::NewFeedback, url, t0());
    assert_eq!(store.insert_webhook(&first).await.unwrap(), first);
    // Again: the first comes back, its id, secret and date; nothing is added.
    let again = webhook(
        team,
        EventKind::NewFeedback,
        url,
        at("2026-03-04T05:00:00.000Z"),
    );
    assert_eq!(store.insert_webhook(&again).await.unwrap(), first);
    assert_eq!(store.webhooks(team).await.unwrap(), vec![first.clone()]);
    // Another event, another target or another team is another subscription.
    for new in [
        webhook(team, EventKind::TopicsCreate, url, t0()),
        webhook(
            team,
            EventKind::NewFeedback,
            "https://same.example/other",
            t0(),
        ),
        webhook(other, EventKind::NewFeedback, url, t0()),
    ] {
        assert_eq!(store.insert_webhook(&new).await.unwrap(), new);
    }
    assert_eq!(store.webhooks(team).await.unwrap().len(), 3);
    assert_eq!(store.webhooks(other).await.unwrap().len(), 1);

    // An event reaches the target once, not once per subscribe.
    appended(&*store, team, EventKind::NewFeedback, 1).await;
    store
        .fan_out(at("2026-03-04T06:00:00.000Z"), 100)
        .await
        .unwrap();
    let to_first: Vec<_> = all(&*store, team)
        .await
        .into_iter()
        .filter(|d| d.target_url == url)
        .collect();
    assert_eq!(to_first.len(), 1, "{to_first:?}");
    assert_eq!(to_first[0].webhook_id, first.id);

    // Once removed, subscribing makes a new one.
    assert!(store.delete_webhook(team, first.id).await.unwrap());
    assert_eq!(store.insert_webhook(&again).await.unwrap(), again);
}

pub async fn concurrent_identical_subscribes_make_one_subscription(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let url = "https://race.example/hook";
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                let w = webhook(team, EventKind::NewFeedback, url, t0());
                store.insert_webhook(&w).await.unwrap()
            })
        })
        .collect();
    let mut stored = Vec::new();
    for task in tasks {
        stored.push(task.await.unwrap());
    }
    let listed = store.webhooks(team).await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    for s in &stored {
        assert_eq!(
            s, &listed[0],
            "every caller gets the one stored subscription"
        );
    }
}

pub async fn an_event_nobody_wants_when_written_is_never_fanned_out_and_goes_with_retention(
    store: Arc<dyn Store>,
) {
    let team = stored_team(&*store, "acme").await.team.id;
    let first = subscribed(
        &*store,
        team,
        EventKind::NewFeedback,
        "https://first.example/hook",
    )
    .await;
    let wanted = appended(&*store, team, EventKind::NewFeedback, 1).await;
    let unwanted = appended(&*store, team, EventKind::TopicsCreate, 2).await;
    // Made while `wanted` waits for fan-out, which it then gets; `unwanted` it never gets.
    let second = subscribed(
        &*store,
        team,
        EventKind::NewFeedback,
        "https://second.example/hook",
    )
    .await;
    let topics = subscribed(
        &*store,
        team,
        EventKind::TopicsCreate,
        "https://topics.example/hook",
    )
    .await;

    let now = at("2026-03-04T06:00:00.000Z");
    assert_eq!(
        store.fan_out(now, 100).await.unwrap(),
        1,
        "only the wanted one"
    );
    let made = all(&*store, team).await;
    assert_eq!(made.len(), 2);
    for w in [&first, &second] {
        let d = delivery_of(&*store, team, wanted.id, w.id).await;
        assert_eq!(d, fanned(&wanted, w, now, d.id));
    }
    assert!(made.iter().all(|d| d.webhook_id != topics.id));
    assert_eq!(store.fan_out(now.plus_seconds(1), 100).await.unwrap(), 0);

    // Fanned out when it occurred: one retention later it goes, with no delivery to keep it,
    // while the wanted one stays for its deliveries.
    assert_eq!(
        store.prune_finished(t0(), 100).await.unwrap(),
        Pruned::default()
    );
    let pruned = store
        .prune_finished(t0().plus_seconds(1), 100)
        .await
        .unwrap();
    assert_eq!(
        pruned,
        Pruned {
            deliveries: 0,
            events: 1
        }
    );
    let left: Vec<EventId> = store
        .events(team)
        .await
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(left, vec![wanted.id], "{} was pruned", unwanted.id);
}

pub async fn fan_out_makes_one_delivery_per_matching_subscription_once(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let a = subscribed(
        &*store,
        team,
        EventKind::NewFeedback,
        "https://a.example/hook",
    )
    .await;
    let b = subscribed(
        &*store,
        team,
        EventKind::NewFeedback,
        "https://b.example/hook",
    )
    .await;
    let c = subscribed(
        &*store,
        team,
        EventKind::TopicsCreate,
        "https://c.example/hook",
    )
    .await;
    let d = subscribed(
        &*store,
        other,
        EventKind::NewFeedback,
        "https://d.example/hook",
    )
    .await;

    // Nothing in the outbox: nothing taken.
    assert_eq!(store.fan_out(t0(), 100).await.unwrap(), 0);

    let e1 = appended(&*store, team, EventKind::NewFeedback, 1).await;
    let e2 = appended(&*store, team, EventKind::TopicsCreate, 2).await;
    // No subscriber for this name, in either team: written fanned out, never taken.
    let e3 = appended(&*store, team, EventKind::FeedbacksUpdate, 3).await;
    let e4 = appended(&*store, other, EventKind::NewFeedback, 4).await;
    let _e5 = appended(&*store, other, EventKind::TopicsCreate, 5).await;

    let now = at("2026-03-04T06:00:00.000Z");
    assert_eq!(store.fan_out(now, 100).await.unwrap(), 3);

    let ours = all(&*store, team).await;
    assert_eq!(ours.len(), 3);
    for (e, w) in [(&e1, &a), (&e1, &b), (&e2, &c)] {
        let made = delivery_of(&*store, team, e.id, w.id).await;
        assert_eq!(made, fanned(e, w, now, made.id));
    }
    let theirs = all(&*store, other).await;
    assert_eq!(theirs, vec![fanned(&e4, &d, now, theirs[0].id)]);
    let distinct: HashSet<DeliveryId> = ours.iter().chain(&theirs).map(|d| d.id).collect();
    assert_eq!(distinct.len(), 4, "every delivery has its own id");

    // Idempotent: the events are marked.
    assert_eq!(store.fan_out(now.plus_seconds(1), 100).await.unwrap(), 0);
    assert_eq!(all(&*store, team).await, ours);
    assert_eq!(all(&*store, other).await, theirs);
    // A subscription made after its event was written, nobody wanting it, does not get it.
    let late = subscribed(
        &*store,
        team,
        EventKind::FeedbacksUpdate,
        "https://late.example/",
    )
    .await;
    assert_eq!(store.fan_out(now.plus_seconds(2), 100).await.unwrap(), 0);
    assert_eq!(all(&*store, team).await.len(), 3);

    // Oldest first, `limit` at a time.
    let batch = [
        appended(&*store, team, EventKind::FeedbacksUpdate, 6).await,
        appended(&*store, team, EventKind::FeedbacksUpdate, 7).await,
        appended(&*store, team, EventKind::FeedbacksUpdate, 8).await,
    ];
    let later = now.plus_seconds(10);
    assert_eq!(store.fan_out(later, 2).await.unwrap(), 2);
    let to_late = store
        .deliveries(team, &query(Some(late.id), None))
        .await
        .unwrap();
    let events: BTreeSet<EventId> = to_late.items.iter().map(|d| d.event_id).collect();
    assert_eq!(events, BTreeSet::from([batch[0].id, batch[1].id]));
    assert_eq!(store.fan_out(later.plus_seconds(1), 2).await.unwrap(), 1);
    let last = delivery_of(&*store, team, batch[2].id, late.id).await;
    assert_eq!(
        last,
        fanned(&batch[2], &late, later.plus_seconds(1), last.id)
    );
    assert_eq!(store.fan_out(later.plus_seconds(2), 2).await.unwrap(), 0);
    assert!(all(&*store, team).await.iter().all(|d| d.event_id != e3.id));
}

pub async fn leases_carry_body_and_secret_and_exclude_others_until_they_expire(
    store: Arc<dyn Store>,
) {
    let team = stored_team(&*store, "acme").await.team.id;
    let hook = subscribed(
        &*store,
        team,
        EventKind::NewFeedback,
        "https://a.example/hook",
    )
    .await;
    let e = NewEvent::new(
        team,
        EventKind::NewFeedback,
        t0(),
        &[("feedbackId", Uuid::from_u128(7).to_string())],
        json!({"title": "Dark mode ✨ \"quoted\"", "tags": ["ui", {"x": 1.5}], "none": null}),
    );
    store.append_events(std::slice::from_ref(&e)).await.unwrap();
    let due = at("2026-03-04T06:00:00.000Z");
    assert_eq!(store.fan_out(due, 10).await.unwrap(), 1);
    let listed = delivery_of(&*store, team, e.id, hook.id).await;

    // Not due yet.
    assert!(lease(&*store, "w1", due.plus_seconds(-1)).await.is_empty());

    let leased = store
        .lease_deliveries(&lease_request("w1", due, 60, 10))
        .await
        .unwrap();
    assert_eq!(leased.len(), 1);
    assert_eq!(
        leased[0].delivery, listed,
        "the lease does not show in the delivery"
    );
    assert_eq!(leased[0].secret, hook.secret);
    let body: Value = serde_json::from_str(&leased[0].body).expect("the body is JSON");
    assert_eq!(body, e.payload.to_value());
    assert_eq!(all(&*store, team).await, vec![listed.clone()]);

    // Held: neither another worker nor the holder gets it again before the lease ends.
    assert!(lease(&*store, "w2", due.plus_seconds(30)).await.is_empty());
    assert!(lease(&*store, "w1", due.plus_seconds(59)).await.is_empty());
    // At its end it is free again, for anyone.
    let taken = store
        .lease_deliveries(&lease_request("w2", due.plus_seconds(60), 60, 10))
        .await
        .unwrap();
    assert_eq!(ids(&taken), BTreeSet::from([listed.id]));
    assert_eq!(taken[0].body, leased[0].body);
    assert!(lease(&*store, "w1", due.plus_seconds(61)).await.is_empty());

    // The first worker lost the lease: its attempt is not recorded.
    let attempt = delivered_at(due.plus_seconds(62));
    assert!(!store
        .record_attempt(listed.id, "w1", &attempt)
        .await
        .unwrap());
    assert!(!store
        .record_attempt(listed.id, "w3", &attempt)
        .await
        .unwrap());
    assert!(!store
        .record_attempt(DeliveryId::new(), "w2", &attempt)
        .await
        .unwrap());
    assert_eq!(all(&*store, team).await, vec![listed.clone()]);
    assert!(store
        .record_attempt(listed.id, "w2", &attempt)
        .await
        .unwrap());
    // Recorded once: the lease is released with it.
    assert!(!store
        .record_attempt(listed.id, "w2", &attempt)
        .await
        .unwrap());
    assert_eq!(read(&*store, team, listed.id).await.attempts, 1);
}

pub async fn leases_take_the_earliest_due_first_up_to_the_limit(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let a = subscribed(&*store, team, EventKind::NewFeedback, "https://a.example/").await;
    let b = subscribed(&*store, team, EventKind::NewFeedback, "https://b.example/").await;
    // Three events fanned out one at a time: due at due, due+1s, due+2s, two deliveries each.
    let due = at("2026-03-04T06:00:00.000Z");
    for n in 0..3 {
        appended(&*store, team, EventKind::NewFeedback, n).await;
        assert_eq!(store.fan_out(due.plus_seconds(n), 1).await.unwrap(), 1);
    }
    let mut expected: Vec<(Timestamp, DeliveryId)> = all(&*store, team)
        .await
        .iter()
        .map(|d| (d.next_attempt_at.unwrap(), d.id))
        .collect();
    expected.sort();
    assert_eq!(expected.len(), 6);

    // At due+1s only the first four are due; the limit takes three, by (due time, id).
    let now = due.plus_seconds(1);
    let first = store
        .lease_deliveries(&lease_request("w", now, LEASE, 3))
        .await
        .unwrap();
    let got: Vec<(Timestamp, DeliveryId)> = first
        .iter()
        .map(|l| (l.delivery.next_attempt_at.unwrap(), l.delivery.id))
        .collect();
    assert_eq!(got, expected[..3].to_vec());
    let second = store
        .lease_deliveries(&lease_request("w", now, LEASE, 3))
        .await
        .unwrap();
    assert_eq!(ids(&second), BTreeSet::from([expected[3].1]));
    assert!(store
        .lease_deliveries(&lease_request("w", now, LEASE, 3))
        .await
        .unwrap()
        .is_empty());
    let third = store
        .lease_deliveries(&lease_request("w", due.plus_seconds(2), LEASE, 3))
        .await
        .unwrap();
    assert_eq!(ids(&third), BTreeSet::from([expected[4].1, expected[5].1]));
    let hooks: BTreeSet<WebhookId> = third.iter().map(|l| l.delivery.webhook_id).collect();
    assert_eq!(hooks, BTreeSet::from([a.id, b.id]));
    for l in &third {
        let secret = if l.delivery.webhook_id == a.id {
            &a.secret
        } else {
            &b.secret
        };
        assert_eq!(&l.secret, secret);
    }
}

pub async fn attempts_move_deliveries_through_retry_delivered_and_failed(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let retried = subscribed(&*store, team, EventKind::NewFeedback, "https://r.example/").await;
    let ok = subscribed(&*store, team, EventKind::NewFeedback, "https://ok.example/").await;
    let refused = subscribed(&*store, team, EventKind::NewFeedback, "https://no.example/").await;
    let e = appended(&*store, team, EventKind::NewFeedback, 1).await;
    let due = at("2026-03-04T06:00:00.000Z");
    assert_eq!(store.pending_deliveries(100).await.unwrap(), 0);
    store.fan_out(due, 10).await.unwrap();
    assert_eq!(store.pending_deliveries(100).await.unwrap(), 3);
    assert_eq!(
        store.pending_deliveries(2).await.unwrap(),
        2,
        "counts at most 2"
    );
    assert_eq!(lease(&*store, "w", due).await.len(), 3);
    assert_eq!(
        store.pending_deliveries(100).await.unwrap(),
        3,
        "leased is pending"
    );

    // A failure to retry: pending again, due later, the attempt on record.
    let r = delivery_of(&*store, team, e.id, retried.id).await;
    let t1 = due.plus_seconds(1);
    let retry_at = due.plus_seconds(5);
    let failure = AttemptOutcome {
        status: None,
        duration: Duration::from_millis(1234),
        error: Some("connection refused ✗".into()),
        retry_after: None,
    };
    assert!(store
        .record_attempt(
            r.id,
            "w",
            &record(t1, failure, AttemptResult::Retry { at: retry_at })
        )
        .await
        .unwrap());
    let after_retry = Delivery {
        status: DeliveryStatus::Pending,
        attempts: 1,
        next_attempt_at: Some(retry_at),
        first_attempt_at: Some(t1),
        last_attempt_at: Some(t1),
        last_status_code: None,
        last_error: Some("connection refused ✗".into()),
        last_duration_ms: Some(1234),
        ..r.clone()
    };
    assert_eq!(read(&*store, team, r.id).await, after_retry);

    // Delivered: done, the last attempt on record.
    let o = delivery_of(&*store, team, e.id, ok.id).await;
    assert!(store
        .record_attempt(
            o.id,
            "w",
            &record(t1, answered(204, 42), AttemptResult::Delivered)
        )
        .await
        .unwrap());
    let delivered = Delivery {
        status: DeliveryStatus::Delivered,
        attempts: 1,
        next_attempt_at: None,
        first_attempt_at: Some(t1),
        last_attempt_at: Some(t1),
        last_status_code: Some(204),
        last_error: None,
        last_duration_ms: Some(42),
        ..o.clone()
    };
    assert_eq!(read(&*store, team, o.id).await, delivered);

    // Given up without unsubscribing: failed, the subscription stays.
    let f = delivery_of(&*store, team, e.id, refused.id).await;
    let mut bad = answered(400, 3);
    bad.error = Some("HTTP 400".into());
    assert!(store
        .record_attempt(
            f.id,
            "w",
            &record(t1, bad, AttemptResult::Failed { unsubscribe: false })
        )
        .await
        .unwrap());
    let failed = Delivery {
        status: DeliveryStatus::Failed,
        attempts: 1,
        next_attempt_at: None,
        first_attempt_at: Some(t1),
        last_attempt_at: Some(t1),
        last_status_code: Some(400),
        last_error: Some("HTTP 400".into()),
        last_duration_ms: Some(3),
        ..f.clone()
    };
    assert_eq!(read(&*store, team, f.id).await, failed);
    assert!(store.webhook(team, refused.id).await.unwrap().is_some());
    assert_eq!(
        store.pending_deliveries(100).await.unwrap(),
        1,
        "only the retried one is pending"
    );

    // Done deliveries take no more attempts, even from the last holder.
    let again = delivered_at(due.plus_seconds(2));
    assert!(!store.record_attempt(o.id, "w", &again).await.unwrap());
    assert!(!store.record_attempt(f.id, "w", &again).await.unwrap());

    // Only the retried one comes due again, at its time, keeping its first attempt.
    assert!(lease(&*store, "w", due.plus_seconds(4)).await.is_empty());
    let leased = lease(&*store, "w2", retry_at).await;
    assert_eq!(leased.len(), 1);
    assert_eq!(leased[0].delivery, after_retry);
    let t2 = due.plus_seconds(6);
    assert!(!store
        .record_attempt(r.id, "w", &delivered_at(t2))
        .await
        .unwrap());
    assert!(store
        .record_attempt(r.id, "w2", &delivered_at(t2))
        .await
        .unwrap());
    assert_eq!(
        read(&*store, team, r.id).await,
        Delivery {
            status: DeliveryStatus::Delivered,
            attempts: 2,
            next_attempt_at: None,
            first_attempt_at: Some(t1),
            last_attempt_at: Some(t2),
            last_status_code: Some(200),
            last_error: None,
            last_duration_ms: Some(7),
            ..r
        }
    );
    assert!(lease(&*store, "w", due.plus_seconds(3600)).await.is_empty());
    assert_eq!(read(&*store, team, o.id).await, delivered);
    assert_eq!(read(&*store, team, f.id).await, failed);
}

pub async fn gone_removes_the_subscription_and_fails_its_other_deliveries(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let gone = subscribed(
        &*store,
        team,
        EventKind::NewFeedback,
        "https://gone.example/",
    )
    .await;
    let kept = subscribed(
        &*store,
        team,
        EventKind::NewFeedback,
        "https://kept.example/",
    )
    .await;
    let mut events = Vec::new();
    for n in 0..3 {
        events.push(appended(&*store, team, EventKind::NewFeedback, n).await);
    }
    let due = at("2026-03-04T06:00:00.000Z");
    assert_eq!(store.fan_out(due, 10).await.unwrap(), 3);
    // All six are leased by `w`.
    let leased = lease(&*store, "w", due).await;
    assert_eq!(leased.len(), 6);
    let mut to_gone = Vec::new();
    for e in &events {
        to_gone.push(delivery_of(&*store, team, e.id, gone.id).await);
    }
    let to_kept_before = store
        .deliveries(team, &query(Some(kept.id), None))
        .await
        .unwrap();

    let t1 = due.plus_seconds(1);
    assert!(store
        .record_attempt(to_gone[0].id, "w", &delivered_at(t1))
        .await
        .unwrap());
    let t2 = due.plus_seconds(2);
    assert!(store
        .record_attempt(
            to_gone[1].id,
            "w",
            &record(
                t2,
                answered(410, 9),
                AttemptResult::Failed { unsubscribe: true }
            )
        )
        .await
        .unwrap());

    assert_eq!(store.webhook(team, gone.id).await.unwrap(), None);
    assert_eq!(store.webhooks(team).await.unwrap(), vec![kept.clone()]);
    // The delivered one stays delivered.
    assert_eq!(
        read(&*store, team, to_gone[0].id).await.status,
        DeliveryStatus::Delivered
    );
    // The one answered 410 carries its attempt.
    assert_eq!(
        read(&*store, team, to_gone[1].id).await,
        Delivery {
            status: DeliveryStatus::Failed,
            attempts: 1,
            next_attempt_at: None,
            first_attempt_at: Some(t2),
            last_attempt_at: Some(t2),
            last_status_code: Some(410),
            last_error: None,
            last_duration_ms: Some(9),
            ..to_gone[1].clone()
        }
    );
    // Its pending sibling fails without an attempt, and its lease is void.
    assert_eq!(
        read(&*store, team, to_gone[2].id).await,
        Delivery {
            status: DeliveryStatus::Failed,
            next_attempt_at: None,
            last_error: Some(GONE.into()),
            ..to_gone[2].clone()
        }
    );
    assert!(!store
        .record_attempt(to_gone[2].id, "w", &delivered_at(t2))
        .await
        .unwrap());
    // The other subscription is untouched, leases included.
    assert_eq!(
        store
            .deliveries(team, &query(Some(kept.id), None))
            .await
            .unwrap(),
        to_kept_before
    );
    assert!(store
        .record_attempt(to_kept_before.items[0].id, "w", &delivered_at(t2))
        .await
        .unwrap());
    // Later events reach only the remaining subscription.
    let e = appended(&*store, team, EventKind::NewFeedback, 9).await;
    assert_eq!(store.fan_out(due.plus_seconds(3), 10).await.unwrap(), 1);
    let new: Vec<Delivery> = all(&*store, team)
        .await
        .into_iter()
        .filter(|d| d.event_id == e.id)
        .collect();
    assert_eq!(new.len(), 1);
    assert_eq!(new[0].webhook_id, kept.id);
}

pub async fn deleting_a_subscription_fails_its_pending_deliveries(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let doomed = subscribed(&*store, team, EventKind::NewFeedback, "https://d.example/").await;
    let kept = subscribed(&*store, team, EventKind::NewFeedback, "https://k.example/").await;
    let mut events = Vec::new();
    for n in 0..3 {
        events.push(appended(&*store, team, EventKind::NewFeedback, n).await);
    }
    let due = at("2026-03-04T06:00:00.000Z");
    store.fan_out(due, 10).await.unwrap();
    let mut to_doomed = Vec::new();
    for e in &events {
        to_doomed.push(delivery_of(&*store, team, e.id, doomed.id).await);
    }
    // One delivered, one waiting for a retry (leased no more), one leased, the other's all
    // pending.
    let t1 = due.plus_seconds(1);
    store
        .lease_deliveries(&lease_request("w", due, LEASE, 100))
        .await
        .unwrap();
    assert!(store
        .record_attempt(to_doomed[0].id, "w", &delivered_at(t1))
        .await
        .unwrap());
    let retry = record(
        t1,
        answered(503, 5),
        AttemptResult::Retry {
            at: due.plus_seconds(30),
        },
    );
    assert!(store
        .record_attempt(to_doomed[1].id, "w", &retry)
        .await
        .unwrap());
    let before: Vec<Delivery> = {
        let mut v = Vec::new();
        for d in &to_doomed {
            v.push(read(&*store, team, d.id).await);
        }
        v
    };
    let kept_before = store
        .deliveries(team, &query(Some(kept.id), None))
        .await
        .unwrap();

    assert!(!store.delete_webhook(other, doomed.id).await.unwrap());
    assert_eq!(read(&*store, team, to_doomed[1].id).await, before[1]);
    assert!(store.delete_webhook(team, doomed.id).await.unwrap());
    assert_eq!(store.webhook(team, doomed.id).await.unwrap(), None);

    // Its deliveries are still listed: done ones as they were, the rest failed.
    assert_eq!(read(&*store, team, to_doomed[0].id).await, before[0]);
    for d in &before[1..] {
        assert_eq!(
            read(&*store, team, d.id).await,
            Delivery {
                status: DeliveryStatus::Failed,
                next_attempt_at: None,
                last_error: Some(UNSUBSCRIBED.into()),
                ..d.clone()
            }
        );
    }
    assert!(!store
        .record_attempt(to_doomed[2].id, "w", &delivered_at(t1))
        .await
        .unwrap());
    assert_eq!(
        store
            .deliveries(team, &query(Some(kept.id), None))
            .await
            .unwrap(),
        kept_before
    );
    // Nothing of it is leased again, even when due, nor redelivered.
    let later = lease(&*store, "w2", due.plus_seconds(3600)).await;
    assert_eq!(
        ids(&later),
        kept_before.items.iter().map(|d| d.id).collect()
    );
    assert!(!store
        .redeliver(team, to_doomed[1].id, due.plus_seconds(3600))
        .await
        .unwrap());
    assert!(!store.delete_webhook(team, doomed.id).await.unwrap());
}

pub async fn redelivery_resets_a_delivery_of_the_team(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let hook = subscribed(&*store, team, EventKind::NewFeedback, "https://a.example/").await;
    let e1 = appended(&*store, team, EventKind::NewFeedback, 1).await;
    let e2 = appended(&*store, team, EventKind::NewFeedback, 2).await;
    let due = at("2026-03-04T06:00:00.000Z");
    store.fan_out(due, 10).await.unwrap();
    let failed = delivery_of(&*store, team, e1.id, hook.id).await;
    let held = delivery_of(&*store, team, e2.id, hook.id).await;

    // e1: retried once, then given up.
    let (t1, t2) = (due.plus_seconds(1), due.plus_seconds(10));
    lease(&*store, "w", due).await;
    let retry = record(
        t1,
        answered(500, 11),
        AttemptResult::Retry {
            at: due.plus_seconds(10),
        },
    );
    assert!(store.record_attempt(failed.id, "w", &retry).await.unwrap());
    assert_eq!(lease(&*store, "w", t2).await.len(), 1);
    let give_up = record(
        t2,
        answered(500, 12),
        AttemptResult::Failed { unsubscribe: false },
    );
    assert!(store
        .record_attempt(failed.id, "w", &give_up)
        .await
        .unwrap());
    let before = read(&*store, team, failed.id).await;
    assert_eq!(
        (before.status, before.attempts),
        (DeliveryStatus::Failed, 2)
    );

    // Not another team's, not one that does not exist.
    let t3 = due.plus_seconds(100);
    assert!(!store.redeliver(other, failed.id, t3).await.unwrap());
    assert!(!store.redeliver(team, DeliveryId::new(), t3).await.unwrap());
    assert_eq!(read(&*store, team, failed.id).await, before);

    assert!(store.redeliver(team, failed.id, t3).await.unwrap());
    let reset = Delivery {
        status: DeliveryStatus::Pending,
        attempts: 0,
        first_attempt_at: None,
        next_attempt_at: Some(t3),
        ..before.clone()
    };
    assert_eq!(read(&*store, team, failed.id).await, reset);
    assert!(lease(&*store, "w", t3.plus_seconds(-1)).await.is_empty());
    let leased = lease(&*store, "w", t3).await;
    assert_eq!(leased.len(), 1);
    assert_eq!(leased[0].delivery, reset);
    let t4 = t3.plus_seconds(1);
    assert!(store
        .record_attempt(failed.id, "w", &delivered_at(t4))
        .await
        .unwrap());
    let done = read(&*store, team, failed.id).await;
    assert_eq!(
        (done.status, done.attempts, done.first_attempt_at),
        (DeliveryStatus::Delivered, 1, Some(t4))
    );
    // A delivered one can be sent again too.
    assert!(store.redeliver(team, failed.id, t4).await.unwrap());
    assert_eq!(
        read(&*store, team, failed.id).await.status,
        DeliveryStatus::Pending
    );

    // e2 is leased by `w` until due+600s. While that lease is live, redelivery is refused
    // (an attempt is under way) and nothing changes: the lease stays `w`'s.
    let in_flight = read(&*store, team, held.id).await;
    assert_eq!(
        store.redeliver(team, held.id, t3).await,
        Err(StoreError::Conflict(Conflict::DeliveryInFlight))
    );
    assert_eq!(
        store
            .redeliver(team, held.id, due.plus_seconds(LEASE - 1))
            .await,
        Err(StoreError::Conflict(Conflict::DeliveryInFlight))
    );
    assert_eq!(read(&*store, team, held.id).await, in_flight);
    assert!(!ids(&lease(&*store, "w2", t3).await).contains(&held.id));

    // Once the lease has expired, redelivery takes it over: due at once for anyone, and the
    // old holder's attempt no longer counts.
    let expired = due.plus_seconds(LEASE);
    assert!(store.redeliver(team, held.id, expired).await.unwrap());
    assert_eq!(
        read(&*store, team, held.id).await,
        Delivery {
            next_attempt_at: Some(expired),
            ..in_flight
        }
    );
    let taken = lease(&*store, "w2", expired).await;
    assert!(ids(&taken).contains(&held.id));
    let t5 = expired.plus_seconds(1);
    assert!(!store
        .record_attempt(held.id, "w", &delivered_at(t5))
        .await
        .unwrap());
    assert!(store
        .record_attempt(held.id, "w2", &delivered_at(t5))
        .await
        .unwrap());
}

pub async fn releasing_leases_makes_deliveries_due_for_anyone(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    subscribed(&*store, team, EventKind::NewFeedback, "https://a.example/").await;
    for n in 0..5 {
        appended(&*store, team, EventKind::NewFeedback, n).await;
    }
    let due = at("2026-03-04T06:00:00.000Z");
    assert_eq!(store.fan_out(due, 10).await.unwrap(), 5);

    // w1 leases three, w2 one, one stays free; w1 finishes one of its three.
    let mine = store
        .lease_deliveries(&lease_request("w1", due, LEASE, 3))
        .await
        .unwrap();
    let theirs = store
        .lease_deliveries(&lease_request("w2", due, LEASE, 1))
        .await
        .unwrap();
    assert_eq!((mine.len(), theirs.len()), (3, 1));
    let (kept, also_kept, done) = (
        mine[0].delivery.id,
        mine[1].delivery.id,
        mine[2].delivery.id,
    );
    let other = theirs[0].delivery.id;
    assert!(store
        .record_attempt(done, "w1", &delivered_at(due.plus_seconds(1)))
        .await
        .unwrap());
    let free = all(&*store, team)
        .await
        .into_iter()
        .find(|d| ![kept, also_kept, done, other].contains(&d.id))
        .expect("the unleased delivery")
        .id;
    let before = all(&*store, team).await;

    // Nothing to give back is nothing to do: w1's leases hold.
    store.release_leases("w1", &[]).await.unwrap();
    assert_eq!(
        ids(&lease(&*store, "w3", due.plus_seconds(2)).await),
        BTreeSet::from([free])
    );

    // w1 gives back everything it names: its own pending leases go; w2's lease, the finished
    // delivery, and an unknown id are left alone, and no attempt is counted.
    store
        .release_leases(
            "w1",
            &[kept, also_kept, done, other, DeliveryId::new(), kept],
        )
        .await
        .unwrap();
    assert_eq!(
        all(&*store, team).await,
        before,
        "the listed deliveries are unchanged"
    );

    // Due at once for another worker, long before w1's lease would have ended.
    let now = due.plus_seconds(3);
    let taken = lease(&*store, "w3", now).await;
    assert_eq!(ids(&taken), BTreeSet::from([kept, also_kept]));
    for l in &taken {
        assert_eq!(
            (l.delivery.attempts, l.delivery.next_attempt_at),
            (0, Some(due))
        );
    }
    // w1 lost them: its attempts are not recorded; the new holder's are.
    let attempt = delivered_at(now.plus_seconds(1));
    assert!(!store.record_attempt(kept, "w1", &attempt).await.unwrap());
    assert!(store.record_attempt(kept, "w3", &attempt).await.unwrap());
    assert!(store.record_attempt(free, "w3", &attempt).await.unwrap());
    // w2 still holds its own.
    assert!(store.record_attempt(other, "w2", &attempt).await.unwrap());
    let finished = read(&*store, team, done).await;
    assert_eq!(
        (finished.status, finished.attempts),
        (DeliveryStatus::Delivered, 1)
    );

    // A lease taken after a release may be given back in turn, to anyone.
    store.release_leases("w3", &[also_kept]).await.unwrap();
    assert_eq!(
        ids(&lease(&*store, "w1", now).await),
        BTreeSet::from([also_kept])
    );
    assert!(store
        .record_attempt(also_kept, "w1", &attempt)
        .await
        .unwrap());
    assert!(all(&*store, team)
        .await
        .iter()
        .all(|d| d.status == DeliveryStatus::Delivered));
}

pub async fn concurrent_leasing_delivers_each_delivery_exactly_once(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let hook = subscribed(&*store, team, EventKind::NewFeedback, "https://a.example/").await;
    let events: Vec<NewEvent> = (0..100)
        .map(|n| event(team, EventKind::NewFeedback, t0(), n))
        .collect();
    store.append_events(&events).await.unwrap();
    let due = at("2026-03-04T06:00:00.000Z");
    assert_eq!(store.fan_out(due, 500).await.unwrap(), 100);

    let hook_id = hook.id;
    let workers: Vec<_> = ["worker-a", "worker-b"]
        .into_iter()
        .map(|owner| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut mine = Vec::new();
                loop {
                    let leased = store
                        .lease_deliveries(&lease_request(owner, due, LEASE, 7))
                        .await
                        .unwrap();
                    if leased.is_empty() {
                        break;
                    }
                    for l in leased {
                        assert_eq!(l.delivery.webhook_id, hook_id);
                        assert!(
                            store
                                .record_attempt(l.delivery.id, owner, &delivered_at(due))
                                .await
                                .unwrap(),
                            "{owner} lost the lease of {}",
                            l.delivery.id
                        );
                        mine.push(l.delivery.id);
                    }
                    tokio::task::yield_now().await;
                }
                mine
            })
        })
        .collect();
    let mut seen = HashSet::new();
    let mut per_worker = Vec::new();
    for worker in workers {
        let mine = worker.await.unwrap();
        per_worker.push(mine.len());
        for id in mine {
            assert!(seen.insert(id), "delivery {id} was leased twice");
        }
    }
    assert_eq!(
        seen.len(),
        100,
        "every delivery was leased ({per_worker:?})"
    );
    let listed = all(&*store, team).await;
    assert_eq!(listed.len(), 100);
    for d in &listed {
        assert_eq!(
            (d.status, d.attempts),
            (DeliveryStatus::Delivered, 1),
            "{}",
            d.id
        );
    }
    let fanned: HashSet<EventId> = listed.iter().map(|d| d.event_id).collect();
    assert_eq!(fanned, events.iter().map(|e| e.id).collect());
}

pub async fn deliveries_are_filtered_and_paged_newest_first(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let a = subscribed(&*store, team, EventKind::NewFeedback, "https://a.example/").await;
    let b = subscribed(&*store, team, EventKind::NewFeedback, "https://b.example/").await;
    subscribed(&*store, other, EventKind::NewFeedback, "https://o.example/").await;
    let due = at("2026-03-04T06:00:00.000Z");
    let mut events = Vec::new();
    for n in 0..3 {
        events.push(appended(&*store, team, EventKind::NewFeedback, n).await);
        appended(&*store, other, EventKind::NewFeedback, 10 + n).await;
        // Each fan-out takes this event and the other team's: created one second apart.
        assert_eq!(store.fan_out(due.plus_seconds(n), 2).await.unwrap(), 2);
    }

    let listed = all(&*store, team).await;
    assert_eq!(listed.len(), 6);
    let mut expected = listed.clone();
    expected.sort_by(|x, y| y.created_at.cmp(&x.created_at).then(y.id.cmp(&x.id)));
    assert_eq!(listed, expected, "newest first, ties by id descending");
    assert_eq!(listed[0].created_at, due.plus_seconds(2));
    assert_eq!(listed[5].created_at, due);
    assert!(listed.iter().all(|d| d.team_id == team));
    assert_eq!(all(&*store, other).await.len(), 3);

    // Statuses: a's oldest delivered, b's middle failed, the rest pending.
    lease(&*store, "w", due.plus_seconds(2)).await;
    let a_old = delivery_of(&*store, team, events[0].id, a.id).await;
    let b_mid = delivery_of(&*store, team, events[1].id, b.id).await;
    let t = due.plus_seconds(3);
    assert!(store
        .record_attempt(a_old.id, "w", &delivered_at(t))
        .await
        .unwrap());
    assert!(store
        .record_attempt(
            b_mid.id,
            "w",
            &record(
                t,
                answered(404, 1),
                AttemptResult::Failed { unsubscribe: false }
            )
        )
        .await
        .unwrap());
    let listed = all(&*store, team).await;
    assert_eq!(
        listed.iter().map(|d| d.id).collect::<Vec<_>>(),
        expected.iter().map(|d| d.id).collect::<Vec<_>>(),
        "attempts do not reorder the list"
    );

    let pick = |webhook: Option<WebhookId>, status: Option<DeliveryStatus>| -> Vec<Delivery> {
        listed
            .iter()
            .filter(|d| webhook.is_none_or(|w| d.webhook_id == w))
            .filter(|d| status.is_none_or(|s| d.status == s))
            .cloned()
            .collect()
    };
    for (webhook, status, n) in [
        (Some(a.id), None, 3),
        (Some(b.id), None, 3),
        (None, Some(DeliveryStatus::Pending), 4),
        (None, Some(DeliveryStatus::Delivered), 1),
        (None, Some(DeliveryStatus::Failed), 1),
        (Some(a.id), Some(DeliveryStatus::Delivered), 1),
        (Some(a.id), Some(DeliveryStatus::Failed), 0),
        (Some(b.id), Some(DeliveryStatus::Pending), 2),
    ] {
        let page = store
            .deliveries(team, &query(webhook, status))
            .await
            .unwrap();
        assert_eq!(page.items, pick(webhook, status), "{webhook:?} {status:?}");
        assert_eq!(page.total, n, "{webhook:?} {status:?}");
    }
    // Another team's subscription selects nothing here.
    let theirs = store.webhooks(other).await.unwrap()[0].id;
    let page = store
        .deliveries(team, &query(Some(theirs), None))
        .await
        .unwrap();
    assert_eq!(page, empty_page(everything()));

    // Pages are cut from the whole selection, with its total.
    let window = PageRequest {
        limit: 2,
        offset: 1,
    };
    let page = store
        .deliveries(
            team,
            &DeliveryQuery {
                webhook_id: None,
                status: None,
                page: window,
            },
        )
        .await
        .unwrap();
    assert_eq!(page.items, listed[1..3].to_vec());
    assert_eq!((page.total, page.page), (6, window));
    let pending_tail = PageRequest {
        limit: 3,
        offset: 2,
    };
    let page = store
        .deliveries(
            team,
            &DeliveryQuery {
                webhook_id: None,
                status: Some(DeliveryStatus::Pending),
                page: pending_tail,
            },
        )
        .await
        .unwrap();
    assert_eq!(
        page.items,
        pick(None, Some(DeliveryStatus::Pending))[2..].to_vec()
    );
    assert_eq!(page.total, 4);
    let beyond = PageRequest {
        limit: 10,
        offset: 6,
    };
    let page = store
        .deliveries(
            team,
            &DeliveryQuery {
                webhook_id: None,
                status: None,
                page: beyond,
            },
        )
        .await
        .unwrap();
    assert!(page.items.is_empty());
    assert_eq!(page.total, 6);
}

/// The ids of the team's outbox events, oldest first.
async fn event_ids(store: &dyn Store, team: TeamId) -> Vec<EventId> {
    store
        .events(team)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect()
}

/// Records `result` for the leased delivery of `event` to `webhook`.
async fn settle(
    store: &dyn Store,
    team: TeamId,
    (event, webhook): (EventId, WebhookId),
    at_: Timestamp,
    result: AttemptResult,
) -> DeliveryId {
    let d = delivery_of(store, team, event, webhook).await;
    let status = if result == AttemptResult::Delivered {
        200
    } else {
        500
    };
    assert!(store
        .record_attempt(d.id, "w", &record(at_, answered(status, 3), result))
        .await
        .unwrap());
    d.id
}

pub async fn pruning_deletes_only_finished_history_older_than_the_cutoff(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let other = stored_team(&*store, "other").await.team.id;
    let ok = subscribed(&*store, team, EventKind::NewFeedback, "https://ok.example/").await;
    let down = subscribed(
        &*store,
        team,
        EventKind::TopicsCreate,
        "https://down.example/",
    )
    .await;
    let topics_ok = subscribed(&*store, team, EventKind::TopicsCreate, "https://t.example/").await;
    let gone = subscribed(
        &*store,
        team,
        EventKind::FeedbacksDelete,
        "https://x.example/",
    )
    .await;
    let late = subscribed(
        &*store,
        team,
        EventKind::NewFeedbackVote,
        "https://l.example/",
    )
    .await;
    let theirs = subscribed(&*store, other, EventKind::NewFeedback, "https://o.example/").await;

    let delivered = appended(&*store, team, EventKind::NewFeedback, 1).await;
    let unsubscribed = appended(&*store, team, EventKind::FeedbacksUpdate, 2).await;
    let half_pending = appended(&*store, team, EventKind::TopicsCreate, 3).await;
    let failed = appended(&*store, team, EventKind::FeedbacksDelete, 4).await;
    let recent = appended(&*store, team, EventKind::NewFeedbackVote, 5).await;
    let their_event = appended(&*store, other, EventKind::NewFeedback, 6).await;
    let fanned_at = at("2026-03-04T06:00:00.000Z");
    // All but `unsubscribed`, which nobody wanted and was written fanned out (at `t0`).
    assert_eq!(store.fan_out(fanned_at, 100).await.unwrap(), 5);
    // Appended after the fan-out: not fanned out, however old it gets.
    let undispatched = appended(&*store, team, EventKind::NewFeedback, 7).await;
    assert_eq!(lease(&*store, "w", fanned_at).await.len(), 6);

    let old = fanned_at.plus_seconds(60);
    let new = fanned_at.plus_seconds(24 * 3600);
    let d_ok = settle(
        &*store,
        team,
        (delivered.id, ok.id),
        old,
        AttemptResult::Delivered,
    )
    .await;
    let d_theirs = settle(
        &*store,
        other,
        (their_event.id, theirs.id),
        old,
        AttemptResult::Delivered,
    )
    .await;
    let d_retry = settle(
        &*store,
        team,
        (half_pending.id, down.id),
        old,
        AttemptResult::Retry {
            at: old.plus_seconds(5),
        },
    )
    .await;
    let d_topics = settle(
        &*store,
        team,
        (half_pending.id, topics_ok.id),
        old,
        AttemptResult::Delivered,
    )
    .await;
    let d_failed = settle(
        &*store,
        team,
        (failed.id, gone.id),
        old,
        AttemptResult::Failed { unsubscribe: false },
    )
    .await;
    let d_recent = settle(
        &*store,
        team,
        (recent.id, late.id),
        new,
        AttemptResult::Delivered,
    )
    .await;

    // Nothing finished before the cut-off (a cut-off at the events' writing): nothing goes.
    let none = store.prune_finished(t0(), 100).await.unwrap();
    assert_eq!(none, Pruned::default());
    assert_eq!(all(&*store, team).await.len(), 5);

    let cutoff = fanned_at.plus_seconds(3600);
    let pruned = store.prune_finished(cutoff, 100).await.unwrap();
    assert_eq!(
        pruned,
        Pruned {
            deliveries: 4,
            events: 4
        },
        "delivered, failed and the other team's; their events and the one nobody got"
    );
    let left: BTreeSet<DeliveryId> = all(&*store, team).await.iter().map(|d| d.id).collect();
    assert_eq!(left, BTreeSet::from([d_retry, d_recent]));
    assert_eq!(all(&*store, other).await, vec![]);
    for gone_id in [d_ok, d_topics, d_failed, d_theirs] {
        assert!(!left.contains(&gone_id));
    }
    // The pending delivery keeps its event (it needs the payload), the kept delivery too, and
    // the event not yet fanned out stays.
    assert_eq!(
        event_ids(&*store, team).await,
        vec![half_pending.id, recent.id, undispatched.id]
    );
    assert_eq!(event_ids(&*store, other).await, vec![]);
    assert!(!event_ids(&*store, team).await.contains(&unsubscribed.id));
    assert!(!event_ids(&*store, team).await.contains(&delivered.id));

    // Idempotent.
    assert_eq!(
        store.prune_finished(cutoff, 100).await.unwrap(),
        Pruned::default()
    );
    // The pending delivery is still sent, with its event's payload.
    let retried = lease(&*store, "w", old.plus_seconds(5)).await;
    assert_eq!(ids(&retried), BTreeSet::from([d_retry]));
    assert!(retried[0].body.contains("\"n\":3"), "{}", retried[0].body);

    // However old, a pending delivery stays; once finished it goes, and its event with it.
    let far = new.plus_seconds(30 * 24 * 3600);
    assert_eq!(
        store.prune_finished(far, 100).await.unwrap(),
        Pruned {
            deliveries: 1,
            events: 1
        },
        "the recent delivery and its event"
    );
    assert_eq!(
        event_ids(&*store, team).await,
        vec![half_pending.id, undispatched.id]
    );
    settle(
        &*store,
        team,
        (half_pending.id, down.id),
        new,
        AttemptResult::Delivered,
    )
    .await;
    assert_eq!(
        store.prune_finished(far, 100).await.unwrap(),
        Pruned {
            deliveries: 1,
            events: 1
        }
    );
    assert_eq!(all(&*store, team).await, vec![]);
    assert_eq!(event_ids(&*store, team).await, vec![undispatched.id]);
}

pub async fn pruning_takes_at_most_the_limit_of_each_kind_oldest_first(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let ok = subscribed(&*store, team, EventKind::NewFeedback, "https://ok.example/").await;
    let mut events = Vec::new();
    for n in 0..5 {
        events.push(appended(&*store, team, EventKind::NewFeedback, n).await);
    }
    let fanned_at = at("2026-03-04T06:00:00.000Z");
    assert_eq!(store.fan_out(fanned_at, 100).await.unwrap(), 5);
    lease(&*store, "w", fanned_at).await;
    // Finished in reverse order: the last event's delivery is the oldest.
    let mut finished = Vec::new();
    for (i, e) in events.iter().rev().enumerate() {
        let when = fanned_at.plus_seconds(10 + i64::try_from(i).unwrap());
        finished.push(settle(&*store, team, (e.id, ok.id), when, AttemptResult::Delivered).await);
    }

    let cutoff = fanned_at.plus_seconds(3600);
    let two = Pruned {
        deliveries: 2,
        events: 2,
    };
    let first = store.prune_finished(cutoff, 2).await.unwrap();
    assert_eq!(first, two);
    assert!(first.is_full(2));
    let left: Vec<DeliveryId> = all(&*store, team).await.iter().map(|d| d.id).collect();
    assert_eq!(
        left.iter().copied().collect::<BTreeSet<_>>(),
        finished[2..].iter().copied().collect::<BTreeSet<_>>(),
        "the oldest finished go first"
    );
    assert_eq!(
        event_ids(&*store, team).await,
        events[..3].iter().map(|e| e.id).collect::<Vec<_>>(),
        "an event goes with its last delivery"
    );
    assert_eq!(store.prune_finished(cutoff, 2).await.unwrap(), two);
    let last = store.prune_finished(cutoff, 2).await.unwrap();
    assert_eq!(
        last,
        Pruned {
            deliveries: 1,
            events: 1
        }
    );
    assert!(!last.is_full(2));
    assert_eq!(
        store.prune_finished(cutoff, 2).await.unwrap(),
        Pruned::default()
    );

    // Events nobody subscribed to, written fanned out one after the other (when they
    // occurred): the oldest first too.
    let mut quiet = Vec::new();
    for n in 0..3 {
        let e = event(
            team,
            EventKind::FeedbacksUpdate,
            t0().plus_seconds(n),
            10 + n,
        );
        store.append_events(std::slice::from_ref(&e)).await.unwrap();
        quiet.push(e);
    }
    assert_eq!(store.fan_out(fanned_at, 100).await.unwrap(), 0);
    assert_eq!(
        store.prune_finished(cutoff, 2).await.unwrap(),
        Pruned {
            deliveries: 0,
            events: 2
        }
    );
    assert_eq!(event_ids(&*store, team).await, vec![quiet[2].id]);
    assert_eq!(
        store.prune_finished(cutoff, 2).await.unwrap(),
        Pruned {
            deliveries: 0,
            events: 1
        }
    );
    assert_eq!(event_ids(&*store, team).await, vec![]);
    assert_eq!(
        store.prune_finished(cutoff, 0).await.unwrap(),
        Pruned::default()
    );
}

pub async fn concurrent_prunes_delete_each_row_once(store: Arc<dyn Store>) {
    let team = stored_team(&*store, "acme").await.team.id;
    let ok = subscribed(&*store, team, EventKind::NewFeedback, "https://ok.example/").await;
    let fanned_at = at("2026-03-04T06:00:00.000Z");
    for n in 0..100 {
        appended(&*store, team, EventKind::NewFeedback, n).await;
    }
    for n in 0..20 {
        appended(&*store, team, EventKind::FeedbacksUpdate, 100 + n).await;
    }
    // The 20 nobody wants were written fanned out.
    assert_eq!(store.fan_out(fanned_at, 500).await.unwrap(), 100);
    let leased = lease(&*store, "w", fanned_at).await;
    assert_eq!(leased.len(), 100);
    for l in &leased {
        assert!(store
            .record_attempt(l.delivery.id, "w", &delivered_at(fanned_at.plus_seconds(1)))
            .await
            .unwrap());
    }
    assert_eq!(ok.team_id, team);

    let cutoff = fanned_at.plus_seconds(60);
    let pruners = (0..4).map(|_| {
        let store = store.clone();
        tokio::spawn(async move {
            let mut total = Pruned::default();
            loop {
                let p = store.prune_finished(cutoff, 7).await.expect("prune");
                total.deliveries += p.deliveries;
                total.events += p.events;
                if p == Pruned::default() {
                    return total;
                }
            }
        })
    });
    let mut total = Pruned::default();
    for pruner in pruners.collect::<Vec<_>>() {
        let p = pruner.await.unwrap();
        total.deliveries += p.deliveries;
        total.events += p.events;
    }
    // A pruner that found only rows others held stopped early: one more mops up.
    let rest = store.prune_finished(cutoff, 500).await.unwrap();
    total.deliveries += rest.deliveries;
    total.events += rest.events;
    assert_eq!(
        total,
        Pruned {
            deliveries: 100,
            events: 120
        },
        "each row deleted once, none left"
    );
    assert_eq!(all(&*store, team).await, vec![]);
    assert_eq!(event_ids(&*store, team).await, vec![]);
}
