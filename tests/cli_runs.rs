//! `quadstep amber` as a CI system drives it: results streamed as scripts finish, the exit
//! status of each kind of outcome, where compile errors point. Scripts are written to a
//! scratch folder per test; none needs a tool beyond the binary (the compile-location test
//! skips without `glslangValidator`).

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn quadstep() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_quadstep"));
    // compiled shaders go to a scratch cache, never into the repository
    c.env(
        "QUADSTEP_CACHE_DIR",
        std::env::temp_dir().join("quadstep-cli-runs-cache"),
    );
    c
}

/// A fresh scratch folder for one test.
fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadstep-cli-runs-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

/// A script that passes without running a shader.
const PASSES: &str = "#!amber\nBUFFER b DATA_TYPE uint32 DATA 1 2 3 END\nEXPECT b IDX 0 EQ 1 2 3\n";
/// A script whose `EXPECT` (line 3) fails.
const FAILS: &str = "#!amber\nBUFFER b DATA_TYPE uint32 DATA 1 2 3 END\nEXPECT b IDX 0 EQ 1 2 4\n";
/// A script that does not parse (line 2).
const MALFORMED: &str = "#!amber\nBUFFER b DATA_TYPE uint32 DATTA 1 END\n";

fn hostile(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hostile")
        .join(name)
}

fn json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    quadstep().args(args).output().unwrap()
}

/// `a_fast.amber`, which passes at once, and `b_slow.amber`, whose shader loops for ever, in
/// `d`.
fn fast_and_slow(d: &Path) {
    write(d, "a_fast.amber", PASSES);
    std::fs::copy(hostile("endless_loop.amber"), d.join("b_slow.amber")).unwrap();
    std::fs::copy(
        hostile("forever.comp.spvasm"),
        d.join("forever.comp.spvasm"),
    )
    .unwrap();
}

#[test]
fn each_result_is_printed_as_its_script_ends() {
    let d = scratch("stream");
    fast_and_slow(&d);
    let start = Instant::now();
    let mut child = quadstep()
        .arg("amber")
        .arg(&d)
        .args([
            "--json",
            "-j",
            "2",
            "--time-limit",
            "6",
            "--budget",
            "1000000000000",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let first_at = start.elapsed();
    let still_running = child.try_wait().unwrap().is_none();
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = child.wait().unwrap();
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert!(
        first["file"].as_str().unwrap().ends_with("a_fast.amber"),
        "{first}"
    );
    assert_eq!(first["status"], "PASS");
    assert!(
        still_running && first_at < Duration::from_secs(5),
        "the fast script's line came after {first_at:?}, with the slow one still running: {still_running}"
    );
    let slow: serde_json::Value = serde_json::from_str(&rest[0]).unwrap();
    assert_eq!(
        (slow["status"].as_str(), slow["kind"].as_str()),
        (Some("FAIL"), Some("timeout"))
    );
    assert!(slow["ms"].as_u64().unwrap() >= 6000, "{slow}");
    assert_eq!(status.code(), Some(1));
}

#[test]
fn sorted_prints_in_path_order_and_json_has_every_field() {
    let d = scratch("sorted");
    write(&d, "c.amber", PASSES);
    write(&d, "a.amber", FAILS);
    write(&d, "b.amber", MALFORMED);
    let o = run(&[
        "amber".as_ref(),
        d.as_os_str(),
        "--json".as_ref(),
        "--sorted".as_ref(),
    ]);
    let lines = json_lines(&o.stdout);
    let names: Vec<&str> = lines[..3]
        .iter()
        .map(|l| l["file"].as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    assert_eq!(names, ["a.amber", "b.amber", "c.amber"]);
    let fields = |l: &serde_json::Value| {
        (
            l["status"].as_str().unwrap().to_string(),
            l["kind"].as_str().map(str::to_string),
            l["line"].as_u64(),
            l["ms"].is_u64(),
        )
    };
    assert_eq!(
        fields(&lines[0]),
        ("FAIL".into(), Some("expect".into()), Some(3), true)
    );
    assert_eq!(
        fields(&lines[1]),
        ("FAIL".into(), Some("parse".into()), Some(2), true)
    );
    assert_eq!(fields(&lines[2]), ("PASS".into(), None, None, true));
    assert_eq!(lines[3]["passed"], 1);
    assert_eq!(lines[3]["failed"], 2);
    // a malformed script is an input error: 2 outranks the failed EXPECT's 1
    assert_eq!(o.status.code(), Some(2));
}

/// `quadstep amber` on one script with `args`.
fn amber(script: &Path, args: &[&str]) -> Output {
    quadstep()
        .arg("amber")
        .arg(script)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn every_outcome_has_its_documented_exit_status() {
    let d = scratch("exit");
    let code = |o: Output| o.status.code();
    assert_eq!(code(amber(&write(&d, "pass.amber", PASSES), &[])), Some(0));
    assert_eq!(code(amber(&write(&d, "fail.amber", FAILS), &[])), Some(1));
    assert_eq!(
        code(amber(&write(&d, "bad.amber", MALFORMED), &[])),
        Some(2)
    );
    // a shader that does not assemble is an input error too
    let asm = "#!amber\nSHADER compute c SPIRV-ASM\nOpCapability Nonsense\nEND\n\
               BUFFER b DATA_TYPE uint32 DATA 1 END\nPIPELINE compute p\n  ATTACH c\n  \
               BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\nRUN p 1 1 1\n";
    let o = amber(&write(&d, "asm.amber", asm), &["--json"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(json_lines(&o.stdout)[0]["kind"], "compile");
    assert_eq!(code(amber(&d.join("missing.amber"), &[])), Some(2));
    assert_eq!(code(amber(&d, &["--filter", "no-such-name"])), Some(2));
    assert_eq!(code(amber(&d, &["--jobs", "many"])), Some(2));
    let dis = quadstep()
        .arg("dis")
        .arg(d.join("missing.spv"))
        .output()
        .unwrap();
    assert_eq!(dis.status.code(), Some(2));
    // every subcommand's --help says what its exit status means
    for sub in [
        "amber", "render", "dis", "diff", "inspect", "debug", "limits", "compare",
    ] {
        let help = quadstep().args([sub, "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&help.stdout);
        assert!(
            text.contains("Exit status: 0") && text.contains("3 internal error"),
            "{sub}: {text}"
        );
    }
}

/// A script drawing with a GLSL fragment shader whose line 4 (script line 7) is `body`,
/// expecting green.
fn glsl_script(body: &str) -> String {
    format!(
        "#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 430
layout(location = 0) out vec4 c;
void main() {{
  {body}
}}
END
BUFFER fb FORMAT B8G8R8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  BIND BUFFER fb AS color LOCATION 0
  FRAMEBUFFER_SIZE 8 8
END
RUN p DRAW_RECT POS 0 0 SIZE 8 8
EXPECT fb IDX 0 0 SIZE 8 8 EQ_RGBA 0 255 0 255
"
    )
}

#[test]
fn compile_errors_point_at_the_users_file_and_line() {
    if !common::tools::have(
        "compile_errors_point_at_the_users_file_and_line",
        &[common::tools::Tool::Glslang],
    ) {
        return;
    }
    let d = scratch("compile");
    // line 4 of the shader block, which starts after line 3: script line 7
    let script = write(
        &d,
        "bad.amber",
        &glsl_script("c = vec4(undeclared_name, 0, 0, 1);"),
    );
    let o = amber(&script, &["--json"]);
    let l = &json_lines(&o.stdout)[0];
    assert_eq!(
        (l["kind"].as_str(), l["line"].as_u64()),
        (Some("compile"), Some(7)),
        "{l}"
    );
    let detail = l["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!("{}:7: ", script.display())),
        "{detail}"
    );
    assert!(
        detail.contains("undeclared_name") && !detail.contains("cache"),
        "{detail}"
    );
    assert_eq!(o.status.code(), Some(2));
    // `dis` names the user's file and its line
    let frag = write(
        &d,
        "bad.frag",
        "#version 430\nlayout(location=0) out vec4 c;\nvoid main() {\n c = vec4(nope);\n}\n",
    );
    let o = quadstep().arg("dis").arg(&frag).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("{}:4: ", frag.display())) && err.contains("nope"),
        "{err}"
    );
    assert!(!err.contains("cache"), "{err}");
    assert_eq!(o.status.code(), Some(2));
}

const GREEN: &str = "c = vec4(0.0, 1.0, 0.0, 1.0);";

/// The `.spv` files under `dir`.
fn cached(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |rd| {
        rd.filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "spv"))
            .count()
    })
}

#[test]
fn the_compile_cache_is_the_users_never_the_working_directorys() {
    if !common::tools::have(
        "the_compile_cache_is_the_users_never_the_working_directorys",
        &[common::tools::Tool::Glslang],
    ) {
        return;
    }
    let d = scratch("cache");
    let script = write(&d, "good.amber", &glsl_script(GREEN));
    let work = d.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let run_in = |cmd: &mut Command| {
        let o = cmd
            .current_dir(&work)
            .arg("amber")
            .arg(&script)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stdout)
        );
    };
    // --cache-dir
    let flag = d.join("flag-cache");
    let o = quadstep()
        .current_dir(&work)
        .args(["amber", "--cache-dir"])
        .arg(&flag)
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(cached(&flag), 1);
    // QUADSTEP_CACHE_DIR
    let env = d.join("env-cache");
    run_in(quadstep().env("QUADSTEP_CACHE_DIR", &env));
    assert_eq!(cached(&env), 1);
    // $XDG_CACHE_HOME/quadstep, then ~/.cache/quadstep
    let xdg = d.join("xdg");
    run_in(
        quadstep()
            .env_remove("QUADSTEP_CACHE_DIR")
            .env("XDG_CACHE_HOME", &xdg),
    );
    assert_eq!(cached(&xdg.join("quadstep")), 1);
    let home = d.join("home");
    run_in(
        quadstep()
            .env_remove("QUADSTEP_CACHE_DIR")
            .env_remove("XDG_CACHE_HOME")
            .env("HOME", &home),
    );
    assert_eq!(cached(&home.join(".cache/quadstep")), 1);
    // keyed by content: a second run hits the same entry, a changed shader adds one
    run_in(quadstep().env("QUADSTEP_CACHE_DIR", &env));
    assert_eq!(cached(&env), 1);
    let changed = write(
        &d,
        "changed.amber",
        &glsl_script("c = vec4(0.0, 1.0, 0.0 + 0.0, 1.0);"),
    );
    let o = quadstep()
        .env("QUADSTEP_CACHE_DIR", &env)
        .current_dir(&work)
        .arg("amber")
        .arg(&changed)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(cached(&env), 2);
    // nothing was written where quadstep ran
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
}

#[test]
fn amber_and_render_take_the_same_switches() {
    let d = scratch("switches");
    let script = write(&d, "pass.amber", PASSES);
    for sub in ["amber", "render"] {
        let help = quadstep().args([sub, "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&help.stdout);
        for flag in [
            "--policy <POLICY>",
            "--lod-precision <LOD_PRECISION>",
            "--threads <N>",
            "--budget <BUDGET>",
            "--time-limit <SECONDS>",
            "--cache-dir <DIR>",
            "--discard <DISCARD>",
        ] {
            assert!(text.contains(flag), "{sub} --help lacks {flag}: {text}");
        }
    }
    let o = amber(
        &script,
        &[
            "--policy",
            "d3d",
            "--lod-precision",
            "hardware",
            "--threads",
            "2",
            "--jobs",
            "1",
            "--budget",
            "1000",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The script file names a JSON run printed.
fn names(o: &Output) -> Vec<String> {
    json_lines(&o.stdout)
        .iter()
        .filter_map(|l| l["file"].as_str())
        .map(|f| f.rsplit('/').next().unwrap().to_string())
        .collect()
}

#[test]
fn shards_cover_every_script_once_and_stay_put() {
    let d = scratch("shard");
    let all: Vec<String> = (0..24)
        .map(|i| {
            let name = format!("s{i:02}.amber");
            write(&d, &format!("sub{}/{name}", i % 3), PASSES);
            name
        })
        .collect();
    let shard = |k: u32| {
        let spec = format!("{k}/4");
        let o = quadstep()
            .arg("amber")
            .arg(&d)
            .args(["--json", "--sorted", "--shard", &spec])
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{spec}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        names(&o)
    };
    let shares: Vec<Vec<String>> = (1..=4).map(shard).collect();
    let mut union: Vec<String> = shares.concat();
    union.sort();
    assert_eq!(union, all, "the shares overlap or miss scripts: {shares:?}");
    assert!(shares.iter().all(|s| s.len() < all.len()), "{shares:?}");
    assert_eq!(shard(2), shares[1], "a share changed between runs");
    // the same scripts under another folder name and working directory: the same shares
    let moved = scratch("shard-moved");
    std::fs::rename(&d, moved.join("corpus")).unwrap();
    let o = quadstep()
        .current_dir(&moved)
        .args(["amber", "corpus", "--json", "--sorted", "--shard", "3/4"])
        .output()
        .unwrap();
    assert_eq!(names(&o), shares[2]);
    for bad in ["0/4", "5/4", "x/4", "4"] {
        let o = quadstep()
            .arg("amber")
            .arg(&moved)
            .args(["--shard", bad])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "--shard {bad}");
    }
}

/// A script that is skipped (a feature quadstep lacks).
const SKIPS: &str = "#!amber\nDEVICE_FEATURE sparseBinding\n\
                     BUFFER b DATA_TYPE uint32 DATA 1 END\nEXPECT b IDX 0 EQ 1\n";

#[test]
fn junit_report_holds_every_script_with_its_outcome() {
    let d = scratch("junit");
    write(&d, "top.amber", PASSES);
    write(&d, "sub/dir/f<&>.amber", FAILS);
    write(&d, "sub/s.amber", SKIPS);
    let xml = d.join("report.xml");
    let o = quadstep()
        .arg("amber")
        .arg(&d)
        .arg("--junit")
        .arg(&xml)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let text = std::fs::read_to_string(&xml).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(
        ["tests", "failures", "skipped", "errors"].map(|a| suite.attribute(a)),
        [Some("3"), Some("1"), Some("1"), Some("0")]
    );
    let cases: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| {
            let child = n.children().find(|c| c.is_element());
            (
                n.attribute("classname").unwrap().to_string(),
                n.attribute("name").unwrap().to_string(),
                n.attribute("time").unwrap().parse::<f64>().is_ok(),
                child.map(|c| c.tag_name().name().to_string()),
                child.and_then(|c| c.attribute("type")).map(str::to_string),
                child.and_then(|c| c.text()).map(str::to_string),
            )
        })
        .collect();
    assert_eq!(cases.len(), 3, "{cases:?}");
    let (class, name, timed, tag, kind, detail) = &cases[0];
    assert_eq!(
        (
            class.as_str(),
            name.as_str(),
            *timed,
            tag.as_deref(),
            kind.as_deref()
        ),
        (
            "sub.dir",
            "f<&>.amber",
            true,
            Some("failure"),
            Some("expect")
        )
    );
    assert!(
        detail.as_deref().unwrap().contains("f<&>.amber:3"),
        "{detail:?}"
    );
    assert_eq!(
        (
            cases[1].0.as_str(),
            cases[1].1.as_str(),
            cases[1].3.as_deref()
        ),
        ("sub", "s.amber", Some("skipped"))
    );
    assert_eq!(
        (
            cases[2].0.as_str(),
            cases[2].1.as_str(),
            cases[2].3.as_deref()
        ),
        ("amber", "top.amber", None)
    );
}

/// `quadstep amber DIR` with `args`, run in `cwd`.
fn amber_in(cwd: &Path, dir: &str, args: &[&str]) -> Output {
    quadstep()
        .current_dir(cwd)
        .args(["amber", dir])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn baseline_matches_and_names_new_failures_and_new_passes() {
    let d = scratch("baseline");
    write(&d, "corpus/a/pass.amber", PASSES);
    write(&d, "corpus/a/fail.amber", FAILS);
    write(&d, "corpus/skip.amber", SKIPS);
    write(&d, "corpus/bad.amber", MALFORMED);
    // the run writes its own baseline: failures and skips, by path below the argument
    let o = amber_in(&d, "corpus", &["--write-baseline", "base.txt"]);
    assert_eq!(o.status.code(), Some(2));
    let written = std::fs::read_to_string(d.join("base.txt")).unwrap();
    let lines: Vec<&str> = written.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        lines,
        ["a/fail.amber,Fail", "bad.amber,Fail", "skip.amber,Skip"]
    );
    // matched (from another working directory, with comments): exit 0
    std::fs::write(
        d.join("base.txt"),
        format!("# known\n{written}\n# flaky: a/fail.amber,Fail\n"),
    )
    .unwrap();
    let o = quadstep()
        .current_dir(d.join("corpus"))
        .args(["amber", ".", "--baseline", "../base.txt"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("results match the baseline"), "{out}");
    // a new failure and a new pass: exit 1, both named
    write(&d, "corpus/a/pass.amber", FAILS);
    write(&d, "corpus/a/fail.amber", PASSES);
    let o = amber_in(&d, "corpus", &["--baseline", "base.txt", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let lines = json_lines(&o.stdout);
    let b = &lines.iter().find(|l| l.get("baseline").is_some()).unwrap()["baseline"];
    assert_eq!(b["new_failures"], serde_json::json!(["a/pass.amber"]));
    assert_eq!(b["new_passes"], serde_json::json!(["a/fail.amber"]));
    let o = amber_in(&d, "corpus", &["--baseline", "base.txt"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("new failures (failed, not in the baseline): 1\n  a/pass.amber")
            && out.contains("remove from the baseline): 1\n  a/fail.amber"),
        "{out}"
    );
    // a malformed baseline is an input error
    std::fs::write(d.join("bad.txt"), "a/fail.amber,Crash\n").unwrap();
    let o = amber_in(&d, "corpus", &["--baseline", "bad.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.txt:1"));
}

/// An RGBA8 PNG of `w`×`h` pixels, each `f(x, y)`.
fn png(path: &Path, w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) {
    image::RgbaImage::from_fn(w, h, |x, y| image::Rgba(f(x, y)))
        .save(path)
        .unwrap();
}

fn rgba(path: &Path) -> image::RgbaImage {
    image::open(path).unwrap().to_rgba8()
}

#[test]
fn compare_counts_differing_pixels_and_the_largest_difference() {
    let d = scratch("compare");
    let (a, b, c) = (d.join("a.png"), d.join("b.png"), d.join("c.png"));
    png(&a, 4, 3, |x, _| [10 * x as u8, 100, 200, 255]);
    // (1,1) differs by 3 in green, (2,0) by 7 in alpha, (3,2) by 40 in red
    png(&b, 4, 3, |x, y| {
        let mut p = [10 * x as u8, 100, 200, 255];
        match (x, y) {
            (1, 1) => p[1] += 3,
            (2, 0) => p[3] -= 7,
            (3, 2) => p[0] += 40,
            _ => {}
        }
        p
    });
    png(&c, 3, 3, |_, _| [0, 0, 0, 255]);
    let cmp = |args: &[&std::ffi::OsStr]| {
        let o = quadstep().arg("compare").args(args).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let (code, out) = cmp(&[a.as_ref(), a.as_ref()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("0 of 12 pixels differ by more than 0; largest channel difference 0"));
    let diff = d.join("out/diff.png");
    let (code, out) = cmp(&[a.as_ref(), b.as_ref(), "--diff".as_ref(), diff.as_ref()]);
    assert_eq!(code, Some(1));
    assert!(
        out.starts_with("3 of 12 pixels differ by more than 0; largest channel difference 40"),
        "{out}"
    );
    let (code, out) = cmp(&[a.as_ref(), b.as_ref(), "--tolerance".as_ref(), "7".as_ref()]);
    assert_eq!(code, Some(1));
    assert!(
        out.starts_with("1 of 12 pixels differ by more than 7;"),
        "{out}"
    );
    assert_eq!(
        cmp(&[a.as_ref(), b.as_ref(), "-t".as_ref(), "40".as_ref()]).0,
        Some(0)
    );
    // the diff picture: the three differing pixels stand out (red at least 255), the rest
    // is dim grey
    let img = rgba(&diff);
    for y in 0..3 {
        for x in 0..4 {
            let p = img.get_pixel(x, y).0;
            let differs = matches!((x, y), (1, 1) | (2, 0) | (3, 2));
            assert_eq!(p[0] == 255, differs, "({x}, {y}): {p:?}");
            if !differs {
                assert!(
                    p[0] == p[1] && p[1] == p[2] && p[0] < 64,
                    "({x}, {y}): {p:?}"
                );
            }
        }
    }
    // sizes that differ, a missing file, a file that is not a PNG: input errors
    assert_eq!(cmp(&[a.as_ref(), c.as_ref()]).0, Some(2));
    assert_eq!(cmp(&[a.as_ref(), d.join("none.png").as_ref()]).0, Some(2));
    std::fs::write(d.join("text.png"), "not a png").unwrap();
    assert_eq!(cmp(&[d.join("text.png").as_ref(), a.as_ref()]).0, Some(2));
}

/// A script clearing an 8×4 framebuffer to `clear` and drawing `rect` (x, y, w, h) in
/// (0, 0, 255) over it: a SPIR-V assembly shader, so no compiler is needed. Its second
/// attachment is cleared likewise and drawn white.
fn painted(clear: [u8; 3], rect: [u32; 4]) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/two_colours.amber"),
    )
    .unwrap();
    let shader_end = text.find("BUFFER framebuffer").unwrap();
    let [r, g, b] = clear;
    let [x, y, w, h] = rect;
    format!(
        "{}BUFFER framebuffer FORMAT B8G8R8A8_UNORM
BUFFER second FORMAT R8G8B8A8_UNORM
BUFFER colour DATA_TYPE vec4<float> DATA 0 0 1 1 END
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 8 4
  BIND BUFFER framebuffer AS color LOCATION 0
  BIND BUFFER second AS color LOCATION 1
  BIND BUFFER colour AS push_constant
END
CLEAR_COLOR p {r} {g} {b} 255
CLEAR p
RUN p DRAW_RECT POS {x} {y} SIZE {w} {h}
",
        &text[..shader_end]
    )
}

#[test]
fn golden_dir_writes_compares_and_shows_differences() {
    let d = scratch("golden");
    write(
        &d,
        "scenes/sub/a.amber",
        &painted([255, 0, 0], [0, 0, 4, 4]),
    );
    write(&d, "scenes/b.vkscript", &painted([0, 255, 0], [2, 1, 2, 2]));
    let gold = d.join("gold");
    let run_golden = |extra: &[&str]| {
        let o = quadstep()
            .arg("amber")
            .arg(d.join("scenes"))
            .arg("--golden-dir")
            .arg(&gold)
            .args(["--json", "--sorted"])
            .args(extra)
            .output()
            .unwrap();
        let lines = json_lines(&o.stdout);
        (o.status.code(), lines)
    };
    // no goldens yet: both fail, kind golden, saying how to write them
    let (code, lines) = run_golden(&[]);
    assert_eq!(code, Some(1));
    for l in &lines[..2] {
        assert_eq!(l["kind"], "golden", "{l}");
        assert!(l["detail"].as_str().unwrap().contains("--update"), "{l}");
    }
    // --update writes them: framebuffer and second of each script
    let (code, _) = run_golden(&["--update"]);
    assert_eq!(code, Some(0));
    let a = rgba(&gold.join("sub/a/framebuffer.png"));
    let expected_a = |x: u32, _y: u32| {
        if x < 4 {
            [0, 0, 255, 255]
        } else {
            [255, 0, 0, 255]
        }
    };
    assert_eq!(a.dimensions(), (8, 4));
    for (x, y, p) in a.enumerate_pixels() {
        assert_eq!(p.0, expected_a(x, y), "({x}, {y})");
    }
    let b = rgba(&gold.join("b/framebuffer.png"));
    for (x, y, p) in b.enumerate_pixels() {
        let inside = (2..4).contains(&x) && (1..3).contains(&y);
        let want = if inside {
            [0, 0, 255, 255]
        } else {
            [0, 255, 0, 255]
        };
        assert_eq!(p.0, want, "({x}, {y})");
    }
    assert!(gold.join("b/second.png").exists());
    // unchanged scenes match
    let (code, lines) = run_golden(&[]);
    assert_eq!(code, Some(0), "{lines:?}");
    // a changed scene fails and leaves a diff picture beside the golden
    write(
        &d,
        "scenes/sub/a.amber",
        &painted([255, 0, 0], [0, 0, 5, 4]),
    );
    let (code, lines) = run_golden(&[]);
    assert_eq!(code, Some(1));
    let fail = lines
        .iter()
        .find(|l| l["file"].as_str().unwrap().ends_with("a.amber"))
        .unwrap();
    assert_eq!(fail["kind"], "golden");
    let detail = fail["detail"].as_str().unwrap();
    assert!(
        detail.contains("`framebuffer` differs") && detail.contains("4 pixel(s) differ"),
        "{detail}"
    );
    let diff = rgba(&gold.join("sub/a/framebuffer.diff.png"));
    for (x, _, p) in diff.enumerate_pixels() {
        assert_eq!(p.0[0] == 255 && x == 4, x == 4, "({x}): {p:?}");
    }
    assert!(!gold.join("b/framebuffer.diff.png").exists());
    // a script that fails does not reach the goldens: it keeps its own failure
    write(
        &d,
        "scenes/sub/a.amber",
        &format!(
            "{}EXPECT framebuffer IDX 0 0 SIZE 1 1 EQ_RGBA 1 2 3 4\n",
            painted([255, 0, 0], [0, 0, 4, 4])
        ),
    );
    let (_, lines) = run_golden(&[]);
    assert_eq!(lines[1]["kind"], "expect", "{lines:?}");
}

/// The `quadstep amber` command line of the README's "Use it in CI" section, for shard `k`.
fn readme_ci_command(k: u32) -> Vec<String> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = &readme[readme
        .find("### Use it in CI")
        .expect("README: Use it in CI")..];
    let line = section
        .lines()
        .find_map(|l| l.trim().strip_prefix("- run: quadstep amber"))
        .expect("the section's quadstep amber step");
    let line = format!(
        "amber{}",
        line.replace("${{ matrix.shard }}", &k.to_string())
    );
    line.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_readme_ci_matrix_runs_the_whole_corpus_in_four_shards() {
    let d = scratch("ci");
    let mut whole = Vec::new();
    for i in 0..12 {
        let (text, known) = match i % 4 {
            0 => (FAILS, Some("Fail")),
            1 => (SKIPS, Some("Skip")),
            _ => (PASSES, None),
        };
        let rel = format!("group{}/t{i:02}.amber", i % 3);
        write(&d, &format!("corpus/{rel}"), text);
        whole.push((rel, known));
    }
    whole.sort();
    let baseline: String = whole
        .iter()
        .filter_map(|(rel, k)| k.map(|k| format!("{rel},{k}\n")))
        .collect();
    std::fs::write(d.join("baseline.txt"), format!("# known\n{baseline}")).unwrap();
    let mut seen: Vec<(String, String)> = Vec::new();
    for k in 1..=4 {
        let args = readme_ci_command(k);
        assert!(args.contains(&"--shard".to_string()), "{args:?}");
        let o = quadstep().current_dir(&d).args(&args).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "shard {k} does not match the baseline: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        let xml = std::fs::read_to_string(d.join(format!("results-{k}.xml"))).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap();
        for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
            let outcome = case
                .children()
                .find(|c| c.is_element())
                .map_or("pass", |c| c.tag_name().name());
            let rel = format!(
                "{}/{}",
                case.attribute("classname").unwrap(),
                case.attribute("name").unwrap()
            );
            seen.push((rel, outcome.to_string()));
        }
    }
    seen.sort();
    let expected: Vec<(String, String)> = whole
        .iter()
        .map(|(rel, k)| {
            let outcome = match k {
                Some("Fail") => "failure",
                Some(_) => "skipped",
                None => "pass",
            };
            (rel.clone(), outcome.to_string())
        })
        .collect();
    assert_eq!(seen, expected, "the shards' union is not the whole corpus");
    // a shard with a new failure fails
    let (rel, _) = whole.iter().find(|(_, k)| k.is_none()).unwrap();
    write(&d, &format!("corpus/{rel}"), FAILS);
    let statuses: Vec<Option<i32>> = (1..=4)
        .map(|k| {
            let o = quadstep()
                .current_dir(&d)
                .args(readme_ci_command(k))
                .output()
                .unwrap();
            o.status.code()
        })
        .collect();
    let mut sorted = statuses.clone();
    sorted.sort();
    assert_eq!(sorted, [Some(0), Some(0), Some(0), Some(1)], "{statuses:?}");
}

#[test]
fn an_interrupted_run_still_writes_the_junit_report_of_what_finished() {
    let d = scratch("junit-interrupted");
    fast_and_slow(&d);
    let xml = d.join("report.xml");
    let mut child = quadstep()
        .arg("amber")
        .arg(&d)
        .args(["--json", "-j", "2", "--budget", "1000000000000", "--junit"])
        .arg(&xml)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.contains("a_fast.amber"), "{first}");
    // Ctrl-C, as a terminal sends it
    common::interrupt(&child);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let text = std::fs::read_to_string(&xml).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let names: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(names, ["a_fast.amber"], "{text}");
}
