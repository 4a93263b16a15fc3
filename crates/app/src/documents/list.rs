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

#[derive(Debug, Clone, Default)]
pub struct DocumentListInput {
    pub search: Option<String>,
    pub published: Option<bool>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

#[derive(Debug, Clone, Default)]
pub struct PublicDocumentListInput {
    pub search: Option<String>,
    pub sort: Option<String>,
    pub direction: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

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
