//! Topics: `public/topics.create|info|subscribe|unsubscribe` and the team's
//! `topics.create|list|update|delete` (interface §2 Topic, §3, §4, §7, §8; decisions §2, §3, §4, §6).

use std::{collections::BTreeSet, sync::Arc};

use futures_util::future::join_all;
use serde_json::{json, Value};
use sounding_domain::ports::Clock;
use sounding_tests::{
    client::{assert_timestamp, field_names},
    engine_tests,
    harness::{ManualClock, OWNER_EMAIL},
    Engine, Reply, TestApp,
};

engine_tests!(
    a_subscriber_creates_a_published_topic_returned_whole,
    topic_info_finds_by_uuid_or_slug_and_answers_null_otherwise,
    anonymous_creation_follows_the_team_setting,
    topic_creation_checks_its_input_and_failures_leave_nothing,
    topic_meta_keeps_only_whitelisted_keys,
    moderation_holds_topics_until_published,
    moving_a_topic_between_stages_updates_both_counts,
    the_team_list_sees_every_topic_and_filters_sorts_and_pages,
    topics_update_changes_given_fields_and_delete_removes,
    creators_follow_and_subscribe_toggles,
    the_team_creates_topics_on_any_stage_published_at_once,
    team_topic_creation_checks_its_input_and_failures_leave_nothing,
);

/// Every field of a topic object.
const FIELDS: &str = "commentCount createdAt description id meta publishedAt roadmapId stage \
    stageId subscriberId text title updatedAt url urlId visits voteCount";

fn names(list: &str) -> BTreeSet<&str> {
    list.split_whitespace().collect()
}

/// A roadmap with a public stage `Ideas` (order 1) and a private stage `Secret` (order 2).
async fn setup(app: &TestApp) -> (Value, Value, Value) {
    let roadmap = app.roadmap("Product").await;
    let ideas = app.stage(&roadmap, json!({"name": "Ideas"})).await;
    let secret = json!({"name": "Secret", "meta": {"isPrivate": true}});
    let secret = app.stage(&roadmap, secret).await;
    (roadmap, ideas, secret)
}

async fn create(app: &TestApp, token: Option<&str>, body: Value) -> Reply {
    app.call("public/topics.create", token, body).await
}

async fn info(app: &TestApp, token: &str, id: &Value) -> Reply {
    let body = json!({ "id": id });
    app.call("public/topics.info", Some(token), body).await
}

/// `topicCount` of a stage as `stages.info` reports it to the owner key.
async fn topic_count(app: &TestApp, stage: &Value) -> Value {
    let body = json!({"stageId": stage["id"]});
    app.team_data("public/stages.info", body).await["topicCount"].clone()
}

fn team_summary(app: &TestApp) -> Value {
    json!({"id": app.team_id, "name": "Default", "subdomain": "default"})
}

async fn a_subscriber_creates_a_published_topic_returned_whole(app: TestApp) {
    let (roadmap, ideas, _) = setup(&app).await;
    let (author, code) = app.identify("author@example.com").await;
    let body = json!({"title": "Dark mode, please!", "text": "My eyes hurt."});
    let t = app.topic(&code, &ideas, body).await;
    assert_eq!(field_names(&t), names(FIELDS), "{t}");
    let url_id = t["urlId"].as_str().unwrap();
    let url_id_chars = url_id
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    assert!(url_id.len() == 10 && url_id_chars, "{url_id}");
    assert_eq!(t["url"], format!("/dark-mode-please-{url_id}"));
    assert_eq!(t["title"], "Dark mode, please!");
    assert_eq!(t["description"], "Dark mode, please!");
    assert_eq!(t["text"], "My eyes hurt.");
    assert_eq!(t["visits"], 0);
    assert_eq!(
        (&t["roadmapId"], &t["stageId"]),
        (&roadmap["id"], &ideas["id"])
    );
    let stage = json!({"id": ideas["id"], "name": "Ideas", "order": 1});
    assert_eq!(t["stage"], stage);
    assert_eq!(t["subscriberId"], author["id"]);
    assert_eq!(
        (&t["voteCount"], &t["commentCount"]),
        (&json!(0), &json!(0))
    );
    assert_eq!(t["meta"], json!({}));
    for field in ["publishedAt", "createdAt", "updatedAt"] {
        assert_timestamp(&t[field]);
    }
    // A description of its own; slugs of other scripts and of no letters at all.
    let body = json!({"title": "Größe ändern", "description": "CSV and JSON"});
    let u = app.topic(&code, &ideas, body).await;
    assert_eq!(
        (&u["description"], &u["text"]),
        (&json!("CSV and JSON"), &json!(""))
    );
    assert_eq!(
        u["url"],
        format!("/grosse-andern-{}", u["urlId"].as_str().unwrap())
    );
    let v = app.topic(&code, &ideas, json!({"title": "?!"})).await;
    assert_eq!(
        v["url"],
        format!("/untitled-{}", v["urlId"].as_str().unwrap())
    );
    // One topics.create per topic, carrying it as returned.
    let events = app.events_of("topics.create").await;
    assert_eq!(events.len(), 3);
    let keys = names("data event occurredAt teamId topicId");
    assert_eq!(field_names(&events[0]), keys);
    assert_eq!(events[0]["event"], "topics.create");
    assert_eq!(events[0]["teamId"], app.team_id);
    assert_eq!(events[0]["topicId"], t["id"]);
    assert_eq!(events[0]["data"], t);
    assert_timestamp(&events[0]["occurredAt"]);
    assert_eq!(events[1]["data"], u);
    // The team list returns the same objects.
    let listed = app.team_data("topics.list", json!({})).await;
    assert_eq!(listed, json!([v, u, t]));
}

async fn topic_info_finds_by_uuid_or_slug_and_answers_null_otherwise(app: TestApp) {
    let (_, ideas, secret) = setup(&app).await;
    let (_, code) = app.identify("reader@example.com").await;
    let (_, owner) = app.identify(OWNER_EMAIL).await;
    let t = app
        .topic(&code, &ideas, json!({"title": "Dark mode"}))
        .await;
    let url_id = t["urlId"].as_str().unwrap();
    let mut seen = t.clone();
    seen["visits"] = json!(1);
    for id in [
        t["id"].clone(),
        json!(format!("dark-mode-{url_id}")),
        json!(format!("an-old-title-{url_id}")),
    ] {
        let reply = info(&app, &code, &id).await;
        assert_eq!(reply.ok(), &seen, "{id}");
        assert_eq!(field_names(&reply.body), names("data team"));
        assert_eq!(reply.body["team"], team_summary(&app));
    }
    // Missing: data null and the team, for either credential.
    let nothing = json!({"data": null, "team": team_summary(&app)});
    let gone = [
        json!(uuid::Uuid::now_v7()),
        json!("x-zzzzzzzzzz"),
        json!("nothing"),
    ];
    for id in gone {
        for token in [&code, &app.key] {
            info(&app, token, &id)
                .await
                .assert_body(200, nothing.clone());
        }
    }
    let reply = app.call("public/topics.info", Some(&code), json!({})).await;
    reply.assert_error(400, "id is required");
    // On a private stage: only team members see it.
    let body = json!({"id": t["id"], "stageId": secret["id"]});
    app.team("topics.update", body).await.ok();
    info(&app, &code, &t["id"]).await.assert_body(200, nothing);
    for token in [&owner, &app.key] {
        let reply = info(&app, token, &t["id"]).await;
        assert_eq!(reply.ok()["stage"]["name"], "Secret");
    }
    // Another team never finds it.
    let (other_id, other_key) = app.other_team("acme").await;
    let team = json!({"id": other_id, "name": "acme", "subdomain": "acme"});
    let reply = info(&app, &other_key, &t["id"]).await;
    reply.assert_body(200, json!({"data": null, "team": team}));
}

async fn anonymous_creation_follows_the_team_setting(app: TestApp) {
    let (_, ideas, _) = setup(&app).await;
    let (roadmap_id, stage_id) = (&ideas["roadmapId"], &ideas["id"]);
    let body = json!({"title": "Anonymous", "roadmapId": roadmap_id, "stageId": stage_id});
    let by_key = |extra: Value| {
        let mut body = body.clone();
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        create(&app, Some(&app.key), body)
    };
    // Off by default: the literal body, nothing stored or announced.
    let refused = by_key(json!({})).await;
    refused.assert_body(400, json!({"error": "Bad request"}));
    assert_eq!(app.team("topics.list", json!({})).await.total(), 0);
    assert!(app.events().await.is_empty());
    let on = json!({"allowAnonymousFeedback": true});
    app.team("teams.update", on).await.ok();
    // No e-mail, no name: a new subscriber with a random three-word name.
    let mut creators = BTreeSet::new();
    for _ in 0..2 {
        let t = by_key(json!({})).await.ok().clone();
        assert_timestamp(&t["publishedAt"]);
        let (name, email) = app.stored_subscriber(&t["subscriberId"]).await;
        assert_eq!(email, None);
        let words: Vec<&str> = name.split(' ').collect();
        assert_eq!(words.len(), 3, "{name}");
        for word in &words {
            let mut chars = word.chars();
            let first = chars.next().is_some_and(char::is_uppercase);
            assert!(first && chars.all(char::is_lowercase), "{name}");
        }
        creators.insert(t["subscriberId"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        creators.len(),
        2,
        "each anonymous topic has its own creator"
    );
    // A name given is kept.
    let t = by_key(json!({"name": "Visiting Vera"})).await.ok().clone();
    let stored = app.stored_subscriber(&t["subscriberId"]).await;
    assert_eq!(stored, ("Visiting Vera".to_owned(), None));
    // An e-mail: that subscriber, found or created.
    let (known, _) = app.identify("known@example.com").await;
    let t = by_key(json!({"email": "Known@Example.com"})).await;
    assert_eq!(t.ok()["subscriberId"], known["id"]);
    let email = "fresh.face@example.com";
    let t = by_key(json!({ "email": email })).await.ok().clone();
    let stored = app.stored_subscriber(&t["subscriberId"]).await;
    assert_eq!(stored, ("Fresh Face".to_owned(), Some(email.to_owned())));
    let identified = app.team("public/subscriber.identify", json!({ "email": email }));
    let identified = identified.await;
    assert_eq!(identified.body["isFirstSignin"], false);
    assert_eq!(identified.ok()["id"], t["subscriberId"]);
    let bad = by_key(json!({"email": "not-an-email"})).await;
    bad.assert_status(400);
    assert_eq!(app.events_of("topics.create").await.len(), 5);
    // Turned off again: refused again.
    let off = json!({"allowAnonymousFeedback": false});
    app.team("teams.update", off).await.ok();
    let refused = by_key(json!({"email": email})).await;
    refused.assert_body(400, json!({"error": "Bad request"}));
    assert_eq!(app.team("topics.list", json!({})).await.total(), 5);
}

async fn topic_creation_checks_its_input_and_failures_leave_nothing(app: TestApp) {
    let (roadmap, ideas, secret) = setup(&app).await;
    let other = app.roadmap("Other").await;
    let elsewhere = app.stage(&other, json!({"name": "Elsewhere"})).await;
    let (_, code) = app.identify("author@example.com").await;
    let rid = &roadmap["id"];
    let on = |stage: &Value, title: Value| json!({"title": title, "roadmapId": rid, "stageId": stage["id"]});
    let title_required = json!({"error": "title is required"});
    for title in [Value::Null, json!(""), json!("   ")] {
        let reply = create(&app, Some(&code), on(&ideas, title)).await;
        reply.assert_body(400, title_required.clone());
    }
    let body = json!({"roadmapId": rid, "stageId": ideas["id"]});
    let reply = create(&app, Some(&code), body).await;
    reply.assert_body(400, title_required);
    let reply = create(&app, Some(&code), on(&secret, json!("Hidden"))).await;
    reply.assert_body(
        400,
        json!({"error": "cannot publish a topic of private stage"}),
    );
    let missing = json!({"id": uuid::Uuid::now_v7()});
    for stage in [&missing, &elsewhere] {
        let reply = create(&app, Some(&code), on(stage, json!("Lost"))).await;
        reply.assert_error(404, "Stage not found");
    }
    let mut nowhere = on(&ideas, json!("Lost"));
    nowhere["roadmapId"] = missing["id"].clone();
    let reply = create(&app, Some(&code), nowhere).await;
    reply.assert_error(404, "Roadmap not found");
    let long = json!("x".repeat(256));
    create(&app, Some(&code), on(&ideas, long))
        .await
        .assert_status(400);
    let reply = create(&app, Some(&code), json!({"title": "No place"})).await;
    reply.assert_error(400, "roadmapId is required");
    let reply = create(&app, None, on(&ideas, json!("Nobody"))).await;
    reply.assert_error(401, "Authentication required");
    // Nothing was stored or announced.
    assert_eq!(app.team("topics.list", json!({})).await.total(), 0);
    assert_eq!(app.event_kinds().await, Vec::<String>::new());
    assert_eq!(topic_count(&app, &ideas).await, 0);
}

async fn topic_meta_keeps_only_whitelisted_keys(app: TestApp) {
    let (_, ideas, _) = setup(&app).await;
    let (_, code) = app.identify("author@example.com").await;
    let kept = json!({
        "ctaTitle": "Try it", "ctaLink": "https://example.com/try",
        "ctaImage": "https://example.com/i.png", "description": "short",
        "feedback": ["f1"], "projectId": "p-7"
    });
    let mut given = kept.clone();
    given["secret"] = json!("dropped");
    given["isPrivate"] = json!(true);
    let body = json!({"title": "Meta", "meta": given});
    let t = app.topic(&code, &ideas, body).await;
    assert_eq!(t["meta"], kept);
    assert_eq!(info(&app, &code, &t["id"]).await.ok()["meta"], kept);
    let events = app.events_of("topics.create").await;
    assert_eq!(events[0]["data"]["meta"], kept);
    // Updates merge whitelisted keys only.
    let meta = json!({"projectId": "p-8", "extra": 1});
    let body = json!({"id": t["id"], "meta": meta});
    let updated = app.team_data("topics.update", body).await;
    let mut expected = kept.clone();
    expected["projectId"] = json!("p-8");
    assert_eq!(updated["meta"], expected);
    let listed = app.team_data("topics.list", json!({})).await;
    assert_eq!(listed[0]["meta"], expected);
}

async fn moderation_holds_topics_until_published(app: TestApp) {
    let body = json!({"publicBoardModeration": true});
    app.team("teams.update", body).await.ok();
    let (roadmap, ideas, _) = setup(&app).await;
    let open = json!({"name": "Open", "meta": {"disableModeration": true}});
    let open = app.stage(&roadmap, open).await;
    let (_, code) = app.identify("author@example.com").await;
    let held = app
        .topic(&code, &ideas, json!({"title": "Held back"}))
        .await;
    assert_eq!(held["publishedAt"], Value::Null);
    let free = app
        .topic(&code, &open, json!({"title": "Straight in"}))
        .await;
    assert_timestamp(&free["publishedAt"]);
    // Hidden from public reads, for any credential; the team list has it.
    for token in [&code, &app.key] {
        assert_eq!(
            info(&app, token, &held["id"]).await.body["data"],
            Value::Null
        );
    }
    let body = json!({"stageId": ideas["id"]});
    let stage = app.team("public/stages.info", body.clone()).await;
    assert_eq!(stage.ok()["topicCount"], 0);
    assert_eq!(stage.body["topics"], json!([]));
    let listed = app.team("topics.list", json!({})).await;
    assert_eq!(listed.each("title"), ["Straight in", "Held back"]);
    assert_eq!(listed.ok()[1], held);
    // Publishing shows it.
    let publish = json!({"id": held["id"], "publish": true});
    let published = app.team_data("topics.update", publish.clone()).await;
    assert_timestamp(&published["publishedAt"]);
    let seen = info(&app, &code, &held["id"]).await;
    assert_eq!(seen.ok()["publishedAt"], published["publishedAt"]);
    let stage = app.team("public/stages.info", body).await;
    assert_eq!(stage.ok()["topicCount"], 1);
    assert_eq!(stage.body["topics"][0]["id"], held["id"]);
    // Publishing again keeps the first time; unpublishing hides it again.
    let again = app.team_data("topics.update", publish).await;
    assert_eq!(again["publishedAt"], published["publishedAt"]);
    let withdraw = json!({"id": held["id"], "publish": false});
    let withdrawn = app.team_data("topics.update", withdraw).await;
    assert_eq!(withdrawn["publishedAt"], Value::Null);
    assert_eq!(
        info(&app, &code, &held["id"]).await.body["data"],
        Value::Null
    );
    assert_eq!(topic_count(&app, &ideas).await, 0);
    // A hidden topic takes no votes, comments or followers.
    for op in [
        "topic-votes.create",
        "topic-comments.create",
        "topics.subscribe",
    ] {
        let mut body = json!({"id": held["id"]});
        if op == "topic-comments.create" {
            body["text"] = json!("hello");
        }
        let reply = app.call(&format!("public/{op}"), Some(&code), body).await;
        reply.assert_error(404, "Topic not found");
    }
    // Publish and withdraw; publishing again changed nothing, so it announced nothing.
    assert_eq!(app.events_of("topics.update").await.len(), 2);
}

async fn moving_a_topic_between_stages_updates_both_counts(app: TestApp) {
    let (roadmap, ideas, _) = setup(&app).await;
    let planned = app.stage(&roadmap, json!({"name": "Planned"})).await;
    let (_, code) = app.identify("author@example.com").await;
    let t = app.topic(&code, &ideas, json!({"title": "Moving"})).await;
    app.topic(&code, &ideas, json!({"title": "Staying"})).await;
    let counts = || async {
        let ideas = topic_count(&app, &ideas).await;
        (ideas, topic_count(&app, &planned).await)
    };
    assert_eq!(counts().await, (json!(2), json!(0)));
    let body = json!({"id": t["id"], "stageId": planned["id"]});
    let moved = app.team_data("topics.update", body).await;
    assert_eq!(moved["stageId"], planned["id"]);
    let summary = json!({"id": planned["id"], "name": "Planned", "order": 3});
    assert_eq!(moved["stage"], summary);
    assert_eq!(moved["publishedAt"], t["publishedAt"]);
    assert_eq!(counts().await, (json!(1), json!(1)));
    let body = json!({"stageId": planned["id"]});
    let there = app.team("public/stages.info", body.clone()).await;
    assert_eq!(there.body["topics"][0]["id"], t["id"]);
    let listed = app.team("topics.list", body).await;
    assert_eq!(listed.each("title"), ["Moving"]);
    let seen = info(&app, &code, &t["id"]).await;
    assert_eq!(seen.ok()["stage"], summary);
    // Announced with the moved topic.
    let events = app.events_of("topics.update").await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        (&events[0]["topicId"], &events[0]["data"]),
        (&t["id"], &moved)
    );
    // A stage that does not exist moves nothing and announces nothing.
    let body = json!({"id": t["id"], "stageId": uuid::Uuid::now_v7()});
    let reply = app.team("topics.update", body).await;
    reply.assert_error(404, "Stage not found");
    assert_eq!(counts().await, (json!(1), json!(1)));
    assert_eq!(app.events_of("topics.update").await.len(), 1);
}

async fn the_team_list_sees_every_topic_and_filters_sorts_and_pages(app: TestApp) {
    let (roadmap, ideas, _) = setup(&app).await;
    let done = app.stage(&roadmap, json!({"name": "Done"})).await;
    let other = app.roadmap("Other").await;
    let elsewhere = app.stage(&other, json!({"name": "Elsewhere"})).await;
    let (_, code) = app.identify("author@example.com").await;
    for (stage, title) in [
        (&ideas, "B"),
        (&done, "A"),
        (&elsewhere, "D"),
        (&ideas, "C"),
    ] {
        app.topic(&code, stage, json!({ "title": title })).await;
    }
    let titles = |body: Value| async {
        let reply = app.team("topics.list", body).await;
        let titles = reply.each("title").into_iter().map(String::from);
        (titles.collect::<Vec<_>>(), reply.total())
    };
    assert_eq!(
        titles(json!({})).await,
        (vec!["C".into(), "D".into(), "A".into(), "B".into()], 4)
    );
    let default = app.team("topics.list", json!({})).await;
    let pagination = json!({"total": 4, "limit": 50, "offset": 0});
    assert_eq!(default.body["pagination"], pagination);
    let body = json!({"roadmapId": roadmap["id"]});
    assert_eq!(titles(body).await.0, ["C", "A", "B"]);
    let body = json!({"stageId": ideas["id"], "direction": "ASC"});
    assert_eq!(titles(body).await, (vec!["B".into(), "C".into()], 2));
    let body = json!({"sort": "title", "direction": "ASC"});
    assert_eq!(titles(body).await.0, ["A", "B", "C", "D"]);
    let body = json!({"sort": "title", "direction": "ASC", "limit": 2, "offset": 1});
    let page = app.team("topics.list", body).await;
    assert_eq!(page.each("title"), ["B", "C"]);
    let pagination = json!({"total": 4, "limit": 2, "offset": 1});
    assert_eq!(page.body["pagination"], pagination);
    let clamped = app.team("topics.list", json!({"limit": 1000})).await;
    assert_eq!(clamped.body["pagination"]["limit"], 100);
    let reply = app.team("topics.list", json!({"sort": "popular"})).await;
    reply.assert_status(400);
    let reply = app.team("topics.list", json!({"roadmapId": "nope"})).await;
    reply.assert_error(400, "roadmapId must be a UUID");
    // Another team's list is its own.
    let (_, other_key) = app.other_team("acme").await;
    let theirs = app.call("topics.list", Some(&other_key), json!({})).await;
    assert_eq!(theirs.total(), 0);
}

async fn topics_update_changes_given_fields_and_delete_removes(app: TestApp) {
    let (_, ideas, _) = setup(&app).await;
    let (_, code) = app.identify("author@example.com").await;
    let body = json!({"title": "Old title", "text": "Body"});
    let t = app.topic(&code, &ideas, body).await;
    let url_id = t["urlId"].as_str().unwrap();
    let body = json!({"id": t["id"], "title": "New title", "description": "Shorter"});
    let updated = app.team_data("topics.update", body).await;
    assert_eq!(updated["title"], "New title");
    assert_eq!(updated["description"], "Shorter");
    assert_eq!(updated["text"], "Body");
    assert_eq!(updated["urlId"], t["urlId"]);
    assert_eq!(updated["url"], format!("/new-title-{url_id}"));
    assert_eq!(updated["createdAt"], t["createdAt"]);
    assert_timestamp(&updated["updatedAt"]);
    let seen = info(&app, &code, &json!(format!("new-title-{url_id}"))).await;
    assert_eq!(seen.ok()["title"], "New title");
    let event = &app.events_of("topics.update").await[0];
    assert_eq!(event["data"], updated);
    // Blank titles and missing topics are refused and announce nothing.
    let blank = json!({"id": t["id"], "title": " "});
    app.team("topics.update", blank).await.assert_status(400);
    let missing = uuid::Uuid::now_v7();
    for (op, body) in [
        ("topics.update", json!({"id": missing, "title": "X"})),
        ("topics.delete", json!({"id": missing})),
    ] {
        app.team(op, body)
            .await
            .assert_error(404, "Topic not found");
    }
    assert_eq!(app.events_of("topics.update").await.len(), 1);
    // Delete.
    let deleted = app.team("topics.delete", json!({"id": t["id"]})).await;
    deleted.assert_body(200, json!({"success": true, "id": t["id"]}));
    assert_eq!(info(&app, &code, &t["id"]).await.body["data"], Value::Null);
    assert_eq!(app.team("topics.list", json!({})).await.total(), 0);
    assert_eq!(topic_count(&app, &ideas).await, 0);
    let reply = app.team("topics.delete", json!({"id": t["id"]})).await;
    reply.assert_error(404, "Topic not found");
}

async fn creators_follow_and_subscribe_toggles(app: TestApp) {
    let (_, ideas, _) = setup(&app).await;
    let (author, code) = app.identify("author@example.com").await;
    let (fan, fan_code) = app.identify("fan@example.com").await;
    let t = app
        .topic(&code, &ideas, json!({"title": "Follow me"}))
        .await;
    let (author, fan) = (author["id"].as_str().unwrap(), fan["id"].as_str().unwrap());
    assert_eq!(app.topic_followers(&t["id"]).await, [author]);
    let done = json!({"success": true, "topicId": t["id"]});
    let id = json!({"id": t["id"]});
    for _ in 0..2 {
        let reply = app.call("public/topics.subscribe", Some(&fan_code), id.clone());
        reply.await.assert_body(200, done.clone());
    }
    assert_eq!(app.topic_followers(&t["id"]).await, [author, fan]);
    for _ in 0..2 {
        let reply = app.call("public/topics.unsubscribe", Some(&code), id.clone());
        reply.await.assert_body(200, done.clone());
    }
    assert_eq!(app.topic_followers(&t["id"]).await, [fan]);
    let missing = json!({"id": uuid::Uuid::now_v7()});
    for op in ["public/topics.subscribe", "public/topics.unsubscribe"] {
        let reply = app.call(op, Some(&code), missing.clone()).await;
        reply.assert_error(404, "Topic not found");
        app.call(op, Some(&app.key), id.clone())
            .await
            .assert_status(401);
    }
}

/// Visits count once per viewer per 2 minutes, on an injected clock; a test per engine.
async fn visits_count_once_per_viewer_per_two_minutes(engine: Engine) {
    let clock = ManualClock::new();
    let shared: Arc<dyn Clock> = clock.clone();
    let Some(app) = TestApp::spawn_with_clock(engine, shared, |_| {}).await else {
        return;
    };
    let (_, ideas, _) = setup(&app).await;
    let (_, first) = app.identify("first@example.com").await;
    let (_, second) = app.identify("second@example.com").await;
    let t = app.topic(&first, &ideas, json!({"title": "Popular"})).await;
    let visits = |token: &str| {
        let token = token.to_owned();
        let (app, id) = (&app, t["id"].clone());
        async move { info(app, &token, &id).await.ok()["visits"].clone() }
    };
    // The same viewer at once, many times: one visit.
    let at_once = join_all((0..8).map(|_| visits(&first))).await;
    assert_eq!(at_once, vec![json!(1); 8]);
    assert_eq!(visits(&first).await, 1);
    // Another subscriber, and a key caller (counted by address), are other viewers.
    assert_eq!(visits(&second).await, 2);
    assert_eq!(visits(&app.key).await, 3);
    assert_eq!(visits(&app.key).await, 3);
    clock.advance(119);
    assert_eq!(visits(&first).await, 3);
    clock.advance(2);
    assert_eq!(visits(&first).await, 4);
    assert_eq!(visits(&first).await, 4);
    assert_eq!(visits(&second).await, 5);
    assert_eq!(visits(&app.key).await, 6);
    // The team list reads the same counter.
    assert_eq!(
        app.team_data("topics.list", json!({})).await[0]["visits"],
        6
    );
    // A hidden topic counts nothing.
    let body = json!({"id": t["id"], "publish": false});
    app.team("topics.update", body).await.ok();
    clock.advance(300);
    assert_eq!(info(&app, &first, &t["id"]).await.body["data"], Value::Null);
    assert_eq!(
        app.team_data("topics.list", json!({})).await[0]["visits"],
        6
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn visits_count_once_per_viewer_per_two_minutes_sqlite() {
    visits_count_once_per_viewer_per_two_minutes(Engine::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn visits_count_once_per_viewer_per_two_minutes_postgres() {
    visits_count_once_per_viewer_per_two_minutes(Engine::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn visits_count_once_per_viewer_per_two_minutes_memory() {
    visits_count_once_per_viewer_per_two_minutes(Engine::Memory).await;
}

async fn the_team_creates_topics_on_any_stage_published_at_once(app: TestApp) {
    let (roadmap, ideas, secret) = setup(&app).await;
    // Moderation holds public topics, not the team's own.
    let body = json!({"publicBoardModeration": true});
    app.team("teams.update", body).await.ok();
    let body = json!({
        "title": "Single sign-on",
        "roadmapId": roadmap["id"],
        "stageId": secret["id"],
        "text": "SAML first.",
        "meta": {"projectId": "p1", "secret": true},
    });
    let t = app.team_data("topics.create", body).await;
    assert_eq!(field_names(&t), names(FIELDS), "{t}");
    assert_eq!(t["title"], "Single sign-on");
    assert_eq!(t["description"], "Single sign-on");
    assert_eq!(t["text"], "SAML first.");
    assert_eq!(t["meta"], json!({"projectId": "p1"}));
    let stage = json!({"id": secret["id"], "name": "Secret", "order": 2});
    assert_eq!((&t["stage"], &t["roadmapId"]), (&stage, &roadmap["id"]));
    assert_timestamp(&t["publishedAt"]);
    assert_eq!(
        (&t["voteCount"], &t["commentCount"]),
        (&json!(0), &json!(0))
    );
    // The creator is the key's user, as a subscriber, and follows the topic.
    let (owner, owner_token) = app.identify(OWNER_EMAIL).await;
    assert_eq!(t["subscriberId"], owner["id"]);
    assert_eq!(
        app.topic_followers(&t["id"]).await,
        [owner["id"].as_str().unwrap().to_owned()]
    );
    // Published: a team member reads it at once; the stage keeps it from anyone else.
    let mut seen = t.clone();
    seen["visits"] = json!(1);
    assert_eq!(info(&app, &owner_token, &t["id"]).await.ok(), &seen);
    let (_, visitor) = app.identify("visitor@example.com").await;
    assert_eq!(info(&app, &visitor, &t["id"]).await.ok(), &Value::Null);
    // Without a roadmap: the stage's own; on a public stage, public at once.
    let body = json!({"title": "Dark mode", "stageId": ideas["id"]});
    let u = app.team_data("topics.create", body).await;
    assert_eq!(u["roadmapId"], roadmap["id"]);
    assert_eq!(info(&app, &visitor, &u["id"]).await.ok()["id"], u["id"]);
    // Announced like any new topic.
    let created = app.events_of("topics.create").await;
    assert_eq!(created.len(), 2);
    assert_eq!(created[0]["topicId"], t["id"]);
    assert_eq!(created[0]["data"], t);
    // Listed by the team.
    let listed = app
        .team("topics.list", json!({"stageId": secret["id"]}))
        .await;
    assert_eq!(listed.ok(), &json!([seen]));
}

async fn team_topic_creation_checks_its_input_and_failures_leave_nothing(app: TestApp) {
    let (roadmap, ideas, _) = setup(&app).await;
    let other_roadmap = app.roadmap("Other").await;
    let (read_only, _) = app
        .key_with(sounding_domain::access::Role::Owner, true)
        .await;
    let (_, other_key) = app.other_team("elsewhere").await;
    let (_, subscriber) = app.identify("someone@example.com").await;
    let events = app.events().await.len();
    let on = |changes: Value| {
        let mut body = json!({"title": "Fine", "roadmapId": roadmap["id"], "stageId": ideas["id"]});
        for (k, v) in changes.as_object().unwrap() {
            if v.is_null() {
                body.as_object_mut().unwrap().remove(k);
            } else {
                body[k] = v.clone();
            }
        }
        body
    };
    for (body, status, message) in [
        (on(json!({"title": null})), 400, "title is required"),
        (on(json!({"title": "   "})), 400, "title is required"),
        (
            on(json!({"title": "x".repeat(256)})),
            400,
            "title must be at most 255 characters",
        ),
        (on(json!({"stageId": null})), 400, "stageId is required"),
        (on(json!({"stageId": "x"})), 400, "stageId must be a UUID"),
        (
            on(json!({"roadmapId": "x"})),
            400,
            "roadmapId must be a UUID",
        ),
        (
            on(json!({"stageId": uuid::Uuid::now_v7()})),
            404,
            "Stage not found",
        ),
        (
            on(json!({"roadmapId": uuid::Uuid::now_v7()})),
            404,
            "Roadmap not found",
        ),
        // The stage must be on the roadmap named.
        (
            on(json!({"roadmapId": other_roadmap["id"]})),
            404,
            "Stage not found",
        ),
    ] {
        app.team("topics.create", body)
            .await
            .assert_error(status, message);
    }
    app.call("topics.create", Some(&read_only), on(json!({})))
        .await
        .assert_error(403, "This API key is read-only");
    app.call(
        "topics.create",
        Some(&other_key),
        on(json!({"roadmapId": null})),
    )
    .await
    .assert_error(404, "Stage not found");
    app.call("topics.create", Some(&subscriber), on(json!({})))
        .await
        .assert_error(401, "Authentication required");
    assert_eq!(app.events().await.len(), events);
    let listed = app.team("topics.list", json!({})).await;
    assert_eq!(listed.total(), 0);
}
