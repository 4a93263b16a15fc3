//! `roadmaps.create|list|info|update|delete` (team API key; changes need the admin role).

use actix_web::HttpResponse;
use sounding_app::roadmaps;
use sounding_domain::{page::PageRequest, roadmap::Roadmap};

use crate::{
    auth::TeamCaller,
    call::Call,
    dto::{
        common::{paginate, DeletedResponse, ErrorBody},
        roadmap::{
            CreateRoadmapParams, IdForceParams, IdParams, PageParams, RoadmapCreatedResponse,
            RoadmapDto, RoadmapListResponse, RoadmapResponse, StageDto, UpdateRoadmapParams,
        },
    },
    error::ApiError,
};

fn one(roadmap: &Roadmap) -> HttpResponse {
    HttpResponse::Ok().json(RoadmapResponse {
        data: roadmap.into(),
    })
}

/// Creates a roadmap (owner or admin key).
#[utoipa::path(
    post,
    path = "/v1/roadmaps.create",
    operation_id = "roadmaps.create",
    tag = "roadmaps",
    request_body = CreateRoadmapParams,
    responses(
        (status = 200, description = "The new roadmap, and the stages made with it.", body = RoadmapCreatedResponse),
        (status = 400, description = "`name is required`, `name must be at most 255 characters`, `stages[0].name is required`, `stages must hold at most 50 stages`, `Unknown parameter: stages[0].icon`.", body = ErrorBody),
        (status = 403, description = "The key's role may not manage roadmaps, or it is read-only.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<TeamCaller, CreateRoadmapParams>,
) -> Result<HttpResponse, ApiError> {
    let (roadmap, stages) =
        roadmaps::create_roadmap(&*state.store, &*state.clock, &caller.0, params.try_into()?)
            .await?;
    Ok(HttpResponse::Ok().json(RoadmapCreatedResponse {
        data: (&roadmap).into(),
        stages: stages.iter().map(StageDto::from).collect(),
    }))
}

/// The team's roadmaps, oldest first.
#[utoipa::path(
    post,
    path = "/v1/roadmaps.list",
    operation_id = "roadmaps.list",
    tag = "roadmaps",
    request_body = PageParams,
    responses(
        (status = 200, description = "One page of roadmaps.", body = RoadmapListResponse),
        (status = 400, description = "`limit must be between 1 and 100`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, params): Call<TeamCaller, PageParams>,
) -> Result<HttpResponse, ApiError> {
    let page = PageRequest::new(params.limit, params.offset, 100)?;
    let all = roadmaps::list_roadmaps(&*state.store, &caller.0).await?;
    let (data, pagination) = paginate(&all, page, |r| RoadmapDto::from(r));
    Ok(HttpResponse::Ok().json(RoadmapListResponse { data, pagination }))
}

/// One roadmap of the team.
#[utoipa::path(
    post,
    path = "/v1/roadmaps.info",
    operation_id = "roadmaps.info",
    tag = "roadmaps",
    request_body = IdParams,
    responses(
        (status = 200, description = "The roadmap.", body = RoadmapResponse),
        (status = 404, description = "`Roadmap not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn info(
    Call(state, caller, params): Call<TeamCaller, IdParams>,
) -> Result<HttpResponse, ApiError> {
    let roadmap = roadmaps::roadmap_info(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(one(&roadmap))
}

/// Renames or redescribes a roadmap (owner or admin key).
#[utoipa::path(
    post,
    path = "/v1/roadmaps.update",
    operation_id = "roadmaps.update",
    tag = "roadmaps",
    request_body = UpdateRoadmapParams,
    responses(
        (status = 200, description = "The roadmap.", body = RoadmapResponse),
        (status = 403, description = "The key's role may not manage roadmaps.", body = ErrorBody),
        (status = 404, description = "`Roadmap not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateRoadmapParams>,
) -> Result<HttpResponse, ApiError> {
    let roadmap =
        roadmaps::update_roadmap(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(one(&roadmap))
}

/// Deletes a roadmap and its stages (owner or admin key); with topics only when `force`.
#[utoipa::path(
    post,
    path = "/v1/roadmaps.delete",
    operation_id = "roadmaps.delete",
    tag = "roadmaps",
    request_body = IdForceParams,
    responses(
        (status = 200, description = "Deleted.", body = DeletedResponse),
        (status = 403, description = "The key's role may not manage roadmaps.", body = ErrorBody),
        (status = 404, description = "`Roadmap not found`.", body = ErrorBody),
        (status = 409, description = "`Roadmap still holds topics; delete them first or pass force: true`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, IdForceParams>,
) -> Result<HttpResponse, ApiError> {
    let id = roadmaps::delete_roadmap(
        &*state.store,
        &caller.0,
        params.id.as_deref(),
        params.force.unwrap_or(false),
    )
    .await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}
