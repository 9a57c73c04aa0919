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
use quadstep::texture::explain::{Operation, QuadExplain, TapExplain, Texel};
use quadstep::texture::{CompareOp, Filter, MipmapMode};

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

/// The script's own `EXPECT`s passed.
fn passed(r: &Report) {
    let s = &r.script.status;
    assert_eq!(s.word(), "PASS", "{}", s.detail());
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

/// `a` and `b` agree to f32 precision.
fn close(a: f32, b: f64) -> bool {
    (a as f64 - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// One lane of a 2D lookup with explicit gradients on a square mipmapped texture, worked
/// out here from the Vulkan formulas (sampling.md §5.1 ρ as Euclidean lengths, §5.3–5.4 λ
/// and its clamps, §5.6, §5.7 linear mip selection, §6.1, §7.2, §8 clamp to edge, §10 the
/// comparison per texel), in f64: what the debugger's sampler record must say.
struct Hand {
    rho: [f64; 2],
    lambda_base: f64,
    lambda: f64,
    /// (level, weight) of the levels with a non-zero weight.
    levels: Vec<(u32, f64)>,
    footprints: Vec<HandFootprint>,
    result: f64,
}

/// A tap: (i, j) after wrapping, value, comparison, weight.
type HandTap = ([i32; 2], f64, bool, f64);

/// A level's footprint: texel-space position, fractions, taps.
type HandFootprint = ([f64; 2], [f64; 2], Vec<HandTap>);

#[allow(clippy::too_many_arguments)]
fn hand_pcf(
    levels: &[Vec<Vec<f64>>],
    p: [f64; 2],
    dref: f64,
    dx: [f64; 2],
    dy: [f64; 2],
    min_lod: [f64; 2],
    max_lod: f64,
    pass: impl Fn(f64, f64) -> bool,
) -> Hand {
    let size0 = levels[0].len() as f64;
    let rho = [dx, dy].map(|d| ((d[0] * size0).powi(2) + (d[1] * size0).powi(2)).sqrt());
    let lambda_base = rho[0].max(rho[1]).log2();
    let lambda = lambda_base.clamp(min_lod[0].max(min_lod[1]), max_lod);
    let q = (levels.len() - 1) as f64;
    let d = lambda.clamp(0.0, q);
    let (hi, delta) = (d.floor(), d - d.floor());
    let lo = (hi + 1.0).min(q);
    // a level of weight 0 adds nothing: the sampler need not read it
    let chosen: Vec<(u32, f64)> = [(hi as u32, 1.0 - delta), (lo as u32, delta)]
        .into_iter()
        .filter(|l| l.1 > 0.0)
        .collect();
    let mut footprints = Vec::new();
    let mut result = 0.0;
    for &(level, w) in &chosen {
        let texels = &levels[level as usize];
        let n = texels.len() as i32;
        let u = [p[0], p[1]].map(|c| c * n as f64);
        let ij0 = u.map(|c| (c - 0.5).floor() as i32);
        let frac = [0, 1].map(|k| u[k] - 0.5 - ij0[k] as f64);
        let mut taps = Vec::new();
        let mut v = 0.0;
        for (tj, ti) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            let ij = [ij0[0] + ti, ij0[1] + tj].map(|c| c.clamp(0, n - 1));
            let texel = texels[ij[1] as usize][ij[0] as usize];
            let ok = pass(dref, texel);
            let weight = (if ti == 1 { frac[0] } else { 1.0 - frac[0] })
                * (if tj == 1 { frac[1] } else { 1.0 - frac[1] });
            v += weight * ok as u8 as f64;
            taps.push((ij, texel, ok, weight));
        }
        result += w * v;
        footprints.push((u, frac, taps));
    }
    Hand {
        rho,
        lambda_base,
        lambda,
        levels: chosen,
        footprints,
        result,
    }
}

/// The 2D coordinates of the texel a tap read (it must have read one).
fn texel_ij(tap: &TapExplain) -> [i32; 2] {
    match tap.texel {
        Texel::At { ijk, .. } => [ijk[0], ijk[1]],
        other => panic!("a texel expected: {other:?}"),
    }
}

/// The one group of an image step, with the texture unit's record of it.
fn texture_record(s: &debug::Step) -> (&debug::ImageStep, &QuadExplain) {
    let img = s.image.as_ref().expect("the image record");
    let bound = img.bound.as_ref().expect("what is bound");
    assert_eq!(bound.groups.len(), 1);
    let t = bound.groups[0].texture.as_ref().expect("a texture record");
    let t = t.as_ref().expect("the texture unit explains it");
    // the record is of the run: its result is the instruction's, lane for lane
    for l in (0..4).filter(|&l| s.lanes[l].active) {
        assert_eq!(t.lanes[l].result, img.results[l], "lane {l}");
        assert_eq!(t.result[l], img.results[l], "lane {l}");
    }
    (img, t)
}

#[test]
fn a_shadow_lookup_with_gradients_shows_lambda_levels_texels_and_compares() {
    if !glslang() {
        return;
    }
    // tests/data/debug_shadow_grad.amber: a 4x4 D32 map with two levels, LESS_OR_EQUAL,
    // linear filters and mip mode, maxLod 1.75; per lane its own point, x gradient and
    // MinLod (the script's comment works the four lanes out by hand)
    let script = root().join("tests/data/debug_shadow_grad.amber");
    let r = run(&script, Target::Pixel { x: 1, y: 1 }, Discard::Helper);
    passed(&r);
    let t = r.traces.last().unwrap();
    let s = step(t, "OpImageSampleDrefExplicitLod");
    let (img, rec) = texture_record(s);
    assert_eq!(rec.op, Operation::Sample);
    let g = &img.bound.as_ref().unwrap().groups[0];
    assert_eq!(g.image.as_ref().unwrap().levels, [[4, 4, 1], [2, 2, 1]]);
    assert_eq!(
        g.sampler.as_ref().unwrap().compare_op,
        CompareOp::LessOrEqual
    );
    let level0: Vec<Vec<f64>> = [
        [0.1, 0.1, 0.9, 0.9],
        [0.1, 0.1, 0.9, 0.9],
        [0.5, 0.5, 0.3, 0.3],
        [0.5, 0.5, 0.3, 0.3],
    ]
    .iter()
    .map(|r| r.iter().map(|&v| v as f32 as f64).collect())
    .collect();
    // level 1: the script's 2x2 box filter of level 0
    let level1: Vec<Vec<f64>> = (0..2)
        .map(|j| {
            (0..2)
                .map(|i| {
                    (0..4)
                        .map(|k| level0[2 * j + k / 2][2 * i + k % 2])
                        .sum::<f64>()
                        / 4.0
                })
                .collect()
        })
        .collect();
    let levels = [level0, level1];
    let p = [
        [0.375, 0.625],
        [0.5625, 0.4375],
        [0.3125, 0.4375],
        [0.625, 0.625],
    ];
    let dx = [[0.5, 0.0], [0.25, 0.0], [0.1875, 0.25], [1.0, 0.0]];
    let min_lod = [0.0, 0.5, 0.0, 0.0];
    let dref = 0.4f32 as f64;
    for l in 0..4 {
        let h = hand_pcf(
            &levels,
            p[l],
            dref,
            dx[l],
            [0.0, 0.25],
            [0.0, min_lod[l]],
            1.75,
            |d, t| d <= t,
        );
        let x = &rec.lanes[l];
        let at = format!("lane {l}");
        assert!(x.active, "{at}");
        assert_eq!(x.coords[..2], p[l].map(|c| c as f32), "{at}");
        assert_eq!(x.dref, Some(0.4), "{at}");
        let lod = x.lod.as_ref().expect("the lane's LOD steps");
        let (ddx, ddy) = lod.derivatives.expect("explicit gradients");
        assert_eq!(
            (ddx[..2].to_vec(), ddy[..2].to_vec()),
            (dx[l].map(|v| v as f32).to_vec(), vec![0.0, 0.25]),
            "{at}"
        );
        assert!(
            close(lod.rho[0], h.rho[0]) && close(lod.rho[1], h.rho[1]),
            "{at}: rho {:?} vs {:?}",
            lod.rho,
            h.rho
        );
        assert!(
            close(lod.lambda_base, h.lambda_base),
            "{at}: lambda_base {} vs {}",
            lod.lambda_base,
            h.lambda_base
        );
        assert_eq!((lod.shader_bias, lod.sampler_bias), (0.0, 0.0), "{at}");
        assert!(close(lod.lambda_biased, h.lambda_base), "{at}");
        assert_eq!(
            (lod.sampler_min_lod, lod.sampler_max_lod),
            (0.0, 1.75),
            "{at}"
        );
        assert_eq!(lod.shader_min_lod, Some(min_lod[l] as f32), "{at}");
        assert!(
            close(lod.lambda, h.lambda),
            "{at}: lambda {} vs {}",
            lod.lambda,
            h.lambda
        );
        // λ > 0 minifies (§5.6); every filter here is linear
        assert_eq!(lod.minified, h.lambda > 0.0, "{at}");
        assert_eq!(
            (lod.filter, lod.mipmap_mode),
            (Filter::Linear, MipmapMode::Linear),
            "{at}"
        );
        assert_eq!(
            lod.levels.len(),
            h.levels.len(),
            "{at}: levels {:?} vs {:?}",
            lod.levels,
            h.levels
        );
        for (&(lv, w), &(hl, hw)) in lod.levels.iter().zip(&h.levels) {
            assert!(
                lv == hl && close(w, hw),
                "{at}: levels {:?} vs {:?}",
                lod.levels,
                h.levels
            );
        }
        assert_eq!(x.footprints.len(), h.footprints.len(), "{at}");
        for (fp, (hp, hf, htaps)) in x.footprints.iter().zip(&h.footprints) {
            let at = format!("{at} level {}", fp.level);
            assert!(
                close(fp.position[0], hp[0]) && close(fp.position[1], hp[1]),
                "{at}: {:?} vs {hp:?}",
                fp.position
            );
            assert!(
                close(fp.fractions[0], hf[0]) && close(fp.fractions[1], hf[1]),
                "{at}: {:?} vs {hf:?}",
                fp.fractions
            );
            assert_eq!(fp.filter, Filter::Linear);
            assert_eq!(fp.taps.len(), 4, "{at}");
            for (tap, (ij, value, pass, weight)) in fp.taps.iter().zip(htaps) {
                match tap.texel {
                    Texel::At {
                        ijk,
                        layer: 0,
                        face: None,
                    } => assert_eq!(ijk[..2], ij[..], "{at}"),
                    other => panic!("{at}: {other:?}"),
                }
                assert!(
                    close(f32::from_bits(tap.value[0]), *value),
                    "{at} {ij:?}: {:?}",
                    tap.value
                );
                assert_eq!(tap.compare, Some(*pass), "{at} {ij:?}");
                assert!(
                    close(tap.weight, *weight),
                    "{at} {ij:?}: weight {} vs {weight}",
                    tap.weight
                );
            }
        }
        assert!(
            close(f32::from_bits(x.result[0]), h.result),
            "{at}: {:?} vs {}",
            f32::from_bits(x.result[0]),
            h.result
        );
        assert!(close(floats(s, l)[0], h.result), "{at}");
    }
    // the readable form prints it: lane 2's two levels and a compare
    let text = debug::text::render(&r, t, &Default::default());
    assert!(text.contains("levels 0 (weight 0.67807"), "{text}");
    assert!(
        text.contains("texel (1, 2) = 0.5 pass, weight 0.1875"),
        "{text}"
    );
}

#[test]
fn an_implicit_lod_sample_takes_its_derivatives_from_the_quad() {
    if !glslang() {
        return;
    }
    // shaders/golden/discard_helpers.amber, pixel (37, 70): uv = gl_FragCoord.xy / 16 with
    // lane 0 demoted before the sample, a 64x64 texture, 7 levels, REPEAT, trilinear. The
    // coarse derivatives (§3.2) are lane 1 - lane 0 and lane 2 - lane 0 for every lane:
    // (1/16, 0) and (0, 1/16); rho = 64/16 = 4 (§5.1), lambda = 2: level 2 (16x16) alone.
    // Texel space (x + 0.5, y + 0.5) of the lane's pixel: integer fractions, so the tap at
    // (x, y) mod 16 has weight 1 (§7.2, §8).
    let script = root().join("shaders/golden/discard_helpers.amber");
    let r = run(&script, Target::Pixel { x: 37, y: 70 }, Discard::Helper);
    let t = r.traces.last().unwrap();
    let s = step(t, "OpImageSampleImplicitLod");
    let (_, rec) = texture_record(s);
    for l in 0..4 {
        let (x, y) = (36 + (l & 1) as i32, 70 + (l >> 1) as i32);
        let at = format!("lane {l}");
        let lane = &rec.lanes[l];
        let lod = lane.lod.as_ref().unwrap();
        let (ddx, ddy) = lod.derivatives.expect("implicit derivatives");
        assert_eq!(
            (ddx[..2].to_vec(), ddy[..2].to_vec()),
            (vec![0.0625, 0.0], vec![0.0, 0.0625]),
            "{at}"
        );
        assert_eq!(lod.rho, [4.0, 4.0], "{at}");
        assert_eq!((lod.lambda_base, lod.lambda), (2.0, 2.0), "{at}");
        assert!(lod.minified);
        assert_eq!(lod.levels, [(2, 1.0)], "{at}");
        let fp = &lane.footprints[0];
        assert_eq!(fp.position[..2], [x as f32 + 0.5, y as f32 + 0.5], "{at}");
        assert_eq!(fp.fractions[..2], [0.0, 0.0], "{at}");
        let tap = &fp.taps[0];
        assert_eq!(tap.unwrapped[..2], [x, y], "{at}");
        assert_eq!(tap.weight, 1.0, "{at}");
        assert_eq!(texel_ij(tap), [x % 16, y % 16], "{at}");
    }
}

#[test]
fn a_gather_and_a_fetch_show_the_texels_they_read() {
    if !glslang() {
        return;
    }
    // tests/data/debug_gather_fetch.amber: a 4x4 R32_SFLOAT texture, texel (i, j) = 10 j + i,
    // REPEAT. Gather (§11): p = (0.0625 + x / 2, 0.375 + y / 2) at level 0, i0 = floor(4 p.x -
    // 0.5), j0 = floor(4 p.y - 0.5), wrapped mod 4 (§8), R G B A = (i0, j1) (i1, j1) (i1, j0)
    // (i0, j0). Fetch (§12): texel (4 x, y), no wrapping: out of range in lanes 1 and 3.
    let script = root().join("tests/data/debug_gather_fetch.amber");
    let r = run(&script, Target::Pixel { x: 0, y: 0 }, Discard::Helper);
    passed(&r);
    let t = r.traces.last().unwrap();
    let (_, gather) = texture_record(step(t, "OpImageGather"));
    assert_eq!(gather.op, Operation::Gather { component: 0 });
    for l in 0..4 {
        let (x, y) = ((l & 1) as f64, (l >> 1) as f64);
        let u = [0.0625 + x / 2.0, 0.375 + y / 2.0].map(|c| (4.0 * c - 0.5).floor() as i32);
        let corners = [(0, 1), (1, 1), (1, 0), (0, 0)];
        let taps = &gather.lanes[l].footprints[0].taps;
        assert_eq!(taps.len(), 4);
        for (tap, (di, dj)) in taps.iter().zip(corners) {
            let unwrapped = [u[0] + di, u[1] + dj];
            let ij = unwrapped.map(|c| c.rem_euclid(4));
            assert_eq!(tap.unwrapped[..2], unwrapped, "lane {l}");
            assert_eq!(texel_ij(tap), ij, "lane {l}");
            assert_eq!(
                f32::from_bits(tap.value[0]),
                (10 * ij[1] + ij[0]) as f32,
                "lane {l}"
            );
        }
    }
    let (_, fetch) = texture_record(step(t, "OpImageFetch"));
    assert_eq!(fetch.op, Operation::Fetch);
    for l in 0..4 {
        let (x, y) = (4 * (l & 1) as i32, (l >> 1) as i32);
        let tap = &fetch.lanes[l].footprints[0].taps[0];
        assert_eq!(tap.unwrapped[..2], [x, y], "lane {l}");
        match (x, tap.texel) {
            (0, Texel::At { ijk, .. }) => {
                assert_eq!(ijk[..2], [0, y]);
                assert_eq!(f32::from_bits(tap.value[0]), (10 * y) as f32);
            }
            (4, Texel::OutOfRange) => {}
            other => panic!("lane {l}: {other:?}"),
        }
    }
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
