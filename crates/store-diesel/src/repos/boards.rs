//! Feedback boards: ordered by `position` (the domain's `order`; ORDER is reserved in SQL),
//! slugs unique per team.

use async_trait::async_trait;
use diesel::{dsl::max, prelude::*};
use sounding_domain::{
    board::{Board, BoardMeta, BoardView},
    ids::{BoardId, TeamId},
    ports::{conflicts, BoardStore, StoreResult},
};
use time::PrimitiveDateTime;

use super::{from_db_time, parse_id, to_db_time};
use crate::{
    connection::DbConnection,
    error::{DbError, DbResult},
    schema::feedback_boards,
    tx::{read, write_tx},
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
    fn into_view(self) -> DbResult<BoardView> {
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
            // Feedback is not stored yet; the count joins in when its table arrives.
            feedback_count: 0,
        })
    }
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
    Ok(query.first::<String>(conn).optional()?.is_some())
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
        self.run(move |conn| {
            read(conn, |conn| {
                let mut query = feedback_boards::table
                    .filter(feedback_boards::team_id.eq(team))
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
                query
                    .load(conn)?
                    .into_iter()
                    .map(BoardRow::into_view)
                    .collect()
            })
        })
        .await
    }

    async fn board(&self, team: TeamId, id: BoardId) -> StoreResult<Option<BoardView>> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            read(conn, |conn| {
                feedback_boards::table
                    .filter(feedback_boards::id.eq(id))
                    .filter(feedback_boards::team_id.eq(team))
                    .select(BoardRow::as_select())
                    .first(conn)
                    .optional()?
                    .map(BoardRow::into_view)
                    .transpose()
            })
        })
        .await
    }

    async fn board_slug_taken(&self, team: TeamId, slug: &str) -> StoreResult<bool> {
        let (team, slug) = (team.to_string(), slug.to_owned());
        self.run(move |conn| read(conn, |conn| slug_taken(conn, &team, &slug, None)))
            .await
    }

    async fn next_board_order(&self, team: TeamId) -> StoreResult<i64> {
        let team = team.to_string();
        self.run(move |conn| {
            read(conn, |conn| {
                let highest = feedback_boards::table
                    .filter(feedback_boards::team_id.eq(team))
                    .select(max(feedback_boards::position))
                    .first::<Option<i64>>(conn)?;
                Ok(highest.unwrap_or(0) + 1)
            })
        })
        .await
    }

    async fn update_board(&self, board: &Board) -> StoreResult<()> {
        let row = BoardRow::from(board);
        self.run(move |conn| {
            write_tx(conn, |conn| {
                // Checked first so the answer does not depend on whether the board still
                // exists (as in the in-memory store); the unique index backs it up.
                if slug_taken(conn, &row.team_id, &row.slug, Some(&row.id))? {
                    return Err(DbError::Conflict(conflicts::BOARD_SLUG));
                }
                diesel::update(
                    feedback_boards::table
                        .filter(feedback_boards::id.eq(&row.id))
                        .filter(feedback_boards::team_id.eq(&row.team_id)),
                )
                .set(&row)
                .execute(conn)?;
                Ok(())
            })
        })
        .await
    }

    async fn delete_board(&self, team: TeamId, id: BoardId) -> StoreResult<bool> {
        let (team, id) = (team.to_string(), id.to_string());
        self.run(move |conn| {
            write_tx(conn, |conn| {
                let deleted = diesel::delete(
                    feedback_boards::table
                        .filter(feedback_boards::id.eq(id))
                        .filter(feedback_boards::team_id.eq(team)),
                )
                .execute(conn)?;
                Ok(deleted > 0)
            })
        })
        .await
    }
}
