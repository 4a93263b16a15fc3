//! The one error type of the use cases. Adapters render it (an HTTP status and body, a CLI
//! message); the use case only says what happened.

use sounding_domain::{ports::StoreError, DomainError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No credential, or one that is unknown, revoked, malformed or badly signed.
    #[error("Authentication required")]
    Required,
    #[error("Token expired")]
    Expired,
}

/// Errors whose exact bodies the interface fixes (interface §7: sent without `statusCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Literal {
    #[error("cannot publish a topic of private stage")]
    PrivateStageTopic,
    #[error("Bad request")]
    BadRequest,
    #[error("title is required")]
    TitleRequired,
    #[error("Duplicate vote")]
    DuplicateVote,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Auth(#[from] AuthError),
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error(transparent)]
    Literal(#[from] Literal),
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

pub type AppResult<T> = Result<T, AppError>;

impl AppError {
    pub fn invalid(message: impl Into<String>) -> Self {
        AppError::Domain(DomainError::invalid(message))
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        AppError::Domain(DomainError::Forbidden(message.into()))
    }

    pub fn not_found(entity: sounding_domain::Entity) -> Self {
        AppError::Domain(DomainError::NotFound(entity))
    }
}
