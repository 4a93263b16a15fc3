//! Team use cases: reading and changing a team's settings, creating teams (command line and
//! first start).

mod bootstrap;
mod create;
mod info;
mod update;

pub use bootstrap::{bootstrap_default_team, DEFAULT_TEAM_NAME, DEFAULT_TEAM_SUBDOMAIN};
pub use create::{create_team, CreatedTeam, NewTeam};
pub use info::team_info;
pub use update::{update_team, UpdateTeam};
