//! What a 2xx promises under concurrency (issue 17): concurrent updates of one row keep every
//! acknowledged change; one real change is announced once, however many requests asked for
//! it; a request that changes nothing announces nothing; and the undo operations answer what
//! the caller may not see exactly like what does not exist.

use futures_util::future::join_all;
use serde_json::{json, Value};
use sounding_tests::{engine_tests, harness::OWNER_EMAIL, Reply, TestApp};

engine_tests!(
    concurrent_feedback_updates_keep_every_acknowledged_change,
    publish_and_archive_racing_an_edit_are_kept,
    concurrent_board_topic_tag_and_team_updates_keep_every_change,
    identical_concurrent_changes_are_announced_once,
    an_update_that_changes_nothing_announces_nothing,
    undo_operations_on_what_the_caller_may_not_see_are_404_and_change_nothing,
);

/// Sends every request at once; asserts each answered 200.
async fn all_at_once(app: &TestApp, requests: Vec<(&str, Option<String>, Value)>) {
    let replies: Vec<Reply> = join_all(
        requests
            .iter()
            .map(|(op, token, body)| app.call(op, token.as_deref(), body.clone())),
    )
    .await;
    for (reply, (op, _, body)) in replies.iter().zip(&requests) {
        assert_eq!(reply.status, 200, "{op} {body}: {:?}", reply.body);
    }
}

fn key(app: &TestApp) -> Option<String> {
    Some(app.key.clone())
}

async fn concurrent_feedback_updates_keep_every_acknowledged_change(app: TestApp) {
    let (_, creator) = app.identify("creator@example.com").await;
    let board = app.board(json!({"name": "Ideas"})).await;
    for round in 0..3 {
        let item = app
            .public_feedback(
                &creator,
                json!({"title": format!("Item {round}"), "boardId": board["id"]}),
            )
            .await;
        let id = item["id"].clone();
        let mut requests = vec![
            (
                "feedbacks.update",
                key(&app),
                json!({"id": id, "status": "planned"}),
            ),
            (
                "public/feedbacks.update",
                Some(creator.clone()),
                json!({"feedbackId": id, "title": "New title"}),
            ),
            (
                "public/feedbacks.update",
                Some(creator.clone()),
                json!({"feedbackId": id, "text": "New text"}),
            ),
        ];
        for i in 0..12 {
            requests.push((
                "feedbacks.update",
                key(&app),
                json!({"id": id, "meta": {format!("k{i}"): i}}),
            ));
        }
        all_at_once(&app, requests).await;
        let stored = app.team_data("feedbacks.info", json!({"id": id})).await;
        assert_eq!(
            (&stored["status"], &stored["title"], &stored["text"]),
            (&json!("planned"), &json!("New title"), &json!("New text")),
            "round {round}: {stored}"
        );
        for i in 0..12 {
            assert_eq!(
                stored["meta"][format!("k{i}")],
                i,
                "round {round}: meta k{i}"
            );
        }
    }
}

async fn publish_and_archive_racing_an_edit_are_kept(app: TestApp) {
    let (_, creator) = app.identify("creator@example.com").await;
    let moderated = app
        .board(json!({"name": "Moderated", "meta": {"requireModeration": true}}))
        .await;
    for round in 0..3 {
        let waiting = app
            .public_feedback(
                &creator,
                json!({"title": format!("Waiting {round}"), "boardId": moderated["id"]}),
            )
            .await;
        let active = app
            .feedback(json!({"title": format!("Active {round}")}))
            .await;
        all_at_once(
            &app,
            vec![
                ("feedbacks.publish", key(&app), json!({"id": waiting["id"]})),
                (
                    "feedbacks.update",
                    key(&app),
                    json!({"id": waiting["id"], "title": "Edited while waiting"}),
                ),
                ("feedbacks.archive", key(&app), json!({"id": active["id"]})),
                (
                    "feedbacks.update",
                    key(&app),
                    json!({"id": active["id"], "priority": "high"}),
                ),
            ],
        )
        .await;
        let published = app
            .team_data("feedbacks.info", json!({"id": waiting["id"]}))
            .await;
        assert!(
            published["publishedAt"].is_string(),
            "round {round}: {published}"
        );
        assert_eq!(published["title"], "Edited while waiting");
        let archived = app
            .team_data("feedbacks.info", json!({"id": active["id"]}))
            .await;
        assert!(
            archived["archivedAt"].is_string(),
            "round {round}: {archived}"
        );
        assert_eq!(archived["priority"], "high");
    }
}

async fn concurrent_board_topic_tag_and_team_updates_keep_every_change(app: TestApp) {
    let board = app.board(json!({"name": "Ideas"})).await;
    let tag = app
        .team_data("tags.create", json!({"name": "Bug", "color": "#112233"}))
        .await;
    let roadmap = app.roadmap("Plans").await;
    let later = app.stage(&roadmap, json!({"name": "Later"})).await;
    let (_, creator) = app.identify("creator@example.com").await;
    let topic = app.topic(&creator, &later, json!({"title": "Topic"})).await;
    all_at_once(
        &app,
        vec![
            (
                "feedback-boards.update",
                key(&app),
                json!({"id": board["id"], "meta": {"isPublic": false}}),
            ),
            (
                "feedback-boards.update",
                key(&app),
                json!({"id": board["id"], "name": "Renamed"}),
            ),
            (
                "feedback-boards.update",
                key(&app),
                json!({"id": board["id"], "description": "Described"}),
            ),
            (
                "tags.update",
                key(&app),
                json!({"id": tag["id"], "name": "Defect"}),
            ),
            (
                "tags.update",
                key(&app),
                json!({"id": tag["id"], "color": "#445566"}),
            ),
            (
                "topics.update",
                key(&app),
                json!({"id": topic["id"], "title": "New title"}),
            ),
            (
                "topics.update",
                key(&app),
                json!({"id": topic["id"], "text": "New text"}),
            ),
            (
                "topics.update",
                key(&app),
                json!({"id": topic["id"], "meta": {"ctaTitle": "Try it"}}),
            ),
            (
                "roadmaps.update",
                key(&app),
                json!({"id": roadmap["id"], "name": "Renamed"}),
            ),
            (
                "roadmaps.update",
                key(&app),
                json!({"id": roadmap["id"], "description": "Described"}),
            ),
            (
                "stages.update",
                key(&app),
                json!({"id": later["id"], "name": "Someday"}),
            ),
            (
                "stages.update",
                key(&app),
                json!({"id": later["id"], "meta": {"color": "#abcdef"}}),
            ),
            ("teams.update", key(&app), json!({"name": "Renamed"})),
            (
                "teams.update",
                key(&app),
                json!({"publicBoardModeration": true}),
            ),
        ],
    )
    .await;
    let stored = app
        .team_data("feedback-boards.info", json!({"id": board["id"]}))
        .await;
    assert_eq!(
        (
            &stored["name"],
            &stored["description"],
            &stored["meta"]["isPublic"]
        ),
        (&json!("Renamed"), &json!("Described"), &json!(false)),
        "{stored}"
    );
    let tags = app.team_data("tags.list", json!({})).await;
    assert_eq!(
        (&tags[0]["name"], &tags[0]["color"]),
        (&json!("Defect"), &json!("#445566"))
    );
    let stored = app
        .call(
            "public/topics.info",
            Some(&creator),
            json!({"id": topic["id"]}),
        )
        .await;
    let stored = stored.ok();
    assert_eq!(
        (
            &stored["title"],
            &stored["text"],
            &stored["meta"]["ctaTitle"]
        ),
        (&json!("New title"), &json!("New text"), &json!("Try it")),
        "{stored}"
    );
    let stored = app
        .team_data("roadmaps.info", json!({"id": roadmap["id"]}))
        .await;
    assert_eq!(
        (&stored["name"], &stored["description"]),
        (&json!("Renamed"), &json!("Described"))
    );
    let stored = app
        .call(
            "public/stages.info",
            Some(&creator),
            json!({"stageId": later["id"]}),
        )
        .await;
    let stored = stored.ok();
    assert_eq!(
        (&stored["name"], &stored["meta"]["color"]),
        (&json!("Someday"), &json!("#ABCDEF")),
        "{stored}"
    );
    let team = app.team_data("teams.info", json!({})).await;
    assert_eq!(
        (&team["name"], &team["publicBoardModeration"]),
        (&json!("Renamed"), &json!(true)),
        "{team}"
    );
}

async fn identical_concurrent_changes_are_announced_once(app: TestApp) {
    let (_, creator) = app.identify("creator@example.com").await;
    let board = app.board(json!({"name": "Ideas"})).await;
    let item = app
        .public_feedback(&creator, json!({"title": "Export", "boardId": board["id"]}))
        .await;
    let moderated = app
        .board(json!({"name": "Moderated", "meta": {"requireModeration": true}}))
        .await;
    let waiting = app
        .public_feedback(
            &creator,
            json!({"title": "Waiting", "boardId": moderated["id"]}),
        )
        .await;
    let before = app.events().await.len();
    let mut requests = Vec::new();
    for _ in 0..8 {
        requests.push((
            "feedbacks.update",
            key(&app),
            json!({"id": item["id"], "status": "completed"}),
        ));
        requests.push(("feedbacks.publish", key(&app), json!({"id": waiting["id"]})));
    }
    all_at_once(&app, requests).await;
    let kinds: Vec<String> = app.event_kinds().await.split_off(before);
    let count = |kind: &str| kinds.iter().filter(|k| *k == kind).count();
    assert_eq!(count("feedback_status_change"), 1, "{kinds:?}");
    // One for the status change, one for the approval.
    assert_eq!(count("feedbacks.update"), 2, "{kinds:?}");
    let notes = app
        .call("public/notifications.list", Some(&creator), json!({}))
        .await;
    assert_eq!(
        notes.total(),
        1,
        "the follower is told once: {:?}",
        notes.ok()
    );
}

async fn an_update_that_changes_nothing_announces_nothing(app: TestApp) {
    let item = app
        .feedback(json!({"title": "Same", "status": "planned", "meta": {"a": 1}}))
        .await;
    let before = app.events().await.len();
    let same = app
        .team_data(
            "feedbacks.update",
            json!({"id": item["id"], "title": "Same", "status": "planned", "meta": {"a": 1}}),
        )
        .await;
    assert_eq!(same["updatedAt"], item["updatedAt"], "updatedAt stays");
    for op in ["feedbacks.publish", "feedbacks.restore"] {
        app.team_data(op, json!({"id": item["id"]})).await;
    }
    let board = app.board(json!({"name": "Ideas"})).await;
    let same = app
        .team_data(
            "feedback-boards.update",
            json!({"id": board["id"], "name": "Ideas"}),
        )
        .await;
    assert_eq!(same["updatedAt"], board["updatedAt"]);
    assert_eq!(app.events().await.len(), before, "no events");
}

async fn undo_operations_on_what_the_caller_may_not_see_are_404_and_change_nothing(app: TestApp) {
    let (_, insider) = app.identify(OWNER_EMAIL).await;
    let (_, outsider) = app.identify("outsider@example.com").await;
    let private = app
        .board(json!({"name": "Private", "meta": {"isPublic": false}}))
        .await;
    let hidden = app
        .feedback(json!({"title": "Internal", "boardId": private["id"]}))
        .await;
    let voted = app
        .call(
            "public/feedback-votes.create",
            Some(&insider),
            json!({"feedbackId": hidden["id"]}),
        )
        .await;
    voted.ok();
    let moderated = app
        .board(json!({"name": "Moderated", "meta": {"requireModeration": true}}))
        .await;
    let waiting = app
        .public_feedback(
            &outsider,
            json!({"title": "Waiting", "boardId": moderated["id"]}),
        )
        .await;
    for item in [&hidden, &waiting] {
        for op in [
            "public/feedback-votes.delete",
            "public/feedbacks.unsubscribe",
        ] {
            app.call(op, Some(&outsider), json!({"feedbackId": item["id"]}))
                .await
                .assert_error(404, "Feedback not found");
        }
    }
    let stored = app
        .team_data("feedbacks.info", json!({"id": hidden["id"]}))
        .await;
    assert_eq!(stored["feedbackVotesCount"], 1, "the member's vote stays");

    let roadmap = app.roadmap("Plans").await;
    let open = app.stage(&roadmap, json!({"name": "Open"})).await;
    let secret = app
        .stage(
            &roadmap,
            json!({"name": "Secret", "meta": {"isPrivate": true}}),
        )
        .await;
    let topic = app.topic(&insider, &open, json!({"title": "Topic"})).await;
    app.call(
        "public/topic-votes.create",
        Some(&insider),
        json!({"id": topic["id"]}),
    )
    .await
    .ok();
    app.team_data(
        "topics.update",
        json!({"id": topic["id"], "stageId": secret["id"]}),
    )
    .await;
    let followers = app.topic_followers(&topic["id"]).await;
    for op in ["public/topic-votes.delete", "public/topics.unsubscribe"] {
        let reply = app
            .call(op, Some(&outsider), json!({"id": topic["id"]}))
            .await;
        assert_eq!(reply.status, 404, "{op}: {:?}", reply.body);
        let missing = app
            .call(op, Some(&outsider), json!({"id": uuid_like()}))
            .await;
        assert_eq!(
            (reply.status, &reply.body),
            (missing.status, &missing.body),
            "{op} answers like a topic that does not exist"
        );
    }
    assert_eq!(app.topic_followers(&topic["id"]).await, followers);
    let count = app
        .call(
            "public/topic-votes.info",
            Some(&insider),
            json!({"id": topic["id"]}),
        )
        .await;
    assert_eq!(count.ok()["count"], 1, "the member's vote stays");
}

/// A topic id nobody has.
fn uuid_like() -> String {
    "0190c0de-0000-7000-8000-000000000000".into()
}
