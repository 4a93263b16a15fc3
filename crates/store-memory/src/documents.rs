//! `DocumentStore` in memory: each document is kept with its reactions, so removing the
//! document removes them too and its counts are computed from them.

use std::{cmp::Ordering, collections::BTreeSet};

use async_trait::async_trait;
use sounding_domain::{
    document::{
        search_text, title_key, Document, DocumentPatch, DocumentQuery, DocumentSort, DocumentView,
        ReactionCounts, ReactionState,
    },
    feedback_comment::Direction,
    ids::{DocumentId, SubscriberId, TeamId},
    page::Paged,
    ports::{Conflict, DocumentStore, StoreError, StoreResult},
    timestamp::Timestamp,
};

use crate::{feedback::page_of, MemoryStore, State};

/// A stored document and its reactions.
pub(crate) struct DocumentRow {
    document: Document,
    /// One entry per (subscriber, emoji): the set is the unique index.
    reactions: BTreeSet<(SubscriberId, String)>,
}

impl DocumentRow {
    fn counts(&self) -> ReactionCounts {
        let mut counts = ReactionCounts::new();
        for (_, emoji) in &self.reactions {
            *counts.entry(emoji.clone()).or_insert(0) += 1;
        }
        counts
    }

    fn mine(&self, viewer: Option<SubscriberId>) -> Vec<String> {
        let Some(viewer) = viewer else {
            return Vec::new();
        };
        self.reactions
            .iter()
            .filter(|(who, _)| *who == viewer)
            .map(|(_, emoji)| emoji.clone())
            .collect()
    }

    fn view(&self, viewer: Option<SubscriberId>) -> DocumentView {
        DocumentView {
            document: self.document.clone(),
            reactions: self.counts(),
            my_reactions: self.mine(viewer),
        }
    }
}

impl State {
    fn document_row_mut(&mut self, team: TeamId, id: DocumentId) -> Option<&mut DocumentRow> {
        self.documents
            .get_mut(&id)
            .filter(|r| r.document.team_id == team)
    }
}

/// The order of documents under `sort`, ascending, ties by id.
fn document_order(a: &Document, b: &Document, sort: DocumentSort) -> Ordering {
    let by_key = match sort {
        // `None` (unpublished) sorts before any time, as the databases' `IS NULL` key does.
        DocumentSort::PublishedAt => a.published_at.cmp(&b.published_at),
        DocumentSort::CreatedAt => a.created_at.cmp(&b.created_at),
        DocumentSort::UpdatedAt => a.updated_at.cmp(&b.updated_at),
        DocumentSort::Title => title_key(&a.title)
            .as_bytes()
            .cmp(title_key(&b.title).as_bytes()),
    };
    by_key.then(a.id.cmp(&b.id))
}

fn selected(document: &Document, team: TeamId, query: &DocumentQuery) -> bool {
    document.team_id == team
        && query
            .published
            .is_none_or(|p| p == document.published_at.is_some())
        && query
            .search
            .as_deref()
            .is_none_or(|term| search_text(&document.title, &document.text).contains(term))
}

#[async_trait]
impl DocumentStore for MemoryStore {
    async fn insert_document(&self, document: &Document) -> StoreResult<()> {
        let mut s = self.state();
        let taken = s.documents.values().any(|r| {
            r.document.team_id == document.team_id && r.document.url_id == document.url_id
        });
        if taken {
            return Err(StoreError::Conflict(Conflict::DocumentUrlId));
        }
        s.documents.insert(
            document.id,
            DocumentRow {
                document: document.clone(),
                reactions: BTreeSet::new(),
            },
        );
        Ok(())
    }

    async fn document(
        &self,
        team: TeamId,
        id: DocumentId,
        viewer: Option<SubscriberId>,
    ) -> StoreResult<Option<DocumentView>> {
        let s = self.state();
        Ok(s.documents
            .get(&id)
            .filter(|r| r.document.team_id == team)
            .map(|r| r.view(viewer)))
    }

    async fn update_document(
        &self,
        team: TeamId,
        id: DocumentId,
        patch: &DocumentPatch,
        now: Timestamp,
    ) -> StoreResult<Option<DocumentView>> {
        let mut s = self.state();
        let Some(row) = s.document_row_mut(team, id) else {
            return Ok(None);
        };
        patch.clone().apply(&mut row.document, now);
        Ok(Some(row.view(None)))
    }

    async fn set_document_published(
        &self,
        team: TeamId,
        id: DocumentId,
        publish: bool,
        now: Timestamp,
    ) -> StoreResult<Option<DocumentView>> {
        let mut s = self.state();
        let Some(row) = s.document_row_mut(team, id) else {
            return Ok(None);
        };
        let doc = &mut row.document;
        if publish != doc.published_at.is_some() {
            doc.published_at = publish.then_some(now);
            doc.updated_at = now;
        }
        Ok(Some(row.view(None)))
    }

    async fn delete_document(&self, team: TeamId, id: DocumentId) -> StoreResult<bool> {
        let mut s = self.state();
        if s.document_row_mut(team, id).is_none() {
            return Ok(false);
        }
        s.documents.remove(&id);
        Ok(true)
    }

    async fn list_documents(
        &self,
        team: TeamId,
        query: &DocumentQuery,
    ) -> StoreResult<Paged<DocumentView>> {
        let s = self.state();
        let mut rows: Vec<&DocumentRow> = s
            .documents
            .values()
            .filter(|r| selected(&r.document, team, query))
            .collect();
        rows.sort_by(|a, b| {
            let ascending = document_order(&a.document, &b.document, query.sort);
            match query.direction {
                Direction::Asc => ascending,
                Direction::Desc => ascending.reverse(),
            }
        });
        let views = rows.into_iter().map(|r| r.view(query.viewer)).collect();
        Ok(page_of(views, query.page))
    }

    async fn set_document_reaction(
        &self,
        team: TeamId,
        document: DocumentId,
        subscriber: SubscriberId,
        emoji: &str,
        react: bool,
        _at: Timestamp,
    ) -> StoreResult<Option<ReactionState>> {
        let mut s = self.state();
        let Some(row) = s
            .document_row_mut(team, document)
            .filter(|r| r.document.published_at.is_some())
        else {
            return Ok(None);
        };
        let key = (subscriber, emoji.to_owned());
        if react {
            row.reactions.insert(key);
        } else {
            row.reactions.remove(&key);
        }
        Ok(Some(ReactionState {
            reactions: row.counts(),
            mine: row.mine(Some(subscriber)),
        }))
    }
}
