//! What the fuzz targets share: the whole API assembled in process over the in-memory store,
//! a seeded team to aim requests at, and the one property every response must have.
//!
//! The world is built once per fuzzing process (thread-local: libFuzzer runs targets on one
//! thread) and kept across inputs, so state left by one input is there for the next, as it
//! would be on a real server.

use std::{cell::Cell, rc::Rc, sync::Arc};

use actix_http::Request;
use actix_service::{boxed::BoxService, ServiceExt as _};
use actix_web::{
    body::BoxBody,
    dev::ServiceResponse,
    http::{header::HeaderName, StatusCode},
    rt::{System, SystemRunner},
    test::{self, TestRequest},
};
use serde_json::{json, Value};
use sounding_app::teams::{create_team, NewTeam};
use sounding_domain::{
    ports::{Clock, HostResolver},
    Timestamp,
};
use sounding_http_actix::{application, ApiState, JwtCodec, RateLimits};
use sounding_store_memory::MemoryStore;

/// The secret the world's tokens are signed with; the JWT target forges tokens with others.
pub const SECRET: [u8; 32] = [7; 32];
/// The world's fixed time (2027-01-15); tokens are issued and judged against it.
pub const NOW: i64 = 1_800_000_000;

struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_seconds(NOW).expect("a valid fixed time")
    }
}

/// Webhook targets never resolve: nothing leaves the process.
struct NoNames;

#[async_trait::async_trait]
impl HostResolver for NoNames {
    async fn resolve(&self, _: &str) -> Vec<std::net::IpAddr> {
        Vec::new()
    }
}

/// The application as one boxed service, built once per world: building it per input would
/// cost more than the request.
type AppService = BoxService<Request, ServiceResponse<BoxBody>, actix_web::Error>;

/// A seeded team: its owner key, a subscriber token, and the ids of one object of each kind,
/// which the request target substitutes for placeholders in generated bodies.
pub struct World {
    pub state: ApiState,
    service: AppService,
    pub owner_key: String,
    pub token: String,
    /// `(placeholder, id)`: `$B` board, `$F` feedback, …
    pub ids: Vec<(&'static str, String)>,
}

// Both live for the whole process and are never dropped: libFuzzer ends with `exit`, and
// dropping actix's runtime or the service during thread-local teardown touches thread-locals
// that are already gone.
thread_local! {
    static RUNTIME: &'static SystemRunner = Box::leak(Box::new(System::new()));
    static WORLD: Cell<Option<&'static World>> = const { Cell::new(None) };
}

/// Runs `f` on the process's actix runtime.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    RUNTIME.with(|rt| rt.block_on(f))
}

/// The seeded world, built on first use.
pub fn world() -> &'static World {
    if let Some(world) = WORLD.with(Cell::get) {
        return world;
    }
    let world: &'static World = Box::leak(Box::new(block_on(build_world())));
    WORLD.with(|w| w.set(Some(world)));
    world
}

/// A reply: status and body bytes.
pub struct Reply {
    pub status: StatusCode,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// Sends one request through the whole application (middleware, extractors, handlers).
pub async fn send(world: &World, request: TestRequest) -> Reply {
    call(&world.service, request).await
}

async fn call(service: &AppService, request: TestRequest) -> Reply {
    let response = test::call_service(service, request.to_request()).await;
    let status = response.status();
    let body = test::read_body(response).await.to_vec();
    Reply { status, body }
}

/// A POST of `body` (already bytes) to `path` with optional bearer and content type.
pub fn post(
    path: &str,
    bearer: Option<&str>,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> TestRequest {
    let mut request = TestRequest::post().uri(path).set_payload(body);
    if let Some(bearer) = bearer {
        request = request.insert_header((
            HeaderName::from_static("authorization"),
            format!("Bearer {bearer}"),
        ));
    }
    if let Some(content_type) = content_type {
        request = request.insert_header((HeaderName::from_static("content-type"), content_type));
    }
    request
}

/// The four bodies the interface writes without `statusCode` (docs/api.md, "Errors").
const INTERFACE_BODIES: [(u16, &str); 4] = [
    (400, "cannot publish a topic of private stage"),
    (400, "Bad request"),
    (400, "title is required"),
    (409, "Duplicate vote"),
];

/// The property every response has, whatever was sent: never a server error, and every error
/// is the API's JSON body `{"error": <non-empty string>, "statusCode": <the status>}` (or one
/// of the interface's four literal bodies).
pub fn assert_well_formed(what: &str, reply: &Reply) {
    assert!(
        !reply.status.is_server_error(),
        "{what}: server error {}: {}",
        reply.status,
        String::from_utf8_lossy(&reply.body)
    );
    if reply.status.is_client_error() {
        let body = reply.json();
        let status = reply.status.as_u16();
        let api_body = body["error"].as_str().is_some_and(|e| !e.is_empty())
            && body["statusCode"].as_u64() == Some(u64::from(status));
        let interface_body = INTERFACE_BODIES
            .iter()
            .any(|(code, error)| *code == status && body == serde_json::json!({ "error": error }));
        assert!(
            api_body || interface_body,
            "{what}: {} without the JSON error body: {}",
            reply.status,
            String::from_utf8_lossy(&reply.body)
        );
    }
}

async fn build_world() -> World {
    let store = Arc::new(MemoryStore::new());
    let clock = Arc::new(FixedClock);
    let created = create_team(
        &*store,
        &*clock,
        NewTeam::new("Acme", "acme"),
    )
    .await
    .expect("seed team");
    let state = ApiState {
        store,
        clock,
        tokens: Arc::new(JwtCodec::new(&SECRET).expect("a long enough secret")),
        // The clock never moves, so no window would ever reset.
        limits: RateLimits {
            per_key_per_minute: u32::MAX,
            per_subscriber_per_minute: u32::MAX,
        },
        webhook_policy: Default::default(),
        host_resolver: Arc::new(NoNames),
        outbox_signal: Default::default(),
        browser_origins: Default::default(),
    };
    let service: AppService = actix_service::boxed::service(
        test::init_service(application(state.clone()))
            .await
            .map(ServiceResponse::map_into_boxed_body),
    );
    let service = Rc::new(service);
    let key = created.secret.expose().to_owned();
    let seed_as = |bearer: &str, op: &str, body: Value| {
        let service = service.clone();
        let bearer = bearer.to_owned();
        let path = format!("/v1/{op}");
        async move {
            let reply = call(
                &service,
                post(
                    &path,
                    Some(&bearer),
                    Some("application/json"),
                    body.to_string().into_bytes(),
                ),
            )
            .await;
            assert!(
                reply.status.is_success(),
                "seeding {path}: {}",
                String::from_utf8_lossy(&reply.body)
            );
            reply.json()
        }
    };
    let seed = |op: &str, body: Value| seed_as(&key, op, body);
    let id = |v: &Value| v["id"].as_str().expect("an id").to_owned();

    let identified = seed(
        "public/subscriber.identify",
        json!({"email": "ann@example.com"}),
    )
    .await;
    // The token comes beside the subscriber, as `code`.
    let token = identified["code"].as_str().expect("a token").to_owned();
    let subscriber = identified["data"].clone();
    let board = seed("feedback-boards.create", json!({"name": "Ideas"})).await["data"].clone();
    let feedback = seed(
        "feedbacks.create",
        json!({"title": "Dark mode", "boardId": board["id"]}),
    )
    .await["data"]
        .clone();
    let comment = seed(
        "feedback-comments.create",
        json!({"feedbackId": feedback["id"], "text": "Yes"}),
    )
    .await["data"]
        .clone();
    let roadmap = seed("roadmaps.create", json!({"name": "Product"})).await["data"].clone();
    let stage = seed(
        "stages.create",
        json!({"roadmapId": roadmap["id"], "name": "Next"}),
    )
    .await["data"]
        .clone();
    let topic = seed_as(
        &token,
        "public/topics.create",
        json!({"roadmapId": roadmap["id"], "stageId": stage["id"], "title": "Exports"}),
    )
    .await["data"]
        .clone();
    let tag = seed("tags.create", json!({"name": "ux"})).await["data"].clone();
    let document = seed(
        "documents.create",
        json!({"title": "Guide", "text": "Read me", "publish": true}),
    )
    .await["data"]
        .clone();

    World {
        service: Rc::into_inner(service).expect("seeding is over"),
        state,
        owner_key: key,
        token,
        ids: vec![
            ("$B", id(&board)),
            ("$F", id(&feedback)),
            ("$C", id(&comment)),
            ("$R", id(&roadmap)),
            ("$G", id(&stage)),
            ("$T", id(&topic)),
            ("$L", id(&tag)),
            ("$D", id(&document)),
            ("$S", id(&subscriber)),
        ],
    }
}
