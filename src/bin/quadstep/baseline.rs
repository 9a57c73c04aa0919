//! `quadstep amber --baseline FILE` and `--write-baseline FILE`: known results, so a corpus
//! with known failures still gives CI a clear pass/fail. The format is deqp-runner's: one
//! `<script>,<Fail|Skip>` per line, the script named by its path below the argument it was
//! found under (so a baseline works from any working directory and for any shard), `#`
//! starting a comment, blank lines ignored. A script the run did not reach (another shard's,
//! or one filtered out) is not compared.

use std::collections::BTreeMap;
use std::path::Path;

use quadstep::amber::{ScriptResult, Status};

/// A known result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    Fail,
    Skip,
}

impl Known {
    fn word(self) -> &'static str {
        match self {
            Known::Fail => "Fail",
            Known::Skip => "Skip",
        }
    }

    /// What a result is, `None` for a pass.
    fn of(s: &Status) -> Option<Known> {
        match s {
            Status::Pass => None,
            Status::Fail { .. } => Some(Known::Fail),
            Status::Unsupported { .. } => Some(Known::Skip),
        }
    }
}

/// The known results by script.
pub type Baseline = BTreeMap<String, Known>;

/// Read a baseline file; errors name the file and line.
pub fn read(path: &Path) -> Result<Baseline, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--baseline {}: {e}", path.display()))?;
    parse(&text).map_err(|(n, e)| format!("--baseline {}:{n}: {e}", path.display()))
}

fn parse(text: &str) -> Result<Baseline, (usize, String)> {
    let mut b = Baseline::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (name, known) = line.rsplit_once(',').ok_or_else(|| {
            (
                i + 1,
                format!("expected `script,Fail` or `script,Skip`, got `{line}`"),
            )
        })?;
        let known = match known.trim() {
            "Fail" => Known::Fail,
            "Skip" => Known::Skip,
            k => return Err((i + 1, format!("`{k}`: expected Fail or Skip"))),
        };
        b.insert(name.trim().to_string(), known);
    }
    Ok(b)
}

/// The run's failures and skips in the baseline format, sorted by script.
pub fn format(results: &[(&ScriptResult, String)]) -> String {
    let mut lines: Vec<String> = results
        .iter()
        .filter_map(|(r, rel)| Known::of(&r.status).map(|k| format!("{rel},{}", k.word())))
        .collect();
    lines.sort();
    let mut s =
        String::from("# quadstep amber baseline: <script below its argument>,<Fail|Skip>\n");
    for l in lines {
        s.push_str(&l);
        s.push('\n');
    }
    s
}

/// How a run differs from a baseline: each list holds scripts below their argument.
#[derive(Default, Debug)]
pub struct Diff {
    /// Failed, not listed as failing.
    pub new_failures: Vec<String>,
    /// Listed as failing or skipped, passed: flakes or fixes.
    pub new_passes: Vec<String>,
    /// Skipped, not listed as skipped.
    pub new_skips: Vec<String>,
    /// The largest exit status of the scripts that differ (a new pass or skip counts 1).
    pub status: u8,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.new_failures.is_empty() && self.new_passes.is_empty() && self.new_skips.is_empty()
    }
}

/// Compare the run with the baseline.
pub fn compare(baseline: &Baseline, results: &[(&ScriptResult, String)]) -> Diff {
    let mut d = Diff::default();
    for (r, rel) in results {
        let (known, got) = (baseline.get(rel).copied(), Known::of(&r.status));
        if known == got {
            continue;
        }
        let list = match got {
            Some(Known::Fail) => &mut d.new_failures,
            Some(Known::Skip) => &mut d.new_skips,
            None => &mut d.new_passes,
        };
        list.push(rel.clone());
        d.status = d.status.max(r.status.exit_code().max(1));
    }
    d
}

/// The diff as text lines (for the terminal) or one JSON object.
pub fn report(d: &Diff, json: bool) -> String {
    if json {
        let list = |v: &[String]| serde_json::Value::from(v.to_vec());
        return serde_json::json!({
            "baseline": {
                "new_failures": list(&d.new_failures),
                "new_passes": list(&d.new_passes),
                "new_skips": list(&d.new_skips),
            }
        })
        .to_string();
    }
    if d.is_empty() {
        return "results match the baseline".into();
    }
    let mut s = String::new();
    for (title, v) in [
        (
            "new failures (failed, not in the baseline)",
            &d.new_failures,
        ),
        ("new skips (skipped, not in the baseline)", &d.new_skips),
        (
            "new passes (flakes or fixes: remove from the baseline)",
            &d.new_passes,
        ),
    ] {
        if !v.is_empty() {
            s += &format!("{title}: {}\n", v.len());
            for n in v {
                s += &format!("  {n}\n");
            }
        }
    }
    s.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_comments_and_rejects_other_results() {
        let b = parse("# known\na/b.amber,Fail\n\n c.amber , Skip # flaky\n").unwrap();
        assert_eq!(b.get("a/b.amber"), Some(&Known::Fail));
        assert_eq!(b.get("c.amber"), Some(&Known::Skip));
        assert_eq!(b.len(), 2);
        assert_eq!(parse("x\ny,Crash\n").unwrap_err().0, 1);
        assert_eq!(parse("y,Crash\n").unwrap_err().0, 1);
    }
}
