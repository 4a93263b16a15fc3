//! In-process tests of the assembled application (routes, middleware, extractors, DTOs) over
//! the in-memory store, with a clock the tests move. The black-box suite over real TCP lives
//! in the workspace's `tests` crate.

use std::{
    sync::{
        atomic::{AtomicI64, Ordering},
        Arc,
    },
    time::Duration,
};

use actix_web::{
    body::MessageBody,
    cookie::Cookie,
    dev::{Service, ServiceResponse},
    http::{
        header::{ALLOW, AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER},
        ConnectionType, Method, StatusCode,
    },
    middleware::from_fn,
    test::{self, TestRequest},
    web,
};
use serde_json::{json, Value};
use sounding_app::{
    api_keys::{create_api_key, NewApiKey},
    teams::{create_team, NewTeam},
};
use sounding_domain::{access::Role, ports::Clock, Timestamp};
use sounding_store_memory::MemoryStore;

use crate::{rate_limit::RateLimiter, server::app, state::ApiState, JwtCodec, RateLimits, Traffic};

const START: i64 = 1_800_000_000;

/// A clock the test moves.
#[derive(Default)]
struct TestClock(AtomicI64);

impl Clock for TestClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_seconds(START + self.0.load(Ordering::SeqCst))
            .expect("a valid test time")
    }
}

impl TestClock {
    fn advance(&self, secs: i64) {
        self.0.fetch_add(secs, Ordering::SeqCst);
    }
}

struct World {
    state: ApiState,
    clock: Arc<TestClock>,
    store: Arc<MemoryStore>,
    owner_key: String,
}

async fn world(limits: RateLimits) -> World {
    let store = Arc::new(MemoryStore::new());
    let clock = Arc::new(TestClock::default());
    let created = create_team(&*store, &*clock, NewTeam::new("Acme", "acme"))
        .await
        .unwrap();
    let state = ApiState {
        store: store.clone(),
        clock: clock.clone(),
        tokens: Arc::new(JwtCodec::new(&[7u8; 32]).unwrap()),
        limits,
        webhook_policy: Default::default(),
        host_resolver: Arc::new(NoNames),
        outbox_signal: Default::default(),
        browser_origins: Default::default(),
    };
    World {
        state,
        clock,
        store,
        owner_key: created.secret.expose().to_owned(),
    }
}

impl World {
    async fn key(&self, role: Role, read_only: bool) -> String {
        let created = create_api_key(
            &*self.store,
            &*self.store,
            &*self.clock,
            NewApiKey {
                team: "acme".into(),
                role,
                read_only,
                name: None,
            },
        )
        .await
        .unwrap();
        created.secret.expose().to_owned()
    }
}

macro_rules! service {
    ($world:expr) => {
        test::init_service(app(
            web::Data::new($world.state.clone()),
            web::Data::new(RateLimiter::new($world.state.limits)),
        ))
        .await
    };
}

fn post(path: &str, bearer: Option<&str>, body: Value) -> TestRequest {
    let req = TestRequest::post().uri(path).set_json(body);
    match bearer {
        Some(token) => req.insert_header((AUTHORIZATION, format!("Bearer {token}"))),
        None => req,
    }
}

async fn body(res: ServiceResponse<impl MessageBody>) -> Value {
    let bytes = test::read_body(res).await;
    serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&bytes)))
}

fn header<'a, B>(res: &'a ServiceResponse<B>, name: &str) -> Option<&'a str> {
    res.headers().get(name).and_then(|v| v.to_str().ok())
}

#[actix_web::test]
async fn health_endpoints_answer_without_rate_limit_headers() {
    let world = world(RateLimits::default()).await;
    let svc = service!(world);
    let res = test::call_service(&svc, TestRequest::get().uri("/healthz").to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(header(&res, "x-ratelimit-limit").is_none());
    assert!(header(&res, "x-request-id").is_some());
    assert_eq!(body(res).await, json!({"status": "ok"}));
    let res = test::call_service(&svc, TestRequest::get().uri("/readyz").to_request()).await;
    assert_eq!(body(res).await, json!({"status": "ready"}));
}

#[actix_web::test]
async fn a_draining_server_is_not_ready_and_closes_each_connection_after_its_answer() {
    let world = world(RateLimits::default()).await;
    let traffic = Traffic::default();
    let svc = test::init_service(
        app(
            web::Data::new(world.state.clone()),
            web::Data::new(RateLimiter::new(world.state.limits)),
        )
        .app_data(web::Data::new(traffic.clone()))
        .wrap(from_fn(crate::drain::track)),
    )
    .await;
    let res = test::call_service(&svc, TestRequest::get().uri("/readyz").to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.response().head().keep_alive());

    // Nothing is in flight, so the drain ends as soon as it has begun.
    traffic.drain(Duration::ZERO, Duration::from_secs(1)).await;
    let res = test::call_service(&svc, TestRequest::get().uri("/readyz").to_request()).await;
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        res.response().head().connection_type(),
        ConnectionType::Close
    );
    assert_eq!(
        body(res).await,
        json!({"error": "Service unavailable: the server is shutting down", "statusCode": 503})
    );
    // Operations are still answered, each on a connection that then closes.
    let req = post("/v1/teams.info", Some(&world.owner_key), json!({}));
    let res = test::call_service(&svc, req.to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.response().head().connection_type(),
        ConnectionType::Close
    );
    assert_eq!(traffic.in_flight(), 0);
}

#[actix_web::test]
async fn teams_info_works_under_both_prefixes_with_rate_limit_headers() {
    let world = world(RateLimits::default()).await;
    let svc = service!(world);
    for prefix in ["/v1", "/api/v1"] {
        let req = post(
            &format!("{prefix}/teams.info"),
            Some(&world.owner_key),
            json!({}),
        );
        let res = test::call_service(&svc, req.to_request()).await;
        assert_eq!(res.status(), StatusCode::OK, "{prefix}");
        assert_eq!(header(&res, "x-ratelimit-limit"), Some("1000"));
        let reset: i64 = header(&res, "x-ratelimit-reset").unwrap().parse().unwrap();
        assert_eq!(reset, START + 60);
        let data = &body(res).await["data"];
        assert_eq!(data["name"], "Acme");
        assert_eq!(data["subdomain"], "acme");
        assert_eq!(data["allowAnonymousFeedback"], false);
        assert_eq!(data["createdAt"], "2027-01-15T08:00:00.000Z");
    }
    // An empty body, no Content-Type, is `{}`.
    let req = TestRequest::post()
        .uri("/v1/teams.info")
        .insert_header((AUTHORIZATION, format!("Bearer {}", world.owner_key)));
    let res = test::call_service(&svc, req.to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "x-ratelimit-remaining"), Some("997"));
}

#[actix_web::test]
async fn missing_or_unknown_credentials_are_401_with_the_exact_body() {
    let world = world(RateLimits::default()).await;
    let svc = service!(world);
    let unknown_key = "a".repeat(38);
    for bearer in [None, Some(unknown_key.as_str()), Some("not-a-token")] {
        let res =
            test::call_service(&svc, post("/v1/teams.info", bearer, json!({})).to_request()).await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(header(&res, "x-ratelimit-limit"), Some("100"));
        assert_eq!(
            body(res).await,
            json!({"error": "Authentication required", "statusCode": 401})
        );
    }
}

#[actix_web::test]
async fn routing_errors_are_json() {
    let world = world(RateLimits::default()).await;
    let svc = service!(world);

    let req = TestRequest::get().uri("/v1/teams.info").to_request();
    let res = test::call_service(&svc, req).await;
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(&res, ALLOW.as_str()), Some("POST"));
    assert!(header(&res, "x-ratelimit-remaining").is_some());
    assert_eq!(
        body(res).await,
        json!({"error": "Method not allowed", "statusCode": 405})
    );

    let res = test::call_service(
        &svc,
        post("/api/v1/public/nope.list", None, json!({})).to_request(),
    )
    .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert!(header(&res, "x-ratelimit-limit").is_some());
    assert_eq!(
        body(res).await,
        json!({"error": "Unknown operation public/nope.list", "statusCode": 404})
    );

    for path in ["/nope", "/v2/teams.info", "/api/teams.info"] {
        let req = TestRequest::default()
            .method(Method::PUT)
            .uri(path)
            .to_request();
        let res = test::call_service(&svc, req).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            body(res).await,
            json!({"error": "Not found", "statusCode": 404})
        );
    }
}

#[actix_web::test]
async fn parameter_errors_come_through_the_app_as_json() {
    let world = world(RateLimits::default()).await;
    let svc = service!(world);
    let key = Some(world.owner_key.as_str());

    let req = TestRequest::post()
        .uri("/v1/teams.update")
        .insert_header((AUTHORIZATION, format!("Bearer {}", world.owner_key)))
        .insert_header((CONTENT_TYPE, "text/plain"))
        .set_payload("name=x");
    let res = test::call_service(&svc, req.to_request()).await;
    assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(body(res).await["statusCode"], 415);

    let res = test::call_service(
        &svc,
        post("/v1/teams.update", key, json!({"name": 5})).to_request(),
    )
    .await;
    assert_eq!(
        body(res).await,
        json!({"error": "name must be a string", "statusCode": 400})
    );

    let res = test::call_service(
        &svc,
        post("/v1/feedback-boards.info", key, json!({"id": "nope"})).to_request(),
    )
    .await;
    assert_eq!(
        body(res).await,
        json!({"error": "id must be a UUID", "statusCode": 400})
    );

    let req = post("/v1/feedback-boards.list?limit=2.5", key, json!({}));
    let res = test::call_service(&svc, req.to_request()).await;
    assert_eq!(
        body(res).await,
        json!({"error": "limit must be an integer", "statusCode": 400})
    );
}

#[actix_web::test]
async fn teams_update_needs_an_admin_key() {
    let world = world(RateLimits::default()).await;
    let svc = service!(world);
    let member = world.key(Role::Member, false).await;
    let req = post("/v1/teams.update", Some(&member), json!({"name": "Hacked"}));
    let res = test::call_service(&svc, req.to_request()).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);

    let req = post(
        "/v1/teams.update?publicBoardModeration=true",
        Some(&world.owner_key),
        json!({"name": " Acme Inc "}),
    );
    let res = test::call_service(&svc, req.to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);
    let data = &body(res).await["data"];
    assert_eq!(data["name"], "Acme Inc");
    assert_eq!(data["publicBoardModeration"], true);
}

#[actix_web::test]
async fn a_subscriber_session_from_identify_to_logout() {
    let world = world(RateLimits::default()).await;
    let svc = service!(world);
    let key = world.owner_key.clone();

    let req = post(
        "/v1/public/subscriber.identify",
        Some(&key),
        json!({"email": "Jane.Doe@Example.com", "meta": {"plan": "pro"}}),
    );
    let res = test::call_service(&svc, req.to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);
    let identified = body(res).await;
    assert_eq!(identified["isFirstSignin"], true);
    assert_eq!(identified["data"]["email"], "jane.doe@example.com");
    assert_eq!(identified["data"]["name"], "Jane Doe");
    assert_eq!(identified["data"]["source"], "api");
    assert_eq!(identified["data"]["avatarUrl"], Value::Null);
    assert_eq!(identified["data"]["meta"], json!({"plan": "pro"}));
    let token = identified["code"].as_str().unwrap().to_owned();

    // By header, then by cookie.
    let res = test::call_service(
        &svc,
        post("/v1/public/subscriber.info", Some(&token), json!({})).to_request(),
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(header(&res, "x-ratelimit-limit"), Some("100"));
    assert_eq!(body(res).await["data"]["id"], identified["data"]["id"]);
    let req = post("/v1/public/subscriber.info", None, json!({}))
        .cookie(Cookie::new("publicAccessToken", token.clone()));
    let res = test::call_service(&svc, req.to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);

    // The wrong kind of credential is not enough, either way.
    let res = test::call_service(
        &svc,
        post("/v1/public/subscriber.info", Some(&key), json!({})).to_request(),
    )
    .await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let res = test::call_service(
        &svc,
        post("/v1/teams.info", Some(&token), json!({})).to_request(),
    )
    .await;
    assert_eq!(
        body(res).await,
        json!({"error": "Authentication required", "statusCode": 401})
    );

    let res = test::call_service(
        &svc,
        post("/v1/public/subscriber.logout", Some(&token), json!({})).to_request(),
    )
    .await;
    assert_eq!(body(res).await, json!({"success": true}));
    let res = test::call_service(
        &svc,
        post("/v1/public/subscriber.info", Some(&token), json!({})).to_request(),
    )
    .await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

#[actix_web::test]
async fn an_expired_token_says_so() {
    let world = world(RateLimits::default()).await;
    let svc = service!(world);
    let req = post(
        "/v1/public/subscriber.identify",
        Some(&world.owner_key),
        json!({"email": "a@x.io"}),
    );
    let token = body(test::call_service(&svc, req.to_request()).await).await["code"]
        .as_str()
        .unwrap()
        .to_owned();
    world
        .clock
        .advance(sounding_domain::token::TOKEN_LIFETIME_SECS);
    let res = test::call_service(
        &svc,
        post("/v1/public/subscriber.info", Some(&token), json!({})).to_request(),
    )
    .await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        body(res).await,
        json!({"error": "Token expired", "statusCode": 401})
    );
}

#[actix_web::test]
async fn boards_round_trip_and_the_public_list_shows_public_ones() {
    let world = world(RateLimits::default()).await;
    let svc = service!(world);
    let key = Some(world.owner_key.as_str());
    let call = |path: &'static str, params: Value| {
        let req = post(path, key, params).to_request();
        let svc = &svc;
        async move {
            let res = test::call_service(svc, req).await;
            (res.status(), body(res).await)
        }
    };

    let (status, created) = call(
        "/v1/feedback-boards.create",
        json!({"name": "Feature requests", "meta": {"color": "#3b82f6"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let board = &created["data"];
    assert_eq!(board["slug"], "feature-requests");
    assert_eq!(board["order"], 1);
    assert_eq!(board["feedbackCount"], 0);
    assert_eq!(
        board["meta"],
        json!({"isPublic": true, "allowPublicSubmissions": true, "requireModeration": false, "color": "#3B82F6"})
    );
    let id = board["id"].as_str().unwrap().to_owned();

    let (_, private) = call(
        "/v1/feedback-boards.create",
        json!({"name": "Internal", "order": "5", "meta": {"isPublic": false}}),
    )
    .await;
    assert_eq!(private["data"]["order"], 5);

    let (status, conflict) = call(
        "/v1/feedback-boards.create",
        json!({"name": "Other", "slug": "feature-requests"}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(conflict["statusCode"], 409);

    let (_, list) = call("/v1/feedback-boards.list", json!({"limit": 1})).await;
    assert_eq!(
        list["pagination"],
        json!({"total": 2, "limit": 1, "offset": 0})
    );
    assert_eq!(list["data"][0]["id"], id.as_str());

    let (_, public) = call("/v1/public/feedback-boards.list", json!({})).await;
    assert_eq!(public["pagination"]["total"], 1);
    assert_eq!(public["data"][0]["name"], "Feature requests");

    let (_, updated) = call(
        "/v1/feedback-boards.update",
        json!({"id": id, "description": "Ideas welcome"}),
    )
    .await;
    assert_eq!(updated["data"]["description"], "Ideas welcome");
    assert_eq!(updated["data"]["name"], "Feature requests");

    let (_, info) = call("/v1/feedback-boards.info", json!({"id": id})).await;
    assert_eq!(info["data"]["description"], "Ideas welcome");

    let (status, deleted) = call("/v1/feedback-boards.delete", json!({"id": id})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted, json!({"success": true, "id": id}));
    let (status, missing) = call("/v1/feedback-boards.info", json!({"id": id})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        missing,
        json!({"error": "Board not found", "statusCode": 404})
    );
}

#[actix_web::test]
async fn the_rate_limit_refuses_with_429_and_resets_with_the_window() {
    let world = world(RateLimits {
        per_key_per_minute: 2,
        per_subscriber_per_minute: 1,
    })
    .await;
    let svc = service!(world);
    let key = Some(world.owner_key.as_str());
    for expected in ["1", "0"] {
        let res =
            test::call_service(&svc, post("/v1/teams.info", key, json!({})).to_request()).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(header(&res, "x-ratelimit-remaining"), Some(expected));
    }
    world.clock.advance(20);
    let res = test::call_service(&svc, post("/v1/teams.info", key, json!({})).to_request()).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(header(&res, RETRY_AFTER.as_str()), Some("40"));
    assert_eq!(header(&res, "x-ratelimit-remaining"), Some("0"));
    assert_eq!(
        body(res).await,
        json!({"error": "Too many requests", "statusCode": 429})
    );

    // Anonymous callers have their own, smaller bucket.
    let anonymous = || post("/v1/teams.info", None, json!({})).to_request();
    assert_eq!(
        test::call_service(&svc, anonymous()).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        test::call_service(&svc, anonymous()).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );

    // Health is never limited; the next window starts afresh.
    let res = svc
        .call(TestRequest::get().uri("/healthz").to_request())
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    world.clock.advance(40);
    let res = test::call_service(&svc, post("/v1/teams.info", key, json!({})).to_request()).await;
    assert_eq!(res.status(), StatusCode::OK);
}

#[actix_web::test]
async fn the_openapi_document_is_served_under_both_prefixes() {
    let world = world(RateLimits::default()).await;
    let svc = service!(world);
    for prefix in ["/v1", "/api/v1"] {
        let req = TestRequest::get()
            .uri(&format!("{prefix}/openapi.json"))
            .to_request();
        let res = test::call_service(&svc, req).await;
        assert_eq!(res.status(), StatusCode::OK);
        let bytes = test::read_body(res).await;
        assert_eq!(
            String::from_utf8(bytes.to_vec()).unwrap(),
            crate::openapi_json()
        );
    }
}

/// The parameters of the read below.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Limit {
    limit: Option<u32>,
    note: Option<String>,
}

/// Echoes what a read's answer would be remembered under: the route's name, or `none`.
async fn recalled(
    crate::call::ReadCall(_, (), _, recall): crate::call::ReadCall<(), Limit>,
) -> String {
    recall.map_or("none".to_owned(), |recall| recall.operation.to_owned())
}

#[actix_web::test]
async fn a_read_remembers_its_answers_under_its_routes_own_name() {
    let world = world(RateLimits::default()).await;
    let svc = test::init_service(
        actix_web::App::new()
            .app_data(web::Data::new(world.state.clone()))
            .service(
                web::resource("/named")
                    .app_data(crate::request_metrics::RouteName("public/items.list"))
                    .route(web::post().to(recalled)),
            )
            .service(web::resource("/unnamed").route(web::post().to(recalled))),
    )
    .await;
    let call = |path: &'static str, body: Value| {
        let svc = &svc;
        async move {
            let res = test::call_service(svc, post(path, None, body).to_request()).await;
            assert_eq!(res.status(), StatusCode::OK);
            String::from_utf8(test::read_body(res).await.to_vec()).unwrap()
        }
    };
    assert_eq!(
        call("/named", json!({"limit": 5})).await,
        "public/items.list"
    );
    // Without a name nothing could tell its answers from another read's: never remembered.
    assert_eq!(call("/unnamed", json!({"limit": 5})).await, "none");
    // Parameters too long to keep as sent are never remembered either.
    let long = json!({"limit": 5, "note": "x".repeat(crate::params::MAX_SENT_BYTES)});
    assert_eq!(call("/named", long).await, "none");
}

/// Resolves nothing: these tests make no webhook subscriptions by name.
struct NoNames;

#[async_trait::async_trait]
impl sounding_domain::ports::HostResolver for NoNames {
    async fn resolve(&self, _: &str) -> Vec<std::net::IpAddr> {
        Vec::new()
    }
}
