//! A subscriber's notifications: `public/notifications.list|markRead` (subscriber token only).

use actix_web::HttpResponse;
use sounding_app::notifications;

use crate::{
    auth::SubscriberCaller,
    call::Call,
    dto::{
        common::ErrorBody,
        notification::{
            MarkReadParams, MarkReadResponse, NotificationListParams, NotificationListResponse,
        },
    },
    error::ApiError,
};

/// The caller's notifications, newest first, and how many are unread.
#[utoipa::path(
    post,
    path = "/v1/public/notifications.list",
    operation_id = "public/notifications.list",
    tag = "notifications",
    request_body = NotificationListParams,
    responses(
        (status = 200, description = "One page of notifications.", body = NotificationListResponse),
        (status = 400, description = "`limit must be between 1 and 100`, `offset must be 0 or more`, `unreadOnly must be a boolean`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn list(
    Call(state, caller, params): Call<SubscriberCaller, NotificationListParams>,
) -> Result<HttpResponse, ApiError> {
    let page = notifications::list_notifications(&*state.store, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(NotificationListResponse::from(&page)))
}

/// Marks the caller's notifications read: those `ids` names (others' ids are ignored) or
/// `all`.
#[utoipa::path(
    post,
    path = "/v1/public/notifications.markRead",
    operation_id = "public/notifications.markRead",
    tag = "notifications",
    request_body = MarkReadParams,
    responses(
        (status = 200, description = "How many became read.", body = MarkReadResponse),
        (status = 400, description = "`ids or all is required`, `give ids or all, not both`, `ids must be a UUID`, `ids must list at most 100 ids`.", body = ErrorBody),
    ),
    security(("subscriberToken" = []), ("subscriberCookie" = [])),
)]
pub async fn mark_read(
    Call(state, caller, params): Call<SubscriberCaller, MarkReadParams>,
) -> Result<HttpResponse, ApiError> {
    let updated =
        notifications::mark_read(&*state.store, &*state.clock, &caller.0, params.into()).await?;
    Ok(HttpResponse::Ok().json(MarkReadResponse {
        success: true,
        updated,
    }))
}
