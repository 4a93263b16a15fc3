//! Whole answers an adapter made (the HTTP adapter's response bodies), remembered by the store
//! until anything is committed.

use std::sync::Arc;

use async_trait::async_trait;

/// Answers remembered for an adapter, under keys of its own making, with the store's promise
/// for a read: an answer is given back only while nothing was committed since the reads that
/// made it began, by this instance or any other on the database. What a key must hold is the
/// adapter's business: everything the answer depends on besides the stored data (the
/// operation, its input, what of the caller it reads). An answer that moves with the clock
/// must not be remembered at all.
#[async_trait]
pub trait AnswerStore: Send + Sync {
    /// The answer remembered under `key`, if nothing was committed since it was made; else
    /// where to keep the one about to be made, to be asked for before its reads begin.
    async fn remembered_answer(&self, key: &[u8]) -> Remembered;
    /// Keeps `answer`, made by reads that began after `place` was handed out.
    fn remember_answer(&self, place: AnswerPlace, answer: Arc<[u8]>);
}

/// What [`AnswerStore::remembered_answer`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remembered {
    /// The answer, as it was kept.
    Answer(Arc<[u8]>),
    /// None that is still true: make it, and keep it in this place if there is one (a store
    /// that remembers nothing, or one under a stream of commits, offers none).
    Missing(Option<AnswerPlace>),
}

/// Where an answer about to be made will be kept: its key, and the store's mark of the data
/// it will have been made from. Made by the store; the adapter hands it back untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerPlace {
    /// The key it was asked for under.
    pub key: Box<[u8]>,
    /// The store's count of commits when it was asked for.
    pub mark: i64,
}
