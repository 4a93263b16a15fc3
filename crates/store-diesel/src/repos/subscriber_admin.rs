//! Subscriber administration (issue 6) for the team API: the live-subscriber lookup, the
//! searchable, sortable list, and the atomic update and erase. A deleted subscriber keeps its
//! row with `deleted_at` set, so comments and votes keep their (erased) author.

use diesel::{dsl::count_star, prelude::*, sql_types::Text};
use sounding_domain::{
    page::Paged,
    subscriber::Subscriber,
    team_admin::{SubscriberPatch, SubscriberQuery, SubscriberSort},
    timestamp::Timestamp,
};

use super::{subscribers::SubscriberRow, to_db_time};
use crate::{
    connection::DbConnection,
    error::{DbError, DbResult},
    raw_sql::like_contains,
    repos::paging::{count, kept_sum},
    schema::subscribers,
};

diesel::define_sql_function! {
    /// SQL `LOWER` (ASCII only on SQLite, full Unicode on PostgreSQL).
    fn lower(value: Text) -> Text;
}

/// The live subscriber, its row locked until the transaction ends on PostgreSQL (SQLite's
/// `BEGIN IMMEDIATE` already holds the only write lock).
pub(crate) fn lock_live(
    conn: &mut DbConnection,
    team: &str,
    id: &str,
) -> DbResult<Option<Subscriber>> {
    macro_rules! live {
        () => {
            subscribers::table
                .filter(subscribers::id.eq(id))
                .filter(subscribers::team_id.eq(team))
                .filter(subscribers::deleted_at.is_null())
                .select(SubscriberRow::as_select())
        };
    }
    let row = match conn {
        DbConnection::Postgresql(inner) => live!().for_update().get_result(inner).optional()?,
        DbConnection::Sqlite(inner) => live!().get_result(inner).optional()?,
    };
    row.map(SubscriberRow::into_domain).transpose()
}

pub(crate) fn live(conn: &mut DbConnection, team: &str, id: &str) -> DbResult<Option<Subscriber>> {
    subscribers::table
        .filter(subscribers::id.eq(id))
        .filter(subscribers::team_id.eq(team))
        .filter(subscribers::deleted_at.is_null())
        .select(SubscriberRow::as_select())
        .get_result(conn)
        .optional()?
        .map(SubscriberRow::into_domain)
        .transpose()
}

/// The team's subscribers that are not deleted, from `subscriber_counts` (kept by triggers,
/// migrations/2026-12-04-000002_subscriber_counts): at most 16 rows, however many subscribers.
fn kept_total(conn: &mut DbConnection, team: &str) -> DbResult<i64> {
    let mut sql = kept_sum("subscriber_counts");
    sql.push("c.team_id = ").text(team);
    count(&sql, conn)
}

/// One page and the total: two statements whatever the page size; the total is kept unless
/// the list is searched.
pub(crate) fn list(
    conn: &mut DbConnection,
    team: &str,
    query: &SubscriberQuery,
) -> DbResult<Paged<Subscriber>> {
    let pattern = query.search.as_deref().map(like_contains);
    // Built twice (count and page): a boxed query cannot be cloned.
    macro_rules! scoped {
        () => {{
            let mut q = subscribers::table
                .filter(subscribers::team_id.eq(team))
                .filter(subscribers::deleted_at.is_null())
                .into_boxed();
            if let Some(pattern) = &pattern {
                q = q.filter(
                    lower(subscribers::name)
                        .like(pattern.clone())
                        .escape('\\')
                        .or(subscribers::email.like(pattern.clone()).escape('\\')),
                );
            }
            q
        }};
    }
    let total = match &pattern {
        Some(_) => scoped!().select(count_star()).get_result(conn)?,
        None => kept_total(conn, team)?,
    };
    let mut page = scoped!().select(SubscriberRow::as_select());
    page = match query.sort {
        SubscriberSort::CreatedAt => {
            page.order((subscribers::created_at.desc(), subscribers::id.desc()))
        }
        SubscriberSort::LastUpdated => {
            page.order((subscribers::last_updated.desc(), subscribers::id.desc()))
        }
        SubscriberSort::Name => page.order((lower(subscribers::name).asc(), subscribers::id.asc())),
        // Every listed subscriber has an e-mail but anonymous topic creators; those go last.
        SubscriberSort::Email => page.order((
            subscribers::email.is_null().asc(),
            subscribers::email.asc(),
            subscribers::id.asc(),
        )),
        SubscriberSort::Mmr => page.order((
            subscribers::mmr.is_null().asc(),
            subscribers::mmr.desc(),
            subscribers::id.asc(),
        )),
    };
    let items = page
        .limit(query.page.limit)
        .offset(query.page.offset)
        .load::<SubscriberRow>(conn)?
        .into_iter()
        .map(SubscriberRow::into_domain)
        .collect::<DbResult<Vec<_>>>()?;
    Ok(Paged {
        items,
        total,
        page: query.page,
    })
}

pub(crate) fn update(
    conn: &mut DbConnection,
    team: &str,
    id: &str,
    patch: &SubscriberPatch,
    now: Timestamp,
) -> DbResult<Option<Subscriber>> {
    let Some(mut subscriber) = lock_live(conn, team, id)? else {
        return Ok(None);
    };
    subscriber
        .apply_patch(patch, now)
        .map_err(DbError::Refused)?;
    let row = SubscriberRow::from_domain(&subscriber)?;
    diesel::update(subscribers::table.find(id))
        .set(&row)
        .execute(conn)?;
    Ok(Some(subscriber))
}

pub(crate) fn erase(
    conn: &mut DbConnection,
    team: &str,
    id: &str,
    now: Timestamp,
) -> DbResult<bool> {
    let Some(mut subscriber) = lock_live(conn, team, id)? else {
        return Ok(false);
    };
    subscriber.erase(now);
    let row = SubscriberRow::from_domain(&subscriber)?;
    diesel::update(subscribers::table.find(id))
        .set((&row, subscribers::deleted_at.eq(Some(to_db_time(now)))))
        .execute(conn)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use sounding_domain::{ids::TeamId, page::PageRequest, subscriber::Identify};

    use super::*;
    use crate::test_support::count_statements;

    #[test]
    fn a_list_is_two_statements_whatever_the_page_size() {
        let mut conn = crate::migrations::scratch_sqlite();
        let team = TeamId::new();
        let now = Timestamp::from_unix_seconds(1_800_000_000).unwrap();
        for n in 0..30 {
            let input = Identify::new(Some(&format!("s{n}@x.io")), None, None, None, None).unwrap();
            let s = Subscriber::identified(team, &input, now.plus_seconds(n));
            diesel::insert_into(subscribers::table)
                .values(&SubscriberRow::from_domain(&s).unwrap())
                .execute(&mut conn)
                .unwrap();
        }
        let statements = count_statements(&mut conn);
        for (limit, expected) in [(1, 1), (25, 25), (100, 30)] {
            statements.store(0, Ordering::SeqCst);
            let page = PageRequest::new(Some(limit), None, 20).unwrap();
            for search in [Some("x.io"), None] {
                statements.store(0, Ordering::SeqCst);
                let query = SubscriberQuery::new(search, Some("name"), page).unwrap();
                let found = list(&mut conn, &team.to_string(), &query).unwrap();
                assert_eq!((found.items.len(), found.total), (expected, 30));
                assert_eq!(statements.load(Ordering::SeqCst), 2, "limit {limit}");
            }
        }
    }

    #[test]
    fn an_unsearched_lists_total_is_read_from_the_kept_count() {
        let mut conn = crate::migrations::scratch_sqlite();
        let team = TeamId::new();
        let now = Timestamp::from_unix_seconds(1_800_000_000).unwrap();
        let input = Identify::new(Some("s@x.io"), None, None, None, None).unwrap();
        let s = Subscriber::identified(team, &input, now);
        diesel::insert_into(subscribers::table)
            .values(&SubscriberRow::from_domain(&s).unwrap())
            .execute(&mut conn)
            .unwrap();
        let page = PageRequest::new(Some(20), None, 20).unwrap();
        let query = SubscriberQuery::new(None, None, page).unwrap();
        let plans = crate::raw_sql::plans::explained(&mut conn, |conn| {
            assert_eq!(list(conn, &team.to_string(), &query).unwrap().total, 1);
        });
        assert!(
            plans[0].0.contains("FROM subscriber_counts") && plans[0].1.contains("SEARCH c USING"),
            "the total is the team's kept rows: {plans:?}"
        );
    }
}
