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

use sounding_domain::{
    meta,
    ports::{conflicts, StoreError},
};

use crate::error::AppError;

/// The store's refusal to merge a subscriber's meta past 16 KiB as the API's 400. The merge
/// happens inside the store's transaction (identify and update read-modify-write the row), so
/// the store, not the use case, sees the merged size.
fn merged_meta_too_large(e: StoreError) -> AppError {
    match e {
        StoreError::Conflict(rule) if rule == conflicts::SUBSCRIBER_META_TOO_LARGE => {
            AppError::Domain(meta::merged_too_large("meta"))
        }
        other => other.into(),
    }
}
