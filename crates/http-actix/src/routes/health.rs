//! Health endpoints, outside the API prefixes and never rate limited: `GET /healthz` (the
//! process answers) and `GET /readyz` (the database answers too).

use actix_web::{web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use crate::{dto::common::ErrorBody, error::ApiError, state::ApiState};

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HealthStatus {
    #[schema(example = "ok")]
    pub status: &'static str,
}

/// Liveness: the process is serving requests.
#[utoipa::path(
    get,
    path = "/healthz",
    operation_id = "healthz",
    tag = "health",
    responses((status = 200, description = "`{\"status\":\"ok\"}`", body = HealthStatus)),
)]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(HealthStatus { status: "ok" })
}

/// Readiness: the database answers a ping.
#[utoipa::path(
    get,
    path = "/readyz",
    operation_id = "readyz",
    tag = "health",
    responses(
        (status = 200, description = "`{\"status\":\"ready\"}`", body = HealthStatus),
        (status = 503, description = "The database does not answer.", body = ErrorBody),
    ),
)]
pub async fn readyz(state: web::Data<ApiState>) -> Result<HttpResponse, ApiError> {
    match state.store.ping().await {
        Ok(()) => Ok(HttpResponse::Ok().json(HealthStatus { status: "ready" })),
        Err(err) => {
            tracing::warn!(error = %err, "readiness check failed");
            Err(ApiError::unavailable())
        }
    }
}
