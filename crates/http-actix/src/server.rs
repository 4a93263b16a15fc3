//! Assembling the actix application and server: app data, framework error handlers that
//! answer with the API's JSON error body, request tracing with a request id, the routes, and
//! the server's timeouts and graceful shutdown.

use std::{any::Any, net::TcpListener, time::Duration};

use actix_web::{
    body::MessageBody,
    dev::{Server, ServiceFactory, ServiceRequest, ServiceResponse},
    error::{JsonPayloadError, PathError, QueryPayloadError},
    http::header::{HeaderName, HeaderValue},
    middleware::{from_fn, Next},
    web, App, Error, HttpMessage, HttpServer,
};
use futures_util::future::LocalBoxFuture;
use tracing::Span;
use tracing_actix_web::{DefaultRootSpanBuilder, RequestId, RootSpanBuilder, TracingLogger};

use crate::{
    drain::{self, Traffic},
    error::ApiError,
    params::{BodyDeadline, MAX_BODY_BYTES},
    rate_limit::RateLimiter,
    request_metrics::{self, RecordRequests},
    routes, ApiState,
};

#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Worker threads; `None` (or 0) for one per CPU core.
    pub workers: Option<usize>,
    /// How long a graceful shutdown waits for requests in flight.
    pub shutdown_timeout_secs: u64,
    /// How long a client may take to send a request's head.
    pub client_request_timeout: Duration,
    /// How long a client may take to send a request's body (actix bounds only the head).
    pub request_body_timeout: Duration,
    /// How long an idle keep-alive connection stays open.
    pub keep_alive: Duration,
    /// Threads of each worker's blocking pool (where the store runs its queries); `None` for
    /// actix's default (512 shared by the workers). A store with a pool of N connections
    /// gains nothing from more than N: the extra threads only wait for a connection, each
    /// with its own stack and malloc arena (64 of them under `cargo xtask bench`).
    pub max_blocking_threads: Option<usize>,
    /// Records request metrics through the `metrics` facade (`request_metrics`).
    pub metrics: bool,
    /// What each request's handling runs inside, after the tracing and metrics middleware:
    /// the store's, when it has one (`sounding_store_diesel::one_request`).
    pub request_scope: Option<RequestScope>,
}

/// A request's handling, as a `RequestScope` gets it and gives it back: its outcome is
/// type-erased so that the response body keeps its type (boxing it would cost large answers
/// their single write).
pub type ScopedRequest = LocalBoxFuture<'static, Box<dyn Any>>;

/// Runs around the handling of each request: lets a store tie the calls of one request
/// together (task-locals set while the handling runs) without the HTTP adapter knowing how.
pub type RequestScope = fn(ScopedRequest) -> ScopedRequest;

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            workers: None,
            shutdown_timeout_secs: 30,
            client_request_timeout: Duration::from_secs(5),
            request_body_timeout: Duration::from_secs(10),
            keep_alive: Duration::from_secs(5),
            max_blocking_threads: None,
            metrics: false,
            request_scope: None,
        }
    }
}

/// The HTTP server on an already bound listener (bind port 0 to let the OS choose). The
/// returned server runs when awaited or spawned, within a Tokio or actix runtime, and stops
/// through its handle. It installs no signal handlers: actix would treat SIGINT as a forced
/// stop, and an embedding process owns its signals; `sounding serve` maps both SIGINT and
/// SIGTERM to a graceful stop.
///
/// `traffic` counts the requests in flight: stop the server with [`Traffic::stop`] so that
/// nothing a client already sent goes unanswered (`drain`).
pub fn http_server(
    listener: TcpListener,
    state: ApiState,
    options: HttpOptions,
    traffic: Traffic,
) -> std::io::Result<Server> {
    let limiter = web::Data::new(RateLimiter::new(state.limits));
    let state = web::Data::new(state);
    let traffic = web::Data::new(traffic);
    let body_deadline = BodyDeadline(options.request_body_timeout);
    let record_requests = options.metrics.then(|| web::Data::new(RecordRequests));
    let request_scope = options.request_scope.map(InScope);
    let mut server = HttpServer::new(move || {
        let app = app(state.clone(), limiter.clone())
            .app_data(body_deadline)
            .app_data(traffic.clone());
        let app = match &record_requests {
            Some(record) => app.app_data(record.clone()),
            None => app,
        };
        let app = match request_scope {
            Some(scope) => app.app_data(scope),
            None => app,
        };
        app.wrap(from_fn(in_scope))
            .wrap(from_fn(request_metrics::record))
            // Outermost, so a request counts from its first middleware to its last.
            .wrap(from_fn(drain::track))
    })
    .disable_signals()
    .shutdown_timeout(options.shutdown_timeout_secs)
    .client_request_timeout(options.client_request_timeout)
    .keep_alive(options.keep_alive);
    if let Some(workers) = options.workers.filter(|n| *n > 0) {
        server = server.workers(workers);
    }
    if let Some(threads) = options.max_blocking_threads.filter(|n| *n > 0) {
        server = server.worker_max_blocking_threads(threads);
    }
    Ok(server.listen(listener)?.run())
}

/// The type of the assembled application, written once for `application` and `app`: an
/// `impl Trait` return type cannot be named by a type alias on stable Rust.
macro_rules! assembled_app {
    () => {
        App<
            impl ServiceFactory<
                ServiceRequest,
                Config = (),
                Response = ServiceResponse<impl MessageBody>,
                Error = Error,
                InitError = (),
            >,
        >
    };
}

/// The assembled application over `state`, without a listener or server options: for
/// driving the API in process (the fuzz targets, embedding it in another actix server). Each
/// call makes its own rate limiter.
pub fn application(state: ApiState) -> assembled_app!() {
    let limiter = web::Data::new(RateLimiter::new(state.limits));
    app(web::Data::new(state), limiter)
}

/// The whole application; one per worker, sharing the state and the rate limiter.
pub(crate) fn app(state: web::Data<ApiState>, limiter: web::Data<RateLimiter>) -> assembled_app!() {
    App::new()
        .app_data(state)
        .app_data(limiter)
        .app_data(json_config())
        .app_data(query_config())
        .app_data(path_config())
        .configure(routes::configure)
        .default_service(web::to(routes::fallback::not_found))
        .wrap(from_fn(echo_request_id))
        .wrap(TracingLogger::<RequestSpan>::new())
}

/// tracing-actix-web's request span, built only when the log would record it. Building it
/// reads the connection's addresses, host and user agent into strings before `span!` can tell
/// that the span is off: 5 % of `/healthz`'s CPU with the access log off (`SOUNDING_LOG=warn`,
/// docs/benchmarks.md). When it is on, the span is tracing-actix-web's, unchanged.
pub(crate) struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        // The target and level `DefaultRootSpanBuilder` gives its span.
        if tracing::enabled!(
            target: "tracing_actix_web::root_span_builder",
            tracing::Level::INFO
        ) {
            DefaultRootSpanBuilder::on_request_start(request)
        } else {
            Span::none()
        }
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}

/// The server's `RequestScope`, as app data.
#[derive(Clone, Copy)]
struct InScope(RequestScope);

/// Runs the rest of the request's handling in the server's `RequestScope`, if it has one.
async fn in_scope<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<B>, Error> {
    let Some(InScope(scope)) = req.app_data::<InScope>().copied() else {
        return next.call(req).await;
    };
    let handled = scope(Box::pin(async move {
        Box::new(next.call(req).await) as Box<dyn Any>
    }))
    .await;
    match handled.downcast::<Result<ServiceResponse<B>, Error>>() {
        Ok(handled) => *handled,
        Err(_) => Err(actix_web::error::ErrorInternalServerError(
            "the request scope gave back something else than the request's outcome",
        )),
    }
}

/// Every response names the request id its log lines carry.
async fn echo_request_id(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let id = req.extensions().get::<RequestId>().copied();
    let mut res = next.call(req).await?;
    if let Some(id) = id {
        // Formatted on the stack: this runs for every response, `/healthz` included.
        let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
        if let Ok(value) = HeaderValue::from_str(id.hyphenated().encode_lower(&mut text)) {
            res.headers_mut()
                .insert(HeaderName::from_static("x-request-id"), value);
        }
    }
    Ok(res)
}

// The operations read their parameters with `Params`; these configure actix's own extractors
// so that, should one be used, its errors still come out as the API's JSON body.

fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(MAX_BODY_BYTES)
        .error_handler(|err, _| {
            match err {
                JsonPayloadError::OverflowKnownLength { .. }
                | JsonPayloadError::Overflow { .. } => ApiError::payload_too_large(),
                JsonPayloadError::ContentType => ApiError::unsupported_media_type(),
                other => ApiError::bad_request(format!("Request body is not valid JSON: {other}")),
            }
            .into()
        })
}

fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err: QueryPayloadError, _| {
        ApiError::bad_request(format!("Query string is malformed: {err}")).into()
    })
}

fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|_: PathError, _| ApiError::not_found().into())
}

#[cfg(test)]
mod tests {
    use actix_web::{test, HttpResponse};
    use tracing_subscriber::EnvFilter;

    use super::*;

    /// What a handler sees of its request's span, under a log filter of `filter`.
    async fn request_span_under(filter: &str) -> (String, bool) {
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(EnvFilter::new(filter))
            .with_writer(std::io::sink)
            .finish();
        let _default = tracing::subscriber::set_default(subscriber);
        let app = test::init_service(
            App::new()
                .wrap(from_fn(echo_request_id))
                .wrap(TracingLogger::<RequestSpan>::new())
                .route(
                    "/",
                    web::get().to(|| async {
                        let span = Span::current();
                        HttpResponse::Ok().body(if span.is_none() { "none" } else { "span" })
                    }),
                ),
        )
        .await;
        let response = test::call_service(&app, test::TestRequest::get().to_request()).await;
        let has_request_id = response.headers().contains_key("x-request-id");
        let body = test::read_body(response).await;
        (String::from_utf8_lossy(&body).into_owned(), has_request_id)
    }

    #[actix_web::test]
    async fn the_request_span_is_built_only_when_the_log_records_it() {
        assert_eq!(request_span_under("warn").await, ("none".into(), true));
        assert_eq!(request_span_under("info").await, ("span".into(), true));
        assert_eq!(
            request_span_under("warn,tracing_actix_web=info").await,
            ("span".into(), true)
        );
    }
}
