#![warn(missing_docs)]
//! Sounding's use cases: one module per operation, each written against the domain's ports
//! only. The HTTP adapter and the command line call these; storage adapters answer them.
//!
//! Depend on it (with `sounding-domain` and a store) to run Sounding's operations inside your
//! own service, without HTTP. Every use case takes the ports it needs, a `Clock`, and the
//! caller, and checks the caller's rights itself:
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use sounding_app::{
//!     boards::{create_board, BoardInput},
//!     teams::{create_team, NewTeam},
//! };
//! use sounding_domain::{access::KeyHolder, ports::Clock, Timestamp};
//! use sounding_store_memory::MemoryStore;
//!
//! struct Fixed;
//! impl Clock for Fixed {
//!     fn now(&self) -> Timestamp {
//!         Timestamp::from_unix_seconds(1_800_000_000).unwrap()
//!     }
//! }
//!
//! let store = MemoryStore::new();
//! let created = create_team(&store, &Fixed, NewTeam::new("Acme", "acme")).await.unwrap();
//! // The owner's key, as authentication would resolve it (`auth::authenticate`).
//! let owner = KeyHolder {
//!     team_id: created.team.id,
//!     key_id: created.key.id,
//!     user_id: created.key.user_id,
//!     role: created.key.role,
//!     read_only: false,
//! };
//! let input = BoardInput { name: Some("Feature requests".into()), ..BoardInput::default() };
//! let board = create_board(&store, &Fixed, &owner, input).await.unwrap();
//! assert_eq!(board.board.slug, "feature-requests");
//!
//! // A read-only key may not write: the use case refuses it, whatever the adapter.
//! let reader = KeyHolder { read_only: true, ..owner };
//! let input = BoardInput { name: Some("Bugs".into()), ..BoardInput::default() };
//! assert!(create_board(&store, &Fixed, &reader, input).await.is_err());
//! # });
//! ```
//!
//! A runnable program that wires the use cases to a store (memory, or SQLite with a flag):
//! `cargo run -p sounding-app --example embed` (`examples/embed.rs`).
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
pub mod portal;
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
