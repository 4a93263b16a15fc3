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

#[derive(Debug, Clone, Default)]
pub struct NotificationListInput {
    pub unread_only: Option<bool>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

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
