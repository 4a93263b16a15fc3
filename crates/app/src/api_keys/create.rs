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

#[derive(Debug, Clone)]
pub struct NewApiKey {
    /// A team id or subdomain.
    pub team: String,
    pub role: Role,
    pub read_only: bool,
    pub name: Option<String>,
}

#[derive(Debug, Clone)]
pub struct CreatedApiKey {
    pub team: Team,
    pub key: ApiKey,
    pub secret: ApiKeySecret,
}

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
