//! Tags: names unique per team ignoring case (the `name_key` column, lowercased here), and
//! `feedback_tags`, which items carry which tag. An item's tags are read with the item
//! (`repos/feedback/view.rs`).

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::{
    edit::{Edit, Edited},
    ids::{TagId, TeamId},
    ports::{StoreResult, TagStore},
    tag::{self, Tag},
};
use time::PrimitiveDateTime;

use super::{from_db_time, parse_id, to_db_time};
use crate::{
    connection::DbConnection,
    edits::locked,
    error::{DbError, DbResult},
    schema::{feedback_tags, tags},
    tx::write_tx,
    DieselStore,
};

#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = tags, treat_none_as_default_value = false)]
struct TagRow {
    id: String,
    team_id: String,
    name: String,
    name_key: String,
    color: String,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
}

impl From<&Tag> for TagRow {
    fn from(t: &Tag) -> Self {
        Self {
            id: t.id.to_string(),
            team_id: t.team_id.to_string(),
            name: t.name.clone(),
            name_key: t.name_key(),
            color: t.color.clone(),
            created_at: to_db_time(t.created_at),
            updated_at: to_db_time(t.updated_at),
        }
    }
}

impl TagRow {
    fn into_domain(self) -> DbResult<Tag> {
        Ok(Tag {
            id: parse_id("tags.id", &self.id)?,
            team_id: parse_id("tags.team_id", &self.team_id)?,
            name: self.name,
            color: self.color,
            created_at: from_db_time(self.created_at),
            updated_at: from_db_time(self.updated_at),
        })
    }
}

/// How many of `ids` are tags of the team. On PostgreSQL the tags found are held (`FOR KEY
/// SHARE`) until the transaction ends, so none can be deleted before the caller's rows that
/// reference them are in.
pub(crate) fn known_tags(conn: &mut DbConnection, team: &str, ids: &[String]) -> DbResult<i64> {
    if ids.is_empty() {
        return Ok(0);
    }
    // Built per arm: the locking clause is PostgreSQL's.
    macro_rules! found {
        () => {
            tags::table
                .filter(tags::team_id.eq(team))
                .filter(tags::id.eq_any(ids))
                .select(tags::id)
        };
    }
    let found: Vec<String> = match conn {
        DbConnection::Postgresql(inner) => found!().for_key_share().load(inner)?,
        DbConnection::Sqlite(inner) => found!().load(inner)?,
    };
    Ok(i64::try_from(found.len()).unwrap_or(i64::MAX))
}

#[async_trait]
impl TagStore for DieselStore {
    async fn insert_tag(&self, tag: &Tag) -> StoreResult<()> {
        let row = TagRow::from(tag);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // A taken name violates `tags_team_id_name_key_key`, reported as `tag_name`.
                diesel::insert_into(tags::table)
                    .values(&row)
                    .execute(conn)?;
                Ok(())
            })
        })
        .await
    }

    async fn tags(&self, team: TeamId) -> StoreResult<Vec<Tag>> {
        let team = team.to_string();
        self.run_read(move |conn| {
            let mut all = tags::table
                .filter(tags::team_id.eq(team))
                .select(TagRow::as_select())
                .load(conn)?
                .into_iter()
                .map(TagRow::into_domain)
                .collect::<DbResult<Vec<_>>>()?;
            // Sorted here, not by SQL, so both engines' collations agree.
            tag::sort_full(&mut all);
            Ok(all)
        })
        .await
    }

    async fn tag(&self, team: TeamId, id: TagId) -> StoreResult<Option<Tag>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read(move |conn| {
            tags::table
                .filter(tags::id.eq(id))
                .filter(tags::team_id.eq(team))
                .select(TagRow::as_select())
                .get_result(conn)
                .optional()?
                .map(TagRow::into_domain)
                .transpose()
        })
        .await
    }

    async fn edit_tag(&self, team: TeamId, id: TagId, edit: Edit<Tag>) -> StoreResult<Edited<Tag>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.edit(
            edit,
            move |conn| {
                locked!(
                    conn,
                    tags::table
                        .filter(tags::id.eq(&id))
                        .filter(tags::team_id.eq(&team))
                        .select(TagRow::as_select())
                )?
                .map(TagRow::into_domain)
                .transpose()
            },
            |conn, _, after| {
                // A taken name violates the unique index on the name key (`tag_name`).
                let row = TagRow::from(after);
                diesel::update(tags::table.find(&row.id))
                    .set((
                        tags::name.eq(&row.name),
                        tags::name_key.eq(&row.name_key),
                        tags::color.eq(&row.color),
                        tags::updated_at.eq(row.updated_at),
                    ))
                    .execute(conn)
                    .map_err(DbError::from)?;
                Ok(())
            },
        )
        .await
    }

    async fn delete_tag(&self, team: TeamId, id: TagId) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let owned = tags::table
                    .filter(tags::id.eq(&id))
                    .filter(tags::team_id.eq(&team))
                    .count()
                    .get_result::<i64>(conn)?;
                if owned == 0 {
                    return Ok(false);
                }
                // Explicit rather than by cascade, so the statement says what goes.
                diesel::delete(feedback_tags::table.filter(feedback_tags::tag_id.eq(&id)))
                    .execute(conn)?;
                diesel::delete(tags::table.find(&id)).execute(conn)?;
                Ok(true)
            })
        })
        .await
    }
}
