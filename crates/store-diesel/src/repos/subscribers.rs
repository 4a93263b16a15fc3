//! Subscribers: the team's end users, found by id or e-mail; `identify` creates or merges one
//! atomically, `revoke_tokens` bumps the token version. `people_by_id` is the batched load
//! of the people shown with feedback, comments and threads.

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::{
    access::SubscriberSession,
    ids::{SubscriberId, TeamId},
    page::Paged,
    ports::{StoreResult, SubscriberStore},
    subscriber::{Attributes, Email, Identify, Subscriber, SubscriberRef, SubscriberSource},
    team_admin::{SubscriberPatch, SubscriberQuery},
    timestamp::Timestamp,
};
use time::PrimitiveDateTime;

use super::{
    from_db_time, parse_id, parse_json_object, subscriber_admin, to_db_time, to_json_object,
};
use crate::{
    connection::DbConnection,
    error::{DbError, DbResult},
    one_of::{distinct, one_of},
    schema::{subscribers, team_users},
    tx::write_tx,
    DieselStore,
};

/// How often `identify` starts over after losing an insert race on PostgreSQL. The second
/// attempt finds the row the winner committed, so more are only for bad luck.
const IDENTIFY_ATTEMPTS: u32 = 3;

#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = subscribers, treat_none_as_null = true, treat_none_as_default_value = false)]
pub(crate) struct SubscriberRow {
    id: String,
    team_id: String,
    name: String,
    email: Option<String>,
    source: String,
    meta: String,
    mmr: Option<f64>,
    plan: Option<String>,
    role: Option<String>,
    team_attr: Option<String>,
    attr_created_at: Option<PrimitiveDateTime>,
    avatar_url: Option<String>,
    token_version: i64,
    created_at: PrimitiveDateTime,
    last_updated: PrimitiveDateTime,
}

impl SubscriberRow {
    pub(crate) fn from_domain(s: &Subscriber) -> DbResult<Self> {
        Ok(Self {
            id: s.id.to_string(),
            team_id: s.team_id.to_string(),
            name: s.name.clone(),
            email: s.email.as_ref().map(|e| e.as_str().to_owned()),
            source: s.source.as_str().to_owned(),
            meta: to_json_object(&s.meta)?,
            mmr: s.attributes.mmr,
            plan: s.attributes.plan.clone(),
            role: s.attributes.role.clone(),
            team_attr: s.attributes.team.clone(),
            attr_created_at: s.attributes.created_at.map(to_db_time),
            avatar_url: s.avatar_url.clone(),
            token_version: s.token_version,
            created_at: to_db_time(s.created_at),
            last_updated: to_db_time(s.last_updated),
        })
    }

    pub(crate) fn into_domain(self) -> DbResult<Subscriber> {
        let email = self
            .email
            .map(|raw| Email::parse(&raw).map_err(|e| DbError::corrupt("subscribers.email", e)))
            .transpose()?;
        Ok(Subscriber {
            id: parse_id("subscribers.id", &self.id)?,
            team_id: parse_id("subscribers.team_id", &self.team_id)?,
            name: self.name,
            email,
            source: SubscriberSource::parse(&self.source)
                .map_err(|e| DbError::corrupt("subscribers.source", e))?,
            meta: parse_json_object("subscribers.meta", &self.meta)?,
            attributes: Attributes {
                mmr: self.mmr,
                plan: self.plan,
                role: self.role,
                team: self.team_attr,
                created_at: self.attr_created_at.map(from_db_time),
            },
            avatar_url: self.avatar_url,
            token_version: self.token_version,
            created_at: from_db_time(self.created_at),
            last_updated: from_db_time(self.last_updated),
        })
    }
}

/// The subscriber with this e-mail in the team, unlocked (see `lock_by_email`).
fn by_email(conn: &mut DbConnection, team: &str, email: &str) -> DbResult<Option<SubscriberRow>> {
    Ok(subscribers::table
        .filter(subscribers::team_id.eq(team))
        .filter(subscribers::email.eq(email))
        .select(SubscriberRow::as_select())
        .get_result(conn)
        .optional()?)
}

/// The subscriber with this e-mail in the team, locked until the transaction ends on
/// PostgreSQL (SQLite's `BEGIN IMMEDIATE` already holds the only write lock), so a concurrent
/// `identify` cannot merge into a copy that is about to change.
fn lock_by_email(
    conn: &mut DbConnection,
    team: &str,
    email: &str,
) -> DbResult<Option<SubscriberRow>> {
    match conn {
        DbConnection::Postgresql(inner) => Ok(subscribers::table
            .filter(subscribers::team_id.eq(team))
            .filter(subscribers::email.eq(email))
            .select(SubscriberRow::as_select())
            .for_update()
            .get_result(inner)
            .optional()?),
        DbConnection::Sqlite(_) => by_email(conn, team, email),
    }
}

fn identify_once(
    conn: &mut DbConnection,
    team: TeamId,
    input: &Identify,
    now: Timestamp,
) -> DbResult<(Subscriber, bool)> {
    match lock_by_email(conn, &team.to_string(), input.email.as_str())? {
        Some(row) => {
            let mut subscriber = row.into_domain()?;
            let changed = subscriber
                .merge_identify(input, now)
                .map_err(DbError::Refused)?;
            if changed {
                let row = SubscriberRow::from_domain(&subscriber)?;
                diesel::update(subscribers::table.find(&row.id))
                    .set(&row)
                    .execute(conn)?;
            }
            Ok((subscriber, false))
        }
        None => {
            let subscriber = Subscriber::identified(team, input, now);
            diesel::insert_into(subscribers::table)
                .values(&SubscriberRow::from_domain(&subscriber)?)
                .execute(conn)?;
            Ok((subscriber, true))
        }
    }
}

#[async_trait]
impl SubscriberStore for DieselStore {
    async fn subscriber(&self, team: TeamId, id: SubscriberId) -> StoreResult<Option<Subscriber>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read_one(move |conn| {
            subscribers::table
                .filter(subscribers::id.eq(id))
                .filter(subscribers::team_id.eq(team))
                .select(SubscriberRow::as_select())
                .get_result(conn)
                .optional()?
                .map(SubscriberRow::into_domain)
                .transpose()
        })
        .await
    }

    async fn subscriber_session(
        &self,
        team: TeamId,
        id: SubscriberId,
    ) -> StoreResult<Option<SubscriberSession>> {
        let (team, id) = (team.to_string(), id.to_string());
        // One statement: the row, and `TeamUser::makes_member` as an EXISTS over the team's
        // users (a NULL e-mail matches no user).
        let member = diesel::dsl::exists(
            team_users::table
                .filter(team_users::team_id.eq(subscribers::team_id))
                .filter(team_users::email.nullable().eq(subscribers::email)),
        );
        self.run_read_one(move |conn| {
            subscribers::table
                .filter(subscribers::id.eq(id))
                .filter(subscribers::team_id.eq(team))
                .select((SubscriberRow::as_select(), member))
                .get_result::<(SubscriberRow, bool)>(conn)
                .optional()?
                .map(|(row, is_team_member)| {
                    Ok(SubscriberSession {
                        subscriber: row.into_domain()?,
                        is_team_member,
                    })
                })
                .transpose()
        })
        .await
    }

    async fn subscriber_by_email(
        &self,
        team: TeamId,
        email: &str,
    ) -> StoreResult<Option<Subscriber>> {
        let (team, email) = (team.to_string(), email.to_owned());
        self.run_read_one(move |conn| {
            by_email(conn, &team, &email)?
                .map(SubscriberRow::into_domain)
                .transpose()
        })
        .await
    }

    async fn identify(
        &self,
        team: TeamId,
        input: &Identify,
        now: Timestamp,
    ) -> StoreResult<(Subscriber, bool)> {
        // Most identifies are of someone known, with nothing new: a read says so without
        // queueing for the write lock (S5 of `cargo xtask bench`). One statement, so no
        // transaction around it (two round trips on PostgreSQL).
        let unchanged = {
            let (input, team_id) = (input.clone(), team.to_string());
            self.run_read_one(move |conn| {
                let Some(row) = by_email(conn, &team_id, input.email.as_str())? else {
                    return Ok(None);
                };
                let mut subscriber = row.into_domain()?;
                Ok(match subscriber.merge_identify(&input, now) {
                    Ok(false) => Some(subscriber),
                    // A change, or a merge too large: the write path decides and answers.
                    Ok(true) | Err(_) => None,
                })
            })
            .await?
        };
        if let Some(subscriber) = unchanged {
            return Ok((subscriber, false));
        }
        let input = input.clone();
        self.run(move |conn| {
            let mut attempt = 1;
            loop {
                match write_tx(conn, |conn| identify_once(conn, team, &input, now)) {
                    // Two first identifies of one e-mail raced and the other insert won:
                    // start over and merge into its row.
                    Err(e) if e.is_unique_violation() && attempt < IDENTIFY_ATTEMPTS => {
                        attempt += 1;
                    }
                    result => return result,
                }
            }
        })
        .await
    }

    async fn revoke_tokens(
        &self,
        team: TeamId,
        id: SubscriberId,
        now: Timestamp,
    ) -> StoreResult<Option<i64>> {
        let (team, id) = (team.to_string(), id.to_string());
        let now = to_db_time(now);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // Incremented in the database, so concurrent revocations each count.
                let version = diesel::update(
                    subscribers::table
                        .filter(subscribers::id.eq(id))
                        .filter(subscribers::team_id.eq(team)),
                )
                .set((
                    subscribers::token_version.eq(subscribers::token_version + 1),
                    subscribers::last_updated.eq(now),
                ))
                .returning(subscribers::token_version)
                .get_result::<i64>(conn)
                .optional()?;
                Ok(version)
            })
        })
        .await
    }

    async fn live_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
    ) -> StoreResult<Option<Subscriber>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read(move |conn| subscriber_admin::live(conn, &team, &id))
            .await
    }

    async fn list_subscribers(
        &self,
        team: TeamId,
        query: &SubscriberQuery,
    ) -> StoreResult<Paged<Subscriber>> {
        let (team, query) = (team.to_string(), query.clone());
        self.run_read(move |conn| subscriber_admin::list(conn, &team, &query))
            .await
    }

    async fn update_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
        patch: &SubscriberPatch,
        now: Timestamp,
    ) -> StoreResult<Option<Subscriber>> {
        let (team, id, patch) = (team.to_string(), id.to_string(), patch.clone());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                subscriber_admin::update(conn, &team, &id, &patch, now)
            })
        })
        .await
    }

    async fn erase_subscriber(
        &self,
        team: TeamId,
        id: SubscriberId,
        now: Timestamp,
    ) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| write_tx(conn, |conn| subscriber_admin::erase(conn, &team, &id, now)))
            .await
    }
}

/// The columns of a subscriber that are shown beside what they wrote: a page of comments
/// decodes these five per person rather than the whole record (timestamps, `meta` as JSON).
#[derive(Queryable, Selectable)]
#[diesel(table_name = subscribers)]
struct PersonRow {
    id: String,
    team_id: String,
    name: String,
    email: Option<String>,
    avatar_url: Option<String>,
}

impl PersonRow {
    fn into_domain(self) -> DbResult<SubscriberRef> {
        person(&self.id, self.name, self.email, self.avatar_url)
    }
}

/// A subscriber as shown beside what they wrote, from the columns `PersonRow` reads.
pub(crate) fn person(
    id: &str,
    name: String,
    email: Option<String>,
    avatar_url: Option<String>,
) -> DbResult<SubscriberRef> {
    Ok(SubscriberRef {
        id: parse_id("subscribers.id", id)?,
        name,
        email: email
            .map(|raw| Email::parse(&raw).map_err(|e| DbError::corrupt("subscribers.email", e)))
            .transpose()?,
        avatar_url,
    })
}

/// How the team's subscribers among `ids` are shown, by id, in one query. The query looks the
/// ids up by primary key and the team is checked on the rows: with `team_id = ?` in the SQL,
/// SQLite (no statistics) reads every subscriber of the team instead once there are more than a
/// few ids (a page of 20 items read 5,000 rows; `cargo xtask bench`, S3 and S6).
pub(crate) fn people_by_id<'a>(
    conn: &mut DbConnection,
    team: &str,
    ids: impl IntoIterator<Item = &'a str>,
) -> DbResult<HashMap<String, SubscriberRef>> {
    let ids = distinct(ids);
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<PersonRow> = subscribers::table
        .filter(one_of(subscribers::id, ids))
        .select(PersonRow::as_select())
        .load(conn)?;
    rows.into_iter()
        .filter(|row| row.team_id == team)
        .map(|row| {
            let person = row.into_domain()?;
            Ok((person.id.to_string(), person))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pages_people_are_read_by_primary_key_not_by_walking_the_team() {
        let mut conn = crate::migrations::scratch_sqlite();
        let team = uuid::Uuid::now_v7().to_string();
        let other_team = uuid::Uuid::now_v7().to_string();
        let mut ids = Vec::new();
        for n in 0..30 {
            let id = uuid::Uuid::now_v7().to_string();
            // Every third one is the other team's: the rows are still checked.
            let owner = if n % 3 == 0 { &other_team } else { &team };
            diesel::sql_query(format!(
                "INSERT INTO subscribers (id, team_id, name, email, source, created_at, \
                 last_updated) VALUES ('{id}', '{owner}', 'S{n}', 's{n}@example.com', 'api', \
                 '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
            ))
            .execute(&mut conn)
            .unwrap();
            ids.push(id);
        }
        let plans = crate::raw_sql::plans::explained(&mut conn, |conn| {
            let found = people_by_id(conn, &team, ids.iter().map(String::as_str)).unwrap();
            assert_eq!(found.len(), 20, "the team's 20 of the 30");
            assert!(found.keys().all(|id| {
                let n = ids.iter().position(|i| i == id);
                n.is_some_and(|n| n % 3 != 0)
            }));
        });
        assert_eq!(plans.len(), 1, "{plans:?}");
        assert!(
            plans[0].1.contains("sqlite_autoindex_subscribers_1"),
            "looked up by id: {plans:?}"
        );
    }
}
