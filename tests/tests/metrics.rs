//! Prometheus metrics (issue 23): the real binary with `SOUNDING_METRICS_BIND` serves
//! `GET /metrics` on its own listener, never on the API's, with the requests by operation and
//! status, their durations, the rate limit's refusals, webhook attempts by outcome and their
//! lag, the pending backlog, the pool's connections and the process metrics.

use std::time::Duration;

use serde_json::json;
use sounding_tests::{
    bin::{create_team_key, ServerProcess},
    client::op_request,
    pg::{fresh_database, require_postgres},
    receiver::{eventually, Answer, Receiver},
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_serves_prometheus_metrics_on_their_own_listener() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("metrics.db").display());
    metrics_are_served(&url, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_serves_prometheus_metrics_on_their_own_listener() {
    let Some(admin) = require_postgres() else {
        return;
    };
    metrics_are_served(&fresh_database(&admin), true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_serves_prometheus_metrics_without_a_pool() {
    metrics_are_served("memory://", false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_metrics_bind_nothing_listens_and_the_api_has_no_metrics() {
    let server = start("memory://", &[]).await;
    assert!(metrics_url(&server).is_none());
    let res = reqwest::get(format!("{}/metrics", server.base_url))
        .await
        .expect("GET /metrics");
    assert_eq!(res.status(), 404);
}

async fn metrics_are_served(database_url: &str, has_pool: bool) {
    let key = if database_url == "memory://" {
        None
    } else {
        Some(create_team_key(database_url, "Metrics", "metrics"))
    };
    let server = start(database_url, &[("SOUNDING_RATE_LIMIT_KEY_PER_MIN", "6")]).await;
    let key = key.unwrap_or_else(|| {
        sounding_tests::bin::banner_key(&server.stdout_with("Owner API key").join("\n"))
    });
    let metrics = metrics_url(&server).expect("the metrics address in the log");
    let client = reqwest::Client::new();
    let call = |op: &str, body: serde_json::Value| {
        op_request(&client, &server.base_url, op, Some(&key), &body).send()
    };

    // One retry, then delivered: the receiver answers 500 first.
    let receiver = Receiver::answering(vec![Answer::Status(500)]).await;
    let subscribed = call(
        "automation.subscribe",
        json!({ "target_url": receiver.url(), "event": "new_feedback" }),
    )
    .await
    .expect("subscribe");
    assert_eq!(subscribed.status(), 200);
    let board = call("feedback-boards.create", json!({ "name": "Metrics" }))
        .await
        .expect("board")
        .json::<serde_json::Value>()
        .await
        .expect("JSON")["data"]["id"]
        .as_str()
        .expect("board id")
        .to_owned();
    for i in 0..2 {
        let res = call(
            "feedbacks.create",
            json!({ "title": format!("Item {i}"), "boardId": board }),
        )
        .await
        .expect("create");
        assert_eq!(res.status(), 200);
    }
    // Five calls with the key so far; the sixth (below) is its last, the seventh refused.
    let res = call("feedbacks.create", json!({ "title": "" }))
        .await
        .expect("bad create");
    assert_eq!(res.status(), 400);
    // Either prefix, one operation: calls until the key's limit refuses one. The limit's
    // window is the clock's minute, so one that turns meanwhile allows a few more.
    let res = op_request(
        &client,
        &server.base_url,
        "teams.info",
        Some(&key),
        &json!({}),
    )
    .send()
    .await
    .expect("teams.info");
    assert_eq!(res.status(), 200, "the key's sixth call");
    let mut teams_info_ok = 1.0;
    loop {
        let res = client
            .post(format!("{}/api/v1/teams.info", server.base_url))
            .bearer_auth(&key)
            .json(&json!({}))
            .send()
            .await
            .expect("teams.info under /api/v1");
        match res.status().as_u16() {
            200 if teams_info_ok < 20.0 => teams_info_ok += 1.0,
            429 => break,
            other => panic!("teams.info answered {other} after {teams_info_ok} answers"),
        }
    }
    // Unknown paths and operations, by one bounded name.
    let res = client
        .post(format!("{}/v1/no.such-operation-{board}", server.base_url))
        .json(&json!({}))
        .send()
        .await
        .expect("unknown operation");
    assert_eq!(res.status(), 404);
    let res = client
        .get(format!("{}/healthz", server.base_url))
        .send()
        .await
        .expect("healthz");
    assert_eq!(res.status(), 200);
    let res = client
        .get(format!("{}/no/such/path/123", server.base_url))
        .send()
        .await
        .expect("unknown path");
    assert_eq!(res.status(), 404);

    // Two events: the first attempt fails and is retried, the other two arrive.
    receiver.wait_for(3, Duration::from_secs(30)).await;
    let text = eventually(
        "the delivery in the metrics",
        Duration::from_secs(10),
        || {
            let metrics = metrics.clone();
            async move {
                let text = scrape(&metrics).await;
                if value(
                    &text,
                    r#"sounding_webhook_deliveries_total{outcome="delivered"}"#,
                ) == Some(2.0)
                {
                    Ok(text)
                } else {
                    Err(text)
                }
            }
        },
    )
    .await;

    let expect = |series: &str, expected: f64| {
        assert_eq!(value(&text, series), Some(expected), "{series} in\n{text}");
    };
    expect(
        r#"sounding_http_requests_total{operation="feedbacks.create",status="200"}"#,
        2.0,
    );
    expect(
        r#"sounding_http_requests_total{operation="feedbacks.create",status="400"}"#,
        1.0,
    );
    expect(
        r#"sounding_http_requests_total{operation="teams.info",status="200"}"#,
        teams_info_ok,
    );
    expect(
        r#"sounding_http_requests_total{operation="teams.info",status="429"}"#,
        1.0,
    );
    expect(
        r#"sounding_http_requests_total{operation="/healthz",status="200"}"#,
        1.0,
    );
    expect(
        r#"sounding_http_requests_total{operation="unmatched",status="404"}"#,
        2.0,
    );
    expect(
        r#"sounding_http_request_duration_seconds_count{operation="feedbacks.create"}"#,
        3.0,
    );
    expect(
        r#"sounding_http_request_duration_seconds_bucket{operation="feedbacks.create",le="+Inf"}"#,
        3.0,
    );
    expect("sounding_rate_limited_total", 1.0);
    expect(r#"sounding_webhook_deliveries_total{outcome="retry"}"#, 1.0);
    expect(
        r#"sounding_webhook_deliveries_total{outcome="failed"}"#,
        0.0,
    );
    expect("sounding_webhook_delivery_lag_seconds_count", 2.0);
    expect("sounding_webhook_pending", 0.0);
    assert!(
        !text.contains(&board) && !text.contains("no/such") && !text.contains("no.such"),
        "no ids or raw paths in labels:\n{text}"
    );
    assert!(
        value(&text, "process_resident_memory_bytes").is_some_and(|v| v > 0.0),
        "process metrics in\n{text}"
    );
    assert!(text.contains("# TYPE sounding_http_request_duration_seconds histogram"));
    let idle = value(&text, r#"sounding_db_pool_connections{state="idle"}"#);
    let in_use = value(&text, r#"sounding_db_pool_connections{state="in_use"}"#);
    if has_pool {
        assert!(
            idle.is_some_and(|n| n >= 1.0),
            "idle connections in\n{text}"
        );
        assert!(in_use.is_some(), "busy connections in\n{text}");
    } else {
        assert_eq!((idle, in_use), (None, None), "no pool in memory:\n{text}");
    }

    // Never on the API's listener; only GET /metrics on its own.
    let res = client
        .get(format!("{}/metrics", server.base_url))
        .send()
        .await
        .expect("API /metrics");
    assert_eq!(res.status(), 404);
    let other = metrics.replace("/metrics", "/other");
    assert_eq!(reqwest::get(other).await.expect("other").status(), 404);
}

async fn start(database_url: &str, extra: &[(&str, &str)]) -> ServerProcess {
    let url = database_url.to_owned();
    let mut env: Vec<(String, String)> = vec![
        ("SOUNDING_WEBHOOK_ALLOW_PRIVATE".into(), "true".into()),
        ("SOUNDING_WEBHOOK_RETRY_SCALE".into(), "0.001".into()),
        ("SOUNDING_WEBHOOK_POLL_MS".into(), "100".into()),
    ];
    let with_metrics = !extra.is_empty();
    if with_metrics {
        env.push(("SOUNDING_METRICS_BIND".into(), "127.0.0.1:0".into()));
    }
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    tokio::task::spawn_blocking(move || {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (&**k, &**v)).collect();
        ServerProcess::start(&url, &env)
    })
    .await
    .expect("start task")
}

/// The `/metrics` URL the server logged, if it serves metrics.
fn metrics_url(server: &ServerProcess) -> Option<String> {
    server.stderr().iter().find_map(|line| {
        let rest = line.split("serving Prometheus metrics at ").nth(1)?;
        Some(rest.split_whitespace().next()?.trim_matches('"').to_owned())
    })
}

async fn scrape(url: &str) -> String {
    let res = reqwest::get(url).await.expect("GET /metrics");
    assert_eq!(res.status(), 200);
    let kind = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
    res.text().await.expect("text")
}

/// The value of the sample named exactly `series` (name and labels as exported).
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}
