//! `teams.info` and `teams.update`: the caller's team and its settings (team API key).

use actix_web::HttpResponse;
use sounding_app::teams;

use crate::{
    auth::TeamCaller,
    call::Call,
    dto::{
        common::{ErrorBody, NoParams},
        team::{TeamResponse, UpdateTeamParams},
    },
    error::ApiError,
};

/// The caller's team; confirms that a key works.
#[utoipa::path(
    post,
    path = "/v1/teams.info",
    operation_id = "teams.info",
    tag = "teams",
    request_body(content = NoParams, description = "None; an empty body or `{}`."),
    responses(
        (status = 200, description = "The team.", body = TeamResponse),
        (status = 404, description = "The key's team no longer exists: `Team not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn info(
    Call(state, caller, _): Call<TeamCaller, NoParams>,
) -> Result<HttpResponse, ApiError> {
    let team = teams::team_info(&*state.store, &caller.0).await?;
    Ok(HttpResponse::Ok().json(TeamResponse::from(&team)))
}

/// Changes the team's name and settings (owner or admin key). Only the fields given change.
#[utoipa::path(
    post,
    path = "/v1/teams.update",
    operation_id = "teams.update",
    tag = "teams",
    request_body = UpdateTeamParams,
    responses(
        (status = 200, description = "The updated team.", body = TeamResponse),
        (status = 400, description = "A field is invalid, e.g. `name is required` for an empty name.", body = ErrorBody),
        (status = 403, description = "The key's role may not manage team settings, or it is read-only.", body = ErrorBody),
        (status = 404, description = "`Team not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateTeamParams>,
) -> Result<HttpResponse, ApiError> {
    let team = teams::update_team(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(TeamResponse::from(&team)))
}
