//! `subscribers.info` (team): one live subscriber of the team; a deleted one is not found.

use sounding_domain::{
    access::{KeyHolder, Need},
    ports::SubscriberStore,
    subscriber::Subscriber,
    Entity, SubscriberId,
};

use crate::error::{AppError, AppResult};

/// `subscribers.info {id}`: one live subscriber of the team. Any key; 404 for a deleted or
/// unknown one.
pub async fn team_subscriber_info(
    subscribers: &dyn SubscriberStore,
    caller: &KeyHolder,
    id: Option<&str>,
) -> AppResult<Subscriber> {
    caller.require(Need::Read)?;
    let id = SubscriberId::parse_required("id", id)?;
    subscribers
        .live_subscriber(caller.team_id, id)
        .await?
        .ok_or(AppError::not_found(Entity::Subscriber))
}
