//! Typed identifiers. Every id is a UUID (v7 for new rows, so ids sort by creation time);
//! the newtypes keep a board id from being passed where a team id is expected.

use std::{fmt, str::FromStr};

use uuid::Uuid;

use crate::error::DomainError;

macro_rules! id_type {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A fresh, time-ordered id.
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }

            /// Parses a client-supplied id; `field` names it in the error.
            pub fn parse(field: &str, raw: &str) -> Result<Self, DomainError> {
                parse_uuid(field, raw).map(Self)
            }

            /// The same for a required parameter: `<field> is required` when absent.
            pub fn parse_required(field: &str, raw: Option<&str>) -> Result<Self, DomainError> {
                let raw = raw.ok_or_else(|| DomainError::invalid(format!("{field} is required")))?;
                Self::parse(field, raw)
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.hyphenated().fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }
    )*};
}

id_type!(
    /// Identifies a team (the tenant).
    TeamId,
    /// Identifies a team user (a person who administers the team).
    UserId,
    /// Identifies a team API key (not the key itself).
    ApiKeyId,
    /// Identifies a subscriber (an end user of one team).
    SubscriberId,
    /// Identifies a feedback board.
    BoardId,
    /// Identifies an outbox event.
    EventId,
    /// Identifies a feedback item (its short `urlId` is another handle).
    FeedbackId,
    /// Identifies a comment on a feedback item.
    FeedbackCommentId,
    /// Identifies a subscriber's vote on a feedback item.
    FeedbackVoteId,
    /// Identifies a roadmap.
    RoadmapId,
    /// Identifies a stage of a roadmap.
    StageId,
    /// Identifies a topic (its short `urlId` is another handle).
    TopicId,
    /// Identifies a comment or reply on a topic.
    TopicCommentId,
    /// Identifies a subscriber's vote on a topic.
    TopicVoteId,
    /// Identifies a webhook subscription.
    WebhookId,
    /// Identifies a webhook delivery: sent as `webhook-id`, the same on every retry.
    DeliveryId,
    /// Identifies one notification of one subscriber.
    NotificationId,
    /// Identifies a document (its short `urlId` is another handle).
    DocumentId,
    /// Identifies a tag.
    TagId,
);

/// Parses a UUID in its hyphenated form, the only form the API hands out.
///
/// ```
/// use sounding_domain::{BoardId, DomainError};
///
/// let id = BoardId::new();
/// assert_eq!(BoardId::parse("boardId", &id.to_string()), Ok(id));
/// // The simple (unhyphenated) form is refused, naming the field.
/// let simple = id.0.simple().to_string();
/// assert_eq!(
///     BoardId::parse("boardId", &simple),
///     Err(DomainError::invalid("boardId must be a UUID"))
/// );
/// assert_eq!(
///     BoardId::parse_required("boardId", None),
///     Err(DomainError::invalid("boardId is required"))
/// );
/// ```
pub fn parse_uuid(field: &str, raw: &str) -> Result<Uuid, DomainError> {
    let trimmed = raw.trim();
    if trimmed.len() != 36 {
        return Err(DomainError::invalid(format!("{field} must be a UUID")));
    }
    Uuid::parse_str(trimmed).map_err(|_| DomainError::invalid(format!("{field} must be a UUID")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_uuid_names_the_field() {
        let err = BoardId::parse("boardId", "not-a-uuid").unwrap_err();
        assert_eq!(err, DomainError::invalid("boardId must be a UUID"));
        assert!(BoardId::parse("boardId", "0191c8a0-0000-7000-8000-00000000000").is_err());
    }

    #[test]
    fn a_required_id_names_the_field_when_absent_or_malformed() {
        assert_eq!(
            BoardId::parse_required("boardId", None),
            Err(DomainError::invalid("boardId is required"))
        );
        assert_eq!(
            BoardId::parse_required("boardId", Some("x")),
            Err(DomainError::invalid("boardId must be a UUID"))
        );
        let id = BoardId::new();
        assert_eq!(
            BoardId::parse_required("boardId", Some(&id.to_string())),
            Ok(id)
        );
    }

    #[test]
    fn ids_round_trip_through_text() {
        let id = TeamId::new();
        assert_eq!(TeamId::parse("id", &id.to_string()).unwrap(), id);
    }

    #[test]
    fn new_ids_are_time_ordered() {
        let a = BoardId::new();
        let b = BoardId::new();
        assert!(a < b);
    }
}
