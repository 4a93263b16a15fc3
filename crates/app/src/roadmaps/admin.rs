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

/// The body of `roadmaps.create` and `roadmaps.update`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct RoadmapInput {
    /// Update only: the roadmap's UUID; required there.
    pub id: Option<String>,
    /// Trimmed, at most 255 characters; required on create, not blank on update.
    pub name: Option<String>,
    /// Free text, at most 50,000 characters; empty on create when absent.
    pub description: Option<String>,
    /// Create only: the roadmap's stages start private.
    pub is_private: Option<bool>,
    /// Create only: stages made with the roadmap, in this order.
    pub stages: Vec<InlineStageInput>,
}

/// A stage of `roadmaps.create {stages}`.
#[derive(Debug, Clone, Default)]
pub struct InlineStageInput {
    /// The stage's name; required, trimmed, at most 255 characters.
    pub name: Option<String>,
    /// An object of `isPrivate`, `disableModeration` (booleans) and `color` (`#RRGGBB`); the
    /// stage is as private as its roadmap unless `isPrivate` says otherwise.
    pub meta: Option<Value>,
}

/// `roadmaps.create`: the roadmap and its inline stages, ordered 1, 2, 3…. Owners and admins
/// only (403); 400 naming the field (`stages[0].name is required`) for a bad stage, or over
/// 50 stages.
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

/// `roadmaps.list`: the team's roadmaps, oldest first. Any key.
pub async fn list_roadmaps(
    store: &dyn RoadmapStore,
    caller: &KeyHolder,
) -> AppResult<Vec<Roadmap>> {
    caller.require(Need::Read)?;
    Ok(store.roadmaps(caller.team_id).await?)
}

/// `roadmaps.info {id}`: one of the team's roadmaps. Any key; 404 when the team has none by
/// that id.
pub async fn roadmap_info(
    store: &dyn RoadmapStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<Roadmap> {
    caller.require(Need::Read)?;
    team_roadmap(store, caller.team_id, "id", id).await
}

/// `roadmaps.update {id, name?, description?}`: the roadmap after the change. Owners and
/// admins only (403); 404 when the team has no such roadmap.
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
