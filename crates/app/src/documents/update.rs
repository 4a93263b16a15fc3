//! `documents.update`: title and text; only the fields given change. The url follows the new
//! title; the `urlId` stays.

use sounding_domain::{
    access::{KeyHolder, Need},
    document::{DocumentPatch, DocumentView},
    ports::{Clock, DocumentStore},
};

use super::{document_id, document_not_found};
use crate::error::AppResult;

/// The fields of `documents.update`, as the client sends them; absent fields stay.
#[derive(Debug, Clone, Default)]
pub struct DocumentChanges {
    /// A new title: not blank, at most 255 characters after trimming.
    pub title: Option<String>,
    /// A new body, at most 50,000 characters.
    pub text: Option<String>,
}

/// `documents.update {id, …}`: the changed document. Any key but a read-only one (403); 404
/// when the team has no such document.
pub async fn update_document(
    store: &dyn DocumentStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
    changes: DocumentChanges,
) -> AppResult<DocumentView> {
    caller.require(Need::Write)?;
    let id = document_id(id)?;
    let patch = DocumentPatch::new(changes.title.as_deref(), changes.text.as_deref())?;
    store
        .update_document(caller.team_id, id, &patch, clock.now())
        .await?
        .ok_or_else(document_not_found)
}
