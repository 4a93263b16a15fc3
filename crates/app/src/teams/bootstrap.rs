//! First start: a database without any team gets team `Default` with an owner key, so a
//! fresh install is usable at once. Later starts do nothing.

use sounding_domain::ports::{Clock, TeamStore};

use super::create::{create_team, CreatedTeam, NewTeam};
use crate::error::AppResult;

/// The name of the team a fresh install starts with.
pub const DEFAULT_TEAM_NAME: &str = "Default";
/// The subdomain of the team a fresh install starts with.
pub const DEFAULT_TEAM_SUBDOMAIN: &str = "default";

/// The created team and its key, or `None` when a team already existed.
pub async fn bootstrap_default_team(
    teams: &dyn TeamStore,
    clock: &dyn Clock,
) -> AppResult<Option<CreatedTeam>> {
    if teams.any_team().await? {
        return Ok(None);
    }
    let input = NewTeam {
        name: DEFAULT_TEAM_NAME.into(),
        subdomain: DEFAULT_TEAM_SUBDOMAIN.into(),
        owner_email: None,
    };
    match create_team(teams, clock, input).await {
        Ok(created) => Ok(Some(created)),
        // Another instance bootstrapped the same database a moment ago.
        Err(crate::AppError::Domain(sounding_domain::DomainError::Conflict(_))) => Ok(None),
        Err(e) => Err(e),
    }
}
