//! `column IN (…)` over a list of any length as one statement text, so diesel keeps it
//! prepared. diesel's `eq_any` writes one placeholder per value: every list length is another
//! statement, and diesel never caches it, so SQLite parses it again on every request (a page
//! of items looks up its boards, people and tags that way). Here the list is bound once, as a
//! JSON array of text, and each engine unpacks it in SQL.

use diesel::{
    expression::{AppearsOnTable, Expression, SelectableExpression, ValidGrouping},
    query_builder::{AstPass, QueryFragment, QueryId},
    sql_types::{Bool, Text},
    QueryResult,
};

use crate::connection::Backend as MultiBackend;

/// `ids` without repeats, sorted: the list to bind, whatever order and repeats the caller
/// gathered them in.
pub(crate) fn distinct<'a>(ids: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    ids.into_iter()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// `column IN (values)`: true for rows whose text `column` is one of `values`.
pub(crate) fn one_of<C, V>(column: C, values: impl IntoIterator<Item = V>) -> OneOf<C>
where
    C: Expression<SqlType = Text>,
    V: AsRef<str>,
{
    let values: Vec<String> = values.into_iter().map(|v| v.as_ref().to_owned()).collect();
    OneOf {
        column,
        // Serialising a list of strings cannot fail.
        values: serde_json::to_string(&values).unwrap_or_else(|_| "[]".to_owned()),
    }
}

/// See [`one_of`].
#[derive(Debug, Clone, QueryId)]
pub(crate) struct OneOf<C> {
    column: C,
    /// The values as a JSON array.
    values: String,
}

impl<C: Expression> Expression for OneOf<C> {
    type SqlType = Bool;
}

impl<C, QS> AppearsOnTable<QS> for OneOf<C> where C: AppearsOnTable<QS> {}

impl<C, QS> SelectableExpression<QS> for OneOf<C> where C: SelectableExpression<QS> {}

impl<C, GroupBy> ValidGrouping<GroupBy> for OneOf<C>
where
    C: ValidGrouping<GroupBy>,
{
    type IsAggregate = C::IsAggregate;
}

impl<C> QueryFragment<MultiBackend> for OneOf<C>
where
    C: QueryFragment<MultiBackend>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, MultiBackend>) -> QueryResult<()> {
        let sqlite = matches!(out.backend(), MultiBackend::Sqlite(_));
        out.push_sql("(");
        self.column.walk_ast(out.reborrow())?;
        if sqlite {
            out.push_sql(" IN (SELECT value FROM json_each(");
            out.push_bind_param::<Text, _>(&self.values)?;
            out.push_sql(")))");
        } else {
            // `= ANY(ARRAY(…))`, not `IN (SELECT …)`: PostgreSQL guesses 100 rows for the
            // set-returning function and hash-joins them against a scan of the whole table
            // (every subscriber of the team, to name a page's authors); an array is probed
            // through the index, one lookup per value.
            out.push_sql(" = ANY(ARRAY(SELECT json_array_elements_text(CAST(");
            out.push_bind_param::<Text, _>(&self.values)?;
            out.push_sql(" AS json)))))");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    };

    use diesel::{
        connection::InstrumentationEvent, Connection, ExpressionMethods, QueryDsl, RunQueryDsl,
    };

    use super::*;
    use crate::{connection::DbConnection, schema::tags};

    #[test]
    fn lists_of_any_length_share_one_prepared_statement() {
        let mut conn = crate::migrations::scratch_sqlite();
        let team = uuid::Uuid::now_v7().to_string();
        let ids: Vec<String> = (0..5).map(|_| uuid::Uuid::now_v7().to_string()).collect();
        for (n, id) in ids.iter().enumerate() {
            diesel::sql_query(format!(
                "INSERT INTO tags (id, team_id, name, name_key, color, created_at, updated_at) \
                 VALUES ('{id}', '{team}', 'T{n}', 't{n}', '#3B82F6', '2026-01-01 00:00:00', \
                 '2026-01-01 00:00:00')"
            ))
            .execute(&mut conn)
            .unwrap();
        }
        let prepared = Arc::new(AtomicUsize::new(0));
        let counter = prepared.clone();
        if let DbConnection::Sqlite(inner) = &mut conn {
            inner.set_instrumentation(move |event: InstrumentationEvent<'_>| {
                if let InstrumentationEvent::CacheQuery { .. } = event {
                    counter.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
        // A value that needs escaping in JSON, and one that is not there, find nothing more.
        let odd = [
            "quote\"and\\slash".to_owned(),
            uuid::Uuid::now_v7().to_string(),
        ];
        for n in 1..=5 {
            let wanted: Vec<&String> = ids[..n].iter().chain(&odd).collect();
            let mut found: Vec<String> = tags::table
                .filter(one_of(tags::id, &wanted))
                .select(tags::id)
                .load(&mut conn)
                .unwrap();
            found.sort();
            let mut expected = ids[..n].to_vec();
            expected.sort();
            assert_eq!(found, expected);
        }
        let none: Vec<String> = tags::table
            .filter(one_of(tags::id, Vec::<String>::new()))
            .select(tags::id)
            .load(&mut conn)
            .unwrap();
        assert!(none.is_empty());
        assert_eq!(
            prepared.load(Ordering::SeqCst),
            1,
            "one statement for every length"
        );
    }

    /// Where `SOUNDING_TEST_POSTGRES_URL` names a server: PostgreSQL finds the values through
    /// the index, in the plan it keeps for every list (not by scanning the table).
    #[test]
    fn postgres_probes_the_index_for_each_value() {
        use diesel::connection::SimpleConnection;
        let Some(admin) = sounding_tests::pg::require_postgres() else {
            return;
        };
        let url = sounding_tests::pg::fresh_database(&admin);
        let mut conn = DbConnection::Postgresql(diesel::PgConnection::establish(&url).unwrap());
        crate::migrations::run(&mut conn).unwrap();
        // Enough tags that a scan costs more than a few index probes, as a team's subscribers do
        // (the team itself need not exist: the foreign keys are off for this session).
        conn.batch_execute(
            "SET session_replication_role = replica; \
             INSERT INTO tags (id, team_id, name, name_key, color, created_at, updated_at) \
             SELECT 'tag-' || i, 'team', 'T' || i, 't' || i, '#3B82F6', now(), now() \
             FROM generate_series(1, 5000) i; ANALYZE tags",
        )
        .unwrap();
        let statements = crate::raw_sql::plans::recorded(&mut conn, |conn| {
            let found: Vec<String> = tags::table
                .filter(tags::team_id.eq("team"))
                .filter(one_of(tags::id, ["tag-7", "tag-4000"]))
                .select(tags::id)
                .order(tags::id)
                .load(conn)
                .unwrap();
            assert_eq!(found, ["tag-4000", "tag-7"]);
        });
        let sql = &statements[0];
        conn.batch_execute(&format!(
            "SET plan_cache_mode = force_generic_plan; PREPARE listed(text, text) AS {sql}"
        ))
        .unwrap();
        #[derive(diesel::QueryableByName)]
        struct PlanLine {
            #[diesel(sql_type = diesel::sql_types::Text, column_name = "QUERY PLAN")]
            line: String,
        }
        let plan: Vec<PlanLine> =
            diesel::sql_query("EXPLAIN EXECUTE listed('team', '[\"tag-7\"]')")
                .load(&mut conn)
                .unwrap();
        let plan: Vec<String> = plan.into_iter().map(|l| l.line).collect();
        assert!(
            plan.iter().any(|l| l.contains("Index"))
                && !plan.iter().any(|l| l.contains("Seq Scan")),
            "{plan:#?}"
        );
    }
}
