//! `feedbacks.delete`: by the team, or by the item's creator (`public/feedbacks.delete`).
//! Permanent: comments, votes and follows go with the item, in one transaction.

use sounding_domain::{
    access::{Caller, KeyHolder, Need, SubscriberSession},
    event::EventKind,
    feedback::FeedbackView,
    ports::{Clock, FeedbackStore},
    FeedbackId,
};

use super::{feedback_event, feedback_not_found, readable_feedback, team_feedback};
use crate::error::{AppError, AppResult};

async fn remove(
    store: &(impl FeedbackStore + ?Sized),
    clock: &dyn Clock,
    view: &FeedbackView,
) -> AppResult<FeedbackId> {
    let event = feedback_event(EventKind::FeedbacksDelete, view, clock.now(), &[]);
    let id = view.feedback.id;
    if store
        .delete_feedback(view.feedback.team_id, id, &[event])
        .await?
    {
        Ok(id)
    } else {
        Err(feedback_not_found())
    }
}

/// Team `feedbacks.delete {id}`: deletes any item of the team and returns its id; emits
/// `feedbacks.delete`. Any key but a read-only one (403); 404 when the team has no such item.
pub async fn delete_feedback(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<FeedbackId> {
    caller.require(Need::Write)?;
    let id = FeedbackId::parse_required("id", id)?;
    let view = team_feedback(store, &Caller::Team(caller.clone()), id).await?;
    remove(store, clock, &view).await
}

/// `public/feedbacks.delete {feedbackId}`: the creator deletes their item; its id. 404 when
/// the subscriber cannot read it; 403 `You do not have permission to delete this feedback`
/// for anyone but the creator.
pub async fn delete_public_feedback(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
    feedback_id: Option<&str>,
) -> AppResult<FeedbackId> {
    let id = FeedbackId::parse_required("feedbackId", feedback_id)?;
    // What the caller may not read is not found, as for `feedbacks.info`.
    let view = readable_feedback(store, &Caller::Subscriber(session.clone()), id).await?;
    if view.feedback.creator_id != session.subscriber.id {
        return Err(AppError::forbidden(
            "You do not have permission to delete this feedback",
        ));
    }
    remove(store, clock, &view).await
}
