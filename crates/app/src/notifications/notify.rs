//! Who is told what: builds the [`NotifyFollowers`] the triggering use cases attach to the
//! event they already store, so the notifications commit with the change.
//!
//! Triggers: a public comment on a followed item or topic (the commenter is not told), a
//! feedback status change by the team, and a topic moving to another stage (nobody in
//! particular acted, so every follower is told). Private comments notify nobody.

use sounding_domain::{
    feedback::FeedbackView,
    notification::{NotificationKind, NotifyFollowers, NotifyTarget},
    topic::TopicView,
    SubscriberId,
};
use uuid::Uuid;

/// A public comment on a feedback item, by `author`.
pub fn feedback_comment(
    view: &FeedbackView,
    comment: Uuid,
    author: SubscriberId,
) -> NotifyFollowers {
    NotifyFollowers {
        target: NotifyTarget::Feedback(view.feedback.id),
        actor: Some(author),
        kind: NotificationKind::Comment,
        comment_id: Some(comment),
        title: view.feedback.title.clone(),
        status: None,
        previous_status: None,
    }
}

/// A team change of the item's status (`view` as saved).
pub fn feedback_status(view: &FeedbackView, previous: &str) -> NotifyFollowers {
    NotifyFollowers {
        target: NotifyTarget::Feedback(view.feedback.id),
        actor: None,
        kind: NotificationKind::StatusChange,
        comment_id: None,
        title: view.feedback.title.clone(),
        status: Some(view.feedback.status.as_str().to_owned()),
        previous_status: Some(previous.to_owned()),
    }
}

/// A comment (top-level or reply) on a topic, by `author`.
pub fn topic_comment(view: &TopicView, comment: Uuid, author: SubscriberId) -> NotifyFollowers {
    NotifyFollowers {
        target: NotifyTarget::Topic(view.topic.id),
        actor: Some(author),
        kind: NotificationKind::Comment,
        comment_id: Some(comment),
        title: view.topic.title.clone(),
        status: None,
        previous_status: None,
    }
}

/// A topic moved from the stage named `previous` to its current one (`view` as saved). The
/// stage is a topic's status: `status` and `previousStatus` carry the stage names.
pub fn topic_stage(view: &TopicView, previous: &str) -> NotifyFollowers {
    NotifyFollowers {
        target: NotifyTarget::Topic(view.topic.id),
        actor: None,
        kind: NotificationKind::StageChange,
        comment_id: None,
        title: view.topic.title.clone(),
        status: Some(view.stage.name.clone()),
        previous_status: Some(previous.to_owned()),
    }
}
