//! Topics: `public/topics.create` (subscriber token, or the team's key when anonymous
//! feedback is allowed), `public/topics.info` (either), `public/topics.subscribe|unsubscribe`
//! (subscriber token), and the team's `topics.create|list|update|delete`.

use actix_web::{HttpRequest, HttpResponse};
use sounding_app::{topics, wire::TopicJson};

use crate::{
    auth::{AnyCaller, SubscriberCaller, TeamCaller},
    call::Call,
    dto::{
        common::{DeletedResponse, ErrorBody},
        roadmap::{
            CreateTeamTopicParams, CreateTopicParams, TopicDoneResponse, TopicIdParams,
            TopicInfoResponse, TopicListParams, TopicListResponse, TopicResponse, TopicUuidParams,
            UpdateTopicParams,
        },
    },
    error::ApiError,
    state::ApiState,
};

/// Proposes a topic on a public stage. With a subscriber token the subscriber is the creator;
/// with the team's key (only when the team allows anonymous feedback) the visitor named by
/// `email` is, or a new anonymous subscriber. Emits `topics.create`.
#[utoipa::path(
    post,
    path = "/v1/public/topics.create",
    operation_id = "public/topics.create",
    tag = "topics",
    request_body = CreateTopicParams,
    responses(
        (status = 200, description = "The new topic (`voteCount` and `commentCount` 0).", body = TopicResponse),
        (status = 400, description = "`{\"error\": \"title is required\"}`, `{\"error\": \"cannot publish a topic of private stage\"}`, `{\"error\": \"Bad request\"}` (a key while anonymous feedback is off) — these three without `statusCode`; `roadmapId is required`, `stageId must be a UUID`, ….", body = ErrorBody),
        (status = 404, description = "`Roadmap not found`, `Stage not found` (also a stage of another roadmap).", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = []), ("apiKey" = [])),
)]
pub async fn public_create(
    Call(state, caller, params): Call<AnyCaller, CreateTopicParams>,
) -> Result<HttpResponse, ApiError> {
    let view = topics::create_topic(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(TopicResponse::new(&view)))
}

/// A topic by UUID or `<title-slug>-<urlId>`, with its stage; counts one visit per viewer per
/// 2 minutes. A missing or hidden topic is `data: null`.
#[utoipa::path(
    post,
    path = "/v1/public/topics.info",
    operation_id = "public/topics.info",
    tag = "topics",
    request_body = TopicIdParams,
    responses(
        (status = 200, description = "The topic (or null) and the team.", body = TopicInfoResponse),
        (status = 400, description = "`id is required`.", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_info(
    req: HttpRequest,
    Call(state, caller, params): Call<AnyCaller, TopicIdParams>,
) -> Result<HttpResponse, ApiError> {
    // The TCP peer, never a header a client can set.
    let address = req
        .peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default();
    let (view, team) = topics::topic_info(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.id.as_deref(),
        &address,
    )
    .await?;
    Ok(HttpResponse::Ok().json(TopicInfoResponse {
        data: view.as_ref().map(TopicJson::from),
        team: (&team).into(),
    }))
}

/// Follows a topic. Idempotent.
#[utoipa::path(
    post,
    path = "/v1/public/topics.subscribe",
    operation_id = "public/topics.subscribe",
    tag = "topics",
    request_body = TopicUuidParams,
    responses(
        (status = 200, description = "Following.", body = TopicDoneResponse),
        (status = 404, description = "`Topic not found`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn subscribe(
    Call(state, caller, params): Call<SubscriberCaller, TopicUuidParams>,
) -> Result<HttpResponse, ApiError> {
    follow(&state, &caller, &params, true).await
}

/// Stops following a topic. Idempotent.
#[utoipa::path(
    post,
    path = "/v1/public/topics.unsubscribe",
    operation_id = "public/topics.unsubscribe",
    tag = "topics",
    request_body = TopicUuidParams,
    responses(
        (status = 200, description = "Not following.", body = TopicDoneResponse),
        (status = 404, description = "`Topic not found`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn unsubscribe(
    Call(state, caller, params): Call<SubscriberCaller, TopicUuidParams>,
) -> Result<HttpResponse, ApiError> {
    follow(&state, &caller, &params, false).await
}

/// `public/topics.subscribe` (`follow`) and `.unsubscribe`.
async fn follow(
    state: &ApiState,
    caller: &SubscriberCaller,
    params: &TopicUuidParams,
    follow: bool,
) -> Result<HttpResponse, ApiError> {
    let topic_id = topics::follow_topic(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.id.as_deref(),
        follow,
    )
    .await?;
    Ok(HttpResponse::Ok().json(TopicDoneResponse {
        success: true,
        topic_id,
    }))
}

/// Creates a topic as the team: the key's user is its creator (and follows it); any stage of
/// the team, private ones included; published at once. Emits `topics.create`.
#[utoipa::path(
    post,
    path = "/v1/topics.create",
    operation_id = "topics.create",
    tag = "topics",
    request_body = CreateTeamTopicParams,
    responses(
        (status = 200, description = "The new topic (`voteCount` and `commentCount` 0).", body = TopicResponse),
        (status = 400, description = "`title is required`, `stageId is required`, `roadmapId must be a UUID`, ….", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Roadmap not found`, `Stage not found` (also a stage of another roadmap than `roadmapId`).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<TeamCaller, CreateTeamTopicParams>,
) -> Result<HttpResponse, ApiError> {
    let view =
        topics::create_team_topic(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(TopicResponse::new(&view)))
}

/// The team's topics, unpublished ones included, newest first by default.
#[utoipa::path(
    post,
    path = "/v1/topics.list",
    operation_id = "topics.list",
    tag = "topics",
    request_body = TopicListParams,
    responses(
        (status = 200, description = "One page of topics.", body = TopicListResponse),
        (status = 400, description = "`roadmapId must be a UUID`, `limit must be between 1 and 100`, ….", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, params): Call<TeamCaller, TopicListParams>,
) -> Result<HttpResponse, ApiError> {
    let page = topics::list_topics(&*state.store, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(TopicListResponse::from(&page)))
}

/// Changes a topic: content, stage (`stageId` moves it), meta, publication. Emits
/// `topics.update`.
#[utoipa::path(
    post,
    path = "/v1/topics.update",
    operation_id = "topics.update",
    tag = "topics",
    request_body = UpdateTopicParams,
    responses(
        (status = 200, description = "The topic.", body = TopicResponse),
        (status = 400, description = "`id is required`, `title is required`, ….", body = ErrorBody),
        (status = 404, description = "`Topic not found`, `Stage not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateTopicParams>,
) -> Result<HttpResponse, ApiError> {
    let view = topics::update_topic(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(TopicResponse::new(&view)))
}

/// Deletes a topic with its comments, votes, follows and visits.
#[utoipa::path(
    post,
    path = "/v1/topics.delete",
    operation_id = "topics.delete",
    tag = "topics",
    request_body = TopicUuidParams,
    responses(
        (status = 200, description = "Deleted.", body = DeletedResponse),
        (status = 404, description = "`Topic not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, TopicUuidParams>,
) -> Result<HttpResponse, ApiError> {
    let id = topics::delete_topic(&*state.store, &caller.0, params.id.as_deref()).await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}
