//! `subscribers.list|info|update|delete` (team administration, issue 6): search, sort and
//! paging; meta merged like identify; deletion erases personal data, refuses the subscriber's
//! token at once and keeps their comments and votes.

use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{engine_tests, TestApp};

engine_tests!(
    list_searches_sorts_and_pages,
    list_refuses_bad_parameters,
    info_returns_the_subscriber_as_identify_does,
    update_merges_meta_and_changes_only_given_fields,
    update_refuses_bad_input_and_changes_nothing,
    deleting_a_subscriber_makes_their_jwt_fail_on_the_very_next_request_while_their_comments_stay_listed,
    a_deleted_subscriber_is_not_found_and_their_email_makes_a_new_subscriber,
    any_role_may_manage_subscribers_and_read_only_keys_only_read,
    another_teams_subscriber_is_not_found,
);

async fn identify(app: &TestApp, body: Value) -> Value {
    app.team("public/subscriber.identify", body)
        .await
        .ok()
        .clone()
}

async fn list_searches_sorts_and_pages(app: TestApp) {
    for (email, name, mmr) in [
        ("zed@acme.io", "Zed", json!(5)),
        ("amy@other.io", "amy 100%_sure", Value::Null),
        ("bob@acme.io", "Bob", json!(50)),
    ] {
        identify(
            &app,
            json!({"email": email, "name": name, "meta": {"mmr": mmr}}),
        )
        .await;
    }
    let names = |reply: &sounding_tests::Reply| -> Vec<String> {
        reply.each("name").into_iter().map(str::to_owned).collect()
    };
    let all = app.team("subscribers.list", json!({})).await;
    assert_eq!(names(&all), ["Bob", "amy 100%_sure", "Zed"], "newest first");
    assert_eq!(
        all.body["pagination"],
        json!({"total": 3, "limit": 20, "offset": 0})
    );
    for (sort, expected) in [
        ("name", ["amy 100%_sure", "Bob", "Zed"]),
        ("email", ["amy 100%_sure", "Bob", "Zed"]),
        ("mmr", ["Bob", "Zed", "amy 100%_sure"]),
        ("createdAt", ["Bob", "amy 100%_sure", "Zed"]),
    ] {
        let reply = app.team("subscribers.list", json!({"sortBy": sort})).await;
        assert_eq!(names(&reply), expected, "sortBy {sort}");
    }
    let acme = app
        .team(
            "subscribers.list",
            json!({"search": "ACME", "sortBy": "name"}),
        )
        .await;
    assert_eq!(names(&acme), ["Bob", "Zed"]);
    let by_name = app.team("subscribers.list", json!({"search": "zE"})).await;
    assert_eq!(names(&by_name), ["Zed"]);
    let literal = app.team("subscribers.list", json!({"search": "%_"})).await;
    assert_eq!(
        names(&literal),
        ["amy 100%_sure"],
        "wildcards match themselves"
    );
    let page = app
        .team(
            "subscribers.list",
            json!({"sortBy": "name", "limit": 1, "offset": 2}),
        )
        .await;
    assert_eq!(names(&page), ["Zed"]);
    assert_eq!(page.total(), 3);
    // The subscriber object is identify's.
    let first = &all.ok()[0];
    let mut keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "avatarUrl",
            "createdAt",
            "email",
            "id",
            "lastUpdated",
            "meta",
            "name",
            "source"
        ]
    );
}

async fn list_refuses_bad_parameters(app: TestApp) {
    for (body, message) in [
        (
            json!({"sortBy": "votes"}),
            "sortBy must be one of createdAt, lastUpdated, name, email, mmr",
        ),
        (json!({"limit": 0}), "limit must be between 1 and 100"),
        (json!({"offset": -1}), "offset must be 0 or more"),
        (json!({"limit": "many"}), "limit must be an integer"),
    ] {
        app.team("subscribers.list", body)
            .await
            .assert_error(400, message);
    }
    let clamped = app.team("subscribers.list", json!({"limit": 1000})).await;
    assert_eq!(clamped.body["pagination"]["limit"], 100);
}

async fn info_returns_the_subscriber_as_identify_does(app: TestApp) {
    let ann = identify(
        &app,
        json!({"email": "ann@example.com", "meta": {"plan": "pro"}}),
    )
    .await;
    let info = app.team("subscribers.info", json!({"id": ann["id"]})).await;
    assert_eq!(info.ok(), &ann);
    app.team("subscribers.info", json!({}))
        .await
        .assert_error(400, "id is required");
    app.team("subscribers.info", json!({"id": "nope"}))
        .await
        .assert_error(400, "id must be a UUID");
    app.team(
        "subscribers.info",
        json!({"id": "00000000-0000-4000-8000-000000000000"}),
    )
    .await
    .assert_error(404, "Subscriber not found");
}

async fn update_merges_meta_and_changes_only_given_fields(app: TestApp) {
    let ann = identify(
        &app,
        json!({"email": "ann@example.com", "name": "Ann", "meta": {"plan": "free", "mmr": 10, "keep": 1}}),
    )
    .await;
    let updated = app
        .team(
            "subscribers.update",
            json!({"id": ann["id"], "meta": {"plan": null, "mmr": 99}}),
        )
        .await;
    let u = updated.ok();
    assert_eq!(u["name"], "Ann", "a name not given is kept");
    assert_eq!(u["meta"], json!({"mmr": 99, "keep": 1}));
    assert_eq!(u["email"], "ann@example.com");
    assert!(u["lastUpdated"].as_str().unwrap() >= ann["lastUpdated"].as_str().unwrap());
    // The typed column moved with meta: mmr sorting sees 99.
    identify(
        &app,
        json!({"email": "bob@example.com", "meta": {"mmr": 50}}),
    )
    .await;
    let by_mmr = app.team("subscribers.list", json!({"sortBy": "mmr"})).await;
    assert_eq!(by_mmr.ok()[0]["id"], ann["id"]);

    let renamed = app
        .team(
            "subscribers.update",
            json!({"id": ann["id"], "name": "Ann Smith"}),
        )
        .await;
    assert_eq!(renamed.ok()["name"], "Ann Smith");
    assert_eq!(renamed.ok()["meta"], json!({"mmr": 99, "keep": 1}));
    let info = app.team("subscribers.info", json!({"id": ann["id"]})).await;
    assert_eq!(info.ok(), renamed.ok());
}

async fn update_refuses_bad_input_and_changes_nothing(app: TestApp) {
    let ann = identify(&app, json!({"email": "ann@example.com", "meta": {"a": 1}})).await;
    for (body, message) in [
        (json!({"name": "X"}), "id is required"),
        (json!({"id": ann["id"], "name": "  "}), "name is required"),
        (
            json!({"id": ann["id"], "name": "x".repeat(256)}),
            "name must be at most 255 characters",
        ),
        (
            json!({"id": ann["id"], "meta": [1]}),
            "meta must be an object",
        ),
    ] {
        let reply = app.team("subscribers.update", body).await;
        assert_eq!(reply.status, 400, "{}", reply.body);
        assert_eq!(reply.body["error"], message);
    }
    let info = app.team("subscribers.info", json!({"id": ann["id"]})).await;
    assert_eq!(info.ok(), &ann);
}

async fn deleting_a_subscriber_makes_their_jwt_fail_on_the_very_next_request_while_their_comments_stay_listed(
    app: TestApp,
) {
    let f = app.feedback(json!({"title": "Dark mode"})).await;
    let (ann, code) = app.identify("ann.lee@example.com").await;
    let (_, other) = app.identify("other@example.com").await;
    app.call(
        "public/feedback-comments.create",
        Some(&code),
        json!({"feedbackId": f["id"], "text": "Please!"}),
    )
    .await
    .ok();
    app.call(
        "public/feedback-votes.create",
        Some(&code),
        json!({"feedbackId": f["id"]}),
    )
    .await
    .ok();
    app.call("public/subscriber.info", Some(&code), json!({}))
        .await
        .ok();

    let deleted = app
        .team("subscribers.delete", json!({"id": ann["id"]}))
        .await;
    deleted.assert_body(200, json!({"success": true, "id": ann["id"]}));

    app.call("public/subscriber.info", Some(&code), json!({}))
        .await
        .assert_error(401, "Authentication required");
    app.call(
        "public/feedback-comments.create",
        Some(&code),
        json!({"feedbackId": f["id"], "text": "again"}),
    )
    .await
    .assert_error(401, "Authentication required");

    let listed = app
        .call(
            "public/feedback-comments.list",
            Some(&other),
            json!({"feedbackId": f["id"]}),
        )
        .await;
    let c = &listed.ok()[0];
    assert_eq!(c["text"], "Please!");
    assert_eq!(c["subscriberId"], ann["id"]);
    assert_eq!(
        c["subscriber"],
        json!({"id": ann["id"], "name": "Deleted subscriber", "email": null, "avatarUrl": null})
    );
    let info = app.team("feedbacks.info", json!({"id": f["id"]})).await;
    assert_eq!(info.ok()["feedbackCommentsCount"], 1);
    let votes = app
        .call(
            "public/feedback-votes.info",
            Some(&other),
            json!({"feedbackId": f["id"]}),
        )
        .await;
    assert_eq!(votes.ok()["count"], 1, "their vote still counts");
    // Nor can the team write in their name any more.
    app.team(
        "feedback-comments.create",
        json!({"feedbackId": f["id"], "text": "as Ann", "subscriberId": ann["id"]}),
    )
    .await
    .assert_error(404, "Subscriber not found");
    let stored = app.stored_subscriber(&ann["id"]).await;
    assert_eq!(stored, ("Deleted subscriber".to_owned(), None));
}

async fn a_deleted_subscriber_is_not_found_and_their_email_makes_a_new_subscriber(app: TestApp) {
    let ann = identify(
        &app,
        json!({"email": "ann@example.com", "meta": {"plan": "pro"}, "avatarUrl": "https://img.example.com/a.png"}),
    )
    .await;
    app.team("subscribers.delete", json!({"id": ann["id"]}))
        .await
        .ok();
    for op in ["subscribers.info", "subscribers.delete"] {
        app.team(op, json!({"id": ann["id"]}))
            .await
            .assert_error(404, "Subscriber not found");
    }
    app.team(
        "subscribers.update",
        json!({"id": ann["id"], "name": "Back"}),
    )
    .await
    .assert_error(404, "Subscriber not found");
    assert_eq!(app.team("subscribers.list", json!({})).await.total(), 0);

    let again = app
        .team(
            "public/subscriber.identify",
            json!({"email": "ANN@example.com"}),
        )
        .await;
    assert_eq!(again.body["isFirstSignin"], true);
    let new = again.ok();
    assert_ne!(new["id"], ann["id"]);
    assert_eq!(
        new["meta"],
        json!({}),
        "nothing of the erased subscriber comes back"
    );
    assert_eq!(new["avatarUrl"], Value::Null);
}

async fn any_role_may_manage_subscribers_and_read_only_keys_only_read(app: TestApp) {
    let ann = identify(&app, json!({"email": "ann@example.com"})).await;
    let (member, _) = app.key_with(Role::Member, false).await;
    let updated = app
        .call(
            "subscribers.update",
            Some(&member),
            json!({"id": ann["id"], "name": "By member"}),
        )
        .await;
    assert_eq!(updated.ok()["name"], "By member");

    let (reader, _) = app.key_with(Role::Owner, true).await;
    let listed = app.call("subscribers.list", Some(&reader), json!({})).await;
    assert_eq!(listed.total(), 1);
    app.call("subscribers.info", Some(&reader), json!({"id": ann["id"]}))
        .await
        .ok();
    for (op, body) in [
        ("subscribers.update", json!({"id": ann["id"], "name": "No"})),
        ("subscribers.delete", json!({"id": ann["id"]})),
    ] {
        app.call(op, Some(&reader), body)
            .await
            .assert_error(403, "This API key is read-only");
    }
    let info = app.team("subscribers.info", json!({"id": ann["id"]})).await;
    assert_eq!(info.ok()["name"], "By member");

    let deleted = app
        .call(
            "subscribers.delete",
            Some(&member),
            json!({"id": ann["id"]}),
        )
        .await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
}

async fn another_teams_subscriber_is_not_found(app: TestApp) {
    let ann = identify(&app, json!({"email": "ann@example.com"})).await;
    let (_, other_key) = app.other_team("elsewhere").await;
    for (op, body) in [
        ("subscribers.info", json!({"id": ann["id"]})),
        ("subscribers.update", json!({"id": ann["id"], "name": "X"})),
        ("subscribers.delete", json!({"id": ann["id"]})),
    ] {
        app.call(op, Some(&other_key), body)
            .await
            .assert_error(404, "Subscriber not found");
    }
    let listed = app
        .call("subscribers.list", Some(&other_key), json!({}))
        .await;
    assert_eq!(listed.total(), 0);
    let info = app.team("subscribers.info", json!({"id": ann["id"]})).await;
    assert_eq!(info.ok(), &ann);
}
