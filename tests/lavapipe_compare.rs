//! Renders every lavapipe reference scene (`tests/lavapipe/`, see its README) with quadstep and
//! compares with lavapipe's output under the per-scene tolerance the README derives from its
//! measurements. Each scene is rendered at 1 and 2 rasterizer threads; the two must be
//! byte-identical. Failures write `target/lavapipe-compare/<scene>.{expected,actual,diff}.png`.
//!
//! Known disagreements (scenes quadstep does not match yet, with the reason) are listed in
//! [`KNOWN`]; a scene listed there that fails is reported, not fatal; a scene not listed that
//! fails fails the test, and so does a listed scene that passes (so the list stays honest).
//!
//! Where lavapipe and quadstep make different choices that Vulkan both allows, the expectation
//! is rebuilt for quadstep's choice instead of widening the tolerance (see [`reference`]):
//! - plain and coarse derivatives (`deriv_*`): lavapipe's are fine, quadstep's coarse; the
//!   coarse values are read off lavapipe's fine ones at the quad's top row / left column;
//! - `perspective` G, B: quadstep interpolates on the vertex positions snapped to 1/256 px,
//!   lavapipe on the unsnapped ones (5e-5 apart); compared with float64 on the snapped ones;
//! - `fmt_*`: lavapipe's approximate LOD moves wide-range values by more than 0.045 absolute;
//!   the slack is computed per pixel from the data instead (`format_lod_slack`).
//!
//! Whole-image checks that do not involve lavapipe: `quad_swap_full` and `quad_swap_triangle`
//! against neighbour pixel centres written down by hand (the latter with exact integer
//! coverage), `perspective`'s interpolated coordinates against float64, and the trilinear
//! family (`trilinear`, `lod_*`, `bias`) against a float64 model of the Vulkan formulas.
//!
//! Environment: `QUADSTEP_LVP_DUMP=1` writes quadstep's raw outputs next to the PNGs, in lvp's
//! layout, for the Python checkers in `tests/lavapipe/`.

mod lavapipe_support;

use approx::relative_eq;
use lavapipe_support::{expected, scene_names, Rgba, Scene};
use std::path::PathBuf;

/// Scenes quadstep cannot match yet, and why. Keep this short and honest. Empty: all 49
/// scenes match (as of the commit that wrote this).
const KNOWN: &[(&str, &str)] = &[];

/// Per-channel tolerance: a channel is over when `|got - want| > abs[c] + rel * |want|`.
#[derive(Clone, Copy, Debug)]
struct Tol {
    abs: [f32; 4],
    rel: f32,
    /// Pixels allowed beyond the tolerance (with the reason in [`tolerance`]).
    max_over: usize,
}

/// 2/255: lavapipe filters RGBA8 REPEAT/CLAMP_TO_EDGE textures in 8-bit fixed point
/// (README "What lavapipe does" 1; measured 0.0035 against exact bilinear).
const U8: f32 = 2.0 / 255.0;
/// lavapipe's LOD is `0.5 * fast_log2(rho^2)`, up to 0.043 below the exact log2 quadstep uses
/// (README item 2); the result moves by at most that times the difference of the two mip
/// levels blended, which is at most 1 on 0..1 data.
const LOD: f32 = 0.045;
/// "exact" class: unorm8 -> float may be 1 ulp off k/255 (README item 6).
const EXACT: f32 = 1e-6;
/// "float" class: `1e-5 * max(1, |v|)`.
const FLOAT: f32 = 1e-5;
/// "raster" class: interpolated values.
const RASTER: f32 = 1e-5;

fn all(v: f32) -> [f32; 4] {
    [v; 4]
}

fn tolerance(scene: &str) -> Tol {
    let t = |abs: [f32; 4], rel: f32| Tol {
        abs,
        rel,
        max_over: 0,
    };
    match scene {
        "addr_repeat" | "addr_clamp_to_edge" | "offset" | "array_lod" => t(all(U8), 0.0),
        s if s.starts_with("addr_") => t(all(FLOAT), FLOAT),
        "cube_equirect" | "cube_corner" | "tex3d_lod" => t(all(FLOAT), FLOAT),
        "trilinear" | "bias" | "grad" => t(all(U8 + LOD), 0.0),
        s if s.starts_with("lod_") => t(all(U8 + LOD), 0.0),
        // R, B: float; G: float + LOD (implicit LOD, PCF results in 0..1).
        s if s.starts_with("dref_") => t([FLOAT, FLOAT + LOD, FLOAT, FLOAT], FLOAT),
        "gather" | "gather_offsets" => t(all(EXACT), 0.0),
        // Plus the per-pixel LOD slack of `format_lod_slack`.
        "fmt_r16f" | "fmt_rg32f" => t(all(FLOAT), FLOAT),
        // sRGB decode error (README item 5), plus the per-pixel LOD slack.
        "fmt_srgb" => t(all(1.5e-3), 0.0),
        // R: trilinear RGBA8; G, B: perspective-correct interpolation.
        "perspective" => t([U8 + LOD, RASTER, RASTER, EXACT], 0.0),
        s if s.starts_with("depth_") => Tol {
            abs: [EXACT, EXACT, RASTER, EXACT],
            rel: 0.0,
            // The README allows "a few pixels on the T1/T2 intersection line"; quadstep
            // matches every pixel, so none are allowed.
            max_over: 0,
        },
        "deriv_varying" | "deriv_finecoarse" => t(all(1e-5), 0.0),
        "deriv_fragcoord" => t(all(EXACT), 0.0),
        "fill_fan" | "fill_subpixel" | "quad_swap_full" | "quad_swap_triangle" => {
            t(all(EXACT), 0.0)
        }
        other => panic!("no tolerance written down for scene `{other}`"),
    }
}

/// What a scene compares against, and extra per-pixel, per-channel tolerance on top of
/// [`tolerance`]: lavapipe's image, except where lavapipe and quadstep make different choices
/// that Vulkan both allows, where the expectation is rebuilt (from lavapipe's own values or
/// from float64 formulas) for quadstep's choice.
fn reference(scene: &str, lvp: &Rgba) -> (Rgba, Vec<[f32; 4]>) {
    let zero = vec![[0.0; 4]; lvp.px.len()];
    match scene {
        "deriv_finecoarse" => (coarse_from_fine(lvp, Deriv::FineCoarse), zero),
        "deriv_varying" | "deriv_fragcoord" => (coarse_from_fine(lvp, Deriv::Plain), zero),
        "perspective" => {
            let mut want = lvp.clone();
            let uv = perspective_uv_snapped(&Scene::load(scene).expect("scene loads"));
            for (p, t) in want.px.iter_mut().zip(&uv) {
                if let Some([u, v]) = t {
                    p[1] = (u / 8.0) as f32;
                    p[2] = (v / 8.0) as f32;
                }
            }
            (want, zero)
        }
        "fmt_r16f" | "fmt_rg32f" | "fmt_srgb" => (lvp.clone(), format_lod_slack(scene)),
        _ => (lvp.clone(), zero),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Deriv {
    /// `(dFdx, dFdy, fwidth, 1)`: quadstep's plain derivatives are coarse.
    Plain,
    /// `(dFdxFine, dFdyFine, dFdxCoarse, dFdyCoarse)`.
    FineCoarse,
}

/// lavapipe computes every derivative *fine*, even `dFdxCoarse` / `dFdyCoarse` and plain
/// `dFdx` (README item 4); quadstep's plain and coarse derivatives are coarse (exec/mod.rs:
/// "Coarse uses lane 0's fine values for the whole quad"): per quad, `dx = P1 - P0` (top row)
/// and `dy = P2 - P0` (left column) on all four lanes. Both are allowed by Vulkan. Those are
/// lavapipe's *fine* values at particular pixels: `dFdxFine` is the same on both pixels of a
/// quad row, so the fine x derivative of any covered top-row pixel is the quad's coarse x
/// derivative; likewise the fine y derivative of a covered left-column pixel for y. A channel
/// whose quad has no covered pixel there becomes NaN (not compared). `fwidth = |dx| + |dy|`
/// (exact in f32 after the power-of-two scale K). Coverage comes from `deriv_varying` (same
/// triangle in all three scenes, alpha = 1 where covered).
fn coarse_from_fine(lvp: &Rgba, mode: Deriv) -> Rgba {
    let cov = expected("deriv_varying", lvp.width, lvp.height);
    let covered = |x: u32, y: u32| cov.at(x, y)[3] == 1.0;
    let mut out = lvp.clone();
    for y in 0..lvp.height {
        for x in 0..lvp.width {
            if !covered(x, y) {
                continue;
            }
            let (qx, qy) = (x & !1, y & !1);
            let dx = [(qx, qy), (qx + 1, qy)]
                .into_iter()
                .find(|&(a, b)| covered(a, b))
                .map_or(f32::NAN, |(a, b)| lvp.at(a, b)[0]);
            let dy = [(qx, qy), (qx, qy + 1)]
                .into_iter()
                .find(|&(a, b)| covered(a, b))
                .map_or(f32::NAN, |(a, b)| lvp.at(a, b)[1]);
            let p = &mut out.px[(y * lvp.width + x) as usize];
            match mode {
                Deriv::FineCoarse => {
                    p[2] = dx;
                    p[3] = dy;
                }
                Deriv::Plain => {
                    p[0] = dx;
                    p[1] = dy;
                    p[2] = dx.abs() + dy.abs();
                }
            }
        }
    }
    out
}

/// Clip-space vertex -> framebuffer (x, y) and 1/w (viewport = whole framebuffer).
fn to_screen(v: &[f64], w: u32, h: u32) -> [f64; 3] {
    [
        (v[0] / v[3] + 1.0) * w as f64 / 2.0,
        (v[1] / v[3] + 1.0) * h as f64 / 2.0,
        1.0 / v[3],
    ]
}

/// Float64 perspective-correct interpolation of attribute (u, v) = location 1's x, y at each
/// pixel centre, with the screen positions snapped to 1/256 pixel (`subPixelPrecisionBits` =
/// 8). `None` where no triangle covers the centre (edges counted inclusively).
///
/// Why snapped: the perspective floor's far vertices have x/w off the 1/256 grid (README
/// conventions). quadstep snaps the vertex and interpolates on the snapped triangle; lavapipe
/// interpolates on the unsnapped float positions. Vulkan allows both; the difference reaches
/// 5e-5 on G, B near the far edge, above the 1e-5 raster class.
fn perspective_uv_snapped(scene: &Scene) -> Vec<Option<[f64; 2]>> {
    let (w, h) = (scene.width, scene.height);
    let verts: Vec<Vec<f64>> = scene.json["vertices"]
        .as_array()
        .expect("vertices")
        .iter()
        .map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect();
    let mut out = vec![None; (w * h) as usize];
    for tri in verts.chunks_exact(3) {
        let s: Vec<[f64; 3]> = tri
            .iter()
            .map(|v| {
                let p = to_screen(v, w, h);
                [
                    (p[0] * 256.0).round() / 256.0,
                    (p[1] * 256.0).round() / 256.0,
                    p[2],
                ]
            })
            .collect();
        let area =
            (s[1][0] - s[0][0]) * (s[2][1] - s[0][1]) - (s[2][0] - s[0][0]) * (s[1][1] - s[0][1]);
        if area == 0.0 {
            continue;
        }
        for y in 0..h {
            for x in 0..w {
                let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
                let e = |i: usize, j: usize| {
                    ((s[j][0] - px) * (s[i][1] - py) - (s[i][0] - px) * (s[j][1] - py)) / area
                };
                let b = [e(2, 1), e(0, 2), e(1, 0)];
                if b.iter().any(|&t| t < 0.0) {
                    continue;
                }
                let iw: f64 = (0..3).map(|i| b[i] * s[i][2]).sum();
                let u: f64 = (0..3).map(|i| b[i] * tri[i][4] * s[i][2]).sum::<f64>() / iw;
                let v: f64 = (0..3).map(|i| b[i] * tri[i][5] * s[i][2]).sum::<f64>() / iw;
                out[(y * w + x) as usize] = Some([u, v]);
            }
        }
    }
    out
}

/// Per-pixel LOD slack for `fmt_r16f` / `fmt_rg32f` / `fmt_srgb` (format.frag, bottom half:
/// trilinear, implicit LOD, values -3..5, -7..14 and 0..1; the sRGB data file holds the linear
/// values the decode returns). lavapipe's λ is up to 0.043 below the exact λ
/// (README item 2), so its result moves by at most `0.045 x |T_a - T_b|` where `T_a`, `T_b`
/// are the bilinear samples of the two levels it blends, which are among `floor(λ) - 1 ..
/// floor(λ) + 2`. Here `T_l` is a naive float64 bilinear REPEAT sample of the scene's data
/// (the f32 file; the f16 rounding on upload is far below this slack), λ the exact log2 of the
/// Euclidean coarse (lane-0) derivatives of the shader's closed-form coordinate. The top half
/// is magnified (λ about -2.7): no slack.
fn format_lod_slack(scene: &str) -> Vec<[f32; 4]> {
    let sc = Scene::load(scene).expect("scene loads");
    let t = &sc.json["textures"][0];
    let size = t["width"].as_u64().unwrap() as usize;
    let levels = t["mip_levels"].as_u64().unwrap() as usize;
    let data = lavapipe_support::read_f32s(&sc.dir.join(t["data"].as_str().unwrap()));
    let mut level_start = vec![0usize];
    for l in 0..levels {
        let n = (size >> l).max(1);
        level_start.push(level_start[l] + n * n);
    }
    let texel = |l: usize, x: i64, y: i64| -> [f64; 4] {
        let n = (size >> l).max(1) as i64;
        let i = level_start[l] + (y.rem_euclid(n) * n + x.rem_euclid(n)) as usize;
        std::array::from_fn(|c| data[4 * i + c] as f64)
    };
    let bilinear = |l: usize, u: f64, v: f64| -> [f64; 4] {
        let n = (size >> l).max(1) as f64;
        let (x, y) = (u * n - 0.5, v * n - 0.5);
        let (x0, y0) = (x.floor(), y.floor());
        let (a, b) = (x - x0, y - y0);
        let (x0, y0) = (x0 as i64, y0 as i64);
        let (t00, t10, t01, t11) = (
            texel(l, x0, y0),
            texel(l, x0 + 1, y0),
            texel(l, x0, y0 + 1),
            texel(l, x0 + 1, y0 + 1),
        );
        std::array::from_fn(|c| {
            (1.0 - a) * (1.0 - b) * t00[c]
                + a * (1.0 - b) * t10[c]
                + (1.0 - a) * b * t01[c]
                + a * b * t11[c]
        })
    };
    let coord = |x: f64, y: f64| -> [f64; 2] {
        let p = [x / 64.0, y / 64.0];
        let k = (p[0] * 4.0).exp2() * 0.9;
        [p[0] * k, p[1] * k]
    };
    let (w, h) = (sc.width as usize, sc.height as usize);
    let mut out = vec![[0.0f32; 4]; w * h];
    for y in h / 2..h {
        for x in 0..w {
            let (qx, qy) = ((x & !1) as f64 + 0.5, (y & !1) as f64 + 0.5);
            let p0 = coord(qx, qy);
            let px = coord(qx + 1.0, qy);
            let py = coord(qx, qy + 1.0);
            let n = size as f64;
            let rx = ((px[0] - p0[0]) * n).hypot((px[1] - p0[1]) * n);
            let ry = ((py[0] - p0[0]) * n).hypot((py[1] - p0[1]) * n);
            let lambda = rx.max(ry).log2();
            let uv = coord(x as f64 + 0.5, y as f64 + 0.5);
            let lo = (lambda.floor().max(0.0) as usize).min(levels - 1);
            let ls: Vec<usize> = (lo.saturating_sub(1)..=(lo + 2).min(levels - 1)).collect();
            let samples: Vec<[f64; 4]> = ls.iter().map(|&l| bilinear(l, uv[0], uv[1])).collect();
            let mut slack = [0.0f64; 4];
            for pair in samples.windows(2) {
                for c in 0..4 {
                    slack[c] = slack[c].max((pair[0][c] - pair[1][c]).abs());
                }
            }
            out[y * w + x] = slack.map(|d| (LOD as f64 * d) as f32);
        }
    }
    out
}

struct Outcome {
    max_diff: f32,
    over: usize,
    compared: usize,
    /// Channel values with no expectation (NaN in the reference, see [`reference`]).
    skipped: usize,
    /// Per pixel: beyond the tolerance.
    over_mask: Vec<bool>,
    first_over: Option<(u32, u32, [f32; 4], [f32; 4])>,
}

fn compare(want: &Rgba, got: &Rgba, tol: &Tol, slack: &[[f32; 4]]) -> Outcome {
    let mut o = Outcome {
        max_diff: 0.0,
        over: 0,
        compared: 0,
        skipped: 0,
        over_mask: vec![false; want.px.len()],
        first_over: None,
    };
    for y in 0..want.height {
        for x in 0..want.width {
            let (w, g) = (want.at(x, y), got.at(x, y));
            let mut bad = false;
            for c in 0..4 {
                if w[c].is_nan() {
                    o.skipped += 1; // not compared (see `reference`)
                    continue;
                }
                o.compared += 1;
                let d = (g[c] - w[c]).abs();
                let d = if d.is_nan() { f32::INFINITY } else { d };
                o.max_diff = o.max_diff.max(d);
                let extra = slack[(y * want.width + x) as usize][c];
                if d > tol.abs[c] + extra + tol.rel * w[c].abs() {
                    bad = true;
                }
            }
            if bad {
                o.over_mask[(y * want.width + x) as usize] = true;
                o.over += 1;
                if o.first_over.is_none() {
                    o.first_over = Some((x, y, w, g));
                }
            }
        }
    }
    o
}

fn out_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/lavapipe-compare")
}

/// PNGs of lavapipe's (or the rebuilt) expectation, quadstep's image (lvp's preview rule) and
/// a diff: pixels beyond the tolerance show `|difference| x 16` per RGB channel (red forced
/// on when that is faint), the others a dim grey of the expectation.
fn write_triplet(scene: &str, want: &Rgba, got: &Rgba, over: &[bool]) {
    use quadstep::golden::{save_png, RgbaImage};
    let (e, a) = (want.to_rgba8(), got.to_rgba8());
    let mut diff = Vec::with_capacity(want.px.len() * 4);
    for (i, (w, g)) in want.px.iter().zip(&got.px).enumerate() {
        let d: [u8; 3] =
            std::array::from_fn(|c| ((g[c] - w[c]).abs() * 16.0 * 255.0).clamp(0.0, 255.0) as u8);
        if over[i] {
            let r = if d.iter().all(|&v| v < 128) {
                255
            } else {
                d[0]
            };
            diff.extend_from_slice(&[r, d[1], d[2], 255]);
        } else {
            let l = (w[0].clamp(0.0, 1.0) * 0.3
                + w[1].clamp(0.0, 1.0) * 0.59
                + w[2].clamp(0.0, 1.0) * 0.11)
                * 64.0;
            let l = if l.is_nan() { 0 } else { l as u8 };
            diff.extend_from_slice(&[l, l, l, 255]);
        }
    }
    let d = RgbaImage::from_raw(want.width, want.height, diff).expect("size matches");
    let dir = out_dir();
    for (suffix, img) in [("expected", &e), ("actual", &a), ("diff", &d)] {
        let p = dir.join(format!("{scene}.{suffix}.png"));
        if let Err(err) = save_png(&p, img) {
            eprintln!("cannot write {}: {err}", p.display());
        }
    }
}

/// `QUADSTEP_LVP_DUMP=1`: write quadstep's output in lvp's raw layout (for the Python
/// checkers in tests/lavapipe).
fn dump_raw(scene: &str, got: &Rgba) {
    let bytes: Vec<u8> = got
        .px
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let p = out_dir().join(format!("{scene}.quadstep.f32"));
    let _ = std::fs::create_dir_all(out_dir());
    if let Err(e) = std::fs::write(&p, bytes) {
        eprintln!("cannot write {}: {e}", p.display());
    }
}

/// Render a scene at 1 and 2 threads; the two must be byte-identical.
fn render_checked(scene: &Scene) -> Result<Rgba, String> {
    let one = scene.render(1)?;
    let two = scene.render(2)?;
    let same = one
        .px
        .iter()
        .zip(&two.px)
        .all(|(a, b)| a.map(f32::to_bits) == b.map(f32::to_bits));
    if !same {
        return Err("1-thread and 2-thread renders differ".into());
    }
    Ok(one)
}

#[test]
fn lavapipe_scenes() {
    let start = std::time::Instant::now();
    let names = scene_names();
    assert_eq!(names.len(), 49, "tests/lavapipe/README.md lists 49 scenes");
    for (k, _) in KNOWN {
        assert!(
            names.iter().any(|n| n == k),
            "KNOWN lists unknown scene {k}"
        );
    }
    let mut problems = Vec::new();
    println!(
        "{:<32} {:>10} {:>6} {:>6}  verdict",
        "scene", "max diff", "over", "allow"
    );
    for name in &names {
        let known = KNOWN.iter().find(|(k, _)| k == name).map(|(_, why)| *why);
        let tol = tolerance(name);
        let scene = Scene::load(name).unwrap_or_else(|e| panic!("{e}"));
        let lvp = expected(name, scene.width, scene.height);
        let (line, ok) = match render_checked(&scene) {
            Err(e) => (
                format!("{name:<32} {:>10} {:>6} {:>6}  ERROR {e}", "-", "-", "-"),
                false,
            ),
            Ok(got) => {
                if std::env::var_os("QUADSTEP_LVP_DUMP").is_some() {
                    dump_raw(name, &got);
                }
                let (want, slack) = reference(name, &lvp);
                let o = compare(&want, &got, &tol, &slack);
                let ok = o.over <= tol.max_over;
                if !ok {
                    write_triplet(name, &want, &got, &o.over_mask);
                }
                let mut line = format!(
                    "{name:<32} {:>10.3e} {:>6} {:>6}  {}",
                    o.max_diff,
                    o.over,
                    tol.max_over,
                    if ok { "pass" } else { "FAIL" }
                );
                if o.skipped > 0 {
                    line += &format!(
                        "  ({} of {} channel values not compared)",
                        o.skipped,
                        o.skipped + o.compared
                    );
                }
                if let Some((x, y, w, g)) = o.first_over {
                    line += &format!("  first over at ({x},{y}): lavapipe {w:?} quadstep {g:?}");
                }
                (line, ok)
            }
        };
        println!("{line}");
        match (ok, known) {
            (true, None) | (false, Some(_)) => {
                if let Some(why) = known {
                    println!("    known disagreement: {why}");
                }
            }
            (false, None) => problems.push(format!("{name}: fails and is not in KNOWN")),
            (true, Some(_)) => problems.push(format!("{name}: passes; remove it from KNOWN")),
        }
    }
    println!("{} scenes in {:.1?}", names.len(), start.elapsed());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `quad_swap_full` without lavapipe: every pixel (x, y) of the fullscreen triangle reads its
/// quad neighbours' `gl_FragCoord` (pixel centres): R = horizontal swap's x = `(x ^ 1) + 0.5`,
/// G = vertical swap's y = `(y ^ 1) + 0.5`, B, A = diagonal swap's (x, y); all / 64. Exact.
#[test]
fn quad_swap_full_by_hand() {
    let scene = Scene::load("quad_swap_full").expect("scene loads");
    let got = render_checked(&scene).expect("renders");
    for y in 0..scene.height {
        for x in 0..scene.width {
            let sx = ((x ^ 1) as f32 + 0.5) / 64.0;
            let sy = ((y ^ 1) as f32 + 0.5) / 64.0;
            assert_eq!(got.at(x, y), [sx, sy, sx, sy], "pixel ({x}, {y})");
        }
    }
}

/// `quad_swap_triangle` without lavapipe: on the derivative triangle, every written pixel
/// holds its neighbours' pixel centres (helper lanes included), as in `quad_swap_full`; and
/// the written pixels are exactly the triangle's by the Vulkan coverage rule, evaluated here
/// with exact integer edge functions on the 1/256 grid (every vertex of this scene lies on
/// it): pixel centre (x + 0.5, y + 0.5) is covered when all three edge functions
/// are > 0, or = 0 on a top or left edge (framebuffer y down).
#[test]
fn quad_swap_triangle_by_hand() {
    let scene = Scene::load("quad_swap_triangle").expect("scene loads");
    let got = render_checked(&scene).expect("renders");
    let verts: Vec<[i64; 2]> = scene.json["vertices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let v: Vec<f64> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            let s = to_screen(&v, scene.width, scene.height);
            let fx = s[0] * 256.0;
            let fy = s[1] * 256.0;
            assert_eq!(fx.fract(), 0.0, "vertex x on the 1/256 grid");
            assert_eq!(fy.fract(), 0.0, "vertex y on the 1/256 grid");
            [fx as i64, fy as i64]
        })
        .collect();
    assert_eq!(verts.len(), 3);
    // Orient clockwise in y-down framebuffer space (positive area below).
    let area = |a: [i64; 2], b: [i64; 2], c: [i64; 2]| {
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    };
    let mut v = [verts[0], verts[1], verts[2]];
    if area(v[0], v[1], v[2]) < 0 {
        v.swap(1, 2);
    }
    let mut written = 0;
    for y in 0..scene.height {
        for x in 0..scene.width {
            let p = [256 * x as i64 + 128, 256 * y as i64 + 128];
            let inside = (0..3).all(|i| {
                let (a, b) = (v[i], v[(i + 1) % 3]);
                let e = area(a, b, p);
                // Positive area in y-down space = clockwise on screen, interior on the e > 0
                // side. Top edge: horizontal, going right; left edge: going up.
                let d = [b[0] - a[0], b[1] - a[1]];
                let top = d[1] == 0 && d[0] > 0;
                let left = d[1] < 0;
                e > 0 || (e == 0 && (top || left))
            });
            let px = got.at(x, y);
            if inside {
                written += 1;
                let sx = ((x ^ 1) as f32 + 0.5) / 64.0;
                let sy = ((y ^ 1) as f32 + 0.5) / 64.0;
                assert_eq!(px, [sx, sy, sx, sy], "covered pixel ({x}, {y})");
            } else {
                assert_eq!(px, [0.0; 4], "uncovered pixel ({x}, {y})");
            }
        }
    }
    assert!(written > 100, "the triangle covers many pixels ({written})");
}

/// `perspective` G, B without lavapipe: float64 perspective-correct interpolation on the
/// snapped triangles ([`perspective_uv_snapped`]), on every pixel whose centre is inside a
/// triangle (edges inclusive: the two triangles of the floor share one planar mapping, so a
/// centre on the shared diagonal has the same value in both). quadstep interpolates in f32:
/// 1e-6 on values up to 0.3 (measured 9e-9).
#[test]
fn perspective_interpolation_float64() {
    let scene = Scene::load("perspective").expect("scene loads");
    let got = render_checked(&scene).expect("renders");
    let uv = perspective_uv_snapped(&scene);
    let mut n = 0;
    for (i, t) in uv.iter().enumerate() {
        let Some([u, v]) = t else { continue };
        let p = got.px[i];
        let (du, dv) = ((p[1] as f64 - u / 8.0).abs(), (p[2] as f64 - v / 8.0).abs());
        assert!(
            du <= 1e-6 && dv <= 1e-6,
            "pixel {i}: G, B = {}, {}; float64 {}, {}",
            p[1],
            p[2],
            u / 8.0,
            v / 8.0
        );
        n += 1;
    }
    assert!(n > 1000, "the floor covers many pixels ({n})");
}

/// The push constant reaches the shader: `address.frag` adds `shift / 4` to uv, whose step is
/// 3.5/64 per pixel, so `shift = (3.5, 0)` moves uv by 0.875 = exactly 16 pixels. quadstep's
/// shifted `addr_mirrored_repeat` (float sampling path) at x must equal lavapipe's unshifted
/// image at x + 16 (float class; the coordinate's f32 rounding differs slightly).
#[test]
fn push_constant_shift_moves_the_image() {
    let mut scene = Scene::load("addr_mirrored_repeat").expect("scene loads");
    scene.json["push_constants"] = serde_json::json!([3.5, 0.0]);
    let got = render_checked(&scene).expect("renders");
    let lvp = expected("addr_mirrored_repeat", scene.width, scene.height);
    let mut moved = 0;
    for y in 0..scene.height {
        for x in 0..scene.width - 16 {
            let (g, w) = (got.at(x, y), lvp.at(x + 16, y));
            assert!(
                relative_eq!(g[..], w[..], epsilon = FLOAT, max_relative = FLOAT),
                "pixel ({x}, {y}): shifted {g:?}, lavapipe at x+16 {w:?}"
            );
            moved += (got.at(x, y) != lvp.at(x, y)) as usize;
        }
    }
    assert!(moved > 1000, "the shift changes the image ({moved} pixels)");
}

/// A naive float64 model of Vulkan trilinear sampling of a 2D RGBA8 REPEAT mip chain, for
/// checks that do not involve lavapipe. Texels are the scene data converted as lvp uploads
/// unorm8 (`round(clamp(v) * 255) / 255`).
struct MipChain {
    size: usize,
    levels: Vec<Vec<[f64; 4]>>,
    sampler: serde_json::Value,
}

impl MipChain {
    fn load(scene: &Scene) -> MipChain {
        let t = scene.json["textures"][0].clone();
        assert_eq!(t["format"], "R8G8B8A8_UNORM");
        let size = t["width"].as_u64().unwrap() as usize;
        assert_eq!(t["height"].as_u64().unwrap() as usize, size);
        let n = t["mip_levels"].as_u64().unwrap() as usize;
        let data = lavapipe_support::read_f32s(&scene.dir.join(t["data"].as_str().unwrap()));
        let mut levels = Vec::new();
        let mut at = 0;
        for l in 0..n {
            let s = (size >> l).max(1);
            let lv: Vec<[f64; 4]> = (0..s * s)
                .map(|i| {
                    std::array::from_fn(|c| {
                        (data[4 * (at + i) + c].clamp(0.0, 1.0) as f64 * 255.0).round() / 255.0
                    })
                })
                .collect();
            at += s * s;
            levels.push(lv);
        }
        MipChain {
            size,
            levels,
            sampler: t,
        }
    }

    fn bilinear(&self, l: usize, u: f64, v: f64) -> [f64; 4] {
        let n = (self.size >> l).max(1) as i64;
        let (x, y) = (u * n as f64 - 0.5, v * n as f64 - 0.5);
        let (x0, y0) = (x.floor(), y.floor());
        let (a, b) = (x - x0, y - y0);
        let t = |i: i64, j: i64| self.levels[l][(j.rem_euclid(n) * n + i.rem_euclid(n)) as usize];
        let (x0, y0) = (x0 as i64, y0 as i64);
        let (t00, t10, t01, t11) = (t(x0, y0), t(x0 + 1, y0), t(x0, y0 + 1), t(x0 + 1, y0 + 1));
        std::array::from_fn(|c| {
            (1.0 - a) * (1.0 - b) * t00[c]
                + a * (1.0 - b) * t10[c]
                + (1.0 - a) * b * t01[c]
                + a * b * t11[c]
        })
    }

    /// `texture(s, uv, shader_bias)` at pixel (x, y) of a quad whose lane-0 coordinate
    /// derivatives are `d = (du/dx, dv/dx, du/dy, dv/dy)` (coarse, implicit LOD).
    fn sample(&self, uv: [f64; 2], d: [f64; 4], shader_bias: f64) -> [f64; 4] {
        let n = self.size as f64;
        let rho = (d[0] * n).hypot(d[1] * n).max((d[2] * n).hypot(d[3] * n));
        let f = |k: &str, def: f64| self.sampler.get(k).and_then(|x| x.as_f64()).unwrap_or(def);
        let bias = (f("mip_lod_bias", 0.0) + shader_bias).clamp(-16.0, 16.0);
        let lambda = (rho.log2() + bias)
            .max(f("min_lod", 0.0))
            .min(f("max_lod", 1000.0));
        let q = (self.levels.len() - 1) as f64;
        let dl = lambda.clamp(0.0, q);
        let lo = dl.floor() as usize;
        let w = dl - lo as f64;
        let a = self.bilinear(lo, uv[0], uv[1]);
        if w == 0.0 {
            return a;
        }
        let b = self.bilinear(lo + 1, uv[0], uv[1]);
        std::array::from_fn(|c| (1.0 - w) * a[c] + w * b[c])
    }
}

/// The trilinear scene family (`trilinear`, `lod_*`, `bias`) without lavapipe: quadstep against
/// the float64 Vulkan formulas of [`MipChain`] with exact log2 (quadstep's LOD model, so no
/// LOD slack). The shaders' coordinates are evaluated in f32 by quadstep and in f64 here;
/// at the bottom of `trilinear` uv reaches 16 (1000 texels), where one f32 ulp of the
/// coordinate is 1e-4 texel: hence 1e-4 rather than 1e-5 (measured at most 1.7e-5).
#[test]
fn trilinear_family_float64() {
    let trilinear_uv = |x: f64, y: f64| {
        let p = [x / 64.0, y / 64.0];
        let tiles = (p[1] * 6.0 - 1.0).exp2();
        let (a, b) = (p[0] - 0.5, p[1] - 0.5);
        [(0.8 * a - 0.6 * b) * tiles, (0.6 * a + 0.8 * b) * tiles]
    };
    let bias_uv = |x: f64, y: f64| {
        let scale = ((x / 8.0).floor() / 4.0).exp2();
        [x / 64.0 * scale + 0.1, y / 64.0 * scale + 0.3]
    };
    const BIAS: [f64; 8] = [-4.0, -1.0, 0.0, 0.5, 1.25, 2.5, 4.0, 12.0];
    type UvFn<'a> = &'a dyn Fn(f64, f64) -> [f64; 2];
    let scenes: [(&str, UvFn, bool); 7] = [
        ("trilinear", &trilinear_uv, false),
        ("lod_min", &trilinear_uv, false),
        ("lod_max", &trilinear_uv, false),
        ("lod_min_max", &trilinear_uv, false),
        ("lod_sampler_bias", &trilinear_uv, false),
        ("lod_bias_and_clamp", &trilinear_uv, false),
        ("bias", &bias_uv, true),
    ];
    for (name, uvf, shader_bias) in scenes {
        let scene = Scene::load(name).expect("scene loads");
        let got = render_checked(&scene).expect("renders");
        let tex = MipChain::load(&scene);
        let mut worst = 0.0f64;
        for y in 0..scene.height {
            for x in 0..scene.width {
                let (qx, qy) = ((x & !1) as f64 + 0.5, (y & !1) as f64 + 0.5);
                let (p0, px, py) = (uvf(qx, qy), uvf(qx + 1.0, qy), uvf(qx, qy + 1.0));
                let d = [px[0] - p0[0], px[1] - p0[1], py[0] - p0[0], py[1] - p0[1]];
                let b = if shader_bias {
                    BIAS[y as usize / 8]
                } else {
                    0.0
                };
                let want = tex.sample(uvf(x as f64 + 0.5, y as f64 + 0.5), d, b);
                let g = got.at(x, y);
                for c in 0..4 {
                    worst = worst.max((g[c] as f64 - want[c]).abs());
                }
            }
        }
        println!("{name}: max |quadstep - float64| = {worst:.3e}");
        assert!(worst <= 1e-4, "{name}: {worst}");
    }
}
