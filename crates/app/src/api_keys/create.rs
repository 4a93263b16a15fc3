//! Creating an API key for a team named by id or subdomain. The key belongs to the team's
//! first owner and acts with the requested role (a key never outranks its user).

use sounding_domain::{
    access::Role,
    api_key::{ApiKey, ApiKeySecret},
    ports::{AccessStore, Clock, TeamStore},
    team::Team,
    text, Entity, TeamId,
};

use crate::error::{AppError, AppResult};

/// A key to create from the command line (`sounding api-key create`).
#[derive(Debug, Clone)]
pub struct NewApiKey {
    /// A team id or subdomain.
    pub team: String,
    /// The role the key acts with, capped by its owner's role at authentication.
    pub role: Role,
    /// Whether the key may only call `.list`, `.info` and `.count` operations.
    pub read_only: bool,
    /// A label shown in listings; trimmed, at most 255 characters.
    pub name: Option<String>,
}

/// A created key, with its secret in clear: shown once, never stored.
#[derive(Debug, Clone)]
pub struct CreatedApiKey {
    /// The team the key belongs to.
    pub team: Team,
    /// The key as stored (hash and prefix only).
    pub key: ApiKey,
    /// The 38-character key to hand to the client.
    pub secret: ApiKeySecret,
}

/// Creates a key for the team `input.team` names, owned by its first owner. 404 when the
/// team, or an owner of it, does not exist. No caller check: the command line is trusted.
pub async fn create_api_key(
    teams: &dyn TeamStore,
    access: &dyn AccessStore,
    clock: &dyn Clock,
    input: NewApiKey,
) -> AppResult<CreatedApiKey> {
    let team = find_team(teams, &input.team).await?;
    let name = text::optional("name", input.name.as_deref(), text::NAME_MAX)?;
    let owner = access
        .users(team.id)
        .await?
        .into_iter()
        .find(|u| u.role == Role::Owner)
        .ok_or(AppError::not_found(Entity::User))?;
    let (key, secret) = ApiKey::new(
        team.id,
        owner.id,
        input.role,
        input.read_only,
        name,
        clock.now(),
    );
    access.insert_api_key(&key).await?;
    Ok(CreatedApiKey { team, key, secret })
}

async fn find_team(teams: &dyn TeamStore, id_or_subdomain: &str) -> AppResult<Team> {
    let found = match id_or_subdomain.parse::<TeamId>() {
        Ok(id) => teams.team(id).await?,
        Err(_) => {
            teams
                .team_by_subdomain(&id_or_subdomain.trim().to_ascii_lowercase())
                .await?
        }
    };
    found.ok_or(AppError::not_found(Entity::Team))
}
