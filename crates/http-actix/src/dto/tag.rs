//! Tag shapes: the tag object, its list, the parameters of `tags.*`, and the replies of
//! `feedbacks.merge` and `feedbacks.count`.

use serde::{Deserialize, Serialize};
use sounding_app::{
    feedback::{MergeInput, Merged},
    tags::TagInput,
    wire::FeedbackJson,
};
use sounding_domain::{feedback_merge::FeedbackCounts, tag::Tag, TagId, Timestamp};
use utoipa::ToSchema;

/// A tag: `{id, name, color, createdAt}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TagDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: TagId,
    #[schema(example = "Bug")]
    pub name: String,
    /// `#RRGGBB`, upper case.
    #[schema(example = "#3B82F6")]
    pub color: String,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
}

impl From<&Tag> for TagDto {
    fn from(t: &Tag) -> Self {
        Self {
            id: t.id,
            name: t.name.clone(),
            color: t.color.clone(),
            created_at: t.created_at,
        }
    }
}

/// `{data: Tag}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TagResponse {
    pub data: TagDto,
}

impl From<&Tag> for TagResponse {
    fn from(t: &Tag) -> Self {
        Self { data: t.into() }
    }
}

/// `{data: [Tag]}`: every tag of the team, by name ignoring case (no pagination).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TagListResponse {
    pub data: Vec<TagDto>,
}

/// `tags.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct CreateTagParams {
    /// 1..=50 characters after trimming; unique in the team ignoring case.
    #[schema(required = true, value_type = String, example = "Bug", min_length = 1, max_length = 50, pattern = r"\S")]
    pub name: Option<String>,
    /// `#RRGGBB`; default `#3B82F6`.
    #[schema(example = "#EF4444", pattern = r"^\s*#[0-9A-Fa-f]{6}\s*$")]
    pub color: Option<String>,
}

impl From<CreateTagParams> for TagInput {
    fn from(p: CreateTagParams) -> Self {
        Self {
            name: p.name,
            color: p.color,
        }
    }
}

/// `tags.update`: only the fields given change.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct UpdateTagParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// 1..=50 characters after trimming; unique in the team ignoring case.
    #[schema(min_length = 1, max_length = 50, pattern = r"\S")]
    pub name: Option<String>,
    /// `#RRGGBB`.
    #[schema(pattern = r"^\s*#[0-9A-Fa-f]{6}\s*$")]
    pub color: Option<String>,
}

impl UpdateTagParams {
    pub fn into_parts(self) -> (Option<String>, TagInput) {
        (
            self.id,
            TagInput {
                name: self.name,
                color: self.color,
            },
        )
    }
}

/// `{id}` of `tags.delete`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct TagIdParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
}

/// `feedbacks.merge`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MergeFeedbackParams {
    /// The item merged away (archived); `feedbackId` is accepted too.
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    #[schema(value_type = Option<String>, format = Uuid)]
    pub feedback_id: Option<String>,
    /// The item it is merged into.
    #[schema(required = true, value_type = String, format = Uuid)]
    pub target_id: Option<String>,
}

impl From<MergeFeedbackParams> for MergeInput {
    fn from(p: MergeFeedbackParams) -> Self {
        Self {
            id: p.id.or(p.feedback_id),
            target_id: p.target_id,
        }
    }
}

/// `{data: <target>, source: <source>}`, both as they are after the merge.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MergeResponse {
    /// The target, with the moved votes, comments and followers counted.
    pub data: FeedbackJson,
    /// The source: archived, `meta.mergedIntoFeedbackId` set, counts 0.
    pub source: FeedbackJson,
}

impl From<&Merged> for MergeResponse {
    fn from(m: &Merged) -> Self {
        Self {
            data: (&m.target).into(),
            source: (&m.source).into(),
        }
    }
}

/// `feedbacks.count`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CountFeedbackParams {
    /// Count this board's items only.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub board_id: Option<String>,
}

/// Items per status. Each status counts items that are not archived; `archived` counts the
/// archived ones (whatever their status); `total` is the sum of all six.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FeedbackCountsDto {
    pub in_review: i64,
    pub in_progress: i64,
    pub planned: i64,
    pub completed: i64,
    pub closed: i64,
    pub archived: i64,
    pub total: i64,
    /// The same as `total` (Userorbit's name).
    pub all: i64,
}

/// `{data: {in_review, in_progress, planned, completed, closed, archived, total, all}}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CountResponse {
    pub data: FeedbackCountsDto,
}

impl From<&FeedbackCounts> for CountResponse {
    fn from(c: &FeedbackCounts) -> Self {
        Self {
            data: FeedbackCountsDto {
                in_review: c.in_review,
                in_progress: c.in_progress,
                planned: c.planned,
                completed: c.completed,
                closed: c.closed,
                archived: c.archived,
                total: c.total(),
                all: c.total(),
            },
        }
    }
}
