//! Documents and their reactions.

use crate::{
    ids::{SubscriberId, TeamId},
    page::Paged,
    ports::StoreResult,
    timestamp::Timestamp,
};
use async_trait::async_trait;

/// Documents and their emoji reactions. No events: documents are content, not feedback.
/// Reading a document (or a page of them) also reads its reaction counts and, for a viewer,
/// the viewer's own reactions, in a constant number of statements.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait DocumentStore: Send + Sync {
    /// Conflict `document_url_id` (nothing written) when the team has the `url_id`.
    async fn insert_document(&self, document: &crate::document::Document) -> StoreResult<()>;
    /// The team's document, published or not, with its reaction counts and, when `viewer` is
    /// given, their own reactions; `None` when the team has none with this id.
    async fn document(
        &self,
        team: TeamId,
        id: crate::ids::DocumentId,
        viewer: Option<SubscriberId>,
    ) -> StoreResult<Option<crate::document::DocumentView>>;
    /// Applies the patch to the stored document (with `updated_at = now`) in one transaction,
    /// so concurrent patches of different fields both stay; never touches the publish state.
    /// The document after, or `None` when it is gone.
    async fn update_document(
        &self,
        team: TeamId,
        id: crate::ids::DocumentId,
        patch: &crate::document::DocumentPatch,
        now: Timestamp,
    ) -> StoreResult<Option<crate::document::DocumentView>>;
    /// Publishes (keeping the first publish time when already published) or unpublishes;
    /// `updated_at` becomes `now` only when the state changes. The document after, or `None`
    /// when it is gone.
    async fn set_document_published(
        &self,
        team: TeamId,
        id: crate::ids::DocumentId,
        publish: bool,
        now: Timestamp,
    ) -> StoreResult<Option<crate::document::DocumentView>>;
    /// Removes the document with its reactions; `false` when there was none.
    async fn delete_document(&self, team: TeamId, id: crate::ids::DocumentId) -> StoreResult<bool>;
    /// One page of the documents the query selects, in its order, and how many it selects.
    async fn list_documents(
        &self,
        team: TeamId,
        query: &crate::document::DocumentQuery,
    ) -> StoreResult<Paged<crate::document::DocumentView>>;
    /// Adds (`react`) or removes the subscriber's reaction with `emoji`; idempotent either way.
    /// `None` (nothing written) unless the team has a published document with this id.
    async fn set_document_reaction(
        &self,
        team: TeamId,
        document: crate::ids::DocumentId,
        subscriber: SubscriberId,
        emoji: &str,
        react: bool,
        at: Timestamp,
    ) -> StoreResult<Option<crate::document::ReactionState>>;
}
