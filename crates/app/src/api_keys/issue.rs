//! `api-keys.create` (admin): a key for the calling key's user, acting with the caller's
//! effective role unless a lower one is asked (a higher one is 403). Shown once.

use sounding_domain::{
    access::{AdminArea, KeyHolder, Need, Role},
    api_key::{ApiKey, ApiKeySecret},
    ports::{AccessStore, Clock},
    team_admin::issued_key_role,
    text,
};

use crate::error::AppResult;

#[derive(Debug, Clone, Default)]
pub struct IssueApiKey {
    pub role: Option<String>,
    pub read_only: Option<bool>,
    pub name: Option<String>,
}

pub async fn issue_api_key(
    access: &dyn AccessStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: IssueApiKey,
) -> AppResult<(ApiKey, ApiKeySecret)> {
    caller.require(Need::Admin(AdminArea::ApiKeys))?;
    let requested = input.role.as_deref().map(Role::parse).transpose()?;
    let name =
        text::optional("name", input.name.as_deref(), text::NAME_MAX)?.filter(|n| !n.is_empty());
    let role = issued_key_role(caller, requested)?;
    let (key, secret) = ApiKey::new(
        caller.team_id,
        caller.user_id,
        role,
        input.read_only.unwrap_or(false),
        name,
        clock.now(),
    );
    access.insert_api_key(&key).await?;
    Ok((key, secret))
}
