//! Items as views in one statement: each `feedback` row joined with its vote count, its board,
//! its creator, its last editor and its tags (one result row per tag). A read of an item or of
//! a list page is then one round trip, where reading the board, the people and the tags apart
//! made it four (a message to PostgreSQL and back each, docs/benchmarks.md, eighth round).
//!
//! Every join is by primary key (or the `feedback_tags` key's prefix) and checks the team on
//! the joined row, so nothing of another team is ever shown with an item.

use diesel::{
    sql_types::{BigInt, Bool, Nullable, Text},
    QueryableByName,
};
use sounding_domain::{
    feedback::{BoardRef, FeedbackSort, FeedbackView},
    tag::{self, TagRef},
};

use super::rows::FeedbackRow;
use crate::{
    connection::DbConnection,
    error::DbResult,
    raw_sql::RawSql,
    repos::{parse_id, subscribers::person},
};

/// Every column of `feedback`, named as `FeedbackRow` reads them (checked by a test below).
pub(super) const COLUMNS: &str = "f.id, f.team_id, f.board_id, f.url_id, f.title, f.text, \
    f.status, f.priority, f.kind, f.creator_id, f.meta, f.search_text, f.comment_count, \
    f.published_at, f.archived_at, f.created_at, f.updated_at, f.last_modified_by_id";

/// What a view shows beside the item's own columns, as `ViewRow` reads them.
const SHOWN_WITH: &str = ", COALESCE(v.vote_count, 0) AS vote_count, b.name AS board_name, \
    b.slug AS board_slug, b.is_public AS board_is_public, c.name AS creator_name, \
    c.email AS creator_email, c.avatar_url AS creator_avatar_url, e.name AS editor_name, \
    e.email AS editor_email, e.avatar_url AS editor_avatar_url, t.id AS tag_id, t.name AS tag_name, t.color AS tag_color";

/// The joins that read it, each checking the team on the joined row. Every item has its
/// `feedback_vote_counts` row (kept by triggers); the outer join only makes sure an item is
/// never hidden by a missing one.
const JOINS: &str = " LEFT JOIN feedback_vote_counts v ON v.id = f.id AND v.team_id = f.team_id \
    LEFT JOIN feedback_boards b ON b.id = f.board_id AND b.team_id = f.team_id \
    LEFT JOIN subscribers c ON c.id = f.creator_id AND c.team_id = f.team_id \
    LEFT JOIN subscribers e ON e.id = f.last_modified_by_id AND e.team_id = f.team_id \
    LEFT JOIN feedback_tags ft ON ft.feedback_id = f.id AND ft.team_id = f.team_id \
    LEFT JOIN tags t ON t.id = ft.tag_id AND t.team_id = f.team_id";

/// One result row: an item and at most one of its tags.
#[derive(QueryableByName)]
struct ViewRow {
    #[diesel(embed)]
    item: FeedbackRow,
    #[diesel(sql_type = BigInt)]
    vote_count: i64,
    #[diesel(sql_type = Nullable<Text>)]
    board_name: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    board_slug: Option<String>,
    #[diesel(sql_type = Nullable<Bool>)]
    board_is_public: Option<bool>,
    #[diesel(sql_type = Nullable<Text>)]
    creator_name: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    creator_email: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    creator_avatar_url: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    editor_name: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    editor_email: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    editor_avatar_url: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    tag_id: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    tag_name: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    tag_color: Option<String>,
}

/// Which items to read.
pub(super) enum Pick<'a> {
    /// The item with this id.
    Id(&'a str),
    /// The item with this url id.
    UrlId(&'a str),
    /// The items with these ids (a bounded few: each count is a statement text of its own).
    Ids(&'a [&'a str]),
    /// The page `query` selects as `page_id` (and, for the trending order, `score`), in `sort`
    /// order.
    Page { query: RawSql, sort: FeedbackSort },
}

/// The views of the items `pick` picks in the team, in one statement: in the page's order for
/// a page, by id otherwise.
pub(super) fn read(
    conn: &mut DbConnection,
    team: &str,
    pick: Pick<'_>,
) -> DbResult<Vec<FeedbackView>> {
    let mut sql = RawSql::new();
    sql.push("SELECT ").push(COLUMNS).push(SHOWN_WITH);
    match pick {
        Pick::Page { query, sort } => {
            sql.push(" FROM (")
                .append(query)
                .push(") p JOIN feedback f ON f.id = p.page_id")
                .push(JOINS)
                .push(" ORDER BY ")
                .push(&order_by(sort, "p.score", "f"));
        }
        Pick::Id(id) => {
            in_team(&mut sql, team).push(" AND f.id = ").text(id);
        }
        Pick::UrlId(url_id) => {
            in_team(&mut sql, team)
                .push(" AND f.url_id = ")
                .text(url_id);
        }
        Pick::Ids(ids) => {
            in_team(&mut sql, team).push(" AND f.id IN (");
            for (i, id) in ids.iter().enumerate() {
                if i > 0 {
                    sql.push(", ");
                }
                sql.text(*id);
            }
            sql.push(") ORDER BY f.id");
        }
    }
    views(sql.load(conn)?)
}

/// The team's items with what their views show, for a `WHERE` that picks among them.
fn in_team<'s>(sql: &'s mut RawSql, team: &str) -> &'s mut RawSql {
    sql.push(" FROM feedback f")
        .push(JOINS)
        .push(" WHERE f.team_id = ")
        .text(team)
}

/// The `ORDER BY` keys of `sort`, ending in the item's id, so every order is total and the
/// rows of one item (one per tag) come together. `score` is the trending score's expression;
/// `keys` the table (`f` or its vote count row `v`) whose `created_at` and `id` are sorted by.
pub(super) fn order_by(sort: FeedbackSort, score: &str, keys: &str) -> String {
    let first = match sort {
        FeedbackSort::Newest => String::new(),
        FeedbackSort::Top => "v.vote_count DESC, ".to_owned(),
        FeedbackSort::Trending => format!("{score} DESC, "),
    };
    format!("{first}{keys}.created_at DESC, {keys}.id DESC")
}

/// Folds the result rows into views: the rows of one item come together.
fn views(rows: Vec<ViewRow>) -> DbResult<Vec<FeedbackView>> {
    let mut views: Vec<FeedbackView> = Vec::new();
    let mut last_id: Option<String> = None;
    for row in rows {
        let tag = match (row.tag_id, row.tag_name, row.tag_color) {
            (Some(id), Some(name), Some(color)) => Some(TagRef {
                id: parse_id("tags.id", &id)?,
                name,
                color,
            }),
            _ => None,
        };
        if last_id.as_deref() != Some(row.item.id.as_str()) {
            last_id = Some(row.item.id.clone());
            let board = (&row.item.board_id, row.board_name, row.board_slug);
            let board = match (board, row.board_is_public) {
                ((Some(id), Some(name), Some(slug)), Some(is_public)) => Some(BoardRef {
                    id: parse_id("feedback_boards.id", id)?,
                    name,
                    slug,
                    is_public,
                }),
                _ => None,
            };
            let creator = match row.creator_name {
                Some(name) => Some(person(
                    &row.item.creator_id,
                    name,
                    row.creator_email,
                    row.creator_avatar_url,
                )?),
                None => None,
            };
            let last_modified_by = match (&row.item.last_modified_by_id, row.editor_name) {
                (Some(id), Some(name)) => {
                    Some(person(id, name, row.editor_email, row.editor_avatar_url)?)
                }
                _ => None,
            };
            let (vote_count, comment_count) = (row.vote_count, row.item.comment_count);
            views.push(FeedbackView {
                feedback: row.item.into_feedback()?,
                board,
                creator,
                last_modified_by,
                vote_count,
                comment_count,
                tags: Vec::new(),
            });
        }
        if let (Some(tag), Some(view)) = (tag, views.last_mut()) {
            view.tags.push(tag);
        }
    }
    for view in &mut views {
        tag::sort_tags(&mut view.tags);
    }
    Ok(views)
}

#[cfg(test)]
mod tests {
    use crate::{raw_sql::test_columns_read_the_row, schema::feedback};

    use super::*;

    test_columns_read_the_row!(COLUMNS, feedback::table, FeedbackRow);
}
