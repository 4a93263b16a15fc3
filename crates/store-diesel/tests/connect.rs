//! Opening a store: what `connect` and `migrate` promise an operator, on SQLite (and on
//! PostgreSQL where it cannot fail to be reached).

mod support;

use std::time::Duration;

use sounding_domain::ports::SettingsStore;
use sounding_store_diesel::{ConnectError, DieselStore, Engine, PoolOptions};

#[tokio::test]
async fn sqlite_creates_the_file_and_its_directory_then_migrates_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("nested/deeper/sounding.db");
    let store = DieselStore::connect(&format!("sqlite://{}", file.display())).unwrap();
    assert_eq!(store.engine(), Engine::Sqlite);
    assert!(file.exists(), "the database file is created on connect");

    assert_eq!(
        store.migrate().await.unwrap(),
        vec![
            "20261122000001",
            "20261124000001",
            "20261124000002",
            "20261124000003",
            "20261125000001",
            "20261125000002",
            "20261125000003",
            "20261125000004",
            "20261126000001",
            "20261127000001",
            "20261128000001",
            "20261128000017",
            "20261129000001",
            "20261129000042",
            "20261130000001",
            "20261201000001",
            "20261202000001",
            "20261203000001",
            "20261204000001",
            "20261204000002",
            "20261204000003",
            "20261204000004",
            "20261205000001",
            "20261206000001",
        ]
    );
    assert!(store.migrate().await.unwrap().is_empty());
    store.ping().await.unwrap();

    // A second store on the same file sees the schema as applied.
    let again = DieselStore::connect(&format!("sqlite:{}", file.display())).unwrap();
    assert!(again.migrate().await.unwrap().is_empty());
}

#[test]
fn unsupported_urls_say_what_to_use() {
    let err = DieselStore::connect("mysql://root@localhost/sounding").unwrap_err();
    assert!(matches!(err, ConnectError::UnsupportedScheme(ref s) if s == "mysql"));
    assert_eq!(
        err.to_string(),
        "unsupported database URL scheme 'mysql': use sqlite://path or postgres://..."
    );
    assert!(matches!(
        DieselStore::connect("sounding.db").unwrap_err(),
        ConnectError::MissingScheme
    ));
}

#[test]
fn an_empty_pool_is_refused() {
    let options = PoolOptions {
        max_connections: 0,
        ..PoolOptions::default()
    };
    let err = DieselStore::connect_with("sqlite://unused.db", options).unwrap_err();
    assert!(matches!(err, ConnectError::EmptyPool), "{err}");
}

#[test]
fn an_unreachable_postgres_fails_within_the_timeout_and_keeps_the_password() {
    let options = PoolOptions {
        max_connections: 1,
        connect_timeout: Duration::from_millis(500),
        ..PoolOptions::default()
    };
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let err =
        DieselStore::connect_with("postgres://u:hunter2@127.0.0.1:1/db", options).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("could not open the postgres database"),
        "{message}"
    );
    assert!(!message.contains("hunter2"), "{message}");
}

#[tokio::test]
async fn a_store_with_its_own_pool_works_on_the_same_database() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("shared.db").display());
    let store = DieselStore::connect(&url).unwrap();
    store.migrate().await.unwrap();
    let worker = store.for_webhook_worker(2).unwrap();
    assert_eq!(worker.max_connections(), 2);
    assert_eq!(
        store.max_connections(),
        PoolOptions::default().max_connections
    );
    assert_eq!(worker.engine(), Engine::Sqlite);
    // Written through one pool, read through the other: one database.
    assert_eq!(
        worker.get_or_init_setting("probe", "first").await.unwrap(),
        "first"
    );
    assert_eq!(
        store.get_or_init_setting("probe", "second").await.unwrap(),
        "first"
    );
}

/// A pooled PostgreSQL connection used a moment ago is handed out without a ping; when it has
/// died meanwhile (here: terminated by the server), the call on it fails once and the pool
/// replaces it, so the next call works instead of failing until the connection sits idle.
/// The reads are single statements outside a transaction: no transaction left open gives the
/// dead connection away, only the failure itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_connection_that_died_is_replaced_after_one_failure() {
    use diesel::{Connection, PgConnection, RunQueryDsl};
    use sounding_domain::ports::AccessStore;

    let Some(url) = support::postgres_database().await else {
        return;
    };
    let options = PoolOptions {
        max_connections: 1,
        ..PoolOptions::default()
    };
    let store = DieselStore::connect_with(&url, options).unwrap();
    store.migrate().await.unwrap();
    let read = || store.api_key_by_hash("no such key");
    assert!(read().await.unwrap().is_none());

    let mut admin = PgConnection::establish(&url).unwrap();
    diesel::sql_query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .execute(&mut admin)
    .unwrap();

    // Used a moment ago, so not pinged: this call meets the dead connection.
    assert!(read().await.is_err(), "the dead connection was handed out");
    for _ in 0..3 {
        assert!(
            read().await.unwrap().is_none(),
            "a fresh connection serves the calls after the failed one"
        );
    }
}
