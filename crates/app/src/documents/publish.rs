//! `documents.publish` (idempotent: the first publish time stays) and `documents.unpublish`.

use sounding_domain::{
    access::{KeyHolder, Need},
    document::DocumentView,
    ports::{Clock, DocumentStore},
};

use super::{document_id, document_not_found};
use crate::error::AppResult;

/// `documents.publish {id}`: the document, published (an earlier publish time is kept). Any
/// key but a read-only one (403); 404 when the team has no such document.
pub async fn publish_document(
    store: &dyn DocumentStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<DocumentView> {
    set_published(store, clock, caller, id, true).await
}

/// `documents.unpublish {id}`: the document, back to a draft hidden from public lists. Any key
/// but a read-only one (403); 404 when the team has no such document.
pub async fn unpublish_document(
    store: &dyn DocumentStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<DocumentView> {
    set_published(store, clock, caller, id, false).await
}

async fn set_published(
    store: &dyn DocumentStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    id: Option<&str>,
    publish: bool,
) -> AppResult<DocumentView> {
    caller.require(Need::Write)?;
    let id = document_id(id)?;
    store
        .set_document_published(caller.team_id, id, publish, clock.now())
        .await?
        .ok_or_else(document_not_found)
}
