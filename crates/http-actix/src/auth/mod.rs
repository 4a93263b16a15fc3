//! Authentication (decisions §5): the middleware that resolves the request's credential once,
//! the extractors that let an operation demand a kind of caller, and the JWT codec.

pub mod extract;
pub mod jwt;
pub mod middleware;

pub use extract::{AnyCaller, OptionalCaller, SubscriberCaller, TeamCaller};
