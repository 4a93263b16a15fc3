//! Feedback items: the team's `feedbacks.*` (API key) and the public `public/feedbacks.*`
//! (subscriber token for writes; either credential for reads).

use actix_web::HttpResponse;
use sounding_app::{feedback, wire::FeedbackJson};
use sounding_domain::feedback::Moderation;

use crate::{
    auth::{AnyCaller, SubscriberCaller, TeamCaller},
    call::{Call, ReadCall},
    dto::{
        common::ErrorBody,
        feedback::{
            CreateFeedbackParams, FeedbackDoneResponse, FeedbackIdParams, FeedbackInfoParams,
            FeedbackListParams, FeedbackListResponse, FeedbackResponse, PublicCreateFeedbackParams,
            PublicFeedbackIdParams, PublicFeedbackInfoParams, PublicFeedbackListParams,
            PublicUpdateFeedbackParams, UpdateFeedbackParams,
        },
    },
    error::ApiError,
    remembered::remembered,
    state::ApiState,
};

/// Creates an item, published at once, for the subscriber `creatorEmail` names (or the key's
/// user). Emits `new_feedback`.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.create",
    operation_id = "feedbacks.create",
    tag = "feedbacks",
    request_body = CreateFeedbackParams,
    responses(
        (status = 200, description = "The new item.", body = FeedbackResponse),
        (status = 400, description = "A field is invalid: `title is required`, `status must be one of in_review, in_progress, planned, completed, closed`, `priority must be one of low, medium, high, urgent`, `boardId must be a UUID`, `creatorEmail …`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Board not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn create(
    Call(state, caller, params): Call<TeamCaller, CreateFeedbackParams>,
) -> Result<HttpResponse, ApiError> {
    let view =
        feedback::create_feedback(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(FeedbackResponse::new(&view)))
}

/// Changes an item: only the fields given; meta merges; the url follows the title. Emits
/// `feedbacks.update`, and `feedback_status_change` when the status really changes.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.update",
    operation_id = "feedbacks.update",
    tag = "feedbacks",
    request_body = UpdateFeedbackParams,
    responses(
        (status = 200, description = "The updated item.", body = FeedbackResponse),
        (status = 400, description = "A field is invalid, e.g. `id is required`, `status must be one of …`.", body = ErrorBody),
        (status = 403, description = "`This API key is read-only`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found` or `Board not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn update(
    Call(state, caller, params): Call<TeamCaller, UpdateFeedbackParams>,
) -> Result<HttpResponse, ApiError> {
    let view =
        feedback::update_feedback(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(FeedbackResponse::new(&view)))
}

/// Every item of the team: every board, unpublished too, archived ones on request.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.list",
    operation_id = "feedbacks.list",
    tag = "feedbacks",
    request_body = FeedbackListParams,
    responses(
        (status = 200, description = "One page of items.", body = FeedbackListResponse),
        (status = 400, description = "`sortBy must be one of newest, top, trending`, `status must be one of …`, `limit must be between 1 and 100`, `boardId must be a UUID`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn list(
    Call(state, caller, params): Call<TeamCaller, FeedbackListParams>,
) -> Result<HttpResponse, ApiError> {
    let page =
        feedback::list_feedback(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(FeedbackListResponse::from(page)))
}

/// One item of the team, whatever its state, by `id` or `urlId`.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.info",
    operation_id = "feedbacks.info",
    tag = "feedbacks",
    request_body = FeedbackInfoParams,
    responses(
        (status = 200, description = "The item.", body = FeedbackResponse),
        (status = 400, description = "`id or urlId is required`, `give id or urlId, not both`, `id must be a UUID`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found` (also for another team's item).", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn info(
    Call(state, caller, params): Call<TeamCaller, FeedbackInfoParams>,
) -> Result<HttpResponse, ApiError> {
    let view = feedback::feedback_info(&*state.store, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(FeedbackResponse::new(&view)))
}

/// Approves an item held for moderation: it becomes public. Idempotent.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.publish",
    operation_id = "feedbacks.publish",
    tag = "feedbacks",
    request_body = FeedbackIdParams,
    responses(
        (status = 200, description = "The item, published.", body = FeedbackResponse),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn publish(
    Call(state, caller, params): Call<TeamCaller, FeedbackIdParams>,
) -> Result<HttpResponse, ApiError> {
    let view = feedback::moderate_feedback(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.id(),
        Moderation::Publish,
    )
    .await?;
    Ok(HttpResponse::Ok().json(FeedbackResponse::new(&view)))
}

/// Archives an item: it leaves every list unless a team list asks for `archived: true`.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.archive",
    operation_id = "feedbacks.archive",
    tag = "feedbacks",
    request_body = FeedbackIdParams,
    responses(
        (status = 200, description = "The item, with `archivedAt`.", body = FeedbackResponse),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn archive(
    Call(state, caller, params): Call<TeamCaller, FeedbackIdParams>,
) -> Result<HttpResponse, ApiError> {
    let view = feedback::moderate_feedback(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.id(),
        Moderation::Archive,
    )
    .await?;
    Ok(HttpResponse::Ok().json(FeedbackResponse::new(&view)))
}

/// Takes an item out of the archive.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.restore",
    operation_id = "feedbacks.restore",
    tag = "feedbacks",
    request_body = FeedbackIdParams,
    responses(
        (status = 200, description = "The item, `archivedAt` null.", body = FeedbackResponse),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn restore(
    Call(state, caller, params): Call<TeamCaller, FeedbackIdParams>,
) -> Result<HttpResponse, ApiError> {
    let view = feedback::moderate_feedback(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.id(),
        Moderation::Restore,
    )
    .await?;
    Ok(HttpResponse::Ok().json(FeedbackResponse::new(&view)))
}

/// Deletes an item with its comments, votes and follows. Emits `feedbacks.delete`.
#[utoipa::path(
    post,
    path = "/v1/feedbacks.delete",
    operation_id = "feedbacks.delete",
    tag = "feedbacks",
    request_body = FeedbackIdParams,
    responses(
        (status = 200, description = "Deleted.", body = FeedbackDoneResponse),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("apiKey" = [])),
)]
pub async fn delete(
    Call(state, caller, params): Call<TeamCaller, FeedbackIdParams>,
) -> Result<HttpResponse, ApiError> {
    let id =
        feedback::delete_feedback(&*state.store, &*state.clock, &caller.0, params.id()).await?;
    Ok(HttpResponse::Ok().json(FeedbackDoneResponse::new(id)))
}

/// Published, unarchived items on public boards (or on none).
#[utoipa::path(
    post,
    path = "/v1/public/feedbacks.list",
    operation_id = "public/feedbacks.list",
    tag = "feedbacks",
    request_body = PublicFeedbackListParams,
    responses(
        (status = 200, description = "One page of items; `archived` is ignored here.", body = FeedbackListResponse),
        (status = 400, description = "`sortBy must be one of newest, top, trending`, `limit must be between 1 and 100`, …", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_list(
    ReadCall(state, caller, params, recall): ReadCall<AnyCaller, PublicFeedbackListParams>,
) -> Result<HttpResponse, ApiError> {
    let input: feedback::FeedbackListInput = params.into();
    let recall = recall.as_ref().filter(|_| feedback::answer_lasts(&input));
    remembered(&*state.store, caller.0.audience(), recall, || async {
        let page =
            feedback::list_public_feedback(&*state.store, &*state.clock, &caller.0, input).await?;
        Ok(FeedbackListResponse::from(page))
    })
    .await
}

/// Posts an item as the calling subscriber: `in_review`, `medium`, followed by its creator;
/// held for moderation when the team or the board asks for it. Emits `new_feedback` and
/// `feedbacks.create`.
#[utoipa::path(
    post,
    path = "/v1/public/feedbacks.create",
    operation_id = "public/feedbacks.create",
    tag = "feedbacks",
    request_body = PublicCreateFeedbackParams,
    responses(
        (status = 200, description = "The new item.", body = FeedbackResponse),
        (status = 400, description = "`title is required`, `boardId must be a UUID`, …", body = ErrorBody),
        (status = 403, description = "`This board does not accept public submissions`.", body = ErrorBody),
        (status = 404, description = "`Board not found` (also a private board, to non-members).", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_create(
    Call(state, caller, params): Call<SubscriberCaller, PublicCreateFeedbackParams>,
) -> Result<HttpResponse, ApiError> {
    let view =
        feedback::create_public_feedback(&*state.store, &*state.clock, &caller.0, params.into())
            .await?;
    Ok(HttpResponse::Ok().json(FeedbackResponse::new(&view)))
}

/// One published item by `feedbackId` or `urlId` (exactly one). Under a subscriber token the
/// item carries `isSubscribed`.
#[utoipa::path(
    post,
    path = "/v1/public/feedbacks.info",
    operation_id = "public/feedbacks.info",
    tag = "feedbacks",
    request_body = PublicFeedbackInfoParams,
    responses(
        (status = 200, description = "The item.", body = FeedbackResponse),
        (status = 400, description = "`feedbackId or urlId is required`, `give feedbackId or urlId, not both`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found`: missing, unpublished, or on a private board.", body = ErrorBody),
    ),
    security(("apiKey" = []), ("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_info(
    Call(state, caller, params): Call<AnyCaller, PublicFeedbackInfoParams>,
) -> Result<HttpResponse, ApiError> {
    let (view, following) =
        feedback::public_feedback_info(&*state.store, &caller.0, params.into()).await?;
    let mut data = FeedbackJson::from(view);
    data.is_subscribed = following;
    Ok(HttpResponse::Ok().json(FeedbackResponse { data }))
}

/// Changes the caller's own item: title, text, board, type, meta.
#[utoipa::path(
    post,
    path = "/v1/public/feedbacks.update",
    operation_id = "public/feedbacks.update",
    tag = "feedbacks",
    request_body = PublicUpdateFeedbackParams,
    responses(
        (status = 200, description = "The updated item.", body = FeedbackResponse),
        (status = 400, description = "`feedbackId is required`, `title is required`, …", body = ErrorBody),
        (status = 403, description = "`You do not have permission to update this feedback`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_update(
    Call(state, caller, params): Call<SubscriberCaller, PublicUpdateFeedbackParams>,
) -> Result<HttpResponse, ApiError> {
    let view =
        feedback::update_public_feedback(&*state.store, &*state.clock, &caller.0, params.into())
            .await?;
    Ok(HttpResponse::Ok().json(FeedbackResponse::new(&view)))
}

/// Deletes the caller's own item with its comments, votes and follows.
#[utoipa::path(
    post,
    path = "/v1/public/feedbacks.delete",
    operation_id = "public/feedbacks.delete",
    tag = "feedbacks",
    request_body = PublicFeedbackIdParams,
    responses(
        (status = 200, description = "Deleted.", body = FeedbackDoneResponse),
        (status = 403, description = "`You do not have permission to delete this feedback`.", body = ErrorBody),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn public_delete(
    Call(state, caller, params): Call<SubscriberCaller, PublicFeedbackIdParams>,
) -> Result<HttpResponse, ApiError> {
    let id = feedback::delete_public_feedback(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.feedback_id.as_deref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(FeedbackDoneResponse::new(id)))
}

/// Follows an item (notifications about it). Idempotent.
#[utoipa::path(
    post,
    path = "/v1/public/feedbacks.subscribe",
    operation_id = "public/feedbacks.subscribe",
    tag = "feedbacks",
    request_body = PublicFeedbackIdParams,
    responses(
        (status = 200, description = "Following.", body = FeedbackDoneResponse),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn subscribe(
    Call(state, caller, params): Call<SubscriberCaller, PublicFeedbackIdParams>,
) -> Result<HttpResponse, ApiError> {
    follow(&state, &caller, &params, true).await
}

/// Stops following an item. Idempotent.
#[utoipa::path(
    post,
    path = "/v1/public/feedbacks.unsubscribe",
    operation_id = "public/feedbacks.unsubscribe",
    tag = "feedbacks",
    request_body = PublicFeedbackIdParams,
    responses(
        (status = 200, description = "Not following.", body = FeedbackDoneResponse),
        (status = 404, description = "`Feedback not found`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn unsubscribe(
    Call(state, caller, params): Call<SubscriberCaller, PublicFeedbackIdParams>,
) -> Result<HttpResponse, ApiError> {
    follow(&state, &caller, &params, false).await
}

/// `public/feedbacks.subscribe` (`follow`) and `.unsubscribe`.
async fn follow(
    state: &ApiState,
    caller: &SubscriberCaller,
    params: &PublicFeedbackIdParams,
    follow: bool,
) -> Result<HttpResponse, ApiError> {
    let id = feedback::follow_feedback(
        &*state.store,
        &*state.clock,
        &caller.0,
        params.feedback_id.as_deref(),
        follow,
    )
    .await?;
    Ok(HttpResponse::Ok().json(FeedbackDoneResponse::new(id)))
}
