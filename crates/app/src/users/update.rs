//! `users.update {id, role}` (admin): changes a user's role. Only an owner may change an
//! owner or promote to owner; the team's last owner cannot be demoted (409). A demoted
//! user's keys act with the new role from the next request on (the key's role is capped by
//! its user's at authentication).

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need, Role, TeamUser},
    ports::AccessStore,
    team_admin::may_change_role,
    DomainError, Entity, UserId,
};

use super::last_owner;
use crate::error::{AppError, AppResult};

/// `users.update {id, role}`: the user with their new role. Owners and admins only (403, and
/// owners only where an owner is involved); 404 for an unknown user; 409 for the last owner.
pub async fn update_user_role(
    access: &dyn AccessStore,
    caller: &KeyHolder,
    id: Option<&str>,
    role: Option<&str>,
) -> AppResult<TeamUser> {
    caller.require(Need::Admin(AdminArea::Users))?;
    let id = UserId::parse_required("id", id)?;
    let role = Role::parse(role.ok_or_else(|| DomainError::invalid("role is required"))?)?;
    let target = access
        .user(caller.team_id, id)
        .await?
        .ok_or(AppError::not_found(Entity::User))?;
    may_change_role(caller, &target, role)?;
    access
        .set_user_role(caller.team_id, id, role)
        .await
        .map_err(last_owner)?
        .ok_or(AppError::not_found(Entity::User))
}
