//! API key use cases available from the command line: create and revoke.

mod create;
mod revoke;

pub use create::{create_api_key, CreatedApiKey, NewApiKey};
pub use revoke::revoke_api_key;
