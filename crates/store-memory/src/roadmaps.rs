//! `RoadmapStore` in memory: roadmaps and their stages, whose orders every insert, move and
//! delete renumbers 1, 2, 3… (`sounding_domain::stage::place`) under the store's one lock.

use async_trait::async_trait;
use sounding_domain::{
    edit::{self, Edit, Edited},
    ids::{RoadmapId, StageId, TeamId},
    ports::{Conflict, RoadmapStore, StoreError, StoreResult},
    roadmap::Roadmap,
    stage::{self, Stage, StageView},
};

use crate::{feedback::count, MemoryStore, State};

/// The order stages are read in: `order`, then creation, then id.
fn stage_order(a: &Stage, b: &Stage) -> std::cmp::Ordering {
    a.order
        .cmp(&b.order)
        .then(a.created_at.cmp(&b.created_at))
        .then(a.id.cmp(&b.id))
}

impl State {
    fn team_roadmap(&self, team: TeamId, id: RoadmapId) -> Option<&Roadmap> {
        self.roadmaps.get(&id).filter(|r| r.team_id == team)
    }

    pub(crate) fn team_stage(&self, team: TeamId, id: StageId) -> Option<&Stage> {
        self.stages.get(&id).filter(|s| s.team_id == team)
    }

    /// The roadmap's stage ids in their current order.
    fn ordered_stage_ids(&self, roadmap: RoadmapId) -> Vec<StageId> {
        let mut stages: Vec<&Stage> = self
            .stages
            .values()
            .filter(|s| s.roadmap_id == roadmap)
            .collect();
        stages.sort_by(|a, b| stage_order(a, b));
        stages.into_iter().map(|s| s.id).collect()
    }

    /// Writes `order = index + 1` for the roadmap's stages in this sequence.
    fn renumber(&mut self, ordered: &[StageId]) {
        for (index, id) in ordered.iter().enumerate() {
            if let Some(stage) = self.stages.get_mut(id) {
                stage.order = count(index + 1);
            }
        }
    }

    fn stage_view(&self, stage: &Stage) -> StageView {
        let published = self
            .topics
            .values()
            .filter(|row| row.topic.stage_id == stage.id && row.topic.published_at.is_some())
            .count();
        StageView {
            stage: stage.clone(),
            topic_count: count(published),
        }
    }
}

#[async_trait]
impl RoadmapStore for MemoryStore {
    async fn insert_roadmap(&self, roadmap: &Roadmap, stages: &[Stage]) -> StoreResult<()> {
        let mut s = self.state();
        s.roadmaps.insert(roadmap.id, roadmap.clone());
        for (stage, order) in stages.iter().zip(1..) {
            s.stages.insert(
                stage.id,
                Stage {
                    order,
                    ..stage.clone()
                },
            );
        }
        Ok(())
    }

    async fn roadmaps(&self, team: TeamId) -> StoreResult<Vec<Roadmap>> {
        let mut roadmaps: Vec<Roadmap> = self
            .state()
            .roadmaps
            .values()
            .filter(|r| r.team_id == team)
            .cloned()
            .collect();
        roadmaps.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        Ok(roadmaps)
    }

    async fn roadmap(&self, team: TeamId, id: RoadmapId) -> StoreResult<Option<Roadmap>> {
        Ok(self.state().team_roadmap(team, id).cloned())
    }

    async fn edit_roadmap(
        &self,
        team: TeamId,
        id: RoadmapId,
        edit: Edit<Roadmap>,
    ) -> StoreResult<Edited<Roadmap>> {
        let mut s = self.state();
        let found = s.team_roadmap(team, id).cloned();
        edit::run(found, edit, |_, after, _| {
            s.roadmaps.insert(id, after.clone());
            Ok(())
        })
    }

    async fn delete_roadmap(&self, team: TeamId, id: RoadmapId, force: bool) -> StoreResult<bool> {
        let mut s = self.state();
        if s.team_roadmap(team, id).is_none() {
            return Ok(false);
        }
        let holds_topics = s.topics.values().any(|row| row.topic.roadmap_id == id);
        if holds_topics && !force {
            return Err(StoreError::Conflict(Conflict::RoadmapNotEmpty));
        }
        s.topics.retain(|_, row| row.topic.roadmap_id != id);
        s.stages.retain(|_, stage| stage.roadmap_id != id);
        s.roadmaps.remove(&id);
        Ok(true)
    }

    async fn insert_stage(
        &self,
        stage: &Stage,
        position: Option<i64>,
    ) -> StoreResult<Option<Stage>> {
        let mut s = self.state();
        if s.team_roadmap(stage.team_id, stage.roadmap_id).is_none() {
            return Ok(None);
        }
        let ordered = stage::place(&s.ordered_stage_ids(stage.roadmap_id), stage.id, position);
        s.stages.insert(stage.id, stage.clone());
        s.renumber(&ordered);
        Ok(s.stages.get(&stage.id).cloned())
    }

    async fn stages(
        &self,
        team: TeamId,
        roadmap: RoadmapId,
        include_private: bool,
    ) -> StoreResult<Vec<StageView>> {
        let s = self.state();
        let mut stages: Vec<&Stage> = s
            .stages
            .values()
            .filter(|st| {
                st.team_id == team
                    && st.roadmap_id == roadmap
                    && (include_private || !st.meta.is_private)
            })
            .collect();
        stages.sort_by(|a, b| stage_order(a, b));
        Ok(stages.into_iter().map(|st| s.stage_view(st)).collect())
    }

    async fn stage(&self, team: TeamId, id: StageId) -> StoreResult<Option<StageView>> {
        let s = self.state();
        Ok(s.team_stage(team, id).map(|st| s.stage_view(st)))
    }

    async fn edit_stage(
        &self,
        team: TeamId,
        id: StageId,
        position: Option<i64>,
        edit: Edit<Stage>,
    ) -> StoreResult<Edited<Stage>> {
        let mut s = self.state();
        let Some(found) = s.team_stage(team, id).cloned() else {
            return Ok(Edited::Gone);
        };
        let ordered = stage::place(&s.ordered_stage_ids(found.roadmap_id), id, position);
        let order = stage::order_of(&ordered, id);
        edit::run(Some(found), stage::placed(edit, order), |_, after, _| {
            s.stages.insert(id, after.clone());
            s.renumber(&ordered);
            Ok(())
        })
    }

    async fn delete_stage(&self, team: TeamId, id: StageId, force: bool) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(roadmap) = s.team_stage(team, id).map(|st| st.roadmap_id) else {
            return Ok(false);
        };
        let holds_topics = s.topics.values().any(|row| row.topic.stage_id == id);
        if holds_topics && !force {
            return Err(StoreError::Conflict(Conflict::StageNotEmpty));
        }
        s.topics.retain(|_, row| row.topic.stage_id != id);
        s.stages.remove(&id);
        let ordered = s.ordered_stage_ids(roadmap);
        s.renumber(&ordered);
        Ok(true)
    }
}
