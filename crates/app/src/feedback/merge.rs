//! `feedbacks.merge` (owner or admin): folds a duplicate item into another — its votes (once
//! per subscriber), comments and followers move to the target, and it is archived with
//! `meta.mergedIntoFeedbackId` — and `feedbacks.count` (any key): items per status.

use sounding_domain::{
    access::{AdminArea, Caller, KeyHolder, Need},
    event::{EventKind, NewEvent},
    feedback::FeedbackView,
    feedback_merge::{FeedbackCounts, FeedbackMerge, MergeOutcome},
    ports::{
        AccessStore, BoardStore, Clock, FeedbackCurationStore, FeedbackStore, SubscriberStore,
    },
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
    /// The item merged into, with the moved votes, comments and followers.
    pub target: FeedbackView,
    /// The item merged away, now archived with `meta.mergedIntoFeedbackId`.
    pub source: FeedbackView,
}

/// `feedbacks.merge {id, targetId}`: both items after the merge; emits `feedbacks.update` for
/// each. Owners and admins only (403); 400 for the same item twice or an archived one; 404
/// when the team lacks either.
pub async fn merge_feedback(
    store: &(impl AccessStore + SubscriberStore + FeedbackStore + FeedbackCurationStore + ?Sized),
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
    let merge = FeedbackMerge {
        team_id: caller.team_id,
        source_id: source.feedback.id,
        target_id: target.feedback.id,
        editor: editor.id,
        at: now,
    };
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
    store: &(impl BoardStore + FeedbackCurationStore + ?Sized),
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

#[cfg(test)]
mod tests {
    use sounding_domain::{
        access::Role,
        ports::{FeedbackStore, OutboxStore},
        DomainError,
    };
    use sounding_store_memory::MemoryStore;

    use super::*;
    use crate::feedback::{
        create_feedback, moderate_feedback,
        tests::{world, Fixed, World},
        NewFeedbackInput,
    };

    async fn item(store: &MemoryStore, caller: &KeyHolder, title: &str) -> FeedbackView {
        let input = NewFeedbackInput {
            title: Some(title.into()),
            ..Default::default()
        };
        create_feedback(store, &Fixed, caller, input).await.unwrap()
    }

    fn input(source: &FeedbackView, target: &FeedbackView) -> MergeInput {
        MergeInput {
            id: Some(source.feedback.id.to_string()),
            target_id: Some(target.feedback.id.to_string()),
        }
    }

    #[tokio::test]
    async fn refusals_come_before_any_write() {
        let World { store, owner } = world().await;
        let a = item(&store, &owner, "A").await;
        let b = item(&store, &owner, "B").await;
        let c = item(&store, &owner, "C").await;
        let c_id = c.feedback.id.to_string();
        moderate_feedback(
            &store,
            &Fixed,
            &owner,
            Some(&c_id),
            sounding_domain::feedback::Moderation::Archive,
        )
        .await
        .unwrap();
        let events = store.events(owner.team_id).await.unwrap().len();

        let member = KeyHolder {
            role: Role::Member,
            ..owner.clone()
        };
        assert_eq!(
            merge_feedback(&store, &Fixed, &member, input(&a, &b))
                .await
                .unwrap_err(),
            AppError::Domain(DomainError::Forbidden(
                "The member role cannot manage feedback merges".into()
            ))
        );
        for (source, target, message) in [
            (
                &a,
                &a,
                "targetId must differ from id: an item cannot be merged into itself",
            ),
            (
                &a,
                &c,
                "targetId names an archived feedback; merge into an active one",
            ),
            (
                &c,
                &a,
                "id names an archived feedback; restore it before merging",
            ),
        ] {
            assert_eq!(
                merge_feedback(&store, &Fixed, &owner, input(source, target))
                    .await
                    .unwrap_err(),
                AppError::invalid(message)
            );
        }
        let stored = store.feedback(owner.team_id, a.feedback.id).await.unwrap();
        assert_eq!(stored.unwrap().feedback.archived_at, None);
        assert_eq!(store.events(owner.team_id).await.unwrap().len(), events);
    }

    #[tokio::test]
    async fn a_merge_returns_both_items_and_announces_both() {
        let World { store, owner } = world().await;
        let a = item(&store, &owner, "A").await;
        let b = item(&store, &owner, "B").await;
        let merged = merge_feedback(&store, &Fixed, &owner, input(&a, &b))
            .await
            .unwrap();
        assert_eq!(merged.target.feedback.id, b.feedback.id);
        assert_eq!(merged.source.feedback.archived_at, Some(Fixed.now()));
        let events = store.events(owner.team_id).await.unwrap();
        let last: Vec<(&str, &serde_json::Value)> = events[events.len() - 2..]
            .iter()
            .map(|e| (e.kind.as_str(), &e.payload["feedbackId"]))
            .collect();
        assert_eq!(
            last,
            [
                ("feedbacks.update", &b.feedback.id.to_string().into()),
                ("feedbacks.update", &a.feedback.id.to_string().into()),
            ]
        );
        let counts = count_feedback(&store, &owner, None).await.unwrap();
        assert_eq!(
            (counts.in_review, counts.archived, counts.total()),
            (1, 1, 2)
        );
    }
}
