//! `quadstep bench sampler`: the JSON it documents, the generated matrix's cases, `--compare`
//! (a planted tenfold change is flagged, an identical run is not) and the `--html` page (well
//! formed, one chart per case). Timings are never asserted on: only the structure of what is
//! reported (how many rounds and samples were timed, min ≤ median ≤ max). That criterion
//! registers the same cases as `--list` prints is checked by the sampler bench itself under
//! `cargo test` (`benches/sampler.rs`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "quadstep-bench-sampler-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sampler(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quadstep"))
        .args(["bench", "sampler"])
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}; stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// A quick `--json` run of the two nearest-filter cases, saved to `dir/run.json`.
fn quick_run(dir: &Path) -> (PathBuf, Vec<serde_json::Value>) {
    let text = stdout(&sampler(&[
        "--case",
        "nearest_*",
        "--iterations",
        "3",
        "--warmup",
        "1",
        "--rounds",
        "4",
        "--json",
    ]));
    let path = dir.join("run.json");
    std::fs::write(&path, &text).unwrap();
    (path, json_lines(&text))
}

#[test]
fn json_has_the_documented_shape() {
    let d = scratch("shape");
    let (_, rows) = quick_run(&d);
    let names: Vec<&str> = rows.iter().map(|r| r["case"].as_str().unwrap()).collect();
    assert_eq!(names, ["nearest_rgba8_2d", "nearest_rgba8_2d_wide"]);
    let mut want = [
        "case",
        "rounds",
        "iterations",
        "warmup",
        "samples_per_iteration",
        "timed_samples",
        "ns_per_sample",
        "ns_min",
        "ns_max",
        "round_ns",
        "samples_per_second",
        "clock",
    ];
    want.sort_unstable();
    for r in &rows {
        let mut have: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        have.sort_unstable();
        assert_eq!(have, want);
        // 64 quads of 4 lanes a run; 3 timed runs in each of 4 rounds
        assert_eq!(r["samples_per_iteration"], 64 * 4);
        assert_eq!(r["timed_samples"], 4 * 3 * 64 * 4);
        assert_eq!(
            (r["rounds"].clone(), r["iterations"].clone()),
            (4.into(), 3.into())
        );
        assert_eq!(r["clock"], "wall");
        let round: Vec<f64> = r["round_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(round.len(), 4);
        let (lo, med, hi) = (
            r["ns_min"].as_f64().unwrap(),
            r["ns_per_sample"].as_f64().unwrap(),
            r["ns_max"].as_f64().unwrap(),
        );
        assert!(0.0 < lo && lo <= med && med <= hi, "{r}");
        // the median of four values: the mean of the middle two
        let mut s = round.clone();
        s.sort_by(f64::total_cmp);
        // (serde_json's float parsing is within an ulp or so, not exact)
        let close = |a: f64, b: f64, rel: f64| approx::relative_eq!(a, b, max_relative = rel);
        assert!(close(lo, s[0], 1e-12) && close(hi, s[3], 1e-12), "{r}");
        assert!(close(med, (s[1] + s[2]) / 2.0, 1e-9), "{r}");
        let per_s = r["samples_per_second"].as_f64().unwrap();
        approx::assert_abs_diff_eq!(per_s * med / 1e9, 1.0, epsilon = 1e-9);
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn axis_options_generate_the_product_and_skip_what_the_unit_does_not_take() {
    let out = sampler(&[
        "--format",
        "R8G8B8A8_UNORM,D32_SFLOAT",
        "--lod",
        "implicit,dref",
        "--size",
        "16",
        "--entry",
        "quad,batch",
        "--list",
    ]);
    let listed: Vec<String> = stdout(&out).lines().map(String::from).collect();
    let mut want = Vec::new();
    for (f, lods) in [
        ("r8g8b8a8_unorm", &["implicit"][..]),
        ("d32_sfloat", &["implicit", "dref"][..]),
    ] {
        for l in lods {
            for e in ["quad", "batch"] {
                want.push(format!("{f}.2d.linear.mip_linear.repeat.{l}.16.{e}"));
            }
        }
    }
    assert_eq!(listed, want);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("Dref needs a depth format").count(), 2, "{err}");
    // --case selects among the generated names too
    let one = sampler(&["--view", "cube", "--case", "*.cube.*", "--list"]);
    assert_eq!(
        stdout(&one).trim(),
        "r8g8b8a8_unorm.cube.linear.mip_linear.repeat.implicit.256.quad"
    );
}

#[test]
fn bad_input_is_a_usage_error() {
    let d = scratch("bad");
    let code = |args: &[&str]| sampler(args).status.code();
    assert_eq!(
        code(&["--case", "no_such_case", "--iterations", "1"]),
        Some(2)
    );
    assert_eq!(code(&["--size", "0"]), Some(2));
    assert_eq!(code(&["--lod", "sideways"]), Some(2));
    assert_eq!(code(&["--format", "R9_UNORM"]), Some(2));
    // a texture over the texel cap is refused before it is allocated, and skipped
    let big = sampler(&["--view", "3d", "--size", "4096", "--iterations", "1"]);
    assert_eq!(big.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&big.stderr).contains("texels"));
    let peer = d.join("peer.json");
    std::fs::write(&peer, r#"{"nearest_rgba8_2d": "fast"}"#).unwrap();
    let p = peer.to_str().unwrap();
    assert_eq!(code(&["--case", "nearest_rgba8_2d", "--peer", p]), Some(2));
    let missing = d.join("missing.json");
    assert_eq!(code(&["--from", missing.to_str().unwrap()]), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

/// `rows` as a `--json` file with `case`'s per-round figures divided by `by`.
/// Writes `rows` to `path` with `case`'s times divided by `by`, or by more where this run's
/// rounds of it spread further than `by` apart (a loaded machine), so that the two runs'
/// spreads never overlap; returns the factor used.
fn planted(rows: &[serde_json::Value], case: &str, by: f64, path: &Path) -> f64 {
    let rounds: Vec<f64> = rows
        .iter()
        .filter(|r| r["case"] == case)
        .flat_map(|r| r["round_ns"].as_array().unwrap().iter())
        .map(|x| x.as_f64().unwrap())
        .collect();
    let (lo, hi) = rounds
        .iter()
        .fold((f64::INFINITY, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let by = by.max(2.0 * hi / lo);
    let text: Vec<String> = rows
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if r["case"] == case {
                for k in ["ns_per_sample", "ns_min", "ns_max"] {
                    r[k] = (r[k].as_f64().unwrap() / by).into();
                }
                let v: Vec<f64> = r["round_ns"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() / by)
                    .collect();
                r["round_ns"] = v.into();
            }
            r.to_string()
        })
        .collect();
    std::fs::write(path, text.join("\n")).unwrap();
    by
}

#[test]
fn compare_flags_a_planted_change_and_not_an_identical_run() {
    let d = scratch("compare");
    let (run, rows) = quick_run(&d);
    let run = run.to_str().unwrap();
    // the baseline had nearest_rgba8_2d ten times faster (or more, past this run's spread):
    // this run is that much slower
    let base = d.join("base.json");
    let by = planted(&rows, "nearest_rgba8_2d", 10.0, &base);
    let out = sampler(&["--from", run, "--compare", base.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "a slower case fails the run");
    let got = json_lines(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(got.len(), 2);
    for r in &got {
        let ratio = r["ratio"].as_f64().unwrap();
        if r["case"] == "nearest_rgba8_2d" {
            assert_eq!(r["change"], "slower", "{r}");
            approx::assert_relative_eq!(ratio, by, max_relative = 1e-9);
        } else {
            assert_eq!(r["change"], "within noise", "{r}");
            assert_eq!(ratio, 1.0, "{r}");
        }
    }
    // and the other way round: faster, exit 0
    let faster = sampler(&["--from", base.to_str().unwrap(), "--compare", run, "--json"]);
    let got = json_lines(&stdout(&faster));
    assert_eq!(got[0]["change"], "faster");
    // an identical run: nothing flagged, in the text form too
    let same = stdout(&sampler(&["--from", run, "--compare", run]));
    assert_eq!(same.matches("within noise").count(), 2, "{same}");
    assert!(
        !same.contains("SLOWER") && !same.contains("FASTER"),
        "{same}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn html_is_well_formed_with_one_chart_per_case_and_the_peer_beside() {
    let d = scratch("html");
    let (run, rows) = quick_run(&d);
    let base = d.join("base.json");
    let _ = planted(&rows, "nearest_rgba8_2d_wide", 2.0, &base);
    let peer = d.join("peer.json");
    // lavapipe's figure as a number, and as two lvp lines: (40 - 30) ms over 4 Mi samples
    std::fs::write(
        &peer,
        r#"{"nearest_rgba8_2d": 2.5,
            "nearest_rgba8_2d_wide": {"with": {"iterations": 10, "median_ms": 40.0,
                "min_ms": 39.0, "max_ms": 41.0}, "without": {"iterations": 10,
                "median_ms": 30.0, "min_ms": 29.0, "max_ms": 31.0}, "samples": 4194304},
            "not_a_case": 1.0}"#,
    )
    .unwrap();
    let page = d.join("page.html");
    let out = sampler(&[
        "--from",
        run.to_str().unwrap(),
        "--compare",
        base.to_str().unwrap(),
        "--peer",
        peer.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
        "--json",
    ]);
    let got = json_lines(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(got[0]["peer_ns_per_sample"], 2.5);
    let lvp = got[1]["peer_ns_per_sample"].as_f64().unwrap();
    approx::assert_abs_diff_eq!(lvp, 10.0 * 1e6 / 4194304.0, epsilon = 1e-9);
    let html = std::fs::read_to_string(&page).unwrap();
    let doc = common::parse_page(&html);
    assert!(!doc.descendants().any(|n| n.has_tag_name("script")));
    assert!(
        !html.contains("src=") && !html.contains("href="),
        "fetches nothing"
    );
    let figures: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("figure"))
        .collect();
    assert_eq!(figures.len(), 2, "one chart per case");
    for (f, case) in figures
        .iter()
        .zip(["nearest_rgba8_2d", "nearest_rgba8_2d_wide"])
    {
        let caption = f
            .descendants()
            .find(|n| n.has_tag_name("figcaption"))
            .and_then(|n| n.text());
        assert_eq!(caption, Some(case));
        let svgs = f.descendants().filter(|n| n.has_tag_name("svg")).count();
        assert_eq!(svgs, 1);
        // bars: quadstep, the baseline and lavapipe
        let bars: Vec<&str> = f
            .descendants()
            .filter(|n| n.has_tag_name("rect"))
            .filter_map(|n| n.attribute("class"))
            .collect();
        assert_eq!(bars, ["q", "b", "p"], "{case}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
