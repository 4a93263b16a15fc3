//! Webhooks seen from outside: `automation.subscribe|unsubscribe|list|deliveries|redeliver`
//! and what a receiver gets for each event (interface §6; decisions §6). The receiver is a
//! real HTTP server inside the test; signatures are checked with the `standardwebhooks` crate.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use base64::{engine::general_purpose::STANDARD, Engine as _};
use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{
    client::{assert_timestamp, field_names},
    engine_cases,
    receiver::{Hook, Receiver, EVENTS, QUIET, WITHIN},
    Engine, TestApp,
};

engine_cases!(
    every_event_arrives_once_signed_with_its_payload,
    failed_operations_send_nothing,
    subscribe_refuses_unsafe_targets_and_unknown_events,
    subscriptions_deliveries_and_redelivery_round_trip,
    subscribing_again_returns_the_subscription_without_its_secret_and_delivers_once,
);

const BAD_EVENT: &str = "event must be one of new_feedback, new_feedback_vote, \
    feedback_status_change, feedbacks.create, feedbacks.update, feedbacks.delete, \
    feedback-comments.create, feedback-comments.delete, topics.create, topics.update, \
    topic-comments.create, topic-comments.delete, topic-votes.create";
const PRIVATE: &str = "target_url must not point at a private, loopback or reserved address";

/// The headers every attempt carries, and its signature under `secret` (and not under
/// `other`, a secret of another subscription).
fn assert_signed(hook: &Hook, secret: &str, other: &str) {
    assert_eq!(hook.path, "/hook");
    assert_eq!(hook.header("content-type"), "application/json");
    let agent = hook.header("user-agent");
    assert!(agent.starts_with("Sounding-Webhooks/"), "{agent}");
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let stamp: i64 = hook
        .header("webhook-timestamp")
        .parse()
        .expect("unix seconds");
    assert!((now - stamp).abs() < 60, "timestamp {stamp}, now {now}");
    assert!(hook.header("webhook-signature").starts_with("v1,"));
    uuid::Uuid::parse_str(hook.id()).expect("webhook-id is the delivery's UUID");
    hook.verify(secret);
    let wrong = standardwebhooks::Webhook::new(other).unwrap();
    assert!(wrong.verify(&hook.body, &hook.headers).is_err());
}

/// The body a receiver should get: `{event, teamId, occurredAt, <ids>, data}`, with
/// `occurredAt` taken from `got` once checked to be a timestamp.
fn expected_body(app: &TestApp, event: &str, ids: Value, data: &Value, got: &Value) -> Value {
    assert_timestamp(&got["occurredAt"]);
    let mut body = ids;
    body["event"] = json!(event);
    body["teamId"] = json!(app.team_id);
    body["occurredAt"] = got["occurredAt"].clone();
    body["data"] = data.clone();
    body
}

/// The payload is what the OpenAPI document's `webhooks.<event>` says it is: every key the
/// server sends is documented (an object with `properties` counts as closed here, unless it
/// says `additionalProperties`), every required one is there, with its type, `const`, `enum`
/// and UUID syntax, down through `data`.
fn assert_documented(document: &Value, event: &str, payload: &Value) {
    let body = &document["webhooks"][event]["post"]["requestBody"]["content"]["application/json"];
    assert!(body["schema"].is_object(), "{event} is not under webhooks");
    let mut problems = Vec::new();
    conforms(document, &body["schema"], payload, event, &mut problems);
    assert!(problems.is_empty(), "{event}: {problems:#?}\n{payload:#}");
}

fn conforms(document: &Value, schema: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/components/schemas/");
        let target = &document["components"]["schemas"][name];
        assert!(
            target.is_object(),
            "{at}: {reference} is not in the document"
        );
        return conforms(document, target, value, at, problems);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = schema[key].as_array() {
            let fits = branches.iter().any(|branch| {
                let mut inner = Vec::new();
                conforms(document, branch, value, at, &mut inner);
                inner.is_empty()
            });
            if !fits {
                problems.push(format!("{at}: {value} fits no branch of {key}"));
            }
        }
    }
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let allowed: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let integer_as_number = kind == "integer" && allowed.contains(&"number");
    if !allowed.is_empty() && !allowed.contains(&kind) && !integer_as_number {
        problems.push(format!("{at}: {value} is not of type {allowed:?}"));
        return;
    }
    if let Some(constant) = schema.get("const") {
        if constant != value {
            problems.push(format!("{at}: {value} is not {constant}"));
        }
    }
    if let Some(values) = schema["enum"].as_array() {
        if !values.contains(value) {
            problems.push(format!("{at}: {value} is not one of {values:?}"));
        }
    }
    if let (Some("uuid"), Value::String(text)) = (schema["format"].as_str(), value) {
        if uuid::Uuid::parse_str(text).is_err() {
            problems.push(format!("{at}: {text} is not a UUID"));
        }
    }
    if let (Some(items), Value::Array(values)) = (schema.get("items"), value) {
        for (i, item) in values.iter().enumerate() {
            conforms(document, items, item, &format!("{at}[{i}]"), problems);
        }
    }
    let Value::Object(fields) = value else {
        return;
    };
    for name in schema["required"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap();
        if !fields.contains_key(name) {
            problems.push(format!("{at}: lacks {name}"));
        }
    }
    let properties = schema["properties"].as_object();
    for (name, field) in fields {
        let path = format!("{at}.{name}");
        match (
            properties.and_then(|p| p.get(name)),
            schema.get("additionalProperties"),
        ) {
            (Some(own), _) => conforms(document, own, field, &path, problems),
            (None, Some(Value::Bool(true))) => {}
            (None, Some(other)) if other.is_object() => {
                conforms(document, other, field, &path, problems)
            }
            (None, _) if properties.is_some() => problems.push(format!("{path} is not documented")),
            (None, _) => {}
        }
    }
}

async fn every_event_arrives_once_signed_with_its_payload(engine: Engine) {
    let Some(app) = TestApp::spawn_webhooks(engine).await else {
        return;
    };
    let receiver = Receiver::ok().await;
    let mut secrets = HashMap::new();
    let mut subscriptions = HashMap::new();
    for event in EVENTS {
        let sub = app.subscribe(&receiver.url(), event).await;
        secrets.insert(event.to_owned(), sub["secret"].as_str().unwrap().to_owned());
        subscriptions.insert(event.to_owned(), sub["id"].clone());
    }

    // Feedback: a team item whose status changes and which is deleted; a public item with a
    // vote and a comment.
    let f = app.feedback(json!({"title": "Team item"})).await;
    assert_ne!(f["status"], "planned");
    let body = json!({"id": f["id"], "status": "planned"});
    let updated = app.team_data("feedbacks.update", body).await;
    let (ann, code) = app.identify("ann.lee@example.com").await;
    let p = app
        .public_feedback(&code, json!({"title": "Public item", "text": "Please"}))
        .await;
    let by_feedback = json!({"feedbackId": p["id"]});
    let vote = app
        .call("public/feedback-votes.create", Some(&code), by_feedback)
        .await;
    let vote = vote.ok().clone();
    let body = json!({"feedbackId": p["id"], "text": "Me too"});
    let comment = app
        .call("public/feedback-comments.create", Some(&code), body)
        .await;
    let comment = comment.ok().clone();
    let deleted = app.team("feedbacks.delete", json!({"id": f["id"]})).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    // Topics: created, updated, commented and voted on.
    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Ideas"})).await;
    let topic = app
        .topic(&code, &stage, json!({"title": "Dark mode"}))
        .await;
    let body = json!({"id": topic["id"], "title": "Dark mode everywhere"});
    let topic_updated = app.team_data("topics.update", body).await;
    let (bob, bob_code) = app.identify("bob.ray@example.com").await;
    let body = json!({"id": topic["id"], "text": "Yes please"});
    let topic_comment = app
        .call("public/topic-comments.create", Some(&bob_code), body)
        .await;
    let topic_comment = topic_comment.ok().clone();
    let body = json!({"id": topic["id"]});
    let topic_vote = app
        .call("public/topic-votes.create", Some(&bob_code), body)
        .await;
    let topic_vote = topic_vote.ok().clone();

    // (event, the ids (and a vote's `onBehalf`) besides event/teamId/occurredAt, the data as
    // the API returned it).
    let expected: Vec<(&str, Value, &Value)> = vec![
        ("new_feedback", json!({"feedbackId": f["id"]}), &f),
        (
            "feedback_status_change",
            json!({"feedbackId": f["id"], "previousStatus": f["status"], "status": "planned"}),
            &updated,
        ),
        ("feedbacks.update", json!({"feedbackId": f["id"]}), &updated),
        ("new_feedback", json!({"feedbackId": p["id"]}), &p),
        ("feedbacks.create", json!({"feedbackId": p["id"]}), &p),
        (
            "new_feedback_vote",
            json!({"feedbackId": p["id"], "voteId": vote["id"], "subscriberId": ann["id"], "onBehalf": false}),
            &vote,
        ),
        (
            "feedback-comments.create",
            json!({"commentId": comment["id"], "feedbackId": p["id"], "subscriberId": ann["id"]}),
            &comment,
        ),
        ("feedbacks.delete", json!({"feedbackId": f["id"]}), &updated),
        ("topics.create", json!({"topicId": topic["id"]}), &topic),
        (
            "topics.update",
            json!({"topicId": topic["id"]}),
            &topic_updated,
        ),
        (
            "topic-comments.create",
            json!({"commentId": topic_comment["id"], "topicId": topic["id"], "subscriberId": bob["id"]}),
            &topic_comment,
        ),
        (
            "topic-votes.create",
            json!({"topicId": topic["id"], "voteId": topic_vote["id"], "subscriberId": bob["id"], "onBehalf": false}),
            &topic_vote,
        ),
    ];
    receiver.wait_for(expected.len(), WITHIN).await;
    receiver.assert_quiet(expected.len(), QUIET).await;
    let hooks = receiver.hooks();
    let document: Value = serde_json::from_str(&sounding_http_actix::openapi_json()).unwrap();
    let ids: BTreeSet<&str> = hooks.iter().map(Hook::id).collect();
    assert_eq!(
        ids.len(),
        hooks.len(),
        "one delivery per event and subscription"
    );

    for (event, keys, data) in &expected {
        let matching: Vec<&Hook> = hooks
            .iter()
            .filter(|h| {
                let body = h.json();
                body["event"] == *event
                    && keys.as_object().unwrap().iter().all(|(k, v)| body[k] == *v)
            })
            .collect();
        assert_eq!(matching.len(), 1, "{event} {keys}: {matching:?}");
        let hook = matching[0];
        let got = hook.json();
        assert_eq!(
            got,
            expected_body(&app, event, keys.clone(), data, &got),
            "{event}"
        );
        let other = if *event == "new_feedback" {
            &secrets["topics.create"]
        } else {
            &secrets["new_feedback"]
        };
        assert_signed(hook, &secrets[*event], other);
        assert_documented(&document, event, &got);
    }
    // topic-comments.create carries exactly these keys (decisions §6).
    let comment_hook = hooks
        .iter()
        .find(|h| h.event() == "topic-comments.create")
        .unwrap();
    assert_eq!(
        field_names(&comment_hook.json()),
        BTreeSet::from([
            "event",
            "occurredAt",
            "data",
            "commentId",
            "topicId",
            "subscriberId",
            "teamId"
        ])
    );

    // Every delivery is listed as delivered at the first attempt, under its webhook-id.
    let listed = app
        .wait_deliveries(expected.len(), WITHIN, |d| d["status"] == "delivered")
        .await;
    let by_id: BTreeMap<&str, &Value> = listed
        .iter()
        .map(|d| (d["id"].as_str().unwrap(), d))
        .collect();
    assert_eq!(by_id.keys().copied().collect::<BTreeSet<_>>(), ids);
    for hook in &hooks {
        let d = by_id[hook.id()];
        let event = hook.event();
        let fields = "id subscriptionId eventId event targetUrl status attempts statusCode \
                      durationMs error nextAttemptAt lastAttemptAt createdAt";
        assert_eq!(
            field_names(d),
            fields.split_whitespace().collect::<BTreeSet<_>>()
        );
        assert_eq!(d["event"], event);
        assert_eq!(d["subscriptionId"], subscriptions[&event]);
        assert_eq!(d["targetUrl"], receiver.url());
        assert_eq!(
            (&d["attempts"], &d["statusCode"], &d["error"]),
            (&json!(1), &json!(200), &Value::Null),
            "{d}"
        );
        assert!(d["durationMs"].as_i64().is_some_and(|ms| ms >= 0), "{d}");
        assert_timestamp(&d["createdAt"]);
        assert_timestamp(&d["lastAttemptAt"]);
        uuid::Uuid::parse_str(d["eventId"].as_str().unwrap()).unwrap();
    }
    let events: BTreeSet<&str> = listed
        .iter()
        .map(|d| d["eventId"].as_str().unwrap())
        .collect();
    assert_eq!(events.len(), expected.len(), "one event per change");
}

async fn failed_operations_send_nothing(engine: Engine) {
    let Some(app) = TestApp::spawn_webhooks(engine).await else {
        return;
    };
    let receiver = Receiver::ok().await;
    for event in EVENTS {
        app.subscribe(&receiver.url(), event).await;
    }
    let (_, code) = app.identify("voter@example.com").await;
    let f = app.feedback(json!({"title": "Vote here"})).await;
    let vote = json!({"feedbackId": f["id"]});
    app.call("public/feedback-votes.create", Some(&code), vote.clone())
        .await
        .ok();

    app.team("feedbacks.create", json!({"text": "no title"}))
        .await
        .assert_status(400);
    app.call(
        "public/feedbacks.create",
        Some(&code),
        json!({"title": " "}),
    )
    .await
    .assert_status(400);
    let bad_status = json!({"id": f["id"], "status": "done"});
    app.team("feedbacks.update", bad_status)
        .await
        .assert_status(400);
    let repeated = app
        .call("public/feedback-votes.create", Some(&code), vote)
        .await;
    repeated.assert_status(409);
    let empty = json!({"feedbackId": f["id"], "text": ""});
    app.call("public/feedback-comments.create", Some(&code), empty)
        .await
        .assert_status(400);
    let unknown = json!({"id": uuid::Uuid::new_v4()});
    app.team("feedbacks.delete", unknown.clone())
        .await
        .assert_status(404);
    app.team(
        "topics.update",
        json!({"id": uuid::Uuid::new_v4(), "title": "x"}),
    )
    .await
    .assert_status(404);
    app.call("public/topic-votes.create", Some(&code), unknown)
        .await
        .assert_status(404);

    // A last successful change: once it has arrived, everything before it was fanned out.
    let last = app.feedback(json!({"title": "Last"})).await;
    receiver
        .wait_until(WITHIN, |hooks| {
            hooks.iter().any(|h| h.json()["feedbackId"] == last["id"])
        })
        .await;
    receiver.assert_quiet(3, QUIET).await;
    let mut events: Vec<String> = receiver.hooks().iter().map(Hook::event).collect();
    events.sort();
    assert_eq!(
        events,
        ["new_feedback", "new_feedback", "new_feedback_vote"]
    );
    let listed = app
        .wait_deliveries(3, WITHIN, |d| d["status"] == "delivered")
        .await;
    assert_eq!(listed.len(), 3);
}

async fn subscribe_refuses_unsafe_targets_and_unknown_events(engine: Engine) {
    // The default configuration: https and public addresses only.
    let Some(app) = TestApp::spawn(engine).await else {
        return;
    };
    let subscribe = |url: &str, event: &str| {
        let body = json!({"target_url": url, "event": event});
        app.team("automation.subscribe", body)
    };
    for url in [
        "http://127.0.0.1/hook",
        "http://[::1]/hook",
        "http://10.0.0.1/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://hooks.example.com/sounding",
    ] {
        let reply = subscribe(url, "new_feedback").await;
        reply.assert_error(400, "target_url must use https");
    }
    for url in [
        "https://127.0.0.1/hook",
        "https://[::1]/hook",
        "https://10.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::ffff:127.0.0.1]/hook",
        "https://192.168.1.20:8443/hook",
        "https://0.0.0.0/hook",
    ] {
        subscribe(url, "new_feedback")
            .await
            .assert_error(400, PRIVATE);
    }
    for url in ["https://localhost/hook", "https://LOCALHOST:8443/hook"] {
        let reply = subscribe(url, "new_feedback").await;
        reply.assert_error(400, "target_url must not point at a local host name");
    }
    for url in [
        "file:///etc/passwd",
        "ftp://example.com/x",
        "/hook",
        "not a url",
    ] {
        let reply = subscribe(url, "new_feedback").await;
        reply.assert_error(400, "target_url must be an absolute http(s) URL");
    }
    let public = "https://hooks.example.com/sounding";
    subscribe(public, "feedbacks.archive")
        .await
        .assert_error(400, BAD_EVENT);
    app.team("automation.subscribe", json!({"target_url": public}))
        .await
        .assert_error(400, "event is required");
    app.team("automation.subscribe", json!({"event": "new_feedback"}))
        .await
        .assert_error(400, "target_url is required");
    // Only owners and admins manage subscriptions.
    let (member, _) = app.key_with(Role::Member, false).await;
    let body = json!({"target_url": public, "event": "new_feedback"});
    let reply = app.call("automation.subscribe", Some(&member), body).await;
    reply.assert_status(403);
    let none = app.call("automation.list", Some(&member), json!({})).await;
    none.assert_body(200, json!({"data": []}));

    // A public https target is taken (camelCase too), normalised, with a fresh secret.
    let (admin, _) = app.key_with(Role::Admin, false).await;
    let body = json!({"targetUrl": "https://Hooks.Example.com/sounding", "event": "topics.create"});
    let reply = app.call("automation.subscribe", Some(&admin), body).await;
    let sub = reply.ok().clone();
    assert_eq!(
        field_names(&sub),
        BTreeSet::from(["id", "targetUrl", "event", "secret", "createdAt"])
    );
    assert_eq!(
        (&sub["targetUrl"], &sub["event"]),
        (
            &json!("https://hooks.example.com/sounding"),
            &json!("topics.create")
        )
    );
    assert_timestamp(&sub["createdAt"]);
    let secret = sub["secret"].as_str().unwrap();
    let key = secret.strip_prefix("whsec_").expect("whsec_ prefix");
    assert_eq!(STANDARD.decode(key).expect("base64").len(), 32);
    standardwebhooks::Webhook::new(secret).expect("a Standard Webhooks key");
    // The same target and event again is the same subscription, its secret not shown again
    // (issue 17; subscribing_again_returns_the_subscription_without_its_secret_and_delivers_once).
    let again = subscribe(public, "topics.create").await;
    assert_eq!(again.ok()["id"], sub["id"]);
    assert!(again.ok().get("secret").is_none());
    let listed = app.team("automation.list", json!({})).await;
    let ids = [sub["id"].as_str().unwrap()];
    assert_eq!(listed.each("id"), ids);
}

async fn subscriptions_deliveries_and_redelivery_round_trip(engine: Engine) {
    let Some(app) = TestApp::spawn_webhooks(engine).await else {
        return;
    };
    let receiver = Receiver::ok().await;
    let url = receiver.url();
    let created = app.subscribe(&url, "new_feedback").await;
    let body = json!({"targetUrl": url, "event": "feedbacks.update"});
    let updates = app.team_data("automation.subscribe", body).await;
    let without_secret = |s: &Value| {
        let mut s = s.clone();
        s.as_object_mut().unwrap().remove("secret");
        s
    };
    let listed = app.team("automation.list", json!({})).await;
    listed.assert_body(
        200,
        json!({"data": [without_secret(&created), without_secret(&updates)]}),
    );

    let f1 = app.feedback(json!({"title": "One"})).await;
    let body = json!({"id": f1["id"], "title": "One, renamed"});
    app.team_data("feedbacks.update", body).await;
    let f2 = app.feedback(json!({"title": "Two"})).await;
    let hooks = receiver.wait_for(3, WITHIN).await;
    let all = app
        .wait_deliveries(3, WITHIN, |d| d["status"] == "delivered")
        .await;
    // Newest first.
    let created_at: Vec<&str> = all
        .iter()
        .map(|d| d["createdAt"].as_str().unwrap())
        .collect();
    let mut sorted = created_at.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(created_at, sorted);
    assert_eq!(all.last().unwrap()["event"], "new_feedback");
    let newest = hooks
        .iter()
        .find(|h| h.json()["feedbackId"] == f2["id"])
        .unwrap();
    assert_eq!(all[0]["id"], newest.id());

    // Filters and pages.
    let of = |body: Value| app.deliveries(body);
    let ids = |reply: &sounding_tests::Reply| -> Vec<String> {
        reply.each("id").into_iter().map(str::to_owned).collect()
    };
    let mine = of(json!({"id": created["id"]})).await;
    assert_eq!(mine.total(), 2);
    let subscription = created["id"].as_str().unwrap();
    assert_eq!(mine.each("subscriptionId"), [subscription, subscription]);
    let theirs = of(json!({"id": updates["id"]})).await;
    assert_eq!(theirs.each("event"), ["feedbacks.update"]);
    assert_eq!(of(json!({"status": "delivered"})).await.total(), 3);
    for status in ["pending", "failed"] {
        let none = of(json!({"status": status})).await;
        none.assert_body(
            200,
            json!({"data": [], "pagination": {"total": 0, "limit": 20, "offset": 0}}),
        );
    }
    let first = of(json!({"limit": 2})).await;
    assert_eq!(
        first.body["pagination"],
        json!({"total": 3, "limit": 2, "offset": 0})
    );
    let rest = of(json!({"limit": 2, "offset": 2})).await;
    let mut paged = ids(&first);
    paged.extend(ids(&rest));
    let every: Vec<String> = all
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(paged, every);
    of(json!({"status": "sent"}))
        .await
        .assert_error(400, "status must be one of pending, delivered, failed");

    // Redelivery: the same webhook-id and body again, a fresh count of attempts.
    let update = theirs.ok()[0].clone();
    let original = hooks.iter().find(|h| h.id() == update["id"]).unwrap();
    let body = json!({"deliveryId": update["id"]});
    let again = app.team("automation.redeliver", body).await;
    again.assert_body(200, json!({"success": true, "deliveryId": update["id"]}));
    let hooks = receiver.wait_for(4, WITHIN).await;
    let repeat = &hooks[3];
    assert_eq!(repeat.id(), original.id());
    assert_eq!(repeat.body, original.body);
    repeat.verify(updates["secret"].as_str().unwrap());
    let settled = app
        .wait_deliveries(3, WITHIN, |d| {
            d["status"] == "delivered"
                && (d["id"] != update["id"] || d["lastAttemptAt"] != update["lastAttemptAt"])
        })
        .await;
    let redone = settled.iter().find(|d| d["id"] == update["id"]).unwrap();
    assert_eq!(
        (&redone["attempts"], &redone["statusCode"]),
        (&json!(1), &json!(200))
    );
    receiver.assert_quiet(4, QUIET).await;
    let unknown = json!({"deliveryId": uuid::Uuid::new_v4()});
    app.team("automation.redeliver", unknown)
        .await
        .assert_error(404, "Delivery not found");
    app.team("automation.redeliver", json!({}))
        .await
        .assert_error(400, "deliveryId is required");

    // Members read but do not change.
    let (member, _) = app.key_with(Role::Member, false).await;
    let read = app
        .call("automation.deliveries", Some(&member), json!({}))
        .await;
    assert_eq!(read.total(), 3);
    let listed = app.call("automation.list", Some(&member), json!({})).await;
    assert_eq!(listed.each("id").len(), 2);
    let body = json!({"deliveryId": update["id"]});
    app.call("automation.redeliver", Some(&member), body)
        .await
        .assert_status(403);
    let body = json!({"id": created["id"]});
    app.call("automation.unsubscribe", Some(&member), body)
        .await
        .assert_status(403);

    // Unsubscribing by id, then by target and event.
    let by_id = json!({"id": created["id"]});
    let gone = app.team("automation.unsubscribe", by_id.clone()).await;
    gone.assert_body(200, json!({"success": true}));
    let listed = app.team("automation.list", json!({})).await;
    assert_eq!(listed.each("id"), [updates["id"].as_str().unwrap()]);
    app.team("automation.unsubscribe", by_id)
        .await
        .assert_error(404, "Subscription not found");
    let by_target = json!({"target_url": url, "event": "feedbacks.update"});
    let gone = app.team("automation.unsubscribe", by_target.clone()).await;
    gone.assert_body(200, json!({"success": true}));
    app.team("automation.unsubscribe", by_target)
        .await
        .assert_error(404, "Subscription not found");
    app.team("automation.list", json!({}))
        .await
        .assert_body(200, json!({"data": []}));
    // A delivery of a removed subscription cannot be sent again; new changes send nothing.
    let body = json!({"deliveryId": update["id"]});
    app.team("automation.redeliver", body)
        .await
        .assert_error(404, "Delivery not found");
    let f3 = app.feedback(json!({"title": "Three"})).await;
    let body = json!({"id": f3["id"], "title": "Three, renamed"});
    app.team_data("feedbacks.update", body).await;
    receiver.assert_quiet(4, QUIET).await;
    assert_eq!(of(json!({})).await.total(), 3, "history is kept");
}

/// A repeated `automation.subscribe` of the same target and event (also concurrent ones, and
/// with the URL spelled another way that normalises the same) answers the one existing
/// subscription, without its secret, and each event is delivered once.
async fn subscribing_again_returns_the_subscription_without_its_secret_and_delivers_once(
    engine: Engine,
) {
    let Some(app) = TestApp::spawn_webhooks(engine).await else {
        return;
    };
    let receiver = Receiver::ok().await;
    let url = receiver.url();
    let first = app.subscribe(&url, "new_feedback").await;
    let secret = first["secret"].as_str().unwrap().to_owned();
    let mut existing = first.clone();
    existing.as_object_mut().unwrap().remove("secret");

    let again = app
        .team(
            "automation.subscribe",
            json!({"target_url": url, "event": "new_feedback"}),
        )
        .await;
    again.assert_body(200, json!({"data": existing}));
    // `HTTP://` and the default port normalise to the stored URL.
    let respelled = url.replace("http://", "HTTP://");
    let again = app
        .team(
            "automation.subscribe",
            json!({"targetUrl": respelled, "event": "new_feedback"}),
        )
        .await;
    again.assert_body(200, json!({"data": existing}));
    let racing: Vec<_> = (0..8)
        .map(|_| {
            app.team(
                "automation.subscribe",
                json!({"target_url": url, "event": "new_feedback"}),
            )
        })
        .collect();
    for reply in futures_util::future::join_all(racing).await {
        reply.assert_body(200, json!({"data": existing}));
    }
    app.team("automation.list", json!({}))
        .await
        .assert_body(200, json!({"data": [existing]}));

    // Another event to the same target is a subscription of its own, with its own secret.
    let other = app.subscribe(&url, "feedbacks.create").await;
    assert_ne!(other["id"], first["id"]);
    assert!(other["secret"].as_str().unwrap().starts_with("whsec_"));

    let item = app.feedback(json!({"title": "Once"})).await;
    let hooks = receiver.wait_for(1, WITHIN).await;
    tokio::time::sleep(QUIET).await;
    assert_eq!(
        receiver.hooks().len(),
        1,
        "one per subscription, not one per subscribe"
    );
    assert_eq!(hooks[0].json()["event"], "new_feedback");
    assert_eq!(hooks[0].json()["feedbackId"], item["id"]);
    hooks[0].verify(&secret);
}
