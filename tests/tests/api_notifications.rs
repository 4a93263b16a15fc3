//! Notifications (`public/notifications.list|markRead`): who is told of a public comment, a
//! feedback status change and a topic's stage move on what they follow, and who is not (the
//! actor; anyone for a private comment); reading and marking them read.

use serde_json::{json, Value};
use sounding_tests::{engine_tests, Reply, TestApp};

engine_tests!(
    a_follower_is_notified_of_a_status_change_and_nobody_else,
    the_commenter_is_not_notified_other_followers_are_and_private_comments_notify_nobody,
    topic_followers_hear_of_comments_and_stage_moves,
    unread_only_and_mark_read_by_ids_and_all,
    another_subscribers_ids_are_ignored_and_left_unread,
    a_subscriber_token_is_required_and_bad_input_is_400,
);

async fn list(app: &TestApp, token: &str, body: Value) -> Reply {
    app.call("public/notifications.list", Some(token), body)
        .await
}

/// The caller's notifications (newest first), asserting a 200.
async fn notes(app: &TestApp, token: &str) -> Vec<Value> {
    list(app, token, json!({"limit": 100}))
        .await
        .ok()
        .as_array()
        .expect("a list")
        .clone()
}

async fn mark(app: &TestApp, token: &str, body: Value) -> Reply {
    app.call("public/notifications.markRead", Some(token), body)
        .await
}

async fn follow(app: &TestApp, token: &str, f: &Value) {
    app.call(
        "public/feedbacks.subscribe",
        Some(token),
        json!({"feedbackId": f["id"]}),
    )
    .await
    .ok();
}

async fn comment(app: &TestApp, token: &str, f: &Value, text: &str) -> Value {
    app.call(
        "public/feedback-comments.create",
        Some(token),
        json!({"feedbackId": f["id"], "text": text}),
    )
    .await
    .ok()
    .clone()
}

async fn a_follower_is_notified_of_a_status_change_and_nobody_else(app: TestApp) {
    let (_, ann) = app.identify("ann.lee@example.com").await;
    let (_, bob) = app.identify("bob.ray@example.com").await;
    let (_, carl) = app.identify("carl.fox@example.com").await;
    let f = app
        .public_feedback(&ann, json!({"title": "Dark mode"}))
        .await;
    follow(&app, &bob, &f).await;

    app.team_data(
        "feedbacks.update",
        json!({"id": f["id"], "status": "planned"}),
    )
    .await;
    for token in [&ann, &bob] {
        let got = notes(&app, token).await;
        assert_eq!(got.len(), 1, "{got:?}");
        let n = &got[0];
        assert_eq!(n["kind"], "status_change");
        assert_eq!(n["feedbackId"], f["id"]);
        assert_eq!(n["topicId"], Value::Null);
        assert_eq!(n["commentId"], Value::Null);
        assert_eq!(n["title"], "Dark mode");
        assert_eq!(n["status"], "planned");
        assert_eq!(n["previousStatus"], "in_review");
        // The team acted: nobody in particular.
        assert_eq!(n["actor"], Value::Null);
        assert_eq!(n["readAt"], Value::Null);
        sounding_tests::client::assert_timestamp(&n["createdAt"]);
    }
    assert!(notes(&app, &carl).await.is_empty(), "not a follower");

    // No real change of status, no notification; an unfollowed item tells no more.
    app.team_data(
        "feedbacks.update",
        json!({"id": f["id"], "status": "planned", "title": "Dark mode, please"}),
    )
    .await;
    app.call(
        "public/feedbacks.unsubscribe",
        Some(&bob),
        json!({"feedbackId": f["id"]}),
    )
    .await
    .ok();
    app.team_data(
        "feedbacks.update",
        json!({"id": f["id"], "status": "completed"}),
    )
    .await;
    let ann_notes = notes(&app, &ann).await;
    assert_eq!(ann_notes.len(), 2);
    assert_eq!(ann_notes[0]["status"], "completed");
    assert_eq!(ann_notes[0]["previousStatus"], "planned");
    assert_eq!(ann_notes[0]["title"], "Dark mode, please");
    assert_eq!(notes(&app, &bob).await.len(), 1);
}

async fn the_commenter_is_not_notified_other_followers_are_and_private_comments_notify_nobody(
    app: TestApp,
) {
    let (_, ann) = app.identify("ann.lee@example.com").await;
    let (bob_sub, bob) = app.identify("bob.ray@example.com").await;
    let f = app.public_feedback(&ann, json!({"title": "Export"})).await;

    // Bob comments: he follows from then on, and is not told of his own comment.
    let c = comment(&app, &bob, &f, "Yes please").await;
    let ann_notes = notes(&app, &ann).await;
    assert_eq!(ann_notes.len(), 1);
    assert_eq!(ann_notes[0]["kind"], "comment");
    assert_eq!(ann_notes[0]["commentId"], c["id"]);
    assert_eq!(ann_notes[0]["feedbackId"], f["id"]);
    assert_eq!(
        ann_notes[0]["actor"],
        json!({"id": bob_sub["id"], "name": bob_sub["name"]})
    );
    assert!(ann_notes[0].get("status").is_none());
    assert!(notes(&app, &bob).await.is_empty());

    comment(&app, &ann, &f, "Thanks").await;
    assert_eq!(notes(&app, &bob).await.len(), 1);
    assert_eq!(notes(&app, &ann).await.len(), 1);

    // A private comment by the team tells nobody.
    app.team_data(
        "feedback-comments.create",
        json!({"feedbackId": f["id"], "text": "internal", "type": "private"}),
    )
    .await;
    assert_eq!(notes(&app, &ann).await.len(), 1);
    assert_eq!(notes(&app, &bob).await.len(), 1);

    // A public team comment for a new subscriber tells both followers.
    let c = app
        .team_data(
            "feedback-comments.create",
            json!({"feedbackId": f["id"], "text": "On it", "email": "carl.fox@example.com"}),
        )
        .await;
    for token in [&ann, &bob] {
        let got = notes(&app, token).await;
        assert_eq!(got.len(), 2);
        assert_eq!(got[0]["commentId"], c["id"]);
        assert_eq!(got[0]["actor"]["id"], c["subscriberId"]);
    }
}

async fn topic_followers_hear_of_comments_and_stage_moves(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    let later = app.stage(&roadmap, json!({"name": "Later"})).await;
    let now = app.stage(&roadmap, json!({"name": "Now"})).await;
    let (_, ann) = app.identify("ann.lee@example.com").await;
    let (bob_sub, bob) = app.identify("bob.ray@example.com").await;
    let topic = app.topic(&ann, &later, json!({"title": "Offline"})).await;
    app.call(
        "public/topics.subscribe",
        Some(&bob),
        json!({"id": topic["id"]}),
    )
    .await
    .ok();

    let c = app
        .data_with(
            &bob,
            "public/topic-comments.create",
            json!({"id": topic["id"], "text": "Needed on the train"}),
        )
        .await;
    let got = notes(&app, &ann).await;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["kind"], "comment");
    assert_eq!(got[0]["topicId"], topic["id"]);
    assert_eq!(got[0]["feedbackId"], Value::Null);
    assert_eq!(got[0]["commentId"], c["id"]);
    assert_eq!(got[0]["actor"]["id"], bob_sub["id"]);
    assert!(notes(&app, &bob).await.is_empty());

    // Staying on its stage is no move; going to another is.
    app.team_data(
        "topics.update",
        json!({"id": topic["id"], "stageId": later["id"]}),
    )
    .await;
    assert_eq!(notes(&app, &bob).await.len(), 0);
    app.team_data(
        "topics.update",
        json!({"id": topic["id"], "stageId": now["id"]}),
    )
    .await;
    for token in [&ann, &bob] {
        let got = notes(&app, token).await;
        let n = &got[0];
        assert_eq!(n["kind"], "stage_change", "{got:?}");
        assert_eq!(n["topicId"], topic["id"]);
        assert_eq!(n["title"], "Offline");
        assert_eq!(n["status"], "Now");
        assert_eq!(n["previousStatus"], "Later");
        assert_eq!(n["actor"], Value::Null);
    }
}

/// Three status changes on ann's item: three notifications for her.
async fn three_for_ann(app: &TestApp) -> String {
    let (_, ann) = app.identify("ann.lee@example.com").await;
    let f = app.public_feedback(&ann, json!({"title": "Sync"})).await;
    for status in ["planned", "in_progress", "completed"] {
        app.team_data("feedbacks.update", json!({"id": f["id"], "status": status}))
            .await;
    }
    ann
}

async fn unread_only_and_mark_read_by_ids_and_all(app: TestApp) {
    let ann = three_for_ann(&app).await;
    let reply = list(&app, &ann, json!({"limit": 2})).await;
    let page = reply.ok().as_array().unwrap().clone();
    assert_eq!(page.len(), 2);
    assert_eq!(page[0]["status"], "completed", "newest first");
    assert_eq!(page[1]["status"], "in_progress");
    assert_eq!(
        reply.body["pagination"],
        json!({"total": 3, "limit": 2, "offset": 0})
    );
    assert_eq!(reply.body["unreadCount"], 3);

    let oldest = notes(&app, &ann).await[2]["id"].clone();
    let reply = mark(&app, &ann, json!({"ids": [oldest]})).await;
    assert_eq!(
        (reply.status, &reply.body),
        (200, &json!({"success": true, "updated": 1}))
    );
    // Marking it again changes nothing.
    let reply = mark(&app, &ann, json!({"ids": [oldest]})).await;
    assert_eq!(reply.body["updated"], 0);

    let reply = list(&app, &ann, json!({"unreadOnly": true})).await;
    let unread = reply.ok().as_array().unwrap().clone();
    assert_eq!(unread.len(), 2);
    assert!(unread
        .iter()
        .all(|n| n["id"] != oldest && n["readAt"].is_null()));
    assert_eq!(reply.body["pagination"]["total"], 2);
    assert_eq!(reply.body["unreadCount"], 2);
    let all = notes(&app, &ann).await;
    assert_eq!(all.len(), 3);
    sounding_tests::client::assert_timestamp(&all[2]["readAt"]);

    let reply = mark(&app, &ann, json!({"all": true})).await;
    assert_eq!(reply.body["updated"], 2);
    let reply = list(&app, &ann, json!({"unreadOnly": "true"})).await;
    assert_eq!(reply.ok().as_array().unwrap().len(), 0);
    assert_eq!(reply.body["unreadCount"], 0);
    assert_eq!(
        mark(&app, &ann, json!({"all": true})).await.body["updated"],
        0
    );
}

async fn another_subscribers_ids_are_ignored_and_left_unread(app: TestApp) {
    let ann = three_for_ann(&app).await;
    let (_, bob) = app.identify("bob.ray@example.com").await;
    let ids: Vec<Value> = notes(&app, &ann)
        .await
        .iter()
        .map(|n| n["id"].clone())
        .collect();
    let reply = mark(&app, &bob, json!({"ids": ids})).await;
    assert_eq!(
        (reply.status, &reply.body),
        (200, &json!({"success": true, "updated": 0}))
    );
    let reply = mark(&app, &bob, json!({"all": true})).await;
    assert_eq!(reply.body["updated"], 0);
    let reply = list(&app, &ann, json!({})).await;
    assert_eq!(reply.body["unreadCount"], 3);
    assert!(reply
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n["readAt"].is_null()));
}

async fn a_subscriber_token_is_required_and_bad_input_is_400(app: TestApp) {
    let ann = three_for_ann(&app).await;
    app.team("public/notifications.list", json!({}))
        .await
        .assert_error(401, "Authentication required");
    app.team("public/notifications.markRead", json!({"all": true}))
        .await
        .assert_error(401, "Authentication required");
    app.call("public/notifications.list", None, json!({}))
        .await
        .assert_error(401, "Authentication required");

    mark(&app, &ann, json!({}))
        .await
        .assert_error(400, "ids or all is required");
    mark(&app, &ann, json!({"all": false}))
        .await
        .assert_error(400, "ids or all is required");
    mark(&app, &ann, json!({"ids": ["not-a-uuid"]}))
        .await
        .assert_error(400, "ids must be a UUID");
    let reply = mark(&app, &ann, json!({"ids": "nope"})).await;
    assert_eq!(reply.status, 400);
    assert!(reply.body["error"].as_str().unwrap().starts_with("ids"));
    let some = notes(&app, &ann).await[0]["id"].clone();
    mark(&app, &ann, json!({"ids": [some], "all": true}))
        .await
        .assert_error(400, "give ids or all, not both");
    list(&app, &ann, json!({"limit": 0}))
        .await
        .assert_error(400, "limit must be between 1 and 100");
    // Nothing was marked by the refused calls.
    assert_eq!(list(&app, &ann, json!({})).await.body["unreadCount"], 3);
    // Limits clamp.
    let reply = list(&app, &ann, json!({"limit": 1000})).await;
    assert_eq!(reply.body["pagination"]["limit"], 100);
}
