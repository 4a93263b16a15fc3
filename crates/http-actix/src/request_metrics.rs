//! Prometheus metrics of the requests (issue 23), recorded through the `metrics` facade; the
//! server crate installs the recorder and serves them on a listener of their own. Labels stay
//! bounded: the operation is the route's name (`feedbacks.create`, `/healthz`) or pattern
//! (`/p/{subdomain}`), never a path with ids in it, and the status is the HTTP code.

use std::time::Instant;

use actix_web::{
    body::MessageBody,
    dev::{ServiceRequest, ServiceResponse},
    http::StatusCode,
    middleware::Next,
    web, Error, HttpRequest,
};
use metrics::SharedString;

use crate::routes::operation_name;

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

/// A route's name in the metrics, set on its resource (`app_data`): recording then needs no
/// second match of the path against the route table, nor an allocation for the label.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RouteName(pub &'static str);

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
        "status" => status(res.status())
    )
    .increment(1);
    Ok(res)
}

/// The route's [`RouteName`] (every operation's name, the same under either prefix); else the
/// operation's name from the route's pattern, the pattern itself outside the API
/// (`/p/{subdomain}`), or `unmatched` when no route matched.
fn operation(req: &HttpRequest) -> SharedString {
    if let Some(RouteName(name)) = req.app_data::<RouteName>() {
        return SharedString::const_str(name);
    }
    // Answered before routing reached the resource (a refusal of the rate limit or of
    // authentication): its pattern, with the API prefix taken off.
    let Some(pattern) = req.match_pattern() else {
        return SharedString::const_str(UNMATCHED);
    };
    match operation_name(&pattern) {
        Some(operation) => SharedString::from(operation.to_owned()),
        None => SharedString::from(pattern),
    }
}

/// The status code as a label, without an allocation for the codes the API answers with.
fn status(code: StatusCode) -> SharedString {
    const KNOWN: [&str; 18] = [
        "200", "201", "204", "304", "400", "401", "403", "404", "405", "408", "409", "413", "415",
        "422", "429", "500", "503", "507",
    ];
    let text = code.as_str();
    match KNOWN.iter().find(|known| **known == text) {
        Some(known) => SharedString::const_str(known),
        None => SharedString::from(text.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use actix_web::{middleware::from_fn, test as actix_test, App, HttpResponse};

    use super::*;

    async fn label_of(
        req: ServiceRequest,
        next: Next<impl MessageBody>,
    ) -> Result<ServiceResponse<impl MessageBody>, Error> {
        let mut res = next.call(req).await?;
        let label = operation(res.request()).to_string();
        res.headers_mut().insert(
            actix_web::http::header::HeaderName::from_static("x-label"),
            label.parse().unwrap(),
        );
        Ok(res)
    }

    #[actix_web::test]
    async fn a_named_route_is_labelled_by_its_name_others_by_pattern_or_unmatched() {
        let app = actix_test::init_service(
            App::new()
                .service(
                    web::resource("/v1/items.{anything}")
                        .app_data(RouteName("items.named"))
                        .to(HttpResponse::Ok),
                )
                .service(web::resource("/p/{team}").to(HttpResponse::Ok))
                .service(web::resource("/api/v1/unnamed.op").to(HttpResponse::Ok))
                .wrap(from_fn(label_of)),
        )
        .await;
        for (path, label) in [
            ("/v1/items.x", "items.named"),
            ("/p/acme-42", "/p/{team}"),
            ("/api/v1/unnamed.op", "unnamed.op"),
            ("/nothing/9", "unmatched"),
        ] {
            let req = actix_test::TestRequest::get().uri(path).to_request();
            let res = actix_test::call_service(&app, req).await;
            assert_eq!(res.headers().get("x-label").unwrap(), label, "{path}");
        }
    }

    #[test]
    fn status_labels_are_the_codes() {
        assert_eq!(&*status(StatusCode::TOO_MANY_REQUESTS), "429");
        assert_eq!(&*status(StatusCode::IM_A_TEAPOT), "418");
    }
}
