//! The current time.

use crate::timestamp::Timestamp;

/// The current time; injected so tests can move it.
#[cfg_attr(feature = "mock", mockall::automock)]
pub trait Clock: Send + Sync {
    /// The current instant (UTC, to the millisecond).
    fn now(&self) -> Timestamp;
}
