//! Migrations: the SQL under `migrations/` (one folder per migration, for both engines; its
//! README says how an engine gets its own lines or files), embedded in the binary by build.rs
//! and applied by `DieselStore::migrate`.

use std::fmt;

use diesel::backend::Backend;
use diesel::connection::BoxableConnection;
use diesel::migration::{
    self, Migration, MigrationMetadata, MigrationName, MigrationSource, MigrationVersion,
};
use diesel::RunQueryDsl;
use diesel_migrations::MigrationHarness;

use crate::connection::{DbConnection, Engine};

/// One migration folder's files, as build.rs found them.
struct MigrationFiles {
    name: &'static str,
    up: Option<&'static str>,
    down: Option<&'static str>,
    up_sqlite: Option<&'static str>,
    down_sqlite: Option<&'static str>,
    up_postgres: Option<&'static str>,
    down_postgres: Option<&'static str>,
}

/// Every migration, oldest first.
const ALL: &[MigrationFiles] = include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// The migrations as one engine runs them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Migrations(Engine);

pub(crate) const SQLITE: Migrations = Migrations(Engine::Sqlite);
pub(crate) const POSTGRES: Migrations = Migrations(Engine::Postgres);

impl<DB: Backend> MigrationSource<DB> for Migrations {
    fn migrations(&self) -> migration::Result<Vec<Box<dyn Migration<DB>>>> {
        Ok(ALL
            .iter()
            .map(|files| Box::new(EngineMigration::new(files, self.0)) as Box<dyn Migration<DB>>)
            .collect())
    }
}

/// One migration's SQL for one engine.
struct EngineMigration {
    name: &'static str,
    up: String,
    down: String,
}

impl EngineMigration {
    /// `up` is the shared part, then the engine's own; `down` undoes them in reverse order.
    fn new(files: &MigrationFiles, engine: Engine) -> Self {
        let (up_own, down_own) = match engine {
            Engine::Sqlite => (files.up_sqlite, files.down_sqlite),
            Engine::Postgres => (files.up_postgres, files.down_postgres),
        };
        let join = |parts: [Option<&str>; 2]| {
            parts
                .into_iter()
                .flatten()
                .map(|sql| lines_for(sql, engine))
                .collect::<Vec<_>>()
                .join("\n")
        };
        EngineMigration {
            name: files.name,
            up: join([files.up, up_own]),
            down: join([down_own, files.down]),
        }
    }

    fn execute<DB: Backend>(
        &self,
        conn: &mut dyn BoxableConnection<DB>,
        sql: &str,
    ) -> migration::Result<()> {
        conn.batch_execute(sql)
            .map_err(|e| format!("migration {}: {e}", self.name).into())
    }
}

/// `sql` without the lines marked for the other engine (`-- sqlite only`, `-- postgres only`).
fn lines_for(sql: &str, engine: Engine) -> String {
    let other = match engine {
        Engine::Sqlite => "-- postgres only",
        Engine::Postgres => "-- sqlite only",
    };
    sql.lines()
        .filter(|line| !line.trim_end().ends_with(other))
        .collect::<Vec<_>>()
        .join("\n")
}

impl<DB: Backend> Migration<DB> for EngineMigration {
    fn run(&self, conn: &mut dyn BoxableConnection<DB>) -> migration::Result<()> {
        self.execute(conn, &self.up)
    }

    fn revert(&self, conn: &mut dyn BoxableConnection<DB>) -> migration::Result<()> {
        self.execute(conn, &self.down)
    }

    fn metadata(&self) -> &dyn MigrationMetadata {
        self
    }

    fn name(&self) -> &dyn MigrationName {
        self
    }
}

/// Each runs in a transaction (the trait's default).
impl MigrationMetadata for EngineMigration {}

impl MigrationName for EngineMigration {
    /// diesel's own rule, kept so databases migrated before keep their versions: the name up
    /// to the first `_`, without the dashes.
    fn version(&self) -> MigrationVersion<'_> {
        let date = self.name.split('_').next().unwrap_or(self.name);
        MigrationVersion::from(date.replace('-', ""))
    }
}

impl fmt::Display for EngineMigration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

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
    use diesel::sqlite::Sqlite;

    use super::*;

    #[test]
    fn each_engine_gets_its_own_lines_and_files_after_the_shared_ones() {
        let initial = EngineMigration::new(&ALL[0], Engine::Sqlite);
        assert!(initial.up.contains("INTEGER PRIMARY KEY AUTOINCREMENT"));
        assert!(!initial.up.contains("GENERATED ALWAYS AS IDENTITY"));
        let initial = EngineMigration::new(&ALL[0], Engine::Postgres);
        assert!(initial.up.contains("GENERATED ALWAYS AS IDENTITY"));
        assert!(!initial.up.contains("AUTOINCREMENT"));

        let counts = ALL
            .iter()
            .find(|files| files.name.ends_with("_public_counts"))
            .unwrap();
        let sqlite = EngineMigration::new(counts, Engine::Sqlite);
        let postgres = EngineMigration::new(counts, Engine::Postgres);
        for migration in [&sqlite, &postgres] {
            let table = migration.up.find("CREATE TABLE").unwrap();
            let trigger = migration.up.find("CREATE TRIGGER").unwrap();
            assert!(table < trigger, "the shared part runs first");
            let dropped_trigger = migration.down.find("DROP TRIGGER").unwrap();
            let dropped_table = migration.down.find("DROP TABLE").unwrap();
            assert!(
                dropped_trigger < dropped_table,
                "down undoes in reverse order"
            );
        }
        assert!(postgres.up.contains("plpgsql") && !sqlite.up.contains("plpgsql"));
    }

    #[test]
    fn versions_are_diesels_so_migrated_databases_keep_theirs() {
        let versions: Vec<String> = MigrationSource::<Sqlite>::migrations(&SQLITE)
            .unwrap()
            .iter()
            .map(|m| m.name().version().to_string())
            .collect();
        assert_eq!(versions[0], "20261122000001");
        let mut sorted = versions.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(versions, sorted, "oldest first, each once");
    }

    /// Every `down` undoes its `up`: all reverted, the database holds only diesel's own table,
    /// and every migration applies again.
    #[test]
    fn every_migration_reverts_and_applies_again() {
        use diesel::{sql_types::Text, Connection, QueryableByName, SqliteConnection};

        #[derive(QueryableByName)]
        struct Name {
            #[diesel(sql_type = Text)]
            name: String,
        }
        let objects = |conn: &mut SqliteConnection| -> Vec<String> {
            diesel::sql_query(
                "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
            )
            .load::<Name>(conn)
            .unwrap()
            .into_iter()
            .map(|row| row.name)
            .collect()
        };
        let mut conn = SqliteConnection::establish(":memory:").unwrap();
        let applied = conn.run_pending_migrations(SQLITE).unwrap().len();
        let migrated = objects(&mut conn);
        assert_eq!(conn.revert_all_migrations(SQLITE).unwrap().len(), applied);
        assert_eq!(objects(&mut conn), ["__diesel_schema_migrations"]);
        conn.run_pending_migrations(SQLITE).unwrap();
        assert_eq!(objects(&mut conn), migrated);
    }

    /// An in-memory SQLite database with every migration before the one whose name ends with
    /// `suffix`: the database that migration meets in the field.
    fn migrated_up_to(suffix: &str) -> diesel::SqliteConnection {
        use diesel::Connection;
        let mut conn = diesel::SqliteConnection::establish(":memory:").unwrap();
        while !conn.pending_migrations(SQLITE).unwrap()[0]
            .name()
            .to_string()
            .ends_with(suffix)
        {
            conn.run_next_migration(SQLITE).unwrap();
        }
        conn
    }

    /// A database from before `feedback_board_counts` gets each board's unarchived items
    /// (published or not) counted into it; items on no board and archived ones are left out.
    #[test]
    fn the_board_counts_migration_counts_the_items_already_there() {
        use diesel::{
            connection::SimpleConnection,
            sql_types::{BigInt, Text},
            QueryableByName,
        };

        #[derive(QueryableByName, Debug, PartialEq)]
        struct Row {
            #[diesel(sql_type = Text)]
            board_id: String,
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let mut conn = migrated_up_to("_board_counts");
        // Foreign keys off: no team or creators needed.
        let item = |id: &str, board: &str, published: &str, archived: &str| {
            format!(
                "INSERT INTO feedback (id, team_id, board_id, url_id, title, status, priority, \
                 creator_id, search_text, published_at, archived_at, created_at, updated_at) \
                 VALUES ('{id}', 't', {board}, '{id}', 'x', 'in_review', 'medium', 's', 'x', \
                 {published}, {archived}, '2026-01-01 00:00:00', '2026-01-01 00:00:00');"
            )
        };
        let at = "'2026-01-01 00:00:00'";
        conn.batch_execute(&format!(
            "PRAGMA foreign_keys = OFF;
             INSERT INTO feedback_boards (id, team_id, name, slug, position, created_at,
               updated_at) VALUES
               ('a', 't', 'A', 'a', 1, {at}, {at}),
               ('b', 't', 'B', 'b', 2, {at}, {at}),
               ('c', 't', 'C', 'c', 3, {at}, {at});
             {}{}{}{}{}",
            item("1", "'a'", at, "NULL"),
            item("2", "'a'", "NULL", "NULL"),
            item("3", "'a'", at, at),
            item("4", "'b'", at, at),
            item("5", "NULL", at, "NULL"),
        ))
        .unwrap();
        conn.run_next_migration(SQLITE).unwrap();
        let rows =
            diesel::sql_query("SELECT board_id, n FROM feedback_board_counts ORDER BY board_id")
                .load::<Row>(&mut conn)
                .unwrap();
        assert_eq!(
            rows,
            [Row {
                board_id: "a".into(),
                n: 2
            }],
            "a draft counts, archived items and items on no board do not; no row for 0"
        );
    }

    /// A database from before `feedback_counts` gets its items counted into it by team, board
    /// (`''` for none), status and listing (0 listed, 1 held, 2 archived).
    #[test]
    fn the_feedback_counts_migration_counts_the_items_already_there() {
        use diesel::{
            connection::SimpleConnection,
            sql_types::{BigInt, SmallInt, Text},
            QueryableByName,
        };

        #[derive(QueryableByName, Debug, PartialEq)]
        struct Row {
            #[diesel(sql_type = Text)]
            team_id: String,
            #[diesel(sql_type = Text)]
            board_id: String,
            #[diesel(sql_type = Text)]
            status: String,
            #[diesel(sql_type = SmallInt)]
            listing: i16,
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let mut conn = migrated_up_to("_feedback_counts");
        let at = "'2026-01-01 00:00:00'";
        // Foreign keys off: no teams, boards or creators needed.
        let item =
            |id: &str, team: &str, board: &str, status: &str, published: &str, archived: &str| {
                format!(
                "INSERT INTO feedback (id, team_id, board_id, url_id, title, status, priority, \
                 creator_id, search_text, published_at, archived_at, created_at, updated_at) \
                 VALUES ('{id}', '{team}', {board}, '{id}', 'x', '{status}', 'medium', 's', 'x', \
                 {published}, {archived}, {at}, {at});"
            )
            };
        conn.batch_execute(&format!(
            "PRAGMA foreign_keys = OFF; {}{}{}{}{}{}",
            item("1", "t", "'a'", "planned", at, "NULL"),
            item("2", "t", "'a'", "planned", at, "NULL"),
            item("3", "t", "'a'", "planned", "NULL", "NULL"),
            item("4", "t", "'a'", "closed", at, at),
            item("5", "t", "NULL", "planned", at, "NULL"),
            item("6", "u", "NULL", "planned", at, "NULL"),
        ))
        .unwrap();
        conn.run_next_migration(SQLITE).unwrap();
        let rows = diesel::sql_query(
            "SELECT team_id, board_id, status, listing, n FROM feedback_counts \
             ORDER BY team_id, board_id, status, listing",
        )
        .load::<Row>(&mut conn)
        .unwrap();
        let row = |team: &str, board: &str, status: &str, listing: i16, n: i64| Row {
            team_id: team.into(),
            board_id: board.into(),
            status: status.into(),
            listing,
            n,
        };
        assert_eq!(
            rows,
            [
                row("t", "", "planned", 0, 1),
                row("t", "a", "closed", 2, 1),
                row("t", "a", "planned", 0, 2),
                row("t", "a", "planned", 1, 1),
                row("u", "", "planned", 0, 1),
            ]
        );
    }

    /// A database from before `subscriber_counts` gets each team's live subscribers counted
    /// into it; deleted ones are left out.
    #[test]
    fn the_subscriber_counts_migration_counts_the_subscribers_already_there() {
        use diesel::{
            connection::SimpleConnection,
            sql_types::{BigInt, Text},
            QueryableByName,
        };

        #[derive(QueryableByName, Debug, PartialEq)]
        struct Row {
            #[diesel(sql_type = Text)]
            team_id: String,
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let mut conn = migrated_up_to("_subscriber_counts");
        let at = "'2026-01-01 00:00:00'";
        let subscriber = |id: &str, team: &str, deleted: &str| {
            format!(
                "INSERT INTO subscribers (id, team_id, name, email, source, created_at, \
                 last_updated, deleted_at) VALUES ('{id}', '{team}', 'x', '{id}@x.io', 'api', \
                 {at}, {at}, {deleted});"
            )
        };
        conn.batch_execute(&format!(
            "PRAGMA foreign_keys = OFF; {}{}{}{}",
            subscriber("1", "t", "NULL"),
            subscriber("2", "t", "NULL"),
            subscriber("3", "t", at),
            subscriber("4", "u", at),
        ))
        .unwrap();
        conn.run_next_migration(SQLITE).unwrap();
        let rows = diesel::sql_query("SELECT team_id, n FROM subscriber_counts ORDER BY team_id")
            .load::<Row>(&mut conn)
            .unwrap();
        assert_eq!(
            rows,
            [Row {
                team_id: "t".into(),
                n: 2
            }],
            "deleted subscribers do not count; no row for 0"
        );
    }

    /// A database from before `topic_counts` gets its topics counted into it by stage and
    /// whether they are published, with the stage's roadmap and team.
    #[test]
    fn the_topic_counts_migration_counts_the_topics_already_there() {
        use diesel::{
            connection::SimpleConnection,
            sql_types::{BigInt, SmallInt, Text},
            QueryableByName,
        };

        #[derive(QueryableByName, Debug, PartialEq)]
        struct Row {
            #[diesel(sql_type = Text)]
            stage_id: String,
            #[diesel(sql_type = SmallInt)]
            published: i16,
            #[diesel(sql_type = Text)]
            roadmap_id: String,
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let mut conn = migrated_up_to("_topic_counts");
        let at = "'2026-01-01 00:00:00'";
        let topic = |id: &str, roadmap: &str, stage: &str, published: &str| {
            format!(
                "INSERT INTO topics (id, team_id, roadmap_id, stage_id, url_id, title, title_key, \
                 description, subscriber_id, published_at, created_at, updated_at) VALUES \
                 ('{id}', 't', '{roadmap}', '{stage}', '{id}', 'T', '{id}', '', 'p', {published}, \
                 {at}, {at});"
            )
        };
        // Foreign keys off: no teams, roadmaps or stages needed.
        conn.batch_execute(&format!(
            "PRAGMA foreign_keys = OFF; {}{}{}{}",
            topic("1", "r", "s", at),
            topic("2", "r", "s", at),
            topic("3", "r", "s", "NULL"),
            topic("4", "q", "z", at),
        ))
        .unwrap();
        conn.run_next_migration(SQLITE).unwrap();
        let rows = diesel::sql_query(
            "SELECT stage_id, published, roadmap_id, n FROM topic_counts \
             ORDER BY stage_id, published",
        )
        .load::<Row>(&mut conn)
        .unwrap();
        let row = |stage: &str, published: i16, roadmap: &str, n: i64| Row {
            stage_id: stage.into(),
            published,
            roadmap_id: roadmap.into(),
            n,
        };
        assert_eq!(
            rows,
            [
                row("s", 0, "r", 1),
                row("s", 1, "r", 2),
                row("z", 1, "q", 1)
            ]
        );
    }

    /// A database from before `private_comment_count` gets each item's private comments
    /// counted into it; public ones are left out.
    #[test]
    fn the_private_comment_counts_migration_counts_the_private_comments_already_there() {
        use diesel::{
            connection::SimpleConnection,
            sql_types::{BigInt, Text},
            QueryableByName,
        };

        #[derive(QueryableByName, Debug, PartialEq)]
        struct Row {
            #[diesel(sql_type = Text)]
            id: String,
            #[diesel(sql_type = BigInt)]
            private_comment_count: i64,
        }
        let mut conn = migrated_up_to("_private_comment_counts");
        let at = "'2026-01-01 00:00:00'";
        let item = |id: &str| {
            format!(
                "INSERT INTO feedback (id, team_id, board_id, url_id, title, status, priority, \
                 creator_id, search_text, published_at, archived_at, created_at, updated_at) \
                 VALUES ('{id}', 't', NULL, '{id}', 'x', 'in_review', 'medium', 's', 'x', \
                 {at}, NULL, {at}, {at});"
            )
        };
        let comment = |id: &str, item: &str, private: bool| {
            format!(
                "INSERT INTO feedback_comments (id, team_id, feedback_id, subscriber_id, text, \
                 is_private, created_at, updated_at) VALUES ('{id}', 't', '{item}', 's', 'x', \
                 {private}, {at}, {at});"
            )
        };
        // Foreign keys off: no team or authors needed.
        conn.batch_execute(&format!(
            "PRAGMA foreign_keys = OFF; {}{}{}{}{}",
            item("a"),
            item("b"),
            comment("1", "a", true),
            comment("2", "a", true),
            comment("3", "a", false),
        ))
        .unwrap();
        conn.run_next_migration(SQLITE).unwrap();
        let rows = diesel::sql_query("SELECT id, private_comment_count FROM feedback ORDER BY id")
            .load::<Row>(&mut conn)
            .unwrap();
        let row = |id: &str, private_comment_count: i64| Row {
            id: id.into(),
            private_comment_count,
        };
        assert_eq!(rows, [row("a", 2), row("b", 0)]);
    }

    /// A database from before `root_comment_count` gets each topic's top-level comments
    /// counted into it, tombstones included; replies are not counted.
    #[test]
    fn the_topic_root_counts_migration_counts_the_roots_already_there() {
        use diesel::{
            connection::SimpleConnection,
            sql_types::{BigInt, Text},
            QueryableByName,
        };

        #[derive(QueryableByName, Debug, PartialEq)]
        struct Row {
            #[diesel(sql_type = Text)]
            id: String,
            #[diesel(sql_type = BigInt)]
            root_comment_count: i64,
        }
        let mut conn = migrated_up_to("_topic_root_counts");
        let at = "'2026-01-01 00:00:00'";
        let topic = |id: &str| {
            format!(
                "INSERT INTO topics (id, team_id, roadmap_id, stage_id, url_id, title, title_key, \
                 description, subscriber_id, created_at, updated_at) VALUES \
                 ('{id}', 't', 'r', 's', '{id}', 'T', '{id}', '', 'p', {at}, {at});"
            )
        };
        let comment = |id: &str, topic: &str, parent: Option<&str>, deleted: &str| {
            let root = parent.unwrap_or(id);
            let parent = parent.map_or("NULL".to_owned(), |p| format!("'{p}'"));
            format!(
                "INSERT INTO topic_comments (id, team_id, topic_id, creator_id, parent_id, \
                 root_id, text, source, created_at, updated_at, deleted_at) VALUES \
                 ('{id}', 't', '{topic}', 'p', {parent}, '{root}', 'x', 'api', {at}, {at}, \
                 {deleted});"
            )
        };
        conn.batch_execute(&format!(
            "PRAGMA foreign_keys = OFF; {}{}{}{}{}{}",
            topic("a"),
            topic("b"),
            comment("1", "a", None, "NULL"),
            comment("2", "a", None, at),
            comment("3", "a", Some("2"), "NULL"),
            comment("4", "a", Some("3"), "NULL"),
        ))
        .unwrap();
        conn.run_next_migration(SQLITE).unwrap();
        let rows = diesel::sql_query("SELECT id, root_comment_count FROM topics ORDER BY id")
            .load::<Row>(&mut conn)
            .unwrap();
        assert_eq!(
            rows,
            [
                Row {
                    id: "a".into(),
                    root_comment_count: 2
                },
                Row {
                    id: "b".into(),
                    root_comment_count: 0
                }
            ],
            "a tombstone at the top counts, replies do not"
        );
    }

    /// A database from before the unique (team, target, event) index may hold duplicate
    /// subscriptions: the migration keeps the oldest of each group, ends the others' pending
    /// deliveries `failed` as unsubscribing would, and leaves every other row alone.
    #[test]
    fn the_unique_target_migration_merges_existing_duplicates_into_the_oldest() {
        use diesel::{
            connection::SimpleConnection, sql_types::Text, QueryableByName, SqliteConnection,
        };

        #[derive(QueryableByName, Debug, PartialEq)]
        struct Row {
            #[diesel(sql_type = Text)]
            id: String,
            #[diesel(sql_type = Text)]
            state: String,
        }
        let mut conn = migrated_up_to("_webhook_unique_target");
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
