//! The adapter's one error type, [`ApiError`]: an HTTP status and the JSON error body
//! `{"error": <message>, "statusCode": <status>}` (decisions §7). Every failure a client can
//! see goes through it: use-case errors, bad parameters, framework errors, 404/405/429.

use std::fmt;

use actix_web::{http::StatusCode, HttpResponse, ResponseError};
use sounding_app::{AppError, Literal};
use sounding_domain::{ports::StoreError, DomainError};

use crate::dto::common::ErrorBody;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    /// `false` only for the literal bodies of interface §7, sent without `statusCode`.
    with_status_code: bool,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            with_status_code: true,
        }
    }

    /// A body of exactly `{"error": message}`.
    fn literal(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            with_status_code: false,
            ..Self::new(status, message)
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn authentication_required() -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "Authentication required")
    }

    pub fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "Not found")
    }

    pub fn method_not_allowed() -> Self {
        Self::new(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed")
    }

    pub fn payload_too_large() -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Request body is larger than 1 MiB",
        )
    }

    /// The body did not arrive within `limit`: 408, and actix closes the connection.
    pub fn body_timeout(limit: std::time::Duration) -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "Request body was not received within {} ms",
                limit.as_millis()
            ),
        )
    }

    pub fn unsupported_media_type() -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type must be application/json",
        )
    }

    pub fn too_many_requests() -> Self {
        Self::new(StatusCode::TOO_MANY_REQUESTS, "Too many requests")
    }

    pub fn unavailable() -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "Service unavailable")
    }

    /// The database or its disk is full (`StoreError::Full`): nothing was written.
    pub fn insufficient_storage() -> Self {
        Self::new(
            StatusCode::INSUFFICIENT_STORAGE,
            "Insufficient storage: the database is full",
        )
    }

    pub fn internal() -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error")
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: self.message.clone(),
            status_code: self.with_status_code.then_some(self.status.as_u16()),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.message)
    }
}

impl std::error::Error for ApiError {}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status).json(self.body())
    }
}

impl From<AppError> for ApiError {
    fn from(err: AppError) -> Self {
        match err {
            AppError::Auth(auth) => Self::new(StatusCode::UNAUTHORIZED, auth.to_string()),
            AppError::Domain(domain) => domain.into(),
            AppError::Literal(literal) => {
                let status = match literal {
                    Literal::PrivateStageTopic | Literal::BadRequest | Literal::TitleRequired => {
                        StatusCode::BAD_REQUEST
                    }
                    Literal::DuplicateVote => StatusCode::CONFLICT,
                };
                Self::literal(status, literal.to_string())
            }
            AppError::Store(store) => store.into(),
        }
    }
}

impl From<DomainError> for ApiError {
    fn from(err: DomainError) -> Self {
        let status = match &err {
            DomainError::Invalid(_) => StatusCode::BAD_REQUEST,
            DomainError::NotFound(_) => StatusCode::NOT_FOUND,
            DomainError::Forbidden(_) => StatusCode::FORBIDDEN,
            DomainError::Conflict(_) => StatusCode::CONFLICT,
        };
        // The domain's messages are written for clients: "Board not found", "name is required".
        Self::new(status, err.to_string())
    }
}

impl From<StoreError> for ApiError {
    /// Storage details stay in the log; the client gets a generic message.
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Unavailable(detail) => {
                tracing::error!(%detail, "storage unavailable");
                Self::unavailable()
            }
            StoreError::Full(detail) => {
                tracing::error!(%detail, "storage full");
                Self::insufficient_storage()
            }
            StoreError::Failure(detail) => {
                tracing::error!(%detail, "storage failure");
                Self::internal()
            }
            StoreError::Refused(domain) => domain.into(),
            // A uniqueness rule the use case did not expect (it maps the ones it does).
            StoreError::Conflict(rule) => {
                tracing::warn!(%rule, "unexpected storage conflict");
                Self::new(
                    StatusCode::CONFLICT,
                    "The request conflicts with the current state; retry it",
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::to_bytes;
    use serde_json::{json, Value};
    use sounding_app::AuthError;
    use sounding_domain::Entity;

    async fn rendered(err: impl Into<ApiError>) -> (u16, Value) {
        let response = err.into().error_response();
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        assert_eq!(content_type.as_deref(), Some("application/json"));
        let bytes = to_bytes(response.into_body()).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[actix_web::test]
    async fn auth_errors_are_401_with_their_exact_messages() {
        assert_eq!(
            rendered(AppError::Auth(AuthError::Required)).await,
            (
                401,
                json!({"error": "Authentication required", "statusCode": 401})
            )
        );
        assert_eq!(
            rendered(AppError::Auth(AuthError::Expired)).await,
            (401, json!({"error": "Token expired", "statusCode": 401}))
        );
    }

    #[actix_web::test]
    async fn domain_errors_map_to_their_statuses() {
        let cases = [
            (
                DomainError::invalid("name is required"),
                400,
                "name is required",
            ),
            (DomainError::NotFound(Entity::Board), 404, "Board not found"),
            (
                DomainError::NotFound(Entity::ApiKey),
                404,
                "API key not found",
            ),
            (
                DomainError::Forbidden("The member role cannot manage boards".into()),
                403,
                "The member role cannot manage boards",
            ),
            (
                DomainError::Conflict("A board with slug ideas already exists".into()),
                409,
                "A board with slug ideas already exists",
            ),
        ];
        for (err, status, message) in cases {
            assert_eq!(
                rendered(AppError::Domain(err)).await,
                (status, json!({"error": message, "statusCode": status}))
            );
        }
    }

    #[actix_web::test]
    async fn literal_errors_have_no_status_code_in_the_body() {
        let cases = [
            (
                Literal::PrivateStageTopic,
                400,
                "cannot publish a topic of private stage",
            ),
            (Literal::BadRequest, 400, "Bad request"),
            (Literal::TitleRequired, 400, "title is required"),
            (Literal::DuplicateVote, 409, "Duplicate vote"),
        ];
        for (literal, status, message) in cases {
            assert_eq!(
                rendered(AppError::Literal(literal)).await,
                (status, json!({ "error": message }))
            );
        }
    }

    #[actix_web::test]
    async fn storage_errors_hide_their_detail() {
        assert_eq!(
            rendered(AppError::Store(StoreError::Unavailable(
                "pool timed out".into()
            )))
            .await,
            (
                503,
                json!({"error": "Service unavailable", "statusCode": 503})
            )
        );
        assert_eq!(
            rendered(AppError::Store(StoreError::Failure(
                "syntax error at SELECT".into()
            )))
            .await,
            (
                500,
                json!({"error": "Internal server error", "statusCode": 500})
            )
        );
        assert_eq!(
            rendered(AppError::Store(StoreError::Full(
                "database or disk is full".into()
            )))
            .await,
            (
                507,
                json!({"error": "Insufficient storage: the database is full", "statusCode": 507})
            )
        );
        let (status, body) = rendered(AppError::Store(StoreError::Conflict(
            sounding_domain::ports::Conflict::BoardSlug,
        )))
        .await;
        assert_eq!(status, 409);
        assert!(!body.to_string().contains("board_slug"));
    }

    #[actix_web::test]
    async fn adapter_errors_use_the_same_body() {
        assert_eq!(
            rendered(ApiError::too_many_requests()).await,
            (
                429,
                json!({"error": "Too many requests", "statusCode": 429})
            )
        );
        assert_eq!(
            rendered(ApiError::payload_too_large()).await,
            (
                413,
                json!({"error": "Request body is larger than 1 MiB", "statusCode": 413})
            )
        );
    }
}
