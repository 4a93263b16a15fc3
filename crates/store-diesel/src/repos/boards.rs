//! Feedback boards: ordered by `position` (the domain's `order`; ORDER is reserved in SQL),
//! slugs unique per team.

use async_trait::async_trait;
use diesel::{
    backend::Backend,
    dsl::max,
    expression::{is_aggregate, AppearsOnTable, Expression, SelectableExpression, ValidGrouping},
    prelude::*,
    query_builder::{AstPass, QueryFragment, QueryId},
    sql_types::BigInt,
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
#[diesel(table_name = feedback_boards, treat_none_as_null = true, treat_none_as_default_value = false)]
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

/// A board's `feedback_count` (its items not archived, published or not), selected beside its
/// row: the board's row of `feedback_board_counts`, kept by triggers
/// (migrations/2026-11-30-000001_board_counts), or 0 for a board no item was ever put on. Never
/// counted over the items, so reading a board costs the same however many it holds. A scalar
/// subquery, not a join: `edit_board` reads it locked, and PostgreSQL refuses a row lock on
/// the nullable side of an outer join. A static text (not `dsl::sql`), so diesel keeps the
/// statement prepared.
#[derive(Debug, Clone, Copy, QueryId)]
struct KeptCount;

impl Expression for KeptCount {
    type SqlType = BigInt;
}

// It names `feedback_boards.id`: only a query on that table may select it.
impl AppearsOnTable<feedback_boards::table> for KeptCount {}

impl SelectableExpression<feedback_boards::table> for KeptCount {}

impl ValidGrouping<()> for KeptCount {
    type IsAggregate = is_aggregate::Never;
}

// Every backend: `locked!` runs it on the engine's own connection.
impl<DB: Backend> QueryFragment<DB> for KeptCount {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql(
            "COALESCE((SELECT CAST(SUM(c.n) AS BIGINT) FROM feedback_board_counts c \
             WHERE c.board_id = feedback_boards.id), 0)",
        );
        Ok(())
    }
}

/// The team's board `id` as its view, in one statement.
fn read_board(conn: &mut DbConnection, team: &str, id: &str) -> DbResult<Option<BoardView>> {
    feedback_boards::table
        .filter(feedback_boards::id.eq(id))
        .filter(feedback_boards::team_id.eq(team))
        .select((BoardRow::as_select(), KeptCount))
        .get_result::<(BoardRow, i64)>(conn)
        .optional()?
        .map(|(row, count)| row.into_view(count))
        .transpose()
}

/// The team's boards (only the public ones if asked) as views, in order, in one statement.
fn read_boards(conn: &mut DbConnection, team: &str, public_only: bool) -> DbResult<Vec<BoardView>> {
    let mut query = feedback_boards::table
        .filter(feedback_boards::team_id.eq(team))
        .select((BoardRow::as_select(), KeptCount))
        .order((
            feedback_boards::position.asc(),
            feedback_boards::created_at.asc(),
            feedback_boards::id.asc(),
        ))
        .into_boxed();
    if public_only {
        query = query.filter(feedback_boards::is_public.eq(true));
    }
    query
        .load::<(BoardRow, i64)>(conn)?
        .into_iter()
        .map(|(row, count)| row.into_view(count))
        .collect()
}

/// The team's board `id` as its view, its row locked until the transaction ends on PostgreSQL
/// (`locked!`), in one statement.
fn read_board_locked(conn: &mut DbConnection, team: &str, id: &str) -> DbResult<Option<BoardView>> {
    locked!(
        conn,
        feedback_boards::table
            .filter(feedback_boards::id.eq(id))
            .filter(feedback_boards::team_id.eq(team))
            .select((BoardRow::as_select(), KeptCount))
    )?
    .map(|(row, count): (BoardRow, i64)| row.into_view(count))
    .transpose()
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
        self.run_read_one(move |conn| read_boards(conn, &team, public_only))
            .await
    }

    async fn board(&self, team: TeamId, id: BoardId) -> StoreResult<Option<BoardView>> {
        let key = (team, id);
        let (team, id) = (team.to_string(), id.to_string());
        self.run_read_cached(
            |cache| &cache.boards,
            Some(key),
            move |conn| read_board(conn, &team, &id),
        )
        .await
    }

    async fn board_slug_taken(&self, team: TeamId, slug: &str) -> StoreResult<bool> {
        let (team, slug) = (team.to_string(), slug.to_owned());
        self.run_read_one(move |conn| slug_taken(conn, &team, &slug, None))
            .await
    }

    async fn next_board_order(&self, team: TeamId) -> StoreResult<i64> {
        let team = team.to_string();
        self.run_read_one(move |conn| {
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
            move |conn| read_board_locked(conn, &team, &id),
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
                // Its row of `feedback_board_counts` (0 by now) goes with it: `ON DELETE
                // CASCADE`.
                diesel::delete(feedback_boards::table.find(&id)).execute(conn)?;
                Ok(true)
            })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use diesel::RunQueryDsl;

    use super::*;
    use crate::test_support::insert_board;

    /// An unpublished item on `board`, archived if asked.
    fn insert_item(conn: &mut DbConnection, team: &str, board: &str, n: usize, archived: bool) {
        let archived_at = if archived {
            "'2026-01-02 00:00:00'"
        } else {
            "NULL"
        };
        diesel::sql_query(format!(
            "INSERT INTO feedback (id, team_id, board_id, url_id, title, status, priority, \
             creator_id, search_text, archived_at, created_at, updated_at) VALUES \
             ('{}', '{team}', '{board}', 'u{n}', 'item', 'in_review', 'medium', 'someone', \
             'item', {archived_at}, '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
            uuid::Uuid::now_v7()
        ))
        .execute(conn)
        .unwrap();
    }

    /// `board`, `boards` and `edit_board`'s locked read are one statement each, and none reads
    /// the items: their cost does not grow with the board's feedback.
    #[test]
    fn reading_a_board_never_counts_its_items() {
        let mut conn = crate::migrations::scratch_sqlite();
        let team = uuid::Uuid::now_v7().to_string();
        let (full, empty) = (
            uuid::Uuid::now_v7().to_string(),
            uuid::Uuid::now_v7().to_string(),
        );
        insert_board(&mut conn, &team, &full, 0);
        insert_board(&mut conn, &team, &empty, 1);
        for n in 0..5 {
            insert_item(&mut conn, &team, &full, n, n == 0);
        }
        let plans = crate::raw_sql::plans::explained(&mut conn, |conn| {
            let board = read_board(conn, &team, &full).unwrap().unwrap();
            assert_eq!(board.feedback_count, 4, "archived items are left out");
            let counts: Vec<i64> = read_boards(conn, &team, false)
                .unwrap()
                .iter()
                .map(|b| b.feedback_count)
                .collect();
            assert_eq!(counts, [4, 0], "a board without a count row has 0");
            let locked = read_board_locked(conn, &team, &full).unwrap().unwrap();
            assert_eq!(locked.feedback_count, 4);
        });
        assert_eq!(plans.len(), 3, "one statement per read: {plans:?}");
        for (sql, plan) in &plans {
            assert!(!sql.contains("COUNT"), "nothing is counted: {sql}");
            let tables: Vec<&str> = plan
                .split(" | ")
                .filter_map(
                    |step| match step.split_whitespace().collect::<Vec<_>>()[..] {
                        ["SCAN" | "SEARCH", table, ..] => Some(table),
                        _ => None,
                    },
                )
                .collect();
            assert!(
                !tables.contains(&"feedback") && plan.contains("feedback_board_counts"),
                "the boards and their kept counts, never the items: {plan}"
            );
        }
    }
}
