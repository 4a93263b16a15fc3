//! The server's configuration: one typed struct, read once from the environment at start-up
//! (tests build it directly). Every bad value is reported in one line naming its variable.

use std::{collections::HashMap, fmt, str::FromStr, time::Duration};

use sounding_domain::{
    retention::DEFAULT_RETENTION, token::MIN_SECRET_BYTES, web_origin::WebOrigin,
};

pub const DATABASE_URL: &str = "SOUNDING_DATABASE_URL";
pub const BIND: &str = "SOUNDING_BIND";
pub const JWT_SECRET: &str = "SOUNDING_JWT_SECRET";
pub const RATE_LIMIT_KEY_PER_MIN: &str = "SOUNDING_RATE_LIMIT_KEY_PER_MIN";
pub const RATE_LIMIT_SUBSCRIBER_PER_MIN: &str = "SOUNDING_RATE_LIMIT_SUBSCRIBER_PER_MIN";
pub const LOG: &str = "SOUNDING_LOG";
pub const LOG_FORMAT: &str = "SOUNDING_LOG_FORMAT";
pub const WORKERS: &str = "SOUNDING_WORKERS";
pub const REQUEST_HEAD_TIMEOUT_MS: &str = "SOUNDING_REQUEST_HEAD_TIMEOUT_MS";
pub const REQUEST_BODY_TIMEOUT_MS: &str = "SOUNDING_REQUEST_BODY_TIMEOUT_MS";
pub const WEBHOOKS: &str = "SOUNDING_WEBHOOKS";
pub const WEBHOOK_ALLOW_PRIVATE: &str = "SOUNDING_WEBHOOK_ALLOW_PRIVATE";
pub const WEBHOOK_TIMEOUT_MS: &str = "SOUNDING_WEBHOOK_TIMEOUT_MS";
pub const WEBHOOK_RETRY_SCALE: &str = "SOUNDING_WEBHOOK_RETRY_SCALE";
pub const WEBHOOK_POLL_MS: &str = "SOUNDING_WEBHOOK_POLL_MS";
pub const WEBHOOK_MAX_IN_FLIGHT: &str = "SOUNDING_WEBHOOK_MAX_IN_FLIGHT";
pub const EVENT_RETENTION: &str = "SOUNDING_EVENT_RETENTION";
pub const READ_CACHE_MB: &str = "SOUNDING_READ_CACHE_MB";
pub const CORS_ORIGINS: &str = "SOUNDING_CORS_ORIGINS";
pub const METRICS_BIND: &str = "SOUNDING_METRICS_BIND";

pub const DEFAULT_DATABASE_URL: &str = "sqlite://sounding.db";
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
pub const DEFAULT_RATE_LIMIT_KEY_PER_MIN: u32 = 1000;
pub const DEFAULT_RATE_LIMIT_SUBSCRIBER_PER_MIN: u32 = 100;
pub const DEFAULT_LOG: &str = "info";
pub const DEFAULT_REQUEST_HEAD_TIMEOUT: Duration = Duration::from_secs(5);
pub const DEFAULT_REQUEST_BODY_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_READ_CACHE_MB: u64 = 24;

/// The variables `from_vars` reads, in the order the docs list them.
pub const VARIABLES: [&str; 20] = [
    DATABASE_URL,
    BIND,
    JWT_SECRET,
    RATE_LIMIT_KEY_PER_MIN,
    RATE_LIMIT_SUBSCRIBER_PER_MIN,
    LOG,
    LOG_FORMAT,
    WORKERS,
    REQUEST_HEAD_TIMEOUT_MS,
    REQUEST_BODY_TIMEOUT_MS,
    WEBHOOKS,
    WEBHOOK_ALLOW_PRIVATE,
    WEBHOOK_TIMEOUT_MS,
    WEBHOOK_RETRY_SCALE,
    WEBHOOK_POLL_MS,
    WEBHOOK_MAX_IN_FLIGHT,
    EVENT_RETENTION,
    READ_CACHE_MB,
    CORS_ORIGINS,
    METRICS_BIND,
];

/// The webhook worker of this instance.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookConfig {
    /// Whether this instance delivers webhooks (subscriptions are managed either way).
    pub enabled: bool,
    /// Allows http targets and private or loopback addresses: for local use and tests only,
    /// never for a multi-tenant deployment.
    pub allow_private: bool,
    /// One attempt's total time limit (connecting takes at most 5 s of it).
    pub timeout: Duration,
    /// Multiplies the retry schedule; 1.0 in production, smaller in tests.
    pub retry_scale: f64,
    /// How often the worker looks for due deliveries when nothing woke it.
    pub poll_interval: Duration,
    /// The most attempts in flight to one target (scheme, host, port); fewer while the target
    /// is slow or failing (the sender adapts, `sounding_webhooks`).
    pub max_in_flight: usize,
}

/// The most `SOUNDING_WEBHOOK_MAX_IN_FLIGHT` may say: each attempt in flight may hold one of the
/// worker's database connections while it records its outcome.
const MAX_IN_FLIGHT_LIMIT: usize = 256;

impl Default for WebhookConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            allow_private: false,
            timeout: Duration::from_secs(10),
            retry_scale: 1.0,
            poll_interval: Duration::from_secs(1),
            max_in_flight: 16,
        }
    }
}

/// `Debug` redacts the JWT secret and a database password, so the value can be logged.
#[derive(Clone, PartialEq)]
pub struct Config {
    pub database_url: String,
    pub bind: String,
    /// `None`: the secret is generated once and kept in the database.
    pub jwt_secret: Option<JwtSecret>,
    pub rate_limit_key_per_min: u32,
    pub rate_limit_subscriber_per_min: u32,
    /// An `EnvFilter` directive string (`info`, `sounding=debug,actix_web=warn`, …).
    pub log_filter: String,
    pub log_format: LogFormat,
    /// HTTP worker threads; `None` lets actix use one per core.
    pub workers: Option<usize>,
    /// How long a client may take to send a request's line and headers (slow clients are cut
    /// off with 408 and the connection closed).
    pub request_head_timeout: Duration,
    /// How long a client may take to send a request's whole body once its headers are in.
    pub request_body_timeout: Duration,
    pub webhooks: WebhookConfig,
    /// How long finished webhook history (delivered or failed deliveries, fanned-out events
    /// with nothing left to deliver) is kept before it is pruned.
    pub event_retention: Duration,
    /// SQLite: how many MiB of answers the read cache may keep (0: no cache).
    pub read_cache_mb: u64,
    /// The sites whose pages may call the public operations from a browser (CORS); empty:
    /// none.
    pub cors_origins: Vec<WebOrigin>,
    /// Where Prometheus metrics are served (`GET /metrics`), on a listener of their own;
    /// `None`: no metrics.
    pub metrics_bind: Option<String>,
}

impl Config {
    /// The defaults, on the given database.
    pub fn new(database_url: impl Into<String>) -> Self {
        Self {
            database_url: database_url.into(),
            bind: DEFAULT_BIND.to_owned(),
            jwt_secret: None,
            rate_limit_key_per_min: DEFAULT_RATE_LIMIT_KEY_PER_MIN,
            rate_limit_subscriber_per_min: DEFAULT_RATE_LIMIT_SUBSCRIBER_PER_MIN,
            log_filter: DEFAULT_LOG.to_owned(),
            log_format: LogFormat::Text,
            workers: None,
            request_head_timeout: DEFAULT_REQUEST_HEAD_TIMEOUT,
            request_body_timeout: DEFAULT_REQUEST_BODY_TIMEOUT,
            webhooks: WebhookConfig::default(),
            event_retention: DEFAULT_RETENTION,
            read_cache_mb: DEFAULT_READ_CACHE_MB,
            cors_origins: Vec::new(),
            metrics_bind: None,
        }
    }

    /// Reads the process environment (the only place that does).
    pub fn from_env(flags: &Flags) -> Result<Self, ConfigError> {
        Self::from_vars(&sounding_vars()?, flags)
    }

    /// Builds the configuration from variables (as if from the environment), then applies the
    /// command-line flags, which win. An empty variable counts as unset.
    pub fn from_vars(vars: &HashMap<String, String>, flags: &Flags) -> Result<Self, ConfigError> {
        let get = |name: &str| vars.get(name).map(String::as_str).filter(|v| !v.is_empty());
        let mut config = Config::new(DEFAULT_DATABASE_URL);

        if let Some(url) = get(DATABASE_URL) {
            config.database_url = database_url(DATABASE_URL, url)?;
        }
        if let Some(bind) = get(BIND) {
            config.bind = bind.trim().to_owned();
        }
        if let Some(raw) = get(JWT_SECRET) {
            config.jwt_secret = Some(
                raw.parse()
                    .map_err(|e: SecretTooShort| ConfigError::new(JWT_SECRET, e.to_string()))?,
            );
        }
        if let Some(raw) = get(RATE_LIMIT_KEY_PER_MIN) {
            config.rate_limit_key_per_min = positive(RATE_LIMIT_KEY_PER_MIN, raw)?;
        }
        if let Some(raw) = get(RATE_LIMIT_SUBSCRIBER_PER_MIN) {
            config.rate_limit_subscriber_per_min = positive(RATE_LIMIT_SUBSCRIBER_PER_MIN, raw)?;
        }
        if let Some(raw) = get(LOG) {
            // Checked here so a typo stops start-up instead of silently logging nothing.
            tracing_subscriber::EnvFilter::try_new(raw).map_err(|e| {
                ConfigError::new(LOG, format!("must be a log filter such as \"info\" ({e})"))
            })?;
            config.log_filter = raw.to_owned();
        }
        if let Some(raw) = get(LOG_FORMAT) {
            config.log_format = raw.parse().map_err(|()| {
                ConfigError::new(LOG_FORMAT, format!("must be text or json, got {raw:?}"))
            })?;
        }
        if let Some(raw) = get(WORKERS) {
            config.workers = Some(positive(WORKERS, raw)?);
        }
        if let Some(raw) = get(REQUEST_HEAD_TIMEOUT_MS) {
            config.request_head_timeout =
                Duration::from_millis(positive(REQUEST_HEAD_TIMEOUT_MS, raw)?);
        }
        if let Some(raw) = get(REQUEST_BODY_TIMEOUT_MS) {
            config.request_body_timeout =
                Duration::from_millis(positive(REQUEST_BODY_TIMEOUT_MS, raw)?);
        }
        if let Some(raw) = get(WEBHOOKS) {
            config.webhooks.enabled = switch(WEBHOOKS, raw)?;
        }
        if let Some(raw) = get(WEBHOOK_ALLOW_PRIVATE) {
            config.webhooks.allow_private = switch(WEBHOOK_ALLOW_PRIVATE, raw)?;
        }
        if let Some(raw) = get(WEBHOOK_TIMEOUT_MS) {
            config.webhooks.timeout = Duration::from_millis(positive(WEBHOOK_TIMEOUT_MS, raw)?);
        }
        if let Some(raw) = get(WEBHOOK_POLL_MS) {
            config.webhooks.poll_interval = Duration::from_millis(positive(WEBHOOK_POLL_MS, raw)?);
        }
        if let Some(raw) = get(WEBHOOK_MAX_IN_FLIGHT) {
            config.webhooks.max_in_flight = positive(WEBHOOK_MAX_IN_FLIGHT, raw)
                .ok()
                .filter(|n| *n <= MAX_IN_FLIGHT_LIMIT)
                .ok_or_else(|| {
                    ConfigError::new(
                        WEBHOOK_MAX_IN_FLIGHT,
                        format!(
                            "must be a whole number from 1 to {MAX_IN_FLIGHT_LIMIT}, got {raw:?}"
                        ),
                    )
                })?;
        }
        if let Some(raw) = get(EVENT_RETENTION) {
            config.event_retention = parse_duration(raw).ok_or_else(|| {
                ConfigError::new(
                    EVENT_RETENTION,
                    format!("must be a duration such as 7d, 12h, 30m or 45s, got {raw:?}"),
                )
            })?;
        }
        if let Some(raw) = get(READ_CACHE_MB) {
            config.read_cache_mb = raw
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|mb| *mb <= 1024 * 1024)
                .ok_or_else(|| {
                    ConfigError::new(
                        READ_CACHE_MB,
                        format!(
                            "must be a whole number of MiB (0 turns the cache off), got {raw:?}"
                        ),
                    )
                })?;
        }
        if let Some(raw) = get(CORS_ORIGINS) {
            config.cors_origins = WebOrigin::parse_list(raw).map_err(|e| {
                ConfigError::new(
                    CORS_ORIGINS,
                    format!(
                        "must list origins such as https://app.example.com, comma-separated: {e}"
                    ),
                )
            })?;
        }
        if let Some(bind) = get(METRICS_BIND) {
            config.metrics_bind = Some(bind.trim().to_owned());
        }
        if let Some(raw) = get(WEBHOOK_RETRY_SCALE) {
            config.webhooks.retry_scale = raw
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s > 0.0 && *s <= 1.0)
                .ok_or_else(|| {
                    ConfigError::new(
                        WEBHOOK_RETRY_SCALE,
                        format!("must be a number in (0, 1], got {raw:?}"),
                    )
                })?;
        }

        if let Some(url) = &flags.database {
            config.database_url = database_url("--database", url)?;
        }
        if let Some(bind) = &flags.bind {
            config.bind = bind.trim().to_owned();
        }
        if config.bind.is_empty() {
            return Err(ConfigError::new(
                BIND,
                "must be an address such as 127.0.0.1:8080",
            ));
        }
        Ok(config)
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("database_url", &crate::redact_url(&self.database_url))
            .field("bind", &self.bind)
            .field("jwt_secret", &self.jwt_secret)
            .field("rate_limit_key_per_min", &self.rate_limit_key_per_min)
            .field(
                "rate_limit_subscriber_per_min",
                &self.rate_limit_subscriber_per_min,
            )
            .field("log_filter", &self.log_filter)
            .field("log_format", &self.log_format)
            .field("workers", &self.workers)
            .field("webhooks", &self.webhooks)
            .field("event_retention", &self.event_retention)
            .field("read_cache_mb", &self.read_cache_mb)
            .field("cors_origins", &self.cors_origins)
            .field("metrics_bind", &self.metrics_bind)
            .finish()
    }
}

/// Command-line flags that override the environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flags {
    pub database: Option<String>,
    pub bind: Option<String>,
}

/// The process environment's `SOUNDING_*` variables.
pub fn sounding_vars() -> Result<HashMap<String, String>, ConfigError> {
    let mut vars = HashMap::new();
    for (name, value) in std::env::vars_os() {
        let Some(name) = name.to_str().filter(|n| n.starts_with("SOUNDING_")) else {
            continue;
        };
        let value = value
            .into_string()
            .map_err(|_| ConfigError::new(name, "must be valid UTF-8"))?;
        vars.insert(name.to_owned(), value);
    }
    Ok(vars)
}

fn database_url(source: &str, raw: &str) -> Result<String, ConfigError> {
    let url = raw.trim();
    // Only the engine is checked here; the store adapter reports anything else at connect.
    let known = url.split_once(':').is_some_and(|(scheme, rest)| {
        let scheme = scheme.to_ascii_lowercase();
        ["sqlite", "postgres", "postgresql"].contains(&scheme.as_str())
            && !rest.trim_start_matches('/').is_empty()
    });
    if known || crate::is_memory(url) {
        Ok(url.to_owned())
    } else {
        // Never echo the value: a PostgreSQL URL may carry a password.
        Err(ConfigError::new(
            source,
            "must be a sqlite://PATH or postgres://USER@HOST/DB URL, or memory://",
        ))
    }
}

/// A positive whole number with a unit: `45s`, `30m`, `12h` or `7d` (at most 100 years).
pub fn parse_duration(raw: &str) -> Option<Duration> {
    let raw = raw.trim();
    let unit = raw.chars().last()?;
    let seconds: u64 = match unit.to_ascii_lowercase() {
        's' => 1,
        'm' => 60,
        'h' => 60 * 60,
        'd' => 24 * 60 * 60,
        _ => return None,
    };
    let number = &raw[..raw.len() - unit.len_utf8()];
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let total = number.parse::<u64>().ok()?.checked_mul(seconds)?;
    (1..=MAX_DURATION_SECS)
        .contains(&total)
        .then(|| Duration::from_secs(total))
}

/// 100 years: far beyond any sensible retention, and far from overflowing a timestamp.
const MAX_DURATION_SECS: u64 = 100 * 366 * 24 * 60 * 60;

fn positive<T: FromStr + PartialOrd + From<u8>>(name: &str, raw: &str) -> Result<T, ConfigError> {
    raw.trim()
        .parse::<T>()
        .ok()
        .filter(|n| *n >= T::from(1))
        .ok_or_else(|| ConfigError::new(name, format!("must be a positive integer, got {raw:?}")))
}

/// `on`/`off`, `true`/`false`, `1`/`0`, `yes`/`no`.
fn switch(name: &str, raw: &str) -> Result<bool, ConfigError> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Ok(true),
        "off" | "false" | "0" | "no" => Ok(false),
        _ => Err(ConfigError::new(
            name,
            format!("must be on or off (true or false), got {raw:?}"),
        )),
    }
}

/// A bad configuration value; displays as `<VARIABLE> <what is wrong>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{variable} {message}")]
pub struct ConfigError {
    pub variable: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(variable: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            variable: variable.into(),
            message: message.into(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

impl FromStr for LogFormat {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s.trim().to_ascii_lowercase().as_str() {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            _ => Err(()),
        }
    }
}

/// The subscriber-token signing secret. Its `Debug` never shows it, so a logged `Config`
/// cannot leak it.
#[derive(Clone, PartialEq, Eq)]
pub struct JwtSecret(String);

impl JwtSecret {
    /// The secret itself; its UTF-8 bytes are the HMAC key.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for JwtSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JwtSecret(<redacted>)")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("must be at least {MIN_SECRET_BYTES} bytes, got {0}")]
pub struct SecretTooShort(pub usize);

impl FromStr for JwtSecret {
    type Err = SecretTooShort;
    fn from_str(s: &str) -> Result<Self, SecretTooShort> {
        if s.len() < MIN_SECRET_BYTES {
            Err(SecretTooShort(s.len()))
        } else {
            Ok(Self(s.to_owned()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn parse(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        Config::from_vars(&vars(pairs), &Flags::default())
    }

    fn message(pairs: &[(&str, &str)]) -> String {
        parse(pairs).unwrap_err().to_string()
    }

    #[test]
    fn no_variables_gives_the_documented_defaults() {
        let config = parse(&[]).unwrap();
        assert_eq!(config, Config::new("sqlite://sounding.db"));
        assert_eq!(config.bind, "127.0.0.1:8080");
        assert_eq!(config.jwt_secret, None);
        assert_eq!(config.rate_limit_key_per_min, 1000);
        assert_eq!(config.rate_limit_subscriber_per_min, 100);
        assert_eq!(config.log_filter, "info");
        assert_eq!(config.log_format, LogFormat::Text);
        assert_eq!(config.workers, None);
    }

    #[test]
    fn every_variable_is_read() {
        let config = parse(&[
            (DATABASE_URL, "postgres://u@db/sounding"),
            (BIND, "0.0.0.0:9000"),
            (JWT_SECRET, SECRET),
            (RATE_LIMIT_KEY_PER_MIN, "50"),
            (RATE_LIMIT_SUBSCRIBER_PER_MIN, " 7 "),
            (LOG, "sounding=debug,actix_web=warn"),
            (LOG_FORMAT, "JSON"),
            (WORKERS, "3"),
            (REQUEST_HEAD_TIMEOUT_MS, "1500"),
            (REQUEST_BODY_TIMEOUT_MS, "20000"),
            (WEBHOOKS, "off"),
            (WEBHOOK_ALLOW_PRIVATE, "true"),
            (WEBHOOK_TIMEOUT_MS, "2500"),
            (WEBHOOK_RETRY_SCALE, "0.001"),
            (WEBHOOK_POLL_MS, "100"),
            (WEBHOOK_MAX_IN_FLIGHT, "32"),
            (EVENT_RETENTION, "2s"),
            (READ_CACHE_MB, "0"),
            (CORS_ORIGINS, "https://shop.example, HTTP://LOCALHOST:3000/"),
            (METRICS_BIND, " 127.0.0.1:9464 "),
        ])
        .unwrap();
        assert_eq!(
            config,
            Config {
                database_url: "postgres://u@db/sounding".into(),
                bind: "0.0.0.0:9000".into(),
                jwt_secret: Some(SECRET.parse().unwrap()),
                rate_limit_key_per_min: 50,
                rate_limit_subscriber_per_min: 7,
                log_filter: "sounding=debug,actix_web=warn".into(),
                log_format: LogFormat::Json,
                workers: Some(3),
                request_head_timeout: Duration::from_millis(1500),
                request_body_timeout: Duration::from_secs(20),
                webhooks: WebhookConfig {
                    enabled: false,
                    allow_private: true,
                    timeout: Duration::from_millis(2500),
                    retry_scale: 0.001,
                    poll_interval: Duration::from_millis(100),
                    max_in_flight: 32,
                },
                event_retention: Duration::from_secs(2),
                read_cache_mb: 0,
                cors_origins: vec![
                    WebOrigin::parse("https://shop.example").unwrap(),
                    WebOrigin::parse("http://localhost:3000").unwrap(),
                ],
                metrics_bind: Some("127.0.0.1:9464".into()),
            }
        );
    }

    #[test]
    fn webhook_settings_are_checked() {
        for (name, raw, message) in [
            (
                WEBHOOKS,
                "maybe",
                r#"must be on or off (true or false), got "maybe""#,
            ),
            (
                WEBHOOK_RETRY_SCALE,
                "0",
                r#"must be a number in (0, 1], got "0""#,
            ),
            (
                WEBHOOK_RETRY_SCALE,
                "2",
                r#"must be a number in (0, 1], got "2""#,
            ),
            (
                WEBHOOK_TIMEOUT_MS,
                "0",
                r#"must be a positive integer, got "0""#,
            ),
            (
                WEBHOOK_MAX_IN_FLIGHT,
                "0",
                r#"must be a whole number from 1 to 256, got "0""#,
            ),
            (
                WEBHOOK_MAX_IN_FLIGHT,
                "257",
                r#"must be a whole number from 1 to 256, got "257""#,
            ),
            (
                READ_CACHE_MB,
                "-1",
                r#"must be a whole number of MiB (0 turns the cache off), got "-1""#,
            ),
            (
                READ_CACHE_MB,
                "2000000",
                r#"must be a whole number of MiB (0 turns the cache off), got "2000000""#,
            ),
        ] {
            let err = parse(&[(name, raw)]).unwrap_err();
            assert_eq!(err.to_string(), format!("{name} {message}"));
        }
    }

    #[test]
    fn durations_are_a_positive_whole_number_and_a_unit() {
        for (raw, secs) in [
            ("45s", 45),
            ("30m", 1800),
            ("12h", 43_200),
            ("7d", 604_800),
            (" 2s ", 2),
            ("1D", 86_400),
            ("36600d", 36_600 * 86_400),
        ] {
            assert_eq!(
                parse_duration(raw),
                Some(Duration::from_secs(secs)),
                "{raw}"
            );
        }
        for bad in [
            "",
            "7",
            "d",
            "0d",
            "0s",
            "-1d",
            "+1d",
            "1.5h",
            "1 d",
            "7w",
            "1ms",
            "36601d",
            "99999999999999999999d",
            "7dd",
            "٣d",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_event_retention_is_a_week_unless_set_and_a_bad_one_names_the_variable() {
        assert_eq!(
            parse(&[]).unwrap().event_retention,
            Duration::from_secs(7 * 24 * 60 * 60)
        );
        assert_eq!(
            parse(&[(EVENT_RETENTION, "36h")]).unwrap().event_retention,
            Duration::from_secs(36 * 60 * 60)
        );
        assert_eq!(
            message(&[(EVENT_RETENTION, "forever")]),
            r#"SOUNDING_EVENT_RETENTION must be a duration such as 7d, 12h, 30m or 45s, got "forever""#
        );
    }

    #[test]
    fn empty_variables_count_as_unset() {
        let config = parse(&[(JWT_SECRET, ""), (WORKERS, ""), (DATABASE_URL, "")]).unwrap();
        assert_eq!(config, Config::new(DEFAULT_DATABASE_URL));
    }

    #[test]
    fn a_non_numeric_rate_limit_names_the_variable_and_the_value() {
        assert_eq!(
            message(&[(RATE_LIMIT_KEY_PER_MIN, "abc")]),
            r#"SOUNDING_RATE_LIMIT_KEY_PER_MIN must be a positive integer, got "abc""#
        );
    }

    #[test]
    fn zero_negative_and_fractional_numbers_are_refused() {
        for bad in ["0", "-1", "1.5", "99999999999"] {
            assert_eq!(
                message(&[(RATE_LIMIT_SUBSCRIBER_PER_MIN, bad)]),
                format!("SOUNDING_RATE_LIMIT_SUBSCRIBER_PER_MIN must be a positive integer, got {bad:?}")
            );
        }
        assert_eq!(
            message(&[(WORKERS, "0")]),
            r#"SOUNDING_WORKERS must be a positive integer, got "0""#
        );
    }

    #[test]
    fn a_short_jwt_secret_is_refused_without_echoing_it() {
        let msg = message(&[(JWT_SECRET, "too-short-secret")]);
        assert_eq!(msg, "SOUNDING_JWT_SECRET must be at least 32 bytes, got 16");
        assert!(!msg.contains("too-short-secret"));
    }

    #[test]
    fn an_unknown_log_format_names_the_variable() {
        assert_eq!(
            message(&[(LOG_FORMAT, "yaml")]),
            r#"SOUNDING_LOG_FORMAT must be text or json, got "yaml""#
        );
    }

    #[test]
    fn a_bad_log_filter_names_the_variable() {
        let msg = message(&[(LOG, "sounding=loud")]);
        assert!(
            msg.starts_with("SOUNDING_LOG must be a log filter"),
            "{msg}"
        );
        assert!(!msg.contains('\n'));
    }

    #[test]
    fn a_database_url_without_a_known_scheme_is_refused_without_echoing_it() {
        let msg = message(&[(DATABASE_URL, "mysql://root:hunter2@db/x")]);
        assert_eq!(
            msg,
            "SOUNDING_DATABASE_URL must be a sqlite://PATH or postgres://USER@HOST/DB URL, or memory://"
        );
        assert!(parse(&[(DATABASE_URL, "sqlite://")]).is_err());
        assert!(parse(&[(DATABASE_URL, "nothing")]).is_err());
        for ok in [
            "postgresql://u@h/d",
            "sqlite:rel.db",
            "SQLITE:///abs.db",
            "memory://",
        ] {
            assert!(parse(&[(DATABASE_URL, ok)]).is_ok(), "{ok}");
        }
    }

    #[test]
    fn flags_override_the_environment() {
        let flags = Flags {
            database: Some("sqlite:///tmp/flag.db".into()),
            bind: Some("127.0.0.1:0".into()),
        };
        let config = Config::from_vars(
            &vars(&[(DATABASE_URL, "postgres://u@db/env"), (BIND, "0.0.0.0:80")]),
            &flags,
        )
        .unwrap();
        assert_eq!(config.database_url, "sqlite:///tmp/flag.db");
        assert_eq!(config.bind, "127.0.0.1:0");
    }

    #[test]
    fn a_bad_database_flag_names_the_flag() {
        let flags = Flags {
            database: Some("nowhere".into()),
            bind: None,
        };
        let err = Config::from_vars(&HashMap::new(), &flags).unwrap_err();
        assert_eq!(err.variable, "--database");
    }

    #[test]
    fn secrets_are_redacted_in_debug_output() {
        let config = parse(&[
            (JWT_SECRET, SECRET),
            (DATABASE_URL, "postgres://app:hunter2@db/sounding"),
        ])
        .unwrap();
        let shown = format!("{config:?}");
        assert!(!shown.contains(SECRET), "{shown}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("JwtSecret(<redacted>)"), "{shown}");
        assert!(shown.contains("postgres://app:***@db/sounding"), "{shown}");
        assert_eq!(config.jwt_secret.unwrap().expose(), SECRET);
    }
}
