//! `cargo xtask openapi [--check]`: docs/openapi.json is generated from the HTTP adapter's
//! own description, so it cannot drift from the routes; CI runs `--check`.

use std::fs;

use anyhow::{bail, Context as _, Result};

use crate::util;

const PATH: &str = "docs/openapi.json";

pub fn run(args: &[String]) -> Result<u8> {
    let check = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => bail!("usage: cargo xtask openapi [--check]"),
    };
    let expected = document()?;
    let path = util::root().join(PATH);
    let current = fs::read_to_string(&path).ok();

    if !check {
        if current.as_deref() == Some(expected.as_str()) {
            println!("{PATH} is up to date");
        } else {
            fs::write(&path, &expected).with_context(|| format!("cannot write {PATH}"))?;
            println!("wrote {PATH}");
        }
        return Ok(0);
    }

    let Some(current) = current else {
        println!("{PATH} is missing: run `cargo xtask openapi` and commit the file");
        return Ok(1);
    };
    match first_difference(&current, &expected) {
        None => {
            println!("{PATH} is up to date");
            Ok(0)
        }
        Some((line, have, want)) => {
            println!(
                "{PATH} is out of date: run `cargo xtask openapi` and commit the file \
                 (then `git diff {PATH}` shows the change)"
            );
            println!("first difference at line {line}:");
            println!("  file:      {}", have.unwrap_or("<end of file>"));
            println!("  generated: {}", want.unwrap_or("<end of file>"));
            Ok(1)
        }
    }
}

/// The document exactly as the adapter renders it (pretty, keys sorted, final newline), so
/// the file, this check and the served document agree byte for byte.
fn document() -> Result<String> {
    let text = sounding_http_actix::openapi_json();
    serde_json::from_str::<serde_json::Value>(&text)
        .context("openapi_json() did not return JSON")?;
    Ok(text)
}

/// The first line (1-based) where the texts differ, with both sides.
fn first_difference<'a>(
    have: &'a str,
    want: &'a str,
) -> Option<(usize, Option<&'a str>, Option<&'a str>)> {
    let (mut a, mut b) = (have.lines(), want.lines());
    for line in 1.. {
        match (a.next(), b.next()) {
            (None, None) => return None,
            (x, y) if x == y => continue,
            (x, y) => return Some((line, x, y)),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_line_is_reported() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(
            first_difference("a\nb\n", "a\nc\n"),
            Some((2, Some("b"), Some("c")))
        );
        assert_eq!(
            first_difference("a\n", "a\nb\n"),
            Some((2, None, Some("b")))
        );
    }
}
