//! `public/notifications.list`: the caller's notifications, newest first, with their unread
//! count.

use sounding_domain::{
    access::SubscriberSession,
    notification::{NotificationPage, NotificationQuery},
    page::PageRequest,
    ports::NotificationStore,
};

use crate::error::AppResult;

/// Notifications per page when the caller does not say.
pub const DEFAULT_LIMIT: i64 = 20;

/// The body of `public/notifications.list`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct NotificationListInput {
    /// `unreadOnly`: only notifications not yet read; all when absent.
    pub unread_only: Option<bool>,
    /// Page size, 1 to 100 (more is clamped to 100); 20 when absent.
    pub limit: Option<i64>,
    /// Notifications to skip, 0 or more; 0 when absent.
    pub offset: Option<i64>,
}

/// `public/notifications.list`: a page of the subscriber's own notifications, newest first,
/// with their unread count. Subscriber token only.
pub async fn list_notifications(
    store: &dyn NotificationStore,
    session: &SubscriberSession,
    input: NotificationListInput,
) -> AppResult<NotificationPage> {
    let query = NotificationQuery {
        unread_only: input.unread_only.unwrap_or(false),
        page: PageRequest::new(input.limit, input.offset, DEFAULT_LIMIT)?,
    };
    let who = &session.subscriber;
    Ok(store.notifications(who.team_id, who.id, &query).await?)
}
