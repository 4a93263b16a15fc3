//! The `sounding` binary as an operator meets it: first start, admin commands, configuration
//! errors and graceful shutdown.

use std::process::Command;

use serde_json::{json, Value};
use sounding_tests::{
    bin::{banner_key, create_team_key, run_sounding as run, sounding_bin, ServerProcess},
    client::op_request,
};

fn sqlite_url(dir: &tempfile::TempDir) -> String {
    format!("sqlite://{}", dir.path().join("cli.db").display())
}

/// `sounding team create --json` of team Acme (subdomain `acme`) on `database_url`, with
/// `more` arguments.
fn create_acme(database_url: &str, more: &[&str]) -> std::process::Output {
    let create = [
        "team",
        "create",
        "--name",
        "Acme",
        "--subdomain",
        "acme",
        "--json",
    ];
    run(&[&create[..], more].concat(), database_url)
}

fn post(base: &str, op: &str, token: &str, body: Value) -> (u16, Value) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let response = op_request(&reqwest::Client::new(), base, op, Some(token), &body)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    })
}

#[test]
fn team_create_json_prints_one_object_whose_key_works() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir);
    let out = create_acme(&url, &["--owner-email", "boss@acme.io"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout.trim().lines().count(),
        1,
        "exactly one line: {stdout}"
    );
    let printed: Value = serde_json::from_str(stdout.trim()).unwrap();
    let key = printed["apiKey"].as_str().unwrap();
    assert_eq!(key.len(), 38);
    assert!(key.bytes().all(|b| b.is_ascii_alphanumeric()));
    assert!(printed["apiKeyId"].is_string());
    assert_eq!(printed["team"]["subdomain"], "acme");
    assert_eq!(printed["team"]["name"], "Acme");

    let again = create_acme(&url, &[]);
    assert!(!again.status.success());
    let err = String::from_utf8(again.stderr).unwrap();
    assert!(err.contains("acme"), "{err}");

    let server = ServerProcess::start(&url, &[]);
    let (status, body) = post(&server.base_url, "teams.info", key, json!({}));
    assert_eq!(status, 200);
    assert_eq!(body["data"]["id"], printed["team"]["id"]);
    // A team already existed, so first start created no default team and printed no key.
    assert!(
        !server.stdout().iter().any(|l| l.contains("shown once")),
        "{:?}",
        server.stdout()
    );
}

#[test]
fn first_start_prints_the_default_key_once_and_later_starts_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir);
    let first = ServerProcess::start(&url, &[]);
    let printed = first.stdout_with("shown once").join("\n");
    assert!(printed.contains("shown once"), "{printed}");
    let key = banner_key(&printed);
    let (status, body) = post(&first.base_url, "teams.info", &key, json!({}));
    assert_eq!(status, 200);
    assert_eq!(body["data"]["subdomain"], "default");
    let status = first.signal_and_wait("TERM");
    assert_eq!(status.code(), Some(0), "SIGTERM is a clean exit");

    let second = ServerProcess::start(&url, &[]);
    assert!(!second.stdout().join("\n").contains(&key));
    assert!(!second.stdout().iter().any(|l| l.contains("shown once")));
    // Tokens survive a restart: the generated secret is kept in the database.
    let (_, identified) = post(
        &second.base_url,
        "public/subscriber.identify",
        &key,
        json!({"email": "a@b.io"}),
    );
    let code = identified["code"].as_str().unwrap().to_owned();
    assert_eq!(second.signal_and_wait("INT").code(), Some(0));
    let third = ServerProcess::start(&url, &[]);
    let (status, _) = post(&third.base_url, "public/subscriber.info", &code, json!({}));
    assert_eq!(status, 200);
}

#[test]
fn on_memory_the_server_prints_its_key_writes_no_file_and_forgets_everything_at_exit() {
    let dir = tempfile::tempdir().unwrap();
    let first = ServerProcess::start_in(dir.path(), "memory://", &[]);
    let printed = first
        .stdout_with("forgotten when the server stops")
        .join("\n");
    let key = banner_key(&printed);
    let (status, _) = post(
        &first.base_url,
        "feedback-boards.create",
        &key,
        json!({"name": "Ideas"}),
    );
    assert_eq!(status, 200);
    let (status, listed) = post(&first.base_url, "feedback-boards.list", &key, json!({}));
    assert_eq!(
        (status, listed["data"][0]["name"].as_str()),
        (200, Some("Ideas"))
    );
    let written: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(written.is_empty(), "memory:// wrote {written:?}");
    assert_eq!(first.signal_and_wait("TERM").code(), Some(0));

    // A new process starts empty: a new team Default, a new key, the old one unknown.
    let second = ServerProcess::start_in(dir.path(), "memory://", &[]);
    let again = banner_key(&second.stdout_with("shown once").join("\n"));
    assert_ne!(again, key);
    assert_eq!(post(&second.base_url, "teams.info", &key, json!({})).0, 401);
    let (_, boards) = post(&second.base_url, "feedback-boards.list", &again, json!({}));
    assert_eq!(boards["data"], json!([]));

    // The admin commands would run in a process of their own: refused as a usage error.
    let refused = run(
        &["team", "create", "--name", "A", "--subdomain", "a"],
        "memory://",
    );
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("memory:// keeps nothing between processes"),
        "{stderr}"
    );
}

#[test]
fn api_key_create_and_revoke_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir);
    create_team_key(&url, "Keys", "keys");
    let out = run(
        &[
            "api-key",
            "create",
            "--team",
            "keys",
            "--role",
            "member",
            "--read-only",
            "--json",
        ],
        &url,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let key: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(key["role"], "member");
    assert_eq!(key["readOnly"], true);
    let secret = key["apiKey"].as_str().unwrap();

    let server = ServerProcess::start(&url, &[]);
    assert_eq!(
        post(&server.base_url, "teams.info", secret, json!({})).0,
        200
    );
    assert_eq!(
        post(
            &server.base_url,
            "teams.update",
            secret,
            json!({"name": "x"})
        )
        .0,
        403
    );
    let revoked = run(
        &["api-key", "revoke", key["apiKeyId"].as_str().unwrap()],
        &url,
    );
    assert!(
        revoked.status.success(),
        "{}",
        String::from_utf8_lossy(&revoked.stderr)
    );
    let (status, body) = post(&server.base_url, "teams.info", secret, json!({}));
    assert_eq!(
        (status, body),
        (
            401,
            json!({"error": "Authentication required", "statusCode": 401})
        )
    );
    let unknown = run(
        &["api-key", "revoke", key["apiKeyId"].as_str().unwrap()],
        &url,
    );
    assert!(!unknown.status.success());
}

#[test]
fn a_bad_configuration_value_stops_start_up_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir);
    for (var, value) in [
        ("SOUNDING_RATE_LIMIT_KEY_PER_MIN", "lots"),
        ("SOUNDING_JWT_SECRET", "short"),
        ("SOUNDING_LOG_FORMAT", "xml"),
        ("SOUNDING_DATABASE_URL", "mysql://x"),
        ("SOUNDING_CORS_ORIGINS", "https://shop.example/app"),
        ("SOUNDING_CORS_ORIGINS", "*"),
    ] {
        let out = Command::new(sounding_bin())
            .args(["serve", "--bind", "127.0.0.1:0"])
            .env("SOUNDING_DATABASE_URL", &url)
            .env(var, value)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{var}={value} was accepted");
        let stderr = String::from_utf8(out.stderr).unwrap();
        let last = stderr.trim().lines().last().unwrap_or_default();
        assert!(
            last.contains(var) || (var == "SOUNDING_DATABASE_URL" && last.contains("mysql")),
            "{var}: {stderr}"
        );
    }
}

fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    meta.permissions().mode() & 0o777
}

/// The database holds the token-signing secret, webhook secrets and e-mails: under umask 022
/// the directories the server creates are 0700 and the database, WAL and SHM files 0600, for
/// `serve` and for the admin commands alike; files left too open by an older version are
/// tightened on the next start.
#[test]
fn database_files_and_directories_are_private_under_umask_022() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("var").join("sounding");
    let url = format!("sqlite://{}", data.join("s.db").display());
    let server = ServerProcess::start_with_umask("022", &url, &[]);
    let key = banner_key(&server.stdout_with("shown once").join("\n"));
    let (status, _) = post(
        &server.base_url,
        "public/subscriber.identify",
        &key,
        json!({"email": "secret@acme.io"}),
    );
    assert_eq!(status, 200);
    assert_eq!(mode(&dir.path().join("var")), 0o700);
    assert_eq!(mode(&data), 0o700);
    for file in ["s.db", "s.db-wal", "s.db-shm"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file} while serving");
    }
    assert_eq!(server.signal_and_wait("TERM").code(), Some(0));

    // An admin command creating a database of its own.
    let cli_data = dir.path().join("cli");
    let cli_url = format!("sqlite://{}", cli_data.join("c.db").display());
    let out = Command::new("sh")
        .arg("-c")
        .arg("umask 022 && exec \"$0\" \"$@\"")
        .arg(sounding_bin())
        .args(["team", "create", "--name", "Acme", "--subdomain", "acme"])
        .env("SOUNDING_DATABASE_URL", &cli_url)
        .env_remove("SOUNDING_JWT_SECRET")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mode(&cli_data), 0o700);
    assert_eq!(mode(&cli_data.join("c.db")), 0o600);

    // Files an older version left 0644 are 0600 after the next start.
    use std::os::unix::fs::PermissionsExt;
    let db = data.join("s.db");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let again = ServerProcess::start_with_umask("022", &url, &[]);
    for file in ["s.db", "s.db-wal", "s.db-shm"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file} after a restart");
    }
    assert!(
        again
            .stderr()
            .iter()
            .any(|l| l.contains("readable by other accounts")),
        "the tightening is logged: {:?}",
        again.stderr()
    );
}
