//! `documents.delete`: the document and its reactions.

use sounding_domain::{
    access::{KeyHolder, Need},
    ports::DocumentStore,
    DocumentId,
};

use super::{document_id, document_not_found};
use crate::error::AppResult;

/// `documents.delete {id}`: deletes the document and its reactions and returns its id. Any
/// key but a read-only one (403); 404 when the team has no such document.
pub async fn delete_document(
    store: &dyn DocumentStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<DocumentId> {
    caller.require(Need::Write)?;
    let id = document_id(id)?;
    if store.delete_document(caller.team_id, id).await? {
        Ok(id)
    } else {
        Err(document_not_found())
    }
}
