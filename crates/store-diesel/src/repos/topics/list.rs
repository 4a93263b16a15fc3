//! `list_topics`: the kept total, one page, then the page's stages: three statements whatever
//! the page size. Hand-written SQL (through `RawSql`) like the feedback list, because the title
//! order needs PostgreSQL's `COLLATE "C"` to sort exactly as SQLite does.

use sounding_domain::{
    feedback_comment::Direction,
    page::Paged,
    topic::{TopicQuery, TopicSort, TopicView},
};

use super::rows::{views, TopicRow};
use crate::{
    connection::DbConnection,
    error::DbResult,
    raw_sql::RawSql,
    repos::paging::{count, kept_sum, page_of, ListSql},
};

/// Every column of `topics`, named as `TopicRow` reads them (checked by a test below).
const COLUMNS: &str = "t.id, t.team_id, t.roadmap_id, t.stage_id, t.url_id, t.title, \
    t.title_key, t.description, t.text, t.subscriber_id, t.meta, t.visits, t.vote_count, \
    t.comment_count, t.published_at, t.created_at, t.updated_at";

pub(super) fn list(
    conn: &mut DbConnection,
    team: &str,
    query: &TopicQuery,
) -> DbResult<Paged<TopicView>> {
    let postgres = matches!(conn, DbConnection::Postgresql(_));
    let order = |page: &mut RawSql| {
        let column = match query.sort {
            TopicSort::CreatedAt => "t.created_at",
            TopicSort::UpdatedAt => "t.updated_at",
            // Bytewise on both engines: SQLite's default BINARY collation, and "C" on
            // PostgreSQL, whose default collation depends on how the database was created.
            TopicSort::Title if postgres => "t.title_key COLLATE \"C\"",
            TopicSort::Title => "t.title_key",
            TopicSort::VoteCount => "t.vote_count",
        };
        let direction = match query.direction {
            Direction::Asc => " ASC",
            Direction::Desc => " DESC",
        };
        page.push(" ORDER BY ")
            .push(column)
            .push(direction)
            .push(", t.id")
            .push(direction);
    };
    let total = kept_total(conn, team, query)?;
    let rows: Vec<TopicRow> = page_of(
        conn,
        total,
        query.page,
        ListSql {
            from: "topics t",
            columns: COLUMNS,
            selection: |sql: &mut RawSql| selection(sql, team, query),
            order,
        },
    )?;

    Ok(Paged {
        items: views(conn, team, rows)?,
        total,
        page: query.page,
    })
}

/// How many topics the query picks, from `topic_counts` (kept by triggers,
/// migrations/2026-12-04-000003_topic_counts): a sum of the team's, roadmap's or stage's rows,
/// never a count of the topics. Says what `selection` says, over the kept rows.
fn kept_total(conn: &mut DbConnection, team: &str, query: &TopicQuery) -> DbResult<i64> {
    let mut sql = kept_sum("topic_counts");
    sql.push("c.team_id = ").text(team);
    if let Some(roadmap) = query.roadmap_id {
        sql.push(" AND c.roadmap_id = ").text(roadmap.to_string());
    }
    if let Some(stage) = query.stage_id {
        sql.push(" AND c.stage_id = ").text(stage.to_string());
    }
    if query.published_only {
        sql.push(" AND c.published = 1");
    }
    count(&sql, conn)
}

/// The `WHERE` clause that picks the query's topics (shared by the count and the page).
fn selection(sql: &mut RawSql, team: &str, query: &TopicQuery) {
    sql.push(" WHERE t.team_id = ").text(team);
    if let Some(roadmap) = query.roadmap_id {
        sql.push(" AND t.roadmap_id = ").text(roadmap.to_string());
    }
    if let Some(stage) = query.stage_id {
        sql.push(" AND t.stage_id = ").text(stage.to_string());
    }
    if query.published_only {
        sql.push(" AND t.published_at IS NOT NULL");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::raw_sql::test_columns_read_the_row!(COLUMNS, crate::schema::topics::table, TopicRow);

    #[test]
    fn the_total_is_read_from_the_kept_counts_for_every_filter() {
        use sounding_domain::ids::{RoadmapId, StageId, TeamId};

        let mut conn = crate::migrations::scratch_sqlite();
        let team = TeamId::new().to_string();
        for (roadmap_id, stage_id, published_only) in [
            (None, None, false),
            (Some(RoadmapId::new()), None, true),
            (None, Some(StageId::new()), false),
        ] {
            let query = TopicQuery {
                roadmap_id,
                stage_id,
                published_only,
                sort: TopicSort::VoteCount,
                direction: Direction::Desc,
                page: sounding_domain::page::PageRequest {
                    limit: 20,
                    offset: 0,
                },
            };
            let plans = crate::raw_sql::plans::explained(&mut conn, |conn| {
                assert_eq!(list(conn, &team, &query).unwrap().total, 0);
            });
            assert!(
                plans[0].0.contains("FROM topic_counts")
                    && !plans[0].0.contains("FROM topics")
                    && plans[0].1.contains("SEARCH c USING"),
                "the total sums kept rows by key: {plans:?}"
            );
        }
    }
}
