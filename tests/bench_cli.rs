//! `quadstep bench`: the JSON it documents, rounds (each timed repetition reported, the
//! median of the rounds' medians), `--compare` and `--html` on a saved run, repetitions that start from the same state (an
//! additive blend and an atomic counter whose EXPECTs hold only if every repetition starts
//! from the script's state before the command), and setup kept out of the timed region (a
//! ratio of times measured in one test, never an absolute time). The scripts' shaders are
//! GLSL (`glslangValidator`, which `.ci/run` installs).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadstep-bench-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn bench(script: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quadstep"))
        .env(
            "QUADSTEP_CACHE_DIR",
            std::env::temp_dir().join("quadstep-bench-cli-cache"),
        )
        .arg("bench")
        .arg(script)
        .args(args)
        .output()
        .unwrap()
}

fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    assert!(
        out.status.success(),
        "status {:?}; stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// A 4x4 draw adding 0.25 to a cleared framebuffer (one draw leaves 64 of 255; a second on
/// top would leave 128), then 4x4 workgroups of 1 bumping one counter by one (16 after one
/// dispatch).
const BLEND_AND_COUNT: &str = r#"#!amber
SHADER vertex vert PASSTHROUGH
SHADER fragment frag GLSL
#version 430
layout(location = 0) out vec4 color;
void main() { color = vec4(0.25); }
END
SHADER compute count GLSL
#version 430
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint n; };
void main() { atomicAdd(n, 1u); }
END
BUFFER framebuffer FORMAT R8G8B8A8_UNORM
BUFFER counter DATA_TYPE uint32 DATA 0 END
PIPELINE graphics draw
  ATTACH vert
  ATTACH frag
  FRAMEBUFFER_SIZE 4 4
  BIND BUFFER framebuffer AS color LOCATION 0
  BLEND
    SRC_COLOR_FACTOR one
    DST_COLOR_FACTOR one
    COLOR_OP add
    SRC_ALPHA_FACTOR one
    DST_ALPHA_FACTOR one
    ALPHA_OP add
  END
END
PIPELINE compute bump
  ATTACH count
  BIND BUFFER counter AS storage DESCRIPTOR_SET 0 BINDING 0
END
CLEAR_COLOR draw 0 0 0 0
CLEAR draw
RUN draw DRAW_RECT POS 0 0 SIZE 4 4
RUN bump 4 4 1
EXPECT framebuffer IDX 0 0 SIZE 4 4 EQ_RGBA 64 64 64 64 TOLERANCE 1 1 1 1
EXPECT counter IDX 0 EQ 16
"#;

#[test]
fn json_has_the_documented_shape_and_repetitions_start_from_the_same_state() {
    let d = scratch("shape");
    let script = d.join("blend.amber");
    std::fs::write(&script, BLEND_AND_COUNT).unwrap();
    let out = bench(
        &script,
        &[
            "--json",
            "--warmup",
            "2",
            "--iterations",
            "7",
            "--threads",
            "1,2",
        ],
    );
    // the EXPECTs held after 9 repetitions of each command (else the exit status is 1)
    let rows = json_lines(&out);
    assert_eq!(rows.len(), 4, "{rows:?}");
    let keys = [
        "script",
        "run",
        "command",
        "line",
        "threads",
        "warmup",
        "iterations",
        "rounds",
        "min_ms",
        "median_ms",
        "max_ms",
        "round_median_ms",
        "times_ms",
        "per_item_ns",
        "items",
        "item_kind",
    ];
    for (i, r) in rows.iter().enumerate() {
        let o = r.as_object().unwrap();
        let mut have: Vec<&str> = o.keys().map(String::as_str).collect();
        let mut want = keys.to_vec();
        have.sort_unstable();
        want.sort_unstable();
        assert_eq!(have, want);
        assert_eq!(r["script"], script.to_string_lossy().as_ref());
        assert_eq!(r["threads"], [1, 1, 2, 2][i]);
        assert_eq!(r["warmup"], 2);
        assert_eq!(r["iterations"], 7);
        assert_eq!(r["rounds"], 1);
        assert_eq!(r["times_ms"].as_array().unwrap().len(), 7);
        let (min, med, max) = (
            r["min_ms"].as_f64().unwrap(),
            r["median_ms"].as_f64().unwrap(),
            r["max_ms"].as_f64().unwrap(),
        );
        assert!(0.0 <= min && min <= med && med <= max, "{r}");
        let per = r["per_item_ns"].as_f64().unwrap();
        let items = r["items"].as_u64().unwrap() as f64;
        approx::assert_relative_eq!(per * items, med * 1e6, epsilon = 1e-9, max_relative = 1e-6);
    }
    let (draw, dispatch) = (&rows[0], &rows[1]);
    assert_eq!(draw["run"], 1);
    assert_eq!(draw["line"], 36);
    assert_eq!(draw["command"], "RUN draw DRAW_RECT POS 0 0 SIZE 4 4");
    assert_eq!(draw["items"], 16);
    assert_eq!(draw["item_kind"], "pixel");
    assert_eq!(dispatch["run"], 2);
    assert_eq!(dispatch["line"], 37);
    assert_eq!(dispatch["command"], "RUN bump 4 4 1");
    assert_eq!(dispatch["items"], 16);
    assert_eq!(dispatch["item_kind"], "invocation");

    // --run picks one command; the text form names it
    let one = json_lines(&bench(
        &script,
        &["--json", "--run", "2", "--iterations", "3"],
    ));
    assert_eq!(one.len(), 1);
    assert_eq!(one[0]["run"], 2);
    assert_eq!(one[0]["iterations"], 3);
    let text = bench(&script, &["--run", "1", "--iterations", "2"]);
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.starts_with("run 1 (line 36: RUN draw DRAW_RECT"),
        "{text}"
    );
    // a command the script does not have is a usage error
    assert_eq!(bench(&script, &["--run", "3"]).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

/// A 2048x2048 RGBA32F texture (64 MiB: filled at setup and copied into an image for the
/// draw) sampled by a 4x4 draw.
const HEAVY_SETUP: &str = r#"#!amber
SHADER vertex vert PASSTHROUGH
SHADER fragment frag GLSL
#version 430
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(location = 0) out vec4 color;
void main() { color = texture(tex, gl_FragCoord.xy / 4.0); }
END
IMAGE tex FORMAT R32G32B32A32_SFLOAT DIM_2D WIDTH 2048 HEIGHT 2048 FILL 0.5
BUFFER framebuffer FORMAT R8G8B8A8_UNORM
SAMPLER s
PIPELINE graphics draw
  ATTACH vert
  ATTACH frag
  FRAMEBUFFER_SIZE 4 4
  BIND BUFFER framebuffer AS color LOCATION 0
  BIND BUFFER tex AS combined_image_sampler SAMPLER s DESCRIPTOR_SET 0 BINDING 0
END
RUN draw DRAW_RECT POS 0 0 SIZE 4 4
"#;

#[test]
fn setup_stays_outside_the_timed_region() {
    let d = scratch("setup");
    let script = d.join("heavy.amber");
    std::fs::write(&script, HEAVY_SETUP).unwrap();
    // warm the compile cache so the process below does only the setup and the draws
    json_lines(&bench(
        &script,
        &["--json", "--iterations", "1", "--warmup", "0"],
    ));
    let t0 = Instant::now();
    let rows = json_lines(&bench(
        &script,
        &["--json", "--iterations", "5", "--warmup", "0"],
    ));
    let process_ms = t0.elapsed().as_secs_f64() * 1e3;
    assert_eq!(rows.len(), 1);
    // The timed draws sum to a small share of the process: filling and uploading 64 MiB
    // dominates it. Were the upload inside the timed region, each of the 5 draws would
    // cost about as much as the whole setup and the sum would exceed the process's half.
    let timed_ms = rows[0]["median_ms"].as_f64().unwrap() * 5.0;
    assert!(
        timed_ms < 0.25 * process_ms,
        "timed draws {timed_ms} ms of a {process_ms} ms process"
    );
    let _ = std::fs::remove_dir_all(&d);
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

#[test]
fn rounds_report_every_repetition_and_the_median_of_their_medians() {
    let d = scratch("rounds");
    let script = d.join("blend.amber");
    std::fs::write(&script, BLEND_AND_COUNT).unwrap();
    let args = [
        "--json",
        "--rounds",
        "3",
        "--warmup",
        "1",
        "--iterations",
        "4",
        "--threads",
        "1,2",
    ];
    let out = bench(&script, &args);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let rows = json_lines(&out);
    assert_eq!(rows.len(), 4, "{rows:?}");
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["threads"], [1, 1, 2, 2][i]);
        assert_eq!(r["run"], [1, 2, 1, 2][i]);
        assert_eq!(
            (r["rounds"].clone(), r["iterations"].clone()),
            (3.into(), 4.into())
        );
        // every timed repetition: 4 in each of 3 rounds, round after round
        let times = floats(&r["times_ms"]);
        assert_eq!(times.len(), 3 * 4);
        let rounds = floats(&r["round_median_ms"]);
        // (serde_json's float parsing is within an ulp or so, not exact)
        let close = |a: f64, b: f64| approx::relative_eq!(a, b, max_relative = 1e-12);
        let want: Vec<f64> = times.chunks(4).map(median).collect();
        assert_eq!(rounds.len(), 3);
        assert!(
            rounds.iter().zip(&want).all(|(&a, &b)| close(a, b)),
            "{rounds:?} {want:?}"
        );
        assert!(
            close(r["median_ms"].as_f64().unwrap(), median(&rounds)),
            "{r}"
        );
        let (lo, hi) = times
            .iter()
            .fold((f64::MAX, 0.0f64), |(a, b), &t| (a.min(t), b.max(t)));
        assert!(close(r["min_ms"].as_f64().unwrap(), lo), "{r}");
        assert!(close(r["max_ms"].as_f64().unwrap(), hi), "{r}");
    }

    // the saved run, reported again: against itself nothing moves; against a baseline
    // whose second draw was ten times faster, that one is flagged slower (exit status 1)
    let run = d.join("run.json");
    std::fs::write(&run, &text).unwrap();
    let base = d.join("base.json");
    let planted: Vec<String> = rows
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if r["run"] == 2 && r["threads"] == 1 {
                let v: Vec<f64> = floats(&r["round_median_ms"])
                    .iter()
                    .map(|x| x / 10.0)
                    .collect();
                r["round_median_ms"] = v.into();
            }
            r.to_string()
        })
        .collect();
    std::fs::write(&base, planted.join("\n")).unwrap();
    let (run_s, base_s) = (run.to_str().unwrap(), base.to_str().unwrap());
    let same = bench(&script, &["--from", run_s, "--compare", run_s, "--json"]);
    assert!(json_lines(&same)
        .iter()
        .all(|r| r["change"] == "within noise"));
    let page = d.join("page.html");
    let moved = bench(
        &script,
        &[
            "--from",
            run_s,
            "--compare",
            base_s,
            "--json",
            "--html",
            page.to_str().unwrap(),
        ],
    );
    assert_eq!(moved.status.code(), Some(1));
    let changes: Vec<String> = String::from_utf8_lossy(&moved.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["change"].to_string())
        .collect();
    assert_eq!(
        changes,
        [
            "\"within noise\"",
            "\"slower\"",
            "\"within noise\"",
            "\"within noise\""
        ]
    );
    // the page: well formed, one histogram of frame times per (command, thread count)
    let html = std::fs::read_to_string(&page).unwrap();
    let doc = common::parse_page(&html);
    let charts: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("svg"))
        .collect();
    assert_eq!(charts.len(), 4);
    for c in &charts {
        // 24 bins holding the 12 repetitions
        let bins = c
            .descendants()
            .filter(|n| n.attribute("class") == Some("q"))
            .count();
        assert_eq!(bins, 24);
    }
    let _ = std::fs::remove_dir_all(&d);
}
