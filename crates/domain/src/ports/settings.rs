//! Instance-wide settings and the database's health.

use crate::ports::StoreResult;
use async_trait::async_trait;

/// Settings of the whole instance rather than of a team (the generated token-signing secret),
/// and a health check.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SettingsStore: Send + Sync {
    /// The stored value for `name`, storing `candidate` first if there is none. Concurrent
    /// callers all get the same value.
    async fn get_or_init_setting(&self, name: &str, candidate: &str) -> StoreResult<String>;
    /// Whether the database answers.
    async fn ping(&self) -> StoreResult<()>;
}
