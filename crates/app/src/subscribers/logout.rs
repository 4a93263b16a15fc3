//! `public/subscriber.logout`: every token issued to the subscriber before now stops working.

use sounding_domain::{
    access::SubscriberSession,
    ports::{Clock, SubscriberStore},
    Entity,
};

use crate::error::{AppError, AppResult};

/// `public/subscriber.logout`: refuses every token issued to the subscriber so far, the one
/// used included. 404 when the subscriber is gone meanwhile.
pub async fn logout_subscriber(
    subscribers: &dyn SubscriberStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
) -> AppResult<()> {
    let s = &session.subscriber;
    subscribers
        .revoke_tokens(s.team_id, s.id, clock.now())
        .await?
        .map(|_| ())
        .ok_or(AppError::not_found(Entity::Subscriber))
}
