//! `public/notifications.markRead`: marks some (`ids`) or all (`all: true`) of the caller's
//! notifications read. Ids of other subscribers' notifications are ignored, never changed.

use sounding_domain::{
    access::SubscriberSession,
    notification::{MarkRead, MAX_MARK_IDS},
    ports::{Clock, NotificationStore},
    NotificationId,
};

use crate::error::{AppError, AppResult};

/// The body of `public/notifications.markRead`: `ids` or `all`, exactly one (400 otherwise).
#[derive(Debug, Clone, Default)]
pub struct MarkReadInput {
    /// The notifications to mark, at most 100 UUIDs; an empty list marks nothing.
    pub ids: Option<Vec<String>>,
    /// `true` marks every notification of the subscriber read.
    pub all: Option<bool>,
}

/// How many notifications became read.
pub async fn mark_read(
    store: &dyn NotificationStore,
    clock: &dyn Clock,
    session: &SubscriberSession,
    input: MarkReadInput,
) -> AppResult<i64> {
    let which = match (input.ids, input.all.unwrap_or(false)) {
        (Some(_), true) => return Err(AppError::invalid("give ids or all, not both")),
        (None, true) => MarkRead::All,
        (Some(ids), false) => {
            if ids.len() > MAX_MARK_IDS {
                return Err(AppError::invalid(format!(
                    "ids must list at most {MAX_MARK_IDS} ids"
                )));
            }
            let ids = ids
                .iter()
                .map(|raw| NotificationId::parse("ids", raw))
                .collect::<Result<Vec<_>, _>>()?;
            MarkRead::Ids(ids)
        }
        (None, false) => return Err(AppError::invalid("ids or all is required")),
    };
    if matches!(&which, MarkRead::Ids(ids) if ids.is_empty()) {
        return Ok(0);
    }
    let who = &session.subscriber;
    Ok(store
        .mark_notifications_read(who.team_id, who.id, &which, clock.now())
        .await?)
}
