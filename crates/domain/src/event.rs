//! Events a change emits (interface §6, decisions §6). They are written to the outbox in the
//! same transaction as the change, and delivered to subscribed targets later.

use std::sync::Arc;

use serde::Serialize;
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
    pub payload: EventBody,
    /// Followers to notify in the same transaction (see `notification`); `None` for most.
    pub notify: Option<NotifyFollowers>,
}

/// A delivery body as the JSON text that is stored and sent. It is written once, when the
/// event is made: a tree of `Value`s cost a write more to build, copy, turn into text and
/// free than the text itself (docs/benchmarks.md, twentieth round). Clones share the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventBody(Arc<str>);

impl EventBody {
    /// Keeps what `serde_json` wrote, which is UTF-8 whenever it succeeded.
    fn written(bytes: Vec<u8>) -> Self {
        EventBody(
            String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
                .into(),
        )
    }

    /// The JSON text: always one object.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The body as a JSON value (for tests and for stores that keep values).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }
}

impl NewEvent {
    /// Builds the payload of decisions §6 from the ids involved and the resource.
    pub fn new(
        team_id: TeamId,
        kind: EventKind,
        occurred_at: Timestamp,
        ids: &[(&str, String)],
        data: impl Serialize,
    ) -> Self {
        let mut body = Vec::with_capacity(512);
        body.push(b'{');
        push_field(&mut body, "event", kind.as_str());
        push_field(&mut body, "teamId", &team_id.to_string());
        push_field(&mut body, "occurredAt", &occurred_at.to_rfc3339());
        for (name, id) in ids {
            push_field(&mut body, name, id);
        }
        push_field(&mut body, "data", &data);
        body.push(b'}');
        Self {
            id: EventId::new(),
            team_id,
            kind,
            occurred_at,
            payload: EventBody::written(body),
            notify: None,
        }
    }

    /// The same event with one more top-level field beside the ids (a vote's `onBehalf`),
    /// which the body must not have yet.
    pub fn with_field(mut self, name: &str, value: impl Serialize) -> Self {
        let mut body = self.payload.as_str().as_bytes().to_vec();
        // The body is an object this type wrote: its last byte closes it.
        body.pop();
        push_field(&mut body, name, &value);
        body.push(b'}');
        self.payload = EventBody::written(body);
        self
    }

    /// The same event, also notifying followers when it is stored.
    pub fn notifying(mut self, notify: NotifyFollowers) -> Self {
        self.notify = Some(notify);
        self
    }
}

/// Appends `"name":value` to a body being written, after a comma unless it is the first.
/// The values are ids, times, names and the app's wire shapes, which hold only strings,
/// numbers and maps, so writing them cannot fail; `null` would only stand for a bug.
fn push_field(body: &mut Vec<u8>, name: &str, value: &(impl Serialize + ?Sized)) {
    if body.len() > 1 {
        body.push(b',');
    }
    // Writing a string cannot fail.
    let _ = serde_json::to_writer(&mut *body, name);
    body.push(b':');
    let start = body.len();
    if serde_json::to_writer(&mut *body, value).is_err() {
        body.truncate(start);
        body.extend_from_slice(b"null");
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
    fn a_body_is_the_payload_of_decisions_6_as_one_json_object() {
        let team = TeamId::new();
        let at = Timestamp::from_unix_seconds(1_700_000_000).unwrap();
        let event = NewEvent::new(
            team,
            EventKind::NewFeedbackVote,
            at,
            &[("feedbackId", "f-1".into()), ("voteId", "v \"1\"".into())],
            serde_json::json!({ "title": "Dark mode", "votes": 2 }),
        )
        .with_field("onBehalf", true);
        assert_eq!(
            serde_json::from_str::<Value>(event.payload.as_str()).unwrap(),
            serde_json::json!({
                "event": "new_feedback_vote",
                "teamId": team.to_string(),
                "occurredAt": at.to_rfc3339(),
                "feedbackId": "f-1",
                "voteId": "v \"1\"",
                "data": { "title": "Dark mode", "votes": 2 },
                "onBehalf": true,
            })
        );
        assert_eq!(event.payload.to_value()["onBehalf"], true);
        let bare = NewEvent::new(team, EventKind::TopicsCreate, at, &[], Value::Null);
        assert_eq!(bare.payload.to_value()["data"], Value::Null);
        assert_eq!(bare.payload.to_value()["event"], "topics.create");
    }

    #[test]
    fn names_round_trip_and_unknown_names_list_the_valid_ones() {
        for kind in EventKind::ALL {
            assert_eq!(EventKind::parse(kind.as_str()).unwrap(), kind);
        }
        let err = EventKind::parse("nope").unwrap_err().to_string();
        assert!(err.contains("new_feedback") && err.contains("topic-votes.create"));
    }
}
