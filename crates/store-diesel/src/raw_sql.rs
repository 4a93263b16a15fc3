//! Hand-written SQL for the few queries the query builder cannot express over both engines
//! (the feedback list with its trending score). Literal SQL and bound values are kept apart,
//! so diesel spells the placeholders for the live engine (`?` on SQLite, `$1, $2, …` on
//! PostgreSQL) and keeps each distinct text's prepared statement, as it does for its own
//! queries: a list runs a prepared statement instead of parsing its SQL on every request.

use diesel::{
    backend::Backend,
    pg::Pg,
    query_builder::{AstPass, Query, QueryFragment, QueryId},
    serialize::ToSql,
    sql_types::{BigInt, HasSqlType, Text, Timestamp, Untyped},
    PgConnection, QueryResult, QueryableByName, RunQueryDsl,
};
use time::PrimitiveDateTime;

use crate::{
    connection::{per_backend, DbConnection},
    error::DbResult,
};

/// A value bound to a placeholder.
#[derive(Debug, Clone)]
pub(crate) enum Param {
    Text(String),
    BigInt(i64),
    Timestamp(PrimitiveDateTime),
}

/// SQL text and its parameters.
///
/// Every distinct text is prepared once per connection and kept, so the text must come from a
/// bounded set: values always go through [`RawSql::param`], never into the text.
#[derive(Debug)]
pub(crate) struct RawSql {
    /// The literal SQL around the placeholders: `pieces[i]` comes before `params[i]`, and the
    /// last piece after every placeholder (so there is always one more piece than params).
    pieces: Vec<String>,
    params: Vec<Param>,
}

impl RawSql {
    /// Empty SQL.
    pub(crate) fn new() -> Self {
        Self {
            pieces: vec![String::new()],
            params: Vec::new(),
        }
    }

    /// Appends literal SQL (never a value: values go through [`RawSql::param`]).
    pub(crate) fn push(&mut self, sql: &str) -> &mut Self {
        self.pieces
            .last_mut()
            .expect("there is always a last piece")
            .push_str(sql);
        self
    }

    /// Appends a placeholder bound to `value`.
    pub(crate) fn param(&mut self, value: Param) -> &mut Self {
        self.params.push(value);
        self.pieces.push(String::new());
        self
    }

    /// Appends a placeholder bound to the text `value`.
    pub(crate) fn text(&mut self, value: impl Into<String>) -> &mut Self {
        self.param(Param::Text(value.into()))
    }

    /// Appends `other`, its text and its placeholders (to nest a query in this one).
    pub(crate) fn append(&mut self, other: RawSql) -> &mut Self {
        let mut pieces = other.pieces.into_iter();
        self.push(&pieces.next().unwrap_or_default());
        self.params.extend(other.params);
        self.pieces.extend(pieces);
        self
    }

    /// Runs the query and reads every row by column name.
    pub(crate) fn load<U>(&self, conn: &mut DbConnection) -> DbResult<Vec<U>>
    where
        U: QueryableByName<diesel::pg::Pg> + QueryableByName<diesel::sqlite::Sqlite> + 'static,
    {
        Ok(per_backend!(conn, |inner| Bound(self).load::<U>(inner))?)
    }

    /// Runs the statement (an `UPDATE` or `DELETE`) and returns how many rows it changed.
    pub(crate) fn execute(&self, conn: &mut DbConnection) -> DbResult<usize> {
        Ok(per_backend!(conn, |inner| Bound(self).execute(inner))?)
    }
}

/// A count kept on a row, as `add_to_count` names it: table and column are the caller's
/// constants, never input, so the statement texts stay few.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeptCount {
    pub(crate) table: &'static str,
    pub(crate) column: &'static str,
}

#[derive(QueryableByName)]
struct CountAfter {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

/// Adds `delta` to `count` of the row `id` and returns the count after; a missing row is
/// diesel's `NotFound`. Hand-written because diesel never keeps an `UPDATE` prepared: it
/// prepared this one again on every vote (5 % of S4's CPU, docs/benchmarks.md).
pub(crate) fn add_to_count(
    conn: &mut DbConnection,
    count: KeptCount,
    id: &str,
    delta: i64,
) -> DbResult<i64> {
    let KeptCount { table, column } = count;
    let mut sql = RawSql::new();
    sql.push(&format!("UPDATE {table} SET {column} = {column} + "))
        .param(Param::BigInt(delta))
        .push(" WHERE id = ")
        .text(id)
        .push(&format!(" RETURNING {column} AS n"));
    let rows: Vec<CountAfter> = sql.load(conn)?;
    Ok(rows
        .first()
        .map(|row| row.n)
        .ok_or(diesel::result::Error::NotFound)?)
}

/// A [`RawSql`] as a diesel query. Unlike `diesel::sql_query`, which never lets its statement
/// be cached, it may be: the statement cache keys it by its text and bind types.
struct Bound<'a>(&'a RawSql);

impl<DB> QueryFragment<DB> for Bound<'_>
where
    DB: Backend + HasSqlType<Text> + HasSqlType<BigInt> + HasSqlType<Timestamp>,
    String: ToSql<Text, DB>,
    i64: ToSql<BigInt, DB>,
    PrimitiveDateTime: ToSql<Timestamp, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        walk_raw(self.0, &mut out)
    }
}

/// Writes `raw`'s text and binds its values, numbered on from whatever `out` holds already.
fn walk_raw<'b, DB>(raw: &'b RawSql, out: &mut AstPass<'_, 'b, DB>) -> QueryResult<()>
where
    DB: Backend + HasSqlType<Text> + HasSqlType<BigInt> + HasSqlType<Timestamp>,
    String: ToSql<Text, DB>,
    i64: ToSql<BigInt, DB>,
    PrimitiveDateTime: ToSql<Timestamp, DB>,
{
    for (piece, param) in raw.pieces.iter().zip(&raw.params) {
        out.push_sql(piece);
        match param {
            Param::Text(v) => out.push_bind_param::<Text, _>(v)?,
            Param::BigInt(v) => out.push_bind_param::<BigInt, _>(v)?,
            Param::Timestamp(v) => out.push_bind_param::<Timestamp, _>(v)?,
        }
    }
    out.push_sql(raw.pieces.last().map_or("", String::as_str));
    Ok(())
}

/// `WITH <name> AS (<step>) <rest>`: a statement of the query builder (an `INSERT …
/// RETURNING`) as the first step of hand-written SQL, so the row's columns are said once, by
/// its `Insertable`, and `rest` goes on from the step by its name. PostgreSQL only: SQLite
/// has no writing `WITH` steps. Kept prepared like [`RawSql`], by its text.
pub(crate) struct FirstStep<'a, Q> {
    name: &'static str,
    step: Q,
    rest: &'a RawSql,
}

impl<'a, Q: QueryFragment<Pg>> FirstStep<'a, Q> {
    pub(crate) fn new(name: &'static str, step: Q, rest: &'a RawSql) -> Self {
        Self { name, step, rest }
    }

    /// Runs the statement and returns how many rows its last part answered.
    pub(crate) fn execute(self, conn: &mut PgConnection) -> DbResult<usize> {
        Ok(RunQueryDsl::execute(self, conn)?)
    }
}

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for FirstStep<'_, Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("WITH ");
        out.push_sql(self.name);
        out.push_sql(" AS (");
        self.step.walk_ast(out.reborrow())?;
        out.push_sql(") ");
        walk_raw(self.rest, &mut out)
    }
}

impl<Q> QueryId for FirstStep<'_, Q> {
    type QueryId = ();
    // As `Bound`: the cache keys it by its text.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q> Query for FirstStep<'_, Q> {
    type SqlType = Untyped;
}

impl<Q, Conn> RunQueryDsl<Conn> for FirstStep<'_, Q> {}

impl QueryId for Bound<'_> {
    type QueryId = ();
    // The text varies with the query's options: the cache keys it by the text itself.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Bound<'_> {
    type SqlType = Untyped;
}

impl<Conn> RunQueryDsl<Conn> for Bound<'_> {}

/// `term` as a `LIKE` pattern that matches it anywhere, its own `%`, `_` and `\` taken
/// literally (use with `ESCAPE '\'`).
pub(crate) fn like_contains(term: &str) -> String {
    let mut pattern = String::with_capacity(term.len() + 2);
    pattern.push('%');
    for c in term.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// Checks a hand-kept column list (`"f.id, f.team_id, …"`, as the lists' `COLUMNS`) against
/// the row struct it is read into by name: `selected` is `table.select(Row::as_select())`, whose
/// columns are the struct's fields in order, as `#[derive(Selectable)]` lists them from the same
/// fields `QueryableByName` reads. Panics, naming both lists, unless they are the same.
#[cfg(test)]
pub(crate) fn assert_columns_read_the_row<Q>(columns: &str, selected: Q)
where
    Q: QueryFragment<diesel::sqlite::Sqlite>,
{
    let sql = diesel::debug_query::<diesel::sqlite::Sqlite, _>(&selected).to_string();
    let list = sql
        .strip_prefix("SELECT ")
        .and_then(|rest| rest.split(" FROM ").next())
        .unwrap_or_else(|| panic!("not a SELECT: {sql}"));
    let fields: Vec<&str> = list
        .split(", ")
        .map(|column| column.rsplit('.').next().unwrap().trim_matches('`'))
        .collect();
    let listed: Vec<&str> = columns
        .split(',')
        .map(|column| column.trim().rsplit('.').next().unwrap())
        .collect();
    assert_eq!(
        listed, fields,
        "the hand-kept column list differs from the row struct's fields"
    );
}

/// The test that a hand-kept column list reads its row struct (`assert_columns_read_the_row`):
/// `test_columns_read_the_row!(COLUMNS, feedback::table, FeedbackRow)`.
#[cfg(test)]
macro_rules! test_columns_read_the_row {
    ($columns:expr, $table:expr, $row:ty) => {
        /// `COLUMNS` names every field of the row it is read into, in order (`raw_sql`).
        #[test]
        fn columns_name_every_field_of_the_row() {
            use diesel::{QueryDsl, SelectableHelper};
            let selected = $table.select(<$row>::as_select());
            crate::raw_sql::assert_columns_read_the_row($columns, selected);
        }
    };
}
#[cfg(test)]
pub(crate) use test_columns_read_the_row;

#[cfg(test)]
mod tests {
    use diesel::{Connection, SqliteConnection};

    use super::*;

    #[test]
    fn a_text_is_prepared_once_and_reused_with_other_values() {
        #[derive(QueryableByName, Debug, PartialEq)]
        struct Row {
            #[diesel(sql_type = BigInt)]
            b: i64,
        }
        let prepared = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = prepared.clone();
        let mut inner = SqliteConnection::establish(":memory:").unwrap();
        inner.set_instrumentation(move |event: diesel::connection::InstrumentationEvent<'_>| {
            if let diesel::connection::InstrumentationEvent::CacheQuery { .. } = event {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        });
        let mut conn = DbConnection::Sqlite(inner);
        for b in [1, 2, 3] {
            let mut raw = RawSql::new();
            raw.push("SELECT ").param(Param::BigInt(b)).push(" AS b");
            assert_eq!(raw.load::<Row>(&mut conn).unwrap(), vec![Row { b }]);
        }
        assert_eq!(prepared.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[test]
    fn a_kept_count_moves_by_delta_with_one_prepared_statement() {
        use diesel::connection::SimpleConnection;
        let prepared = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = prepared.clone();
        let mut inner = SqliteConnection::establish(":memory:").unwrap();
        inner
            .batch_execute(
                "CREATE TABLE t (id TEXT PRIMARY KEY, n BIGINT NOT NULL); \
                 INSERT INTO t VALUES ('a', 5), ('b', 0);",
            )
            .unwrap();
        inner.set_instrumentation(move |event: diesel::connection::InstrumentationEvent<'_>| {
            if let diesel::connection::InstrumentationEvent::CacheQuery { .. } = event {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        });
        let mut conn = DbConnection::Sqlite(inner);
        let count = KeptCount {
            table: "t",
            column: "n",
        };
        assert_eq!(add_to_count(&mut conn, count, "a", 1).unwrap(), 6);
        assert_eq!(add_to_count(&mut conn, count, "a", -2).unwrap(), 4);
        assert_eq!(add_to_count(&mut conn, count, "b", 3).unwrap(), 3);
        assert!(matches!(
            add_to_count(&mut conn, count, "missing", 1),
            Err(crate::error::DbError::Query(
                diesel::result::Error::NotFound
            ))
        ));
        assert_eq!(prepared.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    /// The guard on the lists' `COLUMNS` fails when a column is left out, added or renamed.
    #[test]
    fn a_column_list_that_differs_from_its_row_is_refused() {
        use diesel::{QueryDsl, SelectableHelper};

        #[derive(diesel::Queryable, diesel::Selectable)]
        #[diesel(table_name = crate::schema::settings)]
        #[allow(dead_code)]
        struct Row {
            name: String,
            value: String,
        }
        let selected = || crate::schema::settings::table.select(Row::as_select());
        assert_columns_read_the_row("s.name, s.value", selected());
        for wrong in ["s.name", "s.name, s.value, s.other", "s.name, s.values"] {
            let refused =
                std::panic::catch_unwind(|| assert_columns_read_the_row(wrong, selected()));
            assert!(refused.is_err(), "{wrong:?} was taken");
        }
    }

    #[test]
    fn like_patterns_take_wildcards_literally() {
        assert_eq!(like_contains("50%_off\\"), "%50\\%\\_off\\\\%");
        assert_eq!(like_contains("dark"), "%dark%");
    }

    #[test]
    fn values_are_bound_in_order_on_sqlite() {
        #[derive(QueryableByName, Debug, PartialEq)]
        struct Row {
            #[diesel(sql_type = Text)]
            a: String,
            #[diesel(sql_type = BigInt)]
            b: i64,
        }
        let mut conn = DbConnection::Sqlite(SqliteConnection::establish(":memory:").unwrap());
        let mut raw = RawSql::new();
        raw.push("SELECT ")
            .text("x")
            .push(" AS a, ")
            .param(Param::BigInt(7))
            .push(" AS b WHERE 'a%b' LIKE ")
            .text(like_contains("%"))
            .push(" ESCAPE '\\'");
        let rows: Vec<Row> = raw.load(&mut conn).unwrap();
        assert_eq!(
            rows,
            vec![Row {
                a: "x".into(),
                b: 7
            }]
        );
    }
}

/// For tests that pin query plans: records the SQL of every statement a closure runs on an
/// SQLite connection, then asks SQLite how it would run each one.
#[cfg(test)]
pub(crate) mod plans {
    use std::sync::{Arc, Mutex};

    use diesel::{
        connection::InstrumentationEvent, sql_types::Text, Connection, QueryableByName, RunQueryDsl,
    };

    use crate::connection::DbConnection;

    #[derive(QueryableByName)]
    struct PlanStep {
        #[diesel(sql_type = Text)]
        detail: String,
    }

    /// The SQL of every statement `f` runs on `conn` (either engine), placeholders unbound.
    pub(crate) fn recorded(
        conn: &mut DbConnection,
        f: impl FnOnce(&mut DbConnection),
    ) -> Vec<String> {
        let statements = Arc::new(Mutex::new(Vec::new()));
        let recorder = statements.clone();
        let record = move |event: InstrumentationEvent<'_>| {
            if let InstrumentationEvent::StartQuery { query, .. } = event {
                let text = query.to_string();
                let sql = text.split(" -- binds:").next().unwrap_or_default();
                recorder.lock().unwrap().push(sql.trim().to_owned());
            }
        };
        match conn {
            DbConnection::Sqlite(inner) => inner.set_instrumentation(record),
            DbConnection::Postgresql(inner) => inner.set_instrumentation(record),
        }
        f(conn);
        let silent = |_: InstrumentationEvent<'_>| {};
        match conn {
            DbConnection::Sqlite(inner) => inner.set_instrumentation(silent),
            DbConnection::Postgresql(inner) => inner.set_instrumentation(silent),
        }
        let recorded = statements.lock().unwrap().clone();
        recorded
    }

    /// The statements `f` runs, each with its `EXPLAIN QUERY PLAN` steps joined by " | ".
    /// Parameters are left unbound: the plan does not depend on their values.
    pub(crate) fn explained(
        conn: &mut DbConnection,
        f: impl FnOnce(&mut DbConnection),
    ) -> Vec<(String, String)> {
        assert!(
            matches!(conn, DbConnection::Sqlite(_)),
            "query plans are SQLite's"
        );
        recorded(conn, f)
            .into_iter()
            .map(|sql| {
                let steps = diesel::sql_query(format!("EXPLAIN QUERY PLAN {sql}"))
                    .load::<PlanStep>(conn)
                    .unwrap();
                let plan = steps
                    .into_iter()
                    .map(|s| s.detail)
                    .collect::<Vec<_>>()
                    .join(" | ");
                (sql, plan)
            })
            .collect()
    }
}
