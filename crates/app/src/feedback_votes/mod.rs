//! Votes on feedback: `public/feedback-votes.create|delete` (subscriber token) and
//! `public/feedback-votes.info` (either credential). One vote per subscriber per item.

use sounding_domain::{
    access::{Caller, SubscriberSession},
    event::{EventKind, NewEvent},
    feedback_vote::{FeedbackVote, VoteAccess, VoteOutcome, VoteState, ALREADY_VOTED},
    ports::{Clock, Store},
    DomainError, FeedbackId, FeedbackVoteId,
};

use crate::{
    error::{AppError, AppResult},
    feedback::{ensure_feedback_readable, feedback_not_found},
    wire::{self, VoteJson},
};

/// Casts the subscriber's vote: the vote and the item's count after it. A second vote is a
/// conflict and changes nothing.
pub async fn cast_vote(
    store: &dyn Store,
    clock: &dyn Clock,
    session: &SubscriberSession,
    feedback_id: Option<&str>,
) -> AppResult<(FeedbackVote, i64)> {
    let id = FeedbackId::parse_required("feedbackId", feedback_id)?;
    let caller = Caller::Subscriber(session.clone());
    let now = clock.now();
    let vote = FeedbackVote {
        id: FeedbackVoteId::new(),
        feedback_id: id,
        subscriber_id: session.subscriber.id,
        created_at: now,
    };
    let event = NewEvent::new(
        caller.team_id(),
        EventKind::NewFeedbackVote,
        now,
        &[
            ("feedbackId", id.to_string()),
            ("voteId", vote.id.to_string()),
            ("subscriberId", vote.subscriber_id.to_string()),
        ],
        wire::to_value(&VoteJson::from(&vote)),
    );
    let events = [event];
    // Most votes are on public items, which the store checks in the vote's transaction. The
    // rest (an item gone, or one only the team's members may read) take the full check.
    let mut cast = store
        .cast_vote(caller.team_id(), &vote, VoteAccess::Public, &events)
        .await?;
    if cast.is_none() {
        ensure_feedback_readable(store, &caller, id).await?;
        cast = store
            .cast_vote(caller.team_id(), &vote, VoteAccess::Checked, &events)
            .await?;
    }
    match cast {
        Some(VoteOutcome::Cast { vote, total_votes }) => Ok((vote, total_votes)),
        Some(VoteOutcome::AlreadyVoted) => Err(AppError::Domain(DomainError::Conflict(
            ALREADY_VOTED.into(),
        ))),
        None => Err(feedback_not_found()),
    }
}

/// Removes the subscriber's vote if there is one; the count after. Idempotent. An item the
/// caller may not read is not found, as for `feedbacks.info` (nothing changes).
pub async fn retract_vote(
    store: &dyn Store,
    session: &SubscriberSession,
    feedback_id: Option<&str>,
) -> AppResult<i64> {
    let id = FeedbackId::parse_required("feedbackId", feedback_id)?;
    ensure_feedback_readable(store, &Caller::Subscriber(session.clone()), id).await?;
    let subscriber = &session.subscriber;
    store
        .retract_vote(subscriber.team_id, id, subscriber.id)
        .await?
        .ok_or_else(feedback_not_found)
}

/// The item's count and, under a subscriber token, the caller's vote.
pub async fn vote_info(
    store: &dyn Store,
    caller: &Caller,
    feedback_id: Option<&str>,
) -> AppResult<(FeedbackId, VoteState)> {
    let id = FeedbackId::parse_required("feedbackId", feedback_id)?;
    ensure_feedback_readable(store, caller, id).await?;
    let subscriber = match caller {
        Caller::Subscriber(session) => Some(session.subscriber.id),
        Caller::Team(_) => None,
    };
    let state = store
        .vote_state(caller.team_id(), id, subscriber)
        .await?
        .ok_or_else(feedback_not_found)?;
    Ok((id, state))
}
