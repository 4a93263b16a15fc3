//! `subscribers.update` (team, any role): the name replaced and meta merged as `identify`
//! merges it, the typed meta columns kept in step; atomic in the store.

use serde_json::Value;
use sounding_domain::{
    access::{KeyHolder, Need},
    ports::{Clock, SubscriberStore},
    subscriber::Subscriber,
    team_admin::SubscriberPatch,
    Entity, SubscriberId,
};

use crate::error::{AppError, AppResult};

#[derive(Debug, Clone, Default)]
pub struct UpdateSubscriber {
    pub id: Option<String>,
    pub name: Option<String>,
    pub meta: Option<Value>,
}

pub async fn update_subscriber(
    subscribers: &dyn SubscriberStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    input: UpdateSubscriber,
) -> AppResult<Subscriber> {
    caller.require(Need::Write)?;
    let id = SubscriberId::parse_required("id", input.id.as_deref())?;
    let patch = SubscriberPatch::new(input.name.as_deref(), input.meta.as_ref())?;
    subscribers
        .update_subscriber(caller.team_id, id, &patch, clock.now())
        .await?
        .ok_or(AppError::not_found(Entity::Subscriber))
}
