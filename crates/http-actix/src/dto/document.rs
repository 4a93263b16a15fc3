//! Document shapes: the document object (with its reaction counts), its lists, the reaction
//! reply, and the parameters of the `documents.*`, `public/documents.list` and
//! `public/document-reactions.*` operations.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sounding_app::documents::{
    DocumentChanges, DocumentListInput, NewDocumentInput, PublicDocumentListInput, ReactionInput,
    ReactionOutcome,
};
use sounding_domain::{document::DocumentView, page::Paged, DocumentId, Timestamp};
use utoipa::ToSchema;

use super::common::Pagination;
use crate::params::lenient;

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: DocumentId,
    pub title: String,
    pub text: String,
    /// Ten `[a-z0-9]` characters, unique per team among documents; kept through title changes.
    #[schema(example = "k3j9x0a2mq")]
    pub url_id: String,
    /// `/<title-slug>-<urlId>`, following the current title.
    #[schema(example = "/getting-started-k3j9x0a2mq")]
    pub url: String,
    /// Null while unpublished; the first publish time while published.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub published_at: Option<Timestamp>,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: Timestamp,
    /// Reaction counts by emoji; `{}` when there are none.
    #[schema(example = json!({"👍": 3, "🎉": 1}))]
    pub reactions: BTreeMap<String, i64>,
    /// `public/documents.list` under a subscriber token only: that subscriber's emoji.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, example = json!(["👍"]))]
    pub my_reactions: Option<Vec<String>>,
}

impl DocumentDto {
    /// The object without `myReactions` (team operations, and public lists read with a key).
    pub fn of(view: &DocumentView) -> Self {
        let d = &view.document;
        Self {
            id: d.id,
            title: d.title.clone(),
            text: d.text.clone(),
            url_id: d.url_id.clone(),
            url: d.url(),
            published_at: d.published_at,
            created_at: d.created_at,
            updated_at: d.updated_at,
            reactions: view.reactions.clone(),
            my_reactions: None,
        }
    }

    /// The object with the viewer's `myReactions`.
    pub fn with_mine(view: &DocumentView) -> Self {
        Self {
            my_reactions: Some(view.my_reactions.clone()),
            ..Self::of(view)
        }
    }
}

/// `{data: Document}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DocumentResponse {
    pub data: DocumentDto,
}

impl From<&DocumentView> for DocumentResponse {
    fn from(view: &DocumentView) -> Self {
        Self {
            data: DocumentDto::of(view),
        }
    }
}

/// `{data: [Document], pagination}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DocumentListResponse {
    pub data: Vec<DocumentDto>,
    pub pagination: Pagination,
}

impl DocumentListResponse {
    pub fn new(page: &Paged<DocumentView>, render: impl Fn(&DocumentView) -> DocumentDto) -> Self {
        Self {
            data: page.items.iter().map(render).collect(),
            pagination: Pagination::of(page),
        }
    }
}

/// `documents.create`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateDocumentParams {
    /// At most 255 characters.
    #[schema(required = true, value_type = String, example = "Getting started", min_length = 1, max_length = 255, pattern = r"\S")]
    pub title: Option<String>,
    /// At most 50,000 characters; empty when not given.
    #[schema(max_length = 50000)]
    pub text: Option<String>,
    /// Publish at once; default false (a draft).
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub publish: Option<bool>,
}

impl From<CreateDocumentParams> for NewDocumentInput {
    fn from(p: CreateDocumentParams) -> Self {
        Self {
            title: p.title,
            text: p.text,
            publish: p.publish,
        }
    }
}

/// `documents.update`: only the fields given change.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct UpdateDocumentParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
    /// At most 255 characters, not blank; the url follows it.
    #[schema(min_length = 1, max_length = 255, pattern = r"\S")]
    pub title: Option<String>,
    /// At most 50,000 characters.
    #[schema(max_length = 50000)]
    pub text: Option<String>,
}

impl UpdateDocumentParams {
    pub fn into_parts(self) -> (Option<String>, DocumentChanges) {
        (
            self.id,
            DocumentChanges {
                title: self.title,
                text: self.text,
            },
        )
    }
}

/// `{id}` of `documents.info|publish|unpublish|delete`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct DocumentIdParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub id: Option<String>,
}

/// `documents.list`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct DocumentListParams {
    /// Case-insensitive substring of the title or text.
    pub search: Option<String>,
    /// Only published (true) or only unpublished (false) documents; all when absent.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub published: Option<bool>,
    /// 1..=100, default 20; larger values are clamped to 100.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
}

impl From<DocumentListParams> for DocumentListInput {
    fn from(p: DocumentListParams) -> Self {
        Self {
            search: p.search,
            published: p.published,
            limit: p.limit,
            offset: p.offset,
        }
    }
}

/// `public/documents.list`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct PublicDocumentListParams {
    /// Case-insensitive substring of the title or text.
    pub search: Option<String>,
    /// `publishedAt` (default), `createdAt`, `updatedAt` or `title`.
    #[schema(
        example = "publishedAt",
        pattern = r"^(publishedAt|createdAt|updatedAt|title)$"
    )]
    pub sort: Option<String>,
    /// `DESC` (default) or `ASC`.
    #[schema(example = "DESC", pattern = r"^([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])$")]
    pub direction: Option<String>,
    /// 1..=100, default 10; larger values are clamped to 100.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 1)]
    pub limit: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    #[schema(minimum = 0)]
    pub offset: Option<i64>,
}

impl From<PublicDocumentListParams> for PublicDocumentListInput {
    fn from(p: PublicDocumentListParams) -> Self {
        Self {
            search: p.search,
            sort: p.sort,
            direction: p.direction,
            limit: p.limit,
            offset: p.offset,
        }
    }
}

/// `public/document-reactions.create|delete`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentReactionParams {
    #[schema(required = true, value_type = String, format = Uuid)]
    pub document_id: Option<String>,
    /// 1..=32 characters, none of them whitespace or control characters.
    #[schema(required = true, value_type = String, example = "👍", min_length = 1, max_length = 32, pattern = r"^[^\s\x00-\x1f\x7f-\x9f]+$")]
    pub emoji: Option<String>,
}

impl From<DocumentReactionParams> for ReactionInput {
    fn from(p: DocumentReactionParams) -> Self {
        Self {
            document_id: p.document_id,
            emoji: p.emoji,
        }
    }
}

/// The document's reactions after a reaction was added or removed.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentReactionDto {
    #[schema(value_type = String, format = Uuid)]
    pub document_id: DocumentId,
    #[schema(example = "👍")]
    pub emoji: String,
    /// Counts by emoji, every subscriber's; `{}` when none remain.
    #[schema(example = json!({"👍": 3, "🎉": 1}))]
    pub reactions: BTreeMap<String, i64>,
    /// The calling subscriber's emoji on the document.
    #[schema(example = json!(["👍"]))]
    pub my_reactions: Vec<String>,
}

/// `{data: DocumentReaction}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DocumentReactionResponse {
    pub data: DocumentReactionDto,
}

impl From<ReactionOutcome> for DocumentReactionResponse {
    fn from(o: ReactionOutcome) -> Self {
        Self {
            data: DocumentReactionDto {
                document_id: o.document_id,
                emoji: o.emoji,
                reactions: o.state.reactions,
                my_reactions: o.state.mine,
            },
        }
    }
}
