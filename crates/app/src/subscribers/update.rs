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

/// The body of `subscribers.update`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct UpdateSubscriber {
    /// The subscriber's UUID; required.
    pub id: Option<String>,
    /// A new name: not blank, at most 255 characters after trimming.
    pub name: Option<String>,
    /// Merged key by key into the stored meta (a `null` removes a key); at most 16 KiB.
    pub meta: Option<Value>,
}

/// `subscribers.update`: the subscriber after the change. Any key but a read-only one (403);
/// 404 when the team has no such live subscriber.
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
