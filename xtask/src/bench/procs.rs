//! What the kernel says about a process: CPU time (`/proc/<pid>/stat`), peak and current
//! resident memory (`VmHWM`, `VmRSS` in `/proc/<pid>/status`), and starting processes on
//! given cores (taskset) with their output going to a log file.

use std::{
    fs,
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{bail, Context as _, Result};

/// Clock ticks a second, for the CPU times in `/proc/<pid>/stat`.
pub fn clock_ticks() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100)
}

/// The fields of `/proc/<pid>/stat` after the command name (which may hold spaces).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// User plus system CPU ticks of `pid`, all its threads included (fields 14 and 15).
pub fn cpu_ticks(pid: u32) -> u64 {
    stat_fields(pid)
        .map(|f| {
            // After the name, field 3 (state) is index 0, so field n is index n - 3.
            let get = |n: usize| {
                f.get(n - 3)
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            get(14) + get(15)
        })
        .unwrap_or(0)
}

/// The processes whose parent is `parent` (PostgreSQL's backends under its postmaster).
pub fn children(parent: u32) -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            stat_fields(*pid).and_then(|f| f.get(1).and_then(|p| p.parse::<u32>().ok()))
                == Some(parent)
        })
        .collect()
}

fn status_kib(pid: u32, field: &str) -> Option<u64> {
    fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Peak resident memory since start or the last `reset_peak`, in KiB.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmHWM:")
}

pub fn rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS:")
}

/// Resets `VmHWM` to the current RSS (Linux ≥ 4.0), so each scenario gets its own peak.
pub fn reset_peak(pid: u32) -> bool {
    fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok()
}

/// `program args`, on `cores` when given, output appended to `log`.
pub fn spawn_pinned(
    cores: Option<&str>,
    program: &Path,
    args: &[&str],
    env: &[(&str, String)],
    log: &Path,
) -> Result<Child> {
    let mut cmd = match cores {
        // taskset execs the program: the child's pid is the program's.
        Some(cores) => {
            let mut cmd = Command::new("taskset");
            cmd.args(["-c", cores]).arg(program);
            cmd
        }
        None => Command::new(program),
    };
    let out = fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    cmd.spawn()
        .with_context(|| format!("cannot start {}", program.display()))
}

/// Waits until `log` has a `listening on http://ADDR` line and returns ADDR.
pub fn wait_listening(child: &mut Child, log: &Path) -> Result<std::net::SocketAddr> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let text = fs::read_to_string(log).unwrap_or_default();
        let found = text.lines().find_map(|line| {
            let rest = line.split("listening on http://").nth(1)?;
            rest.split(|c: char| c.is_whitespace() || c == '"')
                .next()?
                .parse()
                .ok()
        });
        if let Some(addr) = found {
            return Ok(addr);
        }
        if let Some(status) = child.try_wait()? {
            bail!("exited early with {status}; its log:\n{text}");
        }
        if Instant::now() > deadline {
            bail!("did not report its address within 60 s; its log:\n{text}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sets the CPU affinity of `pid` and all its threads.
pub fn pin(pid: u32, cores: &str) -> Result<()> {
    let status = Command::new("taskset")
        .args(["-a", "-p", "-c", cores, &pid.to_string()])
        .stdout(Stdio::null())
        .status()
        .context("cannot run taskset")?;
    if !status.success() {
        bail!("taskset -p {cores} {pid} failed");
    }
    Ok(())
}
