//! `feedbacks.publish`, `.archive` and `.restore` (team): moderation approval and the archive.
//! Each is idempotent; a change announces itself with `feedbacks.update`.

use sounding_domain::{
    access::{KeyHolder, Need},
    event::EventKind,
    feedback::{Feedback, FeedbackView},
    ports::{Clock, FeedbackStore},
    Entity, FeedbackId, Timestamp,
};

use super::feedback_event;
use crate::error::AppResult;

async fn moderate(
    store: &(impl FeedbackStore + ?Sized),
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
    change: fn(&mut Feedback, Timestamp) -> bool,
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
                if !change(&mut view.feedback, now) {
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

/// Makes an item awaiting moderation public.
pub async fn publish_feedback(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<FeedbackView> {
    moderate(store, clock, caller, id, |f, now| {
        set_once(&mut f.published_at, now)
    })
    .await
}

pub async fn archive_feedback(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<FeedbackView> {
    moderate(store, clock, caller, id, |f, now| {
        set_once(&mut f.archived_at, now)
    })
    .await
}

pub async fn restore_feedback(
    store: &dyn FeedbackStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<FeedbackView> {
    moderate(store, clock, caller, id, |f, _| {
        f.archived_at.take().is_some()
    })
    .await
}

/// Sets an unset moment; whether it changed.
fn set_once(field: &mut Option<Timestamp>, now: Timestamp) -> bool {
    if field.is_some() {
        return false;
    }
    *field = Some(now);
    true
}
