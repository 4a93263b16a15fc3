//! `api-keys.list|create|delete` (admin API key): the team's keys. Lists never show a key or
//! its hash; creation shows the key once.

use actix_web::HttpResponse;
use sounding_app::api_keys;

use crate::{
    auth::TeamCaller,
    call::Call,
    dto::{
        access::{ApiKeyListResponse, CreateApiKeyParams, CreatedApiKeyResponse, IdParams},
        common::{DeletedResponse, ErrorBody, NoParams},
    },
    error::ApiError,
};

/// The team's API keys, oldest first, without the keys themselves.
#[utoipa::path(
    post,
    path = "/v1/api-keys.list",
    operation_id = "api-keys.list",
    tag = "api-keys",
    request_body(content = NoParams, description = "None; an empty body or `{}`."),
    responses(
        (status = 200, description = "Every key of the team.", body = ApiKeyListResponse),
        (status = 403, description = "The key's role may not manage API keys, or it is read-only.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, _): Call<TeamCaller, NoParams>,
) -> Result<HttpResponse, ApiError> {
    let keys = api_keys::list_api_keys(&*state.store, &caller.0).await?;
    Ok(HttpResponse::Ok().json(ApiKeyListResponse {
        data: keys.iter().map(Into::into).collect(),
    }))
}

/// Creates a key for the calling key's user, with the caller's role or a lower one.
#[utoipa::path(
    post,
    path = "/v1/api-keys.create",
    operation_id = "api-keys.create",
    tag = "api-keys",
    request_body = CreateApiKeyParams,
    responses(
        (status = 200, description = "The new key, with the key itself shown this once.", body = CreatedApiKeyResponse),
        (status = 400, description = "`role must be one of owner, admin, member`, `readOnly must be a boolean`.", body = ErrorBody),
        (status = 403, description = "Not an admin key, read-only, or a role above the caller's: `The admin role cannot create a key with the owner role`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<TeamCaller, CreateApiKeyParams>,
) -> Result<HttpResponse, ApiError> {
    let (key, secret) =
        api_keys::issue_api_key(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(CreatedApiKeyResponse::new(&key, &secret)))
}

/// Deletes one of the team's keys; the next request with it fails with 401.
#[utoipa::path(
    post,
    path = "/v1/api-keys.delete",
    operation_id = "api-keys.delete",
    tag = "api-keys",
    request_body = IdParams,
    responses(
        (status = 200, description = "Deleted.", body = DeletedResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "The key's role may not manage API keys, or it is read-only.", body = ErrorBody),
        (status = 404, description = "`API key not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, IdParams>,
) -> Result<HttpResponse, ApiError> {
    let id = api_keys::delete_api_key(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}
