//! Creating a team with its owner user and the owner's first API key (command line, first
//! start). The key is returned in clear exactly once.

use sounding_domain::{
    access::{Role, TeamUser},
    api_key::{ApiKey, ApiKeySecret},
    ports::{Clock, Conflict, StoreError, TeamStore},
    subscriber::Email,
    team::Team,
    DomainError, UserId,
};

use crate::error::{AppError, AppResult};

/// A team to create (command line or first start).
#[derive(Debug, Clone)]
pub struct NewTeam {
    /// Display name; trimmed, at most 255 characters, not blank.
    pub name: String,
    /// Unique DNS label: 1-63 characters of `a-z`, `0-9` and `-`, lowercased.
    pub subdomain: String,
    /// The owner's e-mail; `owner@<subdomain>.invalid` when not given.
    pub owner_email: Option<String>,
}

impl NewTeam {
    /// A team whose owner gets the default e-mail.
    pub fn new(name: impl Into<String>, subdomain: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            subdomain: subdomain.into(),
            owner_email: None,
        }
    }
}

/// A created team with its owner and the owner's first key.
#[derive(Debug, Clone)]
pub struct CreatedTeam {
    /// The team as stored.
    pub team: Team,
    /// The team's owner user, named from the e-mail.
    pub owner: TeamUser,
    /// The owner's key (role owner, named `owner`), as stored.
    pub key: ApiKey,
    /// That key in clear: shown once, never stored.
    pub secret: ApiKeySecret,
}

/// Creates the team, its owner and an owner key in one write. 400 for a bad name, subdomain
/// or e-mail; 409 when the subdomain is taken. No caller check: the command line is trusted.
pub async fn create_team(
    teams: &dyn TeamStore,
    clock: &dyn Clock,
    input: NewTeam,
) -> AppResult<CreatedTeam> {
    let now = clock.now();
    let team = Team::new(&input.name, &input.subdomain, now)?;
    let email = match input.owner_email.as_deref() {
        Some(raw) => Email::parse(raw)?,
        None => Email::parse(&format!("owner@{}.invalid", team.subdomain))?,
    };
    let owner = TeamUser {
        id: UserId::new(),
        team_id: team.id,
        name: email.derived_name(),
        email: email.as_str().to_owned(),
        role: Role::Owner,
        created_at: now,
    };
    let (key, secret) = ApiKey::new(
        team.id,
        owner.id,
        Role::Owner,
        false,
        Some("owner".into()),
        now,
    );
    match teams.create_team(&team, &owner, &key).await {
        Err(StoreError::Conflict(Conflict::TeamSubdomain)) => {
            Err(AppError::Domain(DomainError::Conflict(format!(
                "A team with subdomain {} already exists",
                team.subdomain
            ))))
        }
        other => other.map_err(AppError::from),
    }?;
    Ok(CreatedTeam {
        team,
        owner,
        key,
        secret,
    })
}
