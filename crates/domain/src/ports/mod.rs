//! The ports: what the use cases need from the outside world. Storage adapters
//! (`sounding-store-memory`, `sounding-store-diesel`) implement the storage traits; the HTTP
//! adapter implements the token codec; the server supplies the clock.
//!
//! Storage methods are whole operations: every write a use case makes, and the events it
//! causes, commit together or not at all. A change to an existing row is an `edit_*` method
//! taking an [`Edit`](crate::edit::Edit): the store reads the row inside its write transaction, under a row lock
//! where the engine has one, runs the edit on it, and writes it back with the edit's events
//! only when it really changed (`crate::edit`).

mod access;
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
/// `Conflict`; everything else is the adapter's business and surfaces as a server error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// A uniqueness rule was broken; the string names the rule (e.g. `board_slug`).
    #[error("conflict on {0}")]
    Conflict(String),
    /// The database could not be reached (pool exhausted, connection refused).
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// The database, or the disk it is on, is full: writes fail until space is freed
    /// (SQLite `SQLITE_FULL`, PostgreSQL `53100 disk_full`).
    #[error("storage full: {0}")]
    Full(String),
    #[error("storage failure: {0}")]
    Failure(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// Names of the uniqueness rules reported in `StoreError::Conflict`.
pub mod conflicts {
    pub const TEAM_SUBDOMAIN: &str = "team_subdomain";
    pub const BOARD_SLUG: &str = "board_slug";
    pub const USER_EMAIL: &str = "user_email";
    /// A feedback item's `urlId` is taken in the team (the use case draws another).
    pub const FEEDBACK_URL_ID: &str = "feedback_url_id";
    /// A tag given to a new feedback item is not the team's (deleted meanwhile).
    pub const FEEDBACK_TAG: &str = "feedback_tag";
    /// A board still holds feedback and cannot be deleted.
    pub const BOARD_NOT_EMPTY: &str = "board_not_empty";
    /// A stage still holds topics and deletion was not forced.
    pub const STAGE_NOT_EMPTY: &str = "stage_not_empty";
    /// A roadmap still holds topics and deletion was not forced.
    pub const ROADMAP_NOT_EMPTY: &str = "roadmap_not_empty";
    /// A topic's `urlId` is taken in the team (the use case draws another).
    pub const TOPIC_URL_ID: &str = "topic_url_id";
    /// A delivery is being attempted right now.
    pub const DELIVERY_IN_FLIGHT: &str = "delivery_in_flight";
    /// A document's `urlId` is taken in the team (the use case draws another).
    pub const DOCUMENT_URL_ID: &str = "document_url_id";
    /// A tag's name is taken in the team, ignoring case.
    pub const TAG_NAME: &str = "tag_name";
    /// The change would leave the team without an owner.
    pub const LAST_OWNER: &str = "last_owner";
    /// A subscriber's stored meta merged with the patch would pass 16 KiB.
    pub const SUBSCRIBER_META_TOO_LARGE: &str = "subscriber_meta_too_large";
}

/// Everything a complete storage adapter provides.
pub trait Store:
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
{
}

impl<T> Store for T where
    T: TeamStore
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
{
}
