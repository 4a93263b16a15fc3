//! Mass assignment (issues 7 and 18): create and update bodies that also carry fields the
//! server owns — `id`, `teamId`, counts, timestamps, `subscriberId`, `urlId`, `role` — are
//! refused as unknown parameters and change nothing; the same bodies without them do what
//! they say, and the server sets what it owns.

use serde_json::{json, Map, Value};
use sounding_tests::{engine_tests, TestApp};

engine_tests!(
    creates_refuse_fields_the_server_owns,
    updates_refuse_fields_the_server_owns_and_change_only_the_fields_they_name,
);

const FOREIGN_ID: &str = "0190d000-0000-7000-8000-000000000001";
const LONG_AGO: &str = "2001-01-01T00:00:00.000Z";
const COUNTS: [&str; 6] = [
    "feedbackVotesCount",
    "feedbackCommentsCount",
    "voteCount",
    "commentCount",
    "topicCount",
    "feedbackCount",
];
const TIMES: [&str; 4] = ["createdAt", "updatedAt", "publishedAt", "lastUpdated"];

/// A create: `(operation, credential, body, the info operation and its id field to read back)`.
type CreateCase<'a> = (&'a str, &'a str, Value, Option<(&'a str, &'a str)>);

/// An update: `(operation, credential, body, (info operation, its body), fields it changes)`.
type UpdateCase<'a> = (&'a str, &'a str, Value, (&'a str, Value), &'a [&'a str]);

/// `body` with every server-owned field added, unless the body already names it (an update's
/// `id`, a user's `role`).
fn hostile(body: Value) -> Value {
    let mut body = match body {
        Value::Object(map) => map,
        _ => unreachable!("bodies are objects"),
    };
    let extra = json!({
        "id": FOREIGN_ID, "teamId": FOREIGN_ID, "subscriberId": FOREIGN_ID,
        "urlId": "aaaaaaaaaa", "url": "/owned-aaaaaaaaaa",
        "role": "owner", "isFirstSignin": true,
        "createdAt": LONG_AGO, "updatedAt": LONG_AGO, "publishedAt": LONG_AGO,
        "lastUpdated": LONG_AGO, "archivedAt": LONG_AGO,
        "feedbackVotesCount": 999, "feedbackCommentsCount": 999, "voteCount": 999,
        "commentCount": 999, "topicCount": 999, "feedbackCount": 999,
    });
    for (key, value) in extra.as_object().unwrap() {
        body.entry(key.clone()).or_insert(value.clone());
    }
    Value::Object(body)
}

/// Refused as unknown parameters: the names come sorted, so `archivedAt` (never a parameter
/// of any operation) is first, and the rest are summed up after ten.
fn assert_refused(op: &str, reply: &sounding_tests::client::Reply) {
    let message = reply.assert_status(400);
    assert!(
        message.starts_with("Unknown parameter: archivedAt, ") && message.contains(" more)"),
        "{op}: {message}"
    );
}

/// None of the hostile values made it into `data`.
fn assert_server_owned_fields_kept(op: &str, data: &Value, team_id: &str) {
    assert_ne!(data["id"], FOREIGN_ID, "{op}: id taken from the body");
    if let Some(team) = data.get("teamId") {
        assert_eq!(team, team_id, "{op}: teamId taken from the body");
    }
    for key in ["subscriberId", "creatorId"] {
        assert_ne!(data[key], FOREIGN_ID, "{op}: {key} taken from the body");
    }
    assert_ne!(
        data["urlId"], "aaaaaaaaaa",
        "{op}: urlId taken from the body"
    );
    assert_ne!(
        data["url"], "/owned-aaaaaaaaaa",
        "{op}: url taken from the body"
    );
    assert_ne!(
        data["archivedAt"], LONG_AGO,
        "{op}: archivedAt taken from the body"
    );
    for key in COUNTS {
        assert_ne!(data[key], 999, "{op}: {key} taken from the body");
    }
    for key in TIMES {
        assert_ne!(data[key], LONG_AGO, "{op}: {key} taken from the body");
    }
}

/// Every field of `after` equals `before`'s except `changed` and what follows a change.
fn assert_only_changed(op: &str, before: &Value, after: &Value, changed: &[&str]) {
    // What any accepted change moves: times, the url after a title, and who edited last.
    let follows = [
        "updatedAt",
        "lastUpdated",
        "url",
        "meta",
        "lastModifiedBy",
        "lastModifiedById",
    ];
    let (Some(before), Some(after)) = (before.as_object(), after.as_object()) else {
        panic!("{op}: objects expected, got {before} and {after}");
    };
    let keys: Map<String, Value> = before.clone();
    for key in keys.keys() {
        if changed.contains(&key.as_str()) || follows.contains(&key.as_str()) {
            continue;
        }
        assert_eq!(after.get(key), before.get(key), "{op}: {key} changed");
    }
}

async fn creates_refuse_fields_the_server_owns(app: TestApp) {
    let team = app.team_id.clone();
    let (_, token) = app.identify("ann@example.com").await;
    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Next"})).await;

    assert_refused(
        "feedback-boards.create",
        &app.team("feedback-boards.create", hostile(json!({"name": "Ideas"})))
            .await,
    );
    let board = app
        .team("feedback-boards.create", json!({"name": "Ideas"}))
        .await;
    assert_server_owned_fields_kept("feedback-boards.create", board.ok(), &team);
    let board = board.ok().clone();

    let cases: Vec<CreateCase> = vec![
        (
            "feedbacks.create",
            app.key.as_str(),
            json!({"title": "Team item", "boardId": board["id"]}),
            Some(("feedbacks.info", "id")),
        ),
        (
            "public/feedbacks.create",
            token.as_str(),
            json!({"title": "Public item", "boardId": board["id"]}),
            Some(("feedbacks.info", "id")),
        ),
        (
            "roadmaps.create",
            app.key.as_str(),
            json!({"name": "Later"}),
            Some(("roadmaps.info", "id")),
        ),
        (
            "stages.create",
            app.key.as_str(),
            json!({"name": "Soon", "roadmapId": roadmap["id"]}),
            None,
        ),
        (
            "public/topics.create",
            token.as_str(),
            json!({"title": "Exports", "roadmapId": roadmap["id"], "stageId": stage["id"]}),
            Some(("public/topics.info", "id")),
        ),
        (
            "documents.create",
            app.key.as_str(),
            json!({"title": "Help"}),
            Some(("documents.info", "id")),
        ),
        (
            "tags.create",
            app.key.as_str(),
            json!({"name": "Bug"}),
            None,
        ),
        (
            "users.create",
            app.key.as_str(),
            json!({"email": "bo@example.com", "name": "Bo", "role": "member"}),
            None,
        ),
        (
            "public/subscriber.identify",
            app.key.as_str(),
            json!({"email": "cy@example.com"}),
            None,
        ),
    ];
    for (op, credential, body, read_back) in cases {
        let before = app.census().await;
        let reply = app.call(op, Some(credential), hostile(body.clone())).await;
        assert_refused(op, &reply);
        assert_eq!(
            app.census().await,
            before,
            "{op}: a refused create changed something"
        );

        let reply = app.call(op, Some(credential), body).await;
        let data = reply.ok().clone();
        assert_server_owned_fields_kept(op, &data, &team);
        if let Some((info, field)) = read_back {
            let stored = app.team_data(info, json!({ field: data["id"] })).await;
            assert_server_owned_fields_kept(info, &stored, &team);
        }
    }

    // A comment cannot be written as someone else.
    let feedback = app.feedback(json!({"title": "Zero"})).await;
    let before = app.census().await;
    let comment = app
        .call(
            "public/feedback-comments.create",
            Some(&token),
            hostile(json!({"feedbackId": feedback["id"], "text": "Mine"})),
        )
        .await;
    assert_refused("public/feedback-comments.create", &comment);
    assert_eq!(app.census().await, before);
    // The new user has the role the body named, not the injected one.
    let users = app.team_data("users.list", json!({})).await;
    let bo = users
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["email"] == "bo@example.com")
        .expect("user created");
    assert_eq!(bo["role"], "member");
}

async fn updates_refuse_fields_the_server_owns_and_change_only_the_fields_they_name(app: TestApp) {
    let (ann, token) = app.identify("ann@example.com").await;
    let board = app.board(json!({"name": "Ideas"})).await;
    let feedback = app
        .public_feedback(
            &token,
            json!({"title": "Dark mode", "boardId": board["id"]}),
        )
        .await;
    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Next"})).await;
    let topic = app.topic(&token, &stage, json!({"title": "Exports"})).await;
    let document = app
        .team_data("documents.create", json!({"title": "Help"}))
        .await;
    let tag = app.team_data("tags.create", json!({"name": "Bug"})).await;

    let f = &feedback["id"];
    let cases: Vec<UpdateCase> = vec![
        (
            "feedbacks.update",
            app.key.as_str(),
            json!({"id": f, "status": "planned"}),
            ("feedbacks.info", json!({"id": f})),
            &["status"],
        ),
        (
            "public/feedbacks.update",
            token.as_str(),
            json!({"feedbackId": f, "text": "Please"}),
            ("feedbacks.info", json!({"id": f})),
            &["text"],
        ),
        (
            "feedback-boards.update",
            app.key.as_str(),
            json!({"id": board["id"], "name": "Wishes"}),
            ("feedback-boards.info", json!({"id": board["id"]})),
            &["name"],
        ),
        (
            "roadmaps.update",
            app.key.as_str(),
            json!({"id": roadmap["id"], "name": "Plan"}),
            ("roadmaps.info", json!({"id": roadmap["id"]})),
            &["name"],
        ),
        (
            "topics.update",
            app.key.as_str(),
            json!({"id": topic["id"], "title": "CSV exports"}),
            ("public/topics.info", json!({"id": topic["id"]})),
            &["title", "slug"],
        ),
        (
            "documents.update",
            app.key.as_str(),
            json!({"id": document["id"], "text": "Read me"}),
            ("documents.info", json!({"id": document["id"]})),
            &["text"],
        ),
        (
            "subscribers.update",
            app.key.as_str(),
            json!({"id": ann["id"], "name": "Ann B"}),
            ("subscribers.info", json!({"id": ann["id"]})),
            &["name"],
        ),
    ];
    for (op, credential, body, (info, info_body), changed) in cases {
        let before = app.team_data(info, info_body.clone()).await;
        let reply = app.call(op, Some(credential), hostile(body.clone())).await;
        assert_refused(op, &reply);
        let unchanged = app.team_data(info, info_body.clone()).await;
        assert_eq!(
            unchanged, before,
            "{op}: a refused update changed the object"
        );

        let reply = app.call(op, Some(credential), body).await;
        assert_server_owned_fields_kept(op, reply.ok(), &app.team_id);
        let after = app.team_data(info, info_body).await;
        assert_only_changed(op, &before, &after, changed);
        assert_server_owned_fields_kept(info, &after, &app.team_id);
    }

    // Tags: refused whole; then the listed tag keeps its id and creation time.
    assert_refused(
        "tags.update",
        &app.team(
            "tags.update",
            hostile(json!({"id": tag["id"], "color": "#000000"})),
        )
        .await,
    );
    assert_eq!(app.team_data("tags.list", json!({})).await[0], tag);
    app.team("tags.update", json!({"id": tag["id"], "color": "#000000"}))
        .await
        .ok();
    let tags = app.team_data("tags.list", json!({})).await;
    assert_eq!(tags[0]["id"], tag["id"]);
    assert_eq!(tags[0]["createdAt"], tag["createdAt"]);
    assert_eq!(tags[0]["color"], "#000000");
}
