//! API key use cases: create and revoke from the command line; list, issue and delete for
//! the team API.

mod create;
mod delete;
mod issue;
mod list;
mod revoke;

pub use create::{create_api_key, CreatedApiKey, NewApiKey};
pub use delete::delete_api_key;
pub use issue::{issue_api_key, IssueApiKey};
pub use list::list_api_keys;
pub use revoke::revoke_api_key;
