//! `roadmaps.create|list|info|update|delete` (team API key; changes need the admin role).

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    ports::{conflicts, Clock, Store, StoreError},
    roadmap::{Roadmap, RoadmapPatch},
    DomainError, Entity, RoadmapId,
};

use super::team_roadmap;
use crate::error::{AppError, AppResult};

#[derive(Debug, Clone, Default)]
pub struct RoadmapInput {
    pub id: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
}

pub async fn create_roadmap(
    store: &dyn Store,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: RoadmapInput,
) -> AppResult<Roadmap> {
    caller.require(Need::Admin(AdminArea::Roadmaps))?;
    let roadmap = Roadmap::new(
        caller.team_id,
        input.name.as_deref(),
        input.description.as_deref(),
        clock.now(),
    )?;
    store.insert_roadmap(&roadmap).await?;
    Ok(roadmap)
}

pub async fn list_roadmaps(store: &dyn Store, caller: &KeyHolder) -> AppResult<Vec<Roadmap>> {
    caller.require(Need::Read)?;
    Ok(store.roadmaps(caller.team_id).await?)
}

pub async fn roadmap_info(
    store: &dyn Store,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<Roadmap> {
    caller.require(Need::Read)?;
    team_roadmap(store, caller.team_id, "id", id).await
}

pub async fn update_roadmap(
    store: &dyn Store,
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
    store: &dyn Store,
    caller: &KeyHolder,
    id: Option<&str>,
    force: bool,
) -> AppResult<RoadmapId> {
    caller.require(Need::Admin(AdminArea::Roadmaps))?;
    let id = RoadmapId::parse_required("id", id)?;
    match store.delete_roadmap(caller.team_id, id, force).await {
        Ok(true) => Ok(id),
        Ok(false) => Err(AppError::not_found(Entity::Roadmap)),
        Err(StoreError::Conflict(rule)) if rule == conflicts::ROADMAP_NOT_EMPTY => {
            Err(AppError::Domain(DomainError::Conflict(
                "Roadmap still holds topics; delete them first or pass force: true".into(),
            )))
        }
        Err(e) => Err(e.into()),
    }
}
