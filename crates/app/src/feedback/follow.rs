//! `public/feedbacks.subscribe` and `.unsubscribe`: a subscriber follows an item or stops.
//! Both are idempotent.

use sounding_domain::{
    access::{Caller, SubscriberSession},
    ports::{Clock, FeedbackStore},
    FeedbackId,
};

use super::{ensure_feedback_readable, feedback_not_found};
use crate::error::AppResult;

/// Follows the item (`follow`), or stops following it.
pub async fn follow_feedback(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
    feedback_id: Option<&str>,
    follow: bool,
) -> AppResult<FeedbackId> {
    let id = FeedbackId::parse_required("feedbackId", feedback_id)?;
    // What the caller may not read is not found, as for `feedbacks.info`.
    ensure_feedback_readable(store, &Caller::Subscriber(session.clone()), id).await?;
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
