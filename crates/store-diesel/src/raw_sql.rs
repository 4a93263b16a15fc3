//! Hand-written SQL for the few queries the query builder cannot express over both engines
//! (the feedback list with its trending score). The text is built once; placeholders are
//! numbered for the live engine (`?` on SQLite, `$1, $2, …` on PostgreSQL) and the values
//! bound in the same order on the inner connection.

use diesel::{
    backend::Backend,
    query_builder::{BoxedSqlQuery, SqlQuery},
    serialize::ToSql,
    sql_types::{BigInt, HasSqlType, Text, Timestamp},
    Connection, QueryableByName, RunQueryDsl,
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

/// SQL text and its parameters, placeholders spelled for one engine.
#[derive(Debug)]
pub(crate) struct RawSql {
    sql: String,
    params: Vec<Param>,
    numbered: bool,
}

impl RawSql {
    /// Empty SQL for the engine behind `conn`.
    pub(crate) fn for_connection(conn: &DbConnection) -> Self {
        Self {
            sql: String::new(),
            params: Vec::new(),
            numbered: matches!(conn, DbConnection::Postgresql(_)),
        }
    }

    /// Appends literal SQL (never a value: values go through [`RawSql::param`]).
    pub(crate) fn push(&mut self, sql: &str) -> &mut Self {
        self.sql.push_str(sql);
        self
    }

    /// Appends a placeholder bound to `value`.
    pub(crate) fn param(&mut self, value: Param) -> &mut Self {
        self.params.push(value);
        if self.numbered {
            self.sql.push('$');
            self.sql.push_str(&self.params.len().to_string());
        } else {
            self.sql.push('?');
        }
        self
    }

    /// Appends a placeholder bound to the text `value`.
    pub(crate) fn text(&mut self, value: impl Into<String>) -> &mut Self {
        self.param(Param::Text(value.into()))
    }

    #[cfg(test)]
    pub(crate) fn sql(&self) -> &str {
        &self.sql
    }

    /// Runs the query and reads every row by column name.
    pub(crate) fn load<U>(&self, conn: &mut DbConnection) -> DbResult<Vec<U>>
    where
        U: QueryableByName<diesel::pg::Pg> + QueryableByName<diesel::sqlite::Sqlite> + 'static,
    {
        Ok(per_backend!(conn, |inner| bound(inner, self).load::<U>(inner))?)
    }
}

/// The query with its values bound, typed for the backend of `_conn` (taken only for its type).
fn bound<'a, C>(_conn: &C, raw: &'a RawSql) -> BoxedSqlQuery<'a, C::Backend, SqlQuery>
where
    C: Connection,
    C::Backend: Backend + HasSqlType<Text> + HasSqlType<BigInt> + HasSqlType<Timestamp>,
    String: ToSql<Text, C::Backend>,
    i64: ToSql<BigInt, C::Backend>,
    PrimitiveDateTime: ToSql<Timestamp, C::Backend>,
{
    raw.params.iter().fold(
        diesel::sql_query(raw.sql.as_str()).into_boxed(),
        |query, param| match param {
            Param::Text(v) => query.bind::<Text, _>(v.clone()),
            Param::BigInt(v) => query.bind::<BigInt, _>(*v),
            Param::Timestamp(v) => query.bind::<Timestamp, _>(*v),
        },
    )
}

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

#[cfg(test)]
mod tests {
    use diesel::{Connection, SqliteConnection};

    use super::*;

    #[test]
    fn placeholders_are_spelled_per_engine() {
        let sqlite = DbConnection::Sqlite(SqliteConnection::establish(":memory:").unwrap());
        let mut raw = RawSql::for_connection(&sqlite);
        raw.push("a = ")
            .text("x")
            .push(" AND b = ")
            .param(Param::BigInt(1));
        assert_eq!(raw.sql(), "a = ? AND b = ?");

        let mut raw = RawSql {
            sql: String::new(),
            params: Vec::new(),
            numbered: true,
        };
        raw.push("a = ")
            .text("x")
            .push(" AND b = ")
            .param(Param::BigInt(1));
        assert_eq!(raw.sql(), "a = $1 AND b = $2");
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
        let mut raw = RawSql::for_connection(&conn);
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

    /// The statements `f` runs, each with its `EXPLAIN QUERY PLAN` steps joined by " | ".
    /// Parameters are left unbound: the plan does not depend on their values.
    pub(crate) fn explained(
        conn: &mut DbConnection,
        f: impl FnOnce(&mut DbConnection),
    ) -> Vec<(String, String)> {
        let statements = Arc::new(Mutex::new(Vec::new()));
        let DbConnection::Sqlite(inner) = conn else {
            panic!("query plans are SQLite's");
        };
        let recorder = statements.clone();
        inner.set_instrumentation(move |event: InstrumentationEvent<'_>| {
            if let InstrumentationEvent::StartQuery { query, .. } = event {
                let text = query.to_string();
                let sql = text.split(" -- binds:").next().unwrap_or_default();
                recorder.lock().unwrap().push(sql.trim().to_owned());
            }
        });
        f(conn);
        let DbConnection::Sqlite(inner) = conn else {
            unreachable!()
        };
        inner.set_instrumentation(|_: InstrumentationEvent<'_>| {});
        let statements = statements.lock().unwrap().clone();
        statements
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
