//! Health endpoints, outside the API prefixes and never rate limited: `GET /healthz` (the
//! process answers) and `GET /readyz` (the database answers too).

use std::time::Duration;

use actix_web::{http::StatusCode, web, HttpResponse};
use serde::Serialize;
use sounding_domain::ports::StoreError;
use utoipa::ToSchema;

use crate::{drain::Traffic, dto::common::ErrorBody, error::ApiError, state::ApiState};

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

/// How long readiness waits for the database. A probe (a load balancer's, an orchestrator's)
/// gets its answer within a second even when the database hangs, or the pool would wait its
/// whole checkout timeout (5 s) for a connection.
const READY_BUDGET: Duration = Duration::from_millis(500);

/// Readiness: the server is not stopping, the database answers a ping within
/// [`READY_BUDGET`] and, after a write failed because it was full, takes a write again.
#[utoipa::path(
    get,
    path = "/readyz",
    operation_id = "readyz",
    tag = "health",
    responses(
        (status = 200, description = "`{\"status\":\"ready\"}`", body = HealthStatus),
        (status = 503, description = "`Service unavailable: the database does not answer` (also when it takes longer than 500 ms); `Service unavailable: the database is full` while it is full; `Service unavailable: the server is shutting down` once it has been told to stop (it still answers requests for a moment, docs/operations.md).", body = ErrorBody),
    ),
)]
pub async fn readyz(
    state: web::Data<ApiState>,
    traffic: Option<web::Data<Traffic>>,
) -> Result<HttpResponse, ApiError> {
    if traffic.is_some_and(|t| t.is_draining()) {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "Service unavailable: the server is shutting down",
        ));
    }
    // The ping left behind runs on to its own end in the blocking pool; its answer is dropped.
    match tokio::time::timeout(READY_BUDGET, state.store.ping()).await {
        Ok(ping) => readiness(ping),
        Err(_) => {
            tracing::warn!(budget = ?READY_BUDGET, "readiness check failed: no answer in time");
            Err(not_answering())
        }
    }
}

fn not_answering() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "Service unavailable: the database does not answer",
    )
}

fn readiness(ping: Result<(), StoreError>) -> Result<HttpResponse, ApiError> {
    match ping {
        Ok(()) => Ok(HttpResponse::Ok().json(HealthStatus { status: "ready" })),
        Err(StoreError::Full(detail)) => {
            tracing::warn!(%detail, "readiness check failed: the database is full");
            Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service unavailable: the database is full",
            ))
        }
        Err(err) => {
            tracing::warn!(error = %err, "readiness check failed");
            Err(not_answering())
        }
    }
}

#[cfg(test)]
mod tests {
    use actix_web::{body::to_bytes, ResponseError};
    use serde_json::{json, Value};

    use super::*;

    async fn answer(ping: Result<(), StoreError>) -> (u16, Value) {
        let response = match readiness(ping) {
            Ok(response) => response,
            Err(err) => err.error_response(),
        };
        let status = response.status().as_u16();
        let bytes = to_bytes(response.into_body()).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[actix_web::test]
    async fn readiness_says_when_the_database_is_full() {
        assert_eq!(answer(Ok(())).await, (200, json!({"status": "ready"})));
        assert_eq!(
            answer(Err(StoreError::Full("database or disk is full".into()))).await,
            (
                503,
                json!({"error": "Service unavailable: the database is full", "statusCode": 503})
            )
        );
        assert_eq!(
            answer(Err(StoreError::Unavailable("refused".into()))).await,
            (
                503,
                json!({"error": "Service unavailable: the database does not answer", "statusCode": 503})
            )
        );
    }
}
