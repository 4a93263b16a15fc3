//! `feedbacks.publish`, `.archive` and `.restore` (team): moderation approval and the archive.
//! Each is idempotent; a change announces itself with `feedbacks.update`.

use sounding_domain::{
    access::{Caller, KeyHolder, Need},
    event::EventKind,
    feedback::{Feedback, FeedbackView},
    ports::{Clock, Store},
    FeedbackId, Timestamp,
};

use super::{feedback_event, feedback_not_found, team_feedback};
use crate::error::AppResult;

async fn moderate(
    store: &dyn Store,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
    change: impl FnOnce(&mut Feedback, Timestamp) -> bool,
) -> AppResult<FeedbackView> {
    caller.require(Need::Write)?;
    let id = FeedbackId::parse_required("id", id)?;
    let mut view = team_feedback(store, &Caller::Team(caller.clone()), id).await?;
    let now = clock.now();
    if !change(&mut view.feedback, now) {
        return Ok(view);
    }
    view.feedback.updated_at = now;
    let event = feedback_event(EventKind::FeedbacksUpdate, &view, now, &[]);
    if store.update_feedback(&view.feedback, &[event]).await? {
        Ok(view)
    } else {
        Err(feedback_not_found())
    }
}

/// Makes an item awaiting moderation public.
pub async fn publish_feedback(
    store: &dyn Store,
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
    store: &dyn Store,
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
    store: &dyn Store,
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
