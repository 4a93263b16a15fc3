//! Migrations: the SQL under `migrations/sqlite` and `migrations/postgres` (same versions, kept
//! in step), embedded in the binary and applied by `DieselStore::migrate`.

use diesel::RunQueryDsl;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

use crate::connection::DbConnection;

pub(crate) const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
pub(crate) const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// Any fixed number: the PostgreSQL advisory lock that lets one instance migrate at a time
/// when several start together.
const MIGRATION_LOCK: i64 = 0x736f_756e_6469_6e67; // "sounding"

pub(crate) fn run(conn: &mut DbConnection) -> Result<Vec<String>, String> {
    let applied: Vec<String> = match conn {
        DbConnection::Sqlite(inner) => inner
            .run_pending_migrations(SQLITE)
            .map(|versions| versions.iter().map(ToString::to_string).collect())
            .map_err(|e| e.to_string()),
        DbConnection::Postgresql(inner) => {
            diesel::sql_query(format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))
                .execute(inner)
                .map_err(|e| e.to_string())?;
            let applied = inner
                .run_pending_migrations(POSTGRES)
                .map(|versions| versions.iter().map(ToString::to_string).collect())
                .map_err(|e| e.to_string());
            // Released with the session anyway; unlocking early lets a waiting instance go on.
            let _ = diesel::sql_query(format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})"))
                .execute(inner);
            applied
        }
    }?;
    if !applied.is_empty() {
        tracing::info!(versions = ?applied, "database migrated");
    }
    Ok(applied)
}

/// An in-memory SQLite database with every migration and foreign keys off: for unit tests
/// that insert fixture rows by hand, without the rows those reference.
#[cfg(test)]
pub(crate) fn scratch_sqlite() -> DbConnection {
    use diesel::{connection::SimpleConnection, Connection, SqliteConnection};
    let mut conn = DbConnection::Sqlite(SqliteConnection::establish(":memory:").unwrap());
    run(&mut conn).unwrap();
    conn.batch_execute("PRAGMA foreign_keys = OFF").unwrap();
    conn
}

#[cfg(test)]
mod tests {
    use diesel::migration::MigrationSource;
    use diesel::{pg::Pg, sqlite::Sqlite};

    use super::*;

    #[test]
    fn both_engines_have_the_same_migrations() {
        let sqlite: Vec<String> = MigrationSource::<Sqlite>::migrations(&SQLITE)
            .unwrap()
            .iter()
            .map(|m| m.name().to_string())
            .collect();
        let postgres: Vec<String> = MigrationSource::<Pg>::migrations(&POSTGRES)
            .unwrap()
            .iter()
            .map(|m| m.name().to_string())
            .collect();
        assert!(!sqlite.is_empty());
        assert_eq!(sqlite, postgres);
    }
}
