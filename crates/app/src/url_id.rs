//! Drawing a new item's `urlId` (feedback, topics, documents): random, unique per team, with
//! another draw when the store reports the one drawn as taken.

use std::future::Future;

use rand::thread_rng;
use sounding_domain::{
    ports::{Conflict, StoreError, StoreResult},
    slug,
};

/// A new `urlId` is drawn this many times before giving up (a clash among 36^10 values is
/// already rare once).
const URL_ID_ATTEMPTS: u32 = 5;

/// Runs `insert` with a freshly drawn url id until the store does not answer `taken` (the
/// conflict that says the team has that url id), at most `URL_ID_ATTEMPTS` times: what the
/// first insert that is not refused for its url id returns.
pub(crate) async fn insert_with_fresh_url_id<T, Fut>(
    taken: Conflict,
    mut insert: impl FnMut(String) -> Fut,
) -> StoreResult<T>
where
    Fut: Future<Output = StoreResult<T>>,
{
    for _ in 0..URL_ID_ATTEMPTS {
        // Its own statement: the generator is not `Send` and must not live across the await.
        let url_id = slug::new_url_id(&mut thread_rng());
        match insert(url_id).await {
            Err(StoreError::Conflict(conflict)) if conflict == taken => continue,
            other => return other,
        }
    }
    Err(StoreError::Failure(
        "no free urlId after several attempts".into(),
    ))
}
