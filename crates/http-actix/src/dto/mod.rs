//! The wire shapes of the API: request parameters as clients send them and responses as the
//! interface prints them (camelCase), each mapped from or to the domain and app types.

pub mod access;
pub mod automation;
pub mod board;
pub mod common;
pub mod document;
pub mod feedback;
pub mod notification;
pub mod roadmap;
pub mod subscriber;
pub mod tag;
pub mod team;
