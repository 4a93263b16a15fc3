//! Transactions: `write_tx` for every write and `read` for every read, so each port method
//! commits whole or not at all and sees one consistent state.

use diesel::connection::{AnsiTransactionManager, TransactionManager};

use crate::{connection::DbConnection, error::DbResult};

/// A write. On SQLite `BEGIN IMMEDIATE` takes the write lock up front, so two writers queue
/// instead of one failing when it upgrades a read lock; on PostgreSQL a plain `BEGIN` (READ
/// COMMITTED; row locks and unique indexes do the rest). Inside a transaction already open
/// (the SQLite writer's group, `writer`) it is a savepoint, rolled back alone on error.
pub(crate) fn write_tx<T>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    note(Began::WRITE);
    in_transaction(conn, "BEGIN IMMEDIATE", "BEGIN", f)
}

/// A write that is one statement on PostgreSQL (`WITH` steps, `RETURNING`): PostgreSQL
/// commits it alone, whole or not at all, so it needs neither `BEGIN` nor `COMMIT`, two of a
/// short write's few round trips. Noted as a write, for the read cache's announcement.
pub(crate) fn one_statement<C, T>(
    conn: &mut C,
    f: impl FnOnce(&mut C) -> DbResult<T>,
) -> DbResult<T> {
    note(Began::WRITE);
    f(conn)
}

/// The kinds of transaction begun on this thread while `noting_transactions` runs, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Began(u8);

impl Began {
    const WRITE: Began = Began(1);
    const BOOKKEEPING: Began = Began(2);
    const READ: Began = Began(4);

    /// Whether what ran may have changed what the read cache remembers: a `write_tx`, or
    /// statements outside any of these helpers (which nothing vouches for). Reads and the
    /// webhook worker's bookkeeping (outbox, deliveries: never cached) cannot.
    pub(crate) fn may_change_cached_answers(self) -> bool {
        self == Began::default() || self.0 & Began::WRITE.0 != 0
    }
}

thread_local! {
    static BEGAN: std::cell::Cell<Began> = const { std::cell::Cell::new(Began(0)) };
}

fn note(kind: Began) {
    BEGAN.with(|began| began.set(Began(began.get().0 | kind.0)));
}

/// Runs `operation`, and says which kinds of transaction it began on this thread.
pub(crate) fn noting_transactions<T>(operation: impl FnOnce() -> T) -> (T, Began) {
    BEGAN.with(|began| began.set(Began::default()));
    let result = operation();
    (result, BEGAN.with(|began| began.replace(Began::default())))
}

/// A write of the webhook worker's own bookkeeping (fan-out, leases, attempt records), never
/// of a client's request. On PostgreSQL the worker's pool commits it without waiting for the
/// WAL flush (`connection::POSTGRES_BOOKKEEPING_SESSION`). Noted as bookkeeping, which changes
/// no cached answer.
pub(crate) fn worker_tx<T>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    note(Began::BOOKKEEPING);
    in_transaction(conn, "BEGIN IMMEDIATE", "BEGIN", f)
}

/// A bookkeeping write that is one statement on PostgreSQL, committed alone without `BEGIN`
/// and `COMMIT` (as `one_statement`), noted as bookkeeping (as `worker_tx`).
pub(crate) fn worker_statement<C, T>(
    conn: &mut C,
    f: impl FnOnce(&mut C) -> DbResult<T>,
) -> DbResult<T> {
    note(Began::BOOKKEEPING);
    f(conn)
}

/// A bookkeeping write: alone when it is `one_statement` on PostgreSQL (`worker_statement`),
/// else in a transaction (`worker_tx`; SQLite's go through its writer, which needs one).
pub(crate) fn worker_write<T>(
    conn: &mut DbConnection,
    one_statement: bool,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    if one_statement && matches!(conn, DbConnection::Postgresql(_)) {
        worker_statement(conn, f)
    } else {
        worker_tx(conn, f)
    }
}

/// A read: one snapshot for all its statements. `READ ONLY` on PostgreSQL makes a stray write
/// in a read path fail loudly.
pub(crate) fn read<T>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    note(Began::READ);
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

    impl DbConnection {
        fn is_broken_for_test(&mut self) -> bool {
            diesel::r2d2::R2D2Connection::is_broken(self)
        }
    }

    /// A PostgreSQL instance announces after what may have changed a cached answer, and only
    /// then (`DieselStore::run`): reads and the worker's bookkeeping change none.
    #[test]
    fn writes_and_unknown_statements_may_change_cached_answers_reads_and_bookkeeping_cannot() {
        let mut conn = sqlite();
        let mut began = |f: &dyn Fn(&mut DbConnection)| noting_transactions(|| f(&mut conn)).1;
        let write = |conn: &mut DbConnection| write_tx(conn, |_| Ok(())).unwrap();
        let bookkeeping = |conn: &mut DbConnection| worker_tx(conn, |_| Ok(())).unwrap();
        let read_only = |conn: &mut DbConnection| read(conn, |_| Ok(())).unwrap();

        assert!(began(&write).may_change_cached_answers());
        assert!(!began(&bookkeeping).may_change_cached_answers());
        assert!(!began(&read_only).may_change_cached_answers());
        assert!(began(&|conn| {
            read_only(conn);
            bookkeeping(conn);
            write(conn);
        })
        .may_change_cached_answers());
        // Statements outside the helpers: nothing vouches for them.
        assert!(began(&|conn| {
            diesel::sql_query("INSERT INTO t (v) VALUES (1)")
                .execute(conn)
                .unwrap();
        })
        .may_change_cached_answers());
    }
}
