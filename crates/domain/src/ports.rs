//! The ports: what the use cases need from the outside world. Storage adapters
//! (`sounding-store-memory`, `sounding-store-diesel`) implement the storage traits; the HTTP
//! adapter implements the token codec; the server supplies the clock.
//!
//! Storage methods are whole operations: every write a use case makes, and the events it
//! causes, commit together or not at all. A change to an existing row is an `edit_*` method
//! taking an [`Edit`]: the store reads the row inside its write transaction, under a row lock
//! where the engine has one, runs the edit on it, and writes it back with the edit's events
//! only when it really changed (`crate::edit`).

use async_trait::async_trait;

use crate::{
    access::{Role, TeamUser},
    api_key::{ApiKey, ApiKeyGrant},
    board::{Board, BoardView},
    edit::{Edit, Edited, RemovalEvents},
    event::{NewEvent, StoredEvent},
    feedback::{Feedback, FeedbackQuery, FeedbackReach, FeedbackView},
    feedback_comment::{CommentQuery, CommentView, FeedbackComment},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome, VoteState},
    ids::{
        ApiKeyId, BoardId, FeedbackCommentId, FeedbackId, RoadmapId, StageId, SubscriberId, TagId,
        TeamId, TopicCommentId, TopicId, UserId,
    },
    page::Paged,
    roadmap::Roadmap,
    stage::{Stage, StageView},
    subscriber::{Identify, Subscriber},
    team::Team,
    team_admin::{SubscriberPatch, SubscriberQuery},
    timestamp::Timestamp,
    token::{SubscriberClaims, TokenError},
    topic::{Topic, TopicQuery, TopicView},
    topic_comment::{CommentThread, ThreadQuery, TopicComment, TopicCommentView},
    topic_vote::{TopicVote, TopicVoteOutcome, TopicVoteState},
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

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait TeamStore: Send + Sync {
    /// Whether any team exists (first start creates the default team when none does).
    async fn any_team(&self) -> StoreResult<bool>;
    /// Creates a team with its owner and the owner's first key. Conflict `team_subdomain`.
    async fn create_team(&self, team: &Team, owner: &TeamUser, key: &ApiKey) -> StoreResult<()>;
    async fn team(&self, id: TeamId) -> StoreResult<Option<Team>>;
    async fn team_by_subdomain(&self, subdomain: &str) -> StoreResult<Option<Team>>;
    /// Runs `edit` on the team as stored, atomically (see `crate::edit`).
    async fn edit_team(&self, id: TeamId, edit: Edit<Team>) -> StoreResult<Edited<Team>>;
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

    // Team administration (issue 6).
    /// Conflict `user_email` (nothing written) when the team has a user with the e-mail.
    async fn insert_user(&self, user: &TeamUser) -> StoreResult<()>;
    async fn user(&self, team: TeamId, id: UserId) -> StoreResult<Option<TeamUser>>;
    /// Gives the user `role`; the user as stored, or `None` when gone. Conflict `last_owner`
    /// (nothing written) when it would leave the team without an owner; checked in the same
    /// transaction as the write, so two concurrent demotions cannot both pass.
    async fn set_user_role(
        &self,
        team: TeamId,
        id: UserId,
        role: Role,
    ) -> StoreResult<Option<TeamUser>>;
    /// Removes the user and every API key of theirs; `false` when there was none. Conflict
    /// `last_owner` (nothing removed) when they are the team's last owner.
    async fn delete_user(&self, team: TeamId, id: UserId) -> StoreResult<bool>;
    /// The team's keys, oldest first.
    async fn api_keys(&self, team: TeamId) -> StoreResult<Vec<ApiKey>>;
    /// Removes the team's key; `false` when the team has no such key.
    async fn delete_team_api_key(&self, team: TeamId, id: ApiKeyId) -> StoreResult<bool>;
    /// Records a use of the key at `now` unless one was recorded within the last
    /// `resolution_seconds` (checked in the statement, so instances never write more often).
    async fn touch_api_key(
        &self,
        id: ApiKeyId,
        now: Timestamp,
        resolution_seconds: i64,
    ) -> StoreResult<()>;
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

    // Team administration (issue 6). Deleted subscribers stay as rows (their comments and
    // votes keep an author) but these methods treat them as gone.
    /// The subscriber unless deleted.
    async fn live_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
    ) -> StoreResult<Option<Subscriber>>;
    /// One page of the team's live subscribers and their total, in two statements.
    async fn list_subscribers(
        &self,
        team: TeamId,
        query: &SubscriberQuery,
    ) -> StoreResult<Paged<Subscriber>>;
    /// Applies the patch (`Subscriber::apply_patch`) to the stored subscriber atomically; the
    /// result, or `None` when it is gone or deleted.
    async fn update_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
        patch: &SubscriberPatch,
        now: Timestamp,
    ) -> StoreResult<Option<Subscriber>>;
    /// Erases the subscriber (`Subscriber::erase`) and marks it deleted; its e-mail is free
    /// for a new subscriber. `false` when it is gone or already deleted.
    async fn erase_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
        now: Timestamp,
    ) -> StoreResult<bool>;
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
    /// Runs `edit` on the board as stored, atomically (see `crate::edit`); the view's
    /// `feedback_count` is read, never written. Conflict `board_slug` when the new slug is
    /// taken (nothing written).
    async fn edit_board(
        &self,
        team: TeamId,
        id: BoardId,
        edit: Edit<BoardView>,
    ) -> StoreResult<Edited<BoardView>>;
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
    /// Inserts the item (counts 0) with `tags`, and makes its creator a follower. Conflict
    /// `feedback_url_id` (and nothing written) when the team already has its `url_id`;
    /// conflict `feedback_tag` (nothing written) when a tag is not, or no longer, the team's.
    async fn insert_feedback(
        &self,
        feedback: &Feedback,
        tags: &[TagId],
        events: &[NewEvent],
    ) -> StoreResult<()>;
    async fn feedback(&self, team: TeamId, id: FeedbackId) -> StoreResult<Option<FeedbackView>>;
    /// Who may read the item (`feedback`'s view, cut to that); `None` when it is gone.
    async fn feedback_reach(
        &self,
        team: TeamId,
        id: FeedbackId,
    ) -> StoreResult<Option<FeedbackReach>>;
    async fn feedback_by_url_id(
        &self,
        team: TeamId,
        url_id: &str,
    ) -> StoreResult<Option<FeedbackView>>;
    /// Runs `edit` on the item as stored, atomically (see `crate::edit`): every field but its
    /// counts, and its tags (`tags` of the view; each must be one of the team's tags, else the
    /// edit is refused with `Tag not found` and nothing is written). The view's board and
    /// people are read, never written: the edit changes `board_id` and `last_modified_by_id`.
    async fn edit_feedback(
        &self,
        team: TeamId,
        id: FeedbackId,
        edit: Edit<FeedbackView>,
    ) -> StoreResult<Edited<FeedbackView>>;
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
    /// nothing written). `None` when the item is gone, or when `access` is `Public` and the
    /// item is not publicly readable (nothing written).
    async fn cast_vote(
        &self,
        team: TeamId,
        vote: &FeedbackVote,
        access: VoteAccess,
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
    /// Runs `edit` on the team's comment as stored, atomically (see `crate::edit`): its text,
    /// privacy and `updated_at`. The view's author is read, never written.
    async fn edit_feedback_comment(
        &self,
        team: TeamId,
        id: FeedbackCommentId,
        edit: Edit<CommentView>,
    ) -> StoreResult<Edited<CommentView>>;
    /// Removes the team's comment and takes it off its item's comment count, with the events
    /// `events` builds from the comment as read in the same transaction. The comment as it
    /// was, or `None` (nothing written) when there was none.
    async fn delete_feedback_comment(
        &self,
        team: TeamId,
        id: FeedbackCommentId,
        events: RemovalEvents<CommentView>,
    ) -> StoreResult<Option<CommentView>>;

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

/// Roadmaps and their stages. Stage orders stay 1, 2, 3… within a roadmap: every insert,
/// move and delete renumbers the roadmap's stages in the same transaction
/// (`sounding_domain::stage::place`), serialized per roadmap.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait RoadmapStore: Send + Sync {
    /// Inserts the roadmap with its first `stages`, ordered 1, 2, 3… as given, in one
    /// transaction.
    async fn insert_roadmap(&self, roadmap: &Roadmap, stages: &[Stage]) -> StoreResult<()>;
    /// The team's roadmaps, oldest first.
    async fn roadmaps(&self, team: TeamId) -> StoreResult<Vec<Roadmap>>;
    async fn roadmap(&self, team: TeamId, id: RoadmapId) -> StoreResult<Option<Roadmap>>;
    /// Runs `edit` on the roadmap as stored, atomically (see `crate::edit`).
    async fn edit_roadmap(
        &self,
        team: TeamId,
        id: RoadmapId,
        edit: Edit<Roadmap>,
    ) -> StoreResult<Edited<Roadmap>>;
    /// Removes the roadmap and its stages; `false` when there was none. While it holds topics:
    /// conflict `roadmap_not_empty` unless `force`, which removes the topics too (with their
    /// comments, votes, follows and visits).
    async fn delete_roadmap(&self, team: TeamId, id: RoadmapId, force: bool) -> StoreResult<bool>;

    /// Inserts the stage at `position` (1-based, clamped; last when `None`), renumbering the
    /// others. Returns the stage as stored (its final `order`), or `None` when the roadmap is
    /// gone (nothing written).
    async fn insert_stage(
        &self,
        stage: &Stage,
        position: Option<i64>,
    ) -> StoreResult<Option<Stage>>;
    /// The roadmap's stages by `order`, with published-topic counts; private ones only when
    /// asked.
    async fn stages(
        &self,
        team: TeamId,
        roadmap: RoadmapId,
        include_private: bool,
    ) -> StoreResult<Vec<StageView>>;
    async fn stage(&self, team: TeamId, id: StageId) -> StoreResult<Option<StageView>>;
    /// Runs `edit` on the stage as stored, atomically (see `crate::edit`), and moves it to
    /// `position` when given (renumbering the others; the edit sees the stage's place before
    /// the move). A move alone is a change.
    async fn edit_stage(
        &self,
        team: TeamId,
        id: StageId,
        position: Option<i64>,
        edit: Edit<Stage>,
    ) -> StoreResult<Edited<Stage>>;
    /// Removes the stage and closes the gap; `false` when there was none. While it holds
    /// topics: conflict `stage_not_empty` unless `force`, which removes them too.
    async fn delete_stage(&self, team: TeamId, id: StageId, force: bool) -> StoreResult<bool>;
}

/// Topics with their threaded comments, votes, followers and visits. Writes take their events
/// and append them in the same transaction; vote and comment counts stay equal to the rows
/// (comments: the rows that are not tombstones).
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait TopicStore: Send + Sync {
    /// Inserts `new_creator` first when given (an anonymous subscriber), then the topic (counts
    /// and visits 0) and the creator's follow. Conflict `topic_url_id` (nothing written) when the
    /// team has the `url_id`. The topic's stage must exist (the use case checked it).
    async fn insert_topic(
        &self,
        topic: &Topic,
        new_creator: Option<Subscriber>,
        events: &[NewEvent],
    ) -> StoreResult<()>;
    async fn topic(&self, team: TeamId, id: TopicId) -> StoreResult<Option<TopicView>>;
    async fn topic_by_url_id(&self, team: TeamId, url_id: &str) -> StoreResult<Option<TopicView>>;

    /// Runs `edit` on the topic as stored, atomically (see `crate::edit`): every field but
    /// counts and visits. The view's stage and people are read, never written.
    async fn edit_topic(
        &self,
        team: TeamId,
        id: TopicId,
        edit: Edit<TopicView>,
    ) -> StoreResult<Edited<TopicView>>;
    /// Removes the topic with its comments, votes, follows and visits.
    async fn delete_topic(
        &self,
        team: TeamId,
        id: TopicId,
        events: &[NewEvent],
    ) -> StoreResult<bool>;
    /// One page of topics and the total, in a constant number of statements.
    async fn list_topics(&self, team: TeamId, query: &TopicQuery) -> StoreResult<Paged<TopicView>>;
    /// Counts a view by `viewer` unless that viewer was counted for the topic within the last
    /// `window_seconds`; the visits after. `None` when the topic is gone. Atomic per viewer.
    async fn record_topic_visit(
        &self,
        team: TeamId,
        topic: TopicId,
        viewer: &str,
        now: Timestamp,
        window_seconds: i64,
    ) -> StoreResult<Option<i64>>;

    /// Records the vote unless the subscriber already voted (`AlreadyVoted`, nothing written).
    /// `None` when the topic is gone.
    async fn cast_topic_vote(
        &self,
        team: TeamId,
        vote: &TopicVote,
        events: &[NewEvent],
    ) -> StoreResult<Option<TopicVoteOutcome>>;
    /// Removes the subscriber's vote if any; the count after. `None` when the topic is gone.
    async fn retract_topic_vote(
        &self,
        team: TeamId,
        topic: TopicId,
        subscriber: SubscriberId,
    ) -> StoreResult<Option<i64>>;
    async fn topic_vote_state(
        &self,
        team: TeamId,
        topic: TopicId,
        subscriber: Option<SubscriberId>,
    ) -> StoreResult<Option<TopicVoteState>>;

    /// Inserts the comment (its `root_id` set by the use case), counts it, and makes the author
    /// a follower. `false` (nothing written) when the topic is gone, or when the comment
    /// answers one that is gone or deleted (checked in the same transaction).
    async fn insert_topic_comment(
        &self,
        comment: &TopicComment,
        events: &[NewEvent],
    ) -> StoreResult<bool>;
    async fn topic_comment(
        &self,
        team: TeamId,
        id: TopicCommentId,
    ) -> StoreResult<Option<TopicComment>>;
    /// The comment with its author and topic, tombstones included.
    async fn topic_comment_view(
        &self,
        team: TeamId,
        id: TopicCommentId,
    ) -> StoreResult<Option<TopicCommentView>>;
    /// Runs `edit` on the team's comment as stored, atomically (see `crate::edit`): its text,
    /// `updated_at` and `deleted_at`. The view's author and topic are read, never written.
    async fn edit_topic_comment(
        &self,
        team: TeamId,
        id: TopicCommentId,
        edit: Edit<TopicCommentView>,
    ) -> StoreResult<Edited<TopicCommentView>>;
    /// Deletes the team's comment (not a tombstone) in one transaction, as
    /// `TopicComment::removal` says: removed when no comment answers it — and then each
    /// tombstone above it that is left without replies goes too — else made a tombstone
    /// (`TopicComment::tombstone`). Either way the topic's comment count drops by one, and the
    /// events `events` builds from the comment as read are appended. The comment as it was,
    /// or `None` (nothing written) when there is none or it is a tombstone.
    async fn delete_topic_comment(
        &self,
        team: TeamId,
        id: TopicCommentId,
        now: Timestamp,
        events: RemovalEvents<TopicCommentView>,
    ) -> StoreResult<Option<TopicCommentView>>;
    /// One page of top-level comments with every reply of each (oldest first), and the number
    /// of top-level comments in scope. A constant number of statements.
    async fn comment_threads(
        &self,
        team: TeamId,
        query: &ThreadQuery,
    ) -> StoreResult<Paged<CommentThread>>;

    /// Starts (from `at`) or stops following; idempotent. `false` when the topic is gone.
    async fn set_topic_following(
        &self,
        team: TeamId,
        topic: TopicId,
        subscriber: SubscriberId,
        follow: bool,
        at: Timestamp,
    ) -> StoreResult<bool>;
    /// The topic's followers by follow time, then id.
    async fn topic_followers(&self, team: TeamId, topic: TopicId)
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

/// Webhook subscriptions and their durable deliveries. Events reach deliveries by fan-out from
/// the outbox; workers lease due deliveries so no two send the same attempt at once.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait WebhookStore: Send + Sync {
    /// Inserts the subscription unless the team already has one of the same `target_url` and
    /// `event`; returns the stored one either way (an existing one keeps its id, secret and
    /// date). Atomic: identical inserts at once leave one subscription.
    async fn insert_webhook(
        &self,
        webhook: &crate::webhook::WebhookSubscription,
    ) -> StoreResult<crate::webhook::WebhookSubscription>;
    /// The team's subscriptions, oldest first.
    async fn webhooks(&self, team: TeamId)
        -> StoreResult<Vec<crate::webhook::WebhookSubscription>>;
    async fn webhook(
        &self,
        team: TeamId,
        id: crate::ids::WebhookId,
    ) -> StoreResult<Option<crate::webhook::WebhookSubscription>>;
    /// Removes the subscription; its deliveries not yet done end `failed`. `false` when none.
    async fn delete_webhook(&self, team: TeamId, id: crate::ids::WebhookId) -> StoreResult<bool>;

    /// Turns up to `limit` outbox events not yet fanned out (oldest first) into one pending
    /// delivery per subscription of the event's team and name, due at `now`, and marks the
    /// events fanned out — one transaction. The number of events taken.
    async fn fan_out(&self, now: Timestamp, limit: i64) -> StoreResult<usize>;
    /// Leases up to `limit` pending deliveries due by `now` whose lease is free or expired, to
    /// `owner` until `now + lease_seconds`. Two workers never get the same delivery.
    async fn lease_deliveries(
        &self,
        owner: &str,
        now: Timestamp,
        lease_seconds: i64,
        limit: i64,
    ) -> StoreResult<Vec<crate::webhook::LeasedDelivery>>;
    /// Records an attempt of a delivery `owner` still leases, and releases the lease;
    /// `Failed { unsubscribe: true }` also removes the subscription. `false` when the lease was
    /// lost (nothing written).
    async fn record_attempt(
        &self,
        id: crate::ids::DeliveryId,
        owner: &str,
        record: &crate::webhook::AttemptRecord,
    ) -> StoreResult<bool>;
    /// One page of the team's deliveries, newest first, and the total.
    async fn deliveries(
        &self,
        team: TeamId,
        query: &crate::webhook::DeliveryQuery,
    ) -> StoreResult<Paged<crate::webhook::Delivery>>;
    /// Gives back, without an attempt, the leases `owner` holds on these deliveries: they are
    /// due again at once, for any worker. Ids not leased by `owner` are left alone.
    async fn release_leases(&self, owner: &str, ids: &[crate::ids::DeliveryId]) -> StoreResult<()>;
    /// Makes a delivery pending again, due at `now`, with a fresh retry horizon. `false` when
    /// it is not the team's or its subscription is gone. Conflict `delivery_in_flight`
    /// (nothing changed) while a worker's lease on it is live (`lease_until > now`), so an
    /// attempt under way is never doubled.
    async fn redeliver(
        &self,
        team: TeamId,
        id: crate::ids::DeliveryId,
        now: Timestamp,
    ) -> StoreResult<bool>;
    /// Retention: deletes up to `limit` finished deliveries last changed before `before`, then
    /// up to `limit` outbox events fanned out before `before` with no delivery left
    /// (`retention`'s rules) — one short transaction. Pending deliveries, events not yet
    /// fanned out and events with a delivery left are never deleted. Safe to run on several
    /// instances at once: rows another prune holds are skipped, never waited for.
    async fn prune_finished(
        &self,
        before: Timestamp,
        limit: i64,
    ) -> StoreResult<crate::retention::Pruned>;
}

/// Looks up the addresses a host name has now, so a webhook target that resolves to a private
/// address is refused when it is subscribed (it is checked again at every connection).
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait HostResolver: Send + Sync {
    /// The addresses of `host`; empty when it does not resolve (or not in time).
    async fn resolve(&self, host: &str) -> Vec<std::net::IpAddr>;
}

/// Sends one webhook attempt: signs it (Standard Webhooks), posts it, and reports what came
/// back. Never follows redirects; refuses addresses the target policy forbids.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    async fn send(
        &self,
        request: &crate::webhook::WebhookRequest,
    ) -> crate::webhook::AttemptOutcome;
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

/// Subscribers' notifications. They are written by the writes whose events carry a
/// `NotifyFollowers` (one row per follower but the actor, in that write's transaction); here
/// they are read and marked read.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait NotificationStore: Send + Sync {
    /// One page of the subscriber's notifications, newest first, with the total the query
    /// selects and the subscriber's unread count. A constant number of statements.
    async fn notifications(
        &self,
        team: TeamId,
        subscriber: SubscriberId,
        query: &crate::notification::NotificationQuery,
    ) -> StoreResult<crate::notification::NotificationPage>;
    /// Marks unread notifications of the subscriber read at `at`; ids that are not theirs are
    /// ignored. How many changed.
    async fn mark_notifications_read(
        &self,
        team: TeamId,
        subscriber: SubscriberId,
        which: &crate::notification::MarkRead,
        at: Timestamp,
    ) -> StoreResult<i64>;
}

/// Documents and their emoji reactions. No events: documents are content, not feedback.
/// Reading a document (or a page of them) also reads its reaction counts and, for a viewer,
/// the viewer's own reactions, in a constant number of statements.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait DocumentStore: Send + Sync {
    /// Conflict `document_url_id` (nothing written) when the team has the `url_id`.
    async fn insert_document(&self, document: &crate::document::Document) -> StoreResult<()>;
    async fn document(
        &self,
        team: TeamId,
        id: crate::ids::DocumentId,
        viewer: Option<SubscriberId>,
    ) -> StoreResult<Option<crate::document::DocumentView>>;
    /// Applies the patch to the stored document (with `updated_at = now`) in one transaction,
    /// so concurrent patches of different fields both stay; never touches the publish state.
    /// The document after, or `None` when it is gone.
    async fn update_document(
        &self,
        team: TeamId,
        id: crate::ids::DocumentId,
        patch: &crate::document::DocumentPatch,
        now: Timestamp,
    ) -> StoreResult<Option<crate::document::DocumentView>>;
    /// Publishes (keeping the first publish time when already published) or unpublishes;
    /// `updated_at` becomes `now` only when the state changes. The document after, or `None`
    /// when it is gone.
    async fn set_document_published(
        &self,
        team: TeamId,
        id: crate::ids::DocumentId,
        publish: bool,
        now: Timestamp,
    ) -> StoreResult<Option<crate::document::DocumentView>>;
    /// Removes the document with its reactions; `false` when there was none.
    async fn delete_document(&self, team: TeamId, id: crate::ids::DocumentId) -> StoreResult<bool>;
    /// One page of the documents the query selects, in its order, and how many it selects.
    async fn list_documents(
        &self,
        team: TeamId,
        query: &crate::document::DocumentQuery,
    ) -> StoreResult<Paged<crate::document::DocumentView>>;
    /// Adds (`react`) or removes the subscriber's reaction with `emoji`; idempotent either way.
    /// `None` (nothing written) unless the team has a published document with this id.
    async fn set_document_reaction(
        &self,
        team: TeamId,
        document: crate::ids::DocumentId,
        subscriber: SubscriberId,
        emoji: &str,
        react: bool,
        at: Timestamp,
    ) -> StoreResult<Option<crate::document::ReactionState>>;
}

/// The team's tags. Names are unique per team ignoring case (`tag::name_key`).
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait TagStore: Send + Sync {
    /// Conflict `tag_name` (nothing written) when the team has a tag of that name in any case.
    async fn insert_tag(&self, tag: &crate::tag::Tag) -> StoreResult<()>;
    /// Every tag of the team, in `tag::sort_full` order.
    async fn tags(&self, team: TeamId) -> StoreResult<Vec<crate::tag::Tag>>;
    async fn tag(&self, team: TeamId, id: TagId) -> StoreResult<Option<crate::tag::Tag>>;
    /// Runs `edit` on the tag as stored, atomically (see `crate::edit`). Conflict `tag_name`
    /// (nothing written) when another tag of the team has the new name.
    async fn edit_tag(
        &self,
        team: TeamId,
        id: TagId,
        edit: Edit<crate::tag::Tag>,
    ) -> StoreResult<Edited<crate::tag::Tag>>;
    /// Removes the tag and takes it off every item; `false` when there was none.
    async fn delete_tag(&self, team: TeamId, id: crate::ids::TagId) -> StoreResult<bool>;
}

/// Whole-item curation by the team: merging an item into another, counting items per status.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait FeedbackCurationStore: Send + Sync {
    /// In one transaction, with both items read and locked inside it: checks neither is
    /// archived, applies `FeedbackMerge::apply` to both, moves the source's votes, comments
    /// and follows to the target (a subscriber's vote or follow on both is kept once, the
    /// target's), sets both items' counts to their rows, then appends `events` built from
    /// both items as they are after the merge.
    async fn merge_feedback(
        &self,
        merge: &crate::feedback_merge::FeedbackMerge,
        events: crate::feedback_merge::MergeEvents,
    ) -> StoreResult<crate::feedback_merge::MergeOutcome>;
    /// The team's items per status (on `board` only, when given), archived ones apart.
    async fn count_feedback(
        &self,
        team: TeamId,
        board: Option<BoardId>,
    ) -> StoreResult<crate::feedback_merge::FeedbackCounts>;
}
