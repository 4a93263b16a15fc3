//! Roadmap and stage use cases: the team's administration (`roadmaps.*`, `stages.create|
//! update|delete`, admin role) and the public stage reads (`stages.list`, `stages.info`).

mod admin;
mod stages;

pub use admin::{
    create_roadmap, delete_roadmap, list_roadmaps, roadmap_info, update_roadmap, InlineStageInput,
    RoadmapInput,
};
pub use stages::{
    create_stage, delete_stage, list_stages, stage_info, update_stage, StageInfoInput, StageInput,
    DEFAULT_TOPICS_LIMIT,
};

use sounding_domain::{ports::RoadmapStore, roadmap::Roadmap, Entity, RoadmapId, TeamId};

use crate::error::{AppError, AppResult};

/// The team's roadmap named by `raw` in `field` (required): 400 when malformed, 404 when not
/// the team's.
pub(crate) async fn team_roadmap(
    store: &(impl RoadmapStore + ?Sized),
    team: TeamId,
    field: &str,
    raw: Option<&str>,
) -> AppResult<Roadmap> {
    let id = RoadmapId::parse_required(field, raw)?;
    store
        .roadmap(team, id)
        .await?
        .ok_or(AppError::not_found(Entity::Roadmap))
}
