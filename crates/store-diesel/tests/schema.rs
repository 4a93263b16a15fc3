//! The guard on hand-kept SQL: `src/schema.rs` (written by hand) against the tables the
//! migrations really make, on SQLite and on PostgreSQL (column names, nullability and type
//! family). Both engines read one migrations folder, so they cannot drift apart in which
//! migrations they have (build.rs refuses a folder that misses an engine's `up` or `down`). The
//! hand-written lists' `COLUMNS` are checked against their row
//! structs beside them (`raw_sql::assert_columns_read_the_row`).

mod support;

use std::collections::{BTreeMap, BTreeSet};

use diesel::{
    sql_types::{BigInt, Text},
    Connection, PgConnection, QueryableByName, RunQueryDsl, SqliteConnection,
};
use support::{postgres_database, sqlite_database};

/// Tables the migrations make that `schema.rs` leaves out on purpose, and why.
const NOT_IN_SCHEMA: &[(&str, &str)] = &[
    ("__diesel_schema_migrations", "diesel's own bookkeeping"),
    (
        "feedback_public_counts",
        "kept by triggers and read only by hand-written SQL (`RawSql`)",
    ),
    (
        "feedback_board_counts",
        "kept by triggers and read only by hand-written SQL (`KeptCount` in repos/boards.rs)",
    ),
    (
        "feedback_counts",
        "kept by triggers and read only by hand-written SQL (`RawSql`)",
    ),
    (
        "topic_counts",
        "kept by triggers and read only by hand-written SQL (`RawSql`)",
    ),
    (
        "subscriber_counts",
        "kept by triggers and read only by hand-written SQL (`RawSql`)",
    ),
];

/// A column as one side declares it: its type family and whether it may be NULL.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Column {
    family: &'static str,
    nullable: bool,
}

type Tables = BTreeMap<String, BTreeMap<String, Column>>;

/// The tables `schema.rs` declares, read from its text: each `diesel::table!`'s name and its
/// `column -> Type` lines.
fn declared() -> Tables {
    let text = include_str!("../src/schema.rs");
    let mut tables = Tables::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "diesel::table! {" {
            continue;
        }
        let header = lines.next().expect("a table's name after `table! {`");
        let name = header.split_whitespace().next().expect("a table name");
        let columns = tables.entry(name.to_owned()).or_default();
        for line in lines.by_ref() {
            let line = line.trim();
            if line == "}" {
                break;
            }
            let (column, ty) = line
                .trim_end_matches(',')
                .split_once(" -> ")
                .unwrap_or_else(|| panic!("schema.rs: not a column: {line:?}"));
            let (ty, nullable) = match ty.strip_prefix("Nullable<") {
                Some(inner) => (inner.trim_end_matches('>'), true),
                None => (ty, false),
            };
            let declared = Column {
                family: diesel_family(ty),
                nullable,
            };
            columns.insert(
                column.strip_prefix("r#").unwrap_or(column).to_owned(),
                declared,
            );
        }
    }
    assert!(tables.len() > 20, "schema.rs was read: {:?}", tables.keys());
    tables
}

fn diesel_family(ty: &str) -> &'static str {
    match ty {
        "Text" => "text",
        "BigInt" | "Integer" => "integer",
        "Bool" => "boolean",
        "Timestamp" => "timestamp",
        "Double" => "float",
        other => panic!("schema.rs: a type this check does not know: {other}"),
    }
}

/// The family of a column's declared SQL type (SQLite keeps the text as written; PostgreSQL
/// names its own types).
fn sql_family(ty: &str) -> &'static str {
    match ty.to_ascii_lowercase().as_str() {
        "text" | "character varying" | "varchar" => "text",
        "bigint" | "integer" | "int" | "int8" => "integer",
        "boolean" | "bool" => "boolean",
        "timestamp" | "timestamp without time zone" => "timestamp",
        "double precision" | "real" | "double" => "float",
        _ => "unknown",
    }
}

#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Text)]
    data_type: String,
    /// 1 when the column may hold NULL.
    #[diesel(sql_type = BigInt)]
    nullable: i64,
}

fn into_tables(rows: Vec<Row>) -> Tables {
    let skipped: BTreeSet<&str> = NOT_IN_SCHEMA.iter().map(|(table, _)| *table).collect();
    let mut tables = Tables::new();
    for row in rows {
        if skipped.contains(row.table_name.as_str()) {
            continue;
        }
        tables.entry(row.table_name).or_default().insert(
            row.column_name,
            Column {
                family: sql_family(&row.data_type),
                nullable: row.nullable != 0,
            },
        );
    }
    tables
}

/// What the SQLite migrations make. A primary key column counts as NOT NULL: diesel's
/// `table!` never makes one nullable (SQLite would take a NULL in a non-INTEGER primary key
/// declared without NOT NULL; every migration declares it).
fn sqlite_tables(conn: &mut SqliteConnection) -> Tables {
    let rows = diesel::sql_query(
        "SELECT m.name AS table_name, c.name AS column_name, c.type AS data_type, \
                CAST(c.\"notnull\" = 0 AND c.pk = 0 AS BIGINT) AS nullable \
         FROM sqlite_master m, pragma_table_info(m.name) c \
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' \
         ORDER BY m.name, c.cid",
    )
    .load::<Row>(conn)
    .expect("read SQLite's columns");
    into_tables(rows)
}

fn postgres_tables(conn: &mut PgConnection) -> Tables {
    let rows = diesel::sql_query(
        "SELECT table_name::text AS table_name, column_name::text AS column_name, \
                data_type::text AS data_type, \
                CAST(CASE WHEN is_nullable = 'YES' THEN 1 ELSE 0 END AS BIGINT) AS nullable \
         FROM information_schema.columns \
         WHERE table_schema = 'public' \
         ORDER BY table_name, ordinal_position",
    )
    .load::<Row>(conn)
    .expect("read PostgreSQL's columns");
    into_tables(rows)
}

/// Every difference between what `schema.rs` declares and what `actual` holds, one line each.
fn differences(engine: &str, declared: &Tables, actual: &Tables) -> Vec<String> {
    let mut found = Vec::new();
    for (table, columns) in declared {
        let Some(real) = actual.get(table) else {
            found.push(format!(
                "{engine}: table {table} is in schema.rs, not in the migrations"
            ));
            continue;
        };
        for (column, want) in columns {
            match real.get(column) {
                None => found.push(format!(
                    "{engine}: {table}.{column} is in schema.rs, not in the migrations"
                )),
                Some(have) if have != want => found.push(format!(
                    "{engine}: {table}.{column} is {want:?} in schema.rs but {have:?} in the \
                     migrations"
                )),
                Some(_) => {}
            }
        }
        for column in real.keys().filter(|c| !columns.contains_key(*c)) {
            found.push(format!(
                "{engine}: {table}.{column} is in the migrations, not in schema.rs"
            ));
        }
    }
    for table in actual.keys().filter(|t| !declared.contains_key(*t)) {
        found.push(format!(
            "{engine}: table {table} is in the migrations, not in schema.rs (or NOT_IN_SCHEMA)"
        ));
    }
    found
}

async fn migrate(url: &str) {
    let store = sounding_store_diesel::DieselStore::connect(url).expect("connect");
    store.migrate().await.expect("migrate");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_rs_matches_the_sqlite_migrations() {
    let (url, _dir) = sqlite_database();
    migrate(&url).await;
    let path = url.strip_prefix("sqlite://").unwrap();
    let mut conn = SqliteConnection::establish(path).unwrap();
    // The store just dropped may still be closing (its last connection checkpoints the WAL):
    // wait for it rather than fail with `database is locked`.
    diesel::sql_query("PRAGMA busy_timeout = 10000")
        .execute(&mut conn)
        .unwrap();
    let actual = sqlite_tables(&mut conn);
    let found = differences("SQLite", &declared(), &actual);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_rs_matches_the_postgres_migrations() {
    let Some(url) = postgres_database().await else {
        return;
    };
    migrate(&url).await;
    let actual = postgres_tables(&mut PgConnection::establish(&url).unwrap());
    let found = differences("PostgreSQL", &declared(), &actual);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The check finds a drift: a column dropped, one made nullable, one of another type, a table
/// missing and one unknown (so a green run above means something).
#[test]
fn a_drift_is_reported() {
    let declared = declared();
    let mut actual = declared.clone();
    let teams = actual.get_mut("teams").unwrap();
    teams.remove("subdomain");
    teams.get_mut("name").unwrap().nullable = true;
    teams.get_mut("created_at").unwrap().family = "text";
    actual.remove("settings");
    actual.insert("stray".into(), BTreeMap::new());
    let found = differences("test", &declared, &actual);
    assert_eq!(found.len(), 5, "{found:#?}");
    assert!(differences("test", &declared, &declared).is_empty());
}
