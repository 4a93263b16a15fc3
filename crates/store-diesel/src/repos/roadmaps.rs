//! Roadmaps and their stages. A roadmap's stage orders (the column `position`) stay 1, 2, 3…:
//! every insert, move and delete of a stage locks the roadmap's row (on PostgreSQL; SQLite's
//! `BEGIN IMMEDIATE` already serializes writers), reads the stages in order, computes the new
//! order with `sounding_domain::stage::place` and rewrites the positions that changed, all in
//! one transaction.

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::prelude::*;
use sounding_domain::{
    edit::{self, Blocked, Edit, Edited},
    ids::{RoadmapId, StageId, TeamId},
    ports::{Conflict, RoadmapStore, StoreResult},
    roadmap::Roadmap,
    stage::{self, place, Stage, StageMeta, StageView},
};
use time::PrimitiveDateTime;

use super::{
    from_db_time, parse_id, to_db_time,
    topics::{any_topic, purge_topics, TopicsOf},
};
use crate::{
    connection::DbConnection,
    edits::locked,
    error::{DbError, DbResult},
    raw_sql::RawSql,
    repos::{
        lock::{lock_row, Lock},
        paging::{count, kept_sum},
    },
    schema::{roadmaps, stages},
    tx::write_tx,
    DieselStore,
};

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = roadmaps, treat_none_as_default_value = false)]
struct RoadmapRow {
    id: String,
    team_id: String,
    name: String,
    description: String,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
    is_private: bool,
}

impl From<&Roadmap> for RoadmapRow {
    fn from(r: &Roadmap) -> Self {
        Self {
            id: r.id.to_string(),
            team_id: r.team_id.to_string(),
            name: r.name.clone(),
            description: r.description.clone(),
            created_at: to_db_time(r.created_at),
            updated_at: to_db_time(r.updated_at),
            is_private: r.is_private,
        }
    }
}

impl RoadmapRow {
    fn into_domain(self) -> DbResult<Roadmap> {
        Ok(Roadmap {
            id: parse_id("roadmaps.id", &self.id)?,
            team_id: parse_id("roadmaps.team_id", &self.team_id)?,
            name: self.name,
            description: self.description,
            created_at: from_db_time(self.created_at),
            updated_at: from_db_time(self.updated_at),
            is_private: self.is_private,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = stages, treat_none_as_default_value = false)]
struct StageRow {
    id: String,
    team_id: String,
    roadmap_id: String,
    name: String,
    position: i64,
    is_private: bool,
    disable_moderation: bool,
    color: Option<String>,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
}

/// What `edit_stage` saves besides the position: the name and the meta.
#[derive(AsChangeset)]
#[diesel(table_name = stages, treat_none_as_null = true)]
struct StageChanges {
    name: String,
    is_private: bool,
    disable_moderation: bool,
    color: Option<String>,
    updated_at: PrimitiveDateTime,
}

impl StageRow {
    fn new(s: &Stage, position: i64) -> Self {
        Self {
            id: s.id.to_string(),
            team_id: s.team_id.to_string(),
            roadmap_id: s.roadmap_id.to_string(),
            name: s.name.clone(),
            position,
            is_private: s.meta.is_private,
            disable_moderation: s.meta.disable_moderation,
            color: s.meta.color.clone(),
            created_at: to_db_time(s.created_at),
            updated_at: to_db_time(s.updated_at),
        }
    }

    fn into_domain(self) -> DbResult<Stage> {
        Ok(Stage {
            id: parse_id("stages.id", &self.id)?,
            team_id: parse_id("stages.team_id", &self.team_id)?,
            roadmap_id: parse_id("stages.roadmap_id", &self.roadmap_id)?,
            name: self.name,
            order: self.position,
            meta: StageMeta {
                is_private: self.is_private,
                disable_moderation: self.disable_moderation,
                color: self.color,
            },
            created_at: from_db_time(self.created_at),
            updated_at: from_db_time(self.updated_at),
        })
    }
}

impl StageChanges {
    fn of(s: &Stage) -> Self {
        Self {
            name: s.name.clone(),
            is_private: s.meta.is_private,
            disable_moderation: s.meta.disable_moderation,
            color: s.meta.color.clone(),
            updated_at: to_db_time(s.updated_at),
        }
    }
}

/// Whether the team has the roadmap, its row locked as asked on PostgreSQL.
fn lock_roadmap(conn: &mut DbConnection, team: &str, id: &str, lock: Lock) -> DbResult<bool> {
    let roadmap = || {
        roadmaps::table
            .filter(roadmaps::id.eq(id))
            .filter(roadmaps::team_id.eq(team))
            .select(roadmaps::id)
    };
    let found: Option<String> = lock_row!(conn, roadmap(), lock)?;
    Ok(found.is_some())
}

/// The roadmap's stages in their order, with their stored positions. Ties (which the store
/// never writes, but a hand-edited database might hold) fall back to creation, then id.
fn ordered_stages(conn: &mut DbConnection, roadmap: &str) -> DbResult<Vec<(StageId, i64)>> {
    stages::table
        .filter(stages::roadmap_id.eq(roadmap))
        .order((
            stages::position.asc(),
            stages::created_at.asc(),
            stages::id.asc(),
        ))
        .select((stages::id, stages::position))
        .load::<(String, i64)>(conn)?
        .into_iter()
        .map(|(id, position)| Ok((parse_id("stages.id", &id)?, position)))
        .collect()
}

/// Writes `position = index + 1` for every stage of `order` whose stored position (in
/// `current`) differs; a stage not in `current` is skipped (the caller writes it).
fn renumber(
    conn: &mut DbConnection,
    current: &[(StageId, i64)],
    order: &[StageId],
) -> DbResult<()> {
    let stored: HashMap<StageId, i64> = current.iter().copied().collect();
    for (index, id) in order.iter().enumerate() {
        let position = index as i64 + 1;
        match stored.get(id) {
            Some(&old) if old != position => {
                diesel::update(stages::table.find(id.to_string()))
                    .set(stages::position.eq(position))
                    .execute(conn)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// The stage's roadmap, if the team has the stage.
fn stage_roadmap(conn: &mut DbConnection, team: &str, id: &str) -> DbResult<Option<String>> {
    Ok(stages::table
        .filter(stages::id.eq(id))
        .filter(stages::team_id.eq(team))
        .select(stages::roadmap_id)
        .get_result::<String>(conn)
        .optional()?)
}

/// The number of published topics on the stage, from `topic_counts` (kept by triggers,
/// migrations/2026-12-04-000003_topic_counts): at most 16 rows, however many topics.
fn published_topics(conn: &mut DbConnection, stage: &str) -> DbResult<i64> {
    let mut sql = kept_sum("topic_counts");
    sql.push("c.stage_id = ")
        .text(stage)
        .push(" AND c.published = 1");
    count(&sql, conn)
}

/// The published topics of each of the roadmap's stages, from `topic_counts`: one grouped
/// sum of the roadmap's rows (its stages × 2 × at most 16 slots).
fn published_topics_by_stage(
    conn: &mut DbConnection,
    team: &str,
    roadmap: &str,
) -> DbResult<HashMap<String, i64>> {
    let mut sql = RawSql::new();
    sql.push(
        "SELECT c.stage_id AS stage_id, CAST(SUM(c.n) AS BIGINT) AS n FROM topic_counts c \
         WHERE c.team_id = ",
    )
    .text(team)
    .push(" AND c.roadmap_id = ")
    .text(roadmap)
    .push(" AND c.published = 1 GROUP BY c.stage_id");
    Ok(sql
        .load::<StageCount>(conn)?
        .into_iter()
        .map(|row| (row.stage_id, row.n))
        .collect())
}

#[derive(QueryableByName)]
struct StageCount {
    #[diesel(sql_type = diesel::sql_types::Text)]
    stage_id: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

#[async_trait]
impl RoadmapStore for DieselStore {
    async fn insert_roadmap(&self, roadmap: &Roadmap, stages: &[Stage]) -> StoreResult<()> {
        let row = RoadmapRow::from(roadmap);
        let stages: Vec<StageRow> = stages
            .iter()
            .zip(1..)
            .map(|(stage, order)| StageRow::new(stage, order))
            .collect();
        self.run(move |conn| {
            write_tx(conn, |conn| {
                diesel::insert_into(roadmaps::table)
                    .values(&row)
                    .execute(conn)?;
                // One statement per stage: batch inserts are per backend in diesel, and a
                // roadmap is created with a handful of stages.
                for stage in &stages {
                    diesel::insert_into(stages::table)
                        .values(stage)
                        .execute(conn)?;
                }
                Ok(())
            })
        })
        .await
    }

    async fn roadmaps(&self, team: TeamId) -> StoreResult<Vec<Roadmap>> {
        let team = team.to_string();
        self.run_read(move |conn| {
            roadmaps::table
                .filter(roadmaps::team_id.eq(team))
                .order((roadmaps::created_at.asc(), roadmaps::id.asc()))
                .select(RoadmapRow::as_select())
                .load(conn)?
                .into_iter()
                .map(RoadmapRow::into_domain)
                .collect()
        })
        .await
    }

    async fn roadmap(&self, team: TeamId, id: RoadmapId) -> StoreResult<Option<Roadmap>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read(move |conn| {
            roadmaps::table
                .filter(roadmaps::id.eq(id))
                .filter(roadmaps::team_id.eq(team))
                .select(RoadmapRow::as_select())
                .get_result(conn)
                .optional()?
                .map(RoadmapRow::into_domain)
                .transpose()
        })
        .await
    }

    async fn edit_roadmap(
        &self,
        team: TeamId,
        id: RoadmapId,
        edit: Edit<Roadmap>,
    ) -> StoreResult<Edited<Roadmap>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.edit(
            edit,
            move |conn| {
                locked!(
                    conn,
                    roadmaps::table
                        .filter(roadmaps::id.eq(&id))
                        .filter(roadmaps::team_id.eq(&team))
                        .select(RoadmapRow::as_select())
                )?
                .map(RoadmapRow::into_domain)
                .transpose()
            },
            |conn, _, after| {
                let row = RoadmapRow::from(after);
                diesel::update(roadmaps::table.find(&row.id))
                    .set((
                        roadmaps::name.eq(&row.name),
                        roadmaps::description.eq(&row.description),
                        roadmaps::updated_at.eq(row.updated_at),
                    ))
                    .execute(conn)
                    .map_err(DbError::from)?;
                Ok(())
            },
        )
        .await
    }

    async fn delete_roadmap(&self, team: TeamId, id: RoadmapId, force: bool) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // Locked exclusively first on PostgreSQL: a topic or stage being added to the
                // roadmap (whose foreign key check locks the row too) commits before the check
                // below, or waits until the roadmap is gone and then fails.
                if !lock_roadmap(conn, &team, &id, Lock::Delete)? {
                    return Ok(false);
                }
                let which = TopicsOf::Roadmap(&id);
                if any_topic(conn, which)? {
                    if !force {
                        return Err(DbError::Conflict(Conflict::RoadmapNotEmpty));
                    }
                    purge_topics(conn, which)?;
                }
                diesel::delete(stages::table.filter(stages::roadmap_id.eq(&id))).execute(conn)?;
                diesel::delete(roadmaps::table.find(&id)).execute(conn)?;
                Ok(true)
            })
        })
        .await
    }

    async fn insert_stage(
        &self,
        stage: &Stage,
        position: Option<i64>,
    ) -> StoreResult<Option<Stage>> {
        let stage = stage.clone();
        let (team, roadmap) = (stage.team_id.to_string(), stage.roadmap_id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                if !lock_roadmap(conn, &team, &roadmap, Lock::Update)? {
                    return Ok(None);
                }
                let current = ordered_stages(conn, &roadmap)?;
                let ids: Vec<StageId> = current.iter().map(|(id, _)| *id).collect();
                let order = place(&ids, stage.id, position);
                let at = stage::order_of(&order, stage.id);
                diesel::insert_into(stages::table)
                    .values(&StageRow::new(&stage, at))
                    .execute(conn)?;
                renumber(conn, &current, &order)?;
                Ok(Some(Stage { order: at, ..stage }))
            })
        })
        .await
    }

    async fn stages(
        &self,
        team: TeamId,
        roadmap: RoadmapId,
        include_private: bool,
    ) -> StoreResult<Vec<StageView>> {
        let (team, roadmap) = (team.to_string(), roadmap.to_string());
        self.run_read(move |conn| {
            let mut query = stages::table
                .filter(stages::roadmap_id.eq(&roadmap))
                .filter(stages::team_id.eq(&team))
                .order((
                    stages::position.asc(),
                    stages::created_at.asc(),
                    stages::id.asc(),
                ))
                .select(StageRow::as_select())
                .into_boxed();
            if !include_private {
                query = query.filter(stages::is_private.eq(false));
            }
            let rows: Vec<StageRow> = query.load(conn)?;
            if rows.is_empty() {
                return Ok(Vec::new());
            }
            // Every stage's published topics in one grouped sum, not one per stage.
            let counts = published_topics_by_stage(conn, &team, &roadmap)?;
            rows.into_iter()
                .map(|row| {
                    let topic_count = counts.get(&row.id).copied().unwrap_or(0);
                    Ok(StageView {
                        stage: row.into_domain()?,
                        topic_count,
                    })
                })
                .collect()
        })
        .await
    }

    async fn stage(&self, team: TeamId, id: StageId) -> StoreResult<Option<StageView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read(move |conn| {
            let Some(row) = stages::table
                .filter(stages::id.eq(&id))
                .filter(stages::team_id.eq(&team))
                .select(StageRow::as_select())
                .get_result(conn)
                .optional()?
            else {
                return Ok(None);
            };
            let topic_count = published_topics(conn, &id)?;
            Ok(Some(StageView {
                stage: row.into_domain()?,
                topic_count,
            }))
        })
        .await
    }

    async fn edit_stage(
        &self,
        team: TeamId,
        id: StageId,
        position: Option<i64>,
        edit: Edit<Stage>,
    ) -> StoreResult<Edited<Stage>> {
        let (team, stage_id) = (team.to_string(), id);
        let id = id.to_string();
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let Some(roadmap) = stage_roadmap(conn, &team, &id)? else {
                    return Ok(Edited::Gone);
                };
                if !lock_roadmap(conn, &team, &roadmap, Lock::Update)? {
                    return Ok(Edited::Gone);
                }
                // Read under the roadmap's lock, which every change of its stages takes.
                let found = stages::table
                    .find(&id)
                    .select(StageRow::as_select())
                    .get_result(conn)
                    .optional()?
                    .map(StageRow::into_domain)
                    .transpose()?;
                let current = ordered_stages(conn, &roadmap)?;
                let ids: Vec<StageId> = current.iter().map(|(id, _)| *id).collect();
                let order = place(&ids, stage_id, position);
                let at = stage::order_of(&order, stage_id);
                edit::run(found, stage::placed(edit, at), |_, after, _| {
                    diesel::update(stages::table.find(&id))
                        .set(&StageChanges::of(after))
                        .execute(conn)
                        .map_err(DbError::from)?;
                    Ok::<_, Blocked<DbError>>(renumber(conn, &current, &order)?)
                })
            })
        })
        .await
    }

    async fn delete_stage(&self, team: TeamId, id: StageId, force: bool) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        let stage_id = id.clone();
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let Some(roadmap) = stage_roadmap(conn, &team, &id)? else {
                    return Ok(false);
                };
                if !lock_roadmap(conn, &team, &roadmap, Lock::Update)? {
                    return Ok(false);
                }
                // The stage's own row, exclusively on PostgreSQL: a topic being put on it
                // (whose foreign key check locks the row) commits before the check below or
                // waits until the stage is gone and then fails.
                macro_rules! stage {
                    () => {
                        stages::table.find(&stage_id).select(stages::id)
                    };
                }
                let still_there = match conn {
                    DbConnection::Postgresql(inner) => {
                        stage!().for_update().get_result::<String>(inner)
                    }
                    DbConnection::Sqlite(inner) => stage!().get_result::<String>(inner),
                }
                .optional()?
                .is_some();
                if !still_there {
                    return Ok(false);
                }
                let which = TopicsOf::Stage(&id);
                if any_topic(conn, which)? {
                    if !force {
                        return Err(DbError::Conflict(Conflict::StageNotEmpty));
                    }
                    purge_topics(conn, which)?;
                }
                diesel::delete(stages::table.find(&id)).execute(conn)?;
                // Close the gap.
                let current = ordered_stages(conn, &roadmap)?;
                let order: Vec<StageId> = current.iter().map(|(id, _)| *id).collect();
                renumber(conn, &current, &order)?;
                Ok(true)
            })
        })
        .await
    }
}
