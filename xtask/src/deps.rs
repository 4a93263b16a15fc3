//! `cargo xtask check-deps`: the hexagon's rule as a check. The domain and the use cases
//! must not depend (through normal edges) on a web framework, a database library, an HTTP
//! client or an async runtime, so adapters stay swappable and the core stays testable.

use std::collections::BTreeSet;

use anyhow::{bail, Result};

use crate::util;

/// The inner crates the rule holds for.
const INNER: [&str; 2] = ["sounding-domain", "sounding-app"];

/// Whether a crate is one the inner crates must not depend on.
fn forbidden(name: &str) -> bool {
    name == "actix"
        || name.starts_with("actix-")
        || name.starts_with("diesel")
        || name == "reqwest"
        || name == "tokio"
}

pub fn run() -> Result<u8> {
    let mut failed = false;
    for package in INNER {
        let mut cmd = util::cargo(["tree", "-p", package, "-e", "normal", "--prefix", "none"]);
        let output = cmd.output()?;
        if !output.status.success() {
            bail!(
                "{} failed:\n{}",
                util::show(&cmd),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let crates = crate_names(&String::from_utf8_lossy(&output.stdout));
        let found: Vec<&String> = crates.iter().filter(|name| forbidden(name)).collect();
        if found.is_empty() {
            println!(
                "{package}: {} crates in its normal dependency tree, none forbidden",
                crates.len()
            );
            continue;
        }
        failed = true;
        println!("{package} depends on forbidden crates:");
        for name in found {
            println!("  {name}    (see: cargo tree -p {package} -e normal -i {name})");
        }
    }
    if failed {
        println!(
            "domain and app may not depend on actix*, diesel*, reqwest or tokio: \
             move that code into an adapter crate"
        );
        return Ok(1);
    }
    Ok(0)
}

/// The crate names in `cargo tree --prefix none` output (`name vX.Y.Z [(path)] [(*)]`).
fn crate_names(tree: &str) -> BTreeSet<String> {
    tree.lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forbidden_families_are_recognised() {
        for name in [
            "actix-web",
            "actix-rt",
            "diesel",
            "diesel_migrations",
            "reqwest",
            "tokio",
        ] {
            assert!(forbidden(name), "{name}");
        }
        for name in ["serde", "tokio-util-free", "async-trait", "uuid"] {
            assert!(!forbidden(name), "{name}");
        }
    }

    #[test]
    fn names_are_read_from_tree_lines() {
        let tree = "sounding-app v0.1.0 (/w/crates/app)\nserde v1.0.1\nserde v1.0.1 (*)\n";
        let names: Vec<String> = crate_names(tree).into_iter().collect();
        assert_eq!(names, ["serde", "sounding-app"]);
    }
}
