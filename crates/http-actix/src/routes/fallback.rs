//! What answers when no operation does: 404 for unknown paths and operations, 405 (with
//! `Allow`) for a known path asked with the wrong method. Always the JSON error body.

use actix_web::{
    http::{
        header::{HeaderValue, ALLOW},
        StatusCode,
    },
    HttpRequest, HttpResponse, ResponseError,
};

use super::operation_name;
use crate::error::ApiError;

/// Any path outside the API: `Not found`.
pub async fn not_found() -> HttpResponse {
    ApiError::not_found().error_response()
}

/// A path under an API prefix that names no operation: `Unknown operation <name>`, where the
/// name is the path after the prefix (`public/nope.list`).
pub async fn unknown_operation(req: HttpRequest) -> HttpResponse {
    let error = match operation_name(req.path()) {
        Some(name) => ApiError::new(StatusCode::NOT_FOUND, format!("Unknown operation {name}")),
        None => ApiError::not_found(),
    };
    error.error_response()
}

/// An operation asked with another method than POST.
pub async fn post_only() -> HttpResponse {
    method_not_allowed("POST")
}

/// A document or probe asked with another method than GET.
pub async fn get_only() -> HttpResponse {
    method_not_allowed("GET")
}

fn method_not_allowed(allow: &'static str) -> HttpResponse {
    let mut response = ApiError::method_not_allowed().error_response();
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operation_name_is_the_path_after_the_prefix() {
        assert_eq!(
            operation_name("/v1/public/nope.list"),
            Some("public/nope.list")
        );
        assert_eq!(operation_name("/api/v1/teams.nope"), Some("teams.nope"));
        assert_eq!(operation_name("/v1/"), None);
        assert_eq!(operation_name("/v1"), None);
    }
}
