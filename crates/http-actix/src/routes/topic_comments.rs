//! `public/topic-comments.create` (subscriber token) and `public/topic-comments.list`
//! (either credential).

use actix_web::{web, HttpResponse};
use sounding_app::{topics, wire::TopicCommentJson};

use crate::{
    auth::{AnyCaller, SubscriberCaller},
    dto::{
        common::ErrorBody,
        roadmap::{
            CreateTopicCommentParams, TopicCommentListParams, TopicCommentListResponse,
            TopicCommentResponse,
        },
    },
    error::ApiError,
    params::Params,
    state::ApiState,
};

/// Comments on a topic, or answers a comment of it (`parentId`, any depth). The commenter
/// follows the topic. Emits `topic-comments.create`.
#[utoipa::path(
    post,
    path = "/v1/public/topic-comments.create",
    operation_id = "public/topic-comments.create",
    tag = "topic-comments",
    request_body = CreateTopicCommentParams,
    responses(
        (status = 200, description = "The comment.", body = TopicCommentResponse),
        (status = 400, description = "`id is required`, `text is required`, `parentId must be a comment of the same topic`, `source must be one of widget, api, email`.", body = ErrorBody),
        (status = 404, description = "`Topic not found`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn create(
    state: web::Data<ApiState>,
    caller: SubscriberCaller,
    Params(params): Params<CreateTopicCommentParams>,
) -> Result<HttpResponse, ApiError> {
    let view = topics::create_topic_comment(&*state.store, &*state.clock, &caller.0, params.into())
        .await?;
    Ok(HttpResponse::Ok().json(TopicCommentResponse {
        data: TopicCommentJson::from(&view),
    }))
}

/// Top-level comments, each with every reply below it (oldest first). With `id`, one topic's;
/// without, every visible topic's, each comment naming its `topic`.
#[utoipa::path(
    post,
    path = "/v1/public/topic-comments.list",
    operation_id = "public/topic-comments.list",
    tag = "topic-comments",
    request_body = TopicCommentListParams,
    responses(
        (status = 200, description = "One page of threads (empty when there are none).", body = TopicCommentListResponse),
        (status = 400, description = "`id must be a UUID`, `sort must be one of createdAt, updatedAt`, ….", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn list(
    state: web::Data<ApiState>,
    caller: AnyCaller,
    Params(params): Params<TopicCommentListParams>,
) -> Result<HttpResponse, ApiError> {
    let (page, with_topic) =
        topics::list_topic_comments(&*state.store, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(TopicCommentListResponse::new(page, with_topic)))
}
