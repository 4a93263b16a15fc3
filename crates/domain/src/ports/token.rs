//! Subscriber tokens.

use crate::{
    timestamp::Timestamp,
    token::{SubscriberClaims, TokenError},
};

/// Signs and verifies subscriber tokens.
#[cfg_attr(feature = "mock", mockall::automock)]
pub trait TokenCodec: Send + Sync {
    /// The signed token carrying `claims`, as handed to the subscriber.
    fn issue(&self, claims: &SubscriberClaims) -> String;
    /// Checks signature, algorithm and expiry (at `now`).
    fn verify(&self, token: &str, now: Timestamp) -> Result<SubscriberClaims, TokenError>;
}
