//! The webhook store on diesel: subscriptions, fan-out from the outbox, leases and attempts,
//! the delivery list, leases given back and redelivery. Every check runs on SQLite (a
//! temporary file) and, when `SOUNDING_TEST_POSTGRES_URL` names a server whose user may create
//! databases, on a fresh PostgreSQL database too.

mod support;

use std::{
    collections::{HashMap, HashSet},
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use diesel::{Connection, PgConnection, RunQueryDsl, SqliteConnection};
use serde_json::json;
use sounding_domain::{
    event::{EventKind, NewEvent},
    ids::{DeliveryId, EventId, TeamId, WebhookId},
    page::PageRequest,
    ports::{Conflict, OutboxStore, StoreError, WebhookStore},
    timestamp::Timestamp,
    webhook::{
        new_secret, AttemptOutcome, AttemptRecord, AttemptResult, Delivery, DeliveryQuery,
        DeliveryStatus, LeasedDelivery, WebhookSubscription,
    },
};
use sounding_store_diesel::DieselStore;
use support::{on_every_engine, postgres, sqlite, t0, team, Env};

// ---------------------------------------------------------------------------------------------
// Backends

enum Raw {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

impl Env {
    fn is_postgres(&self) -> bool {
        !self.url.starts_with("sqlite://")
    }

    /// A connection of its own, outside the store.
    fn raw(&self) -> Raw {
        match self.url.strip_prefix("sqlite://") {
            Some(path) => Raw::Sqlite(SqliteConnection::establish(path).unwrap()),
            None => Raw::Postgres(PgConnection::establish(&self.url).unwrap()),
        }
    }

    /// Runs a statement outside the store; the rows it touched.
    fn execute(&self, sql: &str) -> usize {
        let query = diesel::sql_query(sql);
        match self.raw() {
            Raw::Sqlite(mut c) => query.execute(&mut c).unwrap(),
            Raw::Postgres(mut c) => query.execute(&mut c).unwrap(),
        }
    }
}

on_every_engine!(
    subscriptions_read_back_oldest_first_within_their_team,
    fan_out_makes_one_delivery_per_matching_subscription,
    fan_out_is_idempotent_and_takes_the_oldest_events_first,
    leases_and_attempts_move_deliveries_through_their_states,
    an_expired_lease_passes_to_another_owner_and_the_first_loses_it,
    gone_unsubscribes_and_fails_the_other_pending_deliveries,
    deleting_a_subscription_fails_its_pending_deliveries,
    a_delivery_whose_subscription_vanished_is_failed_not_leased,
    two_owners_leasing_concurrently_never_share_a_delivery,
    concurrent_fan_outs_take_each_event_once,
    locked_rows_are_skipped_not_waited_for,
    deliveries_are_listed_newest_first_with_filters,
    redelivery_makes_a_delivery_pending_again,
    released_leases_are_due_at_once_and_only_the_owners_are_released,
    redelivery_waits_for_a_lease_being_taken,
);

// ---------------------------------------------------------------------------------------------
// Fixtures

fn secs(n: i64) -> Timestamp {
    t0().plus_seconds(n)
}

async fn subscribe(
    store: &DieselStore,
    team: TeamId,
    kind: EventKind,
    url: &str,
    created_at: Timestamp,
) -> WebhookSubscription {
    let webhook = WebhookSubscription {
        id: WebhookId::new(),
        team_id: team,
        target_url: url.into(),
        event: kind,
        secret: new_secret(),
        created_at,
    };
    store.insert_webhook(&webhook).await.unwrap();
    webhook
}

/// Appends one event of `kind` for `team`; returns it.
async fn emit(store: &DieselStore, team: TeamId, kind: EventKind) -> NewEvent {
    let event = NewEvent::new(
        team,
        kind,
        t0(),
        &[("feedbackId", uuid::Uuid::new_v4().to_string())],
        json!({ "title": "Dark mode", "n": 1.5 }),
    );
    store
        .append_events(std::slice::from_ref(&event))
        .await
        .unwrap();
    event
}

fn all() -> DeliveryQuery {
    DeliveryQuery {
        webhook_id: None,
        status: None,
        page: PageRequest {
            limit: 100,
            offset: 0,
        },
    }
}

async fn deliveries(store: &DieselStore, team: TeamId) -> Vec<Delivery> {
    let page = store.deliveries(team, &all()).await.unwrap();
    assert_eq!(page.total as usize, page.items.len());
    page.items
}

async fn delivery(store: &DieselStore, team: TeamId, id: DeliveryId) -> Delivery {
    deliveries(store, team)
        .await
        .into_iter()
        .find(|d| d.id == id)
        .expect("delivery listed")
}

/// The delivery of `event` to `webhook`.
fn find(list: &[Delivery], event: EventId, webhook: WebhookId) -> &Delivery {
    list.iter()
        .find(|d| d.event_id == event && d.webhook_id == webhook)
        .expect("delivery for the event and subscription")
}

fn outcome(status: Option<u16>, millis: u64, error: Option<&str>) -> AttemptOutcome {
    AttemptOutcome {
        status,
        duration: Duration::from_millis(millis),
        error: error.map(str::to_owned),
        retry_after: None,
    }
}

fn delivered(at: Timestamp) -> AttemptRecord {
    AttemptRecord {
        at,
        outcome: outcome(Some(200), 120, None),
        result: AttemptResult::Delivered,
    }
}

fn retry(at: Timestamp, next: Timestamp) -> AttemptRecord {
    AttemptRecord {
        at,
        outcome: outcome(Some(500), 80, Some("HTTP 500")),
        result: AttemptResult::Retry { at: next },
    }
}

fn failed(at: Timestamp, status: u16, unsubscribe: bool) -> AttemptRecord {
    AttemptRecord {
        at,
        outcome: outcome(Some(status), 15, None),
        result: AttemptResult::Failed { unsubscribe },
    }
}

fn ids(leased: &[LeasedDelivery]) -> HashSet<DeliveryId> {
    leased.iter().map(|l| l.delivery.id).collect()
}

/// One lease seen by a worker: the delivery, its attempts before the lease, the owner.
type LeaseLog = (DeliveryId, i64, &'static str);

const GONE: &str = "unsubscribed: the target answered 410 Gone";

// ---------------------------------------------------------------------------------------------
// Checks

async fn subscriptions_read_back_oldest_first_within_their_team(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let later = subscribe(
        store,
        a,
        EventKind::TopicsCreate,
        "https://x.example/2",
        secs(5),
    )
    .await;
    let first = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://x.example/1",
        secs(1),
    )
    .await;
    let other = subscribe(
        store,
        b,
        EventKind::NewFeedback,
        "https://y.example/",
        secs(0),
    )
    .await;

    assert_eq!(store.webhooks(a).await.unwrap(), vec![first.clone(), later]);
    assert_eq!(store.webhooks(b).await.unwrap(), vec![other.clone()]);
    assert_eq!(store.webhook(a, first.id).await.unwrap(), Some(first));
    assert_eq!(store.webhook(a, other.id).await.unwrap(), None);
    assert_eq!(store.webhook(a, WebhookId::new()).await.unwrap(), None);
}

async fn fan_out_makes_one_delivery_per_matching_subscription(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let w1 = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/1",
        secs(0),
    )
    .await;
    let w2 = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/2",
        secs(1),
    )
    .await;
    let _topics = subscribe(
        store,
        a,
        EventKind::TopicsCreate,
        "https://a.example/3",
        secs(2),
    )
    .await;
    let w4 = subscribe(
        store,
        b,
        EventKind::NewFeedback,
        "https://b.example/",
        secs(0),
    )
    .await;

    let e1 = emit(store, a, EventKind::NewFeedback).await;
    let _unwatched = emit(store, a, EventKind::FeedbacksCreate).await;
    let _other_kind = emit(store, b, EventKind::TopicsCreate).await;
    let e4 = emit(store, b, EventKind::NewFeedback).await;

    let now = secs(10);
    assert_eq!(store.fan_out(now, 100).await.unwrap(), 4);
    assert_eq!(
        env.count("SELECT COUNT(*) AS n FROM outbox_events WHERE dispatched_at IS NULL"),
        0,
        "every event taken is marked, with or without subscribers"
    );

    let of_a = deliveries(store, a).await;
    assert_eq!(of_a.len(), 2, "{of_a:?}");
    for w in [&w1, &w2] {
        let d = find(&of_a, e1.id, w.id);
        assert_eq!(d.team_id, a);
        assert_eq!(d.event, "new_feedback");
        assert_eq!(d.target_url, w.target_url);
        assert_eq!(d.status, DeliveryStatus::Pending);
        assert_eq!(d.attempts, 0);
        assert_eq!(d.next_attempt_at, Some(now));
        assert_eq!(d.created_at, now);
        assert_eq!(
            (d.first_attempt_at, d.last_attempt_at, d.last_status_code),
            (None, None, None)
        );
        assert_eq!((&d.last_error, d.last_duration_ms), (&None, None));
    }
    let of_b = deliveries(store, b).await;
    assert_eq!(of_b.len(), 1);
    assert_eq!(find(&of_b, e4.id, w4.id).target_url, "https://b.example/");

    // The target snapshot: a later subscription change does not rewrite history.
    env.execute(&format!(
        "UPDATE webhooks SET target_url = 'https://moved.example/' WHERE id = '{}'",
        w1.id
    ));
    assert_eq!(
        find(&deliveries(store, a).await, e1.id, w1.id).target_url,
        "https://a.example/1"
    );

    // Nothing left: nothing taken, nothing made.
    assert_eq!(store.fan_out(secs(20), 100).await.unwrap(), 0);
    assert_eq!(env.count("SELECT COUNT(*) AS n FROM webhook_deliveries"), 3);
}

async fn fan_out_is_idempotent_and_takes_the_oldest_events_first(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let w = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/",
        secs(0),
    )
    .await;
    let mut events = Vec::new();
    for _ in 0..5 {
        events.push(emit(store, a, EventKind::NewFeedback).await);
    }
    assert_eq!(
        store.fan_out(secs(1), 0).await.unwrap(),
        0,
        "limit 0 takes none"
    );

    assert_eq!(store.fan_out(secs(1), 2).await.unwrap(), 2);
    let dispatched = |env: &Env| {
        env.count("SELECT COUNT(*) AS n FROM outbox_events WHERE dispatched_at IS NOT NULL")
    };
    assert_eq!(dispatched(&env), 2);
    let taken: HashSet<EventId> = deliveries(store, a)
        .await
        .iter()
        .map(|d| d.event_id)
        .collect();
    assert_eq!(taken, HashSet::from([events[0].id, events[1].id]), "by seq");
    assert_eq!(store.fan_out(secs(2), 2).await.unwrap(), 2);
    assert_eq!(store.fan_out(secs(3), 2).await.unwrap(), 1);
    assert_eq!(store.fan_out(secs(4), 2).await.unwrap(), 0);
    assert_eq!(dispatched(&env), 5);

    // Taking the same events again (as if their marks were lost) makes no second delivery.
    let before = deliveries(store, a).await;
    assert_eq!(before.len(), 5);
    assert_eq!(
        env.execute("UPDATE outbox_events SET dispatched_at = NULL"),
        5
    );
    assert_eq!(store.fan_out(secs(9), 100).await.unwrap(), 5);
    assert_eq!(deliveries(store, a).await, before);
    for e in &events {
        let d = find(&before, e.id, w.id);
        assert_eq!(d.status, DeliveryStatus::Pending);
    }
}

async fn leases_and_attempts_move_deliveries_through_their_states(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let w = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/",
        secs(0),
    )
    .await;
    let mut events = Vec::new();
    for _ in 0..3 {
        events.push(emit(store, a, EventKind::NewFeedback).await);
    }
    assert!(store
        .lease_deliveries("a", t0(), 60, 10)
        .await
        .unwrap()
        .is_empty());
    store.fan_out(t0(), 100).await.unwrap();
    let list = deliveries(store, a).await;
    let [d1, d2, d3] = [0, 1, 2].map(|i| find(&list, events[i].id, w.id).id);

    assert!(store
        .lease_deliveries("a", t0(), 60, 0)
        .await
        .unwrap()
        .is_empty());
    let leased = store.lease_deliveries("a", t0(), 60, 10).await.unwrap();
    assert_eq!(ids(&leased), HashSet::from([d1, d2, d3]));
    for l in &leased {
        let event = events.iter().find(|e| e.id == l.delivery.event_id).unwrap();
        let body: serde_json::Value = serde_json::from_str(&l.body).unwrap();
        assert_eq!(body, event.payload, "the body is the event's payload");
        assert_eq!(l.secret, w.secret);
        assert_eq!(l.delivery.status, DeliveryStatus::Pending);
        assert_eq!(l.delivery.target_url, w.target_url);
    }
    assert!(
        store
            .lease_deliveries("b", t0(), 60, 10)
            .await
            .unwrap()
            .is_empty(),
        "leased deliveries are not handed out again"
    );

    // Delivered.
    assert!(store
        .record_attempt(d1, "a", &delivered(secs(1)))
        .await
        .unwrap());
    let d = delivery(store, a, d1).await;
    assert_eq!(d.status, DeliveryStatus::Delivered);
    assert_eq!(d.attempts, 1);
    assert_eq!(
        (d.first_attempt_at, d.last_attempt_at),
        (Some(secs(1)), Some(secs(1)))
    );
    assert_eq!(
        (d.last_status_code, d.last_duration_ms),
        (Some(200), Some(120))
    );
    assert_eq!((d.next_attempt_at, &d.last_error), (None, &None));
    assert!(
        !store
            .record_attempt(d1, "a", &delivered(secs(2)))
            .await
            .unwrap(),
        "a delivery no longer pending takes no attempt"
    );
    assert_eq!(delivery(store, a, d1).await, d, "nothing written");

    // Retried later, by whoever leases it then.
    assert!(store
        .record_attempt(d2, "a", &retry(secs(2), secs(30)))
        .await
        .unwrap());
    let d = delivery(store, a, d2).await;
    assert_eq!(d.status, DeliveryStatus::Pending);
    assert_eq!(d.attempts, 1);
    assert_eq!(d.next_attempt_at, Some(secs(30)));
    assert_eq!(d.last_status_code, Some(500));
    assert_eq!(d.last_error.as_deref(), Some("HTTP 500"));
    assert!(
        store
            .lease_deliveries("b", secs(29), 60, 10)
            .await
            .unwrap()
            .is_empty(),
        "not due yet (and d3 still leased by a)"
    );
    let again = store.lease_deliveries("b", secs(30), 60, 10).await.unwrap();
    assert_eq!(ids(&again), HashSet::from([d2]));
    assert_eq!(again[0].delivery.attempts, 1);
    assert!(
        !store
            .record_attempt(d2, "a", &delivered(secs(31)))
            .await
            .unwrap(),
        "the released lease is a's no more"
    );
    assert!(store
        .record_attempt(d2, "b", &retry(secs(31), secs(90)))
        .await
        .unwrap());
    let d = delivery(store, a, d2).await;
    assert_eq!(d.attempts, 2);
    assert_eq!(
        d.first_attempt_at,
        Some(secs(2)),
        "the first attempt is kept"
    );
    assert_eq!(d.last_attempt_at, Some(secs(31)));

    // Given up.
    assert!(store
        .record_attempt(d3, "a", &failed(secs(3), 400, false))
        .await
        .unwrap());
    let d = delivery(store, a, d3).await;
    assert_eq!(d.status, DeliveryStatus::Failed);
    assert_eq!((d.attempts, d.next_attempt_at), (1, None));
    assert_eq!(d.last_status_code, Some(400));
    assert_eq!(
        store.webhooks(a).await.unwrap().len(),
        1,
        "still subscribed"
    );

    // No lease outstanding: the released leases left nothing behind.
    assert_eq!(
        env.count(
            "SELECT COUNT(*) AS n FROM webhook_deliveries \
             WHERE lease_owner IS NOT NULL OR lease_until IS NOT NULL"
        ),
        0
    );
    assert!(!store
        .record_attempt(DeliveryId::new(), "a", &delivered(secs(4)))
        .await
        .unwrap());
}

async fn an_expired_lease_passes_to_another_owner_and_the_first_loses_it(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/",
        secs(0),
    )
    .await;
    emit(store, a, EventKind::NewFeedback).await;
    store.fan_out(t0(), 100).await.unwrap();

    let first = store.lease_deliveries("a", t0(), 60, 10).await.unwrap();
    assert_eq!(first.len(), 1);
    let id = first[0].delivery.id;
    assert!(store
        .lease_deliveries("b", secs(59), 60, 10)
        .await
        .unwrap()
        .is_empty());
    let second = store.lease_deliveries("b", secs(60), 60, 10).await.unwrap();
    assert_eq!(
        ids(&second),
        HashSet::from([id]),
        "expired at now + lease_seconds"
    );

    assert!(!store
        .record_attempt(id, "a", &delivered(secs(61)))
        .await
        .unwrap());
    let d = delivery(store, a, id).await;
    assert_eq!(
        (d.status, d.attempts),
        (DeliveryStatus::Pending, 0),
        "nothing written"
    );
    assert!(store
        .record_attempt(id, "b", &delivered(secs(62)))
        .await
        .unwrap());
    assert_eq!(
        delivery(store, a, id).await.status,
        DeliveryStatus::Delivered
    );
}

async fn gone_unsubscribes_and_fails_the_other_pending_deliveries(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let gone = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://gone.example/",
        secs(0),
    )
    .await;
    let kept = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://kept.example/",
        secs(1),
    )
    .await;
    let mut events = Vec::new();
    for _ in 0..3 {
        events.push(emit(store, a, EventKind::NewFeedback).await);
    }
    store.fan_out(t0(), 100).await.unwrap();
    assert_eq!(
        store
            .lease_deliveries("a", t0(), 60, 10)
            .await
            .unwrap()
            .len(),
        6
    );
    let list = deliveries(store, a).await;
    let of_gone = [0, 1, 2].map(|i| find(&list, events[i].id, gone.id).id);

    assert!(store
        .record_attempt(of_gone[2], "a", &delivered(secs(1)))
        .await
        .unwrap());
    assert!(store
        .record_attempt(of_gone[0], "a", &failed(secs(2), 410, true))
        .await
        .unwrap());

    assert_eq!(store.webhooks(a).await.unwrap(), vec![kept.clone()]);
    let d = delivery(store, a, of_gone[0]).await;
    assert_eq!((d.status, d.attempts), (DeliveryStatus::Failed, 1));
    assert_eq!(d.last_status_code, Some(410));
    let sibling = delivery(store, a, of_gone[1]).await;
    assert_eq!(sibling.status, DeliveryStatus::Failed);
    assert_eq!(sibling.last_error.as_deref(), Some(GONE));
    assert_eq!((sibling.attempts, sibling.next_attempt_at), (0, None));
    assert_eq!(
        delivery(store, a, of_gone[2]).await.status,
        DeliveryStatus::Delivered,
        "history stays"
    );
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = '{}' \
             AND (lease_owner IS NOT NULL OR lease_until IS NOT NULL)",
            gone.id
        )),
        0,
        "leases released"
    );
    assert!(
        !store
            .record_attempt(of_gone[1], "a", &delivered(secs(3)))
            .await
            .unwrap(),
        "the failed sibling takes no attempt"
    );
    for e in &events {
        let d = find(&deliveries(store, a).await, e.id, kept.id).clone();
        assert_eq!(
            d.status,
            DeliveryStatus::Pending,
            "the other subscription is untouched"
        );
        assert!(store
            .record_attempt(d.id, "a", &delivered(secs(4)))
            .await
            .unwrap());
    }

    // New events reach only the remaining subscription.
    let e = emit(store, a, EventKind::NewFeedback).await;
    store.fan_out(secs(5), 100).await.unwrap();
    let fresh: Vec<_> = deliveries(store, a)
        .await
        .into_iter()
        .filter(|d| d.event_id == e.id)
        .collect();
    assert_eq!(fresh.len(), 1);
    assert_eq!(fresh[0].webhook_id, kept.id);
}

async fn deleting_a_subscription_fails_its_pending_deliveries(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let w = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/",
        secs(0),
    )
    .await;
    let e1 = emit(store, a, EventKind::NewFeedback).await;
    let e2 = emit(store, a, EventKind::NewFeedback).await;
    let e3 = emit(store, a, EventKind::NewFeedback).await;
    store.fan_out(t0(), 100).await.unwrap();
    let list = deliveries(store, a).await;
    let (d1, d2, d3) = (
        find(&list, e1.id, w.id).id,
        find(&list, e2.id, w.id).id,
        find(&list, e3.id, w.id).id,
    );
    assert_eq!(
        store
            .lease_deliveries("a", t0(), 60, 3)
            .await
            .unwrap()
            .len(),
        3
    );
    assert!(store
        .record_attempt(d1, "a", &delivered(secs(1)))
        .await
        .unwrap());

    assert!(
        !store.delete_webhook(b, w.id).await.unwrap(),
        "another team's"
    );
    assert!(store.webhook(a, w.id).await.unwrap().is_some());
    assert!(store.delete_webhook(a, w.id).await.unwrap());
    assert!(store.webhook(a, w.id).await.unwrap().is_none());
    assert!(
        !store.delete_webhook(a, w.id).await.unwrap(),
        "already gone"
    );

    assert_eq!(
        delivery(store, a, d1).await.status,
        DeliveryStatus::Delivered
    );
    for id in [d2, d3] {
        let d = delivery(store, a, id).await;
        assert_eq!(d.status, DeliveryStatus::Failed);
        assert_eq!(d.last_error.as_deref(), Some("unsubscribed"));
        assert_eq!(d.next_attempt_at, None);
        assert!(
            !store
                .record_attempt(id, "a", &delivered(secs(2)))
                .await
                .unwrap(),
            "the worker still holding it loses its lease"
        );
    }
    assert_eq!(
        env.count("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE lease_owner IS NOT NULL"),
        0
    );
    assert!(
        !store.redeliver(a, d2, secs(3)).await.unwrap(),
        "subscription gone"
    );
}

async fn a_delivery_whose_subscription_vanished_is_failed_not_leased(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let lost = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://lost.example/",
        secs(0),
    )
    .await;
    let kept = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://kept.example/",
        secs(1),
    )
    .await;
    let e = emit(store, a, EventKind::NewFeedback).await;
    store.fan_out(t0(), 100).await.unwrap();
    // As a fan-out racing a delete on another instance could leave it: the row is gone, its
    // delivery still pending.
    assert_eq!(
        env.execute(&format!("DELETE FROM webhooks WHERE id = '{}'", lost.id)),
        1
    );

    let leased = store.lease_deliveries("a", secs(1), 60, 10).await.unwrap();
    assert_eq!(leased.len(), 1);
    assert_eq!(leased[0].delivery.webhook_id, kept.id);
    let list = deliveries(store, a).await;
    let d = find(&list, e.id, lost.id);
    assert_eq!(d.status, DeliveryStatus::Failed);
    assert_eq!(d.last_error.as_deref(), Some("unsubscribed"));
    assert_eq!(d.next_attempt_at, None);
    assert!(
        store
            .lease_deliveries("b", secs(120), 60, 10)
            .await
            .unwrap()
            .len()
            == 1
    );
}

async fn two_owners_leasing_concurrently_never_share_a_delivery(env: Env) {
    const N: usize = 200;
    let store = env.store.clone();
    let a = team(&store, "a").await;
    subscribe(
        &store,
        a,
        EventKind::NewFeedback,
        "https://a.example/",
        secs(0),
    )
    .await;
    let events: Vec<NewEvent> = (0..N)
        .map(|_| NewEvent::new(a, EventKind::NewFeedback, t0(), &[], json!({})))
        .collect();
    store.append_events(&events).await.unwrap();
    assert_eq!(store.fan_out(t0(), 1000).await.unwrap(), N);

    // Every delivery needs two attempts: the first is retried at once, the second delivers.
    // Each lease is logged as (delivery, attempts before it): none may appear twice.
    let done = Arc::new(AtomicUsize::new(0));
    let log: Arc<Mutex<Vec<LeaseLog>>> = Arc::default();
    let workers: Vec<_> = ["w1", "w2"]
        .into_iter()
        .map(|owner| {
            let (store, done, log) = (store.clone(), done.clone(), log.clone());
            tokio::spawn(async move {
                let mut rounds = 0;
                while done.load(Ordering::SeqCst) < N {
                    rounds += 1;
                    assert!(rounds < 100_000, "{owner} is not making progress");
                    let leased = store.lease_deliveries(owner, t0(), 300, 7).await.unwrap();
                    if leased.is_empty() {
                        tokio::task::yield_now().await;
                        continue;
                    }
                    for l in leased {
                        let d = &l.delivery;
                        log.lock().unwrap().push((d.id, d.attempts, owner));
                        let record = if d.attempts == 0 {
                            retry(t0(), t0())
                        } else {
                            delivered(t0())
                        };
                        assert!(
                            store.record_attempt(d.id, owner, &record).await.unwrap(),
                            "{owner} lost a lease it held"
                        );
                        if d.attempts > 0 {
                            done.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                }
            })
        })
        .collect();
    let joined = tokio::time::timeout(Duration::from_secs(120), async {
        for worker in workers {
            worker.await.unwrap();
        }
    })
    .await;
    assert!(joined.is_ok(), "the workers did not finish in time");

    let log = log.lock().unwrap().clone();
    let mut seen: HashMap<(DeliveryId, i64), &str> = HashMap::new();
    for (id, attempts, owner) in log.iter() {
        if let Some(other) = seen.insert((*id, *attempts), owner) {
            panic!("attempt {attempts} of {id} leased to both {other} and {owner}");
        }
    }
    assert_eq!(log.len(), 2 * N, "each delivery leased once per attempt");
    let per_owner = |o: &str| log.iter().filter(|(_, _, owner)| *owner == o).count();
    eprintln!("leases: w1 {}, w2 {}", per_owner("w1"), per_owner("w2"));
    let list = store
        .deliveries(
            a,
            &DeliveryQuery {
                page: PageRequest {
                    limit: 100,
                    offset: 0,
                },
                ..all()
            },
        )
        .await
        .unwrap();
    assert_eq!(list.total, N as i64);
    assert_eq!(
        env.count(
            "SELECT COUNT(*) AS n FROM webhook_deliveries \
             WHERE status = 'delivered' AND attempts = 2 AND lease_owner IS NULL"
        ),
        N as i64
    );
}

async fn concurrent_fan_outs_take_each_event_once(env: Env) {
    const N: usize = 200;
    let store = env.store.clone();
    let a = team(&store, "a").await;
    let w1 = subscribe(
        &store,
        a,
        EventKind::NewFeedback,
        "https://a.example/1",
        secs(0),
    )
    .await;
    let w2 = subscribe(
        &store,
        a,
        EventKind::NewFeedback,
        "https://a.example/2",
        secs(1),
    )
    .await;
    let events: Vec<NewEvent> = (0..N)
        .map(|_| NewEvent::new(a, EventKind::NewFeedback, t0(), &[], json!({})))
        .collect();
    store.append_events(&events).await.unwrap();

    let instances: Vec<_> = (0..4)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut taken = 0;
                loop {
                    match store.fan_out(t0(), 9).await.unwrap() {
                        0 => return taken,
                        n => taken += n,
                    }
                }
            })
        })
        .collect();
    let mut taken = 0;
    for instance in instances {
        taken += instance.await.unwrap();
    }
    assert_eq!(taken, N, "every event taken by exactly one instance");
    assert_eq!(
        env.count("SELECT COUNT(*) AS n FROM outbox_events WHERE dispatched_at IS NULL"),
        0
    );
    let per = |w: WebhookId| {
        env.count(&format!(
            "SELECT COUNT(DISTINCT event_id) AS n FROM webhook_deliveries WHERE webhook_id = '{w}'"
        ))
    };
    assert_eq!((per(w1.id), per(w2.id)), (N as i64, N as i64));
    assert_eq!(
        env.count("SELECT COUNT(*) AS n FROM webhook_deliveries"),
        2 * N as i64
    );
}

/// PostgreSQL only: a row another transaction holds is skipped by fan-out and leasing, not
/// waited for (SQLite has no row locks: its writers queue on the database lock instead).
async fn locked_rows_are_skipped_not_waited_for(env: Env) {
    if !env.is_postgres() {
        return;
    }
    let store = &*env.store;
    let a = team(store, "a").await;
    subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/",
        secs(0),
    )
    .await;
    let e1 = emit(store, a, EventKind::NewFeedback).await;
    let e2 = emit(store, a, EventKind::NewFeedback).await;

    let Raw::Postgres(mut other) = env.raw() else {
        unreachable!()
    };
    diesel::sql_query("BEGIN").execute(&mut other).unwrap();
    diesel::sql_query(format!(
        "SELECT seq FROM outbox_events WHERE id = '{}' FOR UPDATE",
        e1.id
    ))
    .execute(&mut other)
    .unwrap();
    let fanned = tokio::time::timeout(Duration::from_secs(10), store.fan_out(t0(), 100))
        .await
        .expect("fan-out waited for the locked event");
    assert_eq!(fanned.unwrap(), 1, "only the unlocked event");
    let list = deliveries(store, a).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].event_id, e2.id);
    // Released when ROLLBACK returns (closing the connection would release it later).
    diesel::sql_query("ROLLBACK").execute(&mut other).unwrap();
    assert_eq!(store.fan_out(t0(), 100).await.unwrap(), 1, "then the other");
    let list = deliveries(store, a).await;
    let held = list.iter().find(|d| d.event_id == e1.id).unwrap().id;

    let Raw::Postgres(mut other) = env.raw() else {
        unreachable!()
    };
    diesel::sql_query("BEGIN").execute(&mut other).unwrap();
    diesel::sql_query(format!(
        "SELECT id FROM webhook_deliveries WHERE id = '{held}' FOR UPDATE"
    ))
    .execute(&mut other)
    .unwrap();
    let leased = tokio::time::timeout(
        Duration::from_secs(10),
        store.lease_deliveries("a", t0(), 60, 10),
    )
    .await
    .expect("leasing waited for the locked delivery")
    .unwrap();
    assert_eq!(leased.len(), 1);
    assert_ne!(leased[0].delivery.id, held);
    // Released when ROLLBACK returns (closing the connection would release it later).
    diesel::sql_query("ROLLBACK").execute(&mut other).unwrap();
    assert_eq!(
        ids(&store.lease_deliveries("b", t0(), 60, 10).await.unwrap()),
        HashSet::from([held])
    );
}

async fn deliveries_are_listed_newest_first_with_filters(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    let w1 = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/1",
        secs(0),
    )
    .await;
    let w2 = subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/2",
        secs(1),
    )
    .await;
    subscribe(
        store,
        b,
        EventKind::NewFeedback,
        "https://b.example/",
        secs(0),
    )
    .await;
    // Three rounds of fan-out at increasing times: 2 deliveries each in team a.
    let mut rounds = Vec::new();
    for round in 0..3 {
        let e = emit(store, a, EventKind::NewFeedback).await;
        emit(store, b, EventKind::NewFeedback).await;
        store.fan_out(secs(10 * round), 100).await.unwrap();
        rounds.push(e);
    }
    let page = store.deliveries(a, &all()).await.unwrap();
    assert_eq!(page.total, 6);
    assert_eq!(page.page, all().page);
    let created: Vec<Timestamp> = page.items.iter().map(|d| d.created_at).collect();
    assert_eq!(
        created,
        vec![secs(20), secs(20), secs(10), secs(10), secs(0), secs(0)],
        "newest first"
    );
    for pair in page.items.chunks(2) {
        assert!(pair[0].id > pair[1].id, "then by id, descending");
        assert!(pair.iter().all(|d| d.team_id == a));
    }
    assert_eq!(page.items[0].event_id, rounds[2].id);

    // Pages.
    let second = store
        .deliveries(
            a,
            &DeliveryQuery {
                page: PageRequest {
                    limit: 4,
                    offset: 4,
                },
                ..all()
            },
        )
        .await
        .unwrap();
    assert_eq!(second.total, 6);
    assert_eq!(second.items, page.items[4..].to_vec());
    let past = store
        .deliveries(
            a,
            &DeliveryQuery {
                page: PageRequest {
                    limit: 4,
                    offset: 6,
                },
                ..all()
            },
        )
        .await
        .unwrap();
    assert_eq!((past.items.len(), past.total), (0, 6));

    // By subscription, by status, both.
    let by_w1 = store
        .deliveries(
            a,
            &DeliveryQuery {
                webhook_id: Some(w1.id),
                ..all()
            },
        )
        .await
        .unwrap();
    assert_eq!(by_w1.total, 3);
    assert!(by_w1.items.iter().all(|d| d.webhook_id == w1.id));

    let leased = store
        .lease_deliveries("a", secs(30), 60, 100)
        .await
        .unwrap();
    assert_eq!(leased.len(), 9, "both teams");
    let oldest_w2 = find(&page.items, rounds[0].id, w2.id).id;
    assert!(store
        .record_attempt(oldest_w2, "a", &delivered(secs(31)))
        .await
        .unwrap());
    let oldest_w1 = find(&page.items, rounds[0].id, w1.id).id;
    assert!(store
        .record_attempt(oldest_w1, "a", &failed(secs(31), 400, false))
        .await
        .unwrap());

    let with = |webhook_id, status| DeliveryQuery {
        webhook_id,
        status: Some(status),
        ..all()
    };
    let delivered_page = store
        .deliveries(a, &with(None, DeliveryStatus::Delivered))
        .await
        .unwrap();
    assert_eq!(delivered_page.total, 1);
    assert_eq!(delivered_page.items[0].id, oldest_w2);
    let pending = store
        .deliveries(a, &with(None, DeliveryStatus::Pending))
        .await
        .unwrap();
    assert_eq!(pending.total, 4);
    let w1_failed = store
        .deliveries(a, &with(Some(w1.id), DeliveryStatus::Failed))
        .await
        .unwrap();
    assert_eq!(w1_failed.total, 1);
    assert_eq!(w1_failed.items[0].id, oldest_w1);
    let w2_failed = store
        .deliveries(a, &with(Some(w2.id), DeliveryStatus::Failed))
        .await
        .unwrap();
    assert_eq!(w2_failed.total, 0);

    // Another team's subscription filters to nothing in this team.
    let of_b = store.webhooks(b).await.unwrap();
    let cross = store
        .deliveries(
            a,
            &DeliveryQuery {
                webhook_id: Some(of_b[0].id),
                ..all()
            },
        )
        .await
        .unwrap();
    assert_eq!((cross.items.len(), cross.total), (0, 0));
    let unknown = store.deliveries(TeamId::new(), &all()).await.unwrap();
    assert_eq!(unknown.total, 0);
}

async fn redelivery_makes_a_delivery_pending_again(env: Env) {
    let store = &*env.store;
    let (a, b) = (team(store, "a").await, team(store, "b").await);
    subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/",
        secs(0),
    )
    .await;
    emit(store, a, EventKind::NewFeedback).await;
    emit(store, a, EventKind::NewFeedback).await;
    store.fan_out(t0(), 100).await.unwrap();
    let leased = store.lease_deliveries("a", t0(), 60, 10).await.unwrap();
    let (done, held) = (leased[0].delivery.id, leased[1].delivery.id);
    assert!(store
        .record_attempt(done, "a", &retry(secs(1), secs(2)))
        .await
        .unwrap());
    store.lease_deliveries("a", secs(2), 60, 10).await.unwrap();
    assert!(store
        .record_attempt(done, "a", &failed(secs(3), 500, false))
        .await
        .unwrap());
    let before = delivery(store, a, done).await;
    assert_eq!(
        (before.status, before.attempts),
        (DeliveryStatus::Failed, 2)
    );

    assert!(
        !store.redeliver(b, done, secs(10)).await.unwrap(),
        "another team's"
    );
    assert!(!store
        .redeliver(a, DeliveryId::new(), secs(10))
        .await
        .unwrap());
    assert_eq!(delivery(store, a, done).await, before, "nothing written");

    assert!(store.redeliver(a, done, secs(10)).await.unwrap());
    let d = delivery(store, a, done).await;
    assert_eq!(d.status, DeliveryStatus::Pending);
    assert_eq!(d.attempts, 0);
    assert_eq!(d.first_attempt_at, None, "a fresh retry horizon");
    assert_eq!(d.next_attempt_at, Some(secs(10)));
    assert_eq!(
        d.last_attempt_at,
        Some(secs(3)),
        "the last attempt is still shown"
    );
    assert_eq!(d.last_status_code, Some(500));
    assert!(store
        .lease_deliveries("b", secs(9), 60, 10)
        .await
        .unwrap()
        .is_empty());

    // Redelivering a delivery a worker holds is refused while its lease is live (until
    // secs(60)), and nothing is written: the lease stays the worker's.
    let in_flight = delivery(store, a, held).await;
    for now in [secs(10), secs(59)] {
        assert_eq!(
            store.redeliver(a, held, now).await,
            Err(StoreError::Conflict(Conflict::DeliveryInFlight))
        );
    }
    assert_eq!(delivery(store, a, held).await, in_flight, "nothing written");
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(*) AS n FROM webhook_deliveries \
             WHERE id = '{held}' AND lease_owner = 'a' AND lease_until IS NOT NULL"
        )),
        1
    );
    let again = store.lease_deliveries("b", secs(10), 60, 10).await.unwrap();
    assert_eq!(ids(&again), HashSet::from([done]));
    assert!(store
        .record_attempt(done, "b", &delivered(secs(12)))
        .await
        .unwrap());
    let d = delivery(store, a, done).await;
    assert_eq!((d.status, d.attempts), (DeliveryStatus::Delivered, 1));
    assert_eq!(d.first_attempt_at, Some(secs(12)));
    // A delivered one may be sent again, too.
    assert!(store.redeliver(a, done, secs(20)).await.unwrap());
    assert_eq!(
        delivery(store, a, done).await.status,
        DeliveryStatus::Pending
    );

    // An expired lease is taken over: the delivery is due at once for anyone, and the worker
    // that held it can no longer record its attempt.
    assert!(store.redeliver(a, held, secs(60)).await.unwrap());
    assert_eq!(
        delivery(store, a, held).await.next_attempt_at,
        Some(secs(60))
    );
    assert_eq!(
        env.count(&format!(
            "SELECT COUNT(*) AS n FROM webhook_deliveries \
             WHERE id = '{held}' AND lease_owner IS NULL AND lease_until IS NULL"
        )),
        1
    );
    assert!(!store
        .record_attempt(held, "a", &delivered(secs(61)))
        .await
        .unwrap());
    let taken = store.lease_deliveries("b", secs(60), 60, 10).await.unwrap();
    assert_eq!(ids(&taken), HashSet::from([done, held]));
    assert!(store
        .record_attempt(held, "b", &delivered(secs(62)))
        .await
        .unwrap());
}

async fn released_leases_are_due_at_once_and_only_the_owners_are_released(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/",
        secs(0),
    )
    .await;
    for _ in 0..4 {
        emit(store, a, EventKind::NewFeedback).await;
    }
    store.fan_out(t0(), 100).await.unwrap();
    let mine = store.lease_deliveries("a", t0(), 60, 3).await.unwrap();
    let theirs = store.lease_deliveries("b", t0(), 60, 1).await.unwrap();
    let (kept, done) = (mine[0].delivery.id, mine[1].delivery.id);
    let retried = mine[2].delivery.id;
    let other = theirs[0].delivery.id;
    assert!(store
        .record_attempt(done, "a", &delivered(secs(1)))
        .await
        .unwrap());
    // Retried: pending again, due later, with no lease; "a" leases it again at secs(5).
    assert!(store
        .record_attempt(retried, "a", &retry(secs(1), secs(5)))
        .await
        .unwrap());
    assert_eq!(
        ids(&store.lease_deliveries("a", secs(5), 60, 10).await.unwrap()),
        HashSet::from([retried])
    );
    let snapshot = "SELECT COUNT(*) AS n FROM webhook_deliveries";
    let leased_to = |owner: &str| {
        env.count(&format!(
            "{snapshot} WHERE lease_owner = '{owner}' AND lease_until IS NOT NULL"
        ))
    };
    assert_eq!((leased_to("a"), leased_to("b")), (2, 1));
    let before = deliveries(store, a).await;

    store.release_leases("a", &[]).await.unwrap();
    assert_eq!(leased_to("a"), 2, "nothing named, nothing released");

    store
        .release_leases("a", &[kept, retried, done, other, DeliveryId::new()])
        .await
        .unwrap();
    assert_eq!((leased_to("a"), leased_to("b")), (0, 1));
    assert_eq!(
        env.count(&format!(
            "{snapshot} WHERE lease_owner IS NULL AND lease_until IS NULL \
             AND id IN ('{kept}', '{retried}')"
        )),
        2
    );
    assert_eq!(
        deliveries(store, a).await,
        before,
        "no attempt, the due times kept"
    );

    // Due again at once (each at its own due time), for another worker; "a" lost them.
    let taken = store.lease_deliveries("c", secs(6), 60, 10).await.unwrap();
    assert_eq!(ids(&taken), HashSet::from([kept, retried]));
    assert!(!store
        .record_attempt(kept, "a", &delivered(secs(7)))
        .await
        .unwrap());
    for (id, owner) in [(kept, "c"), (retried, "c"), (other, "b")] {
        assert!(store
            .record_attempt(id, owner, &delivered(secs(7)))
            .await
            .unwrap());
    }
    let d = delivery(store, a, retried).await;
    assert_eq!((d.status, d.attempts), (DeliveryStatus::Delivered, 2));
}

/// On PostgreSQL redelivery locks the delivery before it checks the lease: a lease being taken
/// meanwhile (its row locked, not yet committed) is waited for, then seen.
async fn redelivery_waits_for_a_lease_being_taken(env: Env) {
    if !env.is_postgres() {
        return;
    }
    let store = &*env.store;
    let a = team(store, "a").await;
    subscribe(
        store,
        a,
        EventKind::NewFeedback,
        "https://a.example/",
        secs(0),
    )
    .await;
    emit(store, a, EventKind::NewFeedback).await;
    emit(store, a, EventKind::NewFeedback).await;
    store.fan_out(t0(), 100).await.unwrap();
    let list = deliveries(store, a).await;
    let (leased, rolled_back) = (list[0].id, list[1].id);

    for (id, end) in [(leased, "COMMIT"), (rolled_back, "ROLLBACK")] {
        let Raw::Postgres(mut other) = env.raw() else {
            unreachable!()
        };
        diesel::sql_query("BEGIN").execute(&mut other).unwrap();
        diesel::sql_query(format!(
            "UPDATE webhook_deliveries SET lease_owner = 'x', \
             lease_until = next_attempt_at + INTERVAL '1 hour' WHERE id = '{id}'"
        ))
        .execute(&mut other)
        .unwrap();
        let redeliver = {
            let store = env.store.clone();
            tokio::spawn(async move { store.redeliver(a, id, secs(10)).await })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!redeliver.is_finished(), "redelivery waited for the lease");
        diesel::sql_query(end).execute(&mut other).unwrap();
        let result = tokio::time::timeout(Duration::from_secs(10), redeliver)
            .await
            .expect("redelivery went on once the lease was decided")
            .unwrap();
        if end == "COMMIT" {
            assert_eq!(
                result,
                Err(StoreError::Conflict(Conflict::DeliveryInFlight))
            );
            assert_eq!(delivery(store, a, id).await.next_attempt_at, Some(t0()));
        } else {
            assert_eq!(result, Ok(true));
            assert_eq!(delivery(store, a, id).await.next_attempt_at, Some(secs(10)));
        }
    }
}
