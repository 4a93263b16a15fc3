//! Stages: `stages.create|update|delete` (admin role) keep orders 1, 2, 3… without gaps;
//! `stages.list` and `stages.info` are public reads in which private stages exist only for
//! team members.

use serde_json::Value;
use sounding_domain::{
    access::{AdminArea, Caller, KeyHolder, Need},
    feedback_comment::Direction,
    page::{PageRequest, Paged},
    ports::{Clock, Conflict, RoadmapStore, StoreError, TopicStore},
    stage::{parse_order, stage_name, Stage, StageMetaPatch, StageView},
    topic::{TopicQuery, TopicSort, TopicView},
    DomainError, Entity, StageId,
};

use super::team_roadmap;
use crate::error::{AppError, AppResult};

/// Topics per page of `stages.info` when the caller does not say (interface §8).
pub const DEFAULT_TOPICS_LIMIT: i64 = 50;

/// `stages.create` and `stages.update` as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct StageInput {
    /// Update only: the stage's UUID; required there.
    pub id: Option<String>,
    /// `roadmapId`, create only: the team's roadmap the stage joins; required there.
    pub roadmap_id: Option<String>,
    /// Trimmed, at most 255 characters; required on create, not blank on update.
    pub name: Option<String>,
    /// The 1-based position to put the stage at, 1 or more (past the end means last); on create,
    /// last when absent, on update, where it is.
    pub order: Option<i64>,
    /// An object of `isPrivate`, `disableModeration` (booleans) and `color` (`#RRGGBB`), merged
    /// into the stage's; a new stage is as private as its roadmap unless it says otherwise.
    pub meta: Option<Value>,
}

/// `stages.info` as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct StageInfoInput {
    /// `stageId`: the stage's UUID; required.
    pub stage_id: Option<String>,
    /// Topics per page, 1 to 100 (more is clamped to 100); 50 when absent.
    pub limit: Option<i64>,
    /// Topics to skip, 0 or more; 0 when absent.
    pub offset: Option<i64>,
    /// `createdAt` (the default), `updatedAt`, `title` or `voteCount`.
    pub sort: Option<String>,
    /// `ASC` or `DESC` (the default), in any case.
    pub direction: Option<String>,
}

fn stage_not_found() -> AppError {
    AppError::not_found(Entity::Stage)
}

/// `stages.create`: the new stage at its place in the roadmap, the others renumbered. Owners
/// and admins only (403); 404 when the team has no such roadmap.
pub async fn create_stage(
    store: &dyn RoadmapStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: StageInput,
) -> AppResult<Stage> {
    caller.require(Need::Admin(AdminArea::Stages))?;
    let name = stage_name(input.name.as_deref())?;
    let position = parse_order(input.order)?;
    let patch = StageMetaPatch::from_json(input.meta.as_ref())?;
    let roadmap = team_roadmap(
        store,
        caller.team_id,
        "roadmapId",
        input.roadmap_id.as_deref(),
    )
    .await?;
    let now = clock.now();
    let meta = patch.for_new_stage(roadmap.is_private);
    let stage = Stage {
        id: StageId::new(),
        team_id: caller.team_id,
        roadmap_id: roadmap.id,
        name,
        order: position.unwrap_or(0),
        meta,
        created_at: now,
        updated_at: now,
    };
    store
        .insert_stage(&stage, position)
        .await?
        .ok_or(AppError::not_found(Entity::Roadmap))
}

/// `stages.update {id, …}`: the stage after renaming, moving or merging its meta. Owners and
/// admins only (403); 404 when the team has no such stage.
pub async fn update_stage(
    store: &dyn RoadmapStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: StageInput,
) -> AppResult<Stage> {
    caller.require(Need::Admin(AdminArea::Stages))?;
    let id = StageId::parse_required("id", input.id.as_deref())?;
    let name = input
        .name
        .as_deref()
        .map(|n| stage_name(Some(n)))
        .transpose()?;
    let position = parse_order(input.order)?;
    let patch = StageMetaPatch::from_json(input.meta.as_ref())?;
    let now = clock.now();
    let edited = store
        .edit_stage(
            caller.team_id,
            id,
            position,
            Box::new(move |stage| {
                stage.revise(name, patch, position.is_some(), now);
                Ok(Vec::new())
            }),
        )
        .await?;
    Ok(edited.into_result(Entity::Stage)?)
}

/// Removes a stage and closes the gap in the order. While it holds topics: 409 unless `force`.
pub async fn delete_stage(
    store: &dyn RoadmapStore,
    caller: &KeyHolder,
    id: Option<&str>,
    force: bool,
) -> AppResult<StageId> {
    caller.require(Need::Admin(AdminArea::Stages))?;
    let id = StageId::parse_required("id", id)?;
    match store.delete_stage(caller.team_id, id, force).await {
        Ok(true) => Ok(id),
        Ok(false) => Err(stage_not_found()),
        Err(StoreError::Conflict(Conflict::StageNotEmpty)) => {
            Err(AppError::Domain(DomainError::Conflict(
                "Stage still holds topics; move them, or pass force: true to delete them too"
                    .into(),
            )))
        }
        Err(e) => Err(e.into()),
    }
}

/// The roadmap's stages by order; private ones only when asked for by a team member.
pub async fn list_stages(
    store: &dyn RoadmapStore,
    caller: &Caller,
    roadmap_id: Option<&str>,
    include_private: bool,
) -> AppResult<Vec<StageView>> {
    let roadmap = team_roadmap(store, caller.team_id(), "roadmapId", roadmap_id).await?;
    let include_private = include_private && caller.is_team_member();
    Ok(store
        .stages(caller.team_id(), roadmap.id, include_private)
        .await?)
}

/// A stage with one page of its published topics. A private stage is not found for callers
/// who are not team members.
pub async fn stage_info(
    store: &(impl RoadmapStore + TopicStore + ?Sized),
    caller: &Caller,
    input: StageInfoInput,
) -> AppResult<(StageView, Paged<TopicView>)> {
    let id = StageId::parse_required("stageId", input.stage_id.as_deref())?;
    let page = PageRequest::new(input.limit, input.offset, DEFAULT_TOPICS_LIMIT)?;
    let sort = input
        .sort
        .as_deref()
        .map(TopicSort::parse)
        .transpose()?
        .unwrap_or_default();
    let direction = input
        .direction
        .as_deref()
        .map(Direction::parse)
        .transpose()?
        .unwrap_or(Direction::Desc);
    let view = store
        .stage(caller.team_id(), id)
        .await?
        .ok_or_else(stage_not_found)?;
    if view.stage.meta.is_private && !caller.is_team_member() {
        return Err(stage_not_found());
    }
    let query = TopicQuery {
        roadmap_id: None,
        stage_id: Some(id),
        published_only: true,
        sort,
        direction,
        page,
    };
    let topics = store.list_topics(caller.team_id(), &query).await?;
    Ok((view, topics))
}
