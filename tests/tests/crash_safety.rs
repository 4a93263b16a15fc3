//! Crash safety (issue 7): the real binary under eight concurrent writers is killed with
//! SIGKILL at a random moment and restarted on the same database, ten rounds per engine. After
//! each restart every write that got a 2xx must be there with its outbox event, stored counts
//! must equal counted rows, nobody votes twice, and a SQLite file passes `integrity_check`.
//!
//! Writes in flight at the kill may or may not have landed; either is accepted, but whatever
//! landed must be whole (its row and its event together). One seed drives every choice (run
//! lengths, operations, targets); it is printed, and `SOUNDING_CRASH_SEED=<n>` replays it.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use diesel::{
    sql_types::{BigInt, Text},
    Connection, PgConnection, QueryableByName, RunQueryDsl, SqliteConnection,
};
use futures_util::future::join_all;
use rand::{rngs::StdRng, Rng as _, SeedableRng};
use serde_json::{json, Value};
use sounding_tests::{
    bin::{create_team_key, ServerProcess},
    client::op_request,
    pg::{fresh_database, require_postgres},
    receiver::ReservedPort,
    SECRET,
};

const ROUNDS: usize = 10;
const WRITERS: usize = 8;
/// Subscribers each writer gets at the first start. Only their writer votes or renames with
/// them, one request at a time, so the last acknowledged state of each is known.
const SUBSCRIBERS_PER_WRITER: usize = 3;
const SEED_FEEDBACK: usize = 4;
/// How long the writers run before the kill, in milliseconds.
const RUN_MS: (u64, u64) = (500, 3000);
/// Every event the writers cause, subscribed to a port nobody listens on: the delivery worker
/// fans each out and retries it, so its writes race the writers' too.
const SUBSCRIBED_EVENTS: [&str; 4] = [
    "new_feedback",
    "feedbacks.create",
    "new_feedback_vote",
    "feedback-comments.create",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_acknowledged_writes_survive_sigkill() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("crash.db");
    let url = format!("sqlite://{}", file.display());
    crash_rounds("sqlite", &url, Some(&file)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_acknowledged_writes_survive_sigkill() {
    let Some(admin) = require_postgres() else {
        return;
    };
    let url = fresh_database(&admin);
    crash_rounds("postgres", &url, None).await;
}

async fn crash_rounds(engine: &str, database_url: &str, sqlite_file: Option<&Path>) {
    let seed = std::env::var("SOUNDING_CRASH_SEED")
        .ok()
        .map(|s| s.parse::<u64>().expect("SOUNDING_CRASH_SEED is a number"))
        .unwrap_or_else(|| {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            now.as_nanos() as u64
        });
    eprintln!("crash safety on {engine}: seed {seed} (SOUNDING_CRASH_SEED={seed} replays it)");
    let mut rng = Rng::seeded(seed);
    let key = blocking({
        let url = database_url.to_owned();
        move || create_team_key(&url, "Crash", "crash")
    })
    .await;
    // Bound but never listening: every delivery attempt is refused and retried.
    let closed = ReservedPort::new();
    let mut server = start(database_url).await;
    let (mut ledger, mut writers, board) =
        seed_data(&server.base_url, &key, &closed.url(), &mut rng).await;

    for round in 1..=ROUNDS {
        let context = format!("{engine}, round {round}/{ROUNDS}, seed {seed}");
        let shared = Arc::new(Round {
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap(),
            base: server.base_url.clone(),
            key: key.clone(),
            board: board.clone(),
            killed: AtomicBool::new(false),
            feedback: Mutex::new(ledger.feedback.iter().map(|(id, _)| id.clone()).collect()),
        });
        let running: Vec<_> = writers
            .drain(..)
            .map(|writer| tokio::spawn(writer.run(shared.clone())))
            .collect();
        let run_for = rng.between_ms(RUN_MS);
        tokio::time::sleep(run_for).await;
        // Set before the kill, so a writer that loses its reply knows why.
        shared.killed.store(true, Ordering::SeqCst);
        let status = blocking(move || server.signal_and_wait("KILL")).await;
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9),
            "{context}: the server died of SIGKILL"
        );
        writers = join_all(running)
            .await
            .into_iter()
            .map(|joined| joined.expect("writer task"))
            .collect();
        let problems: Vec<String> = writers
            .iter_mut()
            .flat_map(|w| std::mem::take(&mut w.problems))
            .collect();
        assert!(
            problems.is_empty(),
            "{context}: writes refused before the kill: {problems:#?}"
        );
        let acknowledged_before = ledger.len();
        for writer in &mut writers {
            ledger.absorb(std::mem::take(&mut writer.acked));
        }
        let acknowledged = ledger.len() - acknowledged_before;

        if let Some(file) = sqlite_file {
            let file = file.to_owned();
            let verdict = blocking(move || integrity_check(&file)).await;
            assert_eq!(
                verdict,
                ["ok"],
                "{context}: PRAGMA integrity_check after the kill"
            );
        }

        server = start(database_url).await;
        let url = database_url.to_owned();
        let snapshot = blocking(move || Snapshot::read(&url)).await;
        let mut failures = verify(&snapshot, &ledger, &mut writers);
        failures.extend(api_agrees(&server.base_url, &key, &snapshot, &ledger, &mut rng).await);
        failures.extend(accepts_new_writes(&server.base_url, &key, &board, &mut writers[0]).await);
        ledger.absorb(std::mem::take(&mut writers[0].acked));
        assert!(
            failures.is_empty(),
            "{context}: {} failures after the restart (first 30): {:#?}",
            failures.len(),
            &failures[..failures.len().min(30)]
        );
        let in_flight = writers.iter().filter(|w| w.interrupted).count();
        eprintln!(
            "{context}: killed after {run_for:?}, {acknowledged} writes acknowledged, \
             {in_flight} in flight; {} feedback, {} votes, {} comments, {} events stored",
            snapshot.feedback.len(),
            snapshot.votes.len(),
            snapshot.comments.len(),
            snapshot.events.len()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The writers

/// What the writers of one round share: the server, and the feedback they may vote and
/// comment on (acknowledged items, growing as they create more).
struct Round {
    client: reqwest::Client,
    base: String,
    key: String,
    board: String,
    killed: AtomicBool,
    feedback: Mutex<Vec<String>>,
}

impl Round {
    fn pick_feedback(&self, rng: &mut Rng) -> String {
        let pool = self.feedback.lock().unwrap();
        pool[rng.below(pool.len())].clone()
    }
}

/// Writes acknowledged with a 2xx, which must all survive.
#[derive(Default)]
struct Acknowledged {
    /// Feedback ids, and whether through `public/feedbacks.create` (which also emits
    /// `feedbacks.create`).
    feedback: Vec<(String, bool)>,
    /// Comment ids with their feedback.
    comments: Vec<(String, String)>,
    /// Ids of votes cast; each emitted `new_feedback_vote`, even if retracted since.
    votes_cast: Vec<String>,
    /// New subscribers: id and e-mail.
    subscribers: Vec<(String, String)>,
    /// Everything else acknowledged (retractions, renames), for the round's tally.
    other: usize,
}

impl Acknowledged {
    fn absorb(&mut self, more: Acknowledged) {
        self.feedback.extend(more.feedback);
        self.comments.extend(more.comments);
        self.votes_cast.extend(more.votes_cast);
        self.subscribers.extend(more.subscribers);
        self.other += more.other;
    }

    fn len(&self) -> usize {
        self.feedback.len()
            + self.comments.len()
            + self.votes_cast.len()
            + self.subscribers.len()
            + self.other
    }
}

struct Subscriber {
    id: String,
    email: String,
    token: String,
    /// The name as last acknowledged.
    name: String,
    /// A rename in flight at the kill: it may or may not have landed.
    pending_name: Option<String>,
}

/// One of the eight writers. It keeps its state across rounds: its subscribers, and for each
/// (subscriber, feedback) it touched whether the vote is there as last acknowledged.
struct Writer {
    index: usize,
    rng: Rng,
    subscribers: Vec<Subscriber>,
    votes: BTreeMap<(String, String), bool>,
    /// The vote change in flight at the kill, if any: its pair is read back after the restart.
    uncertain_vote: Option<(String, String)>,
    /// Whether the round ended with a request in flight.
    interrupted: bool,
    serial: u64,
    acked: Acknowledged,
    problems: Vec<String>,
}

enum Outcome {
    Acked(Value),
    Refused,
    NoReply,
}

impl Writer {
    async fn run(mut self, round: Arc<Round>) -> Writer {
        self.interrupted = false;
        while !round.killed.load(Ordering::SeqCst) {
            let answered = match self.rng.below(20) {
                0..=2 => self.create_feedback(&round).await,
                3..=9 => self.toggle_vote(&round).await,
                10..=13 => self.comment(&round).await,
                14..=15 => self.identify_new(&round).await,
                _ => self.rename(&round).await,
            };
            if !answered {
                self.interrupted = true;
                break;
            }
        }
        self
    }

    fn next_serial(&mut self) -> u64 {
        self.serial += 1;
        self.serial
    }

    fn pick_subscriber(&mut self) -> usize {
        self.rng.below(self.subscribers.len())
    }

    async fn send(&mut self, round: &Round, op: &str, token: &str, body: Value) -> Outcome {
        match post(&round.client, &round.base, op, token, &body).await {
            Some((status, reply)) if (200..300).contains(&status) => Outcome::Acked(reply),
            Some((status, reply)) => {
                self.problems
                    .push(format!("{op} {body} answered {status}: {reply}"));
                Outcome::Refused
            }
            None => {
                if !round.killed.load(Ordering::SeqCst) {
                    self.problems
                        .push(format!("{op} {body} got no reply before the kill"));
                }
                Outcome::NoReply
            }
        }
    }

    /// Each operation returns whether it got a reply.
    async fn create_feedback(&mut self, round: &Round) -> bool {
        let who = self.pick_subscriber();
        let token = self.subscribers[who].token.clone();
        let serial = self.next_serial();
        let body = json!({
            "title": format!("Crash w{} #{serial}", self.index),
            "boardId": round.board,
        });
        match self
            .send(round, "public/feedbacks.create", &token, body)
            .await
        {
            Outcome::Acked(reply) => {
                let id = string(&reply["data"]["id"]);
                round.feedback.lock().unwrap().push(id.clone());
                self.acked.feedback.push((id, true));
                true
            }
            Outcome::Refused => true,
            Outcome::NoReply => false,
        }
    }

    async fn toggle_vote(&mut self, round: &Round) -> bool {
        let who = self.pick_subscriber();
        let feedback = round.pick_feedback(&mut self.rng);
        let token = self.subscribers[who].token.clone();
        let pair = (self.subscribers[who].id.clone(), feedback.clone());
        let voted = self.votes.get(&pair).copied().unwrap_or(false);
        let op = if voted {
            "public/feedback-votes.delete"
        } else {
            "public/feedback-votes.create"
        };
        match self
            .send(round, op, &token, json!({ "feedbackId": feedback }))
            .await
        {
            Outcome::Acked(reply) => {
                if !voted {
                    self.acked.votes_cast.push(string(&reply["data"]["id"]));
                } else {
                    self.acked.other += 1;
                }
                self.votes.insert(pair, !voted);
                true
            }
            Outcome::Refused => true,
            Outcome::NoReply => {
                self.uncertain_vote = Some(pair);
                false
            }
        }
    }

    async fn comment(&mut self, round: &Round) -> bool {
        let who = self.pick_subscriber();
        let token = self.subscribers[who].token.clone();
        let feedback = round.pick_feedback(&mut self.rng);
        let serial = self.next_serial();
        let body = json!({
            "feedbackId": feedback,
            "text": format!("Comment w{} #{serial}", self.index),
        });
        match self
            .send(round, "public/feedback-comments.create", &token, body)
            .await
        {
            Outcome::Acked(reply) => {
                self.acked
                    .comments
                    .push((string(&reply["data"]["id"]), feedback));
                true
            }
            Outcome::Refused => true,
            Outcome::NoReply => false,
        }
    }

    async fn identify_new(&mut self, round: &Round) -> bool {
        let serial = self.next_serial();
        let email = format!("w{}-{serial}@crash.test", self.index);
        let body = json!({ "email": email });
        match self
            .send(round, "public/subscriber.identify", &round.key, body)
            .await
        {
            Outcome::Acked(reply) => {
                if reply["isFirstSignin"] != json!(true) {
                    self.problems
                        .push(format!("a new e-mail was not a first sign-in: {reply}"));
                }
                let subscriber = Subscriber::from_identify(&reply, &email);
                self.acked.subscribers.push((subscriber.id.clone(), email));
                self.subscribers.push(subscriber);
                true
            }
            Outcome::Refused => true,
            Outcome::NoReply => false,
        }
    }

    async fn rename(&mut self, round: &Round) -> bool {
        let who = self.pick_subscriber();
        let serial = self.next_serial();
        let name = format!("Renamed w{} #{serial}", self.index);
        let (id, email) = (
            self.subscribers[who].id.clone(),
            self.subscribers[who].email.clone(),
        );
        let body = json!({ "email": email, "name": name });
        match self
            .send(round, "public/subscriber.identify", &round.key, body)
            .await
        {
            Outcome::Acked(reply) => {
                if reply["data"]["id"] != json!(id) || reply["isFirstSignin"] != json!(false) {
                    self.problems
                        .push(format!("identifying {email} again made another: {reply}"));
                }
                self.subscribers[who].name = name;
                self.acked.other += 1;
                true
            }
            Outcome::Refused => true,
            Outcome::NoReply => {
                self.subscribers[who].pending_name = Some(name);
                false
            }
        }
    }
}

impl Subscriber {
    fn from_identify(reply: &Value, email: &str) -> Subscriber {
        Subscriber {
            id: string(&reply["data"]["id"]),
            email: email.to_owned(),
            token: string(&reply["code"]),
            name: string(&reply["data"]["name"]),
            pending_name: None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Checks after each restart

/// Every failed expectation, described; empty when the round passed.
fn verify(s: &Snapshot, ledger: &Acknowledged, writers: &mut [Writer]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut fail = |what: String| failures.push(what);

    // Which (event, id) pairs the outbox holds, by the ids its payloads carry.
    let mut events = BTreeSet::new();
    for event in &s.events {
        for field in ["feedbackId", "commentId", "voteId"] {
            if let Some(id) = event.payload[field].as_str() {
                events.insert((event.kind.clone(), field, id.to_owned()));
            }
        }
    }
    let has = |kind: &str, field: &'static str, id: &str| {
        events.contains(&(kind.to_owned(), field, id.to_owned()))
    };

    // Every acknowledged write is there, with its event.
    for (id, public) in &ledger.feedback {
        if !s.feedback.contains_key(id) {
            fail(format!("acknowledged feedback {id} is missing"));
        }
        if !has("new_feedback", "feedbackId", id) {
            fail(format!(
                "acknowledged feedback {id} has no new_feedback event"
            ));
        }
        if *public && !has("feedbacks.create", "feedbackId", id) {
            fail(format!(
                "acknowledged feedback {id} has no feedbacks.create event"
            ));
        }
    }
    for (id, feedback) in &ledger.comments {
        if s.comments.get(id) != Some(feedback) {
            fail(format!(
                "acknowledged comment {id} on {feedback} is missing"
            ));
        }
        if !has("feedback-comments.create", "commentId", id) {
            fail(format!("acknowledged comment {id} has no event"));
        }
    }
    for id in &ledger.votes_cast {
        if !has("new_feedback_vote", "voteId", id) {
            fail(format!(
                "acknowledged vote {id} has no new_feedback_vote event"
            ));
        }
    }
    for (id, email) in &ledger.subscribers {
        if s.subscribers.get(id).map(|(e, _)| e) != Some(email) {
            fail(format!("acknowledged subscriber {id} <{email}> is missing"));
        }
    }

    // Whatever landed, acknowledged or in flight, landed whole: row and event together.
    for id in s.feedback.keys() {
        if !has("new_feedback", "feedbackId", id) {
            fail(format!(
                "feedback {id} is stored without its new_feedback event"
            ));
        }
    }
    for event in &s.events {
        let id = |field: &str| event.payload[field].as_str().unwrap_or_default().to_owned();
        let torn = match event.kind.as_str() {
            "new_feedback" | "feedbacks.create" => !s.feedback.contains_key(&id("feedbackId")),
            "feedback-comments.create" => !s.comments.contains_key(&id("commentId")),
            _ => false,
        };
        if torn {
            fail(format!(
                "{} event {} describes nothing stored",
                event.kind, event.id
            ));
        }
    }
    for id in s.comments.keys() {
        if !has("feedback-comments.create", "commentId", id) {
            fail(format!("comment {id} is stored without its event"));
        }
    }
    for (id, _, _) in &s.votes {
        if !has("new_feedback_vote", "voteId", id) {
            fail(format!("vote {id} is stored without its event"));
        }
    }

    // Counts equal rows; nobody votes twice; one subscriber per e-mail.
    for (id, counts) in &s.feedback {
        if counts.vote_count != counts.votes || counts.comment_count != counts.comments {
            fail(format!(
                "feedback {id}: stored {} votes and {} comments, rows {} and {}",
                counts.vote_count, counts.comment_count, counts.votes, counts.comments
            ));
        }
    }
    for (feedback, subscriber) in &s.duplicate_votes {
        fail(format!("{subscriber} voted twice on {feedback}"));
    }
    for email in &s.duplicate_emails {
        fail(format!("two subscribers have the e-mail {email}"));
    }

    // Each dispatched event of a subscribed kind has one delivery per subscription, written in
    // the same transaction that marked it dispatched.
    let mut deliveries: BTreeMap<&str, usize> = BTreeMap::new();
    for (event_id, _) in &s.deliveries {
        *deliveries.entry(event_id.as_str()).or_default() += 1;
    }
    for event in s.events.iter().filter(|e| e.dispatched) {
        let expected = s
            .webhooks
            .iter()
            .filter(|(_, kind)| *kind == event.kind)
            .count();
        let found = deliveries.get(event.id.as_str()).copied().unwrap_or(0);
        if found != expected {
            fail(format!(
                "dispatched {} event {} has {found} deliveries, expected {expected}",
                event.kind, event.id
            ));
        }
    }

    // The last acknowledged vote state and name of each writer's subscribers; a change in
    // flight at the kill may have landed or not, and what is stored becomes the new truth.
    let stored_votes: BTreeSet<(String, String)> = s
        .votes
        .iter()
        .map(|(_, feedback, subscriber)| (subscriber.clone(), feedback.clone()))
        .collect();
    for writer in writers.iter_mut() {
        let uncertain = writer.uncertain_vote.take();
        if let Some(pair) = &uncertain {
            // A first vote on the pair may have landed although the writer never saw it.
            writer.votes.entry(pair.clone()).or_insert(false);
        }
        for (pair, voted) in writer.votes.iter_mut() {
            let stored = stored_votes.contains(pair);
            if Some(pair) == uncertain.as_ref() {
                *voted = stored;
            } else if stored != *voted {
                fail(format!(
                    "the vote of {} on {} should be {}",
                    pair.0,
                    pair.1,
                    if *voted { "there" } else { "gone" }
                ));
            }
        }
        for subscriber in &mut writer.subscribers {
            let Some((_, stored)) = s.subscribers.get(&subscriber.id) else {
                fail(format!("subscriber {} is missing", subscriber.id));
                continue;
            };
            let pending = subscriber.pending_name.take();
            if *stored != subscriber.name && Some(stored) != pending.as_ref() {
                fail(format!(
                    "subscriber {} is named {stored:?}, acknowledged {:?}",
                    subscriber.id, subscriber.name
                ));
            }
            subscriber.name = stored.clone();
        }
    }
    failures
}

/// The restarted server reports the same counts the database holds, for a sample of the
/// acknowledged feedback.
async fn api_agrees(
    base: &str,
    key: &str,
    s: &Snapshot,
    ledger: &Acknowledged,
    rng: &mut Rng,
) -> Vec<String> {
    let mut failures = Vec::new();
    let client = reqwest::Client::new();
    for _ in 0..10 {
        let (id, _) = &ledger.feedback[rng.below(ledger.feedback.len())];
        let Some(counts) = s.feedback.get(id) else {
            continue; // already reported missing
        };
        let reply = post(&client, base, "feedbacks.info", key, &json!({ "id": id })).await;
        match reply {
            Some((200, body))
                if body["data"]["feedbackVotesCount"] == json!(counts.votes)
                    && body["data"]["feedbackCommentsCount"] == json!(counts.comments) => {}
            other => failures.push(format!(
                "feedbacks.info {id} answered {other:?}; the database counts {} votes, {} comments",
                counts.votes, counts.comments
            )),
        }
    }
    failures
}

/// After the restart the server takes writes again: a new item, a vote and a comment on it by
/// `writer`'s first subscriber, read back with the counts they make.
async fn accepts_new_writes(
    base: &str,
    key: &str,
    board: &str,
    writer: &mut Writer,
) -> Vec<String> {
    let client = reqwest::Client::new();
    let token = writer.subscribers[0].token.clone();
    let subscriber = writer.subscribers[0].id.clone();
    let title = format!("After the restart #{}", writer.next_serial());
    let mut failures = Vec::new();
    let body = json!({ "title": title, "boardId": board });
    let Some((200, created)) = post(&client, base, "public/feedbacks.create", &token, &body).await
    else {
        return vec!["the restarted server refused a new feedback".into()];
    };
    let id = string(&created["data"]["id"]);
    writer.acked.feedback.push((id.clone(), true));
    let body = json!({ "feedbackId": id });
    match post(&client, base, "public/feedback-votes.create", &token, &body).await {
        Some((200, vote)) => {
            writer.acked.votes_cast.push(string(&vote["data"]["id"]));
            writer.votes.insert((subscriber, id.clone()), true);
        }
        other => failures.push(format!("the restarted server refused a vote: {other:?}")),
    }
    let body = json!({ "feedbackId": id, "text": "Still here" });
    match post(
        &client,
        base,
        "public/feedback-comments.create",
        &token,
        &body,
    )
    .await
    {
        Some((200, comment)) => writer
            .acked
            .comments
            .push((string(&comment["data"]["id"]), id.clone())),
        other => failures.push(format!("the restarted server refused a comment: {other:?}")),
    }
    match post(&client, base, "feedbacks.info", key, &json!({ "id": id })).await {
        Some((200, info))
            if info["data"]["title"] == json!(title)
                && info["data"]["feedbackVotesCount"] == json!(1)
                && info["data"]["feedbackCommentsCount"] == json!(1) => {}
        other => failures.push(format!("the new item does not read back: {other:?}")),
    }
    failures
}

// ---------------------------------------------------------------------------------------------
// The database, read directly

enum Db {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

macro_rules! load {
    ($db:expr, $row:ty, $sql:expr) => {
        match $db {
            Db::Sqlite(conn) => diesel::sql_query($sql).load::<$row>(conn),
            Db::Postgres(conn) => diesel::sql_query($sql).load::<$row>(conn),
        }
        .unwrap_or_else(|e| panic!("{}: {e}", $sql))
    };
}

impl Db {
    fn open(database_url: &str) -> Db {
        match database_url.strip_prefix("sqlite://") {
            Some(path) => Db::Sqlite(SqliteConnection::establish(path).expect("open SQLite")),
            None => Db::Postgres(PgConnection::establish(database_url).expect("open PostgreSQL")),
        }
    }
}

#[derive(QueryableByName)]
struct Two {
    #[diesel(sql_type = Text)]
    a: String,
    #[diesel(sql_type = Text)]
    b: String,
}

#[derive(QueryableByName)]
struct Three {
    #[diesel(sql_type = Text)]
    a: String,
    #[diesel(sql_type = Text)]
    b: String,
    #[diesel(sql_type = Text)]
    c: String,
}

#[derive(QueryableByName)]
struct CountsRow {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = BigInt)]
    vote_count: i64,
    #[diesel(sql_type = BigInt)]
    votes: i64,
    #[diesel(sql_type = BigInt)]
    comment_count: i64,
    #[diesel(sql_type = BigInt)]
    comments: i64,
}

#[derive(QueryableByName)]
struct EventRow {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    event: String,
    #[diesel(sql_type = Text)]
    payload: String,
    #[diesel(sql_type = BigInt)]
    dispatched: i64,
}

/// A feedback row's stored counts next to the rows counted.
struct Counts {
    vote_count: i64,
    votes: i64,
    comment_count: i64,
    comments: i64,
}

struct StoredEvent {
    id: String,
    kind: String,
    payload: Value,
    dispatched: bool,
}

/// What the database holds after a restart, read with plain SQL rather than the server.
struct Snapshot {
    feedback: BTreeMap<String, Counts>,
    /// (id, feedback, subscriber).
    votes: Vec<(String, String, String)>,
    /// id → feedback.
    comments: BTreeMap<String, String>,
    /// id → (e-mail, name).
    subscribers: BTreeMap<String, (String, String)>,
    events: Vec<StoredEvent>,
    /// (event id, subscription id).
    deliveries: Vec<(String, String)>,
    /// (id, event).
    webhooks: Vec<(String, String)>,
    duplicate_votes: Vec<(String, String)>,
    duplicate_emails: Vec<String>,
}

impl Snapshot {
    fn read(database_url: &str) -> Snapshot {
        let mut db = Db::open(database_url);
        let db = &mut db;
        let feedback = load!(
            db,
            CountsRow,
            // A missing vote count row reads -1: never equal to the votes.
            "SELECT f.id, COALESCE(n.vote_count, -1) AS vote_count, f.comment_count, \
               (SELECT COUNT(*) FROM feedback_votes v WHERE v.feedback_id = f.id) AS votes, \
               (SELECT COUNT(*) FROM feedback_comments c WHERE c.feedback_id = f.id) AS comments \
             FROM feedback f LEFT JOIN feedback_vote_counts n ON n.id = f.id"
        )
        .into_iter()
        .map(|r| {
            let counts = Counts {
                vote_count: r.vote_count,
                votes: r.votes,
                comment_count: r.comment_count,
                comments: r.comments,
            };
            (r.id, counts)
        })
        .collect();
        let votes = load!(
            db,
            Three,
            "SELECT id AS a, feedback_id AS b, subscriber_id AS c FROM feedback_votes"
        )
        .into_iter()
        .map(|r| (r.a, r.b, r.c))
        .collect();
        let comments = load!(
            db,
            Two,
            "SELECT id AS a, feedback_id AS b FROM feedback_comments"
        )
        .into_iter()
        .map(|r| (r.a, r.b))
        .collect();
        let subscribers = load!(
            db,
            Three,
            "SELECT id AS a, COALESCE(email, '') AS b, name AS c FROM subscribers \
             WHERE deleted_at IS NULL"
        )
        .into_iter()
        .map(|r| (r.a, (r.b, r.c)))
        .collect();
        let events = load!(
            db,
            EventRow,
            "SELECT id, event, payload, \
               CAST(CASE WHEN dispatched_at IS NULL THEN 0 ELSE 1 END AS BIGINT) AS dispatched \
             FROM outbox_events"
        )
        .into_iter()
        .map(|r| StoredEvent {
            payload: serde_json::from_str(&r.payload).expect("event payload is JSON"),
            id: r.id,
            kind: r.event,
            dispatched: r.dispatched == 1,
        })
        .collect();
        let deliveries = load!(
            db,
            Two,
            "SELECT event_id AS a, webhook_id AS b FROM webhook_deliveries"
        )
        .into_iter()
        .map(|r| (r.a, r.b))
        .collect();
        let webhooks = load!(db, Two, "SELECT id AS a, event AS b FROM webhooks")
            .into_iter()
            .map(|r| (r.a, r.b))
            .collect();
        let duplicate_votes = load!(
            db,
            Two,
            "SELECT feedback_id AS a, subscriber_id AS b FROM feedback_votes \
             GROUP BY feedback_id, subscriber_id HAVING COUNT(*) > 1"
        )
        .into_iter()
        .map(|r| (r.a, r.b))
        .collect();
        let duplicate_emails = load!(
            db,
            Two,
            "SELECT team_id AS a, email AS b FROM subscribers \
             WHERE deleted_at IS NULL AND email IS NOT NULL \
             GROUP BY team_id, email HAVING COUNT(*) > 1"
        )
        .into_iter()
        .map(|r| r.b)
        .collect();
        Snapshot {
            feedback,
            votes,
            comments,
            subscribers,
            events,
            deliveries,
            webhooks,
            duplicate_votes,
            duplicate_emails,
        }
    }
}

/// `PRAGMA integrity_check` of the file as the kill left it: `["ok"]` when sound.
fn integrity_check(file: &Path) -> Vec<String> {
    #[derive(QueryableByName)]
    struct Verdict {
        #[diesel(sql_type = Text)]
        integrity_check: String,
    }
    let mut conn =
        SqliteConnection::establish(&file.display().to_string()).expect("open the SQLite file");
    diesel::sql_query("PRAGMA integrity_check")
        .load::<Verdict>(&mut conn)
        .expect("PRAGMA integrity_check")
        .into_iter()
        .map(|v| v.integrity_check)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Set-up and small helpers

async fn start(database_url: &str) -> ServerProcess {
    let url = database_url.to_owned();
    blocking(move || {
        let env = [
            ("SOUNDING_JWT_SECRET", SECRET),
            ("SOUNDING_WORKERS", "2"),
            ("SOUNDING_RATE_LIMIT_KEY_PER_MIN", "1000000"),
            ("SOUNDING_RATE_LIMIT_SUBSCRIBER_PER_MIN", "1000000"),
            ("SOUNDING_WEBHOOK_ALLOW_PRIVATE", "true"),
            // Refused attempts are retried within milliseconds, so the worker keeps writing.
            ("SOUNDING_WEBHOOK_RETRY_SCALE", "0.001"),
            ("SOUNDING_WEBHOOK_POLL_MS", "100"),
            ("SOUNDING_WEBHOOK_TIMEOUT_MS", "1000"),
            ("SOUNDING_LOG", "warn,sounding_server=info"),
        ];
        ServerProcess::start(&url, &env)
    })
    .await
}

/// First start: the webhook subscriptions, a board, a few items and each writer's
/// subscribers, all acknowledged writes the rounds then check.
async fn seed_data(
    base: &str,
    key: &str,
    closed_url: &str,
    rng: &mut Rng,
) -> (Acknowledged, Vec<Writer>, String) {
    let client = reqwest::Client::new();
    let ok = |op: &'static str, reply: Option<(u16, Value)>| match reply {
        Some((200, body)) => body,
        other => panic!("seeding: {op} answered {other:?}"),
    };
    for event in SUBSCRIBED_EVENTS {
        let body = json!({ "target_url": closed_url, "event": event });
        ok(
            "automation.subscribe",
            post(&client, base, "automation.subscribe", key, &body).await,
        );
    }
    let body = json!({ "name": "Crash board" });
    let board = ok(
        "feedback-boards.create",
        post(&client, base, "feedback-boards.create", key, &body).await,
    );
    let board = string(&board["data"]["id"]);
    let mut ledger = Acknowledged::default();
    for i in 0..SEED_FEEDBACK {
        let body = json!({ "title": format!("Seed {i}"), "boardId": board });
        let created = ok(
            "feedbacks.create",
            post(&client, base, "feedbacks.create", key, &body).await,
        );
        ledger
            .feedback
            .push((string(&created["data"]["id"]), false));
    }
    let mut writers = Vec::new();
    for index in 0..WRITERS {
        let mut subscribers = Vec::new();
        for n in 0..SUBSCRIBERS_PER_WRITER {
            let email = format!("seed-w{index}-{n}@crash.test");
            let body = json!({ "email": email });
            let reply = ok(
                "public/subscriber.identify",
                post(&client, base, "public/subscriber.identify", key, &body).await,
            );
            let subscriber = Subscriber::from_identify(&reply, &email);
            ledger.subscribers.push((subscriber.id.clone(), email));
            subscribers.push(subscriber);
        }
        writers.push(Writer {
            index,
            rng: Rng::seeded(rng.0.gen()),
            subscribers,
            votes: BTreeMap::new(),
            uncertain_vote: None,
            interrupted: false,
            serial: 0,
            acked: Acknowledged::default(),
            problems: Vec::new(),
        });
    }
    (ledger, writers, board)
}

/// A reply as `(status, body)`, or `None` when none came whole (the server died first).
async fn post(
    client: &reqwest::Client,
    base: &str,
    op: &str,
    token: &str,
    body: &Value,
) -> Option<(u16, Value)> {
    let response = op_request(client, base, op, Some(token), body)
        .send()
        .await
        .ok()?;
    let status = response.status().as_u16();
    let bytes = response.bytes().await.ok()?;
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    Some((status, body))
}

fn string(value: &Value) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
        .to_owned()
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.expect("blocking task")
}

/// A seeded generator: a run's operations and kill times are reproducible from its seed.
struct Rng(StdRng);

impl Rng {
    fn seeded(seed: u64) -> Self {
        Rng(StdRng::seed_from_u64(seed))
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.gen_range(0..n)
    }

    fn between_ms(&mut self, (low, high): (u64, u64)) -> Duration {
        Duration::from_millis(self.0.gen_range(low..=high))
    }
}
