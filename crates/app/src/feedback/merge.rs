//! `feedbacks.merge` (owner or admin): folds a duplicate item into another — its votes (once
//! per subscriber), comments and followers move to the target, and it is archived with
//! `meta.mergedIntoFeedbackId` — and `feedbacks.count` (any key): items per status.

use sounding_domain::{
    access::{AdminArea, Caller, KeyHolder, Need},
    event::{EventKind, NewEvent},
    feedback::FeedbackView,
    feedback_merge::{FeedbackCounts, FeedbackMerge, MergeOutcome},
    ports::{Clock, Store},
    FeedbackId,
};

use super::{feedback_event, feedback_not_found, team_author, team_board, team_feedback};
use crate::error::{AppError, AppResult};

/// The fields of `feedbacks.merge` as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct MergeInput {
    /// The item merged away (the source).
    pub id: Option<String>,
    /// The item it is merged into.
    pub target_id: Option<String>,
}

/// Both items after a merge.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    pub target: FeedbackView,
    pub source: FeedbackView,
}

pub async fn merge_feedback(
    store: &dyn Store,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: MergeInput,
) -> AppResult<Merged> {
    caller.require(Need::Admin(AdminArea::FeedbackMerges))?;
    let source_id = FeedbackId::parse_required("id", input.id.as_deref())?;
    let target_id = FeedbackId::parse_required("targetId", input.target_id.as_deref())?;
    if source_id == target_id {
        return Err(AppError::invalid(
            "targetId must differ from id: an item cannot be merged into itself",
        ));
    }
    let as_team = Caller::Team(caller.clone());
    let source = team_feedback(store, &as_team, source_id).await?;
    let target = team_feedback(store, &as_team, target_id).await?;
    if source.feedback.archived_at.is_some() {
        return Err(AppError::invalid(
            "id names an archived feedback; restore it before merging",
        ));
    }
    if target.feedback.archived_at.is_some() {
        return Err(AppError::invalid(
            "targetId names an archived feedback; merge into an active one",
        ));
    }
    let now = clock.now();
    let editor = team_author(store, caller, None, now).await?;
    let mut merge = FeedbackMerge::new(source.feedback, target.feedback, now);
    merge.source.last_modified_by_id = Some(editor.id);
    merge.target.last_modified_by_id = Some(editor.id);
    match store.merge_feedback(&merge, merge_events).await? {
        MergeOutcome::Merged { target, source } => Ok(Merged {
            target: *target,
            source: *source,
        }),
        MergeOutcome::Missing => Err(feedback_not_found()),
        MergeOutcome::Archived => Err(AppError::invalid(
            "id or targetId names an archived feedback",
        )),
    }
}

/// `feedbacks.update` for the target, then for the source, each carrying the item as it is
/// after the merge and the other item's id.
fn merge_events(target: &FeedbackView, source: &FeedbackView) -> Vec<NewEvent> {
    let now = target.feedback.updated_at;
    vec![
        feedback_event(
            EventKind::FeedbacksUpdate,
            target,
            now,
            &[("mergedFeedbackId", source.feedback.id.to_string())],
        ),
        feedback_event(
            EventKind::FeedbacksUpdate,
            source,
            now,
            &[("mergedIntoFeedbackId", target.feedback.id.to_string())],
        ),
    ]
}

/// The team's items per status (on one board when `board_id` is given), archived apart.
pub async fn count_feedback(
    store: &dyn Store,
    caller: &KeyHolder,
    board_id: Option<&str>,
) -> AppResult<FeedbackCounts> {
    caller.require(Need::Read)?;
    let board = match board_id {
        Some(raw) => Some(
            team_board(store, &Caller::Team(caller.clone()), raw)
                .await?
                .board
                .id,
        ),
        None => None,
    };
    Ok(store.count_feedback(caller.team_id, board).await?)
}
