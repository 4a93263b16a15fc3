//! Feedback items and their votes, comments, followers and curation.

use crate::{
    edit::{Edit, Edited, RemovalEvents},
    event::NewEvent,
    feedback::{Feedback, FeedbackQuery, FeedbackReach, FeedbackView},
    feedback_comment::{CommentQuery, CommentView, FeedbackComment},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome, VoteState},
    ids::{BoardId, FeedbackCommentId, FeedbackId, SubscriberId, TagId, TeamId},
    page::Paged,
    ports::StoreResult,
    timestamp::Timestamp,
};
use async_trait::async_trait;

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
    /// The team's item as read, whether published or archived or not; `None` when the team has
    /// none with this id.
    async fn feedback(&self, team: TeamId, id: FeedbackId) -> StoreResult<Option<FeedbackView>>;
    /// Who may read the item (`feedback`'s view, cut to that); `None` when it is gone.
    async fn feedback_reach(
        &self,
        team: TeamId,
        id: FeedbackId,
    ) -> StoreResult<Option<FeedbackReach>>;
    /// The same as `feedback`, found by the item's `urlId`.
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
    /// nothing written). `NotFound` when the item is gone; `NotPublic` (nothing written) when
    /// `access` is `Public` and the item is not publicly readable.
    async fn cast_vote(
        &self,
        team: TeamId,
        vote: &FeedbackVote,
        access: VoteAccess,
        events: &[NewEvent],
    ) -> StoreResult<VoteOutcome>;
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

    /// Which of `items` the subscriber voted on (a page's "has voted" marks), in no order: one
    /// statement whatever the number of items.
    async fn voted_among(
        &self,
        team: TeamId,
        subscriber: SubscriberId,
        items: &[FeedbackId],
    ) -> StoreResult<Vec<FeedbackId>>;

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
    /// Whether the subscriber follows the team's item: one follow looked up, however many
    /// the item has (`false` for an item that is gone).
    async fn is_following(
        &self,
        team: TeamId,
        feedback: FeedbackId,
        subscriber: SubscriberId,
    ) -> StoreResult<bool>;
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
