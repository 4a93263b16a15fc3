//! Small helpers shared by the tasks: where the workspace is, and running commands loudly.

use std::{
    path::{Path, PathBuf},
    process::{Command, ExitStatus},
};

use anyhow::{Context as _, Result};

/// The workspace root (this crate lives in `<root>/xtask`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

/// The cargo target directory: `$CARGO_TARGET_DIR` or `<root>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root().join(dir)
            }
        }
        _ => root().join("target"),
    }
}

/// `cargo` (the one that runs us, when known) in the workspace root.
pub fn cargo<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args(args).current_dir(root());
    cmd
}

/// Prints the command, runs it with inherited stdio, and returns its status.
pub fn run(cmd: &mut Command) -> Result<ExitStatus> {
    println!("$ {}", show(cmd));
    cmd.status()
        .with_context(|| format!("cannot run {}", show(cmd)))
}

/// A process's exit code as ours: its own code, or 128 + signal like a shell.
pub fn exit_code(status: ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        (None, None) => 1,
    }
}

pub fn show(cmd: &Command) -> String {
    let mut parts = vec![cmd.get_program().to_string_lossy().into_owned()];
    parts.extend(cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
    parts.join(" ")
}

/// Prints a block that stands out in a long log.
pub fn banner(lines: &[&str]) {
    let width = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let rule = "#".repeat(width + 4);
    eprintln!("\n{rule}");
    for line in lines {
        eprintln!("# {line:<width$} #");
    }
    eprintln!("{rule}\n");
}
