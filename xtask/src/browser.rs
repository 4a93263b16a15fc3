//! `cargo xtask browser [--docs]`: the end-user loop in a real browser (issue 22). Starts the
//! release binary on a fresh SQLite file with one other origin allowed by CORS, then runs
//! `browser/e2e.mjs` with Playwright (playwright-core, pinned, under the target dir) driving
//! Debian's Chromium: a page on that other origin embeds the widget with a subscriber token,
//! votes, comments and submits feedback, and the script checks each result through the API;
//! then it loads the public portal and checks its content and the XSS cases. Screenshots go to
//! `target/browser/`; with `--docs` the widget's and the portal's are also copied to `docs/`.

use std::{fs, net::TcpListener, path::PathBuf, process::Command, sync::atomic::AtomicBool};

use anyhow::{bail, Context as _, Result};

use crate::{contract::Server, test, util};

/// The Playwright release the run is pinned to (only its library: the browser is Debian's).
const PLAYWRIGHT_CORE: &str = "1.65.1";
const SCRIPT: &str = include_str!("browser/e2e.mjs");

pub fn run(args: &[String]) -> Result<u8> {
    let docs = match args {
        [] => false,
        [flag] if flag == "--docs" => true,
        _ => bail!("usage: cargo xtask browser [--docs]"),
    };
    run_with(&AtomicBool::new(false), docs)
}

/// Where Chromium is looked for: Debian's package, or `SOUNDING_CHROMIUM`.
fn chromium() -> Option<PathBuf> {
    std::env::var_os("SOUNDING_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from("/usr/bin/chromium")))
        .filter(|path| path.exists())
}

pub fn run_with(interrupted: &AtomicBool, docs: bool) -> Result<u8> {
    let (Some(chromium), true) = (chromium(), works("node") && works("npm")) else {
        if test::is_ci() {
            util::banner(&[
                "Chromium (/usr/bin/chromium) or node and npm were not found, and CI=true.",
                "The browser tests must run in CI: install the `chromium`, `nodejs`",
                "and `npm` packages (.ci/run does) and try again.",
            ]);
            bail!("no browser under CI");
        }
        util::banner(SKIPPED);
        return Ok(0);
    };
    let playwright = install_playwright()?;

    let binary = test::release_binary();
    let status = test::build_release_binary()?;
    if !status.success() {
        return Ok(util::exit_code(status).max(1));
    }
    let work = util::target_dir().join("browser");
    if work.exists() {
        fs::remove_dir_all(&work).with_context(|| format!("cannot clear {}", work.display()))?;
    }
    fs::create_dir_all(&work)?;

    // The embedding page's origin: another port than the server's, so every call of the
    // widget is cross-origin and needs the CORS grant.
    let host_port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let host_origin = format!("http://127.0.0.1:{host_port}");
    let server = Server::start(
        &binary,
        &work.join("sounding.db"),
        &[
            ("SOUNDING_CORS_ORIGINS", host_origin.as_str()),
            ("SOUNDING_RATE_LIMIT_SUBSCRIBER_PER_MIN", "100"),
        ],
    )?;
    // Beside its node_modules, where `import "playwright-core"` resolves.
    let script = playwright.join("e2e.mjs");
    fs::write(&script, SCRIPT)?;

    let mut cmd = Command::new("node");
    cmd.arg(&script)
        .env("SOUNDING_BASE", &server.base_url)
        .env("SOUNDING_KEY", &server.owner_key)
        .env("HOST_PORT", host_port.to_string())
        .env("CHROMIUM", &chromium)
        .env("SHOTS", &work);
    let code = test::run_until_done(&mut cmd, interrupted)?;
    drop(server);
    if code != 0 {
        return Ok(code);
    }
    println!("xtask browser: passed; screenshots in {}", work.display());
    if docs {
        for shot in ["widget.png", "portal.png"] {
            let to = util::root().join("docs").join(shot);
            fs::copy(work.join(shot), &to)
                .with_context(|| format!("cannot copy {shot} to {}", to.display()))?;
            println!("wrote {}", to.display());
        }
    }
    Ok(0)
}

fn works(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// playwright-core, pinned, in `<target>/browser-npm`.
fn install_playwright() -> Result<PathBuf> {
    let dir = util::target_dir().join("browser-npm");
    let manifest = dir
        .join("node_modules")
        .join("playwright-core")
        .join("package.json");
    let installed = fs::read_to_string(&manifest)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|v| v["version"].as_str().map(str::to_owned));
    if installed.as_deref() == Some(PLAYWRIGHT_CORE) {
        return Ok(dir);
    }
    fs::create_dir_all(&dir)?;
    let package = serde_json::json!({
        "name": "sounding-browser-check",
        "private": true,
        "type": "module",
        "devDependencies": { "playwright-core": PLAYWRIGHT_CORE },
    });
    fs::write(
        dir.join("package.json"),
        serde_json::to_string_pretty(&package)?,
    )?;
    let status = util::run(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
            // playwright-core downloads no browser; this keeps any other package from trying.
            .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
            .current_dir(&dir),
    )?;
    if !status.success() {
        bail!("npm install of playwright-core {PLAYWRIGHT_CORE} failed");
    }
    Ok(dir)
}

const SKIPPED: &[&str] = &[
    "Chromium (/usr/bin/chromium) or node and npm were not found:",
    "THE BROWSER TESTS (widget and portal in Chromium) ARE SKIPPED.",
    "",
    "Install them (Debian: apt-get install chromium nodejs npm) and run",
    "`cargo xtask browser` or `cargo xtask test` again.",
];
