//! Votes on feedback: `public/feedback-votes.create|delete` (subscriber token, for themselves),
//! `feedbacks.vote|unvote` (team API key, on behalf of a subscriber) and
//! `public/feedback-votes.info` (either credential). One vote per subscriber per item.

use sounding_domain::{
    access::{Caller, KeyHolder, SubscriberSession},
    event::{EventKind, NewEvent},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome, VoteState, ALREADY_VOTED},
    ports::{AccessStore, Clock, FeedbackStore, SubscriberStore},
    DomainError, FeedbackId, FeedbackVoteId, SubscriberId,
};

use crate::{
    error::{AppError, AppResult},
    feedback::{ensure_feedback_readable, ensure_reach, feedback_not_found},
    subscribers::OnBehalfInput,
    votes::{self, Ballot, VoteTarget},
    wire::VoteJson,
};

/// Casts the subscriber's vote: the vote and the item's count after it. A second vote is a
/// conflict and changes nothing.
///
/// ```
/// # use sounding_app::feedback::{create_feedback, NewFeedbackInput};
/// # use sounding_app::feedback_votes::cast_vote;
/// # use sounding_app::teams::{create_team, NewTeam};
/// # use sounding_app::AppError;
/// # use sounding_domain::access::{KeyHolder, SubscriberSession};
/// # use sounding_domain::feedback_vote::ALREADY_VOTED;
/// # use sounding_domain::ports::{Clock, SubscriberStore};
/// # use sounding_domain::{DomainError, Timestamp};
/// # use sounding_store_memory::MemoryStore;
/// # struct Now;
/// # impl Clock for Now {
/// #     fn now(&self) -> Timestamp {
/// #         Timestamp::from_unix_seconds(1_800_000_000).unwrap()
/// #     }
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let store = MemoryStore::new();
/// let created = create_team(&store, &Now, NewTeam::new("Acme", "acme")).await.unwrap();
/// let owner = KeyHolder {
///     team_id: created.key.team_id,
///     key_id: created.key.id,
///     user_id: created.key.user_id,
///     role: created.key.role,
///     read_only: created.key.read_only,
/// };
/// // The team files an item for a subscriber, who then votes on it twice.
/// let input = NewFeedbackInput {
///     title: Some("Dark mode".into()),
///     creator_email: Some("ada@example.com".into()),
///     ..Default::default()
/// };
/// let item = create_feedback(&store, &Now, &owner, input).await.unwrap();
/// let ada = store
///     .subscriber_by_email(owner.team_id, "ada@example.com")
///     .await
///     .unwrap()
///     .unwrap();
/// let session = SubscriberSession {
///     subscriber: ada,
///     is_team_member: false,
/// };
/// let id = item.feedback.id.to_string();
/// let (vote, total) = cast_vote(&store, &Now, &session, Some(&id)).await.unwrap();
/// assert_eq!((vote.feedback_id, total), (item.feedback.id, 1));
/// assert_eq!(
///     cast_vote(&store, &Now, &session, Some(&id)).await.unwrap_err(),
///     AppError::Domain(DomainError::Conflict(ALREADY_VOTED.into()))
/// );
/// # });
/// ```
pub async fn cast_vote(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
    feedback_id: Option<&str>,
) -> AppResult<(FeedbackVote, i64)> {
    let id = FeedbackId::parse_required("feedbackId", feedback_id)?;
    let caller = Caller::Subscriber(session.clone());
    id.cast(
        store,
        Ballot {
            caller: &caller,
            voter: session.subscriber.id,
            at: clock.now(),
        },
    )
    .await
}

/// `feedbacks.vote`: the team casts the vote of one of its subscribers (by id, or by e-mail,
/// created when new, or the key's user's), on any item of the team, whatever its state. The
/// same rules and answers as a subscriber's own vote; the event says `onBehalf: true`.
pub async fn cast_vote_on_behalf(
    store: &(impl AccessStore + SubscriberStore + FeedbackStore + ?Sized),
    clock: &dyn Clock,
    holder: &KeyHolder,
    feedback_id: Option<&str>,
    voter: OnBehalfInput,
) -> AppResult<(FeedbackVote, i64)> {
    votes::cast_on_behalf::<_, FeedbackId>(store, clock, holder, feedback_id, voter).await
}

/// Removes the subscriber's vote if there is one; the count after. Idempotent. An item the
/// caller may not read is not found, as for `feedbacks.info` (nothing changes).
pub async fn retract_vote(
    store: &dyn FeedbackStore,
    session: &SubscriberSession,
    feedback_id: Option<&str>,
) -> AppResult<i64> {
    let caller = Caller::Subscriber(session.clone());
    votes::retract_own::<_, FeedbackId>(store, &caller, feedback_id).await
}

/// `feedbacks.unvote`: removes the vote of the subscriber `voter` names, if any; the count
/// after. Idempotent; a subscriber not yet known (an e-mail, the key's user) has no vote, and
/// nothing is created for them.
pub async fn retract_vote_on_behalf(
    store: &(impl AccessStore + SubscriberStore + FeedbackStore + ?Sized),
    holder: &KeyHolder,
    feedback_id: Option<&str>,
    voter: OnBehalfInput,
) -> AppResult<i64> {
    votes::retract_on_behalf::<_, FeedbackId>(store, holder, feedback_id, voter).await
}

impl<S: FeedbackStore + ?Sized> VoteTarget<S> for FeedbackId {
    type Vote = FeedbackVote;

    fn parse(raw: Option<&str>) -> AppResult<Self> {
        Ok(FeedbackId::parse_required("feedbackId", raw)?)
    }

    /// The team reads all its items, unpublished and archived too.
    async fn ensure_votable(self, store: &S, caller: &Caller) -> AppResult<()> {
        match caller {
            Caller::Subscriber(_) | Caller::Visitor(_) => {
                ensure_feedback_readable(store, caller, self).await
            }
            Caller::Team(_) => store
                .feedback_reach(caller.team_id(), self)
                .await?
                .map(|_| ())
                .ok_or_else(feedback_not_found),
        }
    }

    /// Counted and announced in the vote's transaction.
    async fn cast(self, store: &S, ballot: Ballot<'_>) -> AppResult<(FeedbackVote, i64)> {
        let Ballot {
            caller,
            voter,
            at: now,
        } = ballot;
        let vote = FeedbackVote {
            id: FeedbackVoteId::new(),
            feedback_id: self,
            subscriber_id: voter,
            created_at: now,
        };
        let on_behalf = matches!(caller, Caller::Team(_));
        let event = NewEvent::new(
            caller.team_id(),
            EventKind::NewFeedbackVote,
            now,
            &[
                ("feedbackId", self.to_string()),
                ("voteId", vote.id.to_string()),
                ("subscriberId", vote.subscriber_id.to_string()),
            ],
            VoteJson::from(&vote),
        )
        .with_field("onBehalf", on_behalf);
        let events = [event];
        let cast = match caller {
            // Most votes are on public items, which the store checks in the vote's transaction.
            // One it says is not public (it tells who may read it) takes the caller's check, and
            // lands only if the caller may read it.
            Caller::Subscriber(_) | Caller::Visitor(_) => {
                match store
                    .cast_vote(caller.team_id(), &vote, VoteAccess::Public, &events)
                    .await?
                {
                    VoteOutcome::NotPublic(reach) => {
                        ensure_reach(caller, reach)?;
                        store
                            .cast_vote(caller.team_id(), &vote, VoteAccess::Checked, &events)
                            .await?
                    }
                    cast => cast,
                }
            }
            // The team's item was found before its subscriber was; the store checks it is
            // still there.
            Caller::Team(_) => {
                store
                    .cast_vote(caller.team_id(), &vote, VoteAccess::Checked, &events)
                    .await?
            }
        };
        match cast {
            VoteOutcome::Cast { vote, total_votes } => Ok((vote, total_votes)),
            VoteOutcome::AlreadyVoted => Err(AppError::Domain(DomainError::Conflict(
                ALREADY_VOTED.into(),
            ))),
            VoteOutcome::NotFound | VoteOutcome::NotPublic(_) => Err(feedback_not_found()),
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
            Some(voter) => store.retract_vote(team, self, voter).await?,
            None => store.vote_state(team, self, None).await?.map(|s| s.count),
        };
        count.ok_or_else(feedback_not_found)
    }
}

/// The item's count and, under a subscriber token, the caller's vote.
pub async fn vote_info(
    store: &dyn FeedbackStore,
    caller: &Caller,
    feedback_id: Option<&str>,
) -> AppResult<(FeedbackId, VoteState)> {
    let id = FeedbackId::parse_required("feedbackId", feedback_id)?;
    ensure_feedback_readable(store, caller, id).await?;
    let state = store
        .vote_state(caller.team_id(), id, caller.subscriber_id())
        .await?
        .ok_or_else(feedback_not_found)?;
    Ok((id, state))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Fixed;
    use sounding_domain::{
        feedback::FeedbackReach,
        ports::MockFeedbackStore,
        subscriber::{Identify, Subscriber},
        TeamId, Timestamp,
    };

    fn session(is_team_member: bool) -> SubscriberSession {
        let identify = Identify::new(Some("ada@example.com"), None, None, None, None).unwrap();
        let now = Timestamp::from_unix_seconds(0).unwrap();
        SubscriberSession {
            subscriber: Subscriber::identified(TeamId::new(), &identify, now),
            is_team_member,
        }
    }

    /// A store whose item is on a private board: a public vote comes back `NotPublic`; a
    /// checked one lands. `checked` is how many checked votes the test expects.
    fn private_board_item(checked: usize) -> MockFeedbackStore {
        let mut store = MockFeedbackStore::new();
        store
            .expect_cast_vote()
            .withf(|_, _, access, _| *access == VoteAccess::Public)
            .times(1)
            .returning(|_, _, _, _| {
                Ok(VoteOutcome::NotPublic(FeedbackReach {
                    published: true,
                    board_is_public: Some(false),
                }))
            });
        store
            .expect_cast_vote()
            .withf(|_, _, access, _| *access == VoteAccess::Checked)
            .times(checked)
            .returning(|_, vote, _, _| {
                Ok(VoteOutcome::Cast {
                    vote: vote.clone(),
                    total_votes: 1,
                })
            });
        store
    }

    #[tokio::test]
    async fn an_outsider_cannot_vote_on_a_private_boards_item_and_the_store_is_asked_once() {
        let store = private_board_item(0);
        let id = FeedbackId::new().to_string();
        let refused = cast_vote(&store, &Fixed, &session(false), Some(&id)).await;
        assert_eq!(refused.unwrap_err(), feedback_not_found());
    }

    #[tokio::test]
    async fn a_team_member_votes_on_a_private_boards_item() {
        let store = private_board_item(1);
        let id = FeedbackId::new().to_string();
        let (vote, total) = cast_vote(&store, &Fixed, &session(true), Some(&id))
            .await
            .unwrap();
        assert_eq!((vote.feedback_id.to_string(), total), (id, 1));
    }

    #[tokio::test]
    async fn a_second_vote_is_a_conflict() {
        let mut store = MockFeedbackStore::new();
        store
            .expect_cast_vote()
            .times(1)
            .returning(|_, _, _, _| Ok(VoteOutcome::AlreadyVoted));
        let id = FeedbackId::new().to_string();
        let refused = cast_vote(&store, &Fixed, &session(false), Some(&id)).await;
        assert_eq!(
            refused.unwrap_err(),
            AppError::Domain(DomainError::Conflict(ALREADY_VOTED.into()))
        );
    }
}
