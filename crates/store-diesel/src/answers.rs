//! `AnswerStore`: an adapter's whole answers in the read cache, under the same commit count
//! as every other remembered read (`read_cache`), so they last exactly as long.

use std::sync::Arc;

use async_trait::async_trait;
use sounding_domain::ports::{AnswerPlace, AnswerStore, Remembered};

use crate::{
    read_cache::{KeptAnswer, RequestReads},
    DieselStore,
};

#[async_trait]
impl AnswerStore for DieselStore {
    async fn remembered_answer(&self, key: &[u8]) -> Remembered {
        let Some(cache) = &self.read_cache else {
            return Remembered::Missing(None);
        };
        // The count this request's reads go by (`one_request`): asked before the reads that
        // will make the answer, so it can only look older than it is.
        let Some(asked) = RequestReads::version(cache).await else {
            return Remembered::Missing(None);
        };
        if let Some(kept) = cache.answers.get(key, asked.version) {
            return Remembered::Answer(kept.body);
        }
        // Kept only while the database is quiet, as every remembered read (`Asked::quiet`).
        Remembered::Missing(asked.quiet.then(|| AnswerPlace {
            key: key.into(),
            mark: asked.version,
        }))
    }

    fn remember_answer(&self, place: AnswerPlace, answer: Arc<[u8]>) {
        if let Some(cache) = &self.read_cache {
            let kept = KeptAnswer {
                body: answer,
                key_len: place.key.len(),
            };
            cache.answers.put(place.key, place.mark, &kept);
        }
    }
}
