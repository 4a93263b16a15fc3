//! The errors a domain rule can raise. Adapters translate them to their own vocabulary
//! (an HTTP status, a CLI message); the rule only says what went wrong.

use std::fmt;

/// The things the service can fail to find, named in "`<Thing>` not found" messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entity {
    Team,
    Subscriber,
    Board,
    Feedback,
    Roadmap,
    Stage,
    Topic,
    Comment,
    Webhook,
    Delivery,
    ApiKey,
    User,
    Document,
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

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    /// Input that breaks a rule; the message names the field.
    #[error("{0}")]
    Invalid(String),
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
    pub fn within(self, parent: &str) -> Self {
        match self {
            DomainError::Invalid(message) => DomainError::Invalid(format!("{parent}.{message}")),
            other => other,
        }
    }
}

impl DomainError {
    pub fn invalid(message: impl Into<String>) -> Self {
        DomainError::Invalid(message.into())
    }
}

pub type DomainResult<T> = Result<T, DomainError>;
