//! Votes on feedback: `public/feedback-votes.create|delete|info` (interface §2 Feedback vote,
//! §4; decisions §4, §6), the team's `feedbacks.vote|unvote` on behalf of a subscriber (issue
//! 18), and the feedback lists that order by them: `feedbacks.list` and
//! `public/feedbacks.list` with their sorts, filters and pages.

use std::collections::BTreeSet;

use futures_util::future::join_all;
use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{client::field_names, engine_tests, harness::OWNER_EMAIL, Reply, TestApp};

engine_tests!(
    fifty_subscribers_vote_at_once_and_every_vote_counts,
    a_repeated_vote_is_409_and_changes_nothing,
    deleting_a_vote_is_idempotent_and_allows_voting_again,
    vote_info_is_personal_under_a_token_only,
    vote_operations_check_their_input,
    top_sorts_by_votes_and_trending_by_recent_activity,
    list_filters_and_pages,
    the_public_list_shows_only_published_public_feedback,
    only_team_members_vote_on_a_private_board_and_nobody_on_unpublished_feedback,
    the_team_votes_for_a_subscriber_by_id_by_email_or_as_its_own_user,
    a_vote_on_behalf_is_the_subscribers_own_one_vote,
    unvote_on_behalf_is_idempotent_and_creates_nobody,
    the_team_votes_on_any_of_its_items_and_on_no_other_teams,
    on_behalf_votes_check_their_input_and_change_nothing,
    concurrent_votes_for_one_new_email_make_one_subscriber_and_one_vote,
    the_public_list_marks_the_subscribers_own_votes,
    a_remembered_public_list_is_each_callers_own_and_follows_every_write,
);

/// The widget shows which items its user voted on from the list alone (issue 22).
async fn the_public_list_marks_the_subscribers_own_votes(app: TestApp) {
    let a = app.feedback(json!({"title": "A"})).await;
    let b = app.feedback(json!({"title": "B"})).await;
    let (_, ann) = app.identify("ann@example.com").await;
    let (_, ben) = app.identify("ben@example.com").await;
    vote(&app, &ann, &a).await.ok();
    vote(&app, &ben, &b).await.ok();

    let marks = |reply: Reply| -> Vec<(String, Option<bool>)> {
        let mut marks: Vec<_> = reply.body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["title"].as_str().unwrap().to_owned(),
                    f["hasVoted"].as_bool(),
                )
            })
            .collect();
        marks.sort();
        marks
    };
    let list = |token: String| {
        let app = &app;
        async move {
            app.call("public/feedbacks.list", Some(&token), json!({}))
                .await
        }
    };
    assert_eq!(
        marks(list(ann.clone()).await),
        [("A".into(), Some(true)), ("B".into(), Some(false))]
    );
    assert_eq!(
        marks(list(ben).await),
        [("A".into(), Some(false)), ("B".into(), Some(true))]
    );
    // Under the team's key nobody's votes are the caller's: no marks at all.
    let keyed = list(app.key.clone()).await;
    assert!(keyed.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f.get("hasVoted").is_none()));
    // A retracted vote is no longer marked.
    on_vote(&app, "delete", &ann, &a).await.ok();
    assert_eq!(
        marks(list(ann).await),
        [("A".into(), Some(false)), ("B".into(), Some(false))]
    );
}

/// `public/feedback-votes.<action>` on item `f` as the subscriber of `token`.
async fn on_vote(app: &TestApp, action: &str, token: &str, f: &Value) -> Reply {
    let op = format!("public/feedback-votes.{action}");
    app.call(&op, Some(token), json!({"feedbackId": f["id"]}))
        .await
}

async fn vote(app: &TestApp, token: &str, f: &Value) -> Reply {
    on_vote(app, "create", token, f).await
}

async fn unvote(app: &TestApp, token: &str, f: &Value) -> Reply {
    on_vote(app, "delete", token, f).await
}

async fn vote_info(app: &TestApp, token: &str, f: &Value) -> Value {
    on_vote(app, "info", token, f).await.ok().clone()
}

/// The boards whose feedback the public does not see as it is: a private one, and one whose
/// new feedback waits for moderation.
async fn closed_boards(app: &TestApp) -> (Value, Value) {
    let private = app
        .board(json!({"name": "Private", "meta": {"isPublic": false}}))
        .await;
    let moderated = app
        .board(json!({"name": "Moderated", "meta": {"requireModeration": true}}))
        .await;
    (private, moderated)
}

/// `feedbackVotesCount` as team `feedbacks.info` reports it.
async fn votes_count(app: &TestApp, f: &Value) -> Value {
    let reply = app.team("feedbacks.info", json!({"id": f["id"]})).await;
    reply.ok()["feedbackVotesCount"].clone()
}

async fn fifty_subscribers_vote_at_once_and_every_vote_counts(app: TestApp) {
    let (_, author) = app.identify("author@example.com").await;
    let f = app
        .public_feedback(&author, json!({"title": "Popular"}))
        .await;
    let voters = join_all((0..50).map(|i| {
        let app = &app;
        async move { app.identify(&format!("voter{i}@example.com")).await }
    }))
    .await;
    let replies = join_all(voters.iter().map(|(_, code)| vote(&app, code, &f))).await;
    let mut totals = BTreeSet::new();
    let mut vote_ids = BTreeSet::new();
    for ((voter, _), reply) in voters.iter().zip(&replies) {
        let data = reply.ok();
        assert_eq!(data["feedbackId"], f["id"]);
        assert_eq!(data["subscriberId"], voter["id"]);
        let keys: BTreeSet<&str> = data
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            BTreeSet::from(["createdAt", "feedbackId", "id", "subscriberId"])
        );
        vote_ids.insert(data["id"].as_str().unwrap().to_owned());
        totals.insert(reply.body["totalVotes"].as_i64().unwrap());
    }
    assert_eq!(totals, (1..=50).collect::<BTreeSet<i64>>());
    assert_eq!(vote_ids.len(), 50);

    let info = vote_info(&app, &app.key, &f).await;
    assert_eq!(
        info,
        json!({"count": 50, "feedbackId": f["id"], "hasVoted": false, "voteId": null})
    );
    assert_eq!(votes_count(&app, &f).await, 50);
    for op in ["feedbacks.list", "public/feedbacks.list"] {
        let list = app.team(op, json!({})).await;
        assert_eq!(list.ok()[0]["feedbackVotesCount"], 50, "{op}");
    }
    let public = app
        .call(
            "public/feedbacks.info",
            Some(&author),
            json!({"feedbackId": f["id"]}),
        )
        .await;
    assert_eq!(public.ok()["feedbackVotesCount"], 50);
    // One new_feedback_vote per vote, naming it.
    let events = app.events_of("new_feedback_vote").await;
    assert_eq!(events.len(), 50);
    let announced: BTreeSet<String> = events
        .iter()
        .map(|e| {
            assert_eq!(e["feedbackId"], f["id"]);
            assert_eq!(e["event"], "new_feedback_vote");
            assert_eq!(e["teamId"], app.team_id);
            e["voteId"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(announced, vote_ids);
    let named: BTreeSet<&str> = events
        .iter()
        .map(|e| e["subscriberId"].as_str().unwrap())
        .collect();
    let voted: BTreeSet<&str> = voters
        .iter()
        .map(|(s, _)| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(named, voted);
}

async fn a_repeated_vote_is_409_and_changes_nothing(app: TestApp) {
    let f = app.feedback(json!({"title": "Vote once"})).await;
    let (voter, code) = app.identify("eager@example.com").await;
    let first = vote(&app, &code, &f).await;
    assert_eq!(first.body["totalVotes"], 1);
    let vote_id = first.ok()["id"].clone();
    let events = app.events().await.len();
    for _ in 0..2 {
        vote(&app, &code, &f).await.assert_error(
            409,
            "You have already voted on this feedback; delete the vote first",
        );
    }
    assert_eq!(
        vote_info(&app, &code, &f).await,
        json!({"count": 1, "feedbackId": f["id"], "hasVoted": true, "voteId": vote_id})
    );
    assert_eq!(votes_count(&app, &f).await, 1);
    assert_eq!(app.events().await.len(), events);
    let announced = app.events_of("new_feedback_vote").await;
    assert_eq!(announced.len(), 1);
    assert_eq!(
        (
            &announced[0]["voteId"],
            &announced[0]["subscriberId"],
            &announced[0]["feedbackId"]
        ),
        (&vote_id, &voter["id"], &f["id"])
    );
}

async fn deleting_a_vote_is_idempotent_and_allows_voting_again(app: TestApp) {
    let f = app.feedback(json!({"title": "Fickle"})).await;
    let (_, stays) = app.identify("stays@example.com").await;
    let (_, leaves) = app.identify("leaves@example.com").await;
    vote(&app, &stays, &f).await.ok();
    assert_eq!(vote(&app, &leaves, &f).await.body["totalVotes"], 2);
    for _ in 0..2 {
        let reply = unvote(&app, &leaves, &f).await;
        assert_eq!(
            (reply.status, &reply.body),
            (200, &json!({"success": true, "totalVotes": 1}))
        );
    }
    assert_eq!(
        vote_info(&app, &leaves, &f).await,
        json!({"count": 1, "feedbackId": f["id"], "hasVoted": false, "voteId": null})
    );
    assert_eq!(vote_info(&app, &stays, &f).await["hasVoted"], true);
    assert_eq!(votes_count(&app, &f).await, 1);
    // Removing a vote is no new vote.
    assert_eq!(app.events_of("new_feedback_vote").await.len(), 2);
    // Never having voted is fine too.
    let (_, never) = app.identify("never@example.com").await;
    let reply = unvote(&app, &never, &f).await;
    assert_eq!(reply.body, json!({"success": true, "totalVotes": 1}));
    // And the vote can be cast again.
    let again = vote(&app, &leaves, &f).await;
    assert_eq!(again.body["totalVotes"], 2);
    assert_eq!(
        vote_info(&app, &leaves, &f).await["voteId"],
        again.ok()["id"]
    );
    assert_eq!(votes_count(&app, &f).await, 2);
}

async fn vote_info_is_personal_under_a_token_only(app: TestApp) {
    let f = app.feedback(json!({"title": "Who voted"})).await;
    let (_, voter) = app.identify("voter@example.com").await;
    let (_, lurker) = app.identify("lurker@example.com").await;
    assert_eq!(
        vote_info(&app, &app.key, &f).await,
        json!({"count": 0, "feedbackId": f["id"], "hasVoted": false, "voteId": null})
    );
    let cast = vote(&app, &voter, &f).await;
    let id = cast.ok()["id"].clone();
    assert_eq!(
        vote_info(&app, &voter, &f).await,
        json!({"count": 1, "feedbackId": f["id"], "hasVoted": true, "voteId": id})
    );
    for token in [&app.key, &lurker] {
        assert_eq!(
            vote_info(&app, token, &f).await,
            json!({"count": 1, "feedbackId": f["id"], "hasVoted": false, "voteId": null})
        );
    }
}

async fn vote_operations_check_their_input(app: TestApp) {
    let f = app.feedback(json!({"title": "Guarded"})).await;
    let (_, code) = app.identify("careful@example.com").await;
    let missing = json!({"id": uuid::Uuid::now_v7()});
    vote(&app, &code, &missing)
        .await
        .assert_error(404, "Feedback not found");
    unvote(&app, &code, &missing)
        .await
        .assert_error(404, "Feedback not found");
    app.call(
        "public/feedback-votes.info",
        Some(&code),
        json!({"feedbackId": missing["id"]}),
    )
    .await
    .assert_error(404, "Feedback not found");
    for op in [
        "public/feedback-votes.create",
        "public/feedback-votes.delete",
        "public/feedback-votes.info",
    ] {
        app.call(op, Some(&code), json!({}))
            .await
            .assert_error(400, "feedbackId is required");
        app.call(op, Some(&code), json!({"feedbackId": "nope"}))
            .await
            .assert_error(400, "feedbackId must be a UUID");
    }
    // Voting and unvoting need a subscriber.
    vote(&app, &app.key, &f)
        .await
        .assert_error(401, "Authentication required");
    app.call(
        "public/feedback-votes.create",
        None,
        json!({"feedbackId": f["id"]}),
    )
    .await
    .assert_error(401, "Authentication required");
    unvote(&app, &app.key, &f)
        .await
        .assert_error(401, "Authentication required");
    assert_eq!(vote_info(&app, &code, &f).await["count"], 0);
    assert!(app.events_of("new_feedback_vote").await.is_empty());
}

async fn top_sorts_by_votes_and_trending_by_recent_activity(app: TestApp) {
    // Created oldest first: A, B, C, D.
    let [a, b, c, d] = [
        app.feedback(json!({"title": "A"})).await,
        app.feedback(json!({"title": "B"})).await,
        app.feedback(json!({"title": "C"})).await,
        app.feedback(json!({"title": "D"})).await,
    ];
    let mut voters = Vec::new();
    for i in 0..3 {
        voters.push(app.identify(&format!("v{i}@example.com")).await.1);
    }
    // Votes: B 3, C 1, A 0, D 2.
    for (item, n) in [(&b, 3), (&c, 1), (&d, 2)] {
        for code in &voters[..n] {
            vote(&app, code, item).await.ok();
        }
    }
    // Comments: A 5, C 3 (so recent activity: A 5, C 4, B 3, D 2).
    for (item, n) in [(&a, 5), (&c, 3)] {
        for i in 0..n {
            app.call(
                "public/feedback-comments.create",
                Some(&voters[0]),
                json!({"feedbackId": item["id"], "text": format!("comment {i}")}),
            )
            .await
            .ok();
        }
    }
    for op in ["feedbacks.list", "public/feedbacks.list"] {
        let order = |sort: &'static str| {
            let app = &app;
            async move {
                let reply = app.team(op, json!({ "sortBy": sort })).await;
                assert_eq!(reply.total(), 4);
                reply
                    .each("title")
                    .into_iter()
                    .map(String::from)
                    .collect::<Vec<_>>()
            }
        };
        assert_eq!(order("newest").await, ["D", "C", "B", "A"], "{op}");
        assert_eq!(order("top").await, ["B", "D", "C", "A"], "{op}");
        assert_eq!(order("trending").await, ["A", "C", "B", "D"], "{op}");
        let page = app
            .team(op, json!({"sortBy": "top", "limit": 2, "offset": 1}))
            .await;
        assert_eq!(page.each("title"), ["D", "C"], "{op}");
        let counts: Vec<(i64, i64)> = app
            .team(op, json!({"sortBy": "trending"}))
            .await
            .ok()
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["feedbackVotesCount"].as_i64().unwrap(),
                    f["feedbackCommentsCount"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(counts, [(0, 5), (1, 3), (3, 0), (2, 0)], "{op}");
    }
    // A filter keeps the order.
    let top_of_few = app
        .team(
            "feedbacks.list",
            json!({"sortBy": "top", "search": "d", "status": ["in_review"]}),
        )
        .await;
    assert_eq!(top_of_few.each("title"), ["D"]);
}

async fn list_filters_and_pages(app: TestApp) {
    let board = app.board(json!({"name": "Ideas"})).await;
    let on_board = json!(board["id"]);
    let items = [
        ("Dark mode", "", "planned", Some(&on_board)),
        ("Export", "needs a DARK theme too", "completed", None),
        ("Import", "csv", "planned", None),
        ("Webhooks", "", "in_progress", Some(&on_board)),
        ("Slack", "", "in_review", None),
    ];
    for (title, text, status, board_id) in items {
        let mut body = json!({"title": title, "text": text, "status": status});
        if let Some(board_id) = board_id {
            body["boardId"] = board_id.clone();
        }
        app.feedback(body).await;
    }
    let titles = |body: Value| {
        let app = &app;
        async move {
            let reply = app.team("feedbacks.list", body).await;
            let total = reply.total();
            let titles: Vec<String> = reply.each("title").into_iter().map(String::from).collect();
            assert_eq!(reply.body["pagination"]["count"], total);
            (titles, total)
        }
    };
    // Newest first by default.
    let (all, total) = titles(json!({})).await;
    assert_eq!(total, 5);
    assert_eq!(all, ["Slack", "Webhooks", "Import", "Export", "Dark mode"]);
    assert_eq!(titles(json!({"sortBy": "newest"})).await.0, all);
    assert_eq!(
        titles(json!({"status": "planned"})).await,
        (vec!["Import".to_owned(), "Dark mode".to_owned()], 2)
    );
    assert_eq!(
        titles(json!({"status": ["completed", "in_progress"]}))
            .await
            .0,
        ["Webhooks", "Export"]
    );
    assert_eq!(
        titles(json!({"boardId": board["id"]})).await.0,
        ["Webhooks", "Dark mode"]
    );
    assert_eq!(
        titles(json!({"search": "dArK"})).await.0,
        ["Export", "Dark mode"]
    );
    assert_eq!(
        titles(json!({"search": "dark", "status": "planned", "boardId": board["id"]}))
            .await
            .0,
        ["Dark mode"]
    );
    // Pages.
    let page = app
        .team("feedbacks.list", json!({"limit": 2, "offset": 1}))
        .await;
    assert_eq!(page.each("title"), ["Webhooks", "Import"]);
    assert_eq!(
        page.body["pagination"],
        json!({"total": 5, "count": 5, "limit": 2, "offset": 1})
    );
    let defaults = app.team("feedbacks.list", json!({})).await;
    assert_eq!(
        defaults.body["pagination"],
        json!({"total": 5, "count": 5, "limit": 20, "offset": 0})
    );
    let clamped = app.team("feedbacks.list", json!({"limit": 1000})).await;
    assert_eq!(clamped.body["pagination"]["limit"], 100);
    app.team("feedbacks.list", json!({"status": "open"}))
        .await
        .assert_status(400);
    // The public list takes the same filters.
    let public = app
        .team(
            "public/feedbacks.list",
            json!({"status": "planned", "search": "DARK"}),
        )
        .await;
    assert_eq!(public.each("title"), ["Dark mode"]);
    assert_eq!(public.total(), 1);
}

async fn the_public_list_shows_only_published_public_feedback(app: TestApp) {
    let public = app.board(json!({"name": "Public"})).await;
    let (private, moderated) = closed_boards(&app).await;
    let (_, code) = app.identify("lister@example.com").await;
    app.feedback(json!({"title": "On public", "boardId": public["id"]}))
        .await;
    app.feedback(json!({"title": "On private", "boardId": private["id"]}))
        .await;
    app.feedback(json!({"title": "No board"})).await;
    app.public_feedback(
        &code,
        json!({"title": "Unpublished", "boardId": moderated["id"]}),
    )
    .await;
    let archived = app.feedback(json!({"title": "Archived"})).await;
    app.team("feedbacks.archive", json!({"id": archived["id"]}))
        .await
        .ok();
    for token in [&app.key, &code] {
        let reply = app
            .call("public/feedbacks.list", Some(token), json!({}))
            .await;
        assert_eq!(reply.each("title"), ["No board", "On public"]);
        assert_eq!(reply.total(), 2);
        // `archived` is a team-only filter: the public list does not take it.
        app.call(
            "public/feedbacks.list",
            Some(token),
            json!({"archived": true}),
        )
        .await
        .assert_error(400, "Unknown parameter: archived");
    }
    app.call(
        "public/feedbacks.info",
        Some(&code),
        json!({"feedbackId": private_item(&app).await}),
    )
    .await
    .assert_error(404, "Feedback not found");
    assert_eq!(app.team("feedbacks.list", json!({})).await.total(), 4);
}

/// The id of the item on the private board (the team list sees it).
async fn private_item(app: &TestApp) -> Value {
    let reply = app
        .team("feedbacks.list", json!({"search": "On private"}))
        .await;
    reply.ok()[0]["id"].clone()
}

async fn only_team_members_vote_on_a_private_board_and_nobody_on_unpublished_feedback(
    app: TestApp,
) {
    let (private, moderated) = closed_boards(&app).await;
    let hidden = app
        .feedback(json!({"title": "Internal", "boardId": private["id"]}))
        .await;
    let (_, outsider) = app.identify("outsider@example.com").await;
    let (member, insider) = app.identify(OWNER_EMAIL).await;
    let waiting = app
        .public_feedback(
            &outsider,
            json!({"title": "Awaiting moderation", "boardId": moderated["id"]}),
        )
        .await;

    vote(&app, &outsider, &hidden)
        .await
        .assert_error(404, "Feedback not found");
    assert_eq!(votes_count(&app, &hidden).await, 0);
    let by_member = vote(&app, &insider, &hidden).await;
    assert_eq!(by_member.ok()["subscriberId"], member["id"]);
    assert_eq!(votes_count(&app, &hidden).await, 1);

    for token in [&outsider, &insider] {
        vote(&app, token, &waiting)
            .await
            .assert_error(404, "Feedback not found");
    }
    assert_eq!(votes_count(&app, &waiting).await, 0);
    assert_eq!(app.events_of("new_feedback_vote").await.len(), 1);
}

/// `feedbacks.vote` with the owner key; `who` names the voter (`subscriberId`, `email`…).
async fn vote_for(app: &TestApp, f: &Value, who: Value) -> Reply {
    let mut body = who;
    body["feedbackId"] = f["id"].clone();
    app.team("feedbacks.vote", body).await
}

async fn unvote_for(app: &TestApp, f: &Value, who: Value) -> Reply {
    let mut body = who;
    body["feedbackId"] = f["id"].clone();
    app.team("feedbacks.unvote", body).await
}

/// How many subscribers the team has (`subscribers.list`).
async fn subscriber_total(app: &TestApp) -> i64 {
    app.team("subscribers.list", json!({})).await.total()
}

async fn the_team_votes_for_a_subscriber_by_id_by_email_or_as_its_own_user(app: TestApp) {
    let f = app
        .feedback(json!({"title": "Asked for by customers"}))
        .await;
    let (ann, ann_token) = app.identify("ann@example.com").await;

    let by_id = vote_for(&app, &f, json!({"subscriberId": ann["id"]})).await;
    assert_eq!(by_id.status, 200, "{}", by_id.body);
    assert_eq!(
        field_names(&by_id.body),
        BTreeSet::from(["data", "totalVotes"])
    );
    assert_eq!(by_id.body["totalVotes"], 1);
    let data = by_id.ok();
    assert_eq!(
        field_names(data),
        BTreeSet::from(["createdAt", "feedbackId", "id", "subscriberId"])
    );
    assert_eq!(
        (&data["feedbackId"], &data["subscriberId"]),
        (&f["id"], &ann["id"])
    );
    // The vote is Ann's own: her token sees it.
    assert_eq!(
        vote_info(&app, &ann_token, &f).await,
        json!({"count": 1, "feedbackId": f["id"], "hasVoted": true, "voteId": data["id"]})
    );

    // By e-mail, under Userorbit's `id` for the item: a subscriber is created as identify does.
    let before = subscriber_total(&app).await;
    let by_email = app
        .team(
            "feedbacks.vote",
            json!({"id": f["id"], "email": " New.Voter@Example.com ", "name": "Nora Voter"}),
        )
        .await;
    assert_eq!(by_email.body["totalVotes"], 2);
    let nora = by_email.ok()["subscriberId"].clone();
    assert_eq!(subscriber_total(&app).await, before + 1);
    assert_eq!(
        app.stored_subscriber(&nora).await,
        (
            "Nora Voter".to_owned(),
            Some("new.voter@example.com".to_owned())
        )
    );
    let info = app.team("subscribers.info", json!({"id": nora})).await;
    assert_eq!(info.ok()["source"], "api");
    // Identify finds the same subscriber again.
    let (again, _) = app.identify("new.voter@example.com").await;
    assert_eq!(again["id"], nora);

    // Neither: the key's user's subscriber, as team `feedbacks.create` does.
    let own = vote_for(&app, &f, json!({})).await;
    assert_eq!(own.body["totalVotes"], 3);
    let (_, own_email) = app.stored_subscriber(&own.ok()["subscriberId"]).await;
    assert_eq!(own_email.as_deref(), Some(OWNER_EMAIL));

    assert_eq!(votes_count(&app, &f).await, 3);
    // One new_feedback_vote each, as a public vote's plus `onBehalf: true`.
    let events = app.events_of("new_feedback_vote").await;
    assert_eq!(events.len(), 3);
    for (event, reply) in events.iter().zip([&by_id, &by_email, &own]) {
        let vote = reply.ok();
        assert_eq!(event["onBehalf"], true);
        assert_eq!(event["voteId"], vote["id"]);
        assert_eq!(event["subscriberId"], vote["subscriberId"]);
        assert_eq!(event["feedbackId"], f["id"]);
        assert_eq!(event["teamId"], app.team_id);
        assert_eq!(&event["data"], vote);
    }
    // A subscriber's own vote says it is not on behalf.
    let (_, bea) = app.identify("bea@example.com").await;
    vote(&app, &bea, &f).await.ok();
    let events = app.events_of("new_feedback_vote").await;
    assert_eq!(events[3]["onBehalf"], false);
}

async fn a_vote_on_behalf_is_the_subscribers_own_one_vote(app: TestApp) {
    let f = app.feedback(json!({"title": "Once each"})).await;
    let (ann, ann_token) = app.identify("ann@example.com").await;
    vote(&app, &ann_token, &f).await.ok();
    let events = app.events().await.len();
    // The team cannot add a second vote for her, by id or by e-mail (any case)…
    for who in [
        json!({"subscriberId": ann["id"]}),
        json!({"email": "ANN@example.com"}),
    ] {
        vote_for(&app, &f, who).await.assert_error(
            409,
            "You have already voted on this feedback; delete the vote first",
        );
    }
    // …and a vote the team cast for Bob is his: his own second vote is refused.
    let (bob, bob_token) = app.identify("bob@example.com").await;
    assert_eq!(
        vote_for(&app, &f, json!({"subscriberId": bob["id"]}))
            .await
            .body["totalVotes"],
        2
    );
    vote(&app, &bob_token, &f).await.assert_error(
        409,
        "You have already voted on this feedback; delete the vote first",
    );
    assert_eq!(votes_count(&app, &f).await, 2);
    assert_eq!(app.events().await.len(), events + 1);
    // Bob takes back the vote the team cast for him.
    assert_eq!(unvote(&app, &bob_token, &f).await.body["totalVotes"], 1);
}

async fn unvote_on_behalf_is_idempotent_and_creates_nobody(app: TestApp) {
    let f = app.feedback(json!({"title": "Changed my mind"})).await;
    let (ann, ann_token) = app.identify("ann@example.com").await;
    let (_, bob_token) = app.identify("bob@example.com").await;
    vote(&app, &bob_token, &f).await.ok();
    vote_for(&app, &f, json!({"subscriberId": ann["id"]}))
        .await
        .ok();
    let events = app.events().await.len();
    for _ in 0..2 {
        let reply = unvote_for(&app, &f, json!({"email": "ann@example.com"})).await;
        reply.assert_body(200, json!({"success": true, "totalVotes": 1}));
    }
    assert_eq!(vote_info(&app, &ann_token, &f).await["hasVoted"], false);
    // A vote Bob cast himself, taken back by the team (Userorbit's `id` for the item).
    let reply = app
        .team(
            "feedbacks.unvote",
            json!({"id": f["id"], "email": "bob@example.com"}),
        )
        .await;
    reply.assert_body(200, json!({"success": true, "totalVotes": 0}));
    // Nobody not yet known is created to take back a vote they cannot have.
    let subscribers = subscriber_total(&app).await;
    for who in [json!({"email": "stranger@example.com"}), json!({})] {
        let reply = unvote_for(&app, &f, who).await;
        reply.assert_body(200, json!({"success": true, "totalVotes": 0}));
    }
    assert_eq!(subscriber_total(&app).await, subscribers);
    // Removing a vote emits nothing.
    assert_eq!(app.events().await.len(), events);
    assert_eq!(votes_count(&app, &f).await, 0);
}

async fn the_team_votes_on_any_of_its_items_and_on_no_other_teams(app: TestApp) {
    let (private, moderated) = closed_boards(&app).await;
    let (ann, ann_token) = app.identify("ann@example.com").await;
    let hidden = app
        .feedback(json!({"title": "Internal", "boardId": private["id"]}))
        .await;
    let waiting = app
        .public_feedback(
            &ann_token,
            json!({"title": "Awaiting moderation", "boardId": moderated["id"]}),
        )
        .await;
    assert_eq!(waiting["publishedAt"], Value::Null);
    let archived = app.feedback(json!({"title": "Old"})).await;
    app.team("feedbacks.archive", json!({"id": archived["id"]}))
        .await
        .ok();
    // The team reads all of them, so it may vote on each for Ann — though she could not
    // have voted on the private one herself.
    for f in [&hidden, &waiting, &archived] {
        let reply = vote_for(&app, f, json!({"subscriberId": ann["id"]})).await;
        assert_eq!(reply.body["totalVotes"], 1, "{}", f["title"]);
        assert_eq!(votes_count(&app, f).await, 1);
        let reply = unvote_for(&app, f, json!({"subscriberId": ann["id"]})).await;
        reply.assert_body(200, json!({"success": true, "totalVotes": 0}));
    }

    // Another team's item, or one that does not exist, is not found; no subscriber is created
    // for the e-mail in either team.
    let (_, b_key) = app.other_team("beta").await;
    let b_feedback = app
        .data_with(&b_key, "feedbacks.create", json!({"title": "Beta item"}))
        .await;
    let b_subscribers = || async {
        app.call("subscribers.list", Some(&b_key), json!({}))
            .await
            .total()
    };
    let b_before = b_subscribers().await;
    let subscribers = subscriber_total(&app).await;
    let events = app.events().await.len();
    let missing = json!({"id": "00000000-0000-4000-8000-000000000000"});
    for f in [&b_feedback, &missing] {
        for op in ["feedbacks.vote", "feedbacks.unvote"] {
            let body = json!({"feedbackId": f["id"], "email": "newcomer@example.com"});
            app.team(op, body)
                .await
                .assert_error(404, "Feedback not found");
        }
    }
    // Team B cannot vote for team A's subscriber either.
    let body = json!({"feedbackId": b_feedback["id"], "subscriberId": ann["id"]});
    app.call("feedbacks.vote", Some(&b_key), body)
        .await
        .assert_error(404, "Subscriber not found");
    assert_eq!(subscriber_total(&app).await, subscribers);
    assert_eq!(app.events().await.len(), events);
    assert_eq!(b_subscribers().await, b_before);
}

async fn on_behalf_votes_check_their_input_and_change_nothing(app: TestApp) {
    let f = app.feedback(json!({"title": "Careful"})).await;
    let (ann, ann_token) = app.identify("ann@example.com").await;
    let (gone, _) = app.identify("gone@example.com").await;
    app.team("subscribers.delete", json!({"id": gone["id"]}))
        .await
        .ok();
    let subscribers = subscriber_total(&app).await;
    let events = app.events().await.len();
    let (read_only, _) = app.key_with(Role::Owner, true).await;
    for op in ["feedbacks.vote", "feedbacks.unvote"] {
        let cases = [
            (
                json!({"feedbackId": f["id"], "subscriberId": ann["id"], "email": "ann@example.com"}),
                400,
                "give subscriberId or email, not both",
            ),
            (
                json!({"feedbackId": f["id"], "subscriberId": "ann"}),
                400,
                "subscriberId must be a UUID",
            ),
            (
                json!({"feedbackId": f["id"], "email": "not-an-address"}),
                400,
                "email must be a valid e-mail address",
            ),
            (
                json!({"subscriberId": ann["id"]}),
                400,
                "feedbackId is required",
            ),
            (
                json!({"feedbackId": "nope", "subscriberId": ann["id"]}),
                400,
                "feedbackId must be a UUID",
            ),
            (
                json!({"feedbackId": f["id"], "subscriberId": "00000000-0000-4000-8000-000000000000"}),
                404,
                "Subscriber not found",
            ),
            // A deleted subscriber is gone.
            (
                json!({"feedbackId": f["id"], "subscriberId": gone["id"]}),
                404,
                "Subscriber not found",
            ),
        ];
        for (body, status, message) in cases {
            app.team(op, body).await.assert_error(status, message);
        }
        app.call(
            op,
            Some(&read_only),
            json!({"feedbackId": f["id"], "subscriberId": ann["id"]}),
        )
        .await
        .assert_error(403, "This API key is read-only");
        // A subscriber token is the wrong credential.
        app.call(op, Some(&ann_token), json!({"feedbackId": f["id"]}))
            .await
            .assert_error(401, "Authentication required");
    }
    assert_eq!(subscriber_total(&app).await, subscribers);
    assert_eq!(app.events().await.len(), events);
    assert_eq!(votes_count(&app, &f).await, 0);
}

async fn concurrent_votes_for_one_new_email_make_one_subscriber_and_one_vote(app: TestApp) {
    let f = app.feedback(json!({"title": "Rush"})).await;
    let subscribers = subscriber_total(&app).await;
    let at_once =
        join_all((0..6).map(|_| vote_for(&app, &f, json!({"email": "rush@example.com"})))).await;
    let won: Vec<&Reply> = at_once.iter().filter(|r| r.status == 200).collect();
    assert_eq!(
        won.len(),
        1,
        "{:?}",
        at_once.iter().map(|r| &r.body).collect::<Vec<_>>()
    );
    for reply in at_once.iter().filter(|r| r.status != 200) {
        reply.assert_error(
            409,
            "You have already voted on this feedback; delete the vote first",
        );
    }
    assert_eq!(subscriber_total(&app).await, subscribers + 1);
    assert_eq!(votes_count(&app, &f).await, 1);
    assert_eq!(app.events_of("new_feedback_vote").await.len(), 1);
}

/// Public lists are remembered whole between commits (docs/storage.md, "Remembered
/// answers"): asked alike in turn, each subscriber still gets their own marks and the team
/// none, and a vote shows in the next answer of every caller.
async fn a_remembered_public_list_is_each_callers_own_and_follows_every_write(app: TestApp) {
    let a = app.feedback(json!({"title": "A"})).await;
    let (_, ann) = app.identify("ann@example.com").await;
    let (_, ben) = app.identify("ben@example.com").await;
    vote(&app, &ann, &a).await.ok();
    let asked = json!({"sortBy": "top"});
    let seen = |token: String| {
        let (app, asked) = (&app, asked.clone());
        async move {
            let reply = app.call("public/feedbacks.list", Some(&token), asked).await;
            let item = reply.ok()[0].clone();
            (
                item["feedbackVotesCount"].clone(),
                item.get("hasVoted").cloned(),
            )
        }
    };
    // In turn, more often than it takes to remember each answer.
    for _ in 0..3 {
        assert_eq!(seen(ann.clone()).await, (json!(1), Some(json!(true))));
        assert_eq!(seen(ben.clone()).await, (json!(1), Some(json!(false))));
        assert_eq!(seen(app.key.clone()).await, (json!(1), None));
    }
    vote(&app, &ben, &a).await.ok();
    for _ in 0..3 {
        assert_eq!(seen(app.key.clone()).await, (json!(2), None));
        assert_eq!(seen(ben.clone()).await, (json!(2), Some(json!(true))));
        assert_eq!(seen(ann.clone()).await, (json!(2), Some(json!(true))));
    }
}
