//! `public/topics.info`: a topic by UUID or by `<title-slug>-<urlId>` slug, with its stage,
//! counting the caller's visit (once per viewer per 2 minutes). A topic that is missing or not
//! visible is `data: null`, not an error; the team comes along either way.

use sounding_domain::{
    access::Caller,
    ports::{Clock, TeamStore, TopicStore},
    slug,
    team::Team,
    topic::{TopicView, TopicVisit, VISIT_WINDOW_SECONDS},
    Entity, TopicId,
};

use super::visible_to;
use crate::error::{AppError, AppResult};

/// `viewer` names who is looking when the caller is not a subscriber (the client address);
/// a subscriber is counted by their id.
pub async fn topic_info(
    store: &(impl TeamStore + TopicStore + ?Sized),
    clock: &dyn Clock,
    caller: &Caller,
    id: Option<&str>,
    viewer: &str,
) -> AppResult<(Option<TopicView>, Team)> {
    let raw = id
        .map(str::trim)
        .ok_or_else(|| AppError::invalid("id is required"))?;
    let team = store
        .team(caller.team_id())
        .await?
        .ok_or(AppError::not_found(Entity::Team))?;
    let found = match TopicId::parse("id", raw) {
        Ok(id) => store.topic(team.id, id).await?,
        Err(_) => match slug::url_id_from_slug(raw) {
            Some(url_id) => store.topic_by_url_id(team.id, url_id).await?,
            None => None,
        },
    };
    let Some(mut view) = found else {
        return Ok((None, team));
    };
    if !visible_to(caller, &view) {
        return Ok((None, team));
    }
    let viewer = match caller {
        Caller::Subscriber(session) => format!("subscriber:{}", session.subscriber.id),
        Caller::Team(_) | Caller::Visitor(_) => format!("address:{viewer}"),
    };
    let visit = TopicVisit {
        topic: view.topic.id,
        viewer,
        at: clock.now(),
        window_seconds: VISIT_WINDOW_SECONDS,
    };
    let visits = store.record_topic_visit(team.id, &visit).await?;
    match visits {
        Some(visits) => {
            view.topic.visits = visits;
            Ok((Some(view), team))
        }
        // Deleted between the read and the count.
        None => Ok((None, team)),
    }
}
