//! What `quadstep bench` and `quadstep bench sampler` share after measuring: the switches
//! for rounds and reports ([`ReportArgs`]), a measured row in one shape for both
//! ([`Row`]: a key, per-round figures, the distribution behind them), reading earlier
//! `--json` runs back (`--compare`, `--from`) and lavapipe's figures (`--peer`), the
//! comparison table, and writing the `--html` page (`bench_html.rs`). Keeping the rows in
//! one shape lets the comparison rule and the page be written once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use quadstep::bench::rounds::{compare, Change, Spread};

#[derive(clap::Args, Clone, Debug)]
pub struct ReportArgs {
    /// Rounds: each measures every case (every thread count) once, in an order turned round
    /// every other round; figures are the medians of the per-round figures, with their
    /// min-max spread. Default: 1 for a script, 5 for `bench sampler`.
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub rounds: Option<u64>,
    /// One JSON object per line instead of text (fields: after the options).
    #[arg(long)]
    pub json: bool,
    /// Compare with an earlier `--json` run: per-case ratio of the medians (this run ÷ the
    /// baseline), flagged `faster` / `slower` only when the two runs' min-max spreads of
    /// per-round figures do not overlap (else `within noise`). Exit status 1 when any case
    /// is slower.
    #[arg(long, value_name = "BASELINE.json")]
    pub compare: Option<PathBuf>,
    /// Write one self-contained HTML page of charts (inline SVG and CSS, no scripts).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Report an earlier `--json` run instead of measuring (for `--compare` and `--html`).
    #[arg(long, value_name = "RUN.json")]
    pub from: Option<PathBuf>,
}

/// One measured case in the shape both benches report.
#[derive(Clone, Debug)]
pub struct Row {
    /// What `--compare` matches: the sampler case's name, or `run N threads T`.
    pub key: String,
    /// The unit of the figures (`ns/sample`, `ms`).
    pub unit: &'static str,
    /// One figure per round.
    pub rounds: Vec<f64>,
    /// Every timed repetition (a script's draws; empty for the sampler, whose rounds are
    /// its distribution).
    pub times: Vec<f64>,
    /// The row's JSON object (what `--json` printed).
    pub json: serde_json::Value,
}

impl Row {
    /// The key, unit and figures of a `--json` line of either bench; `None` for other
    /// objects.
    pub fn from_json(v: serde_json::Value) -> Option<Row> {
        let floats = |k: &str| -> Option<Vec<f64>> {
            v.get(k)?.as_array()?.iter().map(|x| x.as_f64()).collect()
        };
        let (key, unit, rounds, times) = if let Some(case) = v.get("case") {
            (
                case.as_str()?.to_string(),
                "ns/sample",
                floats("round_ns")?,
                Vec::new(),
            )
        } else {
            let key = script_key(v.get("run")?.as_u64()?, v.get("threads")?.as_u64()?);
            (key, "ms", floats("round_median_ms")?, floats("times_ms")?)
        };
        Spread::of(&rounds)?;
        Some(Row {
            key,
            unit,
            rounds,
            times,
            json: v,
        })
    }

    /// The median of the per-round figures and their range.
    pub fn spread(&self) -> Spread {
        Spread::of(&self.rounds).unwrap_or(Spread {
            median: f64::NAN,
            min: f64::NAN,
            max: f64::NAN,
        })
    }
}

/// `--compare`'s key of a script's row.
pub fn script_key(run: u64, threads: u64) -> String {
    format!("run {run} threads {threads}")
}

/// The rows of a `--json` run (one object per line).
pub fn read_rows(path: &Path) -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rows = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        rows.push(Row::from_json(v).ok_or_else(|| {
            format!(
                "{}:{}: not a `quadstep bench --json` row (a case or run with its per-round \
                 figures)",
                path.display(),
                i + 1
            )
        })?);
    }
    Ok(rows)
}

/// The baseline's rows by key.
pub fn baseline(path: &Path) -> Result<HashMap<String, Spread>, String> {
    Ok(read_rows(path)?
        .into_iter()
        .map(|r| (r.key.clone(), r.spread()))
        .collect())
}

/// Lavapipe's figure per sampler case, in ns per sample, from a `--peer` file: a JSON object
/// whose keys are case names and whose values are either a number (ns per sample) or
/// `{"with": LVP, "without": LVP, "samples": N}`, two of `lvp`'s output lines (the scene
/// with and without the samples) and the samples the difference stands for:
/// `(with.median_ms − without.median_ms) · 10⁶ / N`.
pub fn peer(path: &Path) -> Result<HashMap<String, f64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let obj = v
        .as_object()
        .ok_or_else(|| format!("{}: not a JSON object of case names", path.display()))?;
    let mut m = HashMap::new();
    for (case, x) in obj {
        let ns = x.as_f64().or_else(|| {
            let ms = |k: &str| x.get(k)?.get("median_ms")?.as_f64();
            let n = x.get("samples")?.as_f64().filter(|&n| n > 0.0)?;
            Some((ms("with")? - ms("without")?) * 1e6 / n)
        });
        match ns {
            Some(ns) if ns.is_finite() => m.insert(case.clone(), ns),
            _ => {
                return Err(format!(
                    "{}: {case}: neither a number of ns per sample nor \
                     {{\"with\": lvp, \"without\": lvp, \"samples\": N}}",
                    path.display()
                ))
            }
        };
    }
    Ok(m)
}

/// Adds `baseline_median`, `baseline_min`, `baseline_max`, `ratio` and `change` to each row with a baseline, prints the text
/// table unless `json`; whether any case got slower.
pub fn apply_compare(rows: &mut [Row], base: &HashMap<String, Spread>, json: bool) -> bool {
    let mut slower = false;
    if !json {
        println!("against the baseline (this run / baseline; a change only where the spreads do not overlap):");
    }
    for r in rows.iter_mut() {
        let Some(b) = base.get(&r.key) else {
            if !json {
                println!("{}: not in the baseline", r.key);
            }
            continue;
        };
        let s = r.spread();
        let (ratio, change) = compare(s, *b);
        slower |= change == Change::Slower;
        if let Some(o) = r.json.as_object_mut() {
            o.insert("baseline_median".into(), b.median.into());
            o.insert("baseline_min".into(), b.min.into());
            o.insert("baseline_max".into(), b.max.into());
            o.insert("ratio".into(), ratio.into());
            o.insert("change".into(), change.word().into());
        }
        if !json {
            let flag = match change {
                Change::Within => "within noise".to_string(),
                c => c.word().to_uppercase(),
            };
            println!(
                "{}: {:.3} ({:.3}-{:.3}) vs baseline {:.3} ({:.3}-{:.3}) {}: ratio {ratio:.3}, {flag}",
                r.key, s.median, s.min, s.max, b.median, b.min, b.max, r.unit
            );
        }
    }
    slower
}
