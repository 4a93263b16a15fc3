//! One wrk run: the command line, and the `BENCH_RESULT` line `common.lua` prints at the end.

use std::{path::Path, process::Command};

use anyhow::{bail, Context as _, Result};
use serde_json::Value;

/// What one wrk run measured.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    pub requests: u64,
    pub seconds: f64,
    /// Responses with a status of 400 or more (wrk counts them as errors, not failures).
    pub status_errors: u64,
    pub socket_errors: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

impl Measured {
    pub fn rate(&self) -> f64 {
        self.requests as f64 / self.seconds.max(1e-9)
    }
}

pub struct Load<'a> {
    pub script: &'a Path,
    pub url: &'a str,
    pub seconds: u64,
    pub connections: u64,
    pub threads: u64,
    /// Cores for wrk (taskset), when the machine has some to spare.
    pub cores: Option<&'a str>,
    pub data_dir: &'a Path,
    /// Pause in ms before each request on a connection (paced runs); 0 for full speed.
    pub pause_ms: u64,
    pub vote_cursor: u64,
}

pub fn installed() -> bool {
    Command::new("wrk")
        .arg("-v")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("wrk"))
}

/// `wrk -v` first line, e.g. `wrk 4.1.0 [epoll] Copyright (C) 2012 Will Glozer`.
pub fn version() -> String {
    Command::new("wrk")
        .arg("-v")
        .output()
        .map(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            text.lines()
                .next()
                .unwrap_or_default()
                .split(" Copyright")
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .unwrap_or_default()
}

pub fn run(load: &Load) -> Result<Measured> {
    let mut cmd = match load.cores {
        Some(cores) => {
            let mut cmd = Command::new("taskset");
            cmd.args(["-c", cores, "wrk"]);
            cmd
        }
        None => Command::new("wrk"),
    };
    cmd.arg("-t")
        .arg(load.threads.to_string())
        .arg("-c")
        .arg(load.connections.max(load.threads).to_string())
        .arg("-d")
        .arg(format!("{}s", load.seconds))
        // A slow write is a slow answer, not a lost one.
        .args(["--timeout", "10s", "-s"])
        .arg(load.script)
        .arg(load.url)
        .env("BENCH_DATA", load.data_dir)
        .env("BENCH_PAUSE_MS", load.pause_ms.to_string())
        .env("BENCH_CURSOR", load.vote_cursor.to_string())
        .env("BENCH_THREADS", load.threads.to_string());
    let output = cmd.output().context("cannot run wrk")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "wrk failed ({}):\n{stdout}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    parse(&stdout).with_context(|| {
        format!(
            "no BENCH_RESULT line in wrk's output:\n{stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn parse(stdout: &str) -> Option<Measured> {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("BENCH_RESULT "))?;
    let v: Value = serde_json::from_str(line).ok()?;
    let num = |k: &str| v[k].as_f64();
    Some(Measured {
        requests: num("requests")? as u64,
        seconds: num("duration_us")? / 1e6,
        status_errors: num("status_errors")? as u64,
        socket_errors: num("socket_errors")? as u64,
        p50_ms: num("p50_us")? / 1e3,
        p99_ms: num("p99_us")? / 1e3,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_line_is_found_among_wrk_output() {
        let out = "Running 5s test @ http://x\n  1 threads and 8 connections\n\
            BENCH_RESULT {\"requests\":5000,\"duration_us\":2500000,\"status_errors\":2,\
            \"socket_errors\":1,\"p50_us\":800,\"p99_us\":2500,\"max_us\":9000}\n";
        let m = parse(out).unwrap();
        assert_eq!((m.requests, m.status_errors, m.socket_errors), (5000, 2, 1));
        assert_eq!(m.rate(), 2000.0);
        assert_eq!((m.p50_ms, m.p99_ms), (0.8, 2.5));
        assert!(parse("Running 5s test\n").is_none());
    }
}
