//! Feedback boards: team administration (`feedback-boards.*`) and the public list.

use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{engine_tests, TestApp};

engine_tests!(
    create_returns_the_full_board_with_defaults,
    derived_slugs_are_unique_and_explicit_duplicates_are_409,
    list_info_update_delete_round_trip,
    update_merges_meta_and_changes_only_given_fields,
    the_public_list_shows_public_boards_in_order,
    another_teams_board_is_not_found,
    a_member_key_cannot_manage_boards,
    invalid_board_input_is_400_and_creates_nothing,
    list_pagination_is_reported,
    a_remembered_board_list_is_each_teams_own_and_follows_every_write,
);

async fn create(app: &TestApp, body: Value) -> Value {
    app.team("feedback-boards.create", body).await.ok().clone()
}

async fn create_returns_the_full_board_with_defaults(app: TestApp) {
    let board = create(
        &app,
        json!({"name": "Feature Requests", "description": "Ideas welcome"}),
    )
    .await;
    assert_eq!(board["name"], "Feature Requests");
    assert_eq!(board["slug"], "feature-requests");
    assert_eq!(board["description"], "Ideas welcome");
    assert_eq!(board["teamId"], app.team_id);
    assert_eq!(board["order"], 1);
    assert_eq!(
        board["meta"],
        json!({"isPublic": true, "allowPublicSubmissions": true, "requireModeration": false, "color": null})
    );
    assert_eq!(board["feedbackCount"], 0);
    assert!(board["createdAt"].as_str().unwrap().ends_with('Z'));
    let second = create(
        &app,
        json!({"name": "Bugs", "meta": {"color": "#ff0000", "isPublic": false}}),
    )
    .await;
    assert_eq!(second["order"], 2);
    assert_eq!(second["meta"]["color"], "#FF0000");
    assert_eq!(second["meta"]["isPublic"], false);
}

async fn derived_slugs_are_unique_and_explicit_duplicates_are_409(app: TestApp) {
    assert_eq!(
        create(&app, json!({"name": "Ideas"})).await["slug"],
        "ideas"
    );
    assert_eq!(
        create(&app, json!({"name": "Ideas!"})).await["slug"],
        "ideas-2"
    );
    app.team(
        "feedback-boards.create",
        json!({"name": "Other", "slug": "ideas"}),
    )
    .await
    .assert_error(409, "A board with slug ideas already exists");
    let other = create(&app, json!({"name": "Other", "slug": "other-ideas"})).await;
    app.team(
        "feedback-boards.update",
        json!({"id": other["id"], "slug": "ideas-2"}),
    )
    .await
    .assert_error(409, "A board with slug ideas-2 already exists");
    // Keeping its own slug is not a clash.
    let same = app
        .team(
            "feedback-boards.update",
            json!({"id": other["id"], "slug": "other-ideas"}),
        )
        .await;
    assert_eq!(same.ok()["slug"], "other-ideas");
}

async fn list_info_update_delete_round_trip(app: TestApp) {
    let a = create(&app, json!({"name": "Alpha"})).await;
    let b = create(&app, json!({"name": "Beta", "meta": {"isPublic": false}})).await;
    let list = app.team("feedback-boards.list", json!({})).await;
    let ids: Vec<&Value> = list
        .ok()
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["id"])
        .collect();
    assert_eq!(
        ids,
        [&a["id"], &b["id"]],
        "the team list includes private boards, by order"
    );

    let info = app
        .team("feedback-boards.info", json!({"id": b["id"]}))
        .await;
    assert_eq!(info.ok(), &b);

    let updated = app
        .team("feedback-boards.update", json!({"id": b["id"], "order": 0}))
        .await;
    assert_eq!(updated.ok()["order"], 0);
    let list = app.team("feedback-boards.list", json!({})).await;
    assert_eq!(list.ok()[0]["id"], b["id"]);

    let deleted = app
        .team("feedback-boards.delete", json!({"id": a["id"]}))
        .await;
    assert_eq!(
        (deleted.status, &deleted.body),
        (200, &json!({"success": true, "id": a["id"]}))
    );
    app.team("feedback-boards.info", json!({"id": a["id"]}))
        .await
        .assert_error(404, "Board not found");
    app.team("feedback-boards.delete", json!({"id": a["id"]}))
        .await
        .assert_error(404, "Board not found");
    assert_eq!(
        app.team("feedback-boards.list", json!({}))
            .await
            .ok()
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

async fn update_merges_meta_and_changes_only_given_fields(app: TestApp) {
    let board = create(
        &app,
        json!({"name": "Roadmap ideas", "description": "d", "meta": {"color": "#00FF00"}}),
    )
    .await;
    let reply = app
        .team(
            "feedback-boards.update",
            json!({"id": board["id"], "meta": {"requireModeration": true}}),
        )
        .await;
    let updated = reply.ok();
    assert_eq!(updated["meta"]["requireModeration"], true);
    assert_eq!(updated["meta"]["color"], "#00FF00");
    assert_eq!(updated["meta"]["isPublic"], true);
    assert_eq!(updated["name"], "Roadmap ideas");
    assert_eq!(updated["description"], "d");
    assert_eq!(updated["teamId"], app.team_id);
    assert_eq!(updated["createdAt"], board["createdAt"]);
    assert!(updated["updatedAt"].as_str().unwrap() >= board["updatedAt"].as_str().unwrap());
    let cleared = app
        .team(
            "feedback-boards.update",
            json!({"id": board["id"], "meta": {"color": null}}),
        )
        .await;
    assert_eq!(cleared.ok()["meta"]["color"], Value::Null);
}

async fn the_public_list_shows_public_boards_in_order(app: TestApp) {
    create(&app, json!({"name": "Third", "order": 30})).await;
    create(
        &app,
        json!({"name": "Hidden", "order": 5, "meta": {"isPublic": false}}),
    )
    .await;
    create(&app, json!({"name": "First", "order": 10})).await;
    create(&app, json!({"name": "Second", "order": 20})).await;
    let (_, code) = app.identify("reader@example.com").await;
    for token in [app.key.clone(), code] {
        let reply = app
            .call("public/feedback-boards.list", Some(&token), json!({}))
            .await;
        let boards = reply.ok().as_array().unwrap();
        assert_eq!(reply.each("name"), ["First", "Second", "Third"]);
        assert!(boards
            .iter()
            .all(|b| b["feedbackCount"] == 0 && b["meta"]["isPublic"] == true));
        assert_eq!(reply.body["pagination"]["total"], 3);
    }
}

async fn another_teams_board_is_not_found(app: TestApp) {
    let (_, other_key) = app.other_team("rival").await;
    let theirs = app
        .call(
            "feedback-boards.create",
            Some(&other_key),
            json!({"name": "Secret plans"}),
        )
        .await;
    let id = theirs.ok()["id"].clone();
    app.team("feedback-boards.info", json!({"id": id}))
        .await
        .assert_error(404, "Board not found");
    app.team(
        "feedback-boards.update",
        json!({"id": id, "name": "Mine now"}),
    )
    .await
    .assert_error(404, "Board not found");
    app.team("feedback-boards.delete", json!({"id": id}))
        .await
        .assert_error(404, "Board not found");
    assert_eq!(
        app.team("feedback-boards.list", json!({})).await.ok(),
        &json!([])
    );
    assert_eq!(
        app.team("public/feedback-boards.list", json!({}))
            .await
            .ok(),
        &json!([])
    );
    let still = app
        .call("feedback-boards.info", Some(&other_key), json!({"id": id}))
        .await;
    assert_eq!(still.ok()["name"], "Secret plans");
}

async fn a_member_key_cannot_manage_boards(app: TestApp) {
    let board = create(&app, json!({"name": "Stable"})).await;
    let (member, _) = app.key_with(Role::Member, false).await;
    let denied = "The member role cannot manage boards";
    app.call(
        "feedback-boards.create",
        Some(&member),
        json!({"name": "Nope"}),
    )
    .await
    .assert_error(403, denied);
    app.call(
        "feedback-boards.update",
        Some(&member),
        json!({"id": board["id"], "name": "Nope"}),
    )
    .await
    .assert_error(403, denied);
    app.call(
        "feedback-boards.delete",
        Some(&member),
        json!({"id": board["id"]}),
    )
    .await
    .assert_error(403, denied);
    // Reading is fine, and nothing changed.
    let list = app
        .call("feedback-boards.list", Some(&member), json!({}))
        .await;
    assert_eq!(list.ok().as_array().unwrap().len(), 1);
    assert_eq!(list.ok()[0]["name"], "Stable");
}

async fn invalid_board_input_is_400_and_creates_nothing(app: TestApp) {
    app.team("feedback-boards.create", json!({}))
        .await
        .assert_error(400, "name is required");
    app.team("feedback-boards.create", json!({"name": "  "}))
        .await
        .assert_error(400, "name is required");
    app.team("feedback-boards.create", json!({"name": "x".repeat(256)}))
        .await
        .assert_error(400, "name must be at most 255 characters");
    app.team(
        "feedback-boards.create",
        json!({"name": "X", "meta": {"color": "blue"}}),
    )
    .await
    .assert_error(400, "meta.color must be a hex color like #3B82F6");
    app.team(
        "feedback-boards.create",
        json!({"name": "X", "meta": {"isPublic": "yes"}}),
    )
    .await
    .assert_error(400, "meta.isPublic must be a boolean");
    app.team("feedback-boards.create", json!({"name": "X", "order": -1}))
        .await
        .assert_error(400, "order must be between 0 and 1000000");
    let reply = app
        .team(
            "feedback-boards.create",
            json!({"name": "X", "slug": "Not a slug"}),
        )
        .await;
    assert_eq!(reply.status, 400);
    app.team("feedback-boards.info", json!({}))
        .await
        .assert_error(400, "id is required");
    assert_eq!(
        app.team("feedback-boards.list", json!({})).await.ok(),
        &json!([])
    );
}

async fn list_pagination_is_reported(app: TestApp) {
    for i in 0..5 {
        create(&app, json!({"name": format!("Board {i}")})).await;
    }
    let page = app
        .team("feedback-boards.list", json!({"limit": 2, "offset": 1}))
        .await;
    assert_eq!(page.each("name"), ["Board 1", "Board 2"]);
    assert_eq!(
        page.body["pagination"],
        json!({"total": 5, "limit": 2, "offset": 1})
    );
    let clamped = app
        .team("feedback-boards.list", json!({"limit": 1000}))
        .await;
    assert_eq!(clamped.body["pagination"]["limit"], 100);
    let zero = app.team("feedback-boards.list", json!({"limit": 0})).await;
    zero.assert_error(400, "limit must be between 1 and 100");
}

/// The public board list is remembered whole between commits (docs/storage.md, "Remembered
/// answers"): two teams asking alike in turn each get their own boards, and a change to a
/// board shows in the next answer.
async fn a_remembered_board_list_is_each_teams_own_and_follows_every_write(app: TestApp) {
    let board = create(&app, json!({"name": "Ideas"})).await;
    let (_, other_key) = app.other_team("rival").await;
    let names = |key: String| {
        let app = &app;
        async move {
            let reply = app
                .call("public/feedback-boards.list", Some(&key), json!({}))
                .await;
            let names: Vec<String> = reply.each("name").into_iter().map(str::to_owned).collect();
            names
        }
    };
    // In turn, more often than it takes to remember each answer.
    for _ in 0..3 {
        assert_eq!(names(app.key.clone()).await, ["Ideas"]);
        assert!(names(other_key.clone()).await.is_empty());
    }
    let renamed = json!({"id": board["id"], "name": "Wishes"});
    app.team("feedback-boards.update", renamed).await.ok();
    for _ in 0..3 {
        assert_eq!(names(app.key.clone()).await, ["Wishes"]);
        assert!(names(other_key.clone()).await.is_empty());
    }
}
