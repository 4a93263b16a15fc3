//! The errors a domain rule can raise. Adapters translate them to their own vocabulary
//! (an HTTP status, a CLI message); the rule only says what went wrong.

use std::fmt;

/// The things the service can fail to find, named in "`<Thing>` not found" messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entity {
    /// A team (tenant).
    Team,
    /// One of a team's end users.
    Subscriber,
    /// A feedback board.
    Board,
    /// A feedback item.
    Feedback,
    /// A roadmap.
    Roadmap,
    /// A stage of a roadmap.
    Stage,
    /// A topic (feature request) on a roadmap.
    Topic,
    /// A comment on feedback or on a topic.
    Comment,
    /// A webhook subscription: `Subscription not found`.
    Webhook,
    /// A webhook delivery.
    Delivery,
    /// A team API key: `API key not found`.
    ApiKey,
    /// A team user.
    User,
    /// A help article or announcement.
    Document,
    /// A tag of the team's.
    Tag,
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Entity::Team => "Team",
            Entity::Subscriber => "Subscriber",
            Entity::Board => "Board",
            Entity::Feedback => "Feedback",
            Entity::Roadmap => "Roadmap",
            Entity::Stage => "Stage",
            Entity::Topic => "Topic",
            Entity::Comment => "Comment",
            Entity::Webhook => "Subscription",
            Entity::Delivery => "Delivery",
            Entity::ApiKey => "API key",
            Entity::User => "User",
            Entity::Document => "Document",
            Entity::Tag => "Tag",
        })
    }
}

/// Why a domain rule refused a request. The `Display` form is the message the client gets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    /// Input that breaks a rule; the message names the field.
    #[error("{0}")]
    Invalid(String),
    /// The thing does not exist, or is not the caller's to see (another team's, hidden):
    /// `<Entity> not found`.
    #[error("{0} not found")]
    NotFound(Entity),
    /// The caller is known but may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// The request clashes with the current state (a duplicate, a taken slug).
    #[error("{0}")]
    Conflict(String),
}

impl DomainError {
    /// The error of a field inside `parent` (`stages[0]`): an invalid input's message is
    /// prefixed with the path (`stages[0].name is required`); other errors stay as they are.
    ///
    /// ```
    /// use sounding_domain::{DomainError, Entity};
    ///
    /// assert_eq!(
    ///     DomainError::invalid("name is required").within("stages[0]").to_string(),
    ///     "stages[0].name is required"
    /// );
    /// assert_eq!(
    ///     DomainError::NotFound(Entity::Webhook).within("stages[0]").to_string(),
    ///     "Subscription not found"
    /// );
    /// ```
    pub fn within(self, parent: &str) -> Self {
        match self {
            DomainError::Invalid(message) => DomainError::Invalid(format!("{parent}.{message}")),
            other => other,
        }
    }
}

impl DomainError {
    /// [`DomainError::Invalid`] with `message`, which names the field (`title is required`).
    pub fn invalid(message: impl Into<String>) -> Self {
        DomainError::Invalid(message.into())
    }
}

/// The outcome of a domain rule.
pub type DomainResult<T> = Result<T, DomainError>;
