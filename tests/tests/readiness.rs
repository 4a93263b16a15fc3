//! Readiness during a database outage (issue 23): `/readyz` answers 503 with a reason within a
//! second while PostgreSQL does not answer, instead of waiting out the pool's 5 s checkout, and
//! 200 again once it is back. The outage is a TCP proxy between the server and PostgreSQL
//! that stops relaying: connections stay open and silent, the hardest case (a refused
//! connection fails fast on its own).

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use serde_json::{json, Value};
use sounding_server::config::Config;
use sounding_tests::{client::SECRET, pg};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

/// Relays bytes to `upstream` while not paused; while paused, holds every byte and every new
/// connection.
struct StallingProxy {
    port: u16,
    paused: Arc<AtomicBool>,
}

impl StallingProxy {
    async fn start(upstream: String) -> StallingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let paused = Arc::new(AtomicBool::new(false));
        let flag = paused.clone();
        tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let (upstream, flag) = (upstream.clone(), flag.clone());
                tokio::spawn(async move {
                    wait_while(&flag).await;
                    let Ok(outbound) = TcpStream::connect(&upstream).await else {
                        return;
                    };
                    let (client_read, client_write) = inbound.into_split();
                    let (server_read, server_write) = outbound.into_split();
                    tokio::spawn(relay(client_read, server_write, flag.clone()));
                    relay(server_read, client_write, flag).await;
                });
            }
        });
        StallingProxy { port, paused }
    }

    fn pause(&self, paused: bool) {
        self.paused.store(paused, Ordering::SeqCst);
    }
}

async fn wait_while(paused: &AtomicBool) {
    while paused.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn relay(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    paused: Arc<AtomicBool>,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let Ok(n) = from.read(&mut buffer).await else {
            return;
        };
        if n == 0 {
            return;
        }
        wait_while(&paused).await;
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

async fn ready(client: &reqwest::Client, base: &str) -> (u16, Value, Duration) {
    let started = Instant::now();
    let response = client
        .get(format!("{base}/readyz"))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap(), started.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_answers_within_a_second_while_postgres_does_not() {
    let Some(admin) = pg::require_postgres() else {
        return;
    };
    let database = pg::fresh_database(&admin);
    // postgres://user@host:port/name → the proxy in place of host:port.
    let (scheme_user, rest) = database.split_once('@').unwrap();
    let (upstream, name) = rest.split_once('/').unwrap();
    let proxy = StallingProxy::start(upstream.to_owned()).await;
    let mut config = Config::new(format!("{scheme_user}@127.0.0.1:{}/{name}", proxy.port));
    config.bind = "127.0.0.1:0".into();
    config.jwt_secret = Some(SECRET.parse().unwrap());
    config.workers = Some(2);
    let running = sounding_server::start(config, sounding_server::system_clock())
        .await
        .expect("server starts");
    let base = running.base_url();
    let client = reqwest::Client::new();

    let (status, body, _) = ready(&client, &base).await;
    assert_eq!((status, body), (200, json!({"status": "ready"})));

    proxy.pause(true);
    for _ in 0..3 {
        let (status, body, took) = ready(&client, &base).await;
        assert_eq!(
            (status, body),
            (
                503,
                json!({"error": "Service unavailable: the database does not answer", "statusCode": 503})
            )
        );
        assert!(took < Duration::from_secs(1), "took {took:?}");
    }
    // Liveness does not depend on the database.
    let live = client.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(live.status().as_u16(), 200);

    proxy.pause(false);
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (status, _, _) = ready(&client, &base).await;
        if status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still not ready after the outage"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    running.stop_now().await;
}
