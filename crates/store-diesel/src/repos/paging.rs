//! The shape every hand-written list shares: the total the selection picks (counted, or read
//! from a kept count), then — unless the page starts past the end — one page of rows in the
//! list's order.

use diesel::{sql_types::BigInt, QueryableByName};
use sounding_domain::page::PageRequest;

use crate::{
    connection::DbConnection,
    error::DbResult,
    raw_sql::{Param, RawSql},
};

/// A `COUNT(*) AS n` row.
#[derive(QueryableByName)]
pub(crate) struct Count {
    #[diesel(sql_type = BigInt)]
    pub(crate) n: i64,
}

/// Reads the single `n` of a count query (0 for none).
pub(crate) fn count(sql: &RawSql, conn: &mut DbConnection) -> DbResult<i64> {
    Ok(sql.load::<Count>(conn)?.first().map_or(0, |c| c.n))
}

/// The start of a sum of a kept-count table's `n` (named `c`), 0 when no row matches, to be
/// followed by the conditions that pick its rows: a list's total read from counts triggers or
/// transactions keep, rather than counted.
pub(crate) fn kept_sum(table: &str) -> RawSql {
    let mut sql = RawSql::new();
    sql.push("SELECT COALESCE(CAST(SUM(c.n) AS BIGINT), 0) AS n FROM ")
        .push(table)
        .push(" c WHERE ");
    sql
}

/// What a list is made of: `SELECT columns FROM from`, then `selection` (joins and `WHERE`,
/// said once for the count and the page), then `order` (the page's `ORDER BY`).
pub(crate) struct ListSql<'a, S, O> {
    pub(crate) from: &'a str,
    pub(crate) columns: &'a str,
    pub(crate) selection: S,
    pub(crate) order: O,
}

/// The total the selection picks, and the rows of `page`: two statements, or one when the
/// page starts past the end (it is empty and need not run).
pub(crate) fn counted_page<R, S, O>(
    conn: &mut DbConnection,
    page: PageRequest,
    list: ListSql<'_, S, O>,
) -> DbResult<(i64, Vec<R>)>
where
    R: QueryableByName<diesel::pg::Pg> + QueryableByName<diesel::sqlite::Sqlite> + 'static,
    S: Fn(&mut RawSql),
    O: FnOnce(&mut RawSql),
{
    let mut counting = RawSql::new();
    counting.push("SELECT COUNT(*) AS n FROM ").push(list.from);
    (list.selection)(&mut counting);
    let total = count(&counting, conn)?;
    Ok((total, page_of(conn, total, page, list)?))
}

/// The rows of `page`, given the `total` the selection picks (read from a kept count rather
/// than counted); no statement when the page starts past the end.
pub(crate) fn page_of<R, S, O>(
    conn: &mut DbConnection,
    total: i64,
    page: PageRequest,
    list: ListSql<'_, S, O>,
) -> DbResult<Vec<R>>
where
    R: QueryableByName<diesel::pg::Pg> + QueryableByName<diesel::sqlite::Sqlite> + 'static,
    S: Fn(&mut RawSql),
    O: FnOnce(&mut RawSql),
{
    if total <= page.offset {
        return Ok(Vec::new());
    }
    let mut rows = RawSql::new();
    rows.push("SELECT ")
        .push(list.columns)
        .push(" FROM ")
        .push(list.from);
    (list.selection)(&mut rows);
    (list.order)(&mut rows);
    rows.push(" LIMIT ")
        .param(Param::BigInt(page.limit))
        .push(" OFFSET ")
        .param(Param::BigInt(page.offset));
    rows.load(conn)
}
