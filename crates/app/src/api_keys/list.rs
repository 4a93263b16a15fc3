//! `api-keys.list` (admin): the team's keys, oldest first. Never the key or its hash: the
//! HTTP shape shows the prefix only.

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    api_key::ApiKey,
    ports::AccessStore,
};

use crate::error::AppResult;

/// `api-keys.list`: the caller's team's keys, oldest first. Owners and admins only (403).
pub async fn list_api_keys(access: &dyn AccessStore, caller: &KeyHolder) -> AppResult<Vec<ApiKey>> {
    caller.require(Need::Admin(AdminArea::ApiKeys))?;
    Ok(access.api_keys(caller.team_id).await?)
}
