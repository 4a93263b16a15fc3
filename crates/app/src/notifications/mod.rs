//! A subscriber's notifications: `public/notifications.list` and
//! `public/notifications.markRead` (subscriber token only). The notifications themselves are
//! written by the changes that cause them (see [`notify`]).

mod list;
mod mark_read;
pub mod notify;

pub use list::{list_notifications, NotificationListInput, DEFAULT_LIMIT};
pub use mark_read::{mark_read, MarkReadInput};
