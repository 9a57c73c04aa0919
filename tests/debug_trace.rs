//! The shader debugger on known shaders, step by step, with expected values worked out by
//! hand from the shaders' sources: a quad swap, a derivative in divergent control flow, a
//! discard, and on every golden scene that the traced pixel's final value is the pixel of
//! the golden image. Also the HTML page, rendered by headless Chromium when it is installed.
//! The scripts are GLSL: without `glslangValidator` the tests say so and pass.

mod common;

use std::path::{Path, PathBuf};

use common::tools::{self, Tool};

use quadstep::amber::RunOptions;
use quadstep::debug::{self, LaneState, Report, Request, Target, Trace, WarningKind};
use quadstep::exec::Discard;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn glslang() -> bool {
    tools::have("debug_trace", &[Tool::Glslang])
}

fn trace(script: &Path, target: Target, discard: Discard) -> Report {
    let opts = RunOptions {
        discard,
        raster_threads: 2,
        ..RunOptions::default()
    };
    debug::trace_script(script, Request::new(target), opts)
}

/// [`trace`], which must reach the target.
fn run(script: &Path, target: Target, discard: Discard) -> Report {
    let r = trace(script, target, discard);
    assert!(
        !r.traces.is_empty(),
        "{}: nothing traced ({})",
        script.display(),
        r.script.status.detail()
    );
    r
}

/// The one step whose text contains `what`.
fn step<'a>(t: &'a Trace, what: &str) -> &'a debug::Step {
    let found: Vec<_> = t.steps.iter().filter(|s| s.text.contains(what)).collect();
    assert_eq!(found.len(), 1, "steps with `{what}`: {found:#?}");
    found[0]
}

/// The f32 values lane `l` of a step produced.
fn floats(s: &debug::Step, l: usize) -> Vec<f32> {
    s.values
        .iter()
        .map(|v| f32::from_bits(v.lanes[l].expect("the lane ran it") as u32))
        .collect()
}

#[test]
fn quad_read_across_y_gives_lane_0_the_value_of_lane_2() {
    if !glslang() {
        return;
    }
    // Pixel (20, 64): lane 0 of its quad, in the band that shows QuadReadAcrossY. Every lane
    // owns palette[lane] * (32 + 3 * quad column) / 255: quad column 10, so 62 / 255.
    let script = root().join("shaders/golden/quad_read_across.amber");
    let r = run(&script, Target::Pixel { x: 20, y: 64 }, Discard::Helper);
    let t = r.traces.last().unwrap();
    assert_eq!(t.lane, 0);
    let b = 62.0f32 / 255.0;
    let own = [
        [b, 0.0, 0.0, 1.0],
        [0.0, b, 0.0, 1.0],
        [0.0, 0.0, b, 1.0],
        [b, b, 0.0, 1.0],
    ];
    let swaps = t
        .steps
        .iter()
        .filter(|s| s.text.contains("OpGroupNonUniformQuadSwap"));
    // direction 1: vertical
    let swap_y: Vec<_> = swaps.filter(|s| s.text.ends_with("%uint_1")).collect();
    assert_eq!(swap_y.len(), 1);
    let swap_y = swap_y[0];
    assert_eq!(swap_y.writes, ["y"]);
    for l in 0..4 {
        assert_eq!(
            floats(swap_y, l),
            own[l ^ 2],
            "lane {l} reads lane {}",
            l ^ 2
        );
        assert_eq!(
            swap_y.lanes[l],
            LaneState {
                active: true,
                ..Default::default()
            }
        );
    }
    assert!(swap_y.warnings.is_empty());
    // the band picks y: the fragment's output, and the unorm8 pixel after the draw
    let f = t.fragment.as_ref().unwrap();
    assert_eq!(f.outputs[0][0].map(f32::from_bits), own[2]);
    assert_eq!(
        f.attachment[0],
        Some([0.0, 0.0, 62.0 / 255.0, 1.0].map(|v: f64| v as f32 as f64))
    );
}

#[test]
fn a_divergent_derivative_warns_at_its_instruction_and_lane() {
    if !glslang() {
        return;
    }
    // Pixel (0, 1) is lane 2. Lanes 0, 1, 2 take the `if`; lane 2's fine dFdx reads lane 3.
    let script = root().join("tests/data/debug_divergent.amber");
    let r = run(&script, Target::Pixel { x: 0, y: 1 }, Discard::Helper);
    let t = r.traces.last().unwrap();
    assert_eq!(t.lane, 2);
    let warned: Vec<_> = t.warnings().collect();
    assert_eq!(warned.len(), 1, "{warned:#?}");
    let (s, w) = warned[0];
    assert!(s.text.contains("OpDPdxFine"), "{}", s.text);
    assert_eq!((w.kind, w.lane), (WarningKind::InactiveLane, 2));
    assert!(w.message.contains("reads lane 3"), "{}", w.message);
    assert_eq!(s.lanes.map(|l| l.active), [true, true, true, false]);
    // v = x * y at the pixel centres; lanes 0 and 1 are (0.5, 0.5) and (1.5, 0.5):
    // dFdx = 0.75 - 0.25
    assert_eq!(floats(s, 0), [0.5]);
    assert_eq!(floats(s, 1), [0.5]);
}

#[test]
fn a_discarded_lane_goes_on_as_a_helper_and_feeds_derivatives() {
    if !glslang() {
        return;
    }
    // Pixel (1, 0) is lane 1 of the first quad, whose lane 3 discards at a plain `if`.
    // P = x y + x^2 / 4 + 3 y: P(1.5, 0.5) = 2.8125, P(1.5, 1.5) = 7.3125.
    let script = root().join("tests/data/discard_resume.amber");
    for (discard, dfdy) in [(Discard::Helper, 4.5), (Discard::Strict, -2.8125)] {
        let r = run(&script, Target::Pixel { x: 1, y: 0 }, discard);
        let t = r.traces.last().unwrap();
        assert_eq!((t.lane, t.discard), (1, discard));
        let kill = step(t, "OpKill");
        assert_eq!(kill.lanes.map(|l| l.active), [false, false, false, true]);
        let after = &t.steps[kill.index + 1..];
        let helper = LaneState {
            active: true,
            helper: true,
            demoted: false,
            killed: true,
        };
        match discard {
            // lane 3 runs on as a helper, with its own P: 7.3125 - 2.8125
            Discard::Helper => assert!(after.iter().all(|s| s.lanes[3] == helper)),
            // lane 3 stopped: its reloaded P is the register's start value, 0
            Discard::Strict => assert!(after.iter().all(|s| !s.lanes[3].active)),
        }
        // the first of the two: dFdyFine(P)
        let d = t
            .steps
            .iter()
            .find(|s| s.text.contains("OpDPdyFine"))
            .unwrap();
        assert_eq!(floats(d, 1), [dfdy], "{discard:?}");
        let w: Vec<_> = d.warnings.iter().map(|w| (w.kind, w.lane)).collect();
        assert_eq!(w, [(WarningKind::DiscardedLane, 1)], "{discard:?}");
    }
}

#[test]
fn a_shadow_lookup_with_gradients_shows_its_operands_binding_and_result() {
    if !glslang() {
        return;
    }
    // tests/data/debug_shadow_grad.amber works the lookup out by hand: every lane samples
    // (0.375, 0.625) with dref 0.4 and gradients (0.5, 0), (0, 0.25) from a 4x4 map with two
    // levels; the PCF result is 0.625.
    let script = root().join("tests/data/debug_shadow_grad.amber");
    let r = run(&script, Target::Pixel { x: 1, y: 1 }, Discard::Helper);
    let t = r.traces.last().unwrap();
    let s = step(t, "OpImageSampleDrefExplicitLod");
    let img = s.image.as_ref().expect("the image record");
    let q = &img.operands;
    assert_eq!(q.dref, Some([0.4f32.to_bits(); 4]));
    match &q.lod {
        quadstep::exec::QuadLod::Grad { count: 2, dx, dy } => {
            for l in 0..4 {
                assert_eq!(dx[l][..2], [0.5f32.to_bits(), 0]);
                assert_eq!(dy[l][..2], [0, 0.25f32.to_bits()]);
            }
        }
        other => panic!("gradients expected: {other:?}"),
    }
    for l in 0..4 {
        assert_eq!(f32::from_bits(img.results[l][0]), 0.625, "lane {l}");
        assert_eq!(floats(s, l), [0.625]);
    }
    let bound = img.bound.as_ref().expect("what is bound");
    assert_eq!(bound.groups.len(), 1);
    let g = &bound.groups[0];
    assert_eq!(g.lanes, 0b1111);
    let i = g.image.as_ref().unwrap();
    assert_eq!(i.format, quadstep::texture::Format::D32_SFLOAT);
    assert_eq!(i.levels, [[4, 4, 1], [2, 2, 1]]);
    let sampler = g.sampler.as_ref().unwrap();
    assert!(sampler.compare_enable);
    assert_eq!(
        sampler.compare_op,
        quadstep::texture::CompareOp::LessOrEqual
    );
}

#[test]
fn a_compute_invocation_and_a_vertex_are_traced_in_their_quads() {
    if !glslang() {
        return;
    }
    // invocation 5 of two workgroups of four: lane 1 of workgroup 1's only quad; it computes
    // 3 * 5 + 1 = 16, its neighbours 13, 19, 22
    let script = root().join("tests/data/debug_compute.amber");
    let r = run(
        &script,
        Target::Invocation { x: 5, y: 0, z: 0 },
        Discard::Helper,
    );
    let t = r.traces.last().unwrap();
    assert_eq!(t.lane, 1);
    let ids: Vec<_> = (4..8)
        .map(|x| debug::LanePlace::Invocation(Some([x, 0, 0])))
        .collect();
    assert_eq!(t.places.to_vec(), ids);
    let add = step(t, "OpIAdd");
    let lanes: Vec<u64> = (0..4).map(|l| add.values[0].lanes[l].unwrap()).collect();
    assert_eq!(lanes, [13, 16, 19, 22]);
    // vertex 1 of the divergent script's triangle: position (3, -1, 0, 1); vertex 0 and 2
    // beside it, the quad's fourth lane has no vertex and does not run
    let script = root().join("tests/data/debug_divergent.amber");
    let r = run(&script, Target::Vertex { index: 1 }, Discard::Helper);
    let t = r.traces.last().unwrap();
    assert_eq!(t.lane, 1);
    let stores: Vec<_> = t
        .steps
        .iter()
        .filter(|s| s.text.starts_with("OpStore"))
        .collect();
    let pos = stores.last().expect("the store of gl_Position");
    assert_eq!(floats(pos, 1), [3.0, -1.0, 0.0, 1.0]);
    assert_eq!(floats(pos, 2), [-1.0, 3.0, 0.0, 1.0]);
    assert!(!pos.lanes[3].active);
}

/// `v` as an UNORM8 channel, by the Vulkan conversion.
fn unorm8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

#[test]
fn the_traced_pixel_is_the_golden_pixel_on_every_golden_scene() {
    if !glslang() {
        return;
    }
    let scenes = quadstep::golden::scenes::list(&quadstep::golden::scenes::scenes_dir()).unwrap();
    assert!(scenes.len() >= 6, "{} golden scenes", scenes.len());
    for scene in &scenes {
        // A multisampled scene's golden is the resolve of several samples' shading, where
        // a pixel's trace follows one fragment: those scenes are compared per sample by
        // their own EXPECTs, not here.
        let text = std::fs::read_to_string(&scene.script).unwrap();
        if text.contains(" SAMPLES ") {
            continue;
        }
        let golden =
            quadstep::golden::load_png(&root().join("golden").join(format!("{}.png", scene.name)))
                .unwrap();
        // fwidth_edges' three triangles leave pixels to the clear colour: the last three
        // pixels are in them
        let pixels = [
            (1, 1),
            (37, 70),
            (64, 64),
            (97, 96),
            (126, 125),
            (30, 30),
            (40, 20),
            (90, 60),
        ];
        let mut traced = 0;
        for (x, y) in pixels {
            let r = trace(&scene.script, Target::Pixel { x, y }, Discard::Helper);
            let Some(t) = r.traces.last() else {
                continue;
            };
            traced += 1;
            let at = format!("{} pixel ({x}, {y})", scene.name);
            let loc = t
                .attachments
                .iter()
                .position(|a| a.as_deref() == Some("framebuffer"))
                .unwrap_or_else(|| panic!("{at}: the last draw reaching it writes no framebuffer"));
            let want = golden.get_pixel(x, y).0;
            let f = t.fragment.as_ref().unwrap();
            let after = f.attachment[loc].unwrap().map(|c| unorm8(c as f32));
            assert_eq!(after, want, "{at}: the attachment after the traced draw");
            if !f.discarded[t.lane] {
                let out = f.outputs[loc][t.lane].map(|b| unorm8(f32::from_bits(b)));
                assert_eq!(out, want, "{at}: the traced fragment's output");
            }
        }
        assert!(traced >= 3, "{}: only {traced} pixels traced", scene.name);
    }
}

/// A Chromium binary, if one is installed.
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            std::process::Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

#[test]
fn the_html_page_renders_in_headless_chromium() {
    if !glslang() {
        return;
    }
    let Some(chrome) = chromium() else {
        eprintln!(
            "debug_trace: skipped: no chromium on the PATH (Debian package chromium); .ci/run installs it"
        );
        return;
    };
    let script = root().join("shaders/golden/quad_read_across.amber");
    let r = run(&script, Target::Pixel { x: 20, y: 64 }, Discard::Helper);
    let t = r.traces.last().unwrap();
    let dir = std::env::temp_dir().join(format!("quadstep-debug-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("trace.html");
    std::fs::write(&page, debug::html::page(&r, t)).unwrap();
    let shot = dir.join("trace.png");
    let chrome_run = |extra: &[&str]| {
        let profile = dir.join(format!("profile-{}", extra.len()));
        let o = std::process::Command::new(chrome)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .arg(format!("file://{}", page.display()))
            .output()
            .expect("chromium runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // the page's script ran to its end and drew a row per step
    let dom = chrome_run(&["--dump-dom"]);
    let rendered = format!("data-rendered=\"{}\"", t.steps.len());
    assert!(dom.contains(&rendered), "no {rendered} in the DOM");
    assert!(dom.matches("<tr").count() > t.steps.len());
    assert!(dom.contains("OpGroupNonUniformQuadSwap"));
    // and it shows something: the screenshot is not one flat colour
    let shot_arg = format!("--screenshot={}", shot.display());
    chrome_run(&[&shot_arg, "--window-size=1200,800"]);
    let img = image::open(&shot).expect("a PNG screenshot").to_rgba8();
    let first = img.get_pixel(0, 0);
    assert!(img.pixels().any(|p| p != first), "a blank screenshot");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dxil_shader_is_traced_by_its_dxil_instructions() {
    // the script's own EXPECTs: nearest magnification of a 2x2 chessboard leaves pixel
    // (81, 81) red and (129, 81) blue
    let script = root().join("tests/data/dxil_twins/cases/magfilter_nearest.amber");
    for ((x, y), want) in [
        ((81, 81), [1.0, 0.0, 0.0, 1.0]),
        ((129, 81), [0.0, 0.0, 1.0, 1.0]),
    ] {
        let r = run(&script, Target::Pixel { x, y }, Discard::Helper);
        let t = r.traces.last().unwrap();
        let s = step(t, "@dx.op.sample.f32(i32 60,");
        assert!(s.text.starts_with('%'), "{}", s.text);
        assert_eq!(floats(s, t.lane), want, "pixel ({x}, {y})");
        assert_eq!(
            t.steps
                .iter()
                .filter(|s| s.text.contains("@dx.op.loadInput.f32"))
                .count(),
            2
        );
    }
}
