//! A tiny webhook receiver on 127.0.0.1 that records what it is sent and answers as scripted.

use std::{
    convert::Infallible,
    net::{IpAddr, SocketAddr},
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full, StreamBody};
use hyper::{body::Frame, header::HeaderMap, service::service_fn, Request, Response};
use hyper_util::rt::TokioIo;
use sounding_domain::webhook::{new_secret, TargetPolicy, WebhookRequest};
use sounding_webhooks::{Addrs, Name, Resolve, Resolving, SenderOptions};
use tokio::net::TcpListener;

/// What the receiver answers.
#[derive(Clone)]
pub enum Script {
    /// This status with these headers and an empty body.
    Status(u16, Vec<(&'static str, String)>),
    /// 200 after holding the request this long.
    Hold(Duration),
    /// 200 with a body that never ends.
    Endless,
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

#[derive(Default)]
pub struct State {
    pub requests: Mutex<Vec<Recorded>>,
    pub connections: AtomicUsize,
    pub in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
}

pub struct Receiver {
    pub addr: SocketAddr,
    pub state: Arc<State>,
}

impl Receiver {
    pub async fn start(script: Script) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State::default());
        let shared = state.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                shared.connections.fetch_add(1, Ordering::SeqCst);
                let (state, script) = (shared.clone(), script.clone());
                let service =
                    service_fn(move |request| handle(request, state.clone(), script.clone()));
                tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self { addr, state }
    }

    pub fn url(&self, scheme: &str) -> String {
        format!("{scheme}://{}/hook?token=receiver-secret", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.requests.lock().unwrap().clone()
    }

    pub fn connections(&self) -> usize {
        self.state.connections.load(Ordering::SeqCst)
    }
}

async fn handle(
    request: Request<hyper::body::Incoming>,
    state: Arc<State>,
    script: Script,
) -> Result<Response<BoxBody<Bytes, Infallible>>, hyper::Error> {
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let (parts, body) = request.into_parts();
    let body = body.collect().await?.to_bytes();
    state.requests.lock().unwrap().push(Recorded {
        method: parts.method.to_string(),
        // A server reads the origin form: the path and query alone.
        path: parts.uri.to_string(),
        headers: parts.headers,
        body,
    });
    let response = match script {
        Script::Status(status, headers) => {
            let mut builder = Response::builder().status(status);
            for (name, value) in headers {
                builder = builder.header(name, value);
            }
            builder.body(empty()).unwrap()
        }
        Script::Hold(pause) => {
            tokio::time::sleep(pause).await;
            Response::new(empty())
        }
        Script::Endless => {
            static CHUNK: [u8; 64 * 1024] = [b'x'; 64 * 1024];
            let frames = futures_util::stream::repeat_with(|| {
                Ok::<_, Infallible>(Frame::data(Bytes::from_static(&CHUNK)))
            });
            Response::new(StreamBody::new(frames).boxed())
        }
    };
    state.in_flight.fetch_sub(1, Ordering::SeqCst);
    Ok(response)
}

fn empty() -> BoxBody<Bytes, Infallible> {
    Full::new(Bytes::new()).boxed()
}

/// A listener that accepts connections and never answers; it holds them open until dropped.
pub async fn hung_receiver() -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    (addr, task)
}

/// A port on 127.0.0.1 where nothing listens (bound, then released).
pub async fn closed_port() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap()
}

/// Maps names to fixed addresses; anything else fails to resolve.
pub struct StubResolver(pub Vec<(&'static str, IpAddr)>);

impl Resolve for StubResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let addrs: Vec<SocketAddr> = self
            .0
            .iter()
            .filter(|(known, _)| *known == name.as_str())
            .map(|(_, ip)| SocketAddr::new(*ip, 0))
            .collect();
        Box::pin(async move {
            if addrs.is_empty() {
                return Err("unknown name".into());
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

pub fn open() -> SenderOptions {
    SenderOptions {
        policy: TargetPolicy {
            allow_private: true,
        },
        ..SenderOptions::default()
    }
}

pub fn strict() -> SenderOptions {
    SenderOptions::default()
}

pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

pub fn request(url: String) -> WebhookRequest {
    WebhookRequest {
        url,
        webhook_id: "msg_2Zx7b3Hq".to_owned(),
        timestamp: now(),
        body: r#"{"event":"new_feedback","teamId":"t1","data":{"title":"Dark mode"}}"#.to_owned(),
        secret: new_secret(),
    }
}
