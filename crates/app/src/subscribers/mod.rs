//! Subscriber use cases: identify (create or merge, and hand out a token), the caller's own
//! profile, and logout.

mod identify;
mod info;
mod logout;

pub use identify::{identify_subscriber, Identified, IdentifySubscriber};
pub use info::subscriber_info;
pub use logout::logout_subscriber;
