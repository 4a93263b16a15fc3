//! Online backup and offline restore of a SQLite database (`sounding backup --to`,
//! `sounding restore --from`). PostgreSQL has its own tools (`pg_dump`, `pg_restore`).
//!
//! A backup is `VACUUM INTO`: one read transaction, so the copy is a consistent snapshot of
//! every commit before it began, taken while servers keep writing (WAL readers do not block
//! writers). It is written beside the target as a private (0600) file and renamed into place
//! only once complete and on disk.
//!
//! Every process that opens a SQLite database (a server, an admin command, a backup) holds a
//! shared advisory lock ([`ServingLock`]) on its `<file>.lock` beside it, taken before the
//! database is opened; a restore takes it exclusively, so it refuses while any of them runs,
//! and they refuse to start while a restore runs. The lock file is never replaced.

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
    /// A restore is replacing the database.
    #[error("a restore of {0} is in progress: start again once it is done")]
    Restoring(PathBuf),
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

/// Puts the backup `from` in place of the SQLite database `url` names, which no process may
/// hold. The copy is made from `from` by SQLite (so a WAL beside it counts too), flushed and
/// checked (`quick_check`, Sounding's schema) before anything of the old database is touched;
/// it takes the old file's owner and mode. The old database and its WAL and shared-memory
/// files are then moved aside (`<file>.before-restore-<unix seconds>`, returned), never
/// deleted, and the copy renamed into place. The next start applies newer migrations.
pub fn restore(url: &str, from: &Path) -> Result<(CopyReport, Vec<PathBuf>), CopyError> {
    let target = sqlite_path(url)?;
    if !from.is_file() {
        return Err(CopyError::Missing(from.to_path_buf()));
    }
    let lock = lock_file(&target)?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Err(CopyError::InUse(target)),
        Err(TryLockError::Error(e)) => {
            return Err(io_error(format!("cannot lock {}", target.display()))(e))
        }
    }
    let partial = partial_path(&target);
    private_file(&partial).map_err(io_error(format!("cannot create {}", partial.display())))?;
    let checked = (|| {
        let mut conn = open(from).map_err(|e| not_a_backup(from, e.to_string()))?;
        diesel::sql_query("VACUUM INTO ?")
            .bind::<Text, _>(partial.to_string_lossy())
            .execute(&mut conn)
            .map_err(|e| not_a_backup(from, e.to_string()))?;
        drop(conn);
        let report = report(&partial).map_err(|e| match e {
            CopyError::NotABackup { why, .. } => not_a_backup(from, why),
            other => other,
        })?;
        if target.exists() {
            take_ownership(&target, &partial)?;
        }
        File::open(&partial)
            .and_then(|f| f.sync_all())
            .map_err(io_error(format!("cannot flush {}", partial.display())))?;
        Ok(report)
    })();
    let report = match checked {
        Ok(report) => report,
        Err(e) => {
            let _ = fs::remove_file(&partial);
            return Err(e);
        }
    };
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut moved = Vec::new();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let file = with_suffix(&target, suffix);
        if !file.exists() {
            continue;
        }
        let aside = with_suffix(&target, &format!(".before-restore-{stamp}{suffix}"));
        if let Err(e) = fs::rename(&file, &aside) {
            // Put back what was moved: the old database stays whole.
            for (from, to) in moved.iter().rev() {
                let _ = fs::rename(to, from);
            }
            let _ = fs::remove_file(&partial);
            return Err(io_error(format!("cannot move {} aside", file.display()))(e));
        }
        moved.push((file, aside));
    }
    if let Err(e) = durable_rename(&partial, &target) {
        for (from, to) in moved.iter().rev() {
            let _ = fs::rename(to, from);
        }
        let _ = fs::remove_file(&partial);
        return Err(e);
    }
    Ok((report, moved.into_iter().map(|(_, aside)| aside).collect()))
}

fn not_a_backup(path: &Path, why: String) -> CopyError {
    CopyError::NotABackup {
        path: path.to_path_buf(),
        why,
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Gives `partial` the owner, group and mode of `existing`, so a restore run by root leaves a
/// database the server's account can still open.
#[cfg(unix)]
fn take_ownership(existing: &Path, partial: &Path) -> Result<(), CopyError> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let old =
        fs::metadata(existing).map_err(io_error(format!("cannot read {}", existing.display())))?;
    let new =
        fs::metadata(partial).map_err(io_error(format!("cannot read {}", partial.display())))?;
    if (old.uid(), old.gid()) != (new.uid(), new.gid()) {
        std::os::unix::fs::chown(partial, Some(old.uid()), Some(old.gid())).map_err(io_error(
            format!(
                "cannot give the restored database the owner of {} (run the restore as that \
                 account, or as root)",
                existing.display()
            ),
        ))?;
    }
    fs::set_permissions(partial, fs::Permissions::from_mode(old.mode() & 0o777)).map_err(io_error(
        format!("cannot set the mode of {}", partial.display()),
    ))
}

#[cfg(not(unix))]
fn take_ownership(_existing: &Path, _partial: &Path) -> Result<(), CopyError> {
    Ok(())
}

/// The database's `<file>.lock`, created (0600, with its directories) when missing.
fn lock_file(database: &Path) -> Result<File, CopyError> {
    let path = with_suffix(database, ".lock");
    if let Some(dir) = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && !d.exists())
    {
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder
            .create(dir)
            .map_err(io_error(format!("cannot create {}", dir.display())))?;
    }
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
        .open(&path)
        .map_err(io_error(format!("cannot open {}", path.display())))
}

/// A shared lock on a SQLite database's `<file>.lock`, held by every process that opens the
/// database (for as long as it has it open) so that `restore` refuses to replace the file
/// under it. Nothing on PostgreSQL or in memory.
#[derive(Debug)]
pub struct ServingLock(#[allow(dead_code)] Option<File>);

impl ServingLock {
    /// Takes the lock for the SQLite database `url` names (shared: several processes may use
    /// one file), before the database is opened; refused while a restore runs.
    pub fn take(url: &str) -> Result<ServingLock, CopyError> {
        let Ok(path) = sqlite_path(url) else {
            return Ok(ServingLock(None));
        };
        let file = lock_file(&path)?;
        match file.try_lock_shared() {
            Ok(()) => Ok(ServingLock(Some(file))),
            Err(TryLockError::WouldBlock) => Err(CopyError::Restoring(path)),
            Err(TryLockError::Error(e)) => {
                Err(io_error(format!("cannot lock {}", path.display()))(e))
            }
        }
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
