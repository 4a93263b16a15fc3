//! Comments and votes on topics: `public/topic-comments.create|list`, the team's moderation
//! `topic-comments.list|update|delete`, `public/topic-votes.create|delete|info` and the team's
//! `topics.vote|unvote` on behalf of a subscriber (issue 18), and the topic counts they keep
//! (interface §2 Topic comment, Topic vote, §4, §6, §7; decisions §4, §6, §7).

use std::collections::BTreeSet;

use futures_util::future::join_all;
use serde_json::{json, Value};
use sounding_tests::{
    client::{assert_timestamp, field_names},
    engine_tests,
    harness::OWNER_EMAIL,
    Reply, TestApp,
};

engine_tests!(
    a_comment_is_returned_whole_counted_and_announced,
    comment_input_is_checked_and_failures_leave_nothing,
    a_reply_tree_is_listed_under_its_top_level_comment,
    the_team_wide_list_names_each_comments_topic,
    comment_lists_sort_and_page,
    a_private_stages_topic_is_for_team_members_only,
    thirty_subscribers_vote_at_once_and_every_vote_counts,
    a_repeated_vote_is_a_duplicate_and_changes_nothing,
    voting_needs_a_subscriber_token,
    deleting_a_vote_is_idempotent_and_info_is_personal,
    the_team_lists_threads_of_every_topic_it_has,
    the_team_edits_a_comments_text,
    deleting_a_comment_with_replies_leaves_a_tombstone_until_they_go,
    the_team_votes_on_topics_for_its_subscribers,
    topic_votes_on_behalf_reach_every_topic_of_the_team_and_check_their_input,
    a_remembered_thread_page_is_for_its_own_audience_and_follows_every_write,
);

fn names(list: &str) -> BTreeSet<&str> {
    list.split_whitespace().collect()
}

/// A public stage with one published topic by `author@example.com`: `(stage, topic, token)`.
async fn setup(app: &TestApp) -> (Value, Value, String) {
    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Ideas"})).await;
    let (_, code) = app.identify("author@example.com").await;
    let topic = json!({"title": "Dark mode"});
    let topic = app.topic(&code, &stage, topic).await;
    (stage, topic, code)
}

async fn comment(app: &TestApp, token: &str, body: Value) -> Reply {
    let op = "public/topic-comments.create";
    app.call(op, Some(token), body).await
}

/// Comments `text` on `topic` (a reply to `parent` when given), asserting a 200.
async fn say(app: &TestApp, token: &str, topic: &Value, parent: &Value, text: &str) -> Value {
    let body = json!({"id": topic["id"], "text": text, "parentId": parent["id"]});
    comment(app, token, body).await.ok().clone()
}

async fn list(app: &TestApp, token: &str, body: Value) -> Reply {
    let op = "public/topic-comments.list";
    app.call(op, Some(token), body).await
}

/// The topic as `topics.info` shows it to the owner key.
async fn topic_info(app: &TestApp, topic: &Value) -> Value {
    let body = json!({"id": topic["id"]});
    app.team_data("public/topics.info", body).await
}

async fn vote(app: &TestApp, token: Option<&str>, topic: &Value) -> Reply {
    let body = json!({"id": topic["id"]});
    app.call("public/topic-votes.create", token, body).await
}

async fn vote_info(app: &TestApp, token: &str, topic: &Value) -> Value {
    let body = json!({"id": topic["id"]});
    let reply = app.call("public/topic-votes.info", Some(token), body).await;
    reply.ok().clone()
}

/// A listed thread: `comment` with its `replies`.
fn thread(comment: &Value, replies: &[&Value]) -> Value {
    let mut thread = comment.clone();
    thread["replies"] = json!(replies);
    thread
}

async fn a_comment_is_returned_whole_counted_and_announced(app: TestApp) {
    let (_, topic, _) = setup(&app).await;
    let (ann, code) = app.identify("ann.lee@example.com").await;
    let body = json!({"id": topic["id"], "text": "  Me too!  "});
    let c = comment(&app, &code, body).await.ok().clone();
    let fields = "createdAt creatorId id parentId source subscriber text topicId updatedAt";
    assert_eq!(field_names(&c), names(fields));
    assert_eq!(
        (&c["text"], &c["source"]),
        (&json!("Me too!"), &json!("api"))
    );
    assert_eq!((&c["topicId"], &c["creatorId"]), (&topic["id"], &ann["id"]));
    assert_eq!(c["parentId"], Value::Null);
    let author = json!({"id": ann["id"], "name": "Ann Lee", "email": "ann.lee@example.com"});
    assert_eq!(c["subscriber"], author);
    assert_timestamp(&c["createdAt"]);
    assert_timestamp(&c["updatedAt"]);
    for source in ["widget", "email", "api"] {
        let body = json!({"id": topic["id"], "text": source, "source": source});
        let sourced = comment(&app, &code, body).await;
        assert_eq!(sourced.ok()["source"], source);
    }
    assert_eq!(topic_info(&app, &topic).await["commentCount"], 4);
    // The commenter now follows the topic.
    let followers = app.topic_followers(&topic["id"]).await;
    assert!(followers.contains(&ann["id"].as_str().unwrap().to_owned()));
    // One event per comment, with exactly these keys.
    let events = app.events_of("topic-comments.create").await;
    assert_eq!(events.len(), 4);
    let keys = "commentId data event occurredAt subscriberId teamId topicId";
    assert_eq!(field_names(&events[0]), names(keys));
    assert_eq!(events[0]["event"], "topic-comments.create");
    assert_eq!(events[0]["teamId"], app.team_id);
    assert_eq!(events[0]["commentId"], c["id"]);
    assert_eq!(events[0]["topicId"], topic["id"]);
    assert_eq!(events[0]["subscriberId"], ann["id"]);
    assert_eq!(events[0]["data"], c);
    assert_timestamp(&events[0]["occurredAt"]);
    // The list returns the same object, with replies.
    let body = json!({"id": topic["id"], "direction": "ASC"});
    let listed = list(&app, &code, body).await;
    assert_eq!(listed.ok()[0], thread(&c, &[]));
}

async fn comment_input_is_checked_and_failures_leave_nothing(app: TestApp) {
    let (stage, topic, author) = setup(&app).await;
    let other = app.topic(&author, &stage, json!({"title": "Other"})).await;
    let foreign = say(&app, &author, &other, &Value::Null, "elsewhere").await;
    let (_, code) = app.identify("careful@example.com").await;
    let before = app.events().await.len();
    let on = |key: &str, value: Value| {
        let mut body = json!({"id": topic["id"], "text": "fine"});
        body[key] = value;
        body
    };
    let too_long = json!("x".repeat(10_001));
    for text in [json!(""), json!("   "), Value::Null, too_long] {
        comment(&app, &code, on("text", text))
            .await
            .assert_status(400);
    }
    let not_same = "parentId must be a comment of the same topic";
    for parent in [foreign["id"].clone(), json!(uuid::Uuid::now_v7())] {
        let reply = comment(&app, &code, on("parentId", parent)).await;
        reply.assert_error(400, not_same);
    }
    let reply = comment(&app, &code, on("source", json!("fax"))).await;
    reply.assert_error(400, "source must be one of widget, api, email");
    let reply = comment(&app, &code, on("id", json!(uuid::Uuid::now_v7()))).await;
    reply.assert_error(404, "Topic not found");
    let reply = comment(&app, &code, on("id", Value::Null)).await;
    reply.assert_error(400, "id is required");
    for token in [None, Some(app.key.as_str())] {
        let reply = app.call("public/topic-comments.create", token, on("x", json!(1)));
        reply.await.assert_error(401, "Authentication required");
    }
    // Nothing stored or announced.
    assert_eq!(app.events().await.len(), before);
    assert_eq!(topic_info(&app, &topic).await["commentCount"], 0);
    assert_eq!(
        list(&app, &code, json!({"id": topic["id"]})).await.total(),
        0
    );
    // Exactly 10,000 characters after trimming is fine.
    let text = format!("  {}\n", "y".repeat(10_000));
    let c = comment(&app, &code, on("text", json!(text))).await;
    assert_eq!(c.ok()["text"].as_str().unwrap().len(), 10_000);
}

async fn a_reply_tree_is_listed_under_its_top_level_comment(app: TestApp) {
    let (_, topic, author) = setup(&app).await;
    let (_, bob) = app.identify("bob@example.com").await;
    let top = &Value::Null;
    let first = say(&app, &author, &topic, top, "first").await;
    let reply = say(&app, &bob, &topic, &first, "reply").await;
    let deeper = say(&app, &author, &topic, &reply, "deeper").await;
    let deepest = say(&app, &bob, &topic, &deeper, "deepest").await;
    let second_reply = say(&app, &bob, &topic, &first, "second reply").await;
    let second = say(&app, &bob, &topic, top, "second").await;
    let late = say(&app, &author, &topic, &second, "late").await;
    let also_deeper = say(&app, &author, &topic, &reply, "also deeper").await;
    assert_eq!(reply["parentId"], first["id"]);
    assert_eq!(deeper["parentId"], reply["id"]);
    assert_eq!(deepest["parentId"], deeper["id"]);
    // Newest top-level first; every descendant below its top-level comment, oldest first.
    let replies = [&reply, &deeper, &deepest, &second_reply, &also_deeper];
    let expected = json!([thread(&second, &[&late]), thread(&first, &replies)]);
    let pagination = json!({"total": 2, "limit": 50, "offset": 0});
    for token in [&bob, &app.key] {
        let listed = list(&app, token, json!({"id": topic["id"]})).await;
        assert_eq!(listed.ok(), &expected);
        assert_eq!(listed.body["pagination"], pagination);
    }
    let body = json!({"id": topic["id"], "direction": "ASC"});
    let listed = list(&app, &bob, body).await;
    let parents = listed.ok()[0]["replies"].as_array().unwrap().iter();
    let parents: Vec<&Value> = parents.map(|r| &r["parentId"]).collect();
    let ids = [&first, &reply, &deeper, &first, &reply].map(|c| &c["id"]);
    assert_eq!(parents, ids);
    // Every comment, replies included, counts.
    assert_eq!(topic_info(&app, &topic).await["commentCount"], 8);
    let body = json!({"stageId": topic["stageId"]});
    let stage = app.team("public/stages.info", body).await;
    assert_eq!(stage.body["topics"][0]["commentCount"], 8);
}

async fn the_team_wide_list_names_each_comments_topic(app: TestApp) {
    let (stage, topic, author) = setup(&app).await;
    let (_, stranger) = app.identify("stranger@example.com").await;
    let (_, owner) = app.identify(OWNER_EMAIL).await;
    // No comments at all: an empty list.
    for token in [&stranger, &app.key] {
        let empty = list(&app, token, json!({})).await;
        assert_eq!((empty.ok(), empty.total()), (&json!([]), 0));
        let none = list(&app, token, json!({"id": topic["id"]})).await;
        assert_eq!(none.ok(), &json!([]));
    }
    let other = json!({"title": "Export to CSV"});
    let other = app.topic(&author, &stage, other).await;
    let on_topic = say(&app, &author, &topic, &Value::Null, "on dark mode").await;
    let answer = say(&app, &stranger, &topic, &on_topic, "agreed").await;
    let on_other = say(&app, &stranger, &other, &Value::Null, "on export").await;
    let named = |comment: &Value, replies: &[&Value], t: &Value| {
        let mut thread = thread(comment, replies);
        thread["topic"] = json!({"id": t["id"], "title": t["title"], "url": t["url"]});
        thread
    };
    let expected = json!([
        named(&on_other, &[], &other),
        named(&on_topic, &[&answer], &topic)
    ]);
    for token in [&stranger, &app.key] {
        let all = list(&app, token, json!({})).await;
        assert_eq!((all.ok(), all.total()), (&expected, 2));
        // With a topic named, no topic objects.
        let one = list(&app, token, json!({"id": other["id"]})).await;
        assert_eq!(one.ok(), &json!([thread(&on_other, &[])]));
    }
    // A topic on a private stage keeps its comments from non-members.
    let secret = json!({"name": "Secret", "meta": {"isPrivate": true}});
    let secret = app.stage(&json!({"id": stage["roadmapId"]}), secret).await;
    let body = json!({"id": other["id"], "stageId": secret["id"]});
    app.team("topics.update", body).await.ok();
    let all = list(&app, &stranger, json!({})).await;
    assert_eq!(all.each("text"), ["on dark mode"]);
    let one = list(&app, &stranger, json!({"id": other["id"]})).await;
    assert_eq!(one.ok(), &json!([]));
    for token in [&owner, &app.key] {
        let all = list(&app, token, json!({})).await;
        assert_eq!(all.each("text"), ["on export", "on dark mode"]);
    }
    // Another team sees none of it.
    let (_, other_key) = app.other_team("acme").await;
    let theirs = list(&app, &other_key, json!({})).await;
    assert_eq!(theirs.ok(), &json!([]));
    let named = list(&app, &other_key, json!({"id": topic["id"]})).await;
    assert_eq!(named.ok(), &json!([]));
    // Deleting a topic takes its comments (and votes and visits) along.
    let id = json!({"id": topic["id"]});
    vote(&app, Some(&stranger), &topic).await.ok();
    app.call("public/topics.info", Some(&stranger), id.clone())
        .await
        .ok();
    app.team("topics.delete", id).await.ok();
    let all = list(&app, &app.key, json!({})).await;
    assert_eq!(all.each("text"), ["on export"]);
}

async fn comment_lists_sort_and_page(app: TestApp) {
    let (_, topic, author) = setup(&app).await;
    // Said at once, yet every one is kept and counted.
    let texts = ["one", "two", "three", "four", "five", "six"];
    let said = join_all(texts.map(|t| say(&app, &author, &topic, &Value::Null, t))).await;
    assert_eq!(topic_info(&app, &topic).await["commentCount"], 6);
    let page = |mut body: Value| {
        body["id"] = topic["id"].clone();
        list(&app, &app.key, body)
    };
    let order = |said: &[Value]| said.iter().map(|c| c["id"].clone()).collect::<Vec<_>>();
    let ids = |reply: &Reply| order(reply.ok().as_array().unwrap());
    let mut oldest_first = said.clone();
    oldest_first.sort_by_key(|c| (c["createdAt"].to_string(), c["id"].to_string()));
    let mut newest_first = oldest_first.clone();
    newest_first.reverse();
    assert_eq!(ids(&page(json!({})).await), order(&newest_first));
    let body = json!({"direction": "ASC"});
    assert_eq!(ids(&page(body).await), order(&oldest_first));
    let body = json!({"sort": "updatedAt", "direction": "DESC"});
    assert_eq!(ids(&page(body).await), order(&newest_first));
    let body = json!({"direction": "ASC", "limit": 2, "offset": 1});
    let second = page(body).await;
    assert_eq!(ids(&second), order(&oldest_first[1..3]));
    let pagination = json!({"total": 6, "limit": 2, "offset": 1});
    assert_eq!(second.body["pagination"], pagination);
    let past = page(json!({"offset": 10})).await;
    assert_eq!((past.ok(), past.total()), (&json!([]), 6));
    let clamped = page(json!({"limit": 500})).await;
    assert_eq!(clamped.body["pagination"]["limit"], 100);
    for bad in [
        json!({"limit": 0}),
        json!({"offset": -1}),
        json!({"sort": "votes"}),
        json!({"direction": "SIDEWAYS"}),
    ] {
        page(bad).await.assert_status(400);
    }
    let reply = list(&app, &app.key, json!({"id": "nope"})).await;
    reply.assert_error(400, "id must be a UUID");
}

/// `setup`'s topic moved to a private stage: `(topic, its author's token, a team member's
/// token)`; the author is no team member.
async fn private_setup(app: &TestApp) -> (Value, String, String) {
    let (stage, topic, author) = setup(app).await;
    let secret = json!({"name": "Secret", "meta": {"isPrivate": true}});
    let secret = app.stage(&json!({"id": stage["roadmapId"]}), secret).await;
    let body = json!({"id": topic["id"], "stageId": secret["id"]});
    app.team("topics.update", body).await.ok();
    let (_, owner) = app.identify(OWNER_EMAIL).await;
    (topic, author, owner)
}

async fn a_private_stages_topic_is_for_team_members_only(app: TestApp) {
    let (topic, author, owner) = private_setup(&app).await;
    let before = app.events().await.len();
    // Its own creator is no team member: it is not found for them.
    for op in ["comments.create", "votes.create", "votes.info"] {
        let mut body = json!({"id": topic["id"]});
        if op == "comments.create" {
            body["text"] = json!("hello");
        }
        let op = format!("public/topic-{op}");
        let reply = app.call(&op, Some(&author), body).await;
        reply.assert_error(404, "Topic not found");
    }
    assert_eq!(app.events().await.len(), before);
    // A subscriber with a team user's e-mail may.
    say(&app, &owner, &topic, &Value::Null, "internal note").await;
    vote(&app, Some(&owner), &topic).await.ok();
    let counted = json!({"count": 1, "isSubscriberVoted": true});
    assert_eq!(vote_info(&app, &owner, &topic).await, counted);
    let seen = topic_info(&app, &topic).await;
    assert_eq!(
        (&seen["voteCount"], &seen["commentCount"]),
        (&json!(1), &json!(1))
    );
}

async fn thirty_subscribers_vote_at_once_and_every_vote_counts(app: TestApp) {
    let (stage, topic, _) = setup(&app).await;
    let emails: Vec<String> = (0..30).map(|i| format!("voter{i}@example.com")).collect();
    let voters = join_all(emails.iter().map(|e| app.identify(e))).await;
    let replies = join_all(
        voters
            .iter()
            .map(|(_, code)| vote(&app, Some(code), &topic)),
    )
    .await;
    let mut vote_ids = BTreeSet::new();
    for ((voter, _), reply) in voters.iter().zip(&replies) {
        let data = reply.ok();
        assert_eq!(field_names(data), names("createdAt creatorId id topicId"));
        assert_eq!(
            (&data["topicId"], &data["creatorId"]),
            (&topic["id"], &voter["id"])
        );
        assert_timestamp(&data["createdAt"]);
        vote_ids.insert(data["id"].as_str().unwrap().to_owned());
    }
    assert_eq!(vote_ids.len(), 30);
    assert_eq!(topic_info(&app, &topic).await["voteCount"], 30);
    let body = json!({"stageId": stage["id"]});
    let listed = app.team("public/stages.info", body).await;
    assert_eq!(listed.body["topics"][0]["voteCount"], 30);
    let team_list = app.team_data("topics.list", json!({})).await;
    assert_eq!(team_list[0]["voteCount"], 30);
    let counted = json!({"count": 30, "isSubscriberVoted": false});
    assert_eq!(vote_info(&app, &app.key, &topic).await, counted);
    let counted = json!({"count": 30, "isSubscriberVoted": true});
    assert_eq!(vote_info(&app, &voters[7].1, &topic).await, counted);
    // One topic-votes.create per vote, carrying it.
    let events = app.events_of("topic-votes.create").await;
    assert_eq!(events.len(), 30);
    let announced: BTreeSet<String> = events
        .iter()
        .map(|e| {
            assert_eq!(e["event"], "topic-votes.create");
            assert_eq!(e["teamId"], app.team_id);
            assert_eq!(
                (&e["topicId"], &e["data"]["topicId"]),
                (&topic["id"], &topic["id"])
            );
            e["data"]["id"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(announced, vote_ids);
}

async fn a_repeated_vote_is_a_duplicate_and_changes_nothing(app: TestApp) {
    let (_, topic, code) = setup(&app).await;
    vote(&app, Some(&code), &topic).await.ok();
    let events = app.events().await.len();
    for _ in 0..2 {
        let again = vote(&app, Some(&code), &topic).await;
        again.assert_body(409, json!({"error": "Duplicate vote"}));
    }
    // At once, too: one vote wins, the rest are duplicates.
    let (_, eager) = app.identify("eager@example.com").await;
    let at_once = join_all((0..6).map(|_| vote(&app, Some(&eager), &topic))).await;
    let won = at_once.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        won,
        1,
        "{:?}",
        at_once.iter().map(|r| &r.body).collect::<Vec<_>>()
    );
    for reply in at_once.iter().filter(|r| r.status != 200) {
        reply.assert_body(409, json!({"error": "Duplicate vote"}));
    }
    assert_eq!(topic_info(&app, &topic).await["voteCount"], 2);
    let counted = json!({"count": 2, "isSubscriberVoted": true});
    assert_eq!(vote_info(&app, &code, &topic).await, counted);
    assert_eq!(app.events().await.len(), events + 1);
    assert_eq!(app.events_of("topic-votes.create").await.len(), 2);
}

async fn voting_needs_a_subscriber_token(app: TestApp) {
    let (_, topic, code) = setup(&app).await;
    for token in [None, Some(app.key.as_str())] {
        let refused = vote(&app, token, &topic).await;
        refused.assert_body(400, json!({"error": "Bad request"}));
        let body = json!({"id": topic["id"]});
        let removed = app.call("public/topic-votes.delete", token, body).await;
        assert_eq!(removed.status, 400, "{}", removed.body);
    }
    assert_eq!(topic_info(&app, &topic).await["voteCount"], 0);
    // Input of a subscriber's vote.
    let missing = json!({"id": uuid::Uuid::now_v7()});
    let reply = vote(&app, Some(&code), &missing).await;
    reply.assert_error(404, "Topic not found");
    let reply = app.call("public/topic-votes.delete", Some(&code), missing.clone());
    reply.await.assert_error(404, "Topic not found");
    let reply = app.call("public/topic-votes.info", Some(&code), missing);
    reply.await.assert_error(404, "Topic not found");
    let reply = app.call("public/topic-votes.create", Some(&code), json!({}));
    reply.await.assert_error(400, "id is required");
    let body = json!({"id": "nope"});
    let reply = app.call("public/topic-votes.info", Some(&code), body);
    reply.await.assert_error(400, "id must be a UUID");
    assert!(app.events_of("topic-votes.create").await.is_empty());
}

async fn deleting_a_vote_is_idempotent_and_info_is_personal(app: TestApp) {
    let (_, topic, stays) = setup(&app).await;
    let (_, leaves) = app.identify("leaves@example.com").await;
    let (_, never) = app.identify("never@example.com").await;
    let nobody = json!({"count": 0, "isSubscriberVoted": false});
    assert_eq!(vote_info(&app, &app.key, &topic).await, nobody);
    vote(&app, Some(&stays), &topic).await.ok();
    vote(&app, Some(&leaves), &topic).await.ok();
    assert_eq!(topic_info(&app, &topic).await["voteCount"], 2);
    for token in [&leaves, &leaves, &never] {
        let body = json!({"id": topic["id"]});
        let reply = app.call("public/topic-votes.delete", Some(token), body);
        reply.await.assert_body(200, json!({"ok": true}));
    }
    assert_eq!(topic_info(&app, &topic).await["voteCount"], 1);
    for (token, voted) in [(&stays, true), (&leaves, false), (&never, false)] {
        let expected = json!({"count": 1, "isSubscriberVoted": voted});
        assert_eq!(vote_info(&app, token, &topic).await, expected);
    }
    let expected = json!({"count": 1, "isSubscriberVoted": false});
    assert_eq!(vote_info(&app, &app.key, &topic).await, expected);
    // Removing is no new vote; voting again is.
    assert_eq!(app.events_of("topic-votes.create").await.len(), 2);
    vote(&app, Some(&leaves), &topic).await.ok();
    assert_eq!(topic_info(&app, &topic).await["voteCount"], 2);
    assert_eq!(
        vote_info(&app, &leaves, &topic).await["isSubscriberVoted"],
        true
    );
    assert_eq!(app.events_of("topic-votes.create").await.len(), 3);
}

async fn team_list(app: &TestApp, body: Value) -> Reply {
    app.team("topic-comments.list", body).await
}

async fn the_team_lists_threads_of_every_topic_it_has(app: TestApp) {
    let (stage, topic, author) = setup(&app).await;
    let roadmap = json!({"id": stage["roadmapId"]});
    let secret = json!({"name": "Secret", "meta": {"isPrivate": true}});
    let secret = app.stage(&roadmap, secret).await;
    // The team's topic on a private stage, and one held for moderation.
    let body = json!({"title": "Internal", "stageId": secret["id"]});
    let internal = app.team_data("topics.create", body).await;
    let (_, owner) = app.identify(OWNER_EMAIL).await;
    let note = say(&app, &owner, &internal, &Value::Null, "internal note").await;
    let open = say(&app, &author, &topic, &Value::Null, "open remark").await;
    let body = json!({"id": topic["id"], "publish": false});
    app.team("topics.update", body).await.ok();

    // The public list shows neither to a subscriber; the team's shows both, with their topics.
    assert_eq!(list(&app, &author, json!({})).await.total(), 0);
    let all = team_list(&app, json!({"direction": "ASC"})).await;
    assert_eq!(all.each("text"), ["internal note", "open remark"]);
    assert_eq!(all.ok()[0]["topic"]["id"], internal["id"]);
    let one = team_list(&app, json!({"id": topic["id"]})).await;
    assert_eq!(one.ok(), &json!([thread(&open, &[])]));
    let one = team_list(&app, json!({"id": internal["id"]})).await;
    assert_eq!(one.ok(), &json!([thread(&note, &[])]));
    // The public list with a team key: the private stage's topic, but never one held for
    // moderation (as `topics.info` shows them to a team member).
    let seen = list(&app, &app.key, json!({})).await;
    assert_eq!(
        (seen.each("text"), seen.total()),
        (vec!["internal note"], 1)
    );
    let held = list(&app, &app.key, json!({"id": topic["id"]})).await;
    assert_eq!((held.ok(), held.total()), (&json!([]), 0));
    let one = list(&app, &app.key, json!({"id": internal["id"]})).await;
    assert_eq!(one.ok(), &json!([thread(&note, &[])]));
    // A read-only key may list; another team's key sees nothing of this team's.
    let (read_only, _) = app
        .key_with(sounding_domain::access::Role::Member, true)
        .await;
    let reply = app
        .call("topic-comments.list", Some(&read_only), json!({}))
        .await;
    assert_eq!(reply.total(), 2);
    let (_, other) = app.other_team("elsewhere").await;
    for body in [json!({}), json!({"id": topic["id"]})] {
        let reply = app.call("topic-comments.list", Some(&other), body).await;
        assert_eq!(reply.ok(), &json!([]));
    }
    team_list(&app, json!({"id": "nope"}))
        .await
        .assert_error(400, "id must be a UUID");
    app.call("topic-comments.list", Some(&author), json!({}))
        .await
        .assert_error(401, "Authentication required");
}

async fn the_team_edits_a_comments_text(app: TestApp) {
    let (_, topic, author) = setup(&app).await;
    let c = say(&app, &author, &topic, &Value::Null, "Rude words").await;
    let events = app.events().await.len();
    tokio::time::sleep(std::time::Duration::from_millis(15)).await;
    let body = json!({"id": c["id"], "text": " Kind words "});
    let edited = app.team_data("topic-comments.update", body).await;
    let mut expected = c.clone();
    expected["text"] = json!("Kind words");
    expected["updatedAt"] = edited["updatedAt"].clone();
    assert_eq!(edited, expected);
    assert_ne!(edited["updatedAt"], c["updatedAt"]);
    // The same text again changes nothing, not even updatedAt.
    let body = json!({"id": c["id"], "text": "Kind words"});
    assert_eq!(app.team_data("topic-comments.update", body).await, edited);
    let listed = team_list(&app, json!({"id": topic["id"]})).await;
    assert_eq!(listed.ok(), &json!([thread(&edited, &[])]));

    let (read_only, _) = app
        .key_with(sounding_domain::access::Role::Owner, true)
        .await;
    let (_, other) = app.other_team("elsewhere").await;
    let body = json!({"id": c["id"], "text": "Hijacked"});
    app.call("topic-comments.update", Some(&read_only), body.clone())
        .await
        .assert_error(403, "This API key is read-only");
    app.call("topic-comments.update", Some(&other), body.clone())
        .await
        .assert_error(404, "Comment not found");
    app.call("topic-comments.update", Some(&author), body)
        .await
        .assert_error(401, "Authentication required");
    for (body, status, message) in [
        (json!({"id": c["id"]}), 400, "text is required"),
        (
            json!({"id": c["id"], "text": "x".repeat(10_001)}),
            400,
            "text must be at most 10000 characters",
        ),
        (json!({"text": "who"}), 400, "id is required"),
        (
            json!({"id": topic["id"], "text": "who"}),
            404,
            "Comment not found",
        ),
    ] {
        app.team("topic-comments.update", body)
            .await
            .assert_error(status, message);
    }
    let listed = team_list(&app, json!({"id": topic["id"]})).await;
    assert_eq!(listed.ok(), &json!([thread(&edited, &[])]));
    assert_eq!(app.events().await.len(), events, "an edit emits no event");
}

async fn deleting_a_comment_with_replies_leaves_a_tombstone_until_they_go(app: TestApp) {
    let (_, topic, author) = setup(&app).await;
    let (ann, ann_token) = app.identify("ann@example.com").await;
    let root = say(&app, &ann_token, &topic, &Value::Null, "Spam root").await;
    let answer = say(&app, &author, &topic, &root, "An answer").await;
    let deeper = say(&app, &ann_token, &topic, &answer, "Deeper").await;
    let lone = say(&app, &author, &topic, &Value::Null, "Lone").await;
    assert_eq!(topic_info(&app, &topic).await["commentCount"], 4);
    let notifications = app
        .call("public/notifications.list", Some(&ann_token), json!({}))
        .await
        .total();
    let events = app.events().await.len();

    let (read_only, _) = app
        .key_with(sounding_domain::access::Role::Owner, true)
        .await;
    let (_, other) = app.other_team("elsewhere").await;
    app.call(
        "topic-comments.delete",
        Some(&read_only),
        json!({"id": root["id"]}),
    )
    .await
    .assert_error(403, "This API key is read-only");
    app.call(
        "topic-comments.delete",
        Some(&other),
        json!({"id": root["id"]}),
    )
    .await
    .assert_error(404, "Comment not found");
    assert_eq!(app.events().await.len(), events);

    // Answered: it stays as a tombstone, its text erased, and is no longer counted.
    let reply = app
        .team("topic-comments.delete", json!({"id": root["id"]}))
        .await;
    reply.assert_body(200, json!({"success": true, "id": root["id"]}));
    assert_eq!(topic_info(&app, &topic).await["commentCount"], 3);
    let listed = team_list(&app, json!({"id": topic["id"], "direction": "ASC"})).await;
    let tombstone = &listed.ok()[0];
    assert_eq!(tombstone["id"], root["id"]);
    assert_eq!(tombstone["text"], "[deleted]");
    assert_timestamp(&tombstone["deletedAt"]);
    assert_eq!(tombstone["replies"], json!([answer, deeper]));
    // The public list shows the same thread.
    let public = list(
        &app,
        &author,
        json!({"id": topic["id"], "direction": "ASC"}),
    )
    .await;
    assert_eq!(public.ok(), listed.ok());
    // One event with the comment as it was; its author is not notified.
    let deleted = app.events_of("topic-comments.delete").await;
    assert_eq!(deleted.len(), 1);
    let keys = "commentId data event occurredAt subscriberId teamId topicId";
    assert_eq!(field_names(&deleted[0]), names(keys));
    assert_eq!(
        (&deleted[0]["commentId"], &deleted[0]["topicId"]),
        (&root["id"], &topic["id"])
    );
    assert_eq!(deleted[0]["subscriberId"], ann["id"]);
    assert_eq!(deleted[0]["data"], root);
    assert_eq!(app.events().await.len(), events + 1);
    let after = app
        .call("public/notifications.list", Some(&ann_token), json!({}))
        .await
        .total();
    assert_eq!(after, notifications);

    // A tombstone is gone: not deleted or edited again, not answered.
    app.team("topic-comments.delete", json!({"id": root["id"]}))
        .await
        .assert_error(404, "Comment not found");
    let body = json!({"id": root["id"], "text": "back"});
    app.team("topic-comments.update", body)
        .await
        .assert_error(404, "Comment not found");
    let body = json!({"id": topic["id"], "text": "to nobody", "parentId": root["id"]});
    comment(&app, &author, body)
        .await
        .assert_error(400, "parentId must be a comment of the same topic");
    assert_eq!(app.events().await.len(), events + 1);
    assert_eq!(topic_info(&app, &topic).await["commentCount"], 3);

    // Without replies a comment goes; the tombstone goes with the last reply below it.
    for (gone, count) in [(&deeper, 2), (&answer, 1)] {
        let reply = app
            .team("topic-comments.delete", json!({"id": gone["id"]}))
            .await;
        reply.assert_body(200, json!({"success": true, "id": gone["id"]}));
        assert_eq!(topic_info(&app, &topic).await["commentCount"], count);
    }
    let listed = team_list(&app, json!({"id": topic["id"]})).await;
    assert_eq!(listed.ok(), &json!([thread(&lone, &[])]));
    assert_eq!(listed.total(), 1);
    assert_eq!(app.events_of("topic-comments.delete").await.len(), 3);
}

/// `topics.vote` or `topics.unvote` with the owner key on `topic`; `who` names the voter.
async fn for_subscriber(app: &TestApp, op: &str, topic: &Value, who: Value) -> Reply {
    let mut body = who;
    body["id"] = topic["id"].clone();
    app.team(op, body).await
}

async fn the_team_votes_on_topics_for_its_subscribers(app: TestApp) {
    let (_, topic, author) = setup(&app).await;
    let (ann, ann_token) = app.identify("ann@example.com").await;
    let by_id = for_subscriber(
        &app,
        "topics.vote",
        &topic,
        json!({"subscriberId": ann["id"]}),
    )
    .await;
    assert_eq!(field_names(&by_id.body), BTreeSet::from(["data"]));
    let ann_vote = by_id.ok().clone();
    assert_eq!(
        field_names(&ann_vote),
        names("id topicId creatorId createdAt")
    );
    assert_eq!(
        (&ann_vote["topicId"], &ann_vote["creatorId"]),
        (&topic["id"], &ann["id"])
    );
    // It is Ann's own vote: her token sees it and cannot vote again, nor can the team.
    let voted = json!({"count": 1, "isSubscriberVoted": true});
    assert_eq!(vote_info(&app, &ann_token, &topic).await, voted);
    let events = app.events().await.len();
    vote(&app, Some(&ann_token), &topic)
        .await
        .assert_body(409, json!({"error": "Duplicate vote"}));
    for who in [
        json!({"subscriberId": ann["id"]}),
        json!({"email": "Ann@Example.com"}),
    ] {
        let again = for_subscriber(&app, "topics.vote", &topic, who).await;
        again.assert_body(409, json!({"error": "Duplicate vote"}));
    }
    assert_eq!(app.events().await.len(), events);
    // And the other way round: the author voted; the team cannot vote for them again.
    vote(&app, Some(&author), &topic).await.ok();
    let again = for_subscriber(
        &app,
        "topics.vote",
        &topic,
        json!({"email": "author@example.com"}),
    );
    again
        .await
        .assert_body(409, json!({"error": "Duplicate vote"}));

    // By e-mail, with Userorbit's `topicId`: created as identify does.
    let body = json!({"topicId": topic["id"], "email": "nora@example.com", "name": "Nora"});
    let by_email = app.team("topics.vote", body).await.ok().clone();
    assert_eq!(
        app.stored_subscriber(&by_email["creatorId"]).await,
        ("Nora".to_owned(), Some("nora@example.com".to_owned()))
    );
    // Neither: the key's user.
    let own = for_subscriber(&app, "topics.vote", &topic, json!({}))
        .await
        .ok()
        .clone();
    let (_, email) = app.stored_subscriber(&own["creatorId"]).await;
    assert_eq!(email.as_deref(), Some(OWNER_EMAIL));
    assert_eq!(topic_info(&app, &topic).await["voteCount"], 4);

    let announced = app.events_of("topic-votes.create").await;
    let on_behalf: Vec<(&Value, &Value)> = announced
        .iter()
        .map(|e| (&e["data"]["id"], &e["onBehalf"]))
        .collect();
    assert_eq!(
        on_behalf,
        vec![
            (&ann_vote["id"], &json!(true)),
            (&announced[1]["data"]["id"], &json!(false)),
            (&by_email["id"], &json!(true)),
            (&own["id"], &json!(true)),
        ]
    );
    assert_eq!(announced[0]["subscriberId"], ann["id"]);
    assert_eq!(announced[0]["data"], ann_vote);

    // Taking votes back: idempotent, `{ok: true}`, and nobody is created for it.
    let events = app.events().await.len();
    for _ in 0..2 {
        let reply = for_subscriber(
            &app,
            "topics.unvote",
            &topic,
            json!({"email": "ann@example.com"}),
        );
        reply.await.assert_body(200, json!({"ok": true}));
    }
    let unvoted = json!({"count": 3, "isSubscriberVoted": false});
    assert_eq!(vote_info(&app, &ann_token, &topic).await, unvoted);
    let before = app.team("subscribers.list", json!({})).await.total();
    let reply = for_subscriber(
        &app,
        "topics.unvote",
        &topic,
        json!({"email": "stranger@example.com"}),
    );
    reply.await.assert_body(200, json!({"ok": true}));
    assert_eq!(
        app.team("subscribers.list", json!({})).await.total(),
        before
    );
    let body = json!({"topicId": topic["id"], "subscriberId": by_email["creatorId"]});
    app.team("topics.unvote", body)
        .await
        .assert_body(200, json!({"ok": true}));
    assert_eq!(topic_info(&app, &topic).await["voteCount"], 2);
    assert_eq!(app.events().await.len(), events);
}

async fn topic_votes_on_behalf_reach_every_topic_of_the_team_and_check_their_input(app: TestApp) {
    let (stage, topic, _) = setup(&app).await;
    let (ann, _) = app.identify("ann@example.com").await;
    // A topic taken back into moderation and one on a private stage: the team reads both.
    let (_, other_author) = app.identify("other@example.com").await;
    let held = app
        .topic(&other_author, &stage, json!({"title": "Held"}))
        .await;
    let body = json!({"id": held["id"], "publish": false});
    app.team("topics.update", body).await.ok();
    let secret = json!({"name": "Secret", "meta": {"isPrivate": true}});
    let secret = app.stage(&json!({"id": stage["roadmapId"]}), secret).await;
    let hidden = app
        .topic(&other_author, &stage, json!({"title": "Hidden"}))
        .await;
    let body = json!({"id": hidden["id"], "stageId": secret["id"]});
    app.team("topics.update", body).await.ok();
    for t in [&held, &hidden] {
        let who = json!({"subscriberId": ann["id"]});
        for_subscriber(&app, "topics.vote", t, who.clone())
            .await
            .ok();
        // Counted: `topics.list` shows the team every topic, unpublished too.
        let listed = app.team_data("topics.list", json!({})).await;
        let listed = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["id"] == t["id"]);
        assert_eq!(listed.unwrap()["voteCount"], 1, "{}", t["title"]);
        let reply = for_subscriber(&app, "topics.unvote", t, who).await;
        reply.assert_body(200, json!({"ok": true}));
    }

    let (gone, _) = app.identify("gone@example.com").await;
    app.team("subscribers.delete", json!({"id": gone["id"]}))
        .await
        .ok();
    let (_, b_key) = app.other_team("beta").await;
    let subscribers = app.team("subscribers.list", json!({})).await.total();
    let events = app.events().await.len();
    let (read_only, _) = app
        .key_with(sounding_domain::access::Role::Owner, true)
        .await;
    let missing = json!({"id": "00000000-0000-4000-8000-000000000000"});
    for op in ["topics.vote", "topics.unvote"] {
        let t = &topic["id"];
        let cases = [
            (
                json!({"id": t, "subscriberId": ann["id"], "email": "a@example.com"}),
                400,
                "give subscriberId or email, not both",
            ),
            (
                json!({"id": t, "subscriberId": "ann"}),
                400,
                "subscriberId must be a UUID",
            ),
            (
                json!({"id": t, "email": "nope"}),
                400,
                "email must be a valid e-mail address",
            ),
            (json!({"subscriberId": ann["id"]}), 400, "id is required"),
            (
                json!({"id": "nope", "subscriberId": ann["id"]}),
                400,
                "id must be a UUID",
            ),
            (
                json!({"id": t, "subscriberId": missing["id"]}),
                404,
                "Subscriber not found",
            ),
            (
                json!({"id": t, "subscriberId": gone["id"]}),
                404,
                "Subscriber not found",
            ),
            (
                json!({"id": missing["id"], "email": "new@example.com"}),
                404,
                "Topic not found",
            ),
        ];
        for (body, status, message) in cases {
            let reply = app.team(op, body).await;
            reply.assert_error(status, message);
        }
        // Another team's topic is not found, even for its own key's vote.
        let body = json!({"id": topic["id"], "email": "new@example.com"});
        let reply = app.call(op, Some(&b_key), body).await;
        reply.assert_error(404, "Topic not found");
        let body = json!({"id": topic["id"], "subscriberId": ann["id"]});
        let reply = app.call(op, Some(&read_only), body).await;
        reply.assert_error(403, "This API key is read-only");
    }
    assert_eq!(
        app.team("subscribers.list", json!({})).await.total(),
        subscribers
    );
    assert_eq!(app.events().await.len(), events);
    assert_eq!(topic_info(&app, &topic).await["voteCount"], 0);
}

/// Thread pages are remembered whole between commits (docs/storage.md, "Remembered
/// answers"): asked alike, a team member and a subscriber who is not get their own pages,
/// however often they ask in turn, and a new comment shows at the next ask.
async fn a_remembered_thread_page_is_for_its_own_audience_and_follows_every_write(app: TestApp) {
    let (topic, author, owner) = private_setup(&app).await;
    say(&app, &owner, &topic, &Value::Null, "first").await;
    let texts = |reply: Reply| -> Vec<String> {
        reply
            .ok()
            .as_array()
            .unwrap()
            .iter()
            .map(|thread| thread["text"].as_str().unwrap().to_owned())
            .collect()
    };
    let asked = json!({"id": topic["id"]});
    // In turn, more often than it takes to remember each answer.
    for _ in 0..3 {
        let member = texts(list(&app, &owner, asked.clone()).await);
        assert_eq!(member, ["first"], "the team member sees the private topic");
        let outsider = texts(list(&app, &author, asked.clone()).await);
        assert!(
            outsider.is_empty(),
            "anyone else sees nothing: {outsider:?}"
        );
    }
    say(&app, &owner, &topic, &Value::Null, "second").await;
    for _ in 0..3 {
        let mut member = texts(list(&app, &owner, asked.clone()).await);
        member.sort();
        assert_eq!(member, ["first", "second"], "the new comment shows at once");
        assert!(texts(list(&app, &author, asked.clone()).await).is_empty());
    }
}
