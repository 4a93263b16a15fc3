//! `documents.list` (the team's documents, newest first, optionally only published or only
//! drafts) and `public/documents.list` (published documents, sortable; a subscriber also gets
//! their own reactions).

use sounding_domain::{
    access::{Caller, KeyHolder, Need},
    document::{DocumentQuery, DocumentSort, DocumentView},
    feedback::search_term,
    feedback_comment::Direction,
    page::{PageRequest, Paged},
    ports::DocumentStore,
};

use crate::error::AppResult;

/// `documents.list` returns 20 documents by default.
pub const TEAM_DEFAULT_LIMIT: i64 = 20;
/// `public/documents.list` returns 10 documents by default.
pub const PUBLIC_DEFAULT_LIMIT: i64 = 10;

/// The body of `documents.list`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct DocumentListInput {
    /// Matched case-insensitively within the title or text; at most 255 characters.
    pub search: Option<String>,
    /// `true` for published documents only, `false` for drafts only; all when absent.
    pub published: Option<bool>,
    /// Page size, 1 to 100 (more is clamped to 100); 20 when absent.
    pub limit: Option<i64>,
    /// Documents to skip, 0 or more; 0 when absent.
    pub offset: Option<i64>,
}

/// The body of `public/documents.list`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct PublicDocumentListInput {
    /// Matched case-insensitively within the title or text; at most 255 characters.
    pub search: Option<String>,
    /// `publishedAt` (the default), `createdAt`, `updatedAt` or `title`.
    pub sort: Option<String>,
    /// `ASC` or `DESC` in any case; `DESC` when absent.
    pub direction: Option<String>,
    /// Page size, 1 to 100 (more is clamped to 100); 10 when absent.
    pub limit: Option<i64>,
    /// Documents to skip, 0 or more; 0 when absent.
    pub offset: Option<i64>,
}

/// `documents.list`: a page of the team's documents, newest first. Any key.
pub async fn list_documents(
    store: &dyn DocumentStore,
    caller: &KeyHolder,
    input: DocumentListInput,
) -> AppResult<Paged<DocumentView>> {
    caller.require(Need::Read)?;
    let query = DocumentQuery {
        published: input.published,
        search: search_term(input.search.as_deref())?,
        sort: DocumentSort::CreatedAt,
        direction: Direction::Desc,
        viewer: None,
        page: PageRequest::new(input.limit, input.offset, TEAM_DEFAULT_LIMIT)?,
    };
    Ok(store.list_documents(caller.team_id, &query).await?)
}

/// `public/documents.list`: a page of the caller's team's published documents with their
/// reaction counts; under a subscriber token each also carries the subscriber's own reactions.
pub async fn list_public_documents(
    store: &dyn DocumentStore,
    caller: &Caller,
    input: PublicDocumentListInput,
) -> AppResult<Paged<DocumentView>> {
    let query = DocumentQuery {
        published: Some(true),
        search: search_term(input.search.as_deref())?,
        sort: input
            .sort
            .as_deref()
            .map(DocumentSort::parse)
            .transpose()?
            .unwrap_or_default(),
        direction: input
            .direction
            .as_deref()
            .map(Direction::parse)
            .transpose()?
            .unwrap_or(Direction::Desc),
        viewer: caller.subscriber_id(),
        page: PageRequest::new(input.limit, input.offset, PUBLIC_DEFAULT_LIMIT)?,
    };
    Ok(store.list_documents(caller.team_id(), &query).await?)
}
