//! `TagStore` and `FeedbackCurationStore` in memory: tags, the items' tag lists, merges and
//! per-status counts.

use async_trait::async_trait;
use sounding_domain::{
    edit::{self, Blocked, Edit, Edited},
    feedback::Feedback,
    feedback_merge::{FeedbackCounts, FeedbackMerge, MergeEvents, MergeOutcome},
    ids::{BoardId, TagId, TeamId},
    ports::{Conflict, FeedbackCurationStore, StoreError, StoreResult, TagStore},
    tag::{self, Tag, TagRef},
};

use crate::{MemoryStore, State};

impl State {
    /// The team's tags among `ids`, in display order; ids of gone tags are skipped.
    pub(crate) fn tag_refs(&self, team: TeamId, ids: &[TagId]) -> Vec<TagRef> {
        let mut refs: Vec<TagRef> = ids
            .iter()
            .filter_map(|id| self.tags.get(id))
            .filter(|t| t.team_id == team)
            .map(Tag::as_ref)
            .collect();
        tag::sort_tags(&mut refs);
        refs
    }

    fn tag_name_taken(&self, tag: &Tag) -> bool {
        let key = tag.name_key();
        self.tags
            .values()
            .any(|t| t.team_id == tag.team_id && t.id != tag.id && t.name_key() == key)
    }

    /// Saves every field of an existing item but its counts (as `update_feedback`).
    fn save_fields(&mut self, feedback: &Feedback) -> StoreResult<bool> {
        if self.row(feedback.team_id, feedback.id).is_none() {
            return Ok(false);
        }
        if self.url_id_taken(feedback.team_id, &feedback.url_id, feedback.id) {
            return Err(StoreError::Conflict(Conflict::FeedbackUrlId));
        }
        if let Some(row) = self.row_mut(feedback.team_id, feedback.id) {
            row.feedback = feedback.clone();
        }
        Ok(true)
    }
}

#[async_trait]
impl TagStore for MemoryStore {
    async fn insert_tag(&self, tag: &Tag) -> StoreResult<()> {
        let mut s = self.state();
        if s.tag_name_taken(tag) {
            return Err(StoreError::Conflict(Conflict::TagName));
        }
        s.tags.insert(tag.id, tag.clone());
        Ok(())
    }

    async fn tags(&self, team: TeamId) -> StoreResult<Vec<Tag>> {
        let s = self.state();
        let mut tags: Vec<Tag> = s
            .tags
            .values()
            .filter(|t| t.team_id == team)
            .cloned()
            .collect();
        tag::sort_full(&mut tags);
        Ok(tags)
    }

    async fn tag(&self, team: TeamId, id: TagId) -> StoreResult<Option<Tag>> {
        Ok(self
            .state()
            .tags
            .get(&id)
            .filter(|t| t.team_id == team)
            .cloned())
    }

    async fn edit_tag(&self, team: TeamId, id: TagId, edit: Edit<Tag>) -> StoreResult<Edited<Tag>> {
        let mut s = self.state();
        let found = s.tags.get(&id).filter(|t| t.team_id == team).cloned();
        edit::run(found, edit, |_, after, _| {
            if s.tag_name_taken(after) {
                return Err(Blocked::Failed(StoreError::Conflict(Conflict::TagName)));
            }
            s.tags.insert(id, after.clone());
            Ok(())
        })
    }

    async fn delete_tag(&self, team: TeamId, id: TagId) -> StoreResult<bool> {
        let mut s = self.state();
        let exists = s.tags.get(&id).is_some_and(|t| t.team_id == team);
        if !exists {
            return Ok(false);
        }
        s.tags.remove(&id);
        for row in s.feedback.values_mut() {
            row.tags.retain(|t| *t != id);
        }
        Ok(true)
    }
}

#[async_trait]
impl FeedbackCurationStore for MemoryStore {
    async fn merge_feedback(
        &self,
        merge: &FeedbackMerge,
        events: MergeEvents,
    ) -> StoreResult<MergeOutcome> {
        let mut s = self.state();
        let (team, source_id, target_id) = (merge.team_id, merge.source_id, merge.target_id);
        let (Some(source), Some(target)) = (s.row(team, source_id), s.row(team, target_id)) else {
            return Ok(MergeOutcome::Missing);
        };
        if source.feedback.archived_at.is_some() || target.feedback.archived_at.is_some() {
            return Ok(MergeOutcome::Archived);
        }
        let (mut source, mut target) = (source.feedback.clone(), target.feedback.clone());
        merge.apply(&mut source, &mut target);
        s.save_fields(&source)?;
        s.save_fields(&target)?;
        let Some(mut source) = s.feedback.remove(&source_id) else {
            return Ok(MergeOutcome::Missing);
        };
        let (votes, comments, follows) = (
            std::mem::take(&mut source.votes),
            std::mem::take(&mut source.comments),
            std::mem::take(&mut source.follows),
        );
        s.feedback.insert(source_id, source);
        if let Some(target) = s.row_mut(team, target_id) {
            for mut vote in votes {
                if !target
                    .votes
                    .iter()
                    .any(|v| v.subscriber_id == vote.subscriber_id)
                {
                    vote.feedback_id = target_id;
                    target.votes.push(vote);
                }
            }
            for mut comment in comments {
                comment.feedback_id = target_id;
                target.comments.push(comment);
            }
            for follow in follows {
                target.follows.follow(follow.subscriber, follow.since);
            }
        }
        let (Some(target), Some(source)) = (s.row(team, target_id), s.row(team, source_id)) else {
            return Ok(MergeOutcome::Missing);
        };
        let (target, source) = (s.feedback_view(target), s.feedback_view(source));
        s.append(&events(&target, &source));
        Ok(MergeOutcome::Merged {
            target: Box::new(target),
            source: Box::new(source),
        })
    }

    async fn count_feedback(
        &self,
        team: TeamId,
        board: Option<BoardId>,
    ) -> StoreResult<FeedbackCounts> {
        let s = self.state();
        let mut counts = FeedbackCounts::default();
        for row in s.feedback.values() {
            let f = &row.feedback;
            if f.team_id == team && board.is_none_or(|b| f.board_id == Some(b)) {
                counts.add(f.status, f.archived_at.is_some(), 1);
            }
        }
        Ok(counts)
    }
}
