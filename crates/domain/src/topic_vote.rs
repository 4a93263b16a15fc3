//! Votes on topics: at most one per subscriber per topic.

use crate::{
    ids::{SubscriberId, TopicId, TopicVoteId},
    timestamp::Timestamp,
};

/// A subscriber's vote on a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicVote {
    /// Names the vote in `topic-votes.create`'s answer.
    pub id: TopicVoteId,
    /// The topic voted on.
    pub topic_id: TopicId,
    /// The subscriber who voted.
    pub creator_id: SubscriberId,
    /// When the vote was cast.
    pub created_at: Timestamp,
}

/// What casting a vote did, and when nothing was written, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopicVoteOutcome {
    /// The vote is in: the topic's count after it.
    Cast {
        /// The vote as stored.
        vote: TopicVote,
        /// The topic's votes, this one included.
        vote_count: i64,
    },
    /// The subscriber had voted on the topic already.
    AlreadyVoted,
    /// The topic is not in the team (or is gone).
    NotFound,
}

/// A topic's votes as `topic-votes.info` answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicVoteState {
    /// Every subscriber's votes on the topic.
    pub count: i64,
    /// Whether the subscriber asked about voted; `false` when none was asked about.
    pub voted: bool,
}
