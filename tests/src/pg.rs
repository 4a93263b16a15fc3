//! PostgreSQL for tests: the server named by `SOUNDING_TEST_POSTGRES_URL`, and a fresh,
//! uniquely named database on it for each test that asks.

use std::io::Write;

use diesel::{Connection, PgConnection, RunQueryDsl};

/// The environment variable naming a PostgreSQL server tests may create databases on, as a
/// URL whose user may `CREATE DATABASE` (e.g. `postgres://postgres@127.0.0.1:5432/postgres`).
pub const POSTGRES_URL_VAR: &str = "SOUNDING_TEST_POSTGRES_URL";

/// The administrative URL, when one is configured (an empty value counts as none).
pub fn postgres_admin_url() -> Option<String> {
    std::env::var(POSTGRES_URL_VAR)
        .ok()
        .map(|url| url.trim().to_owned())
        .filter(|url| !url.is_empty())
}

/// The administrative URL; or, when none is configured, a loud skip notice and `None`.
/// Under `CI=true` a missing URL is a failure: CI must run the PostgreSQL tests.
pub fn require_postgres() -> Option<String> {
    if let Some(url) = postgres_admin_url() {
        return Some(url);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "{POSTGRES_URL_VAR} is not set but CI=true: the PostgreSQL tests must run in CI. \
             Point it at a server whose user may create databases, \
             e.g. postgres://postgres@127.0.0.1:5432/postgres"
        );
    }
    // Written to the real stderr: the test harness captures `eprintln!` of passing tests,
    // and a skip nobody sees is a silent pass.
    let notice = format!("\nSKIPPED: PostgreSQL tests ({POSTGRES_URL_VAR} not set)\n");
    let _ = std::io::stderr().write_all(notice.as_bytes());
    None
}

/// Creates an empty database with a unique name on the server `admin_url` points at and
/// returns its URL (the admin URL with the database name replaced). Panics if it cannot.
pub fn fresh_database(admin_url: &str) -> String {
    let name = format!("sounding_test_{}", uuid::Uuid::new_v4().simple());
    let mut admin = PgConnection::establish(admin_url).unwrap_or_else(|e| {
        panic!("cannot connect to {POSTGRES_URL_VAR} to create a test database: {e}")
    });
    // The name is ours (letters, digits, '_'), so quoting it is enough.
    diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
        .execute(&mut admin)
        .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
    with_database(admin_url, &name)
}

/// `admin_url` with its database (the path) replaced by `name`, query string kept.
fn with_database(admin_url: &str, name: &str) -> String {
    let (base, query) = match admin_url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (admin_url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let server = match base[authority_start..].find('/') {
        Some(slash) => &base[..authority_start + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{server}/{name}?{query}"),
        None => format!("{server}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn the_database_name_is_replaced_and_the_rest_kept() {
        assert_eq!(
            with_database("postgres://u:p@h:5432/postgres", "t1"),
            "postgres://u:p@h:5432/t1"
        );
        assert_eq!(
            with_database("postgresql://h/postgres?sslmode=disable", "t1"),
            "postgresql://h/t1?sslmode=disable"
        );
        assert_eq!(
            with_database("postgres://h:5432", "t1"),
            "postgres://h:5432/t1"
        );
    }
}
