//! Roadmap, stage and topic shapes: the roadmap and stage objects, and the parameters and
//! replies of `roadmaps.*`, `stages.*`, `topics.*`, `topic-comments.*` and `topic-votes.*`.
//! Topic, topic comment and topic vote objects are `sounding_app::wire`'s.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sounding_app::{
    roadmaps::{InlineStageInput, RoadmapInput, StageInfoInput, StageInput},
    subscribers::OnBehalfInput,
    topics::{
        NewTopicInput, TeamTopicInput, TopicChanges, TopicCommentChanges, TopicCommentInput,
        TopicCommentListInput, TopicListInput,
    },
    wire::{TopicCommentJson, TopicJson, TopicVoteJson},
};
use sounding_domain::{
    page::Paged,
    roadmap::Roadmap,
    stage::{Stage, StageMeta},
    team::Team,
    topic::TopicView,
    topic_comment::CommentThread,
    RoadmapId, StageId, TeamId, Timestamp, TopicId,
};
use utoipa::ToSchema;

use super::common::{fold_flag_into_meta, Pagination};
use crate::{error::ApiError, params::lenient};

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoadmapDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: RoadmapId,
    pub name: String,
    pub description: String,
    #[schema(value_type = String, format = Uuid)]
    pub team_id: TeamId,
    /// Its new stages start private unless they say otherwise.
    pub is_private: bool,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: Timestamp,
}

impl From<&Roadmap> for RoadmapDto {
    fn from(r: &Roadmap) -> Self {
        Self {
            id: r.id,
            name: r.name.clone(),
            description: r.description.clone(),
            team_id: r.team_id,
            is_private: r.is_private,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// `{data: Roadmap, stages: [Stage]}`: `roadmaps.create`, with the stages made with it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RoadmapCreatedResponse {
    pub data: RoadmapDto,
    /// The stages given inline, in order (`[]` when none were).
    pub stages: Vec<StageDto>,
}

/// `{data: Roadmap}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RoadmapResponse {
    pub data: RoadmapDto,
}

/// `{data: [Roadmap], pagination}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RoadmapListResponse {
    pub data: Vec<RoadmapDto>,
    pub pagination: Pagination,
}

/// `roadmaps.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateRoadmapParams {
    /// 1..=255 characters after trimming.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 255, pattern = r"\S", example = "Public roadmap")]
    pub name: Option<String>,
    /// At most 50,000 characters.
    #[schema(max_length = 50000)]
    pub description: Option<String>,
    /// The roadmap's stages (inline and later ones) start private unless they say
    /// otherwise. Default false. Also read as `private` (Userorbit's spelling).
    #[serde(default, alias = "private", deserialize_with = "lenient::opt_bool")]
    pub is_private: Option<bool>,
    /// Stages created with the roadmap, in this order (at most 50).
    #[schema(max_items = 50)]
    pub stages: Option<Vec<InlineStageParams>>,
}

/// One stage of `roadmaps.create {stages}`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InlineStageParams {
    /// 1..=255 characters after trimming. Also read as `title`.
    #[serde(alias = "title")]
    #[schema(required = true, value_type = String, min_length = 1, max_length = 255, pattern = r"\S")]
    pub name: Option<String>,
    #[schema(value_type = Option<StageMetaParams>)]
    pub meta: Option<Value>,
    /// Userorbit's spelling of `meta.isPrivate`.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub private: Option<bool>,
}

impl TryFrom<CreateRoadmapParams> for RoadmapInput {
    type Error = ApiError;

    fn try_from(p: CreateRoadmapParams) -> Result<Self, ApiError> {
        let stages = p
            .stages
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                Ok(InlineStageInput {
                    name: s.name,
                    meta: fold_flag_into_meta(
                        s.meta,
                        s.private,
                        &format!("stages[{i}].private"),
                        "isPrivate",
                    )?,
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        Ok(Self {
            id: None,
            name: p.name,
            description: p.description,
            is_private: p.is_private,
            stages,
        })
    }
}

/// `roadmaps.update`: only the fields given change.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateRoadmapParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// 1..=255 characters after trimming.
    #[schema(min_length = 1, max_length = 255, pattern = r"\S")]
    pub name: Option<String>,
    /// At most 50,000 characters.
    #[schema(max_length = 50000)]
    pub description: Option<String>,
}

impl From<UpdateRoadmapParams> for RoadmapInput {
    fn from(p: UpdateRoadmapParams) -> Self {
        Self {
            id: p.id,
            name: p.name,
            description: p.description,
            ..Self::default()
        }
    }
}

/// `{id}`, and `force` for deletions.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct IdForceParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// Delete even while topics are in it (they go too). Default false.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub force: Option<bool>,
}

/// `{id}` of the team's single-thing reads.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct IdParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
}

/// Paging of the roadmap list.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct PageParams {
    /// 1..=100, default 100.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StageMetaDto {
    /// Visible to team members only; takes no public topics.
    pub is_private: bool,
    /// New public topics are published at once even when the team moderates.
    pub disable_moderation: bool,
    /// `#RRGGBB` or null.
    pub color: Option<String>,
}

impl From<&StageMeta> for StageMetaDto {
    fn from(m: &StageMeta) -> Self {
        Self {
            is_private: m.is_private,
            disable_moderation: m.disable_moderation,
            color: m.color.clone(),
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StageDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: StageId,
    pub name: String,
    #[schema(value_type = String, format = Uuid)]
    pub roadmap_id: RoadmapId,
    /// 1, 2, 3… within the roadmap, without gaps.
    pub order: i64,
    pub meta: StageMetaDto,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: Timestamp,
    /// Published topics on the stage; only in `stages.info`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic_count: Option<i64>,
}

impl From<&Stage> for StageDto {
    fn from(s: &Stage) -> Self {
        Self {
            id: s.id,
            name: s.name.clone(),
            roadmap_id: s.roadmap_id,
            order: s.order,
            meta: (&s.meta).into(),
            created_at: s.created_at,
            updated_at: s.updated_at,
            topic_count: None,
        }
    }
}

/// `{data: Stage}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StageResponse {
    pub data: StageDto,
}

/// `{data: [Stage]}`, ordered by `order`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StageListResponse {
    pub data: Vec<StageDto>,
}

/// `{data: Stage with topicCount, topics, pagination}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StageInfoResponse {
    pub data: StageDto,
    pub topics: Vec<TopicJson>,
    pub pagination: Pagination,
}

/// The three meta keys a stage reads; documents the shape of `meta` only.
#[derive(Debug, Clone, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct StageMetaParams {
    pub is_private: Option<bool>,
    pub disable_moderation: Option<bool>,
    /// `#RRGGBB`; null clears it.
    #[schema(pattern = r"^#[0-9A-Fa-f]{6}$")]
    pub color: Option<String>,
}

/// `stages.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateStageParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub roadmap_id: Option<String>,
    /// 1..=255 characters after trimming. Also read as `title` (Userorbit's spelling).
    #[serde(alias = "title")]
    #[schema(required = true, value_type = String, min_length = 1, max_length = 255, pattern = r"\S")]
    pub name: Option<String>,
    /// 1 or more: the position; the others move to keep 1, 2, 3… Last when not given.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub order: Option<i64>,
    #[schema(value_type = Option<StageMetaParams>)]
    pub meta: Option<Value>,
    /// Userorbit's spelling of `meta.isPrivate`.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub private: Option<bool>,
}

impl TryFrom<CreateStageParams> for StageInput {
    type Error = ApiError;

    fn try_from(p: CreateStageParams) -> Result<Self, ApiError> {
        Ok(Self {
            id: None,
            roadmap_id: p.roadmap_id,
            name: p.name,
            order: p.order,
            meta: fold_flag_into_meta(p.meta, p.private, "private", "isPrivate")?,
        })
    }
}

/// `stages.update`: only the fields given change.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateStageParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// 1..=255 characters after trimming. Also read as `title` (Userorbit's spelling).
    #[serde(alias = "title")]
    #[schema(min_length = 1, max_length = 255, pattern = r"\S")]
    pub name: Option<String>,
    /// 1 or more: the new position; the others move to keep 1, 2, 3…
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub order: Option<i64>,
    #[schema(value_type = Option<StageMetaParams>)]
    pub meta: Option<Value>,
    /// Userorbit's spelling of `meta.isPrivate`.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub private: Option<bool>,
}

impl TryFrom<UpdateStageParams> for StageInput {
    type Error = ApiError;

    fn try_from(p: UpdateStageParams) -> Result<Self, ApiError> {
        Ok(Self {
            id: p.id,
            roadmap_id: None,
            name: p.name,
            order: p.order,
            meta: fold_flag_into_meta(p.meta, p.private, "private", "isPrivate")?,
        })
    }
}

/// `public/stages.list`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StageListParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub roadmap_id: Option<String>,
    /// Include private stages; honoured for team members only. Default false.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub include_private: Option<bool>,
}

/// `public/stages.info`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StageInfoParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub stage_id: Option<String>,
    /// 1..=100, default 50.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
    /// `createdAt` (default), `updatedAt`, `title` or `voteCount`.
    #[schema(pattern = r"^(createdAt|updatedAt|title|voteCount)$")]
    pub sort: Option<String>,
    /// `DESC` (default) or `ASC`.
    #[schema(pattern = r"^([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])$")]
    pub direction: Option<String>,
}

impl From<StageInfoParams> for StageInfoInput {
    fn from(p: StageInfoParams) -> Self {
        Self {
            stage_id: p.stage_id,
            limit: p.limit,
            offset: p.offset,
            sort: p.sort,
            direction: p.direction,
        }
    }
}

/// `{data: Topic}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TopicResponse {
    pub data: TopicJson,
}

impl TopicResponse {
    pub fn new(view: &TopicView) -> Self {
        Self { data: view.into() }
    }
}

/// `{data: [Topic], pagination}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TopicListResponse {
    pub data: Vec<TopicJson>,
    pub pagination: Pagination,
}

impl From<&Paged<TopicView>> for TopicListResponse {
    fn from(page: &Paged<TopicView>) -> Self {
        Self {
            data: page.items.iter().map(TopicJson::from).collect(),
            pagination: Pagination::of(page),
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TeamSummary {
    #[schema(value_type = String, format = Uuid)]
    pub id: TeamId,
    pub name: String,
    pub subdomain: String,
}

impl From<&Team> for TeamSummary {
    fn from(t: &Team) -> Self {
        Self {
            id: t.id,
            name: t.name.clone(),
            subdomain: t.subdomain.clone(),
        }
    }
}

/// `{data: Topic or null, team}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TopicInfoResponse {
    /// Null when the topic does not exist or is not visible to the caller.
    pub data: Option<TopicJson>,
    pub team: TeamSummary,
}

/// `public/topics.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateTopicParams {
    #[schema(required = true, value_type = String, example = "Dark mode", min_length = 1, max_length = 255, pattern = r"\S")]
    pub title: Option<String>,
    #[schema(required = true, value_type = String, format = Uuid)]
    pub roadmap_id: Option<String>,
    /// A public stage of that roadmap.
    #[schema(required = true, value_type = String, format = Uuid)]
    pub stage_id: Option<String>,
    /// Defaults to the title.
    #[schema(max_length = 50000)]
    pub description: Option<String>,
    #[schema(max_length = 50000)]
    pub text: Option<String>,
    /// Only `ctaTitle`, `ctaLink`, `ctaImage`, `description`, `feedback`, `projectId` are kept.
    #[schema(value_type = Option<Object>)]
    pub meta: Option<Value>,
    /// Anonymous creation (API key) only: the visitor's name (random when absent).
    pub name: Option<String>,
    /// Anonymous creation only: the visitor's e-mail (the subscriber is found or created),
    /// at most 254 characters. A subscriber's own token ignores it, so the schema cannot
    /// constrain it.
    pub email: Option<String>,
}

impl From<CreateTopicParams> for NewTopicInput {
    fn from(p: CreateTopicParams) -> Self {
        Self {
            roadmap_id: p.roadmap_id,
            stage_id: p.stage_id,
            title: p.title,
            description: p.description,
            text: p.text,
            meta: p.meta,
            name: p.name,
            email: p.email,
        }
    }
}

/// Team `topics.create`: on any stage of the team, private ones included.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateTeamTopicParams {
    #[schema(required = true, value_type = String, example = "Dark mode", min_length = 1, max_length = 255, pattern = r"\S")]
    pub title: Option<String>,
    /// When given, the stage must be on this roadmap.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub roadmap_id: Option<String>,
    /// Any stage of the team, private ones included.
    #[schema(required = true, value_type = String, format = Uuid)]
    pub stage_id: Option<String>,
    /// Defaults to the title.
    #[schema(max_length = 50000)]
    pub description: Option<String>,
    #[schema(max_length = 50000)]
    pub text: Option<String>,
    /// Only `ctaTitle`, `ctaLink`, `ctaImage`, `description`, `feedback`, `projectId` are kept.
    #[schema(value_type = Option<Object>)]
    pub meta: Option<Value>,
}

impl From<CreateTeamTopicParams> for TeamTopicInput {
    fn from(p: CreateTeamTopicParams) -> Self {
        Self {
            roadmap_id: p.roadmap_id,
            stage_id: p.stage_id,
            title: p.title,
            description: p.description,
            text: p.text,
            meta: p.meta,
        }
    }
}

/// `topics.update`: only the fields given change.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTopicParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    #[schema(min_length = 1, max_length = 255, pattern = r"\S")]
    pub title: Option<String>,
    #[schema(max_length = 50000)]
    pub description: Option<String>,
    #[schema(max_length = 50000)]
    pub text: Option<String>,
    /// Moves the topic to this stage.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub stage_id: Option<String>,
    /// Merged into the stored meta (whitelisted keys only).
    #[schema(value_type = Option<Object>)]
    pub meta: Option<Value>,
    /// `true` publishes a topic held for moderation; `false` unpublishes it.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub publish: Option<bool>,
}

impl From<UpdateTopicParams> for TopicChanges {
    fn from(p: UpdateTopicParams) -> Self {
        Self {
            id: p.id,
            title: p.title,
            description: p.description,
            text: p.text,
            stage_id: p.stage_id,
            meta: p.meta,
            publish: p.publish,
        }
    }
}

/// `topics.list`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopicListParams {
    #[schema(value_type = Option<String>, format = Uuid)]
    pub roadmap_id: Option<String>,
    #[schema(value_type = Option<String>, format = Uuid)]
    pub stage_id: Option<String>,
    /// 1..=100, default 50.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
    /// `createdAt` (default), `updatedAt`, `title` or `voteCount`.
    #[schema(pattern = r"^(createdAt|updatedAt|title|voteCount)$")]
    pub sort: Option<String>,
    /// `DESC` (default) or `ASC`.
    #[schema(pattern = r"^([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])$")]
    pub direction: Option<String>,
}

impl From<TopicListParams> for TopicListInput {
    fn from(p: TopicListParams) -> Self {
        Self {
            roadmap_id: p.roadmap_id,
            stage_id: p.stage_id,
            limit: p.limit,
            offset: p.offset,
            sort: p.sort,
            direction: p.direction,
        }
    }
}

/// `public/topics.info`: a topic UUID or a `<title-slug>-<urlId>` slug.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct TopicIdParams {
    #[schema(required = true, value_type = String, example = "dark-mode-p2k9x0a2mq")]
    pub id: Option<String>,
}

/// `{id}` of the topic operations that take its UUID only (votes, subscriptions, deletion).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct TopicUuidParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
}

/// Team `topics.vote|unvote`: the topic and the subscriber the vote is for.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopicOnBehalfVoteParams {
    /// The topic (`topicId` is accepted as another name for it).
    #[serde(alias = "topicId")]
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// The subscriber the vote is for; or give `email` instead; the key's user when neither is
    /// given.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub subscriber_id: Option<String>,
    /// The voter's e-mail: the subscriber with it, created as `public/subscriber.identify`
    /// does (source `api`) when new.
    #[schema(
        max_length = 254,
        pattern = r"^\s*[^@\s\x00-\x1f\x7f-\x9f]+@[^@\s\x00-\x1f\x7f-\x9f.]([^@\s\x00-\x1f\x7f-\x9f]*[^@\s\x00-\x1f\x7f-\x9f.])?\s*$"
    )]
    pub email: Option<String>,
    /// The name given to (or updated on) the subscriber `email` names, as identify does.
    #[schema(max_length = 255)]
    pub name: Option<String>,
}

impl TopicOnBehalfVoteParams {
    /// The topic's id as sent, and the voter.
    pub fn into_parts(self) -> (Option<String>, OnBehalfInput) {
        (
            self.id,
            OnBehalfInput {
                subscriber_id: self.subscriber_id,
                email: self.email,
                name: self.name,
            },
        )
    }
}

/// `{success: true, topicId}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopicDoneResponse {
    pub success: bool,
    #[schema(value_type = String, format = Uuid)]
    pub topic_id: TopicId,
}

/// `public/topic-comments.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateTopicCommentParams {
    /// The topic.
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// 1..=10,000 characters after trimming.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 10000, pattern = r"\S")]
    pub text: Option<String>,
    /// A comment of the same topic to answer; top-level when absent.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub parent_id: Option<String>,
    /// `widget`, `api` (default) or `email`.
    #[schema(pattern = r"^(widget|api|email)$")]
    pub source: Option<String>,
}

impl From<CreateTopicCommentParams> for TopicCommentInput {
    fn from(p: CreateTopicCommentParams) -> Self {
        Self {
            id: p.id,
            text: p.text,
            parent_id: p.parent_id,
            source: p.source,
        }
    }
}

/// Team `topic-comments.update`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct UpdateTopicCommentParams {
    /// The comment.
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// The new text: 1..=10,000 characters after trimming.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 10000, pattern = r"\S")]
    pub text: Option<String>,
}

impl From<UpdateTopicCommentParams> for TopicCommentChanges {
    fn from(p: UpdateTopicCommentParams) -> Self {
        Self {
            id: p.id,
            text: p.text,
        }
    }
}

/// `public/topic-comments.list` and the team's `topic-comments.list`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct TopicCommentListParams {
    /// A topic; every topic of the team when absent.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub id: Option<String>,
    /// `createdAt` (default) or `updatedAt`.
    #[schema(pattern = r"^(createdAt|updatedAt)$")]
    pub sort: Option<String>,
    /// `DESC` (default) or `ASC`.
    #[schema(pattern = r"^([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])$")]
    pub direction: Option<String>,
    /// Top-level comments per page, 1..=100, default 50.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
}

impl From<TopicCommentListParams> for TopicCommentListInput {
    fn from(p: TopicCommentListParams) -> Self {
        Self {
            id: p.id,
            sort: p.sort,
            direction: p.direction,
            limit: p.limit,
            offset: p.offset,
        }
    }
}

/// `{data: TopicComment}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TopicCommentResponse {
    pub data: TopicCommentJson,
}

/// `{data: [TopicComment with replies], pagination}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TopicCommentListResponse {
    pub data: Vec<TopicCommentJson>,
    /// `total` counts top-level comments.
    pub pagination: Pagination,
}

impl TopicCommentListResponse {
    pub fn new(page: Paged<CommentThread>, with_topic: bool) -> Self {
        let pagination = Pagination::of(&page);
        Self {
            data: page
                .items
                .into_iter()
                .map(|t| TopicCommentJson::thread(t, with_topic))
                .collect(),
            pagination,
        }
    }
}

/// `{data: TopicVote}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TopicVoteResponse {
    pub data: TopicVoteJson,
}

/// `{ok: true}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OkResponse {
    pub ok: bool,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopicVoteInfo {
    pub count: i64,
    /// Whether the calling subscriber voted; false under an API key.
    pub is_subscriber_voted: bool,
}

/// `{data: {count, isSubscriberVoted}}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TopicVoteInfoResponse {
    pub data: TopicVoteInfo,
}
