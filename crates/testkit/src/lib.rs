#![warn(missing_docs)]
//! A real Sounding API for another project's tests, started in-process: the same server the
//! `sounding` binary runs (HTTP over real TCP on 127.0.0.1, validation, auth, rate limits,
//! webhooks), in memory by default or on a temporary SQLite file, gone when it is dropped.
//! What `stripe-mock` is to Stripe, with the real implementation behind it.
//!
//! Depend on it as a dev-dependency, and use it from any tokio test:
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use serde_json::json;
//! use sounding_testkit::TestServer;
//!
//! let server = TestServer::start().await?;
//! let board = server.create_board("Ideas").await?;
//! let jane = server.identify("jane@example.com").await?;
//! let item = server
//!     .call("public/feedbacks.create", &jane.token, json!({ "title": "Dark mode", "boardId": board }))
//!     .await?;
//! assert_eq!(item["data"]["title"], "Dark mode");
//! assert_eq!(item["data"]["subscriber"]["email"], "jane@example.com");
//! # anyhow::Ok(())
//! # }).unwrap();
//! ```
//!
//! [`TestServer::webhook_receiver`] subscribes a local receiver to events and collects the
//! deliveries whose signatures verify ([`WebhookReceiver`]).

mod receiver;
mod server;

pub use receiver::{Delivery, WebhookReceiver};
pub use server::{ApiError, Subscriber, TestServer, TestServerBuilder};
