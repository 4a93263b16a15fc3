//! Votes on topics: at most one per subscriber per topic.

use crate::{
    ids::{SubscriberId, TopicId, TopicVoteId},
    timestamp::Timestamp,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicVote {
    pub id: TopicVoteId,
    pub topic_id: TopicId,
    pub creator_id: SubscriberId,
    pub created_at: Timestamp,
}

/// What casting a vote did, and when nothing was written, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopicVoteOutcome {
    /// The vote is in: the topic's count after it.
    Cast { vote: TopicVote, vote_count: i64 },
    /// The subscriber had voted on the topic already.
    AlreadyVoted,
    /// The topic is not in the team (or is gone).
    NotFound,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicVoteState {
    pub count: i64,
    pub voted: bool,
}
