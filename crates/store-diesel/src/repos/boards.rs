//! Feedback boards: ordered by `position` (the domain's `order`; ORDER is reserved in SQL),
//! slugs unique per team.

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::{
    dsl::{count_star, max},
    prelude::*,
};
use sounding_domain::{
    board::{Board, BoardMeta, BoardView},
    edit::{Edit, Edited},
    ids::{BoardId, TeamId},
    ports::{BoardStore, Conflict, StoreResult},
};
use time::PrimitiveDateTime;

use super::{from_db_time, parse_id, to_db_time};
use crate::{
    connection::DbConnection,
    edits::locked,
    error::{DbError, DbResult},
    schema::{feedback, feedback_boards},
    tx::write_tx,
    DieselStore,
};

#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = feedback_boards, treat_none_as_null = true)]
struct BoardRow {
    id: String,
    team_id: String,
    name: String,
    slug: String,
    description: String,
    position: i64,
    is_public: bool,
    allow_public_submissions: bool,
    require_moderation: bool,
    color: Option<String>,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
}

impl From<&Board> for BoardRow {
    fn from(b: &Board) -> Self {
        Self {
            id: b.id.to_string(),
            team_id: b.team_id.to_string(),
            name: b.name.clone(),
            slug: b.slug.clone(),
            description: b.description.clone(),
            position: b.order,
            is_public: b.meta.is_public,
            allow_public_submissions: b.meta.allow_public_submissions,
            require_moderation: b.meta.require_moderation,
            color: b.meta.color.clone(),
            created_at: to_db_time(b.created_at),
            updated_at: to_db_time(b.updated_at),
        }
    }
}

impl BoardRow {
    fn into_view(self, feedback_count: i64) -> DbResult<BoardView> {
        Ok(BoardView {
            board: Board {
                id: parse_id("feedback_boards.id", &self.id)?,
                team_id: parse_id("feedback_boards.team_id", &self.team_id)?,
                name: self.name,
                slug: self.slug,
                description: self.description,
                order: self.position,
                meta: BoardMeta {
                    is_public: self.is_public,
                    allow_public_submissions: self.allow_public_submissions,
                    require_moderation: self.require_moderation,
                    color: self.color,
                },
                created_at: from_db_time(self.created_at),
                updated_at: from_db_time(self.updated_at),
            },
            feedback_count,
        })
    }
}

/// The feedback on a board as its view counts it: every item not archived, published or not.
macro_rules! counted_feedback {
    ($team:expr) => {
        feedback::table
            .filter(feedback::team_id.eq($team))
            .filter(feedback::archived_at.is_null())
    };
}

/// The board's view: the row with its feedback counted.
fn counted(conn: &mut DbConnection, row: BoardRow) -> DbResult<BoardView> {
    let count = counted_feedback!(&row.team_id)
        .filter(feedback::board_id.eq(&row.id))
        .count()
        .get_result::<i64>(conn)?;
    row.into_view(count)
}

/// Whether another board of the team (not `except`) already has the slug.
fn slug_taken(
    conn: &mut DbConnection,
    team: &str,
    slug: &str,
    except: Option<&str>,
) -> DbResult<bool> {
    let mut query = feedback_boards::table
        .filter(feedback_boards::team_id.eq(team))
        .filter(feedback_boards::slug.eq(slug))
        .select(feedback_boards::id)
        .into_boxed();
    if let Some(id) = except {
        query = query.filter(feedback_boards::id.ne(id));
    }
    Ok(query.get_result::<String>(conn).optional()?.is_some())
}

/// Whether the team has the board, its row locked until the transaction ends on PostgreSQL
/// (SQLite's `BEGIN IMMEDIATE` already holds the only write lock).
fn lock_board(conn: &mut DbConnection, team: &str, id: &str) -> DbResult<bool> {
    macro_rules! board {
        () => {
            feedback_boards::table
                .filter(feedback_boards::id.eq(id))
                .filter(feedback_boards::team_id.eq(team))
                .select(feedback_boards::id)
        };
    }
    let found = match conn {
        DbConnection::Postgresql(inner) => board!().for_update().get_result::<String>(inner),
        DbConnection::Sqlite(inner) => board!().get_result::<String>(inner),
    }
    .optional()?;
    Ok(found.is_some())
}

#[async_trait]
impl BoardStore for DieselStore {
    async fn insert_board(&self, board: &Board) -> StoreResult<()> {
        let row = BoardRow::from(board);
        self.run(move |conn| {
            // The unique index decides; its violation maps to `board_slug`.
            write_tx(conn, |conn| {
                diesel::insert_into(feedback_boards::table)
                    .values(&row)
                    .execute(conn)?;
                Ok(())
            })
        })
        .await
    }

    async fn boards(&self, team: TeamId, public_only: bool) -> StoreResult<Vec<BoardView>> {
        let team = team.to_string();
        self.run_read(move |conn| {
            let mut query = feedback_boards::table
                .filter(feedback_boards::team_id.eq(&team))
                .select(BoardRow::as_select())
                .order((
                    feedback_boards::position.asc(),
                    feedback_boards::created_at.asc(),
                    feedback_boards::id.asc(),
                ))
                .into_boxed();
            if public_only {
                query = query.filter(feedback_boards::is_public.eq(true));
            }
            let rows = query.load(conn)?;
            // Every board's count in one grouped query, not one per board.
            let counts: HashMap<String, i64> = counted_feedback!(&team)
                .filter(feedback::board_id.is_not_null())
                .group_by(feedback::board_id)
                .select((feedback::board_id.assume_not_null(), count_star()))
                .load::<(String, i64)>(conn)?
                .into_iter()
                .collect();
            rows.into_iter()
                .map(|row| {
                    let count = counts.get(&row.id).copied().unwrap_or(0);
                    row.into_view(count)
                })
                .collect()
        })
        .await
    }

    async fn board(&self, team: TeamId, id: BoardId) -> StoreResult<Option<BoardView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read(move |conn| {
            let Some(row) = feedback_boards::table
                .filter(feedback_boards::id.eq(&id))
                .filter(feedback_boards::team_id.eq(&team))
                .select(BoardRow::as_select())
                .get_result(conn)
                .optional()?
            else {
                return Ok(None);
            };
            counted(conn, row).map(Some)
        })
        .await
    }

    async fn board_slug_taken(&self, team: TeamId, slug: &str) -> StoreResult<bool> {
        let (team, slug) = (team.to_string(), slug.to_owned());
        self.run_read(move |conn| slug_taken(conn, &team, &slug, None))
            .await
    }

    async fn next_board_order(&self, team: TeamId) -> StoreResult<i64> {
        let team = team.to_string();
        self.run_read(move |conn| {
            let highest = feedback_boards::table
                .filter(feedback_boards::team_id.eq(team))
                .select(max(feedback_boards::position))
                .get_result::<Option<i64>>(conn)?;
            Ok(highest.unwrap_or(0) + 1)
        })
        .await
    }

    async fn edit_board(
        &self,
        team: TeamId,
        id: BoardId,
        edit: Edit<BoardView>,
    ) -> StoreResult<Edited<BoardView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.edit(
            edit,
            move |conn| {
                let Some(row) = locked!(
                    conn,
                    feedback_boards::table
                        .filter(feedback_boards::id.eq(&id))
                        .filter(feedback_boards::team_id.eq(&team))
                        .select(BoardRow::as_select())
                )?
                else {
                    return Ok(None);
                };
                counted(conn, row).map(Some)
            },
            |conn, before, after| {
                let row = BoardRow::from(&after.board);
                // Checked first, so the unique index only backs it up.
                if after.board.slug != before.board.slug
                    && slug_taken(conn, &row.team_id, &row.slug, Some(&row.id))?
                {
                    return Err(DbError::Conflict(Conflict::BoardSlug).into());
                }
                diesel::update(
                    feedback_boards::table
                        .filter(feedback_boards::id.eq(&row.id))
                        .filter(feedback_boards::team_id.eq(&row.team_id)),
                )
                .set(&row)
                .execute(conn)
                .map_err(DbError::from)?;
                Ok(())
            },
        )
        .await
    }

    async fn delete_board(&self, team: TeamId, id: BoardId) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // The board's row is locked first on PostgreSQL: an item being put on it
                // (whose foreign key check locks the row too) commits before the check below
                // or waits until the board is gone and then fails.
                if !lock_board(conn, &team, &id)? {
                    return Ok(false);
                }
                // Any item, archived or not, keeps the board (its foreign key has no cascade).
                let holds_feedback = feedback::table
                    .filter(feedback::board_id.eq(&id))
                    .select(feedback::id)
                    .get_result::<String>(conn)
                    .optional()?
                    .is_some();
                if holds_feedback {
                    return Err(DbError::Conflict(Conflict::BoardNotEmpty));
                }
                diesel::delete(feedback_boards::table.find(&id)).execute(conn)?;
                Ok(true)
            })
        })
        .await
    }
}
