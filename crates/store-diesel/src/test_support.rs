//! Helpers shared by the unit tests of several repositories.

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc,
};

use diesel::{connection::InstrumentationEvent, Connection};

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
