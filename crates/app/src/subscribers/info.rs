//! `public/subscriber.info`: the calling subscriber, as stored now.

use sounding_domain::{access::SubscriberSession, subscriber::Subscriber};

/// Authentication already loaded the subscriber fresh from storage for this request.
pub fn subscriber_info(session: &SubscriberSession) -> Subscriber {
    session.subscriber.clone()
}
