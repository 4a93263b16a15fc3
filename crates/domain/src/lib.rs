//! Sounding's domain: the entities, value types and rules of a feedback service, and the
//! ports (traits) through which the use cases reach storage and the outside world.
//!
//! Nothing here performs I/O or knows about HTTP, SQL or an async runtime.

pub mod access;
pub mod api_key;
pub mod board;
pub mod document;
pub mod edit;
pub mod error;
pub mod event;
pub mod feedback;
pub mod feedback_comment;
pub mod feedback_merge;
pub mod feedback_vote;
pub mod ids;
pub mod meta;
pub mod names;
pub mod notification;
pub mod page;
pub mod ports;
pub mod retention;
pub mod roadmap;
pub mod slug;
pub mod stage;
pub mod subscriber;
pub mod tag;
pub mod team;
pub mod team_admin;
pub mod text;
pub mod timestamp;
pub mod token;
pub mod topic;
pub mod topic_comment;
pub mod topic_vote;
pub mod webhook;

pub use error::{DomainError, Entity};
pub use ids::*;
pub use timestamp::Timestamp;
