#![warn(missing_docs)]
//! Sounding's domain: the entities, value types and rules of a feedback service, and the
//! ports (traits) through which the use cases reach storage and the outside world.
//!
//! Nothing here performs I/O or knows about HTTP, SQL or an async runtime, so another service
//! can depend on it for Sounding's rules alone. Its values can only be built valid, and each
//! rule is a plain function or predicate with one home:
//!
//! ```
//! use sounding_domain::{team::Team, DomainError, Timestamp};
//!
//! let now = Timestamp::from_unix_seconds(1_800_000_000).unwrap();
//! let team = Team::new("  Acme  ", "acme", now).unwrap();
//! assert_eq!((team.name.as_str(), team.subdomain.as_str()), ("Acme", "acme"));
//! // A subdomain is a DNS label: refused with a message naming the field.
//! let Err(DomainError::Invalid(why)) = Team::new("Acme", "Acme Inc!", now) else {
//!     panic!("an invalid subdomain is refused");
//! };
//! assert!(why.contains("subdomain"), "{why}");
//! ```
//!
//! What to depend on:
//! - the use cases (one per API operation): `sounding-app`, against the [`ports`];
//! - storage: `sounding-store-memory` (in memory) or `sounding-store-diesel` (SQLite and
//!   PostgreSQL), or your own implementation of [`ports::Store`];
//! - a whole server for tests: `sounding-testkit`.
//!
//! With the `mock` feature every port has a mockall mock (`ports::MockFeedbackStore`, …).

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
pub mod web_origin;
pub mod webhook;

pub use error::{DomainError, Entity};
pub use ids::*;
pub use timestamp::Timestamp;
