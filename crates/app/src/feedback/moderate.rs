//! `feedbacks.publish`, `.archive` and `.restore` (team): moderation approval and the archive.
//! Each is idempotent; a change announces itself with `feedbacks.update`.

use sounding_domain::{
    access::{KeyHolder, Need},
    event::EventKind,
    feedback::{FeedbackView, Moderation},
    ports::{Clock, FeedbackStore},
    Entity, FeedbackId,
};

use super::feedback_event;
use crate::error::AppResult;

/// `feedbacks.publish`, `.archive` or `.restore {id}`, as `step` says: the item after the
/// step, changed or not (archiving keeps an earlier archive time; a restored item is back in
/// lists). Any key but a read-only one (403); 404 when the team has no such item.
pub async fn moderate_feedback(
    store: &(impl FeedbackStore + ?Sized),
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
    step: Moderation,
) -> AppResult<FeedbackView> {
    caller.require(Need::Write)?;
    let id = FeedbackId::parse_required("id", id)?;
    let now = clock.now();
    // Decided on the item as stored, inside the write: of two concurrent approvals one
    // changes it and announces it, the other finds it done.
    let edited = store
        .edit_feedback(
            caller.team_id,
            id,
            Box::new(move |view| {
                if !step.apply(&mut view.feedback, now) {
                    return Ok(Vec::new());
                }
                view.feedback.updated_at = now;
                Ok(vec![feedback_event(
                    EventKind::FeedbacksUpdate,
                    view,
                    now,
                    &[],
                )])
            }),
        )
        .await?;
    Ok(edited.into_result(Entity::Feedback)?)
}
