//! `cargo xtask <task>`: the project's chores as plain Rust (std::process::Command), so they
//! run the same on every machine and in CI. See `usage` for the tasks.

mod bench;
mod browser;
mod ci;
mod clients;
mod contract;
mod deps;
mod openapi;
mod pg;
mod test;
mod util;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  test [ARGS...]       build, start a throwaway PostgreSQL, run `cargo test --workspace [ARGS...]`,
                       then `contract` and `browser`
                       (e.g. `cargo xtask test -- --nocapture`)
  check-deps           fail if sounding-domain or sounding-app depend on actix, diesel,
                       reqwest or tokio
  openapi [--check]    write docs/openapi.json; with --check, fail if it is out of date
  clients              generate a TypeScript client (openapi-typescript) and a Python client
                       (openapi-python-client) from docs/openapi.json; fail unless the first
                       compiles with `tsc --strict` and the second comes without warnings and
                       whole (needs node, npm and python3-venv)
  browser [--docs]     the widget (embedded in a page of another origin) and the public portal in
                       Chromium with Playwright; screenshots in target/browser/, and with
                       --docs in docs/ (needs chromium, node and npm)
  contract             fuzz the release binary with schemathesis against docs/openapi.json
                       (team key and subscriber token; needs python3-venv)
  bench [--quick] [--engine sqlite|postgres|all] [--scenario S1,S2,...] [--no-docs]
                       build release binaries, seed, load-test with wrk; writes
                       docs/benchmarks.md and target/bench/results.json
  ci                   everything CI runs: fmt, clippy, check-deps, openapi --check, clients,
                       test, bench --quick";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        Some("test") => test::run(rest),
        Some("check-deps") => deps::run(),
        Some("openapi") => openapi::run(rest),
        Some("clients") => clients::run(),
        Some("contract") => contract::run(),
        Some("ci") => ci::run(),
        Some("bench") => bench::run(rest),
        Some("browser") => browser::run(rest),
        None | Some("help" | "-h" | "--help") => {
            println!("{USAGE}");
            Ok(0)
        }
        Some(other) => {
            eprintln!("xtask: unknown task {other:?}\n\n{USAGE}");
            Ok(2)
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
