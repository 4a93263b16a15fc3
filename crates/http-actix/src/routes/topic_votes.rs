//! `public/topic-votes.create|delete` (subscriber token; without one `{"error": "Bad
//! request"}`), `topics.vote|unvote` (team API key, on behalf of a subscriber) and
//! `public/topic-votes.info` (either credential).

use actix_web::HttpResponse;
use sounding_app::{topics, wire::TopicVoteJson};

use crate::{
    auth::{AnyCaller, OptionalCaller, TeamCaller},
    call::Call,
    dto::{
        common::ErrorBody,
        roadmap::{
            OkResponse, TopicOnBehalfVoteParams, TopicUuidParams, TopicVoteInfo,
            TopicVoteInfoResponse, TopicVoteResponse,
        },
    },
    error::ApiError,
};

/// Votes for a topic; one vote per subscriber per topic. Emits `topic-votes.create`.
#[utoipa::path(
    post,
    path = "/v1/public/topic-votes.create",
    operation_id = "public/topic-votes.create",
    tag = "topic-votes",
    request_body = TopicUuidParams,
    responses(
        (status = 200, description = "The vote.", body = TopicVoteResponse),
        (status = 400, description = "`{\"error\": \"Bad request\"}` without a subscriber token (no `statusCode`); `id is required`.", body = ErrorBody),
        (status = 404, description = "`Topic not found`.", body = ErrorBody),
        (status = 409, description = "`{\"error\": \"Duplicate vote\"}` (no `statusCode`).", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<OptionalCaller, TopicUuidParams>,
) -> Result<HttpResponse, ApiError> {
    let (vote, _) = topics::cast_topic_vote(
        &*state.store,
        &*state.clock,
        caller.0.as_ref(),
        params.id.as_deref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(TopicVoteResponse {
        data: TopicVoteJson::from(&vote),
    }))
}

/// Removes the calling subscriber's vote, if any. Idempotent.
#[utoipa::path(
    post,
    path = "/v1/public/topic-votes.delete",
    operation_id = "public/topic-votes.delete",
    tag = "topic-votes",
    request_body = TopicUuidParams,
    responses(
        (status = 200, description = "No vote of the caller remains.", body = OkResponse),
        (status = 400, description = "`{\"error\": \"Bad request\"}` without a subscriber token.", body = ErrorBody),
        (status = 404, description = "`Topic not found`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<OptionalCaller, TopicUuidParams>,
) -> Result<HttpResponse, ApiError> {
    topics::retract_topic_vote(&*state.store, caller.0.as_ref(), params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(OkResponse { ok: true }))
}

/// Votes for a topic on behalf of a subscriber (by `subscriberId`, or `email` — created when
/// new — or else the key's user's), on any topic of the team, published or not. The same
/// one-vote rule and answers as `public/topic-votes.create`. Emits `topic-votes.create` with
/// `onBehalf: true`.
#[utoipa::path(
    post,
    path = "/v1/topics.vote",
    operation_id = "topics.vote",
    tag = "topic-votes",
    request_body = TopicOnBehalfVoteParams,
    responses(
        (status = 200, description = "The vote.", body = TopicVoteResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`, `subscriberId must be a UUID`, `email must be a valid e-mail address`, `give subscriberId or email, not both`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Topic not found` (also another team's topic), `Subscriber not found`.", body = ErrorBody),
        (status = 409, description = "`{\"error\": \"Duplicate vote\"}` (no `statusCode`).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn vote(
    Call(state, caller, params): Call<TeamCaller, TopicOnBehalfVoteParams>,
) -> Result<HttpResponse, ApiError> {
    let (id, voter) = params.into_parts();
    let (vote, _) = topics::cast_topic_vote_on_behalf(
        &*state.store,
        &*state.clock,
        &caller.0,
        id.as_deref(),
        voter,
    )
    .await?;
    Ok(HttpResponse::Ok().json(TopicVoteResponse {
        data: TopicVoteJson::from(&vote),
    }))
}

/// Removes a subscriber's vote on a topic on their behalf, if any. Idempotent; nothing is
/// created for an e-mail not yet known.
#[utoipa::path(
    post,
    path = "/v1/topics.unvote",
    operation_id = "topics.unvote",
    tag = "topic-votes",
    request_body = TopicOnBehalfVoteParams,
    responses(
        (status = 200, description = "No vote of the subscriber remains.", body = OkResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`, `subscriberId must be a UUID`, `email must be a valid e-mail address`, `give subscriberId or email, not both`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Topic not found` (also another team's topic), `Subscriber not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn unvote(
    Call(state, caller, params): Call<TeamCaller, TopicOnBehalfVoteParams>,
) -> Result<HttpResponse, ApiError> {
    let (id, voter) = params.into_parts();
    topics::retract_topic_vote_on_behalf(&*state.store, &caller.0, id.as_deref(), voter).await?;
    Ok(HttpResponse::Ok().json(OkResponse { ok: true }))
}

/// The topic's vote count and whether the calling subscriber voted.
#[utoipa::path(
    post,
    path = "/v1/public/topic-votes.info",
    operation_id = "public/topic-votes.info",
    tag = "topic-votes",
    request_body = TopicUuidParams,
    responses(
        (status = 200, description = "The count.", body = TopicVoteInfoResponse),
        (status = 404, description = "`Topic not found`.", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn info(
    Call(state, caller, params): Call<AnyCaller, TopicUuidParams>,
) -> Result<HttpResponse, ApiError> {
    let vote_state =
        topics::topic_vote_info(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(TopicVoteInfoResponse {
        data: TopicVoteInfo {
            count: vote_state.count,
            is_subscriber_voted: vote_state.voted,
        },
    }))
}
