//! Revoking (deleting) an API key: the very next request with it fails with 401.

use sounding_domain::{ports::AccessStore, ApiKeyId, Entity};

use crate::error::{AppError, AppResult};

/// Deletes the key with id `id`, of any team (the command line's `api-key revoke`); 404
/// when there is none, 400 when `id` is not a UUID.
pub async fn revoke_api_key(access: &dyn AccessStore, id: &str) -> AppResult<()> {
    let id = ApiKeyId::parse("id", id)?;
    if access.delete_api_key(id).await? {
        Ok(())
    } else {
        Err(AppError::not_found(Entity::ApiKey))
    }
}
