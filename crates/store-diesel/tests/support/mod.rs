//! The harness the store's integration tests share: a migrated store on SQLite (a temporary
//! file) or on a fresh PostgreSQL database, `on_every_engine!` to run each check on both, and
//! the fixed timestamps the checks write, a team fixture, and statement counting.

// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use diesel::{
    connection::{Instrumentation, InstrumentationEvent},
    sql_types::BigInt,
    Connection, PgConnection, RunQueryDsl, SqliteConnection,
};
use sounding_domain::ids::TeamId;
use sounding_store_diesel::DieselStore;
use sounding_tests::pg;
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------------
// Backends

pub struct Env {
    pub store: Arc<DieselStore>,
    pub url: String,
    _dir: Option<TempDir>,
}

impl Env {
    /// `SELECT COUNT(*) AS n …` on a connection of its own, outside the store.
    pub fn count(&self, sql: &str) -> i64 {
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let query = diesel::sql_query(sql);
        match self.url.strip_prefix("sqlite://") {
            Some(path) => {
                query
                    .get_result::<Count>(&mut SqliteConnection::establish(path).unwrap())
                    .unwrap()
                    .n
            }
            None => {
                query
                    .get_result::<Count>(&mut PgConnection::establish(&self.url).unwrap())
                    .unwrap()
                    .n
            }
        }
    }
}

pub async fn migrated(url: String, dir: Option<TempDir>) -> Env {
    let store = DieselStore::connect(&url).expect("connect");
    store.migrate().await.expect("migrate");
    Env {
        store: Arc::new(store),
        url,
        _dir: dir,
    }
}

/// The URL of a database file in a new temporary directory, and the directory (which removes
/// itself when dropped).
pub fn sqlite_database() -> (String, TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    (url, dir)
}

pub async fn sqlite() -> Option<Env> {
    let (url, dir) = sqlite_database();
    Some(migrated(url, Some(dir)).await)
}

/// The URL of a fresh database created on the server `SOUNDING_TEST_POSTGRES_URL` names, or
/// `None` (with a notice) when it is not set; under `CI=true` a missing URL fails the test
/// (`sounding_tests::pg`, the one helper every suite uses).
pub async fn postgres_database() -> Option<String> {
    let admin = pg::require_postgres()?;
    let url = tokio::task::spawn_blocking(move || pg::fresh_database(&admin))
        .await
        .expect("create database");
    Some(url)
}

/// A migrated store on a fresh PostgreSQL database (see `postgres_database`).
pub async fn postgres() -> Option<Env> {
    let url = postgres_database().await?;
    Some(migrated(url, None).await)
}

/// The backends of the checks that count statements: the same stores, with the statement
/// counter installed before any connection opens, so every connection reports its statements.
pub mod counted {
    use diesel::connection::set_default_instrumentation;
    use tempfile::TempDir;

    use super::{postgres_database, sqlite_database, statement_counter, Env};

    async fn migrated(url: String, dir: Option<TempDir>) -> Env {
        set_default_instrumentation(statement_counter).unwrap();
        super::migrated(url, dir).await
    }

    pub async fn sqlite() -> Option<Env> {
        let (url, dir) = sqlite_database();
        Some(migrated(url, Some(dir)).await)
    }

    pub async fn postgres() -> Option<Env> {
        let url = postgres_database().await?;
        Some(migrated(url, None).await)
    }
}

/// A `sqlite` and a `postgres` test for each check (`async fn check(env: Env)` beside the
/// macro's call), through the `sqlite()` and `postgres()` in scope there.
#[allow(unused_macros)]
macro_rules! on_every_engine {
    ($($check:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $check() {
                    if let Some(env) = super::sqlite().await {
                        super::$check(env).await;
                    }
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $check() {
                    if let Some(env) = super::postgres().await {
                        super::$check(env).await;
                    }
                }
            )*
        }
    };
}
#[allow(unused_imports)]
pub(crate) use on_every_engine;

// ---------------------------------------------------------------------------------------------
// Fixtures (the port-contract suite's, `sounding_tests::fixtures`, so both build the same
// values) and statement counting

/// A stored team (with its owner and key), by id.
pub async fn team(store: &DieselStore, subdomain: &str) -> TeamId {
    sounding_tests::fixtures::stored_team(store, subdomain)
        .await
        .team
        .id
}

/// Watches under way: the strings each watches for, and how many statements mentioned one.
static WATCHED: Mutex<Vec<Watch>> = Mutex::new(Vec::new());

struct Watch {
    markers: Vec<String>,
    statements: usize,
}

/// Every connection's instrumentation (install it with `set_default_instrumentation` before any
/// store connects): counts, for each watch, the statements that mention one of its strings (in
/// their SQL or binds; a team id is bound by every statement that filters by team), whichever
/// test's store runs them.
pub fn statement_counter() -> Option<Box<dyn Instrumentation>> {
    Some(Box::new(|event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            let mut watched = WATCHED.lock().unwrap();
            if !watched.is_empty() {
                let text = query.to_string();
                for watch in watched.iter_mut() {
                    if watch.markers.iter().any(|m| text.contains(m.as_str())) {
                        watch.statements += 1;
                    }
                }
            }
        }
    }))
}

/// Runs `f` and returns how many statements mentioning any of `markers` ran meanwhile (the
/// first marker must be unique to the caller: a team id).
pub async fn statements_of<F: std::future::Future>(markers: &[&str], f: F) -> (F::Output, usize) {
    let key = markers[0].to_owned();
    WATCHED.lock().unwrap().push(Watch {
        markers: markers.iter().map(|m| (*m).to_owned()).collect(),
        statements: 0,
    });
    let output = f.await;
    let mut watched = WATCHED.lock().unwrap();
    let at = watched.iter().position(|w| w.markers[0] == key).unwrap();
    let count = watched.remove(at).statements;
    (output, count)
}
