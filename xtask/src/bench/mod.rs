//! `cargo xtask bench`: the benchmark harness of issue 8. Builds the release server and the
//! bare actix-web baseline (B0), seeds a fresh database through the API, then measures each
//! scenario with wrk (Lua scripts in `xtask/bench/`), server and load generator on different
//! cores. Writes `<target>/bench/results.json` and the generated part of `docs/benchmarks.md`;
//! the method and its choices are written up in that document.

mod http;
mod machine;
mod procs;
mod receiver;
mod report;
mod seed;
mod wrk;

use std::{
    collections::HashMap,
    fs,
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Child, Command},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use anyhow::{bail, Context as _, Result};
use serde_json::json;

use crate::{
    pg::{self, Cluster},
    test, util,
};
use http::Client;
use receiver::Receiver;
use report::{Engine, Lag, Report, Run, Scenario};

const USAGE: &str = "\
usage: cargo xtask bench [--quick] [--engine sqlite|postgres|all] [--scenario S1,S2,...]
                         [--scale N] [--metrics] [--no-docs]

  --quick      5 s per run, one repetition, 1 s warm-up: a smoke check (speed is not judged)
  --engine     the database(s) to measure (default: all)
  --scenario   only these scenarios: B0 (the baseline, always runs), S1..S8
  --scale N    also seed N times the data (N > 1) on a fresh database and measure every
               scenario again: scale 1 and scale N side by side, with their ratio (default 1)
  --metrics    serve Prometheus metrics while measuring (SOUNDING_METRICS_BIND on loopback), to
               compare with a run without: the cost of having them on
  --no-docs    leave docs/benchmarks.md alone (results.json is still written)";

/// Connections of a full-speed run: enough to keep every server worker busy.
const CONNECTIONS: u64 = 32;
/// The shortest pause between two requests of one connection in a paced run.
const MIN_PAUSE_MS: f64 = 10.0;
/// Paced runs use at least this many connections, so one slow answer does not stall the rate.
const MIN_PACED_CONNECTIONS: f64 = 4.0;
const MAX_PACED_CONNECTIONS: f64 = 1000.0;
/// No rate limit gets in the way of a load test (the limiter still runs on every request).
const UNLIMITED_PER_MIN: &str = "1000000000";

#[derive(Clone, Copy, PartialEq)]
enum Target {
    Baseline,
    Server,
}

/// A scenario's bar as a fraction of B0, on SQLite and on PostgreSQL (issue 8 for S1 and the
/// latency; issue 20 for the rest).
#[derive(Clone, Copy)]
struct Bars {
    sqlite: Option<f64>,
    postgres: Option<f64>,
}

impl Bars {
    const NONE: Bars = Bars {
        sqlite: None,
        postgres: None,
    };

    const fn both(sqlite: f64, postgres: f64) -> Bars {
        Bars {
            sqlite: Some(sqlite),
            postgres: Some(postgres),
        }
    }

    fn on(self, engine: &str) -> Option<f64> {
        match engine {
            "postgres" => self.postgres,
            _ => self.sqlite,
        }
    }
}

struct Def {
    id: &'static str,
    title: &'static str,
    script: &'static str,
    bars: Bars,
    read: bool,
    target: Target,
    /// Casts votes: moves the vote cursor.
    votes: bool,
    webhooks: bool,
}

impl Def {
    /// A scenario of the server that only reads; the others change what differs.
    const fn reads(id: &'static str, title: &'static str, script: &'static str, bars: Bars) -> Def {
        Def {
            id,
            title,
            script,
            bars,
            read: true,
            target: Target::Server,
            votes: false,
            webhooks: false,
        }
    }
}

static SCENARIOS: [Def; 9] = [
    Def {
        target: Target::Baseline,
        ..Def::reads(
            "B0",
            "bare actix-web handler, `GET /healthz`",
            "b0.lua",
            Bars::NONE,
        )
    },
    Def::reads(
        "S1",
        "`GET /healthz`, full middleware stack",
        "s1_healthz.lua",
        Bars::both(0.8, 0.8),
    ),
    Def::reads(
        "S2",
        "`public/feedbacks.info`, team key",
        "s2_feedback_info.lua",
        Bars::both(0.30, 0.05),
    ),
    Def::reads(
        "S3",
        "`public/feedbacks.list` top 20 of a board",
        "s3_feedback_list.lua",
        Bars::both(0.12, 0.03),
    ),
    Def {
        read: false,
        votes: true,
        ..Def::reads(
            "S4",
            "`public/feedback-votes.create`, a new voter each time",
            "s4_vote.lua",
            Bars::both(0.08, 0.02),
        )
    },
    Def::reads(
        "S5",
        "`public/subscriber.identify`, existing subscribers",
        "s5_identify.lua",
        Bars::both(0.20, 0.04),
    ),
    Def::reads(
        "S6",
        "`public/topic-comments.list` of the busy topic",
        "s6_topic_comments.lua",
        Bars::both(0.10, 0.03),
    ),
    Def {
        read: false,
        votes: true,
        webhooks: true,
        ..Def::reads(
            "S7",
            "mixed flow, 2 webhook subscriptions",
            "s7_mixed.lua",
            Bars::NONE,
        )
    },
    Def {
        read: false,
        ..Def::reads(
            "S8",
            "`public/feedbacks.create`, subscriber token",
            "s8_feedback_create.lua",
            Bars::both(0.03, 0.01),
        )
    },
];

struct Options {
    quick: bool,
    engines: Vec<&'static str>,
    scenarios: Vec<&'static Def>,
    docs: bool,
    scale: usize,
    metrics: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            quick: false,
            engines: vec!["sqlite", "postgres"],
            scenarios: SCENARIOS.iter().collect(),
            docs: true,
            scale: 1,
            metrics: false,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--quick" => options.quick = true,
                "--no-docs" => options.docs = false,
                "--metrics" => options.metrics = true,
                "--scale" => {
                    let raw = args.next();
                    options.scale = match raw.map(|n| n.parse::<usize>()) {
                        Some(Ok(n)) if (1..=100).contains(&n) => n,
                        _ => {
                            return Err(format!(
                                "--scale takes a whole number from 1 to 100, got {raw:?}"
                            ))
                        }
                    }
                }
                "--engine" => {
                    options.engines = match args.next().map(String::as_str) {
                        Some("sqlite") => vec!["sqlite"],
                        Some("postgres") => vec!["postgres"],
                        Some("all") => vec!["sqlite", "postgres"],
                        other => {
                            return Err(format!(
                                "--engine takes sqlite, postgres or all, got {other:?}"
                            ))
                        }
                    }
                }
                "--scenario" => {
                    let wanted: Vec<String> = args
                        .next()
                        .ok_or("--scenario takes a list such as S1,S4")?
                        .split(',')
                        .map(|s| s.trim().to_ascii_uppercase())
                        .collect();
                    if let Some(unknown) = wanted
                        .iter()
                        .find(|w| !SCENARIOS.iter().any(|d| d.id == w.as_str()))
                    {
                        return Err(format!("unknown scenario {unknown:?} (B0, S1..S8)"));
                    }
                    options.scenarios = SCENARIOS
                        .iter()
                        .filter(|d| d.id == "B0" || wanted.iter().any(|w| w == d.id))
                        .collect();
                }
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        Ok(options)
    }
}

/// Which cores the server (and its database) and the load generator get.
struct Layout {
    server_cores: Option<String>,
    load_cores: Option<String>,
    workers: usize,
    load_threads: u64,
}

impl Layout {
    /// The first half of the cores to the server side, the rest to wrk; one core is shared.
    fn for_cores(cores: usize) -> Layout {
        if cores < 2 {
            return Layout {
                server_cores: None,
                load_cores: None,
                workers: 1,
                load_threads: 1,
            };
        }
        let server = cores / 2;
        let list = |range: std::ops::Range<usize>| {
            range.map(|c| c.to_string()).collect::<Vec<_>>().join(",")
        };
        Layout {
            server_cores: Some(list(0..server)),
            load_cores: Some(list(server..cores)),
            workers: server,
            load_threads: (cores - server) as u64,
        }
    }

    fn describe(&self) -> String {
        match (&self.server_cores, &self.load_cores) {
            (Some(s), Some(l)) => format!(
                "server, B0 and PostgreSQL on core(s) {s} with {} HTTP worker(s); wrk ({} thread(s)), the seeder and the webhook receiver on core(s) {l}",
                self.workers, self.load_threads
            ),
            _ => "one core: nothing pinned, server and wrk share it".to_owned(),
        }
    }
}

struct Timing {
    seconds: u64,
    warmup: u64,
    repetitions: usize,
    drain_timeout: Duration,
}

/// A process we started; killed when dropped, whatever happened.
struct Process {
    child: Child,
    addr: SocketAddr,
}

impl Process {
    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn run(args: &[String]) -> Result<u8> {
    let options = match Options::parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("xtask bench: {e}\n\n{USAGE}");
            return Ok(2);
        }
    };
    if !wrk::installed() {
        util::banner(&[
            "wrk, the load generator, is not installed.",
            "Debian/Ubuntu: apt-get update && apt-get install -y wrk",
            "(other systems: https://github.com/wg/wrk), then run this again.",
        ]);
        return Ok(1);
    }
    let postgres_bin = if options.engines.contains(&"postgres") {
        match pg::find_binaries() {
            Some(bin) => Some(bin),
            None => {
                util::banner(&[
                    "PostgreSQL binaries (initdb, pg_ctl) were not found.",
                    "Install them (Debian: apt-get install postgresql) or pass --engine sqlite.",
                ]);
                return Ok(1);
            }
        }
    } else {
        None
    };
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }

    // The server exactly as `cargo xtask test` builds it; the baseline on its own, since
    // building both in one command unifies their features into a server binary of its own.
    let server = test::build_release_binary()?;
    if !server.success() {
        return Ok(util::exit_code(server).max(1));
    }
    let baseline = util::run(&mut util::cargo([
        "build",
        "--release",
        "-p",
        "sounding-http-actix",
        "--example",
        "bench_baseline",
    ]))?;
    if !baseline.success() {
        return Ok(util::exit_code(baseline).max(1));
    }
    let release = util::target_dir().join("release");
    let server_bin = test::release_binary();
    let baseline_bin = release.join("examples").join("bench_baseline");

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let machine = machine::facts(cores, postgres_bin.as_deref());
    let layout = Layout::for_cores(cores);
    // Off the server's cores from here on: the seeder and the webhook receiver live in us.
    if let Some(load) = &layout.load_cores {
        procs::pin(std::process::id(), load)?;
    }
    let timing = if options.quick {
        Timing {
            seconds: 5,
            warmup: 1,
            repetitions: 1,
            drain_timeout: Duration::from_secs(30),
        }
    } else {
        Timing {
            seconds: 30,
            warmup: 5,
            repetitions: 3,
            drain_timeout: Duration::from_secs(120),
        }
    };
    let out_dir = util::target_dir().join("bench");
    let started = Instant::now();

    // Scale 1 always; scale N after it on a database of its own, so both start fresh.
    let scales: Vec<usize> = if options.scale > 1 {
        vec![1, options.scale]
    } else {
        vec![1]
    };
    let mut engines = Vec::new();
    for engine in &options.engines {
        for &scale in &scales {
            eprintln!("\nxtask bench: === {engine}, scale {scale} ===");
            let bench = EngineBench {
                engine,
                dir: if scale == 1 {
                    out_dir.join(engine)
                } else {
                    out_dir.join(format!("{engine}-scale{scale}"))
                },
                scale,
                server_bin: &server_bin,
                baseline_bin: &baseline_bin,
                layout: &layout,
                timing: &timing,
                interrupted: &interrupted,
                metrics: options.metrics,
            };
            engines.push(bench.run(&options.scenarios, postgres_bin.as_deref())?);
        }
    }

    let report = Report {
        quick: options.quick,
        seconds_per_run: timing.seconds,
        repetitions: timing.repetitions,
        date: Command::new("date")
            .args(["-u", "+%Y-%m-%d %H:%M UTC"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default(),
        machine,
        layout: if options.metrics {
            format!("{}; Prometheus metrics on (`--metrics`)", layout.describe())
        } else {
            layout.describe()
        },
        engines,
    };
    let json_path = out_dir.join("results.json");
    let doc_path = util::root().join("docs").join("benchmarks.md");
    report::write(
        &report,
        &json_path,
        options.docs.then_some(doc_path.as_path()),
    )?;
    println!("{}", report.markdown());
    println!(
        "xtask bench: wrote {}{} in {:.0} s",
        json_path.display(),
        if options.docs {
            format!(" and {}", doc_path.display())
        } else {
            String::new()
        },
        started.elapsed().as_secs_f64()
    );
    let failures: Vec<String> = report.engines.iter().flat_map(Engine::failures).collect();
    if !failures.is_empty() {
        // Speed is never judged here, but an error answer means a scenario measured the wrong
        // thing (a rejected vote, a rate limit): that fails the run.
        eprintln!(
            "xtask bench: some requests failed:\n  {}",
            failures.join("\n  ")
        );
        return Ok(1);
    }
    Ok(0)
}

struct EngineBench<'a> {
    engine: &'static str,
    dir: PathBuf,
    /// How many times the scale-1 seed.
    scale: usize,
    server_bin: &'a Path,
    baseline_bin: &'a Path,
    layout: &'a Layout,
    timing: &'a Timing,
    interrupted: &'a AtomicBool,
    /// Whether the server serves Prometheus metrics (`--metrics`).
    metrics: bool,
}

/// The processes whose CPU time counts as the server's.
struct ServerSide<'a> {
    pid: u32,
    postgres: Option<&'a Cluster>,
}

impl ServerSide<'_> {
    fn pids(&self) -> Vec<u32> {
        let mut pids = vec![self.pid];
        if let Some(master) = self.postgres.and_then(Cluster::postmaster_pid) {
            pids.push(master);
            pids.extend(procs::children(master));
        }
        pids
    }

    fn ticks(&self) -> HashMap<u32, u64> {
        self.pids()
            .into_iter()
            .map(|p| (p, procs::cpu_ticks(p)))
            .collect()
    }
}

/// CPU ticks spent between two `ServerSide::ticks` readings, summed over the processes (one
/// that started in between counts from zero).
fn ticks_between(before: &HashMap<u32, u64>, after: &HashMap<u32, u64>) -> u64 {
    after
        .iter()
        .map(|(pid, t)| t.saturating_sub(*before.get(pid).unwrap_or(&0)))
        .sum()
}

/// How long the server side may stay busy after the seed before the runs start anyway.
const SETTLE_LIMIT: Duration = Duration::from_secs(900);
/// The server side counts as idle below this share of one core, for `IDLE_SECONDS` in a row.
const IDLE_SHARE: f64 = 0.05;
const IDLE_SECONDS: u32 = 3;

/// Waits until the server side is idle; how long that took, or `None` if it was still busy
/// at `SETTLE_LIMIT`. The seed may leave work behind that is not the first scenario's: the
/// webhook worker fans the seed's outbox events out 500 a pass, each pass a commit that
/// empties the read cache, and PostgreSQL's autovacuum follows a bulk load. Measured in the
/// middle of that, a scenario would read partly uncached.
fn settle(side: &ServerSide) -> Option<f64> {
    let start = Instant::now();
    let mut idle_in_a_row = 0;
    let mut before = side.ticks();
    while start.elapsed() < SETTLE_LIMIT {
        std::thread::sleep(Duration::from_secs(1));
        let after = side.ticks();
        let ticks = ticks_between(&before, &after);
        before = after;
        if (ticks as f64 / procs::clock_ticks() as f64) < IDLE_SHARE {
            idle_in_a_row += 1;
            if idle_in_a_row == IDLE_SECONDS {
                return Some(start.elapsed().as_secs_f64());
            }
        } else {
            idle_in_a_row = 0;
        }
    }
    None
}

impl EngineBench<'_> {
    fn run(&self, defs: &[&'static Def], postgres_bin: Option<&Path>) -> Result<Engine> {
        if self.dir.exists() {
            fs::remove_dir_all(&self.dir)?;
        }
        fs::create_dir_all(&self.dir)?;
        let (cluster, database_url) = match self.engine {
            "postgres" => {
                let bin = postgres_bin
                    .context("no PostgreSQL binaries")?
                    .to_path_buf();
                // PostgreSQL's durable defaults: the comparison with SQLite is fair only
                // if neither may lose an acknowledged write to a crash of the process.
                // SOUNDING_BENCH_PG_SETTINGS adds postgresql.conf lines (`;`-separated) for
                // profiling, e.g. pg_stat_statements or auto_explain; the bars assume none.
                let extra = std::env::var("SOUNDING_BENCH_PG_SETTINGS").unwrap_or_default();
                let extra: Vec<&str> = extra.split(';').filter(|l| !l.trim().is_empty()).collect();
                let cluster = Cluster::start_with(bin, self.dir.join("pg"), &extra)?;
                if let (Some(cores), Some(master)) =
                    (&self.layout.server_cores, cluster.postmaster_pid())
                {
                    // New backends are forked by the postmaster and inherit its cores.
                    for pid in std::iter::once(master).chain(procs::children(master)) {
                        procs::pin(pid, cores)?;
                    }
                }
                let url = cluster.url();
                (Some(cluster), url)
            }
            _ => {
                let path = self.dir.join("bench.db");
                (None, format!("sqlite://{}", path.display()))
            }
        };

        let teams = seed::create_teams(self.server_bin, &database_url)?;
        let server = self.start_server(&database_url)?;
        eprintln!("xtask bench: seeding through the API at {}", server.addr);
        let data_dir = self.dir.join("data");
        let seeded = seed::seed(server.addr, 16, &teams, &data_dir, self.scale)?;
        eprintln!(
            "xtask bench: seeded scale {} in {:.0} s",
            self.scale, seeded.seconds
        );
        let settled = settle(&ServerSide {
            pid: server.pid(),
            postgres: cluster.as_ref(),
        });
        match settled {
            Some(seconds) => {
                eprintln!("xtask bench: the server side was idle {seconds:.0} s after the seed")
            }
            None => eprintln!(
                "xtask bench: the server side was still busy {} s after the seed (the runs start anyway)",
                SETTLE_LIMIT.as_secs()
            ),
        }
        let baseline = self.start_baseline()?;
        let receiver = Receiver::start()?;

        let mut scenarios: Vec<Scenario> = defs
            .iter()
            .map(|d| Scenario {
                id: d.id,
                title: d.title,
                bar: d.bars.on(self.engine),
                read: d.read,
                runs: Vec::new(),
            })
            .collect();
        let mut vote_cursor = 0u64;
        for rep in 0..self.timing.repetitions {
            for (def, scenario) in defs.iter().zip(scenarios.iter_mut()) {
                if self.interrupted.load(Ordering::SeqCst) {
                    bail!("interrupted");
                }
                eprintln!(
                    "xtask bench: {} repetition {}/{}: {}",
                    self.engine,
                    rep + 1,
                    self.timing.repetitions,
                    def.id
                );
                let (process, postgres) = match def.target {
                    Target::Baseline => (&baseline, None),
                    Target::Server => (&server, cluster.as_ref()),
                };
                let run = self.measure(
                    def,
                    process,
                    postgres,
                    &data_dir,
                    &mut vote_cursor,
                    &receiver,
                    &seeded.key,
                    server.addr,
                )?;
                scenario.runs.push(run);
            }
        }
        let rss_after_mib = procs::rss_kib(server.pid()).map(|k| k as f64 / 1024.0);
        drop(baseline);
        drop(server);
        drop(cluster);
        Ok(Engine {
            name: if self.engine == "postgres" {
                "PostgreSQL"
            } else {
                "SQLite"
            },
            scale: self.scale,
            seed_counts: seeded.counts,
            seed_seconds: seeded.seconds,
            settle_seconds: settled,
            scenarios,
            rss_after_mib,
        })
    }

    fn start_server(&self, database_url: &str) -> Result<Process> {
        let log = self.dir.join("server.log");
        let env = [
            ("SOUNDING_DATABASE_URL", database_url.to_owned()),
            // The access log off (measure the service, not the terminal); the server's own
            // start-up lines stay, they say where it listens.
            ("SOUNDING_LOG", "warn,sounding_server=info".to_owned()),
            ("SOUNDING_WORKERS", self.layout.workers.to_string()),
            (
                "SOUNDING_RATE_LIMIT_KEY_PER_MIN",
                UNLIMITED_PER_MIN.to_owned(),
            ),
            (
                "SOUNDING_RATE_LIMIT_SUBSCRIBER_PER_MIN",
                UNLIMITED_PER_MIN.to_owned(),
            ),
            // The S7 receiver listens on loopback.
            ("SOUNDING_WEBHOOK_ALLOW_PRIVATE", "true".to_owned()),
            (
                "SOUNDING_METRICS_BIND",
                if self.metrics { "127.0.0.1:0" } else { "" }.to_owned(),
            ),
        ];
        let mut child = procs::spawn_pinned(
            self.layout.server_cores.as_deref(),
            self.server_bin,
            &["serve", "--bind", "127.0.0.1:0"],
            &env,
            &log,
        )?;
        let addr = procs::wait_listening(&mut child, &log).context("sounding serve")?;
        Ok(Process { child, addr })
    }

    fn start_baseline(&self) -> Result<Process> {
        let log = self.dir.join("baseline.log");
        let mut child = procs::spawn_pinned(
            self.layout.server_cores.as_deref(),
            self.baseline_bin,
            &["127.0.0.1:0"],
            &[("BENCH_WORKERS", self.layout.workers.to_string())],
            &log,
        )?;
        let addr = procs::wait_listening(&mut child, &log).context("bench_baseline")?;
        Ok(Process { child, addr })
    }

    #[allow(clippy::too_many_arguments)]
    fn wrk(
        &self,
        def: &Def,
        target: &Process,
        data_dir: &Path,
        seconds: u64,
        connections: u64,
        pause_ms: u64,
        cursor: &mut u64,
    ) -> Result<wrk::Measured> {
        let script = util::root().join("xtask").join("bench").join(def.script);
        let url = format!("http://{}", target.addr);
        let measured = wrk::run(&wrk::Load {
            script: &script,
            url: &url,
            seconds,
            connections,
            threads: self.layout.load_threads,
            cores: self.layout.load_cores.as_deref(),
            data_dir,
            pause_ms,
            vote_cursor: *cursor,
        })?;
        if def.votes {
            // Past every slot this run may have used (requests still in flight included).
            *cursor += (measured.requests + connections) * self.layout.load_threads;
        }
        Ok(measured)
    }

    #[allow(clippy::too_many_arguments)]
    fn measure(
        &self,
        def: &Def,
        target: &Process,
        postgres: Option<&Cluster>,
        data_dir: &Path,
        cursor: &mut u64,
        receiver: &Receiver,
        key: &str,
        server: SocketAddr,
    ) -> Result<Run> {
        let mut client = Client::new(server);
        let subscriptions = if def.webhooks {
            receiver.reset();
            let hook = format!("http://{}/hook", receiver.addr);
            ["new_feedback", "new_feedback_vote"]
                .iter()
                .map(|event| {
                    let body = client.post_ok(
                        "/v1/automation.subscribe",
                        Some(key),
                        &json!({"target_url": hook, "event": event}),
                    )?;
                    body["data"]["id"]
                        .as_str()
                        .map(str::to_owned)
                        .context("no subscription id")
                })
                .collect::<Result<Vec<_>>>()?
        } else {
            Vec::new()
        };

        self.wrk(
            def,
            target,
            data_dir,
            self.timing.warmup,
            CONNECTIONS,
            0,
            cursor,
        )?;
        let measured = ServerSide {
            pid: target.pid(),
            postgres,
        };
        procs::reset_peak(target.pid());
        let before = measured.ticks();
        let full = self.wrk(
            def,
            target,
            data_dir,
            self.timing.seconds,
            CONNECTIONS,
            0,
            cursor,
        )?;
        let after = measured.ticks();
        if full.status_errors + full.socket_errors > 0 {
            // Said now, not only at the end: a rate of refusals is no measurement of the write.
            eprintln!(
                "xtask bench:   {} FAILED: {} of {} answers were 4xx/5xx, {} socket errors (the run fails)",
                def.id, full.status_errors, full.requests, full.socket_errors
            );
        }
        let peak_rss_mib = procs::peak_rss_kib(target.pid()).map(|k| k as f64 / 1024.0);
        let ticks = ticks_between(&before, &after);
        let cpu_s_per_1k =
            ticks as f64 / procs::clock_ticks() as f64 / full.requests.max(1) as f64 * 1000.0;

        // Half of this repetition's maximum, paced: each connection pauses before each
        // request, enough connections to add up to the rate.
        let half_rate = full.rate() / 2.0;
        let half = if half_rate >= 1.0 {
            let pause = MIN_PAUSE_MS.max((MIN_PACED_CONNECTIONS * 1000.0 / half_rate).ceil());
            let connections = (half_rate * pause / 1000.0)
                .round()
                .clamp(1.0, MAX_PACED_CONNECTIONS);
            let paced = self.wrk(
                def,
                target,
                data_dir,
                self.timing.seconds,
                connections as u64,
                pause as u64,
                cursor,
            )?;
            Some((half_rate, paced))
        } else {
            None
        };

        let lag = if def.webhooks {
            let undrained = self.drain(&mut client, key)?;
            let (lags, duplicates) = receiver.lags();
            for id in &subscriptions {
                client.post_ok("/v1/automation.unsubscribe", Some(key), &json!({"id": id}))?;
            }
            Some(Lag {
                p50_ms: report::percentile(&lags, 50.0).unwrap_or(f64::NAN),
                p99_ms: report::percentile(&lags, 99.0).unwrap_or(f64::NAN),
                deliveries: lags.len(),
                duplicates,
                undrained,
            })
        } else {
            None
        };
        eprintln!(
            "xtask bench:   {:.0} req/s, p99 {:.2} ms; half load p50/p99 {}; CPU {cpu_s_per_1k:.3} s/1k{}",
            full.rate(),
            full.p99_ms,
            half.map_or("—".into(), |(_, h)| format!("{:.2}/{:.2} ms at {:.0} req/s", h.p50_ms, h.p99_ms, h.rate())),
            lag.map_or(String::new(), |l| format!("; webhook lag p50/p99 {:.1}/{:.1} ms over {} deliveries", l.p50_ms, l.p99_ms, l.deliveries)),
        );
        Ok(Run {
            full,
            cpu_s_per_1k,
            peak_rss_mib,
            half,
            lag,
        })
    }

    /// Waits until no delivery is pending (or the timeout); returns how many still are.
    fn drain(&self, client: &mut Client, key: &str) -> Result<u64> {
        let deadline = Instant::now() + self.timing.drain_timeout;
        loop {
            let body = client.post_ok(
                "/v1/automation.deliveries",
                Some(key),
                &json!({"status": "pending", "limit": 1}),
            )?;
            let pending = body["pagination"]["total"]
                .as_u64()
                .context("no pagination.total in automation.deliveries")?;
            if pending == 0 || Instant::now() > deadline {
                return Ok(pending);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_scenario_list_keeps_the_baseline() {
        let options =
            Options::parse(&args(&["--scenario", "s4,S1", "--engine", "sqlite"])).unwrap();
        let ids: Vec<&str> = options.scenarios.iter().map(|d| d.id).collect();
        assert_eq!(ids, ["B0", "S1", "S4"]);
        assert_eq!(options.engines, ["sqlite"]);
        assert!(Options::parse(&args(&["--scenario", "S9"])).is_err());
        let options = Options::parse(&args(&["--scenario", "S8", "--scale", "10"])).unwrap();
        let ids: Vec<&str> = options.scenarios.iter().map(|d| d.id).collect();
        assert_eq!(
            (ids.as_slice(), options.scale),
            (["B0", "S8"].as_slice(), 10)
        );
        assert_eq!(Options::parse(&[]).unwrap().scale, 1);
        assert!(Options::parse(&args(&["--scale", "0"])).is_err());
        assert!(Options::parse(&args(&["--scale"])).is_err());
        assert!(Options::parse(&args(&["--engine", "mysql"])).is_err());
    }

    #[test]
    fn two_cores_give_one_to_the_server_and_one_to_wrk() {
        let layout = Layout::for_cores(2);
        assert_eq!(layout.server_cores.as_deref(), Some("0"));
        assert_eq!(layout.load_cores.as_deref(), Some("1"));
        assert_eq!((layout.workers, layout.load_threads), (1, 1));
        let one = Layout::for_cores(1);
        assert!(one.server_cores.is_none() && one.load_cores.is_none());
    }
}
