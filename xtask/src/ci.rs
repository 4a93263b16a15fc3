//! `cargo xtask ci`: everything CI runs, in order, stopping at the first failure: the checks
//! (the OpenAPI document among them, and the clients generated from it),
//! `cargo xtask test` (the README's test command, so CI tests what developers test), then a
//! quick run of the benchmark harness as a smoke check (issue 8: it runs in CI without
//! asserting speed).

use anyhow::Result;

use crate::{bench, clients, deps, openapi, test, util};

/// A step returns its exit code (0 passed).
type Step = fn() -> Result<u8>;

pub fn run() -> Result<u8> {
    let steps: [(&str, Step); 10] = [
        ("cargo fmt --all -- --check", || {
            cargo(&["fmt", "--all", "--", "--check"])
        }),
        (
            "cargo clippy --workspace --all-targets -- -D warnings",
            || {
                cargo(&[
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ])
            },
        ),
        ("cargo xtask check-deps", deps::run),
        // The crates' documentation builds without a broken link or a missing doc.
        (
            "cargo doc --workspace --no-deps (RUSTDOCFLAGS=-D warnings)",
            || {
                let mut doc = util::cargo(["doc", "--workspace", "--no-deps"]);
                doc.env("RUSTDOCFLAGS", "-D warnings");
                Ok(util::exit_code(util::run(&mut doc)?))
            },
        ),
        // The crates meant for others package (metadata, versions, files); building each
        // from its tarball is left to a release (`cargo package` without `--no-verify`).
        (
            "cargo package --workspace --exclude xtask --exclude sounding-tests --no-verify",
            || {
                cargo(&[
                    "package",
                    "--workspace",
                    "--exclude",
                    "xtask",
                    "--exclude",
                    "sounding-tests",
                    "--no-verify",
                    "--allow-dirty",
                ])
            },
        ),
        // The embedding example runs, in memory and on a SQLite file.
        ("cargo run -p sounding-app --example embed", embed_example),
        ("cargo xtask openapi --check", || {
            openapi::run(&["--check".to_owned()])
        }),
        // Clients generated from the document compile (TypeScript) and come whole (Python).
        ("cargo xtask clients", clients::run),
        ("cargo xtask test", || test::run(&[])),
        // A smoke check of the benchmark harness on both engines; speed is not judged here.
        ("cargo xtask bench --quick --no-docs", || {
            bench::run(&["--quick".to_owned(), "--no-docs".to_owned()])
        }),
    ];
    for (name, step) in steps {
        println!("\n==> {name}");
        let code = step()?;
        if code != 0 {
            println!("\nxtask ci: `{name}` failed (exit code {code})");
            return Ok(code);
        }
    }
    println!("\nxtask ci: all steps passed");
    Ok(0)
}

fn embed_example() -> Result<u8> {
    let code = cargo(&["run", "-q", "-p", "sounding-app", "--example", "embed"])?;
    if code != 0 {
        return Ok(code);
    }
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("embed.db");
    let file = file.to_string_lossy();
    cargo(&[
        "run",
        "-q",
        "-p",
        "sounding-app",
        "--example",
        "embed",
        "--",
        "--sqlite",
        &file,
    ])
}

fn cargo(args: &[&str]) -> Result<u8> {
    let status = util::run(&mut util::cargo(args))?;
    Ok(util::exit_code(status))
}
