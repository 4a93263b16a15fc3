//! Retention of webhook history (issue 17): with `SOUNDING_EVENT_RETENTION`, finished
//! deliveries and events leave `automation.deliveries` and the outbox once they are older than
//! the retention, pending ones stay, an instance that does not deliver prunes too, and a
//! SQLite file under a steady stream of writes stops growing (the pages freed by the prunes
//! are reused).

use std::{io::Write as _, time::Duration};

use futures_util::future::join_all;
use serde_json::{json, Value};
use sounding_server::{Config, Running};
use sounding_tests::{
    engine_cases,
    receiver::{eventually, fast_webhooks, Receiver, ReservedPort},
    Engine, TestApp, SECRET,
};

engine_cases!(
    finished_history_is_pruned_after_the_retention_and_pending_deliveries_stay,
    an_instance_with_webhooks_off_still_prunes_what_another_delivered,
);

const WITHIN: Duration = Duration::from_secs(20);
/// The retention under test: short, so prunes come within seconds.
const RETENTION: Duration = Duration::from_secs(2);

/// Written to the real stderr, so measurements show even when the test passes.
fn report(line: &str) {
    let _ = std::io::stderr().write_all(format!("\nREPORT: {line}\n").as_bytes());
}

/// A delivering instance that keeps finished history for [`RETENTION`].
fn short_retention(config: &mut Config) {
    fast_webhooks(config);
    config.event_retention = RETENTION;
}

/// The team's deliveries, newest first (up to 100).
async fn deliveries(app: &TestApp) -> Vec<Value> {
    let reply = app.deliveries(json!({ "limit": 100 })).await;
    reply.ok().as_array().expect("a list").clone()
}

async fn finished_history_is_pruned_after_the_retention_and_pending_deliveries_stay(
    engine: Engine,
) {
    let Some(app) = TestApp::spawn_with(engine, |config| {
        short_retention(config);
        // The first retry of the refused target comes 4–6 s later: it stays pending.
        config.webhooks.retry_scale = 1.0;
    })
    .await
    else {
        return;
    };
    let receiver = Receiver::ok().await;
    let refused = ReservedPort::new();
    app.subscribe(&receiver.url(), "new_feedback").await;
    let stuck = app.subscribe(&refused.url(), "feedbacks.update").await;
    let mut items = Vec::new();
    for i in 0..3 {
        items.push(app.feedback(json!({ "title": format!("Item {i}") })).await);
    }
    app.team(
        "feedbacks.update",
        json!({ "id": items[0]["id"], "title": "Renamed" }),
    )
    .await
    .ok();
    receiver.wait_for(3, WITHIN).await;
    eventually("three delivered and one tried", WITHIN, || async {
        let list = deliveries(&app).await;
        let delivered = list.iter().filter(|d| d["status"] == "delivered").count();
        let tried = list
            .iter()
            .filter(|d| d["status"] == "pending" && d["attempts"] == 1)
            .count();
        // Once pruned they are gone for good, so fewer than three delivered also counts.
        if tried == 1 && delivered + 1 == list.len() {
            Ok(())
        } else {
            Err(Value::Array(list).to_string())
        }
    })
    .await;

    let left = eventually("finished deliveries are pruned", WITHIN, || async {
        let list = deliveries(&app).await;
        if list.len() == 1 {
            Ok(list)
        } else {
            Err(Value::Array(list).to_string())
        }
    })
    .await;
    assert_eq!(left[0]["subscriptionId"], stuck["id"]);
    assert_eq!(left[0]["status"], "pending");
    // Every other event is gone from the outbox (`new_feedback` delivered, `feedbacks.create`
    // nobody subscribed to); the one with the pending delivery stays.
    eventually("finished events are pruned", WITHIN, || async {
        let kinds = app.event_kinds().await;
        if kinds == ["feedbacks.update"] {
            Ok(())
        } else {
            Err(format!("{kinds:?}"))
        }
    })
    .await;

    // Several prunes later, still there.
    tokio::time::sleep(RETENTION * 2).await;
    let list = deliveries(&app).await;
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0]["id"], left[0]["id"]);
    assert_eq!(list[0]["status"], "pending");
    assert_eq!(app.event_kinds().await, ["feedbacks.update"]);
    assert_eq!(
        app.deliveries(json!({ "status": "delivered" }))
            .await
            .total(),
        0
    );
    drop(refused);
}

/// A second server on `app`'s database.
async fn second_server(app: &TestApp, adjust: impl FnOnce(&mut Config)) -> Running {
    let mut config = Config::new(app.database_url.clone());
    config.bind = "127.0.0.1:0".into();
    config.jwt_secret = Some(SECRET.parse().unwrap());
    config.workers = Some(2);
    adjust(&mut config);
    sounding_server::start(config, sounding_server::system_clock())
        .await
        .expect("a second server starts on the same database")
}

async fn an_instance_with_webhooks_off_still_prunes_what_another_delivered(engine: Engine) {
    if engine == Engine::Memory {
        eprintln!("skipped on memory://: a second server cannot share the in-memory store");
        return;
    }
    // This one delivers nothing and keeps two seconds; the other delivers and keeps a week.
    let Some(app) = TestApp::spawn_with(engine, |config| {
        short_retention(config);
        config.webhooks.enabled = false;
    })
    .await
    else {
        return;
    };
    let receiver = Receiver::ok().await;
    app.subscribe(&receiver.url(), "new_feedback").await;
    app.feedback(json!({ "title": "Ping" })).await;
    let other = second_server(&app, fast_webhooks).await;
    receiver.wait_for(1, WITHIN).await;
    eventually("the delivery and its events are pruned", WITHIN, || async {
        let (list, kinds) = (deliveries(&app).await, app.event_kinds().await);
        if list.is_empty() && kinds.is_empty() {
            Ok(())
        } else {
            Err(format!("{list:?} {kinds:?}"))
        }
    })
    .await;
    assert_eq!(receiver.count(), 1);
    other.stop().await;
}

/// Updates per burst, and bursts.
const UPDATES: usize = 300;
const BURSTS: usize = 5;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_sqlite_file_stops_growing_under_repeated_bursts_of_writes() {
    let Some(app) = TestApp::spawn_with(Engine::Sqlite, short_retention).await else {
        return;
    };
    let path = app
        .database_url
        .strip_prefix("sqlite://")
        .expect("a SQLite URL")
        .to_owned();
    let receiver = Receiver::ok().await;
    app.subscribe(&receiver.url(), "feedbacks.update").await;
    let item = app.feedback(json!({ "title": "Title A" })).await;

    let mut sizes = Vec::new();
    for burst in 0..BURSTS {
        // Each update writes an event and a delivery, and changes the item's row in place.
        for chunk in (0..UPDATES).collect::<Vec<_>>().chunks(10) {
            // Each title is new, so each update is a real change with its event (an update
            // that changes nothing writes nothing).
            join_all(chunk.iter().map(|i| {
                app.team(
                    "feedbacks.update",
                    json!({ "id": item["id"], "title": format!("Title {burst}-{i}") }),
                )
            }))
            .await
            .iter()
            .for_each(|reply| {
                reply.ok();
            });
        }
        // Delivered, then pruned with their events after the retention.
        eventually(
            &format!("burst {burst} is delivered and pruned"),
            WITHIN,
            || async {
                let total = app.deliveries(json!({})).await.total();
                let events = app.events().await.len();
                if total == 0 && events == 0 {
                    Ok(())
                } else {
                    Err(format!("{total} deliveries, {events} events"))
                }
            },
        )
        .await;
        // Let the checkpoint copy the prunes into the file.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let size = std::fs::metadata(&path).expect("the database file").len();
        let wal = std::fs::metadata(format!("{path}-wal")).map_or(0, |m| m.len());
        report(&format!(
            "after burst {burst}: database file {size} bytes, WAL {wal} bytes"
        ));
        sizes.push(size);
    }
    assert_eq!(receiver.count(), UPDATES * BURSTS, "every update delivered");

    // A burst adds ~450 KB of outbox rows and deliveries (UPDATES × ~1.5 KB). From the second
    // burst on, each reuses the pages the prune of the one before freed: the file may settle a
    // little, but never grows by a quarter of a burst again.
    let settled = sizes[1];
    let tolerance = (UPDATES * 1500 / 4) as u64;
    for (burst, size) in sizes.iter().enumerate().skip(2) {
        assert!(
            *size <= settled + tolerance,
            "the file grew after burst {burst}: {sizes:?} (tolerance {tolerance} bytes)"
        );
    }
}
