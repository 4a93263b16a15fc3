//! `users.list` (team, any role, read-only keys too): the team's users, owners first.

use sounding_domain::{
    access::{KeyHolder, Need, TeamUser},
    ports::AccessStore,
};

use crate::error::AppResult;

/// `users.list`: the team's users, owners first. Any key.
pub async fn list_users(access: &dyn AccessStore, caller: &KeyHolder) -> AppResult<Vec<TeamUser>> {
    caller.require(Need::Read)?;
    Ok(access.users(caller.team_id).await?)
}
