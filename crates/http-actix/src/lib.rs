//! Sounding's HTTP JSON API on actix-web: the driving adapter. Requests are parsed
//! (module `params`), authenticated (`auth`), rate limited (`rate_limit`) and handed to one use
//! case of `sounding-app` each (`routes`); results are rendered as the DTOs of `dto` and
//! failures as the JSON error body of `error`.
//!
//! The server crate calls [`http_server`] with an [`ApiState`]; tests may also use
//! [`openapi_document`] and [`JwtCodec`].

#[cfg(test)]
mod app_tests;
mod assets;
mod auth;
mod call;
mod cors;
mod drain;
mod dto;
mod error;
mod openapi;
mod openapi_rules;
mod openapi_webhooks;
mod params;
mod portal;
mod rate_limit;
mod remembered;
mod request_metrics;
mod routes;
mod server;
mod state;

pub use auth::jwt::{JwtCodec, WeakSecret};
pub use cors::BrowserOrigins;
pub use drain::{Traffic, DRAIN_LIMIT};
pub use error::ApiError;
pub use openapi::{openapi_document, openapi_json};
pub use request_metrics::{
    describe_metrics, RATE_LIMITED_TOTAL, REQUESTS_TOTAL, REQUEST_DURATION_SECONDS,
};
pub use server::{application, http_server, HttpOptions, RequestScope, ScopedRequest};
pub use sounding_domain::ports::{Clock, TokenCodec};
pub use state::{ApiState, RateLimits};
