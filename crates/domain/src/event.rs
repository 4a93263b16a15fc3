//! Events a change emits (interface §6, decisions §6). They are written to the outbox in the
//! same transaction as the change, and delivered to subscribed targets later.

use serde_json::Value;

use crate::{
    error::{DomainError, DomainResult},
    ids::{EventId, TeamId},
    notification::NotifyFollowers,
    timestamp::Timestamp,
};

/// What happened; a webhook subscription is for one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// `new_feedback`: a feedback item was created, by the team or publicly.
    NewFeedback,
    /// `new_feedback_vote`: a subscriber voted on a feedback item.
    NewFeedbackVote,
    /// `feedback_status_change`: the team really changed an item's status.
    FeedbackStatusChange,
    /// `feedbacks.create`: a subscriber created a feedback item through the public API.
    FeedbacksCreate,
    /// `feedbacks.update`: a feedback item changed (edited, moderated, merged).
    FeedbacksUpdate,
    /// `feedbacks.delete`: a feedback item was deleted with its comments and votes.
    FeedbacksDelete,
    /// `feedback-comments.create`: a comment was added to a feedback item.
    FeedbackCommentsCreate,
    /// `feedback-comments.delete`: a comment on a feedback item was deleted.
    FeedbackCommentsDelete,
    /// `topics.create`: a topic was created.
    TopicsCreate,
    /// `topics.update`: a topic changed, a move to another stage included.
    TopicsUpdate,
    /// `topic-comments.create`: a comment or reply was added to a topic.
    TopicCommentsCreate,
    /// `topic-comments.delete`: a topic comment was deleted (or left as a tombstone).
    TopicCommentsDelete,
    /// `topic-votes.create`: a subscriber voted on a topic.
    TopicVotesCreate,
}

impl EventKind {
    /// Every kind: the events `automation.subscribe` accepts.
    pub const ALL: [EventKind; 13] = [
        EventKind::NewFeedback,
        EventKind::NewFeedbackVote,
        EventKind::FeedbackStatusChange,
        EventKind::FeedbacksCreate,
        EventKind::FeedbacksUpdate,
        EventKind::FeedbacksDelete,
        EventKind::FeedbackCommentsCreate,
        EventKind::FeedbackCommentsDelete,
        EventKind::TopicsCreate,
        EventKind::TopicsUpdate,
        EventKind::TopicCommentsCreate,
        EventKind::TopicCommentsDelete,
        EventKind::TopicVotesCreate,
    ];

    /// The wire name: what a subscription names and the payload's `event`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::NewFeedback => "new_feedback",
            EventKind::NewFeedbackVote => "new_feedback_vote",
            EventKind::FeedbackStatusChange => "feedback_status_change",
            EventKind::FeedbacksCreate => "feedbacks.create",
            EventKind::FeedbacksUpdate => "feedbacks.update",
            EventKind::FeedbacksDelete => "feedbacks.delete",
            EventKind::FeedbackCommentsCreate => "feedback-comments.create",
            EventKind::FeedbackCommentsDelete => "feedback-comments.delete",
            EventKind::TopicsCreate => "topics.create",
            EventKind::TopicsUpdate => "topics.update",
            EventKind::TopicCommentsCreate => "topic-comments.create",
            EventKind::TopicCommentsDelete => "topic-comments.delete",
            EventKind::TopicVotesCreate => "topic-votes.create",
        }
    }

    /// Reads a wire name; an unknown one is invalid, with every valid name listed.
    ///
    /// ```
    /// use sounding_domain::event::EventKind;
    ///
    /// for kind in EventKind::ALL {
    ///     assert_eq!(EventKind::parse(kind.as_str()), Ok(kind));
    /// }
    /// assert_eq!(EventKind::TopicCommentsCreate.as_str(), "topic-comments.create");
    /// let error = EventKind::parse("new-feedback").unwrap_err().to_string();
    /// assert!(error.starts_with("event must be one of new_feedback, new_feedback_vote, "));
    /// ```
    pub fn parse(raw: &str) -> DomainResult<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == raw)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|k| k.as_str()).collect();
                DomainError::invalid(format!("event must be one of {}", names.join(", ")))
            })
    }
}

/// An event about to be written to the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    /// Unique per event; each of its deliveries refers to it.
    pub id: EventId,
    /// The team whose subscriptions receive it.
    pub team_id: TeamId,
    /// What happened; picks the subscriptions it fans out to.
    pub kind: EventKind,
    /// When the change happened: the payload's `occurredAt`.
    pub occurred_at: Timestamp,
    /// The full delivery body: `{event, teamId, occurredAt, <ids>, data}`.
    pub payload: Value,
    /// Followers to notify in the same transaction (see `notification`); `None` for most.
    pub notify: Option<NotifyFollowers>,
}

impl NewEvent {
    /// Builds the payload of decisions §6 from the ids involved and the resource.
    pub fn new(
        team_id: TeamId,
        kind: EventKind,
        occurred_at: Timestamp,
        ids: &[(&str, String)],
        data: Value,
    ) -> Self {
        let mut body = serde_json::Map::new();
        body.insert("event".into(), Value::from(kind.as_str()));
        body.insert("teamId".into(), Value::from(team_id.to_string()));
        body.insert("occurredAt".into(), Value::from(occurred_at.to_rfc3339()));
        for (name, id) in ids {
            body.insert((*name).into(), Value::from(id.as_str()));
        }
        body.insert("data".into(), data);
        Self {
            id: EventId::new(),
            team_id,
            kind,
            occurred_at,
            payload: Value::Object(body),
            notify: None,
        }
    }

    /// The same event with one more top-level field beside the ids (a vote's `onBehalf`).
    pub fn with_field(mut self, name: &str, value: impl Into<Value>) -> Self {
        if let Value::Object(body) = &mut self.payload {
            body.insert(name.into(), value.into());
        }
        self
    }

    /// The same event, also notifying followers when it is stored.
    pub fn notifying(mut self, notify: NotifyFollowers) -> Self {
        self.notify = Some(notify);
        self
    }
}

/// An event as kept in the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// The id it was appended with ([`NewEvent::id`]).
    pub id: EventId,
    /// The team whose subscriptions receive it.
    pub team_id: TeamId,
    /// The wire name ([`EventKind::as_str`]).
    pub kind: String,
    /// When the change happened.
    pub occurred_at: Timestamp,
    /// The delivery body, as [`NewEvent::new`] built it.
    pub payload: Value,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_valid_ones() {
        for kind in EventKind::ALL {
            assert_eq!(EventKind::parse(kind.as_str()).unwrap(), kind);
        }
        let err = EventKind::parse("nope").unwrap_err().to_string();
        assert!(err.contains("new_feedback") && err.contains("topic-votes.create"));
    }
}
