//! Comments on feedback: `public/feedback-comments.create` (subscriber token),
//! `feedback-comments.create` (team API key), `public/feedback-comments.list` (either), and
//! the team's moderation, `feedback-comments.list|update|delete` (API key).

use actix_web::HttpResponse;
use sounding_app::feedback_comments;
use sounding_domain::feedback_comment::CommentView;

use crate::{
    auth::{AnyCaller, SubscriberCaller, TeamCaller},
    call::{Call, ReadCall},
    dto::{
        common::{DeletedResponse, ErrorBody},
        feedback::{
            CommentIdParams, CommentListParams, CommentListResponse, CommentResponse,
            PublicCommentParams, TeamCommentParams, UpdateCommentParams,
        },
    },
    error::ApiError,
    remembered::remembered,
};

fn one(view: &CommentView) -> HttpResponse {
    HttpResponse::Ok().json(CommentResponse { data: view.into() })
}

/// Comments on an item on behalf of a subscriber (by `subscriberId` or `email`), publicly or
/// privately. The author follows the item. Emits `feedback-comments.create`.
#[utoipa::path(
    post,
    path = "/v1/feedback-comments.create",
    operation_id = "feedback-comments.create",
    tag = "feedback-comments",
    request_body = TeamCommentParams,
    responses(
        (status = 200, description = "The comment.", body = CommentResponse),
        (status = 400, description = "`text is required`, `text must be at most 10000 characters`, `type must be one of public, private`, `give subscriberId or email, not both`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found`, `Subscriber not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<TeamCaller, TeamCommentParams>,
) -> Result<HttpResponse, ApiError> {
    let view = feedback_comments::create_team_comment(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.into(),
    )
    .await?;
    Ok(one(&view))
}

/// Comments on a published item as the calling subscriber. The commenter follows the item.
/// Emits `feedback-comments.create`.
#[utoipa::path(
    post,
    path = "/v1/public/feedback-comments.create",
    operation_id = "public/feedback-comments.create",
    tag = "feedback-comments",
    request_body = PublicCommentParams,
    responses(
        (status = 200, description = "The comment.", body = CommentResponse),
        (status = 400, description = "`feedbackId is required`, `text is required`, `text must be at most 10000 characters`.", body = ErrorBody),
        (status = 403, description = "`Only team members can post private comments`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_create(
    Call(state, caller, params): Call<SubscriberCaller, PublicCommentParams>,
) -> Result<HttpResponse, ApiError> {
    let view = feedback_comments::create_public_comment(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.into(),
    )
    .await?;
    Ok(one(&view))
}

/// An item's comments, oldest first by default. Private comments are listed for team members
/// only (an API key, or a subscriber with a team user's e-mail).
#[utoipa::path(
    post,
    path = "/v1/public/feedback-comments.list",
    operation_id = "public/feedback-comments.list",
    tag = "feedback-comments",
    request_body = CommentListParams,
    responses(
        (status = 200, description = "One page of comments.", body = CommentListResponse),
        (status = 400, description = "`feedbackId is required`, `sort must be one of createdAt, updatedAt`, `direction must be one of ASC, DESC`, `limit must be between 1 and 100`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_list(
    ReadCall(state, caller, params, recall): ReadCall<AnyCaller, CommentListParams>,
) -> Result<HttpResponse, ApiError> {
    remembered(
        &*state.store,
        caller.0.audience(),
        recall.as_ref(),
        || async {
            let page =
                feedback_comments::list_comments(&*state.store, &caller.0, params.into()).await?;
            Ok(CommentListResponse::from(&page))
        },
    )
    .await
}

/// Any item's comments, for moderation: every item of the team (published or not), private
/// comments included; the paging and order of `public/feedback-comments.list`.
#[utoipa::path(
    post,
    path = "/v1/feedback-comments.list",
    operation_id = "feedback-comments.list",
    tag = "feedback-comments",
    request_body = CommentListParams,
    responses(
        (status = 200, description = "One page of comments.", body = CommentListResponse),
        (status = 400, description = "`feedbackId is required`, `sort must be one of createdAt, updatedAt`, `direction must be one of ASC, DESC`, `limit must be between 1 and 100`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, params): Call<TeamCaller, CommentListParams>,
) -> Result<HttpResponse, ApiError> {
    let page =
        feedback_comments::list_team_comments(&*state.store, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(CommentListResponse::from(&page)))
}

/// Changes a comment's text, and its privacy when `isPrivate` is given. `updatedAt` moves only
/// when something changed. No event.
#[utoipa::path(
    post,
    path = "/v1/feedback-comments.update",
    operation_id = "feedback-comments.update",
    tag = "feedback-comments",
    request_body = UpdateCommentParams,
    responses(
        (status = 200, description = "The comment.", body = CommentResponse),
        (status = 400, description = "`id is required`, `text is required`, `text must be at most 10000 characters`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Comment not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateCommentParams>,
) -> Result<HttpResponse, ApiError> {
    let view = feedback_comments::update_team_comment(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.into(),
    )
    .await?;
    Ok(one(&view))
}

/// Deletes a comment; the item's `feedbackCommentsCount` drops with it. Emits
/// `feedback-comments.delete` (the comment as it was); the author is not notified.
#[utoipa::path(
    post,
    path = "/v1/feedback-comments.delete",
    operation_id = "feedback-comments.delete",
    tag = "feedback-comments",
    request_body = CommentIdParams,
    responses(
        (status = 200, description = "Deleted.", body = DeletedResponse),
        (status = 400, description = "`id is required`, `id must be a UUID`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Comment not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, CommentIdParams>,
) -> Result<HttpResponse, ApiError> {
    let id = feedback_comments::delete_team_comment(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.id.as_deref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(DeletedResponse::new(id)))
}
