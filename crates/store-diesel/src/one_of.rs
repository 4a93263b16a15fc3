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
            out.push_sql(" IN (SELECT json_array_elements_text(CAST(");
            out.push_bind_param::<Text, _>(&self.values)?;
            out.push_sql(" AS json))))");
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

    use diesel::{connection::InstrumentationEvent, Connection, QueryDsl, RunQueryDsl};

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
}
