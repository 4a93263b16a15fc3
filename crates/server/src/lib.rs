//! The server: wires the adapters around the use cases (store, clock, token codec, HTTP) and
//! starts them. The `sounding` binary (`cli`) and the black-box tests both start it through
//! `start`, so tests run exactly what production runs.

pub mod cli;
pub mod clock;
pub mod config;
mod monitoring;
pub mod retention;
mod storage;
mod telemetry;
pub mod webhook_worker;

use std::{io, net::SocketAddr, sync::Arc, time::Duration};

use actix_web::dev::ServerHandle;
use anyhow::{anyhow, Context as _};
use monitoring::MetricsEndpoint;
use rand::{distributions::Alphanumeric, rngs::OsRng, Rng as _};
use retention::RetentionTask;
use sounding_app::teams::{bootstrap_default_team, CreatedTeam};
use sounding_domain::{
    ports::{Clock, Store},
    webhook::TargetPolicy,
};
use sounding_http_actix::{
    http_server, ApiState, BrowserOrigins, HttpOptions, JwtCodec, RateLimits, Traffic,
};
use sounding_store_diesel::backup::ServingLock;
use sounding_webhooks::{ReqwestSender, SenderOptions, SystemHostResolver};
use tokio::{sync::Notify, task::JoinHandle};
use webhook_worker::WebhookWorker;

pub use clock::SystemClock;
pub use config::{Config, ConfigError, Flags, JwtSecret, LogFormat, WebhookConfig};
use storage::Storage;
pub(crate) use storage::{connect, open_store};
pub use storage::{is_memory, MEMORY_URL};

/// The settings row that keeps a generated JWT secret, shared by every instance.
pub const JWT_SECRET_SETTING: &str = "jwt_secret";
/// Length of a generated JWT secret (alphanumeric, so about 380 bits).
const GENERATED_SECRET_LEN: usize = 64;
/// How long in-flight requests may run on after a stop request.
pub const SHUTDOWN_TIMEOUT_SECS: u64 = 30;
/// How long a stop waits for the webhook attempts under way (their own timeout is 10 s).
const WORKER_STOP_GRACE: Duration = Duration::from_secs(15);

/// A started server. Dropping it leaves the server running until the runtime ends; call
/// `stop` to shut it down gracefully.
pub struct Running {
    pub addr: SocketAddr,
    /// Team `Default` and its owner key, when this start created them (first start only).
    pub bootstrap: Option<CreatedTeam>,
    /// The store the server runs on (a database, or memory).
    pub store: Arc<dyn Store>,
    /// Where Prometheus metrics are served, when they are (`SOUNDING_METRICS_BIND`).
    pub metrics_addr: Option<SocketAddr>,
    handle: ServerHandle,
    traffic: Traffic,
    metrics: Option<MetricsEndpoint>,
    join: JoinHandle<io::Result<()>>,
    worker: Option<WebhookWorker>,
    retention: RetentionTask,
    /// Keeps `sounding restore` from replacing a SQLite file under this server.
    _serving: ServingLock,
}

impl Running {
    /// Answers what clients already sent (draining first, `Traffic::stop`), stops accepting
    /// connections, lets in-flight requests finish, and waits for the end.
    pub async fn stop(self) {
        self.stop_and_wait(true).await;
    }

    /// Stops at once: open connections are closed without waiting for the requests on them
    /// (the webhook worker still finishes its attempts under way).
    pub async fn stop_now(self) {
        self.stop_and_wait(false).await;
    }

    async fn stop_and_wait(self, graceful: bool) {
        if graceful {
            self.stopper().stop().await;
        } else {
            self.handle.stop(false).await;
        }
        if let Err(e) = self.wait().await {
            tracing::warn!("server ended with an error: {e:#}");
        }
    }

    /// `http://<addr>`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub(crate) fn stopper(&self) -> Stopper {
        Stopper {
            handle: self.handle.clone(),
            traffic: self.traffic.clone(),
        }
    }

    /// Resolves when the server has shut down (after a signal or `stop`), then stops the
    /// webhook worker, letting the attempts under way finish.
    pub(crate) async fn wait(self) -> anyhow::Result<()> {
        let served = match self.join.await {
            Ok(result) => result.context("the HTTP server failed"),
            Err(e) => Err(anyhow!("the HTTP server task failed: {e}")),
        };
        if let Some(metrics) = self.metrics {
            metrics.stop().await;
        }
        if let Some(worker) = self.worker {
            worker.stop(WORKER_STOP_GRACE).await;
        }
        self.retention.stop(WORKER_STOP_GRACE).await;
        served
    }
}

/// Stops a running server gracefully from elsewhere (the signal handler).
#[derive(Clone)]
pub(crate) struct Stopper {
    handle: ServerHandle,
    traffic: Traffic,
}

impl Stopper {
    /// Drains, then stops accepting and waits for the requests in flight (`Traffic::stop`).
    pub(crate) async fn stop(&self) {
        self.traffic.stop(&self.handle).await;
    }
}

/// The real clock.
pub fn system_clock() -> Arc<dyn Clock> {
    Arc::new(SystemClock)
}

/// Connects, migrates, resolves the JWT secret, creates the default team on first start,
/// binds `config.bind` (port 0 picks a free port) and spawns the HTTP server on the current
/// tokio runtime. Returns once the server accepts connections.
pub async fn start(config: Config, clock: Arc<dyn Clock>) -> anyhow::Result<Running> {
    // Wakes this instance's webhook worker after each commit that wrote outbox events, so
    // they go out at once rather than at the next poll.
    let outbox_signal = Arc::new(Notify::new());
    // Before the database is opened: a restore in progress is waited out by nobody.
    let serving = ServingLock::take(&config.database_url)?;
    let storage = Storage::open(&config.database_url, config.read_cache_mb * 1024 * 1024, {
        let signal = outbox_signal.clone();
        Arc::new(move || signal.notify_one())
    })
    .await?;
    let store = storage.store();

    let secret = match &config.jwt_secret {
        Some(secret) => secret.expose().to_owned(),
        // Kept in the database so tokens survive restarts and every instance signs alike.
        None => store
            .get_or_init_setting(JWT_SECRET_SETTING, &generate_secret())
            .await
            .context("cannot load the JWT secret from the database")?,
    };
    let tokens = JwtCodec::new(secret.as_bytes())
        .map_err(|e| anyhow!("the JWT secret cannot be used: {e}"))?;

    // Bound before the default team is created: a start that cannot listen must not
    // consume the one showing of the owner key.
    let listener = std::net::TcpListener::bind(&config.bind)
        .with_context(|| format!("cannot listen on {}", config.bind))?;
    let addr = listener.local_addr()?;
    let metrics = config
        .metrics_bind
        .as_deref()
        .map(|bind| MetricsEndpoint::start(bind, storage.clone()))
        .transpose()?;

    let bootstrap = bootstrap_default_team(&*store, &*clock)
        .await
        .context("cannot create the default team")?;

    let state = ApiState {
        store: store.clone(),
        clock: clock.clone(),
        tokens: Arc::new(tokens),
        limits: RateLimits {
            per_key_per_minute: config.rate_limit_key_per_min,
            per_subscriber_per_minute: config.rate_limit_subscriber_per_min,
        },
        webhook_policy: TargetPolicy {
            allow_private: config.webhooks.allow_private,
        },
        host_resolver: Arc::new(SystemHostResolver::default()),
        outbox_signal: outbox_signal.clone(),
        browser_origins: BrowserOrigins::new(config.cors_origins.clone()),
    };
    let options = HttpOptions {
        workers: config.workers,
        shutdown_timeout_secs: SHUTDOWN_TIMEOUT_SECS,
        client_request_timeout: config.request_head_timeout,
        request_body_timeout: config.request_body_timeout,
        // The store's queries run on the blocking pool, at most one per pooled connection.
        max_blocking_threads: storage.max_connections(),
        metrics: metrics.is_some(),
        request_scope: storage.request_scope(),
        ..HttpOptions::default()
    };
    let traffic = Traffic::default();
    let server = http_server(listener, state, options, traffic.clone())
        .context("cannot start the HTTP server")?;
    let handle = server.handle();
    let join = tokio::spawn(server);
    tracing::info!("listening on http://{addr}");

    // Every instance prunes finished history, delivering or not (`retention.rs`).
    let retention = RetentionTask::spawn(store.clone(), clock.clone(), config.event_retention);

    let worker = if config.webhooks.enabled {
        let sender_options = SenderOptions {
            policy: TargetPolicy {
                allow_private: config.webhooks.allow_private,
            },
            timeout: config.webhooks.timeout,
            connect_timeout: config.webhooks.timeout.min(Duration::from_secs(5)),
            max_in_flight_per_target: config.webhooks.max_in_flight,
        };
        let per_target = sender_options.max_in_flight_per_target;
        let sender = ReqwestSender::new(sender_options)
            .map_err(|e| anyhow!("cannot build the webhook sender: {e}"))?;
        if config.webhooks.allow_private {
            tracing::warn!(
                "webhook targets may be http and private addresses (SOUNDING_WEBHOOK_ALLOW_PRIVATE); \
                 never allow this where teams you do not trust can subscribe"
            );
        }
        // A pass takes a connection for its fan-out, its lease and each attempt's record (up
        // to `per_target` at once), and one loop's fan-out or lease may run beside the other's
        // records: its own pool keeps it from queueing behind the requests.
        let worker_connections =
            u32::try_from(per_target.saturating_add(WebhookWorker::LOOPS)).unwrap_or(u32::MAX);
        let worker_store = storage.for_worker(worker_connections).await?;
        Some(WebhookWorker::spawn(
            worker_store,
            Arc::new(sender),
            clock,
            outbox_signal,
            &config.webhooks,
        ))
    } else {
        tracing::info!("webhook delivery is off on this instance (SOUNDING_WEBHOOKS=off)");
        None
    };

    Ok(Running {
        addr,
        bootstrap,
        store,
        metrics_addr: metrics.as_ref().map(|m| m.addr),
        handle,
        traffic,
        metrics,
        join,
        worker,
        retention,
        _serving: serving,
    })
}

/// 64 alphanumeric characters from the operating system's CSPRNG.
fn generate_secret() -> String {
    OsRng
        .sample_iter(&Alphanumeric)
        .take(GENERATED_SECRET_LEN)
        .map(char::from)
        .collect()
}

/// The URL with any password (in the user info or a `password=` parameter) replaced by
/// `***`, for messages and logs.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{host}"),
            None => authority.to_owned(),
        },
        None => authority.to_owned(),
    };
    let path = match path.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _)) if key.eq_ignore_ascii_case("password") => {
                        format!("{key}=***")
                    }
                    _ => pair.to_owned(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => path.to_owned(),
    };
    format!("{scheme}://{authority}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    fn sqlite_config(dir: &tempfile::TempDir) -> Config {
        let mut config = Config::new(format!(
            "sqlite://{}",
            dir.path().join("server.db").display()
        ));
        config.bind = "127.0.0.1:0".into();
        config.workers = Some(1);
        config
    }

    /// One HTTP/1.1 request on a connection that stays open (keep-alive) afterwards.
    async fn get_keep_alive(addr: SocketAddr, path: &str) -> (tokio::net::TcpStream, String) {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut buf = vec![0; 4096];
        let n = stream.read(&mut buf).await.unwrap();
        (stream, String::from_utf8_lossy(&buf[..n]).into_owned())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn first_start_bootstraps_once_and_the_generated_secret_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let first = start(sqlite_config(&dir), system_clock()).await.unwrap();
        assert_ne!(first.addr.port(), 0, "port 0 is replaced by the bound port");
        assert_eq!(first.base_url(), format!("http://{}", first.addr));
        let created = first
            .bootstrap
            .clone()
            .expect("first start creates team Default");
        assert_eq!(created.team.subdomain, "default");
        let secret = first
            .store
            .get_or_init_setting(JWT_SECRET_SETTING, "not this one")
            .await
            .unwrap();
        assert_eq!(secret.len(), GENERATED_SECRET_LEN);

        let (_open, response) = get_keep_alive(first.addr, "/healthz").await;
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        let stopping = Instant::now();
        first.stop().await;
        assert!(
            stopping.elapsed() < Duration::from_secs(10),
            "an idle keep-alive connection held the stop for {:?}",
            stopping.elapsed()
        );

        let second = start(sqlite_config(&dir), system_clock()).await.unwrap();
        assert!(second.bootstrap.is_none(), "later starts create nothing");
        let again = second
            .store
            .get_or_init_setting(JWT_SECRET_SETTING, "not this one")
            .await
            .unwrap();
        assert_eq!(again, secret, "the generated secret survives a restart");
        second.stop().await;
    }

    /// Reads until the server closes the connection (or 5 s pass: then the test fails).
    async fn read_to_close(stream: &mut tokio::net::TcpStream) -> String {
        let mut all = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut all));
        assert!(
            read.await.is_ok(),
            "the server kept a slow client's connection open"
        );
        String::from_utf8_lossy(&all).into_owned()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn slow_clients_are_cut_off_with_408_and_the_connection_closed() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = sqlite_config(&dir);
        // actix measures the head's deadline from a clock it refreshes every 500 ms, so a
        // shorter timeout could fire at once.
        config.request_head_timeout = Duration::from_millis(1500);
        config.request_body_timeout = Duration::from_millis(500);
        let running = start(config, system_clock()).await.unwrap();
        let key = running
            .bootstrap
            .as_ref()
            .unwrap()
            .secret
            .expose()
            .to_owned();

        // A head that never ends.
        let mut stream = tokio::net::TcpStream::connect(running.addr).await.unwrap();
        let started = Instant::now();
        stream
            .write_all(b"POST /v1/teams.info HTTP/1.1\r\nHost: test\r\n")
            .await
            .unwrap();
        let reply = read_to_close(&mut stream).await;
        assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
        assert!(started.elapsed() >= Duration::from_millis(1000));

        // A body that stops after 10 of its 100 bytes.
        let mut stream = tokio::net::TcpStream::connect(running.addr).await.unwrap();
        let head = format!(
            "POST /v1/teams.info HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"a\": \"12"
        );
        let started = Instant::now();
        stream.write_all(head.as_bytes()).await.unwrap();
        let reply = read_to_close(&mut stream).await;
        assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
        assert!(
            reply.ends_with(
                r#"{"error":"Request body was not received within 500 ms","statusCode":408}"#
            ),
            "{reply}"
        );
        assert!(started.elapsed() >= Duration::from_millis(500));

        // The server still serves others.
        let (_open, response) = get_keep_alive(running.addr, "/healthz").await;
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        running.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_configured_secret_is_used_and_never_written_to_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = sqlite_config(&dir);
        config.jwt_secret = Some("c".repeat(32).parse().unwrap());
        let running = start(config, system_clock()).await.unwrap();
        let stored = running
            .store
            .get_or_init_setting(JWT_SECRET_SETTING, "probe")
            .await
            .unwrap();
        assert_eq!(stored, "probe");
        running.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_address_in_use_is_a_clear_error_and_creates_no_team() {
        let dir = tempfile::tempdir().unwrap();
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut config = sqlite_config(&dir);
        config.bind = taken.local_addr().unwrap().to_string();
        let err = start(config.clone(), system_clock())
            .await
            .err()
            .expect("bind fails");
        assert!(
            format!("{err:#}")
                .starts_with(&format!("cannot listen on {}", taken.local_addr().unwrap())),
            "{err:#}"
        );
        // The failed start did not use up the first start's key.
        config.bind = "127.0.0.1:0".into();
        let running = start(config, system_clock()).await.unwrap();
        assert!(running.bootstrap.is_some());
        running.stop().await;
    }

    #[test]
    fn generated_secrets_are_long_alphanumeric_and_fresh() {
        let a = generate_secret();
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_ne!(a, generate_secret());
        assert!(a.parse::<JwtSecret>().is_ok());
    }

    #[test]
    fn passwords_are_redacted_from_database_urls() {
        assert_eq!(
            redact_url("postgres://app:s3cr%40t@db:5432/sounding"),
            "postgres://app:***@db:5432/sounding"
        );
        assert_eq!(
            redact_url("postgres://app@db/sounding"),
            "postgres://app@db/sounding"
        );
        assert_eq!(
            redact_url("sqlite:///var/lib/sounding.db"),
            "sqlite:///var/lib/sounding.db"
        );
        assert_eq!(
            redact_url("postgres://app@db/s?sslmode=require&password=x"),
            "postgres://app@db/s?sslmode=require&password=***"
        );
    }
}
