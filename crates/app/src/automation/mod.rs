//! Outgoing webhooks: the team's `automation.*` operations (admin role) and the dispatcher a
//! worker runs to fan events out and deliver them.

mod dispatch;
mod retention;
mod subscriptions;

pub use dispatch::{dispatch_once, dispatch_taking_turns, DispatchOptions, DispatchReport};
pub use retention::prune_history;
pub use subscriptions::{
    list_deliveries, list_webhooks, redeliver, subscribe, unsubscribe, DeliveryListInput,
    Subscribed, Unsubscribe,
};
