//! Results: the per-run numbers, their summary (median with min–max over repetitions), and
//! the two outputs — `results.json` and the generated part of `docs/benchmarks.md`.

use std::{fs, path::Path};

use anyhow::{Context as _, Result};
use serde_json::{json, Value};

use super::wrk::Measured;

/// One repetition of one scenario.
pub struct Run {
    pub full: Measured,
    pub cpu_s_per_1k: f64,
    pub peak_rss_mib: Option<f64>,
    /// The paced run: its target rate and what it measured.
    pub half: Option<(f64, Measured)>,
    pub lag: Option<Lag>,
}

#[derive(Clone, Copy)]
pub struct Lag {
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub deliveries: usize,
    pub duplicates: usize,
    /// Deliveries still pending when the harness stopped waiting.
    pub undrained: u64,
}

pub struct Scenario {
    pub id: &'static str,
    pub title: &'static str,
    /// The bar as a fraction of B0's req/s.
    pub bar: Option<f64>,
    pub read: bool,
    pub runs: Vec<Run>,
}

pub struct Engine {
    pub name: &'static str,
    /// The seed's size, in multiples of the scale-1 seed (`--scale`).
    pub scale: usize,
    pub seed_counts: Vec<(&'static str, usize)>,
    pub seed_seconds: f64,
    /// How long the server side took to go idle after the seed (`settle`); `None` if it was
    /// still busy at the time limit.
    pub settle_seconds: Option<f64>,
    pub scenarios: Vec<Scenario>,
    pub rss_after_mib: Option<f64>,
}

pub struct Report {
    pub quick: bool,
    pub seconds_per_run: u64,
    pub repetitions: usize,
    pub date: String,
    pub machine: Vec<(&'static str, String)>,
    pub layout: String,
    pub engines: Vec<Engine>,
}

/// The median, min and max of `values` (None when empty).
pub fn spread(values: &[f64]) -> Option<(f64, f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    let median = if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    };
    Some((median, v[0], v[v.len() - 1]))
}

/// The `p`-th percentile (0..=100) by nearest rank.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    let mut v = values.to_vec();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    Some(v[rank.min(v.len()) - 1])
}

impl Scenario {
    fn pick(&self, f: impl Fn(&Run) -> Option<f64>) -> Option<(f64, f64, f64)> {
        spread(&self.runs.iter().filter_map(f).collect::<Vec<_>>())
    }

    pub fn rate(&self) -> Option<(f64, f64, f64)> {
        self.pick(|r| Some(r.full.rate()))
    }

    fn errors(&self) -> u64 {
        self.runs
            .iter()
            .flat_map(|r| [Some(r.full), r.half.map(|h| h.1)])
            .flatten()
            .map(|m| m.status_errors + m.socket_errors)
            .sum()
    }
}

impl Engine {
    fn heading(&self) -> String {
        if self.scale == 1 {
            self.name.to_owned()
        } else {
            format!("{}, scale {}", self.name, self.scale)
        }
    }

    fn baseline(&self) -> Option<f64> {
        self.scenarios
            .iter()
            .find(|s| s.id == "B0")
            .and_then(|s| s.rate())
            .map(|r| r.0)
    }

    /// Scenarios that answered anything but 2xx, or lost connections: a broken run.
    pub fn failures(&self) -> Vec<String> {
        self.scenarios
            .iter()
            .filter(|s| s.errors() > 0)
            .map(|s| {
                format!(
                    "{} {}: {} non-2xx or socket errors",
                    self.heading(),
                    s.id,
                    s.errors()
                )
            })
            .collect()
    }
}

fn opt(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |x| json!((x * 1000.0).round() / 1000.0))
}

fn spread_json(s: Option<(f64, f64, f64)>) -> Value {
    s.map_or(
        Value::Null,
        |(m, lo, hi)| json!({"median": opt(Some(m)), "min": opt(Some(lo)), "max": opt(Some(hi))}),
    )
}

fn measured_json(m: &Measured) -> Value {
    json!({
        "requests": m.requests, "seconds": opt(Some(m.seconds)), "rps": opt(Some(m.rate())),
        "p50Ms": opt(Some(m.p50_ms)), "p99Ms": opt(Some(m.p99_ms)),
        "statusErrors": m.status_errors, "socketErrors": m.socket_errors,
    })
}

impl Report {
    pub fn to_json(&self) -> Value {
        let engines: Vec<Value> = self
            .engines
            .iter()
            .map(|engine| {
                let b0 = engine.baseline();
                let scenarios: Vec<Value> = engine
                    .scenarios
                    .iter()
                    .map(|s| {
                        let runs: Vec<Value> = s
                            .runs
                            .iter()
                            .map(|r| {
                                json!({
                                    "full": measured_json(&r.full),
                                    "cpuSecondsPer1kRequests": opt(Some(r.cpu_s_per_1k)),
                                    "peakRssMiB": opt(r.peak_rss_mib),
                                    "halfLoad": r.half.map(|(target, m)| json!({
                                        "targetRps": opt(Some(target)), "measured": measured_json(&m),
                                    })),
                                    "webhookLag": r.lag.map(|l| json!({
                                        "p50Ms": opt(Some(l.p50_ms)), "p99Ms": opt(Some(l.p99_ms)),
                                        "deliveries": l.deliveries, "duplicates": l.duplicates,
                                        "undrained": l.undrained,
                                    })),
                                })
                            })
                            .collect();
                        let rate = s.rate();
                        json!({
                            "id": s.id, "title": s.title,
                            "rps": spread_json(rate),
                            "ratioToB0": opt(rate.zip(b0).map(|(r, b)| r.0 / b)),
                            "bar": s.bar,
                            "halfLoadP50Ms": spread_json(s.pick(|r| r.half.map(|h| h.1.p50_ms))),
                            "halfLoadP99Ms": spread_json(s.pick(|r| r.half.map(|h| h.1.p99_ms))),
                            "cpuSecondsPer1kRequests": spread_json(s.pick(|r| Some(r.cpu_s_per_1k))),
                            "peakRssMiB": spread_json(s.pick(|r| r.peak_rss_mib)),
                            "webhookLagP50Ms": spread_json(s.pick(|r| r.lag.map(|l| l.p50_ms))),
                            "webhookLagP99Ms": spread_json(s.pick(|r| r.lag.map(|l| l.p99_ms))),
                            "runs": runs,
                        })
                    })
                    .collect();
                json!({
                    "engine": engine.name,
                    "scale": engine.scale,
                    "seed": {
                        "seconds": opt(Some(engine.seed_seconds)),
                        "settleSeconds": opt(engine.settle_seconds),
                        "counts": engine.seed_counts.iter().map(|(k, v)| json!({"what": k, "count": v})).collect::<Vec<_>>(),
                    },
                    "rssAfterRunMiB": opt(engine.rss_after_mib),
                    "scenarios": scenarios,
                })
            })
            .collect();
        json!({
            "quick": self.quick,
            "secondsPerRun": self.seconds_per_run,
            "repetitions": self.repetitions,
            "date": self.date,
            "layout": self.layout,
            "machine": self.machine.iter().map(|(k, v)| json!({"fact": k, "value": v})).collect::<Vec<_>>(),
            "engines": engines,
        })
    }

    /// The generated section of docs/benchmarks.md (between the markers).
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let kind = if self.quick {
            "a **quick** run (`--quick`: one repetition, 5 s per run — a smoke check, not a measurement)"
        } else {
            "a full run"
        };
        out.push_str(&format!(
            "Generated by `cargo xtask bench{}` on {}: {kind}; {} repetition(s) of {} s per scenario.\n\n",
            if self.quick { " --quick" } else { "" },
            self.date,
            self.repetitions,
            self.seconds_per_run
        ));
        out.push_str(&format!("Layout: {}.\n\n", self.layout));
        out.push_str("| Machine | |\n|---|---|\n");
        for (k, v) in &self.machine {
            out.push_str(&format!("| {k} | {v} |\n"));
        }
        for engine in &self.engines {
            let b0 = engine.baseline();
            out.push_str(&format!("\n### {}\n\n", engine.heading()));
            out.push_str(
                "| | Scenario | req/s median (min–max) | × B0 | bar | p50 / p99 at half load (ms) | CPU s / 1k req | peak RSS (MiB) |\n\
                 |---|---|---|---|---|---|---|---|\n",
            );
            for s in &engine.scenarios {
                let rate = s.rate();
                let ratio = rate.zip(b0).map(|(r, b)| r.0 / b);
                let rate_cell = rate.map_or("—".into(), |(m, lo, hi)| {
                    format!("{m:.0} ({lo:.0}–{hi:.0})")
                });
                let bar_cell = match (s.bar, ratio) {
                    (Some(bar), Some(r)) => {
                        format!("≥ {bar} {}", if r >= bar { "✔" } else { "✘" })
                    }
                    _ => String::new(),
                };
                let half = s
                    .pick(|r| r.half.map(|h| h.1.p50_ms))
                    .zip(s.pick(|r| r.half.map(|h| h.1.p99_ms)))
                    .zip(s.pick(|r| r.half.map(|h| h.1.rate())))
                    .map_or("—".into(), |((p50, p99), rate)| {
                        // The latency bar is the issue's, for the read scenarios it names.
                        let mark = match (s.read, s.bar) {
                            (true, Some(_)) if p99.0 < 10.0 => " ✔",
                            (true, Some(_)) => " ✘",
                            _ => "",
                        };
                        format!("{:.2} / {:.2}{mark} at {:.0} req/s", p50.0, p99.0, rate.0)
                    });
                let cpu = s
                    .pick(|r| Some(r.cpu_s_per_1k))
                    .map_or("—".into(), |c| format!("{:.3}", c.0));
                let rss = s
                    .pick(|r| r.peak_rss_mib)
                    .map_or("—".into(), |m| format!("{:.1}", m.2));
                out.push_str(&format!(
                    "| {} | {} | {rate_cell} | {} | {bar_cell} | {half} | {cpu} | {rss} |\n",
                    s.id,
                    s.title,
                    ratio.map_or("—".into(), |r| format!("{r:.3}")),
                ));
            }
            for s in &engine.scenarios {
                let lags: Vec<Lag> = s.runs.iter().filter_map(|r| r.lag).collect();
                if let (Some(p50), Some(p99)) = (
                    s.pick(|r| r.lag.map(|l| l.p50_ms)),
                    s.pick(|r| r.lag.map(|l| l.p99_ms)),
                ) {
                    let delivered: usize = lags.iter().map(|l| l.deliveries).sum();
                    let undrained: u64 = lags.iter().map(|l| l.undrained).sum();
                    out.push_str(&format!(
                        "\n{} webhook delivery lag (event `occurredAt` → arrival at the local receiver): \
                         p50 {:.1} ms, p99 {:.1} ms (medians over runs) across {delivered} deliveries{}.\n",
                        s.id,
                        p50.0,
                        p99.0,
                        if undrained > 0 {
                            format!("; {undrained} still pending when the harness stopped waiting")
                        } else {
                            String::new()
                        }
                    ));
                }
            }
            if let Some(rss) = engine.rss_after_mib {
                out.push_str(&format!(
                    "\nServer RSS after the last run: {rss:.1} MiB (bar: under 100 MiB {}).\n",
                    if rss < 100.0 { "✔" } else { "✘" }
                ));
            }
            out.push_str(&format!(
                "\nSeeded (scale {}) through the API in {:.0} s: {}; {}.\n",
                engine.scale,
                engine.seed_seconds,
                engine
                    .seed_counts
                    .iter()
                    .map(|(k, v)| format!("{v} {k}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                match engine.settle_seconds {
                    Some(s) => format!("the server side was idle {s:.0} s later"),
                    None => "the server side was still busy when the runs started".to_owned(),
                }
            ));
        }
        self.scale_markdown(&mut out);
        out
    }

    /// Each engine measured at scale 1 and at scale N: req/s side by side, so what slows as
    /// the data grows stands out (a ratio well under 1).
    fn scale_markdown(&self, out: &mut String) {
        for small in self.engines.iter().filter(|e| e.scale == 1) {
            let Some(big) = self
                .engines
                .iter()
                .find(|e| e.name == small.name && e.scale > 1)
            else {
                continue;
            };
            out.push_str(&format!(
                "\n### {}: scale 1 → {}\n\n\
                 Seeded in {:.0} s at scale 1, {:.0} s at scale {}.\n\n\
                 | | Scenario | req/s, scale 1 | req/s, scale {} | scale {} / scale 1 |\n\
                 |---|---|---|---|---|\n",
                small.name,
                big.scale,
                small.seed_seconds,
                big.seed_seconds,
                big.scale,
                big.scale,
                big.scale,
            ));
            for s in &small.scenarios {
                let one = s.rate().map(|r| r.0);
                let n = big
                    .scenarios
                    .iter()
                    .find(|b| b.id == s.id)
                    .and_then(|b| b.rate())
                    .map(|r| r.0);
                let cell = |r: Option<f64>| r.map_or("—".into(), |r| format!("{r:.0}"));
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} |\n",
                    s.id,
                    s.title,
                    cell(one),
                    cell(n),
                    one.zip(n)
                        .map_or("—".into(), |(a, b)| format!("{:.2}", b / a.max(1e-9))),
                ));
            }
        }
    }
}

pub const BEGIN: &str =
    "<!-- bench:begin — written by `cargo xtask bench`; edits between the markers are lost -->";
pub const END: &str = "<!-- bench:end -->";

/// Replaces the text between the markers in `doc` (appends the block when they are missing).
pub fn splice(doc: &str, generated: &str) -> String {
    let block = format!("{BEGIN}\n{}\n{END}", generated.trim_end());
    match (doc.find(BEGIN), doc.find(END)) {
        (Some(start), Some(end)) if end > start => {
            format!("{}{block}{}", &doc[..start], &doc[end + END.len()..])
        }
        _ => format!("{}\n\n{block}\n", doc.trim_end()),
    }
}

pub fn write(report: &Report, json_path: &Path, doc_path: Option<&Path>) -> Result<()> {
    if let Some(dir) = json_path.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(
        json_path,
        serde_json::to_string_pretty(&report.to_json())? + "\n",
    )
    .with_context(|| format!("cannot write {}", json_path.display()))?;
    if let Some(doc_path) = doc_path {
        let doc = fs::read_to_string(doc_path).unwrap_or_else(|_| "# Benchmarks\n".to_owned());
        fs::write(doc_path, splice(&doc, &report.markdown()))
            .with_context(|| format!("cannot write {}", doc_path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_is_median_min_max() {
        assert_eq!(spread(&[3.0, 1.0, 2.0]), Some((2.0, 1.0, 3.0)));
        assert_eq!(spread(&[4.0, 1.0]), Some((2.5, 1.0, 4.0)));
        assert_eq!(spread(&[]), None);
    }

    #[test]
    fn percentile_takes_the_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&[7.0], 99.0), Some(7.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    fn engine(scale: usize, rate: f64) -> Engine {
        let full = Measured {
            requests: (rate * 10.0) as u64,
            seconds: 10.0,
            status_errors: 0,
            socket_errors: 0,
            p50_ms: 1.0,
            p99_ms: 2.0,
        };
        Engine {
            name: "SQLite",
            scale,
            seed_counts: Vec::new(),
            seed_seconds: 20.0 * scale as f64,
            settle_seconds: Some(1.0),
            scenarios: vec![Scenario {
                id: "S3",
                title: "list",
                bar: None,
                read: true,
                runs: vec![Run {
                    full,
                    cpu_s_per_1k: 0.1,
                    peak_rss_mib: None,
                    half: None,
                    lag: None,
                }],
            }],
            rss_after_mib: None,
        }
    }

    #[test]
    fn a_scaled_run_is_reported_next_to_scale_one() {
        let mut report = Report {
            quick: true,
            seconds_per_run: 5,
            repetitions: 1,
            date: String::new(),
            machine: Vec::new(),
            layout: String::new(),
            engines: vec![engine(1, 1000.0), engine(10, 250.0)],
        };
        let md = report.markdown();
        assert!(md.contains("### SQLite, scale 10\n"), "{md}");
        assert!(md.contains("### SQLite: scale 1 → 10"), "{md}");
        assert!(md.contains("| S3 | list | 1000 | 250 | 0.25 |"), "{md}");
        report.engines.pop();
        assert!(!report.markdown().contains("scale 1 →"));
    }

    #[test]
    fn splice_replaces_only_the_generated_block() {
        let doc = format!("# B\n\nintro\n\n{BEGIN}\nold\n{END}\n\nafter\n");
        let out = splice(&doc, "new\n");
        assert_eq!(
            out,
            format!("# B\n\nintro\n\n{BEGIN}\nnew\n{END}\n\nafter\n")
        );
        let appended = splice("# B\n", "new");
        assert!(appended.starts_with("# B\n\n") && appended.ends_with(&format!("new\n{END}\n")));
    }
}
