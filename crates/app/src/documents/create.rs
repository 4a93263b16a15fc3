//! `documents.create`: a draft, or a published document when `publish` is true, with a fresh
//! `urlId` (another is drawn when the team already has the one drawn).

use crate::url_id::insert_with_fresh_url_id;
use sounding_domain::{
    access::{KeyHolder, Need},
    document::{DocumentDraft, DocumentView},
    ports::{Clock, Conflict, DocumentStore},
};

use crate::error::AppResult;

/// The body of `documents.create`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct NewDocumentInput {
    /// Required; trimmed, at most 255 characters.
    pub title: Option<String>,
    /// The body, at most 50,000 characters; empty when absent.
    pub text: Option<String>,
    /// `true` publishes the document at once; a draft when absent or `false`.
    pub publish: Option<bool>,
}

/// `documents.create`: the new document, without reactions. Any key but a read-only one
/// (403); 400 for a missing or overlong title.
pub async fn create_document(
    store: &dyn DocumentStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: NewDocumentInput,
) -> AppResult<DocumentView> {
    caller.require(Need::Write)?;
    let draft = DocumentDraft::new(input.title.as_deref(), input.text.as_deref(), input.publish)?;
    let now = clock.now();
    let document = insert_with_fresh_url_id(Conflict::DocumentUrlId, |url_id| {
        let document = draft.clone().into_document(caller.team_id, url_id, now);
        async move { store.insert_document(&document).await.map(|()| document) }
    })
    .await?;
    Ok(DocumentView {
        document,
        reactions: Default::default(),
        my_reactions: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Fixed;
    use sounding_domain::{access::Role, ports::MockDocumentStore, ports::StoreError, DomainError};

    use crate::AppError;

    fn titled(title: &str) -> NewDocumentInput {
        NewDocumentInput {
            title: Some(title.into()),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn a_taken_url_id_is_drawn_again() {
        let mut store = MockDocumentStore::new();
        let mut seq = mockall::Sequence::new();
        store
            .expect_insert_document()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Err(StoreError::Conflict(Conflict::DocumentUrlId)));
        store
            .expect_insert_document()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Ok(()));
        let view = create_document(
            &store,
            &Fixed,
            &KeyHolder::sample(Role::Member, false),
            titled("Hello"),
        )
        .await
        .unwrap();
        assert_eq!(view.document.url_id.len(), 10);
        assert_eq!(view.document.published_at, None);
    }

    #[tokio::test]
    async fn read_only_keys_and_bad_input_write_nothing() {
        let store = MockDocumentStore::new();
        let err = create_document(
            &store,
            &Fixed,
            &KeyHolder::sample(Role::Member, true),
            titled("Hello"),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, AppError::Domain(DomainError::Forbidden(_))));
        let err = create_document(
            &store,
            &Fixed,
            &KeyHolder::sample(Role::Member, false),
            titled(" "),
        )
        .await
        .unwrap_err();
        assert_eq!(err, AppError::invalid("title is required"));
    }
}
