//! `documents.update`: title and text; only the fields given change. The url follows the new
//! title; the `urlId` stays.

use sounding_domain::{
    access::{KeyHolder, Need},
    document::{DocumentPatch, DocumentView},
    ports::{Clock, DocumentStore},
};

use super::{document_id, document_not_found};
use crate::error::AppResult;

#[derive(Debug, Clone, Default)]
pub struct DocumentChanges {
    pub title: Option<String>,
    pub text: Option<String>,
}

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
