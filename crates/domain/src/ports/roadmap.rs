//! Roadmaps and their stages.

use crate::{
    edit::{Edit, Edited},
    ids::{RoadmapId, StageId, TeamId},
    ports::StoreResult,
    roadmap::Roadmap,
    stage::{Stage, StageView},
};
use async_trait::async_trait;

/// Roadmaps and their stages. Stage orders stay 1, 2, 3… within a roadmap: every insert,
/// move and delete renumbers the roadmap's stages in the same transaction
/// (`sounding_domain::stage::place`), serialized per roadmap.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait RoadmapStore: Send + Sync {
    /// Inserts the roadmap with its first `stages`, ordered 1, 2, 3… as given, in one
    /// transaction.
    async fn insert_roadmap(&self, roadmap: &Roadmap, stages: &[Stage]) -> StoreResult<()>;
    /// The team's roadmaps, oldest first.
    async fn roadmaps(&self, team: TeamId) -> StoreResult<Vec<Roadmap>>;
    /// The team's roadmap; `None` when the team has none with this id.
    async fn roadmap(&self, team: TeamId, id: RoadmapId) -> StoreResult<Option<Roadmap>>;
    /// Runs `edit` on the roadmap as stored, atomically (see `crate::edit`).
    async fn edit_roadmap(
        &self,
        team: TeamId,
        id: RoadmapId,
        edit: Edit<Roadmap>,
    ) -> StoreResult<Edited<Roadmap>>;
    /// Removes the roadmap and its stages; `false` when there was none. While it holds topics:
    /// conflict `roadmap_not_empty` unless `force`, which removes the topics too (with their
    /// comments, votes, follows and visits).
    async fn delete_roadmap(&self, team: TeamId, id: RoadmapId, force: bool) -> StoreResult<bool>;

    /// Inserts the stage at `position` (1-based, clamped; last when `None`), renumbering the
    /// others. Returns the stage as stored (its final `order`), or `None` when the roadmap is
    /// gone (nothing written).
    async fn insert_stage(
        &self,
        stage: &Stage,
        position: Option<i64>,
    ) -> StoreResult<Option<Stage>>;
    /// The roadmap's stages by `order`, with published-topic counts; private ones only when
    /// asked.
    async fn stages(
        &self,
        team: TeamId,
        roadmap: RoadmapId,
        include_private: bool,
    ) -> StoreResult<Vec<StageView>>;
    /// The team's stage, private or not, with its published-topic count; `None` when the team
    /// has none with this id.
    async fn stage(&self, team: TeamId, id: StageId) -> StoreResult<Option<StageView>>;
    /// Runs `edit` on the stage as stored, atomically (see `crate::edit`), and moves it to
    /// `position` when given (renumbering the others; the edit sees the stage's place before
    /// the move). A move alone is a change.
    async fn edit_stage(
        &self,
        team: TeamId,
        id: StageId,
        position: Option<i64>,
        edit: Edit<Stage>,
    ) -> StoreResult<Edited<Stage>>;
    /// Removes the stage and closes the gap; `false` when there was none. While it holds
    /// topics: conflict `stage_not_empty` unless `force`, which removes them too.
    async fn delete_stage(&self, team: TeamId, id: StageId, force: bool) -> StoreResult<bool>;
}
