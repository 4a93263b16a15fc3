//! Curating the team's feedback: merging a duplicate item into another, and counting items per
//! status.

use crate::{
    event::NewEvent,
    feedback::{Feedback, FeedbackStatus, FeedbackView},
    meta::Meta,
    timestamp::Timestamp,
};

/// The `meta` key a merged (archived) source item records its target under.
pub const MERGED_INTO_KEY: &str = "mergedIntoFeedbackId";

/// A merge about to be stored: both items with their new fields (the source archived, its meta
/// recording the target; both with a new `updated_at` and editor). The store moves the source's
/// votes, comments and follows into the target and recomputes both items' counts.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedbackMerge {
    pub source: Feedback,
    pub target: Feedback,
}

impl FeedbackMerge {
    /// Archives `source` into `target` at `now`.
    pub fn new(mut source: Feedback, mut target: Feedback, now: Timestamp) -> Self {
        let mut patch = Meta::new();
        patch.insert(MERGED_INTO_KEY.into(), target.id.to_string().into());
        crate::meta::merge(&mut source.meta, &patch);
        source.archived_at = Some(now);
        source.updated_at = now;
        target.updated_at = now;
        Self { source, target }
    }
}

/// Builds, from the two items as they are after the merge (target, then source), the events
/// the merge emits. Called by the store inside the merge's transaction, so the events carry the
/// post-merge counts and commit with the merge.
pub type MergeEvents = fn(&FeedbackView, &FeedbackView) -> Vec<NewEvent>;

#[derive(Debug, Clone, PartialEq)]
pub enum MergeOutcome {
    /// Merged; both items as they are now.
    Merged {
        target: Box<FeedbackView>,
        source: Box<FeedbackView>,
    },
    /// One of the items is gone (nothing written).
    Missing,
    /// One of the items was archived meanwhile (nothing written).
    Archived,
}

/// How many of the team's items (on one board, or on all) are in each status. Archived items
/// are counted apart, in `archived`, not under their status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeedbackCounts {
    pub in_review: i64,
    pub in_progress: i64,
    pub planned: i64,
    pub completed: i64,
    pub closed: i64,
    pub archived: i64,
}

impl FeedbackCounts {
    /// Adds `n` items of `status`, archived or not.
    pub fn add(&mut self, status: FeedbackStatus, archived: bool, n: i64) {
        let slot = if archived {
            &mut self.archived
        } else {
            match status {
                FeedbackStatus::InReview => &mut self.in_review,
                FeedbackStatus::InProgress => &mut self.in_progress,
                FeedbackStatus::Planned => &mut self.planned,
                FeedbackStatus::Completed => &mut self.completed,
                FeedbackStatus::Closed => &mut self.closed,
            }
        };
        *slot += n;
    }

    /// Every item, archived ones included.
    pub fn total(&self) -> i64 {
        self.in_review
            + self.in_progress
            + self.planned
            + self.completed
            + self.closed
            + self.archived
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        feedback::Priority,
        ids::{FeedbackId, SubscriberId, TeamId},
    };

    fn item(now: Timestamp) -> Feedback {
        Feedback {
            id: FeedbackId::new(),
            team_id: TeamId::new(),
            board_id: None,
            url_id: "abcdefghij".into(),
            title: "A".into(),
            text: String::new(),
            status: FeedbackStatus::InReview,
            priority: Priority::Medium,
            kind: None,
            creator_id: SubscriberId::new(),
            meta: serde_json::json!({"keep": 1}).as_object().unwrap().clone(),
            published_at: Some(now),
            archived_at: None,
            created_at: now,
            updated_at: now,
            last_modified_by_id: None,
        }
    }

    #[test]
    fn a_merge_archives_the_source_and_records_the_target_in_its_meta() {
        let t0 = Timestamp::from_unix_seconds(1).unwrap();
        let now = t0.plus_seconds(5);
        let (source, target) = (item(t0), item(t0));
        let merge = FeedbackMerge::new(source, target.clone(), now);
        assert_eq!(merge.source.archived_at, Some(now));
        assert_eq!(merge.source.meta["keep"], 1);
        assert_eq!(
            merge.source.meta[MERGED_INTO_KEY],
            target.id.to_string().as_str()
        );
        assert_eq!(merge.target.archived_at, None);
        assert_eq!(merge.target.updated_at, now);
    }

    #[test]
    fn archived_items_are_counted_apart_and_in_the_total() {
        let mut counts = FeedbackCounts::default();
        counts.add(FeedbackStatus::Planned, false, 2);
        counts.add(FeedbackStatus::Planned, true, 3);
        counts.add(FeedbackStatus::Closed, false, 1);
        assert_eq!((counts.planned, counts.archived, counts.closed), (2, 3, 1));
        assert_eq!(counts.total(), 6);
    }
}
