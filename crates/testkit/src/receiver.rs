//! A webhook receiver: a small HTTP/1.1 server on 127.0.0.1 that checks each request's
//! Standard Webhooks signature (with the independent `standardwebhooks` crate) and keeps the
//! deliveries that verify. A request that does not verify is answered 401 and counted.

use std::{
    convert::Infallible,
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use anyhow::{anyhow, Context as _};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{service::service_fn, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::{net::TcpListener, sync::watch, task::AbortHandle};

/// One verified delivery.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// The `webhook-id` header: the same for every attempt of one delivery.
    pub id: String,
    /// The body's `event` (e.g. `new_feedback`).
    pub event: String,
    /// The whole JSON body.
    pub body: Value,
}

#[derive(Default)]
struct Received {
    verified: Vec<Delivery>,
    rejected: usize,
}

/// How long a request that arrives before the subscription's secret is known waits for it.
const SECRET_WAIT: Duration = Duration::from_secs(5);

struct Shared {
    received: Mutex<Received>,
    /// Set once the subscription's secret is known: a delivery may arrive between the
    /// subscription and then, and waits for it rather than being refused.
    verifier: watch::Receiver<Option<Arc<standardwebhooks::Webhook>>>,
    /// Every open connection, closed when the receiver is dropped.
    connections: Mutex<Vec<AbortHandle>>,
}

/// Collects the deliveries of one subscription ([`crate::TestServer::webhook_receiver`]).
/// Stops listening, and closes its connections, when dropped.
#[must_use = "a dropped receiver collects nothing"]
pub struct WebhookReceiver {
    addr: SocketAddr,
    shared: Arc<Shared>,
    secret: watch::Sender<Option<Arc<standardwebhooks::Webhook>>>,
    accept: AbortHandle,
}

impl WebhookReceiver {
    pub(crate) async fn start() -> anyhow::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .context("cannot bind the webhook receiver")?;
        let addr = listener.local_addr()?;
        let (secret, verifier) = watch::channel(None);
        let shared = Arc::new(Shared {
            received: Mutex::new(Received::default()),
            verifier,
            connections: Mutex::new(Vec::new()),
        });
        let serving = shared.clone();
        let accept = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let shared = serving.clone();
                let service = service_fn(move |request| receive(request, shared.clone()));
                let connection = tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
                let mut connections = lock(&serving.connections);
                connections.retain(|c| !c.is_finished());
                connections.push(connection.abort_handle());
            }
        });
        Ok(Self {
            addr,
            shared,
            secret,
            accept: accept.abort_handle(),
        })
    }

    /// Verifies every later request with the subscription's `secret` (`whsec_…`).
    pub(crate) fn verify_with(&mut self, secret: &str) -> anyhow::Result<()> {
        let verifier = standardwebhooks::Webhook::new(secret)
            .map_err(|e| anyhow!("the subscription's secret is not a webhook key: {e:?}"))?;
        self.secret.send_replace(Some(Arc::new(verifier)));
        Ok(())
    }

    /// `http://127.0.0.1:<port>/hook`.
    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    /// The verified deliveries so far, in arrival order (a retried delivery appears once per
    /// attempt that arrived).
    pub fn deliveries(&self) -> Vec<Delivery> {
        lock(&self.shared.received).verified.clone()
    }

    /// How many requests failed verification (answered 401).
    pub fn rejected(&self) -> usize {
        lock(&self.shared.received).rejected
    }

    /// Waits until at least `count` verified deliveries arrived, at most `within`; returns
    /// them all, or an error saying what arrived.
    pub async fn wait_for(&self, count: usize, within: Duration) -> anyhow::Result<Vec<Delivery>> {
        let deadline = Instant::now() + within;
        loop {
            let deliveries = self.deliveries();
            if deliveries.len() >= count {
                return Ok(deliveries);
            }
            if Instant::now() >= deadline {
                return Err(anyhow!(
                    "{} of {count} deliveries arrived within {within:?} ({} rejected)",
                    deliveries.len(),
                    self.rejected()
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for WebhookReceiver {
    fn drop(&mut self) {
        self.accept.abort();
        for connection in lock(&self.shared.connections).drain(..) {
            connection.abort();
        }
    }
}

/// A poisoned lock still holds whole values: each is replaced or pushed to in one step.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

async fn receive(
    request: Request<hyper::body::Incoming>,
    shared: Arc<Shared>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return Ok(answer(StatusCode::BAD_REQUEST)),
    };
    let mut secret = shared.verifier.clone();
    let verifier = tokio::time::timeout(SECRET_WAIT, secret.wait_for(Option::is_some))
        .await
        .ok()
        .and_then(Result::ok)
        .and_then(|known| known.clone());
    let verified = verifier.is_some_and(|verifier| verifier.verify(&body, &parts.headers).is_ok());
    let delivery = serde_json::from_slice::<Value>(&body)
        .ok()
        .filter(|_| verified)
        .map(|body| Delivery {
            id: parts
                .headers
                .get("webhook-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned(),
            event: body["event"].as_str().unwrap_or_default().to_owned(),
            body,
        });
    let mut received = lock(&shared.received);
    Ok(match delivery {
        Some(delivery) => {
            received.verified.push(delivery);
            answer(StatusCode::NO_CONTENT)
        }
        None => {
            received.rejected += 1;
            answer(StatusCode::UNAUTHORIZED)
        }
    })
}

fn answer(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}
