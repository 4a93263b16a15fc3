//! The ports: what the use cases need from the outside world (and `AnswerStore`, the answers
//! the HTTP adapter asks the store to remember). Storage adapters
//! (`sounding-store-memory`, `sounding-store-diesel`) implement the storage traits; the HTTP
//! adapter implements the token codec; the server supplies the clock.
//!
//! Storage methods are whole operations: every write a use case makes, and the events it
//! causes, commit together or not at all. A change to an existing row is an `edit_*` method
//! taking an [`Edit`](crate::edit::Edit): the store reads the row inside its write transaction, under a row lock
//! where the engine has one, runs the edit on it, and writes it back with the edit's events
//! only when it really changed (`crate::edit`).

use crate::DomainError;

mod access;
mod answers;
mod board;
mod clock;
mod document;
mod feedback;
mod notification;
mod outbox;
mod roadmap;
mod settings;
mod subscriber;
mod tag;
mod team;
mod token;
mod topic;
mod webhook;

pub use access::*;
pub use answers::*;
pub use board::*;
pub use clock::*;
pub use document::*;
pub use feedback::*;
pub use notification::*;
pub use outbox::*;
pub use roadmap::*;
pub use settings::*;
pub use subscriber::*;
pub use tag::*;
pub use team::*;
pub use token::*;
pub use topic::*;
pub use webhook::*;

/// What a storage adapter reports. Constraint violations the use case can act on are
/// `Conflict`; everything else is the adapter's business and surfaces as a server error, with
/// the adapter's own error kept as its source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A rule the store enforces was broken; the variant names the rule.
    #[error("conflict on {0}")]
    Conflict(Conflict),
    /// The database could not be reached (pool exhausted, connection refused).
    #[error("storage unavailable: {0}")]
    Unavailable(#[source] Cause),
    /// The database, or the disk it is on, is full: writes fail until space is freed
    /// (SQLite `SQLITE_FULL`, PostgreSQL `53100 disk_full`).
    #[error("storage full: {0}")]
    Full(#[source] Cause),
    /// Any other failure: an unexpected database error, a row that breaks an invariant.
    #[error("storage failure: {0}")]
    Failure(#[source] Cause),
    /// A domain rule refused the change, checked by the store on the row as stored inside its
    /// transaction (the 16 KiB limit of a subscriber's merged meta, `Subscriber::apply_patch`
    /// and `Subscriber::merge_identify`): the domain's own error, for the use case to report.
    #[error(transparent)]
    Refused(DomainError),
}

/// What every storage method returns.
pub type StoreResult<T> = Result<T, StoreError>;

/// The rules reported in `StoreError::Conflict`. Shown (in logs) by their old wire names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Conflict {
    /// Another team has the subdomain.
    #[error("team_subdomain")]
    TeamSubdomain,
    /// A board's slug is taken in the team.
    #[error("board_slug")]
    BoardSlug,
    /// The team already has a user with the e-mail.
    #[error("user_email")]
    UserEmail,
    /// A feedback item's `urlId` is taken in the team (the use case draws another).
    #[error("feedback_url_id")]
    FeedbackUrlId,
    /// A tag given to a new feedback item is not the team's (deleted meanwhile).
    #[error("feedback_tag")]
    FeedbackTag,
    /// A board still holds feedback and cannot be deleted.
    #[error("board_not_empty")]
    BoardNotEmpty,
    /// A stage still holds topics and deletion was not forced.
    #[error("stage_not_empty")]
    StageNotEmpty,
    /// A roadmap still holds topics and deletion was not forced.
    #[error("roadmap_not_empty")]
    RoadmapNotEmpty,
    /// A topic's `urlId` is taken in the team (the use case draws another).
    #[error("topic_url_id")]
    TopicUrlId,
    /// A delivery is being attempted right now.
    #[error("delivery_in_flight")]
    DeliveryInFlight,
    /// A document's `urlId` is taken in the team (the use case draws another).
    #[error("document_url_id")]
    DocumentUrlId,
    /// A tag's name is taken in the team, ignoring case.
    #[error("tag_name")]
    TagName,
    /// The change would leave the team without an owner (`team_admin::would_leave_no_owner`).
    #[error("last_owner")]
    LastOwner,
}

/// Why a store failed, as the adapter's own error (kept as the `source` of `StoreError`, so
/// the whole chain reaches the logs). Built from any error, or from a message.
#[derive(Clone)]
pub struct Cause(std::sync::Arc<dyn std::error::Error + Send + Sync>);

impl Cause {
    /// The adapter's own error, kept whole as the source.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self(std::sync::Arc::new(error))
    }

    /// `error` under a line saying what was being done (`no database connection: …`).
    pub fn context(
        what: &'static str,
        error: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self::new(Context {
            what,
            source: Box::new(error),
        })
    }
}

/// A message standing for a cause the adapter has only as text.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Message(String);

#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}")]
struct Context {
    what: &'static str,
    #[source]
    source: Box<dyn std::error::Error + Send + Sync>,
}

impl From<String> for Cause {
    fn from(message: String) -> Self {
        Self::new(Message(message))
    }
}

impl From<&str> for Cause {
    fn from(message: &str) -> Self {
        Self::from(message.to_owned())
    }
}

impl std::fmt::Debug for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Two causes are alike when they read alike (tests compare errors; the cause's type is the
/// adapter's business).
impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for Cause {}

/// `Store` and its blanket impl from one list of ports: Rust has no trait aliases, and the
/// list would otherwise be kept twice.
macro_rules! store_of_ports {
    ($(#[$doc:meta])* $first:ident $(+ $port:ident)*) => {
        $(#[$doc])*
        pub trait Store: $first $(+ $port)* {}

        impl<T> Store for T where T: $first $(+ $port)* {}
    };
}

store_of_ports! {
    /// Everything a complete storage adapter provides.
    TeamStore
        + AccessStore
        + SubscriberStore
        + BoardStore
        + FeedbackStore
        + RoadmapStore
        + TopicStore
        + WebhookStore
        + OutboxStore
        + SettingsStore
        + NotificationStore
        + DocumentStore
        + TagStore
        + FeedbackCurationStore
        + AnswerStore
}
