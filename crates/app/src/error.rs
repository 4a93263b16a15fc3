//! The one error type of the use cases. Adapters render it (an HTTP status and body, a CLI
//! message); the use case only says what happened.

use sounding_domain::{ports::StoreError, DomainError};

/// Why a caller was not authenticated; every variant is a 401 (interface §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No credential, or one that is unknown, revoked, malformed or badly signed.
    #[error("Authentication required")]
    Required,
    /// A well-signed subscriber token past its expiry.
    #[error("Token expired")]
    Expired,
}

/// Errors whose exact bodies the interface fixes (interface §7: sent without `statusCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Literal {
    /// `topics.create` into a private stage (400).
    #[error("cannot publish a topic of private stage")]
    PrivateStageTopic,
    /// `topics.create` as the team when anonymous creation is off, or a topic vote cast or
    /// removed without a subscriber token (400).
    #[error("Bad request")]
    BadRequest,
    /// `topics.create` without a title (400).
    #[error("title is required")]
    TitleRequired,
    /// A second vote by the same subscriber on a topic (409).
    #[error("Duplicate vote")]
    DuplicateVote,
}

/// What went wrong in a use case, for the adapter to render.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppError {
    /// The caller could not be authenticated (401).
    #[error(transparent)]
    Auth(#[from] AuthError),
    /// A domain rule refused the request: invalid input (400), forbidden (403), not found (404)
    /// or a conflict (409).
    #[error(transparent)]
    Domain(#[from] DomainError),
    /// One of the interface's fixed bodies, sent without `statusCode`.
    #[error(transparent)]
    Literal(#[from] Literal),
    /// The store failed, or reported a conflict the use case did not expect; adapters log the
    /// details and give the client a generic message.
    #[error(transparent)]
    Store(StoreError),
}

/// A store's error; a domain rule the store checked inside its transaction is the domain's.
impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Refused(domain) => AppError::Domain(domain),
            other => AppError::Store(other),
        }
    }
}

/// The result of a use case.
pub type AppResult<T> = Result<T, AppError>;

impl AppError {
    /// Invalid input (400); `message` names the field, as in `name is required`.
    pub fn invalid(message: impl Into<String>) -> Self {
        AppError::Domain(DomainError::invalid(message))
    }

    /// The caller may not do this (403); `message` is sent to the client as written.
    pub fn forbidden(message: impl Into<String>) -> Self {
        AppError::Domain(DomainError::Forbidden(message.into()))
    }

    /// `<Entity> not found` (404).
    pub fn not_found(entity: sounding_domain::Entity) -> Self {
        AppError::Domain(DomainError::NotFound(entity))
    }
}
