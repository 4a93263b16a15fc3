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

/// What a notification tells its subscriber.
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
    /// Every kind.
    pub const ALL: [NotificationKind; 3] = [
        NotificationKind::Comment,
        NotificationKind::StatusChange,
        NotificationKind::StageChange,
    ];

    /// The wire name: `comment`, `status_change` or `stage_change`.
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationKind::Comment => "comment",
            NotificationKind::StatusChange => "status_change",
            NotificationKind::StageChange => "stage_change",
        }
    }

    /// Reads a wire name; anything else is invalid.
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
    /// The followers of this feedback item.
    Feedback(FeedbackId),
    /// The followers of this topic.
    Topic(TopicId),
}

/// Attached to an event: "tell every follower of `target` but `actor`". The store writes the
/// notifications in the transaction that appends the event.
#[derive(Debug, Clone, PartialEq)]
pub struct NotifyFollowers {
    /// Whose followers are told.
    pub target: NotifyTarget,
    /// Who caused it (not notified); `None` when nobody in particular (a team change).
    pub actor: Option<SubscriberId>,
    /// What happened.
    pub kind: NotificationKind,
    /// The new comment (a feedback or topic comment id).
    pub comment_id: Option<Uuid>,
    /// The item's or topic's title when it happened.
    pub title: String,
    /// `status_change`: the new status; `stage_change`: the new stage's name.
    pub status: Option<String>,
    /// `status_change`: the status before; `stage_change`: the previous stage's name.
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
    /// What `markRead` names it by.
    pub id: NotificationId,
    /// The subscriber's team.
    pub team_id: TeamId,
    /// The subscriber notified.
    pub subscriber_id: SubscriberId,
    /// What happened.
    pub kind: NotificationKind,
    /// The followed feedback item; `None` when the notification is about a topic.
    pub feedback_id: Option<FeedbackId>,
    /// The followed topic; `None` when the notification is about a feedback item.
    pub topic_id: Option<TopicId>,
    /// `comment`: the new feedback or topic comment; `None` for the other kinds.
    pub comment_id: Option<Uuid>,
    /// The item's or topic's title when it happened; kept after the item is deleted.
    pub title: String,
    /// `status_change`: the new status; `stage_change`: the new stage's name.
    pub status: Option<String>,
    /// `status_change`: the status before; `stage_change`: the previous stage's name.
    pub previous_status: Option<String>,
    /// Who caused it; `None` when nobody in particular did (a change by the team).
    pub actor_id: Option<SubscriberId>,
    /// When the subscriber marked it read; `None` while unread.
    pub read_at: Option<Timestamp>,
    /// When the change that caused it was written.
    pub created_at: Timestamp,
}

/// A notification as listed: with its actor (`None` when there is none, or it is gone).
#[derive(Debug, Clone, PartialEq)]
pub struct NotificationView {
    /// The notification as stored.
    pub notification: Notification,
    /// The subscriber behind `actor_id`, as they are now.
    pub actor: Option<SubscriberRef>,
}

/// A validated `public/notifications.list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotificationQuery {
    /// Leaves out the notifications already read.
    pub unread_only: bool,
    /// The slice of the newest-first list to return.
    pub page: PageRequest,
}

/// One page of a subscriber's notifications (newest first) and how many are unread in all.
#[derive(Debug, Clone, PartialEq)]
pub struct NotificationPage {
    /// The page, with the total the query selects.
    pub page: Paged<NotificationView>,
    /// The subscriber's unread notifications in all, whatever the query.
    pub unread: i64,
}

/// Which of a subscriber's notifications `markRead` touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkRead {
    /// Every unread notification of the subscriber.
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
