//! Subscriber use cases: identify (create or merge, and hand out a token), the caller's own
//! profile, and logout; and the team's administration of subscribers (list, info, update,
//! delete).

mod delete;
mod identify;
mod info;
mod list;
mod logout;
mod on_behalf;
mod team_info;
mod update;

pub use delete::delete_subscriber;
pub use identify::{identify_subscriber, Identified, IdentifySubscriber};
pub use info::subscriber_info;
pub use list::{list_subscribers, ListSubscribers};
pub use logout::logout_subscriber;
pub use on_behalf::OnBehalfInput;
pub(crate) use on_behalf::{existing_subscriber_for, subscriber_for};
pub use team_info::team_subscriber_info;
pub use update::{update_subscriber, UpdateSubscriber};
