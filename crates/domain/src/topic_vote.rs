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

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopicVoteOutcome {
    Cast { vote: TopicVote, vote_count: i64 },
    AlreadyVoted,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicVoteState {
    pub count: i64,
    pub voted: bool,
}
