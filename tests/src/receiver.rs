//! A webhook receiver for tests: a tiny HTTP/1.1 server on 127.0.0.1 that records every
//! request it is sent (headers, body, time), answers as a script says, and watches for the
//! same `webhook-id` arriving twice at the same moment. Plus the webhook helpers the
//! `automation.*` tests share: a fast worker configuration, subscribing, reading deliveries,
//! and checking a signature with the independent `standardwebhooks` crate.

use std::{
    collections::HashMap,
    convert::Infallible,
    future::Future,
    net::SocketAddr,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{header::HeaderMap, service::service_fn, Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use sounding_server::Config;
use tokio::{
    net::{TcpListener, TcpSocket},
    task::AbortHandle,
};

use crate::{Reply, TestApp};

/// How long a delivery may take to arrive.
pub const WITHIN: Duration = Duration::from_secs(15);
/// How long to keep listening for duplicates once everything expected arrived.
pub const QUIET: Duration = Duration::from_millis(800);

/// What the receiver answers one request with.
#[derive(Debug, Clone)]
pub enum Answer {
    /// This status with an empty body.
    Status(u16),
    /// This status with these headers (e.g. `location`, `retry-after`).
    With(u16, Vec<(&'static str, String)>),
    /// This status after holding the request for a while.
    After(Duration, u16),
    /// Never answers; the connection stays open until the sender gives up.
    Hang,
}

/// Decides the answer from the request's 0-based position among all requests this receiver
/// got, and the request itself.
pub type Script = Arc<dyn Fn(usize, &Hook) -> Answer + Send + Sync>;

/// One request as received.
#[derive(Debug, Clone)]
pub struct Hook {
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
    /// When its body had arrived.
    pub at: Instant,
}

impl Hook {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("no {name} header in {:?}", self.headers))
    }

    /// `webhook-id`.
    pub fn id(&self) -> &str {
        self.header("webhook-id")
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "webhook body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The body's `event`.
    pub fn event(&self) -> String {
        self.json()["event"]
            .as_str()
            .expect("an event name")
            .to_owned()
    }

    /// Checks the signature with `secret` using the `standardwebhooks` crate (also checks the
    /// timestamp is within five minutes of now).
    pub fn verify(&self, secret: &str) {
        let verifier = standardwebhooks::Webhook::new(secret)
            .unwrap_or_else(|e| panic!("{secret:?} is not a Standard Webhooks key: {e:?}"));
        verifier
            .verify(&self.body, &self.headers)
            .unwrap_or_else(|e| {
                panic!(
                    "signature does not verify ({e:?}); headers {:?}, body {}",
                    self.headers,
                    String::from_utf8_lossy(&self.body)
                )
            });
    }
}

#[derive(Default)]
struct State {
    hooks: Mutex<Vec<Hook>>,
    /// Requests seen so far (also those still reading their body or hanging).
    arrived: AtomicUsize,
    /// `webhook-id`s being answered right now, with how many requests carry each.
    in_flight: Mutex<HashMap<String, usize>>,
    /// Requests that arrived while another request with their `webhook-id` was in flight.
    overlapping: AtomicUsize,
    connections: Mutex<Vec<AbortHandle>>,
}

/// Counts a request as in flight until it is answered or its connection goes away.
struct InFlight {
    state: Arc<State>,
    id: String,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut map = self.state.in_flight.lock().unwrap();
        if let Some(n) = map.get_mut(&self.id) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.id);
            }
        }
    }
}

pub struct Receiver {
    pub addr: SocketAddr,
    state: Arc<State>,
    accept: AbortHandle,
}

impl Receiver {
    /// A receiver on a free port answering as `script` says.
    pub async fn start(script: impl Fn(usize, &Hook) -> Answer + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind receiver");
        Self::serve(listener, Arc::new(script))
    }

    /// A receiver that answers 200 to everything.
    pub async fn ok() -> Self {
        Self::start(|_, _| Answer::Status(200)).await
    }

    /// A receiver answering `answers` in turn, then 200.
    pub async fn answering(answers: Vec<Answer>) -> Self {
        Self::start(move |n, _| answers.get(n).cloned().unwrap_or(Answer::Status(200))).await
    }

    /// Starts listening on a reserved port.
    pub fn on(
        port: ReservedPort,
        script: impl Fn(usize, &Hook) -> Answer + Send + Sync + 'static,
    ) -> Self {
        let listener = port
            .socket
            .listen(1024)
            .expect("listen on the reserved port");
        Self::serve(listener, Arc::new(script))
    }

    fn serve(listener: TcpListener, script: Script) -> Self {
        let addr = listener.local_addr().expect("receiver address");
        let state = Arc::new(State::default());
        let shared = state.clone();
        let accept = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (state, script) = (shared.clone(), script.clone());
                let service =
                    service_fn(move |request| handle(request, state.clone(), script.clone()));
                let connection = tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
                let mut connections = shared.connections.lock().unwrap();
                connections.retain(|c| !c.is_finished());
                connections.push(connection.abort_handle());
            }
        });
        Self {
            addr,
            state,
            accept: accept.abort_handle(),
        }
    }

    /// `http://127.0.0.1:<port>/hook`.
    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    /// Every request received so far (whole bodies only), in arrival order.
    pub fn hooks(&self) -> Vec<Hook> {
        self.state.hooks.lock().unwrap().clone()
    }

    pub fn count(&self) -> usize {
        self.state.hooks.lock().unwrap().len()
    }

    /// Requests that came in (even those whose body never finished).
    pub fn arrived(&self) -> usize {
        self.state.arrived.load(Ordering::SeqCst)
    }

    /// Requests that arrived while one with the same `webhook-id` was still in flight.
    pub fn overlapping(&self) -> usize {
        self.state.overlapping.load(Ordering::SeqCst)
    }

    /// Waits until `done` holds for the hooks received, at most `within`; the hooks then.
    /// Panics with what arrived when the deadline passes.
    pub async fn wait_until(&self, within: Duration, done: impl Fn(&[Hook]) -> bool) -> Vec<Hook> {
        let deadline = Instant::now() + within;
        loop {
            let hooks = self.hooks();
            if done(&hooks) {
                return hooks;
            }
            if Instant::now() >= deadline {
                let summary: Vec<(String, String)> = hooks
                    .iter()
                    .map(|h| {
                        (
                            h.id().to_owned(),
                            String::from_utf8_lossy(&h.body).into_owned(),
                        )
                    })
                    .collect();
                panic!(
                    "the receiver did not get what was expected within {within:?}; it got {} requests: {summary:#?}",
                    hooks.len()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits for at least `n` requests.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<Hook> {
        self.wait_until(within, |hooks| hooks.len() >= n).await
    }

    /// Waits `period` and asserts nothing more arrived meanwhile than `expected` requests in
    /// all (duplicates and stray deliveries show up here).
    pub async fn assert_quiet(&self, expected: usize, period: Duration) {
        tokio::time::sleep(period).await;
        let hooks = self.hooks();
        assert_eq!(
            hooks.len(),
            expected,
            "more requests than expected arrived: {:#?}",
            hooks
                .iter()
                .map(|h| String::from_utf8_lossy(&h.body).into_owned())
                .collect::<Vec<_>>()
        );
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.accept.abort();
        for connection in self.state.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}

async fn handle(
    request: Request<hyper::body::Incoming>,
    state: Arc<State>,
    script: Script,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let n = state.arrived.fetch_add(1, Ordering::SeqCst);
    let id = request
        .headers()
        .get("webhook-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let _in_flight = {
        let mut map = state.in_flight.lock().unwrap();
        let count = map.entry(id.clone()).or_insert(0);
        if *count > 0 {
            state.overlapping.fetch_add(1, Ordering::SeqCst);
        }
        *count += 1;
        InFlight {
            state: state.clone(),
            id,
        }
    };
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return Ok(Response::new(Full::new(Bytes::new()))),
    };
    let hook = Hook {
        // A server reads the origin form: the path and query alone.
        path: parts.uri.to_string(),
        headers: parts.headers,
        body,
        at: Instant::now(),
    };
    let answer = script(n, &hook);
    state.hooks.lock().unwrap().push(hook);
    let (status, headers) = match answer {
        Answer::Status(status) => (status, Vec::new()),
        Answer::With(status, headers) => (status, headers),
        Answer::After(pause, status) => {
            tokio::time::sleep(pause).await;
            (status, Vec::new())
        }
        Answer::Hang => std::future::pending().await,
    };
    let mut builder = Response::builder().status(status);
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    Ok(builder.body(Full::new(Bytes::new())).expect("a response"))
}

/// A port on 127.0.0.1 bound but not listening: connections to it are refused until
/// [`Receiver::on`] starts listening on it, so no other process can take it meanwhile.
pub struct ReservedPort {
    socket: TcpSocket,
    pub addr: SocketAddr,
}

impl ReservedPort {
    pub fn new() -> Self {
        let socket = TcpSocket::new_v4().expect("a socket");
        socket.set_reuseaddr(true).expect("SO_REUSEADDR");
        socket
            .bind("127.0.0.1:0".parse().unwrap())
            .expect("bind a free port");
        let addr = socket.local_addr().expect("the bound address");
        Self { socket, addr }
    }

    /// `http://127.0.0.1:<port>/hook`, as [`Receiver::url`] will be.
    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }
}

impl Default for ReservedPort {
    fn default() -> Self {
        Self::new()
    }
}

/// Every event name, in the order the error message lists them.
pub const EVENTS: [&str; 11] = [
    "new_feedback",
    "new_feedback_vote",
    "feedback_status_change",
    "feedbacks.create",
    "feedbacks.update",
    "feedbacks.delete",
    "feedback-comments.create",
    "topics.create",
    "topics.update",
    "topic-comments.create",
    "topic-votes.create",
];

/// A worker for tests: private targets allowed, retries a thousand times sooner, polling
/// every 100 ms.
pub fn fast_webhooks(config: &mut Config) {
    config.webhooks.enabled = true;
    config.webhooks.allow_private = true;
    config.webhooks.retry_scale = 0.001;
    config.webhooks.poll_interval = Duration::from_millis(100);
}

/// Polls `probe` every 50 ms until it returns `Some`, at most `within`; panics with `what`
/// and the last value seen otherwise.
pub async fn eventually<T, F, Fut>(what: &str, within: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let deadline = Instant::now() + within;
    loop {
        match probe().await {
            Ok(found) => return found,
            Err(last) if Instant::now() >= deadline => {
                panic!("{what}: not within {within:?}; last seen: {last}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

impl TestApp {
    /// `automation.subscribe {target_url, event}` with the owner key, asserting a 200: the
    /// subscription with its secret.
    pub async fn subscribe(&self, target_url: &str, event: &str) -> Value {
        let body = json!({ "target_url": target_url, "event": event });
        self.team("automation.subscribe", body).await.ok().clone()
    }

    /// `automation.deliveries` with the owner key.
    pub async fn deliveries(&self, body: Value) -> Reply {
        self.team("automation.deliveries", body).await
    }

    /// Waits until every delivery of the team (up to 100) passes `done`, and there are
    /// `count` of them; the deliveries then, newest first.
    pub async fn wait_deliveries(
        &self,
        count: usize,
        within: Duration,
        done: impl Fn(&Value) -> bool,
    ) -> Vec<Value> {
        let done = &done;
        eventually("deliveries settle", within, || async move {
            let reply = self.deliveries(json!({ "limit": 100 })).await;
            let list = reply.ok().as_array().expect("a list").clone();
            if list.len() == count && list.iter().all(&done) {
                Ok(list)
            } else {
                Err(Value::Array(list).to_string())
            }
        })
        .await
    }
}

impl TestApp {
    /// A server on `engine` whose webhook worker is set up by [`fast_webhooks`].
    pub async fn spawn_webhooks(engine: crate::Engine) -> Option<TestApp> {
        TestApp::spawn_with(engine, fast_webhooks).await
    }
}

/// Generates one `#[tokio::test]` per engine for each named `async fn(Engine)`, for tests that
/// start their own server (with their own configuration). A PostgreSQL test without a
/// configured server returns at once from its spawn, loudly (see `pg::require_postgres`).
#[macro_export]
macro_rules! engine_cases {
    ($($name:ident),* $(,)?) => {
        $crate::engine_cases!(@on sqlite Sqlite $($name)*);
        $crate::engine_cases!(@on postgres Postgres $($name)*);
        $crate::engine_cases!(@on memory Memory $($name)*);
    };
    (@on $module:ident $engine:ident $($name:ident)*) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    super::$name($crate::Engine::$engine).await;
                }
            )*
        }
    };
}
