//! `teams.info`: the caller's team; used to confirm a key works.

use sounding_domain::{
    access::{KeyHolder, Need},
    ports::TeamStore,
    team::Team,
    Entity,
};

use crate::error::{AppError, AppResult};

/// `teams.info`: the caller's team. Any key, read-only included.
pub async fn team_info(teams: &dyn TeamStore, caller: &KeyHolder) -> AppResult<Team> {
    caller.require(Need::Read)?;
    teams
        .team(caller.team_id)
        .await?
        .ok_or(AppError::not_found(Entity::Team))
}
