//! Votes on feedback: `public/feedback-votes.create|delete` (subscriber token),
//! `feedbacks.vote|unvote` (team API key, on behalf of a subscriber) and
//! `public/feedback-votes.info` (either credential).

use actix_web::HttpResponse;
use sounding_app::feedback_votes;

use crate::{
    auth::{AnyCaller, SubscriberCaller, TeamCaller},
    call::Call,
    dto::{
        common::ErrorBody,
        feedback::{
            OnBehalfVoteParams, PublicFeedbackIdParams, VoteCreatedResponse, VoteDeletedResponse,
            VoteInfoResponse,
        },
    },
    error::ApiError,
};

/// Votes for an item as the calling subscriber; one vote per subscriber per item. Emits
/// `new_feedback_vote`.
#[utoipa::path(
    post,
    path = "/v1/public/feedback-votes.create",
    operation_id = "public/feedback-votes.create",
    tag = "feedback-votes",
    request_body = PublicFeedbackIdParams,
    responses(
        (status = 200, description = "The vote and the item's count after it.", body = VoteCreatedResponse),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
        (status = 409, description = "`You have already voted on this feedback; delete the vote first`; nothing changes.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<SubscriberCaller, PublicFeedbackIdParams>,
) -> Result<HttpResponse, ApiError> {
    let (vote, total_votes) = feedback_votes::cast_vote(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.feedback_id.as_deref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(VoteCreatedResponse::new(&vote, total_votes)))
}

/// Removes the calling subscriber's vote, if any. Idempotent.
#[utoipa::path(
    post,
    path = "/v1/public/feedback-votes.delete",
    operation_id = "public/feedback-votes.delete",
    tag = "feedback-votes",
    request_body = PublicFeedbackIdParams,
    responses(
        (status = 200, description = "No vote of the caller remains; the item's count.", body = VoteDeletedResponse),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<SubscriberCaller, PublicFeedbackIdParams>,
) -> Result<HttpResponse, ApiError> {
    let total_votes =
        feedback_votes::retract_vote(&*state.store, &caller.0, params.feedback_id.as_deref())
            .await?;
    Ok(HttpResponse::Ok().json(VoteDeletedResponse::new(total_votes)))
}

/// Votes for an item on behalf of a subscriber (by `subscriberId`, or `email` — created when
/// new — or else the key's user's), on any item of the team, unpublished or archived too. The
/// same one-vote rule and answers as `public/feedback-votes.create`. Emits `new_feedback_vote`
/// with `onBehalf: true`.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.vote",
    operation_id = "feedbacks.vote",
    tag = "feedback-votes",
    request_body = OnBehalfVoteParams,
    responses(
        (status = 200, description = "The vote and the item's count after it.", body = VoteCreatedResponse),
        (status = 400, description = "`feedbackId is required`, `feedbackId must be a UUID`, `subscriberId must be a UUID`, `email must be a valid e-mail address`, `give subscriberId or email, not both`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found` (also another team's item), `Subscriber not found`.", body = ErrorBody),
        (status = 409, description = "`You have already voted on this feedback; delete the vote first`; nothing changes.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn vote(
    Call(state, caller, params): Call<TeamCaller, OnBehalfVoteParams>,
) -> Result<HttpResponse, ApiError> {
    let (feedback_id, voter) = params.into_parts();
    let (vote, total_votes) = feedback_votes::cast_vote_on_behalf(
        &*state.store,
        &*state.clock,
        &caller.0,
        feedback_id.as_deref(),
        voter,
    )
    .await?;
    Ok(HttpResponse::Ok().json(VoteCreatedResponse::new(&vote, total_votes)))
}

/// Removes a subscriber's vote on their behalf, if any. Idempotent; nothing is created for an
/// e-mail not yet known.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.unvote",
    operation_id = "feedbacks.unvote",
    tag = "feedback-votes",
    request_body = OnBehalfVoteParams,
    responses(
        (status = 200, description = "No vote of the subscriber remains; the item's count.", body = VoteDeletedResponse),
        (status = 400, description = "`feedbackId is required`, `feedbackId must be a UUID`, `subscriberId must be a UUID`, `email must be a valid e-mail address`, `give subscriberId or email, not both`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found` (also another team's item), `Subscriber not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn unvote(
    Call(state, caller, params): Call<TeamCaller, OnBehalfVoteParams>,
) -> Result<HttpResponse, ApiError> {
    let (feedback_id, voter) = params.into_parts();
    let total_votes = feedback_votes::retract_vote_on_behalf(
        &*state.store,
        &caller.0,
        feedback_id.as_deref(),
        voter,
    )
    .await?;
    Ok(HttpResponse::Ok().json(VoteDeletedResponse::new(total_votes)))
}

/// The item's vote count; under a subscriber token also whether the caller voted.
#[utoipa::path(
    post,
    path = "/v1/public/feedback-votes.info",
    operation_id = "public/feedback-votes.info",
    tag = "feedback-votes",
    request_body = PublicFeedbackIdParams,
    responses(
        (status = 200, description = "The count and the caller's vote.", body = VoteInfoResponse),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn info(
    Call(state, caller, params): Call<AnyCaller, PublicFeedbackIdParams>,
) -> Result<HttpResponse, ApiError> {
    let (id, vote_state) =
        feedback_votes::vote_info(&*state.store, &caller.0, params.feedback_id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(VoteInfoResponse::new(id, &vote_state)))
}
