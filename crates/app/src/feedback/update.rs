//! `feedbacks.update`: by the team (every field, status changes announced) and by the item's
//! creator (`public/feedbacks.update`: content and board only). Only given fields change; meta
//! merges; the url follows the title.

use serde_json::Value;
use sounding_domain::{
    access::{Caller, KeyHolder, Need, SubscriberSession},
    event::{EventKind, NewEvent},
    feedback::{FeedbackPatch, FeedbackStatus, FeedbackView, Priority},
    ports::{Clock, Retagged, Store},
    subscriber::{Subscriber, SubscriberRef},
    tag::{self, TagRef},
    Entity, FeedbackId, TagId, Timestamp,
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
    /// Team only: replaces the item's tags (`[]` clears them); unchanged when absent.
    pub tag_ids: Option<Vec<String>>,
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
    let tag_ids = changes
        .tag_ids
        .as_deref()
        .map(tag::parse_tag_ids)
        .transpose()?;
    let as_team = Caller::Team(caller.clone());
    let board = match changes.board_id.as_deref() {
        Some(raw) => Some(team_board(store, &as_team, raw).await?),
        None => None,
    };
    let mut view = team_feedback(store, &as_team, id).await?;
    if let Some(ids) = &tag_ids {
        view.tags = team_tags(store, caller, ids).await?;
    }
    let now = clock.now();
    let editor = team_author(store, caller, None, now).await?;
    if let Some(board) = &board {
        view.feedback.board_id = Some(board.board.id);
        view.board = Some(board_ref(board));
    }
    save(store, view, patch, editor, now, tag_ids.as_deref()).await
}

/// The tags `ids` name, in display order: 404 `Tag not found` unless each is the team's.
async fn team_tags(store: &dyn Store, caller: &KeyHolder, ids: &[TagId]) -> AppResult<Vec<TagRef>> {
    let all = store.tags(caller.team_id).await?;
    let mut found = Vec::with_capacity(ids.len());
    for id in ids {
        let tag = all
            .iter()
            .find(|t| t.id == *id)
            .ok_or(AppError::not_found(Entity::Tag))?;
        found.push(tag.as_ref());
    }
    tag::sort_tags(&mut found);
    Ok(found)
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
    save(
        store,
        view,
        patch,
        session.subscriber.clone(),
        clock.now(),
        None,
    )
    .await
}

/// Applies the patch, records the editor, and stores the item with `feedbacks.update` (and
/// `feedback_status_change` when the status really changed). With `tag_ids`, the item's tags
/// become those (already in `view.tags`) in the same transaction.
async fn save(
    store: &dyn Store,
    mut view: FeedbackView,
    patch: FeedbackPatch,
    editor: Subscriber,
    now: Timestamp,
    tag_ids: Option<&[TagId]>,
) -> AppResult<FeedbackView> {
    let previous = patch.apply(&mut view.feedback, now)?;
    view.feedback.last_modified_by_id = Some(editor.id);
    view.last_modified_by = Some(SubscriberRef::from(&editor));
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
    let Some(tag_ids) = tag_ids else {
        return if store.update_feedback(&view.feedback, &events).await? {
            Ok(view)
        } else {
            Err(feedback_not_found())
        };
    };
    match store
        .update_feedback_tagged(&view.feedback, tag_ids, &events)
        .await?
    {
        Retagged::Saved => Ok(view),
        Retagged::FeedbackGone => Err(feedback_not_found()),
        // Deleted since it was looked up.
        Retagged::UnknownTag => Err(AppError::not_found(Entity::Tag)),
    }
}
