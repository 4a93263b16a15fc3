//! `feedbacks.update`: by the team (every field, status changes announced) and by the item's
//! creator (`public/feedbacks.update`: content and board only). Only given fields change; meta
//! merges; the url follows the title.

use serde_json::Value;
use sounding_domain::text::parse_given;
use sounding_domain::{
    access::{Caller, KeyHolder, Need, SubscriberSession},
    error::DomainResult,
    event::{EventKind, NewEvent},
    feedback::{BoardRef, FeedbackPatch, FeedbackStatus, FeedbackView, Priority},
    ports::{BoardStore, Clock, FeedbackStore, Store},
    subscriber::SubscriberRef,
    tag::{self, TagRef},
    Entity, FeedbackId, TeamId, Timestamp,
};

use super::{
    board_open_to, board_ref, feedback_event, feedback_not_found, readable_feedback, team_author,
    team_board, team_tags,
};
use crate::{
    error::{AppError, AppResult},
    notifications::notify,
};

/// The fields of `feedbacks.update` as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct FeedbackChanges {
    /// The item's UUID (`id` for the team, `feedbackId` in public); required.
    pub id: Option<String>,
    /// A new title: not blank, at most 255 characters after trimming; the url follows it.
    pub title: Option<String>,
    /// New plain text, at most 50,000 characters.
    pub text: Option<String>,
    /// Team only; ignored from subscribers.
    pub status: Option<String>,
    /// Team only; ignored from subscribers.
    pub priority: Option<String>,
    /// `boardId`: the board to move the item to (for a subscriber, one open to public
    /// submissions).
    pub board_id: Option<String>,
    /// `type`: a new custom feedback type, at most 50 characters.
    pub kind: Option<String>,
    /// A JSON object merged into the item's meta; at most 16 KiB, nested at most 8 levels.
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

/// Team `feedbacks.update`: the item after the change; a real change emits `feedbacks.update`,
/// and `feedback_status_change` when the status moved. Any key but a read-only one (403); 404
/// for an item, board or tag the team does not have.
pub async fn update_feedback(
    store: &dyn Store,
    clock: &dyn Clock,
    caller: &KeyHolder,
    changes: FeedbackChanges,
) -> AppResult<FeedbackView> {
    caller.require(Need::Write)?;
    let id = FeedbackId::parse_required("id", changes.id.as_deref())?;
    let mut patch = content_patch(&changes)?;
    patch.status = parse_given(changes.status.as_deref(), FeedbackStatus::parse)?;
    patch.priority = parse_given(changes.priority.as_deref(), Priority::parse)?;
    let tag_ids = parse_given(changes.tag_ids.as_deref(), tag::parse_tag_ids)?;
    let as_team = Caller::Team(caller.clone());
    let board = match changes.board_id.as_deref() {
        Some(raw) => Some(board_ref(&team_board(store, &as_team, raw).await?)),
        None => None,
    };
    // Looked up before the editor, whom it may create.
    store
        .feedback_reach(caller.team_id, id)
        .await?
        .ok_or_else(feedback_not_found)?;
    let tags = match &tag_ids {
        Some(ids) => Some(team_tags(store, caller, ids).await?),
        None => None,
    };
    let now = clock.now();
    let editor = team_author(store, caller, None, now).await?;
    let edit = Revision {
        patch,
        board,
        tags,
        editor: SubscriberRef::from(&editor),
        now,
    };
    save(store, caller.team_id, id, edit).await
}

/// `public/feedbacks.update`: the creator changes their item's content or board; the item
/// after it. 404 when the subscriber cannot read it; 403 `You do not have permission to
/// update this feedback` for anyone but the creator.
pub async fn update_public_feedback(
    store: &(impl BoardStore + FeedbackStore + ?Sized),
    clock: &dyn Clock,
    session: &SubscriberSession,
    changes: FeedbackChanges,
) -> AppResult<FeedbackView> {
    let id = FeedbackId::parse_required("feedbackId", changes.id.as_deref())?;
    let patch = content_patch(&changes)?;
    let caller = Caller::Subscriber(session.clone());
    // What the caller may not read is not found, as for `feedbacks.info`.
    let view = readable_feedback(store, &caller, id).await?;
    // The creator never changes, so this holds for the item as stored too.
    if view.feedback.creator_id != session.subscriber.id {
        return Err(AppError::forbidden(
            "You do not have permission to update this feedback",
        ));
    }
    let board = match changes.board_id.as_deref() {
        Some(raw) => Some(board_ref(&board_open_to(store, &caller, raw).await?)),
        None => None,
    };
    let edit = Revision {
        patch,
        board,
        tags: None,
        editor: SubscriberRef::from(&session.subscriber),
        now: clock.now(),
    };
    save(store, session.subscriber.team_id, id, edit).await
}

/// One `feedbacks.update`, as applied to the item read inside the store's transaction.
struct Revision {
    patch: FeedbackPatch,
    /// The board to move the item to.
    board: Option<BoardRef>,
    /// The item's tags from now on.
    tags: Option<Vec<TagRef>>,
    editor: SubscriberRef,
    now: Timestamp,
}

impl Revision {
    /// Applies the change to the item as stored. Only a real change records the editor and
    /// announces itself: `feedbacks.update`, and `feedback_status_change` (with the
    /// followers' notifications) when the status really changed.
    fn apply(self, view: &mut FeedbackView) -> DomainResult<Vec<NewEvent>> {
        let before = view.clone();
        let now = self.now;
        let previous = self.patch.apply(&mut view.feedback, now)?;
        if let Some(board) = self.board {
            view.feedback.board_id = Some(board.id);
            view.board = Some(board);
        }
        if let Some(tags) = self.tags {
            view.tags = tags;
        }
        if *view == before {
            return Ok(Vec::new());
        }
        view.feedback.updated_at = now;
        view.feedback.last_modified_by_id = Some(self.editor.id);
        view.last_modified_by = Some(self.editor);
        let mut events: Vec<NewEvent> = Vec::with_capacity(2);
        if let Some(previous) = previous {
            // Followers hear of it in the same write (nobody in particular acted: all of them).
            events.push(
                feedback_event(
                    EventKind::FeedbackStatusChange,
                    view,
                    now,
                    &[
                        ("previousStatus", previous.as_str().to_owned()),
                        ("status", view.feedback.status.as_str().to_owned()),
                    ],
                )
                .notifying(notify::feedback_status(view, previous.as_str())),
            );
        }
        events.push(feedback_event(EventKind::FeedbacksUpdate, view, now, &[]));
        Ok(events)
    }
}

/// Stores the revision atomically (`FeedbackStore::edit_feedback`).
async fn save(
    store: &(impl FeedbackStore + ?Sized),
    team: TeamId,
    id: FeedbackId,
    revision: Revision,
) -> AppResult<FeedbackView> {
    let edited = store
        .edit_feedback(team, id, Box::new(move |view| revision.apply(view)))
        .await?;
    Ok(edited.into_result(Entity::Feedback)?)
}
