//! The webhook store on diesel: the delivery queue's locking (rows locked by another owner are
//! skipped, not waited for; redelivery waits for a lease being taken; concurrent fan-outs),
//! expired and released leases, and fan-out order.
//! Behaviour through the ports lives in the port-contract suite (`tests/tests/port_contract`),
//! run on every store; checks here that still go through a port are not in it yet (to be moved
//! there). Each runs on SQLite and, when `SOUNDING_TEST_POSTGRES_URL` names a server, on a fresh
//! PostgreSQL database too.

mod support;

use std::{collections::HashSet, time::Duration};

use diesel::{Connection, PgConnection, RunQueryDsl, SqliteConnection};
use serde_json::json;
use sounding_domain::{
    event::{EventKind, NewEvent},
    ids::{DeliveryId, EventId, TeamId, WebhookId},
    page::PageRequest,
    ports::{Conflict, OutboxStore, StoreError, WebhookStore},
    timestamp::Timestamp,
    webhook::{
        AttemptOutcome, AttemptRecord, AttemptResult, Delivery, DeliveryQuery, DeliveryStatus,
        LeasedDelivery, WebhookSubscription,
    },
};
use sounding_store_diesel::DieselStore;
use sounding_tests::fixtures::{lease_request, t0, webhook};
use support::{on_every_engine, postgres, sqlite, team, Env};

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

    /// A transaction begun on a PostgreSQL connection of its own, outside the store (for the
    /// checks of row locks, which only PostgreSQL has).
    fn postgres_transaction(&self) -> PgConnection {
        let Raw::Postgres(mut other) = self.raw() else {
            unreachable!("row locks are checked on PostgreSQL only")
        };
        diesel::sql_query("BEGIN").execute(&mut other).unwrap();
        other
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
    fan_out_is_idempotent_and_takes_the_oldest_events_first,
    an_expired_lease_passes_to_another_owner_and_the_first_loses_it,
    a_delivery_whose_subscription_vanished_is_failed_not_leased,
    a_delivery_whose_event_vanished_is_failed_and_the_rest_leased_in_order,
    concurrent_fan_outs_take_each_event_once,
    locked_rows_are_skipped_not_waited_for,
    released_leases_are_due_at_once_and_only_the_owners_are_released,
    redelivery_waits_for_a_lease_being_taken,
);

// ---------------------------------------------------------------------------------------------
// Fixtures

fn secs(n: i64) -> Timestamp {
    t0().plus_seconds(n)
}

/// A stored subscription of `team` to new feedback (the events every check here emits).
async fn subscribe(
    store: &DieselStore,
    team: TeamId,
    url: &str,
    created_at: Timestamp,
) -> WebhookSubscription {
    let webhook = webhook(team, EventKind::NewFeedback, url, created_at);
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

fn ids(leased: &[LeasedDelivery]) -> HashSet<DeliveryId> {
    leased.iter().map(|l| l.delivery.id).collect()
}

// ---------------------------------------------------------------------------------------------
// Checks

async fn fan_out_is_idempotent_and_takes_the_oldest_events_first(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let w = subscribe(store, a, "https://a.example/", secs(0)).await;
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

async fn an_expired_lease_passes_to_another_owner_and_the_first_loses_it(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    subscribe(store, a, "https://a.example/", secs(0)).await;
    emit(store, a, EventKind::NewFeedback).await;
    store.fan_out(t0(), 100).await.unwrap();

    let first = store
        .lease_deliveries(&lease_request("a", t0(), 60, 10))
        .await
        .unwrap();
    assert_eq!(first.len(), 1);
    let id = first[0].delivery.id;
    assert!(store
        .lease_deliveries(&lease_request("b", secs(59), 60, 10))
        .await
        .unwrap()
        .is_empty());
    let second = store
        .lease_deliveries(&lease_request("b", secs(60), 60, 10))
        .await
        .unwrap();
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

async fn a_delivery_whose_subscription_vanished_is_failed_not_leased(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let lost = subscribe(store, a, "https://lost.example/", secs(0)).await;
    let kept = subscribe(store, a, "https://kept.example/", secs(1)).await;
    let e = emit(store, a, EventKind::NewFeedback).await;
    store.fan_out(t0(), 100).await.unwrap();
    // As a fan-out racing a delete on another instance could leave it: the row is gone, its
    // delivery still pending.
    assert_eq!(
        env.execute(&format!("DELETE FROM webhooks WHERE id = '{}'", lost.id)),
        1
    );

    let leased = store
        .lease_deliveries(&lease_request("a", secs(1), 60, 10))
        .await
        .unwrap();
    assert_eq!(leased.len(), 1);
    assert_eq!(leased[0].delivery.webhook_id, kept.id);
    let list = deliveries(store, a).await;
    let d = find(&list, e.id, lost.id);
    assert_eq!(d.status, DeliveryStatus::Failed);
    assert_eq!(d.last_error.as_deref(), Some("unsubscribed"));
    assert_eq!(d.next_attempt_at, None);
    assert!(
        store
            .lease_deliveries(&lease_request("b", secs(120), 60, 10))
            .await
            .unwrap()
            .len()
            == 1
    );
}

async fn a_delivery_whose_event_vanished_is_failed_and_the_rest_leased_in_order(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    let hook = subscribe(store, a, "https://a.example/", secs(0)).await;
    let events = [
        emit(store, a, EventKind::NewFeedback).await,
        emit(store, a, EventKind::NewFeedback).await,
        emit(store, a, EventKind::NewFeedback).await,
    ];
    store.fan_out(t0(), 100).await.unwrap();
    // As retention could leave it: the event is gone, its delivery still pending.
    assert_eq!(
        env.execute(&format!(
            "DELETE FROM outbox_events WHERE id = '{}'",
            events[1].id
        )),
        1
    );

    let leased = store
        .lease_deliveries(&lease_request("a", secs(1), 60, 10))
        .await
        .unwrap();
    let leased_events: Vec<_> = leased.iter().map(|l| l.delivery.event_id).collect();
    // Due at the same time: in the order of their ids, which is the order they were made.
    assert_eq!(leased_events, [events[0].id, events[2].id]);
    for lease in &leased {
        assert!(lease.body.contains("Dark mode"), "{}", lease.body);
        assert_eq!(lease.secret, hook.secret);
    }
    let list = deliveries(store, a).await;
    let gone = find(&list, events[1].id, hook.id);
    assert_eq!(gone.status, DeliveryStatus::Failed);
    assert_eq!(
        gone.last_error.as_deref(),
        Some("the event is no longer in the outbox")
    );
    assert_eq!(gone.next_attempt_at, None);
    // Neither the failed one nor the leased ones are leased again while the lease lasts.
    assert!(store
        .lease_deliveries(&lease_request("b", secs(2), 60, 10))
        .await
        .unwrap()
        .is_empty());
}

async fn concurrent_fan_outs_take_each_event_once(env: Env) {
    const N: usize = 200;
    let store = env.store.clone();
    let a = team(&store, "a").await;
    let w1 = subscribe(&store, a, "https://a.example/1", secs(0)).await;
    let w2 = subscribe(&store, a, "https://a.example/2", secs(1)).await;
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
    subscribe(store, a, "https://a.example/", secs(0)).await;
    let e1 = emit(store, a, EventKind::NewFeedback).await;
    let e2 = emit(store, a, EventKind::NewFeedback).await;

    let mut other = env.postgres_transaction();
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

    let mut other = env.postgres_transaction();
    diesel::sql_query(format!(
        "SELECT id FROM webhook_deliveries WHERE id = '{held}' FOR UPDATE"
    ))
    .execute(&mut other)
    .unwrap();
    let leased = tokio::time::timeout(
        Duration::from_secs(10),
        store.lease_deliveries(&lease_request("a", t0(), 60, 10)),
    )
    .await
    .expect("leasing waited for the locked delivery")
    .unwrap();
    assert_eq!(leased.len(), 1);
    assert_ne!(leased[0].delivery.id, held);
    // Released when ROLLBACK returns (closing the connection would release it later).
    diesel::sql_query("ROLLBACK").execute(&mut other).unwrap();
    assert_eq!(
        ids(&store
            .lease_deliveries(&lease_request("b", t0(), 60, 10))
            .await
            .unwrap()),
        HashSet::from([held])
    );
}

async fn released_leases_are_due_at_once_and_only_the_owners_are_released(env: Env) {
    let store = &*env.store;
    let a = team(store, "a").await;
    subscribe(store, a, "https://a.example/", secs(0)).await;
    for _ in 0..4 {
        emit(store, a, EventKind::NewFeedback).await;
    }
    store.fan_out(t0(), 100).await.unwrap();
    let mine = store
        .lease_deliveries(&lease_request("a", t0(), 60, 3))
        .await
        .unwrap();
    let theirs = store
        .lease_deliveries(&lease_request("b", t0(), 60, 1))
        .await
        .unwrap();
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
        ids(&store
            .lease_deliveries(&lease_request("a", secs(5), 60, 10))
            .await
            .unwrap()),
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
    let taken = store
        .lease_deliveries(&lease_request("c", secs(6), 60, 10))
        .await
        .unwrap();
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
    subscribe(store, a, "https://a.example/", secs(0)).await;
    emit(store, a, EventKind::NewFeedback).await;
    emit(store, a, EventKind::NewFeedback).await;
    store.fan_out(t0(), 100).await.unwrap();
    let list = deliveries(store, a).await;
    let (leased, rolled_back) = (list[0].id, list[1].id);

    for (id, end) in [(leased, "COMMIT"), (rolled_back, "ROLLBACK")] {
        let mut other = env.postgres_transaction();
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
