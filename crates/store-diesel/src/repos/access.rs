//! Team users and API keys: who may call the team API, found by the hash of their key.

use async_trait::async_trait;
use diesel::{dsl::case_when, prelude::*, sql_types::BigInt};
use sounding_domain::{
    access::{Role, TeamUser},
    api_key::{ApiKey, ApiKeyGrant},
    ids::{ApiKeyId, TeamId, UserId},
    ports::{AccessStore, Conflict, StoreResult},
    team_admin,
    timestamp::Timestamp,
};
use time::PrimitiveDateTime;

use super::{from_db_time, parse_id, parse_role, to_db_time};
use crate::{
    connection::DbConnection,
    error::{DbError, DbResult},
    schema::{api_keys, team_users},
    tx::write_tx,
    DieselStore,
};

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = team_users, treat_none_as_default_value = false)]
pub(crate) struct UserRow {
    id: String,
    team_id: String,
    email: String,
    name: String,
    role: String,
    created_at: PrimitiveDateTime,
}

impl From<&TeamUser> for UserRow {
    fn from(u: &TeamUser) -> Self {
        Self {
            id: u.id.to_string(),
            team_id: u.team_id.to_string(),
            email: u.email.clone(),
            name: u.name.clone(),
            role: u.role.as_str().to_owned(),
            created_at: to_db_time(u.created_at),
        }
    }
}

impl UserRow {
    fn into_domain(self) -> DbResult<TeamUser> {
        Ok(TeamUser {
            id: parse_id("team_users.id", &self.id)?,
            team_id: parse_id("team_users.team_id", &self.team_id)?,
            email: self.email,
            name: self.name,
            role: parse_role("team_users.role", &self.role)?,
            created_at: from_db_time(self.created_at),
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = api_keys, treat_none_as_default_value = false)]
pub(crate) struct ApiKeyRow {
    id: String,
    team_id: String,
    user_id: String,
    name: Option<String>,
    role: String,
    read_only: bool,
    prefix: String,
    key_hash: String,
    created_at: PrimitiveDateTime,
    last_used_at: Option<PrimitiveDateTime>,
}

impl From<&ApiKey> for ApiKeyRow {
    fn from(k: &ApiKey) -> Self {
        Self {
            id: k.id.to_string(),
            team_id: k.team_id.to_string(),
            user_id: k.user_id.to_string(),
            name: k.name.clone(),
            role: k.role.as_str().to_owned(),
            read_only: k.read_only,
            prefix: k.prefix.clone(),
            key_hash: k.key_hash.clone(),
            created_at: to_db_time(k.created_at),
            last_used_at: k.last_used_at.map(to_db_time),
        }
    }
}

impl ApiKeyRow {
    fn into_domain(self) -> DbResult<ApiKey> {
        Ok(ApiKey {
            id: parse_id("api_keys.id", &self.id)?,
            team_id: parse_id("api_keys.team_id", &self.team_id)?,
            user_id: parse_id("api_keys.user_id", &self.user_id)?,
            name: self.name,
            role: parse_role("api_keys.role", &self.role)?,
            read_only: self.read_only,
            prefix: self.prefix,
            key_hash: self.key_hash,
            created_at: from_db_time(self.created_at),
            last_used_at: self.last_used_at.map(from_db_time),
        })
    }
}

#[async_trait]
impl AccessStore for DieselStore {
    async fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()> {
        let row = ApiKeyRow::from(key);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                diesel::insert_into(api_keys::table)
                    .values(&row)
                    .execute(conn)?;
                Ok(())
            })
        })
        .await
    }

    async fn api_key_by_hash(&self, key_hash: &str) -> StoreResult<Option<ApiKeyGrant>> {
        let key = key_hash.to_owned();
        let key_hash = key_hash.to_owned();
        self.run_read_cached(
            |cache| &cache.keys,
            Some(key),
            move |conn| {
                // The inner join also hides a key whose user is gone, as the in-memory store does.
                let found = api_keys::table
                    .inner_join(team_users::table.on(team_users::id.eq(api_keys::user_id)))
                    .filter(api_keys::key_hash.eq(key_hash))
                    .select((ApiKeyRow::as_select(), team_users::role))
                    .get_result::<(ApiKeyRow, String)>(conn)
                    .optional()?;
                found
                    .map(|(key, user_role)| {
                        Ok(ApiKeyGrant {
                            key: key.into_domain()?,
                            user_role: parse_role("team_users.role", &user_role)?,
                        })
                    })
                    .transpose()
            },
        )
        .await
    }

    async fn delete_api_key(&self, id: ApiKeyId) -> StoreResult<bool> {
        let id = id.to_string();
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let deleted = diesel::delete(api_keys::table.find(id)).execute(conn)?;
                Ok(deleted > 0)
            })
        })
        .await
    }

    async fn users(&self, team: TeamId) -> StoreResult<Vec<TeamUser>> {
        let team = team.to_string();
        self.run_read(move |conn| {
            // Owners first, then admins, then members (`Role`'s order, highest first).
            let rank = case_when::<_, _, BigInt>(team_users::role.eq("owner"), 0_i64)
                .when(team_users::role.eq("admin"), 1_i64)
                .otherwise(2_i64);
            team_users::table
                .filter(team_users::team_id.eq(team))
                .order((
                    rank.asc(),
                    team_users::created_at.asc(),
                    team_users::id.asc(),
                ))
                .select(UserRow::as_select())
                .load(conn)?
                .into_iter()
                .map(UserRow::into_domain)
                .collect()
        })
        .await
    }

    async fn insert_user(&self, user: &TeamUser) -> StoreResult<()> {
        let row = UserRow::from(user);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                diesel::insert_into(team_users::table)
                    .values(&row)
                    .execute(conn)?;
                Ok(())
            })
        })
        .await
    }

    async fn user(&self, team: TeamId, id: UserId) -> StoreResult<Option<TeamUser>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read(move |conn| load_user(conn, &team, &id)).await
    }

    async fn set_user_role(
        &self,
        team: TeamId,
        id: UserId,
        role: Role,
    ) -> StoreResult<Option<TeamUser>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let owners = lock_owners(conn, &team)?;
                let Some(mut user) = load_user(conn, &team, &id)? else {
                    return Ok(None);
                };
                if team_admin::would_leave_no_owner(&owners, &id, Some(role)) {
                    return Err(DbError::Conflict(Conflict::LastOwner));
                }
                diesel::update(team_users::table.find(&id))
                    .set(team_users::role.eq(role.as_str()))
                    .execute(conn)?;
                user.role = role;
                Ok(Some(user))
            })
        })
        .await
    }

    async fn delete_user(&self, team: TeamId, id: UserId) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let owners = lock_owners(conn, &team)?;
                if load_user(conn, &team, &id)?.is_none() {
                    return Ok(false);
                }
                if team_admin::would_leave_no_owner(&owners, &id, None) {
                    return Err(DbError::Conflict(Conflict::LastOwner));
                }
                // Explicit rather than left to the foreign key's cascade, so the keys go on
                // every engine whatever its foreign-key setting.
                diesel::delete(api_keys::table.filter(api_keys::user_id.eq(&id))).execute(conn)?;
                diesel::delete(team_users::table.find(&id)).execute(conn)?;
                Ok(true)
            })
        })
        .await
    }

    async fn api_keys(&self, team: TeamId) -> StoreResult<Vec<ApiKey>> {
        let team = team.to_string();
        self.run_read(move |conn| {
            api_keys::table
                .filter(api_keys::team_id.eq(team))
                .order((api_keys::created_at.asc(), api_keys::id.asc()))
                .select(ApiKeyRow::as_select())
                .load(conn)?
                .into_iter()
                .map(ApiKeyRow::into_domain)
                .collect()
        })
        .await
    }

    async fn delete_team_api_key(&self, team: TeamId, id: ApiKeyId) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let deleted = diesel::delete(
                    api_keys::table
                        .filter(api_keys::id.eq(id))
                        .filter(api_keys::team_id.eq(team)),
                )
                .execute(conn)?;
                Ok(deleted > 0)
            })
        })
        .await
    }

    async fn touch_api_key(
        &self,
        id: ApiKeyId,
        now: Timestamp,
        resolution_seconds: i64,
    ) -> StoreResult<()> {
        let id = id.to_string();
        let (at, due_before) = (
            to_db_time(now),
            to_db_time(now.plus_seconds(-resolution_seconds)),
        );
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // The condition is in the statement: concurrent requests on any instance
                // write it at most once per resolution.
                diesel::update(
                    api_keys::table.filter(api_keys::id.eq(id)).filter(
                        api_keys::last_used_at
                            .is_null()
                            .or(api_keys::last_used_at.le(due_before)),
                    ),
                )
                .set(api_keys::last_used_at.eq(at))
                .execute(conn)?;
                Ok(())
            })
        })
        .await
    }
}

fn load_user(conn: &mut DbConnection, team: &str, id: &str) -> DbResult<Option<TeamUser>> {
    team_users::table
        .filter(team_users::id.eq(id))
        .filter(team_users::team_id.eq(team))
        .select(UserRow::as_select())
        .get_result(conn)
        .optional()?
        .map(UserRow::into_domain)
        .transpose()
}

/// The ids of the team's owners, their rows locked until the transaction ends on PostgreSQL
/// (re-read after any wait, so a concurrent demotion that committed is seen); SQLite's
/// `BEGIN IMMEDIATE` already holds the only write lock.
fn lock_owners(conn: &mut DbConnection, team: &str) -> DbResult<Vec<String>> {
    macro_rules! owners {
        () => {
            team_users::table
                .filter(team_users::team_id.eq(team))
                .filter(team_users::role.eq(Role::Owner.as_str()))
                .order(team_users::id.asc())
                .select(team_users::id)
        };
    }
    Ok(match conn {
        DbConnection::Postgresql(inner) => owners!().for_update().load(inner)?,
        DbConnection::Sqlite(inner) => owners!().load(inner)?,
    })
}
