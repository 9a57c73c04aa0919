//! Hostile scripts from the command line, one test per class of input that once aborted,
//! hung or exhausted the machine: each must end with a clear error (the value and the limit,
//! at `file:line`), the documented exit status, within a second of the time limit, and
//! under the memory budget. The expected limits are lavapipe's own report
//! (`tests/data/lavapipe-limits.txt`, captured from `vulkaninfo`), not quadstep's table.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn quadstep() -> Command {
    Command::new(env!("CARGO_BIN_EXE_quadstep"))
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hostile")
        .join(name)
}

/// The shaders the data scripts name (`SHADER … FILE`).
const SHADERS: [&str; 4] = [
    "spin.comp.spvasm",
    "forever.comp.spvasm",
    "heavy.frag.spvasm",
    "nop.frag.spvasm",
];

/// A path in this run's scratch folder, which also holds the shaders the data scripts name.
fn tmp(name: &str) -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let d = DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("quadstep-hostile-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        for shader in SHADERS {
            std::fs::copy(data(shader), d.join(shader)).unwrap();
        }
        d
    });
    d.join(name)
}

/// Write `text` as a script and run `quadstep amber` on it with `args`.
fn amber(name: &str, text: &[u8], args: &[&str]) -> (Output, String) {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    let o = quadstep().arg("amber").arg(&p).args(args).output().unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o, out)
}

const GRAPHICS: &str = "#!amber
SHADER vertex vert PASSTHROUGH
SHADER fragment frag SPIRV-ASM FILE nop.frag.spvasm
BUFFER framebuffer FORMAT B8G8R8A8_UNORM
";

/// A VkScript compute shader (never compiled: the limits are checked first) and `[test]`;
/// the next line is line 5.
const VK_COMPUTE: &str = "[compute shader]\n#version 430\nvoid main() {}\n[test]\n";

fn graphics(pipeline_lines: &str, after: &str) -> String {
    format!(
        "{GRAPHICS}PIPELINE graphics p\n  ATTACH vert\n  ATTACH frag\n{pipeline_lines}END\n{after}"
    )
}

fn assert_limit(out: &str, o: &Output, at: &str, wants: &[&str]) {
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("FAIL") && out.contains(at), "{out}");
    for w in wants {
        assert!(out.contains(w), "missing {w:?} in {out}");
    }
}

#[test]
fn framebuffer_size_beyond_the_limit_is_an_error_not_an_abort() {
    let s = graphics(
        "  FRAMEBUFFER_SIZE 4000000000 64\n  BIND BUFFER framebuffer AS color LOCATION 0\n",
        "RUN p DRAW_RECT POS 0 0 SIZE 10 10\n",
    );
    let (o, out) = amber("fb.amber", s.as_bytes(), &[]);
    assert_limit(
        &out,
        &o,
        "fb.amber:5:",
        &["4000000000", "maxFramebufferWidth = 16384"],
    );
}

#[test]
fn colour_locations_beyond_the_attachments_are_errors() {
    for loc in ["4000000000", "100000", "8"] {
        let s = graphics(
            &format!("  BIND BUFFER framebuffer AS color LOCATION {loc}\n"),
            "RUN p DRAW_RECT POS 0 0 SIZE 10 10\n",
        );
        let (o, out) = amber("loc.amber", s.as_bytes(), &[]);
        assert_limit(&out, &o, "loc.amber:5:", &[loc, "maxColorAttachments = 8"]);
    }
}

#[test]
fn workgroup_counts_beyond_the_limit_are_errors() {
    let comp = std::fs::read_to_string(data("runaway_dispatch.amber")).unwrap();
    for (run, what) in [
        (
            "RUN p 100000 100000 100000",
            "maxComputeWorkGroupCount[0] = 65535",
        ),
        (
            "RUN p 1 2147483647 1",
            "maxComputeWorkGroupCount[1] = 65535",
        ),
    ] {
        let s = comp.replace("RUN p 65535 65535 1", run);
        let (o, out) = amber("wg.amber", s.as_bytes(), &[]);
        let line = s.lines().position(|l| l == run).unwrap() + 1;
        assert_limit(&out, &o, &format!("wg.amber:{line}:"), &[what]);
    }
    let vk = format!("{VK_COMPUTE}compute 2147483647 1 1\n");
    let (o, out) = amber("wg.vkscript", vk.as_bytes(), &[]);
    assert_limit(
        &out,
        &o,
        "wg.vkscript:5:",
        &["2147483647", "maxComputeWorkGroupCount[0] = 65535"],
    );
}

#[test]
fn grid_cells_and_buffer_offsets_beyond_the_limits_are_errors() {
    let s = graphics(
        "  BIND BUFFER framebuffer AS color LOCATION 0\n",
        "RUN p DRAW_GRID POS 0 0 SIZE 250 250 CELLS 100000 100000\n",
    );
    let (o, out) = amber("grid.amber", s.as_bytes(), &[]);
    assert_limit(
        &out,
        &o,
        "grid.amber:10:",
        &["10000000000", "maxDrawGridCells"],
    );
    let vk = format!("{VK_COMPUTE}uniform float 4000000000 1.0\n");
    let (o, out) = amber("uniform.vkscript", vk.as_bytes(), &[]);
    assert_limit(
        &out,
        &o,
        "uniform.vkscript:5:",
        &["4000000000", "maxMemoryAllocationSize"],
    );
}

/// Runs that are timed, one at a time (tests run in parallel threads).
static TIMED: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `--time-limit 1` on `script`: the script must end within a second of the limit, as a
/// timeout (exit status 1). Its own time (`ms`, from the start of parsing to the end) is
/// what the limit is about; the process's, which also starts and loads, gets a second more.
fn stops_at_the_time_limit(script: &str, extra: &[&str]) {
    let _one = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    let o = quadstep()
        .arg("amber")
        .arg(data(script))
        .args(["--time-limit", "1", "--json"])
        .args(extra)
        .output()
        .unwrap();
    let took = start.elapsed();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("\"kind\":\"timeout\"") && out.contains("time limit of 1 s"),
        "{out}"
    );
    let line: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let ms = line["ms"].as_u64().unwrap();
    assert!(ms < 2000, "{script} ran {ms} ms");
    assert!(
        took < Duration::from_secs(3),
        "{script}: the process took {took:?}"
    );
}

#[test]
fn a_runaway_dispatch_stops_at_the_time_limit() {
    stops_at_the_time_limit("runaway_dispatch.amber", &[]);
}

#[test]
fn an_endless_loop_in_one_workgroup_stops_at_the_time_limit() {
    stops_at_the_time_limit("endless_loop.amber", &["--budget", "1000000000000"]);
}

#[test]
fn a_runaway_draw_stops_at_the_time_limit() {
    stops_at_the_time_limit("runaway_draw.amber", &[]);
    stops_at_the_time_limit("huge_grid.amber", &[]);
}

/// Peak resident memory of a `quadstep amber` run, in bytes (`/usr/bin/time -f %M`), and
/// its output.
fn peak_rss(script: &Path, args: &[&str]) -> Option<(u64, Output)> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        eprintln!("skipped: /usr/bin/time is not installed (Debian package `time`)");
        return None;
    }
    let report = tmp("rss.txt");
    let o = Command::new(time)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&report)
        .arg(env!("CARGO_BIN_EXE_quadstep"))
        .arg("amber")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    let kib: u64 = std::fs::read_to_string(&report).ok()?.trim().parse().ok()?;
    Some((kib * 1024, o))
}

#[test]
fn a_script_asking_for_more_memory_than_the_budget_fails_and_stays_under_it() {
    // Eight 200 MiB buffers, each within maxMemoryAllocationSize, 1.6 GiB in all.
    let mut s = String::from("#!amber\n");
    for i in 0..8 {
        s += &format!("BUFFER b{i} DATA_TYPE uint32 SIZE 52428800 FILL 7\n");
    }
    let p = tmp("memory.amber");
    std::fs::write(&p, &s).unwrap();
    let budget: u64 = 512 << 20;
    let _one = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let Some((peak, o)) = peak_rss(&p, &["--memory-limit", "512M", "--json"]) else {
        return;
    };
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("\"kind\":\"memory\"")
            && out.contains("memory.amber:4:")
            && out.contains("memory budget of 512 MiB"),
        "{out}"
    );
    // the budget, plus the process itself (binary, threads, allocator slack)
    let overhead = 64 << 20;
    assert!(
        peak < budget + overhead,
        "peak RSS {} MiB over a {} MiB budget",
        peak >> 20,
        budget >> 20
    );
}

#[test]
fn an_address_space_limit_lowers_the_default_budget_instead_of_aborting() {
    // Under a 1 GiB address-space limit the default budget is half of it: the same eight
    // buffers fail with the budget's error, not an allocation failure (an abort).
    let mut s = String::from("#!amber\n");
    for i in 0..8 {
        s += &format!("BUFFER b{i} DATA_TYPE uint32 SIZE 52428800 FILL 7\n");
    }
    let p = tmp("as.amber");
    std::fs::write(&p, &s).unwrap();
    let o = Command::new("prlimit")
        .arg(format!("--as={}", 1u64 << 30))
        .arg(env!("CARGO_BIN_EXE_quadstep"))
        .args(["amber", "--json", "-j", "1"])
        .arg(&p)
        .output();
    let Ok(o) = o else {
        eprintln!("skipped: prlimit is not installed");
        return;
    };
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("\"kind\":\"memory\""), "{out}");
}

#[test]
fn a_dump_that_cannot_be_written_fails_the_script_and_the_run() {
    let s = graphics(
        "  BIND BUFFER framebuffer AS color LOCATION 0\n",
        "RUN p DRAW_RECT POS 0 0 SIZE 250 250\n",
    );
    // a file where the folder should be
    let blocker = tmp("not-a-folder");
    std::fs::write(&blocker, b"x").unwrap();
    let dir = blocker.join("dumps");
    let (o, out) = amber(
        "dump.amber",
        s.as_bytes(),
        &["--json", "--dump-images", dir.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains("\"status\":\"FAIL\"")
            && out.contains("\"kind\":\"io\"")
            && out.contains("--dump-images"),
        "{out}"
    );
}

#[test]
fn a_huge_token_is_quoted_short_and_once() {
    let mut s = b"#!amber\n# a command 5 MiB long\n".to_vec();
    s.extend(std::iter::repeat_n(b'Q', 5 << 20));
    s.extend(b"\n");
    let (o, out) = amber("token.amber", &s, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", &out[..out.len().min(2000)]);
    assert!(out.len() < 1000, "{} bytes of output", out.len());
    assert!(out.contains("token.amber:3:"), "{out}");
    // echoed once, 80 characters of it
    assert_eq!(out.chars().filter(|&c| c == 'Q').count(), 80, "{out}");
    assert!(out.contains("(5242880 characters)"), "{out}");
}

#[test]
fn a_script_that_is_not_utf8_is_named_by_line() {
    let s = b"#!amber\n# fine\nBUFFER b DATA_TYPE uint32 \xff\xfe SIZE 4 FILL 0\n";
    let (o, out) = amber("bytes.amber", s, &[]);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains("bytes.amber:3: not UTF-8 text (byte 0xff at column 27)"),
        "{out}"
    );
}

#[test]
fn ctrl_c_stops_the_run_and_keeps_the_results_so_far() {
    let _one = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tmp("interrupt");
    std::fs::create_dir_all(&dir).unwrap();
    let quick = graphics(
        "  BIND BUFFER framebuffer AS color LOCATION 0\n",
        "RUN p DRAW_RECT POS 0 0 SIZE 10 10\n",
    );
    std::fs::write(dir.join("a_quick.amber"), quick).unwrap();
    std::fs::copy(data("runaway_dispatch.amber"), dir.join("b_slow.amber")).unwrap();
    for shader in SHADERS {
        std::fs::copy(data(shader), dir.join(shader)).unwrap();
    }
    let mut child = quadstep()
        .arg("amber")
        .arg(&dir)
        .args(["-j", "1", "--time-limit", "600"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Instant::now();
    common::interrupt(&child);
    let status = child.wait().unwrap();
    let took = sent.elapsed();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{out}");
    assert!(
        took < Duration::from_secs(1),
        "stopped {took:?} after Ctrl-C"
    );
    assert!(
        out.contains("PASS") && out.contains("a_quick.amber"),
        "{out}"
    );
    assert!(
        out.contains("b_slow.amber") && out.contains("cancelled"),
        "{out}"
    );
    assert!(out.contains("interrupted"), "{out}");
}

#[test]
fn limits_prints_lavapipes_values() {
    let o = quadstep().args(["limits", "--json"]).output().unwrap();
    assert!(o.status.success());
    let table = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<serde_json::Value> = table
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    // vulkaninfo's report: `name = value` lines; arrays (`name: count = 3`) give their
    // elements on the following lines.
    let report = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lavapipe-limits.txt"),
    )
    .unwrap();
    let mut lavapipe = std::collections::HashMap::new();
    let lines: Vec<&str> = report.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        let l = l.trim();
        if let Some((name, v)) = l.split_once('=') {
            let (name, v) = (name.trim(), v.trim());
            if let Some(name) = name.strip_suffix(": count") {
                for k in 0..v.parse::<usize>().unwrap_or(0) {
                    let e = lines[i + 1 + k].trim();
                    lavapipe.insert(format!("{name}[{k}]"), e.to_string());
                }
            } else {
                lavapipe.insert(name.to_string(), v.to_string());
            }
        }
    }
    let parse = |v: &str| match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => v.parse::<u64>().unwrap(),
    };
    let mut compared = 0;
    for r in &rows {
        if r["origin"] != "lavapipe" {
            continue;
        }
        let name = r["name"].as_str().unwrap();
        let want = lavapipe
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not in lavapipe's report"));
        assert_eq!(r["value"].as_u64().unwrap(), parse(want), "{name}");
        compared += 1;
    }
    assert!(compared >= 25, "{compared} rows compared");
    // --limit changes a row, and says it is not the default
    let o = quadstep()
        .args(["limits", "--limit", "maxFramebufferWidth=64"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let row = text
        .lines()
        .find(|l| l.starts_with("maxFramebufferWidth "))
        .unwrap();
    assert!(row.contains(" 64*"), "{row}");
    let o = quadstep()
        .args(["limits", "--limit", "maxNothing=3"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
