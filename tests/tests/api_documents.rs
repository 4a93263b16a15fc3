//! Documents: the team's `documents.create|list|info|update|publish|unpublish|delete`, the
//! public list and the subscribers' emoji reactions (`public/document-reactions.*`).

use std::collections::BTreeSet;

use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{
    client::{assert_timestamp, field_names},
    engine_tests, Reply, TestApp,
};

engine_tests!(
    create_returns_the_whole_document_as_a_draft_or_published,
    info_and_update_change_given_fields_and_the_url_follows_the_title,
    publish_keeps_the_first_time_and_unpublish_clears_it,
    delete_removes_the_document_and_its_reactions,
    the_team_list_is_newest_first_filtered_searched_and_paged,
    bad_input_is_400_naming_the_field_and_changes_nothing,
    another_team_cannot_see_or_change_documents,
    read_only_keys_only_read_and_member_keys_manage_documents,
    the_public_list_shows_published_documents_sorted_and_searched,
    a_key_sees_no_my_reactions,
    a_document_reaction_twice_counts_once_and_shows_in_my_reactions_only_for_that_subscriber,
    removing_a_reaction_is_idempotent_and_leaves_the_others,
    reactions_need_a_subscriber_and_a_published_document_of_their_team,
    emoji_are_checked,
);

const FIELDS: &str = "createdAt id publishedAt reactions text title updatedAt url urlId";

fn names(list: &str) -> BTreeSet<&str> {
    list.split_whitespace().collect()
}

async fn create(app: &TestApp, body: Value) -> Value {
    app.team("documents.create", body).await.ok().clone()
}

/// A published document titled `title`.
async fn published(app: &TestApp, title: &str, text: &str) -> Value {
    create(app, json!({"title": title, "text": text, "publish": true})).await
}

async fn info(app: &TestApp, id: &Value) -> Reply {
    app.team("documents.info", json!({ "id": id })).await
}

async fn react(app: &TestApp, token: &str, doc: &Value, emoji: &str) -> Reply {
    let body = json!({"documentId": doc["id"], "emoji": emoji});
    app.call("public/document-reactions.create", Some(token), body)
        .await
}

async fn unreact(app: &TestApp, token: &str, doc: &Value, emoji: &str) -> Reply {
    let body = json!({"documentId": doc["id"], "emoji": emoji});
    app.call("public/document-reactions.delete", Some(token), body)
        .await
}

async fn public_list(app: &TestApp, token: &str, body: Value) -> Reply {
    app.call("public/documents.list", Some(token), body).await
}

/// The titles of a 200 list reply, in order.
fn titles(reply: &Reply) -> Vec<String> {
    reply.each("title").into_iter().map(str::to_owned).collect()
}

async fn create_returns_the_whole_document_as_a_draft_or_published(app: TestApp) {
    let draft = create(
        &app,
        json!({"title": "  Getting started ", "text": "Install it."}),
    )
    .await;
    assert_eq!(field_names(&draft), names(FIELDS), "{draft}");
    assert_eq!(draft["title"], "Getting started");
    assert_eq!(draft["text"], "Install it.");
    assert_eq!(draft["publishedAt"], Value::Null);
    assert_eq!(draft["reactions"], json!({}));
    let url_id = draft["urlId"].as_str().unwrap();
    let well_formed = url_id
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    assert!(url_id.len() == 10 && well_formed, "{url_id}");
    assert_eq!(draft["url"], format!("/getting-started-{url_id}"));
    assert_timestamp(&draft["createdAt"]);
    assert_eq!(draft["createdAt"], draft["updatedAt"]);
    assert_eq!(info(&app, &draft["id"]).await.ok(), &draft);

    let live = create(&app, json!({"title": "Release 2.0", "publish": true})).await;
    assert_timestamp(&live["publishedAt"]);
    assert_eq!(live["publishedAt"], live["createdAt"]);
    assert_eq!(live["text"], "");
    assert_ne!(live["urlId"], draft["urlId"]);
}

async fn info_and_update_change_given_fields_and_the_url_follows_the_title(app: TestApp) {
    let doc = create(&app, json!({"title": "Old name", "text": "Body"})).await;
    let url_id = doc["urlId"].as_str().unwrap().to_owned();
    let renamed = app
        .team(
            "documents.update",
            json!({"id": doc["id"], "title": "New name"}),
        )
        .await
        .ok()
        .clone();
    assert_eq!(renamed["title"], "New name");
    assert_eq!(renamed["text"], "Body", "text not given stays");
    assert_eq!(renamed["urlId"], url_id.as_str());
    assert_eq!(renamed["url"], format!("/new-name-{url_id}"));
    assert_eq!(info(&app, &doc["id"]).await.ok(), &renamed);

    let retexted = app
        .team("documents.update", json!({"id": doc["id"], "text": ""}))
        .await
        .ok()
        .clone();
    assert_eq!(
        (&retexted["title"], &retexted["text"]),
        (&json!("New name"), &json!(""))
    );

    let missing = json!({"id": "0191c8a0-0000-7000-8000-000000000000", "title": "X"});
    app.team("documents.update", missing)
        .await
        .assert_error(404, "Document not found");
    app.team(
        "documents.info",
        json!({"id": "0191c8a0-0000-7000-8000-000000000000"}),
    )
    .await
    .assert_error(404, "Document not found");
}

async fn publish_keeps_the_first_time_and_unpublish_clears_it(app: TestApp) {
    let doc = create(&app, json!({"title": "Changelog"})).await;
    let first = app
        .team("documents.publish", json!({"id": doc["id"]}))
        .await
        .ok()
        .clone();
    assert_timestamp(&first["publishedAt"]);
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let again = app
        .team("documents.publish", json!({"id": doc["id"]}))
        .await
        .ok()
        .clone();
    assert_eq!(again, first, "a second publish changes nothing");

    let hidden = app
        .team("documents.unpublish", json!({"id": doc["id"]}))
        .await
        .ok()
        .clone();
    assert_eq!(hidden["publishedAt"], Value::Null);
    let twice = app
        .team("documents.unpublish", json!({"id": doc["id"]}))
        .await
        .ok()
        .clone();
    assert_eq!(twice, hidden);
    assert_eq!(
        info(&app, &doc["id"]).await.ok()["publishedAt"],
        Value::Null
    );

    let republished = app
        .team("documents.publish", json!({"id": doc["id"]}))
        .await
        .ok()
        .clone();
    assert_timestamp(&republished["publishedAt"]);
    assert_ne!(republished["publishedAt"], first["publishedAt"]);
    for op in ["documents.publish", "documents.unpublish"] {
        app.team(op, json!({"id": "0191c8a0-0000-7000-8000-000000000000"}))
            .await
            .assert_error(404, "Document not found");
    }
}

async fn delete_removes_the_document_and_its_reactions(app: TestApp) {
    let doc = published(&app, "Going away", "").await;
    let keep = published(&app, "Staying", "").await;
    let (_, code) = app.identify("fan@example.com").await;
    react(&app, &code, &doc, "👍").await.ok();
    react(&app, &code, &keep, "👍").await.ok();

    let reply = app.team("documents.delete", json!({"id": doc["id"]})).await;
    reply.assert_body(200, json!({"success": true, "id": doc["id"]}));
    info(&app, &doc["id"])
        .await
        .assert_error(404, "Document not found");
    app.team("documents.delete", json!({"id": doc["id"]}))
        .await
        .assert_error(404, "Document not found");
    react(&app, &code, &doc, "👍")
        .await
        .assert_error(404, "Document not found");
    let list = app.team("documents.list", json!({})).await;
    assert_eq!(titles(&list), ["Staying"]);
    assert_eq!(list.body["data"][0]["reactions"], json!({"👍": 1}));
}

async fn the_team_list_is_newest_first_filtered_searched_and_paged(app: TestApp) {
    create(&app, json!({"title": "Alpha", "text": "first draft"})).await;
    published(&app, "Beta", "Shipping NEWS").await;
    create(&app, json!({"title": "Gamma news"})).await;
    published(&app, "Delta", "100% done").await;

    let all = app.team("documents.list", json!({})).await;
    assert_eq!(titles(&all), ["Delta", "Gamma news", "Beta", "Alpha"]);
    assert_eq!(
        all.body["pagination"],
        json!({"total": 4, "limit": 20, "offset": 0})
    );
    let live = app.team("documents.list", json!({"published": true})).await;
    assert_eq!(titles(&live), ["Delta", "Beta"]);
    let drafts = app
        .team("documents.list", json!({"published": false}))
        .await;
    assert_eq!(titles(&drafts), ["Gamma news", "Alpha"]);

    let news = app.team("documents.list", json!({"search": "News"})).await;
    assert_eq!(
        titles(&news),
        ["Gamma news", "Beta"],
        "title or text, any case"
    );
    let percent = app.team("documents.list", json!({"search": "0%"})).await;
    assert_eq!(titles(&percent), ["Delta"]);
    let wildcard = app.team("documents.list", json!({"search": "%"})).await;
    assert_eq!(titles(&wildcard), ["Delta"], "% is taken literally");
    let underscore = app.team("documents.list", json!({"search": "_"})).await;
    assert_eq!(underscore.total(), 0, "_ is taken literally");

    let page = app
        .team("documents.list", json!({"limit": 2, "offset": 1}))
        .await;
    assert_eq!(titles(&page), ["Gamma news", "Beta"]);
    assert_eq!(
        page.body["pagination"],
        json!({"total": 4, "limit": 2, "offset": 1})
    );
    let past = app.team("documents.list", json!({"offset": 10})).await;
    assert_eq!((past.total(), past.ok().as_array().unwrap().len()), (4, 0));
    let clamped = app.team("documents.list", json!({"limit": 1000})).await;
    assert_eq!(clamped.body["pagination"]["limit"], 100);
}

async fn bad_input_is_400_naming_the_field_and_changes_nothing(app: TestApp) {
    let doc = create(&app, json!({"title": "Stable", "text": "Same"})).await;
    let cases = [
        ("documents.create", json!({}), "title is required"),
        (
            "documents.create",
            json!({"title": "  "}),
            "title is required",
        ),
        (
            "documents.create",
            json!({"title": "x".repeat(256)}),
            "title must be at most 255 characters",
        ),
        (
            "documents.create",
            json!({"title": "T", "text": "x".repeat(50_001)}),
            "text must be at most 50000 characters",
        ),
        (
            "documents.create",
            json!({"title": "T", "publish": "maybe"}),
            "publish must be a boolean",
        ),
        ("documents.update", json!({"title": "X"}), "id is required"),
        (
            "documents.update",
            json!({"id": "nope", "title": "X"}),
            "id must be a UUID",
        ),
        (
            "documents.update",
            json!({"id": doc["id"], "title": ""}),
            "title is required",
        ),
        (
            "documents.update",
            json!({"id": doc["id"], "text": "x".repeat(50_001)}),
            "text must be at most 50000 characters",
        ),
        ("documents.info", json!({}), "id is required"),
        ("documents.publish", json!({"id": 7}), "id must be a string"),
        (
            "documents.unpublish",
            json!({"id": "x"}),
            "id must be a UUID",
        ),
        ("documents.delete", json!({}), "id is required"),
        (
            "documents.list",
            json!({"limit": 0}),
            "limit must be between 1 and 100",
        ),
        (
            "documents.list",
            json!({"offset": -1}),
            "offset must be 0 or more",
        ),
    ];
    for (op, body, message) in cases {
        let reply = app.team(op, body).await;
        assert_eq!(reply.assert_status(400), message, "{op}: {}", reply.body);
    }
    let list = app.team("documents.list", json!({})).await;
    assert_eq!(list.total(), 1);
    assert_eq!(info(&app, &doc["id"]).await.ok(), &doc);

    let (_, code) = app.identify("reader@example.com").await;
    let public_cases = [
        (
            json!({"sort": "votes"}),
            "sort must be one of publishedAt, createdAt, updatedAt, title",
        ),
        (
            json!({"direction": "UP"}),
            "direction must be one of ASC, DESC",
        ),
        (json!({"limit": -1}), "limit must be between 1 and 100"),
    ];
    for (body, message) in public_cases {
        public_list(&app, &code, body)
            .await
            .assert_error(400, message);
    }
}

async fn another_team_cannot_see_or_change_documents(app: TestApp) {
    let doc = published(&app, "Ours", "private to us").await;
    let (_, rival) = app.other_team("rival").await;
    let theirs = app
        .data_with(
            &rival,
            "documents.create",
            json!({"title": "Theirs", "publish": true}),
        )
        .await;
    let id = json!({"id": doc["id"]});
    for op in [
        "documents.info",
        "documents.publish",
        "documents.unpublish",
        "documents.delete",
    ] {
        app.call(op, Some(&rival), id.clone())
            .await
            .assert_error(404, "Document not found");
    }
    app.call(
        "documents.update",
        Some(&rival),
        json!({"id": doc["id"], "title": "Hijacked"}),
    )
    .await
    .assert_error(404, "Document not found");
    let their_list = app.call("documents.list", Some(&rival), json!({})).await;
    assert_eq!(titles(&their_list), ["Theirs"]);
    let their_public = public_list(&app, &rival, json!({})).await;
    assert_eq!(titles(&their_public), ["Theirs"]);
    assert_eq!(
        titles(&public_list(&app, &app.key, json!({})).await),
        ["Ours"]
    );

    // A subscriber of the default team cannot react to the other team's document.
    let (_, code) = app.identify("fan@example.com").await;
    react(&app, &code, &theirs, "👍")
        .await
        .assert_error(404, "Document not found");
    assert_eq!(info(&app, &doc["id"]).await.ok(), &doc, "nothing changed");
}

async fn read_only_keys_only_read_and_member_keys_manage_documents(app: TestApp) {
    let doc = create(&app, json!({"title": "Guarded"})).await;
    let (read_only, _) = app.key_with(Role::Owner, true).await;
    let id = json!({"id": doc["id"]});
    let writes = [
        ("documents.create", json!({"title": "Nope"})),
        (
            "documents.update",
            json!({"id": doc["id"], "title": "Nope"}),
        ),
        ("documents.publish", id.clone()),
        ("documents.unpublish", id.clone()),
        ("documents.delete", id.clone()),
    ];
    for (op, body) in &writes {
        app.call(op, Some(&read_only), body.clone())
            .await
            .assert_error(403, "This API key is read-only");
    }
    assert_eq!(info(&app, &doc["id"]).await.ok(), &doc, "nothing changed");
    let listed = app
        .call("documents.list", Some(&read_only), json!({}))
        .await;
    assert_eq!(titles(&listed), ["Guarded"]);
    let read = app
        .call("documents.info", Some(&read_only), id.clone())
        .await;
    assert_eq!(read.ok(), &doc);

    let (member, _) = app.key_with(Role::Member, false).await;
    let made = app
        .data_with(&member, "documents.create", json!({"title": "By a member"}))
        .await;
    let renamed = app
        .call(
            "documents.update",
            Some(&member),
            json!({"id": doc["id"], "title": "Renamed"}),
        )
        .await;
    assert_eq!(renamed.ok()["title"], "Renamed");
    let live = app
        .call("documents.publish", Some(&member), id.clone())
        .await;
    assert_timestamp(&live.ok()["publishedAt"]);
    let hidden = app.call("documents.unpublish", Some(&member), id).await;
    assert_eq!(hidden.ok()["publishedAt"], Value::Null);
    app.call("documents.delete", Some(&member), json!({"id": made["id"]}))
        .await
        .assert_body(200, json!({"success": true, "id": made["id"]}));
}

async fn the_public_list_shows_published_documents_sorted_and_searched(app: TestApp) {
    let first = published(&app, "banana guide", "Yellow").await;
    create(&app, json!({"title": "Secret draft", "text": "yellow"})).await;
    let second = published(&app, "Apple guide", "Red").await;
    let third = create(&app, json!({"title": "cherry notes", "text": "red"})).await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    // Created as a draft after `second`, published later.
    app.team("documents.publish", json!({"id": third["id"]}))
        .await
        .ok();
    // Times are kept to the millisecond: each change below in a millisecond of its own, so
    // the `updatedAt` order is what the test made, not a tie.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    // Touch the first so it is more recently updated than the third.
    app.team(
        "documents.update",
        json!({"id": first["id"], "text": "Yellow!"}),
    )
    .await
    .ok();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let hidden = app
        .team("documents.unpublish", json!({"id": second["id"]}))
        .await;
    hidden.ok();
    app.team("documents.publish", json!({"id": second["id"]}))
        .await
        .ok();

    let (_, code) = app.identify("reader@example.com").await;
    let default = public_list(&app, &code, json!({})).await;
    // Newest published first: `second` was published again last.
    assert_eq!(
        titles(&default),
        ["Apple guide", "cherry notes", "banana guide"]
    );
    assert_eq!(
        default.body["pagination"],
        json!({"total": 3, "limit": 10, "offset": 0})
    );
    let item = &default.ok()[0];
    assert_eq!(
        field_names(item),
        names(&format!("{FIELDS} myReactions")),
        "{item}"
    );
    let by_title = public_list(&app, &code, json!({"sort": "title", "direction": "asc"})).await;
    assert_eq!(
        titles(&by_title),
        ["Apple guide", "banana guide", "cherry notes"],
        "titles sort without regard to case"
    );
    let created = public_list(
        &app,
        &code,
        json!({"sort": "createdAt", "direction": "ASC"}),
    )
    .await;
    assert_eq!(
        titles(&created),
        ["banana guide", "Apple guide", "cherry notes"]
    );
    let updated = public_list(&app, &code, json!({"sort": "updatedAt"})).await;
    assert_eq!(titles(&updated)[0], "Apple guide");
    assert_eq!(titles(&updated)[2], "cherry notes");
    let red = public_list(&app, &code, json!({"search": "RED"})).await;
    assert_eq!(titles(&red), ["Apple guide", "cherry notes"]);
    let yellow = public_list(&app, &code, json!({"search": "yellow"})).await;
    assert_eq!(titles(&yellow), ["banana guide"], "drafts never show");
    let page = public_list(&app, &code, json!({"limit": 1, "offset": 2})).await;
    assert_eq!(titles(&page), ["banana guide"]);
    assert_eq!(page.total(), 3);
    // Unpublished documents are absent, also for the team key.
    let keyed = public_list(&app, &app.key, json!({})).await;
    assert_eq!(keyed.total(), 3);
    assert!(!titles(&keyed).contains(&"Secret draft".to_owned()));
}

async fn a_key_sees_no_my_reactions(app: TestApp) {
    let doc = published(&app, "Welcome", "").await;
    let (_, code) = app.identify("fan@example.com").await;
    react(&app, &code, &doc, "🎉").await.ok();
    let keyed = public_list(&app, &app.key, json!({})).await;
    let item = &keyed.ok()[0];
    assert_eq!(field_names(item), names(FIELDS), "{item}");
    assert_eq!(item["reactions"], json!({"🎉": 1}));
    let team = app.team("documents.list", json!({})).await;
    assert_eq!(field_names(&team.ok()[0]), names(FIELDS));
}

async fn a_document_reaction_twice_counts_once_and_shows_in_my_reactions_only_for_that_subscriber(
    app: TestApp,
) {
    let doc = published(&app, "Welcome", "").await;
    let (_, alice) = app.identify("alice@example.com").await;
    let (_, bob) = app.identify("bob@example.com").await;

    let first = react(&app, &alice, &doc, "👍").await;
    first.assert_body(
        200,
        json!({"data": {
            "documentId": doc["id"],
            "emoji": "👍",
            "reactions": {"👍": 1},
            "myReactions": ["👍"],
        }}),
    );
    let again = react(&app, &alice, &doc, "👍").await;
    assert_eq!(again.body, first.body, "a repeat changes nothing");
    let bobs = react(&app, &bob, &doc, "🎉").await;
    assert_eq!(bobs.ok()["reactions"], json!({"👍": 1, "🎉": 1}));
    assert_eq!(bobs.ok()["myReactions"], json!(["🎉"]));

    let for_alice = public_list(&app, &alice, json!({})).await;
    assert_eq!(for_alice.ok()[0]["reactions"], json!({"👍": 1, "🎉": 1}));
    assert_eq!(for_alice.ok()[0]["myReactions"], json!(["👍"]));
    let for_bob = public_list(&app, &bob, json!({})).await;
    assert_eq!(for_bob.ok()[0]["myReactions"], json!(["🎉"]));
    let (_, carol) = app.identify("carol@example.com").await;
    let for_carol = public_list(&app, &carol, json!({})).await;
    assert_eq!(for_carol.ok()[0]["myReactions"], json!([]));
    assert_eq!(
        info(&app, &doc["id"]).await.ok()["reactions"],
        json!({"👍": 1, "🎉": 1})
    );
}

async fn removing_a_reaction_is_idempotent_and_leaves_the_others(app: TestApp) {
    let doc = published(&app, "Welcome", "").await;
    let other = published(&app, "Other", "").await;
    let (_, alice) = app.identify("alice@example.com").await;
    let (_, bob) = app.identify("bob@example.com").await;
    react(&app, &alice, &doc, "👍").await.ok();
    react(&app, &alice, &doc, "❤️").await.ok();
    react(&app, &bob, &doc, "👍").await.ok();
    react(&app, &alice, &other, "👍").await.ok();

    let removed = unreact(&app, &alice, &doc, "👍").await;
    removed.assert_body(
        200,
        json!({"data": {
            "documentId": doc["id"],
            "emoji": "👍",
            "reactions": {"👍": 1, "❤️": 1},
            "myReactions": ["❤️"],
        }}),
    );
    let again = unreact(&app, &alice, &doc, "👍").await;
    assert_eq!(again.body, removed.body);
    let never = unreact(&app, &alice, &doc, "🚀").await;
    assert_eq!(never.ok()["reactions"], json!({"👍": 1, "❤️": 1}));
    assert_eq!(
        info(&app, &other["id"]).await.ok()["reactions"],
        json!({"👍": 1}),
        "another document keeps its reactions"
    );
    unreact(&app, &alice, &doc, "❤️").await.ok();
    unreact(&app, &bob, &doc, "👍").await.ok();
    assert_eq!(info(&app, &doc["id"]).await.ok()["reactions"], json!({}));
}

async fn reactions_need_a_subscriber_and_a_published_document_of_their_team(app: TestApp) {
    let doc = published(&app, "Welcome", "").await;
    let draft = create(&app, json!({"title": "Draft"})).await;
    let (_, code) = app.identify("fan@example.com").await;
    for reply in [
        react(&app, &app.key, &doc, "👍").await,
        unreact(&app, &app.key, &doc, "👍").await,
        app.call(
            "public/document-reactions.create",
            None,
            json!({"documentId": doc["id"], "emoji": "👍"}),
        )
        .await,
    ] {
        reply.assert_error(401, "Authentication required");
    }
    react(&app, &code, &draft, "👍")
        .await
        .assert_error(404, "Document not found");
    unreact(&app, &code, &draft, "👍")
        .await
        .assert_error(404, "Document not found");
    let missing = json!({"id": "0191c8a0-0000-7000-8000-000000000000"});
    react(&app, &code, &missing, "👍")
        .await
        .assert_error(404, "Document not found");

    // A reaction stays through unpublishing, but no one can react meanwhile.
    react(&app, &code, &doc, "👍").await.ok();
    app.team("documents.unpublish", json!({"id": doc["id"]}))
        .await
        .ok();
    react(&app, &code, &doc, "🎉")
        .await
        .assert_error(404, "Document not found");
    assert_eq!(
        info(&app, &doc["id"]).await.ok()["reactions"],
        json!({"👍": 1})
    );
    assert_eq!(info(&app, &draft["id"]).await.ok()["reactions"], json!({}));
}

async fn emoji_are_checked(app: TestApp) {
    let doc = published(&app, "Welcome", "").await;
    let (_, code) = app.identify("fan@example.com").await;
    let cases = [
        (json!({"emoji": "👍"}), "documentId is required"),
        (
            json!({"documentId": "nope", "emoji": "👍"}),
            "documentId must be a UUID",
        ),
        (json!({"documentId": doc["id"]}), "emoji is required"),
        (
            json!({"documentId": doc["id"], "emoji": ""}),
            "emoji is required",
        ),
        (
            json!({"documentId": doc["id"], "emoji": "x".repeat(33)}),
            "emoji must be at most 32 characters",
        ),
        (
            json!({"documentId": doc["id"], "emoji": "thumbs up"}),
            "emoji must not contain whitespace or control characters",
        ),
        (
            json!({"documentId": doc["id"], "emoji": "ok\n"}),
            "emoji must not contain whitespace or control characters",
        ),
        (
            json!({"documentId": doc["id"], "emoji": 5}),
            "emoji must be a string",
        ),
    ];
    for op in [
        "public/document-reactions.create",
        "public/document-reactions.delete",
    ] {
        for (body, message) in &cases {
            app.call(op, Some(&code), body.clone())
                .await
                .assert_error(400, message);
        }
    }
    assert_eq!(info(&app, &doc["id"]).await.ok()["reactions"], json!({}));
    // A long sequence within the limit is one reaction.
    let family = "👨‍👩‍👧‍👦";
    let reply = react(&app, &code, &doc, family).await;
    assert_eq!(reply.ok()["reactions"], json!({ family: 1 }));
    let shortcode = react(&app, &code, &doc, ":tada:").await;
    assert_eq!(shortcode.ok()["myReactions"], json!([":tada:", family]));
}
