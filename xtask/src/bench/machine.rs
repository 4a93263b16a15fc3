//! The facts a reader needs to compare our numbers with theirs: cores, memory, kernel, CPU,
//! and the versions of everything measured.

use std::{fs, path::PathBuf, process::Command};

use crate::util;

fn command_line(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.lines().next()?.trim().to_owned()).filter(|l| !l.is_empty())
}

/// The version of a package in Cargo.lock.
fn locked_version(name: &str) -> Option<String> {
    let lock = fs::read_to_string(util::root().join("Cargo.lock")).ok()?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{name}\"") {
            return lines
                .next()?
                .strip_prefix("version = \"")
                .map(|v| v.trim_end_matches('"').to_owned());
        }
    }
    None
}

/// The SQLite that libsqlite3-sys bundles (compiled into the server): its sqlite3.h in the
/// cargo registry says which.
fn bundled_sqlite() -> Option<String> {
    let sys = format!("libsqlite3-sys-{}", locked_version("libsqlite3-sys")?);
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    for registry in fs::read_dir(home.join("registry/src")).ok()?.flatten() {
        let header = registry.path().join(&sys).join("sqlite3/sqlite3.h");
        if let Ok(text) = fs::read_to_string(&header) {
            return text.lines().find_map(|l| {
                l.strip_prefix("#define SQLITE_VERSION ")
                    .map(|v| format!("{} (bundled by {sys})", v.trim().trim_matches('"')))
            });
        }
    }
    None
}

fn meminfo_total() -> Option<String> {
    let kib: u64 = fs::read_to_string("/proc/meminfo")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(format!("{:.1} GiB", kib as f64 / 1024.0 / 1024.0))
}

fn cpu_model() -> Option<String> {
    fs::read_to_string("/proc/cpuinfo")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_owned())
}

/// (fact, value) pairs in the order the report shows them.
pub fn facts(cores: usize, postgres_bin: Option<&std::path::Path>) -> Vec<(&'static str, String)> {
    let unknown = || "unknown".to_owned();
    let mut facts = vec![
        ("cores", cores.to_string()),
        ("CPU", cpu_model().unwrap_or_else(unknown)),
        ("memory", meminfo_total().unwrap_or_else(unknown)),
        (
            "kernel",
            command_line("uname", &["-sr"]).unwrap_or_else(unknown),
        ),
        (
            "load average at start",
            fs::read_to_string("/proc/loadavg")
                .ok()
                .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                .unwrap_or_else(unknown),
        ),
        (
            "rustc",
            command_line("rustc", &["-V"]).unwrap_or_else(unknown),
        ),
        (
            "actix-web",
            locked_version("actix-web").unwrap_or_else(unknown),
        ),
        ("SQLite", bundled_sqlite().unwrap_or_else(unknown)),
    ];
    if let Some(bin) = postgres_bin {
        let postgres = bin.join("postgres");
        facts.push((
            "PostgreSQL",
            command_line(&postgres.to_string_lossy(), &["--version"]).unwrap_or_else(unknown),
        ));
    }
    facts.push(("wrk", super::wrk::version()));
    facts
}
