//! Votes on topics: `public/topic-votes.create|delete` (subscriber token, for themselves;
//! without one the interface's `Bad request`), `topics.vote|unvote` (team API key, on behalf
//! of a subscriber) and `public/topic-votes.info` (either credential).

use sounding_domain::{
    access::{Caller, KeyHolder},
    event::{EventKind, NewEvent},
    ports::{AccessStore, Clock, SubscriberStore, TopicStore},
    topic_vote::{TopicVote, TopicVoteOutcome, TopicVoteState},
    SubscriberId, TopicId, TopicVoteId,
};

use super::{topic_not_found, visible_topic};
use crate::{
    error::AppResult,
    subscribers::OnBehalfInput,
    votes::{self, Ballot, VoteTarget},
    wire::TopicVoteJson,
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
    id.ensure_votable(store, caller).await?;
    id.cast(
        store,
        Ballot {
            caller,
            voter: session.subscriber.id,
            at: clock.now(),
        },
    )
    .await
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
    votes::cast_on_behalf::<_, TopicId>(store, clock, holder, id, voter).await
}

/// Removes the subscriber's vote if there is one; idempotent. The count after. What the
/// caller may not read is not found, as for `topics.info`.
pub async fn retract_topic_vote(
    store: &dyn TopicStore,
    caller: Option<&Caller>,
    id: Option<&str>,
) -> AppResult<i64> {
    let Some(caller @ Caller::Subscriber(_)) = caller else {
        return Err(Literal::BadRequest.into());
    };
    votes::retract_own::<_, TopicId>(store, caller, id).await
}

/// `topics.unvote`: removes the vote of the subscriber `voter` names, if any; the count
/// after. Idempotent; a subscriber not yet known has no vote, and nothing is created.
pub async fn retract_topic_vote_on_behalf(
    store: &(impl AccessStore + SubscriberStore + TopicStore + ?Sized),
    holder: &KeyHolder,
    id: Option<&str>,
    voter: OnBehalfInput,
) -> AppResult<i64> {
    votes::retract_on_behalf::<_, TopicId>(store, holder, id, voter).await
}

impl<S: TopicStore + ?Sized> VoteTarget<S> for TopicId {
    type Vote = TopicVote;

    fn parse(raw: Option<&str>) -> AppResult<Self> {
        Ok(TopicId::parse_required("id", raw)?)
    }

    /// A subscriber votes on what public operations show them.
    async fn ensure_votable(self, store: &S, caller: &Caller) -> AppResult<()> {
        match caller {
            Caller::Subscriber(_) | Caller::Visitor(_) => {
                visible_topic(store, caller, self).await.map(|_| ())
            }
            Caller::Team(_) => store
                .topic(caller.team_id(), self)
                .await?
                .map(|_| ())
                .ok_or_else(topic_not_found),
        }
    }

    async fn cast(self, store: &S, ballot: Ballot<'_>) -> AppResult<(TopicVote, i64)> {
        let Ballot {
            caller,
            voter,
            at: now,
        } = ballot;
        let vote = TopicVote {
            id: TopicVoteId::new(),
            topic_id: self,
            creator_id: voter,
            created_at: now,
        };
        let event = NewEvent::new(
            caller.team_id(),
            EventKind::TopicVotesCreate,
            now,
            &[
                ("topicId", self.to_string()),
                ("voteId", vote.id.to_string()),
                ("subscriberId", vote.creator_id.to_string()),
            ],
            TopicVoteJson::from(&vote),
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

    async fn retract(
        self,
        store: &S,
        caller: &Caller,
        voter: Option<SubscriberId>,
    ) -> AppResult<i64> {
        let team = caller.team_id();
        let count = match voter {
            Some(voter) => store.retract_topic_vote(team, self, voter).await?,
            None => store
                .topic_vote_state(team, self, None)
                .await?
                .map(|s| s.count),
        };
        count.ok_or_else(topic_not_found)
    }
}

/// The topic's count and, under a subscriber token, whether the caller voted.
pub async fn topic_vote_info(
    store: &dyn TopicStore,
    caller: &Caller,
    id: Option<&str>,
) -> AppResult<TopicVoteState> {
    let id = TopicId::parse_required("id", id)?;
    visible_topic(store, caller, id).await?;
    store
        .topic_vote_state(caller.team_id(), id, caller.subscriber_id())
        .await?
        .ok_or_else(topic_not_found)
}
