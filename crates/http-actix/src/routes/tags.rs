//! `tags.create|list|update|delete` (team API key): any role manages tags; read-only keys list.

use actix_web::HttpResponse;
use sounding_app::tags;

use crate::{
    auth::TeamCaller,
    call::Call,
    dto::{
        common::{DeletedResponse, ErrorBody, NoParams},
        tag::{
            CreateTagParams, TagDto, TagIdParams, TagListResponse, TagResponse, UpdateTagParams,
        },
    },
    error::ApiError,
};

/// Creates a tag.
#[utoipa::path(
    post,
    path = "/v1/tags.create",
    operation_id = "tags.create",
    tag = "tags",
    request_body = CreateTagParams,
    responses(
        (status = 200, description = "The new tag.", body = TagResponse),
        (status = 400, description = "`name is required`, `name must be at most 50 characters`, `color must be a hex color like #3B82F6`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 409, description = "`A tag named <name> already exists` (names are compared ignoring case).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<TeamCaller, CreateTagParams>,
) -> Result<HttpResponse, ApiError> {
    let tag = tags::create_tag(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(TagResponse::from(&tag)))
}

/// Every tag of the team, by name ignoring case; not paginated.
#[utoipa::path(
    post,
    path = "/v1/tags.list",
    operation_id = "tags.list",
    tag = "tags",
    request_body = NoParams,
    responses(
        (status = 200, description = "The team's tags.", body = TagListResponse),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, _): Call<TeamCaller, NoParams>,
) -> Result<HttpResponse, ApiError> {
    let all = tags::list_tags(&*state.store, &caller.0).await?;
    Ok(HttpResponse::Ok().json(TagListResponse {
        data: all.iter().map(TagDto::from).collect(),
    }))
}

/// Renames or recolours a tag: only the fields given change. Items carrying it show the change.
#[utoipa::path(
    post,
    path = "/v1/tags.update",
    operation_id = "tags.update",
    tag = "tags",
    request_body = UpdateTagParams,
    responses(
        (status = 200, description = "The updated tag.", body = TagResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`, `name is required`, `color must be a hex color like #3B82F6`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Tag not found`.", body = ErrorBody),
        (status = 409, description = "`A tag named <name> already exists`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateTagParams>,
) -> Result<HttpResponse, ApiError> {
    let (id, input) = params.into_parts();
    let tag = tags::update_tag(
        &*state.store,
        &*state.clock,
        &caller.0,
        id.as_deref(),
        input,
    )
    .await?;
    Ok(HttpResponse::Ok().json(TagResponse::from(&tag)))
}

/// Deletes a tag and takes it off every item carrying it.
#[utoipa::path(
    post,
    path = "/v1/tags.delete",
    operation_id = "tags.delete",
    tag = "tags",
    request_body = TagIdParams,
    responses(
        (status = 200, description = "Deleted.", body = DeletedResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Tag not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, TagIdParams>,
) -> Result<HttpResponse, ApiError> {
    let id = tags::delete_tag(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}
