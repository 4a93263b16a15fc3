//! `public/topics.subscribe` and `.unsubscribe`: a subscriber follows a topic or stops.

use sounding_domain::{
    access::{Caller, SubscriberSession},
    ports::{Clock, TopicStore},
    TopicId,
};

use super::{topic_not_found, visible_topic};
use crate::error::AppResult;

/// Follows the topic (`follow`), or stops following it.
pub async fn follow_topic(
    store: &dyn TopicStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
    id: Option<&str>,
    follow: bool,
) -> AppResult<TopicId> {
    let id = TopicId::parse_required("id", id)?;
    // What the caller may not read is not found, as for `topics.info`.
    visible_topic(store, &Caller::Subscriber(session.clone()), id).await?;
    let s = &session.subscriber;
    if store
        .set_topic_following(s.team_id, id, s.id, follow, clock.now())
        .await?
    {
        Ok(id)
    } else {
        Err(topic_not_found())
    }
}
