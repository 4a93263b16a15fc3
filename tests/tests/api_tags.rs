//! Tags: `tags.*` administration, `feedbacks.update {tagIds}`, tags on every feedback object,
//! and the `tagId` filter of the feedback lists.

use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{client::field_names, engine_tests, TestApp};

engine_tests!(
    tags_round_trip_through_create_list_update_delete,
    duplicate_tag_names_are_409_ignoring_case,
    invalid_tag_input_is_400_and_creates_nothing,
    members_manage_tags_and_read_only_keys_only_list,
    feedback_update_sets_and_clears_tags_shown_everywhere,
    unknown_or_other_team_tag_ids_are_404_and_change_nothing,
    malformed_tag_ids_are_400_naming_the_field,
    the_tag_filter_lists_only_tagged_feedback,
    deleting_a_tag_takes_it_off_every_feedback,
    renaming_a_tag_shows_on_its_feedback,
);

async fn tag(app: &TestApp, name: &str, color: Option<&str>) -> Value {
    let mut body = json!({ "name": name });
    if let Some(color) = color {
        body["color"] = json!(color);
    }
    app.team_data("tags.create", body).await
}

/// `{id, name, color}` of a tag object, as feedback objects show it.
fn on_feedback(tag: &Value) -> Value {
    json!({"id": tag["id"], "name": tag["name"], "color": tag["color"]})
}

async fn set_tags(app: &TestApp, item: &Value, tags: &[&Value]) -> Value {
    let ids: Vec<&Value> = tags.iter().map(|t| &t["id"]).collect();
    app.team_data("feedbacks.update", json!({"id": item["id"], "tagIds": ids}))
        .await
}

async fn info_tags(app: &TestApp, item: &Value) -> Value {
    app.team_data("feedbacks.info", json!({"id": item["id"]}))
        .await["tags"]
        .clone()
}

async fn names(app: &TestApp) -> Vec<String> {
    app.team("tags.list", json!({}))
        .await
        .each("name")
        .into_iter()
        .map(str::to_owned)
        .collect()
}

async fn tags_round_trip_through_create_list_update_delete(app: TestApp) {
    let bug = tag(&app, " bug ", None).await;
    assert_eq!(
        field_names(&bug),
        ["color", "createdAt", "id", "name"].into_iter().collect()
    );
    assert_eq!(
        (&bug["name"], &bug["color"]),
        (&json!("bug"), &json!("#3B82F6"))
    );
    let alpha = tag(&app, "Alpha", Some("#ff0000")).await;
    assert_eq!(alpha["color"], "#FF0000");
    let list = app.team("tags.list", json!({})).await;
    assert_eq!(list.ok(), &json!([alpha, bug]), "by name ignoring case");

    let renamed = app
        .team_data("tags.update", json!({"id": alpha["id"], "name": "Zeta"}))
        .await;
    assert_eq!(
        (&renamed["name"], &renamed["color"], &renamed["createdAt"]),
        (&json!("Zeta"), &json!("#FF0000"), &alpha["createdAt"])
    );
    let recoloured = app
        .team_data(
            "tags.update",
            json!({"id": alpha["id"], "color": "#00ff00"}),
        )
        .await;
    assert_eq!(
        (&recoloured["name"], &recoloured["color"]),
        (&json!("Zeta"), &json!("#00FF00"))
    );
    assert_eq!(names(&app).await, ["bug", "Zeta"]);

    let deleted = app.team("tags.delete", json!({"id": bug["id"]})).await;
    deleted.assert_body(200, json!({"success": true, "id": bug["id"]}));
    assert_eq!(names(&app).await, ["Zeta"]);
    app.team("tags.delete", json!({"id": bug["id"]}))
        .await
        .assert_error(404, "Tag not found");
    app.team("tags.update", json!({"id": bug["id"], "name": "x"}))
        .await
        .assert_error(404, "Tag not found");
}

async fn duplicate_tag_names_are_409_ignoring_case(app: TestApp) {
    let bug = tag(&app, "Bug", None).await;
    let idea = tag(&app, "Idea", None).await;
    app.team("tags.create", json!({"name": "bUG"}))
        .await
        .assert_error(409, "A tag named bUG already exists");
    app.team("tags.update", json!({"id": idea["id"], "name": "BUG"}))
        .await
        .assert_error(409, "A tag named BUG already exists");
    // A tag may change the case of its own name.
    let own = app
        .team_data("tags.update", json!({"id": bug["id"], "name": "BUG"}))
        .await;
    assert_eq!(own["name"], "BUG");
    assert_eq!(names(&app).await, ["BUG", "Idea"]);
    // Another team may use the name.
    let (_, other_key) = app.other_team("other").await;
    let theirs = app
        .call("tags.create", Some(&other_key), json!({"name": "bug"}))
        .await;
    assert_eq!(theirs.ok()["name"], "bug");
}

async fn invalid_tag_input_is_400_and_creates_nothing(app: TestApp) {
    for (body, message) in [
        (json!({}), "name is required"),
        (json!({"name": "   "}), "name is required"),
        (
            json!({"name": "x".repeat(51)}),
            "name must be at most 50 characters",
        ),
        (
            json!({"name": "Bug", "color": "blue"}),
            "color must be a hex color like #3B82F6",
        ),
        (
            json!({"name": "Bug", "color": "#12345"}),
            "color must be a hex color like #3B82F6",
        ),
        (json!({"name": "Bug", "color": 5}), "color must be a string"),
    ] {
        app.team("tags.create", body)
            .await
            .assert_error(400, message);
    }
    assert!(names(&app).await.is_empty());
    let ok = tag(&app, &"é".repeat(50), None).await;
    app.team("tags.update", json!({"id": "x"}))
        .await
        .assert_error(400, "id must be a UUID");
    app.team("tags.update", json!({"name": "y"}))
        .await
        .assert_error(400, "id is required");
    app.team("tags.update", json!({"id": ok["id"], "color": "#zzzzzz"}))
        .await
        .assert_error(400, "color must be a hex color like #3B82F6");
    app.team("tags.delete", json!({}))
        .await
        .assert_error(400, "id is required");
    let list = app.team("tags.list", json!({})).await;
    assert_eq!(list.ok(), &json!([ok]), "nothing changed");
}

async fn members_manage_tags_and_read_only_keys_only_list(app: TestApp) {
    let (member, _) = app.key_with(Role::Member, false).await;
    let created = app
        .call("tags.create", Some(&member), json!({"name": "Bug"}))
        .await;
    let bug = created.ok().clone();
    let updated = app
        .call(
            "tags.update",
            Some(&member),
            json!({"id": bug["id"], "color": "#000000"}),
        )
        .await;
    assert_eq!(updated.ok()["color"], "#000000");

    let (read_only, _) = app.key_with(Role::Owner, true).await;
    let listed = app.call("tags.list", Some(&read_only), json!({})).await;
    assert_eq!(listed.each("name"), ["Bug"]);
    for (op, body) in [
        ("tags.create", json!({"name": "Idea"})),
        ("tags.update", json!({"id": bug["id"], "name": "Idea"})),
        ("tags.delete", json!({"id": bug["id"]})),
    ] {
        app.call(op, Some(&read_only), body)
            .await
            .assert_error(403, "This API key is read-only");
    }
    assert_eq!(names(&app).await, ["Bug"]);
    let deleted = app
        .call("tags.delete", Some(&member), json!({"id": bug["id"]}))
        .await;
    assert_eq!(deleted.status, 200);
    assert!(names(&app).await.is_empty());
}

async fn feedback_update_sets_and_clears_tags_shown_everywhere(app: TestApp) {
    let beta = tag(&app, "beta", Some("#111111")).await;
    let alpha = tag(&app, "Alpha", None).await;
    let item = app.feedback(json!({"title": "Dark mode"})).await;
    assert_eq!(item["tags"], json!([]), "a new item has no tags");

    let updated = set_tags(&app, &item, &[&beta, &alpha, &beta]).await;
    let expected = json!([on_feedback(&alpha), on_feedback(&beta)]);
    assert_eq!(updated["tags"], expected, "sorted by name, duplicates once");
    assert_eq!(info_tags(&app, &item).await, expected);
    let list = app.team("feedbacks.list", json!({})).await;
    assert_eq!(list.ok()[0]["tags"], expected);
    let public_list = app.team("public/feedbacks.list", json!({})).await;
    assert_eq!(public_list.ok()[0]["tags"], expected);
    let public_info = app
        .team("public/feedbacks.info", json!({"feedbackId": item["id"]}))
        .await;
    assert_eq!(public_info.ok()["tags"], expected);
    let event = app.events_of("feedbacks.update").await.pop().unwrap();
    assert_eq!(
        event["data"]["tags"], expected,
        "the event carries the tags"
    );

    // Other changes keep the tags.
    let retitled = app
        .team_data(
            "feedbacks.update",
            json!({"id": item["id"], "title": "Darker"}),
        )
        .await;
    assert_eq!(retitled["tags"], expected);
    let (_, token) = app.identify("jane@example.com").await;
    let voted = app
        .call(
            "public/feedback-votes.create",
            Some(&token),
            json!({"feedbackId": item["id"]}),
        )
        .await;
    assert_eq!(voted.status, 200);
    assert_eq!(info_tags(&app, &item).await, expected);

    let cleared = app
        .team_data("feedbacks.update", json!({"id": item["id"], "tagIds": []}))
        .await;
    assert_eq!(cleared["tags"], json!([]));
    assert_eq!(info_tags(&app, &item).await, json!([]));
    let event = app.events_of("feedbacks.update").await.pop().unwrap();
    assert_eq!(event["data"]["tags"], json!([]));
}

async fn unknown_or_other_team_tag_ids_are_404_and_change_nothing(app: TestApp) {
    let mine = tag(&app, "Mine", None).await;
    let item = app.feedback(json!({"title": "Export"})).await;
    set_tags(&app, &item, &[&mine]).await;
    let (_, other_key) = app.other_team("other").await;
    let theirs = app
        .data_with(&other_key, "tags.create", json!({"name": "Theirs"}))
        .await;
    let events_before = app.events().await.len();
    for ids in [
        json!([mine["id"], theirs["id"]]),
        json!([uuid::Uuid::new_v4().to_string()]),
    ] {
        app.team(
            "feedbacks.update",
            json!({"id": item["id"], "title": "Changed", "status": "planned", "tagIds": ids}),
        )
        .await
        .assert_error(404, "Tag not found");
    }
    let now = app
        .team_data("feedbacks.info", json!({"id": item["id"]}))
        .await;
    assert_eq!(
        (&now["title"], &now["status"], &now["tags"]),
        (
            &json!("Export"),
            &json!("in_review"),
            &json!([on_feedback(&mine)])
        )
    );
    assert_eq!(app.events().await.len(), events_before, "no events");
    // The other team cannot tag our item with its tag either.
    app.call(
        "feedbacks.update",
        Some(&other_key),
        json!({"id": item["id"], "tagIds": [theirs["id"]]}),
    )
    .await
    .assert_error(404, "Feedback not found");
}

async fn malformed_tag_ids_are_400_naming_the_field(app: TestApp) {
    let mine = tag(&app, "Mine", None).await;
    let item = app.feedback(json!({"title": "Export"})).await;
    set_tags(&app, &item, &[&mine]).await;
    for (tag_ids, message) in [
        (json!(["nope"]), "tagIds must be a list of UUIDs"),
        (json!([mine["id"], "x"]), "tagIds must be a list of UUIDs"),
        (json!(5), "tagIds must be a string or a list of strings"),
        (
            json!([1, 2]),
            "tagIds must be a string or a list of strings",
        ),
    ] {
        app.team(
            "feedbacks.update",
            json!({"id": item["id"], "title": "Changed", "tagIds": tag_ids}),
        )
        .await
        .assert_error(400, message);
    }
    let too_many: Vec<String> = (0..101).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    app.team(
        "feedbacks.update",
        json!({"id": item["id"], "tagIds": too_many}),
    )
    .await
    .assert_error(400, "tagIds must hold at most 100 tags");
    let now = app
        .team_data("feedbacks.info", json!({"id": item["id"]}))
        .await;
    assert_eq!(
        (&now["title"], &now["tags"]),
        (&json!("Export"), &json!([on_feedback(&mine)]))
    );
}

async fn the_tag_filter_lists_only_tagged_feedback(app: TestApp) {
    let t = tag(&app, "T", None).await;
    let u = tag(&app, "U", None).await;
    let a = app.feedback(json!({"title": "A"})).await;
    let b = app.feedback(json!({"title": "B"})).await;
    let c = app.feedback(json!({"title": "C"})).await;
    set_tags(&app, &a, &[&t]).await;
    set_tags(&app, &b, &[&t, &u]).await;
    set_tags(&app, &c, &[&u]).await;

    let listed = app.team("feedbacks.list", json!({"tagId": t["id"]})).await;
    assert_eq!(listed.each("title"), ["B", "A"]);
    assert_eq!(listed.total(), 2);
    let both = app
        .team("feedbacks.list", json!({"tagId": u["id"], "search": "b"}))
        .await;
    assert_eq!(both.each("title"), ["B"]);
    let public = app
        .team("public/feedbacks.list", json!({"tagId": u["id"]}))
        .await;
    assert_eq!(public.each("title"), ["C", "B"]);
    let nothing = app
        .team(
            "feedbacks.list",
            json!({"tagId": uuid::Uuid::new_v4().to_string()}),
        )
        .await;
    assert_eq!(nothing.total(), 0);
    app.team("feedbacks.list", json!({"tagId": "x"}))
        .await
        .assert_error(400, "tagId must be a UUID");
}

async fn deleting_a_tag_takes_it_off_every_feedback(app: TestApp) {
    let t = tag(&app, "T", None).await;
    let u = tag(&app, "U", None).await;
    let a = app.feedback(json!({"title": "A"})).await;
    let b = app.feedback(json!({"title": "B"})).await;
    set_tags(&app, &a, &[&t, &u]).await;
    set_tags(&app, &b, &[&t]).await;
    app.team_data("tags.delete", json!({"id": t["id"]})).await;
    assert_eq!(info_tags(&app, &a).await, json!([on_feedback(&u)]));
    assert_eq!(info_tags(&app, &b).await, json!([]));
    let listed = app.team("feedbacks.list", json!({"tagId": t["id"]})).await;
    assert_eq!(listed.total(), 0);
    // The deleted tag can no longer be put on an item.
    app.team(
        "feedbacks.update",
        json!({"id": b["id"], "tagIds": [t["id"]]}),
    )
    .await
    .assert_error(404, "Tag not found");
}

async fn renaming_a_tag_shows_on_its_feedback(app: TestApp) {
    let z = tag(&app, "zebra", None).await;
    let m = tag(&app, "middle", None).await;
    let item = app.feedback(json!({"title": "A"})).await;
    set_tags(&app, &item, &[&z, &m]).await;
    let renamed = app
        .team_data(
            "tags.update",
            json!({"id": z["id"], "name": "Aardvark", "color": "#abcdef"}),
        )
        .await;
    assert_eq!(
        info_tags(&app, &item).await,
        json!([
            {"id": z["id"], "name": "Aardvark", "color": "#ABCDEF"},
            on_feedback(&m)
        ])
    );
    assert_eq!(renamed["color"], "#ABCDEF");
}
