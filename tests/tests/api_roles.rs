//! Role enforcement over every team operation (issue 6): a member-role key is refused each
//! administrative operation, a read-only key every mutation, and a read-only key may still
//! call every read. The tables have one row per operation; a check against the OpenAPI
//! document makes sure every operation of the API is in one of them, so a new operation
//! cannot slip past unclassified.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{engine_tests, Reply, TestApp};

engine_tests!(
    a_member_role_key_is_refused_each_admin_operation_and_nothing_changes,
    a_read_only_key_is_refused_every_mutation_and_nothing_changes,
    a_read_only_key_may_call_every_read,
    every_operation_is_classified,
);

/// Ids of one of everything, for bodies that name real things.
struct World {
    board: Value,
    feedback: Value,
    roadmap: Value,
    stage: Value,
    topic: Value,
    subscriber: Value,
    owner_user: Value,
    owner_key_id: Value,
    document: Value,
    tag: Value,
}

const NO_SUCH: &str = "00000000-0000-4000-8000-000000000000";

async fn world(app: &TestApp) -> World {
    let board = app.board(json!({"name": "Ideas"})).await;
    let feedback = app
        .feedback(json!({"title": "Dark mode", "boardId": board["id"]}))
        .await;
    let roadmap = app.roadmap("Product").await;
    let stage = app.stage(&roadmap, json!({"name": "Next"})).await;
    let (subscriber, token) = app.identify("ann@example.com").await;
    let topic = app.topic(&token, &stage, json!({"title": "Exports"})).await;
    let users = app.team("users.list", json!({})).await;
    let keys = app.team("api-keys.list", json!({})).await;
    let document = app
        .team_data("documents.create", json!({"title": "Help"}))
        .await;
    let tag = app.team_data("tags.create", json!({"name": "Bug"})).await;
    World {
        board,
        feedback,
        roadmap,
        stage,
        topic,
        subscriber,
        owner_user: users.ok()[0].clone(),
        owner_key_id: keys.ok()[0]["id"].clone(),
        document,
        tag,
    }
}

/// Everything a team can read, to compare before and after refused calls.
async fn snapshot(app: &TestApp, w: &World) -> Vec<Value> {
    let mut seen = Vec::new();
    for (op, body) in [
        ("teams.info", json!({})),
        ("feedback-boards.list", json!({})),
        ("feedbacks.list", json!({})),
        ("roadmaps.list", json!({})),
        ("public/stages.list", json!({"roadmapId": w.roadmap["id"]})),
        ("topics.list", json!({})),
        ("subscribers.list", json!({})),
        ("users.list", json!({})),
        ("automation.list", json!({})),
        ("documents.list", json!({})),
        ("tags.list", json!({})),
    ] {
        let reply = app.team(op, body).await;
        assert_eq!(reply.status, 200, "{op}: {}", reply.body);
        seen.push(reply.body);
    }
    seen.push(json!(app.events().await.len()));
    seen
}

/// What the administrative operations need (`KeyHolder::require`), one row per operation:
/// `(operation, body, area named in the 403)`.
fn admin_operations(w: &World) -> Vec<(&'static str, Value, &'static str)> {
    vec![
        ("teams.update", json!({"name": "Hacked"}), "team settings"),
        ("feedback-boards.create", json!({"name": "Nope"}), "boards"),
        (
            "feedback-boards.update",
            json!({"id": w.board["id"], "name": "Nope"}),
            "boards",
        ),
        (
            "feedback-boards.delete",
            json!({"id": w.board["id"]}),
            "boards",
        ),
        ("roadmaps.create", json!({"name": "Nope"}), "roadmaps"),
        (
            "roadmaps.update",
            json!({"id": w.roadmap["id"], "name": "Nope"}),
            "roadmaps",
        ),
        (
            "roadmaps.delete",
            json!({"id": w.roadmap["id"], "force": true}),
            "roadmaps",
        ),
        (
            "stages.create",
            json!({"roadmapId": w.roadmap["id"], "name": "Nope"}),
            "stages",
        ),
        (
            "stages.update",
            json!({"id": w.stage["id"], "name": "Nope"}),
            "stages",
        ),
        (
            "stages.delete",
            json!({"id": w.stage["id"], "force": true}),
            "stages",
        ),
        (
            "automation.subscribe",
            json!({"target_url": "https://example.com/hook", "event": "new_feedback"}),
            "automation",
        ),
        (
            "automation.unsubscribe",
            json!({"id": NO_SUCH}),
            "automation",
        ),
        (
            "zapier.subscribe",
            json!({"target_url": "https://example.com/hook", "event": "new_feedback"}),
            "automation",
        ),
        ("zapier.unsubscribe", json!({"id": NO_SUCH}), "automation"),
        (
            "automation.redeliver",
            json!({"deliveryId": NO_SUCH}),
            "automation",
        ),
        (
            "users.create",
            json!({"email": "new@example.com", "name": "New", "role": "member"}),
            "team users",
        ),
        (
            "users.update",
            json!({"id": w.owner_user["id"], "role": "member"}),
            "team users",
        ),
        (
            "users.delete",
            json!({"id": w.owner_user["id"]}),
            "team users",
        ),
        ("api-keys.list", json!({}), "API keys"),
        ("api-keys.create", json!({"role": "member"}), "API keys"),
        ("api-keys.delete", json!({"id": w.owner_key_id}), "API keys"),
        (
            "feedbacks.merge",
            json!({"id": w.feedback["id"], "targetId": NO_SUCH}),
            "feedback merges",
        ),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// 403 `This API key is read-only` (team operations).
    ReadOnly,
    /// 401 `Authentication required` (operations for subscriber tokens only).
    SubscribersOnly,
    /// 400 `Bad request` (topic votes: anything but a subscriber).
    BadRequest,
}

/// Every operation that changes something, one row per operation: `(operation, body, how a
/// read-only key is refused)`.
fn mutations(w: &World) -> Vec<(&'static str, Value, Refusal)> {
    use Refusal::*;
    let mut rows: Vec<(&'static str, Value, Refusal)> = admin_operations(w)
        .into_iter()
        .filter(|(op, _, _)| *op != "api-keys.list")
        .map(|(op, body, _)| (op, body, ReadOnly))
        .collect();
    let f = &w.feedback["id"];
    let t = &w.topic["id"];
    let d = &w.document["id"];
    rows.extend([
        ("public/subscriber.identify", json!({"email": "new@example.com"}), ReadOnly),
        ("public/subscriber.logout", json!({}), SubscribersOnly),
        ("feedbacks.create", json!({"title": "Nope"}), ReadOnly),
        ("feedbacks.update", json!({"id": f, "title": "Nope"}), ReadOnly),
        ("feedbacks.publish", json!({"id": f}), ReadOnly),
        ("feedbacks.archive", json!({"id": f}), ReadOnly),
        ("feedbacks.restore", json!({"id": f}), ReadOnly),
        ("feedbacks.delete", json!({"id": f}), ReadOnly),
        ("public/feedbacks.create", json!({"title": "Nope"}), SubscribersOnly),
        ("public/feedbacks.update", json!({"feedbackId": f, "title": "Nope"}), SubscribersOnly),
        ("public/feedbacks.delete", json!({"feedbackId": f}), SubscribersOnly),
        ("public/feedbacks.subscribe", json!({"feedbackId": f}), SubscribersOnly),
        ("public/feedbacks.unsubscribe", json!({"feedbackId": f}), SubscribersOnly),
        ("feedback-comments.create", json!({"feedbackId": f, "text": "Nope"}), ReadOnly),
        ("public/feedback-comments.create", json!({"feedbackId": f, "text": "Nope"}), SubscribersOnly),
        ("public/feedback-votes.create", json!({"feedbackId": f}), SubscribersOnly),
        ("public/feedback-votes.delete", json!({"feedbackId": f}), SubscribersOnly),
        ("feedbacks.vote", json!({"feedbackId": f, "subscriberId": w.subscriber["id"]}), ReadOnly),
        ("feedbacks.unvote", json!({"feedbackId": f, "subscriberId": w.subscriber["id"]}), ReadOnly),
        ("topics.update", json!({"id": t, "title": "Nope"}), ReadOnly),
        ("topics.delete", json!({"id": t}), ReadOnly),
        (
            "public/topics.create",
            json!({"title": "Nope", "roadmapId": w.roadmap["id"], "stageId": w.stage["id"], "email": "x@example.com"}),
            ReadOnly,
        ),
        ("public/topics.subscribe", json!({"id": t}), SubscribersOnly),
        ("public/topics.unsubscribe", json!({"id": t}), SubscribersOnly),
        ("public/topic-comments.create", json!({"id": t, "text": "Nope"}), SubscribersOnly),
        ("public/topic-votes.create", json!({"id": t}), BadRequest),
        ("public/topic-votes.delete", json!({"id": t}), BadRequest),
        ("feedback-comments.update", json!({"id": NO_SUCH, "text": "Nope"}), ReadOnly),
        ("feedback-comments.delete", json!({"id": NO_SUCH}), ReadOnly),
        ("topic-comments.update", json!({"id": NO_SUCH, "text": "Nope"}), ReadOnly),
        ("topic-comments.delete", json!({"id": NO_SUCH}), ReadOnly),
        ("topics.create", json!({"title": "Nope", "stageId": w.stage["id"]}), ReadOnly),
        ("topics.vote", json!({"id": t, "email": "new@example.com"}), ReadOnly),
        ("topics.unvote", json!({"id": t, "subscriberId": w.subscriber["id"]}), ReadOnly),
        ("subscribers.update", json!({"id": w.subscriber["id"], "name": "Nope"}), ReadOnly),
        ("subscribers.delete", json!({"id": w.subscriber["id"]}), ReadOnly),
        ("feedbacks.export", json!({}), ReadOnly),
        ("feedbacks.import", json!({"csv": "title\nNope\n"}), ReadOnly),
        ("public/notifications.markRead", json!({"all": true}), SubscribersOnly),
        ("documents.create", json!({"title": "Nope"}), ReadOnly),
        ("documents.update", json!({"id": d, "title": "Nope"}), ReadOnly),
        ("documents.publish", json!({"id": d}), ReadOnly),
        ("documents.unpublish", json!({"id": d}), ReadOnly),
        ("documents.delete", json!({"id": d}), ReadOnly),
        ("public/document-reactions.create", json!({"documentId": d, "emoji": "👍"}), SubscribersOnly),
        ("public/document-reactions.delete", json!({"documentId": d, "emoji": "👍"}), SubscribersOnly),
        ("tags.create", json!({"name": "Nope"}), ReadOnly),
        ("tags.update", json!({"id": w.tag["id"], "name": "Nope"}), ReadOnly),
        ("tags.delete", json!({"id": w.tag["id"]}), ReadOnly),
    ]);
    rows
}

/// Every read, one row per operation: `(operation, body)`. A read-only key gets 200 from
/// each (reads for subscriber tokens only are in `SUBSCRIBER_READS`).
fn reads(w: &World) -> Vec<(&'static str, Value)> {
    let f = &w.feedback["id"];
    vec![
        ("teams.info", json!({})),
        ("feedback-boards.list", json!({})),
        ("feedback-boards.info", json!({"id": w.board["id"]})),
        ("public/feedback-boards.list", json!({})),
        ("feedbacks.list", json!({})),
        ("feedbacks.info", json!({"id": f})),
        ("public/feedbacks.list", json!({})),
        ("public/feedbacks.info", json!({"feedbackId": f})),
        ("public/feedback-comments.list", json!({"feedbackId": f})),
        ("public/feedback-votes.info", json!({"feedbackId": f})),
        ("roadmaps.list", json!({})),
        ("roadmaps.info", json!({"id": w.roadmap["id"]})),
        ("public/stages.list", json!({"roadmapId": w.roadmap["id"]})),
        ("public/stages.info", json!({"stageId": w.stage["id"]})),
        ("topics.list", json!({})),
        ("public/topics.info", json!({"id": w.topic["id"]})),
        ("public/topic-comments.list", json!({})),
        ("feedback-comments.list", json!({"feedbackId": f})),
        ("topic-comments.list", json!({})),
        ("public/topic-votes.info", json!({"id": w.topic["id"]})),
        ("automation.list", json!({})),
        ("automation.deliveries", json!({})),
        ("subscribers.list", json!({})),
        ("subscribers.info", json!({"id": w.subscriber["id"]})),
        ("users.list", json!({})),
        ("feedbacks.count", json!({})),
        ("documents.list", json!({})),
        ("documents.info", json!({"id": w.document["id"]})),
        ("public/documents.list", json!({})),
        ("tags.list", json!({})),
    ]
}

/// Reads only a subscriber token may make: a key is 401.
const SUBSCRIBER_READS: &[&str] = &["public/subscriber.info", "public/notifications.list"];

async fn a_member_role_key_is_refused_each_admin_operation_and_nothing_changes(app: TestApp) {
    let w = world(&app).await;
    let (member, _) = app.key_with(Role::Member, false).await;
    let before = snapshot(&app, &w).await;
    for (op, body, area) in admin_operations(&w) {
        app.call(op, Some(&member), body)
            .await
            .assert_error(403, &format!("The member role cannot manage {area}"));
    }
    assert_eq!(snapshot(&app, &w).await, before);
    // The member key still does day-to-day work.
    let made = app
        .call(
            "feedbacks.create",
            Some(&member),
            json!({"title": "By a member"}),
        )
        .await;
    assert_eq!(made.ok()["title"], "By a member");
}

fn assert_refused(reply: &Reply, op: &str, how: Refusal) {
    let expected = match how {
        Refusal::ReadOnly => json!({"error": "This API key is read-only", "statusCode": 403}),
        Refusal::SubscribersOnly => {
            json!({"error": "Authentication required", "statusCode": 401})
        }
        Refusal::BadRequest => json!({"error": "Bad request"}),
    };
    assert_eq!(reply.body, expected, "{op} answered {}", reply.status);
}

async fn a_read_only_key_is_refused_every_mutation_and_nothing_changes(app: TestApp) {
    let w = world(&app).await;
    // The team allows anonymous topics, so only the key's read-only flag can refuse one.
    app.team("teams.update", json!({"allowAnonymousFeedback": true}))
        .await
        .ok();
    let (reader, _) = app.key_with(Role::Owner, true).await;
    app.call("teams.info", Some(&reader), json!({})).await.ok();
    let before = snapshot(&app, &w).await;
    for (op, body, how) in mutations(&w) {
        let reply = app.call(op, Some(&reader), body).await;
        assert_refused(&reply, op, how);
    }
    app.call("api-keys.list", Some(&reader), json!({}))
        .await
        .assert_error(403, "This API key is read-only");
    assert_eq!(snapshot(&app, &w).await, before);
}

async fn a_read_only_key_may_call_every_read(app: TestApp) {
    let w = world(&app).await;
    let (reader, _) = app.key_with(Role::Member, true).await;
    for (op, body) in reads(&w) {
        let reply = app.call(op, Some(&reader), body).await;
        assert_eq!(reply.status, 200, "{op}: {}", reply.body);
    }
    for op in SUBSCRIBER_READS {
        app.call(op, Some(&reader), json!({}))
            .await
            .assert_error(401, "Authentication required");
    }
}

async fn every_operation_is_classified(app: TestApp) {
    let w = world(&app).await;
    let doc: Value = app.openapi().await;
    let documented: BTreeSet<String> = doc["paths"]
        .as_object()
        .unwrap()
        .keys()
        .filter_map(|p| p.strip_prefix("/v1/"))
        .map(str::to_owned)
        .collect();
    let mut classified: BTreeSet<String> = BTreeSet::new();
    for (op, _, _) in mutations(&w) {
        assert!(classified.insert(op.to_owned()), "{op} twice");
    }
    for (op, _) in reads(&w) {
        assert!(classified.insert(op.to_owned()), "{op} twice");
    }
    classified.extend(SUBSCRIBER_READS.iter().map(|s| (*s).to_owned()));
    classified.insert("api-keys.list".into());
    assert_eq!(
        documented, classified,
        "every operation has a row in the role tables of this file"
    );
    // Reads are exactly the `.list`, `.info`, `.count` and `.deliveries` operations.
    for op in &documented {
        let is_read = [".list", ".info", ".count", ".deliveries"]
            .iter()
            .any(|s| op.ends_with(s));
        let in_reads = reads(&w).iter().any(|(r, _)| r == op)
            || SUBSCRIBER_READS.contains(&op.as_str())
            || op == "api-keys.list";
        assert_eq!(is_read, in_reads, "{op}");
    }
}
