//! `roadmaps.create|list|info|update|delete` (team API key; changes need the admin role).

use serde_json::Value;
use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    error::DomainResult,
    ports::{Clock, Conflict, RoadmapStore, StoreError},
    roadmap::{Roadmap, RoadmapPatch},
    stage::{stage_name, Stage, StageMetaPatch},
    DomainError, Entity, RoadmapId, StageId,
};

use super::team_roadmap;
use crate::error::{AppError, AppResult};

#[derive(Debug, Clone, Default)]
pub struct RoadmapInput {
    pub id: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    /// Create only: the roadmap's stages start private.
    pub is_private: Option<bool>,
    /// Create only: stages made with the roadmap, in this order.
    pub stages: Vec<InlineStageInput>,
}

/// A stage of `roadmaps.create {stages}`.
#[derive(Debug, Clone, Default)]
pub struct InlineStageInput {
    pub name: Option<String>,
    pub meta: Option<Value>,
}

pub async fn create_roadmap(
    store: &dyn RoadmapStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: RoadmapInput,
) -> AppResult<(Roadmap, Vec<Stage>)> {
    caller.require(Need::Admin(AdminArea::Roadmaps))?;
    let now = clock.now();
    let roadmap = Roadmap::new(
        caller.team_id,
        input.name.as_deref(),
        input.description.as_deref(),
        input.is_private.unwrap_or(false),
        now,
    )?;
    if input.stages.len() > MAX_INLINE_STAGES {
        return Err(DomainError::invalid(format!(
            "stages must hold at most {MAX_INLINE_STAGES} stages"
        ))
        .into());
    }
    let stages = input
        .stages
        .iter()
        .enumerate()
        .map(|(i, given)| {
            let at = |e: DomainError| e.within(&format!("stages[{i}]"));
            Ok(Stage {
                id: StageId::new(),
                team_id: caller.team_id,
                roadmap_id: roadmap.id,
                name: stage_name(given.name.as_deref()).map_err(at)?,
                order: i64::try_from(i).unwrap_or(i64::MAX) + 1,
                meta: StageMetaPatch::from_json(given.meta.as_ref())
                    .map_err(at)?
                    .for_new_stage(roadmap.is_private),
                created_at: now,
                updated_at: now,
            })
        })
        .collect::<DomainResult<Vec<Stage>>>()?;
    store.insert_roadmap(&roadmap, &stages).await?;
    Ok((roadmap, stages))
}

/// How many stages `roadmaps.create` takes inline; more are added with `stages.create`.
pub const MAX_INLINE_STAGES: usize = 50;

pub async fn list_roadmaps(
    store: &dyn RoadmapStore,
    caller: &KeyHolder,
) -> AppResult<Vec<Roadmap>> {
    caller.require(Need::Read)?;
    Ok(store.roadmaps(caller.team_id).await?)
}

pub async fn roadmap_info(
    store: &dyn RoadmapStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<Roadmap> {
    caller.require(Need::Read)?;
    team_roadmap(store, caller.team_id, "id", id).await
}

pub async fn update_roadmap(
    store: &dyn RoadmapStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: RoadmapInput,
) -> AppResult<Roadmap> {
    caller.require(Need::Admin(AdminArea::Roadmaps))?;
    let id = RoadmapId::parse_required("id", input.id.as_deref())?;
    let patch = RoadmapPatch::new(input.name.as_deref(), input.description.as_deref())?;
    let now = clock.now();
    let edited = store
        .edit_roadmap(
            caller.team_id,
            id,
            Box::new(move |roadmap| {
                roadmap.apply(patch, now);
                Ok(Vec::new())
            }),
        )
        .await?;
    Ok(edited.into_result(Entity::Roadmap)?)
}

/// Removes a roadmap with its stages. While it holds topics: 409 unless `force`, which removes
/// the topics too.
pub async fn delete_roadmap(
    store: &dyn RoadmapStore,
    caller: &KeyHolder,
    id: Option<&str>,
    force: bool,
) -> AppResult<RoadmapId> {
    caller.require(Need::Admin(AdminArea::Roadmaps))?;
    let id = RoadmapId::parse_required("id", id)?;
    match store.delete_roadmap(caller.team_id, id, force).await {
        Ok(true) => Ok(id),
        Ok(false) => Err(AppError::not_found(Entity::Roadmap)),
        Err(StoreError::Conflict(Conflict::RoadmapNotEmpty)) => {
            Err(AppError::Domain(DomainError::Conflict(
                "Roadmap still holds topics; delete them first or pass force: true".into(),
            )))
        }
        Err(e) => Err(e.into()),
    }
}
