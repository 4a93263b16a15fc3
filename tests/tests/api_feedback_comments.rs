//! Comments on feedback (`public/feedback-comments.create|list`, team
//! `feedback-comments.create`, the team's moderation `feedback-comments.list|update|delete`),
//! following an item (`public/feedbacks.subscribe|unsubscribe`),
//! what deleting an item takes with it, its board's count, and what another team sees of it
//! (interface §2, §4; decisions §4, §5, §6).

use std::collections::BTreeSet;

use serde_json::{json, Value};
use sounding_tests::{engine_tests, harness::OWNER_EMAIL, Reply, TestApp};

engine_tests!(
    a_public_comment_is_returned_whole_and_counted,
    comment_text_is_checked_and_failures_store_nothing,
    private_comments_are_for_team_members,
    team_comments_name_their_author,
    comment_lists_sort_and_page,
    deleting_feedback_removes_its_comments_and_votes,
    board_counts_feedback_and_refuses_to_delete_while_not_empty,
    creators_and_commenters_follow_and_subscribe_toggles,
    another_teams_feedback_is_invisible,
    the_team_lists_the_comments_of_any_of_its_items,
    the_team_edits_a_comment_and_updated_at_moves_only_on_a_change,
    the_team_deletes_a_comment_and_its_count_follows_silently,
    a_remembered_comment_page_is_for_its_own_audience_and_follows_every_write,
);

async fn comment(app: &TestApp, token: &str, body: Value) -> Reply {
    app.call("public/feedback-comments.create", Some(token), body)
        .await
}

async fn comments(app: &TestApp, token: &str, body: Value) -> Reply {
    app.call("public/feedback-comments.list", Some(token), body)
        .await
}

async fn info(app: &TestApp, f: &Value) -> Value {
    app.team("feedbacks.info", json!({"id": f["id"]}))
        .await
        .ok()
        .clone()
}

async fn is_subscribed(app: &TestApp, token: &str, f: &Value) -> Value {
    let reply = app
        .call(
            "public/feedbacks.info",
            Some(token),
            json!({"feedbackId": f["id"]}),
        )
        .await;
    reply.ok()["isSubscribed"].clone()
}

async fn a_public_comment_is_returned_whole_and_counted(app: TestApp) {
    let f = app.feedback(json!({"title": "Talk about it"})).await;
    let (ann, code) = app.identify("ann.lee@example.com").await;
    let reply = comment(
        &app,
        &code,
        json!({"feedbackId": f["id"], "text": "Me too!"}),
    )
    .await;
    let c = reply.ok().clone();
    let keys: BTreeSet<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        BTreeSet::from([
            "id",
            "text",
            "feedbackId",
            "subscriberId",
            "subscriber",
            "isPrivate",
            "createdAt",
            "updatedAt"
        ])
    );
    assert_eq!(c["text"], "Me too!");
    assert_eq!(c["feedbackId"], f["id"]);
    assert_eq!(c["subscriberId"], ann["id"]);
    assert_eq!(
        c["subscriber"],
        json!({"id": ann["id"], "name": "Ann Lee", "email": "ann.lee@example.com", "avatarUrl": null})
    );
    assert_eq!(c["isPrivate"], false);
    sounding_tests::client::assert_timestamp(&c["createdAt"]);
    sounding_tests::client::assert_timestamp(&c["updatedAt"]);
    assert_eq!(info(&app, &f).await["feedbackCommentsCount"], 1);
    let listed = comments(&app, &app.key, json!({"feedbackId": f["id"]})).await;
    assert_eq!(listed.ok(), &json!([c]));
    assert_eq!(
        listed.body["pagination"],
        json!({"total": 1, "limit": 20, "offset": 0})
    );
    let events = app.events_of("feedback-comments.create").await;
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(
        (&e["commentId"], &e["feedbackId"], &e["subscriberId"]),
        (&c["id"], &f["id"], &ann["id"])
    );
    assert_eq!(
        (&e["event"], &e["teamId"]),
        (&json!("feedback-comments.create"), &json!(app.team_id))
    );
    assert_eq!(e["data"], c);
}

async fn comment_text_is_checked_and_failures_store_nothing(app: TestApp) {
    let f = app.feedback(json!({"title": "Picky"})).await;
    let (_, code) = app.identify("picky@example.com").await;
    let events = app.events().await.len();
    for text in [json!(null), json!(""), json!(" \n\t ")] {
        let mut body = json!({"feedbackId": f["id"]});
        if !text.is_null() {
            body["text"] = text;
        }
        comment(&app, &code, body)
            .await
            .assert_error(400, "text is required");
    }
    comment(
        &app,
        &code,
        json!({"feedbackId": f["id"], "text": "x".repeat(10_001)}),
    )
    .await
    .assert_error(400, "text must be at most 10000 characters");
    comment(&app, &code, json!({"text": "orphan"}))
        .await
        .assert_error(400, "feedbackId is required");
    comment(
        &app,
        &code,
        json!({"feedbackId": uuid::Uuid::now_v7(), "text": "lost"}),
    )
    .await
    .assert_error(404, "Feedback not found");
    comment(
        &app,
        &app.key,
        json!({"feedbackId": f["id"], "text": "by key"}),
    )
    .await
    .assert_error(401, "Authentication required");
    app.team(
        "feedback-comments.create",
        json!({"feedbackId": f["id"], "text": "  "}),
    )
    .await
    .assert_error(400, "text is required");
    assert_eq!(app.events().await.len(), events);
    assert_eq!(info(&app, &f).await["feedbackCommentsCount"], 0);
    assert_eq!(
        comments(&app, &app.key, json!({"feedbackId": f["id"]}))
            .await
            .total(),
        0
    );
    // The limit counts characters after trimming, not bytes.
    let long = "é".repeat(10_000);
    let ok = comment(
        &app,
        &code,
        json!({"feedbackId": f["id"], "text": format!("  {long}\n")}),
    )
    .await;
    assert_eq!(ok.ok()["text"].as_str().unwrap().trim(), long);
    assert_eq!(info(&app, &f).await["feedbackCommentsCount"], 1);
    // Listing checks its parameters.
    for (body, message) in [
        (json!({}), "feedbackId is required"),
        (json!({"feedbackId": "x"}), "feedbackId must be a UUID"),
        (
            json!({"feedbackId": f["id"], "limit": 0}),
            "limit must be between 1 and 100",
        ),
    ] {
        comments(&app, &code, body).await.assert_error(400, message);
    }
    for body in [
        json!({"feedbackId": f["id"], "sort": "title"}),
        json!({"feedbackId": f["id"], "direction": "sideways"}),
    ] {
        comments(&app, &code, body).await.assert_status(400);
    }
}

async fn private_comments_are_for_team_members(app: TestApp) {
    let f = app.feedback(json!({"title": "Sensitive"})).await;
    let (_, outsider) = app.identify("outsider@example.com").await;
    let (member, insider) = app.identify(OWNER_EMAIL).await;
    comment(
        &app,
        &outsider,
        json!({"feedbackId": f["id"], "text": "psst", "isPrivate": true}),
    )
    .await
    .assert_error(403, "Only team members can post private comments");
    assert!(app.events_of("feedback-comments.create").await.is_empty());

    let public = comment(
        &app,
        &outsider,
        json!({"feedbackId": f["id"], "text": "public note"}),
    )
    .await;
    let by_member = comment(
        &app,
        &insider,
        json!({"feedbackId": f["id"], "text": "member note", "isPrivate": true}),
    )
    .await;
    assert_eq!(by_member.ok()["isPrivate"], true);
    assert_eq!(by_member.ok()["subscriberId"], member["id"]);
    let by_team = app
        .team(
            "feedback-comments.create",
            json!({"feedbackId": f["id"], "text": "team note", "type": "private"}),
        )
        .await;
    assert_eq!(by_team.ok()["isPrivate"], true);
    assert_eq!(by_team.ok()["subscriber"]["email"], OWNER_EMAIL);

    let everything = ["public note", "member note", "team note"];
    for token in [&app.key, &insider] {
        let list = comments(&app, token, json!({"feedbackId": f["id"]})).await;
        assert_eq!(list.each("text"), everything);
        assert_eq!(list.total(), 3);
    }
    let outside = comments(&app, &outsider, json!({"feedbackId": f["id"]})).await;
    assert_eq!(outside.ok(), &json!([public.ok()]));
    assert_eq!(outside.total(), 1);
    // The item counts every comment.
    assert_eq!(info(&app, &f).await["feedbackCommentsCount"], 3);
    assert_eq!(app.events_of("feedback-comments.create").await.len(), 3);
}

async fn team_comments_name_their_author(app: TestApp) {
    let f = app.feedback(json!({"title": "On behalf"})).await;
    let (sue, _) = app.identify("sue@example.com").await;
    let create = |body: Value| {
        let mut body = body;
        body["feedbackId"] = f["id"].clone();
        app.team("feedback-comments.create", body)
    };
    let by_id = create(json!({"text": "from Sue", "subscriberId": sue["id"]})).await;
    assert_eq!(by_id.ok()["subscriberId"], sue["id"]);
    assert_eq!(by_id.ok()["isPrivate"], false);
    let by_email = create(
        json!({"text": "from Tom", "email": "Tom@Example.com", "name": "Tom T", "type": "public"}),
    )
    .await;
    assert_eq!(by_email.ok()["subscriber"]["email"], "tom@example.com");
    assert_eq!(by_email.ok()["subscriber"]["name"], "Tom T");
    assert_eq!(by_email.ok()["isPrivate"], false);
    let tom = app
        .team(
            "public/subscriber.identify",
            json!({"email": "tom@example.com"}),
        )
        .await;
    assert_eq!(tom.body["isFirstSignin"], false);
    assert_eq!(tom.ok()["id"], by_email.ok()["subscriberId"]);
    let by_key = create(json!({"text": "from us"})).await;
    assert_eq!(by_key.ok()["subscriber"]["email"], OWNER_EMAIL);
    // Refusals store nothing.
    create(json!({"text": "x", "type": "secret"}))
        .await
        .assert_status(400);
    create(json!({"text": "x", "subscriberId": uuid::Uuid::now_v7()}))
        .await
        .assert_status(404);
    app.team(
        "feedback-comments.create",
        json!({"feedbackId": uuid::Uuid::now_v7(), "text": "x"}),
    )
    .await
    .assert_error(404, "Feedback not found");
    assert_eq!(info(&app, &f).await["feedbackCommentsCount"], 3);
    assert_eq!(app.events_of("feedback-comments.create").await.len(), 3);
}

async fn comment_lists_sort_and_page(app: TestApp) {
    let f = app.feedback(json!({"title": "Chatty"})).await;
    let (_, code) = app.identify("chatty@example.com").await;
    for i in 0..5 {
        comment(
            &app,
            &code,
            json!({"feedbackId": f["id"], "text": format!("c{i}")}),
        )
        .await
        .ok();
    }
    let texts = |body: Value| {
        let app = &app;
        let mut body = body;
        body["feedbackId"] = f["id"].clone();
        async move {
            let reply = comments(app, &app.key, body).await;
            let texts: Vec<String> = reply.each("text").into_iter().map(String::from).collect();
            (texts, reply.body["pagination"].clone())
        }
    };
    let page = |total: i64, limit: i64, offset: i64| json!({"total": total, "limit": limit, "offset": offset});
    let oldest_first = ["c0", "c1", "c2", "c3", "c4"];
    let newest_first = ["c4", "c3", "c2", "c1", "c0"];
    assert_eq!(
        texts(json!({})).await,
        (oldest_first.map(String::from).to_vec(), page(5, 20, 0))
    );
    assert_eq!(texts(json!({"direction": "DESC"})).await.0, newest_first);
    assert_eq!(
        texts(json!({"sort": "createdAt", "direction": "ASC"}))
            .await
            .0,
        oldest_first
    );
    assert_eq!(
        texts(json!({"sort": "updatedAt", "direction": "DESC"}))
            .await
            .0,
        newest_first
    );
    assert_eq!(texts(json!({"sort": "updatedAt"})).await.0, oldest_first);
    assert_eq!(
        texts(json!({"limit": 2, "offset": 1})).await,
        (vec!["c1".to_owned(), "c2".to_owned()], page(5, 2, 1))
    );
    assert_eq!(
        texts(json!({"limit": 2, "offset": 4, "direction": "DESC"})).await,
        (vec!["c0".to_owned()], page(5, 2, 4))
    );
    assert_eq!(
        texts(json!({"offset": 9})).await,
        (Vec::new(), page(5, 20, 9))
    );
    assert_eq!(texts(json!({"limit": 500})).await.1, page(5, 100, 0));
}

async fn deleting_feedback_removes_its_comments_and_votes(app: TestApp) {
    let board = app.board(json!({"name": "Short-lived"})).await;
    let f = app
        .feedback(json!({"title": "Doomed", "boardId": board["id"]}))
        .await;
    let keep = app.feedback(json!({"title": "Kept"})).await;
    let (_, code) = app.identify("mourner@example.com").await;
    for item in [&f, &keep] {
        let by_feedback = json!({"feedbackId": item["id"]});
        app.call("public/feedback-votes.create", Some(&code), by_feedback)
            .await
            .ok();
        comment(
            &app,
            &code,
            json!({"feedbackId": item["id"], "text": "bye"}),
        )
        .await
        .ok();
    }
    let deleted = app.team("feedbacks.delete", json!({"id": f["id"]})).await;
    assert_eq!(
        (deleted.status, &deleted.body),
        (200, &json!({"success": true, "feedbackId": f["id"]}))
    );
    let gone = json!({"feedbackId": f["id"]});
    app.team("feedbacks.info", json!({"id": f["id"]}))
        .await
        .assert_error(404, "Feedback not found");
    for op in [
        "public/feedbacks.info",
        "public/feedback-votes.info",
        "public/feedback-comments.list",
    ] {
        app.call(op, Some(&code), gone.clone())
            .await
            .assert_error(404, "Feedback not found");
    }
    app.team("feedbacks.delete", json!({"id": f["id"]}))
        .await
        .assert_error(404, "Feedback not found");
    let events = app.events_of("feedbacks.delete").await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        (&events[0]["feedbackId"], &events[0]["event"]),
        (&f["id"], &json!("feedbacks.delete"))
    );
    // The other item keeps its own; the board no longer counts the deleted one.
    let kept = info(&app, &keep).await;
    assert_eq!(
        (&kept["feedbackVotesCount"], &kept["feedbackCommentsCount"]),
        (&json!(1), &json!(1))
    );
    let list = app.team("feedbacks.list", json!({})).await;
    assert_eq!(list.each("title"), ["Kept"]);
    let board = app
        .team("feedback-boards.info", json!({"id": board["id"]}))
        .await;
    assert_eq!(board.ok()["feedbackCount"], 0);
}

async fn creators_and_commenters_follow_and_subscribe_toggles(app: TestApp) {
    let (_, creator) = app.identify("follows@example.com").await;
    let (_, fan) = app.identify("fan@example.com").await;
    let (_, talker) = app.identify("talker@example.com").await;
    let f = app
        .public_feedback(&creator, json!({"title": "Follow me"}))
        .await;
    let by_feedback = json!({"feedbackId": f["id"]});
    assert_eq!(is_subscribed(&app, &creator, &f).await, true);
    assert_eq!(is_subscribed(&app, &fan, &f).await, false);
    assert_eq!(is_subscribed(&app, &talker, &f).await, false);
    comment(
        &app,
        &talker,
        json!({"feedbackId": f["id"], "text": "count me in"}),
    )
    .await
    .ok();
    assert_eq!(is_subscribed(&app, &talker, &f).await, true);
    for (op, expected) in [
        ("public/feedbacks.subscribe", true),
        ("public/feedbacks.subscribe", true),
        ("public/feedbacks.unsubscribe", false),
        ("public/feedbacks.unsubscribe", false),
    ] {
        let reply = app.call(op, Some(&fan), by_feedback.clone()).await;
        assert_eq!(
            (reply.status, &reply.body),
            (200, &json!({"success": true, "feedbackId": f["id"]}))
        );
        assert_eq!(is_subscribed(&app, &fan, &f).await, expected, "after {op}");
    }
    app.call(
        "public/feedbacks.unsubscribe",
        Some(&creator),
        by_feedback.clone(),
    )
    .await
    .ok();
    assert_eq!(is_subscribed(&app, &creator, &f).await, false);
    app.call(
        "public/feedbacks.subscribe",
        Some(&app.key),
        by_feedback.clone(),
    )
    .await
    .assert_error(401, "Authentication required");
    app.call(
        "public/feedbacks.subscribe",
        Some(&fan),
        json!({"feedbackId": uuid::Uuid::now_v7()}),
    )
    .await
    .assert_error(404, "Feedback not found");
}

async fn another_teams_feedback_is_invisible(app: TestApp) {
    let (_, code) = app.identify("a-user@example.com").await;
    let f = app
        .public_feedback(&code, json!({"title": "Team A only"}))
        .await;
    let (_, other_key) = app.other_team("rival").await;
    let (_, intruder) = app.identify_with(&other_key, "a-user@example.com").await;
    let by_id = json!({"id": f["id"]});
    for op in [
        "feedbacks.info",
        "feedbacks.update",
        "feedbacks.publish",
        "feedbacks.archive",
        "feedbacks.restore",
        "feedbacks.delete",
    ] {
        app.call(op, Some(&other_key), by_id.clone())
            .await
            .assert_error(404, "Feedback not found");
    }
    app.call(
        "feedbacks.info",
        Some(&other_key),
        json!({"urlId": f["urlId"]}),
    )
    .await
    .assert_error(404, "Feedback not found");
    let by_feedback = json!({"feedbackId": f["id"]});
    for token in [&other_key, &intruder] {
        app.call("public/feedbacks.info", Some(token), by_feedback.clone())
            .await
            .assert_error(404, "Feedback not found");
        app.call(
            "public/feedbacks.info",
            Some(token),
            json!({"urlId": f["urlId"]}),
        )
        .await
        .assert_error(404, "Feedback not found");
        assert_eq!(
            app.call("public/feedbacks.list", Some(token), json!({}))
                .await
                .total(),
            0
        );
        for op in [
            "public/feedback-votes.info",
            "public/feedback-comments.list",
        ] {
            app.call(op, Some(token), by_feedback.clone())
                .await
                .assert_error(404, "Feedback not found");
        }
    }
    assert_eq!(
        app.call("feedbacks.list", Some(&other_key), json!({}))
            .await
            .total(),
        0
    );
    for op in [
        "public/feedbacks.delete",
        "public/feedbacks.subscribe",
        "public/feedback-votes.create",
        "public/feedback-votes.delete",
    ] {
        app.call(op, Some(&intruder), by_feedback.clone())
            .await
            .assert_error(404, "Feedback not found");
    }
    app.call(
        "public/feedbacks.update",
        Some(&intruder),
        json!({"feedbackId": f["id"], "title": "Mine"}),
    )
    .await
    .assert_error(404, "Feedback not found");
    app.call(
        "public/feedback-comments.create",
        Some(&intruder),
        json!({"feedbackId": f["id"], "text": "hi"}),
    )
    .await
    .assert_error(404, "Feedback not found");
    app.call(
        "feedback-comments.create",
        Some(&other_key),
        json!({"feedbackId": f["id"], "text": "hi"}),
    )
    .await
    .assert_error(404, "Feedback not found");
    // Team A's item is untouched.
    assert_eq!(info(&app, &f).await, f);
    assert_eq!(app.events().await.len(), 2);
}

async fn board_counts_feedback_and_refuses_to_delete_while_not_empty(app: TestApp) {
    let board = app.board(json!({"name": "Busy"})).await;
    let other = app.board(json!({"name": "Quiet"})).await;
    let a = app
        .feedback(json!({"title": "A", "boardId": board["id"]}))
        .await;
    let b = app
        .feedback(json!({"title": "B", "boardId": board["id"]}))
        .await;
    let c = app
        .feedback(json!({"title": "C", "boardId": board["id"]}))
        .await;
    app.team("feedbacks.archive", json!({"id": c["id"]}))
        .await
        .ok();
    let count = |id: Value| {
        let app = &app;
        async move {
            let reply = app.team("feedback-boards.info", json!({ "id": id })).await;
            reply.ok()["feedbackCount"].clone()
        }
    };
    assert_eq!(count(board["id"].clone()).await, 2);
    assert_eq!(count(other["id"].clone()).await, 0);
    let refused = app
        .team("feedback-boards.delete", json!({"id": board["id"]}))
        .await;
    let message = refused.assert_status(409);
    assert!(message.starts_with("Board"), "{message}");
    assert_eq!(count(board["id"].clone()).await, 2);
    for f in [&a, &b, &c] {
        app.team("feedbacks.delete", json!({"id": f["id"]}))
            .await
            .ok();
    }
    assert_eq!(count(board["id"].clone()).await, 0);
    let deleted = app
        .team("feedback-boards.delete", json!({"id": board["id"]}))
        .await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
}

/// Sorts a little later than anything written before it (timestamps keep milliseconds).
async fn tick() {
    tokio::time::sleep(std::time::Duration::from_millis(15)).await;
}

async fn the_team_lists_the_comments_of_any_of_its_items(app: TestApp) {
    // Held for moderation: invisible to public reads, not to the team's.
    app.team("teams.update", json!({"publicBoardModeration": true}))
        .await
        .ok();
    let (_, ann) = app.identify("ann@example.com").await;
    let held = app.public_feedback(&ann, json!({"title": "Held"})).await;
    assert_eq!(held["publishedAt"], Value::Null);
    for (text, kind) in [
        ("first", "public"),
        ("second", "private"),
        ("third", "public"),
    ] {
        app.team(
            "feedback-comments.create",
            json!({"feedbackId": held["id"], "text": text, "type": kind}),
        )
        .await
        .ok();
        tick().await;
    }
    comments(&app, &app.key, json!({"feedbackId": held["id"]}))
        .await
        .assert_error(404, "Feedback not found");
    let all = app
        .team("feedback-comments.list", json!({"feedbackId": held["id"]}))
        .await;
    assert_eq!(all.each("text"), ["first", "second", "third"]);
    assert_eq!(all.total(), 3);
    assert_eq!(all.ok()[1]["isPrivate"], true);
    // The public list's paging and order.
    let page = app
        .team(
            "feedback-comments.list",
            json!({"feedbackId": held["id"], "direction": "DESC", "limit": 1, "offset": 1}),
        )
        .await;
    assert_eq!(page.each("text"), ["second"]);
    assert_eq!(
        page.body["pagination"],
        json!({"total": 3, "limit": 1, "offset": 1})
    );
    // A read-only key may list; what is not the team's is not found.
    let (read_only, _) = app
        .key_with(sounding_domain::access::Role::Member, true)
        .await;
    let listed = app
        .call(
            "feedback-comments.list",
            Some(&read_only),
            json!({"feedbackId": held["id"]}),
        )
        .await;
    assert_eq!(listed.total(), 3);
    let (_, other) = app.other_team("elsewhere").await;
    app.call(
        "feedback-comments.list",
        Some(&other),
        json!({"feedbackId": held["id"]}),
    )
    .await
    .assert_error(404, "Feedback not found");
    app.team(
        "feedback-comments.list",
        json!({"feedbackId": uuid::Uuid::now_v7()}),
    )
    .await
    .assert_error(404, "Feedback not found");
    app.team("feedback-comments.list", json!({}))
        .await
        .assert_error(400, "feedbackId is required");
    app.call(
        "feedback-comments.list",
        Some(&ann),
        json!({"feedbackId": held["id"]}),
    )
    .await
    .assert_error(401, "Authentication required");
}

async fn the_team_edits_a_comment_and_updated_at_moves_only_on_a_change(app: TestApp) {
    let f = app.feedback(json!({"title": "Heated"})).await;
    let (_, ann) = app.identify("ann@example.com").await;
    let c = comment(
        &app,
        &ann,
        json!({"feedbackId": f["id"], "text": "Rude words"}),
    )
    .await
    .ok()
    .clone();
    let events = app.events().await.len();
    tick().await;

    let edited = app
        .team(
            "feedback-comments.update",
            json!({"id": c["id"], "text": " Kind words ", "isPrivate": true}),
        )
        .await
        .ok()
        .clone();
    assert_eq!(edited["text"], "Kind words");
    assert_eq!(edited["isPrivate"], true);
    assert_eq!(
        (&edited["id"], &edited["subscriber"], &edited["createdAt"]),
        (&c["id"], &c["subscriber"], &c["createdAt"])
    );
    assert_ne!(edited["updatedAt"], c["updatedAt"]);
    tick().await;
    // The same again changes nothing, not even updatedAt.
    let again = app
        .team(
            "feedback-comments.update",
            json!({"id": c["id"], "text": "Kind words"}),
        )
        .await
        .ok()
        .clone();
    assert_eq!(again, edited);
    // Private now: the team sees it, the author no longer does.
    let team_list = app
        .team("feedback-comments.list", json!({"feedbackId": f["id"]}))
        .await;
    assert_eq!(team_list.ok(), &json!([edited]));
    assert_eq!(
        comments(&app, &ann, json!({"feedbackId": f["id"]}))
            .await
            .total(),
        0
    );

    // Refusals change nothing.
    let (read_only, _) = app
        .key_with(sounding_domain::access::Role::Owner, true)
        .await;
    let (_, other) = app.other_team("elsewhere").await;
    let body = json!({"id": c["id"], "text": "Hijacked"});
    app.call("feedback-comments.update", Some(&read_only), body.clone())
        .await
        .assert_error(403, "This API key is read-only");
    app.call("feedback-comments.update", Some(&other), body.clone())
        .await
        .assert_error(404, "Comment not found");
    app.call("feedback-comments.update", Some(&ann), body)
        .await
        .assert_error(401, "Authentication required");
    for (body, status, message) in [
        (json!({"id": c["id"]}), 400, "text is required"),
        (
            json!({"id": c["id"], "text": "  "}),
            400,
            "text is required",
        ),
        (
            json!({"id": c["id"], "text": "x".repeat(10_001)}),
            400,
            "text must be at most 10000 characters",
        ),
        (json!({"text": "who"}), 400, "id is required"),
        (
            json!({"id": "nope", "text": "who"}),
            400,
            "id must be a UUID",
        ),
        (
            json!({"id": uuid::Uuid::now_v7(), "text": "who"}),
            404,
            "Comment not found",
        ),
        // A feedback item's id is not a comment's.
        (
            json!({"id": f["id"], "text": "who"}),
            404,
            "Comment not found",
        ),
    ] {
        app.team("feedback-comments.update", body)
            .await
            .assert_error(status, message);
    }
    let listed = app
        .team("feedback-comments.list", json!({"feedbackId": f["id"]}))
        .await;
    assert_eq!(listed.ok(), &json!([edited]));
    assert_eq!(app.events().await.len(), events, "an edit emits no event");
}

async fn the_team_deletes_a_comment_and_its_count_follows_silently(app: TestApp) {
    let (_, bob) = app.identify("bob@example.com").await;
    let f = app
        .public_feedback(&bob, json!({"title": "Bob's idea"}))
        .await;
    let (ann, ann_token) = app.identify("ann@example.com").await;
    let spam = comment(
        &app,
        &ann_token,
        json!({"feedbackId": f["id"], "text": "Buy cheap watches"}),
    )
    .await
    .ok()
    .clone();
    let kept = comment(&app, &bob, json!({"feedbackId": f["id"], "text": "Thanks"}))
        .await
        .ok()
        .clone();
    assert_eq!(info(&app, &f).await["feedbackCommentsCount"], 2);
    let notifications = |token: String| {
        let app = &app;
        async move {
            app.call("public/notifications.list", Some(&token), json!({}))
                .await
                .total()
        }
    };
    let (ann_before, bob_before) = (
        notifications(ann_token.clone()).await,
        notifications(bob.clone()).await,
    );

    let (read_only, _) = app
        .key_with(sounding_domain::access::Role::Owner, true)
        .await;
    let (_, other) = app.other_team("elsewhere").await;
    let events = app.events().await.len();
    app.call(
        "feedback-comments.delete",
        Some(&read_only),
        json!({"id": spam["id"]}),
    )
    .await
    .assert_error(403, "This API key is read-only");
    app.call(
        "feedback-comments.delete",
        Some(&other),
        json!({"id": spam["id"]}),
    )
    .await
    .assert_error(404, "Comment not found");
    app.team("feedback-comments.delete", json!({}))
        .await
        .assert_error(400, "id is required");
    assert_eq!(app.events().await.len(), events);
    assert_eq!(info(&app, &f).await["feedbackCommentsCount"], 2);

    let reply = app
        .team("feedback-comments.delete", json!({"id": spam["id"]}))
        .await;
    reply.assert_body(200, json!({"success": true, "id": spam["id"]}));
    assert_eq!(info(&app, &f).await["feedbackCommentsCount"], 1);
    let listed = app
        .team("feedback-comments.list", json!({"feedbackId": f["id"]}))
        .await;
    assert_eq!(listed.ok(), &json!([kept]));
    assert_eq!(listed.total(), 1);
    // One event, with the comment as it was; nobody is notified.
    assert_eq!(app.events().await.len(), events + 1);
    let deleted = app.events_of("feedback-comments.delete").await;
    assert_eq!(deleted.len(), 1);
    let event = &deleted[0];
    assert_eq!(event["commentId"], spam["id"]);
    assert_eq!(event["feedbackId"], f["id"]);
    assert_eq!(event["subscriberId"], ann["id"]);
    assert_eq!(event["data"], spam);
    assert_eq!(notifications(ann_token).await, ann_before);
    assert_eq!(notifications(bob).await, bob_before);

    // Gone: a second delete, or an edit, finds nothing and changes nothing.
    app.team("feedback-comments.delete", json!({"id": spam["id"]}))
        .await
        .assert_error(404, "Comment not found");
    app.team(
        "feedback-comments.update",
        json!({"id": spam["id"], "text": "back"}),
    )
    .await
    .assert_error(404, "Comment not found");
    assert_eq!(app.events().await.len(), events + 1);
    assert_eq!(info(&app, &f).await["feedbackCommentsCount"], 1);
}

/// Comment pages are remembered whole between commits (docs/storage.md, "Remembered
/// answers"): asked alike in turn, a team member and an outsider each get their own page,
/// and a new comment shows in the next answer of both.
async fn a_remembered_comment_page_is_for_its_own_audience_and_follows_every_write(app: TestApp) {
    let f = app.feedback(json!({"title": "Sensitive"})).await;
    let (_, outsider) = app.identify("outsider@example.com").await;
    let (_, insider) = app.identify(OWNER_EMAIL).await;
    let private = json!({"feedbackId": f["id"], "text": "member note", "isPrivate": true});
    comment(&app, &insider, private).await.ok();
    let asked = json!({"feedbackId": f["id"]});
    // In turn, more often than it takes to remember each answer.
    for _ in 0..3 {
        let member = comments(&app, &insider, asked.clone()).await;
        assert_eq!(member.each("text"), ["member note"]);
        let outside = comments(&app, &outsider, asked.clone()).await;
        assert_eq!(outside.total(), 0, "{:?}", outside.body);
    }
    let public = json!({"feedbackId": f["id"], "text": "public note"});
    comment(&app, &outsider, public).await.ok();
    for _ in 0..3 {
        let outside = comments(&app, &outsider, asked.clone()).await;
        assert_eq!(outside.each("text"), ["public note"]);
        let member = comments(&app, &insider, asked.clone()).await;
        assert_eq!(member.each("text"), ["member note", "public note"]);
    }
}
