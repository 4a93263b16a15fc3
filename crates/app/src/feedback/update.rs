//! `feedbacks.update`: by the team (every field, status changes announced) and by the item's
//! creator (`public/feedbacks.update`: content and board only). Only given fields change; meta
//! merges; the url follows the title.

use serde_json::Value;
use sounding_domain::{
    access::{Caller, KeyHolder, Need, SubscriberSession},
    event::{EventKind, NewEvent},
    feedback::{FeedbackPatch, FeedbackStatus, FeedbackView, Priority},
    ports::{Clock, Store},
    subscriber::Subscriber,
    FeedbackId, Timestamp,
};

use super::{
    board_open_to, board_ref, feedback_event, feedback_not_found, team_author, team_board,
    team_feedback,
};
use crate::{
    error::{AppError, AppResult},
    notifications::notify,
};

/// The fields of `feedbacks.update` as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct FeedbackChanges {
    pub id: Option<String>,
    pub title: Option<String>,
    pub text: Option<String>,
    /// Team only; ignored from subscribers.
    pub status: Option<String>,
    /// Team only; ignored from subscribers.
    pub priority: Option<String>,
    pub board_id: Option<String>,
    pub kind: Option<String>,
    pub meta: Option<Value>,
}

fn content_patch(changes: &FeedbackChanges) -> AppResult<FeedbackPatch> {
    Ok(FeedbackPatch::content(
        changes.title.as_deref(),
        changes.text.as_deref(),
        changes.kind.as_deref(),
        changes.meta.as_ref(),
    )?)
}

pub async fn update_feedback(
    store: &dyn Store,
    clock: &dyn Clock,
    caller: &KeyHolder,
    changes: FeedbackChanges,
) -> AppResult<FeedbackView> {
    caller.require(Need::Write)?;
    let id = FeedbackId::parse_required("id", changes.id.as_deref())?;
    let mut patch = content_patch(&changes)?;
    patch.status = changes
        .status
        .as_deref()
        .map(FeedbackStatus::parse)
        .transpose()?;
    patch.priority = changes
        .priority
        .as_deref()
        .map(Priority::parse)
        .transpose()?;
    let as_team = Caller::Team(caller.clone());
    let board = match changes.board_id.as_deref() {
        Some(raw) => Some(team_board(store, &as_team, raw).await?),
        None => None,
    };
    let mut view = team_feedback(store, &as_team, id).await?;
    let now = clock.now();
    let editor = team_author(store, caller, None, now).await?;
    if let Some(board) = &board {
        view.feedback.board_id = Some(board.board.id);
        view.board = Some(board_ref(board));
    }
    save(store, view, patch, editor, now).await
}

pub async fn update_public_feedback(
    store: &dyn Store,
    clock: &dyn Clock,
    session: &SubscriberSession,
    changes: FeedbackChanges,
) -> AppResult<FeedbackView> {
    let id = FeedbackId::parse_required("feedbackId", changes.id.as_deref())?;
    let patch = content_patch(&changes)?;
    let caller = Caller::Subscriber(session.clone());
    let mut view = team_feedback(store, &caller, id).await?;
    if view.feedback.creator_id != session.subscriber.id {
        return Err(AppError::forbidden(
            "You do not have permission to update this feedback",
        ));
    }
    if let Some(raw) = changes.board_id.as_deref() {
        let board = board_open_to(store, &caller, raw).await?;
        view.feedback.board_id = Some(board.board.id);
        view.board = Some(board_ref(&board));
    }
    save(store, view, patch, session.subscriber.clone(), clock.now()).await
}

/// Applies the patch, records the editor, and stores the item with `feedbacks.update` (and
/// `feedback_status_change` when the status really changed).
async fn save(
    store: &dyn Store,
    mut view: FeedbackView,
    patch: FeedbackPatch,
    editor: Subscriber,
    now: Timestamp,
) -> AppResult<FeedbackView> {
    let previous = patch.apply(&mut view.feedback, now);
    view.feedback.last_modified_by_id = Some(editor.id);
    view.last_modified_by = Some(editor);
    let mut events: Vec<NewEvent> = Vec::with_capacity(2);
    if let Some(previous) = previous {
        // Followers hear of it in the same write (nobody in particular acted: all of them).
        events.push(
            feedback_event(
                EventKind::FeedbackStatusChange,
                &view,
                now,
                &[
                    ("previousStatus", previous.as_str().to_owned()),
                    ("status", view.feedback.status.as_str().to_owned()),
                ],
            )
            .notifying(notify::feedback_status(&view, previous.as_str())),
        );
    }
    events.push(feedback_event(EventKind::FeedbacksUpdate, &view, now, &[]));
    if store.update_feedback(&view.feedback, &events).await? {
        Ok(view)
    } else {
        Err(feedback_not_found())
    }
}
