//! The `sounding` command line: `serve` (the default), `migrate`, the admin commands
//! `team create`, `api-key create` and `api-key revoke`, and `backup` / `restore`. Each command is a thin call into
//! `start` or one use case; this file only parses arguments and prints results.
//!
//! Exit codes: 0 success, 1 a runtime failure, 2 a usage or configuration error (including a
//! value a use case refused as invalid).

use std::{
    io::{self, Write as _},
    process::ExitCode,
};

use clap::{Args, Parser, Subcommand};
use serde::Serialize;
use sounding_app::{
    api_keys::{create_api_key, revoke_api_key, CreatedApiKey, NewApiKey},
    teams::{create_team, CreatedTeam, NewTeam},
    AppError,
};
use sounding_domain::{access::Role, ApiKeyId, DomainError, Entity, TeamId, Timestamp};

use sounding_store_diesel::backup::{self, CopyError, CopyReport, ServingLock};

use crate::config::{self, Config, Flags};

#[derive(Debug, Parser)]
#[command(
    name = "sounding",
    version,
    about = "Sounding: a self-hosted product-feedback HTTP JSON API",
    after_help = "Configuration comes from SOUNDING_* environment variables; see docs/configuration.md."
)]
struct Cli {
    /// Database URL (sqlite://PATH, postgres://... or memory://); overrides
    /// SOUNDING_DATABASE_URL.
    #[arg(long, global = true, value_name = "URL")]
    database: Option<String>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HTTP API (the default when no command is given).
    Serve(ServeArgs),
    /// Apply pending database migrations and exit.
    Migrate,
    /// Manage teams.
    #[command(subcommand)]
    Team(TeamCommand),
    /// Manage team API keys.
    #[command(subcommand, name = "api-key")]
    ApiKey(ApiKeyCommand),
    /// Copy a live SQLite database to FILE, consistently, while servers keep writing
    /// (PostgreSQL: use pg_dump).
    Backup {
        /// The new file; it must not exist. Created readable by its owner only.
        #[arg(long, value_name = "FILE")]
        to: std::path::PathBuf,
    },
    /// Put a backup in place of a SQLite database no server is using (PostgreSQL: use
    /// pg_restore or psql).
    Restore {
        /// A file made by `sounding backup`.
        #[arg(long, value_name = "FILE")]
        from: std::path::PathBuf,
    },
}

#[derive(Debug, Default, Args)]
struct ServeArgs {
    /// Address to listen on; overrides SOUNDING_BIND.
    #[arg(long, value_name = "ADDR")]
    bind: Option<String>,
}

#[derive(Debug, Subcommand)]
enum TeamCommand {
    /// Create a team with its owner and the owner's API key (shown once).
    Create {
        #[arg(long)]
        name: String,
        /// A DNS label: a-z, 0-9 and '-'.
        #[arg(long)]
        subdomain: String,
        /// The owner's e-mail; owner@<subdomain>.invalid when not given.
        #[arg(long, value_name = "EMAIL")]
        owner_email: Option<String>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
enum ApiKeyCommand {
    /// Create an API key for a team (shown once). The key belongs to the team's owner.
    Create {
        /// The team's id or subdomain.
        #[arg(long, value_name = "ID|SUBDOMAIN")]
        team: String,
        /// owner, admin or member.
        #[arg(long, default_value = "member", value_parser = parse_role)]
        role: Role,
        /// The key may only call .list, .info and .count operations.
        #[arg(long)]
        read_only: bool,
        /// A label to recognise the key by.
        #[arg(long)]
        name: Option<String>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Delete an API key; the next request with it fails with 401.
    Revoke {
        /// The key's id (printed when it was created).
        #[arg(value_name = "API_KEY_ID")]
        id: String,
    },
}

fn parse_role(raw: &str) -> Result<Role, String> {
    Role::parse(raw.trim()).map_err(|e| e.to_string())
}

/// A failed command: its message (one line) and exit code.
#[derive(Debug)]
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn config(e: config::ConfigError) -> Self {
        Self {
            code: 2,
            message: e.to_string(),
        }
    }

    fn runtime(e: anyhow::Error) -> Self {
        Self {
            code: 1,
            message: format!("{e:#}"),
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Self::runtime(e)
    }
}

impl From<AppError> for Failure {
    fn from(e: AppError) -> Self {
        let code = match e {
            AppError::Domain(DomainError::Invalid(_)) => 2,
            _ => 1,
        };
        Self {
            code,
            message: lowercase_first(&e.to_string()),
        }
    }
}

/// The entry point of the `sounding` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let flags = Flags {
        database: cli.database.clone(),
        bind: match &cli.command {
            Some(Command::Serve(args)) => args.bind.clone(),
            _ => None,
        },
    };
    let vars = match config::sounding_vars() {
        Ok(vars) => vars,
        Err(e) => return fail(&Failure::config(e)),
    };
    let config = match Config::from_vars(&vars, &flags) {
        Ok(config) => config,
        Err(e) => return fail(&Failure::config(e)),
    };
    let serving = matches!(cli.command, None | Some(Command::Serve(_)));
    // Admin commands print results on stdout; keep their stderr to warnings unless asked.
    let filter = if serving || vars.contains_key(config::LOG) {
        config.log_filter.as_str()
    } else {
        "warn"
    };
    crate::telemetry::init(filter, config.log_format);
    tracing::debug!(?config, "configuration");

    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => return fail(&Failure::runtime(anyhow::Error::new(e))),
    };
    match runtime.block_on(run(cli.command, config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => fail(&failure),
    }
}

fn fail(failure: &Failure) -> ExitCode {
    // One line, whatever the underlying error printed (libpq's are multi-line, with tabs).
    let message = failure
        .message
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    eprintln!("error: {message}");
    ExitCode::from(failure.code)
}

async fn run(command: Option<Command>, config: Config) -> Result<(), Failure> {
    let command = command.unwrap_or(Command::Serve(ServeArgs::default()));
    if crate::is_memory(&config.database_url) && !matches!(command, Command::Serve(_)) {
        return Err(Failure {
            code: 2,
            message: format!(
                "{} keeps nothing between processes, so only `serve` can use it; manage a \
                 server on it through its HTTP API",
                crate::MEMORY_URL
            ),
        });
    }
    // Every command that opens a SQLite database holds its lock share meanwhile, so a restore
    // cannot replace the file under it (`serve` takes it in `start`; restore takes it whole).
    let _lock = match command {
        Command::Serve(_) | Command::Restore { .. } => None,
        _ => Some(
            ServingLock::take(&config.database_url).map_err(|e| Failure {
                code: 1,
                message: e.to_string(),
            })?,
        ),
    };
    match command {
        Command::Serve(_) => serve(config).await,
        Command::Migrate => migrate(&config).await,
        Command::Team(TeamCommand::Create {
            name,
            subdomain,
            owner_email,
            json,
        }) => {
            let store = crate::open_store(&config.database_url, 0).await?;
            let created = create_team(
                &store,
                &*crate::system_clock(),
                NewTeam {
                    name,
                    subdomain,
                    owner_email,
                },
            )
            .await?;
            if json {
                print_line(&team_json(&created))
            } else {
                print_lines(&[
                    format!(
                        "Created team {} (subdomain {}, id {}).",
                        created.team.name, created.team.subdomain, created.team.id
                    ),
                    format!(
                        "Owner API key (shown once, store it now): {}",
                        created.secret.expose()
                    ),
                    format!("API key id: {}", created.key.id),
                ])
            }
        }
        Command::ApiKey(ApiKeyCommand::Create {
            team,
            role,
            read_only,
            name,
            json,
        }) => {
            let store = crate::open_store(&config.database_url, 0).await?;
            let input = NewApiKey {
                team: team.clone(),
                role,
                read_only,
                name,
            };
            let created = create_api_key(&store, &store, &*crate::system_clock(), input)
                .await
                .map_err(|e| match e {
                    AppError::Domain(DomainError::NotFound(Entity::Team)) => Failure {
                        code: 1,
                        message: format!("no team has the id or subdomain {team:?}"),
                    },
                    other => other.into(),
                })?;
            if json {
                print_line(&api_key_json(&created))
            } else {
                print_lines(&[
                    format!(
                        "Created an API key for team {} (subdomain {}): role {}{}.",
                        created.team.name,
                        created.team.subdomain,
                        created.key.role.as_str(),
                        if created.key.read_only {
                            ", read-only"
                        } else {
                            ""
                        },
                    ),
                    format!(
                        "API key (shown once, store it now): {}",
                        created.secret.expose()
                    ),
                    format!("API key id: {}", created.key.id),
                ])
            }
        }
        Command::Backup { to } => {
            let url = config.database_url.clone();
            let target = to.clone();
            let report = blocking(move || backup::backup(&url, &target)).await?;
            print_lines(&[
                format!(
                    "Backed up {} to {}: a consistent snapshot taken while serving.",
                    crate::redact_url(&config.database_url),
                    to.display()
                ),
                describe(&report),
            ])
        }
        Command::Restore { from } => {
            let url = config.database_url.clone();
            let source = from.clone();
            let (report, moved) = blocking(move || backup::restore(&url, &source)).await?;
            let mut lines = vec![
                format!(
                    "Restored {} from {}; the next start applies any newer migrations.",
                    crate::redact_url(&config.database_url),
                    from.display()
                ),
                describe(&report),
            ];
            lines.extend(
                moved
                    .iter()
                    .map(|aside| format!("The previous file is kept as {}.", aside.display())),
            );
            print_lines(&lines)
        }
        Command::ApiKey(ApiKeyCommand::Revoke { id }) => {
            let store = crate::open_store(&config.database_url, 0).await?;
            revoke_api_key(&store, &id).await?;
            print_line(&format!("Revoked API key {}.", id.trim()))
        }
    }
}

/// Runs a backup or restore off the async runtime; PostgreSQL (use its own tools) and a bad
/// URL are usage errors (2), anything else a runtime failure (1).
async fn blocking<T: Send + 'static>(
    copy: impl FnOnce() -> Result<T, CopyError> + Send + 'static,
) -> Result<T, Failure> {
    let outcome = tokio::task::spawn_blocking(copy)
        .await
        .map_err(|e| Failure::runtime(anyhow::anyhow!("the copy panicked: {e}")))?;
    outcome.map_err(|e| Failure {
        code: match e {
            CopyError::Postgres | CopyError::Url(_) => 2,
            _ => 1,
        },
        message: e.to_string(),
    })
}

fn describe(report: &CopyReport) -> String {
    format!(
        "{} bytes, {} teams, {} feedback items, schema {}.",
        report.bytes, report.teams, report.feedback, report.schema_version
    )
}

/// `sounding team create --json`: `{"team": {id, name, subdomain, createdAt}, "apiKey",
/// "apiKeyId"}`, fields in that order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TeamJson<'a> {
    team: TeamFields<'a>,
    api_key: &'a str,
    api_key_id: ApiKeyId,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TeamFields<'a> {
    id: TeamId,
    name: &'a str,
    subdomain: &'a str,
    created_at: Timestamp,
}

/// `sounding api-key create --json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApiKeyJson<'a> {
    api_key: &'a str,
    api_key_id: ApiKeyId,
    team_id: TeamId,
    role: &'a str,
    read_only: bool,
}

fn team_json(created: &CreatedTeam) -> String {
    let out = TeamJson {
        team: TeamFields {
            id: created.team.id,
            name: &created.team.name,
            subdomain: &created.team.subdomain,
            created_at: created.team.created_at,
        },
        api_key: created.secret.expose(),
        api_key_id: created.key.id,
    };
    serde_json::to_string(&out).expect("plain structs serialize")
}

fn api_key_json(created: &CreatedApiKey) -> String {
    let out = ApiKeyJson {
        api_key: created.secret.expose(),
        api_key_id: created.key.id,
        team_id: created.team.id,
        role: created.key.role.as_str(),
        read_only: created.key.read_only,
    };
    serde_json::to_string(&out).expect("plain structs serialize")
}

async fn migrate(config: &Config) -> Result<(), Failure> {
    let store = crate::connect(&config.database_url, 0).await?;
    let applied = store
        .migrate()
        .await
        .map_err(|e| anyhow::Error::new(e).context("cannot migrate the database"))?;
    if applied.is_empty() {
        return print_line("database is up to date");
    }
    let lines: Vec<String> = applied
        .iter()
        .map(|v| format!("applied migration {v}"))
        .collect();
    print_lines(&lines)
}

async fn serve(config: Config) -> Result<(), Failure> {
    let in_memory = crate::is_memory(&config.database_url);
    let running = crate::start(config, crate::system_clock()).await?;
    if let Some(created) = &running.bootstrap {
        print_lines(&bootstrap_banner(created))?;
    }
    if in_memory {
        print_line(
            "The data is kept in memory only: nothing is written to disk, and everything is \
             forgotten when the server stops.",
        )?;
    }
    tokio::spawn(stop_on_signals(running.stopper()));
    running.wait().await?;
    tracing::info!("stopped");
    Ok(())
}

/// The one time the default team's owner key is shown: boxed so it stands out in a log.
fn bootstrap_banner(created: &CreatedTeam) -> Vec<String> {
    let body = [
        format!(
            "Created team {} (subdomain {}).",
            created.team.name, created.team.subdomain
        ),
        format!(
            "Owner API key (shown once, store it now): {}",
            created.secret.expose()
        ),
    ];
    let width = body.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let rule = format!("+{}+", "-".repeat(width + 2));
    let mut lines = vec![rule.clone()];
    lines.extend(body.iter().map(|l| format!("| {l:<width$} |")));
    lines.push(rule);
    lines
}

/// SIGINT or SIGTERM: answer what clients already sent (draining), stop accepting, let
/// in-flight requests finish (up to the shutdown timeout). A second signal exits at once.
async fn stop_on_signals(stopper: crate::Stopper) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        tracing::warn!("cannot listen for SIGINT/SIGTERM; stop the server with SIGKILL");
        return;
    };
    let name = tokio::select! {
        _ = int.recv() => "SIGINT",
        _ = term.recv() => "SIGTERM",
    };
    tracing::info!(
        "{name} received; draining (at most {}s), then finishing in-flight requests (at most {}s); \
         signal again to stop now",
        sounding_http_actix::DRAIN_LIMIT.as_secs(),
        crate::SHUTDOWN_TIMEOUT_SECS
    );
    tokio::select! {
        () = stopper.stop() => {}
        _ = int.recv() => exit_now(),
        _ = term.recv() => exit_now(),
    }
}

/// A graceful stop already under way cannot be turned into a forced one, so the impatient
/// second signal ends the process (with the shell's code for an interrupt).
fn exit_now() {
    tracing::warn!("second signal; exiting now without waiting for in-flight requests");
    std::process::exit(130);
}

fn print_line(line: &str) -> Result<(), Failure> {
    print_lines(&[line])
}

/// Writes to stdout and flushes, so the lines are out even if the process is killed next.
fn print_lines<S: AsRef<str>>(lines: &[S]) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    let result = lines
        .iter()
        .try_for_each(|l| writeln!(out, "{}", l.as_ref()))
        .and_then(|()| out.flush());
    result.map_err(|e| Failure::runtime(anyhow::Error::new(e).context("cannot write to stdout")))
}

/// "A team with subdomain acme already exists" → "a team …", as CLI errors read; leaves
/// acronyms ("API key not found") alone.
fn lowercase_first(message: &str) -> String {
    let mut chars = message.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => first
            .to_lowercase()
            .chain(message.chars().skip(1))
            .collect(),
        _ => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_command_means_serve_and_flags_are_read() {
        let cli = Cli::try_parse_from(["sounding"]).unwrap();
        assert!(cli.command.is_none());
        let cli = Cli::try_parse_from([
            "sounding",
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--database",
            "sqlite://x.db",
        ])
        .unwrap();
        assert_eq!(cli.database.as_deref(), Some("sqlite://x.db"));
        assert!(matches!(
            cli.command,
            Some(Command::Serve(ServeArgs { bind: Some(ref b) })) if b == "127.0.0.1:0"
        ));
    }

    #[test]
    fn api_keys_default_to_the_member_role_and_refuse_unknown_roles() {
        let cli = Cli::try_parse_from(["sounding", "api-key", "create", "--team", "acme"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::ApiKey(ApiKeyCommand::Create {
                role: Role::Member,
                read_only: false,
                ..
            }))
        ));
        let err = Cli::try_parse_from([
            "sounding", "api-key", "create", "--team", "a", "--role", "root",
        ])
        .unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn invalid_input_is_a_usage_error_and_conflicts_are_runtime_errors() {
        let invalid = Failure::from(AppError::invalid("subdomain must be …"));
        assert_eq!(
            (invalid.code, invalid.message.as_str()),
            (2, "subdomain must be …")
        );
        let conflict = Failure::from(AppError::Domain(DomainError::Conflict(
            "A team with subdomain acme already exists".into(),
        )));
        assert_eq!(
            (conflict.code, conflict.message.as_str()),
            (1, "a team with subdomain acme already exists")
        );
        assert_eq!(
            Failure::from(AppError::not_found(sounding_domain::Entity::ApiKey)).message,
            "API key not found"
        );
    }

    #[test]
    fn the_banner_boxes_the_key() {
        use sounding_domain::{access::TeamUser, api_key::ApiKey, team::Team, Timestamp, UserId};
        let now = Timestamp::from_unix_seconds(0).unwrap();
        let team = Team::new("Default", "default", now).unwrap();
        let owner = TeamUser {
            id: UserId::new(),
            team_id: team.id,
            email: "owner@default.invalid".into(),
            name: "Owner".into(),
            role: Role::Owner,
            created_at: now,
        };
        let (key, secret) = ApiKey::new(team.id, owner.id, Role::Owner, false, None, now);
        let created = CreatedTeam {
            team,
            owner,
            key,
            secret,
        };
        let lines = bootstrap_banner(&created);
        assert_eq!(lines.len(), 4);
        assert!(lines[2].contains(created.secret.expose()));
        assert!(lines
            .iter()
            .all(|l| l.chars().count() == lines[0].chars().count()));

        let json = team_json(&created);
        assert!(!json.contains('\n'));
        assert!(json.starts_with(r#"{"team":{"id":"#), "{json}");
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["team"]["createdAt"], "1970-01-01T00:00:00.000Z");
        assert_eq!(value["apiKey"].as_str().unwrap().len(), 38);
    }
}
