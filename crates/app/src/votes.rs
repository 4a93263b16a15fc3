//! What votes on feedback and votes on topics share: the team votes on behalf of a subscriber,
//! and anyone takes a vote back, through the same steps whichever the target. The target
//! (`FeedbackId`, `TopicId`) says how each step is done on its store.

use sounding_domain::{
    access::{Caller, KeyHolder, Need},
    ports::{AccessStore, Clock, SubscriberStore},
    subscriber::OnBehalfOf,
    SubscriberId, Timestamp,
};

use crate::{
    error::AppResult,
    subscribers::{existing_subscriber_for, subscriber_for, OnBehalfInput},
};

/// A vote being cast: `voter`'s, by `caller` (the subscriber themselves, or the team for them:
/// `onBehalf` in the event), at `at`.
pub(crate) struct Ballot<'a> {
    pub caller: &'a Caller,
    pub voter: SubscriberId,
    pub at: Timestamp,
}

/// What a vote is on, with the store `S` that holds it.
pub(crate) trait VoteTarget<S: ?Sized>: Copy + Sized {
    type Vote;

    /// The target's id from the request's field.
    fn parse(raw: Option<&str>) -> AppResult<Self>;

    /// Whether `caller` may vote on the target, or take a vote back: a subscriber on what
    /// they may read; the team on any of its own.
    async fn ensure_votable(self, store: &S, caller: &Caller) -> AppResult<()>;

    /// The vote the ballot casts; the vote and the target's count after it.
    async fn cast(self, store: &S, ballot: Ballot<'_>) -> AppResult<(Self::Vote, i64)>;

    /// Removes `voter`'s vote, if any (`None`: a subscriber not yet known, who has none); the
    /// target's count after. The caller's right to the target was checked.
    async fn retract(
        self,
        store: &S,
        caller: &Caller,
        voter: Option<SubscriberId>,
    ) -> AppResult<i64>;
}

/// The team casts the vote of one of its subscribers (by id, or by e-mail, created when new,
/// or the key's user's) on any target of the team.
pub(crate) async fn cast_on_behalf<S, T>(
    store: &S,
    clock: &dyn Clock,
    holder: &KeyHolder,
    raw_id: Option<&str>,
    voter: OnBehalfInput,
) -> AppResult<(T::Vote, i64)>
where
    S: AccessStore + SubscriberStore + ?Sized,
    T: VoteTarget<S>,
{
    // The target first: a subscriber is created for an e-mail only for a vote that can land.
    let (id, caller, who) = team_vote::<S, T>(store, holder, raw_id, voter).await?;
    let subscriber = subscriber_for(store, holder, who, clock.now()).await?;
    id.cast(
        store,
        Ballot {
            caller: &caller,
            voter: subscriber.id,
            at: clock.now(),
        },
    )
    .await
}

/// The team removes the vote of the subscriber `voter` names, if any; the count after. A
/// subscriber not yet known has no vote, and nothing is created for them.
pub(crate) async fn retract_on_behalf<S, T>(
    store: &S,
    holder: &KeyHolder,
    raw_id: Option<&str>,
    voter: OnBehalfInput,
) -> AppResult<i64>
where
    S: AccessStore + SubscriberStore + ?Sized,
    T: VoteTarget<S>,
{
    let (id, caller, who) = team_vote::<S, T>(store, holder, raw_id, voter).await?;
    let subscriber = existing_subscriber_for(store, holder, who).await?;
    id.retract(store, &caller, subscriber.map(|s| s.id)).await
}

/// What a team's vote or unvote on behalf of a subscriber starts with: a key that may write,
/// the target and the voter named, in that order, and the target votable by the team.
async fn team_vote<S, T>(
    store: &S,
    holder: &KeyHolder,
    raw_id: Option<&str>,
    voter: OnBehalfInput,
) -> AppResult<(T, Caller, OnBehalfOf)>
where
    S: ?Sized,
    T: VoteTarget<S>,
{
    holder.require(Need::Write)?;
    let id = T::parse(raw_id)?;
    let who = voter.parse()?;
    let caller = Caller::Team(holder.clone());
    id.ensure_votable(store, &caller).await?;
    Ok((id, caller, who))
}

/// A subscriber takes their own vote back, if there is one; the count after. What they may
/// not read is not found, as for the target's `info` (nothing changes).
pub(crate) async fn retract_own<S, T>(
    store: &S,
    caller: &Caller,
    raw_id: Option<&str>,
) -> AppResult<i64>
where
    S: ?Sized,
    T: VoteTarget<S>,
{
    let id = T::parse(raw_id)?;
    id.ensure_votable(store, caller).await?;
    id.retract(store, caller, caller.subscriber_id()).await
}
