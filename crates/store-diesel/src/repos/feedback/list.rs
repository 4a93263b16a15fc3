//! `list_feedback`: one count, then the page with its boards, people and tags (`view`): two
//! statements whatever the page size. Hand-written SQL (through `RawSql`) because the trending order
//! joins an aggregate over two tables, which the query builder cannot say over both engines.

use sounding_domain::{
    feedback::{
        FeedbackQuery, FeedbackScope, FeedbackSort, FeedbackStatus, FeedbackView, PublicCondition,
        LISTED_PUBLICLY,
    },
    ids::BoardId,
    page::Paged,
};

use super::view::{self, order_by, Pick};
use crate::{
    connection::DbConnection,
    error::DbResult,
    raw_sql::{like_contains, Param, RawSql},
    repos::{
        paging::{self, kept_sum},
        to_db_time,
    },
};

pub(super) fn list(
    conn: &mut DbConnection,
    team: &str,
    query: &FeedbackQuery,
) -> DbResult<Paged<FeedbackView>> {
    let total = count(conn, team, query)?;

    let items = if total > query.page.offset {
        let mut page = RawSql::new();
        // The top order walks the vote counts' own indexes (`v`, whose copies of the item's
        // keys it filters on); the others the item's.
        let keys = match query.sort {
            FeedbackSort::Trending => {
                page.push(
                    "SELECT f.id AS page_id, COALESCE(trend.score, 0) AS score FROM feedback f",
                );
                trending_scores(&mut page, team, query);
                "f"
            }
            FeedbackSort::Top => {
                page.push("SELECT v.id AS page_id FROM feedback_vote_counts v");
                if filters_on_item(query) {
                    page.push(" JOIN feedback f ON f.id = v.id");
                }
                "v"
            }
            FeedbackSort::Newest => {
                page.push("SELECT f.id AS page_id FROM feedback f");
                "f"
            }
        };
        selection(&mut page, team, query, keys);
        page.push(" ORDER BY ")
            .push(&order_by(query.sort, "COALESCE(trend.score, 0)", keys));
        page.push(" LIMIT ")
            .param(Param::BigInt(query.page.limit))
            .push(" OFFSET ")
            .param(Param::BigInt(query.page.offset));
        view::read(
            conn,
            team,
            Pick::Page {
                query: page,
                sort: query.sort,
            },
        )?
    } else {
        // Past the end: the page is empty and the query need not run.
        Vec::new()
    };

    Ok(Paged {
        items,
        total,
        page: query.page,
    })
}

/// How many items the query picks, read from counts the triggers keep wherever the filters
/// allow: a public board's whole list from `feedback_public_counts` (one board, at most 16
/// rows), any other list by scope, board and status from `feedback_counts`
/// (migrations/2026-12-04-000001_feedback_counts: a few rows per board and status). Only a
/// tag, a search or a date range counts the items themselves.
fn count(conn: &mut DbConnection, team: &str, query: &FeedbackQuery) -> DbResult<i64> {
    let kept = query.tag_id.is_none() && query.search.is_none() && query.created.is_unbounded();
    let sql = match query.board_id {
        Some(board)
            if kept && query.scope == FeedbackScope::Public && query.statuses.is_empty() =>
        {
            public_board_count(team, board)
        }
        _ if kept => kept_count(team, query),
        _ => {
            let mut sql = RawSql::new();
            sql.push("SELECT COUNT(*) AS n FROM feedback f");
            selection(&mut sql, team, query, "f");
            sql
        }
    };
    paging::count(&sql, conn)
}

/// A public board's whole list: its rows of `feedback_public_counts`, when the board is the
/// team's and public.
fn public_board_count(team: &str, board: BoardId) -> RawSql {
    let board = board.to_string();
    let mut sql = RawSql::new();
    sql.push(
        "SELECT COALESCE((SELECT CAST(SUM(c.n) AS BIGINT) FROM feedback_public_counts c \
         WHERE c.board_id = ",
    )
    .text(board.as_str())
    .push(" AND EXISTS (SELECT 1 FROM feedback_boards b WHERE b.id = ")
    .text(board)
    .push(" AND b.team_id = ")
    .text(team)
    .push(" AND b.is_public = TRUE)), 0) AS n");
    sql
}

/// The sum of the query's rows of `feedback_counts`: the scope's listings, the board's rows
/// (`''` for items on no board) and the statuses'. The public scope is `LISTED_PUBLICLY`
/// said over the kept rows, as `listed_publicly` says it over the items.
fn kept_count(team: &str, query: &FeedbackQuery) -> RawSql {
    let mut sql = kept_sum("feedback_counts");
    sql.push("c.team_id = ").text(team);
    if let Some(board) = query.board_id {
        sql.push(" AND c.board_id = ").text(board.to_string());
    }
    match query.scope {
        FeedbackScope::Public => {
            for condition in LISTED_PUBLICLY {
                match condition {
                    PublicCondition::Published => sql.push(" AND c.listing <> 1"),
                    PublicCondition::NotArchived => sql.push(" AND c.listing <> 2"),
                    PublicCondition::OnPublicBoardOrNone => match query.board_id {
                        Some(board) => sql
                            .push(" AND EXISTS (SELECT 1 FROM feedback_boards b WHERE b.id = ")
                            .text(board.to_string())
                            .push(" AND b.is_public = TRUE)"),
                        None => sql
                            .push(
                                " AND (c.board_id = '' OR c.board_id IN (SELECT b.id FROM \
                                 feedback_boards b WHERE b.team_id = ",
                            )
                            .text(team)
                            .push(" AND b.is_public = TRUE))"),
                    },
                };
            }
        }
        FeedbackScope::Team {
            include_archived: false,
        } => {
            sql.push(" AND c.listing <> 2");
        }
        FeedbackScope::Team {
            include_archived: true,
        } => {}
    }
    if !query.statuses.is_empty() {
        sql.push(" AND c.status IN (");
        statuses(&mut sql, &query.statuses);
        sql.push(")");
    }
    sql
}

/// The statuses as a list of values, sorted and without repeats: each distinct SQL text
/// stays prepared on its connection, so asking for a status twice must not make another one.
fn statuses(sql: &mut RawSql, statuses: &[FeedbackStatus]) {
    let mut statuses: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
    statuses.sort_unstable();
    statuses.dedup();
    for (i, status) in statuses.into_iter().enumerate() {
        if i > 0 {
            sql.push(", ");
        }
        sql.text(status);
    }
}

/// Whether `selection` reads the item's own row for more than its keys: the status, a tag or
/// a search.
fn filters_on_item(query: &FeedbackQuery) -> bool {
    !query.statuses.is_empty() || query.tag_id.is_some() || query.search.is_some()
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
/// The item's team, board, publication, archiving and creation are read from `keys`: `f`, or
/// `v`, the item's `feedback_vote_counts` row, which copies them for the top order's indexes.
fn selection(sql: &mut RawSql, team: &str, query: &FeedbackQuery, keys: &str) {
    let public = query.scope == FeedbackScope::Public;
    if public && query.board_id.is_none() {
        sql.push(&format!(
            " LEFT JOIN feedback_boards b ON b.id = {keys}.board_id"
        ));
    }
    sql.push(&format!(" WHERE {keys}.team_id = ")).text(team);
    match query.scope {
        FeedbackScope::Public => listed_publicly(sql, query.board_id, keys),
        FeedbackScope::Team {
            include_archived: false,
        } => {
            sql.push(&format!(" AND {keys}.archived_at IS NULL"));
        }
        FeedbackScope::Team {
            include_archived: true,
        } => {}
    }
    if !query.statuses.is_empty() {
        sql.push(" AND f.status IN (");
        statuses(sql, &query.statuses);
        sql.push(")");
    }
    if let Some(board) = query.board_id {
        sql.push(&format!(" AND {keys}.board_id = "))
            .text(board.to_string());
    }
    if let Some(tag) = query.tag_id {
        sql.push(" AND EXISTS (SELECT 1 FROM feedback_tags ft WHERE ft.feedback_id = f.id AND ft.tag_id = ")
            .text(tag.to_string())
            .push(")");
    }
    if let Some(from) = query.created.from {
        sql.push(&format!(" AND {keys}.created_at >= "))
            .param(Param::Timestamp(to_db_time(from)));
    }
    if let Some(to) = query.created.to {
        sql.push(&format!(" AND {keys}.created_at <= "))
            .param(Param::Timestamp(to_db_time(to)));
    }
    if let Some(term) = &query.search {
        sql.push(" AND f.search_text LIKE ")
            .text(like_contains(term))
            .push(" ESCAPE '\\'");
    }
}

/// The domain's `LISTED_PUBLICLY`, said in SQL: the one place it is (the public-count triggers
/// in the migrations restate it, see the domain). With `board`, every item is on that one
/// board: whether it is public is asked once, a constant subquery, instead of joining the
/// board (`b`) to each of its items. `keys` as in `selection`.
fn listed_publicly(sql: &mut RawSql, board: Option<BoardId>, keys: &str) {
    for condition in LISTED_PUBLICLY {
        match condition {
            PublicCondition::Published => {
                sql.push(&format!(" AND {keys}.published_at IS NOT NULL"))
            }
            PublicCondition::NotArchived => sql.push(&format!(" AND {keys}.archived_at IS NULL")),
            PublicCondition::OnPublicBoardOrNone => match board {
                Some(board) => sql
                    .push(" AND EXISTS (SELECT 1 FROM feedback_boards b WHERE b.id = ")
                    .text(board.to_string())
                    .push(" AND b.is_public = TRUE)"),
                None => sql.push(&format!(
                    " AND ({keys}.board_id IS NULL OR b.is_public = TRUE)"
                )),
            },
        };
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    };

    use diesel::RunQueryDsl;
    use sounding_domain::{
        feedback::{Feedback, FeedbackStatus, Priority},
        ids::{BoardId, FeedbackId, SubscriberId, TeamId},
        page::PageRequest,
        timestamp::Timestamp,
    };

    use super::*;
    use crate::test_support::{count_statements, insert_board};
    use crate::{repos::feedback::rows::FeedbackRow, schema::feedback};

    /// A migrated in-memory database (foreign keys off, so items need no team or creators)
    /// and a counter of the statements run on it.
    fn counted() -> (DbConnection, Arc<AtomicUsize>) {
        let mut conn = crate::migrations::scratch_sqlite();
        let statements = count_statements(&mut conn);
        (conn, statements)
    }

    /// An item published on `board` at `t0`, as it is just after it was created.
    pub(in crate::repos::feedback) fn published_item(
        team: TeamId,
        board: BoardId,
        t0: Timestamp,
    ) -> Feedback {
        Feedback {
            id: FeedbackId::new(),
            team_id: team,
            board_id: Some(board),
            url_id: "u1".into(),
            title: "item".into(),
            text: String::new(),
            status: FeedbackStatus::InReview,
            priority: Priority::Medium,
            kind: None,
            creator_id: SubscriberId::new(),
            meta: Default::default(),
            published_at: Some(t0),
            archived_at: None,
            created_at: t0,
            updated_at: t0,
            last_modified_by_id: None,
        }
    }

    pub(in crate::repos::feedback) fn insert_item(conn: &mut DbConnection, item: &Feedback) {
        diesel::insert_into(feedback::table)
            .values(&FeedbackRow::new_item(item).unwrap())
            .execute(conn)
            .unwrap();
    }

    #[test]
    fn a_list_is_two_statements_whatever_the_page_size() {
        let (mut conn, statements) = counted();
        let team = TeamId::new();
        let boards: Vec<BoardId> = (0..5).map(|_| BoardId::new()).collect();
        for (n, board) in boards.iter().enumerate() {
            insert_board(&mut conn, team, *board, n);
        }
        let tags: Vec<String> = ["Bug", "Idea"]
            .iter()
            .map(|name| {
                let id = uuid::Uuid::now_v7().to_string();
                diesel::sql_query(format!(
                    "INSERT INTO tags (id, team_id, name, name_key, color, created_at, \
                     updated_at) VALUES ('{id}', '{team}', '{name}', '{}', '#3B82F6', \
                     '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
                    name.to_lowercase()
                ))
                .execute(&mut conn)
                .unwrap();
                id
            })
            .collect();
        let t0 = Timestamp::from_unix_seconds(1_780_000_000).unwrap();
        for n in 0..60_i64 {
            let f = Feedback {
                url_id: format!("u{n:09}"),
                title: format!("item {n}"),
                created_at: t0.plus_seconds(n),
                last_modified_by_id: Some(SubscriberId::new()),
                ..published_item(team, boards[(n % 5) as usize], t0)
            };
            insert_item(&mut conn, &f);
            // Two tags on every item: the page's tags come in the page's statement.
            for tag in &tags {
                diesel::sql_query(format!(
                    "INSERT INTO feedback_tags (feedback_id, tag_id, team_id) \
                     VALUES ('{}', '{tag}', '{team}')",
                    f.id
                ))
                .execute(&mut conn)
                .unwrap();
            }
        }
        for sort in [
            FeedbackSort::Newest,
            FeedbackSort::Top,
            FeedbackSort::Trending,
        ] {
            for limit in [1, 10, 50] {
                let query = FeedbackQuery {
                    scope: FeedbackScope::Public,
                    sort,
                    statuses: vec![FeedbackStatus::InReview],
                    board_id: None,
                    tag_id: None,
                    search: Some("item".into()),
                    trending_since: t0,
                    created: sounding_domain::feedback::CreatedRange::default(),
                    page: PageRequest { limit, offset: 0 },
                };
                statements.store(0, Ordering::SeqCst);
                let page = list(&mut conn, &team.to_string(), &query).unwrap();
                assert_eq!((page.items.len() as i64, page.total), (limit, 60));
                assert!(page.items.iter().all(|v| v.board.is_some()));
                assert!(page.items.iter().all(|v| v.tags.len() == 2));
                assert_eq!(
                    statements.load(Ordering::SeqCst),
                    2,
                    "the count, and the page with its boards, people and tags ({sort:?}, limit {limit})"
                );
            }
        }
    }

    #[test]
    fn a_public_board_list_reads_the_boards_partial_index_and_never_sorts() {
        let (mut conn, _) = counted();
        let (team, board) = (TeamId::new(), BoardId::new());
        insert_board(&mut conn, team, board, 0);
        let t0 = Timestamp::from_unix_seconds(1_780_000_000).unwrap();
        insert_item(&mut conn, &published_item(team, board, t0));
        for (sort, index) in [
            (
                FeedbackSort::Top,
                "feedback_vote_counts_public_board_top_idx",
            ),
            (FeedbackSort::Newest, "feedback_public_board_newest_idx"),
        ] {
            let query = FeedbackQuery {
                scope: FeedbackScope::Public,
                sort,
                statuses: Vec::new(),
                board_id: Some(board),
                tag_id: None,
                search: None,
                trending_since: t0,
                created: sounding_domain::feedback::CreatedRange::default(),
                page: PageRequest {
                    limit: 20,
                    offset: 0,
                },
            };
            let plans = crate::raw_sql::plans::explained(&mut conn, |conn| {
                assert_eq!(list(conn, &team.to_string(), &query).unwrap().total, 1);
            });
            let (count, page) = (&plans[0], &plans[1]);
            assert!(
                count.0.contains("FROM feedback_public_counts")
                    && count.1.contains("SEARCH c USING INDEX"),
                "the count is one row of the board's count: {count:?}"
            );
            // The page is picked first (the co-routine `p`), then joined with what its views
            // show; only those rows, at most a page's times its tags, are sorted again.
            let (picking, showing) = page
                .1
                .split_once("| SCAN p |")
                .unwrap_or_else(|| panic!("the page is picked first: {page:?}"));
            assert!(
                picking.contains(index) && !picking.contains("TEMP B-TREE"),
                "the {sort:?} page walks {index} in order: {page:?}"
            );
            assert!(
                showing.matches("TEMP B-TREE").count() == 1 && !showing.contains("SCAN"),
                "the page's views are read by key: {page:?}"
            );
            assert!(
                plans.iter().all(|(_, plan)| !plan.contains("SCAN f")),
                "no statement scans the feedback table: {plans:?}"
            );
        }
    }

    #[test]
    fn a_team_lists_total_is_read_from_the_kept_counts_for_every_scope_and_status() {
        let (mut conn, _) = counted();
        let (team, board) = (TeamId::new(), BoardId::new());
        insert_board(&mut conn, team, board, 0);
        let t0 = Timestamp::from_unix_seconds(1_780_000_000).unwrap();
        insert_item(&mut conn, &published_item(team, board, t0));
        for (scope, board, statuses) in [
            (
                FeedbackScope::Team {
                    include_archived: false,
                },
                None,
                vec![],
            ),
            (
                FeedbackScope::Team {
                    include_archived: true,
                },
                Some(board),
                vec![FeedbackStatus::InReview, FeedbackStatus::Planned],
            ),
            (FeedbackScope::Public, None, vec![FeedbackStatus::InReview]),
        ] {
            let query = FeedbackQuery {
                scope,
                sort: FeedbackSort::Newest,
                statuses,
                board_id: board,
                tag_id: None,
                search: None,
                trending_since: t0,
                created: sounding_domain::feedback::CreatedRange::default(),
                page: PageRequest {
                    limit: 20,
                    offset: 0,
                },
            };
            let plans = crate::raw_sql::plans::explained(&mut conn, |conn| {
                assert_eq!(list(conn, &team.to_string(), &query).unwrap().total, 1);
            });
            let count = &plans[0];
            assert!(
                count.0.contains("FROM feedback_counts")
                    && !count.0.contains("FROM feedback f")
                    && count.1.contains("SEARCH c USING"),
                "the total is a sum of the team's kept rows ({scope:?}): {count:?}"
            );
        }
    }
}
