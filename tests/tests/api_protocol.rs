//! The protocol rules every operation shares (decisions §1, §7, §8, §9): prefixes, methods,
//! body and query parsing, size and type limits, unknown operations, rate limits, health.

use serde_json::json;
use sounding_tests::{engine_tests, Engine, Reply, TestApp};

engine_tests!(
    both_prefixes_serve_every_operation,
    a_get_on_an_operation_is_405_json,
    an_unknown_operation_is_404_naming_it,
    malformed_json_is_400,
    a_body_that_is_not_an_object_is_400,
    a_wrong_content_type_is_415,
    a_two_mib_body_is_413,
    an_empty_body_is_accepted_where_nothing_is_required,
    query_parameters_are_merged_under_the_body,
    wrong_field_types_are_400_naming_the_field,
    rate_limit_headers_are_on_every_operation_response,
    health_and_readiness_answer,
);

async fn raw(app: &TestApp, path: &str, content_type: Option<&str>, body: Vec<u8>) -> Reply {
    let mut request = app
        .client
        .post(format!("{}{path}", app.base))
        .bearer_auth(&app.key)
        .body(body);
    if let Some(ct) = content_type {
        request = request.header("content-type", ct);
    }
    Reply::from_response(request.send().await.unwrap()).await
}

async fn both_prefixes_serve_every_operation(app: TestApp) {
    let v1 = app.team("teams.info", json!({})).await;
    let api = raw(
        &app,
        "/api/v1/teams.info",
        Some("application/json"),
        b"{}".to_vec(),
    )
    .await;
    assert_eq!(v1.ok(), api.ok());
}

async fn a_get_on_an_operation_is_405_json(app: TestApp) {
    let reply = Reply::from_response(
        app.client
            .get(format!("{}/v1/teams.info", app.base))
            .bearer_auth(&app.key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, 405);
    assert_eq!(reply.body["statusCode"], 405);
    assert!(reply.body["error"].is_string());
}

async fn an_unknown_operation_is_404_naming_it(app: TestApp) {
    app.team("public/nope.list", json!({}))
        .await
        .assert_error(404, "Unknown operation public/nope.list");
    let reply = raw(
        &app,
        "/api/v1/teams.explode",
        Some("application/json"),
        b"{}".to_vec(),
    )
    .await;
    reply.assert_error(404, "Unknown operation teams.explode");
}

async fn malformed_json_is_400(app: TestApp) {
    let reply = raw(
        &app,
        "/v1/teams.update",
        Some("application/json"),
        b"{\"name\": ".to_vec(),
    )
    .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.body["statusCode"], 400);
    // Nothing changed.
    assert_eq!(
        app.team("teams.info", json!({})).await.ok()["name"],
        "Default"
    );
}

async fn a_body_that_is_not_an_object_is_400(app: TestApp) {
    for body in ["[1,2]", "\"name\"", "42", "null"] {
        let reply = raw(
            &app,
            "/v1/teams.update",
            Some("application/json"),
            body.as_bytes().to_vec(),
        )
        .await;
        assert_eq!(reply.status, 400, "body {body}");
        assert_eq!(reply.body["statusCode"], 400);
    }
}

async fn a_wrong_content_type_is_415(app: TestApp) {
    let reply = raw(
        &app,
        "/v1/teams.update",
        Some("text/plain"),
        b"{\"name\":\"X\"}".to_vec(),
    )
    .await;
    assert_eq!(reply.status, 415);
    assert_eq!(reply.body["statusCode"], 415);
    let reply = raw(
        &app,
        "/v1/teams.update",
        Some("application/x-www-form-urlencoded"),
        b"name=X".to_vec(),
    )
    .await;
    assert_eq!(reply.status, 415);
    assert_eq!(
        app.team("teams.info", json!({})).await.ok()["name"],
        "Default"
    );
    // A charset parameter is still JSON.
    let reply = raw(
        &app,
        "/v1/teams.info",
        Some("application/json; charset=utf-8"),
        b"{}".to_vec(),
    )
    .await;
    assert_eq!(reply.status, 200);
}

async fn a_two_mib_body_is_413(app: TestApp) {
    let name = "x".repeat(2 * 1024 * 1024);
    let body = serde_json::to_vec(&json!({ "name": name })).unwrap();
    let reply = raw(&app, "/v1/teams.update", Some("application/json"), body).await;
    assert_eq!(reply.status, 413);
    assert_eq!(reply.body["statusCode"], 413);
}

async fn an_empty_body_is_accepted_where_nothing_is_required(app: TestApp) {
    let reply = raw(&app, "/v1/teams.info", None, Vec::new()).await;
    assert_eq!(reply.ok()["subdomain"], "default");
    let reply = raw(&app, "/v1/teams.info", Some("application/json"), Vec::new()).await;
    assert_eq!(reply.status, 200);
}

async fn query_parameters_are_merged_under_the_body(app: TestApp) {
    let reply = Reply::from_response(
        app.client
            .post(format!(
                "{}/v1/feedback-boards.create?name=FromQuery&order=7",
                app.base
            ))
            .bearer_auth(&app.key)
            .json(&json!({ "name": "FromBody" }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let board = reply.ok();
    assert_eq!(board["name"], "FromBody");
    assert_eq!(board["order"], 7);
    let reply = Reply::from_response(
        app.client
            .post(format!("{}/v1/feedback-boards.list?limit=abc", app.base))
            .bearer_auth(&app.key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, 400);
    assert!(
        reply.body["error"].as_str().unwrap().contains("limit"),
        "{}",
        reply.body
    );
}

async fn wrong_field_types_are_400_naming_the_field(app: TestApp) {
    let reply = app.team("teams.update", json!({ "name": 5 })).await;
    assert_eq!(reply.status, 400);
    assert!(
        reply.body["error"].as_str().unwrap().contains("name"),
        "{}",
        reply.body
    );
    let reply = app
        .team("feedback-boards.list", json!({ "limit": 2.5 }))
        .await;
    assert_eq!(reply.status, 400);
    let reply = app
        .team("feedback-boards.info", json!({ "id": "not-a-uuid" }))
        .await;
    reply.assert_error(400, "id must be a UUID");
}

async fn rate_limit_headers_are_on_every_operation_response(app: TestApp) {
    for reply in [
        app.team("teams.info", json!({})).await,
        app.call("teams.info", None, json!({})).await,
        app.team("public/nope.list", json!({})).await,
    ] {
        for header in [
            "x-ratelimit-limit",
            "x-ratelimit-remaining",
            "x-ratelimit-reset",
        ] {
            let value = reply
                .header(header)
                .unwrap_or_else(|| panic!("{header} missing on {}", reply.status));
            value
                .parse::<u64>()
                .unwrap_or_else(|_| panic!("{header} is not a number: {value}"));
        }
    }
    let first = app.team("teams.info", json!({})).await;
    let second = app.team("teams.info", json!({})).await;
    let remaining = |r: &Reply| {
        r.header("x-ratelimit-remaining")
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    assert_eq!(remaining(&first), remaining(&second) + 1);
    let reset = first
        .header("x-ratelimit-reset")
        .unwrap()
        .parse::<u64>()
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(
        reset > now && reset <= now + 61,
        "reset {reset} is not within the next minute of {now}"
    );
}

async fn health_and_readiness_answer(app: TestApp) {
    for path in ["/healthz", "/readyz"] {
        let reply = Reply::from_response(
            app.client
                .get(format!("{}{path}", app.base))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_a_small_limit_requests_get_429_with_retry_after() {
    let app = TestApp::spawn_with(Engine::Sqlite, |config| {
        config.rate_limit_key_per_min = 3;
        config.rate_limit_subscriber_per_min = 2;
    })
    .await
    .expect("sqlite is always available");
    for _ in 0..3 {
        assert_eq!(app.team("teams.info", json!({})).await.status, 200);
    }
    let limited = app.team("teams.info", json!({})).await;
    limited.assert_error(429, "Too many requests");
    let retry: u64 = limited
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry));
    assert_eq!(limited.header("x-ratelimit-remaining"), Some("0"));
    assert_eq!(limited.header("x-ratelimit-limit"), Some("3"));

    // Another key has its own bucket; unauthenticated callers share the address bucket.
    let (_, other) = app.other_team("other").await;
    assert_eq!(
        app.call("teams.info", Some(&other), json!({})).await.status,
        200
    );
    assert_eq!(app.call("teams.info", None, json!({})).await.status, 401);
    assert_eq!(app.call("teams.info", None, json!({})).await.status, 401);
    app.call("teams.info", None, json!({}))
        .await
        .assert_error(429, "Too many requests");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_served_openapi_document_is_the_one_in_docs() {
    let app = TestApp::spawn(Engine::Sqlite).await.unwrap();
    let served: serde_json::Value = app.openapi().await;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/openapi.json");
    let on_disk =
        std::fs::read_to_string(&path).expect("docs/openapi.json exists (cargo xtask openapi)");
    assert_eq!(
        on_disk,
        sounding_http_actix::openapi_json(),
        "docs/openapi.json is stale: run `cargo xtask openapi`"
    );
    assert_eq!(
        served,
        serde_json::from_str::<serde_json::Value>(&on_disk).unwrap()
    );
    for op in [
        "/v1/teams.info",
        "/v1/teams.update",
        "/v1/public/subscriber.identify",
        "/v1/public/subscriber.info",
        "/v1/public/subscriber.logout",
        "/v1/feedback-boards.create",
        "/v1/feedback-boards.list",
        "/v1/feedback-boards.info",
        "/v1/feedback-boards.update",
        "/v1/feedback-boards.delete",
        "/v1/public/feedback-boards.list",
    ] {
        assert!(
            served["paths"][op]["post"].is_object(),
            "{op} missing from the OpenAPI document"
        );
    }
}
