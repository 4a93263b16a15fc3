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

/// The body of `subscribers.list`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct ListSubscribers {
    /// Matched case-insensitively within the name or the e-mail; at most 255 characters.
    pub search: Option<String>,
    /// `sortBy`: `createdAt` (newest first, the default), `lastUpdated`, `name`, `email` or
    /// `mmr` (highest first).
    pub sort_by: Option<String>,
    /// Page size, 1 to 100 (more is clamped to 100); 20 when absent.
    pub limit: Option<i64>,
    /// Subscribers to skip, 0 or more; 0 when absent.
    pub offset: Option<i64>,
}

/// `subscribers.list`: a page of the team's live subscribers. Any key.
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
