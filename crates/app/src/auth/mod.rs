//! Authentication: turning a presented credential into a `Caller`, team membership included
//! (the rule is `Caller::is_team_member` in the domain, resolved here once per request).

mod authenticate;

pub use authenticate::{authenticate, Credential};
