//! What every request handler shares: the storage port, the clock, the token codec, the
//! rate-limit quotas, the webhook target policy and the signal that wakes the webhook worker.
//! Built once by the server crate and cloned into each worker.

use std::sync::Arc;

use sounding_domain::{
    ports::{Clock, HostResolver, Store, TokenCodec},
    webhook::TargetPolicy,
};
use tokio::sync::Notify;

use crate::BrowserOrigins;

#[derive(Clone)]
pub struct ApiState {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub tokens: Arc<dyn TokenCodec>,
    pub limits: RateLimits,
    /// Which webhook targets `automation.subscribe` accepts.
    pub webhook_policy: TargetPolicy,
    /// Resolves webhook target names at subscription.
    pub host_resolver: Arc<dyn HostResolver>,
    /// Wakes this instance's webhook worker for work the store does not announce itself: a
    /// `redeliver` (new outbox events are announced by the store as they commit).
    pub outbox_signal: Arc<Notify>,
    /// The sites whose pages may call the public operations from a browser.
    pub browser_origins: BrowserOrigins,
}

/// Requests allowed per one-minute window (decisions §8), counted by each instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// For requests made with a team API key, per key.
    pub per_key_per_minute: u32,
    /// For requests made with a subscriber token, per subscriber; and for requests without a
    /// valid credential, per client address.
    pub per_subscriber_per_minute: u32,
}

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            per_key_per_minute: 1000,
            per_subscriber_per_minute: 100,
        }
    }
}
