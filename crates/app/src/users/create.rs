//! `users.create` (admin): a new team user; only an owner may create an owner. 409 when the
//! e-mail is a user of the team already.

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need, TeamUser},
    ports::{AccessStore, Clock, Conflict, StoreError},
    team_admin::{may_create_user, NewUser},
    DomainError,
};

use crate::error::{AppError, AppResult};

/// The body of `users.create`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct NewUserInput {
    /// Required; a valid address, stored lowercased; a subscriber with it counts as a member.
    pub email: Option<String>,
    /// Required; trimmed, at most 255 characters.
    pub name: Option<String>,
    /// Required: `owner` (only an owner may give it), `admin` or `member`.
    pub role: Option<String>,
}

/// `users.create`: the new user. Owners and admins only (403); 409 when the team has a user
/// with that e-mail.
pub async fn create_user(
    access: &dyn AccessStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: NewUserInput,
) -> AppResult<TeamUser> {
    caller.require(Need::Admin(AdminArea::Users))?;
    let new = NewUser::new(
        input.email.as_deref(),
        input.name.as_deref(),
        input.role.as_deref(),
    )?;
    may_create_user(caller, new.role)?;
    let email = new.email.as_str().to_owned();
    let user = new.into_user(caller.team_id, clock.now());
    match access.insert_user(&user).await {
        Ok(()) => Ok(user),
        Err(StoreError::Conflict(Conflict::UserEmail)) => Err(AppError::Domain(
            DomainError::Conflict(format!("A user with e-mail {email} already exists")),
        )),
        Err(e) => Err(e.into()),
    }
}
