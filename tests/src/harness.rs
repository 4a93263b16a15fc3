//! A running server per test: a fresh database (a SQLite file in a temp dir, or a new
//! PostgreSQL database), the real HTTP stack bound to 127.0.0.1:0, and the default team's
//! owner key from first start.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use sounding_app::{
    api_keys::{create_api_key, NewApiKey},
    teams::{create_team, NewTeam},
};
use sounding_domain::{
    access::Role, event::StoredEvent, ports::Clock, SubscriberId, TeamId, Timestamp, TopicId,
};
use sounding_server::{Config, Running};

use crate::client::{op_request, Reply, SECRET};

/// The e-mail of team `Default`'s owner, created on first start: a subscriber with this
/// address is a team member (decisions §5).
pub const OWNER_EMAIL: &str = "owner@default.invalid";

/// A clock tests move by hand (for windows such as the topic-visit throttle). It starts at
/// the real time, so tokens it stamps are valid for the real server too.
#[derive(Debug)]
pub struct ManualClock(Mutex<Timestamp>);

impl ManualClock {
    pub fn new() -> Arc<ManualClock> {
        Arc::new(ManualClock(Mutex::new(
            sounding_server::system_clock().now(),
        )))
    }

    /// Moves the clock `secs` seconds on.
    pub fn advance(&self, secs: i64) {
        let mut now = self.0.lock().expect("clock lock");
        *now = now.plus_seconds(secs);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.0.lock().expect("clock lock")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
    /// `memory://`: the in-memory store, nothing on disk.
    Memory,
}

pub struct TestApp {
    pub running: Running,
    pub base: String,
    pub client: reqwest::Client,
    /// The owner key of team `Default`, created on first start.
    pub key: String,
    pub team_id: String,
    pub database_url: String,
    pub engine: Engine,
    _dir: tempfile::TempDir,
}

impl TestApp {
    /// A server with generous rate limits; `None` when the engine is not available here.
    pub async fn spawn(engine: Engine) -> Option<TestApp> {
        Self::spawn_with(engine, |_| {}).await
    }

    pub async fn spawn_with(engine: Engine, adjust: impl FnOnce(&mut Config)) -> Option<TestApp> {
        Self::spawn_with_clock(engine, sounding_server::system_clock(), adjust).await
    }

    pub async fn spawn_with_clock(
        engine: Engine,
        clock: Arc<dyn Clock>,
        adjust: impl FnOnce(&mut Config),
    ) -> Option<TestApp> {
        let dir = tempfile::tempdir().expect("temp dir");
        let database_url = match engine {
            Engine::Sqlite => format!("sqlite://{}", dir.path().join("sounding.db").display()),
            Engine::Postgres => crate::pg::fresh_database(&crate::pg::require_postgres()?),
            Engine::Memory => sounding_server::MEMORY_URL.to_owned(),
        };
        let mut config = Config::new(database_url.clone());
        config.bind = "127.0.0.1:0".into();
        config.jwt_secret = Some(SECRET.parse().expect("valid secret"));
        config.rate_limit_key_per_min = 1_000_000;
        config.rate_limit_subscriber_per_min = 1_000_000;
        config.workers = Some(2);
        adjust(&mut config);
        let running = sounding_server::start(config, clock)
            .await
            .expect("server starts");
        let created = running
            .bootstrap
            .clone()
            .expect("first start creates the default team");
        Some(TestApp {
            base: running.base_url(),
            client: reqwest::Client::new(),
            key: created.secret.expose().to_owned(),
            team_id: created.team.id.to_string(),
            database_url,
            engine,
            running,
            _dir: dir,
        })
    }

    /// True (and says why on stderr) when this test cannot run on the in-memory engine: it
    /// reaches into the database, or needs it to outlive the process.
    pub fn skips_memory(&self, why: &str) -> bool {
        let skip = self.engine == Engine::Memory;
        if skip {
            eprintln!("skipped on memory://: {why}");
        }
        skip
    }

    /// POST `/v1/<op>` with a JSON body and an optional bearer token.
    pub async fn call(&self, op: &str, token: Option<&str>, body: Value) -> Reply {
        let request = op_request(&self.client, &self.base, op, token, &body);
        Reply::from_response(request.send().await.expect("request sent")).await
    }

    /// `op` with `key`, asserting a 200: `data`.
    pub async fn data_with(&self, key: &str, op: &str, body: Value) -> Value {
        self.call(op, Some(key), body).await.ok().clone()
    }

    /// The served OpenAPI document (`GET /v1/openapi.json`).
    pub async fn openapi(&self) -> Value {
        self.client
            .get(format!("{}/v1/openapi.json", self.base))
            .send()
            .await
            .expect("document fetched")
            .json()
            .await
            .expect("document is JSON")
    }

    /// The same with the default team's owner key.
    pub async fn team(&self, op: &str, body: Value) -> Reply {
        self.call(op, Some(&self.key), body).await
    }

    /// A second team with its own owner key: `(team id, key)`.
    pub async fn other_team(&self, subdomain: &str) -> (String, String) {
        let created = create_team(
            &*self.running.store,
            &*sounding_server::system_clock(),
            NewTeam {
                name: subdomain.into(),
                subdomain: subdomain.into(),
                owner_email: None,
            },
        )
        .await
        .expect("team created");
        (
            created.team.id.to_string(),
            created.secret.expose().to_owned(),
        )
    }

    /// Another key of the default team: `(key, key id)`.
    pub async fn key_with(&self, role: Role, read_only: bool) -> (String, String) {
        let created = create_api_key(
            &*self.running.store,
            &*self.running.store,
            &*sounding_server::system_clock(),
            NewApiKey {
                team: self.team_id.clone(),
                role,
                read_only,
                name: None,
            },
        )
        .await
        .expect("key created");
        (
            created.secret.expose().to_owned(),
            created.key.id.to_string(),
        )
    }

    /// Identifies a subscriber with `key`: `(subscriber object, token)`.
    pub async fn identify_with(&self, key: &str, email: &str) -> (Value, String) {
        let reply = self
            .call(
                "public/subscriber.identify",
                Some(key),
                json!({ "email": email }),
            )
            .await;
        let data = reply.ok().clone();
        let code = reply.body["code"].as_str().expect("code").to_owned();
        (data, code)
    }

    pub async fn identify(&self, email: &str) -> (Value, String) {
        self.identify_with(&self.key.clone(), email).await
    }

    /// The default team's outbox, oldest first.
    pub async fn events(&self) -> Vec<StoredEvent> {
        let team = TeamId::parse("teamId", &self.team_id).expect("team id");
        self.running.store.events(team).await.expect("outbox read")
    }

    /// The kinds of [`TestApp::events`], oldest first.
    pub async fn event_kinds(&self) -> Vec<String> {
        self.events().await.into_iter().map(|e| e.kind).collect()
    }

    /// The payloads of the default team's events of `kind`, oldest first.
    pub async fn events_of(&self, kind: &str) -> Vec<Value> {
        self.events()
            .await
            .into_iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.payload)
            .collect()
    }

    /// What the default team holds, counted through the team's lists and its outbox: equal
    /// before and after a refused request when that request changed nothing a list shows.
    pub async fn census(&self) -> Value {
        let mut census = serde_json::Map::new();
        let lists = [
            ("feedbacks.list", json!({"archived": true})),
            ("feedback-boards.list", json!({})),
            ("roadmaps.list", json!({})),
            ("topics.list", json!({})),
            ("documents.list", json!({})),
            ("tags.list", json!({})),
            ("subscribers.list", json!({})),
            ("users.list", json!({})),
            ("api-keys.list", json!({})),
            ("automation.list", json!({})),
        ];
        for (op, body) in lists {
            let reply = self.team(op, body).await;
            let data = reply.ok();
            let held = reply.body["pagination"]["total"]
                .as_i64()
                .unwrap_or_else(|| data.as_array().map_or(0, |items| items.len() as i64));
            // The newest item's `updatedAt` too, where there is one, so an edit shows.
            census.insert(op.to_owned(), json!([held, data[0]["updatedAt"]]));
        }
        census.insert("events".to_owned(), json!(self.events().await.len()));
        Value::Object(census)
    }

    /// Team `feedbacks.create` with the owner key, asserting a 200: the new item.
    pub async fn feedback(&self, body: Value) -> Value {
        self.team("feedbacks.create", body).await.ok().clone()
    }

    /// `public/feedbacks.create` as the subscriber of `token`, asserting a 200: the new item.
    pub async fn public_feedback(&self, token: &str, body: Value) -> Value {
        self.call("public/feedbacks.create", Some(token), body)
            .await
            .ok()
            .clone()
    }

    /// `feedback-boards.create` with the owner key, asserting a 200: the new board.
    pub async fn board(&self, body: Value) -> Value {
        self.team("feedback-boards.create", body).await.ok().clone()
    }

    /// `op` with the owner key, asserting a 200: `data`.
    pub async fn team_data(&self, op: &str, body: Value) -> Value {
        self.team(op, body).await.ok().clone()
    }

    /// `roadmaps.create` with the owner key, asserting a 200: the new roadmap.
    pub async fn roadmap(&self, name: &str) -> Value {
        self.team("roadmaps.create", json!({ "name": name }))
            .await
            .ok()
            .clone()
    }

    /// `stages.create` on `roadmap` with the owner key (`body` adds name, order, meta),
    /// asserting a 200: the new stage.
    pub async fn stage(&self, roadmap: &Value, mut body: Value) -> Value {
        body["roadmapId"] = roadmap["id"].clone();
        self.team("stages.create", body).await.ok().clone()
    }

    /// `public/topics.create` with `token` on `stage` (`body` adds title and the rest),
    /// asserting a 200: the new topic.
    pub async fn topic(&self, token: &str, stage: &Value, mut body: Value) -> Value {
        body["roadmapId"] = stage["roadmapId"].clone();
        body["stageId"] = stage["id"].clone();
        self.call("public/topics.create", Some(token), body)
            .await
            .ok()
            .clone()
    }

    /// The default team's subscriber `id` as stored: `(name, email)`.
    pub async fn stored_subscriber(&self, id: &Value) -> (String, Option<String>) {
        let team = TeamId::parse("teamId", &self.team_id).expect("team id");
        let id = SubscriberId::parse("id", id.as_str().expect("a subscriber id"))
            .expect("subscriber id");
        let found = self
            .running
            .store
            .subscriber(team, id)
            .await
            .expect("subscriber read")
            .expect("the subscriber exists");
        (found.name, found.email.map(|e| e.as_str().to_owned()))
    }

    /// The followers of the default team's topic `id`, by follow time.
    pub async fn topic_followers(&self, id: &Value) -> Vec<String> {
        let team = TeamId::parse("teamId", &self.team_id).expect("team id");
        let id = TopicId::parse("id", id.as_str().expect("a topic id")).expect("topic id");
        let followers = self.running.store.topic_followers(team, id).await;
        followers
            .expect("followers read")
            .into_iter()
            .map(|s| s.to_string())
            .collect()
    }
}
