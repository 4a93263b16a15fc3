//! Subscribers' notifications.

use crate::{
    ids::{SubscriberId, TeamId},
    ports::StoreResult,
    timestamp::Timestamp,
};
use async_trait::async_trait;

/// Subscribers' notifications. They are written by the writes whose events carry a
/// `NotifyFollowers` (one row per follower but the actor, in that write's transaction); here
/// they are read and marked read.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait NotificationStore: Send + Sync {
    /// One page of the subscriber's notifications, newest first, with the total the query
    /// selects and the subscriber's unread count. A constant number of statements.
    async fn notifications(
        &self,
        team: TeamId,
        subscriber: SubscriberId,
        query: &crate::notification::NotificationQuery,
    ) -> StoreResult<crate::notification::NotificationPage>;
    /// Marks unread notifications of the subscriber read at `at`; ids that are not theirs are
    /// ignored. How many changed.
    async fn mark_notifications_read(
        &self,
        team: TeamId,
        subscriber: SubscriberId,
        which: &crate::notification::MarkRead,
        at: Timestamp,
    ) -> StoreResult<i64>;
}
