//! Team shapes: the team object and the parameters of `teams.update`.

use serde::{Deserialize, Serialize};
use sounding_app::teams::UpdateTeam;
use sounding_domain::{team::Team, TeamId, Timestamp};
use utoipa::ToSchema;

use crate::params::lenient;

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TeamDto {
    #[schema(value_type = String, format = Uuid)]
    pub id: TeamId,
    pub name: String,
    pub subdomain: String,
    #[schema(value_type = String, format = DateTime, example = "2026-11-22T10:04:05.123Z")]
    pub created_at: Timestamp,
    /// Lets a team API key create topics for anonymous visitors.
    pub allow_anonymous_feedback: bool,
    /// Holds new public feedback until the team publishes it.
    pub public_board_moderation: bool,
    /// Where the public portal (`/p/<subdomain>`) sends visitors to sign in; `null` when not
    /// set.
    #[schema(example = "https://acme.example/login")]
    pub portal_sign_in_url: Option<String>,
}

impl From<&Team> for TeamDto {
    fn from(team: &Team) -> Self {
        Self {
            id: team.id,
            name: team.name.clone(),
            subdomain: team.subdomain.clone(),
            created_at: team.created_at,
            allow_anonymous_feedback: team.allow_anonymous_feedback,
            public_board_moderation: team.public_board_moderation,
            portal_sign_in_url: team.portal_sign_in_url.clone(),
        }
    }
}

/// `{data: Team}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TeamResponse {
    pub data: TeamDto,
}

impl From<&Team> for TeamResponse {
    fn from(team: &Team) -> Self {
        Self { data: team.into() }
    }
}

/// `teams.update`: only the fields given change.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTeamParams {
    #[schema(min_length = 1, max_length = 255, pattern = r"\S")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub allow_anonymous_feedback: Option<bool>,
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub public_board_moderation: Option<bool>,
    /// An absolute http(s) URL for the portal's "Sign in" link; `null` or `""` removes it.
    #[serde(default, deserialize_with = "lenient::nullable")]
    #[schema(value_type = Option<String>, max_length = 2048, example = "https://acme.example/login", pattern = r"^\s*$|^\s*[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?([/?#][^\s\x00-\x1f\x7f-\x9f]*)?\s*$")]
    pub portal_sign_in_url: Option<Option<String>>,
}

impl From<UpdateTeamParams> for UpdateTeam {
    fn from(p: UpdateTeamParams) -> Self {
        Self {
            name: p.name,
            allow_anonymous_feedback: p.allow_anonymous_feedback,
            public_board_moderation: p.public_board_moderation,
            portal_sign_in_url: p.portal_sign_in_url,
        }
    }
}
