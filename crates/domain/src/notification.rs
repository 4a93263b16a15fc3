//! Notifications: what a subscriber is told about the feedback and topics they follow. A
//! change that notifies carries a [`NotifyFollowers`] on one of its events; the store expands
//! it, in the same transaction, to one [`Notification`] per follower except the actor.

use uuid::Uuid;

use crate::{
    error::{DomainError, DomainResult},
    ids::{FeedbackId, NotificationId, SubscriberId, TeamId, TopicId},
    page::{PageRequest, Paged},
    subscriber::SubscriberRef,
    timestamp::Timestamp,
};

/// Most ids one `public/notifications.markRead` may name.
pub const MAX_MARK_IDS: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NotificationKind {
    /// A public comment on a followed item or topic.
    Comment,
    /// A followed feedback item's status changed.
    StatusChange,
    /// A followed topic moved to another stage.
    StageChange,
}

impl NotificationKind {
    pub const ALL: [NotificationKind; 3] = [
        NotificationKind::Comment,
        NotificationKind::StatusChange,
        NotificationKind::StageChange,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NotificationKind::Comment => "comment",
            NotificationKind::StatusChange => "status_change",
            NotificationKind::StageChange => "stage_change",
        }
    }

    pub fn parse(raw: &str) -> DomainResult<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == raw)
            .ok_or_else(|| {
                DomainError::invalid("kind must be one of comment, status_change, stage_change")
            })
    }
}

/// What is followed: a feedback item (`feedback_follows`) or a topic (`topic_follows`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotifyTarget {
    Feedback(FeedbackId),
    Topic(TopicId),
}

/// Attached to an event: "tell every follower of `target` but `actor`". The store writes the
/// notifications in the transaction that appends the event.
#[derive(Debug, Clone, PartialEq)]
pub struct NotifyFollowers {
    pub target: NotifyTarget,
    /// Who caused it (not notified); `None` when nobody in particular (a team change).
    pub actor: Option<SubscriberId>,
    pub kind: NotificationKind,
    /// The new comment (a feedback or topic comment id).
    pub comment_id: Option<Uuid>,
    /// The item's or topic's title when it happened.
    pub title: String,
    /// `status_change`: the new status; `stage_change`: the new stage's name.
    pub status: Option<String>,
    pub previous_status: Option<String>,
}

impl NotifyFollowers {
    /// One notification of this for `recipient`.
    pub fn for_recipient(
        &self,
        team_id: TeamId,
        recipient: SubscriberId,
        created_at: Timestamp,
    ) -> Notification {
        let (feedback_id, topic_id) = match self.target {
            NotifyTarget::Feedback(id) => (Some(id), None),
            NotifyTarget::Topic(id) => (None, Some(id)),
        };
        Notification {
            id: NotificationId::new(),
            team_id,
            subscriber_id: recipient,
            kind: self.kind,
            feedback_id,
            topic_id,
            comment_id: self.comment_id,
            title: self.title.clone(),
            status: self.status.clone(),
            previous_status: self.previous_status.clone(),
            actor_id: self.actor,
            read_at: None,
            created_at,
        }
    }
}

/// One notification of one subscriber.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub id: NotificationId,
    pub team_id: TeamId,
    /// The subscriber notified.
    pub subscriber_id: SubscriberId,
    pub kind: NotificationKind,
    pub feedback_id: Option<FeedbackId>,
    pub topic_id: Option<TopicId>,
    pub comment_id: Option<Uuid>,
    pub title: String,
    pub status: Option<String>,
    pub previous_status: Option<String>,
    pub actor_id: Option<SubscriberId>,
    pub read_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

/// A notification as listed: with its actor (`None` when there is none, or it is gone).
#[derive(Debug, Clone, PartialEq)]
pub struct NotificationView {
    pub notification: Notification,
    pub actor: Option<SubscriberRef>,
}

/// A validated `public/notifications.list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotificationQuery {
    pub unread_only: bool,
    pub page: PageRequest,
}

/// One page of a subscriber's notifications (newest first) and how many are unread in all.
#[derive(Debug, Clone, PartialEq)]
pub struct NotificationPage {
    pub page: Paged<NotificationView>,
    pub unread: i64,
}

/// Which of a subscriber's notifications `markRead` touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkRead {
    All,
    /// These ids, where they are the subscriber's (others are ignored).
    Ids(Vec<NotificationId>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip() {
        for kind in NotificationKind::ALL {
            assert_eq!(NotificationKind::parse(kind.as_str()).unwrap(), kind);
        }
        assert!(NotificationKind::parse("nope").is_err());
    }

    #[test]
    fn a_recipient_copy_names_the_target_and_is_unread() {
        let topic = TopicId::new();
        let notify = NotifyFollowers {
            target: NotifyTarget::Topic(topic),
            actor: None,
            kind: NotificationKind::StageChange,
            comment_id: None,
            title: "Dark mode".into(),
            status: Some("Now".into()),
            previous_status: Some("Later".into()),
        };
        let team = TeamId::new();
        let who = SubscriberId::new();
        let at = Timestamp::from_unix_seconds(1_780_000_000).unwrap();
        let n = notify.for_recipient(team, who, at);
        assert_eq!((n.feedback_id, n.topic_id), (None, Some(topic)));
        assert_eq!((n.subscriber_id, n.read_at, n.created_at), (who, None, at));
        assert_eq!(n.status.as_deref(), Some("Now"));
        assert_ne!(notify.for_recipient(team, who, at).id, n.id);
    }
}
