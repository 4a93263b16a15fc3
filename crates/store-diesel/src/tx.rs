//! Transactions: `write_tx` for every write and `read` for every read, so each port method
//! commits whole or not at all and sees one consistent state.

use std::sync::{Mutex, PoisonError};

use diesel::connection::{AnsiTransactionManager, TransactionManager};

use crate::{connection::DbConnection, error::DbResult};

/// Writers of this process queue here before SQLite's write lock. SQLite's busy handler only
/// polls with growing sleeps, so under many concurrent writers one could lose the race for
/// longer than `busy_timeout` and fail with "database is locked" (a 503 for a valid request,
/// seen by `cargo xtask bench`); a mutex waits without a deadline and wakes the next writer as
/// soon as the lock is free. `busy_timeout` still covers other processes (the CLI). One gate
/// for all SQLite files of the process: a server has one database, and writes are short.
static SQLITE_WRITERS: Mutex<()> = Mutex::new(());

/// A write. On SQLite `BEGIN IMMEDIATE` takes the write lock up front, so two writers queue
/// instead of one failing when it upgrades a read lock; on PostgreSQL a plain `BEGIN` (READ
/// COMMITTED; row locks and unique indexes do the rest).
pub(crate) fn write_tx<T>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    let _queued = matches!(conn, DbConnection::Sqlite(_))
        // A writer that panicked left no transaction open (its connection is dropped).
        .then(|| {
            SQLITE_WRITERS
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        });
    in_transaction(conn, "BEGIN IMMEDIATE", "BEGIN", f)
}

/// A read: one snapshot for all its statements. `READ ONLY` on PostgreSQL makes a stray write
/// in a read path fail loudly.
pub(crate) fn read<T>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    in_transaction(conn, "BEGIN DEFERRED", "BEGIN READ ONLY", f)
}

fn in_transaction<T>(
    conn: &mut DbConnection,
    sqlite_begin: &str,
    postgres_begin: &str,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    // Begun on the inner connection, whose transaction state the `DbConnection` shares, so the
    // commit and rollback below (and the pool's broken-connection check) see it.
    match conn {
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
            Err(DbError::Conflict("test"))
        });
        assert!(matches!(result, Err(DbError::Conflict("test"))));
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
        std::thread::scope(|scope| {
            for writer in 0..WRITERS {
                scope.spawn(move || {
                    let mut conn = DbConnection::Sqlite(SqliteConnection::establish(path).unwrap());
                    for i in 0..WRITES_EACH {
                        write_tx(&mut conn, |c| {
                            diesel::sql_query(format!(
                                "INSERT INTO t VALUES ({})",
                                writer * 1000 + i
                            ))
                            .execute(c)?;
                            Ok(())
                        })
                        .unwrap_or_else(|e| panic!("writer {writer} write {i} failed: {e:?}"));
                    }
                });
            }
        });
        assert_eq!(count(&mut setup), WRITERS * WRITES_EACH);
    }

    impl DbConnection {
        fn is_broken_for_test(&mut self) -> bool {
            diesel::r2d2::R2D2Connection::is_broken(self)
        }
    }
}
