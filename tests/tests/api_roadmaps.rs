//! Roadmaps and their stages: team `roadmaps.*` and `stages.create|update|delete`, and the
//! public reads `public/stages.list` and `public/stages.info` (interface §2 Stage, §4, §7;
//! decisions §4, §5, §7).

use std::collections::{BTreeMap, BTreeSet};

use futures_util::future::join_all;
use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{
    client::{assert_timestamp, field_names},
    engine_tests,
    harness::OWNER_EMAIL,
    Reply, TestApp,
};

engine_tests!(
    roadmaps_are_created_listed_read_updated_and_deleted,
    only_owners_and_admins_manage_roadmaps_and_stages,
    a_roadmap_holding_topics_is_deleted_only_with_force,
    a_new_stage_is_returned_whole,
    stage_input_is_checked,
    stage_orders_stay_gapless_through_insert_move_and_delete,
    concurrent_stage_creation_keeps_orders_gapless,
    a_stage_holding_topics_is_deleted_only_with_force,
    stages_list_shows_private_stages_only_to_members_who_ask,
    stage_info_hides_a_private_stage_from_non_members,
    stage_info_counts_published_topics_and_sorts_and_pages_them,
    another_teams_roadmaps_and_stages_are_not_found,
);

const NOT_EMPTY: &str =
    "Stage still holds topics; move them, or pass force: true to delete them too";

/// The roadmap's stages (private ones too) as `"name:order"`, by order.
async fn orders(app: &TestApp, roadmap: &Value) -> Vec<String> {
    let body = json!({"roadmapId": roadmap["id"], "includePrivate": true});
    let stages = app.team_data("public/stages.list", body).await;
    let stages = stages.as_array().expect("a list").iter();
    stages
        .map(|s| format!("{}:{}", s["name"].as_str().unwrap(), s["order"]))
        .collect()
}

fn names(list: &str) -> BTreeSet<&str> {
    list.split(' ').collect()
}

/// The names `public/stages.list` shows `token` with these parameters.
async fn listed(app: &TestApp, token: &str, body: Value) -> Vec<String> {
    let reply = app.call("public/stages.list", Some(token), body).await;
    reply.each("name").into_iter().map(String::from).collect()
}

async fn stage_info(app: &TestApp, token: &str, body: Value) -> Reply {
    app.call("public/stages.info", Some(token), body).await
}

async fn roadmaps_are_created_listed_read_updated_and_deleted(app: TestApp) {
    let body = json!({"name": "Product", "description": "What we build next"});
    let product = app.team_data("roadmaps.create", body).await;
    assert_eq!(
        field_names(&product),
        names("createdAt description id isPrivate name teamId updatedAt")
    );
    assert_eq!(product["name"], "Product");
    assert_eq!(product["isPrivate"], false);
    assert_eq!(product["description"], "What we build next");
    assert_eq!(product["teamId"], app.team_id);
    assert_timestamp(&product["createdAt"]);
    assert_eq!(product["updatedAt"], product["createdAt"]);
    let api = app.roadmap("API").await;
    assert_eq!(api["description"], "");
    let docs = app.roadmap("Docs").await;
    // Oldest first, paged.
    let all = app.team("roadmaps.list", json!({})).await;
    assert_eq!(all.each("name"), ["Product", "API", "Docs"]);
    assert_eq!(all.total(), 3);
    assert_eq!(all.ok()[0], product);
    let page = app
        .team("roadmaps.list", json!({"limit": 1, "offset": 1}))
        .await;
    assert_eq!(page.each("name"), ["API"]);
    assert_eq!(
        page.body["pagination"],
        json!({"total": 3, "limit": 1, "offset": 1})
    );
    assert_eq!(
        app.team_data("roadmaps.info", json!({"id": api["id"]}))
            .await,
        api
    );
    // Only the fields given change.
    let body = json!({"id": api["id"], "name": "Public API"});
    let renamed = app.team_data("roadmaps.update", body).await;
    assert_eq!(
        (&renamed["name"], &renamed["description"], &renamed["id"]),
        (&json!("Public API"), &json!(""), &api["id"])
    );
    assert_eq!(renamed["createdAt"], api["createdAt"]);
    let body = json!({"id": api["id"], "description": "Endpoints"});
    let described = app.team_data("roadmaps.update", body).await;
    assert_eq!(
        (&described["name"], &described["description"]),
        (&json!("Public API"), &json!("Endpoints"))
    );
    let info = app
        .team_data("roadmaps.info", json!({"id": api["id"]}))
        .await;
    assert_eq!(info, described);
    // Delete, then it is gone everywhere.
    let deleted = app.team("roadmaps.delete", json!({"id": docs["id"]})).await;
    deleted.assert_body(200, json!({"success": true, "id": docs["id"]}));
    let all = app.team("roadmaps.list", json!({})).await;
    assert_eq!(all.each("name"), ["Product", "Public API"]);
    for (op, body) in [
        ("roadmaps.info", json!({"id": docs["id"]})),
        ("roadmaps.update", json!({"id": docs["id"], "name": "X"})),
        ("roadmaps.delete", json!({"id": docs["id"]})),
    ] {
        app.team(op, body)
            .await
            .assert_error(404, "Roadmap not found");
    }
    // Input.
    let reply = app.team("roadmaps.create", json!({})).await;
    reply.assert_error(400, "name is required");
    let reply = app.team("roadmaps.create", json!({"name": "   "})).await;
    reply.assert_status(400);
    let reply = app.team("roadmaps.info", json!({"id": "nope"})).await;
    reply.assert_error(400, "id must be a UUID");
    assert_eq!(app.team("roadmaps.list", json!({})).await.total(), 2);
}

async fn only_owners_and_admins_manage_roadmaps_and_stages(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Ideas"})).await;
    let (member, _) = app.key_with(Role::Member, false).await;
    let (admin, _) = app.key_with(Role::Admin, false).await;
    let (read_only, _) = app.key_with(Role::Owner, true).await;
    let (rid, sid) = (&roadmap["id"], &stage["id"]);
    for (area, op, body) in [
        ("roadmaps", "roadmaps.create", json!({"name": "M"})),
        (
            "roadmaps",
            "roadmaps.update",
            json!({"id": rid, "name": "M"}),
        ),
        ("roadmaps", "roadmaps.delete", json!({"id": rid})),
        (
            "stages",
            "stages.create",
            json!({"roadmapId": rid, "name": "M"}),
        ),
        ("stages", "stages.update", json!({"id": sid, "name": "M"})),
        ("stages", "stages.delete", json!({"id": sid})),
    ] {
        let reply = app.call(op, Some(&member), body.clone()).await;
        reply.assert_error(403, &format!("The member role cannot manage {area}"));
        let reply = app.call(op, Some(&read_only), body).await;
        reply.assert_error(403, "This API key is read-only");
    }
    // Nothing changed; members and read-only keys still read.
    for key in [&member, &read_only] {
        let list = app.call("roadmaps.list", Some(key), json!({})).await;
        assert_eq!(list.each("name"), ["Product"]);
        let info = app.call("roadmaps.info", Some(key), json!({"id": rid}));
        assert_eq!(info.await.ok(), &roadmap);
    }
    assert_eq!(orders(&app, &roadmap).await, ["Ideas:1"]);
    // An admin may.
    let body = json!({"roadmapId": roadmap["id"], "name": "Next"});
    let made = app.call("stages.create", Some(&admin), body).await;
    assert_eq!(made.ok()["order"], 2);
    let body = json!({"id": roadmap["id"], "name": "Core"});
    let renamed = app.call("roadmaps.update", Some(&admin), body).await;
    assert_eq!(renamed.ok()["name"], "Core");
}

async fn a_roadmap_holding_topics_is_deleted_only_with_force(app: TestApp) {
    let full = app.roadmap("Full").await;
    let empty = app.roadmap("Empty").await;
    let stage = app.stage(&full, json!({"name": "Ideas"})).await;
    app.stage(&empty, json!({"name": "Only a stage"})).await;
    let (_, code) = app.identify("author@example.com").await;
    let topic = json!({"title": "Dark mode"});
    let topic = app.topic(&code, &stage, topic).await;
    // With a comment thread, a vote, a visit and a follower, all of which go with it.
    let body = json!({"id": topic["id"], "text": "A comment"});
    let op = "public/topic-comments.create";
    let parent = app.call(op, Some(&code), body).await.ok()["id"].clone();
    let body = json!({"id": topic["id"], "text": "A reply", "parentId": parent});
    app.call(op, Some(&code), body).await.ok();
    let body = json!({"id": topic["id"]});
    app.call("public/topic-votes.create", Some(&code), body.clone())
        .await
        .ok();
    app.call("public/topics.info", Some(&code), body).await.ok();
    let id = &full["id"];
    for body in [json!({"id": id}), json!({"id": id, "force": false})] {
        app.team("roadmaps.delete", body).await.assert_error(
            409,
            "Roadmap still holds topics; delete them first or pass force: true",
        );
    }
    assert_eq!(app.team("topics.list", json!({})).await.total(), 1);
    assert_eq!(orders(&app, &full).await, ["Ideas:1"]);
    // Stages alone do not hold a roadmap back.
    let body = json!({"id": empty["id"]});
    let gone = app.team("roadmaps.delete", body).await;
    gone.assert_body(200, json!({"success": true, "id": empty["id"]}));
    // Forced, the topics, their comments and the stages go too.
    let body = json!({"id": full["id"], "force": true});
    let forced = app.team("roadmaps.delete", body).await;
    forced.assert_body(200, json!({"success": true, "id": full["id"]}));
    assert_eq!(app.team("topics.list", json!({})).await.total(), 0);
    let comments = app.team("public/topic-comments.list", json!({})).await;
    assert_eq!(comments.ok(), &json!([]));
    let body = json!({"id": topic["id"]});
    let info = app.call("public/topics.info", Some(&code), body).await;
    assert_eq!(info.body["data"], Value::Null);
    let body = json!({"roadmapId": full["id"]});
    let reply = app.team("public/stages.list", body).await;
    reply.assert_error(404, "Roadmap not found");
    let reply = stage_info(&app, &app.key, json!({"stageId": stage["id"]})).await;
    reply.assert_error(404, "Stage not found");
    assert_eq!(app.team("roadmaps.list", json!({})).await.total(), 0);
}

async fn a_new_stage_is_returned_whole(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    let plain = app.stage(&roadmap, json!({"name": "Ideas"})).await;
    assert_eq!(
        field_names(&plain),
        names("createdAt id meta name order roadmapId updatedAt")
    );
    assert_eq!(
        (&plain["name"], &plain["roadmapId"], &plain["order"]),
        (&json!("Ideas"), &roadmap["id"], &json!(1))
    );
    assert_eq!(
        plain["meta"],
        json!({"isPrivate": false, "disableModeration": false, "color": null})
    );
    assert_timestamp(&plain["createdAt"]);
    assert_timestamp(&plain["updatedAt"]);
    let meta = json!({"isPrivate": true, "disableModeration": true, "color": "#12ab9F", "x": 1});
    let dressed = json!({"name": "Internal", "meta": meta});
    let dressed = app.stage(&roadmap, dressed).await;
    assert_eq!(dressed["order"], 2);
    assert_eq!(
        dressed["meta"],
        json!({"isPrivate": true, "disableModeration": true, "color": "#12AB9F"})
    );
    // The list returns the same objects; info adds topicCount.
    let body = json!({"roadmapId": roadmap["id"], "includePrivate": true});
    let list = app.team_data("public/stages.list", body).await;
    assert_eq!(list, json!([plain, dressed]));
    let info = stage_info(&app, &app.key, json!({"stageId": plain["id"]})).await;
    let mut expected = plain.clone();
    expected["topicCount"] = json!(0);
    assert_eq!(info.ok(), &expected);
    assert_eq!(info.body["topics"], json!([]));
    let pagination = json!({"total": 0, "limit": 50, "offset": 0});
    assert_eq!(info.body["pagination"], pagination);
    // Update changes only what it names.
    let body = json!({"id": dressed["id"], "name": "Team only", "meta": {"color": null}});
    let updated = app.team_data("stages.update", body).await;
    assert_eq!(
        (&updated["name"], &updated["order"]),
        (&json!("Team only"), &json!(2))
    );
    assert_eq!(
        updated["meta"],
        json!({"isPrivate": true, "disableModeration": true, "color": null})
    );
    assert_eq!(updated["createdAt"], dressed["createdAt"]);
}

async fn stage_input_is_checked(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Ideas"})).await;
    // Each operation's own fields: an update takes no roadmapId, a create no id, a delete
    // only its id.
    let for_op = |op: &str, key: &str, value: Value| {
        let mut body = match op {
            "stages.create" => json!({"roadmapId": roadmap["id"], "name": "New"}),
            "stages.update" => json!({"id": stage["id"], "name": "New"}),
            _ => json!({"id": stage["id"]}),
        };
        body[key] = value;
        body
    };
    let on = |key: &str, value: Value| for_op("stages.create", key, value);
    let missing = json!(uuid::Uuid::now_v7());
    for (op, order) in [
        ("stages.create", 0),
        ("stages.create", -1),
        ("stages.update", 0),
    ] {
        let reply = app.team(op, for_op(op, "order", json!(order))).await;
        reply.assert_error(400, "order must be 1 or more");
    }
    for (key, value, message) in [
        ("name", Value::Null, "name is required"),
        ("roadmapId", Value::Null, "roadmapId is required"),
        (
            "meta",
            json!({"isPrivate": 1}),
            "meta.isPrivate must be a boolean",
        ),
    ] {
        let reply = app.team("stages.create", on(key, value)).await;
        reply.assert_error(400, message);
    }
    let body = on("meta", json!({"color": "red"}));
    app.team("stages.create", body).await.assert_status(400);
    let body = on("roadmapId", missing.clone());
    let reply = app.team("stages.create", body).await;
    reply.assert_error(404, "Roadmap not found");
    for op in ["stages.update", "stages.delete"] {
        let reply = app.team(op, for_op(op, "id", missing.clone())).await;
        reply.assert_error(404, "Stage not found");
    }
    let (info, list) = ("public/stages.info", "public/stages.list");
    for (op, body, status, message) in [
        (info, json!({"stageId": missing}), 404, "Stage not found"),
        (info, json!({}), 400, "stageId is required"),
        (list, json!({}), 400, "roadmapId is required"),
        (
            list,
            json!({"roadmapId": missing}),
            404,
            "Roadmap not found",
        ),
    ] {
        app.team(op, body).await.assert_error(status, message);
    }
    // Nothing was created, changed or renumbered.
    assert_eq!(orders(&app, &roadmap).await, ["Ideas:1"]);
    let info = stage_info(&app, &app.key, json!({"stageId": stage["id"]})).await;
    assert_eq!(info.ok()["name"], "Ideas");
}

async fn stage_orders_stay_gapless_through_insert_move_and_delete(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    let other = app.roadmap("Other").await;
    let other_stage = app.stage(&other, json!({"name": "Elsewhere"})).await;
    let mut ids = BTreeMap::new();
    let mut add = |name: &'static str, stage: Value| {
        ids.insert(name, stage["id"].clone());
        stage["order"].clone()
    };
    for name in ["A", "B", "C"] {
        add(name, app.stage(&roadmap, json!({ "name": name })).await);
    }
    assert_eq!(orders(&app, &roadmap).await, ["A:1", "B:2", "C:3"]);
    // Insert at a position: the rest shift down; past the end is last.
    let d = app.stage(&roadmap, json!({"name": "D", "order": 2})).await;
    assert_eq!(add("D", d), 2);
    assert_eq!(orders(&app, &roadmap).await, ["A:1", "D:2", "B:3", "C:4"]);
    let meta = json!({"isPrivate": true});
    let p = json!({"name": "P", "order": 1, "meta": meta});
    let p = app.stage(&roadmap, p).await;
    assert_eq!(add("P", p), 1);
    let expected = ["P:1", "A:2", "D:3", "B:4", "C:5"];
    assert_eq!(orders(&app, &roadmap).await, expected);
    let e = app.stage(&roadmap, json!({"name": "E", "order": 99})).await;
    assert_eq!(add("E", e), 6);
    // Move up, move down, move past the end.
    for (name, to, at, expected) in [
        ("C", 1, 1, ["C:1", "P:2", "A:3", "D:4", "B:5", "E:6"]),
        ("P", 5, 5, ["C:1", "A:2", "D:3", "B:4", "P:5", "E:6"]),
        ("A", 40, 6, ["C:1", "D:2", "B:3", "P:4", "E:5", "A:6"]),
    ] {
        let body = json!({"id": ids[name], "order": to});
        let moved = app.team_data("stages.update", body).await;
        assert_eq!(moved["order"], at, "{name}");
        assert_eq!(orders(&app, &roadmap).await, expected, "{name}");
    }
    // Renaming without an order keeps the place.
    let body = json!({"id": ids["B"], "name": "B2"});
    let renamed = app.team_data("stages.update", body).await;
    assert_eq!(renamed["order"], 3);
    // Deleting closes the gap.
    for (name, expected) in [
        ("D", vec!["C:1", "B2:2", "P:3", "E:4", "A:5"]),
        ("C", vec!["B2:1", "P:2", "E:3", "A:4"]),
        ("A", vec!["B2:1", "P:2", "E:3"]),
    ] {
        let reply = app.team("stages.delete", json!({"id": ids[name]})).await;
        reply.assert_body(200, json!({"success": true, "id": ids[name]}));
        assert_eq!(orders(&app, &roadmap).await, expected, "{name}");
    }
    // The public list is by order too; the other roadmap never moved.
    let public = listed(&app, &app.key, json!({"roadmapId": roadmap["id"]})).await;
    assert_eq!(public, ["B2", "E"]);
    assert_eq!(orders(&app, &other).await, ["Elsewhere:1"]);
    let info = stage_info(&app, &app.key, json!({"stageId": other_stage["id"]})).await;
    assert_eq!(info.ok()["order"], 1);
}

async fn concurrent_stage_creation_keeps_orders_gapless(app: TestApp) {
    let roadmap = app.roadmap("Busy").await;
    let made = join_all((0..12).map(|i| {
        let (app, roadmap) = (&app, &roadmap);
        let order = if i % 3 == 0 { json!(1) } else { Value::Null };
        let body = json!({"name": format!("S{i}"), "order": order});
        async move { app.stage(roadmap, body).await }
    }))
    .await;
    assert_eq!(made.len(), 12);
    let found: Vec<i64> = orders(&app, &roadmap)
        .await
        .iter()
        .map(|s| s.split(':').nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(found, (1..=12).collect::<Vec<i64>>());
    let names: BTreeSet<String> = orders(&app, &roadmap).await.into_iter().collect();
    assert_eq!(names.len(), 12);
}

async fn a_stage_holding_topics_is_deleted_only_with_force(app: TestApp) {
    let body = json!({"publicBoardModeration": true});
    app.team("teams.update", body).await.ok();
    let roadmap = app.roadmap("Product").await;
    let meta = json!({"disableModeration": true});
    let open = json!({"name": "Open", "meta": meta});
    let open = app.stage(&roadmap, open).await;
    let held = app.stage(&roadmap, json!({"name": "Held"})).await;
    let last = app.stage(&roadmap, json!({"name": "Last"})).await;
    let (_, code) = app.identify("author@example.com").await;
    let published = app.topic(&code, &open, json!({"title": "Shown"})).await;
    let unpublished = app.topic(&code, &held, json!({"title": "Pending"})).await;
    assert_eq!(unpublished["publishedAt"], Value::Null);
    // Published or not, a topic holds its stage.
    for stage in [&open, &held] {
        let id = &stage["id"];
        for body in [json!({"id": id}), json!({"id": id, "force": false})] {
            let reply = app.team("stages.delete", body).await;
            reply.assert_error(409, NOT_EMPTY);
        }
    }
    assert_eq!(orders(&app, &roadmap).await, ["Open:1", "Held:2", "Last:3"]);
    // Moving the topic away frees the stage.
    let body = json!({"id": published["id"], "stageId": last["id"]});
    app.team("topics.update", body).await.ok();
    let freed = app.team("stages.delete", json!({"id": open["id"]})).await;
    freed.assert_body(200, json!({"success": true, "id": open["id"]}));
    // Force takes the topics along.
    let body = json!({"id": held["id"], "force": true});
    let forced = app.team("stages.delete", body).await;
    forced.assert_body(200, json!({"success": true, "id": held["id"]}));
    assert_eq!(orders(&app, &roadmap).await, ["Last:1"]);
    let left = app.team("topics.list", json!({})).await;
    assert_eq!(left.each("title"), ["Shown"]);
    let body = json!({"id": unpublished["id"], "title": "X"});
    let reply = app.team("topics.update", body).await;
    reply.assert_error(404, "Topic not found");
}

async fn stages_list_shows_private_stages_only_to_members_who_ask(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    app.stage(&roadmap, json!({"name": "Ideas"})).await;
    let secret = json!({"name": "Secret", "meta": {"isPrivate": true}});
    app.stage(&roadmap, secret).await;
    app.stage(&roadmap, json!({"name": "Done"})).await;
    let (_, stranger) = app.identify("stranger@example.com").await;
    let (_, owner) = app.identify(OWNER_EMAIL).await;
    let (member_key, _) = app.key_with(Role::Member, true).await;
    let asking = json!({"roadmapId": roadmap["id"], "includePrivate": true});
    let plain = json!({"roadmapId": roadmap["id"]});
    let not_asking = json!({"roadmapId": roadmap["id"], "includePrivate": false});
    let (all, public) = (["Ideas", "Secret", "Done"], ["Ideas", "Done"]);
    for token in [&app.key, &member_key, &owner] {
        assert_eq!(listed(&app, token, asking.clone()).await, all);
        assert_eq!(listed(&app, token, plain.clone()).await, public);
        assert_eq!(listed(&app, token, not_asking.clone()).await, public);
    }
    // A subscriber who is no team member asks in vain, silently.
    assert_eq!(listed(&app, &stranger, asking.clone()).await, public);
    assert_eq!(listed(&app, &stranger, plain).await, public);
    // Without any credential there is nothing to list.
    let reply = app.call("public/stages.list", None, asking).await;
    reply.assert_error(401, "Authentication required");
}

async fn stage_info_hides_a_private_stage_from_non_members(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    let secret = json!({"name": "Secret", "meta": {"isPrivate": true}});
    let secret = app.stage(&roadmap, secret).await;
    let (_, stranger) = app.identify("stranger@example.com").await;
    let (_, owner) = app.identify(OWNER_EMAIL).await;
    let reply = stage_info(&app, &stranger, json!({"stageId": secret["id"]})).await;
    reply.assert_error(404, "Stage not found");
    let mut expected = secret.clone();
    expected["topicCount"] = json!(0);
    for token in [&owner, &app.key] {
        let reply = stage_info(&app, token, json!({"stageId": secret["id"]})).await;
        assert_eq!(reply.ok(), &expected);
        assert_eq!(reply.body["topics"], json!([]));
    }
    // Made public, the stranger sees it.
    let body = json!({"id": secret["id"], "meta": {"isPrivate": false}});
    app.team("stages.update", body).await.ok();
    let seen = stage_info(&app, &stranger, json!({"stageId": secret["id"]})).await;
    assert_eq!(seen.ok()["meta"]["isPrivate"], false);
}

async fn stage_info_counts_published_topics_and_sorts_and_pages_them(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Ideas"})).await;
    let (_, code) = app.identify("author@example.com").await;
    // Created in this order; votes: Banana 2, Apple 1, Cherry 3, Date 0.
    let mut topics = Vec::new();
    for title in ["Banana", "Apple", "Cherry", "Date"] {
        topics.push(app.topic(&code, &stage, json!({ "title": title })).await);
    }
    let mut voters = Vec::new();
    for i in 0..3 {
        voters.push(app.identify(&format!("v{i}@example.com")).await.1);
    }
    for (topic, n) in [(&topics[0], 2), (&topics[1], 1), (&topics[2], 3)] {
        for voter in &voters[..n] {
            let body = json!({"id": topic["id"]});
            let op = "public/topic-votes.create";
            app.call(op, Some(voter), body).await.ok();
        }
    }
    // An unpublished topic is neither counted nor listed.
    let body = json!({"id": topics[3]["id"], "publish": false});
    app.team("topics.update", body).await.ok();
    let titles = |mut body: Value| {
        let app = &app;
        body["stageId"] = stage["id"].clone();
        async move {
            let reply = stage_info(app, &app.key, body).await;
            assert_eq!(reply.ok()["topicCount"], 3);
            let topics = reply.body["topics"].as_array().unwrap().iter();
            let titles = topics.map(|t| t["title"].as_str().unwrap().into());
            let titles: Vec<String> = titles.collect();
            (titles, reply.body["pagination"].clone())
        }
    };
    let (newest, pagination) = titles(json!({})).await;
    assert_eq!(newest, ["Cherry", "Apple", "Banana"]);
    assert_eq!(pagination, json!({"total": 3, "limit": 50, "offset": 0}));
    for (sort, direction, expected) in [
        ("createdAt", "ASC", ["Banana", "Apple", "Cherry"]),
        ("title", "ASC", ["Apple", "Banana", "Cherry"]),
        ("title", "DESC", ["Cherry", "Banana", "Apple"]),
        ("voteCount", "DESC", ["Cherry", "Banana", "Apple"]),
        ("voteCount", "ASC", ["Apple", "Banana", "Cherry"]),
        ("updatedAt", "ASC", ["Banana", "Apple", "Cherry"]),
    ] {
        let body = json!({"sort": sort, "direction": direction});
        assert_eq!(titles(body).await.0, expected, "{sort} {direction}");
    }
    let body = json!({"sort": "voteCount"});
    assert_eq!(titles(body).await.0, ["Cherry", "Banana", "Apple"]);
    let (page, pagination) = titles(json!({"sort": "title", "limit": 1, "offset": 1})).await;
    assert_eq!(page, ["Banana"]);
    assert_eq!(pagination, json!({"total": 3, "limit": 1, "offset": 1}));
    // Listed topics are whole topic objects, counts included.
    let body = json!({"stageId": stage["id"], "sort": "title"});
    let listed = stage_info(&app, &app.key, body).await.body["topics"][1].clone();
    let expected = app.team_data("topics.list", json!({"sort": "title"})).await[2].clone();
    assert_eq!(listed, expected);
    assert_eq!(
        (&listed["title"], &listed["voteCount"]),
        (&json!("Banana"), &json!(2))
    );
    assert_eq!(listed["commentCount"], 0);
    let summary = json!({"id": stage["id"], "name": "Ideas", "order": 1});
    assert_eq!(listed["stage"], summary);
    // Bad parameters.
    let id = &stage["id"];
    let reply = stage_info(&app, &app.key, json!({"stageId": id, "sort": "votes"})).await;
    reply.assert_error(
        400,
        "sort must be one of createdAt, updatedAt, title, voteCount",
    );
    let reply = stage_info(&app, &app.key, json!({"stageId": id, "direction": "UP"})).await;
    reply.assert_error(400, "direction must be one of ASC, DESC");
    for limit in [0, -1] {
        let body = json!({"stageId": stage["id"], "limit": limit});
        stage_info(&app, &app.key, body).await.assert_status(400);
    }
}

async fn another_teams_roadmaps_and_stages_are_not_found(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Ideas"})).await;
    let (_, other_key) = app.other_team("acme").await;
    let (_, outsider) = app.identify_with(&other_key, "someone@acme.test").await;
    let (rid, sid) = (&roadmap["id"], &stage["id"]);
    for (op, body) in [
        ("roadmaps.info", json!({"id": rid})),
        ("roadmaps.update", json!({"id": rid, "name": "M"})),
        ("roadmaps.delete", json!({"id": rid, "force": true})),
        ("stages.create", json!({"roadmapId": rid, "name": "M"})),
    ] {
        let reply = app.call(op, Some(&other_key), body).await;
        reply.assert_error(404, "Roadmap not found");
    }
    for (op, body) in [
        ("stages.update", json!({"id": sid, "name": "M"})),
        ("stages.delete", json!({"id": sid, "force": true})),
        ("public/stages.info", json!({"stageId": sid})),
    ] {
        let reply = app.call(op, Some(&other_key), body.clone()).await;
        reply.assert_error(404, "Stage not found");
        if op.starts_with("public/") {
            let reply = app.call(op, Some(&outsider), body).await;
            reply.assert_error(404, "Stage not found");
        }
    }
    for token in [&other_key, &outsider] {
        let body = json!({"roadmapId": roadmap["id"]});
        let reply = app.call("public/stages.list", Some(token), body).await;
        reply.assert_error(404, "Roadmap not found");
    }
    let theirs = app.call("roadmaps.list", Some(&other_key), json!({})).await;
    assert_eq!(theirs.total(), 0);
    // Untouched.
    assert_eq!(orders(&app, &roadmap).await, ["Ideas:1"]);
    let info = app.team_data("roadmaps.info", json!({"id": rid})).await;
    assert_eq!(info, roadmap);
}
