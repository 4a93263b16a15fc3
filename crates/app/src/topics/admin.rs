//! The team's topic operations: `topics.list` (unpublished included), `topics.update`
//! (content, moving between stages, publishing) and `topics.delete`.

use serde_json::Value;
use sounding_domain::text::parse_given;
use sounding_domain::{
    access::{KeyHolder, Need},
    event::EventKind,
    feedback_comment::Direction,
    page::{PageRequest, Paged},
    ports::{Clock, RoadmapStore, TopicStore},
    topic::{StageRef, TopicPatch, TopicQuery, TopicSort, TopicView},
    Entity, RoadmapId, StageId, TopicId,
};

use super::{topic_event, topic_not_found};
use crate::{
    error::{AppError, AppResult},
    notifications::notify,
};

/// Topics per page of `topics.list` when the caller does not say.
pub const DEFAULT_LIMIT: i64 = 50;

/// The body of `topics.list`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct TopicListInput {
    /// `roadmapId`: only topics of this roadmap.
    pub roadmap_id: Option<String>,
    /// `stageId`: only topics in this stage.
    pub stage_id: Option<String>,
    /// Page size, 1 to 100 (more is clamped to 100); 50 when absent.
    pub limit: Option<i64>,
    /// Topics to skip, 0 or more; 0 when absent.
    pub offset: Option<i64>,
    /// `createdAt` (the default), `updatedAt`, `title` or `voteCount`.
    pub sort: Option<String>,
    /// `ASC` or `DESC` (the default), in any case.
    pub direction: Option<String>,
}

/// The body of `topics.update`, as the client sends it; absent fields stay.
#[derive(Debug, Clone, Default)]
pub struct TopicChanges {
    /// The topic's UUID; required.
    pub id: Option<String>,
    /// A new title: not blank, at most 255 characters after trimming.
    pub title: Option<String>,
    /// A new summary, at most 50,000 characters.
    pub description: Option<String>,
    /// New full details, at most 50,000 characters.
    pub text: Option<String>,
    /// Moves the topic to this stage (of any roadmap of the team).
    pub stage_id: Option<String>,
    /// Merged into the topic's meta; only `ctaTitle`, `ctaLink`, `ctaImage`, `description`,
    /// `feedback` and `projectId` are kept.
    pub meta: Option<Value>,
    /// `true` publishes a topic held for moderation; `false` takes it back.
    pub publish: Option<bool>,
}

/// `topics.list`: a page of the team's topics, unpublished and private-stage ones included.
/// Any key.
pub async fn list_topics(
    store: &dyn TopicStore,
    caller: &KeyHolder,
    input: TopicListInput,
) -> AppResult<Paged<TopicView>> {
    caller.require(Need::Read)?;
    let query = TopicQuery {
        roadmap_id: input
            .roadmap_id
            .as_deref()
            .map(|raw| RoadmapId::parse("roadmapId", raw))
            .transpose()?,
        stage_id: input
            .stage_id
            .as_deref()
            .map(|raw| StageId::parse("stageId", raw))
            .transpose()?,
        published_only: false,
        sort: parse_given(input.sort.as_deref(), TopicSort::parse)?.unwrap_or_default(),
        direction: parse_given(input.direction.as_deref(), Direction::parse)?
            .unwrap_or(Direction::Desc),
        page: PageRequest::new(input.limit, input.offset, DEFAULT_LIMIT)?,
    };
    Ok(store.list_topics(caller.team_id, &query).await?)
}

/// `topics.update`: the topic after the change; a real change emits `topics.update`, and a
/// move to another stage notifies its followers. Any key but a read-only one (403); 404 for
/// a topic or stage the team does not have.
pub async fn update_topic(
    store: &(impl RoadmapStore + TopicStore + ?Sized),
    clock: &dyn Clock,
    caller: &KeyHolder,
    changes: TopicChanges,
) -> AppResult<TopicView> {
    caller.require(Need::Write)?;
    let id = TopicId::parse_required("id", changes.id.as_deref())?;
    let patch = TopicPatch::new(
        changes.title.as_deref(),
        changes.description.as_deref(),
        changes.text.as_deref(),
        changes.meta.as_ref(),
    )?;
    let target = match changes.stage_id.as_deref() {
        Some(raw) => {
            let stage_id = StageId::parse("stageId", raw)?;
            Some(
                store
                    .stage(caller.team_id, stage_id)
                    .await?
                    .ok_or(AppError::not_found(Entity::Stage))?
                    .stage,
            )
        }
        None => None,
    };
    let now = clock.now();
    let publish = changes.publish;
    // Decided on the topic as stored, inside the write (`crate::edit` in the domain).
    let edited = store
        .edit_topic(
            caller.team_id,
            id,
            Box::new(move |view| {
                let before = view.clone();
                patch.apply(&mut view.topic, now)?;
                // A move to another stage is the topic's status change: its followers hear
                // of it.
                let previous_stage = target
                    .as_ref()
                    .filter(|stage| stage.id != view.topic.stage_id)
                    .map(|_| view.stage.name.clone());
                if let Some(stage) = target {
                    view.topic.stage_id = stage.id;
                    view.topic.roadmap_id = stage.roadmap_id;
                    view.stage = StageRef {
                        id: stage.id,
                        name: stage.name,
                        order: stage.order,
                        is_private: stage.meta.is_private,
                    };
                }
                match publish {
                    Some(true) if view.topic.published_at.is_none() => {
                        view.topic.published_at = Some(now)
                    }
                    Some(false) => view.topic.published_at = None,
                    _ => {}
                }
                if *view == before {
                    return Ok(Vec::new());
                }
                view.topic.updated_at = now;
                let mut event = topic_event(EventKind::TopicsUpdate, view, now);
                if let Some(previous) = previous_stage {
                    event = event.notifying(notify::topic_stage(view, &previous));
                }
                Ok(vec![event])
            }),
        )
        .await?;
    Ok(edited.into_result(Entity::Topic)?)
}

/// Removes a topic with its comments, votes, follows and visits.
pub async fn delete_topic(
    store: &dyn TopicStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<TopicId> {
    caller.require(Need::Write)?;
    let id = TopicId::parse_required("id", id)?;
    if store.delete_topic(caller.team_id, id, &[]).await? {
        Ok(id)
    } else {
        Err(topic_not_found())
    }
}
