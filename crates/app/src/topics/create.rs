//! `public/topics.create`: a subscriber (token), or an anonymous visitor through the team's
//! key when the team allows anonymous feedback, proposes a topic on a public stage; and the
//! team's `topics.create` (API key): the key's user creates a topic on any stage, private
//! ones included, published at once.

use rand::thread_rng;
use serde_json::Value;
use sounding_domain::{
    access::{Caller, KeyHolder, Need},
    event::EventKind,
    names,
    ports::{AccessStore, Clock, Conflict, RoadmapStore, SubscriberStore, TeamStore, TopicStore},
    stage::Stage,
    subscriber::{Identify, Subscriber, SubscriberSource},
    topic::{topic_title, StageRef, Topic, TopicDraft, TopicView},
    Entity, RoadmapId, StageId, SubscriberId, Timestamp, TopicId,
};

use super::topic_event;
use crate::{
    error::{AppError, AppResult},
    feedback::team_author,
    roadmaps::team_roadmap,
    url_id::insert_with_fresh_url_id,
    Literal,
};

/// `public/topics.create` as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct NewTopicInput {
    /// `roadmapId`: a roadmap of the team; required.
    pub roadmap_id: Option<String>,
    /// `stageId`: a stage of that roadmap; required. A private one is refused with `cannot
    /// publish a topic of private stage`.
    pub stage_id: Option<String>,
    /// Required (`title is required` otherwise); trimmed, at most 255 characters.
    pub title: Option<String>,
    /// A summary, at most 50,000 characters; the title when absent or blank.
    pub description: Option<String>,
    /// Full details, at most 50,000 characters; empty when absent.
    pub text: Option<String>,
    /// Only `ctaTitle`, `ctaLink`, `ctaImage`, `description`, `feedback` and `projectId` are
    /// kept; other keys are dropped.
    pub meta: Option<Value>,
    /// Anonymous creation only: the visitor's name and e-mail.
    pub name: Option<String>,
    /// Anonymous only: the creator is the team's subscriber with this e-mail (created when new,
    /// never renamed); without it, a new subscriber named `name`, or at random.
    pub email: Option<String>,
}

/// Team `topics.create` as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct TeamTopicInput {
    /// When given, the stage must be on this roadmap.
    pub roadmap_id: Option<String>,
    /// `stageId`: any stage of the team, private ones included; required.
    pub stage_id: Option<String>,
    /// Required; trimmed, at most 255 characters.
    pub title: Option<String>,
    /// A summary, at most 50,000 characters; the title when absent or blank.
    pub description: Option<String>,
    /// Full details, at most 50,000 characters; empty when absent.
    pub text: Option<String>,
    /// Only `ctaTitle`, `ctaLink`, `ctaImage`, `description`, `feedback` and `projectId` are
    /// kept; other keys are dropped.
    pub meta: Option<Value>,
}

/// Who creates the topic: an existing subscriber, or one to insert with the topic.
enum Creator {
    Known(Subscriber),
    New(Subscriber),
}

/// `public/topics.create`: the new topic (counts 0), unpublished when the team moderates and
/// the stage does not opt out; emits `topics.create`. `Bad request` for a team key when the
/// team disallows anonymous topics; 404 for an unknown roadmap or stage.
pub async fn create_topic(
    store: &(impl TeamStore + SubscriberStore + RoadmapStore + TopicStore + ?Sized),
    clock: &dyn Clock,
    caller: &Caller,
    input: NewTopicInput,
) -> AppResult<TopicView> {
    // A key creating an anonymous topic writes: read-only keys are refused.
    if let Caller::Team(holder) = caller {
        holder.require(Need::Write)?;
    }
    let team = store
        .team(caller.team_id())
        .await?
        .ok_or(AppError::not_found(Entity::Team))?;
    if matches!(caller, Caller::Team(_)) && !team.allow_anonymous_feedback {
        return Err(Literal::BadRequest.into());
    }
    let title = topic_title(input.title.as_deref())?.ok_or(Literal::TitleRequired)?;
    let draft = TopicDraft::new(
        title,
        input.description.as_deref(),
        input.text.as_deref(),
        input.meta.as_ref(),
    )?;
    let author = match caller {
        Caller::Subscriber(session) => Author::Session(session.subscriber.clone()),
        Caller::Team(_) => anonymous_author(&input)?,
        Caller::Visitor(_) => return Err(Literal::BadRequest.into()),
    };
    let roadmap = team_roadmap(store, team.id, "roadmapId", input.roadmap_id.as_deref()).await?;
    let stage_id = StageId::parse_required("stageId", input.stage_id.as_deref())?;
    let stage = store
        .stage(team.id, stage_id)
        .await?
        .filter(|s| s.stage.roadmap_id == roadmap.id)
        .ok_or(AppError::not_found(Entity::Stage))?
        .stage;
    if stage.meta.is_private {
        return Err(Literal::PrivateStageTopic.into());
    }

    let now = clock.now();
    let creator = match author {
        Author::Session(subscriber) => Creator::Known(subscriber),
        // An anonymous visitor names an existing subscriber, never renames them.
        Author::Email(identify) => {
            match store
                .subscriber_by_email(team.id, identify.email.as_str())
                .await?
            {
                Some(existing) => Creator::Known(existing),
                None => Creator::Known(store.identify(team.id, &identify, now).await?.0),
            }
        }
        Author::Nameless(name) => Creator::New(anonymous_subscriber(team.id, name, now)),
    };
    let creator_id: SubscriberId = match &creator {
        Creator::Known(s) | Creator::New(s) => s.id,
    };
    let moderated = team.public_board_moderation && !stage.meta.disable_moderation;
    let view = new_topic(&stage, draft, creator_id, (!moderated).then_some(now), now);
    let new_creator = match creator {
        Creator::New(s) => Some(s),
        Creator::Known(_) => None,
    };
    insert(store, view, new_creator, now).await
}

/// Team `topics.create`: the creator is the subscriber standing for the key's user (as for
/// team `feedbacks.create` without `creatorEmail`); any stage of the team, private ones
/// included; published at once. Emits `topics.create`.
pub async fn create_team_topic(
    store: &(impl AccessStore + SubscriberStore + RoadmapStore + TopicStore + ?Sized),
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: TeamTopicInput,
) -> AppResult<TopicView> {
    caller.require(Need::Write)?;
    let title = sounding_domain::text::required(
        "title",
        input.title.as_deref(),
        sounding_domain::text::TITLE_MAX,
    )?;
    let draft = TopicDraft::new(
        title,
        input.description.as_deref(),
        input.text.as_deref(),
        input.meta.as_ref(),
    )?;
    let roadmap_id = input
        .roadmap_id
        .as_deref()
        .map(|raw| RoadmapId::parse("roadmapId", raw))
        .transpose()?;
    let stage_id = StageId::parse_required("stageId", input.stage_id.as_deref())?;
    if let Some(roadmap_id) = roadmap_id {
        store
            .roadmap(caller.team_id, roadmap_id)
            .await?
            .ok_or(AppError::not_found(Entity::Roadmap))?;
    }
    let stage = store
        .stage(caller.team_id, stage_id)
        .await?
        .filter(|s| roadmap_id.is_none_or(|r| s.stage.roadmap_id == r))
        .ok_or(AppError::not_found(Entity::Stage))?
        .stage;
    let now = clock.now();
    let creator = team_author(store, caller, None, now).await?;
    let view = new_topic(&stage, draft, creator.id, Some(now), now);
    insert(store, view, None, now).await
}

/// A new topic on `stage`, counts 0.
fn new_topic(
    stage: &Stage,
    draft: TopicDraft,
    creator: SubscriberId,
    published_at: Option<Timestamp>,
    now: Timestamp,
) -> TopicView {
    TopicView {
        topic: Topic {
            id: TopicId::new(),
            team_id: stage.team_id,
            roadmap_id: stage.roadmap_id,
            stage_id: stage.id,
            url_id: String::new(),
            title: draft.title,
            description: draft.description,
            text: draft.text,
            subscriber_id: creator,
            meta: draft.meta,
            visits: 0,
            published_at,
            created_at: now,
            updated_at: now,
        },
        stage: StageRef {
            id: stage.id,
            name: stage.name.clone(),
            order: stage.order,
            is_private: stage.meta.is_private,
        },
        vote_count: 0,
        comment_count: 0,
    }
}

/// Inserts the topic (and its new creator, when given) with its `topics.create` event,
/// drawing another `urlId` when the team already has the one drawn.
async fn insert(
    store: &(impl TopicStore + ?Sized),
    view: TopicView,
    new_creator: Option<Subscriber>,
    now: Timestamp,
) -> AppResult<TopicView> {
    Ok(insert_with_fresh_url_id(Conflict::TopicUrlId, |url_id| {
        let mut view = view.clone();
        view.topic.url_id = url_id;
        let (events, creator) = (
            [topic_event(EventKind::TopicsCreate, &view, now)],
            new_creator.clone(),
        );
        async move {
            store
                .insert_topic(&view.topic, creator, &events)
                .await
                .map(|()| view)
        }
    })
    .await?)
}

/// Who the caller says the author is, validated before anything is written.
enum Author {
    /// The subscriber of the token.
    Session(Subscriber),
    /// An anonymous visitor who gave an e-mail: found or created by it.
    Email(Identify),
    /// An anonymous visitor without e-mail: a new subscriber with this name (random when none).
    Nameless(Option<String>),
}

fn anonymous_author(input: &NewTopicInput) -> AppResult<Author> {
    let email = input.email.as_deref().filter(|e| !e.trim().is_empty());
    match email {
        Some(email) => Ok(Author::Email(Identify::new(
            Some(email),
            input.name.as_deref(),
            None,
            None,
            Some("widget"),
        )?)),
        None => {
            let name = sounding_domain::text::optional(
                "name",
                input.name.as_deref(),
                sounding_domain::text::NAME_MAX,
            )?
            .filter(|n| !n.is_empty());
            Ok(Author::Nameless(name))
        }
    }
}

fn anonymous_subscriber(
    team: sounding_domain::TeamId,
    name: Option<String>,
    now: sounding_domain::Timestamp,
) -> Subscriber {
    Subscriber {
        id: SubscriberId::new(),
        team_id: team,
        name: name.unwrap_or_else(|| names::random_name(&mut thread_rng())),
        email: None,
        source: SubscriberSource::Widget,
        meta: Default::default(),
        attributes: Default::default(),
        avatar_url: None,
        token_version: 0,
        created_at: now,
        last_updated: now,
    }
}
