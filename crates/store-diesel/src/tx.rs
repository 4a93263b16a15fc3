//! Transactions: `write_tx` for every write and `read` for every read, so each port method
//! commits whole or not at all and sees one consistent state.

use std::{
    cell::RefCell,
    sync::{Arc, Mutex, PoisonError},
};

use diesel::connection::{AnsiTransactionManager, TransactionManager};

use crate::{connection::DbConnection, error::DbResult};

/// Writers of one SQLite database queue here before SQLite's write lock. SQLite's busy
/// handler only polls with growing sleeps, so under many concurrent writers one could lose the
/// race for longer than `busy_timeout` and fail with "database is locked" (a 503 for a valid
/// request, seen by `cargo xtask bench`); a mutex waits without a deadline and wakes the next
/// writer as soon as the lock is free. `busy_timeout` still covers other processes (the CLI).
/// One gate per pool (`DieselStore`), so stores of different files (tests run many in one
/// process) do not queue behind each other.
#[derive(Debug, Default, Clone)]
pub(crate) struct WriteGate(Arc<Mutex<()>>);

impl WriteGate {
    /// Whether both are the one gate of one database.
    #[cfg(test)]
    pub(crate) fn same_as(&self, other: &WriteGate) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

thread_local! {
    /// The gate of the store whose operation runs on this thread, set by `with_write_gate`
    /// around each operation (`DieselStore::run`), so the many `write_tx` call sites need not
    /// carry it.
    static CURRENT_GATE: RefCell<Option<WriteGate>> = const { RefCell::new(None) };
}

/// Runs `f` with `gate` as the one `write_tx` queues on (SQLite only; restored afterwards,
/// even if `f` panics).
pub(crate) fn with_write_gate<T>(gate: &WriteGate, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<WriteGate>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT_GATE.with(|current| *current.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(CURRENT_GATE.with(|current| current.replace(Some(gate.clone()))));
    f()
}

/// A write. On SQLite `BEGIN IMMEDIATE` takes the write lock up front, so two writers queue
/// instead of one failing when it upgrades a read lock; on PostgreSQL a plain `BEGIN` (READ
/// COMMITTED; row locks and unique indexes do the rest). Inside a transaction already open
/// (the SQLite writer's group, `writer`) it is a savepoint, rolled back alone on error.
pub(crate) fn write_tx<T>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    // Only the outermost transaction queues: the enclosing one holds the gate already.
    let gate = (matches!(conn, DbConnection::Sqlite(_)) && depth(conn) == Ok(None))
        .then(|| CURRENT_GATE.with(|current| current.borrow().clone()))
        .flatten();
    // A writer that panicked left no transaction open (its connection is dropped).
    let _queued = gate
        .as_ref()
        .map(|gate| gate.0.lock().unwrap_or_else(PoisonError::into_inner));
    in_transaction(conn, "BEGIN IMMEDIATE", "BEGIN", f)
}

/// A write of the webhook worker's own bookkeeping (fan-out, leases, attempt records), never
/// of a client's request. On PostgreSQL it commits without waiting for the WAL flush
/// (`synchronous_commit = off` for this transaction only): a durable commit costs an fsync,
/// and a pass makes several in a row, which on a busy disk held deliveries ~2 s behind their
/// events (`cargo xtask bench`, S7). A crash of PostgreSQL itself may lose the last such
/// commits; each loss only repeats work: the event is fanned out again (same transaction as
/// its deliveries), or the delivery is sent again once its lease expires — delivery is at
/// least once. Visibility to other sessions is unchanged. SQLite (`synchronous = NORMAL` in
/// WAL mode) does not sync on commit anyway.
pub(crate) fn worker_tx<T>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    write_tx(conn, |conn| {
        if let DbConnection::Postgresql(inner) = conn {
            diesel::connection::SimpleConnection::batch_execute(
                inner,
                "SET LOCAL synchronous_commit = off",
            )?;
        }
        f(conn)
    })
}

/// A read: one snapshot for all its statements. `READ ONLY` on PostgreSQL makes a stray write
/// in a read path fail loudly.
pub(crate) fn read<T>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    in_transaction(conn, "BEGIN DEFERRED", "BEGIN READ ONLY", f)
}

/// How many transactions and savepoints are open on `conn` (an error if its transaction state
/// is broken).
fn depth(conn: &mut DbConnection) -> diesel::QueryResult<Option<std::num::NonZeroU32>> {
    <DbConnection as TransactionManager<DbConnection>>::transaction_manager_status_mut(conn)
        .transaction_depth()
}

fn in_transaction<T>(
    conn: &mut DbConnection,
    sqlite_begin: &str,
    postgres_begin: &str,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    // Begun on the inner connection, whose transaction state the `DbConnection` shares, so the
    // commit and rollback below (and the pool's broken-connection check) see it. Nested, a
    // savepoint: the mode was chosen by the outermost.
    let nested = depth(conn)?.is_some();
    match conn {
        _ if nested => <DbConnection as TransactionManager<DbConnection>>::begin_transaction(conn)?,
        DbConnection::Sqlite(inner) => {
            AnsiTransactionManager::begin_transaction_sql(inner, sqlite_begin)?
        }
        DbConnection::Postgresql(inner) => {
            AnsiTransactionManager::begin_transaction_sql(inner, postgres_begin)?
        }
    }
    match f(conn) {
        Ok(value) => {
            <DbConnection as TransactionManager<DbConnection>>::commit_transaction(conn)?;
            Ok(value)
        }
        Err(error) => {
            // The first error is the one worth reporting; a failed rollback leaves the
            // connection marked broken and the pool drops it.
            if let Err(rollback) =
                <DbConnection as TransactionManager<DbConnection>>::rollback_transaction(conn)
            {
                tracing::warn!(%rollback, "rollback failed");
            }
            Err(error)
        }
    }
}

#[cfg(test)]
mod tests {
    use diesel::{Connection, RunQueryDsl, SqliteConnection};

    use super::*;
    use crate::error::DbError;
    use sounding_domain::ports::Conflict;

    fn sqlite() -> DbConnection {
        let mut conn = DbConnection::Sqlite(SqliteConnection::establish(":memory:").unwrap());
        diesel::sql_query("CREATE TABLE t (v BIGINT NOT NULL)")
            .execute(&mut conn)
            .unwrap();
        conn
    }

    fn count(conn: &mut DbConnection) -> i64 {
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        diesel::sql_query("SELECT COUNT(*) AS n FROM t")
            .get_result::<Count>(conn)
            .unwrap()
            .n
    }

    #[test]
    fn a_failed_write_leaves_nothing_behind() {
        let mut conn = sqlite();
        let result: DbResult<()> = write_tx(&mut conn, |c| {
            diesel::sql_query("INSERT INTO t VALUES (1)").execute(c)?;
            Err(DbError::Conflict(Conflict::TagName))
        });
        assert!(matches!(result, Err(DbError::Conflict(Conflict::TagName))));
        assert_eq!(count(&mut conn), 0);
        assert!(!conn.is_broken_for_test());
    }

    #[test]
    fn a_successful_write_commits() {
        let mut conn = sqlite();
        write_tx(&mut conn, |c| {
            diesel::sql_query("INSERT INTO t VALUES (1)").execute(c)?;
            Ok(())
        })
        .unwrap();
        assert_eq!(read(&mut conn, |c| Ok(count(c))).unwrap(), 1);
    }

    #[test]
    fn concurrent_sqlite_writers_queue_instead_of_failing_with_database_is_locked() {
        // No busy_timeout on these connections: without the in-process queue, every writer
        // that finds the lock taken fails at once with "database is locked".
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("writers.db");
        let path = path.to_str().unwrap();
        let mut setup = DbConnection::Sqlite(SqliteConnection::establish(path).unwrap());
        diesel::sql_query("CREATE TABLE t (v BIGINT NOT NULL)")
            .execute(&mut setup)
            .unwrap();
        const WRITERS: i64 = 8;
        const WRITES_EACH: i64 = 25;
        let gate = WriteGate::default();
        std::thread::scope(|scope| {
            for writer in 0..WRITERS {
                let gate = gate.clone();
                scope.spawn(move || {
                    let mut conn = DbConnection::Sqlite(SqliteConnection::establish(path).unwrap());
                    for i in 0..WRITES_EACH {
                        with_write_gate(&gate, || {
                            write_tx(&mut conn, |c| {
                                diesel::sql_query(format!(
                                    "INSERT INTO t VALUES ({})",
                                    writer * 1000 + i
                                ))
                                .execute(c)?;
                                Ok(())
                            })
                        })
                        .unwrap_or_else(|e| panic!("writer {writer} write {i} failed: {e:?}"));
                    }
                });
            }
        });
        assert_eq!(count(&mut setup), WRITERS * WRITES_EACH);
    }

    #[test]
    fn writers_of_different_databases_do_not_queue_behind_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let open = |name: &str| {
            let path = dir.path().join(name);
            let mut conn =
                DbConnection::Sqlite(SqliteConnection::establish(path.to_str().unwrap()).unwrap());
            diesel::sql_query("CREATE TABLE t (v BIGINT NOT NULL)")
                .execute(&mut conn)
                .unwrap();
            conn
        };
        let (mut first, mut second) = (open("first.db"), open("second.db"));
        let (first_gate, second_gate) = (WriteGate::default(), WriteGate::default());
        let (entered, wait_for_entry) = std::sync::mpsc::channel();
        let (release, wait_for_release) = std::sync::mpsc::channel::<()>();
        let (done, wait_for_done) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            // Holds the first database's gate until told to let go.
            let (first, first_gate) = (&mut first, &first_gate);
            scope.spawn(move || {
                with_write_gate(first_gate, || {
                    write_tx(first, |_| {
                        entered.send(()).unwrap();
                        wait_for_release.recv().unwrap();
                        Ok(())
                    })
                })
                .unwrap();
            });
            wait_for_entry.recv().unwrap();
            let (second, second_gate) = (&mut second, &second_gate);
            scope.spawn(move || {
                let written = with_write_gate(second_gate, || {
                    write_tx(second, |c| {
                        diesel::sql_query("INSERT INTO t VALUES (1)").execute(c)?;
                        Ok(())
                    })
                });
                done.send(written.is_ok()).unwrap();
            });
            // With one gate for the process, this write would wait for the release below.
            let second_written = wait_for_done.recv_timeout(std::time::Duration::from_secs(30));
            release.send(()).unwrap();
            assert_eq!(
                second_written,
                Ok(true),
                "the second database's writer was held"
            );
        });
        assert_eq!(count(&mut second), 1);
    }

    /// Where `SOUNDING_TEST_POSTGRES_URL` names a server (skipped otherwise, as the engine
    /// tests are): only the worker's transactions give up waiting for the WAL flush, and only
    /// for themselves.
    #[test]
    fn only_worker_transactions_commit_asynchronously_on_postgres() {
        let Some(url) = std::env::var("SOUNDING_TEST_POSTGRES_URL")
            .ok()
            .filter(|url| !url.is_empty())
        else {
            eprintln!("SKIPPED: SOUNDING_TEST_POSTGRES_URL is not set");
            return;
        };
        let mut conn = DbConnection::Postgresql(diesel::PgConnection::establish(&url).unwrap());
        fn setting(conn: &mut DbConnection) -> DbResult<String> {
            #[derive(diesel::QueryableByName)]
            struct Setting {
                #[diesel(sql_type = diesel::sql_types::Text)]
                value: String,
            }
            Ok(
                diesel::sql_query("SELECT current_setting('synchronous_commit') AS value")
                    .get_result::<Setting>(conn)?
                    .value,
            )
        }
        // The throwaway test cluster turns it off server-wide for speed: this session asks
        // for durable commits, as a production server has them by default.
        diesel::sql_query("SET synchronous_commit = on")
            .execute(&mut conn)
            .unwrap();
        let durable = setting(&mut conn).unwrap();
        assert_eq!(durable, "on");
        assert_eq!(worker_tx(&mut conn, setting).unwrap(), "off");
        assert_eq!(write_tx(&mut conn, setting).unwrap(), durable);
        assert_eq!(setting(&mut conn).unwrap(), durable);
    }

    impl DbConnection {
        fn is_broken_for_test(&mut self) -> bool {
            diesel::r2d2::R2D2Connection::is_broken(self)
        }
    }
}
