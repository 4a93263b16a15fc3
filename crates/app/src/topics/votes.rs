//! Votes on topics: `public/topic-votes.create|delete` (subscriber token; without one the
//! interface's `Bad request`) and `public/topic-votes.info` (either credential).

use sounding_domain::{
    access::Caller,
    event::{EventKind, NewEvent},
    ports::{Clock, Store},
    topic_vote::{TopicVote, TopicVoteOutcome, TopicVoteState},
    TopicId, TopicVoteId,
};

use super::{topic_not_found, visible_topic};
use crate::{
    error::AppResult,
    wire::{self, TopicVoteJson},
    Literal,
};

/// Casts the subscriber's vote: the vote and the topic's count after it. `caller` is `None`
/// without a credential; anything but a subscriber is refused with `Bad request`.
pub async fn cast_topic_vote(
    store: &dyn Store,
    clock: &dyn Clock,
    caller: Option<&Caller>,
    id: Option<&str>,
) -> AppResult<(TopicVote, i64)> {
    let Some(caller @ Caller::Subscriber(session)) = caller else {
        return Err(Literal::BadRequest.into());
    };
    let id = TopicId::parse_required("id", id)?;
    visible_topic(store, caller, id).await?;
    let now = clock.now();
    let vote = TopicVote {
        id: TopicVoteId::new(),
        topic_id: id,
        creator_id: session.subscriber.id,
        created_at: now,
    };
    let event = NewEvent::new(
        caller.team_id(),
        EventKind::TopicVotesCreate,
        now,
        &[
            ("topicId", id.to_string()),
            ("voteId", vote.id.to_string()),
            ("subscriberId", vote.creator_id.to_string()),
        ],
        wire::to_value(&TopicVoteJson::from(&vote)),
    );
    match store
        .cast_topic_vote(caller.team_id(), &vote, &[event])
        .await?
    {
        Some(TopicVoteOutcome::Cast { vote, vote_count }) => Ok((vote, vote_count)),
        Some(TopicVoteOutcome::AlreadyVoted) => Err(Literal::DuplicateVote.into()),
        None => Err(topic_not_found()),
    }
}

/// Removes the subscriber's vote if there is one; idempotent. The count after.
pub async fn retract_topic_vote(
    store: &dyn Store,
    caller: Option<&Caller>,
    id: Option<&str>,
) -> AppResult<i64> {
    let Some(Caller::Subscriber(session)) = caller else {
        return Err(Literal::BadRequest.into());
    };
    let id = TopicId::parse_required("id", id)?;
    // What the caller may not read is not found, as for `topics.info`.
    visible_topic(store, &Caller::Subscriber(session.clone()), id).await?;
    let s = &session.subscriber;
    store
        .retract_topic_vote(s.team_id, id, s.id)
        .await?
        .ok_or_else(topic_not_found)
}

/// The topic's count and, under a subscriber token, whether the caller voted.
pub async fn topic_vote_info(
    store: &dyn Store,
    caller: &Caller,
    id: Option<&str>,
) -> AppResult<TopicVoteState> {
    let id = TopicId::parse_required("id", id)?;
    visible_topic(store, caller, id).await?;
    let subscriber = match caller {
        Caller::Subscriber(session) => Some(session.subscriber.id),
        Caller::Team(_) => None,
    };
    store
        .topic_vote_state(caller.team_id(), id, subscriber)
        .await?
        .ok_or_else(topic_not_found)
}
