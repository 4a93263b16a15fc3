//! `subscribers.list` (team): the team's live subscribers, searchable by name or e-mail and
//! sortable; deleted subscribers are never listed.

use sounding_domain::{
    access::{KeyHolder, Need},
    page::{PageRequest, Paged},
    ports::SubscriberStore,
    subscriber::Subscriber,
    team_admin::SubscriberQuery,
};

use crate::error::AppResult;

pub const DEFAULT_LIMIT: i64 = 20;

#[derive(Debug, Clone, Default)]
pub struct ListSubscribers {
    pub search: Option<String>,
    pub sort_by: Option<String>,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

pub async fn list_subscribers(
    subscribers: &dyn SubscriberStore,
    caller: &KeyHolder,
    input: ListSubscribers,
) -> AppResult<Paged<Subscriber>> {
    caller.require(Need::Read)?;
    let page = PageRequest::new(input.limit, input.offset, DEFAULT_LIMIT)?;
    let query = SubscriberQuery::new(input.search.as_deref(), input.sort_by.as_deref(), page)?;
    Ok(subscribers.list_subscribers(caller.team_id, &query).await?)
}
