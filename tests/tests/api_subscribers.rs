//! `public/subscriber.identify`, `.info` and `.logout` (interface §2 Subscriber, §4).

use serde_json::json;
use sounding_tests::{engine_tests, TestApp};

engine_tests!(
    identify_twice_with_differently_cased_emails_is_one_subscriber,
    identify_derives_a_name_and_returns_every_field,
    a_given_name_and_avatar_are_kept,
    identify_refuses_bad_input_and_stores_nothing,
    subscriber_info_returns_the_caller,
    the_same_email_in_two_teams_is_two_subscribers,
    concurrent_identify_of_a_new_email_creates_one_subscriber,
    an_identify_that_changes_nothing_keeps_last_updated,
);

async fn identify_twice_with_differently_cased_emails_is_one_subscriber(app: TestApp) {
    let first = app
        .team(
            "public/subscriber.identify",
            json!({"email": "Jane.Doe@Example.COM", "meta": {"plan": "free", "a": 1}}),
        )
        .await;
    assert_eq!(first.body["isFirstSignin"], true);
    let id = first.ok()["id"].clone();
    assert_eq!(first.ok()["email"], "jane.doe@example.com");

    let second = app
        .team(
            "public/subscriber.identify",
            json!({"email": "  jane.doe@EXAMPLE.com ", "meta": {"plan": "pro", "mmr": 99}}),
        )
        .await;
    assert_eq!(second.body["isFirstSignin"], false);
    let data = second.ok();
    assert_eq!(data["id"], id);
    assert_eq!(data["meta"], json!({"plan": "pro", "a": 1, "mmr": 99}));
    assert_eq!(data["name"], "Jane Doe");
    assert!(data["lastUpdated"].as_str().unwrap() >= data["createdAt"].as_str().unwrap());

    // Both tokens name the same subscriber.
    for reply in [&first, &second] {
        let code = reply.body["code"].as_str().unwrap();
        let me = app
            .call("public/subscriber.info", Some(code), json!({}))
            .await;
        assert_eq!(me.ok()["id"], id);
    }
}

async fn identify_derives_a_name_and_returns_every_field(app: TestApp) {
    let reply = app
        .team(
            "public/subscriber.identify",
            json!({"email": "bob_the-builder@example.com"}),
        )
        .await;
    let s = reply.ok();
    assert_eq!(s["name"], "Bob The Builder");
    assert_eq!(s["source"], "api");
    assert_eq!(s["meta"], json!({}));
    assert_eq!(s["avatarUrl"], serde_json::Value::Null);
    for field in ["id", "createdAt", "lastUpdated"] {
        assert!(s[field].is_string(), "{field} missing: {s}");
    }
    assert_eq!(
        reply.body["code"].as_str().unwrap().split('.').count(),
        3,
        "code is a JWT"
    );
}

async fn a_given_name_and_avatar_are_kept(app: TestApp) {
    let reply = app
        .team(
            "public/subscriber.identify",
            json!({"email": "ann@example.com", "name": "Ann Smith", "avatarUrl": "https://img.example.com/a.png", "source": "widget"}),
        )
        .await;
    let s = reply.ok();
    assert_eq!(s["name"], "Ann Smith");
    assert_eq!(s["avatarUrl"], "https://img.example.com/a.png");
    assert_eq!(s["source"], "widget");
    // A later identify without a name keeps it.
    let again = app
        .team(
            "public/subscriber.identify",
            json!({"email": "ann@example.com"}),
        )
        .await;
    assert_eq!(again.ok()["name"], "Ann Smith");
}

async fn identify_refuses_bad_input_and_stores_nothing(app: TestApp) {
    app.team("public/subscriber.identify", json!({}))
        .await
        .assert_error(400, "email is required");
    app.team(
        "public/subscriber.identify",
        json!({"email": "not-an-email"}),
    )
    .await
    .assert_error(400, "email must be a valid e-mail address");
    let mut deep = json!(1);
    for _ in 0..9 {
        deep = json!({ "k": deep });
    }
    app.team(
        "public/subscriber.identify",
        json!({"email": "deep@example.com", "meta": deep}),
    )
    .await
    .assert_error(400, "meta must be nested at most 8 levels deep");
    app.team(
        "public/subscriber.identify",
        json!({"email": "big@example.com", "meta": {"k": "x".repeat(17 * 1024)}}),
    )
    .await
    .assert_error(400, "meta must be at most 16 KiB as JSON");
    app.team(
        "public/subscriber.identify",
        json!({"email": "list@example.com", "meta": [1]}),
    )
    .await
    .assert_error(400, "meta must be an object");
    app.team(
        "public/subscriber.identify",
        json!({"email": "src@example.com", "source": "email"}),
    )
    .await
    .assert_error(400, "source must be one of widget, api");
    // None of the refused e-mails became a subscriber.
    let reply = app
        .team(
            "public/subscriber.identify",
            json!({"email": "deep@example.com"}),
        )
        .await;
    assert_eq!(reply.body["isFirstSignin"], true);
}

async fn subscriber_info_returns_the_caller(app: TestApp) {
    let (subscriber, code) = app.identify("info@example.com").await;
    let me = app
        .call("public/subscriber.info", Some(&code), json!({}))
        .await;
    assert_eq!(me.ok(), &subscriber);
}

async fn the_same_email_in_two_teams_is_two_subscribers(app: TestApp) {
    let (_, other_key) = app.other_team("second").await;
    let (ours, _) = app.identify("shared@example.com").await;
    let reply = app
        .call(
            "public/subscriber.identify",
            Some(&other_key),
            json!({"email": "shared@example.com"}),
        )
        .await;
    assert_eq!(reply.body["isFirstSignin"], true);
    assert_ne!(reply.ok()["id"], ours["id"]);
}

async fn concurrent_identify_of_a_new_email_creates_one_subscriber(app: TestApp) {
    let calls = (0..16).map(|i| {
        let app = &app;
        async move {
            app.team(
                "public/subscriber.identify",
                json!({"email": "race@example.com", "meta": {format!("k{i}"): i}}),
            )
            .await
        }
    });
    let replies = futures_util::future::join_all(calls).await;
    let ids: std::collections::HashSet<String> = replies
        .iter()
        .map(|r| r.ok()["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 1);
    let firsts = replies
        .iter()
        .filter(|r| r.body["isFirstSignin"] == true)
        .count();
    assert_eq!(firsts, 1);
    // Every merge landed.
    let last = app
        .team(
            "public/subscriber.identify",
            json!({"email": "race@example.com"}),
        )
        .await;
    assert_eq!(last.ok()["meta"].as_object().unwrap().len(), 16);
}

async fn an_identify_that_changes_nothing_keeps_last_updated(app: TestApp) {
    let body = json!({"email": "kim@example.com", "name": "Kim", "meta": {"plan": "pro"}});
    let first = app.team("public/subscriber.identify", body.clone()).await;
    let first = first.ok().clone();
    // Timestamps have millisecond precision: make sure a write would show.
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;

    let again = app.team("public/subscriber.identify", body).await;
    assert_eq!(again.body["isFirstSignin"], false);
    assert_eq!(again.ok(), &first, "nothing changed, not even lastUpdated");
    assert_eq!(again.body["code"].as_str().unwrap().split('.').count(), 3);

    let renamed = app
        .team(
            "public/subscriber.identify",
            json!({"email": "kim@example.com", "name": "Kim Lee"}),
        )
        .await;
    let renamed = renamed.ok();
    assert_eq!(renamed["name"], "Kim Lee");
    assert!(renamed["lastUpdated"].as_str().unwrap() > first["lastUpdated"].as_str().unwrap());
    assert_eq!(renamed["meta"], json!({"plan": "pro"}));
}
