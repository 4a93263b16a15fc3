//! `public/feedbacks.subscribe` and `.unsubscribe`: a subscriber follows an item or stops.
//! Both are idempotent.

use sounding_domain::{
    access::{Caller, SubscriberSession},
    ports::{Clock, Store},
    FeedbackId,
};

use super::{ensure_feedback_readable, feedback_not_found};
use crate::error::AppResult;

pub async fn follow_feedback(
    store: &dyn Store,
    clock: &dyn Clock,
    session: &SubscriberSession,
    feedback_id: Option<&str>,
) -> AppResult<FeedbackId> {
    let id = FeedbackId::parse_required("feedbackId", feedback_id)?;
    let caller = Caller::Subscriber(session.clone());
    ensure_feedback_readable(store, &caller, id).await?;
    set(store, clock, session, id, true).await
}

pub async fn unfollow_feedback(
    store: &dyn Store,
    clock: &dyn Clock,
    session: &SubscriberSession,
    feedback_id: Option<&str>,
) -> AppResult<FeedbackId> {
    let id = FeedbackId::parse_required("feedbackId", feedback_id)?;
    // What the caller may not read is not found, as for `feedbacks.info`.
    ensure_feedback_readable(store, &Caller::Subscriber(session.clone()), id).await?;
    set(store, clock, session, id, false).await
}

async fn set(
    store: &dyn Store,
    clock: &dyn Clock,
    session: &SubscriberSession,
    id: FeedbackId,
    follow: bool,
) -> AppResult<FeedbackId> {
    let subscriber = &session.subscriber;
    if store
        .set_following(subscriber.team_id, id, subscriber.id, follow, clock.now())
        .await?
    {
        Ok(id)
    } else {
        Err(feedback_not_found())
    }
}
