//! Roadmap topics and their threads, votes and followers.

use crate::{
    edit::{Edit, Edited, RemovalEvents},
    event::NewEvent,
    ids::{SubscriberId, TeamId, TopicCommentId, TopicId},
    page::Paged,
    ports::StoreResult,
    subscriber::Subscriber,
    timestamp::Timestamp,
    topic::{Topic, TopicQuery, TopicView, TopicVisit},
    topic_comment::{CommentThread, ThreadQuery, TopicComment, TopicCommentView},
    topic_vote::{TopicVote, TopicVoteOutcome, TopicVoteState},
};
use async_trait::async_trait;

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
    /// The team's topic as read, published or not; `None` when the team has none with this id.
    async fn topic(&self, team: TeamId, id: TopicId) -> StoreResult<Option<TopicView>>;
    /// The same as `topic`, found by the topic's `urlId`.
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
    /// Counts the visit unless it does not count (`TopicVisit::counts_after` the viewer's last
    /// counted one); the visits after. `None` when the topic is gone. Atomic per viewer.
    async fn record_topic_visit(
        &self,
        team: TeamId,
        visit: &TopicVisit,
    ) -> StoreResult<Option<i64>>;

    /// Records the vote unless the subscriber already voted (`AlreadyVoted`, nothing written).
    /// `NotFound` when the topic is gone.
    async fn cast_topic_vote(
        &self,
        team: TeamId,
        vote: &TopicVote,
        events: &[NewEvent],
    ) -> StoreResult<TopicVoteOutcome>;
    /// Removes the subscriber's vote if any; the count after. `None` when the topic is gone.
    async fn retract_topic_vote(
        &self,
        team: TeamId,
        topic: TopicId,
        subscriber: SubscriberId,
    ) -> StoreResult<Option<i64>>;
    /// The topic's vote count and whether `subscriber` (when given) voted; `None` when the
    /// topic is gone.
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
    /// The team's comment, tombstones included; `None` when the team has none with this id.
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
