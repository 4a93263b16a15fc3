//! Limits (decisions §2, issue 7): every string field's maximum is enforced in characters (not
//! bytes) with a 400 naming the field and the limit, and a refused request writes nothing;
//! `meta` objects over 16 KiB or deeper than 8 levels are 400; `limit` over 100 is clamped.

use serde_json::{json, Value};
use sounding_tests::{engine_tests, TestApp};

engine_tests!(
    every_string_field_takes_its_maximum_in_characters_and_refuses_one_more,
    meta_over_16_kib_or_deeper_than_8_levels_is_refused,
    merged_meta_cannot_grow_past_16_kib,
    list_limits_over_100_are_clamped,
);

/// Who calls an operation.
#[derive(Clone, Copy)]
enum As {
    Key,
    Subscriber,
}

/// `(operation, caller, body without the field, field, maximum in characters)`.
type FieldCase = (&'static str, As, Value, &'static str, usize);

struct World {
    token: String,
    feedback: Value,
    roadmap: Value,
    stage: Value,
    topic: Value,
    subscriber: Value,
}

async fn world(app: &TestApp) -> World {
    // Public topics need anonymous creation off and a subscriber; public feedback none.
    let (subscriber, token) = app.identify("ann@example.com").await;
    let feedback = app.feedback(json!({"title": "Dark mode"})).await;
    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Next"})).await;
    let topic = app.topic(&token, &stage, json!({"title": "Exports"})).await;
    World {
        token,
        feedback,
        roadmap,
        stage,
        topic,
        subscriber,
    }
}

fn field_cases(w: &World) -> Vec<FieldCase> {
    use As::*;
    let f = &w.feedback["id"];
    let topic_body = json!({"roadmapId": w.roadmap["id"], "stageId": w.stage["id"], "title": "T"});
    vec![
        ("feedbacks.create", Key, json!({}), "title", 255),
        (
            "feedbacks.create",
            Key,
            json!({"title": "T"}),
            "text",
            50_000,
        ),
        (
            "public/feedbacks.create",
            Subscriber,
            json!({}),
            "title",
            255,
        ),
        (
            "public/feedbacks.create",
            Subscriber,
            json!({"title": "T"}),
            "text",
            50_000,
        ),
        (
            "public/feedback-comments.create",
            Subscriber,
            json!({"feedbackId": f}),
            "text",
            10_000,
        ),
        (
            "public/topic-comments.create",
            Subscriber,
            json!({"id": w.topic["id"]}),
            "text",
            10_000,
        ),
        ("feedback-boards.create", Key, json!({}), "name", 255),
        (
            "feedback-boards.create",
            Key,
            json!({"name": "B"}),
            "description",
            50_000,
        ),
        ("roadmaps.create", Key, json!({}), "name", 255),
        (
            "stages.create",
            Key,
            json!({"roadmapId": w.roadmap["id"]}),
            "name",
            255,
        ),
        (
            "public/topics.create",
            Subscriber,
            topic_body.clone(),
            "text",
            50_000,
        ),
        ("documents.create", Key, json!({}), "title", 255),
        (
            "documents.create",
            Key,
            json!({"title": "D"}),
            "text",
            50_000,
        ),
        ("tags.create", Key, json!({}), "name", 50),
        (
            "users.create",
            Key,
            json!({"email": "bo@example.com", "role": "member"}),
            "name",
            255,
        ),
        (
            "public/subscriber.identify",
            Key,
            json!({"email": "cy@example.com"}),
            "name",
            255,
        ),
        (
            "subscribers.update",
            Key,
            json!({"id": w.subscriber["id"]}),
            "name",
            255,
        ),
        ("teams.update", Key, json!({}), "name", 255),
    ]
}

fn with(mut body: Value, field: &str, value: String) -> Value {
    body[field] = Value::String(value);
    body
}

async fn every_string_field_takes_its_maximum_in_characters_and_refuses_one_more(app: TestApp) {
    let w = world(&app).await;
    for (op, who, body, field, max) in field_cases(&w) {
        let credential = match who {
            As::Key => app.key.clone(),
            As::Subscriber => w.token.clone(),
        };
        // Two bytes a character: a byte count would refuse the maximum.
        let longest = "é".repeat(max);
        let events = app.events().await.len();
        let refused = app
            .call(
                op,
                Some(&credential),
                with(body.clone(), field, format!("{longest}é")),
            )
            .await;
        refused.assert_error(400, &format!("{field} must be at most {max} characters"));
        assert_eq!(
            app.events().await.len(),
            events,
            "{op}: a refusal wrote events"
        );

        let accepted = app
            .call(op, Some(&credential), with(body, field, longest))
            .await;
        assert_eq!(
            accepted.status, 200,
            "{op} refused {field} of {max} characters: {}",
            accepted.body
        );
    }

    // An e-mail of 254 characters is an e-mail; 255 is too long.
    let local = "a".repeat(254 - "@x.io".len());
    app.team(
        "public/subscriber.identify",
        json!({"email": format!("{local}@x.io")}),
    )
    .await
    .ok();
    app.team(
        "public/subscriber.identify",
        json!({"email": format!("{local}a@x.io")}),
    )
    .await
    .assert_error(400, "email must be at most 254 characters");
}

/// `{"a": {"a": … {"a": 1}}}` nested `levels` objects deep.
fn nested(levels: usize) -> Value {
    (1..levels).fold(json!({"a": 1}), |inner, _| json!({ "a": inner }))
}

async fn meta_over_16_kib_or_deeper_than_8_levels_is_refused(app: TestApp) {
    let (subscriber, _) = app.identify("ann@example.com").await;
    let cases = [
        ("feedbacks.create", json!({"title": "T"})),
        (
            "public/subscriber.identify",
            json!({"email": "bo@example.com"}),
        ),
        ("subscribers.update", json!({"id": subscriber["id"]})),
    ];
    // `{"a":"xxxx…"}`: 8 bytes of syntax around the string. The same key as `nested`, so
    // merging one into the other (identify, update) replaces rather than adds.
    let at_limit = json!({ "a": "x".repeat(16 * 1024 - 8) });
    assert_eq!(serde_json::to_vec(&at_limit).unwrap().len(), 16 * 1024);
    let over_limit = json!({ "a": "x".repeat(16 * 1024 - 7) });
    for (op, body) in cases {
        let events = app.events().await.len();
        let mut too_big = body.clone();
        too_big["meta"] = over_limit.clone();
        app.team(op, too_big)
            .await
            .assert_error(400, "meta must be at most 16 KiB as JSON");
        let mut too_deep = body.clone();
        too_deep["meta"] = nested(9);
        app.team(op, too_deep)
            .await
            .assert_error(400, "meta must be nested at most 8 levels deep");
        assert_eq!(
            app.events().await.len(),
            events,
            "{op}: a refusal wrote events"
        );

        let mut deepest = body.clone();
        deepest["meta"] = nested(8);
        assert_eq!(app.team(op, deepest).await.status, 200, "{op}: 8 levels");
        let mut largest = body;
        largest["meta"] = at_limit.clone();
        assert_eq!(app.team(op, largest).await.status, 200, "{op}: 16 KiB");
    }
}

/// Each patch is within the limit, but patches with new keys would add up: the merge that would
/// pass 16 KiB is refused and the stored meta stays as it was.
async fn merged_meta_cannot_grow_past_16_kib(app: TestApp) {
    let (_, token) = app.identify("ann@example.com").await;
    let item = app.public_feedback(&token, json!({"title": "Mine"})).await;
    let half = |key: &str| json!({ key: "x".repeat(8 * 1024) });
    let update = |meta: Value| {
        app.call(
            "public/feedbacks.update",
            Some(&token),
            json!({"feedbackId": item["id"], "meta": meta}),
        )
    };
    update(half("a")).await.ok();
    update(half("b")).await.assert_error(
        400,
        "meta must be at most 16 KiB as JSON once merged with the stored meta",
    );
    let stored = app
        .team_data("feedbacks.info", json!({"id": item["id"]}))
        .await;
    assert_eq!(stored["meta"], half("a"));
    // Replacing a key is no growth.
    update(half("a")).await.ok();

    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Next"})).await;
    let topic = app.topic(&token, &stage, json!({"title": "Exports"})).await;
    let long = |key: &str| json!({ key: "x".repeat(8 * 1024) });
    app.team(
        "topics.update",
        json!({"id": topic["id"], "meta": long("description")}),
    )
    .await
    .ok();
    app.team(
        "topics.update",
        json!({"id": topic["id"], "meta": long("ctaTitle")}),
    )
    .await
    .assert_error(
        400,
        "meta must be at most 16 KiB as JSON once merged with the stored meta",
    );

    // Subscribers: identify and subscribers.update merge inside the store's transaction.
    let identify = |meta: Value| {
        app.team(
            "public/subscriber.identify",
            json!({"email": "bob@example.com", "name": "Bob", "meta": meta}),
        )
    };
    let bob = identify(half("a")).await.ok().clone();
    identify(half("b")).await.assert_error(
        400,
        "meta must be at most 16 KiB as JSON once merged with the stored meta",
    );
    app.team(
        "subscribers.update",
        json!({"id": bob["id"], "name": "Robert", "meta": half("c")}),
    )
    .await
    .assert_error(
        400,
        "meta must be at most 16 KiB as JSON once merged with the stored meta",
    );
    let stored = app
        .team_data("subscribers.info", json!({"id": bob["id"]}))
        .await;
    assert_eq!(stored["meta"], half("a"));
    assert_eq!(stored["name"], "Bob", "a refused update changes nothing");
    // Removing a key makes room again.
    app.team(
        "subscribers.update",
        json!({"id": bob["id"], "meta": {"a": null, "c": "x".repeat(8 * 1024)}}),
    )
    .await
    .ok();
}

async fn list_limits_over_100_are_clamped(app: TestApp) {
    let w = world(&app).await;
    let key = app.key.clone();
    let cases: Vec<(&str, &str, Value)> = vec![
        ("feedbacks.list", &key, json!({})),
        ("public/feedbacks.list", &key, json!({})),
        (
            "public/feedback-comments.list",
            &key,
            json!({"feedbackId": w.feedback["id"]}),
        ),
        (
            "public/stages.info",
            &key,
            json!({"stageId": w.stage["id"]}),
        ),
        ("topics.list", &key, json!({})),
        ("documents.list", &key, json!({})),
        ("public/documents.list", &key, json!({})),
        ("subscribers.list", &key, json!({})),
        ("automation.deliveries", &key, json!({})),
        ("public/notifications.list", &w.token, json!({})),
    ];
    for (op, credential, mut body) in cases {
        body["limit"] = json!(1000);
        let reply = app.call(op, Some(credential), body).await;
        assert_eq!(reply.status, 200, "{op}: {}", reply.body);
        assert_eq!(reply.body["pagination"]["limit"], 100, "{op}");
    }
}
