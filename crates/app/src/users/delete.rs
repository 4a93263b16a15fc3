//! `users.delete {id}` (owner): removes a user and their API keys, which fail with 401 from
//! the next request on. The team's last owner cannot be removed (409).

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    ports::AccessStore,
    team_admin::may_delete_user,
    Entity, UserId,
};

use super::last_owner;
use crate::error::{AppError, AppResult};

/// `users.delete {id}`: removes the user and their keys; the id. Owners only (403); 404 when
/// the team has no such user; 409 for the last owner.
pub async fn delete_user(
    access: &dyn AccessStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<UserId> {
    caller.require(Need::Admin(AdminArea::Users))?;
    may_delete_user(caller)?;
    let id = UserId::parse_required("id", id)?;
    if access
        .delete_user(caller.team_id, id)
        .await
        .map_err(last_owner)?
    {
        Ok(id)
    } else {
        Err(AppError::not_found(Entity::User))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::users::update_user_role;
    use sounding_domain::{
        access::{Role, TeamUser},
        ports::{Conflict, MockAccessStore, StoreError},
        team_admin::LAST_OWNER_MESSAGE,
        DomainError, Timestamp,
    };

    #[tokio::test]
    async fn the_last_owner_is_a_409_with_the_documented_message() {
        let mut access = MockAccessStore::new();
        access
            .expect_delete_user()
            .returning(|_, _| Err(StoreError::Conflict(Conflict::LastOwner)));
        let err = delete_user(
            &access,
            &KeyHolder::sample(Role::Owner, false),
            Some(&UserId::new().to_string()),
        )
        .await
        .unwrap_err();
        assert_eq!(
            err,
            AppError::Domain(DomainError::Conflict(LAST_OWNER_MESSAGE.into()))
        );
    }

    #[tokio::test]
    async fn an_admin_cannot_delete_users_and_storage_is_not_touched() {
        let mut access = MockAccessStore::new();
        access.expect_delete_user().never();
        let err = delete_user(
            &access,
            &KeyHolder::sample(Role::Admin, false),
            Some(&UserId::new().to_string()),
        )
        .await
        .unwrap_err();
        assert_eq!(
            err,
            AppError::forbidden("Only an owner can delete team users")
        );
    }

    #[tokio::test]
    async fn an_admin_cannot_demote_an_owner() {
        let caller = KeyHolder::sample(Role::Admin, false);
        let team = caller.team_id;
        let mut access = MockAccessStore::new();
        access.expect_user().returning(move |_, id| {
            Ok(Some(TeamUser {
                id,
                team_id: team,
                email: "o@x.io".into(),
                name: "O".into(),
                role: Role::Owner,
                created_at: Timestamp::from_unix_seconds(0).unwrap(),
            }))
        });
        access.expect_set_user_role().never();
        let err = update_user_role(
            &access,
            &caller,
            Some(&UserId::new().to_string()),
            Some("member"),
        )
        .await
        .unwrap_err();
        assert_eq!(
            err,
            AppError::forbidden("Only an owner can change an owner or make one")
        );
    }
}
