//! A shutdown that answers what it received (issue 23): the real binary under load from raw
//! TCP clients gets SIGTERM at a random moment. Every request a client had fully written
//! before the signal must get a status line (answers after it may close the connection), the
//! server must exit 0, and every create it acknowledged must be there after a restart.
//!
//! The clients are raw sockets so the test knows exactly when a request was fully sent:
//! keep-alive connections that pause between requests (the idle connection a stop used to
//! close under a request just sent), a connection per request, and CSV exports.

use std::{
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use rand::{rngs::StdRng, Rng as _, SeedableRng};
use serde_json::json;
use sounding_tests::{
    bin::{create_team_key, ServerProcess},
    client::op_request,
    pg::{fresh_database, require_postgres},
};
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::TcpStream,
};

const ROUNDS: usize = 3;
const KEEP_ALIVE_CLIENTS: usize = 6;
const FRESH_CONNECTION_CLIENTS: usize = 2;
const EXPORT_CLIENTS: usize = 1;
/// How long the clients run before the signal, in milliseconds.
const LOAD_MS: (u64, u64) = (300, 1200);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_sigterm_answers_every_request_sent_before_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("stop.db").display());
    stop_rounds(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_sigterm_answers_every_request_sent_before_it() {
    let Some(admin) = require_postgres() else {
        return;
    };
    stop_rounds(&fresh_database(&admin)).await;
}

async fn stop_rounds(database_url: &str) {
    let seed = std::env::var("SOUNDING_STOP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    eprintln!("shutdown seed {seed} (SOUNDING_STOP_SEED={seed} replays it)");
    let mut rng = StdRng::seed_from_u64(seed);
    let key = create_team_key(database_url, "Stop", "stop");
    let mut acknowledged: Vec<String> = Vec::new();
    let mut board = None;
    for round in 0..ROUNDS {
        let server = start(database_url).await;
        let address = server.base_url.trim_start_matches("http://").to_owned();
        let board_id = match &board {
            Some(id) => String::clone(id),
            None => {
                let id = create_board(&server.base_url, &key).await;
                board = Some(id.clone());
                id
            }
        };
        let load = Arc::new(Load {
            address,
            key: key.clone(),
            board: board_id,
            signalled: AtomicBool::new(false),
            serial: AtomicU64::new(0),
            unanswered: Mutex::new(Vec::new()),
            created: Mutex::new(Vec::new()),
            answered_before: AtomicU64::new(0),
        });
        let mut clients = Vec::new();
        for i in 0..KEEP_ALIVE_CLIENTS + FRESH_CONNECTION_CLIENTS + EXPORT_CLIENTS {
            let kind = if i < KEEP_ALIVE_CLIENTS {
                Client::KeepAlive
            } else if i < KEEP_ALIVE_CLIENTS + FRESH_CONNECTION_CLIENTS {
                Client::FreshConnection
            } else {
                Client::Export
            };
            clients.push(tokio::spawn(kind.run(load.clone(), rng.gen())));
        }
        tokio::time::sleep(Duration::from_millis(rng.gen_range(LOAD_MS.0..=LOAD_MS.1))).await;

        // Whatever a client finished writing before this store counts as sent before the
        // signal, so the flag goes up first.
        load.signalled.store(true, Ordering::SeqCst);
        let signal = std::process::Command::new("kill")
            .args(["-TERM", &server.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(signal.success());
        let mut server = server;
        let exited = wait_for_exit(&mut server.child, Duration::from_secs(40)).await;
        for client in clients {
            client.await.expect("client task");
        }

        let context = format!("round {round} (seed {seed})");
        let unanswered = load.unanswered.lock().unwrap().clone();
        assert!(
            unanswered.is_empty(),
            "{context}: requests fully sent before SIGTERM got no status line: {unanswered:#?}"
        );
        assert!(
            load.answered_before.load(Ordering::SeqCst) > 0,
            "{context}: no request was answered before the signal"
        );
        assert_eq!(
            exited.map(|s| s.code()),
            Some(Some(0)),
            "{context}: the server did not exit 0 after SIGTERM: {:?}",
            server.stderr()
        );
        acknowledged.extend(load.created.lock().unwrap().iter().cloned());
    }

    // Nothing acknowledged was lost.
    let server = start(database_url).await;
    let client = reqwest::Client::new();
    for id in &acknowledged {
        let reply = op_request(
            &client,
            &server.base_url,
            "feedbacks.info",
            Some(&key),
            &json!({ "id": id }),
        )
        .send()
        .await
        .expect("feedbacks.info");
        assert_eq!(reply.status(), 200, "acknowledged feedback {id} is missing");
    }
}

struct Load {
    address: String,
    key: String,
    board: String,
    signalled: AtomicBool,
    serial: AtomicU64,
    /// Requests fully written before the signal that got no status line.
    unanswered: Mutex<Vec<String>>,
    /// Ids of the feedback the server acknowledged creating.
    created: Mutex<Vec<String>>,
    answered_before: AtomicU64,
}

#[derive(Clone, Copy, Debug)]
enum Client {
    /// One connection, kept alive, with pauses between requests so it is often idle.
    KeepAlive,
    /// `Connection: close` on each request, so a new connection each time.
    FreshConnection,
    /// CSV exports over a kept-alive connection.
    Export,
}

impl Client {
    async fn run(self, load: Arc<Load>, seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut connection: Option<BufReader<TcpStream>> = None;
        // A few requests after the signal too: they may be refused, never left hanging.
        let mut after_signal = 0;
        while after_signal < 3 {
            if load.signalled.load(Ordering::SeqCst) {
                after_signal += 1;
            }
            let (label, request) = self.request(&load);
            let stream = match connection.take() {
                Some(stream) => stream,
                None => match TcpStream::connect(&load.address).await {
                    Ok(stream) => BufReader::new(stream),
                    // Refused after the signal: the listener is closed.
                    Err(_) => break,
                },
            };
            let mut stream = stream;
            if stream
                .get_mut()
                .write_all(request.as_bytes())
                .await
                .is_err()
            {
                continue;
            }
            let sent_before_signal = !load.signalled.load(Ordering::SeqCst);
            match tokio::time::timeout(Duration::from_secs(40), read_response(&mut stream)).await {
                Ok(Ok(response)) => {
                    if sent_before_signal {
                        load.answered_before.fetch_add(1, Ordering::SeqCst);
                    }
                    if response.status == 200 && label.starts_with("feedbacks.create") {
                        let body: serde_json::Value =
                            serde_json::from_slice(&response.body).expect("JSON body");
                        let id = body["data"]["id"].as_str().expect("data.id").to_owned();
                        load.created.lock().unwrap().push(id);
                    }
                    if !response.close && !matches!(self, Client::FreshConnection) {
                        connection = Some(stream);
                    }
                }
                Ok(Err(error)) if sent_before_signal => load
                    .unanswered
                    .lock()
                    .unwrap()
                    .push(format!("{self:?} {label}: {error}")),
                Err(_) if sent_before_signal => load
                    .unanswered
                    .lock()
                    .unwrap()
                    .push(format!("{self:?} {label}: no answer in 40 s")),
                _ => {}
            }
            let pause = match self {
                // Mostly short pauses, sometimes one longer than the drain's quiet window.
                Client::KeepAlive if rng.gen_bool(0.1) => rng.gen_range(100..400),
                Client::KeepAlive => rng.gen_range(0..25),
                Client::FreshConnection => rng.gen_range(0..5),
                Client::Export => rng.gen_range(0..50),
            };
            tokio::time::sleep(Duration::from_millis(pause)).await;
        }
    }

    /// A label and the whole request, head and body.
    fn request(self, load: &Load) -> (String, String) {
        let serial = load.serial.fetch_add(1, Ordering::SeqCst);
        let (op, body) = match self {
            Client::Export => ("feedbacks.export", json!({}).to_string()),
            _ => (
                "feedbacks.create",
                json!({ "title": format!("Sent {serial}"), "boardId": load.board }).to_string(),
            ),
        };
        let connection = match self {
            Client::FreshConnection => "close",
            _ => "keep-alive",
        };
        let request = format!(
            "POST /v1/{op} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: {connection}\r\n\r\n{body}",
            load.address,
            load.key,
            body.len()
        );
        (format!("{op} #{serial}"), request)
    }
}

struct Response {
    status: u16,
    close: bool,
    body: Vec<u8>,
}

/// Reads one HTTP/1.1 response: status line, headers, and a body by length or in chunks.
async fn read_response(stream: &mut BufReader<TcpStream>) -> std::io::Result<Response> {
    let broken = |what: &str| std::io::Error::new(std::io::ErrorKind::UnexpectedEof, what);
    let mut line = String::new();
    if stream.read_line(&mut line).await? == 0 {
        return Err(broken("connection closed without a status line"));
    }
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| broken("not a status line"))?;
    let (mut length, mut chunked, mut close) = (None, false, false);
    loop {
        line.clear();
        if stream.read_line(&mut line).await? == 0 {
            return Err(broken("connection closed inside the head"));
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or((header, ""));
        let value = value.trim().to_ascii_lowercase();
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse::<usize>().ok(),
            "transfer-encoding" => chunked = value.contains("chunked"),
            "connection" => close = value == "close",
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            stream.read_line(&mut line).await?;
            let size =
                usize::from_str_radix(line.trim(), 16).map_err(|_| broken("bad chunk size"))?;
            let mut chunk = vec![0; size + 2];
            stream.read_exact(&mut chunk).await?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = length {
        body.resize(length, 0);
        stream.read_exact(&mut body).await?;
    }
    Ok(Response {
        status,
        close,
        body,
    })
}

async fn start(database_url: &str) -> ServerProcess {
    let url = database_url.to_owned();
    tokio::task::spawn_blocking(move || {
        let env = [
            ("SOUNDING_WORKERS", "2"),
            ("SOUNDING_RATE_LIMIT_KEY_PER_MIN", "1000000"),
            ("SOUNDING_LOG", "warn,sounding_server=info"),
        ];
        ServerProcess::start(&url, &env)
    })
    .await
    .expect("start task")
}

async fn create_board(base: &str, key: &str) -> String {
    let reply = op_request(
        &reqwest::Client::new(),
        base,
        "feedback-boards.create",
        Some(key),
        &json!({ "name": "Stop board" }),
    )
    .send()
    .await
    .expect("feedback-boards.create");
    assert_eq!(reply.status(), 200);
    let body: serde_json::Value = reply.json().await.expect("JSON");
    body["data"]["id"].as_str().expect("id").to_owned()
}

async fn wait_for_exit(
    child: &mut std::process::Child,
    limit: Duration,
) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = child.kill();
    None
}
