//! Feedback board shapes: the board object, its lists, and the parameters of the
//! `feedback-boards.*` operations.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sounding_app::boards::BoardInput;
use sounding_domain::{
    board::{BoardMeta, BoardView},
    BoardId, TeamId, Timestamp,
};
use utoipa::ToSchema;

use super::common::{fold_flag_into_meta, Pagination};
use crate::{error::ApiError, params::lenient};

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BoardDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: BoardId,
    pub name: String,
    #[schema(example = "feature-requests")]
    pub slug: String,
    pub description: String,
    #[schema(value_type = String, format = Uuid)]
    pub team_id: TeamId,
    /// Display order, ascending.
    pub order: i64,
    pub meta: BoardMetaDto,
    /// Feedback on the board, published or not.
    pub feedback_count: i64,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: Timestamp,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BoardMetaDto {
    pub is_public: bool,
    pub allow_public_submissions: bool,
    pub require_moderation: bool,
    /// `#RRGGBB`.
    #[schema(example = "#3B82F6")]
    pub color: Option<String>,
}

impl From<&BoardMeta> for BoardMetaDto {
    fn from(m: &BoardMeta) -> Self {
        Self {
            is_public: m.is_public,
            allow_public_submissions: m.allow_public_submissions,
            require_moderation: m.require_moderation,
            color: m.color.clone(),
        }
    }
}

impl From<&BoardView> for BoardDto {
    fn from(view: &BoardView) -> Self {
        let b = &view.board;
        Self {
            id: b.id,
            name: b.name.clone(),
            slug: b.slug.clone(),
            description: b.description.clone(),
            team_id: b.team_id,
            order: b.order,
            meta: (&b.meta).into(),
            feedback_count: view.feedback_count,
            created_at: b.created_at,
            updated_at: b.updated_at,
        }
    }
}

/// `{data: Board}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BoardResponse {
    pub data: BoardDto,
}

impl From<&BoardView> for BoardResponse {
    fn from(view: &BoardView) -> Self {
        Self { data: view.into() }
    }
}

/// `{data: [Board], pagination}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BoardListResponse {
    pub data: Vec<BoardDto>,
    pub pagination: Pagination,
}

/// The four meta keys a board reads; other keys are ignored.
/// Only documents the shape of `meta`: the domain reads the JSON value itself.
#[derive(Debug, Clone, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct BoardMetaParams {
    pub is_public: Option<bool>,
    pub allow_public_submissions: Option<bool>,
    pub require_moderation: Option<bool>,
    /// `#RRGGBB`; null clears it.
    #[schema(pattern = r"^#[0-9A-Fa-f]{6}$")]
    pub color: Option<String>,
}

/// `feedback-boards.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateBoardParams {
    /// At most 255 characters.
    #[schema(required = true, value_type = String, example = "Feature requests", min_length = 1, max_length = 255, pattern = r"\S")]
    pub name: Option<String>,
    /// Derived from the name (and made unique) when not given.
    #[schema(max_length = 100, pattern = r"^\s*[a-z0-9]+(-[a-z0-9]+)*\s*$")]
    pub slug: Option<String>,
    #[schema(max_length = 50000)]
    pub description: Option<String>,
    /// 0..=1000000; after the last board when not given.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0, maximum = 1000000)]
    pub order: Option<i64>,
    #[schema(value_type = Option<BoardMetaParams>)]
    pub meta: Option<Value>,
    /// Userorbit's spelling of `meta.isPublic`.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub public: Option<bool>,
}

impl TryFrom<CreateBoardParams> for BoardInput {
    type Error = ApiError;

    fn try_from(p: CreateBoardParams) -> Result<Self, ApiError> {
        Ok(Self {
            name: p.name,
            slug: p.slug,
            description: p.description,
            order: p.order,
            meta: fold_flag_into_meta(p.meta, p.public, "public", "isPublic")?,
        })
    }
}

/// `feedback-boards.update`: only the fields given change; meta keys merge.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateBoardParams {
    /// The board's id.
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    #[schema(min_length = 1, max_length = 255, pattern = r"\S")]
    pub name: Option<String>,
    #[schema(max_length = 100, pattern = r"^\s*[a-z0-9]+(-[a-z0-9]+)*\s*$")]
    pub slug: Option<String>,
    #[schema(max_length = 50000)]
    pub description: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0, maximum = 1000000)]
    pub order: Option<i64>,
    #[schema(value_type = Option<BoardMetaParams>)]
    pub meta: Option<Value>,
    /// Userorbit's spelling of `meta.isPublic`.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub public: Option<bool>,
}

impl UpdateBoardParams {
    pub fn into_parts(self) -> Result<(Option<String>, BoardInput), ApiError> {
        Ok((
            self.id,
            BoardInput {
                name: self.name,
                slug: self.slug,
                description: self.description,
                order: self.order,
                meta: fold_flag_into_meta(self.meta, self.public, "public", "isPublic")?,
            },
        ))
    }
}

/// `{id}` of `feedback-boards.info` and `.delete`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct BoardIdParams {
    /// The board's id.
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
}

/// Paging of the board lists.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct ListParams {
    /// 1..=100, default 100; larger values are clamped to 100.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    /// 0 or more, default 0.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
}
