//! Votes on topics: `public/topic-votes.create|delete` (subscriber token, for themselves;
//! without one the interface's `Bad request`), `topics.vote|unvote` (team API key, on behalf
//! of a subscriber) and `public/topic-votes.info` (either credential).

use sounding_domain::{
    access::{Caller, KeyHolder, Need},
    event::{EventKind, NewEvent},
    ports::{AccessStore, Clock, SubscriberStore, TopicStore},
    topic_vote::{TopicVote, TopicVoteOutcome, TopicVoteState},
    SubscriberId, TopicId, TopicVoteId,
};

use super::{topic_not_found, visible_topic};
use crate::{
    error::AppResult,
    subscribers::{existing_subscriber_for, subscriber_for, OnBehalfInput},
    wire::{self, TopicVoteJson},
    Literal,
};

/// Casts the subscriber's vote: the vote and the topic's count after it. `caller` is `None`
/// without a credential; anything but a subscriber is refused with `Bad request`.
pub async fn cast_topic_vote(
    store: &dyn TopicStore,
    clock: &dyn Clock,
    caller: Option<&Caller>,
    id: Option<&str>,
) -> AppResult<(TopicVote, i64)> {
    let Some(caller @ Caller::Subscriber(session)) = caller else {
        return Err(Literal::BadRequest.into());
    };
    let id = TopicId::parse_required("id", id)?;
    ensure_votable(store, caller, id).await?;
    cast(store, clock, caller, session.subscriber.id, id).await
}

/// `topics.vote`: the team casts the vote of one of its subscribers (by id, or by e-mail,
/// created when new, or the key's user's) on any topic of the team, published or not. The
/// same rules and answers as a subscriber's own vote; the event says `onBehalf: true`.
pub async fn cast_topic_vote_on_behalf(
    store: &(impl AccessStore + SubscriberStore + TopicStore + ?Sized),
    clock: &dyn Clock,
    holder: &KeyHolder,
    id: Option<&str>,
    voter: OnBehalfInput,
) -> AppResult<(TopicVote, i64)> {
    holder.require(Need::Write)?;
    let id = TopicId::parse_required("id", id)?;
    let who = voter.parse()?;
    let caller = Caller::Team(holder.clone());
    // The topic first: a subscriber is created for an e-mail only for a vote that can land.
    ensure_votable(store, &caller, id).await?;
    let subscriber = subscriber_for(store, holder, who, clock.now()).await?;
    cast(store, clock, &caller, subscriber.id, id).await
}

/// Removes the subscriber's vote if there is one; idempotent. The count after.
pub async fn retract_topic_vote(
    store: &dyn TopicStore,
    caller: Option<&Caller>,
    id: Option<&str>,
) -> AppResult<i64> {
    let Some(caller @ Caller::Subscriber(session)) = caller else {
        return Err(Literal::BadRequest.into());
    };
    let id = TopicId::parse_required("id", id)?;
    // What the caller may not read is not found, as for `topics.info`.
    ensure_votable(store, caller, id).await?;
    retract(store, caller, Some(session.subscriber.id), id).await
}

/// `topics.unvote`: removes the vote of the subscriber `voter` names, if any; the count
/// after. Idempotent; a subscriber not yet known has no vote, and nothing is created.
pub async fn retract_topic_vote_on_behalf(
    store: &(impl AccessStore + SubscriberStore + TopicStore + ?Sized),
    holder: &KeyHolder,
    id: Option<&str>,
    voter: OnBehalfInput,
) -> AppResult<i64> {
    holder.require(Need::Write)?;
    let id = TopicId::parse_required("id", id)?;
    let who = voter.parse()?;
    let caller = Caller::Team(holder.clone());
    ensure_votable(store, &caller, id).await?;
    let subscriber = existing_subscriber_for(store, holder, who).await?;
    retract(store, &caller, subscriber.map(|s| s.id), id).await
}

/// Whether `caller` may vote on the topic, or take a vote back: a subscriber on what public
/// operations show them; the team on any of its topics.
async fn ensure_votable(
    store: &(impl TopicStore + ?Sized),
    caller: &Caller,
    id: TopicId,
) -> AppResult<()> {
    match caller {
        Caller::Subscriber(_) => visible_topic(store, caller, id).await.map(|_| ()),
        Caller::Team(_) => store
            .topic(caller.team_id(), id)
            .await?
            .map(|_| ())
            .ok_or_else(topic_not_found),
    }
}

/// The vote of `voter`, cast by `caller`: the subscriber themselves, or the team for them
/// (`onBehalf` in the event). The caller's right to the topic was checked.
async fn cast(
    store: &(impl TopicStore + ?Sized),
    clock: &dyn Clock,
    caller: &Caller,
    voter: SubscriberId,
    id: TopicId,
) -> AppResult<(TopicVote, i64)> {
    let now = clock.now();
    let vote = TopicVote {
        id: TopicVoteId::new(),
        topic_id: id,
        creator_id: voter,
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
    )
    .with_field("onBehalf", matches!(caller, Caller::Team(_)));
    match store
        .cast_topic_vote(caller.team_id(), &vote, &[event])
        .await?
    {
        TopicVoteOutcome::Cast { vote, vote_count } => Ok((vote, vote_count)),
        TopicVoteOutcome::AlreadyVoted => Err(Literal::DuplicateVote.into()),
        TopicVoteOutcome::NotFound => Err(topic_not_found()),
    }
}

/// Removes `voter`'s vote, if any (`None`: a subscriber not yet known, who has none); the
/// topic's count after.
async fn retract(
    store: &(impl TopicStore + ?Sized),
    caller: &Caller,
    voter: Option<SubscriberId>,
    id: TopicId,
) -> AppResult<i64> {
    let team = caller.team_id();
    let count = match voter {
        Some(voter) => store.retract_topic_vote(team, id, voter).await?,
        None => store
            .topic_vote_state(team, id, None)
            .await?
            .map(|s| s.count),
    };
    count.ok_or_else(topic_not_found)
}

/// The topic's count and, under a subscriber token, whether the caller voted.
pub async fn topic_vote_info(
    store: &dyn TopicStore,
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
