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
///
/// The name says which machine and test process made it (`sounding_test_<host>_<pid>_<random>`).
/// Nothing drops a database when its test ends (the server under test may still hold it), so
/// the first call in each process drops those left by this machine's finished test processes:
/// repeated runs against a developer's own server do not fill its disk.
pub fn fresh_database(admin_url: &str) -> String {
    let mut admin = PgConnection::establish(admin_url).unwrap_or_else(|e| {
        panic!("cannot connect to {POSTGRES_URL_VAR} to create a test database: {e}")
    });
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| drop_leftovers(&mut admin));
    let random = uuid::Uuid::new_v4().simple().to_string();
    let name = format!(
        "{TEST_DATABASE_PREFIX}{}_{}_{}",
        host_tag(),
        std::process::id(),
        &random[..16]
    );
    // The name is ours (letters, digits, '_'), so quoting it is enough.
    diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
        .execute(&mut admin)
        .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
    with_database(admin_url, &name)
}

const TEST_DATABASE_PREFIX: &str = "sounding_test_";

/// A short, stable tag of this machine's host name, so that a server shared by several
/// machines never has one machine's live test databases dropped by another.
fn host_tag() -> String {
    use std::hash::{Hash, Hasher};
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .unwrap_or_default();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    host.trim().hash(&mut hasher);
    format!("{:08x}", hasher.finish() as u32)
}

/// Drops the test databases this machine's test processes left behind once those processes
/// are gone. Only where `/proc` tells whether a process lives; a failure is only noted (a
/// leftover costs disk, not correctness).
fn drop_leftovers(admin: &mut PgConnection) {
    #[derive(diesel::QueryableByName)]
    struct Database {
        #[diesel(sql_type = diesel::sql_types::Text)]
        datname: String,
    }
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    let ours = format!("{TEST_DATABASE_PREFIX}{}_", host_tag());
    let listed: Vec<Database> =
        match diesel::sql_query("SELECT datname FROM pg_database").load(admin) {
            Ok(listed) => listed,
            Err(e) => return eprintln!("could not list leftover test databases: {e}"),
        };
    for name in listed.into_iter().map(|d| d.datname) {
        let Some(pid) = name
            .strip_prefix(&ours)
            .and_then(|rest| rest.split('_').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let gone =
            pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists();
        if gone {
            // FORCE ends a dead test's lingering sessions (PostgreSQL 13+); a database another
            // process is dropping at the same moment is simply not there any more.
            let dropped =
                diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                    .execute(admin);
            if let Err(e) = dropped {
                eprintln!("could not drop leftover test database {name}: {e}");
            }
        }
    }
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
    use super::*;

    fn databases(admin: &mut PgConnection) -> Vec<String> {
        #[derive(diesel::QueryableByName)]
        struct Database {
            #[diesel(sql_type = diesel::sql_types::Text)]
            datname: String,
        }
        let listed: Vec<Database> = diesel::sql_query("SELECT datname FROM pg_database")
            .load(admin)
            .unwrap();
        listed.into_iter().map(|d| d.datname).collect()
    }

    #[test]
    fn leftovers_of_finished_test_processes_of_this_machine_are_dropped() {
        let Some(url) = require_postgres() else {
            return;
        };
        let mut admin = PgConnection::establish(&url).unwrap();
        let random = &uuid::Uuid::new_v4().simple().to_string()[..16];
        // No process has a pid above the kernel's largest (4194304); pid 1 always lives.
        let finished = format!("{TEST_DATABASE_PREFIX}{}_4294967295_{random}", host_tag());
        let running = format!("{TEST_DATABASE_PREFIX}{}_1_{random}", host_tag());
        let elsewhere = format!("{TEST_DATABASE_PREFIX}zzzzzzzz_4294967295_{random}");
        for name in [&finished, &running, &elsewhere] {
            diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
                .execute(&mut admin)
                .unwrap();
        }
        drop_leftovers(&mut admin);
        let left = databases(&mut admin);
        for name in [&running, &elsewhere] {
            assert!(left.contains(name), "{name} was dropped");
            diesel::sql_query(format!("DROP DATABASE \"{name}\""))
                .execute(&mut admin)
                .unwrap();
        }
        assert!(!left.contains(&finished), "{finished} was left");
    }

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
