//! CORS (issue 22): a page on an origin the operator lists (`SOUNDING_CORS_ORIGINS`) may call
//! the public operations from a browser with a subscriber token; team operations and unlisted
//! origins get no grant. The grant is the HTTP adapter's, the same whatever the engine: these
//! run on the embedded default.

use reqwest::{Method, StatusCode};
use serde_json::json;
use sounding_domain::web_origin::WebOrigin;
use sounding_tests::{Engine, TestApp};

const SHOP: &str = "https://shop.example";

async fn spawn() -> TestApp {
    TestApp::spawn_with(Engine::Sqlite, |config| {
        config.cors_origins =
            WebOrigin::parse_list("https://shop.example, http://localhost:3000").expect("origins");
    })
    .await
    .expect("SQLite is always available")
}

fn preflight(app: &TestApp, path: &str, origin: &str) -> reqwest::RequestBuilder {
    app.client
        .request(Method::OPTIONS, format!("{}{path}", app.base))
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type",
        )
}

/// `POST /v1/<op>` with `{}` from the shop's page, with `token`.
async fn call_from_shop(app: &TestApp, op: &str, token: &str) -> reqwest::Response {
    app.client
        .post(format!("{}/v1/{op}", app.base))
        .header("origin", SHOP)
        .bearer_auth(token)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    response.headers().get(name).and_then(|v| v.to_str().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listed_origin_gets_a_preflight_grant_for_public_operations() {
    let app = spawn().await;
    for path in [
        "/v1/public/feedbacks.list",
        "/api/v1/public/feedback-votes.create",
    ] {
        let response = preflight(&app, path, SHOP).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NO_CONTENT, "{path}");
        assert_eq!(header(&response, "access-control-allow-origin"), Some(SHOP));
        assert_eq!(
            header(&response, "access-control-allow-methods"),
            Some("POST")
        );
        assert_eq!(
            header(&response, "access-control-allow-headers"),
            Some("authorization, content-type")
        );
        assert!(header(&response, "access-control-max-age").is_some());
        assert_eq!(header(&response, "vary"), Some("Origin"));
        assert_eq!(response.text().await.unwrap(), "");
    }
    // Each listed origin is answered with itself, never with the whole list.
    let local = preflight(&app, "/v1/public/feedbacks.list", "http://localhost:3000")
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(&local, "access-control-allow-origin"),
        Some("http://localhost:3000")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_to_a_listed_origin_carry_the_grant_errors_included() {
    let app = spawn().await;
    let (_, token) = app.identify("ann@example.com").await;
    let ok = call_from_shop(&app, "public/feedback-boards.list", &token).await;
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(header(&ok, "access-control-allow-origin"), Some(SHOP));
    let exposed = header(&ok, "access-control-expose-headers").unwrap_or_default();
    assert!(exposed.contains("x-ratelimit-remaining"), "{exposed}");
    assert!(header(&ok, "x-ratelimit-remaining").is_some());

    // A page must be able to read why a call failed.
    let refused = call_from_shop(&app, "public/feedback-boards.list", "not-a-token").await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(header(&refused, "access-control-allow-origin"), Some(SHOP));
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(body["statusCode"], 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn team_operations_and_unlisted_origins_get_no_grant() {
    let app = spawn().await;
    // A team operation: an API key must never be usable from a web page.
    let team = preflight(&app, "/v1/feedbacks.list", SHOP)
        .send()
        .await
        .unwrap();
    assert_eq!(team.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(&team, "access-control-allow-origin"), None);
    let team_call = call_from_shop(&app, "teams.info", &app.key).await;
    assert_eq!(team_call.status(), StatusCode::OK);
    assert_eq!(header(&team_call, "access-control-allow-origin"), None);

    // A public operation called with the team's key is not granted either, and the one that
    // takes only a key (identify) is not even preflighted.
    let keyed = call_from_shop(&app, "public/feedbacks.list", &app.key).await;
    assert_eq!(keyed.status(), StatusCode::OK);
    assert_eq!(header(&keyed, "access-control-allow-origin"), None);
    assert_eq!(header(&keyed, "vary"), Some("Origin"));
    let identify = preflight(&app, "/v1/public/subscriber.identify", SHOP)
        .send()
        .await
        .unwrap();
    assert_eq!(identify.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(&identify, "access-control-allow-origin"), None);

    // An origin that is not listed, or one that only looks like a listed one.
    for origin in [
        "https://evil.example",
        "https://shop.example.evil.example",
        "http://shop.example",
        "null",
    ] {
        let response = preflight(&app, "/v1/public/feedbacks.list", origin)
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{origin}"
        );
        assert_eq!(header(&response, "access-control-allow-origin"), None);
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["statusCode"], 405);
    }

    // Nothing is granted by default.
    let closed = TestApp::spawn(Engine::Sqlite).await.expect("SQLite");
    let response = preflight(&closed, "/v1/public/feedbacks.list", SHOP)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(&response, "access-control-allow-origin"), None);
}

/// The widget is one public script any site may load: small, typed, and cacheable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_widget_script_is_served_to_any_site() {
    let app = TestApp::spawn(Engine::Sqlite).await.expect("SQLite");
    let response = app
        .client
        .get(format!("{}/widget.js", app.base))
        .header("origin", "https://anywhere.example")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        header(&response, "content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(header(&response, "x-content-type-options"), Some("nosniff"));
    assert_eq!(header(&response, "access-control-allow-origin"), Some("*"));
    let script = response.text().await.unwrap();
    assert!(script.len() < 40 * 1024, "{} bytes", script.len());
    assert!(script.contains("window.Sounding = { init: init"));
    let post = app
        .client
        .post(format!("{}/widget.js", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
}
