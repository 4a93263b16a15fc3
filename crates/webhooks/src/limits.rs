//! A cap on concurrent attempts per target, so one slow receiver cannot take every worker and
//! a burst of events does not open a flood of connections to one host.

use std::sync::Arc;

use dashmap::DashMap;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use url::Url;

/// One semaphore per target (scheme, host, port), dropped again when nobody uses it, so the
/// map holds only targets with attempts under way.
pub(crate) struct TargetLimits {
    per_target: usize,
    targets: DashMap<String, Arc<Semaphore>>,
}

/// A slot for one attempt; frees it (and the target's entry, if idle) on drop.
pub(crate) struct Slot<'a> {
    limits: &'a TargetLimits,
    key: String,
    permit: Option<OwnedSemaphorePermit>,
}

impl TargetLimits {
    pub(crate) fn new(per_target: usize) -> Self {
        Self {
            per_target: per_target.max(1),
            targets: DashMap::new(),
        }
    }

    /// Waits for a free slot at the URL's target.
    pub(crate) async fn acquire(&self, url: &Url) -> Slot<'_> {
        let key = target_key(url);
        let semaphore = self
            .targets
            .entry(key.clone())
            .or_insert_with(|| Arc::new(Semaphore::new(self.per_target)))
            .clone();
        // The semaphore is never closed, so acquiring only fails in theory; without a permit
        // the attempt simply goes ahead unthrottled rather than failing.
        let permit = semaphore.acquire_owned().await.ok();
        Slot {
            limits: self,
            key,
            permit,
        }
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.targets.len()
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        drop(self.permit.take());
        // Only the map's own reference left: nobody holds or waits for this target. The shard
        // lock is held while counting, so no new waiter can slip in between.
        self.limits
            .targets
            .remove_if(&self.key, |_, semaphore| Arc::strong_count(semaphore) == 1);
    }
}

/// `scheme://host:port`, the unit of the limit.
fn target_key(url: &Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_scheme_host_and_port() {
        let key = |raw: &str| target_key(&Url::parse(raw).unwrap());
        assert_eq!(key("https://Example.com/a?b"), "https://example.com:443");
        assert_eq!(
            key("https://example.com:443/other"),
            "https://example.com:443"
        );
        assert_eq!(key("http://127.0.0.1:8080/x"), "http://127.0.0.1:8080");
    }

    #[tokio::test]
    async fn slots_are_capped_and_idle_targets_forgotten() {
        let limits = TargetLimits::new(2);
        let url = Url::parse("https://example.com/").unwrap();
        let first = limits.acquire(&url).await;
        let second = limits.acquire(&url).await;
        let third =
            tokio::time::timeout(std::time::Duration::from_millis(50), limits.acquire(&url));
        assert!(third.await.is_err(), "a third slot was granted");
        drop(first);
        let third = limits.acquire(&url).await;
        assert_eq!(limits.tracked(), 1);
        drop((second, third));
        assert_eq!(limits.tracked(), 0);
    }
}
