//! Online backup and offline restore of a SQLite database (`sounding backup --to`,
//! `sounding restore --from`). PostgreSQL has its own tools (`pg_dump`, `pg_restore`).
//!
//! A backup is `VACUUM INTO`: one read transaction, so the copy is a consistent snapshot of
//! every commit before it began, taken while servers keep writing (WAL readers do not block
//! writers). It is written beside the target as a private (0600) file and renamed into place
//! only once complete and on disk.
//!
//! A server holds a shared advisory lock ([`ServingLock`]) on its database file; a restore
//! takes it exclusively, so it refuses while any server on this machine has the file open.

use std::{
    fs::{self, File, OpenOptions, TryLockError},
    io,
    path::{Path, PathBuf},
};

use diesel::{sql_types::Text, Connection, QueryableByName, RunQueryDsl, SqliteConnection};

use crate::connection::Target;

/// What a backup or restore copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyReport {
    /// The copy's size on disk, in bytes.
    pub bytes: u64,
    /// Teams in the copy.
    pub teams: i64,
    /// Feedback items in the copy.
    pub feedback: i64,
    /// The newest migration applied to the copy (`2026-12-02-000001`, …).
    pub schema_version: String,
}

/// Why a backup or restore did nothing.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The database is PostgreSQL: use its own tools.
    #[error("the database is PostgreSQL: use pg_dump to back it up and pg_restore (or psql) to restore it")]
    Postgres,
    /// The database URL is not one this store opens.
    #[error("{0}")]
    Url(String),
    /// The database to back up does not exist.
    #[error("there is no database at {0}")]
    Missing(PathBuf),
    /// The target of a backup already exists; nothing is overwritten.
    #[error("{0} already exists: choose a new file name (nothing was overwritten)")]
    Exists(PathBuf),
    /// A server holds the database a restore would replace.
    #[error("a server is using {0}: stop it before restoring")]
    InUse(PathBuf),
    /// The file to restore is not a Sounding SQLite database in good order.
    #[error("{path} is not a Sounding backup: {why}")]
    NotABackup {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The file system refused.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// SQLite refused.
    #[error("{0}")]
    Sqlite(String),
}

fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> CopyError {
    let what = what.into();
    move |source| CopyError::Io { what, source }
}

fn sqlite_error(context: &str) -> impl FnOnce(diesel::result::Error) -> CopyError + '_ {
    move |e| CopyError::Sqlite(format!("{context}: {e}"))
}

/// The SQLite file `url` names; `Postgres` for PostgreSQL.
fn sqlite_path(url: &str) -> Result<PathBuf, CopyError> {
    match Target::parse(url).map_err(|e| CopyError::Url(e.to_string()))? {
        Target::Sqlite(path) => Ok(PathBuf::from(path)),
        Target::Postgres(_) => Err(CopyError::Postgres),
    }
}

/// Copies the live SQLite database `url` names to `to`, consistently, while servers keep
/// writing. `to` must not exist; the copy is created with mode 0600.
pub fn backup(url: &str, to: &Path) -> Result<CopyReport, CopyError> {
    let source = sqlite_path(url)?;
    if !source.is_file() {
        return Err(CopyError::Missing(source));
    }
    if to.exists() {
        return Err(CopyError::Exists(to.to_path_buf()));
    }
    let partial = partial_path(to);
    // `VACUUM INTO` takes an empty file: made here, so it is private from the start.
    private_file(&partial).map_err(io_error(format!("cannot create {}", partial.display())))?;
    let copied = (|| {
        let mut conn = open(&source)?;
        diesel::sql_query("VACUUM INTO ?")
            .bind::<Text, _>(partial.to_string_lossy())
            .execute(&mut conn)
            .map_err(sqlite_error("the snapshot failed"))?;
        durable_rename(&partial, to)
    })();
    if let Err(e) = copied {
        let _ = fs::remove_file(&partial);
        return Err(e);
    }
    report(to)
}

/// Puts the backup `from` in place of the SQLite database `url` names, which no server may
/// hold. The backup is checked first (a Sounding database, intact); the old database's WAL
/// and shared-memory files are removed with it, so nothing of it leaks into the restored one.
/// The next start applies any migrations newer than the backup's.
pub fn restore(url: &str, from: &Path) -> Result<CopyReport, CopyError> {
    let target = sqlite_path(url)?;
    let checked = report(from).map_err(|e| match e {
        CopyError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound => {
            CopyError::Missing(from.to_path_buf())
        }
        other => other,
    })?;
    // Held until the new file is in place: a server starting meanwhile waits for nothing, but
    // one already running is refused here.
    let _exclusive = if target.exists() {
        let file =
            File::open(&target).map_err(io_error(format!("cannot open {}", target.display())))?;
        match file.try_lock() {
            Ok(()) => Some(file),
            Err(TryLockError::WouldBlock) => return Err(CopyError::InUse(target)),
            Err(TryLockError::Error(e)) => {
                return Err(io_error(format!("cannot lock {}", target.display()))(e))
            }
        }
    } else {
        None
    };
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(io_error(format!("cannot create {}", dir.display())))?;
    }
    let partial = partial_path(&target);
    let copied = (|| {
        let mut out = private_file(&partial)
            .map_err(io_error(format!("cannot create {}", partial.display())))?;
        let mut input =
            File::open(from).map_err(io_error(format!("cannot read {}", from.display())))?;
        io::copy(&mut input, &mut out)
            .map_err(io_error(format!("cannot copy {}", from.display())))?;
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut stale = target.as_os_str().to_owned();
            stale.push(suffix);
            match fs::remove_file(&stale) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(io_error(format!(
                        "cannot remove {}",
                        Path::new(&stale).display()
                    ))(e))
                }
                _ => {}
            }
        }
        durable_rename(&partial, &target)
    })();
    if let Err(e) = copied {
        let _ = fs::remove_file(&partial);
        return Err(e);
    }
    Ok(checked)
}

/// A shared lock on a SQLite database file, held by a server for as long as it runs so that
/// `restore` refuses to replace the file under it. Nothing on PostgreSQL or in memory.
#[derive(Debug)]
pub struct ServingLock(#[allow(dead_code)] Option<File>);

impl ServingLock {
    /// Locks the SQLite file `url` names (shared: several servers may run on one file).
    pub fn take(url: &str) -> io::Result<ServingLock> {
        let Ok(path) = sqlite_path(url) else {
            return Ok(ServingLock(None));
        };
        let file = File::open(path)?;
        file.lock_shared()?;
        Ok(ServingLock(Some(file)))
    }
}

fn partial_path(to: &Path) -> PathBuf {
    let mut name = to.file_name().unwrap_or_default().to_owned();
    name.push(format!(".partial-{}", std::process::id()));
    to.with_file_name(name)
}

fn private_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Flushes `partial` to disk, renames it to `to`, and flushes the directory entry.
fn durable_rename(partial: &Path, to: &Path) -> Result<(), CopyError> {
    File::open(partial)
        .and_then(|f| f.sync_all())
        .map_err(io_error(format!("cannot flush {}", partial.display())))?;
    fs::rename(partial, to).map_err(io_error(format!("cannot rename to {}", to.display())))?;
    if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Not every platform can open a directory; the rename is done either way.
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
    }
    Ok(())
}

fn open(path: &Path) -> Result<SqliteConnection, CopyError> {
    let mut conn = SqliteConnection::establish(&path.to_string_lossy())
        .map_err(|e| CopyError::Sqlite(format!("cannot open {}: {e}", path.display())))?;
    diesel::sql_query("PRAGMA busy_timeout = 10000")
        .execute(&mut conn)
        .map_err(sqlite_error("cannot set the busy timeout"))?;
    Ok(conn)
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct Version {
    #[diesel(sql_type = Text)]
    version: String,
}

#[derive(QueryableByName)]
struct Check {
    #[diesel(sql_type = Text)]
    quick_check: String,
}

/// What the SQLite file at `path` holds, after checking it is an intact Sounding database.
fn report(path: &Path) -> Result<CopyReport, CopyError> {
    let bytes = fs::metadata(path)
        .map_err(io_error(format!("cannot read {}", path.display())))?
        .len();
    let not_a_backup = |why: String| CopyError::NotABackup {
        path: path.to_path_buf(),
        why,
    };
    let mut conn = open(path)?;
    let check = diesel::sql_query("PRAGMA quick_check")
        .load::<Check>(&mut conn)
        .map_err(|e| not_a_backup(e.to_string()))?;
    if check.first().map(|c| c.quick_check.as_str()) != Some("ok") {
        return Err(not_a_backup("SQLite's quick_check found damage".into()));
    }
    let version =
        diesel::sql_query("SELECT MAX(version) AS version FROM __diesel_schema_migrations")
            .load::<Version>(&mut conn)
            .map_err(|_| not_a_backup("it has no Sounding schema".into()))?
            .pop()
            .map(|v| v.version)
            .ok_or_else(|| not_a_backup("it has no Sounding schema".into()))?;
    let mut count = |table: &str| -> Result<i64, CopyError> {
        Ok(
            diesel::sql_query(format!("SELECT COUNT(*) AS n FROM {table}"))
                .load::<Count>(&mut conn)
                .map_err(|_| not_a_backup(format!("it has no {table} table")))?
                .first()
                .map_or(0, |c| c.n),
        )
    };
    let teams = count("teams")?;
    let feedback = count("feedback")?;
    Ok(CopyReport {
        bytes,
        teams,
        feedback,
        schema_version: version,
    })
}
