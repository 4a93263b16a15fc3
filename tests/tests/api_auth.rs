//! Authentication (interface §5, decisions §5): team API keys and subscriber JWTs, with the
//! exact 401 bodies, revocation, logout, and the ways a token can be forged.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine as _};
use diesel::{Connection, RunQueryDsl};
use jsonwebtoken::{encode, EncodingKey, Header};
use serde_json::{json, Value};
use sounding_domain::access::Role;
use sounding_tests::{engine_tests, Reply, TestApp, SECRET};

engine_tests!(
    no_credentials_are_401,
    a_malformed_or_unknown_key_is_401,
    a_revoked_key_fails_on_the_next_request,
    an_expired_token_is_401_token_expired,
    an_unsigned_alg_none_token_is_401,
    a_token_signed_with_another_secret_is_401,
    a_logged_out_subscribers_tokens_stop_working,
    a_deleted_subscribers_token_is_401,
    the_cookie_carries_a_subscriber_token,
    a_key_is_refused_where_a_subscriber_is_required_and_vice_versa,
    a_token_from_another_team_sees_only_its_own_team,
);

fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

fn mint(secret: &str, claims: Value) -> String {
    encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

async fn no_credentials_are_401(app: TestApp) {
    app.call("teams.info", None, json!({}))
        .await
        .assert_error(401, "Authentication required");
    app.call("public/subscriber.info", None, json!({}))
        .await
        .assert_error(401, "Authentication required");
    app.call("public/feedback-boards.list", None, json!({}))
        .await
        .assert_error(401, "Authentication required");
}

async fn a_malformed_or_unknown_key_is_401(app: TestApp) {
    for token in [
        "abc",
        "Bearer",
        &"A".repeat(38),
        &"z".repeat(39),
        "a.b.c",
        "",
    ] {
        app.call("teams.info", Some(token), json!({}))
            .await
            .assert_error(401, "Authentication required");
    }
    let reply = Reply::from_response(
        app.client
            .post(format!("{}/v1/teams.info", app.base))
            .header("authorization", format!("Basic {}", app.key))
            .send()
            .await
            .unwrap(),
    )
    .await;
    reply.assert_error(401, "Authentication required");
}

async fn a_revoked_key_fails_on_the_next_request(app: TestApp) {
    let (key, key_id) = app.key_with(Role::Admin, false).await;
    assert_eq!(
        app.call("teams.info", Some(&key), json!({})).await.status,
        200
    );
    sounding_app::api_keys::revoke_api_key(&*app.running.store, &key_id)
        .await
        .unwrap();
    app.call("teams.info", Some(&key), json!({}))
        .await
        .assert_error(401, "Authentication required");
    // The other keys are untouched.
    assert_eq!(app.team("teams.info", json!({})).await.status, 200);
}

async fn an_expired_token_is_401_token_expired(app: TestApp) {
    let (subscriber, code) = app.identify("exp@example.com").await;
    assert_eq!(
        app.call("public/subscriber.info", Some(&code), json!({}))
            .await
            .status,
        200
    );
    let expired = mint(
        SECRET,
        json!({"sub": subscriber["id"], "tid": app.team_id, "iat": now() - 100, "exp": now() - 10, "ver": 0}),
    );
    app.call("public/subscriber.info", Some(&expired), json!({}))
        .await
        .assert_error(401, "Token expired");
}

async fn an_unsigned_alg_none_token_is_401(app: TestApp) {
    let (subscriber, _) = app.identify("none@example.com").await;
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let claims = URL_SAFE_NO_PAD.encode(
        json!({"sub": subscriber["id"], "tid": app.team_id, "iat": now(), "exp": now() + 3600, "ver": 0})
            .to_string(),
    );
    for token in [format!("{header}.{claims}."), format!("{header}.{claims}")] {
        app.call("public/subscriber.info", Some(&token), json!({}))
            .await
            .assert_error(401, "Authentication required");
    }
}

async fn a_token_signed_with_another_secret_is_401(app: TestApp) {
    let (subscriber, _) = app.identify("forged@example.com").await;
    let claims = json!({"sub": subscriber["id"], "tid": app.team_id, "iat": now(), "exp": now() + 3600, "ver": 0});
    let forged = mint(
        "another-secret-that-is-long-enough-0123456789",
        claims.clone(),
    );
    app.call("public/subscriber.info", Some(&forged), json!({}))
        .await
        .assert_error(401, "Authentication required");
    // The same claims under the server's secret are accepted: the signature was the only fault.
    let genuine = mint(SECRET, claims);
    assert_eq!(
        app.call("public/subscriber.info", Some(&genuine), json!({}))
            .await
            .ok()["id"],
        subscriber["id"]
    );
}

async fn a_logged_out_subscribers_tokens_stop_working(app: TestApp) {
    let (_, first) = app.identify("logout@example.com").await;
    let (_, second) = app.identify("logout@example.com").await;
    let reply = app
        .call("public/subscriber.logout", Some(&first), json!({}))
        .await;
    assert_eq!(
        (reply.status, &reply.body),
        (200, &json!({"success": true}))
    );
    for token in [&first, &second] {
        app.call("public/subscriber.info", Some(token), json!({}))
            .await
            .assert_error(401, "Authentication required");
    }
    let (_, fresh) = app.identify("logout@example.com").await;
    assert_eq!(
        app.call("public/subscriber.info", Some(&fresh), json!({}))
            .await
            .status,
        200
    );
}

async fn a_deleted_subscribers_token_is_401(app: TestApp) {
    if app.skips_memory("it deletes the subscriber's row in the database") {
        return;
    }
    let (subscriber, code) = app.identify("gone@example.com").await;
    assert_eq!(
        app.call("public/subscriber.info", Some(&code), json!({}))
            .await
            .status,
        200
    );
    let id = subscriber["id"].as_str().unwrap().to_owned();
    let url = app.database_url.clone();
    tokio::task::spawn_blocking(move || delete_subscriber_row(&url, &id))
        .await
        .unwrap();
    app.call("public/subscriber.info", Some(&code), json!({}))
        .await
        .assert_error(401, "Authentication required");
}

fn delete_subscriber_row(url: &str, id: &str) {
    let sql = format!("DELETE FROM subscribers WHERE id = '{id}'");
    if let Some(path) = url.strip_prefix("sqlite://") {
        let mut conn = diesel::SqliteConnection::establish(path).unwrap();
        assert_eq!(diesel::sql_query(sql).execute(&mut conn).unwrap(), 1);
    } else {
        let mut conn = diesel::PgConnection::establish(url).unwrap();
        assert_eq!(diesel::sql_query(sql).execute(&mut conn).unwrap(), 1);
    }
}

async fn the_cookie_carries_a_subscriber_token(app: TestApp) {
    let (subscriber, code) = app.identify("cookie@example.com").await;
    let reply = Reply::from_response(
        app.client
            .post(format!("{}/v1/public/subscriber.info", app.base))
            .header("cookie", format!("publicAccessToken={code}"))
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.ok()["id"], subscriber["id"]);
    // The header wins over the cookie.
    let reply = Reply::from_response(
        app.client
            .post(format!("{}/v1/public/subscriber.info", app.base))
            .header("cookie", format!("publicAccessToken={code}"))
            .bearer_auth("not-a-token")
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    reply.assert_error(401, "Authentication required");
}

async fn a_key_is_refused_where_a_subscriber_is_required_and_vice_versa(app: TestApp) {
    let (_, code) = app.identify("mixed@example.com").await;
    app.team("public/subscriber.info", json!({}))
        .await
        .assert_error(401, "Authentication required");
    app.call("teams.info", Some(&code), json!({}))
        .await
        .assert_error(401, "Authentication required");
    app.call(
        "public/subscriber.identify",
        Some(&code),
        json!({"email": "x@example.com"}),
    )
    .await
    .assert_error(401, "Authentication required");
    // Operations open to either accept both.
    assert_eq!(
        app.call("public/feedback-boards.list", Some(&code), json!({}))
            .await
            .status,
        200
    );
    assert_eq!(
        app.team("public/feedback-boards.list", json!({}))
            .await
            .status,
        200
    );
}

async fn a_token_from_another_team_sees_only_its_own_team(app: TestApp) {
    let (_, other_key) = app.other_team("elsewhere").await;
    app.call(
        "feedback-boards.create",
        Some(&other_key),
        json!({"name": "Theirs"}),
    )
    .await
    .ok();
    app.team("feedback-boards.create", json!({"name": "Ours"}))
        .await
        .ok();
    let (_, code) = app.identify_with(&other_key, "them@example.com").await;
    let boards = app
        .call("public/feedback-boards.list", Some(&code), json!({}))
        .await;
    assert_eq!(boards.each("name"), ["Theirs"]);
}
