//! `cargo xtask contract`: fuzzes the running release binary with schemathesis against its own
//! OpenAPI document, once with the team key and once with a subscriber token, and fails on
//! anything schemathesis reports (server errors, responses or status codes the document does
//! not describe, and inputs accepted or refused against the document). `cargo xtask test`
//! runs it after the tests pass. See docs/security.md, "Contract fuzzing".

use std::{
    collections::BTreeMap,
    fs,
    io::{BufRead as _, BufReader, Read as _, Write as _},
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Arc,
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::{anyhow, bail, Context as _, Result};
use serde_json::{json, Value};

use crate::{test, util};

/// The schemathesis release the run is pinned to; a new one can change what is generated.
const SCHEMATHESIS_VERSION: &str = "4.32.5";
/// Fixed, so a failure reproduces with the same command.
const SEED: &str = "1";
/// Cases per operation and phase: about two and a half minutes for both runs on 2 cores.
const MAX_EXAMPLES: &str = "20";
const HOOKS: &str = include_str!("contract_hooks.py");
/// The few (operation, check) allowances of the team-key run, each with its reason.
const KEY_RUN_CONFIG: &str = include_str!("contract_key_run.toml");

/// Operations the team-key run leaves out besides those for subscribers only.
const KEY_RUN_EXCLUDED: &[&str] = &[];
/// Operations the subscriber-token run leaves out besides those for team keys only.
const TOKEN_RUN_EXCLUDED: &[&str] = &[
    // Revokes the very token the run authenticates with: every later case would be a 401.
    "public/subscriber.logout",
];
// api-keys.delete, users.delete and subscribers.delete stay in: the hooks only ever swap in
// the ids of the spare key, user and subscriber seeded for them, never the run's own, and a
// random UUID never names the owner.

pub fn run() -> Result<u8> {
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        // Fails only when `test` already installed one; then ctrl-c still stops the children
        // (the terminal signals the whole group) and the guard below kills the server.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    run_with(&interrupted)
}

pub fn run_with(interrupted: &AtomicBool) -> Result<u8> {
    let started = Instant::now();
    if !python_has_venv() {
        if test::is_ci() {
            util::banner(&[
                "python3 with the venv module was not found, and CI=true.",
                "Contract fuzzing (schemathesis) must run in CI: install",
                "python3-venv (.ci/run does) and try again.",
            ]);
            bail!("no python3 venv under CI");
        }
        util::banner(SKIPPED);
        return Ok(0);
    }
    let schemathesis = install_schemathesis()?;

    // Always asked of cargo (a no-op when fresh): a binary left from older sources would be
    // fuzzed against its own, older document and prove nothing about the current code.
    let binary = test::release_binary();
    let status = test::build_release_binary()?;
    if !status.success() {
        return Ok(util::exit_code(status).max(1));
    }

    let work = util::target_dir().join("contract");
    if work.exists() {
        fs::remove_dir_all(&work).with_context(|| format!("cannot clear {}", work.display()))?;
    }
    fs::create_dir_all(&work)?;
    let server = Server::start(&binary, &work.join("sounding.db"), &[])?;
    let seeded = seed(&server.base_url, &server.owner_key).context("seeding the team failed")?;
    let hooks = work.join("hooks.py");
    fs::write(&hooks, HOOKS)?;

    let document = util::root().join("docs/openapi.json");
    let document: Value = serde_json::from_str(&fs::read_to_string(&document)?)
        .with_context(|| format!("{} is not JSON", document.display()))?;
    let mut failed = false;
    let key_config = work.join("key-run.toml");
    fs::write(&key_config, KEY_RUN_CONFIG)?;
    let token_config = work.join("token-run.toml");
    fs::write(&token_config, "")?;
    // The token run first: the key run deletes some of the seeded things it aims at.
    for (name, credential, scheme, excluded, config) in [
        (
            "subscriber token",
            &seeded.token,
            "subscriberToken",
            TOKEN_RUN_EXCLUDED,
            &token_config,
        ),
        (
            "team key",
            &server.owner_key,
            "apiKey",
            KEY_RUN_EXCLUDED,
            &key_config,
        ),
    ] {
        if interrupted.load(Ordering::SeqCst) {
            return Ok(130);
        }
        let mut cmd = Command::new(&schemathesis);
        cmd.arg("--config-file")
            .arg(config)
            .args(["run", &format!("{}/v1/openapi.json", server.base_url)])
            .args(["--url", &server.base_url])
            .args(["--checks", "all"])
            // Every phase but `stateful`: its chains of calls follow links schemathesis infers
            // between operations, and at the same seed it once reported a request as both a
            // positive test case and "schema-violating request accepted" (ST201), and passed
            // on other runs. A check that flips at a fixed seed cannot gate CI; the other
            // phases exercise every operation alone with every check.
            .args(["--phases", "examples,coverage,fuzzing"])
            .args(["--seed", SEED, "--max-examples", MAX_EXAMPLES])
            // One worker: Hypothesis is not thread-safe. With two, its lambda descriptions
            // raced in CPython's shared AST recursion state (gh-106905) and CI once failed
            // `feedback-boards.create` with a FlakyFailure raised while generating, not by
            // anything the server answered.
            .args(["--workers", "1", "--no-color"])
            .args(["--header", &format!("Authorization: Bearer {credential}")])
            .arg(format!(
                "--generation-database={}",
                work.join(format!("hypothesis-{}", name.replace(' ', "-")))
                    .display()
            ))
            .env("SCHEMATHESIS_HOOKS", &hooks)
            .env("SOUNDING_CONTRACT_IDS", seeded.ids.to_string())
            .current_dir(&work);
        // Each run covers the operations its credential is for: the others can only be 401.
        for operation in excluded.iter().copied().chain(
            operations_without(&document, scheme)
                .iter()
                .map(String::as_str),
        ) {
            cmd.args(["--exclude-operation-id", operation]);
        }
        let run_started = Instant::now();
        println!("\nxtask contract: schemathesis with the {name}");
        // Polled, so ctrl-c or SIGTERM to us ends schemathesis and then (the guard) the server.
        let code = test::run_until_done(&mut cmd, interrupted)?;
        println!(
            "xtask contract: the {name} run took {:.0?}",
            run_started.elapsed()
        );
        if code == 130 {
            return Ok(130);
        }
        if code != 0 {
            failed = true;
        }
        if server.exited() {
            bail!("the server exited during the {name} run");
        }
    }
    drop(server);
    println!(
        "xtask contract: {} in {:.0?}",
        if failed { "FAILED" } else { "passed" },
        started.elapsed()
    );
    Ok(u8::from(failed))
}

/// The ids of the `/v1` operations whose security does not name `scheme`.
fn operations_without(document: &Value, scheme: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let paths = document["paths"].as_object().into_iter().flatten();
    for (path, item) in paths {
        let operations = item.as_object().into_iter().flatten();
        for operation in operations.map(|(_, op)| op) {
            let names = operation["security"].as_array().into_iter().flatten();
            let takes_it = names
                .filter_map(Value::as_object)
                .any(|requirement| requirement.contains_key(scheme));
            if path.starts_with("/v1/") && !takes_it {
                if let Some(id) = operation["operationId"].as_str() {
                    ids.push(id.to_owned());
                }
            }
        }
    }
    ids
}

const SKIPPED: &[&str] = &[
    "python3 with the venv module was not found.",
    "",
    "CONTRACT FUZZING (SCHEMATHESIS) IS SKIPPED in this run.",
    "",
    "Install it (Debian: apt-get install python3-venv) and run",
    "`cargo xtask contract` or `cargo xtask test` again.",
];

/// `python3 -m venv` works: Debian splits `venv`'s `ensurepip` into python3-venv.
fn python_has_venv() -> bool {
    Command::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The pinned schemathesis in a virtualenv under the target dir; installs it when absent.
fn install_schemathesis() -> Result<PathBuf> {
    let venv = util::target_dir().join("schemathesis-venv");
    let bin = venv.join("bin").join("schemathesis");
    let installed = Command::new(&bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(SCHEMATHESIS_VERSION));
    if installed {
        return Ok(bin);
    }
    if !venv.join("bin").join("pip").exists() {
        let status = util::run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        if !status.success() {
            bail!("python3 -m venv {} failed", venv.display());
        }
    }
    let status = util::run(
        Command::new(venv.join("bin").join("pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(format!("schemathesis=={SCHEMATHESIS_VERSION}")),
    )?;
    if !status.success() {
        bail!("installing schemathesis {SCHEMATHESIS_VERSION} failed");
    }
    Ok(bin)
}

/// `sounding serve` on a fresh SQLite file; killed when dropped, whatever happened.
pub(crate) struct Server {
    child: Child,
    pub(crate) base_url: String,
    pub(crate) owner_key: String,
}

impl Server {
    /// Started with `env` added to (or overriding) the fuzzing settings.
    pub(crate) fn start(binary: &Path, database: &Path, env: &[(&str, &str)]) -> Result<Server> {
        let mut child = Command::new(binary)
            .args(["serve", "--bind", "127.0.0.1:0"])
            .env(
                "SOUNDING_DATABASE_URL",
                format!("sqlite://{}", database.display()),
            )
            .env("SOUNDING_LOG", "warn,sounding_server=info")
            .env_remove("SOUNDING_JWT_SECRET")
            // The fuzzer sends thousands of requests a minute from one key and one token.
            .env("SOUNDING_RATE_LIMIT_KEY_PER_MIN", "1000000")
            .env("SOUNDING_RATE_LIMIT_SUBSCRIBER_PER_MIN", "1000000")
            // The seeded webhook points at a closed local port.
            .env("SOUNDING_WEBHOOK_ALLOW_PRIVATE", "true")
            .env("SOUNDING_WEBHOOK_TIMEOUT_MS", "500")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {}", binary.display()))?;
        let (lines_tx, lines) = mpsc::channel::<String>();
        for stream in [
            Box::new(child.stdout.take().expect("piped")) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().expect("piped")),
        ] {
            let tx = lines_tx.clone();
            // Keeps draining after start-up so the server never blocks on a full pipe.
            thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            });
        }
        let mut server = Server {
            child,
            base_url: String::new(),
            owner_key: String::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while server.base_url.is_empty() || server.owner_key.is_empty() {
            let remaining = deadline.saturating_duration_since(Instant::now());
            let line = match lines.recv_timeout(remaining) {
                Ok(line) => line,
                Err(_) => bail!("the server did not print its address and owner key in time"),
            };
            if let Some(rest) = line.split("listening on ").nth(1) {
                server.base_url = rest
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .trim_matches('"')
                    .to_owned();
            }
            if let Some(rest) = line.split("store it now): ").nth(1) {
                server.owner_key = rest.trim_end_matches(['|', ' ']).to_owned();
            }
        }
        // The server's own log after start-up goes to our stderr: a panic there explains a 5xx.
        thread::spawn(move || {
            for line in lines {
                eprintln!("[sounding] {line}");
            }
        });
        Ok(server)
    }

    fn exited(&self) -> bool {
        // `try_wait` needs `&mut`; a zero-signal `kill` asks the same without reaping.
        !Command::new("kill")
            .args(["-0", &self.child.id().to_string()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the fuzzer gets to aim at: ids by kind (for the hooks) and a subscriber token.
struct Seeded {
    ids: Value,
    token: String,
}

/// Creates a little of everything through the API, so generated requests can name real ids.
fn seed(base: &str, key: &str) -> Result<Seeded> {
    let mut ids: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut keep = |kind: &'static str, reply: &Value, pointer: &str| -> Result<String> {
        let id = reply
            .pointer(pointer)
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("no {pointer} in {reply}"))?
            .to_owned();
        ids.entry(kind).or_default().push(id.clone());
        Ok(id)
    };
    let team = |path: &str, body: Value| post(base, path, key, &body);

    let board = keep(
        "board",
        &team("feedback-boards.create", json!({"name": "Ideas"}))?,
        "/data/id",
    )?;
    keep(
        "board",
        &team("feedback-boards.create", json!({"name": "Bugs"}))?,
        "/data/id",
    )?;
    for title in ["Dark mode", "Export to CSV", "Faster search"] {
        keep(
            "feedback",
            &team(
                "feedbacks.create",
                json!({"title": title, "text": "Please.", "boardId": board}),
            )?,
            "/data/id",
        )?;
    }
    let roadmap = keep(
        "roadmap",
        &team("roadmaps.create", json!({"name": "Public roadmap"}))?,
        "/data/id",
    )?;
    let mut stages = Vec::new();
    for name in ["Planned", "In progress", "Done"] {
        stages.push(keep(
            "stage",
            &team("stages.create", json!({"roadmapId": roadmap, "name": name}))?,
            "/data/id",
        )?);
    }
    keep(
        "tag",
        &team("tags.create", json!({"name": "ux", "color": "#336699"}))?,
        "/data/id",
    )?;
    keep(
        "document",
        &team(
            "documents.create",
            json!({"title": "Changelog", "text": "# 1.0", "publish": true}),
        )?,
        "/data/id",
    )?;
    // A port that was free a moment ago: deliveries fail fast and get retried.
    let closed_port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    keep(
        "webhook",
        &team(
            "automation.subscribe",
            json!({
                "target_url": format!("http://127.0.0.1:{closed_port}/hook"),
                "event": "new_feedback",
            }),
        )?,
        "/data/id",
    )?;
    // Spares for the deletions, so a fuzzed delete never hits the run's own credentials.
    keep(
        "user",
        &team(
            "users.create",
            json!({"email": "spare@example.com", "name": "Spare", "role": "member"}),
        )?,
        "/data/id",
    )?;
    keep(
        "apiKey",
        &team("api-keys.create", json!({"name": "spare"}))?,
        "/data/id",
    )?;
    let spare = team(
        "public/subscriber.identify",
        json!({"email": "spare-subscriber@example.com", "name": "Spare"}),
    )?;
    keep("subscriber", &spare, "/data/id")?;

    let identified = team(
        "public/subscriber.identify",
        json!({"email": "fuzzer@example.com", "name": "Fuzzer"}),
    )?;
    let token = identified["code"]
        .as_str()
        .ok_or_else(|| anyhow!("no code in {identified}"))?
        .to_owned();
    let subscriber = |path: &str, body: Value| post(base, path, &token, &body);
    keep(
        "topic",
        &subscriber(
            "public/topics.create",
            json!({"title": "Mobile app", "roadmapId": roadmap, "stageId": stages[0]}),
        )?,
        "/data/id",
    )?;
    let own = keep(
        "feedback",
        &subscriber(
            "public/feedbacks.create",
            json!({"title": "Keyboard shortcuts", "boardId": board}),
        )?,
        "/data/id",
    )?;
    keep(
        "comment",
        &subscriber(
            "public/feedback-comments.create",
            json!({"feedbackId": own, "text": "Also vim keys."}),
        )?,
        "/data/id",
    )?;
    subscriber("public/feedback-votes.create", json!({"feedbackId": own}))?;

    Ok(Seeded {
        ids: serde_json::to_value(ids)?,
        token,
    })
}

/// One JSON POST to `/v1/<path>` over a fresh connection; anything but a 200 is an error.
/// A few lines of HTTP/1.1 instead of an HTTP client dependency for the whole xtask.
fn post(base: &str, path: &str, bearer: &str, body: &Value) -> Result<Value> {
    let authority = base
        .strip_prefix("http://")
        .ok_or_else(|| anyhow!("not an http:// base URL: {base}"))?;
    let body = body.to_string();
    let mut stream = TcpStream::connect(authority)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    write!(
        stream,
        "POST /v1/{path} HTTP/1.1\r\nHost: {authority}\r\nAuthorization: Bearer {bearer}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let (status, reply) = parse_response(&raw)?;
    if status != 200 {
        bail!(
            "POST /v1/{path} {body} answered {status}: {}",
            String::from_utf8_lossy(&reply)
        );
    }
    serde_json::from_slice(&reply).with_context(|| format!("POST /v1/{path}: reply is not JSON"))
}

/// The status and (de-chunked) body of a whole HTTP/1.1 response.
fn parse_response(raw: &[u8]) -> Result<(u16, Vec<u8>)> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| anyhow!("no end of headers in the response"))?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut body = &raw[split + 4..];
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| anyhow!("bad status line: {head}"))?;
    let chunked = head.lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    if !chunked {
        return Ok((status, body.to_vec()));
    }
    let mut out = Vec::new();
    loop {
        let end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| anyhow!("truncated chunk"))?;
        let size_text = String::from_utf8_lossy(&body[..end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)?;
        body = &body[end + 2..];
        if size == 0 {
            return Ok((status, out));
        }
        out.extend_from_slice(body.get(..size).ok_or_else(|| anyhow!("truncated chunk"))?);
        body = body.get(size + 2..).unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_run_leaves_out_the_operations_of_the_other_credential() {
        let document = json!({"paths": {
            "/v1/a.list": {"post": {"operationId": "a.list", "security": [{"apiKey": []}]}},
            "/v1/b.vote": {"post": {"operationId": "b.vote",
                "security": [{"subscriberToken": []}, {"subscriberCookie": []}]}},
            "/v1/c.info": {"post": {"operationId": "c.info",
                "security": [{"apiKey": []}, {"subscriberToken": []}]}},
            "/healthz": {"get": {"operationId": "healthz"}},
        }});
        assert_eq!(operations_without(&document, "apiKey"), ["b.vote"]);
        assert_eq!(operations_without(&document, "subscriberToken"), ["a.list"]);
    }

    #[test]
    fn plain_and_chunked_responses_are_read() {
        let plain = b"HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\n{}";
        assert_eq!(parse_response(plain).unwrap(), (201, b"{}".to_vec()));
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n";
        assert_eq!(
            parse_response(chunked).unwrap(),
            (200, b"{\"a\":1}".to_vec())
        );
        assert!(parse_response(b"HTTP/1.1 200 OK\r\n").is_err());
    }
}
