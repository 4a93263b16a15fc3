//! Votes on feedback: at most one per subscriber per feedback item.

use crate::{
    feedback::FeedbackReach,
    ids::{FeedbackId, FeedbackVoteId, SubscriberId},
    timestamp::Timestamp,
};

/// A subscriber's vote on a feedback item: at most one per subscriber per item, whether
/// they cast it or the team did on their behalf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackVote {
    /// Time-ordered UUID (`voteId`).
    pub id: FeedbackVoteId,
    /// The item voted on; the merge target once the item was merged into another.
    pub feedback_id: FeedbackId,
    /// The voter.
    pub subscriber_id: SubscriberId,
    /// When it was cast; kept when a merge moves it.
    pub created_at: Timestamp,
}

/// What casting a vote did, and when nothing was written, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VoteOutcome {
    /// The vote is in: the item's count after it.
    Cast {
        /// The vote as stored.
        vote: FeedbackVote,
        /// `totalVotes`: the item's vote count, this vote included.
        total_votes: i64,
    },
    /// The subscriber had voted on the item already.
    AlreadyVoted,
    /// The item is not in the team (or is gone).
    NotFound,
    /// Asked with `VoteAccess::Public`, the item is not publicly readable: who may read it,
    /// for the caller to decide whether the voter may, and to vote again as `Checked`.
    NotPublic(FeedbackReach),
}

/// Which items a vote may land on, checked by the store in the vote's own transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteAccess {
    /// Only an item anyone may read (`FeedbackReach::is_publicly_readable`); any other is
    /// `VoteOutcome::NotPublic`. Saves the caller a read of its own in the common case.
    Public,
    /// The caller's right to read the item was checked already.
    Checked,
}

/// The vote count of a feedback item and, for a subscriber, their vote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoteState {
    /// The item's votes.
    pub count: i64,
    /// The subscriber's vote; `None` when they have not voted, or when no subscriber asked
    /// (an API key).
    pub vote: Option<FeedbackVote>,
}

/// The refusal of a repeated vote (decisions §4).
pub const ALREADY_VOTED: &str = "You have already voted on this feedback; delete the vote first";
