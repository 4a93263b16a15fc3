//! The ports: what the use cases need from the outside world. Storage adapters
//! (`sounding-store-memory`, `sounding-store-diesel`) implement the storage traits; the HTTP
//! adapter implements the token codec; the server supplies the clock.
//!
//! Storage methods are whole operations: every write a use case makes, and the events it
//! causes, commit together or not at all.

use async_trait::async_trait;

use crate::{
    access::TeamUser,
    api_key::{ApiKey, ApiKeyGrant},
    board::{Board, BoardView},
    event::{NewEvent, StoredEvent},
    feedback::{Feedback, FeedbackQuery, FeedbackView},
    feedback_comment::{CommentQuery, CommentView, FeedbackComment},
    feedback_vote::{FeedbackVote, VoteOutcome, VoteState},
    ids::{ApiKeyId, BoardId, FeedbackId, SubscriberId, TeamId},
    page::Paged,
    subscriber::{Identify, Subscriber},
    team::Team,
    timestamp::Timestamp,
    token::{SubscriberClaims, TokenError},
};

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
    /// A board still holds feedback and cannot be deleted.
    pub const BOARD_NOT_EMPTY: &str = "board_not_empty";
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait TeamStore: Send + Sync {
    /// Whether any team exists (first start creates the default team when none does).
    async fn any_team(&self) -> StoreResult<bool>;
    /// Creates a team with its owner and the owner's first key. Conflict `team_subdomain`.
    async fn create_team(&self, team: &Team, owner: &TeamUser, key: &ApiKey) -> StoreResult<()>;
    async fn team(&self, id: TeamId) -> StoreResult<Option<Team>>;
    async fn team_by_subdomain(&self, subdomain: &str) -> StoreResult<Option<Team>>;
    async fn update_team(&self, team: &Team) -> StoreResult<()>;
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait AccessStore: Send + Sync {
    async fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()>;
    /// The key with this SHA-256 hash and its user's role, if the key still exists.
    async fn api_key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKeyGrant>>;
    /// Removes a key; `false` when there was none.
    async fn delete_api_key(&self, id: ApiKeyId) -> StoreResult<bool>;
    /// The team's users, owners first, then by creation.
    async fn users(&self, team: TeamId) -> StoreResult<Vec<TeamUser>>;
    /// The user with this (lowercase) e-mail in the team.
    async fn user_by_email(&self, team: TeamId, email: &str) -> StoreResult<Option<TeamUser>>;
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SubscriberStore: Send + Sync {
    async fn subscriber(&self, team: TeamId, id: SubscriberId) -> StoreResult<Option<Subscriber>>;
    async fn subscriber_by_email(
        &self,
        team: TeamId,
        email: &str,
    ) -> StoreResult<Option<Subscriber>>;
    /// Atomically creates the subscriber for `input.email` (`Subscriber::identified`) or
    /// merges into the existing one (`Subscriber::merge_identify`). Returns it and whether
    /// it was created. Safe under concurrent calls for one e-mail.
    async fn identify(
        &self,
        team: TeamId,
        input: &Identify,
        now: Timestamp,
    ) -> StoreResult<(Subscriber, bool)>;
    /// Bumps the token version so every token issued before is refused; the new version,
    /// or `None` when the subscriber does not exist.
    async fn revoke_tokens(
        &self,
        team: TeamId,
        id: SubscriberId,
        now: Timestamp,
    ) -> StoreResult<Option<i64>>;
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait BoardStore: Send + Sync {
    /// Conflict `board_slug` when the slug is taken in the team.
    async fn insert_board(&self, board: &Board) -> StoreResult<()>;
    /// The team's boards ordered by `order` then creation; only `meta.isPublic` ones when asked.
    async fn boards(&self, team: TeamId, public_only: bool) -> StoreResult<Vec<BoardView>>;
    async fn board(&self, team: TeamId, id: BoardId) -> StoreResult<Option<BoardView>>;
    async fn board_slug_taken(&self, team: TeamId, slug: &str) -> StoreResult<bool>;
    /// One more than the highest `order` in the team (1 for the first board).
    async fn next_board_order(&self, team: TeamId) -> StoreResult<i64>;
    /// Conflict `board_slug` when the new slug is taken.
    async fn update_board(&self, board: &Board) -> StoreResult<()>;
    /// Removes a board; `false` when there was none. Conflict `board_not_empty` (and nothing
    /// removed) while feedback is on it.
    async fn delete_board(&self, team: TeamId, id: BoardId) -> StoreResult<bool>;
}

/// Feedback items with their votes, comments and followers. Every write takes the events it
/// causes and appends them in the same transaction. Vote and comment counts are kept equal to
/// the number of rows by the same transaction that adds or removes a row.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait FeedbackStore: Send + Sync {
    /// Inserts the item (counts 0) and makes its creator a follower. Conflict
    /// `feedback_url_id` (and nothing written) when the team already has its `url_id`.
    async fn insert_feedback(&self, feedback: &Feedback, events: &[NewEvent]) -> StoreResult<()>;
    async fn feedback(&self, team: TeamId, id: FeedbackId) -> StoreResult<Option<FeedbackView>>;
    async fn feedback_by_url_id(
        &self,
        team: TeamId,
        url_id: &str,
    ) -> StoreResult<Option<FeedbackView>>;
    /// Saves every field of the item but its counts; `false` (and no events) when it is gone.
    async fn update_feedback(&self, feedback: &Feedback, events: &[NewEvent]) -> StoreResult<bool>;
    /// Removes the item with its comments, votes and follows; `false` when there was none.
    async fn delete_feedback(
        &self,
        team: TeamId,
        id: FeedbackId,
        events: &[NewEvent],
    ) -> StoreResult<bool>;
    /// One page of the items the query selects, in its order, and how many it selects.
    /// A constant number of statements whatever the page size.
    async fn list_feedback(
        &self,
        team: TeamId,
        query: &FeedbackQuery,
    ) -> StoreResult<Paged<FeedbackView>>;

    /// Records the vote unless the subscriber already voted on the item (`AlreadyVoted`, and
    /// nothing written). `None` when the item is gone.
    async fn cast_vote(
        &self,
        team: TeamId,
        vote: &FeedbackVote,
        events: &[NewEvent],
    ) -> StoreResult<Option<VoteOutcome>>;
    /// Removes the subscriber's vote if there is one; the count after. `None` when the item
    /// is gone.
    async fn retract_vote(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: SubscriberId,
    ) -> StoreResult<Option<i64>>;
    /// The count and, when a subscriber is given, their vote. `None` when the item is gone.
    async fn vote_state(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: Option<SubscriberId>,
    ) -> StoreResult<Option<VoteState>>;

    /// Inserts the comment and makes its author a follower. `false` (nothing written) when
    /// the item is gone.
    async fn insert_comment(
        &self,
        comment: &FeedbackComment,
        events: &[NewEvent],
    ) -> StoreResult<bool>;
    /// One page of the item's comments in the query's order, with the total.
    async fn comments(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        query: &CommentQuery,
    ) -> StoreResult<Paged<CommentView>>;

    /// Starts (from `at`; an existing follow keeps its start) or stops the subscriber
    /// following the item; idempotent. `false` when the item is gone.
    async fn set_following(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: SubscriberId,
        follow: bool,
        at: Timestamp,
    ) -> StoreResult<bool>;
    /// The item's followers, in the order they started following.
    async fn followers(&self, team: TeamId, feedback: FeedbackId)
        -> StoreResult<Vec<SubscriberId>>;
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait OutboxStore: Send + Sync {
    /// Appends events on their own (use cases normally pass them to the write they belong to).
    async fn append_events(&self, events: &[NewEvent]) -> StoreResult<()>;
    /// The team's outbox, oldest first.
    async fn events(&self, team: TeamId) -> StoreResult<Vec<StoredEvent>>;
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SettingsStore: Send + Sync {
    /// The stored value for `name`, storing `candidate` first if there is none. Concurrent
    /// callers all get the same value.
    async fn get_or_init_setting(&self, name: &str, candidate: &str) -> StoreResult<String>;
    /// Whether the database answers.
    async fn ping(&self) -> StoreResult<()>;
}

/// Everything a complete storage adapter provides.
pub trait Store:
    TeamStore + AccessStore + SubscriberStore + BoardStore + FeedbackStore + OutboxStore + SettingsStore
{
}

impl<T> Store for T where
    T: TeamStore
        + AccessStore
        + SubscriberStore
        + BoardStore
        + FeedbackStore
        + OutboxStore
        + SettingsStore
{
}

/// The current time; injected so tests can move it.
#[cfg_attr(feature = "mock", mockall::automock)]
pub trait Clock: Send + Sync {
    fn now(&self) -> Timestamp;
}

/// Signs and verifies subscriber tokens.
#[cfg_attr(feature = "mock", mockall::automock)]
pub trait TokenCodec: Send + Sync {
    fn issue(&self, claims: &SubscriberClaims) -> String;
    /// Checks signature, algorithm and expiry (at `now`).
    fn verify(&self, token: &str, now: Timestamp) -> Result<SubscriberClaims, TokenError>;
}
