//! The team itself.

use crate::{
    access::TeamUser,
    api_key::ApiKey,
    edit::{Edit, Edited},
    ids::TeamId,
    ports::StoreResult,
    team::Team,
};
use async_trait::async_trait;

/// Teams and their settings.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait TeamStore: Send + Sync {
    /// Whether any team exists (first start creates the default team when none does).
    async fn any_team(&self) -> StoreResult<bool>;
    /// Creates a team with its owner and the owner's first key. Conflict `team_subdomain`.
    async fn create_team(&self, team: &Team, owner: &TeamUser, key: &ApiKey) -> StoreResult<()>;
    /// The team; `None` when there is none with this id.
    async fn team(&self, id: TeamId) -> StoreResult<Option<Team>>;
    /// The team with exactly this subdomain (pass it lowercase, as `parse_subdomain` makes it);
    /// `None` when no team has it.
    async fn team_by_subdomain(&self, subdomain: &str) -> StoreResult<Option<Team>>;
    /// Runs `edit` on the team as stored, atomically (see `crate::edit`).
    async fn edit_team(&self, id: TeamId, edit: Edit<Team>) -> StoreResult<Edited<Team>>;
}
