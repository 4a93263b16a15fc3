//! `stages.create|update|delete` (team API key, admin role) and the public reads
//! `public/stages.list` and `public/stages.info` (either credential).

use actix_web::HttpResponse;
use sounding_app::{roadmaps, wire::TopicJson};
use sounding_domain::stage::Stage;

use crate::{
    auth::{AnyCaller, TeamCaller},
    call::Call,
    dto::{
        common::{DeletedResponse, ErrorBody, Pagination},
        roadmap::{
            CreateStageParams, IdForceParams, StageDto, StageInfoParams, StageInfoResponse,
            StageListParams, StageListResponse, StageResponse, UpdateStageParams,
        },
    },
    error::ApiError,
};

fn one(stage: &Stage) -> HttpResponse {
    HttpResponse::Ok().json(StageResponse { data: stage.into() })
}

/// Adds a stage to a roadmap (owner or admin key), at `order` or last; the others move to
/// keep 1, 2, 3… without gaps.
#[utoipa::path(
    post,
    path = "/v1/stages.create",
    operation_id = "stages.create",
    tag = "stages",
    request_body = CreateStageParams,
    responses(
        (status = 200, description = "The new stage, with its final order.", body = StageResponse),
        (status = 400, description = "`name is required`, `roadmapId is required`, `order must be 1 or more`, `meta.isPrivate must be a boolean`.", body = ErrorBody),
        (status = 403, description = "The key's role may not manage stages.", body = ErrorBody),
        (status = 404, description = "`Roadmap not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<TeamCaller, CreateStageParams>,
) -> Result<HttpResponse, ApiError> {
    let stage =
        roadmaps::create_stage(&*state.store, &*state.clock, &caller.0, params.try_into()?).await?;
    Ok(one(&stage))
}

/// Renames a stage, changes its meta, or moves it to `order` (the others renumber).
#[utoipa::path(
    post,
    path = "/v1/stages.update",
    operation_id = "stages.update",
    tag = "stages",
    request_body = UpdateStageParams,
    responses(
        (status = 200, description = "The stage.", body = StageResponse),
        (status = 403, description = "The key's role may not manage stages.", body = ErrorBody),
        (status = 404, description = "`Stage not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateStageParams>,
) -> Result<HttpResponse, ApiError> {
    let stage =
        roadmaps::update_stage(&*state.store, &*state.clock, &caller.0, params.try_into()?).await?;
    Ok(one(&stage))
}

/// Deletes a stage and closes the gap in the order; with topics only when `force`.
#[utoipa::path(
    post,
    path = "/v1/stages.delete",
    operation_id = "stages.delete",
    tag = "stages",
    request_body = IdForceParams,
    responses(
        (status = 200, description = "Deleted.", body = DeletedResponse),
        (status = 404, description = "`Stage not found`.", body = ErrorBody),
        (status = 409, description = "`Stage still holds topics; move them, or pass force: true to delete them too`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, IdForceParams>,
) -> Result<HttpResponse, ApiError> {
    let id = roadmaps::delete_stage(
        &*state.store,
        &caller.0,
        params.id.as_deref(),
        params.force.unwrap_or(false),
    )
    .await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}

/// A roadmap's stages by order; private ones only with `includePrivate` from a team member.
#[utoipa::path(
    post,
    path = "/v1/public/stages.list",
    operation_id = "public/stages.list",
    tag = "stages",
    request_body = StageListParams,
    responses(
        (status = 200, description = "The stages.", body = StageListResponse),
        (status = 400, description = "`roadmapId is required`, `roadmapId must be a UUID`.", body = ErrorBody),
        (status = 404, description = "`Roadmap not found`.", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_list(
    Call(state, caller, params): Call<AnyCaller, StageListParams>,
) -> Result<HttpResponse, ApiError> {
    let stages = roadmaps::list_stages(
        &*state.store,
        &caller.0,
        params.roadmap_id.as_deref(),
        params.include_private.unwrap_or(false),
    )
    .await?;
    Ok(HttpResponse::Ok().json(StageListResponse {
        data: stages.iter().map(|v| StageDto::from(&v.stage)).collect(),
    }))
}

/// A stage with `topicCount` and one page of its published topics. A private stage is not
/// found for callers who are not team members.
#[utoipa::path(
    post,
    path = "/v1/public/stages.info",
    operation_id = "public/stages.info",
    tag = "stages",
    request_body = StageInfoParams,
    responses(
        (status = 200, description = "The stage and its topics.", body = StageInfoResponse),
        (status = 400, description = "`stageId is required`, `sort must be one of createdAt, updatedAt, title, voteCount`, `direction must be one of ASC, DESC`.", body = ErrorBody),
        (status = 404, description = "`Stage not found`.", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_info(
    Call(state, caller, params): Call<AnyCaller, StageInfoParams>,
) -> Result<HttpResponse, ApiError> {
    let (view, topics) = roadmaps::stage_info(&*state.store, &caller.0, params.into()).await?;
    let mut data = StageDto::from(&view.stage);
    data.topic_count = Some(view.topic_count);
    Ok(HttpResponse::Ok().json(StageInfoResponse {
        data,
        topics: topics.items.iter().map(TopicJson::from).collect(),
        pagination: Pagination::of(&topics),
    }))
}
