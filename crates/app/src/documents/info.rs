//! `documents.info`: one of the team's documents, published or not.

use sounding_domain::{
    access::{KeyHolder, Need},
    document::DocumentView,
    ports::DocumentStore,
};

use super::{document_id, document_not_found};
use crate::error::AppResult;

/// `documents.info {id}`: the document with its reaction counts, published or not. Any key;
/// 404 when the team has no such document.
pub async fn document_info(
    store: &dyn DocumentStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<DocumentView> {
    caller.require(Need::Read)?;
    let id = document_id(id)?;
    store
        .document(caller.team_id, id, None)
        .await?
        .ok_or_else(document_not_found)
}
