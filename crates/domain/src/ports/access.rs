//! Team users, API keys and the credentials that resolve to them.

use crate::{
    access::{Role, TeamUser},
    api_key::{ApiKey, ApiKeyGrant},
    ids::{ApiKeyId, TeamId, UserId},
    ports::StoreResult,
    timestamp::Timestamp,
};
use async_trait::async_trait;

/// Team users and API keys: what authentication and team administration read and write.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait AccessStore: Send + Sync {
    /// Stores a newly issued key (its hash and prefix; the key itself is never stored).
    async fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()>;
    /// The key with this SHA-256 hash and its user's role, if the key still exists.
    async fn api_key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKeyGrant>>;
    /// Removes a key; `false` when there was none.
    async fn delete_api_key(&self, id: ApiKeyId) -> StoreResult<bool>;
    /// The team's users, owners first, then by creation.
    async fn users(&self, team: TeamId) -> StoreResult<Vec<TeamUser>>;

    // Team administration (issue 6).
    /// Conflict `user_email` (nothing written) when the team has a user with the e-mail.
    async fn insert_user(&self, user: &TeamUser) -> StoreResult<()>;
    /// The team's user; `None` when the team has none with this id.
    async fn user(&self, team: TeamId, id: UserId) -> StoreResult<Option<TeamUser>>;
    /// Gives the user `role`; the user as stored, or `None` when gone. Conflict `last_owner`
    /// (nothing written) when it would leave the team without an owner; checked in the same
    /// transaction as the write, so two concurrent demotions cannot both pass.
    async fn set_user_role(
        &self,
        team: TeamId,
        id: UserId,
        role: Role,
    ) -> StoreResult<Option<TeamUser>>;
    /// Removes the user and every API key of theirs; `false` when there was none. Conflict
    /// `last_owner` (nothing removed) when they are the team's last owner.
    async fn delete_user(&self, team: TeamId, id: UserId) -> StoreResult<bool>;
    /// The team's keys, oldest first.
    async fn api_keys(&self, team: TeamId) -> StoreResult<Vec<ApiKey>>;
    /// Removes the team's key; `false` when the team has no such key.
    async fn delete_team_api_key(&self, team: TeamId, id: ApiKeyId) -> StoreResult<bool>;
    /// Records a use of the key at `now` unless one was recorded within the last
    /// `resolution_seconds` (checked in the statement, so instances never write more often).
    async fn touch_api_key(
        &self,
        id: ApiKeyId,
        now: Timestamp,
        resolution_seconds: i64,
    ) -> StoreResult<()>;
}
