//! `list_feedback`: one count, one page, then the page's boards and people: four statements
//! whatever the page size. Hand-written SQL (through `RawSql`) because the trending order
//! joins an aggregate over two tables, which the query builder cannot say over both engines.

use diesel::{sql_types::BigInt, QueryableByName};
use sounding_domain::{
    feedback::{FeedbackQuery, FeedbackScope, FeedbackSort, FeedbackView},
    page::Paged,
};

use super::rows::{views, FeedbackRow};
use crate::{
    connection::DbConnection,
    error::DbResult,
    raw_sql::{like_contains, Param, RawSql},
    repos::to_db_time,
};

/// Every column of `feedback`, named as `FeedbackRow` reads them.
const COLUMNS: &str = "f.id, f.team_id, f.board_id, f.url_id, f.title, f.text, f.status, \
    f.priority, f.kind, f.creator_id, f.meta, f.search_text, f.vote_count, f.comment_count, \
    f.published_at, f.archived_at, f.created_at, f.updated_at, f.last_modified_by_id";

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

pub(super) fn list(
    conn: &mut DbConnection,
    team: &str,
    query: &FeedbackQuery,
) -> DbResult<Paged<FeedbackView>> {
    let mut count = RawSql::for_connection(conn);
    count.push("SELECT COUNT(*) AS n FROM feedback f");
    selection(&mut count, team, query);
    let total = count.load::<Count>(conn)?.first().map_or(0, |c| c.n);

    let rows: Vec<FeedbackRow> = if total > query.page.offset {
        let mut page = RawSql::for_connection(conn);
        page.push("SELECT ").push(COLUMNS).push(" FROM feedback f");
        if query.sort == FeedbackSort::Trending {
            trending_scores(&mut page, team, query);
        }
        selection(&mut page, team, query);
        page.push(match query.sort {
            FeedbackSort::Newest => " ORDER BY f.created_at DESC, f.id DESC",
            FeedbackSort::Top => " ORDER BY f.vote_count DESC, f.created_at DESC, f.id DESC",
            FeedbackSort::Trending => {
                " ORDER BY COALESCE(trend.score, 0) DESC, f.created_at DESC, f.id DESC"
            }
        });
        page.push(" LIMIT ")
            .param(Param::BigInt(query.page.limit))
            .push(" OFFSET ")
            .param(Param::BigInt(query.page.offset));
        page.load(conn)?
    } else {
        // Past the end: the page is empty and the query need not run.
        Vec::new()
    };

    Ok(Paged {
        items: views(conn, team, rows)?,
        total,
        page: query.page,
    })
}

/// `LEFT JOIN` of each item's activity in the trending window: its votes and comments created
/// since `trending_since`, counted per item. The aggregate reads only the window's rows of the
/// team (through the `(team_id, created_at)` indexes), never the whole history; items without
/// recent activity get no row and score 0.
fn trending_scores(sql: &mut RawSql, team: &str, query: &FeedbackQuery) {
    let since = Param::Timestamp(to_db_time(query.trending_since));
    sql.push(
        " LEFT JOIN (SELECT recent.feedback_id, COUNT(*) AS score FROM \
         (SELECT feedback_id FROM feedback_votes WHERE team_id = ",
    )
    .text(team)
    .push(" AND created_at >= ")
    .param(since.clone())
    .push(" UNION ALL SELECT feedback_id FROM feedback_comments WHERE team_id = ")
    .text(team)
    .push(" AND created_at >= ")
    .param(since)
    .push(") recent GROUP BY recent.feedback_id) trend ON trend.feedback_id = f.id");
}

/// The joins and `WHERE` clause that pick the query's items (shared by the count and the page).
fn selection(sql: &mut RawSql, team: &str, query: &FeedbackQuery) {
    if query.scope == FeedbackScope::Public {
        sql.push(" LEFT JOIN feedback_boards b ON b.id = f.board_id");
    }
    sql.push(" WHERE f.team_id = ").text(team);
    match query.scope {
        FeedbackScope::Public => {
            sql.push(
                " AND f.published_at IS NOT NULL AND f.archived_at IS NULL \
                 AND (f.board_id IS NULL OR b.is_public = TRUE)",
            );
        }
        FeedbackScope::Team {
            include_archived: false,
        } => {
            sql.push(" AND f.archived_at IS NULL");
        }
        FeedbackScope::Team {
            include_archived: true,
        } => {}
    }
    if !query.statuses.is_empty() {
        sql.push(" AND f.status IN (");
        for (i, status) in query.statuses.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            sql.text(status.as_str());
        }
        sql.push(")");
    }
    if let Some(board) = query.board_id {
        sql.push(" AND f.board_id = ").text(board.to_string());
    }
    if let Some(term) = &query.search {
        sql.push(" AND f.search_text LIKE ")
            .text(like_contains(term))
            .push(" ESCAPE '\\'");
    }
}
