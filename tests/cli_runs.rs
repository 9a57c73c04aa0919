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

#[test]
fn each_result_is_printed_as_its_script_ends() {
    let d = scratch("stream");
    write(&d, "a_fast.amber", PASSES);
    std::fs::copy(hostile("endless_loop.amber"), d.join("b_slow.amber")).unwrap();
    std::fs::copy(
        hostile("forever.comp.spvasm"),
        d.join("forever.comp.spvasm"),
    )
    .unwrap();
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
        "amber", "render", "dis", "diff", "inspect", "debug", "limits",
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
