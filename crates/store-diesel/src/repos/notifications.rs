//! `NotificationStore`: a subscriber's notifications, read and marked read; and
//! [`notify_followers`], which the outbox calls for every event carrying a `NotifyFollowers`,
//! inside the transaction of the change.

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::{
    event::NewEvent,
    ids::{NotificationId, SubscriberId, TeamId},
    notification::{
        MarkRead, Notification, NotificationKind, NotificationPage, NotificationQuery,
        NotificationView, NotifyTarget,
    },
    page::Paged,
    ports::{NotificationStore, StoreResult},
    timestamp::Timestamp,
};
use time::PrimitiveDateTime;

use super::{from_db_time, parse_id, subscribers::people_by_id, to_db_time};
use crate::{
    connection::{per_backend, DbConnection},
    error::{DbError, DbResult},
    schema::{feedback_follows, notifications, topic_follows},
    tx::write_tx,
    DieselStore,
};

/// Rows per multi-row `INSERT` (13 values each, well under both engines' parameter limits).
const INSERT_CHUNK: usize = 500;

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = notifications, treat_none_as_default_value = false)]
struct NotificationRow {
    id: String,
    team_id: String,
    subscriber_id: String,
    kind: String,
    feedback_id: Option<String>,
    topic_id: Option<String>,
    comment_id: Option<String>,
    title: String,
    status: Option<String>,
    previous_status: Option<String>,
    actor_id: Option<String>,
    read_at: Option<PrimitiveDateTime>,
    created_at: PrimitiveDateTime,
}

impl NotificationRow {
    fn from_domain(n: &Notification) -> Self {
        Self {
            id: n.id.to_string(),
            team_id: n.team_id.to_string(),
            subscriber_id: n.subscriber_id.to_string(),
            kind: n.kind.as_str().to_owned(),
            feedback_id: n.feedback_id.map(|id| id.to_string()),
            topic_id: n.topic_id.map(|id| id.to_string()),
            comment_id: n.comment_id.map(|id| id.hyphenated().to_string()),
            title: n.title.clone(),
            status: n.status.clone(),
            previous_status: n.previous_status.clone(),
            actor_id: n.actor_id.map(|id| id.to_string()),
            read_at: n.read_at.map(to_db_time),
            created_at: to_db_time(n.created_at),
        }
    }

    fn into_domain(self) -> DbResult<Notification> {
        fn opt<T: std::str::FromStr<Err = uuid::Error>>(
            column: &str,
            raw: Option<String>,
        ) -> DbResult<Option<T>> {
            raw.map(|raw| parse_id(column, &raw)).transpose()
        }
        Ok(Notification {
            id: parse_id("notifications.id", &self.id)?,
            team_id: parse_id("notifications.team_id", &self.team_id)?,
            subscriber_id: parse_id("notifications.subscriber_id", &self.subscriber_id)?,
            kind: NotificationKind::parse(&self.kind)
                .map_err(|e| DbError::corrupt("notifications.kind", e))?,
            feedback_id: opt("notifications.feedback_id", self.feedback_id)?,
            topic_id: opt("notifications.topic_id", self.topic_id)?,
            comment_id: opt("notifications.comment_id", self.comment_id)?,
            title: self.title,
            status: self.status,
            previous_status: self.previous_status,
            actor_id: opt("notifications.actor_id", self.actor_id)?,
            read_at: self.read_at.map(from_db_time),
            created_at: from_db_time(self.created_at),
        })
    }
}

/// Writes the notifications `event` asks for: one per follower of its target but the actor.
/// Two statements (the followers, then one multi-row insert per 500 of them), on `conn`
/// inside the caller's write transaction.
pub(crate) fn notify_followers(conn: &mut DbConnection, event: &NewEvent) -> DbResult<()> {
    let Some(notify) = &event.notify else {
        return Ok(());
    };
    let team = event.team_id.to_string();
    let actor = notify.actor.map(|a| a.to_string()).unwrap_or_default();
    let followers: Vec<String> = match notify.target {
        NotifyTarget::Feedback(id) => feedback_follows::table
            .filter(feedback_follows::feedback_id.eq(id.to_string()))
            .filter(feedback_follows::team_id.eq(&team))
            .filter(feedback_follows::subscriber_id.ne(&actor))
            .order((
                feedback_follows::created_at.asc(),
                feedback_follows::subscriber_id.asc(),
            ))
            .select(feedback_follows::subscriber_id)
            .load(conn)?,
        NotifyTarget::Topic(id) => topic_follows::table
            .filter(topic_follows::topic_id.eq(id.to_string()))
            .filter(topic_follows::team_id.eq(&team))
            .filter(topic_follows::subscriber_id.ne(&actor))
            .order((
                topic_follows::created_at.asc(),
                topic_follows::subscriber_id.asc(),
            ))
            .select(topic_follows::subscriber_id)
            .load(conn)?,
    };
    let rows = followers
        .iter()
        .map(|raw| {
            let follower: SubscriberId = parse_id("follows.subscriber_id", raw)?;
            Ok(NotificationRow::from_domain(&notify.for_recipient(
                event.team_id,
                follower,
                event.occurred_at,
            )))
        })
        .collect::<DbResult<Vec<_>>>()?;
    for chunk in rows.chunks(INSERT_CHUNK) {
        per_backend!(conn, |inner| diesel::insert_into(notifications::table)
            .values(chunk)
            .execute(inner))?;
    }
    Ok(())
}

/// One page, the totals and the page's actors: four statements whatever the page size.
fn page(
    conn: &mut DbConnection,
    team: &str,
    subscriber: &str,
    query: &NotificationQuery,
) -> DbResult<NotificationPage> {
    macro_rules! mine {
        () => {
            notifications::table
                .filter(notifications::team_id.eq(team))
                .filter(notifications::subscriber_id.eq(subscriber))
        };
    }
    let unread: i64 = mine!()
        .filter(notifications::read_at.is_null())
        .count()
        .get_result(conn)?;
    let total: i64 = if query.unread_only {
        unread
    } else {
        mine!().count().get_result(conn)?
    };
    let rows: Vec<NotificationRow> = if total > query.page.offset {
        let mut select = mine!()
            .order((notifications::created_at.desc(), notifications::id.desc()))
            .limit(query.page.limit)
            .offset(query.page.offset)
            .select(NotificationRow::as_select())
            .into_boxed();
        if query.unread_only {
            select = select.filter(notifications::read_at.is_null());
        }
        select.load(conn)?
    } else {
        Vec::new()
    };
    let actors = people_by_id(
        conn,
        team,
        rows.iter().filter_map(|r| r.actor_id.as_deref()),
    )?;
    let items = rows
        .into_iter()
        .map(|row| {
            let actor = row.actor_id.as_ref().and_then(|id| actors.get(id)).cloned();
            Ok(NotificationView {
                notification: row.into_domain()?,
                actor,
            })
        })
        .collect::<DbResult<Vec<_>>>()?;
    Ok(NotificationPage {
        page: Paged {
            items,
            total,
            page: query.page,
        },
        unread,
    })
}

#[async_trait]
impl NotificationStore for DieselStore {
    async fn notifications(
        &self,
        team: TeamId,
        subscriber: SubscriberId,
        query: &NotificationQuery,
    ) -> StoreResult<NotificationPage> {
        let (team, subscriber, query) = (team.to_string(), subscriber.to_string(), *query);
        self.run_read(move |conn| page(conn, &team, &subscriber, &query))
            .await
    }

    async fn mark_notifications_read(
        &self,
        team: TeamId,
        subscriber: SubscriberId,
        which: &MarkRead,
        at: Timestamp,
    ) -> StoreResult<i64> {
        let (team, subscriber) = (team.to_string(), subscriber.to_string());
        let ids: Option<Vec<String>> = match which {
            MarkRead::All => None,
            MarkRead::Ids(ids) => Some(ids.iter().map(NotificationId::to_string).collect()),
        };
        let at = to_db_time(at);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let mut target = diesel::update(notifications::table)
                    .filter(notifications::team_id.eq(&team))
                    .filter(notifications::subscriber_id.eq(&subscriber))
                    .filter(notifications::read_at.is_null())
                    .into_boxed();
                if let Some(ids) = &ids {
                    target = target.filter(notifications::id.eq_any(ids));
                }
                let changed = target
                    .set(notifications::read_at.eq(Some(at)))
                    .execute(conn)?;
                Ok(i64::try_from(changed).unwrap_or(i64::MAX))
            })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    };

    use sounding_domain::{
        event::EventKind,
        ids::{FeedbackId, SubscriberId},
        notification::NotifyFollowers,
        page::PageRequest,
    };

    use super::*;
    use crate::test_support::count_statements;

    /// A migrated in-memory database (foreign keys off, so rows need no parents) and a counter
    /// of the statements run on it.
    fn counted() -> (DbConnection, Arc<AtomicUsize>) {
        let mut conn = crate::migrations::scratch_sqlite();
        let statements = count_statements(&mut conn);
        (conn, statements)
    }

    #[test]
    fn expanding_and_listing_take_a_fixed_number_of_statements() {
        let (mut conn, statements) = counted();
        let team = TeamId::new();
        let item = FeedbackId::new();
        let actor = SubscriberId::new();
        let followers: Vec<SubscriberId> = (0..40).map(|_| SubscriberId::new()).collect();
        let t0 = Timestamp::from_unix_seconds(1_780_000_000).unwrap();
        for who in followers.iter().chain([&actor]) {
            diesel::insert_into(feedback_follows::table)
                .values((
                    feedback_follows::feedback_id.eq(item.to_string()),
                    feedback_follows::subscriber_id.eq(who.to_string()),
                    feedback_follows::team_id.eq(team.to_string()),
                    feedback_follows::created_at.eq(to_db_time(t0)),
                ))
                .execute(&mut conn)
                .unwrap();
        }
        let reader = followers[0];
        for n in 0..30 {
            let event = NewEvent::new(
                team,
                EventKind::FeedbackCommentsCreate,
                t0.plus_seconds(n),
                &[],
                serde_json::Value::Null,
            )
            .notifying(NotifyFollowers {
                target: NotifyTarget::Feedback(item),
                actor: Some(actor),
                kind: NotificationKind::Comment,
                comment_id: None,
                title: "Item".into(),
                status: None,
                previous_status: None,
            });
            statements.store(0, Ordering::SeqCst);
            notify_followers(&mut conn, &event).unwrap();
            assert_eq!(
                statements.load(Ordering::SeqCst),
                2,
                "followers, one insert"
            );
        }
        // Every follower but the actor, once per event.
        let written: i64 = notifications::table.count().get_result(&mut conn).unwrap();
        assert_eq!(written, 30 * 40);

        for unread_only in [false, true] {
            for limit in [1, 10, 30] {
                let query = NotificationQuery {
                    unread_only,
                    page: PageRequest { limit, offset: 0 },
                };
                statements.store(0, Ordering::SeqCst);
                let page = page(&mut conn, &team.to_string(), &reader.to_string(), &query).unwrap();
                assert_eq!((page.page.items.len() as i64, page.page.total), (limit, 30));
                assert_eq!(page.unread, 30);
                let expected = if unread_only { 3 } else { 4 };
                assert_eq!(
                    statements.load(Ordering::SeqCst),
                    expected,
                    "counts, page, actors (unreadOnly {unread_only}, limit {limit})"
                );
            }
        }
    }
}
