//! Teams: the tenant rows, and `create_team`, which writes a team with its owner and first key.

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::{
    access::TeamUser,
    api_key::ApiKey,
    edit::{Edit, Edited},
    ids::TeamId,
    ports::{StoreResult, TeamStore},
    team::Team,
};
use time::PrimitiveDateTime;

use super::{
    access::{ApiKeyRow, UserRow},
    from_db_time, parse_id, to_db_time,
};
use crate::{
    connection::DbConnection,
    edits::locked,
    error::{DbError, DbResult},
    schema::{api_keys, team_users, teams},
    tx::write_tx,
    DieselStore,
};

#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = teams, treat_none_as_default_value = false)]
// A removed sign-in URL is written as NULL, not skipped.
#[diesel(treat_none_as_null = true)]
struct TeamRow {
    id: String,
    name: String,
    subdomain: String,
    allow_anonymous_feedback: bool,
    public_board_moderation: bool,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
    portal_sign_in_url: Option<String>,
}

impl From<&Team> for TeamRow {
    fn from(t: &Team) -> Self {
        Self {
            id: t.id.to_string(),
            name: t.name.clone(),
            subdomain: t.subdomain.clone(),
            allow_anonymous_feedback: t.allow_anonymous_feedback,
            public_board_moderation: t.public_board_moderation,
            created_at: to_db_time(t.created_at),
            updated_at: to_db_time(t.updated_at),
            portal_sign_in_url: t.portal_sign_in_url.clone(),
        }
    }
}

impl TeamRow {
    fn into_domain(self) -> DbResult<Team> {
        Ok(Team {
            id: parse_id("teams.id", &self.id)?,
            name: self.name,
            subdomain: self.subdomain,
            allow_anonymous_feedback: self.allow_anonymous_feedback,
            public_board_moderation: self.public_board_moderation,
            portal_sign_in_url: self.portal_sign_in_url,
            created_at: from_db_time(self.created_at),
            updated_at: from_db_time(self.updated_at),
        })
    }
}

/// How a team is looked up.
enum Key {
    Id(String),
    Subdomain(String),
}

/// The team, if there is one.
fn read_team(conn: &mut DbConnection, key: Key) -> DbResult<Option<Team>> {
    let all = teams::table.select(TeamRow::as_select());
    match key {
        Key::Id(id) => all.filter(teams::id.eq(id)).get_result(conn),
        Key::Subdomain(subdomain) => all.filter(teams::subdomain.eq(subdomain)).get_result(conn),
    }
    .optional()?
    .map(TeamRow::into_domain)
    .transpose()
}

#[async_trait]
impl TeamStore for DieselStore {
    async fn any_team(&self) -> StoreResult<bool> {
        self.run_read(|conn| {
            Ok(
                diesel::select(diesel::dsl::exists(teams::table.select(teams::id)))
                    .get_result(conn)?,
            )
        })
        .await
    }

    async fn create_team(&self, team: &Team, owner: &TeamUser, key: &ApiKey) -> StoreResult<()> {
        let team = TeamRow::from(team);
        let owner = UserRow::from(owner);
        let key = ApiKeyRow::from(key);
        self.run(move |conn| {
            // The team goes first: a taken subdomain fails before anything else is written.
            write_tx(conn, |conn| {
                diesel::insert_into(teams::table)
                    .values(&team)
                    .execute(conn)?;
                diesel::insert_into(team_users::table)
                    .values(&owner)
                    .execute(conn)?;
                diesel::insert_into(api_keys::table)
                    .values(&key)
                    .execute(conn)?;
                Ok(())
            })
        })
        .await
    }

    async fn team(&self, id: TeamId) -> StoreResult<Option<Team>> {
        let key = id;
        let id = id.to_string();
        self.run_read_cached(
            |cache| &cache.teams,
            Some(key),
            move |conn| read_team(conn, Key::Id(id)),
        )
        .await
    }

    async fn team_by_subdomain(&self, subdomain: &str) -> StoreResult<Option<Team>> {
        let subdomain = subdomain.to_owned();
        self.run_read_one(move |conn| read_team(conn, Key::Subdomain(subdomain)))
            .await
    }

    async fn edit_team(&self, id: TeamId, edit: Edit<Team>) -> StoreResult<Edited<Team>> {
        let id = id.to_string();
        self.edit(
            edit,
            move |conn| {
                locked!(conn, teams::table.find(&id).select(TeamRow::as_select()))?
                    .map(TeamRow::into_domain)
                    .transpose()
            },
            |conn, _, after| {
                let row = TeamRow::from(after);
                diesel::update(teams::table.find(&row.id))
                    .set(&row)
                    .execute(conn)
                    .map_err(DbError::from)?;
                Ok(())
            },
        )
        .await
    }
}
