//! Locating the real `sounding` binary for tests that drive the command line.

use std::{path::PathBuf, process::Command, sync::OnceLock};

/// The `sounding` binary: `$SOUNDING_BIN` if set (`cargo xtask test` sets the release build),
/// else the debug build, built on first use.
pub fn sounding_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Ok(path) = std::env::var("SOUNDING_BIN") {
            return PathBuf::from(path);
        }
        let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "-p",
                "sounding-server",
                "--bin",
                "sounding",
            ])
            .current_dir(&workspace)
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building the sounding binary failed");
        let target = std::env::var("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|_| workspace.join("target"));
        target.join("debug").join("sounding")
    })
    .clone()
}

/// `sounding ARGS` on `database_url` (the secret it finds there, not one from the
/// environment), run to its end.
pub fn run_sounding(args: &[&str], database_url: &str) -> std::process::Output {
    Command::new(sounding_bin())
        .args(args)
        .env("SOUNDING_DATABASE_URL", database_url)
        .env_remove("SOUNDING_JWT_SECRET")
        .output()
        .expect("run sounding")
}

/// The 38-character owner key in a start's banner.
pub fn banner_key(printed: &str) -> String {
    printed
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| w.len() == 38)
        .expect("a 38-character key in the banner")
        .to_owned()
}

/// The API key of a team made with `sounding team create --json` on `database_url`, before a
/// server first starts there (so the start creates no default team).
pub fn create_team_key(database_url: &str, name: &str, subdomain: &str) -> String {
    let out = Command::new(sounding_bin())
        .args([
            "team",
            "create",
            "--name",
            name,
            "--subdomain",
            subdomain,
            "--json",
        ])
        .env("SOUNDING_DATABASE_URL", database_url)
        .env_remove("SOUNDING_JWT_SECRET")
        .output()
        .expect("run sounding team create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    printed["apiKey"].as_str().expect("apiKey").to_owned()
}

/// A `sounding serve` child process, with its output collected line by line.
pub struct ServerProcess {
    pub child: std::process::Child,
    pub base_url: String,
    stdout: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    stderr: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl ServerProcess {
    /// Starts `sounding serve` on 127.0.0.1:0 against `database_url` and waits until it
    /// reports the address it listens on.
    pub fn start(database_url: &str, extra_env: &[(&str, &str)]) -> ServerProcess {
        Self::spawn(Command::new(sounding_bin()), database_url, extra_env)
    }

    /// `start` with `dir` as the working directory.
    pub fn start_in(
        dir: &std::path::Path,
        database_url: &str,
        extra_env: &[(&str, &str)],
    ) -> ServerProcess {
        let mut command = Command::new(sounding_bin());
        command.current_dir(dir);
        Self::spawn(command, database_url, extra_env)
    }

    /// `start` with the process's umask set to `umask` (e.g. "022") by `sh`, which then
    /// `exec`s the server: the workspace forbids the `unsafe` a pre-exec hook would need.
    pub fn start_with_umask(
        umask: &str,
        database_url: &str,
        extra_env: &[(&str, &str)],
    ) -> ServerProcess {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
            .arg(sounding_bin());
        Self::spawn(command, database_url, extra_env)
    }

    fn spawn(mut command: Command, database_url: &str, extra_env: &[(&str, &str)]) -> Self {
        use std::io::BufRead;
        use std::process::Stdio;
        command
            .args(["serve", "--bind", "127.0.0.1:0"])
            .env("SOUNDING_DATABASE_URL", database_url)
            .env("SOUNDING_LOG", "info")
            .env_remove("SOUNDING_JWT_SECRET")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in extra_env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("spawn sounding serve");
        let collect = |stream: Box<dyn std::io::Read + Send>| {
            let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let sink = lines.clone();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(stream)
                    .lines()
                    .map_while(Result::ok)
                {
                    sink.lock().unwrap().push(line);
                }
            });
            lines
        };
        let stdout = collect(Box::new(child.stdout.take().unwrap()));
        let stderr = collect(Box::new(child.stderr.take().unwrap()));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let base_url = loop {
            let found = stderr
                .lock()
                .unwrap()
                .iter()
                .chain(stdout.lock().unwrap().iter())
                .find_map(|line| {
                    line.split("listening on ").nth(1).map(|rest| {
                        rest.split_whitespace()
                            .next()
                            .unwrap_or_default()
                            .trim_matches('"')
                            .to_owned()
                    })
                });
            if let Some(url) = found {
                break url;
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "sounding serve exited early with {status}: {:?}",
                    stderr.lock().unwrap()
                );
            }
            assert!(
                std::time::Instant::now() < deadline,
                "server did not report its address"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        ServerProcess {
            child,
            base_url,
            stdout,
            stderr,
        }
    }

    pub fn stdout(&self) -> Vec<String> {
        self.stdout.lock().unwrap().clone()
    }

    /// Standard output once a line contains `needle` (within 10 s). Output on stdout is read
    /// by another thread than the "listening" line on stderr, and the key banner is printed
    /// just after it: a check right after the start may find it not there yet.
    pub fn stdout_with(&self, needle: &str) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let lines = self.stdout();
            if lines.iter().any(|l| l.contains(needle)) {
                return lines;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no line with {needle:?} on stdout: {lines:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    pub fn stderr(&self) -> Vec<String> {
        self.stderr.lock().unwrap().clone()
    }

    /// Sends `signal` (e.g. "TERM") and waits for the exit status.
    pub fn signal_and_wait(mut self, signal: &str) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("run kill");
        assert!(status.success());
        self.child.wait().expect("wait for sounding")
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
