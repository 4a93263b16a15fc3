//! Sounding's use cases: one module per operation, each written against the domain's ports
//! only. The HTTP adapter and the command line call these; storage adapters answer them.
//!
//! A use case names the ports it uses: one as `&dyn FeedbackStore`, several (or a helper
//! shared by use cases) as `&(impl FeedbackStore + BoardStore + ?Sized)`, so a caller holding
//! the whole store (`ports::Store`) passes it unchanged. Only the few that span most of the
//! store (creating and updating feedback as the team, the CSV import) take all of it. The
//! caller's team membership is resolved once, at authentication (`Caller::is_team_member`).

pub mod api_keys;
pub mod auth;
pub mod automation;
pub mod boards;
pub mod documents;
pub mod error;
pub mod feedback;
pub mod feedback_comments;
pub mod feedback_votes;
pub mod roadmaps;
pub mod subscribers;
pub mod tags;
pub mod teams;
#[cfg(test)]
mod test_support;
pub mod topics;
mod url_id;
pub mod users;
mod votes;
pub mod wire;
// Notifications, and feedback as CSV (export and import).
pub mod feedback_csv;
pub mod notifications;

pub use error::{AppError, AppResult, AuthError, Literal};
