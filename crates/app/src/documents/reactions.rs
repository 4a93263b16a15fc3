//! `public/document-reactions.create|delete`: a subscriber adds or removes their reaction
//! with one emoji on a published document of their team. Both are idempotent.

use sounding_domain::{
    access::SubscriberSession,
    document::{parse_emoji, ReactionState},
    ports::{Clock, DocumentStore},
    DocumentId,
};

use super::document_not_found;
use crate::error::AppResult;

/// The body of `public/document-reactions.create|delete`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct ReactionInput {
    /// `documentId`: the document's UUID; required.
    pub document_id: Option<String>,
    /// Required; 1 to 32 characters, no whitespace or control characters.
    pub emoji: Option<String>,
}

/// The reaction as asked for, and the document's reactions after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReactionOutcome {
    /// The document reacted to.
    pub document_id: DocumentId,
    /// The emoji added or removed.
    pub emoji: String,
    /// The document's reaction counts and the subscriber's own emoji after the change.
    pub state: ReactionState,
}

/// `public/document-reactions.create`: adds the subscriber's reaction (idempotent). 404 unless
/// the subscriber's team has a published document with that id.
pub async fn react_to_document(
    store: &dyn DocumentStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
    input: ReactionInput,
) -> AppResult<ReactionOutcome> {
    set_reaction(store, clock, session, input, true).await
}

/// `public/document-reactions.delete`: removes the subscriber's reaction (idempotent). 404
/// unless the subscriber's team has a published document with that id.
pub async fn unreact_to_document(
    store: &dyn DocumentStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
    input: ReactionInput,
) -> AppResult<ReactionOutcome> {
    set_reaction(store, clock, session, input, false).await
}

async fn set_reaction(
    store: &dyn DocumentStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
    input: ReactionInput,
    react: bool,
) -> AppResult<ReactionOutcome> {
    let document_id = DocumentId::parse_required("documentId", input.document_id.as_deref())?;
    let emoji = parse_emoji(input.emoji.as_deref())?;
    let subscriber = &session.subscriber;
    let state = store
        .set_document_reaction(
            subscriber.team_id,
            document_id,
            subscriber.id,
            &emoji,
            react,
            clock.now(),
        )
        .await?
        .ok_or_else(document_not_found)?;
    Ok(ReactionOutcome {
        document_id,
        emoji,
        state,
    })
}
