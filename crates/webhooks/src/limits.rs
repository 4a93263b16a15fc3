//! A cap on concurrent attempts per target, so one slow receiver cannot take every worker and
//! a burst of events does not open a flood of connections to one host. The cap adapts to how
//! the target copes (additive increase, multiplicative decrease, as TCP does with its
//! window): each attempt that strains the target (no answer, 429, 5xx, slow) halves it, down to
//! one; every `cap` attempts in a row that do not bring it back up by one, to the configured
//! most.

use std::sync::{Arc, Mutex, PoisonError};

use dashmap::DashMap;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use url::Url;

/// One gate per target (scheme, host, port). A target is forgotten once nobody uses it and it
/// is back at the most, so the map holds only targets with attempts under way or a cap still
/// lowered.
pub(crate) struct TargetLimits {
    most: usize,
    targets: DashMap<String, Arc<Gate>>,
}

/// One target's semaphore and the cap it is held to.
struct Gate {
    permits: Arc<Semaphore>,
    state: Mutex<GateState>,
}

struct GateState {
    /// Attempts allowed at once now.
    cap: usize,
    /// Permits in existence (free or held): above `cap` after a decrease, until attempts in
    /// flight give theirs back and they are retired.
    issued: usize,
    /// Attempts in a row that went well since the cap last moved.
    calm: usize,
}

/// A slot for one attempt; `finish` reports how the target took it. Frees the slot (and the
/// target's entry, if idle and at the most) on drop.
pub(crate) struct Slot<'a> {
    limits: &'a TargetLimits,
    key: String,
    gate: Arc<Gate>,
    permit: Option<OwnedSemaphorePermit>,
}

impl TargetLimits {
    pub(crate) fn new(most: usize) -> Self {
        Self {
            most: most.max(1),
            targets: DashMap::new(),
        }
    }

    /// Attempts the target at `url` may have at once now: what a pass should take for it.
    pub(crate) fn cap(&self, url: &Url) -> usize {
        self.targets
            .get(&target_key(url))
            .map_or(self.most, |gate| gate.lock().cap)
    }

    /// Waits for a free slot at the URL's target.
    pub(crate) async fn acquire(&self, url: &Url) -> Slot<'_> {
        let key = target_key(url);
        let gate = self
            .targets
            .entry(key.clone())
            .or_insert_with(|| {
                Arc::new(Gate {
                    permits: Arc::new(Semaphore::new(self.most)),
                    state: Mutex::new(GateState {
                        cap: self.most,
                        issued: self.most,
                        calm: 0,
                    }),
                })
            })
            .clone();
        // The semaphore is never closed, so acquiring only fails in theory; without a permit
        // the attempt simply goes ahead unthrottled rather than failing.
        let permit = gate.permits.clone().acquire_owned().await.ok();
        Slot {
            limits: self,
            key,
            gate,
            permit,
        }
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.targets.len()
    }
}

impl Gate {
    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        // The state is a few counters, consistent after every statement: a panic elsewhere
        // leaves nothing half-done to guard against.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Slot<'_> {
    /// How the target took this attempt: `strained` halves its cap, a run of calm attempts as
    /// long as the cap raises it by one.
    pub(crate) fn finish(&self, strained: bool) {
        let mut state = self.gate.lock();
        if strained {
            state.cap = (state.cap / 2).max(1);
            state.calm = 0;
            // Free permits above the cap go now; held ones as they come back (`drop`).
            let excess = state.issued.saturating_sub(state.cap);
            state.issued -= self.gate.permits.forget_permits(excess);
        } else if state.cap < self.limits.most {
            state.calm += 1;
            if state.calm >= state.cap {
                state.calm = 0;
                state.cap += 1;
                if state.issued < state.cap {
                    state.issued += 1;
                    self.gate.permits.add_permits(1);
                }
            }
        }
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Some(permit) = self.permit.take() {
            let mut state = self.gate.lock();
            if state.issued > state.cap {
                // Retired rather than given back: the cap went down while it was held.
                state.issued -= 1;
                permit.forget();
            } else {
                drop(permit);
            }
        }
        // Only the map's own reference left: nobody holds or waits for this target. The shard
        // lock is held while counting, so no new waiter can slip in between. A target whose
        // cap is still lowered is kept, so the next burst does not start at the most again.
        let most = self.limits.most;
        self.limits.targets.remove_if(&self.key, |_, gate| {
            Arc::strong_count(gate) == 2 && gate.lock().cap == most
        });
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
    use std::time::Duration;

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

    async fn granted(limits: &TargetLimits, url: &Url) -> bool {
        tokio::time::timeout(Duration::from_millis(50), limits.acquire(url))
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn slots_are_capped_and_idle_targets_forgotten() {
        let limits = TargetLimits::new(2);
        let url = Url::parse("https://example.com/").unwrap();
        let first = limits.acquire(&url).await;
        let second = limits.acquire(&url).await;
        assert!(!granted(&limits, &url).await, "a third slot was granted");
        drop(first);
        let third = limits.acquire(&url).await;
        assert_eq!(limits.tracked(), 1);
        drop((second, third));
        assert_eq!(limits.tracked(), 0);
    }

    /// Strain halves the cap (slots held meanwhile are retired as they come back), calm runs
    /// raise it one at a time back to the most, and a lowered cap outlives an idle moment.
    #[tokio::test]
    async fn the_cap_halves_on_strain_and_grows_back_with_calm() {
        let limits = TargetLimits::new(8);
        let url = Url::parse("https://slow.example/").unwrap();
        assert_eq!(limits.cap(&url), 8);

        let mut held = Vec::new();
        for _ in 0..8 {
            held.push(limits.acquire(&url).await);
        }
        held[0].finish(true);
        assert_eq!(limits.cap(&url), 4);
        held[1].finish(true);
        assert_eq!(limits.cap(&url), 2);
        drop(held);
        assert_eq!(limits.tracked(), 1, "a lowered cap is remembered");

        // Only two at once now.
        let a = limits.acquire(&url).await;
        let b = limits.acquire(&url).await;
        assert!(!granted(&limits, &url).await, "the cap of 2 was exceeded");

        // Two calm attempts (as many as the cap) raise it to 3: one more slot.
        a.finish(false);
        b.finish(false);
        assert_eq!(limits.cap(&url), 3);
        drop((a, b));
        let mut held = Vec::new();
        for _ in 0..3 {
            held.push(limits.acquire(&url).await);
        }
        assert!(!granted(&limits, &url).await, "the cap of 3 was exceeded");

        // Calm all the way back to the most, and no further.
        for _ in 0..100 {
            held[0].finish(false);
        }
        assert_eq!(limits.cap(&url), 8);
        drop(held);
        assert_eq!(limits.tracked(), 0, "back at the most and idle: forgotten");
        let mut held = Vec::new();
        for _ in 0..8 {
            held.push(limits.acquire(&url).await);
        }
        assert!(!granted(&limits, &url).await, "more permits than the most");
    }

    /// Free permits above a lowered cap go at once, not only as held ones come back.
    #[tokio::test]
    async fn a_lowered_cap_holds_while_few_attempts_are_under_way() {
        let limits = TargetLimits::new(8);
        let url = Url::parse("https://flaky.example/").unwrap();
        let first = limits.acquire(&url).await;
        first.finish(true);
        assert_eq!(limits.cap(&url), 4);
        let mut held = vec![first];
        for _ in 0..3 {
            held.push(limits.acquire(&url).await);
        }
        assert!(
            !granted(&limits, &url).await,
            "a fifth slot under a cap of 4"
        );
    }

    #[tokio::test]
    async fn the_cap_never_drops_below_one() {
        let limits = TargetLimits::new(4);
        let url = Url::parse("https://down.example/").unwrap();
        for _ in 0..5 {
            let slot = limits.acquire(&url).await;
            slot.finish(true);
        }
        assert_eq!(limits.cap(&url), 1);
        let _one = limits.acquire(&url).await;
        assert!(!granted(&limits, &url).await);
    }
}
