//! Userorbit's spellings (issue 18, docs/api.md "Userorbit compatibility"): each alias does
//! what our own name does, a contradiction between the two spellings is a 400 that changes
//! nothing, and one test per alias.

use std::sync::Arc;

use serde_json::{json, Value};
use sounding_domain::ports::Clock;
use sounding_tests::{engine_tests, harness::ManualClock, Engine, TestApp};

engine_tests!(
    board_public_is_meta_is_public,
    stage_title_is_name,
    stage_private_is_meta_is_private,
    roadmap_create_takes_private_and_inline_stages,
    feedback_create_takes_tag_ids_atomically,
    feedback_create_takes_an_existing_subscriber_as_creator_id,
    feedback_count_says_all_beside_total,
    zapier_names_subscribe_and_unsubscribe,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feedback_lists_take_a_created_at_range_from_to_sqlite() {
    feedback_lists_take_a_created_at_range_from_to(Engine::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feedback_lists_take_a_created_at_range_from_to_postgres() {
    feedback_lists_take_a_created_at_range_from_to(Engine::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feedback_lists_take_a_created_at_range_from_to_memory() {
    feedback_lists_take_a_created_at_range_from_to(Engine::Memory).await;
}

async fn board_public_is_meta_is_public(app: TestApp) {
    let private = app
        .board(json!({"name": "Internal", "public": false}))
        .await;
    assert_eq!(private["meta"]["isPublic"], false);
    let public = app.board(json!({"name": "Ideas", "public": "true"})).await;
    assert_eq!(public["meta"]["isPublic"], true);
    let listed = app.team("public/feedback-boards.list", json!({})).await;
    assert_eq!(listed.each("name"), ["Ideas"]);

    let update = json!({"id": private["id"], "public": true});
    let updated = app.team_data("feedback-boards.update", update).await;
    assert_eq!(updated["meta"]["isPublic"], true);

    // Both spellings must agree; a contradiction creates and changes nothing.
    let before = app.census().await;
    let both = json!({"name": "Both", "public": false, "meta": {"isPublic": true}});
    app.team("feedback-boards.create", both)
        .await
        .assert_error(400, "give public or meta.isPublic, not both");
    let both = json!({"id": private["id"], "public": false, "meta": {"isPublic": true}});
    app.team("feedback-boards.update", both)
        .await
        .assert_status(400);
    let agreeing = json!({"name": "Same", "public": false, "meta": {"isPublic": false}});
    app.team("feedback-boards.create", agreeing)
        .await
        .assert_status(400);
    assert_eq!(app.census().await, before);
}

async fn stage_title_is_name(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    let body = json!({"roadmapId": roadmap["id"], "title": "Next"});
    let stage = app.team_data("stages.create", body).await;
    assert_eq!(stage["name"], "Next");
    let body = json!({"id": stage["id"], "title": "Later"});
    assert_eq!(app.team_data("stages.update", body).await["name"], "Later");

    let both = json!({"roadmapId": roadmap["id"], "name": "A", "title": "B"});
    app.team("stages.create", both)
        .await
        .assert_error(400, "name is given twice (under two of its names)");
    let body = json!({"roadmapId": roadmap["id"], "includePrivate": true});
    let stages = app.team("public/stages.list", body).await;
    assert_eq!(stages.each("name"), ["Later"]);
}

async fn stage_private_is_meta_is_private(app: TestApp) {
    let roadmap = app.roadmap("Product").await;
    let body = json!({"roadmapId": roadmap["id"], "name": "Hidden", "private": true});
    let hidden = app.team_data("stages.create", body).await;
    assert_eq!(hidden["meta"]["isPrivate"], true);
    // Private for real: a subscriber who is not a team member does not see it.
    let (_, token) = app.identify("ann@example.com").await;
    let listed = app
        .call(
            "public/stages.list",
            Some(&token),
            json!({"roadmapId": roadmap["id"]}),
        )
        .await;
    assert_eq!(listed.ok(), &json!([]));

    let body = json!({"id": hidden["id"], "private": false});
    let shown = app.team_data("stages.update", body).await;
    assert_eq!(shown["meta"]["isPrivate"], false);
    let body = json!({"id": hidden["id"], "private": true, "meta": {"isPrivate": false}});
    app.team("stages.update", body)
        .await
        .assert_error(400, "give private or meta.isPrivate, not both");
}

async fn roadmap_create_takes_private_and_inline_stages(app: TestApp) {
    let body = json!({
        "name": "Internal",
        "private": true,
        "stages": [
            {"title": "Ideas"},
            {"name": "Shipped", "meta": {"isPrivate": false, "color": "#00FF00"}},
        ],
    });
    let reply = app.team("roadmaps.create", body).await;
    let roadmap = reply.ok().clone();
    assert_eq!(roadmap["isPrivate"], true);
    let made: Vec<(&Value, &Value, &Value)> = reply.body["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (&s["name"], &s["order"], &s["meta"]["isPrivate"]))
        .collect();
    assert_eq!(
        made,
        [
            (&json!("Ideas"), &json!(1), &json!(true)),
            (&json!("Shipped"), &json!(2), &json!(false)),
        ]
    );
    let listed = app
        .team(
            "public/stages.list",
            json!({"roadmapId": roadmap["id"], "includePrivate": true}),
        )
        .await;
    assert_eq!(listed.each("name"), ["Ideas", "Shipped"]);
    // A later stage starts private too, unless it says otherwise.
    let later = app.stage(&roadmap, json!({"name": "Later"})).await;
    assert_eq!(later["meta"]["isPrivate"], true);
    let open = app
        .stage(&roadmap, json!({"name": "Open", "private": false}))
        .await;
    assert_eq!(open["meta"]["isPrivate"], false);
    let public = app.roadmap("Public").await;
    assert_eq!(public["isPrivate"], false);
    assert_eq!(
        app.stage(&public, json!({"name": "Now"})).await["meta"]["isPrivate"],
        false
    );

    // A bad inline stage refuses the whole roadmap.
    let before = app.census().await;
    let bad = [
        (
            json!({"name": "X", "stages": [{"title": "A"}, {"title": "B", "icon": "star"}]}),
            "Unknown parameter: stages[1].icon",
        ),
        (
            json!({"name": "X", "stages": [{"title": "A"}, {"title": " "}]}),
            "stages[1].name is required",
        ),
        (
            json!({"name": "X", "stages": [{"name": "A", "private": true, "meta": {"isPrivate": false}}]}),
            "give stages[0].private or meta.isPrivate, not both",
        ),
    ];
    for (body, message) in bad {
        app.team("roadmaps.create", body)
            .await
            .assert_error(400, message);
    }
    let too_many: Vec<Value> = (0..51)
        .map(|i| json!({ "name": format!("S{i}") }))
        .collect();
    app.team("roadmaps.create", json!({"name": "X", "stages": too_many}))
        .await
        .assert_error(400, "stages must hold at most 50 stages");
    assert_eq!(app.census().await, before);
    // Privacy is set at creation only.
    app.team(
        "roadmaps.update",
        json!({"id": roadmap["id"], "private": false}),
    )
    .await
    .assert_error(400, "Unknown parameter: private");
}

async fn feedback_create_takes_tag_ids_atomically(app: TestApp) {
    let bug = app.team_data("tags.create", json!({"name": "Bug"})).await;
    let ux = app.team_data("tags.create", json!({"name": "UX"})).await;
    let body = json!({"title": "Tagged", "tagIds": [ux["id"], bug["id"]]});
    let item = app.feedback(body).await;
    let names: Vec<&Value> = item["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert_eq!(names, [&json!("Bug"), &json!("UX")]);
    let read = app
        .team_data("feedbacks.info", json!({"id": item["id"]}))
        .await;
    assert_eq!(read["tags"], item["tags"]);
    let by_tag = app.team("feedbacks.list", json!({"tagId": ux["id"]})).await;
    assert_eq!(by_tag.each("title"), ["Tagged"]);

    // A tag that is not the team's: 404, and no item, no event.
    let (_, other_key) = app.other_team("elsewhere").await;
    let foreign = app
        .data_with(&other_key, "tags.create", json!({"name": "Theirs"}))
        .await;
    let before = app.census().await;
    for tag in [foreign["id"].clone(), json!(uuid::Uuid::now_v7())] {
        let body = json!({"title": "Never", "tagIds": [bug["id"], tag]});
        app.team("feedbacks.create", body)
            .await
            .assert_error(404, "Tag not found");
    }
    app.team(
        "feedbacks.create",
        json!({"title": "Never", "tagIds": ["x"]}),
    )
    .await
    .assert_status(400);
    assert_eq!(app.census().await, before);
}

async fn feedback_create_takes_an_existing_subscriber_as_creator_id(app: TestApp) {
    let (ann, _) = app.identify("ann@example.com").await;
    let item = app
        .feedback(json!({"title": "For Ann", "creatorId": ann["id"]}))
        .await;
    assert_eq!(item["creatorId"], ann["id"]);
    assert_eq!(item["subscriber"]["email"], "ann@example.com");

    let (_, other_key) = app.other_team("elsewhere").await;
    let (stranger, _) = app.identify_with(&other_key, "zed@example.com").await;
    let before = app.census().await;
    for id in [stranger["id"].clone(), json!(uuid::Uuid::now_v7())] {
        app.team(
            "feedbacks.create",
            json!({"title": "Never", "creatorId": id}),
        )
        .await
        .assert_error(404, "Subscriber not found");
    }
    let mixed = json!({"title": "Never", "creatorId": ann["id"], "creatorEmail": "bo@example.com"});
    app.team("feedbacks.create", mixed).await.assert_status(400);
    app.team(
        "feedbacks.create",
        json!({"title": "Never", "creatorId": "ann"}),
    )
    .await
    .assert_error(400, "creatorId must be a UUID");
    assert_eq!(app.census().await, before);
}

async fn feedback_lists_take_a_created_at_range_from_to(engine: Engine) {
    let clock = ManualClock::new();
    let shared: Arc<dyn Clock> = clock.clone();
    let Some(app) = TestApp::spawn_with_clock(engine, shared, |_| {}).await else {
        return;
    };
    const DAY: i64 = 86_400;
    let mut created = Vec::new();
    for title in ["First", "Second", "Third"] {
        let item = app.feedback(json!({ "title": title })).await;
        created.push(item["createdAt"].as_str().unwrap().to_owned());
        clock.advance(2 * DAY);
    }
    let list = |body: Value| {
        let app = &app;
        async move {
            let mut titles: Vec<String> = app
                .team("feedbacks.list", body.clone())
                .await
                .each("title")
                .into_iter()
                .map(String::from)
                .collect();
            let public: Vec<String> = app
                .team("public/feedbacks.list", body)
                .await
                .each("title")
                .into_iter()
                .map(String::from)
                .collect();
            assert_eq!(titles, public, "team and public lists filter alike");
            titles.reverse();
            titles
        }
    };
    // Instants: both ends included.
    assert_eq!(list(json!({"from": created[1]})).await, ["Second", "Third"]);
    assert_eq!(list(json!({"to": created[1]})).await, ["First", "Second"]);
    let exact = json!({"from": created[1], "to": created[1]});
    assert_eq!(list(exact).await, ["Second"]);
    // Dates: whole UTC days.
    let day = |i: usize| created[i][..10].to_owned();
    let days = json!({"from": day(0), "to": day(1)});
    assert_eq!(list(days).await, ["First", "Second"]);
    // In the query string too.
    let reply = app
        .client
        .post(format!("{}/v1/feedbacks.list?from={}", app.base, day(2)))
        .bearer_auth(&app.key)
        .send()
        .await
        .unwrap();
    let body: Value = reply.json().await.unwrap();
    assert_eq!(body["data"][0]["title"], "Third");
    assert_eq!(body["pagination"]["total"], 1);

    let backwards = json!({"from": created[2], "to": created[0]});
    app.team("feedbacks.list", backwards)
        .await
        .assert_error(400, "to must not be before from");
    app.team("feedbacks.list", json!({"from": "last week"}))
        .await
        .assert_error(
            400,
            "from must be an RFC 3339 timestamp or a date (YYYY-MM-DD)",
        );
}

async fn feedback_count_says_all_beside_total(app: TestApp) {
    app.feedback(json!({"title": "One"})).await;
    let archived = app.feedback(json!({"title": "Two"})).await;
    app.team_data("feedbacks.archive", json!({"id": archived["id"]}))
        .await;
    let counts = app.team_data("feedbacks.count", json!({})).await;
    assert_eq!(counts["total"], 2);
    assert_eq!(counts["all"], counts["total"]);
}

async fn zapier_names_subscribe_and_unsubscribe(app: TestApp) {
    let body = json!({"target_url": "https://hooks.example.com/z", "event": "new_feedback"});
    let made = app.team_data("zapier.subscribe", body).await;
    assert_eq!(made["targetUrl"], "https://hooks.example.com/z");
    assert!(made["secret"].is_string());
    let listed = app.team("automation.list", json!({})).await;
    assert_eq!(listed.each("id"), [made["id"].as_str().unwrap()]);
    app.team("zapier.unsubscribe", json!({"id": made["id"]}))
        .await
        .assert_body(200, json!({"success": true}));
    assert_eq!(app.team_data("automation.list", json!({})).await, json!([]));
    app.team("zapier.unsubscribe", json!({"id": made["id"]}))
        .await
        .assert_error(404, "Subscription not found");
}
