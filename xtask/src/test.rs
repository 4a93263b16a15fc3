//! `cargo xtask test`: the one command that runs every test. Builds the workspace, starts a
//! throwaway PostgreSQL cluster so the PostgreSQL half of the suite runs too, runs
//! `cargo test --workspace` against it, and always stops and removes the cluster.

use std::{
    process::Command,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::{bail, Context as _, Result};

use crate::{
    browser, contract,
    pg::{self, Cluster},
    util,
};

/// The variable the PostgreSQL tests read; without it they skip (and fail under `CI=true`).
const POSTGRES_URL_VAR: &str = "SOUNDING_TEST_POSTGRES_URL";
/// The variable naming the `sounding` binary the black-box tests spawn.
const SOUNDING_BIN_VAR: &str = "SOUNDING_BIN";
/// After ctrl-c, how long `cargo test` gets to exit on its own before it is killed.
const INTERRUPT_GRACE: Duration = Duration::from_secs(5);

pub fn run(args: &[String]) -> Result<u8> {
    // Set before anything starts, so ctrl-c ends the children but not us: we still have a
    // cluster to stop. The terminal sends SIGINT to the whole foreground group.
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        // Fails only if a handler is already installed (`ci` calling us twice); keep that one.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }

    let status = util::run(&mut util::cargo(["build", "--workspace", "--all-targets"]))?;
    if !status.success() || interrupted.load(Ordering::SeqCst) {
        return Ok(util::exit_code(status).max(1));
    }

    // The black-box tests that drive the binary (crash safety, contract fuzzing, the CLI) run
    // the release build: it is what users run, and killing it mid-write is the point.
    let release = build_release_binary()?;
    if !release.success() || interrupted.load(Ordering::SeqCst) {
        return Ok(util::exit_code(release).max(1));
    }

    let mut cmd = cargo_test(args);
    if std::env::var_os(SOUNDING_BIN_VAR).is_none() {
        cmd.env(SOUNDING_BIN_VAR, release_binary());
    }
    let mut skipped = false;
    let cluster = match std::env::var(POSTGRES_URL_VAR)
        .ok()
        .filter(|v| !v.is_empty())
    {
        Some(_) => {
            eprintln!("xtask: using the PostgreSQL server in ${POSTGRES_URL_VAR}");
            None
        }
        None => match pg::find_binaries() {
            Some(bin) => {
                let dir = util::target_dir().join("pg");
                let cluster = Cluster::start(bin, dir).context("cannot start PostgreSQL")?;
                cmd.env(POSTGRES_URL_VAR, cluster.url());
                Some(cluster)
            }
            None if is_ci() => {
                util::banner(&[
                    "PostgreSQL binaries (initdb, pg_ctl) were not found, and CI=true.",
                    "The PostgreSQL half of the suite must run in CI: install the",
                    "`postgresql` package (.ci/run does) and try again.",
                ]);
                bail!("no PostgreSQL binaries under CI");
            }
            None => {
                util::banner(SKIPPED);
                cmd.env_remove(POSTGRES_URL_VAR);
                skipped = true;
                None
            }
        },
    };
    if interrupted.load(Ordering::SeqCst) {
        return Ok(130);
    }

    let code = run_until_done(&mut cmd, &interrupted);
    // Stops the cluster and removes its data, also when the tests failed or were interrupted.
    drop(cluster);
    // Contract fuzzing only after the tests pass: a failing test explains more than a fuzz case.
    let code = match code {
        Ok(0) if !interrupted.load(Ordering::SeqCst) => contract::run_with(&interrupted),
        other => other,
    };
    let code = match code {
        Ok(0) if !interrupted.load(Ordering::SeqCst) => browser::run_with(&interrupted, false),
        other => other,
    };
    if skipped {
        // Again at the end, where a reader of the log looks first.
        util::banner(SKIPPED);
    }
    code
}

const SKIPPED: &[&str] = &[
    "PostgreSQL binaries (initdb, pg_ctl) were not found on PATH or",
    "under /usr/lib/postgresql/*/bin.",
    "",
    "THE POSTGRESQL HALF OF THE SUITE IS SKIPPED: only SQLite and the",
    "in-memory store are tested in this run.",
    "",
    "Install PostgreSQL (Debian: apt-get install postgresql libpq-dev) and",
    "run `cargo xtask test` again for the full suite.",
];

/// `cargo build --release --bin sounding`, the binary at [`release_binary`].
pub fn build_release_binary() -> Result<std::process::ExitStatus> {
    util::run(&mut util::cargo([
        "build",
        "--release",
        "-p",
        "sounding-server",
        "--bin",
        "sounding",
    ]))
}

/// Where `cargo build --release --bin sounding` puts the binary.
pub fn release_binary() -> std::path::PathBuf {
    util::target_dir().join("release").join("sounding")
}

/// `cargo test --workspace ARGS`, or without `--workspace` when ARGS pick packages.
fn cargo_test(args: &[String]) -> Command {
    let cargo_args = args.iter().take_while(|a| *a != "--");
    let picks_packages = cargo_args
        .clone()
        .any(|a| a.starts_with("-p") || a.starts_with("--package"));
    let mut cmd = util::cargo(["test"]);
    if !picks_packages {
        cmd.arg("--workspace");
    }
    cmd.args(args);
    cmd
}

/// Runs the tests; after ctrl-c (or SIGTERM to us) gives them a moment, then kills them.
pub(crate) fn run_until_done(cmd: &mut Command, interrupted: &AtomicBool) -> Result<u8> {
    println!("$ {}", util::show(cmd));
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot run {}", util::show(cmd)))?;
    let mut interrupted_at = None;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(if interrupted_at.is_some() {
                130
            } else {
                util::exit_code(status)
            });
        }
        if interrupted.load(Ordering::SeqCst) {
            let since = *interrupted_at.get_or_insert_with(Instant::now);
            if since.elapsed() > INTERRUPT_GRACE {
                let _ = child.kill();
            }
        }
        thread::sleep(Duration::from_millis(100));
    }
}

pub(crate) fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(cmd: &Command) -> Vec<String> {
        cmd.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn extra_arguments_are_forwarded_to_cargo_test() {
        let cmd = cargo_test(&["--".into(), "--nocapture".into()]);
        assert_eq!(args(&cmd), ["test", "--workspace", "--", "--nocapture"]);
    }

    #[test]
    fn picking_a_package_drops_workspace() {
        let cmd = cargo_test(&["-p".into(), "sounding-server".into()]);
        assert_eq!(args(&cmd), ["test", "-p", "sounding-server"]);
        // A test binary's own `-p`-like flag after `--` does not count.
        let cmd = cargo_test(&["--".into(), "-p".into()]);
        assert_eq!(args(&cmd), ["test", "--workspace", "--", "-p"]);
    }
}
