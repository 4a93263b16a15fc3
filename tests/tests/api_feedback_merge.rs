//! `feedbacks.merge` (owner or admin) and `feedbacks.count`.

use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{engine_tests, TestApp};

engine_tests!(
    merge_with_an_overlapping_voter_counts_them_once,
    merge_moves_comments_and_followers,
    merge_archives_the_source_with_merged_into_in_its_meta,
    merge_emits_feedbacks_update_for_both_with_the_post_merge_objects,
    merge_refusals_are_400_or_404_and_change_nothing,
    a_member_key_is_refused_merge_and_an_admin_key_may,
    count_is_per_status_with_archived_apart,
    count_by_board_and_unknown_boards,
);

async fn vote(app: &TestApp, token: &str, item: &Value) {
    let reply = app
        .call(
            "public/feedback-votes.create",
            Some(token),
            json!({"feedbackId": item["id"]}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
}

async fn comment(app: &TestApp, token: &str, item: &Value, text: &str) {
    let reply = app
        .call(
            "public/feedback-comments.create",
            Some(token),
            json!({"feedbackId": item["id"], "text": text}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
}

async fn merge(app: &TestApp, source: &Value, target: &Value) -> Value {
    let reply = app
        .team(
            "feedbacks.merge",
            json!({"id": source["id"], "targetId": target["id"]}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body
}

/// `(count, hasVoted)` of the item's votes as the subscriber of `token` sees them.
async fn vote_info(app: &TestApp, token: &str, item: &Value) -> (i64, bool) {
    let reply = app
        .call(
            "public/feedback-votes.info",
            Some(token),
            json!({"feedbackId": item["id"]}),
        )
        .await;
    let data = reply.ok();
    (
        data["count"].as_i64().unwrap(),
        data["hasVoted"].as_bool().unwrap(),
    )
}

async fn comment_rows(app: &TestApp, item: &Value) -> i64 {
    app.team(
        "public/feedback-comments.list",
        json!({"feedbackId": item["id"]}),
    )
    .await
    .total()
}

async fn info(app: &TestApp, item: &Value) -> Value {
    app.team_data("feedbacks.info", json!({"id": item["id"]}))
        .await
}

async fn merge_with_an_overlapping_voter_counts_them_once(app: TestApp) {
    let source = app.feedback(json!({"title": "Dark mode"})).await;
    let target = app.feedback(json!({"title": "Night theme"})).await;
    let (_, both) = app.identify("both@example.com").await;
    let (_, source_only) = app.identify("source@example.com").await;
    let (_, target_only) = app.identify("target@example.com").await;
    vote(&app, &both, &source).await;
    vote(&app, &both, &target).await;
    vote(&app, &source_only, &source).await;
    vote(&app, &target_only, &target).await;

    let merged = merge(&app, &source, &target).await;
    assert_eq!(merged["data"]["id"], target["id"]);
    assert_eq!(merged["data"]["feedbackVotesCount"], 3);
    assert_eq!(merged["source"]["feedbackVotesCount"], 0);
    // The stored counts equal the rows each voter sees.
    for token in [&both, &source_only, &target_only] {
        assert_eq!(vote_info(&app, token, &target).await, (3, true));
        assert_eq!(vote_info(&app, token, &source).await, (0, false));
    }
    assert_eq!(info(&app, &target).await["feedbackVotesCount"], 3);
    // The overlapping voter holds one vote: taking it back leaves the two others.
    let retracted = app
        .call(
            "public/feedback-votes.delete",
            Some(&both),
            json!({"feedbackId": target["id"]}),
        )
        .await;
    assert_eq!(retracted.body["totalVotes"], 2);
    assert_eq!(vote_info(&app, &both, &target).await, (2, false));
}

async fn merge_moves_comments_and_followers(app: TestApp) {
    let source = app.feedback(json!({"title": "Dark mode"})).await;
    let target = app.feedback(json!({"title": "Night theme"})).await;
    let (_, jane) = app.identify("jane@example.com").await;
    let (_, joe) = app.identify("joe@example.com").await;
    let (_, ann) = app.identify("ann@example.com").await;
    comment(&app, &jane, &source, "first").await;
    comment(&app, &jane, &source, "second").await;
    comment(&app, &ann, &target, "on target").await;
    let followed = app
        .call(
            "public/feedbacks.subscribe",
            Some(&joe),
            json!({"feedbackId": source["id"]}),
        )
        .await;
    assert_eq!(followed.status, 200);
    let is_subscribed = |token: String| {
        let app = &app;
        let target = &target;
        async move {
            app.call(
                "public/feedbacks.info",
                Some(&token),
                json!({"feedbackId": target["id"]}),
            )
            .await
            .ok()["isSubscribed"]
                .clone()
        }
    };
    assert_eq!(is_subscribed(joe.clone()).await, false);

    let merged = merge(&app, &source, &target).await;
    assert_eq!(merged["data"]["feedbackCommentsCount"], 3);
    assert_eq!(merged["source"]["feedbackCommentsCount"], 0);
    assert_eq!(
        (
            comment_rows(&app, &target).await,
            comment_rows(&app, &source).await
        ),
        (3, 0)
    );
    let texts = app
        .team(
            "public/feedback-comments.list",
            json!({"feedbackId": target["id"]}),
        )
        .await;
    assert_eq!(texts.each("text"), ["first", "second", "on target"]);
    // Commenters and followers of the source now follow the target.
    for token in [jane, joe, ann] {
        assert_eq!(is_subscribed(token).await, true);
    }
    // A later comment on the target counts on top of the moved ones.
    let (_, late) = app.identify("late@example.com").await;
    comment(&app, &late, &target, "later").await;
    assert_eq!(info(&app, &target).await["feedbackCommentsCount"], 4);
}

async fn merge_archives_the_source_with_merged_into_in_its_meta(app: TestApp) {
    let source = app
        .feedback(json!({"title": "Dark mode", "meta": {"origin": "email"}}))
        .await;
    let target = app.feedback(json!({"title": "Night theme"})).await;
    let merged = merge(&app, &source, &target).await;
    let stored = info(&app, &source).await;
    assert_eq!(stored, merged["source"]);
    assert!(stored["archivedAt"].is_string());
    assert_eq!(
        stored["meta"],
        json!({"origin": "email", "mergedIntoFeedbackId": target["id"]})
    );
    assert_eq!(info(&app, &target).await, merged["data"]);
    assert!(merged["data"]["archivedAt"].is_null());
    // Archived: gone from the lists unless asked for.
    let listed = app.team("feedbacks.list", json!({})).await;
    assert_eq!(listed.each("title"), ["Night theme"]);
    let archived = app.team("feedbacks.list", json!({"archived": true})).await;
    assert_eq!(archived.total(), 2);
}

async fn merge_emits_feedbacks_update_for_both_with_the_post_merge_objects(app: TestApp) {
    let source = app.feedback(json!({"title": "Dark mode"})).await;
    let target = app.feedback(json!({"title": "Night theme"})).await;
    let (_, jane) = app.identify("jane@example.com").await;
    vote(&app, &jane, &source).await;
    let before = app.events_of("feedbacks.update").await.len();
    let merged = merge(&app, &source, &target).await;
    let events = app.events_of("feedbacks.update").await;
    assert_eq!(events.len(), before + 2);
    let for_item = |id: &Value| {
        events[before..]
            .iter()
            .find(|e| &e["feedbackId"] == id)
            .cloned()
            .expect("an event for the item")
    };
    let on_target = for_item(&target["id"]);
    assert_eq!(on_target["data"], merged["data"]);
    assert_eq!(on_target["data"]["feedbackVotesCount"], 1);
    assert_eq!(on_target["mergedFeedbackId"], source["id"]);
    let on_source = for_item(&source["id"]);
    assert_eq!(on_source["data"], merged["source"]);
    assert_eq!(on_source["mergedIntoFeedbackId"], target["id"]);
}

async fn merge_refusals_are_400_or_404_and_change_nothing(app: TestApp) {
    let source = app.feedback(json!({"title": "Dark mode"})).await;
    let target = app.feedback(json!({"title": "Night theme"})).await;
    let archived = app.feedback(json!({"title": "Old"})).await;
    app.team_data("feedbacks.archive", json!({"id": archived["id"]}))
        .await;
    let (_, jane) = app.identify("jane@example.com").await;
    vote(&app, &jane, &source).await;
    let (_, other_key) = app.other_team("other").await;
    let foreign = app
        .data_with(&other_key, "feedbacks.create", json!({"title": "Theirs"}))
        .await;
    let events_before = app.events().await.len();
    let missing = uuid::Uuid::new_v4().to_string();

    for (body, status, message) in [
        (
            json!({"id": source["id"], "targetId": source["id"]}),
            400,
            "targetId must differ from id: an item cannot be merged into itself",
        ),
        (
            json!({"id": source["id"], "targetId": archived["id"]}),
            400,
            "targetId names an archived feedback; merge into an active one",
        ),
        (
            json!({"id": archived["id"], "targetId": target["id"]}),
            400,
            "id names an archived feedback; restore it before merging",
        ),
        (json!({"targetId": target["id"]}), 400, "id is required"),
        (json!({"id": source["id"]}), 400, "targetId is required"),
        (
            json!({"id": source["id"], "targetId": "nope"}),
            400,
            "targetId must be a UUID",
        ),
        (
            json!({"id": source["id"], "targetId": missing}),
            404,
            "Feedback not found",
        ),
        (
            json!({"id": missing, "targetId": target["id"]}),
            404,
            "Feedback not found",
        ),
        (
            json!({"id": source["id"], "targetId": foreign["id"]}),
            404,
            "Feedback not found",
        ),
    ] {
        app.team("feedbacks.merge", body)
            .await
            .assert_error(status, message);
    }
    let unchanged = info(&app, &source).await;
    assert!(unchanged["archivedAt"].is_null());
    assert_eq!(unchanged["feedbackVotesCount"], 1);
    assert_eq!(vote_info(&app, &jane, &source).await, (1, true));
    assert_eq!(app.events().await.len(), events_before, "no events");
}

async fn a_member_key_is_refused_merge_and_an_admin_key_may(app: TestApp) {
    let source = app.feedback(json!({"title": "Dark mode"})).await;
    let target = app.feedback(json!({"title": "Night theme"})).await;
    let body = json!({"id": source["id"], "targetId": target["id"]});
    let (member, _) = app.key_with(Role::Member, false).await;
    app.call("feedbacks.merge", Some(&member), body.clone())
        .await
        .assert_error(403, "The member role cannot manage feedback merges");
    let (read_only, _) = app.key_with(Role::Owner, true).await;
    app.call("feedbacks.merge", Some(&read_only), body.clone())
        .await
        .assert_error(403, "This API key is read-only");
    assert!(info(&app, &source).await["archivedAt"].is_null());
    let (admin, _) = app.key_with(Role::Admin, false).await;
    let merged = app.call("feedbacks.merge", Some(&admin), body).await;
    assert_eq!(merged.status, 200, "{}", merged.body);
    assert!(merged.body["source"]["archivedAt"].is_string());
}

async fn counts(app: &TestApp, key: Option<&str>, body: Value) -> Value {
    let key = key.map(str::to_owned).unwrap_or_else(|| app.key.clone());
    app.data_with(&key, "feedbacks.count", body).await
}

async fn count_is_per_status_with_archived_apart(app: TestApp) {
    let zero = counts(&app, None, json!({})).await;
    assert_eq!(
        zero,
        json!({"in_review": 0, "in_progress": 0, "planned": 0, "completed": 0, "closed": 0,
               "archived": 0, "total": 0, "all": 0})
    );
    for status in [
        "in_review",
        "in_review",
        "planned",
        "planned",
        "closed",
        "completed",
    ] {
        app.feedback(json!({"title": status, "status": status}))
            .await;
    }
    let archived_review = app.feedback(json!({"title": "old"})).await;
    app.team_data("feedbacks.archive", json!({"id": archived_review["id"]}))
        .await;
    let source = app
        .feedback(json!({"title": "dup", "status": "planned"}))
        .await;
    let target = app
        .feedback(json!({"title": "kept", "status": "in_progress"}))
        .await;
    merge(&app, &source, &target).await;

    let (read_only, _) = app.key_with(Role::Member, true).await;
    let counted = counts(&app, Some(&read_only), json!({})).await;
    assert_eq!(
        counted,
        json!({"in_review": 2, "in_progress": 1, "planned": 2, "completed": 1, "closed": 1,
               "archived": 2, "total": 9, "all": 9})
    );
    // The list agrees with the count.
    let listed = app
        .team("feedbacks.list", json!({"status": "planned"}))
        .await
        .total();
    assert_eq!(listed, counted["planned"].as_i64().unwrap());
}

async fn count_by_board_and_unknown_boards(app: TestApp) {
    let board = app.board(json!({"name": "Bugs"})).await;
    app.feedback(json!({"title": "On board", "boardId": board["id"], "status": "closed"}))
        .await;
    app.feedback(json!({"title": "Elsewhere", "status": "closed"}))
        .await;
    let on_board = counts(&app, None, json!({"boardId": board["id"]})).await;
    assert_eq!(
        (&on_board["closed"], &on_board["total"]),
        (&json!(1), &json!(1))
    );
    let all = counts(&app, None, json!({})).await;
    assert_eq!((&all["closed"], &all["total"]), (&json!(2), &json!(2)));

    app.team(
        "feedbacks.count",
        json!({"boardId": uuid::Uuid::new_v4().to_string()}),
    )
    .await
    .assert_error(404, "Board not found");
    let (_, other_key) = app.other_team("other").await;
    let theirs = app
        .data_with(
            &other_key,
            "feedback-boards.create",
            json!({"name": "Theirs"}),
        )
        .await;
    app.team("feedbacks.count", json!({"boardId": theirs["id"]}))
        .await
        .assert_error(404, "Board not found");
    app.team("feedbacks.count", json!({"boardId": "x"}))
        .await
        .assert_error(400, "boardId must be a UUID");
}
