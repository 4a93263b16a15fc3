//! Authentication: turning a presented credential into a `Caller`, and the team-member rule.

mod authenticate;
mod team_member;

pub use authenticate::{authenticate, Credential};
pub use team_member::is_team_member;
