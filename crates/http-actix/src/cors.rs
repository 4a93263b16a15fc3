//! CORS for the public operations (`/v1/public/*`, `/api/v1/public/*`): a page on one of the
//! operator's listed origins may call them from a browser with a subscriber token. Nothing
//! done with a team API key is ever granted, whatever the path (`public/subscriber.identify`
//! takes only a key, so it is not even preflighted): a key must not live in a web page.
//!
//! Written here rather than with actix-cors: that crate answers a preflight with 200 and a
//! refused origin with a plain-text 400, where this API promises 204 and its JSON error body,
//! and an origin that is not listed should simply get no grant.

use std::sync::Arc;

use actix_web::{
    body::{EitherBody, MessageBody},
    dev::{ServiceRequest, ServiceResponse},
    http::{
        header::{self, HeaderMap, HeaderValue},
        Method,
    },
    middleware::Next,
    web, Error, HttpMessage, HttpResponse,
};
use sounding_domain::{access::Caller, web_origin::WebOrigin};

use crate::{auth::middleware::Authentication, routes::PREFIXES, ApiState};

/// How long a browser may keep a preflight's answer, in seconds.
const MAX_AGE_SECS: &str = "600";
/// The response headers a page's script may read besides the CORS-safelisted ones.
const EXPOSED: &str =
    "x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after, x-request-id";

/// The origins whose pages may call the public operations (`SOUNDING_CORS_ORIGINS`). Empty:
/// no browser access.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrowserOrigins(Arc<[WebOrigin]>);

impl BrowserOrigins {
    /// Grants the listed origins.
    pub fn new(origins: Vec<WebOrigin>) -> Self {
        Self(origins.into())
    }

    fn grants(&self, origin: &HeaderValue) -> bool {
        self.0
            .iter()
            .any(|o| o.as_str().as_bytes() == origin.as_bytes())
    }
}

/// Answers a listed origin's preflight for a public operation with 204 and the grant, and marks
/// the actual answers to it (errors included) as readable by that origin. Anything else goes
/// on untouched: an unlisted origin's preflight meets the route's 405, with no grant.
pub(crate) async fn grant_public_operations(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    if !is_public_operation(req.path()) {
        return Ok(next.call(req).await?.map_into_left_body());
    }
    let granted = req
        .app_data::<web::Data<ApiState>>()
        .zip(req.headers().get(header::ORIGIN))
        .is_some_and(|(state, origin)| state.browser_origins.grants(origin));
    let origin = granted
        .then(|| req.headers().get(header::ORIGIN).cloned())
        .flatten();
    if origin.is_some()
        && req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
    {
        let mut preflight = HttpResponse::NoContent().finish();
        let headers = preflight.headers_mut();
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("POST"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("authorization, content-type"),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static(MAX_AGE_SECS),
        );
        allow(headers, origin);
        return Ok(req.into_response(preflight).map_into_right_body());
    }
    // The layers inside answer their refusals (401, 429) as responses, so those carry the
    // grant too and a page can read why it failed.
    let mut response = next.call(req).await?.map_into_left_body();
    let with_key = response
        .request()
        .extensions()
        .get::<Authentication>()
        .and_then(Authentication::caller)
        .is_some_and(|caller| matches!(caller, Caller::Team(_)));
    let origin = origin.filter(|_| !with_key);
    let headers = response.headers_mut();
    if origin.is_some() {
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSED),
        );
    }
    allow(headers, origin);
    Ok(response)
}

fn allow(headers: &mut HeaderMap, origin: Option<HeaderValue>) {
    if let Some(origin) = origin {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    // Every answer of a public operation may differ by origin: a shared cache must not hand
    // one site's grant (or its absence) to another.
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
}

/// A public operation a browser may call: any under `/public/` but the one that takes only
/// a team key.
fn is_public_operation(path: &str) -> bool {
    PREFIXES.iter().any(|prefix| {
        path.strip_prefix(prefix).is_some_and(|rest| {
            rest.starts_with("/public/") && rest != "/public/subscriber.identify"
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_operations_are_opened() {
        assert!(is_public_operation("/v1/public/feedbacks.list"));
        assert!(is_public_operation("/api/v1/public/subscriber.info"));
        assert!(!is_public_operation("/v1/feedbacks.list"));
        assert!(!is_public_operation("/v1/publicity"));
        assert!(!is_public_operation("/public/feedbacks.list"));
        assert!(!is_public_operation("/v2/public/feedbacks.list"));
        assert!(!is_public_operation("/v1/public/subscriber.identify"));
    }
}
