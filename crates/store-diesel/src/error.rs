//! Errors: `ConnectError` for opening and migrating a database (shown to an operator), and the
//! adapter's internal `DbError`, mapped onto the port's `StoreError` at the edge.

use std::path::PathBuf;

use diesel::result::{DatabaseErrorInformation, DatabaseErrorKind, Error as DieselError};
use sounding_domain::{
    ports::{Cause, Conflict, StoreError},
    DomainError,
};

use crate::connection::Engine;

/// Why a database could not be opened or brought up to date. The messages say what to do.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The URL's scheme is neither `sqlite` nor `postgres`/`postgresql` (the scheme given).
    #[error("unsupported database URL scheme '{0}': use sqlite://path or postgres://...")]
    UnsupportedScheme(String),
    #[error(
        "the database URL has no scheme: use sqlite://path/to/file.db or \
         postgres://user:password@host:5432/database"
    )]
    /// The URL has no `scheme://` at all.
    MissingScheme,
    #[error("the SQLite database URL names no file: use sqlite://path/to/file.db")]
    /// `sqlite://` with nothing after it.
    MissingSqlitePath,
    #[error(
        "in-memory SQLite is not supported (every pooled connection would see its own empty \
         database): use sqlite://path/to/file.db"
    )]
    /// `sqlite://:memory:` (or a `mode=memory` URL): refused, see the message.
    SqliteInMemory,
    #[error("the connection pool needs at least one connection (max_connections is 0)")]
    /// `PoolOptions::max_connections` is 0.
    EmptyPool,
    #[error("could not create the directory {path} for the SQLite database: {source}")]
    /// The SQLite file's directory is missing and could not be created.
    CreateDirectory {
        /// The directory.
        path: PathBuf,
        /// Why it could not be created.
        #[source]
        source: std::io::Error,
    },
    #[error("could not create the SQLite database file {path}: {source}")]
    /// The SQLite file is missing and could not be created.
    CreateFile {
        /// The file.
        path: PathBuf,
        /// Why it could not be created.
        #[source]
        source: std::io::Error,
    },
    #[error("could not open the {engine} database: {reason}")]
    /// The first connection failed (server unreachable, bad credentials, unreadable file).
    Open {
        /// The engine the URL named.
        engine: Engine,
        /// The driver's message, passwords never included.
        reason: String,
    },
    #[error("could not migrate the {engine} database: {reason}")]
    /// A pending migration failed; the database is left as the failed migration found it.
    Migration {
        /// The engine migrated.
        engine: Engine,
        /// The migration's error.
        reason: String,
    },
}

/// What can go wrong inside the adapter, before it is told to the use case as a `StoreError`.
#[derive(Debug)]
pub(crate) enum DbError {
    Query(DieselError),
    Pool(diesel::r2d2::PoolError),
    /// A stored value that does not make a domain value (bad id, bad JSON, unknown role).
    Corrupt(String),
    /// A rule the use case can act on; checked explicitly before a write.
    Conflict(Conflict),
    /// A domain rule refused the change, checked on the row as stored.
    Refused(DomainError),
    /// The blocking task died (a panic in a query or conversion).
    Task(String),
}

pub(crate) type DbResult<T> = Result<T, DbError>;

impl From<DieselError> for DbError {
    fn from(e: DieselError) -> Self {
        DbError::Query(e)
    }
}

impl DbError {
    pub(crate) fn corrupt(what: &str, detail: impl std::fmt::Display) -> Self {
        DbError::Corrupt(format!("{what}: {detail}"))
    }

    /// A unique-index violation of any kind: PostgreSQL's answer to two transactions that
    /// insert the same key at once, which callers may retry.
    pub(crate) fn is_unique_violation(&self) -> bool {
        matches!(
            self,
            DbError::Query(DieselError::DatabaseError(
                DatabaseErrorKind::UniqueViolation,
                _
            ))
        )
    }
}

/// The unique indexes that are domain rules: PostgreSQL names the index, SQLite the columns.
const UNIQUE_RULES: &[(&str, &str, Conflict)] = &[
    (
        "teams_subdomain_key",
        "teams.subdomain",
        Conflict::TeamSubdomain,
    ),
    (
        "team_users_team_id_email_key",
        "team_users.team_id, team_users.email",
        Conflict::UserEmail,
    ),
    (
        "feedback_boards_team_id_slug_key",
        "feedback_boards.team_id, feedback_boards.slug",
        Conflict::BoardSlug,
    ),
    (
        "feedback_team_id_url_id_key",
        "feedback.team_id, feedback.url_id",
        Conflict::FeedbackUrlId,
    ),
    (
        "topics_team_id_url_id_key",
        "topics.team_id, topics.url_id",
        Conflict::TopicUrlId,
    ),
    (
        "documents_team_id_url_id_key",
        "documents.team_id, documents.url_id",
        Conflict::DocumentUrlId,
    ),
    (
        "tags_team_id_name_key_key",
        "tags.team_id, tags.name_key",
        Conflict::TagName,
    ),
];

fn conflict_rule(info: &dyn DatabaseErrorInformation) -> Option<Conflict> {
    let constraint = info.constraint_name();
    let sqlite_columns = info.message().strip_prefix("UNIQUE constraint failed: ");
    UNIQUE_RULES
        .iter()
        .find(|(index, columns, _)| constraint == Some(*index) || sqlite_columns == Some(*columns))
        .map(|(_, _, rule)| *rule)
}

/// SQLite reports a writer that waited out `busy_timeout` this way: the database is
/// overloaded, not broken.
fn is_sqlite_busy(info: &dyn DatabaseErrorInformation) -> bool {
    let message = info.message();
    message.contains("database is locked") || message.contains("database is busy")
}

/// The database or its disk is full: SQLite's `SQLITE_FULL` ("database or disk is full", also
/// when `max_page_count` is reached) and PostgreSQL's `53100 disk_full` ("could not extend
/// file …: No space left on device"; diesel gives no SQLSTATE, so the message is matched).
fn is_full(e: &DieselError) -> bool {
    match e {
        DieselError::DatabaseError(_, info) => {
            let message = info.message();
            message.contains("database or disk is full")
                || message.contains("No space left on device")
        }
        DieselError::RollbackErrorOnCommit { commit_error, .. } => is_full(commit_error),
        _ => false,
    }
}

impl From<DbError> for StoreError {
    fn from(e: DbError) -> Self {
        match e {
            DbError::Conflict(rule) => StoreError::Conflict(rule),
            DbError::Refused(domain) => StoreError::Refused(domain),
            DbError::Pool(e) => {
                StoreError::Unavailable(Cause::context("no database connection", e))
            }
            DbError::Corrupt(detail) => {
                StoreError::Failure(format!("unreadable row: {detail}").into())
            }
            DbError::Task(detail) => StoreError::Failure(detail.into()),
            DbError::Query(e) if is_full(&e) => StoreError::Full(Cause::new(e)),
            DbError::Query(e) => match e {
                DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, ref info) => {
                    match conflict_rule(info.as_ref()) {
                        Some(rule) => StoreError::Conflict(rule),
                        None => StoreError::Failure(Cause::new(e)),
                    }
                }
                DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, _) => {
                    StoreError::Unavailable(Cause::new(e))
                }
                DieselError::DatabaseError(_, ref info) if is_sqlite_busy(info.as_ref()) => {
                    StoreError::Unavailable(Cause::new(e))
                }
                other => StoreError::Failure(Cause::new(other)),
            },
        }
    }
}
