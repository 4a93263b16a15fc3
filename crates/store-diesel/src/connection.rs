//! Connections: the one `DbConnection` over SQLite and PostgreSQL, the database URL that picks
//! between them at run time, the r2d2 pool and the PRAGMAs every SQLite connection gets.

use std::{
    fmt,
    ops::{Deref, DerefMut},
    path::Path,
    time::{Duration, Instant},
};

use diesel::{
    connection::SimpleConnection,
    r2d2::{self, CustomizeConnection, HandleError, ManageConnection, Pool, R2D2Connection},
    Connection, PgConnection, SqliteConnection,
};

use crate::error::ConnectError;

/// Every query is written once against this type; diesel renders it for the live backend.
/// The few statements that differ per engine match on the variant (see `per_backend!`).
#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    Postgresql(PgConnection),
    Sqlite(SqliteConnection),
}

/// The backend every query is written against, for the few fragments written by hand.
pub(crate) type Backend = multi_connection_impl::MultiBackend;

/// Runs the same statement on whichever inner connection is live. For the statements the
/// common `MultiBackend` cannot express (`ON CONFLICT`, `FOR UPDATE`) but both engines can.
macro_rules! per_backend {
    ($conn:expr, |$inner:ident| $body:expr) => {
        match $conn {
            $crate::connection::DbConnection::Postgresql($inner) => $body,
            $crate::connection::DbConnection::Sqlite($inner) => $body,
        }
    };
}
pub(crate) use per_backend;

/// The database engine behind a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    /// SQLite, in a file (`sqlite://PATH`): the embedded default.
    Sqlite,
    /// PostgreSQL (`postgres://…`): for several instances on one database.
    Postgres,
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Engine::Sqlite => "sqlite",
            Engine::Postgres => "postgres",
        })
    }
}

/// Pool settings; the defaults suit one small server process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolOptions {
    /// Most connections open at once (at least 1).
    pub max_connections: u32,
    /// How long to wait for a connection, when opening the pool and on every checkout.
    pub connect_timeout: Duration,
    /// About how many bytes of answers the read cache may keep (`read_cache`); 0 turns it
    /// off. On PostgreSQL the cache keeps a connection of its own (`coherence`).
    pub read_cache_bytes: u64,
    /// Testing aid only, never set in production: SQLite's `PRAGMA max_page_count` on every
    /// connection, so a test can fill the database and see `StoreError::Full` without a full
    /// disk. `None` (the default) leaves SQLite's own limit.
    #[doc(hidden)]
    pub sqlite_max_page_count: Option<u64>,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            max_connections: 10,
            connect_timeout: Duration::from_secs(5),
            read_cache_bytes: crate::read_cache::DEFAULT_BUDGET_BYTES,
            sqlite_max_page_count: None,
        }
    }
}

/// A parsed database URL: which engine, and what to hand its driver.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A file path (relative to the working directory unless it starts with `/`).
    Sqlite(String),
    /// The URL as given; libpq parses it.
    Postgres(String),
}

impl fmt::Debug for Target {
    // A PostgreSQL URL may carry a password, so only the engine is shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            Target::Postgres(_) => f.write_str("Postgres(..)"),
        }
    }
}

impl Target {
    /// `sqlite://path`, `sqlite:///absolute/path`, `sqlite:path`, `postgres://…`,
    /// `postgresql://…`. The scheme is case-insensitive.
    pub(crate) fn parse(url: &str) -> Result<Self, ConnectError> {
        let url = url.trim();
        let Some((scheme, rest)) = url.split_once(':') else {
            return Err(ConnectError::MissingScheme);
        };
        let is_scheme = !scheme.is_empty()
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if !is_scheme {
            return Err(ConnectError::MissingScheme);
        }
        match scheme.to_ascii_lowercase().as_str() {
            "sqlite" => {
                let path = rest.strip_prefix("//").unwrap_or(rest);
                if path.is_empty() {
                    Err(ConnectError::MissingSqlitePath)
                } else if path.starts_with(":memory:") || path.contains("mode=memory") {
                    Err(ConnectError::SqliteInMemory)
                } else {
                    Ok(Target::Sqlite(path.to_owned()))
                }
            }
            "postgres" | "postgresql" => Ok(Target::Postgres(url.to_owned())),
            other => Err(ConnectError::UnsupportedScheme(other.to_owned())),
        }
    }

    pub(crate) fn engine(&self) -> Engine {
        match self {
            Target::Sqlite(_) => Engine::Sqlite,
            Target::Postgres(_) => Engine::Postgres,
        }
    }
}

/// Opens the inner connection the target names (rather than letting `DbConnection::establish`
/// try every driver in turn).
#[derive(Debug)]
pub(crate) struct Manager {
    target: Target,
    access: Access,
}

/// How long after its last use a pooled connection is handed out again without a ping. A
/// PostgreSQL connection is a socket that may have died while idle (server restart, idle
/// timeout, network), so r2d2 pings it on checkout; but under load each connection comes back
/// within milliseconds, and a `SELECT 1` round trip per checkout was 2–4 of a request's
/// 8–18 statements (docs/benchmarks.md). One that dies inside this window fails its request
/// once: diesel then marks it broken (libpq no longer knows its transaction status) and the
/// pool drops it on return (`has_broken`).
const TRUSTED_AFTER_USE: Duration = Duration::from_secs(1);

/// A pooled connection and when it was last given back, so the pool can trust it without
/// asking the database.
pub(crate) struct Pooled {
    conn: DbConnection,
    last_used: Instant,
}

impl Deref for Pooled {
    type Target = DbConnection;

    fn deref(&self) -> &DbConnection {
        &self.conn
    }
}

impl DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut DbConnection {
        &mut self.conn
    }
}

impl ManageConnection for Manager {
    type Connection = Pooled;
    type Error = r2d2::Error;

    fn connect(&self) -> Result<Pooled, r2d2::Error> {
        let conn = match &self.target {
            Target::Sqlite(path) => SqliteConnection::establish(path).map(DbConnection::Sqlite),
            Target::Postgres(url) => PgConnection::establish(url).and_then(|mut conn| {
                conn.batch_execute(POSTGRES_SESSION)
                    .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
                if self.access == Access::Bookkeeping {
                    conn.batch_execute(POSTGRES_BOOKKEEPING_SESSION)
                        .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
                }
                Ok(DbConnection::Postgresql(conn))
            }),
        }
        .map_err(r2d2::Error::ConnectionError)?;
        Ok(Pooled {
            conn,
            last_used: Instant::now(),
        })
    }

    fn is_valid(&self, pooled: &mut Pooled) -> Result<(), r2d2::Error> {
        if pooled.last_used.elapsed() < TRUSTED_AFTER_USE {
            return Ok(());
        }
        pooled.conn.ping().map_err(r2d2::Error::QueryError)
    }

    fn has_broken(&self, pooled: &mut Pooled) -> bool {
        pooled.last_used = Instant::now();
        // A transaction left open or failed, or a connection that died: discarded.
        pooled.conn.is_broken()
    }
}

/// Applied once to each new PostgreSQL connection. Every statement is prepared once per
/// connection and kept (diesel's statement cache, `RawSql`), but with the default
/// `plan_cache_mode = auto` PostgreSQL still plans each execution again for its parameters:
/// that planning was 72 % of PostgreSQL's CPU on a list of 20 items (docs/benchmarks.md,
/// "ninth round"). Every statement here reaches its rows through an index chosen by the
/// team, item or board key it is given, so the plan made once without the values is the one
/// each value would get.
const POSTGRES_SESSION: &str = "SET plan_cache_mode = force_generic_plan";

/// Applied after `POSTGRES_SESSION` to each connection of a bookkeeping pool (the webhook
/// worker's: fan-out, leases, attempt records; never a client's write). Its commits do not
/// wait for the WAL flush: a durable commit costs an fsync, and a pass makes several in a
/// row, which on a busy disk held deliveries ~2 s behind their events (`cargo xtask bench`,
/// S7). Set once per session rather than per transaction, so that a bookkeeping write of one
/// statement needs neither `BEGIN` nor `COMMIT` around a `SET LOCAL`. A crash of PostgreSQL
/// itself may lose the last such commits; each loss only repeats work: the event is fanned
/// out again (same transaction as its deliveries), or the delivery is sent again once its
/// lease expires — delivery is at least once. Visibility to other sessions is unchanged.
const POSTGRES_BOOKKEEPING_SESSION: &str = "SET synchronous_commit = off";

/// Applied once to each new SQLite connection. `busy_timeout` comes first so that switching
/// to WAL waits for a concurrent opener instead of failing; `foreign_keys` is off by default
/// in SQLite and is what makes `ON DELETE CASCADE` work. `journal_size_limit` truncates the
/// WAL file back to 64 MiB whenever a checkpoint lets it start over: without it the file keeps
/// the size of its largest burst (590–720 MB after the bench's seed), since SQLite reuses the
/// file from its start rather than shrinking it. After these, `temp_store` is set
/// (`statement_journal_store`) and `wal_autocheckpoint` is moved to
/// `checkpoint::BACKSTOP_PAGES`: checkpoints run on a thread of their own.
const SQLITE_PRAGMAS: &str = "PRAGMA busy_timeout = 5000;
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA foreign_keys = ON;
PRAGMA journal_size_limit = 67108864;";

/// The build option (`.cargo/config.toml`) that keeps a statement journal in memory up to
/// 124 KiB, in one piece. Not more: past it SQLite writes the piece to a temporary file in one
/// call, and its Unix layer writes at most 128 KiB a call (at 1 MiB the spill wrote nothing and
/// the write failed with `SQLITE_FULL`; `a_statement_journal_past_the_threshold_spills`).
const STATEMENT_JOURNAL_SPILL: &str = "STMTJRNL_SPILL=126976";

/// The `temp_store` that keeps the statement journal of savepoints in memory: each write of
/// the writer's group runs in one (`writer`), and a vote's journals about 70 KiB of pages.
///
/// With `temp_store = MEMORY` SQLite keeps that journal in memory whatever its size, but in
/// pieces of 1 KiB, each its own `malloc` and `free`: 69 of each per vote, 9 % of a vote's
/// instructions (docs/benchmarks.md, twenty-sixth round). Otherwise it keeps the journal in
/// one piece up to the build's spill threshold and writes it to a temporary file beyond; 64 KiB
/// by default, which votes passed, and that spill was a third of the writer's time. So:
/// the default store where the build raised the threshold (ours does, to 124 KiB), else
/// `MEMORY`. A write that journals more (one changing many existing pages at once) spills.
fn statement_journal_store(conn: &mut SqliteConnection) -> diesel::QueryResult<&'static str> {
    let raised = built_with(conn, STATEMENT_JOURNAL_SPILL)?;
    Ok(if raised { "DEFAULT" } else { "MEMORY" })
}

/// Whether the SQLite behind `conn` was built with `option` (as `PRAGMA compile_options`
/// lists it, without the `SQLITE_` prefix).
fn built_with(conn: &mut SqliteConnection, option: &str) -> diesel::QueryResult<bool> {
    use diesel::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Used {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        used: i32,
    }
    Ok(
        diesel::sql_query("SELECT sqlite_compileoption_used(?) AS used")
            .bind::<diesel::sql_types::Text, _>(option)
            .get_result::<Used>(conn)?
            .used
            == 1,
    )
}

#[derive(Debug)]
struct SqlitePragmas {
    access: Access,
    /// `PoolOptions::sqlite_max_page_count` (tests only).
    max_page_count: Option<u64>,
}

impl CustomizeConnection<Pooled, r2d2::Error> for SqlitePragmas {
    fn on_acquire(&self, conn: &mut Pooled) -> Result<(), r2d2::Error> {
        if let DbConnection::Sqlite(inner) = &mut conn.conn {
            inner
                .batch_execute(SQLITE_PRAGMAS)
                .map_err(r2d2::Error::QueryError)?;
            let temp_store = statement_journal_store(inner).map_err(r2d2::Error::QueryError)?;
            inner
                .batch_execute(&format!("PRAGMA temp_store = {temp_store}"))
                .map_err(r2d2::Error::QueryError)?;
            inner
                .batch_execute(&format!(
                    "PRAGMA wal_autocheckpoint = {}",
                    crate::checkpoint::BACKSTOP_PAGES
                ))
                .map_err(r2d2::Error::QueryError)?;
            if let Some(pages) = self.max_page_count {
                inner
                    .batch_execute(&format!("PRAGMA max_page_count = {pages}"))
                    .map_err(r2d2::Error::QueryError)?;
            }
            if self.access == Access::ReadOnly {
                inner
                    .batch_execute("PRAGMA query_only = ON")
                    .map_err(r2d2::Error::QueryError)?;
            }
        }
        Ok(())
    }
}

/// What a pool's connections may do. A read-only SQLite pool serves the reads run on the
/// caller's thread (`DieselStore::run_read`): `query_only` makes a write that strays there
/// fail at once instead of queueing for the write lock on an event loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    ReadWrite,
    ReadOnly,
    /// Read-write, for the webhook worker's bookkeeping only: on PostgreSQL its sessions
    /// commit without waiting for the WAL flush (`POSTGRES_BOOKKEEPING_SESSION`).
    Bookkeeping,
}

/// Sends the pool's background connection failures to `tracing` (r2d2 would use `log`).
#[derive(Debug)]
struct TracingErrors;

impl HandleError<r2d2::Error> for TracingErrors {
    fn handle_error(&self, error: r2d2::Error) {
        tracing::warn!(%error, "database connection failed");
    }
}

pub(crate) type DbPool = Pool<Manager>;

pub(crate) fn build_pool(
    target: Target,
    options: &PoolOptions,
    access: Access,
) -> Result<DbPool, ConnectError> {
    if options.max_connections == 0 {
        return Err(ConnectError::EmptyPool);
    }
    let engine = target.engine();
    if let Target::Sqlite(path) = &target {
        private_files::prepare(Path::new(path))?;
    }
    let builder = Pool::builder()
        .max_size(options.max_connections)
        // One connection proves the database answers; the rest open on demand.
        .min_idle(Some(1))
        .connection_timeout(options.connect_timeout)
        .error_handler(Box::new(TracingErrors));
    let builder = match engine {
        // A SQLite connection is a file handle in this process: it cannot go stale the way a
        // socket can, so r2d2's `SELECT 1` on every checkout would only cost a statement per
        // store call. A connection left broken (failed rollback) is still dropped on return.
        Engine::Sqlite => builder
            .connection_customizer(Box::new(SqlitePragmas {
                access,
                max_page_count: options.sqlite_max_page_count,
            }))
            .test_on_check_out(false),
        Engine::Postgres => builder,
    };
    builder
        .build(Manager { target, access })
        .map_err(|e| ConnectError::Open {
            engine,
            reason: e.to_string(),
        })
}

/// The SQLite files hold secrets (the token-signing secret in `settings`, every webhook's
/// signing secret, subscribers' e-mails), so only the server's own account may read them,
/// whatever the umask: missing parent directories are created 0700 and a missing database
/// file 0600 before SQLite opens it. SQLite gives the `-wal`, `-shm` and `-journal` files it
/// creates the database file's mode (its unix VFS copies it), so they are 0600 too. Files
/// already there that group or others may read (made by an earlier version) are tightened to
/// 0600, with a warning; a directory already there is left as it is.
#[cfg(unix)]
mod private_files {
    use std::{
        fs::{DirBuilder, OpenOptions, Permissions},
        os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt},
        path::{Path, PathBuf},
    };

    use crate::error::ConnectError;

    pub(crate) const DIRECTORY_MODE: u32 = 0o700;
    pub(crate) const FILE_MODE: u32 = 0o600;

    pub(crate) fn prepare(path: &Path) -> Result<(), ConnectError> {
        if let Some(dir) = path.parent() {
            if !dir.as_os_str().is_empty() && !dir.exists() {
                DirBuilder::new()
                    .recursive(true)
                    .mode(DIRECTORY_MODE)
                    .create(dir)
                    .map_err(|source| ConnectError::CreateDirectory {
                        path: dir.to_path_buf(),
                        source,
                    })?;
            }
        }
        // Creates the file only when missing (never truncates); the mode applies only then.
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(FILE_MODE)
            .open(path)
            .map_err(|source| ConnectError::CreateFile {
                path: path.to_path_buf(),
                source,
            })?;
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut file = path.as_os_str().to_owned();
            file.push(suffix);
            tighten(&PathBuf::from(file));
        }
        Ok(())
    }

    /// Takes group and other access away from an existing file. A failure (the file belongs
    /// to another account) is logged, not fatal: SQLite may still open it.
    fn tighten(path: &Path) {
        let Ok(metadata) = std::fs::metadata(path) else {
            return;
        };
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 == 0 {
            return;
        }
        match std::fs::set_permissions(path, Permissions::from_mode(FILE_MODE)) {
            Ok(()) => tracing::warn!(
                path = %path.display(),
                from = %format!("{mode:o}"),
                "database file was readable by other accounts; its mode is now 600"
            ),
            Err(error) => tracing::warn!(
                path = %path.display(),
                mode = %format!("{mode:o}"),
                %error,
                "database file is readable by other accounts and its mode could not be changed"
            ),
        }
    }
}

/// Elsewhere only the missing directories are created; SQLite creates the file.
#[cfg(not(unix))]
mod private_files {
    use std::path::Path;

    use crate::error::ConnectError;

    pub(crate) fn prepare(path: &Path) -> Result<(), ConnectError> {
        match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() && !dir.exists() => {
                std::fs::create_dir_all(dir).map_err(|source| ConnectError::CreateDirectory {
                    path: dir.to_path_buf(),
                    source,
                })
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(url: &str) -> Result<Target, String> {
        Target::parse(url).map_err(|e| e.to_string())
    }

    #[test]
    fn sqlite_urls_name_a_file() {
        assert_eq!(
            parse("sqlite://data/sounding.db"),
            Ok(Target::Sqlite("data/sounding.db".into()))
        );
        assert_eq!(
            parse("sqlite:///var/lib/sounding/db.sqlite"),
            Ok(Target::Sqlite("/var/lib/sounding/db.sqlite".into()))
        );
        assert_eq!(
            parse("sqlite:sounding.db"),
            Ok(Target::Sqlite("sounding.db".into()))
        );
        assert_eq!(parse(" SQLite://x.db "), Ok(Target::Sqlite("x.db".into())));
    }

    #[test]
    fn postgres_urls_are_passed_through_whole() {
        for url in [
            "postgres://u:p@localhost:5432/sounding",
            "postgresql://localhost/sounding?sslmode=require",
        ] {
            let target = Target::parse(url).unwrap();
            assert_eq!(target, Target::Postgres(url.into()));
            assert_eq!(target.engine(), Engine::Postgres);
        }
    }

    #[test]
    fn other_urls_are_refused_with_a_hint() {
        assert_eq!(
            parse("mysql://localhost/db").unwrap_err(),
            "unsupported database URL scheme 'mysql': use sqlite://path or postgres://..."
        );
        for url in ["sounding.db", "", "/var/lib/sounding.db", "://x"] {
            assert!(
                parse(url).unwrap_err().contains("has no scheme"),
                "{url:?} accepted"
            );
        }
        assert!(parse("sqlite://").unwrap_err().contains("names no file"));
        assert!(parse("sqlite::memory:").unwrap_err().contains("in-memory"));
    }

    #[test]
    fn debug_output_hides_postgres_credentials() {
        let target = Target::parse("postgres://u:secret@h/db").unwrap();
        assert!(!format!("{target:?}").contains("secret"));
    }

    #[cfg(unix)]
    fn mode(path: &std::path::Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        meta.permissions().mode() & 0o777
    }

    /// The test process's umask is whatever started it (022 from most shells); the black-box
    /// test in tests/tests/cli.rs sets 022 explicitly.
    #[cfg(unix)]
    #[test]
    fn sqlite_files_and_created_directories_are_private() {
        use diesel::RunQueryDsl;
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("var").join("sounding");
        let db = data.join("s.db");
        let pool = build_pool(
            Target::Sqlite(db.display().to_string()),
            &PoolOptions::default(),
            Access::ReadWrite,
        )
        .unwrap();
        let mut conn = pool.get().unwrap();
        diesel::sql_query("CREATE TABLE t (x TEXT)")
            .execute(&mut **conn)
            .unwrap();
        diesel::sql_query("INSERT INTO t VALUES ('secret')")
            .execute(&mut **conn)
            .unwrap();
        assert_eq!(mode(&dir.path().join("var")), 0o700);
        assert_eq!(mode(&data), 0o700);
        for file in ["s.db", "s.db-wal", "s.db-shm"] {
            assert_eq!(mode(&data.join(file)), 0o600, "{file}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn existing_sqlite_files_open_to_others_are_tightened() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("old.db");
        for file in ["old.db", "old.db-wal", "old.db-shm"] {
            let path = dir.path().join(file);
            std::fs::write(&path, b"").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        let _pool = build_pool(
            Target::Sqlite(db.display().to_string()),
            &PoolOptions::default(),
            Access::ReadWrite,
        )
        .unwrap();
        for file in ["old.db", "old.db-wal", "old.db-shm"] {
            assert_eq!(mode(&dir.path().join(file)), 0o600, "{file}");
        }
        // The directory was there already: left alone.
        assert_ne!(mode(dir.path()), 0);
    }

    /// Two connections of a new read-write pool, taken at once so that both are fresh: what a
    /// connection is given on connect shows on each.
    fn two_new_connections(target: Target) -> [r2d2::PooledConnection<Manager>; 2] {
        let pool = build_pool(target, &PoolOptions::default(), Access::ReadWrite).unwrap();
        [pool.get().unwrap(), pool.get().unwrap()]
    }

    /// A savepoint whose statement journal outgrows what is kept in memory (every page of a
    /// 2 MB table changed at once) spills it to a temporary file, and both the release and a
    /// rollback still work. At a threshold SQLite cannot write in one call it failed with
    /// `SQLITE_FULL` ("database or disk is full").
    #[test]
    fn a_statement_journal_past_the_threshold_spills() {
        use diesel::{
            connection::SimpleConnection, sql_types::BigInt, QueryableByName, RunQueryDsl,
        };

        #[derive(QueryableByName)]
        struct Total {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.db").display().to_string();
        let [mut conn, _] = two_new_connections(Target::Sqlite(path));
        let total = |conn: &mut DbConnection| {
            diesel::sql_query("SELECT SUM(n) AS n FROM t")
                .get_result::<Total>(conn)
                .unwrap()
                .n
        };
        conn.batch_execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, n BIGINT NOT NULL, pad TEXT NOT NULL);
             WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 2000)
             INSERT INTO t SELECT i, 1, printf('%.1000c', 'x') FROM k;",
        )
        .unwrap();
        conn.batch_execute("BEGIN; SAVEPOINT a; UPDATE t SET n = n + 1; RELEASE a; COMMIT;")
            .unwrap();
        assert_eq!(total(&mut conn), 4000);
        conn.batch_execute(
            "BEGIN; SAVEPOINT a; UPDATE t SET n = n + 1; ROLLBACK TO a; RELEASE a; COMMIT;",
        )
        .unwrap();
        assert_eq!(
            total(&mut conn),
            4000,
            "rolled back from the spilled journal"
        );
    }

    /// Where `SOUNDING_TEST_POSTGRES_URL` names a server: each pooled PostgreSQL connection
    /// keeps the plan of a prepared statement instead of planning it on every execution.
    #[test]
    fn every_postgres_connection_keeps_generic_plans() {
        use diesel::{sql_types::Text, QueryableByName, RunQueryDsl};

        #[derive(QueryableByName)]
        struct Setting {
            #[diesel(sql_type = Text)]
            value: String,
        }
        let Some(url) = sounding_tests::pg::require_postgres() else {
            return;
        };
        let [mut first, mut second] = two_new_connections(Target::Postgres(url));
        for conn in [&mut **first, &mut **second] {
            let setting: Setting =
                diesel::sql_query("SELECT current_setting('plan_cache_mode') AS value")
                    .get_result(conn)
                    .unwrap();
            assert_eq!(setting.value, "force_generic_plan");
        }
    }

    /// Where `SOUNDING_TEST_POSTGRES_URL` names a server: only a bookkeeping pool's sessions
    /// give up waiting for the WAL flush; a read-write pool's keep the server's setting
    /// (durable by default; the test cluster turns it off server-wide, so what is compared is
    /// where each session's value comes from).
    #[test]
    fn only_bookkeeping_sessions_commit_asynchronously_on_postgres() {
        use diesel::{sql_types::Text, QueryableByName, RunQueryDsl};

        #[derive(QueryableByName, Debug, PartialEq)]
        struct Setting {
            #[diesel(sql_type = Text)]
            setting: String,
            #[diesel(sql_type = Text)]
            source: String,
        }
        let Some(url) = sounding_tests::pg::require_postgres() else {
            return;
        };
        let synchronous_commit = |access| {
            let pool = build_pool(
                Target::Postgres(url.clone()),
                &PoolOptions::default(),
                access,
            )
            .unwrap();
            let mut conn = pool.get().unwrap();
            diesel::sql_query(
                "SELECT setting, source FROM pg_settings WHERE name = 'synchronous_commit'",
            )
            .get_result::<Setting>(&mut **conn)
            .unwrap()
        };
        assert_eq!(
            synchronous_commit(Access::Bookkeeping),
            Setting {
                setting: "off".into(),
                source: "session".into()
            }
        );
        assert_ne!(synchronous_commit(Access::ReadWrite).source, "session");
    }

    #[test]
    fn every_sqlite_connection_gets_the_pragmas() {
        use diesel::{sql_types::Text, QueryableByName, RunQueryDsl};

        #[derive(QueryableByName)]
        struct Pragma {
            #[diesel(sql_type = Text)]
            value: String,
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.db").display().to_string();
        let [mut first, mut second] = two_new_connections(Target::Sqlite(path));
        for conn in [&mut **first, &mut **second] {
            // Each pragma's table-valued function names its column; busy_timeout's is `timeout`.
            let mut pragma = |name: &str| {
                let column = if name == "busy_timeout" {
                    "timeout"
                } else {
                    name
                };
                diesel::sql_query(format!(
                    "SELECT CAST({column} AS TEXT) AS value FROM pragma_{name}"
                ))
                .get_result::<Pragma>(conn)
                .unwrap()
                .value
            };
            assert_eq!(pragma("journal_mode"), "wal");
            assert_eq!(pragma("synchronous"), "1", "NORMAL");
            assert_eq!(pragma("foreign_keys"), "1");
            assert_eq!(pragma("busy_timeout"), "5000");
            assert_eq!(pragma("journal_size_limit"), "67108864");
            assert_eq!(
                pragma("temp_store"),
                "0",
                "DEFAULT: the statement journal in one piece"
            );
            // No table-valued function for this one.
            #[derive(diesel::QueryableByName)]
            struct Autocheckpoint {
                #[diesel(sql_type = diesel::sql_types::BigInt)]
                wal_autocheckpoint: i64,
            }
            let autocheckpoint = diesel::sql_query("PRAGMA wal_autocheckpoint")
                .get_result::<Autocheckpoint>(conn)
                .unwrap();
            assert_eq!(
                autocheckpoint.wal_autocheckpoint,
                i64::from(crate::checkpoint::BACKSTOP_PAGES)
            );
        }
    }

    /// The bundled SQLite is built as `.cargo/config.toml` says (docs/storage.md, "Prepared
    /// statements" and "Connections"). Without the query planner stability guarantee it
    /// re-prepares a cached statement every time a value bound to its `LIMIT` changes; in its
    /// default serialized mode every call into it takes its connection's mutex, and with memory
    /// statistics on every allocation takes a global one.
    #[test]
    fn the_bundled_sqlite_is_built_with_our_options() {
        let mut conn = SqliteConnection::establish(":memory:").unwrap();
        let mut used = |option: &str| built_with(&mut conn, option).unwrap();
        assert!(used("ENABLE_QPSG"), "plans ignore bound values");
        assert!(
            used("THREADSAFE=2"),
            "multi-thread mode, no mutex per connection"
        );
        assert!(used("DEFAULT_MEMSTATUS=0"), "no memory statistics");
        assert!(used("OMIT_SHARED_CACHE"), "no shared cache");
        assert!(
            !used("ENABLE_MEMORY_MANAGEMENT"),
            "a page cache per connection, without a mutex"
        );
        assert!(
            used(STATEMENT_JOURNAL_SPILL),
            "statement journals in memory, in one piece, up to 124 KiB"
        );
    }

    #[test]
    fn engines_print_their_names() {
        assert_eq!(Engine::Sqlite.to_string(), "sqlite");
        assert_eq!(Engine::Postgres.to_string(), "postgres");
    }

    /// A `SELECT 1` that counts the passes which render it to SQL.
    #[derive(diesel::query_builder::QueryId)]
    struct CountedSelect {
        renders: std::rc::Rc<std::cell::Cell<usize>>,
    }

    impl diesel::query_builder::Query for CountedSelect {
        type SqlType = diesel::sql_types::Integer;
    }

    impl diesel::query_builder::QueryFragment<multi_connection_impl::MultiBackend> for CountedSelect {
        fn walk_ast<'b>(
            &'b self,
            mut pass: diesel::query_builder::AstPass<'_, 'b, multi_connection_impl::MultiBackend>,
        ) -> diesel::QueryResult<()> {
            use diesel::internal::derives::multiconnection::AstPassHelper;
            // Only a to-SQL pass converts its query builder.
            let _ = pass
                .reborrow()
                .cast_database::<multi_connection_impl::MultiBackend>(
                    |collector| collector,
                    |builder| {
                        self.renders.set(self.renders.get() + 1);
                        builder
                    },
                    |backend| backend,
                    |lookup| lookup,
                );
            pass.push_sql("SELECT 1");
            Ok(())
        }
    }

    impl diesel::RunQueryDsl<DbConnection> for CountedSelect {}

    /// The patched `#[derive(MultiConnection)]` (crates/vendor/diesel_derives/PATCHED.md): a
    /// cached statement is rendered to SQL once, when it is prepared, not on every run.
    #[test]
    fn a_cached_statement_is_rendered_to_sql_once() {
        use diesel::RunQueryDsl;

        let mut conn = DbConnection::Sqlite(SqliteConnection::establish(":memory:").unwrap());
        let renders = std::rc::Rc::new(std::cell::Cell::new(0));
        for _ in 0..3 {
            let one: i32 = CountedSelect {
                renders: renders.clone(),
            }
            .get_result(&mut conn)
            .unwrap();
            assert_eq!(one, 1);
        }
        assert_eq!(
            renders.get(),
            1,
            "rendered on every run, not only when prepared"
        );
    }
}
