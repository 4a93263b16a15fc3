//! Logging set-up: `tracing` events to stderr, filtered by `SOUNDING_LOG`, as text or JSON.

use std::io::IsTerminal as _;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global subscriber. A second call (tests, embedding) keeps the first one.
pub fn init(filter: &str, format: LogFormat) {
    // The filter was validated with the configuration; fall back rather than panic.
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        // Colours only for a person at a terminal, never into files or a log collector.
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
