//! How webhooks are delivered when receivers misbehave, servers crash, or several servers
//! share a database (decisions §6: retries with backoff, no redirects, 410 unsubscribes,
//! timeouts, at-least-once from a durable outbox, one attempt in flight at a time).

use std::{
    collections::{BTreeMap, BTreeSet},
    io::Write as _,
    time::Duration,
};

use futures_util::future::join_all;
use serde_json::{json, Value};
use sounding_server::{Config, Running};
use sounding_tests::{
    bin::{create_team_key, ServerProcess},
    client::op_request,
    engine_cases,
    pg::{fresh_database, require_postgres},
    receiver::{eventually, fast_webhooks, Answer, Hook, Receiver, ReservedPort, QUIET, WITHIN},
    Engine, TestApp, SECRET,
};

engine_cases!(
    a_failing_receiver_gets_the_same_webhook_id_until_it_answers_2xx,
    retry_after_on_503_is_honoured,
    a_410_removes_the_subscription_and_fails_the_delivery,
    redirects_are_failures_and_never_followed,
    a_hung_receiver_times_out_and_is_retried,
    an_instance_with_webhooks_off_leaves_delivery_to_another,
);

/// Written to the real stderr, so counts show even when the test passes.
fn report(line: &str) {
    let _ = std::io::stderr().write_all(format!("\nREPORT: {line}\n").as_bytes());
}

/// Subscribes `url` to `new_feedback` and creates one item: `(subscription, item)`.
async fn one_event(app: &TestApp, url: &str) -> (Value, Value) {
    let sub = app.subscribe(url, "new_feedback").await;
    let f = app.feedback(json!({"title": "Ping"})).await;
    (sub, f)
}

async fn a_failing_receiver_gets_the_same_webhook_id_until_it_answers_2xx(engine: Engine) {
    let Some(app) = TestApp::spawn_webhooks(engine).await else {
        return;
    };
    let receiver = Receiver::answering(vec![Answer::Status(500), Answer::Status(500)]).await;
    let (sub, f) = one_event(&app, &receiver.url()).await;
    let hooks = receiver.wait_for(3, WITHIN).await;
    let secret = sub["secret"].as_str().unwrap();
    for hook in &hooks {
        assert_eq!(
            hook.id(),
            hooks[0].id(),
            "webhook-id is stable across retries"
        );
        assert_eq!(hook.body, hooks[0].body);
        assert_eq!(hook.json()["feedbackId"], f["id"]);
        hook.verify(secret);
    }
    let listed = app
        .wait_deliveries(1, WITHIN, |d| d["status"] == "delivered")
        .await;
    let d = &listed[0];
    assert_eq!(d["id"], hooks[0].id());
    assert_eq!(d["subscriptionId"], sub["id"]);
    assert_eq!(
        (&d["attempts"], &d["statusCode"], &d["error"]),
        (&json!(3), &json!(200), &Value::Null),
        "{d}"
    );
    receiver.assert_quiet(3, QUIET).await;
}

async fn retry_after_on_503_is_honoured(engine: Engine) {
    let Some(app) = TestApp::spawn_webhooks(engine).await else {
        return;
    };
    // The scaled schedule would retry after ~5 ms; the target asks for a second.
    let throttled = Answer::With(503, vec![("retry-after", "1".to_owned())]);
    let receiver = Receiver::answering(vec![throttled]).await;
    one_event(&app, &receiver.url()).await;
    let first = receiver.wait_for(1, WITHIN).await;
    let pending = app
        .wait_deliveries(1, WITHIN, |d| d["attempts"].as_i64() >= Some(1))
        .await;
    let d = &pending[0];
    if d["status"] == "pending" && d["attempts"] == 1 {
        assert_eq!(d["statusCode"], 503, "{d}");
        let next = time::OffsetDateTime::parse(
            d["nextAttemptAt"].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap();
        let last = time::OffsetDateTime::parse(
            d["lastAttemptAt"].as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap();
        assert!(
            next - last >= time::Duration::milliseconds(950),
            "next attempt {next} only {} after {last}",
            next - last
        );
    }
    let hooks = receiver.wait_for(2, WITHIN).await;
    let gap = hooks[1].at - first[0].at;
    assert!(gap >= Duration::from_millis(900), "retried after {gap:?}");
    assert_eq!(hooks[1].id(), hooks[0].id());
    app.wait_deliveries(1, WITHIN, |d| {
        d["status"] == "delivered" && d["attempts"] == 2
    })
    .await;
}

async fn a_410_removes_the_subscription_and_fails_the_delivery(engine: Engine) {
    let Some(app) = TestApp::spawn_webhooks(engine).await else {
        return;
    };
    let receiver = Receiver::answering(vec![Answer::Status(410)]).await;
    let keep = Receiver::ok().await;
    let kept = app.subscribe(&keep.url(), "new_feedback").await;
    let (_, f) = one_event(&app, &receiver.url()).await;
    receiver.wait_for(1, WITHIN).await;
    let listed = app
        .wait_deliveries(2, WITHIN, |d| d["status"] != "pending")
        .await;
    let gone = listed
        .iter()
        .find(|d| d["targetUrl"] == receiver.url())
        .unwrap();
    assert_eq!(
        (&gone["status"], &gone["attempts"], &gone["statusCode"]),
        (&json!("failed"), &json!(1), &json!(410)),
        "{gone}"
    );
    assert_eq!(gone["nextAttemptAt"], Value::Null, "{gone}");
    let subs = app.team("automation.list", json!({})).await;
    assert_eq!(subs.each("id"), [kept["id"].as_str().unwrap()]);
    // Later events go to the remaining subscription only.
    let g = app.feedback(json!({"title": "After"})).await;
    keep.wait_for(2, WITHIN).await;
    receiver.assert_quiet(1, QUIET).await;
    assert_eq!(receiver.hooks()[0].json()["feedbackId"], f["id"]);
    assert_eq!(keep.hooks()[1].json()["feedbackId"], g["id"]);
    assert_eq!(app.deliveries(json!({})).await.total(), 3);
}

async fn redirects_are_failures_and_never_followed(engine: Engine) {
    let Some(app) = TestApp::spawn_webhooks(engine).await else {
        return;
    };
    let elsewhere = Receiver::ok().await;
    let location = elsewhere.url();
    let moved =
        Receiver::start(move |_, _| Answer::With(302, vec![("location", location.clone())])).await;
    one_event(&app, &moved.url()).await;
    // A 3xx is retried like any failure (the scaled schedule retries within milliseconds).
    let hooks = moved.wait_for(2, WITHIN).await;
    assert_eq!(hooks[0].id(), hooks[1].id());
    let listed = app
        .wait_deliveries(1, WITHIN, |d| {
            d["attempts"].as_i64() >= Some(2) && d["statusCode"] == 302
        })
        .await;
    let d = &listed[0];
    assert_ne!(d["status"], "delivered", "{d}");
    assert!(d["error"].is_string(), "{d}");
    assert_eq!(elsewhere.arrived(), 0, "the redirect was followed");
    tokio::time::sleep(QUIET).await;
    assert_eq!(elsewhere.arrived(), 0, "the redirect was followed");
}

async fn a_hung_receiver_times_out_and_is_retried(engine: Engine) {
    let spawned = TestApp::spawn_with(engine, |config| {
        fast_webhooks(config);
        config.webhooks.timeout = Duration::from_millis(500);
    })
    .await;
    let Some(app) = spawned else {
        return;
    };
    let receiver = Receiver::start(|_, _| Answer::Hang).await;
    let (sub, _) = one_event(&app, &receiver.url()).await;
    let listed = app
        .wait_deliveries(1, WITHIN, |d| {
            d["attempts"].as_i64() >= Some(2)
                && d["error"].as_str().is_some_and(|e| e.contains("timeout"))
        })
        .await;
    let d = &listed[0];
    assert_eq!(d["status"], "pending", "{d}");
    assert_eq!(d["statusCode"], Value::Null, "{d}");
    let took = d["durationMs"].as_i64().unwrap_or_default();
    assert!((400..5_000).contains(&took), "{d}");
    assert!(receiver.arrived() >= 2);
    let ids: BTreeSet<String> = receiver.hooks().iter().map(|h| h.id().to_owned()).collect();
    assert_eq!(ids.len(), 1, "{ids:?}");

    // Unsubscribing ends it `failed`, even when an attempt is under way then (its outcome,
    // recorded later, changes nothing), and the attempts stop.
    let body = json!({"id": sub["id"]});
    let gone = app.team("automation.unsubscribe", body).await;
    gone.assert_body(200, json!({"success": true}));
    let ended = |d: &Value| d["status"] == "failed" && d["error"] == "unsubscribed";
    app.wait_deliveries(1, WITHIN, ended).await;
    // Longer than an attempt can take.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let sent = receiver.arrived();
    tokio::time::sleep(QUIET).await;
    assert_eq!(
        receiver.arrived(),
        sent,
        "attempts went on after unsubscribe"
    );
    let listed = app.deliveries(json!({})).await;
    let d = &listed.ok()[0];
    assert!(ended(d), "{d}");
    assert_eq!(d["nextAttemptAt"], Value::Null, "{d}");
}

async fn an_instance_with_webhooks_off_leaves_delivery_to_another(engine: Engine) {
    if engine == Engine::Memory {
        eprintln!("skipped on memory://: a second server cannot share the in-memory store");
        return;
    }
    let off = |config: &mut Config| {
        fast_webhooks(config);
        config.webhooks.enabled = false;
    };
    let Some(app) = TestApp::spawn_with(engine, off).await else {
        return;
    };
    let receiver = Receiver::ok().await;
    let (sub, f) = one_event(&app, &receiver.url()).await;
    receiver.assert_quiet(0, QUIET).await;
    let other = second_server(&app, fast_webhooks).await;
    let hooks = receiver.wait_for(1, WITHIN).await;
    assert_eq!(hooks[0].json()["feedbackId"], f["id"]);
    hooks[0].verify(sub["secret"].as_str().unwrap());
    app.wait_deliveries(1, WITHIN, |d| d["status"] == "delivered")
        .await;
    receiver.assert_quiet(1, QUIET).await;
    other.stop().await;
}

async fn post(base: &str, key: &str, op: &str, body: Value) -> Value {
    let response = op_request(&reqwest::Client::new(), base, op, Some(key), &body)
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(status, 200, "{op}: {body}");
    body
}

async fn start_binary(database_url: &str) -> ServerProcess {
    let url = database_url.to_owned();
    tokio::task::spawn_blocking(move || {
        let env = [
            ("SOUNDING_WEBHOOK_ALLOW_PRIVATE", "true"),
            ("SOUNDING_WEBHOOK_RETRY_SCALE", "0.001"),
            ("SOUNDING_WEBHOOK_POLL_MS", "100"),
            ("SOUNDING_WEBHOOK_TIMEOUT_MS", "1000"),
            (
                "SOUNDING_LOG",
                "info,sounding_app=debug,sounding_server=debug",
            ),
        ];
        ServerProcess::start(&url, &env)
    })
    .await
    .expect("start the server")
}

/// Commits events while the receiver is down, kills the server with SIGKILL, starts the
/// receiver, restarts the server: every event arrives.
async fn events_survive_a_crash(database_url: &str) {
    let key = tokio::task::spawn_blocking({
        let url = database_url.to_owned();
        move || create_team_key(&url, "Crash", "crash")
    })
    .await
    .unwrap();
    let port = ReservedPort::new();
    let first = start_binary(database_url).await;
    let mut secrets = BTreeMap::new();
    for event in ["new_feedback", "feedbacks.update"] {
        let body = json!({"target_url": port.url(), "event": event});
        let sub = post(&first.base_url, &key, "automation.subscribe", body).await;
        secrets.insert(event, sub["data"]["secret"].as_str().unwrap().to_owned());
    }
    let mut expected = BTreeSet::new();
    for i in 0..8 {
        let body = json!({"title": format!("Before the crash {i}")});
        let f = post(&first.base_url, &key, "feedbacks.create", body).await;
        let id = f["data"]["id"].as_str().unwrap().to_owned();
        let body = json!({"id": id, "title": format!("Renamed {i}")});
        post(&first.base_url, &key, "feedbacks.update", body).await;
        expected.insert(("new_feedback".to_owned(), id.clone()));
        expected.insert(("feedbacks.update".to_owned(), id));
    }
    let status = tokio::task::spawn_blocking(move || first.signal_and_wait("KILL"))
        .await
        .unwrap();
    assert!(!status.success(), "SIGKILL ends the process: {status}");

    let receiver = Receiver::on(port, |_, _| Answer::Status(200));
    let second = start_binary(database_url).await;
    let restarted = std::time::Instant::now();
    let key_of = |h: &Hook| {
        let body = h.json();
        (
            body["event"].as_str().unwrap().to_owned(),
            body["feedbackId"].as_str().unwrap().to_owned(),
        )
    };
    let deadline = std::time::Instant::now() + WITHIN;
    loop {
        let got: BTreeSet<_> = receiver.hooks().iter().map(key_of).collect();
        if got == expected {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} of {} events arrived within {WITHIN:?}; missing {:?}; server log: {:#?}",
            got.len(),
            expected.len(),
            expected.difference(&got).collect::<Vec<_>>(),
            second.stderr()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let arrived_after = restarted.elapsed();
    tokio::time::sleep(QUIET).await;
    let hooks = receiver.hooks();
    let mut ids_per_event: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for hook in &hooks {
        let (event, _) = key_of(hook);
        hook.verify(&secrets[event.as_str()]);
        ids_per_event
            .entry(key_of(hook))
            .or_default()
            .insert(hook.id().to_owned());
    }
    assert!(
        ids_per_event.values().all(|ids| ids.len() == 1),
        "one delivery (one webhook-id) per event: {ids_per_event:?}"
    );
    let duplicates = hooks.len() - expected.len();
    report(&format!(
        "crash durability on {}: {} events, all received {:?} after the restart, {} requests, {duplicates} duplicates (same webhook-id), {} overlapping",
        database_url.split(':').next().unwrap_or_default(),
        expected.len(),
        arrived_after,
        hooks.len(),
        receiver.overlapping()
    ));
    let (base, key, count) = (&second.base_url, &key, expected.len());
    let listed = eventually("all deliveries delivered", WITHIN, || async move {
        let body = json!({"limit": 100});
        let listed = post(base, key, "automation.deliveries", body).await;
        let listed = listed["data"].as_array().unwrap().clone();
        let done = listed.iter().filter(|d| d["status"] == "delivered").count();
        if listed.len() == count && done == count {
            Ok(listed)
        } else {
            Err(format!("{} listed, {done} delivered", listed.len()))
        }
    })
    .await;
    let attempts: Vec<i64> = listed
        .iter()
        .map(|d| d["attempts"].as_i64().unwrap())
        .collect();
    report(&format!(
        "crash durability: attempts per delivery {attempts:?}"
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_events_committed_before_a_crash_are_delivered_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("crash.db").display());
    events_survive_a_crash(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_events_committed_before_a_crash_are_delivered_after_restart() {
    let Some(admin) = require_postgres() else {
        return;
    };
    let url = tokio::task::spawn_blocking(move || fresh_database(&admin))
        .await
        .unwrap();
    events_survive_a_crash(&url).await;
}

/// Two servers on one PostgreSQL database (SQLite has one server per file): every event is
/// delivered, once per subscription, and no webhook-id is ever sent twice at the same time.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_servers_on_one_postgres_database_share_the_deliveries() {
    let Some(app) = TestApp::spawn_webhooks(Engine::Postgres).await else {
        return;
    };
    let other = second_server(&app, fast_webhooks).await;
    let other_base = other.base_url();
    // Holding each request a little widens the window in which a second attempt would overlap.
    let receiver = Receiver::start(|_, _| Answer::After(Duration::from_millis(5), 200)).await;
    let sub = app.subscribe(&receiver.url(), "new_feedback").await;

    let total = 200;
    let created = create_items(&app, &[&app.base, &other_base], total).await;
    let feedback_of = |h: &Hook| h.json()["feedbackId"].as_str().unwrap().to_owned();
    receiver
        .wait_until(WITHIN, |hooks| {
            hooks.iter().map(feedback_of).collect::<BTreeSet<_>>() == created
        })
        .await;
    let listed = eventually_all_delivered(&app, total).await;
    tokio::time::sleep(QUIET).await;
    let hooks = receiver.hooks();
    let secret = sub["secret"].as_str().unwrap();
    let mut ids_per_item: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for hook in &hooks {
        hook.verify(secret);
        ids_per_item
            .entry(feedback_of(hook))
            .or_default()
            .insert(hook.id().to_owned());
    }
    let webhook_ids: BTreeSet<&str> = hooks.iter().map(Hook::id).collect();
    let retried = listed.iter().filter(|d| d["attempts"] != 1).count();
    report(&format!(
        "two servers: {total} events, {} requests, {} distinct webhook-ids, {} duplicates after completion, {} overlapping, {retried} deliveries with more than one attempt",
        hooks.len(),
        webhook_ids.len(),
        hooks.len() - webhook_ids.len(),
        receiver.overlapping()
    ));
    assert_eq!(
        receiver.overlapping(),
        0,
        "a webhook-id was in flight twice at once"
    );
    assert!(
        ids_per_item.values().all(|ids| ids.len() == 1),
        "each event fanned out once: {ids_per_item:?}"
    );
    assert_eq!(webhook_ids.len(), total);
    other.stop().await;
}

/// A second server on `app`'s database, its configuration adjusted by `adjust`.
async fn second_server(app: &TestApp, adjust: impl FnOnce(&mut Config)) -> Running {
    let mut config = Config::new(app.database_url.clone());
    config.bind = "127.0.0.1:0".into();
    config.jwt_secret = Some(SECRET.parse().unwrap());
    config.rate_limit_key_per_min = 1_000_000;
    config.rate_limit_subscriber_per_min = 1_000_000;
    config.workers = Some(2);
    adjust(&mut config);
    let other = sounding_server::start(config, sounding_server::system_clock())
        .await
        .expect("a second server starts on the same database");
    assert!(other.bootstrap.is_none());
    other
}

/// Creates `total` items, ten at a time, spread over the servers at `bases`: their ids.
async fn create_items(app: &TestApp, bases: &[&str], total: usize) -> BTreeSet<String> {
    let mut created = BTreeSet::new();
    for chunk in (0..total).collect::<Vec<usize>>().chunks(10) {
        let replies = join_all(chunk.iter().map(|&i| {
            let base = bases[i % bases.len()];
            let body = json!({"title": format!("Item {i}")});
            app.client
                .post(format!("{base}/v1/feedbacks.create"))
                .bearer_auth(&app.key)
                .json(&body)
                .send()
        }))
        .await;
        for reply in replies {
            let reply = reply.expect("request sent");
            assert_eq!(reply.status(), 200);
            let body: Value = reply.json().await.unwrap();
            created.insert(body["data"]["id"].as_str().unwrap().to_owned());
        }
    }
    assert_eq!(created.len(), total);
    created
}

/// A slow target and a burst of events. An instance sends at most 4 attempts to one target at
/// a time, so the later attempts of a leased batch wait for a slot; their lease must not run
/// out meanwhile, or the other instance takes them and sends the same webhook-id at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_slow_target_never_gets_one_webhook_id_twice_at_once_from_two_servers() {
    let slow = |config: &mut Config| {
        fast_webhooks(config);
        // Attempts may take a second; leases last three times that, at least 5 s.
        config.webhooks.timeout = Duration::from_secs(1);
    };
    let Some(app) = TestApp::spawn_with(Engine::Postgres, slow).await else {
        return;
    };
    let receiver = Receiver::start(|_, _| Answer::After(Duration::from_millis(700), 200)).await;
    let sub = app.subscribe(&receiver.url(), "new_feedback").await;
    let total = 48;
    let created = create_items(&app, &[&app.base], total).await;
    // By its first attempt's arrival the first server holds the burst; the second starts idle.
    receiver.wait_for(1, WITHIN).await;
    let other = second_server(&app, slow).await;
    let feedback_of = |h: &Hook| h.json()["feedbackId"].as_str().unwrap().to_owned();
    receiver
        .wait_until(WITHIN, |hooks| {
            hooks.iter().map(feedback_of).collect::<BTreeSet<_>>() == created
        })
        .await;
    tokio::time::sleep(QUIET).await;
    let hooks = receiver.hooks();
    for hook in &hooks {
        hook.verify(sub["secret"].as_str().unwrap());
    }
    let mut arrivals: BTreeMap<&str, usize> = BTreeMap::new();
    for hook in &hooks {
        *arrivals.entry(hook.id()).or_default() += 1;
    }
    let twice: Vec<_> = arrivals.iter().filter(|(_, n)| **n > 1).collect();
    report(&format!(
        "slow target, two servers: {total} events, {} requests, {} overlapping; sent more than once: {twice:?}",
        hooks.len(),
        receiver.overlapping()
    ));
    other.stop().await;
    assert_eq!(
        receiver.overlapping(),
        0,
        "a webhook-id was in flight twice at once"
    );
    assert_eq!(hooks.len(), total, "sent more than once: {twice:?}");
}

/// `automation.redeliver` of a delivery whose attempt is under way is refused (409), so another
/// instance never sends it at the same time; once the attempt ends it is accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redelivering_a_delivery_in_flight_does_not_send_it_twice_at_once() {
    let Some(app) = TestApp::spawn_webhooks(Engine::Postgres).await else {
        return;
    };
    let other = second_server(&app, fast_webhooks).await;
    let receiver = Receiver::start(|_, _| Answer::After(Duration::from_secs(2), 200)).await;
    one_event(&app, &receiver.url()).await;
    let deadline = std::time::Instant::now() + WITHIN;
    while receiver.arrived() == 0 {
        assert!(std::time::Instant::now() < deadline, "nothing arrived");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let d = app.deliveries(json!({})).await.ok()[0].clone();
    let redeliver = || async {
        let reply = app
            .client
            .post(format!("{}/v1/automation.redeliver", other.base_url()))
            .bearer_auth(&app.key)
            .json(&json!({"deliveryId": d["id"]}))
            .send()
            .await
            .unwrap();
        sounding_tests::Reply::from_response(reply).await
    };
    redeliver().await.assert_error(
        409,
        "The delivery is being attempted right now; redeliver it once that attempt ends",
    );
    // Once the first attempt is recorded, a redelivery is accepted and sent again.
    let deadline = std::time::Instant::now() + WITHIN;
    loop {
        let listed = app.deliveries(json!({})).await.ok()[0].clone();
        if listed["status"] == "delivered" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never delivered");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(redeliver().await.status, 200);
    receiver.wait_for(2, WITHIN).await;
    let overlapping = receiver.overlapping();
    other.stop().await;
    assert_eq!(overlapping, 0, "the webhook-id was in flight twice at once");
}

/// Waits until `count` deliveries are listed, all delivered.
async fn eventually_all_delivered(app: &TestApp, count: usize) -> Vec<Value> {
    let mut all = Vec::new();
    let deadline = std::time::Instant::now() + WITHIN;
    loop {
        all.clear();
        let mut offset = 0;
        loop {
            let body = json!({"limit": 100, "offset": offset});
            let page = app.deliveries(body).await;
            let items = page.ok().as_array().unwrap().clone();
            if items.is_empty() {
                break;
            }
            offset += items.len();
            all.extend(items);
        }
        if all.len() == count && all.iter().all(|d| d["status"] == "delivered") {
            return all;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not all delivered: {} listed, {} delivered",
            all.len(),
            all.iter().filter(|d| d["status"] == "delivered").count()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
