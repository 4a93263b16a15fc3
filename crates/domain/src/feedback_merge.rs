//! Curating the team's feedback: merging a duplicate item into another, and counting items per
//! status.

use crate::{
    event::NewEvent,
    feedback::{Feedback, FeedbackStatus, FeedbackView},
    ids::{FeedbackId, SubscriberId, TeamId},
    meta::Meta,
    timestamp::Timestamp,
};

/// The `meta` key a merged (archived) source item records its target under.
pub const MERGED_INTO_KEY: &str = "mergedIntoFeedbackId";

/// A merge about to be stored: which item folds into which, by whom and when. The store reads
/// both items inside its transaction and applies [`FeedbackMerge::apply`] to them there, so a
/// change committed to either meanwhile is kept. It moves the source's votes, comments and
/// follows into the target and recomputes both items' counts.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedbackMerge {
    /// The team owning both items.
    pub team_id: TeamId,
    /// The duplicate: archived; its votes, comments and follows move to the target (where a
    /// subscriber has a vote or follow on both, the target's stays).
    pub source_id: FeedbackId,
    /// The item that remains, receiving the source's votes, comments and follows.
    pub target_id: FeedbackId,
    /// The subscriber standing for the team member who merges.
    pub editor: SubscriberId,
    /// When it happens: both items' new `updatedAt`, and the source's `archivedAt`.
    pub at: Timestamp,
}

impl FeedbackMerge {
    /// Archives `source` into `target`: the source records the target in its meta; both get
    /// the merge's time and editor.
    pub fn apply(&self, source: &mut Feedback, target: &mut Feedback) {
        let mut patch = Meta::new();
        patch.insert(MERGED_INTO_KEY.into(), target.id.to_string().into());
        crate::meta::merge(&mut source.meta, &patch);
        source.archived_at = Some(self.at);
        for item in [source, target] {
            item.updated_at = self.at;
            item.last_modified_by_id = Some(self.editor);
        }
    }
}

/// Builds, from the two items as they are after the merge (target, then source), the events
/// the merge emits. Called by the store inside the merge's transaction, so the events carry the
/// post-merge counts and commit with the merge.
pub type MergeEvents = fn(&FeedbackView, &FeedbackView) -> Vec<NewEvent>;

/// What the store made of a [`FeedbackMerge`]: done, or refused with nothing written.
#[derive(Debug, Clone, PartialEq)]
pub enum MergeOutcome {
    /// Merged; both items as they are now.
    Merged {
        /// The item merged into, with its counts after the merge.
        target: Box<FeedbackView>,
        /// The merged item, now archived and pointing at the target (see [`MERGED_INTO_KEY`]).
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
    /// Unarchived items `in_review`.
    pub in_review: i64,
    /// Unarchived items `in_progress`.
    pub in_progress: i64,
    /// Unarchived items `planned`.
    pub planned: i64,
    /// Unarchived items `completed`.
    pub completed: i64,
    /// Unarchived items `closed`.
    pub closed: i64,
    /// Archived items, whatever their status.
    pub archived: i64,
}

impl FeedbackCounts {
    /// Adds `n` items of `status`, archived or not.
    ///
    /// ```
    /// use sounding_domain::{feedback::FeedbackStatus, feedback_merge::FeedbackCounts};
    ///
    /// let mut counts = FeedbackCounts::default();
    /// counts.add(FeedbackStatus::Planned, false, 2);
    /// counts.add(FeedbackStatus::Planned, true, 1);
    /// assert_eq!((counts.planned, counts.archived), (2, 1));
    /// assert_eq!(counts.total(), 3);
    /// ```
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

    /// An item whose meta has a key the merge must keep.
    fn item(now: Timestamp) -> Feedback {
        Feedback {
            meta: serde_json::json!({"keep": 1}).as_object().unwrap().clone(),
            ..Feedback::sample(now)
        }
    }

    #[test]
    fn a_merge_archives_the_source_and_records_the_target_in_its_meta() {
        let t0 = Timestamp::from_unix_seconds(1).unwrap();
        let now = t0.plus_seconds(5);
        let (mut source, mut target) = (item(t0), item(t0));
        let merge = FeedbackMerge {
            team_id: source.team_id,
            source_id: source.id,
            target_id: target.id,
            editor: SubscriberId::new(),
            at: now,
        };
        merge.apply(&mut source, &mut target);
        assert_eq!(source.archived_at, Some(now));
        assert_eq!(source.meta["keep"], 1);
        assert_eq!(source.meta[MERGED_INTO_KEY], target.id.to_string().as_str());
        assert_eq!(target.archived_at, None);
        assert_eq!(target.updated_at, now);
        assert_eq!(target.last_modified_by_id, Some(merge.editor));
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
