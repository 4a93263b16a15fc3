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

    /// A database from before the unique (team, target, event) index may hold duplicate
    /// subscriptions: the migration keeps the oldest of each group, ends the others' pending
    /// deliveries `failed` as unsubscribing would, and leaves every other row alone.
    #[test]
    fn the_unique_target_migration_merges_existing_duplicates_into_the_oldest() {
        use diesel::{
            connection::SimpleConnection, sql_types::Text, Connection, QueryableByName,
            SqliteConnection,
        };

        #[derive(QueryableByName, Debug, PartialEq)]
        struct Row {
            #[diesel(sql_type = Text)]
            id: String,
            #[diesel(sql_type = Text)]
            state: String,
        }
        let mut conn = SqliteConnection::establish(":memory:").unwrap();
        loop {
            let pending = conn.pending_migrations(SQLITE).unwrap();
            if pending[0]
                .name()
                .to_string()
                .ends_with("_webhook_unique_target")
            {
                break;
            }
            conn.run_next_migration(SQLITE).unwrap();
        }
        // Foreign keys off: no teams needed.
        conn.batch_execute(
            "PRAGMA foreign_keys = OFF;
             INSERT INTO webhooks (id, team_id, target_url, event, secret, created_at) VALUES
               ('b', 't', 'https://x/', 'new_feedback', 's-b', '2026-01-01 02:00:00'),
               ('a', 't', 'https://x/', 'new_feedback', 's-a', '2026-01-01 01:00:00'),
               ('c', 't', 'https://x/', 'new_feedback', 's-c', '2026-01-01 02:00:00'),
               ('d', 't', 'https://x/', 'topics.create', 's-d', '2026-01-01 03:00:00'),
               ('e', 'u', 'https://x/', 'new_feedback', 's-e', '2026-01-01 03:00:00');
             INSERT INTO webhook_deliveries (id, team_id, webhook_id, event_id, event,
               target_url, status, next_attempt_at, lease_owner, lease_until, created_at,
               updated_at) VALUES
               ('a1', 't', 'a', 'ev1', 'new_feedback', 'https://x/', 'pending',
                '2026-01-01 04:00:00', NULL, NULL, '2026-01-01 04:00:00', '2026-01-01 04:00:00'),
               ('b1', 't', 'b', 'ev1', 'new_feedback', 'https://x/', 'pending',
                '2026-01-01 04:00:00', 'w', '2026-01-01 05:00:00', '2026-01-01 04:00:00',
                '2026-01-01 04:00:00'),
               ('b0', 't', 'b', 'ev0', 'new_feedback', 'https://x/', 'delivered',
                NULL, NULL, NULL, '2026-01-01 03:00:00', '2026-01-01 03:00:00'),
               ('c1', 't', 'c', 'ev1', 'new_feedback', 'https://x/', 'pending',
                '2026-01-01 04:00:00', NULL, NULL, '2026-01-01 04:00:00', '2026-01-01 04:00:00');",
        )
        .unwrap();
        conn.run_pending_migrations(SQLITE).unwrap();

        let rows = |conn: &mut SqliteConnection, sql: &str| {
            diesel::sql_query(sql).load::<Row>(conn).unwrap()
        };
        let row = |id: &str, state: &str| Row {
            id: id.into(),
            state: state.into(),
        };
        assert_eq!(
            rows(
                &mut conn,
                "SELECT id, secret AS state FROM webhooks ORDER BY id"
            ),
            [row("a", "s-a"), row("d", "s-d"), row("e", "s-e")]
        );
        assert_eq!(
            rows(
                &mut conn,
                "SELECT id, status || ' ' || COALESCE(last_error, '-') || ' '
                   || COALESCE(next_attempt_at, '-') || ' ' || COALESCE(lease_owner, '-') AS state
                 FROM webhook_deliveries ORDER BY id"
            ),
            [
                row("a1", "pending - 2026-01-01 04:00:00 -"),
                row("b0", "delivered - - -"),
                row("b1", "failed unsubscribed - -"),
                row("c1", "failed unsubscribed - -"),
            ]
        );
        let again = conn.batch_execute(
            "INSERT INTO webhooks (id, team_id, target_url, event, secret, created_at) VALUES
               ('f', 't', 'https://x/', 'new_feedback', 's-f', '2026-01-02 00:00:00')",
        );
        assert!(
            again.unwrap_err().to_string().contains("UNIQUE"),
            "the index refuses a new duplicate"
        );
    }
}
