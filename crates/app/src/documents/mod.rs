//! Document use cases: the team's `documents.*` (API key; any role may write, read-only keys
//! only read) and the public list and reactions (`public/documents.list`,
//! `public/document-reactions.*`). Documents cause no events.

mod create;
mod delete;
mod info;
mod list;
mod publish;
mod reactions;
mod update;

pub use create::{create_document, NewDocumentInput};
pub use delete::delete_document;
pub use info::document_info;
pub use list::{list_documents, list_public_documents, DocumentListInput, PublicDocumentListInput};
pub use publish::{publish_document, unpublish_document};
pub use reactions::{react_to_document, unreact_to_document, ReactionInput, ReactionOutcome};
pub use update::{update_document, DocumentChanges};

use sounding_domain::{DocumentId, Entity};

use crate::error::{AppError, AppResult};

pub(crate) fn document_not_found() -> AppError {
    AppError::not_found(Entity::Document)
}

/// The `id` parameter of the team operations.
pub(crate) fn document_id(raw: Option<&str>) -> AppResult<DocumentId> {
    Ok(DocumentId::parse_required("id", raw)?)
}
