//! Prometheus metrics of the requests (issue 23), recorded through the `metrics` facade; the
//! server crate installs the recorder and serves them on a listener of their own. Labels stay
//! bounded: the operation is the route's name (`feedbacks.create`, `/healthz`), never a path
//! with ids in it, and the status is the HTTP code.

use std::time::Instant;

use actix_web::{
    body::MessageBody,
    dev::{ServiceRequest, ServiceResponse},
    middleware::Next,
    web, Error, HttpRequest,
};

use crate::routes::PREFIXES;

/// Requests answered, by operation and status.
pub const REQUESTS_TOTAL: &str = "sounding_http_requests_total";
/// How long requests took to answer (to the response head), by operation.
pub const REQUEST_DURATION_SECONDS: &str = "sounding_http_request_duration_seconds";
/// Requests refused by the rate limit.
pub const RATE_LIMITED_TOTAL: &str = "sounding_rate_limited_total";
/// The label of requests no route matched.
const UNMATCHED: &str = "unmatched";

/// Describes the metrics recorded here, and exports the rate limit's counter from the start
/// (at 0), for the recorder the server installs.
pub fn describe_metrics() {
    metrics::describe_counter!(
        REQUESTS_TOTAL,
        "HTTP requests answered, by operation and status."
    );
    metrics::describe_histogram!(
        REQUEST_DURATION_SECONDS,
        metrics::Unit::Seconds,
        "Time to answer an HTTP request (to its response head), by operation."
    );
    metrics::describe_counter!(
        RATE_LIMITED_TOTAL,
        "Requests refused by the rate limit (429)."
    );
    metrics::counter!(RATE_LIMITED_TOTAL).absolute(0);
}

/// App data that turns the recording on (the server adds it when metrics are served).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordRequests;

/// Middleware: counts each answer by operation and status and records its duration.
pub(crate) async fn record(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    if req.app_data::<web::Data<RecordRequests>>().is_none() {
        return next.call(req).await;
    }
    let started = Instant::now();
    let res = next.call(req).await?;
    let operation = operation(res.request());
    metrics::histogram!(REQUEST_DURATION_SECONDS, "operation" => operation.clone())
        .record(started.elapsed().as_secs_f64());
    metrics::counter!(
        REQUESTS_TOTAL,
        "operation" => operation,
        "status" => res.status().as_str().to_owned()
    )
    .increment(1);
    Ok(res)
}

/// The operation's name for an API route (`feedbacks.create` under either prefix), the route's
/// pattern for the others (`/healthz`, `/p/{subdomain}`), `unmatched` when none matched.
fn operation(req: &HttpRequest) -> String {
    let Some(pattern) = req.match_pattern() else {
        return UNMATCHED.to_owned();
    };
    PREFIXES
        .iter()
        .find_map(|prefix| pattern.strip_prefix(prefix)?.strip_prefix('/'))
        .map(str::to_owned)
        .unwrap_or(pattern)
}
