//! Notification and feedback-CSV shapes: the notification object, the parameters and replies
//! of `public/notifications.*`, and those of `feedbacks.export|import`.

use serde::{Deserialize, Serialize};
use sounding_app::{
    feedback_csv::{ExportInput, ImportInput, ImportReport},
    notifications::{MarkReadInput, NotificationListInput},
};
use sounding_domain::notification::{NotificationPage, NotificationView};
use utoipa::ToSchema;

use super::common::Pagination;
use crate::params::lenient;

/// Who caused a notification.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct NotificationActor {
    #[schema(format = Uuid)]
    pub id: String,
    pub name: String,
}

/// A notification: a public comment (`comment`), a feedback status change
/// (`status_change`) or a topic's move to another stage (`stage_change`) on something the
/// subscriber follows.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotificationJson {
    #[schema(format = Uuid)]
    pub id: String,
    #[schema(example = "status_change")]
    pub kind: String,
    #[schema(format = Uuid)]
    pub feedback_id: Option<String>,
    #[schema(format = Uuid)]
    pub topic_id: Option<String>,
    /// The new comment (`comment` only).
    #[schema(format = Uuid)]
    pub comment_id: Option<String>,
    /// The item's or topic's title when it happened.
    pub title: String,
    /// `status_change`: the new status; `stage_change`: the new stage's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_status: Option<String>,
    /// The commenter; null for status and stage changes (the team made them).
    pub actor: Option<NotificationActor>,
    #[schema(format = DateTime)]
    pub read_at: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl From<&NotificationView> for NotificationJson {
    fn from(v: &NotificationView) -> Self {
        let n = &v.notification;
        Self {
            id: n.id.to_string(),
            kind: n.kind.as_str().to_owned(),
            feedback_id: n.feedback_id.map(|id| id.to_string()),
            topic_id: n.topic_id.map(|id| id.to_string()),
            comment_id: n.comment_id.map(|id| id.hyphenated().to_string()),
            title: n.title.clone(),
            status: n.status.clone(),
            previous_status: n.previous_status.clone(),
            actor: v.actor.as_ref().map(|a| NotificationActor {
                id: a.id.to_string(),
                name: a.name.clone(),
            }),
            read_at: n.read_at.map(|t| t.to_rfc3339()),
            created_at: n.created_at.to_rfc3339(),
        }
    }
}

/// `public/notifications.list`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotificationListParams {
    /// Only notifications not yet read.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub unread_only: Option<bool>,
    /// 1..=100, default 20; larger values are clamped to 100.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
}

impl From<NotificationListParams> for NotificationListInput {
    fn from(p: NotificationListParams) -> Self {
        Self {
            unread_only: p.unread_only,
            limit: p.limit,
            offset: p.offset,
        }
    }
}

/// `{data: [Notification], pagination, unreadCount}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotificationListResponse {
    pub data: Vec<NotificationJson>,
    pub pagination: Pagination,
    /// The caller's unread notifications in all (whatever the page and `unreadOnly`).
    pub unread_count: i64,
}

impl From<&NotificationPage> for NotificationListResponse {
    fn from(p: &NotificationPage) -> Self {
        Self {
            data: p.page.items.iter().map(NotificationJson::from).collect(),
            pagination: Pagination::of(&p.page),
            unread_count: p.unread,
        }
    }
}

/// `public/notifications.markRead`: `ids` or `all: true`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct MarkReadParams {
    /// The caller's notifications to mark read (at most 100); others' ids are ignored.
    #[schema(value_type = Option<Vec<String>>)]
    pub ids: Option<Vec<String>>,
    /// Every unread notification of the caller.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub all: Option<bool>,
}

impl From<MarkReadParams> for MarkReadInput {
    fn from(p: MarkReadParams) -> Self {
        Self {
            ids: p.ids,
            all: p.all,
        }
    }
}

/// `{success: true, updated}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MarkReadResponse {
    pub success: bool,
    /// How many notifications became read.
    pub updated: i64,
}

/// `feedbacks.export`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportParams {
    #[schema(format = Uuid)]
    pub board_id: Option<String>,
    #[schema(
        example = "planned",
        pattern = r"^(in_review|in_progress|planned|completed|closed)$"
    )]
    pub status: Option<String>,
}

impl From<ExportParams> for ExportInput {
    fn from(p: ExportParams) -> Self {
        Self {
            board_id: p.board_id,
            status: p.status,
        }
    }
}

/// `feedbacks.import` as JSON (the raw CSV may be sent instead, as `text/csv`, with
/// `boardId` in the query string).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportParams {
    /// The CSV text, in `feedbacks.export`'s format.
    #[schema(
        example = "title,text,status,creatorEmail\r\nDark mode,Please,planned,ann@example.com\r\n"
    )]
    pub csv: Option<String>,
    /// Every row goes to this board (the `board` column is then ignored).
    #[schema(format = Uuid)]
    pub board_id: Option<String>,
}

impl From<ImportParams> for ImportInput {
    fn from(p: ImportParams) -> Self {
        Self {
            csv: p.csv,
            board_id: p.board_id,
        }
    }
}

/// A row not imported, and why. Rows are numbered as a spreadsheet shows them (header 1).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RefusedRowJson {
    pub row: u64,
    pub error: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ImportResult {
    pub created: u64,
    pub refused: Vec<RefusedRowJson>,
}

/// `{data: {created, refused}}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ImportResponse {
    pub data: ImportResult,
}

impl From<ImportReport> for ImportResponse {
    fn from(r: ImportReport) -> Self {
        Self {
            data: ImportResult {
                created: r.created,
                refused: r
                    .refused
                    .into_iter()
                    .map(|r| RefusedRowJson {
                        row: r.row,
                        error: r.error,
                    })
                    .collect(),
            },
        }
    }
}
