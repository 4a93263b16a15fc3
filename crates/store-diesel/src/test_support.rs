//! Helpers shared by the unit tests of several repositories.

use std::{
    fmt::Display,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
};

use diesel::{connection::InstrumentationEvent, Connection, RunQueryDsl};

use crate::connection::DbConnection;

/// Counts the statements started on `conn` from now on (SQLite only, as the unit tests run
/// there), so a test can pin how many statements an operation takes.
pub(crate) fn count_statements(conn: &mut DbConnection) -> Arc<AtomicUsize> {
    let statements = Arc::new(AtomicUsize::new(0));
    let counter = statements.clone();
    if let DbConnection::Sqlite(inner) = conn {
        inner.set_instrumentation(move |event: InstrumentationEvent<'_>| {
            if matches!(event, InstrumentationEvent::StartQuery { .. }) {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
    }
    statements
}

/// Adds the team's `n`th board (slug `b{n}`, position `n`), by hand: for tests whose scratch
/// database has foreign keys off.
pub(crate) fn insert_board(
    conn: &mut DbConnection,
    team: impl Display,
    board: impl Display,
    n: usize,
) {
    diesel::sql_query(format!(
        "INSERT INTO feedback_boards (id, team_id, name, slug, position, created_at, \
         updated_at) VALUES ('{board}', '{team}', 'B', 'b{n}', {n}, \
         '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
    ))
    .execute(conn)
    .unwrap();
}
