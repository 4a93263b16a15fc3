//! A throwaway PostgreSQL cluster for the test run: the machine's own binaries, a data dir
//! under `target/pg/`, trust authentication, listening only on 127.0.0.1 on a free port.
//! Dropping the `Cluster` stops it and removes its directory, whatever happened in between.

use std::{
    fs,
    io::Write as _,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use anyhow::{bail, Context as _, Result};

/// The unprivileged account the cluster runs as when we are root (PostgreSQL refuses root).
const SERVICE_USER: &str = "postgres";
/// Unix socket paths longer than this do not fit in `sockaddr_un`.
const MAX_SOCKET_PATH: usize = 100;

/// The directory holding `initdb` and `pg_ctl`: the first on `PATH`, else the highest
/// version under `/usr/lib/postgresql/*/bin` (Debian keeps them off `PATH`).
pub fn find_binaries() -> Option<PathBuf> {
    let has_both = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(dir) = std::env::split_paths(&path).find(|d| has_both(d)) {
            return Some(dir);
        }
    }
    let mut versions: Vec<(Vec<u32>, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry
                .file_name()
                .to_str()?
                .split('.')
                .map(|part| part.parse::<u32>().ok())
                .collect::<Option<Vec<u32>>>()?;
            let bin = entry.path().join("bin");
            has_both(&bin).then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// The test tuning: durability is pointless for a test run; speed is not. Every test opens
/// its own pool on its own database, hence the connections.
const TEST_SETTINGS: &[&str] = &[
    "fsync = off",
    "synchronous_commit = off",
    "full_page_writes = off",
    "max_connections = 300",
];

pub struct Cluster {
    bin: PathBuf,
    /// `target/pg`: everything the cluster writes, removed on drop.
    dir: PathBuf,
    /// Run the binaries as this user (when we are root).
    run_as: Option<&'static str>,
    port: u16,
    started: bool,
}

impl Cluster {
    /// Initialises and starts a fresh cluster in `dir`, replacing whatever a killed earlier
    /// run left there, tuned for tests (no durability).
    pub fn start(bin: PathBuf, preferred: PathBuf) -> Result<Cluster> {
        Self::start_with(bin, preferred, TEST_SETTINGS)
    }

    /// Like `start`, with `settings` (postgresql.conf lines) instead of the test tuning:
    /// `cargo xtask bench` keeps PostgreSQL's durable defaults.
    pub fn start_with(bin: PathBuf, preferred: PathBuf, settings: &[&str]) -> Result<Cluster> {
        let run_as = is_root()?.then_some(SERVICE_USER);
        let dir = match run_as {
            Some(user) if !can_enter(user, preferred.parent().unwrap_or(&preferred)) => {
                // E.g. a checkout under /root: the service user cannot reach target/.
                let fallback =
                    std::env::temp_dir().join(format!("sounding-pg-{}", std::process::id()));
                eprintln!(
                    "xtask: the {user} user cannot reach {}; using {} instead",
                    preferred.display(),
                    fallback.display()
                );
                fallback
            }
            _ => preferred,
        };
        eprintln!(
            "xtask: starting a throwaway PostgreSQL from {} in {}",
            bin.display(),
            dir.display()
        );
        let mut cluster = Cluster {
            bin,
            dir,
            run_as,
            port: free_port()?,
            started: false,
        };
        cluster.remove_leftovers();
        // From here on, `Drop` cleans up after any failure.
        let data = cluster.data_dir();
        let sockets = cluster.dir.join("sock");
        fs::create_dir_all(&sockets)
            .with_context(|| format!("cannot create {}", sockets.display()))?;
        if let Some(user) = run_as {
            let status = Command::new("chown")
                .args(["-R", &format!("{user}:"), &path_str(&cluster.dir)?])
                .status()
                .context("cannot run chown")?;
            if !status.success() {
                bail!("cannot give {} to the {user} user", cluster.dir.display());
            }
        }

        let initdb = cluster.bin.join("initdb");
        let output = cluster
            .pg_command(&initdb)
            .args(["-D", &path_str(&data)?])
            .args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C"])
            // A throwaway cluster does not need its files synced to disk.
            .arg("--no-sync")
            .output()
            .with_context(|| format!("cannot run {}", initdb.display()))?;
        if !output.status.success() {
            bail!(
                "initdb failed:\n{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }

        let socket_dir = path_str(&sockets)?;
        let socket_line = if socket_dir.len() + ".s.PGSQL.65535".len() < MAX_SOCKET_PATH {
            format!(
                "unix_socket_directories = '{}'",
                socket_dir.replace('\'', "''")
            )
        } else {
            // Too long for a socket path: TCP only (the tests use TCP anyway).
            "unix_socket_directories = ''".to_owned()
        };
        let mut lines = vec![
            "listen_addresses = '127.0.0.1'".to_owned(),
            format!("port = {}", cluster.port),
            socket_line,
        ];
        lines.extend(settings.iter().map(|s| (*s).to_owned()));
        let conf = data.join("postgresql.conf");
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(&conf)
            .with_context(|| format!("cannot open {}", conf.display()))?;
        writeln!(file, "\n# cargo xtask\n{}", lines.join("\n"))?;
        drop(file);

        let status = cluster
            .pg_ctl()
            .args([
                "-l",
                &path_str(&cluster.log_file())?,
                "-w",
                "-t",
                "60",
                "start",
            ])
            .stdout(Stdio::null())
            .status()
            .context("cannot run pg_ctl start")?;
        cluster.started = true;
        if !status.success() {
            let log = fs::read_to_string(cluster.log_file()).unwrap_or_default();
            bail!("PostgreSQL did not start; its log:\n{log}");
        }
        Ok(cluster)
    }

    /// The superuser URL over TCP.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// The postmaster's process id (its backends are its children).
    pub fn postmaster_pid(&self) -> Option<u32> {
        fs::read_to_string(self.data_dir().join("postmaster.pid"))
            .ok()?
            .lines()
            .next()?
            .trim()
            .parse()
            .ok()
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn log_file(&self) -> PathBuf {
        self.dir.join("postgres.log")
    }

    /// A command run as the cluster's user.
    fn pg_command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        match self.run_as {
            Some(user) => {
                let mut cmd = Command::new("runuser");
                cmd.args(["-u", user, "--"]).arg(program);
                cmd
            }
            None => Command::new(program),
        }
    }

    fn pg_ctl(&self) -> Command {
        let mut cmd = self.pg_command(self.bin.join("pg_ctl"));
        cmd.arg("-D").arg(self.data_dir());
        cmd
    }

    fn stop(&self, mode: &str) {
        let _ = self
            .pg_ctl()
            .args(["-m", mode, "-w", "-t", "30", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    /// A run killed before its cleanup leaves a running postmaster and its files behind.
    fn remove_leftovers(&self) {
        if self.data_dir().join("postmaster.pid").exists() {
            self.stop("immediate");
        }
        if self.dir.exists() {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.started {
            self.stop("fast");
        }
        if let Err(e) = fs::remove_dir_all(&self.dir) {
            if e.kind() != std::io::ErrorKind::NotFound {
                eprintln!("xtask: cannot remove {}: {e}", self.dir.display());
            }
        }
    }
}

/// Whether `user` can reach and search `dir` (every ancestor must let it through).
fn can_enter(user: &str, dir: &Path) -> bool {
    Command::new("runuser")
        .args(["-u", user, "--", "test", "-x"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn is_root() -> Result<bool> {
    let output = Command::new("id")
        .arg("-u")
        .output()
        .context("cannot run `id -u`")?;
    Ok(String::from_utf8_lossy(&output.stdout).trim() == "0")
}

/// A port nobody listens on right now (the cluster takes it a moment later).
fn free_port() -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").context("cannot find a free port")?;
    Ok(listener.local_addr()?.port())
}

fn path_str(path: &Path) -> Result<String> {
    path.to_str()
        .map(str::to_owned)
        .with_context(|| format!("{} is not valid UTF-8", path.display()))
}
