//! Sounding's use cases: one module per operation, each written against the domain's ports
//! only. The HTTP adapter and the command line call these; storage adapters answer them.

pub mod api_keys;
pub mod auth;
pub mod automation;
pub mod boards;
pub mod error;
pub mod feedback;
pub mod feedback_comments;
pub mod feedback_votes;
pub mod roadmaps;
pub mod subscribers;
pub mod teams;
pub mod topics;
pub mod users;
pub mod wire;

pub use error::{AppError, AppResult, AuthError, Literal};
