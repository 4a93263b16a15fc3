//! `cargo xtask clients`: generates a TypeScript client (openapi-typescript) and a Python client
//! (openapi-python-client) from the checked-in docs/openapi.json and fails unless both come out
//! whole (issue 18, item 5): the TypeScript one, with `clients/check.ts` beside it, compiles
//! with `tsc --strict`; the Python one is generated without a single warning, and
//! `clients/check.py` finds every operation and every object schema (with all its properties)
//! in it. The tools are pinned and installed under the target dir on first use: npm packages
//! in `clients-npm/`, the Python ones in the `clients-venv/` virtualenv.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Instant,
};

use anyhow::{bail, Context as _, Result};

use crate::{test, util};

/// The generators and compiler the check is pinned to; a new release can change the output.
const OPENAPI_TYPESCRIPT: &str = "7.13.0";
const TYPESCRIPT: &str = "5.9.3";
const OPENAPI_PYTHON_CLIENT: &str = "0.29.1";
/// What the generated Python client imports besides httpx and attrs (which the generator
/// itself depends on): `dateutil` parses its date-times.
const PYTHON_DATEUTIL: &str = "2.9.0.post0";

const CHECK_TS: &str = include_str!("clients/check.ts");
const CHECK_PY: &str = include_str!("clients/check.py");
const PYTHON_CONFIG: &str = include_str!("clients/openapi-python-client.yaml");
/// The Python package the client is generated as.
const PACKAGE: &str = "sounding_client";

pub fn run() -> Result<u8> {
    let started = Instant::now();
    let missing = missing_tools();
    if !missing.is_empty() {
        let mut lines = vec![format!("not found: {}.", missing.join(", "))];
        if test::is_ci() {
            lines.push("The client check must run in CI: install them (.ci/run does).".into());
            util::banner(&lines.iter().map(String::as_str).collect::<Vec<_>>());
            bail!("no {} under CI", missing.join(", "));
        }
        lines.extend([
            String::new(),
            "THE GENERATED-CLIENT CHECK IS SKIPPED in this run.".into(),
            String::new(),
            "Install them (Debian: apt-get install nodejs npm python3-venv)".into(),
            "and run `cargo xtask clients` again.".into(),
        ]);
        util::banner(&lines.iter().map(String::as_str).collect::<Vec<_>>());
        return Ok(0);
    }
    let document = util::root().join("docs/openapi.json");
    let work = util::target_dir().join("clients");
    if work.exists() {
        fs::remove_dir_all(&work).with_context(|| format!("cannot clear {}", work.display()))?;
    }
    fs::create_dir_all(&work)?;

    let npm = install_npm_tools()?;
    let venv = install_python_tools()?;

    let typescript = typescript_client(&npm, &document, &work.join("typescript"))?;
    let python = python_client(&venv, &document, &work.join("python"))?;
    println!(
        "\nxtask clients: TypeScript {}, Python {} in {:.0?}",
        if typescript { "ok" } else { "FAILED" },
        if python { "ok" } else { "FAILED" },
        started.elapsed()
    );
    Ok(u8::from(!(typescript && python)))
}

/// The commands the check needs that are not there.
fn missing_tools() -> Vec<&'static str> {
    let works = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let mut missing = Vec::new();
    if !works("node", &["--version"]) {
        missing.push("node");
    }
    if !works("npm", &["--version"]) {
        missing.push("npm");
    }
    if !works("python3", &["-c", "import venv, ensurepip"]) {
        missing.push("python3 with venv");
    }
    missing
}

/// openapi-typescript and typescript, pinned, in `<target>/clients-npm`.
fn install_npm_tools() -> Result<PathBuf> {
    let dir = util::target_dir().join("clients-npm");
    let installed = |name: &str| -> Option<String> {
        let manifest = dir.join("node_modules").join(name).join("package.json");
        let text = fs::read_to_string(manifest).ok()?;
        let value: serde_json::Value = serde_json::from_str(&text).ok()?;
        value["version"].as_str().map(str::to_owned)
    };
    if installed("openapi-typescript").as_deref() == Some(OPENAPI_TYPESCRIPT)
        && installed("typescript").as_deref() == Some(TYPESCRIPT)
    {
        return Ok(dir);
    }
    fs::create_dir_all(&dir)?;
    let manifest = serde_json::json!({
        "name": "sounding-client-check",
        "private": true,
        "devDependencies": {
            "openapi-typescript": OPENAPI_TYPESCRIPT,
            "typescript": TYPESCRIPT,
        },
    });
    fs::write(
        dir.join("package.json"),
        serde_json::to_string_pretty(&manifest)?,
    )?;
    let status = util::run(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir),
    )?;
    if !status.success() {
        bail!("npm install of openapi-typescript {OPENAPI_TYPESCRIPT} and typescript {TYPESCRIPT} failed");
    }
    Ok(dir)
}

/// openapi-python-client (with ruff, which it runs on its output), pinned, in the
/// `<target>/clients-venv` virtualenv.
fn install_python_tools() -> Result<PathBuf> {
    let venv = util::target_dir().join("clients-venv");
    let bin = venv.join("bin");
    let installed = Command::new(bin.join("openapi-python-client"))
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(OPENAPI_PYTHON_CLIENT))
        && Command::new(bin.join("python"))
            .args(["-c", "import dateutil"])
            .status()
            .is_ok_and(|s| s.success());
    if installed {
        return Ok(venv);
    }
    if !bin.join("pip").exists() {
        let status = util::run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        if !status.success() {
            bail!("python3 -m venv {} failed", venv.display());
        }
    }
    let status = util::run(
        Command::new(bin.join("pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(format!("openapi-python-client=={OPENAPI_PYTHON_CLIENT}"))
            .arg(format!("python-dateutil=={PYTHON_DATEUTIL}")),
    )?;
    if !status.success() {
        bail!("installing openapi-python-client {OPENAPI_PYTHON_CLIENT} failed");
    }
    Ok(venv)
}

/// Generates `api.ts`, then compiles it with `check.ts` under `tsc --strict`.
fn typescript_client(npm: &Path, document: &Path, out: &Path) -> Result<bool> {
    println!("\nxtask clients: TypeScript (openapi-typescript {OPENAPI_TYPESCRIPT}, tsc {TYPESCRIPT} --strict)");
    fs::create_dir_all(out)?;
    let bin = npm.join("node_modules").join(".bin");
    let status = util::run(
        Command::new(bin.join("openapi-typescript"))
            .arg(document)
            .arg("--output")
            .arg(out.join("api.ts")),
    )?;
    if !status.success() {
        return Ok(false);
    }
    fs::write(out.join("check.ts"), CHECK_TS)?;
    let status = util::run(
        Command::new(bin.join("tsc"))
            .args(["--strict", "--noEmit", "--pretty", "false"])
            .args(["--target", "es2022", "--module", "esnext"])
            .args(["--moduleResolution", "bundler"])
            .args(["api.ts", "check.ts"])
            .current_dir(out),
    )?;
    Ok(status.success())
}

/// Generates the package with `--fail-on-warning` (and refuses any warning it prints
/// anyway), then runs `check.py` on it.
fn python_client(venv: &Path, document: &Path, out: &Path) -> Result<bool> {
    println!("\nxtask clients: Python (openapi-python-client {OPENAPI_PYTHON_CLIENT})");
    fs::create_dir_all(out)?;
    let config = out.join("openapi-python-client.yaml");
    fs::write(&config, PYTHON_CONFIG)?;
    let bin = venv.join("bin");
    // Its post-generation hooks run `ruff` from the PATH: the virtualenv's own.
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))?;
    let mut cmd = Command::new(bin.join("openapi-python-client"));
    cmd.args(["generate", "--meta", "none", "--fail-on-warning"])
        .arg("--path")
        .arg(document)
        .arg("--output-path")
        .arg(out.join(PACKAGE))
        .arg("--config")
        .arg(&config)
        .env("PATH", path)
        .current_dir(out);
    println!("$ {}", util::show(&cmd));
    let output = cmd
        .output()
        .with_context(|| format!("cannot run {}", util::show(&cmd)))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    print!("{text}");
    let complaints = complaints(&text);
    for line in &complaints {
        println!("xtask clients: openapi-python-client said: {line}");
    }
    if !output.status.success() || !complaints.is_empty() {
        return Ok(false);
    }
    let script = out.join("check.py");
    fs::write(&script, CHECK_PY)?;
    let status = util::run(
        Command::new(bin.join("python"))
            .arg(&script)
            .arg(out)
            .arg(PACKAGE)
            .arg(document),
    )?;
    Ok(status.success())
}

/// The lines of the generator's output that report something left out or not done.
fn complaints(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|line| {
            let lower = line.to_ascii_lowercase();
            [
                "warning",
                "error",
                "unable",
                "skipping",
                "not in path",
                "unsupported",
            ]
            .iter()
            .any(|word| lower.contains(word))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generator_warnings_and_skipped_steps_are_complaints() {
        let clean = "Generating /tmp/clients/python/sounding_client\n";
        assert!(complaints(clean).is_empty());
        let warned = "Generating x\nWarning(s) encountered while generating. Client was \
                      generated, but some pieces may be missing\n\nWARNING parsing POST \
                      /v1/feedbacks.import within feedbacks.\n\nUnsupported content type \
                      text/csv\nSkipping Integration\n\nruff is not in PATH\n";
        assert_eq!(complaints(warned).len(), 5);
    }
}
