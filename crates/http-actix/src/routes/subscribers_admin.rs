//! `subscribers.list|info|update|delete` (team API key): the team's administration of its
//! subscribers. Any role may manage them; read-only keys may only list and read.

use actix_web::HttpResponse;
use sounding_app::subscribers;

use crate::{
    auth::TeamCaller,
    call::Call,
    dto::{
        access::{IdParams, ListSubscribersParams, SubscriberListResponse, UpdateSubscriberParams},
        common::{DeletedResponse, ErrorBody},
        subscriber::SubscriberResponse,
    },
    error::ApiError,
};

/// The team's subscribers, searchable and sortable. Deleted subscribers are not listed.
#[utoipa::path(
    post,
    path = "/v1/subscribers.list",
    operation_id = "subscribers.list",
    tag = "subscribers",
    request_body = ListSubscribersParams,
    responses(
        (status = 200, description = "One page of subscribers.", body = SubscriberListResponse),
        (status = 400, description = "`sortBy must be one of createdAt, lastUpdated, name, email, mmr`, `limit must be between 1 and 100`, `offset must be 0 or more`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, params): Call<TeamCaller, ListSubscribersParams>,
) -> Result<HttpResponse, ApiError> {
    let page = subscribers::list_subscribers(&*state.store, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(SubscriberListResponse::from(&page)))
}

/// One subscriber of the team, as `identify` returns it.
#[utoipa::path(
    post,
    path = "/v1/subscribers.info",
    operation_id = "subscribers.info",
    tag = "subscribers",
    request_body = IdParams,
    responses(
        (status = 200, description = "The subscriber.", body = SubscriberResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 404, description = "`Subscriber not found` (also once deleted, or another team's).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn info(
    Call(state, caller, params): Call<TeamCaller, IdParams>,
) -> Result<HttpResponse, ApiError> {
    let subscriber =
        subscribers::team_subscriber_info(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(SubscriberResponse::from(&subscriber)))
}

/// Changes a subscriber's name, and merges meta as `identify` does.
#[utoipa::path(
    post,
    path = "/v1/subscribers.update",
    operation_id = "subscribers.update",
    tag = "subscribers",
    request_body = UpdateSubscriberParams,
    responses(
        (status = 200, description = "The updated subscriber.", body = SubscriberResponse),
        (status = 400, description = "A field is invalid, e.g. `name is required`, `meta must be an object`.", body = ErrorBody),
        (status = 403, description = "The key is read-only.", body = ErrorBody),
        (status = 404, description = "`Subscriber not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateSubscriberParams>,
) -> Result<HttpResponse, ApiError> {
    let subscriber =
        subscribers::update_subscriber(&*state.store, &*state.clock, &caller.0, params.into())
            .await?;
    Ok(HttpResponse::Ok().json(SubscriberResponse::from(&subscriber)))
}

/// Deletes a subscriber: personal data erased, tokens refused from the next request on;
/// comments and votes stay, shown as "Deleted subscriber".
#[utoipa::path(
    post,
    path = "/v1/subscribers.delete",
    operation_id = "subscribers.delete",
    tag = "subscribers",
    request_body = IdParams,
    responses(
        (status = 200, description = "Deleted.", body = DeletedResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "The key is read-only.", body = ErrorBody),
        (status = 404, description = "`Subscriber not found` (also when already deleted).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, IdParams>,
) -> Result<HttpResponse, ApiError> {
    let id = subscribers::delete_subscriber(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.id.as_deref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}
