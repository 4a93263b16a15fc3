//! `public/topic-comments.create` (subscriber token), `public/topic-comments.list` (either
//! credential), and the team's moderation, `topic-comments.list|update|delete` (API key).

use actix_web::HttpResponse;
use sounding_app::{topics, wire::TopicCommentJson};

use crate::{
    auth::{AnyCaller, SubscriberCaller, TeamCaller},
    call::{Call, ReadCall},
    dto::{
        common::{DeletedResponse, ErrorBody},
        feedback::CommentIdParams,
        roadmap::{
            CreateTopicCommentParams, TopicCommentListParams, TopicCommentListResponse,
            TopicCommentResponse, UpdateTopicCommentParams,
        },
    },
    error::ApiError,
    remembered::remembered,
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
    Call(state, caller, params): Call<SubscriberCaller, CreateTopicCommentParams>,
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
    ReadCall(state, caller, params, recall): ReadCall<AnyCaller, TopicCommentListParams>,
) -> Result<HttpResponse, ApiError> {
    remembered(
        &*state.store,
        caller.0.audience(),
        recall.as_ref(),
        || async {
            let (page, with_topic) =
                topics::list_topic_comments(&*state.store, &caller.0, params.into()).await?;
            Ok(TopicCommentListResponse::new(page, with_topic))
        },
    )
    .await
}

/// Threads for moderation: like `public/topic-comments.list` for a team member, over every
/// topic of the team (unpublished ones and private stages included). Deleted comments that
/// replies still answer are listed as tombstones (`deletedAt` set).
#[utoipa::path(
    post,
    path = "/v1/topic-comments.list",
    operation_id = "topic-comments.list",
    tag = "topic-comments",
    request_body = TopicCommentListParams,
    responses(
        (status = 200, description = "One page of threads (empty when there are none, also for a topic that is not the team's).", body = TopicCommentListResponse),
        (status = 400, description = "`id must be a UUID`, `sort must be one of createdAt, updatedAt`, ….", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn team_list(
    Call(state, caller, params): Call<TeamCaller, TopicCommentListParams>,
) -> Result<HttpResponse, ApiError> {
    let (page, with_topic) =
        topics::list_team_topic_comments(&*state.store, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(TopicCommentListResponse::new(page, with_topic)))
}

/// Changes a comment's text; `updatedAt` moves only when it changed. No event.
#[utoipa::path(
    post,
    path = "/v1/topic-comments.update",
    operation_id = "topic-comments.update",
    tag = "topic-comments",
    request_body = UpdateTopicCommentParams,
    responses(
        (status = 200, description = "The comment.", body = TopicCommentResponse),
        (status = 400, description = "`id is required`, `text is required`, `text must be at most 10000 characters`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Comment not found` (also a deleted one).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateTopicCommentParams>,
) -> Result<HttpResponse, ApiError> {
    let view =
        topics::update_team_topic_comment(&*state.store, &*state.clock, &caller.0, params.into())
            .await?;
    Ok(HttpResponse::Ok().json(TopicCommentResponse {
        data: TopicCommentJson::from(&view),
    }))
}

/// Deletes a comment. One that replies answer stays as a tombstone (text `[deleted]`,
/// `deletedAt` set) so its replies keep their thread; otherwise it goes, with any tombstone
/// above it left without replies. The topic's `commentCount` drops by one. Emits
/// `topic-comments.delete` (the comment as it was); the author is not notified.
#[utoipa::path(
    post,
    path = "/v1/topic-comments.delete",
    operation_id = "topic-comments.delete",
    tag = "topic-comments",
    request_body = CommentIdParams,
    responses(
        (status = 200, description = "Deleted.", body = DeletedResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Comment not found` (also one already deleted).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, CommentIdParams>,
) -> Result<HttpResponse, ApiError> {
    let id = topics::delete_team_topic_comment(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.id.as_deref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}
