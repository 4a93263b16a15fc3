//! The authorization matrix (issue 7): every operation of the API × twelve credentials, each
//! cell's expected answer written down in [`MATRIX`], derived from the interface (§4, §5, §7),
//! decisions §4–§5 and docs/api.md ("Authentication", each operation's heading) — not from
//! what the server answers. Bodies name team A's objects, so an authorized cell succeeds and an
//! unauthorized one is refused; answers to team B's credentials must not mention any of team
//! A's ids. Every mismatching cell is reported before the test fails.

use std::collections::BTreeSet;

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine as _};
use jsonwebtoken::{encode, EncodingKey, Header};
use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{
    engine_cases,
    receiver::{fast_webhooks, Receiver},
    Engine, TestApp, SECRET,
};

engine_cases!(
    every_operation_answers_every_credential_as_the_table_says,
    team_b_lists_show_none_of_team_a,
    creator_only_operations_refuse_another_subscriber_and_change_nothing,
    every_operation_refuses_unknown_parameters_and_changes_nothing,
);

/// The credentials of the columns, in column order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Credential {
    /// No `Authorization` header at all.
    Nothing,
    /// Team A's owner key (created on first start).
    OwnerA,
    /// A key of team A with the member role.
    MemberA,
    /// A read-only key of team A (owner role, so only the read-only flag refuses).
    ReadOnlyA,
    /// Team B's owner key.
    KeyB,
    /// Subscriber Ann of team A, the creator of A's public feedback and topic.
    SubscriberA,
    /// Subscriber Bob of team A, who created nothing.
    OtherSubscriberA,
    /// A subscriber of team B.
    SubscriberB,
    /// Ann's claims, signed with the right secret, expired.
    Expired,
    /// Ann's claims, unsigned (`alg: none`).
    AlgNone,
    /// Ann's claims, signed with a secret the server does not know.
    WrongSecret,
    /// A key of team A deleted with `api-keys.delete`.
    RevokedKey,
}

use Credential::*;

const COLUMNS: [Credential; 12] = [
    Nothing,
    OwnerA,
    MemberA,
    ReadOnlyA,
    KeyB,
    SubscriberA,
    OtherSubscriberA,
    SubscriberB,
    Expired,
    AlgNone,
    WrongSecret,
    RevokedKey,
];

/// One row per operation, one code per credential, in the order of [`COLUMNS`]:
///
/// `-` none · `O` A owner key · `M` A member key · `R` A read-only key · `B` B key ·
/// `S` A subscriber (creator) · `T` another A subscriber · `U` B subscriber ·
/// `X` expired token · `N` `alg: none` token · `W` token of another secret · `D` revoked key.
///
/// Codes: `2` 200 · `n` 200 with `data: null` · `z` 200 with `data: []` ·
/// `b` 400 `{"error": "Bad request"}` (no statusCode) · `1` 401 `Authentication required` ·
/// `e` 401 `Token expired` · `3` 403 · `4` 404.
///
/// Why, in short: K operations refuse every non-key (401) and a subscriber's token is the wrong
/// kind (401); J operations likewise refuse keys; an expired token is `Token expired`
/// everywhere; forged tokens and revoked keys are unknown credentials (401). Member keys are
/// 403 on administrative operations, read-only keys on every change. Team B's credentials
/// naming A's objects get 404 (decisions §5), except where the interface answers a miss
/// without an error (`topics.info` → `data: null`, `topic-comments.list` → `[]`) and where an
/// id only filters a list (`boardId`, a subscription's `id`: an empty page, docs/decisions.md
/// "Tags"). The public topic-vote operations answer any caller without a valid subscriber
/// token `Bad request` (interface §7); `topics.create` keeps that body for a key while
/// anonymous creation is off (both teams allow it here) and answers no credential 401 like
/// every operation (docs/decisions.md "Authorization matrix"). The team's votes on behalf of a
/// subscriber (`feedbacks.vote|unvote`, `topics.vote|unvote`) are changes like any other: any
/// role, not a read-only key.
#[rustfmt::skip]
const MATRIX: &[(&str, &str)] = &[
    //                                       - O M R B S T U X N W D
    ("teams.info",                          "1 2 2 2 2 1 1 1 e 1 1 1"),
    ("teams.update",                        "1 2 3 3 2 1 1 1 e 1 1 1"),
    ("public/subscriber.identify",          "1 2 2 3 2 1 1 1 e 1 1 1"),
    ("public/subscriber.info",              "1 1 1 1 1 2 2 2 e 1 1 1"),
    ("public/subscriber.logout",            "1 1 1 1 1 2 2 2 e 1 1 1"),
    ("feedback-boards.create",              "1 2 3 3 2 1 1 1 e 1 1 1"),
    ("feedback-boards.list",                "1 2 2 2 2 1 1 1 e 1 1 1"),
    ("feedback-boards.info",                "1 2 2 2 4 1 1 1 e 1 1 1"),
    ("feedback-boards.update",              "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("feedback-boards.delete",              "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("public/feedback-boards.list",         "1 2 2 2 2 2 2 2 e 1 1 1"),
    ("feedbacks.create",                    "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("feedbacks.update",                    "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("feedbacks.list",                      "1 2 2 2 z 1 1 1 e 1 1 1"),
    ("feedbacks.info",                      "1 2 2 2 4 1 1 1 e 1 1 1"),
    ("feedbacks.publish",                   "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("feedbacks.archive",                   "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("feedbacks.restore",                   "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("feedbacks.delete",                    "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("feedbacks.merge",                     "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("feedbacks.count",                     "1 2 2 2 4 1 1 1 e 1 1 1"),
    ("feedbacks.export",                    "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("feedbacks.import",                    "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("public/feedbacks.list",               "1 2 2 2 z 2 2 z e 1 1 1"),
    ("public/feedbacks.info",               "1 2 2 2 4 2 2 4 e 1 1 1"),
    ("public/feedbacks.create",             "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("public/feedbacks.update",             "1 1 1 1 1 2 3 4 e 1 1 1"),
    ("public/feedbacks.delete",             "1 1 1 1 1 2 3 4 e 1 1 1"),
    ("public/feedbacks.subscribe",          "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("public/feedbacks.unsubscribe",        "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("feedback-comments.create",            "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("feedback-comments.list",              "1 2 2 2 4 1 1 1 e 1 1 1"),
    ("feedback-comments.update",            "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("feedback-comments.delete",            "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("public/feedback-comments.create",     "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("public/feedback-comments.list",       "1 2 2 2 4 2 2 4 e 1 1 1"),
    ("public/feedback-votes.create",        "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("public/feedback-votes.delete",        "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("public/feedback-votes.info",          "1 2 2 2 4 2 2 4 e 1 1 1"),
    ("feedbacks.vote",                      "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("feedbacks.unvote",                    "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("roadmaps.create",                     "1 2 3 3 2 1 1 1 e 1 1 1"),
    ("roadmaps.list",                       "1 2 2 2 2 1 1 1 e 1 1 1"),
    ("roadmaps.info",                       "1 2 2 2 4 1 1 1 e 1 1 1"),
    ("roadmaps.update",                     "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("roadmaps.delete",                     "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("stages.create",                       "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("stages.update",                       "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("stages.delete",                       "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("public/stages.list",                  "1 2 2 2 4 2 2 4 e 1 1 1"),
    ("public/stages.info",                  "1 2 2 2 4 2 2 4 e 1 1 1"),
    ("topics.create",                       "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("topics.list",                         "1 2 2 2 2 1 1 1 e 1 1 1"),
    ("topics.update",                       "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("topics.delete",                       "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("public/topics.create",                "1 2 2 3 4 2 2 4 e 1 1 1"),
    ("public/topics.info",                  "1 2 2 2 n 2 2 n e 1 1 1"),
    ("public/topics.subscribe",             "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("public/topics.unsubscribe",           "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("public/topic-comments.create",        "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("public/topic-comments.list",          "1 2 2 2 z 2 2 z e 1 1 1"),
    ("topic-comments.list",                 "1 2 2 2 z 1 1 1 e 1 1 1"),
    ("topic-comments.update",               "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("topic-comments.delete",               "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("public/topic-votes.create",           "b b b b b 2 2 4 e b b b"),
    ("public/topic-votes.delete",           "b b b b b 2 2 4 e b b b"),
    ("public/topic-votes.info",             "1 2 2 2 4 2 2 4 e 1 1 1"),
    ("topics.vote",                         "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("topics.unvote",                       "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("automation.subscribe",                "1 2 3 3 2 1 1 1 e 1 1 1"),
    ("automation.unsubscribe",              "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("zapier.subscribe",                    "1 2 3 3 2 1 1 1 e 1 1 1"),
    ("zapier.unsubscribe",                  "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("automation.list",                     "1 2 2 2 2 1 1 1 e 1 1 1"),
    ("automation.deliveries",               "1 2 2 2 z 1 1 1 e 1 1 1"),
    ("automation.redeliver",                "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("public/notifications.list",           "1 1 1 1 1 2 2 2 e 1 1 1"),
    ("public/notifications.markRead",       "1 1 1 1 1 2 2 2 e 1 1 1"),
    ("documents.create",                    "1 2 2 3 2 1 1 1 e 1 1 1"),
    ("documents.list",                      "1 2 2 2 2 1 1 1 e 1 1 1"),
    ("documents.info",                      "1 2 2 2 4 1 1 1 e 1 1 1"),
    ("documents.update",                    "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("documents.publish",                   "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("documents.unpublish",                 "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("documents.delete",                    "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("public/documents.list",               "1 2 2 2 2 2 2 2 e 1 1 1"),
    ("public/document-reactions.create",    "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("public/document-reactions.delete",    "1 1 1 1 1 2 2 4 e 1 1 1"),
    ("tags.create",                         "1 2 2 3 2 1 1 1 e 1 1 1"),
    ("tags.list",                           "1 2 2 2 2 1 1 1 e 1 1 1"),
    ("tags.update",                         "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("tags.delete",                         "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("subscribers.list",                    "1 2 2 2 2 1 1 1 e 1 1 1"),
    ("subscribers.info",                    "1 2 2 2 4 1 1 1 e 1 1 1"),
    ("subscribers.update",                  "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("subscribers.delete",                  "1 2 2 3 4 1 1 1 e 1 1 1"),
    ("users.list",                          "1 2 2 2 2 1 1 1 e 1 1 1"),
    ("users.create",                        "1 2 3 3 2 1 1 1 e 1 1 1"),
    ("users.update",                        "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("users.delete",                        "1 2 3 3 4 1 1 1 e 1 1 1"),
    ("api-keys.list",                       "1 2 3 3 2 1 1 1 e 1 1 1"),
    ("api-keys.create",                     "1 2 3 3 2 1 1 1 e 1 1 1"),
    ("api-keys.delete",                     "1 2 3 3 4 1 1 1 e 1 1 1"),
];

/// The codes of `row`, one per column.
fn codes(row: &str) -> Vec<char> {
    row.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether an answer matches a code of [`MATRIX`].
fn matches(code: char, status: u16, body: &Value) -> bool {
    let error = |status: u16, message: &str| json!({"error": message, "statusCode": status});
    match code {
        '2' => status == 200,
        'n' => status == 200 && body.get("data") == Some(&Value::Null),
        'z' => status == 200 && body["data"] == json!([]),
        'b' => status == 400 && *body == json!({"error": "Bad request"}),
        '1' => status == 401 && *body == error(401, "Authentication required"),
        'e' => status == 401 && *body == error(401, "Token expired"),
        '3' | '4' => {
            let expected = if code == '3' { 403 } else { 404 };
            status == expected && body["statusCode"] == json!(expected)
        }
        other => panic!("unknown code {other} in the matrix"),
    }
}

const COLUMN_NAMES: [&str; 12] = [
    "none",
    "A owner key",
    "A member key",
    "A read-only key",
    "B key",
    "A subscriber (creator)",
    "another A subscriber",
    "B subscriber",
    "expired token",
    "alg:none token",
    "token of another secret",
    "revoked key",
];

/// Team A's objects (shared by every cell that does not need its own), team B's, and the
/// credentials of the columns.
struct World {
    receiver_url: String,
    board: Value,
    /// Created by the team: the target of team feedback operations.
    feedback: Value,
    /// Created by Ann through `public/feedbacks.create`.
    ann_feedback: Value,
    roadmap: Value,
    stage: Value,
    /// Created by Ann.
    topic: Value,
    /// Ann's comment on `ann_feedback`.
    comment: Value,
    /// Ann's comment on `topic`.
    topic_comment: Value,
    tag: Value,
    /// Published.
    document: Value,
    subscription: Value,
    delivery: Value,
    /// A subscriber `subscribers.update` changes (not one whose token a column uses).
    carol: Value,
    /// A member user `users.update` changes.
    dave: Value,
    ann: Value,
    bob: Value,
    /// Every id of team A the test knows; none may appear in an answer to team B.
    a_ids: BTreeSet<String>,
    b_key: String,
    /// One credential per column; `None` for [`Nothing`].
    tokens: Vec<Option<String>>,
}

impl World {
    /// The credential of `column`.
    fn token(&self, column: Credential) -> &str {
        self.tokens[index(column)].as_deref().expect("a credential")
    }

    fn set(&mut self, column: Credential, token: String) {
        self.tokens[index(column)] = Some(token);
    }
}

/// The position of `column` in [`COLUMNS`].
fn index(column: Credential) -> usize {
    COLUMNS.iter().position(|c| *c == column).expect("a column")
}

fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

/// The claims of a token the server issued.
fn claims_of(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a JWT has a payload");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url payload"))
        .expect("JSON claims")
}

fn sign(secret: &str, claims: &Value) -> String {
    encode(
        &Header::default(),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .expect("token signed")
}

/// Ann's genuine token turned into the three forgeries of the columns. The same claims
/// signed with the server's secret are accepted, so each forgery fails for its one fault.
async fn forgeries(app: &TestApp, ann_token: &str) -> (String, String, String) {
    let claims = claims_of(ann_token);
    let control = sign(SECRET, &claims);
    let (status, reply) = send(app, "public/subscriber.info", Some(&control), &json!({})).await;
    assert_eq!(status, 200, "Ann's claims re-signed are valid: {reply}");
    let mut expired = claims.clone();
    expired["iat"] = json!(now() - 7200);
    expired["exp"] = json!(now() - 3600);
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let unsigned = format!("{header}.{}.", URL_SAFE_NO_PAD.encode(claims.to_string()));
    let wrong = sign("another-secret-the-server-never-saw-0123456789", &claims);
    (sign(SECRET, &expired), unsigned, wrong)
}

/// A server with webhooks on (deliveries to a local receiver, so `automation.redeliver` has
/// something to redeliver), both teams allowing anonymous topics (so a key's
/// `public/topics.create` reaches the checks of the objects it names).
async fn seed(engine: Engine) -> Option<(TestApp, World, Receiver)> {
    let app = TestApp::spawn_with(engine, fast_webhooks).await?;
    let receiver = Receiver::ok().await;
    let receiver_url = receiver.url();
    let owner = app.key.clone();
    app.team("teams.update", json!({"allowAnonymousFeedback": true}))
        .await
        .ok();
    let subscription = app
        .team_data(
            "automation.subscribe",
            json!({"target_url": receiver_url, "event": "new_feedback_vote"}),
        )
        .await;

    let board = app.board(json!({"name": "Alpha ideas"})).await;
    let feedback = app
        .feedback(json!({"title": "Alpha team item", "boardId": board["id"]}))
        .await;
    let (ann, ann_token) = app.identify("ann@alpha.example").await;
    let (bob, bob_token) = app.identify("bob@alpha.example").await;
    let (carol, _) = app.identify("carol@alpha.example").await;
    let ann_feedback = app
        .public_feedback(
            &ann_token,
            json!({"title": "Alpha by Ann", "boardId": board["id"]}),
        )
        .await;
    let comment = app
        .data_with(
            &ann_token,
            "public/feedback-comments.create",
            json!({"feedbackId": ann_feedback["id"], "text": "Alpha comment"}),
        )
        .await;
    let vote = app
        .data_with(
            &ann_token,
            "public/feedback-votes.create",
            json!({"feedbackId": ann_feedback["id"]}),
        )
        .await;
    let roadmap = app.roadmap("Alpha roadmap").await;
    let stage = app.stage(&roadmap, json!({"name": "Alpha next"})).await;
    let topic = app
        .topic(&ann_token, &stage, json!({"title": "Alpha topic"}))
        .await;
    let topic_comment = app
        .data_with(
            &ann_token,
            "public/topic-comments.create",
            json!({"id": topic["id"], "text": "Alpha topic comment"}),
        )
        .await;
    let tag = app
        .team_data("tags.create", json!({"name": "alpha-tag"}))
        .await;
    let document = app
        .team_data(
            "documents.create",
            json!({"title": "Alpha help", "publish": true}),
        )
        .await;
    app.call(
        "public/document-reactions.create",
        Some(&ann_token),
        json!({"documentId": document["id"], "emoji": "👍"}),
    )
    .await
    .ok();
    let dave = app
        .team_data(
            "users.create",
            json!({"email": "dave@alpha.example", "name": "Dave", "role": "member"}),
        )
        .await;
    let delivery = app
        .wait_deliveries(1, std::time::Duration::from_secs(15), |d| {
            d["status"] != "pending"
        })
        .await
        .remove(0);

    let (member, _) = app.key_with(Role::Member, false).await;
    let (read_only, _) = app.key_with(Role::Owner, true).await;
    let (revoked, revoked_id) = app.key_with(Role::Admin, false).await;
    // It worked until deleted: its column shows revocation, not a key that never was.
    data(&app, "teams.info", &revoked, json!({})).await;
    app.team_data("api-keys.delete", json!({"id": revoked_id}))
        .await;

    let (_, b_key) = app.other_team("beta").await;
    app.call(
        "teams.update",
        Some(&b_key),
        json!({"allowAnonymousFeedback": true}),
    )
    .await
    .ok();
    let (_, b_token) = app.identify_with(&b_key, "uma@beta.example").await;

    let (expired, unsigned, wrong) = forgeries(&app, &ann_token).await;
    let tokens = vec![
        None,
        Some(owner),
        Some(member),
        Some(read_only),
        Some(b_key.clone()),
        Some(ann_token),
        Some(bob_token),
        Some(b_token),
        Some(expired),
        Some(unsigned),
        Some(wrong),
        Some(revoked),
    ];

    let users = app.team("users.list", json!({})).await;
    let keys = app.team("api-keys.list", json!({})).await;
    let mut a_ids: BTreeSet<String> = [
        &json!(app.team_id),
        &board["id"],
        &feedback["id"],
        &ann_feedback["id"],
        &comment["id"],
        &vote["id"],
        &roadmap["id"],
        &stage["id"],
        &topic["id"],
        &topic_comment["id"],
        &tag["id"],
        &document["id"],
        &subscription["id"],
        &delivery["id"],
        &ann["id"],
        &bob["id"],
        &carol["id"],
        &dave["id"],
    ]
    .into_iter()
    .map(|id| id.as_str().expect("an id").to_owned())
    .collect();
    for listed in [users.ok(), keys.ok()] {
        for item in listed.as_array().expect("a list") {
            a_ids.insert(item["id"].as_str().expect("an id").to_owned());
        }
    }
    let world = World {
        receiver_url,
        board,
        feedback,
        ann_feedback,
        roadmap,
        stage,
        topic,
        comment,
        topic_comment,
        tag,
        document,
        subscription,
        delivery,
        carol,
        dave,
        ann,
        bob,
        a_ids,
        b_key,
        tokens,
    };
    Some((app, world, receiver))
}

/// The answer to one call: status and body (`{"text": …}` when the body is not JSON, as
/// for a CSV export).
async fn send(app: &TestApp, op: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
    let mut request = app.client.post(format!("{}/v1/{op}", app.base)).json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    let text = response.text().await.expect("response body");
    let body = serde_json::from_str(&text).unwrap_or_else(|_| json!({ "text": text }));
    (status, body)
}

/// `data` of a 200 answer to `op` with `token`.
async fn data(app: &TestApp, op: &str, token: &str, body: Value) -> Value {
    let (status, reply) = send(app, op, Some(token), &body).await;
    assert_eq!(status, 200, "{op} while seeding a cell: {reply}");
    reply["data"].clone()
}

/// A team feedback item on A's board, made for one cell.
async fn fresh_feedback(app: &TestApp, w: &World, n: usize) -> Value {
    let body = json!({"title": format!("Alpha fresh {n}"), "boardId": w.board["id"]});
    data(app, "feedbacks.create", &app.key, body).await["id"].clone()
}

/// A feedback item Ann creates, made for one cell.
async fn fresh_ann_feedback(app: &TestApp, w: &World, n: usize) -> Value {
    let body = json!({"title": format!("Alpha by Ann {n}"), "boardId": w.board["id"]});
    let ann = w.token(SubscriberA);
    data(app, "public/feedbacks.create", ann, body).await["id"].clone()
}

/// A topic Ann creates on A's stage, made for one cell.
async fn fresh_topic(app: &TestApp, w: &World, n: usize) -> Value {
    let body = json!({
        "title": format!("Alpha topic {n}"),
        "roadmapId": w.roadmap["id"],
        "stageId": w.stage["id"],
    });
    let ann = w.token(SubscriberA);
    data(app, "public/topics.create", ann, body).await["id"].clone()
}

/// A comment of Ann's on her feedback item, made for one cell.
async fn fresh_comment(app: &TestApp, w: &World, n: usize) -> Value {
    let body = json!({"feedbackId": w.ann_feedback["id"], "text": format!("Doomed {n}")});
    let ann = w.token(SubscriberA);
    data(app, "public/feedback-comments.create", ann, body).await["id"].clone()
}

/// A comment of Ann's on her topic, made for one cell.
async fn fresh_topic_comment(app: &TestApp, w: &World, n: usize) -> Value {
    let body = json!({"id": w.topic["id"], "text": format!("Doomed {n}")});
    let ann = w.token(SubscriberA);
    data(app, "public/topic-comments.create", ann, body).await["id"].clone()
}

/// The request body of `op` for cell `n`: team A's shared objects, or a fresh one of its own
/// where the operation destroys or uses up its target (deletes, archive, unpublish, votes,
/// merge), so no cell depends on what the cells before it did.
async fn body_for(app: &TestApp, w: &World, op: &str, n: usize) -> Value {
    let key = app.key.as_str();
    match op {
        "teams.info"
        | "feedback-boards.list"
        | "public/feedback-boards.list"
        | "roadmaps.list"
        | "topics.list"
        | "automation.list"
        | "documents.list"
        | "public/documents.list"
        | "tags.list"
        | "subscribers.list"
        | "users.list"
        | "api-keys.list"
        | "public/subscriber.info"
        | "public/subscriber.logout"
        | "public/notifications.list" => {
            json!({})
        }
        "teams.update" => json!({"name": "Renamed"}),
        "public/subscriber.identify" => json!({"email": format!("new{n}@example.com")}),
        "feedback-boards.create" => json!({"name": format!("Board {n}")}),
        "feedback-boards.info" => json!({"id": w.board["id"]}),
        "feedback-boards.update" => json!({"id": w.board["id"], "description": format!("{n}")}),
        "feedback-boards.delete" => {
            let board = data(app, "feedback-boards.create", key, json!({"name": "Empty"})).await;
            json!({"id": board["id"]})
        }
        "feedbacks.create" => json!({"title": format!("New {n}"), "boardId": w.board["id"]}),
        "feedbacks.update" => json!({"id": w.feedback["id"], "priority": "high"}),
        "feedbacks.list" | "public/feedbacks.list" => json!({"boardId": w.board["id"]}),
        "feedbacks.info" | "feedbacks.publish" | "feedbacks.restore" => {
            json!({"id": w.feedback["id"]})
        }
        "feedbacks.archive" | "feedbacks.delete" => {
            json!({"id": fresh_feedback(app, w, n).await})
        }
        "feedbacks.merge" => json!({
            "id": fresh_feedback(app, w, n).await,
            "targetId": fresh_feedback(app, w, n).await,
        }),
        "feedbacks.count" | "feedbacks.export" => json!({"boardId": w.board["id"]}),
        "feedbacks.import" => {
            json!({"csv": format!("title\nImported {n}\n"), "boardId": w.board["id"]})
        }
        "public/feedbacks.info"
        | "public/feedback-comments.list"
        | "public/feedback-votes.info"
        | "public/feedbacks.subscribe"
        | "public/feedbacks.unsubscribe" => {
            json!({"feedbackId": w.ann_feedback["id"]})
        }
        "public/feedbacks.create" => {
            json!({"title": format!("Public {n}"), "boardId": w.board["id"]})
        }
        "public/feedbacks.update" => {
            json!({"feedbackId": w.ann_feedback["id"], "text": format!("Edited {n}")})
        }
        "public/feedbacks.delete" => json!({"feedbackId": fresh_ann_feedback(app, w, n).await}),
        "feedback-comments.create" | "public/feedback-comments.create" => {
            json!({"feedbackId": w.ann_feedback["id"], "text": format!("Comment {n}")})
        }
        "feedback-comments.list" => json!({"feedbackId": w.ann_feedback["id"]}),
        "feedback-comments.update" => {
            json!({"id": w.comment["id"], "text": format!("Moderated {n}")})
        }
        "feedback-comments.delete" => json!({"id": fresh_comment(app, w, n).await}),
        "public/feedback-votes.create" => json!({"feedbackId": fresh_feedback(app, w, n).await}),
        "public/feedback-votes.delete" => {
            // A feedback item Ann voted on: her cell really removes a vote.
            let id = fresh_feedback(app, w, n).await;
            let ann = w.token(SubscriberA);
            data(
                app,
                "public/feedback-votes.create",
                ann,
                json!({"feedbackId": id}),
            )
            .await;
            json!({"feedbackId": id})
        }
        // On behalf of Bob: a fresh item each, since a second vote is a conflict.
        "feedbacks.vote" => {
            json!({"feedbackId": fresh_feedback(app, w, n).await, "subscriberId": w.bob["id"]})
        }
        "feedbacks.unvote" => {
            // An item the team voted on for Bob, so a cell really removes a vote; by e-mail and
            // with Userorbit's `id` for the item.
            let id = fresh_feedback(app, w, n).await;
            let body = json!({"feedbackId": id, "subscriberId": w.bob["id"]});
            data(app, "feedbacks.vote", key, body).await;
            json!({"id": id, "email": "bob@alpha.example"})
        }
        "roadmaps.create" => json!({"name": format!("Roadmap {n}")}),
        "roadmaps.info" => json!({"id": w.roadmap["id"]}),
        "roadmaps.update" => json!({"id": w.roadmap["id"], "description": format!("{n}")}),
        "roadmaps.delete" => {
            let roadmap = data(app, "roadmaps.create", key, json!({"name": "Doomed"})).await;
            json!({"id": roadmap["id"]})
        }
        "stages.create" => json!({"roadmapId": w.roadmap["id"], "name": format!("Stage {n}")}),
        "stages.update" => json!({"id": w.stage["id"], "name": "Alpha next"}),
        "stages.delete" => {
            let body = json!({"roadmapId": w.roadmap["id"], "name": "Doomed"});
            let stage = data(app, "stages.create", key, body).await;
            json!({"id": stage["id"], "force": true})
        }
        "public/stages.list" => json!({"roadmapId": w.roadmap["id"]}),
        "public/stages.info" => json!({"stageId": w.stage["id"]}),
        "topics.create" => json!({
            "title": format!("Team topic {n}"),
            "roadmapId": w.roadmap["id"],
            "stageId": w.stage["id"],
        }),
        "topics.update" => json!({"id": w.topic["id"], "text": format!("Edited {n}")}),
        "topics.delete" => json!({"id": fresh_topic(app, w, n).await}),
        "public/topics.create" => json!({
            "title": format!("Topic {n}"),
            "roadmapId": w.roadmap["id"],
            "stageId": w.stage["id"],
        }),
        "public/topics.info"
        | "public/topics.subscribe"
        | "public/topics.unsubscribe"
        | "public/topic-comments.list"
        | "public/topic-votes.info" => {
            json!({"id": w.topic["id"]})
        }
        "public/topic-comments.create" => {
            json!({"id": w.topic["id"], "text": format!("Reply {n}")})
        }
        "topic-comments.list" => json!({"id": w.topic["id"]}),
        "topic-comments.update" => {
            json!({"id": w.topic_comment["id"], "text": format!("Moderated {n}")})
        }
        "topic-comments.delete" => json!({"id": fresh_topic_comment(app, w, n).await}),
        "public/topic-votes.create" => json!({"id": fresh_topic(app, w, n).await}),
        "public/topic-votes.delete" => {
            let id = fresh_topic(app, w, n).await;
            let ann = w.token(SubscriberA);
            data(app, "public/topic-votes.create", ann, json!({"id": id})).await;
            json!({"id": id})
        }
        "topics.vote" => json!({
            "id": fresh_topic(app, w, n).await,
            "email": format!("voter{n}@alpha.example"),
            "name": "Voter",
        }),
        "topics.unvote" => {
            let id = fresh_topic(app, w, n).await;
            let body = json!({"id": id, "subscriberId": w.bob["id"]});
            data(app, "topics.vote", key, body).await;
            json!({"topicId": id, "subscriberId": w.bob["id"]})
        }
        "automation.subscribe" | "zapier.subscribe" => {
            json!({"target_url": w.receiver_url, "event": "topic-votes.create"})
        }
        "automation.unsubscribe" | "zapier.unsubscribe" => {
            let body = json!({"target_url": w.receiver_url, "event": "feedbacks.delete"});
            let made = data(app, "automation.subscribe", key, body).await;
            json!({"id": made["id"]})
        }
        "automation.deliveries" => json!({"id": w.subscription["id"]}),
        "automation.redeliver" => json!({"deliveryId": w.delivery["id"]}),
        "public/notifications.markRead" => json!({"all": true}),
        "documents.create" => json!({"title": format!("Document {n}")}),
        "documents.info" | "documents.publish" => json!({"id": w.document["id"]}),
        "documents.update" => json!({"id": w.document["id"], "text": format!("Edited {n}")}),
        "documents.unpublish" | "documents.delete" => {
            let body = json!({"title": format!("Alpha doc {n}"), "publish": true});
            let document = data(app, "documents.create", key, body).await;
            json!({"id": document["id"]})
        }
        "public/document-reactions.create" | "public/document-reactions.delete" => {
            json!({"documentId": w.document["id"], "emoji": "🎉"})
        }
        "tags.create" => json!({"name": format!("tag-{n}")}),
        "tags.update" => json!({"id": w.tag["id"], "color": "#22C55E"}),
        "tags.delete" => {
            let tag = data(
                app,
                "tags.create",
                key,
                json!({"name": format!("doomed-{n}")}),
            )
            .await;
            json!({"id": tag["id"]})
        }
        "subscribers.info" => json!({"id": w.ann["id"]}),
        "subscribers.update" => json!({"id": w.carol["id"], "name": format!("Carol {n}")}),
        "subscribers.delete" => {
            let body = json!({"email": format!("gone{n}@alpha.example")});
            let (status, made) = send(app, "public/subscriber.identify", Some(key), &body).await;
            assert_eq!(status, 200, "identify while seeding a cell: {made}");
            json!({"id": made["data"]["id"]})
        }
        "users.create" => json!({
            "email": format!("user{n}@alpha.example"),
            "name": "New",
            "role": "member",
        }),
        "users.update" => json!({"id": w.dave["id"], "role": "member"}),
        "users.delete" => {
            let body = json!({
                "email": format!("doomed{n}@alpha.example"),
                "name": "Doomed",
                "role": "member",
            });
            let user = data(app, "users.create", key, body).await;
            json!({"id": user["id"]})
        }
        "api-keys.create" => json!({"role": "member", "name": format!("key {n}")}),
        "api-keys.delete" => {
            let made = data(app, "api-keys.create", key, json!({"role": "member"})).await;
            json!({"id": made["id"]})
        }
        other => panic!("no request body for {other}: add it to body_for"),
    }
}

/// The ids in a request body (strings that parse as UUIDs).
fn ids_in(body: &Value) -> Vec<String> {
    body.as_object()
        .into_iter()
        .flat_map(|o| o.values())
        .filter_map(Value::as_str)
        .filter(|s| uuid::Uuid::parse_str(s).is_ok())
        .map(str::to_owned)
        .collect()
}

/// The `/v1` operations of the served OpenAPI document.
async fn documented_operations(app: &TestApp) -> BTreeSet<String> {
    let doc: Value = app.openapi().await;
    doc["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .filter_map(|p| p.strip_prefix("/v1/"))
        .map(str::to_owned)
        .collect()
}

/// After a subscriber logs out, their tokens are dead: identify them again (same subscriber,
/// current token version) so later cells still hold live subscriber credentials, and forge
/// anew from Ann's new claims, so a forgery is refused for its own fault, not a stale version.
async fn refresh_subscriber_tokens(app: &TestApp, w: &mut World) {
    let (_, ann) = app.identify("ann@alpha.example").await;
    let (_, bob) = app.identify("bob@alpha.example").await;
    let (_, uma) = app.identify_with(&w.b_key, "uma@beta.example").await;
    let (expired, unsigned, wrong) = forgeries(app, &ann).await;
    w.set(Expired, expired);
    w.set(AlgNone, unsigned);
    w.set(WrongSecret, wrong);
    w.set(SubscriberA, ann);
    w.set(OtherSubscriberA, bob);
    w.set(SubscriberB, uma);
}

async fn every_operation_answers_every_credential_as_the_table_says(engine: Engine) {
    let Some((app, mut w, _receiver)) = seed(engine).await else {
        return;
    };
    let mut rows = BTreeSet::new();
    for (op, row) in MATRIX {
        assert!(rows.insert((*op).to_owned()), "{op} has two rows");
        assert_eq!(codes(row).len(), COLUMNS.len(), "{op}: one code per column");
    }
    assert_eq!(
        documented_operations(&app).await,
        rows,
        "every operation of /v1/openapi.json has exactly one row in MATRIX"
    );

    let mut mismatches = Vec::new();
    let mut cells = 0;
    for (op, row) in MATRIX {
        for (column, expected) in codes(row).into_iter().enumerate() {
            cells += 1;
            let body = body_for(&app, &w, op, cells).await;
            let token = w.tokens[column].clone();
            let refused = !"2nz".contains(expected);
            let events_before = if refused { app.events().await.len() } else { 0 };
            let (status, reply) = send(&app, op, token.as_deref(), &body).await;
            let wrong = !matches(expected, status, &reply);
            // A refused call changes nothing: team A's outbox (every change to feedback,
            // comments, votes and topics appends to it) stays as it was.
            let appended = if refused {
                app.events().await.len() - events_before
            } else {
                0
            };
            if appended > 0 {
                let column = COLUMN_NAMES[column];
                mismatches.push(format!(
                    "{op} | {column} | refused, yet appended {appended} event(s) to team A's outbox | {reply}"
                ));
            }
            // Team B must learn nothing of team A, whatever the status.
            if matches!(COLUMNS[column], KeyB | SubscriberB) {
                let text = reply.to_string();
                let mut forbidden = w.a_ids.clone();
                forbidden.extend(ids_in(&body));
                if let Some(leak) = forbidden.iter().find(|id| text.contains(id.as_str())) {
                    let column = COLUMN_NAMES[column];
                    mismatches.push(format!(
                        "{op} | {column} | leaks team A's id {leak} | {reply}"
                    ));
                }
            }
            if wrong {
                mismatches.push(format!(
                    "{op} | {} | expected {expected} | got {status} | {reply}",
                    COLUMN_NAMES[column]
                ));
            }
            if *op == "public/subscriber.logout" && status == 200 {
                refresh_subscriber_tokens(&app, &mut w).await;
            }
        }
    }
    assert_eq!(
        cells,
        MATRIX.len() * 12,
        "the matrix covers every operation × 12 credentials"
    );
    assert!(
        mismatches.is_empty(),
        "{} of {cells} cells differ from the matrix:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// `data` of `op` as a list of ids, asserting a 200.
async fn listed_ids(app: &TestApp, op: &str, token: &str, body: Value) -> Vec<String> {
    let (status, reply) = send(app, op, Some(token), &body).await;
    assert_eq!(status, 200, "{op}: {reply}");
    reply["data"]
        .as_array()
        .unwrap_or_else(|| panic!("{op}: data is not a list: {reply}"))
        .iter()
        .map(|item| item["id"].as_str().expect("an id").to_owned())
        .collect()
}

async fn team_b_lists_show_none_of_team_a(engine: Engine) {
    let Some((app, w, _receiver)) = seed(engine).await else {
        return;
    };
    let b_key = w.b_key.as_str();
    let b_token = w.token(SubscriberB).to_owned();
    // One of each listed thing in team B, so each list shows that it lists.
    let b_board = data(
        &app,
        "feedback-boards.create",
        b_key,
        json!({"name": "Beta"}),
    )
    .await;
    let body = json!({"title": "Beta item", "boardId": b_board["id"]});
    let b_feedback = data(&app, "feedbacks.create", b_key, body).await;
    let b_roadmap = data(&app, "roadmaps.create", b_key, json!({"name": "Beta"})).await;
    let body = json!({"roadmapId": b_roadmap["id"], "name": "Beta next"});
    let b_stage = data(&app, "stages.create", b_key, body).await;
    let body =
        json!({"title": "Beta topic", "roadmapId": b_roadmap["id"], "stageId": b_stage["id"]});
    let b_topic = data(&app, "public/topics.create", &b_token, body).await;
    let body = json!({"id": b_topic["id"], "text": "Beta comment"});
    let b_comment = data(&app, "public/topic-comments.create", &b_token, body).await;
    let b_tag = data(&app, "tags.create", b_key, json!({"name": "beta-tag"})).await;
    let body = json!({"title": "Beta help", "publish": true});
    let b_document = data(&app, "documents.create", b_key, body).await;
    let b_subscriber = claims_of(&b_token)["sub"].clone();

    let cases: Vec<(&str, &str, Value, &Value)> = vec![
        ("feedback-boards.list", b_key, json!({}), &b_board["id"]),
        (
            "public/feedback-boards.list",
            b_key,
            json!({}),
            &b_board["id"],
        ),
        (
            "public/feedback-boards.list",
            &b_token,
            json!({}),
            &b_board["id"],
        ),
        ("feedbacks.list", b_key, json!({}), &b_feedback["id"]),
        ("public/feedbacks.list", b_key, json!({}), &b_feedback["id"]),
        (
            "public/feedbacks.list",
            &b_token,
            json!({}),
            &b_feedback["id"],
        ),
        ("roadmaps.list", b_key, json!({}), &b_roadmap["id"]),
        (
            "public/stages.list",
            &b_token,
            json!({"roadmapId": b_roadmap["id"]}),
            &b_stage["id"],
        ),
        ("topics.list", b_key, json!({}), &b_topic["id"]),
        (
            "public/topic-comments.list",
            b_key,
            json!({}),
            &b_comment["id"],
        ),
        (
            "public/topic-comments.list",
            &b_token,
            json!({}),
            &b_comment["id"],
        ),
        ("topic-comments.list", b_key, json!({}), &b_comment["id"]),
        ("tags.list", b_key, json!({}), &b_tag["id"]),
        ("documents.list", b_key, json!({}), &b_document["id"]),
        ("public/documents.list", b_key, json!({}), &b_document["id"]),
        (
            "public/documents.list",
            &b_token,
            json!({}),
            &b_document["id"],
        ),
        ("subscribers.list", b_key, json!({}), &b_subscriber),
    ];
    for (op, token, body, own) in cases {
        let ids = listed_ids(&app, op, token, body).await;
        let own = own.as_str().expect("an id");
        assert!(
            ids.iter().any(|id| id == own),
            "{op} lists team B's {own}: {ids:?}"
        );
        let leaked: Vec<&String> = ids.iter().filter(|id| w.a_ids.contains(*id)).collect();
        assert!(leaked.is_empty(), "{op} lists team A's {leaked:?}");
    }
    // Lists of things team B has none of are empty, though team A has some.
    for op in ["automation.list", "automation.deliveries"] {
        assert_eq!(
            listed_ids(&app, op, b_key, json!({})).await,
            Vec::<String>::new(),
            "{op}"
        );
    }
    let users = listed_ids(&app, "users.list", b_key, json!({})).await;
    assert_eq!(users.len(), 1, "team B has only its owner: {users:?}");
    assert!(!w.a_ids.contains(&users[0]));
    // The team-wide counts see none of A's items either.
    let counted = data(&app, "feedbacks.count", b_key, json!({})).await;
    assert_eq!(counted["total"], 1, "{counted}");
}

async fn creator_only_operations_refuse_another_subscriber_and_change_nothing(engine: Engine) {
    let Some((app, w, _receiver)) = seed(engine).await else {
        return;
    };
    let ann = w.token(SubscriberA).to_owned();
    let bob = w.token(OtherSubscriberA).to_owned();
    let id = &w.ann_feedback["id"];
    let before = data(&app, "feedbacks.info", &app.key, json!({"id": id})).await;

    let body = json!({"feedbackId": id, "title": "Bob's title", "text": "Bob was here"});
    let (status, reply) = send(&app, "public/feedbacks.update", Some(&bob), &body).await;
    assert_eq!(
        (status, reply),
        (
            403,
            json!({"error": "You do not have permission to update this feedback", "statusCode": 403})
        )
    );
    let body = json!({"feedbackId": id});
    let (status, reply) = send(&app, "public/feedbacks.delete", Some(&bob), &body).await;
    assert_eq!(
        (status, reply),
        (
            403,
            json!({"error": "You do not have permission to delete this feedback", "statusCode": 403})
        )
    );
    let after = data(&app, "feedbacks.info", &app.key, json!({"id": id})).await;
    assert_eq!(after, before, "refused calls changed the item");
    assert_ne!(w.bob["id"], w.ann["id"]);

    // The creator may do both.
    let body = json!({"feedbackId": id, "title": "Ann's new title"});
    let updated = data(&app, "public/feedbacks.update", &ann, body).await;
    assert_eq!(updated["title"], "Ann's new title");
    let (status, reply) = send(
        &app,
        "public/feedbacks.delete",
        Some(&ann),
        &json!({"feedbackId": id}),
    )
    .await;
    assert_eq!(
        (status, reply),
        (200, json!({"success": true, "feedbackId": id}))
    );
    let (status, _) = send(&app, "feedbacks.info", Some(&app.key), &json!({"id": id})).await;
    assert_eq!(status, 404, "the creator's delete removed the item");
}

/// Every documented operation (the rows of [`MATRIX`], checked against /v1/openapi.json by
/// the first test), called by a credential its row allows with a body that would succeed plus
/// one unknown field in the body and one in the query string: 400 naming both, and nothing
/// changed (issue 18).
async fn every_operation_refuses_unknown_parameters_and_changes_nothing(engine: Engine) {
    let Some((app, w, _receiver)) = seed(engine).await else {
        return;
    };
    let mut failures = Vec::new();
    // Every operation the served document lists, so a new one is covered as soon as it is
    // documented (its row of the matrix says who may call it).
    for (n, op) in documented_operations(&app).await.iter().enumerate() {
        let op = op.as_str();
        let row = MATRIX
            .iter()
            .find(|(name, _)| *name == op)
            .map(|(_, row)| *row)
            .unwrap_or_else(|| panic!("{op} is documented but has no row in MATRIX"));
        let allowed = codes(row);
        let column = [OwnerA, SubscriberA]
            .into_iter()
            .find(|c| "2nz".contains(allowed[index(*c)]))
            .unwrap_or_else(|| panic!("{op}: no column of the matrix may call it"));
        let mut body = body_for(&app, &w, op, 5000 + n).await;
        body["zzUnknown"] = json!(true);
        let before = app.census().await;
        let response = app
            .client
            .post(format!("{}/v1/{op}?zzQuery=1", app.base))
            .bearer_auth(w.token(column))
            .json(&body)
            .send()
            .await
            .expect("request sent");
        let status = response.status().as_u16();
        let reply: Value = response.json().await.unwrap_or(Value::Null);
        let names: BTreeSet<&str> = reply["error"]
            .as_str()
            .and_then(|m| m.strip_prefix("Unknown parameter: "))
            .map(|names| names.split(", ").collect())
            .unwrap_or_default();
        if status != 400
            || reply["statusCode"] != 400
            || names != BTreeSet::from(["zzQuery", "zzUnknown"])
        {
            failures.push(format!("{op}: {status} {reply}"));
        } else if app.census().await != before {
            failures.push(format!(
                "{op}: refused, yet the team's lists or outbox changed"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} operations did not refuse unknown parameters:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
