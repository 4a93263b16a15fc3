//! `feedbacks.merge` (owner or admin key) and `feedbacks.count` (any key).

use actix_web::HttpResponse;
use sounding_app::feedback;

use crate::{
    auth::TeamCaller,
    call::Call,
    dto::{
        common::ErrorBody,
        tag::{CountFeedbackParams, CountResponse, MergeFeedbackParams, MergeResponse},
    },
    error::ApiError,
};

/// Merges the item `id` into `targetId`, in one transaction: its votes move (a subscriber who
/// voted on both keeps one vote), its comments and followers move (followers once), it is
/// archived with `meta.mergedIntoFeedbackId`, and both items' counts are recomputed. Emits
/// `feedbacks.update` for the target and for the source.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.merge",
    operation_id = "feedbacks.merge",
    tag = "feedbacks",
    request_body = MergeFeedbackParams,
    responses(
        (status = 200, description = "Both items after the merge.", body = MergeResponse),
        (status = 400, description = "`id is required`, `targetId must be a UUID`, `targetId must differ from id: …`, `id names an archived feedback; …`, `targetId names an archived feedback; …`.", body = ErrorBody),
        (status = 403, description = "`The member role cannot manage feedback merges`, `This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found` (either item).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn merge(
    Call(state, caller, params): Call<TeamCaller, MergeFeedbackParams>,
) -> Result<HttpResponse, ApiError> {
    let merged =
        feedback::merge_feedback(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(MergeResponse::from(&merged)))
}

/// The team's items per status (one board's, with `boardId`), archived ones counted apart.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.count",
    operation_id = "feedbacks.count",
    tag = "feedbacks",
    request_body = CountFeedbackParams,
    responses(
        (status = 200, description = "The counts.", body = CountResponse),
        (status = 400, description = "`boardId must be a UUID`.", body = ErrorBody),
        (status = 404, description = "`Board not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn count(
    Call(state, caller, params): Call<TeamCaller, CountFeedbackParams>,
) -> Result<HttpResponse, ApiError> {
    let counts =
        feedback::count_feedback(&*state.store, &caller.0, params.board_id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(CountResponse::from(&counts)))
}
