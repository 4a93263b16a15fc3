//! Feedback items: team `feedbacks.*` and public `public/feedbacks.*` (interface §2 Feedback,
//! §3, §4; decisions §3, §4, §6).

use std::collections::BTreeSet;

use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{client::assert_timestamp, engine_tests, harness::OWNER_EMAIL, TestApp};

engine_tests!(
    public_create_returns_the_full_feedback_with_defaults,
    team_create_takes_status_priority_and_creator,
    urls_follow_the_title_and_the_url_id_stays,
    team_update_changes_given_fields_and_announces_status_changes,
    invalid_input_is_400_and_creates_nothing,
    public_create_respects_the_boards_settings,
    moderation_hides_feedback_until_published,
    only_the_creator_updates_or_deletes_public_feedback,
    archive_hides_and_restore_brings_back,
);

/// Every field of a feedback item on no board (`boardId` is absent then).
const FIELDS: &str = "id urlId url title text status priority type board creatorId subscriber \
    teamId feedbackVotesCount feedbackCommentsCount tags meta publishedAt createdAt updatedAt \
    archivedAt lastModifiedById lastModifiedBy";

const BAD_STATUS: &str = "status must be one of in_review, in_progress, planned, completed, closed";
const BAD_PRIORITY: &str = "priority must be one of low, medium, high, urgent";

fn field_names(item: &Value) -> BTreeSet<&str> {
    item.as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

fn expected_fields(extra: &[&'static str]) -> BTreeSet<&'static str> {
    FIELDS
        .split_whitespace()
        .chain(extra.iter().copied())
        .collect()
}

/// `value` without `isSubscribed`, which only personalised reads carry.
fn impersonal(value: &Value) -> Value {
    let mut value = value.clone();
    value.as_object_mut().unwrap().remove("isSubscribed");
    value
}

async fn info(app: &TestApp, id: &Value) -> Value {
    app.team("feedbacks.info", json!({ "id": id }))
        .await
        .ok()
        .clone()
}

async fn public_info(app: &TestApp, token: &str, body: Value) -> sounding_tests::Reply {
    app.call("public/feedbacks.info", Some(token), body).await
}

async fn public_create_returns_the_full_feedback_with_defaults(app: TestApp) {
    let (jane, code) = app.identify("jane.doe@example.com").await;
    let f = app
        .public_feedback(
            &code,
            json!({"title": "Dark mode, please!", "text": "My eyes hurt at night."}),
        )
        .await;
    assert_eq!(field_names(&f), expected_fields(&[]), "{f}");
    let url_id = f["urlId"].as_str().unwrap();
    assert!(
        url_id.len() == 10
            && url_id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
        "{url_id}"
    );
    assert_eq!(f["url"], format!("/dark-mode-please-{url_id}"));
    assert_eq!(f["title"], "Dark mode, please!");
    assert_eq!(f["text"], "My eyes hurt at night.");
    assert_eq!(f["status"], "in_review");
    assert_eq!(f["priority"], "medium");
    assert_eq!(f["type"], Value::Null);
    assert_eq!(f["board"], Value::Null);
    assert_eq!(f["creatorId"], jane["id"]);
    assert_eq!(
        f["subscriber"],
        json!({"id": jane["id"], "name": "Jane Doe", "email": "jane.doe@example.com", "avatarUrl": null})
    );
    assert_eq!(f["teamId"], app.team_id);
    assert_eq!(f["feedbackVotesCount"], 0);
    assert_eq!(f["feedbackCommentsCount"], 0);
    assert_eq!(f["tags"], json!([]));
    assert_eq!(f["meta"], json!({}));
    assert_eq!(f["archivedAt"], Value::Null);
    assert_eq!(f["lastModifiedById"], Value::Null);
    assert_eq!(f["lastModifiedBy"], Value::Null);
    for field in ["publishedAt", "createdAt", "updatedAt"] {
        assert_timestamp(&f[field]);
    }
    // Every read returns the same item; the creator's read says they follow it.
    assert_eq!(info(&app, &f["id"]).await, f);
    let by_key = public_info(&app, &app.key, json!({"feedbackId": f["id"]})).await;
    assert_eq!(impersonal(by_key.ok()), f);
    let mine = public_info(&app, &code, json!({"urlId": url_id})).await;
    assert_eq!(mine.ok()["isSubscribed"], true);
    assert_eq!(impersonal(mine.ok()), f);
    // Public creation announces itself twice; the payload carries the item as returned.
    let mut kinds = app.event_kinds().await;
    kinds.sort();
    assert_eq!(kinds, ["feedbacks.create", "new_feedback"]);
    for kind in ["new_feedback", "feedbacks.create"] {
        let payload = &app.events_of(kind).await[0];
        assert_eq!(payload["event"], kind);
        assert_eq!(payload["teamId"], app.team_id);
        assert_eq!(payload["feedbackId"], f["id"]);
        assert_timestamp(&payload["occurredAt"]);
        assert_eq!(payload["data"], f, "{kind}");
    }

    // On a board, with a type and meta.
    let board = app.board(json!({"name": "Ideas"})).await;
    let g = app
        .public_feedback(
            &code,
            json!({"title": "Export to CSV", "boardId": board["id"], "type": "idea", "meta": {"browser": "firefox"}}),
        )
        .await;
    assert_eq!(field_names(&g), expected_fields(&["boardId"]), "{g}");
    assert_eq!(g["boardId"], board["id"]);
    assert_eq!(
        g["board"],
        json!({"id": board["id"], "name": "Ideas", "slug": "ideas"})
    );
    assert_eq!(g["type"], "idea");
    assert_eq!(g["meta"], json!({"browser": "firefox"}));
    assert_eq!(g["text"], "");
    let by_url = app
        .team("feedbacks.info", json!({"urlId": g["urlId"]}))
        .await;
    assert_eq!(by_url.ok(), &g);
}

async fn team_create_takes_status_priority_and_creator(app: TestApp) {
    let f = app
        .feedback(json!({
            "title": "SSO", "text": "SAML please", "status": "planned", "priority": "high",
            "type": "bug", "meta": {"source": "call"},
            "creatorEmail": "Cathy@Example.com", "creatorName": "Cathy Customer"
        }))
        .await;
    assert_eq!(field_names(&f), expected_fields(&[]), "{f}");
    assert_eq!(
        (&f["status"], &f["priority"], &f["type"]),
        (&json!("planned"), &json!("high"), &json!("bug"))
    );
    assert_eq!(f["meta"], json!({"source": "call"}));
    assert_eq!(f["subscriber"]["email"], "cathy@example.com");
    assert_eq!(f["subscriber"]["name"], "Cathy Customer");
    assert_timestamp(&f["publishedAt"]);
    assert_eq!(f["lastModifiedBy"], Value::Null);
    // The creator became a subscriber of the team, from the API.
    let known = app
        .team(
            "public/subscriber.identify",
            json!({"email": "cathy@example.com"}),
        )
        .await;
    assert_eq!(known.body["isFirstSignin"], false);
    assert_eq!(known.ok()["id"], f["creatorId"]);
    assert_eq!(known.ok()["source"], "api");
    // A derived name; and without creatorEmail, the key's user.
    let g = app
        .feedback(json!({"title": "Derived", "creatorEmail": "pat.smith@example.com"}))
        .await;
    assert_eq!(g["subscriber"]["name"], "Pat Smith");
    let h = app.feedback(json!({"title": "Mine"})).await;
    assert_eq!(h["subscriber"]["email"], OWNER_EMAIL);
    assert_eq!(h["subscriber"]["id"], h["creatorId"]);
    assert_eq!(
        (&h["status"], &h["priority"], &h["type"], &h["text"]),
        (
            &json!("in_review"),
            &json!("medium"),
            &Value::Null,
            &json!("")
        )
    );
    // Team creation announces only new_feedback.
    assert_eq!(
        app.event_kinds().await,
        ["new_feedback", "new_feedback", "new_feedback"]
    );
    // A read-only key may not create.
    let (read_only, _) = app.key_with(Role::Owner, true).await;
    app.call("feedbacks.create", Some(&read_only), json!({"title": "X"}))
        .await
        .assert_error(403, "This API key is read-only");
    assert_eq!(app.team("feedbacks.list", json!({})).await.total(), 3);
}

async fn urls_follow_the_title_and_the_url_id_stays(app: TestApp) {
    let (_, code) = app.identify("writer@example.com").await;
    for (title, slug) in [
        ("Héllo,  Wörld!!".to_owned(), "hello-world".to_owned()),
        ("!!!".to_owned(), "untitled".to_owned()),
        ("a".repeat(100), "a".repeat(60)),
    ] {
        let f = app.public_feedback(&code, json!({ "title": title })).await;
        assert_eq!(
            f["url"],
            format!("/{slug}-{}", f["urlId"].as_str().unwrap())
        );
    }
    let f = app
        .public_feedback(&code, json!({"title": "Old name"}))
        .await;
    let url_id = f["urlId"].as_str().unwrap();
    let reply = app
        .call(
            "public/feedbacks.update",
            Some(&code),
            json!({"feedbackId": f["id"], "title": "New Name 2"}),
        )
        .await;
    let updated = reply.ok();
    assert_eq!(updated["urlId"], url_id);
    assert_eq!(updated["url"], format!("/new-name-2-{url_id}"));
    assert!(updated["updatedAt"].as_str() >= f["updatedAt"].as_str());
    for token in [&app.key, &code] {
        let again = public_info(&app, token, json!({ "urlId": url_id })).await;
        assert_eq!(again.ok()["title"], "New Name 2");
        assert_eq!(again.ok()["id"], f["id"]);
    }
    let by_team = app.team("feedbacks.info", json!({"urlId": url_id})).await;
    assert_eq!(by_team.ok()["url"], format!("/new-name-2-{url_id}"));
}

async fn team_update_changes_given_fields_and_announces_status_changes(app: TestApp) {
    let f = app
        .feedback(json!({"title": "Keep me", "text": "t", "meta": {"a": 1, "b": 2}}))
        .await;
    let before = app.events().await.len();
    let reply = app
        .team(
            "feedbacks.update",
            json!({"id": f["id"], "status": "planned", "meta": {"b": null, "c": 3}}),
        )
        .await;
    let u = reply.ok().clone();
    assert_eq!(u["status"], "planned");
    assert_eq!(u["meta"], json!({"a": 1, "c": 3}));
    assert_eq!(
        (&u["title"], &u["text"], &u["priority"]),
        (&f["title"], &f["text"], &f["priority"])
    );
    assert_eq!((&u["url"], &u["createdAt"]), (&f["url"], &f["createdAt"]));
    assert!(u["updatedAt"].as_str() >= f["updatedAt"].as_str());
    assert_eq!(u["lastModifiedBy"]["email"], OWNER_EMAIL);
    assert_eq!(u["lastModifiedById"], u["lastModifiedBy"]["id"]);
    assert_eq!(info(&app, &f["id"]).await, u);
    let mut kinds: Vec<String> = app.event_kinds().await.split_off(before);
    kinds.sort();
    assert_eq!(kinds, ["feedback_status_change", "feedbacks.update"]);
    let change = &app.events_of("feedback_status_change").await[0];
    assert_eq!(
        (
            &change["previousStatus"],
            &change["status"],
            &change["feedbackId"]
        ),
        (&json!("in_review"), &json!("planned"), &f["id"])
    );
    assert_eq!(change["event"], "feedback_status_change");
    assert_eq!(change["teamId"], app.team_id);
    assert_eq!(change["data"], u);

    // The same status again is no change of status; priority, type and board change.
    let board = app.board(json!({"name": "Moved"})).await;
    let again = app
        .team(
            "feedbacks.update",
            json!({"id": f["id"], "status": "planned", "priority": "urgent", "type": "bug", "boardId": board["id"]}),
        )
        .await;
    assert_eq!(again.ok()["priority"], "urgent");
    assert_eq!(again.ok()["type"], "bug");
    assert_eq!(again.ok()["boardId"], board["id"]);
    assert_eq!(again.ok()["board"]["name"], "Moved");
    assert_eq!(app.events_of("feedback_status_change").await.len(), 1);
    assert_eq!(app.events_of("feedbacks.update").await.len(), 2);

    // Failures change nothing and announce nothing.
    let count = app.events().await.len();
    app.team("feedbacks.update", json!({"status": "closed"}))
        .await
        .assert_error(400, "id is required");
    app.team(
        "feedbacks.update",
        json!({"id": uuid::Uuid::now_v7(), "status": "closed"}),
    )
    .await
    .assert_error(404, "Feedback not found");
    app.team("feedbacks.update", json!({"id": f["id"], "status": "done"}))
        .await
        .assert_error(400, BAD_STATUS);
    app.team(
        "feedbacks.update",
        json!({"id": f["id"], "priority": "asap"}),
    )
    .await
    .assert_error(400, BAD_PRIORITY);
    app.team("feedbacks.update", json!({"id": f["id"], "title": " "}))
        .await
        .assert_error(400, "title is required");
    assert_eq!(app.events().await.len(), count);
    assert_eq!(info(&app, &f["id"]).await, again.ok().clone());
}

async fn invalid_input_is_400_and_creates_nothing(app: TestApp) {
    let (_, code) = app.identify("sloppy@example.com").await;
    let missing_board = uuid::Uuid::now_v7().to_string();
    let cases = [
        (json!({}), "title is required"),
        (json!({"title": "   "}), "title is required"),
        (
            json!({"title": "x".repeat(256)}),
            "title must be at most 255 characters",
        ),
        (json!({"title": "X", "status": "open"}), BAD_STATUS),
        (json!({"title": "X", "priority": "p1"}), BAD_PRIORITY),
        (
            json!({"title": "X", "boardId": "nope"}),
            "boardId must be a UUID",
        ),
    ];
    for (body, message) in &cases {
        app.team("feedbacks.create", body.clone())
            .await
            .assert_error(400, message);
    }
    for (body, message) in &cases[..3] {
        app.call("public/feedbacks.create", Some(&code), body.clone())
            .await
            .assert_error(400, message);
    }
    app.team(
        "feedbacks.create",
        json!({"title": "X", "boardId": missing_board}),
    )
    .await
    .assert_error(404, "Board not found");
    app.call(
        "public/feedbacks.create",
        Some(&code),
        json!({"title": "X", "boardId": missing_board}),
    )
    .await
    .assert_error(404, "Board not found");
    app.team("public/feedbacks.create", json!({"title": "By key"}))
        .await
        .assert_error(401, "Authentication required");
    app.call("public/feedbacks.create", None, json!({"title": "Anon"}))
        .await
        .assert_error(401, "Authentication required");
    // Info wants exactly one of id and urlId; lists check their parameters.
    app.team("feedbacks.info", json!({}))
        .await
        .assert_status(400);
    app.team(
        "feedbacks.info",
        json!({"id": missing_board, "urlId": "abcdefghij"}),
    )
    .await
    .assert_status(400);
    public_info(&app, &code, json!({})).await.assert_status(400);
    public_info(
        &app,
        &code,
        json!({"feedbackId": missing_board, "urlId": "abcdefghij"}),
    )
    .await
    .assert_status(400);
    app.team("feedbacks.info", json!({ "id": missing_board }))
        .await
        .assert_error(404, "Feedback not found");
    app.team("feedbacks.list", json!({"sortBy": "best"}))
        .await
        .assert_error(400, "sortBy must be one of newest, top, trending");
    app.team("public/feedbacks.list", json!({"sortBy": "best"}))
        .await
        .assert_error(400, "sortBy must be one of newest, top, trending");
    app.team("feedbacks.list", json!({"limit": 0}))
        .await
        .assert_error(400, "limit must be between 1 and 100");
    // Nothing was stored or announced.
    assert_eq!(app.team("feedbacks.list", json!({})).await.total(), 0);
    assert_eq!(app.event_kinds().await, Vec::<String>::new());
}

async fn public_create_respects_the_boards_settings(app: TestApp) {
    let (_, code) = app.identify("visitor@example.com").await;
    let private = app
        .board(json!({"name": "Internal", "meta": {"isPublic": false}}))
        .await;
    let closed = app
        .board(json!({"name": "Closed", "meta": {"allowPublicSubmissions": false}}))
        .await;
    let moderated = app
        .board(json!({"name": "Moderated", "meta": {"requireModeration": true}}))
        .await;
    let (_, other_key) = app.other_team("elsewhere").await;
    let foreign = app
        .data_with(
            &other_key,
            "feedback-boards.create",
            json!({"name": "Theirs"}),
        )
        .await;
    let create = |board: &Value| {
        app.call(
            "public/feedbacks.create",
            Some(&code),
            json!({"title": "Try", "boardId": board["id"]}),
        )
    };
    create(&private).await.assert_error(404, "Board not found");
    create(&foreign).await.assert_error(404, "Board not found");
    create(&closed)
        .await
        .assert_error(403, "This board does not accept public submissions");
    assert_eq!(app.team("feedbacks.list", json!({})).await.total(), 0);
    assert_eq!(app.event_kinds().await, Vec::<String>::new());
    let held = create(&moderated).await;
    assert_eq!(held.ok()["publishedAt"], Value::Null);
    assert_eq!(held.ok()["boardId"], moderated["id"]);
    // The team still files feedback on any of its boards, published at once.
    let team_filed = app
        .feedback(json!({"title": "Internal note", "boardId": private["id"]}))
        .await;
    assert_timestamp(&team_filed["publishedAt"]);
}

async fn moderation_hides_feedback_until_published(app: TestApp) {
    app.team("teams.update", json!({"publicBoardModeration": true}))
        .await
        .ok();
    let board = app.board(json!({"name": "Ideas"})).await;
    let (_, code) = app.identify("author@example.com").await;
    let (_, reader) = app.identify("reader@example.com").await;
    let f = app
        .public_feedback(&code, json!({"title": "Held back", "boardId": board["id"]}))
        .await;
    assert_eq!(f["publishedAt"], Value::Null);
    for token in [&app.key, &reader] {
        public_info(&app, token, json!({"feedbackId": f["id"]}))
            .await
            .assert_error(404, "Feedback not found");
        public_info(&app, token, json!({"urlId": f["urlId"]}))
            .await
            .assert_error(404, "Feedback not found");
        let list = app
            .call("public/feedbacks.list", Some(token), json!({}))
            .await;
        assert_eq!(list.total(), 0);
        assert_eq!(list.ok(), &json!([]));
    }
    let team_list = app.team("feedbacks.list", json!({})).await;
    assert_eq!(team_list.each("id"), [f["id"].as_str().unwrap()]);
    assert_eq!(team_list.ok()[0]["publishedAt"], Value::Null);
    let counted = app
        .team("feedback-boards.info", json!({"id": board["id"]}))
        .await;
    assert_eq!(counted.ok()["feedbackCount"], 1);
    // The team's own items are published at once.
    assert_timestamp(&app.feedback(json!({"title": "Ours"})).await["publishedAt"]);

    let updates = app.events_of("feedbacks.update").await.len();
    let published = app.team("feedbacks.publish", json!({"id": f["id"]})).await;
    assert_timestamp(&published.ok()["publishedAt"]);
    assert_eq!(published.ok()["id"], f["id"]);
    assert_eq!(app.events_of("feedbacks.update").await.len(), updates + 1);
    let seen = public_info(&app, &reader, json!({"feedbackId": f["id"]})).await;
    assert_eq!(seen.ok()["publishedAt"], published.ok()["publishedAt"]);
    let list = app.team("public/feedbacks.list", json!({})).await;
    assert_eq!(list.total(), 2);
    app.team("feedbacks.publish", json!({"id": uuid::Uuid::now_v7()}))
        .await
        .assert_error(404, "Feedback not found");
}

async fn only_the_creator_updates_or_deletes_public_feedback(app: TestApp) {
    let (_, owner) = app.identify("creator@example.com").await;
    let (_, other) = app.identify("other@example.com").await;
    let f = app
        .public_feedback(&owner, json!({"title": "Original", "text": "body"}))
        .await;
    let events = app.events().await.len();
    app.call(
        "public/feedbacks.update",
        Some(&other),
        json!({"feedbackId": f["id"], "title": "Hijacked"}),
    )
    .await
    .assert_error(403, "You do not have permission to update this feedback");
    app.call(
        "public/feedbacks.delete",
        Some(&other),
        json!({"feedbackId": f["id"]}),
    )
    .await
    .assert_error(403, "You do not have permission to delete this feedback");
    let missing = json!({"feedbackId": uuid::Uuid::now_v7(), "title": "X"});
    app.call("public/feedbacks.update", Some(&owner), missing.clone())
        .await
        .assert_error(404, "Feedback not found");
    let missing = json!({"feedbackId": missing["feedbackId"]});
    app.call("public/feedbacks.delete", Some(&owner), missing)
        .await
        .assert_error(404, "Feedback not found");
    assert_eq!(info(&app, &f["id"]).await, f);
    assert_eq!(app.events().await.len(), events);

    // The creator changes what the public may change; status and priority are the team's,
    // so they are unknown parameters here and the whole update is refused.
    let board = app.board(json!({"name": "Better place"})).await;
    let mut body = json!({"feedbackId": f["id"], "text": "edited", "boardId": board["id"],
                          "type": "idea", "meta": {"k": "v"}});
    let mut team_only = body.clone();
    team_only["status"] = json!("completed");
    team_only["priority"] = json!("urgent");
    app.call("public/feedbacks.update", Some(&owner), team_only)
        .await
        .assert_error(400, "Unknown parameter: priority, status");
    assert_eq!(info(&app, &f["id"]).await, f);
    let reply = app
        .call("public/feedbacks.update", Some(&owner), body.take())
        .await;
    let u = reply.ok().clone();
    assert_eq!(
        (&u["title"], &u["text"], &u["type"], &u["meta"]),
        (
            &f["title"],
            &json!("edited"),
            &json!("idea"),
            &json!({"k": "v"})
        )
    );
    assert_eq!(
        (&u["status"], &u["priority"]),
        (&f["status"], &f["priority"])
    );
    assert_eq!(u["boardId"], board["id"]);
    assert_eq!(app.events_of("feedbacks.update").await.len(), 1);
    assert!(app.events_of("feedback_status_change").await.is_empty());

    let deleted = app
        .call(
            "public/feedbacks.delete",
            Some(&owner),
            json!({"feedbackId": f["id"]}),
        )
        .await;
    assert_eq!(
        (deleted.status, &deleted.body),
        (200, &json!({"success": true, "feedbackId": f["id"]}))
    );
    app.team("feedbacks.info", json!({"id": f["id"]}))
        .await
        .assert_error(404, "Feedback not found");
    let gone = &app.events_of("feedbacks.delete").await;
    assert_eq!(gone.len(), 1);
    assert_eq!(gone[0]["feedbackId"], f["id"]);
    app.call(
        "public/feedbacks.delete",
        Some(&owner),
        json!({"feedbackId": f["id"]}),
    )
    .await
    .assert_error(404, "Feedback not found");
}

async fn archive_hides_and_restore_brings_back(app: TestApp) {
    let a = app.feedback(json!({"title": "Stays"})).await;
    let b = app.feedback(json!({"title": "Goes"})).await;
    let archived = app.team("feedbacks.archive", json!({"id": b["id"]})).await;
    assert_timestamp(&archived.ok()["archivedAt"]);
    assert_eq!(
        info(&app, &b["id"]).await["archivedAt"],
        archived.ok()["archivedAt"]
    );
    let ids = |reply: &sounding_tests::Reply| {
        let mut ids: Vec<String> = reply.each("id").into_iter().map(String::from).collect();
        ids.sort();
        ids
    };
    let only_a = vec![a["id"].as_str().unwrap().to_owned()];
    let mut both = vec![only_a[0].clone(), b["id"].as_str().unwrap().to_owned()];
    both.sort();
    let list = app.team("feedbacks.list", json!({})).await;
    assert_eq!((ids(&list), list.total()), (only_a.clone(), 1));
    let with = app.team("feedbacks.list", json!({"archived": true})).await;
    assert_eq!((ids(&with), with.total()), (both.clone(), 2));
    let public = app.team("public/feedbacks.list", json!({})).await;
    assert_eq!(ids(&public), only_a);
    let restored = app.team("feedbacks.restore", json!({"id": b["id"]})).await;
    assert_eq!(restored.ok()["archivedAt"], Value::Null);
    assert_eq!(ids(&app.team("feedbacks.list", json!({})).await), both);
    assert_eq!(app.events_of("feedbacks.update").await.len(), 2);
    app.team("feedbacks.archive", json!({}))
        .await
        .assert_error(400, "id is required");
}
