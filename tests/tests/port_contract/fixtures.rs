//! Domain values for the port-contract story: teams with their owner and key, boards,
//! identify requests and instants with millisecond precision.

use serde_json::Value;
use sounding_domain::{
    access::{Role, TeamUser},
    api_key::ApiKey,
    board::{Board, BoardMeta},
    ids::{BoardId, TeamId, UserId},
    ports::Store,
    subscriber::Identify,
    team::Team,
    timestamp::Timestamp,
};

/// An instant from RFC 3339.
pub fn at(rfc3339: &str) -> Timestamp {
    Timestamp::parse_rfc3339(rfc3339).unwrap_or_else(|| panic!("bad timestamp {rfc3339}"))
}

pub fn t0() -> Timestamp {
    at("2026-03-04T05:06:07.089Z")
}

pub struct TeamFixture {
    pub team: Team,
    pub owner: TeamUser,
    pub key: ApiKey,
}

/// A team, its owner and the owner's key, not yet stored.
pub fn team_fixture(subdomain: &str, now: Timestamp) -> TeamFixture {
    let team = Team::new(&format!("Team {subdomain}"), subdomain, now).expect("valid team");
    let owner = TeamUser {
        id: UserId::new(),
        team_id: team.id,
        email: format!("owner@{subdomain}.example"),
        name: "Owner".into(),
        role: Role::Owner,
        created_at: now,
    };
    let (key, _secret) = ApiKey::new(team.id, owner.id, Role::Owner, false, None, now);
    TeamFixture { team, owner, key }
}

/// A stored team (with owner and key).
pub async fn stored_team(store: &dyn Store, subdomain: &str) -> TeamFixture {
    let fixture = team_fixture(subdomain, t0());
    store
        .create_team(&fixture.team, &fixture.owner, &fixture.key)
        .await
        .expect("create team");
    fixture
}

pub fn identify(email: &str, name: Option<&str>, meta: Option<Value>) -> Identify {
    Identify::new(Some(email), name, meta.as_ref(), None, None).expect("valid identify")
}

/// A public board of `team`, not yet stored.
pub fn board(team: TeamId, slug: &str, order: i64, created_at: Timestamp) -> Board {
    Board {
        id: BoardId::new(),
        team_id: team,
        name: format!("Board {slug}"),
        slug: slug.into(),
        description: format!("All about {slug}"),
        order,
        meta: BoardMeta::default(),
        created_at,
        updated_at: created_at,
    }
}
