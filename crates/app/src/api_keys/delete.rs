//! `api-keys.delete {id}` (admin): removes one of the team's keys. Keys are looked up in the
//! store on every request, so the next request with it fails with 401 on every instance.

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    ports::AccessStore,
    ApiKeyId, Entity,
};

use crate::error::{AppError, AppResult};

/// `api-keys.delete {id}`: deletes one of the caller's team's keys and returns its id.
/// Owners and admins only (403 otherwise); 404 when the team has no such key.
pub async fn delete_api_key(
    access: &dyn AccessStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<ApiKeyId> {
    caller.require(Need::Admin(AdminArea::ApiKeys))?;
    let id = ApiKeyId::parse_required("id", id)?;
    if access.delete_team_api_key(caller.team_id, id).await? {
        Ok(id)
    } else {
        Err(AppError::not_found(Entity::ApiKey))
    }
}
