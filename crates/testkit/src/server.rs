//! The server: started through `sounding_server::start` with a test-friendly configuration.

use std::{fmt, time::Duration};

use anyhow::Context as _;
use serde_json::{json, Value};
use sounding_server::{Config, Running};

use crate::receiver::WebhookReceiver;

/// A running Sounding API on 127.0.0.1 (a free port), with team `Default` and its owner key.
///
/// Dropping it stops the server (requests in flight are cut off); [`TestServer::stop`] lets
/// them finish first. It runs on the tokio runtime it was started on, so it lives at most as
/// long as that runtime (a `#[tokio::test]`'s).
pub struct TestServer {
    running: Option<Running>,
    /// The runtime the server runs on, where a drop stops it.
    runtime: tokio::runtime::Handle,
    base_url: String,
    owner_key: String,
    team_id: String,
    client: reqwest::Client,
    /// The SQLite file's folder, removed once the server has stopped
    /// (`TestServerBuilder::sqlite`).
    dir: Option<tempfile::TempDir>,
}

/// A change to the configuration before the start ([`TestServerBuilder::configure`]).
type Adjust = Box<dyn FnOnce(&mut Config) + Send>;

/// How to start a [`TestServer`]: `TestServer::builder().sqlite().start().await`.
#[derive(Default)]
pub struct TestServerBuilder {
    sqlite: bool,
    adjustments: Vec<Adjust>,
}

impl TestServerBuilder {
    /// Keep the data in a SQLite file in a temporary folder (removed on drop) instead of in
    /// memory: the embedded default's behaviour, a file and its transactions included.
    pub fn sqlite(mut self) -> Self {
        self.sqlite = true;
        self
    }

    /// Changes the configuration before the start (e.g. the rate limits). The testkit's
    /// defaults: 127.0.0.1 on a free port, two workers, rate limits of a million a minute,
    /// webhooks to local addresses allowed and retried within milliseconds. Several calls
    /// apply in turn.
    pub fn configure(mut self, adjust: impl FnOnce(&mut Config) + Send + 'static) -> Self {
        self.adjustments.push(Box::new(adjust));
        self
    }

    /// Starts the server; returns once it accepts connections.
    pub async fn start(self) -> anyhow::Result<TestServer> {
        let dir = if self.sqlite {
            Some(tempfile::tempdir().context("cannot make a temporary folder")?)
        } else {
            None
        };
        let database_url = match &dir {
            Some(dir) => format!("sqlite://{}", dir.path().join("sounding.db").display()),
            None => sounding_server::MEMORY_URL.to_owned(),
        };
        let mut config = Config::new(database_url);
        config.bind = "127.0.0.1:0".into();
        config.workers = Some(2);
        config.rate_limit_key_per_min = 1_000_000;
        config.rate_limit_subscriber_per_min = 1_000_000;
        config.webhooks.enabled = true;
        config.webhooks.allow_private = true;
        config.webhooks.retry_scale = 0.001;
        config.webhooks.poll_interval = Duration::from_millis(100);
        for adjust in self.adjustments {
            adjust(&mut config);
        }
        let running = sounding_server::start(config, sounding_server::system_clock()).await?;
        let created = running
            .bootstrap
            .clone()
            .context("the server did not create team Default (was the database empty?)")?;
        Ok(TestServer {
            base_url: running.base_url(),
            owner_key: created.secret.expose().to_owned(),
            team_id: created.team.id.to_string(),
            client: reqwest::Client::new(),
            running: Some(running),
            runtime: tokio::runtime::Handle::current(),
            dir,
        })
    }
}

/// A subscriber identified through `public/subscriber.identify`.
#[derive(Debug, Clone)]
pub struct Subscriber {
    /// The subscriber's id.
    pub id: String,
    /// Their token (the `code` of the reply): the bearer token of their public operations.
    pub token: String,
    /// The subscriber as the API returned it.
    pub data: Value,
}

/// An operation's error reply: its status and its `{"error", "statusCode"}` body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// The JSON body.
    pub body: Value,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the API answered {}: {}", self.status, self.body)
    }
}

impl std::error::Error for ApiError {}

impl TestServer {
    /// A server in memory with the testkit's defaults (see [`TestServerBuilder::configure`]).
    pub async fn start() -> anyhow::Result<TestServer> {
        Self::builder().start().await
    }

    /// A builder, to keep the data in SQLite or change the configuration.
    pub fn builder() -> TestServerBuilder {
        TestServerBuilder::default()
    }

    /// `http://127.0.0.1:<port>`; operations are under `/v1/`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Team `Default`'s owner key (role owner, read and write).
    pub fn owner_key(&self) -> &str {
        &self.owner_key
    }

    /// Team `Default`'s id.
    pub fn team_id(&self) -> &str {
        &self.team_id
    }

    /// `POST /v1/<op>` with `body` and `token` as the bearer token: the whole JSON reply on
    /// a 2xx, an [`ApiError`] (inside the `anyhow::Error`) otherwise.
    pub async fn call(&self, op: &str, token: &str, body: Value) -> anyhow::Result<Value> {
        let response = self
            .client
            .post(format!("{}/v1/{op}", self.base_url))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .with_context(|| format!("cannot send {op}"))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .with_context(|| format!("cannot read the reply to {op}"))?;
        let body = serde_json::from_slice::<Value>(&bytes);
        match (status.is_success(), body) {
            (true, Ok(body)) => Ok(body),
            (true, Err(e)) => Err(anyhow::anyhow!("{op} answered {status} without JSON: {e}")),
            // An error without a JSON body (a proxy's, say) keeps its status and text.
            (false, body) => Err(ApiError {
                status: status.as_u16(),
                body: body
                    .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into())),
            }
            .into()),
        }
    }

    /// [`TestServer::call`] with the owner key.
    pub async fn call_as_owner(&self, op: &str, body: Value) -> anyhow::Result<Value> {
        self.call(op, &self.owner_key, body).await
    }

    /// Identifies a subscriber by e-mail (creating them on first use), as a team's back end
    /// does when a user opens its widget.
    pub async fn identify(&self, email: &str) -> anyhow::Result<Subscriber> {
        let reply = self
            .call_as_owner("public/subscriber.identify", json!({ "email": email }))
            .await?;
        let field = |value: &Value, name: &str| {
            value
                .as_str()
                .map(str::to_owned)
                .with_context(|| format!("identify answered no {name}: {reply}"))
        };
        Ok(Subscriber {
            id: field(&reply["data"]["id"], "data.id")?,
            token: field(&reply["code"], "code")?,
            data: reply["data"].clone(),
        })
    }

    /// Creates a public feedback board that takes public submissions; returns its id.
    pub async fn create_board(&self, name: &str) -> anyhow::Result<String> {
        let reply = self
            .call_as_owner("feedback-boards.create", json!({ "name": name }))
            .await?;
        reply["data"]["id"]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("feedback-boards.create answered no id: {reply}"))
    }

    /// Starts a webhook receiver on 127.0.0.1 and subscribes it to `event` (e.g.
    /// `new_feedback`, `new_feedback_vote`); it keeps the deliveries whose signatures verify with the
    /// subscription's secret.
    pub async fn webhook_receiver(&self, event: &str) -> anyhow::Result<WebhookReceiver> {
        let mut receiver = WebhookReceiver::start().await?;
        let reply = self
            .call_as_owner(
                "automation.subscribe",
                json!({ "target_url": receiver.url(), "event": event }),
            )
            .await?;
        let secret = reply["data"]["secret"]
            .as_str()
            .with_context(|| format!("automation.subscribe answered no secret: {reply}"))?;
        receiver.verify_with(secret)?;
        Ok(receiver)
    }

    /// Stops accepting connections, lets requests in flight finish, and waits for the end.
    pub async fn stop(mut self) {
        if let Some(running) = self.running.take() {
            running.stop().await;
        }
        self.dir.take();
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(running) = self.running.take() {
            // On the runtime it runs on (a drop may happen outside any), and the SQLite folder
            // goes only once the server no longer uses it. If that runtime has ended, so has
            // the server.
            let dir = self.dir.take();
            self.runtime.spawn(async move {
                running.stop_now().await;
                drop(dir);
            });
        }
    }
}
