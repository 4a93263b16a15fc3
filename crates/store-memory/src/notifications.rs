//! `NotificationStore` in memory, and the expansion of an event's `NotifyFollowers` into one
//! notification per follower but the actor, done where events are appended (so under the
//! same lock as the change).

use async_trait::async_trait;
use sounding_domain::{
    event::NewEvent,
    ids::{SubscriberId, TeamId},
    notification::{MarkRead, NotificationPage, NotificationQuery, NotificationView, NotifyTarget},
    page::Paged,
    ports::{NotificationStore, StoreResult},
    subscriber::SubscriberRef,
    timestamp::Timestamp,
};

use crate::{MemoryStore, State};

impl State {
    pub(crate) fn notify_followers(&mut self, event: &NewEvent) {
        let Some(notify) = &event.notify else {
            return;
        };
        let followers = match notify.target {
            NotifyTarget::Feedback(id) => self
                .feedback
                .get(&id)
                .filter(|row| row.feedback.team_id == event.team_id)
                .map(|row| row.follower_ids()),
            NotifyTarget::Topic(id) => self
                .topics
                .get(&id)
                .filter(|row| row.topic.team_id == event.team_id)
                .map(|row| row.follower_ids()),
        }
        .unwrap_or_default();
        for follower in followers {
            if Some(follower) != notify.actor {
                self.notifications.push(notify.for_recipient(
                    event.team_id,
                    follower,
                    event.occurred_at,
                ));
            }
        }
    }
}

#[async_trait]
impl NotificationStore for MemoryStore {
    async fn notifications(
        &self,
        team: TeamId,
        subscriber: SubscriberId,
        query: &NotificationQuery,
    ) -> StoreResult<NotificationPage> {
        let s = self.state();
        let mine: Vec<_> = s
            .notifications
            .iter()
            .filter(|n| n.team_id == team && n.subscriber_id == subscriber)
            .collect();
        let unread = mine.iter().filter(|n| n.read_at.is_none()).count() as i64;
        let mut selected: Vec<_> = mine
            .into_iter()
            .filter(|n| !query.unread_only || n.read_at.is_none())
            .collect();
        selected.sort_by_key(|n| std::cmp::Reverse((n.created_at, n.id)));
        let total = selected.len() as i64;
        let items = selected
            .into_iter()
            .skip(usize::try_from(query.page.offset).unwrap_or(usize::MAX))
            .take(usize::try_from(query.page.limit).unwrap_or(0))
            .map(|n| NotificationView {
                notification: n.clone(),
                actor: n
                    .actor_id
                    .and_then(|id| s.subscribers.get(&id).map(SubscriberRef::from)),
            })
            .collect();
        Ok(NotificationPage {
            page: Paged {
                items,
                total,
                page: query.page,
            },
            unread,
        })
    }

    async fn mark_notifications_read(
        &self,
        team: TeamId,
        subscriber: SubscriberId,
        which: &MarkRead,
        at: Timestamp,
    ) -> StoreResult<i64> {
        let mut s = self.state();
        let mut changed = 0;
        for n in s.notifications.iter_mut().filter(|n| {
            n.team_id == team
                && n.subscriber_id == subscriber
                && n.read_at.is_none()
                && match which {
                    MarkRead::All => true,
                    MarkRead::Ids(ids) => ids.contains(&n.id),
                }
        }) {
            n.read_at = Some(at);
            changed += 1;
        }
        Ok(changed)
    }
}
