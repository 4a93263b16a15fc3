//! Team users (issue 6): list any role may read; create and re-role need an admin; delete
//! needs an owner. Only owners make, change or remove owners; the last owner stays.

mod create;
mod delete;
mod list;
mod update;

pub use create::{create_user, NewUserInput};
pub use delete::delete_user;
pub use list::list_users;
pub use update::update_user_role;

use sounding_domain::{
    ports::{Conflict, StoreError},
    team_admin::LAST_OWNER_MESSAGE,
    DomainError,
};

use crate::error::AppError;

/// The store's last-owner refusal as the API's 409.
fn last_owner(e: StoreError) -> AppError {
    match e {
        StoreError::Conflict(Conflict::LastOwner) => {
            AppError::Domain(DomainError::Conflict(LAST_OWNER_MESSAGE.to_owned()))
        }
        other => other.into(),
    }
}
