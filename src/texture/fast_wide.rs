//! The batch path: [`Kernel::sample_batch`] samples a batch of quads given in the
//! interpreter's structure-of-arrays form (one `&[u32]` row of f32 bits per operand
//! component, lanes `4q..4q + 4` are quad `q`; a lane mask per quad) and writes one RGBA
//! result per active lane: coordinates, implicit (coarse, optional bias row), explicit or
//! zero LOD, a Dref row, `u`/`v` offset rows. Instructions with projection, `MinLod`, `Grad`
//! or 3D offsets keep the per-quad [`Kernel::sample`] (the caller decides per instruction:
//! `BatchArgs` has no such operands).
//!
//! Shape: the checks [`Kernel::sample`] makes per quad (image shape, operand rules) are made
//! once per batch; then [`WIDE_QUADS`] quads at a time go to the kernel's wide routine, if it
//! has one (2D / 2D-array views, exact precision, normalized, no anisotropy, one address
//! mode out of repeat, mirrored repeat, clamp-to-edge), and the quads it leaves (lanes
//! disagreeing on the texel filter) to [`Kernel::sample`].
//! - Plane kernels (`fast_plane.rs`; every float-kind format, Dref too): `wide_plane`, per
//!   quad λ, level selection and the plane routine. The usual instruction — a 2D view,
//!   implicit LOD without bias, no offsets — has its own loop (`wide_plane_implicit`): every
//!   quad is uniform, the lane-0 differences are compared as two vectors with the previous
//!   quad's, and while they repeat bit for bit (~90 % of the fullscreen frame's quads) λ, the
//!   level selection and the looked-up levels are reused; the loop is compiled for AVX2 too
//!   (run-time detection), and there a two-level selection on power-of-two repeat levels
//!   takes `fast_plane.rs`'s two-slot routine (`trilinear_repeat_p2_avx2`), whole quads whose
//!   differences repeat in a run loop of their own (`trilinear_run_avx2`: none of this loop's
//!   per-quad bookkeeping or register pressure). A one-level selection's run (nearest,
//!   bilinear, bilinear Dref; power-of-two levels or clamp-to-edge) goes two quads per step
//!   there (`fast_plane.rs`'s `one_level_pairs_avx2`: 8-lane footprints), and a whole quad
//!   that opens such a selection opens its run; the batch's first whole quad is selected
//!   before the loop, and a batch its run finishes skips the loop. New differences recompute
//!   λ, and the selection only when λ changes. `wide_plane` dispatches the usual instruction
//!   before its general setup.
//! - The usual instruction on a plane kernel's 2D view does not go through `wide_plane` at
//!   all: [`Kernel::sample_batch`] checks its form (implicit LOD without bias, no offsets, the
//!   Dref row exactly when the sampler compares, rows covering the batch, at most
//!   [`WIDE_QUADS`] quads, the kernel's image shape) and calls the kernel's `usual` routine,
//!   chosen once at construction (address mode, Dref, AVX2 by `cpu::avx2()` or plain); any
//!   other form, or any error, takes the general entry, which makes the checks and errors as
//!   before.
//! - The first selection of a call (λ_base from the first quad's lane-0 differences, then
//!   `lane_lod`) comes from a per-thread memo keyed by the kernel's id and those
//!   differences' bits: both are functions of the kernel (fixed at construction) and of the
//!   bits alone — not of texels, threads or history — and ids are never reused (a clone
//!   draws a new one), so a hit gives the bits computing would. The entry also holds a
//!   one-level selection's slot, with which the AVX2 form starts the pairs straight away. A
//!   miss with the entry's λ_base reuses its `lane_lod`. Quads later in the call keep the
//!   loop's own reuse (the memo is not consulted there: the trilinear frame's differences
//!   seldom repeat, and a lookup and store per new difference would cost more than they
//!   save).
//! - Byte kernels (images over the plane bound): `wide`, the same per-quad selection with
//!   `fast.rs`'s [`quad_in`]; no Dref or offsets (those quads go per quad).
//!
//! Results are those of [`Kernel::sample`] on each quad by construction (same λ, same
//! levels, same quad routines), and `tests::wide_path_equals_the_per_quad_path` holds them to
//! it on random images (19 formats), samplers, policies, batches, Dref and offset rows.
//!
//! Why (callgrind instructions per quad, `benches/sampler.rs` `*_wide` cases; fullscreen
//! trilinear frame (a), draw only): per-quad calls with a `SampleArgs` each cost trilinear
//! 1381; the batch form with λ and level reuse on the byte routes 894 (frame 404.3 M); the
//! plane routes and the lean implicit loop 424 / 251 / 169 for trilinear / bilinear /
//! nearest and 280 for Dref PCF (frame 290.8 M, of which the routine ~103 M, ~394 per quad);
//! the AVX2 two-lane lerps and two-slot trilinear pass (`fast_plane.rs`) 370 / 235 / 167
//! (frame 206.96 M, the routine 86.5 M, ~330 per quad); the run loop and the per-lane
//! two-slot lerps in it: trilinear 298 / bilinear 242 / nearest 173 / Dref 280, the routine
//! ~262 per quad (frame 187.34 M → 168.62 M). What is left per 16-quad call (~1,400
//! instructions, ~17 % of the frame's time: λ, selection, `Tri2`, the first quad, the
//! wrappers) needs the reuse carried across calls, i.e. a kernel identity or state the
//! interpreter keeps. Tried: sending a new selection's first quad to the run too (+0.06 M;
//! the two-slot run: it pays for the one-level pairs below). Two quads per step in one-level
//! runs, the selection and λ out of line (inlined, their invariants were hoisted to the
//! loop's entry: ~600 instructions a call outside the runs), the selection kept while λ
//! repeats, the lean dispatch and the first quad's selection before the loop: nearest 145 →
//! 102, bilinear 211 → 159, Dref 241 → 138, trilinear 301 → 289; scenes (per sample,
//! `benches/sampling_scenes.rs`) nearest 120.0 → 109.5, bilinear 136.8 → 124.2, Dref 144.7 →
//! 118.6, trilinear 215.7 → 205.1 (its differences seldom repeat: the kept selection); frame
//! 170.15 M → 168.12 M. Of nearest's 102 the pairs' loop is ~55; the rest is per 16-quad
//! call: λ and selection ~260, the wrappers and checks ~390, the bench's own loop ~100.
//! The lean entry (the `wide` pointer, `wide_plane` and the dispatcher out of the way):
//! nearest 101.8 → 92.5, bilinear 158.5 → 149.9, trilinear 289.3 → 280.9, Dref 137.7 →
//! 128.1; the per-thread memo of the first selection: 87.4 / 144.9 / 281.5 / 124.9 (a hit
//! costs ~60 instructions there, out of line: the rebuilt levels and `pairs_serve` still
//! ran); the memo's one-level slot straight to the pairs: 81.0 / 133.5 / 282.0 / 118.5.
//! Scenes per sample: nearest 91.7 → 86.6, bilinear 106.4 → 100.1, Dref 100.8 → 95.7,
//! trilinear 187.2 → 183.6; frame 168.59 M → 164.09 M.
//! Running the texel phases lane-wide over the whole chunk (per-lane level setup, chunk
//! arrays) measured worse than per-quad routines on the byte routes (trilinear 1670) and was
//! not revived.

use super::address::{CLAMP, MIRRORED, REPEAT};
use super::fast::{fast_format, quad_in, slot_levels, QuadIn, BGRA8, R32F, RGBA8, SBGRA8, SRGBA8};
use super::fast_plane::{lane_levels, plane_mode, plane_route, uni_levels, Lv, PlaneLevels};
#[cfg(target_arch = "x86_64")]
use super::fast_plane::{
    one_level_pairs_avx2, pairs_serve, trilinear_repeat_p2_avx2, trilinear_run_avx2, Tri2,
};

use super::image::{Image, Plane, ViewType};
use super::lod::LodMode;
use super::old_sample::{layer_index, Kernel, LaneLod, SampleArgs};
use super::sampler::{LodPrecision, Policy};
use crate::{Error, Result};
use std::cell::Cell;
use wide::{f32x4, i32x4, u32x4};

pub use super::batch::{BatchArgs, BatchLod, WIDE_QUADS};

/// A wide routine: samples quads `q0..q0 + nq` (`nq ≤ WIDE_QUADS`) of the batch into `out`
/// (active lanes only) and returns the quads (bit `q` for quad `q0 + q`) it left to the
/// per-quad path.
pub(super) type WideFn = fn(&Kernel, &Image, &BatchArgs, usize, usize, &mut [[u32; 4]]) -> u64;

/// [`WideFn`] with a `Debug` form (the kernel derives `Debug`).
#[derive(Clone, Copy)]
pub(super) struct WideFnDbg(pub WideFn);
impl std::fmt::Debug for WideFnDbg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WideFn")
    }
}

/// The lean batch entry of the usual instruction: [`wide_plane_implicit_in`] for address mode
/// `M` and Dref or not, plain or AVX2 (`rows`: `s`, `t`, Dref; every row, `masks` and `out`
/// of the batch's length). Returns the quads left to the per-quad path.
///
/// # Safety
/// The AVX2 forms need a CPU with AVX2: [`pick_usual`] chooses them only when
/// [`crate::cpu::avx2`] says so; calling the kernel's pointer is then sound.
pub(super) type UsualFn = unsafe fn(&Kernel, &Plane, [&[u32]; 3], &[u8], &mut [[u32; 4]]) -> u64;

/// [`UsualFn`] with a `Debug` form (the kernel derives `Debug`).
#[derive(Clone, Copy)]
pub(super) struct UsualFnDbg(pub UsualFn);
impl std::fmt::Debug for UsualFnDbg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UsualFn")
    }
}

/// The address mode of a kernel whose wide routine is [`wide_plane`] (`None`: another or
/// none).
fn plane_wide_mode(k: &Kernel) -> Option<u8> {
    let s = &k.sampler;
    let m = k.modes[0];
    let plane = !k.cube
        && k.aniso.is_none()
        && k.cfg.precision == LodPrecision::Exact
        && !s.unnormalized_coordinates
        && matches!(k.view.view_type, ViewType::D2 | ViewType::D2Array)
        && k.modes[1] == m
        && k.plane
        && plane_mode(m);
    plane.then_some(m)
}

/// The lean entry ([`UsualFn`]) for a plane kernel on a 2D view, chosen once: its mode, Dref
/// or not, and the AVX2 form when [`crate::cpu::avx2`] allows it.
pub(super) fn pick_usual(k: &Kernel) -> Option<UsualFnDbg> {
    let m = plane_wide_mode(k)?;
    if k.view.view_type != ViewType::D2 {
        return None;
    }
    macro_rules! by_mode {
        ($f:ident, $cmp:literal) => {
            match m {
                REPEAT => $f::<REPEAT, $cmp> as UsualFn,
                MIRRORED => $f::<MIRRORED, $cmp> as UsualFn,
                _ => $f::<CLAMP, $cmp> as UsualFn,
            }
        };
    }
    let cmp = k.sampler.compare_enable;
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        return Some(UsualFnDbg(if cmp {
            by_mode!(wide_plane_implicit_avx2, true)
        } else {
            by_mode!(wide_plane_implicit_avx2, false)
        }));
    }
    Some(UsualFnDbg(if cmp {
        by_mode!(wide_plane_implicit_plain, true)
    } else {
        by_mode!(wide_plane_implicit_plain, false)
    }))
}

/// The wide routine for a kernel, if its (view, sampler, format, config) is covered.
pub(super) fn pick_wide(k: &Kernel) -> Option<WideFnDbg> {
    if k.cube {
        return super::fast_cube::pick_wide_cube(k); // `fast_cube.rs`
    }
    let s = &k.sampler;
    if k.aniso.is_some()
        || k.cube
        || k.cfg.precision != LodPrecision::Exact
        || s.unnormalized_coordinates
        || (s.compare_enable && !k.plane)
        || !matches!(k.view.view_type, ViewType::D2 | ViewType::D2Array)
    {
        return None;
    }
    let m = k.modes[0];
    if k.modes[1] != m {
        return None;
    }
    macro_rules! by_mode {
        ($f:ident) => {
            match m {
                REPEAT => wide::<$f, REPEAT> as WideFn,
                MIRRORED => wide::<$f, MIRRORED> as WideFn,
                CLAMP => wide::<$f, CLAMP> as WideFn,
                _ => return None,
            }
        };
    }
    if plane_wide_mode(k).is_some() {
        return Some(WideFnDbg(match m {
            REPEAT => wide_plane::<REPEAT> as WideFn,
            MIRRORED => wide_plane::<MIRRORED> as WideFn,
            _ => wide_plane::<CLAMP> as WideFn,
        }));
    }
    let f = match fast_format(k)? {
        RGBA8 => by_mode!(RGBA8),
        BGRA8 => by_mode!(BGRA8),
        SRGBA8 => by_mode!(SRGBA8),
        SBGRA8 => by_mode!(SBGRA8),
        R32F => by_mode!(R32F),
        _ => return None,
    };
    Some(WideFnDbg(f))
}

impl Kernel {
    /// Whether [`Kernel::sample_batch`] has a wide routine for this kernel (otherwise it
    /// samples quad by quad).
    pub fn has_wide_path(&self) -> bool {
        self.wide.is_some()
    }

    /// Samples a batch of quads: the results of [`Kernel::sample`] on each quad with a
    /// non-empty mask (its [`BatchArgs::quad_args`]), written to the active lanes of `out`
    /// (lane `4q + i`); other lanes of `out` are left as they are. Errors: rows or `out`
    /// shorter than the batch, an image of another shape, a comparison sampler (there is no
    /// Dref operand) — the errors of [`Kernel::sample`], checked once per batch.
    pub fn sample_batch(&self, img: &Image, b: &BatchArgs<'_>, out: &mut [[u32; 4]]) -> Result<()> {
        if super::old_sample::NEW_ROUTES.load(std::sync::atomic::Ordering::Relaxed) && !self.legacy {
            return self.sample_batch_general(img, b, out);
        }
        if let Some(u) = self.usual {
            if let Some(rest) = self.usual_batch(u.0, img, b, out) {
                return match rest {
                    0 => Ok(()),
                    _ => self.rest_per_quad(img, b, 0, rest, out),
                };
            }
        }
        self.sample_batch_general(img, b, out)
    }

    /// [`Kernel::sample_batch`]'s lean entry: the usual instruction (implicit LOD without a
    /// bias row, no offsets, the Dref row when the sampler compares and only then, `s` and `t`
    /// rows, at most [`WIDE_QUADS`] quads) on an image of the kernel's shape with a plane goes
    /// straight to the kernel's [`UsualFn`]; `Some`: the quads it left (bit `q`: quad `q`),
    /// `None`: anything else (or any error) — [`Kernel::sample_batch_general`] takes it.
    #[inline(always)]
    fn usual_batch(
        &self,
        u: UsualFn,
        img: &Image,
        b: &BatchArgs<'_>,
        out: &mut [[u32; 4]],
    ) -> Option<u64> {
        let quads = b.masks.len();
        let lanes = 4 * quads;
        if quads > WIDE_QUADS
            || !matches!(b.lod, BatchLod::Implicit(&[]))
            || !b.offsets[0].is_empty()
            || !b.offsets[1].is_empty()
        {
            return None;
        }
        // the general path's row check: a row is empty or covers the batch
        let fits = |r: &[u32]| r.is_empty() || r.len() >= lanes;
        if !fits(b.coords[2]) || !fits(b.coords[3]) {
            return None;
        }
        let d = if self.sampler.compare_enable {
            b.dref.get(..lanes)?
        } else if b.dref.is_empty() {
            &[]
        } else {
            return None;
        };
        let (s, t) = (b.coords[0].get(..lanes)?, b.coords[1].get(..lanes)?);
        let o = out.get_mut(..lanes)?;
        if !self.same_shape(img) {
            return None;
        }
        let plane = img.plane()?;
        // SAFETY: `usual` is the kernel's `pick_usual` choice, whose AVX2 forms are chosen
        // only when `cpu::avx2()` holds (the CPU has AVX2)
        Some(unsafe { u(self, plane, [s, t, d], b.masks, o) })
    }

    /// The quads `rest` (bit `q`: quad `q0 + q`) of a batch chunk by [`Kernel::sample`].
    #[inline(never)]
    fn rest_per_quad(
        &self,
        img: &Image,
        b: &BatchArgs<'_>,
        q0: usize,
        rest: u64,
        out: &mut [[u32; 4]],
    ) -> Result<()> {
        let nq = (b.masks.len() - q0).min(WIDE_QUADS);
        for q in q0..q0 + nq {
            let mask = b.masks[q] & 0xf;
            if rest & (1 << (q - q0)) == 0 || mask == 0 {
                continue;
            }
            let r = self.sample(img, &b.quad_args(q))?;
            super::merge_lanes(&mut out[4 * q..4 * q + 4], &r, mask);
        }
        Ok(())
    }

    /// [`Kernel::sample_batch`] for every batch: the checks once, then the wide routine chunk
    /// by chunk and [`Kernel::sample`] for the quads it leaves.
    #[inline(never)]
    fn sample_batch_general(
        &self,
        img: &Image,
        b: &BatchArgs<'_>,
        out: &mut [[u32; 4]],
    ) -> Result<()> {
        let quads = b.masks.len();
        let lanes = 4 * quads;
        let lod_row = match b.lod {
            BatchLod::Implicit(r) | BatchLod::Explicit(r) => r,
            BatchLod::Zero => &[],
        };
        let c = &b.coords;
        let lens = [c[0], c[1], c[2], c[3], lod_row, b.dref].map(<[u32]>::len);
        if lens.iter().any(|&l| l != 0 && l < lanes) || out.len() < lanes {
            return Err(Error::Texture(format!(
                "sample_batch: {quads} quads need operand rows and results of {lanes} lanes \
                 (rows {:?}, LOD row {}, Dref row {}, results {})",
                b.coords.map(<[u32]>::len),
                lod_row.len(),
                b.dref.len(),
                out.len()
            )));
        }
        if b.masks.iter().all(|&m| m & 0xf == 0) {
            return Ok(());
        }
        self.check(img)?;
        // the operand checks of `Kernel::sample`
        if !b.dref.is_empty() && !self.sampler.compare_enable {
            if self.cfg.policy == Policy::D3D {
                return Err(Error::Texture(
                    "a Dref operand (SampleCmp*) through a sampler with compareEnable off \
                     (D3D: needs a SamplerComparisonState)"
                        .into(),
                ));
            }
            // Vulkan: no comparison (see `Kernel::sample`)
            return self.sample_batch(img, &BatchArgs { dref: &[], ..*b }, out);
        }
        if b.dref.is_empty() && self.sampler.compare_enable {
            return Err(Error::Texture(
                "a sample without a Dref operand through a sampler with compareEnable".into(),
            ));
        }
        if super::old_sample::NEW_ROUTES.load(std::sync::atomic::Ordering::Relaxed) && !self.legacy {
            (self.batch_route)(&self.bind, img, b, out);
            return Ok(());
        }
        // (a `step_by` range cost ~25 instructions a call more)
        let mut next = 0;
        while next < quads {
            let (q0, nq) = (next, (quads - next).min(WIDE_QUADS));
            next += nq;
            let rest = match self.wide {
                Some(w) => (w.0)(self, img, b, q0, nq, out),
                None => u64::MAX,
            };
            if rest != 0 {
                self.rest_per_quad(img, b, q0, rest, out)?;
            }
        }
        Ok(())
    }
}

/// Per-lane values of a chunk: `[quad][lane]`.
type Lanes<T> = [[T; 4]; WIDE_QUADS];

/// Quads `q0..q0 + nq` of row `r` as f32 (zeros for an empty row).
#[inline(always)]
fn load(r: &[u32], q0: usize, nq: usize) -> Lanes<f32> {
    let mut o = [[0f32; 4]; WIDE_QUADS];
    if let Some(rows) = r.get(4 * q0..4 * (q0 + nq)) {
        for (o, s) in o.iter_mut().zip(rows.as_chunks::<4>().0) {
            *o = s.map(f32::from_bits);
        }
    }
    o
}

/// The [`WideFn`] for format `F`, address mode `M`: λ_base of every quad, level selection per
/// quad, then `fast.rs`'s quad routine for the quad's texel filter and level uniformity.
fn wide<const F: u8, const M: u8>(
    k: &Kernel,
    img: &Image,
    b: &BatchArgs,
    q0: usize,
    nq: usize,
    out: &mut [[u32; 4]],
) -> u64 {
    if b.offsets.iter().any(|r| !r.is_empty()) {
        return u64::MAX; // offsets: the per-quad path
    }
    let s = load(b.coords[0], q0, nq);
    let t = load(b.coords[1], q0, nq);
    let layer = if k.view.view_type == ViewType::D2Array {
        load(b.coords[2], q0, nq)
    } else {
        [[0.0; 4]; WIDE_QUADS]
    };
    // λ_base per lane: implicit (coarse derivatives: every lane has lane 0's λ), explicit
    // or zero; and the shader bias
    let mut lam = [[0f32; 4]; WIDE_QUADS];
    let mut bias = [[0f32; 4]; WIDE_QUADS];
    match b.lod {
        BatchLod::Implicit(r) => {
            bias = load(r, q0, nq);
            // `Kernel::lod_from_derivs_2d` (isotropic) on lane-0 differences, as `lod_bases`
            // gives coarse implicit LOD
            // neighbouring quads often have the same differences, bit for bit: then the
            // same λ (no lengths, no `log2f` call)
            let mut prev: Option<([u32; 4], f32)> = None;
            for q in 0..nq {
                let (sq, tq) = (s[q], t[q]);
                let dx = [sq[1] - sq[0], tq[1] - tq[0], 0.0];
                let dy = if mutant() {
                    dx
                } else {
                    [sq[2] - sq[0], tq[2] - tq[0], 0.0]
                };
                let bits = [dx[0], dx[1], dy[0], dy[1]].map(f32::to_bits);
                let l = match prev {
                    Some((b, l)) if b == bits => l,
                    _ => k.lod_from_derivs_2d(dx, dy, false).lambda,
                };
                prev = Some((bits, l));
                lam[q] = [l; 4];
            }
        }
        BatchLod::Explicit(r) => lam = load(r, q0, nq),
        BatchLod::Zero => {}
    }
    // per quad: level selection (once when the active lanes share (λ_base, bias), as
    // `fast_quad` does), then the quad routine; `rest`: quads left to the per-quad path
    let mut rest = 0u64;
    // no per-lane operand: every lane of a quad has the same (λ_base, bias)
    let same_lanes = match b.lod {
        BatchLod::Implicit(r) => r.is_empty(),
        BatchLod::Explicit(_) => false,
        BatchLod::Zero => true,
    };
    let view = &k.view;
    let array = view.view_type == ViewType::D2Array;
    // the previous quad's (key, selection): neighbouring quads often have the same λ
    let mut prev_key = None;
    let mut prev_sel = None;
    // and its levels looked up for a uniform quad (the layer of a 2D view's every quad)
    let mut prev_uni = None;
    for q in 0..nq {
        let mask = b.masks[q0 + q] & 0xf;
        if mask == 0 {
            continue;
        }
        let first = mask.trailing_zeros() as usize;
        let key = |l: usize| (lam[q][l].to_bits(), bias[q][l].to_bits());
        let k0 = key(first);
        let uniform = same_lanes || (0..4).all(|l| mask & (1 << l) == 0 || key(l) == k0);
        let lod = |l: usize| k.lane_lod(lam[q][l], bias[q][l], f32::NEG_INFINITY);
        if prev_key != Some(k0) {
            prev_key = Some(k0);
            prev_sel = lod(first);
            prev_uni = None;
        }
        let Some(l0) = prev_sel else {
            rest |= 1 << q;
            continue;
        };
        let qin = QuadIn {
            s: s[q],
            t: t[q],
            layer: if array {
                std::array::from_fn(|l| {
                    view.base_layer + layer_index(layer[q][l], view.layer_count)
                })
            } else {
                [view.base_layer; 4]
            },
            one_layer: !array,
            off: None,
            dref: [0.0; 4],
        };
        let r = if uniform {
            let uni = &*prev_uni.get_or_insert_with(|| slot_levels(k, &l0, view.base_layer));
            if l0.linear {
                quad_in::<F, M, true, false, true>(k, img, &qin, &[], Some(uni))
            } else {
                quad_in::<F, M, false, false, true>(k, img, &qin, &[], Some(uni))
            }
        } else {
            let mut lods = [l0; 4];
            let mut ok = true;
            for (l, o) in lods.iter_mut().enumerate() {
                if l != first && mask & (1 << l) != 0 {
                    match lod(l) {
                        Some(x) if x.linear == l0.linear => *o = x,
                        _ => ok = false,
                    }
                }
            }
            match (ok, l0.linear) {
                (false, _) => None,
                (true, true) => quad_in::<F, M, true, false, false>(k, img, &qin, &lods, None),
                (true, false) => quad_in::<F, M, false, false, false>(k, img, &qin, &lods, None),
            }
        };
        let Some(r) = r else {
            rest |= 1 << q;
            continue;
        };
        // the results' bits straight into the active lanes
        let o = &mut out[4 * (q0 + q)..4 * (q0 + q) + 4];
        if mask == 0xf {
            for (o, r) in o.iter_mut().zip(&r) {
                for ch in 0..4 {
                    o[ch] = r[ch].to_bits();
                }
            }
        } else {
            for (lane, (o, r)) in o.iter_mut().zip(&r).enumerate() {
                if mask & (1 << lane) != 0 {
                    for ch in 0..4 {
                        o[ch] = r[ch].to_bits();
                    }
                }
            }
        }
    }
    rest
}

/// Lanes `4q..4q + 4` of `row` as f32 (zeros for an empty row).
#[inline(always)]
fn quad4(row: &[u32], q: usize) -> [f32; 4] {
    match row.get(4 * q..4 * q + 4) {
        Some(r) => [r[0], r[1], r[2], r[3]].map(f32::from_bits),
        None => [0.0; 4],
    }
}

/// The [`WideFn`] of plane kernels (`fast_plane.rs`), address mode `M`: per quad, λ_base
/// (coarse implicit: reused while lane-0 differences repeat), level selection (reused while
/// (λ_base, bias) repeat, with the looked-up [`PlaneLevels`] of a 2D view), the plane quad
/// routine, the result bits into `out`. The usual instruction (a 2D view, implicit LOD
/// without bias, no offsets, both coordinate rows) goes straight to
/// [`wide_plane_implicit`]; the rest to [`wide_plane_general`], whose setup and stack frame
/// this call then does not pay (batch bench: ~170 → ~50 instructions a call).
fn wide_plane<const M: u8>(
    k: &Kernel,
    img: &Image,
    b: &BatchArgs,
    q0: usize,
    nq: usize,
    out: &mut [[u32; 4]],
) -> u64 {
    let Some(plane) = img.plane() else {
        return u64::MAX; // cannot happen for the kernel's image: per quad
    };
    if let BatchLod::Implicit(&[]) = b.lod {
        if k.view.view_type == ViewType::D2 && b.offsets[0].is_empty() && b.offsets[1].is_empty() {
            let lanes = 4 * q0..4 * (q0 + nq);
            let (s, t) = (
                b.coords[0].get(lanes.clone()),
                b.coords[1].get(lanes.clone()),
            );
            let m = b.masks.get(q0..q0 + nq);
            if let (Some(s), Some(t), Some(m)) = (s, t, m) {
                if !k.sampler.compare_enable {
                    if let Some(o) = out.get_mut(lanes) {
                        return wide_plane_implicit::<M, false>(k, plane, [s, t, &[]], m, o);
                    }
                } else if let (Some(d), Some(o)) = (b.dref.get(lanes.clone()), out.get_mut(lanes)) {
                    return wide_plane_implicit::<M, true>(k, plane, [s, t, d], m, o);
                }
            }
        }
    }
    wide_plane_general::<M>(k, plane, b, q0, nq, out)
}

/// [`wide_plane`] for every batch form (the usual one included, when [`wide_plane`] did not
/// take it: its rows out of range).
#[inline(never)]
fn wide_plane_general<const M: u8>(
    k: &Kernel,
    plane: &Plane,
    b: &BatchArgs,
    q0: usize,
    nq: usize,
    out: &mut [[u32; 4]],
) -> u64 {
    let lanes = 4 * q0..4 * (q0 + nq);
    fn rows(r: &[u32], lanes: std::ops::Range<usize>) -> &[u32] {
        r.get(lanes).unwrap_or(&[])
    }
    let rows = |r| rows(r, lanes.clone());
    let view = &k.view;
    let array = view.view_type == ViewType::D2Array;
    let (s_row, t_row) = (rows(b.coords[0]), rows(b.coords[1]));
    let layer_row = if array { rows(b.coords[2]) } else { &[] };
    let (Some(masks), Some(out)) = (b.masks.get(q0..q0 + nq), out.get_mut(lanes.clone())) else {
        return u64::MAX;
    };
    // the LOD operand: implicit (with a bias row or none), explicit, zero
    let (implicit, lod_row) = match b.lod {
        BatchLod::Implicit(r) => (true, rows(r)),
        BatchLod::Explicit(r) => (false, rows(r)),
        BatchLod::Zero => (false, &[][..]),
    };
    // every lane of a quad has the same (λ_base, bias): no per-lane operand
    let same_lanes = implicit && lod_row.is_empty() || matches!(b.lod, BatchLod::Zero);
    let cmp = k.sampler.compare_enable;
    let cmp_op = cmp.then_some(k.sampler.compare_op);
    let dref_row = rows(b.dref);
    if cmp && dref_row.is_empty() {
        return u64::MAX; // `sample_batch` requires the operand: not reached from there
    }
    let off_rows = b.offsets.map(rows);
    let offsets = off_rows.iter().any(|r| !r.is_empty());
    if implicit
        && lod_row.is_empty()
        && !array
        && !offsets
        && s_row.len() == 4 * nq
        && t_row.len() == 4 * nq
    {
        return if cmp {
            wide_plane_implicit::<M, true>(k, plane, [s_row, t_row, dref_row], masks, out)
        } else {
            wide_plane_implicit::<M, false>(k, plane, [s_row, t_row, &[]], masks, out)
        };
    }
    let mut rest = 0u64;
    // the previous quad's lane-0 differences and λ (coarse implicit LOD)
    let mut prev_d: Option<([u32; 4], f32)> = None;
    // the previous quad's (key, selection) and its uniform levels (2D views)
    let mut prev_key = None;
    let mut prev_sel = None;
    let mut prev_lv: Option<PlaneLevels> = None;
    for (q, (&m, o)) in masks.iter().zip(out.chunks_exact_mut(4)).enumerate() {
        let mask = m & 0xf;
        if mask == 0 {
            continue;
        }
        let (s, t) = (quad4(s_row, q), quad4(t_row, q));
        let first = mask.trailing_zeros() as usize;
        // λ_base and the shader bias per lane
        let (lam, bias) = if implicit {
            // `Kernel::lod_from_derivs_2d` (isotropic) on lane-0 differences, as
            // `lod_bases` gives coarse implicit LOD; neighbouring quads often have the same
            // differences, bit for bit: then the same λ (no lengths, no `log2f` call)
            let dx = [s[1] - s[0], t[1] - t[0], 0.0];
            let dy = if mutant() {
                dx
            } else {
                [s[2] - s[0], t[2] - t[0], 0.0]
            };
            let bits = [dx[0], dx[1], dy[0], dy[1]].map(f32::to_bits);
            let l = match prev_d {
                Some((b, l)) if b == bits => l,
                _ => k.lod_from_derivs_2d(dx, dy, false).lambda,
            };
            prev_d = Some((bits, l));
            ([l; 4], quad4(lod_row, q))
        } else {
            (quad4(lod_row, q), [0.0; 4])
        };
        let key = |l: usize| (lam[l].to_bits(), bias[l].to_bits());
        let k0 = key(first);
        let uniform = same_lanes || (0..4).all(|l| mask & (1 << l) == 0 || key(l) == k0);
        let lod = |l: usize| k.lane_lod(lam[l], bias[l], f32::NEG_INFINITY);
        if prev_key != Some(k0) {
            prev_key = Some(k0);
            prev_sel = lod(first);
            prev_lv = None;
        }
        let Some(l0) = prev_sel else {
            rest |= 1 << q;
            continue;
        };
        let layer = if array {
            let c = quad4(layer_row, q);
            c.map(|c| view.base_layer + layer_index(c, view.layer_count))
        } else {
            [view.base_layer; 4]
        };
        // offsets as `quad` takes them: D3D's low bits, as f32, `None` when all are zero
        let off = if offsets {
            let o = off_rows.map(|r| match r.get(4 * q..4 * q + 4) {
                Some(s) => [s[0], s[1], s[2], s[3]].map(|x| x as i32),
                None => [0; 4],
            });
            let raw: [[i32; 3]; 4] = std::array::from_fn(|l| [o[0][l], o[1][l], 0]);
            raw.iter().any(|o| o[0] != 0 || o[1] != 0).then(|| {
                let o = raw.map(|o| k.offset_bits(o, 4));
                (o.map(|o| o[0] as f32), o.map(|o| o[1] as f32))
            })
        } else {
            None
        };
        let qin = QuadIn {
            s,
            t,
            layer,
            one_layer: !array,
            off,
            dref: if cmp {
                quad4(dref_row, q).map(|r| k.dref_value(r))
            } else {
                [0.0; 4]
            },
        };
        let arr_lv;
        let r = if uniform {
            let lv = if array {
                arr_lv = uni_levels(k, &l0, layer, false);
                arr_lv.as_ref()
            } else {
                if prev_lv.is_none() {
                    prev_lv = uni_levels(k, &l0, layer, true);
                }
                prev_lv.as_ref()
            };
            let Some(lv) = lv else {
                rest |= 1 << q;
                continue;
            };
            plane_route::<M, true, 0, false, false>(plane, &qin, lv, l0.linear, cmp_op, k.snorm)
        } else {
            let mut lods = [l0; 4];
            let mut ok = true;
            for (l, o) in lods.iter_mut().enumerate() {
                if l != first && mask & (1 << l) != 0 {
                    match lod(l) {
                        Some(x) if x.linear == l0.linear => *o = x,
                        _ => ok = false,
                    }
                }
            }
            let Some(&first_lv) = k.plane_levels.first() else {
                rest |= 1 << q;
                continue;
            };
            let mut scratch = [first_lv; 2];
            let lv = lane_levels(k, &lods, layer, &mut scratch);
            lv.filter(|_| ok).and_then(|lv| {
                plane_route::<M, false, 0, false, false>(
                    plane, &qin, &lv, l0.linear, cmp_op, k.snorm,
                )
            })
        };
        let Some(r) = r else {
            rest |= 1 << q;
            continue;
        };
        let r: [[u32; 4]; 4] = wide::bytemuck::cast(r);
        if mask == 0xf {
            o.copy_from_slice(&r);
        } else {
            super::merge_lanes(o, &r, mask);
        }
    }
    rest
}

/// [`wide_plane`] for the usual instruction: a 2D view, implicit LOD without a bias
/// operand (every lane of a quad has lane 0's λ, so every quad is uniform), both coordinate
/// rows present (`4 · masks.len()` lanes each). λ, the level selection and the looked-up
/// levels are reused while the lane-0 differences repeat, bit for bit.
fn wide_plane_implicit<const M: u8, const CMP: bool>(
    k: &Kernel,
    plane: &Plane,
    rows: [&[u32]; 3],
    masks: &[u8],
    out: &mut [[u32; 4]],
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
        return unsafe { wide_plane_implicit_avx2::<M, CMP>(k, plane, rows, masks, out) };
    }
    wide_plane_implicit_plain::<M, CMP>(k, plane, rows, masks, out)
}

/// [`wide_plane_implicit_in`], plain (baseline x86-64).
fn wide_plane_implicit_plain<const M: u8, const CMP: bool>(
    k: &Kernel,
    plane: &Plane,
    rows: [&[u32]; 3],
    masks: &[u8],
    out: &mut [[u32; 4]],
) -> u64 {
    wide_plane_implicit_in::<M, CMP, false>(k, plane, rows, masks, out)
}

/// [`wide_plane_implicit_in`] compiled for AVX2 (VEX encoding: three-operand SSE, no
/// register copies; no FMA, so every operation rounds as the general path's).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn wide_plane_implicit_avx2<const M: u8, const CMP: bool>(
    k: &Kernel,
    plane: &Plane,
    rows: [&[u32]; 3],
    masks: &[u8],
    out: &mut [[u32; 4]],
) -> u64 {
    // `AVX = true`: this function runs only where AVX2 was detected
    wide_plane_implicit_in::<M, CMP, true>(k, plane, rows, masks, out)
}

#[inline(always)]
fn wide_plane_implicit_in<const M: u8, const CMP: bool, const AVX: bool>(
    k: &Kernel,
    plane: &Plane,
    [s_row, t_row, dref_row]: [&[u32]; 3],
    masks: &[u8],
    out: &mut [[u32; 4]],
) -> u64 {
    let mut rest = 0u64;
    // the previous quad's lane-0 differences (as bits: lanes 1 and 2 of `c − c₀`), and
    // what they selected
    let mut prev: Option<(u32x4, u32x4)> = None;
    let mut sel: Option<(bool, PlaneLevels)> = None;
    // and, for the AVX2 two-slot route, the selection's constants
    let mut tri: Option<Tri2> = None;
    // the λ (bits) `sel` and `tri` were made for: new differences often give the same λ
    // (coordinates such as `p · 22.4` differ by an ulp from quad to quad), and then the same
    // selection
    let mut sel_lam: Option<u32> = None;
    let (s_q, t_q) = (s_row.as_chunks::<4>().0, t_row.as_chunks::<4>().0);
    let out = out.as_chunks_mut::<4>().0;
    let n = masks.len().min(s_q.len()).min(t_q.len()).min(out.len());
    // every slice `n` long: no bounds checks in the loop (bilinear and nearest batches
    // measured +8 to +10 instructions a quad with them)
    let (s_q, t_q, masks, out) = (&s_q[..n], &t_q[..n], &masks[..n], &mut out[..n]);
    let mut next = 0;
    // AVX2, the usual batch: the first whole quad's selection straight away and, for a
    // one-level selection, the pairs' run from that quad on; the loop below takes what is
    // left, from this state (a batch the run finishes skips the loop's machinery: ~200
    // instructions a call)
    #[cfg(target_arch = "x86_64")]
    if AVX {
        while next < n && masks[next] & 0xf == 0 {
            next += 1;
        }
        if next < n && masks[next] & 0xf == 0xf {
            let q = next;
            let s: f32x4 = wide::bytemuck::cast(s_q[q]);
            let t: f32x4 = wide::bytemuck::cast(t_q[q]);
            let p = (lane0_diffs(s), lane0_diffs(t));
            let key = memo_key(p);
            let hit = memo_get(k, key);
            // the memo's one-level selection for these differences: the pairs straight away
            // (the slot `uni_levels` gives; a run that stops leaves the loop below a fresh
            // state from quad `next`: it selects again, the same)
            if let Some((linear, abs, w, base)) = hit.and_then(|m| m.one) {
                if let Some(v) = k.plane_levels.get(abs as usize) {
                    let l = Lv {
                        weight: f32x4::splat(w),
                        used: 0xf,
                        base: i32x4::splat(base),
                        v,
                    };
                    if (linear || !CMP) && pairs_serve::<M>(plane, &l) {
                        let d = dref_row.get(4 * q..).unwrap_or(&[]);
                        let (s, t, m, o) = (&s_q[q..], &t_q[q..], &masks[q..], &mut out[q..]);
                        // SAFETY: `AVX` is set only by `wide_plane_implicit_avx2` (AVX2
                        // detected), and `pairs_serve` holds
                        next = q + unsafe {
                            if linear {
                                one_level_pairs_avx2::<M, true, CMP>(k, plane, &l, p, s, t, d, m, o)
                            } else {
                                one_level_pairs_avx2::<M, false, CMP>(
                                    k, plane, &l, p, s, t, d, m, o,
                                )
                            }
                        };
                        if next >= n {
                            return 0;
                        }
                    }
                }
            }
            // otherwise (the pairs did not start) this quad's selection, from the memo entry
            // when it matched
            if next == q {
                prev = Some(p);
                let (lam, lod) = match hit {
                    Some(m) => (m.lam, m.lod),
                    None => first_selection_miss(k, s, t, key),
                };
                sel_lam = Some(lam);
                sel = implicit_selection(k, lam, Some(lod));
                if !CMP && M == REPEAT {
                    if let Some((true, lv)) = &sel {
                        tri = Tri2::new(lv);
                    }
                }
                if let (Some((linear, lv)), None) = (&sel, &tri) {
                    let l = &lv.1[0];
                    if lv.0 == 1 && (*linear || !CMP) && pairs_serve::<M>(plane, l) {
                        let d = dref_row.get(4 * q..).unwrap_or(&[]);
                        let (s, t, m, o) = (&s_q[q..], &t_q[q..], &masks[q..], &mut out[q..]);
                        // SAFETY: `AVX` is set only by `wide_plane_implicit_avx2` (AVX2 detected),
                        // and `pairs_serve` holds
                        next = q + unsafe {
                            if *linear {
                                one_level_pairs_avx2::<M, true, CMP>(k, plane, l, p, s, t, d, m, o)
                            } else {
                                one_level_pairs_avx2::<M, false, CMP>(k, plane, l, p, s, t, d, m, o)
                            }
                        };
                        if next >= n {
                            return 0;
                        }
                    }
                }
            }
        }
    }
    while next < n {
        // a run of whole quads on the two-slot route: its own loop
        #[cfg(target_arch = "x86_64")]
        if let (Some(c), Some(p)) = (&tri, prev) {
            let (s, t, m) = (&s_q[next..], &t_q[next..], &masks[next..]);
            let o = out[next..].as_flattened_mut();
            // SAFETY: `tri` is set only when `AVX`, which only `wide_plane_implicit_avx2`
            // sets (AVX2 detected)
            next += unsafe { trilinear_run_avx2(plane, c, k.snorm, p, s, t, m, o) };
            if next >= n {
                break;
            }
        }
        // a run of whole quads on one level: the same plane routine as below, without the
        // per-quad selection bookkeeping
        if let (Some((linear, lv)), Some(p), None) = (&sel, prev, &tri) {
            if lv.0 == 1 {
                let (s, t, m) = (&s_q[next..], &t_q[next..], &masks[next..]);
                let d = dref_row.get(4 * next..).unwrap_or(&[]);
                let o = &mut out[next..];
                next += if *linear {
                    one_level_run::<M, true, CMP, AVX>(k, plane, lv, p, [s, t], d, m, o)
                } else {
                    one_level_run::<M, false, CMP, AVX>(k, plane, lv, p, [s, t], d, m, o)
                };
                if next >= n {
                    break;
                }
            }
        }
        let q = next;
        next += 1;
        let (s, t, o) = (&s_q[q], &t_q[q], &mut out[q]);
        let mask = masks[q] & 0xf;
        if mask == 0 {
            continue;
        }
        let s: f32x4 = wide::bytemuck::cast(*s);
        let t: f32x4 = wide::bytemuck::cast(*t);
        // `c − c₀` lane-wise: lanes 1 and 2 are the coarse x and y differences
        let (ds, dt) = (lane0_diffs(s), lane0_diffs(t));
        let same = match prev {
            Some((ps, pt)) => {
                let eq = ps.simd_eq(ds) & pt.simd_eq(dt);
                eq.to_bitmask() & 0b0110 == 0b0110
            }
            None => false,
        };
        if !same {
            // the call's first selection through the per-thread memo, the others not
            // (the trilinear frame's differences seldom repeat, its λ mostly does)
            let (lam, lod) = match prev {
                None => {
                    let (lam, lod) = first_selection(k, s, t, (ds, dt));
                    (lam, Some(lod))
                }
                Some(_) => (implicit_lambda(k, s, t).to_bits(), None),
            };
            prev = Some((ds, dt));
            if sel_lam != Some(lam) {
                sel_lam = Some(lam);
                sel = implicit_selection(k, lam, lod);
                // (`tri = match …` copied the whole `Option<Tri2>`, `None` too: a `memcpy`)
                tri = None;
                if AVX && !CMP && M == REPEAT {
                    if let Some((true, lv)) = &sel {
                        tri = Tri2::new(lv);
                    }
                }
            }
            // a whole quad opening a one-level selection opens its run too (the run loop at
            // the top takes it; back here, `same` holds and it goes by the plane routine)
            if mask == 0xf && tri.is_none() && matches!(&sel, Some((_, lv)) if lv.0 == 1) {
                next = q;
                continue;
            }
        }
        let Some((linear, lv)) = &sel else {
            rest |= 1 << q;
            continue;
        };
        let qin = QuadIn {
            s: s.to_array(),
            t: t.to_array(),
            layer: [k.view.base_layer; 4],
            one_layer: true,
            off: None,
            dref: if CMP {
                quad4(dref_row, q).map(|r| k.dref_value(r))
            } else {
                [0.0; 4]
            },
        };
        let op = k.sampler.compare_op;
        // the usual trilinear quad: both levels' footprints at once (AVX2, repeat mode,
        // power-of-two levels); `None` there: the slot-by-slot routine
        #[cfg(target_arch = "x86_64")]
        let fast = match &tri {
            // SAFETY: `tri` is set only when `AVX`, which only `wide_plane_implicit_avx2`
            // sets (AVX2 detected)
            Some(c) => unsafe { trilinear_repeat_p2_avx2(plane, &qin, c, k.snorm) },
            None => None,
        };
        #[cfg(not(target_arch = "x86_64"))]
        let fast = None;
        let r = if fast.is_some() {
            fast
        } else {
            let cmp = CMP.then_some(op);
            if lv.0 == 2 {
                plane_route::<M, true, 2, false, AVX>(plane, &qin, lv, *linear, cmp, k.snorm)
            } else {
                plane_route::<M, true, 1, false, AVX>(plane, &qin, lv, *linear, cmp, k.snorm)
            }
        };
        let Some(r) = r else {
            rest |= 1 << q;
            continue;
        };
        let r: [[u32; 4]; 4] = wide::bytemuck::cast(r);
        if mask == 0xf {
            o.copy_from_slice(&r);
        } else {
            super::merge_lanes(o, &r, mask);
        }
    }
    rest
}

/// λ_base of a quad of [`wide_plane_implicit_in`] whose lane-0 differences are new:
/// `Kernel::lod_from_derivs_2d` (isotropic) on them, as `lod_bases` gives coarse implicit
/// LOD. Not inlined (nor is [`implicit_selection`]): once a batch or so in the usual frame,
/// and inlined, their invariants were hoisted to the batch loop's entry and their values
/// spilled around the loop (batch bench under callgrind: ~600 instructions a call outside
/// the runs before, ~330 after).
#[inline(never)]
fn implicit_lambda(k: &Kernel, s: f32x4, t: f32x4) -> f32 {
    let (sa, ta) = (s.to_array(), t.to_array());
    let dx = [sa[1] - sa[0], ta[1] - ta[0], 0.0];
    let dy = if mutant() {
        dx
    } else {
        [sa[2] - sa[0], ta[2] - ta[0], 0.0]
    };
    k.lod_from_derivs_2d(dx, dy, false).lambda
}

/// The level selection of λ_base `lam` (bits; no bias) and its looked-up levels, for
/// [`wide_plane_implicit_in`]; `lod`: the selection when already known ([`first_selection`]).
#[inline(never)]
fn implicit_selection(
    k: &Kernel,
    lam: u32,
    lod: Option<Option<LaneLod>>,
) -> Option<(bool, PlaneLevels<'_>)> {
    let l = match lod {
        Some(l) => l?,
        None => k.lane_lod(f32::from_bits(lam), 0.0, f32::NEG_INFINITY)?,
    };
    Some((l.linear, uni_levels(k, &l, [k.view.base_layer; 4], true)?))
}

/// One entry of the per-thread memo of [`first_selection`]: a kernel's λ_base and level
/// selection for one quad's lane-0 differences. Both are functions of the kernel (its view,
/// sampler, config and level extents, all fixed at construction) and of the differences'
/// bits alone (not of the image's texels, not of what ran before), so an entry whose kernel
/// id and differences match gives what computing them would: the same bits on any thread,
/// in any order. Kernel ids are never reused ([`KernelId`](super::old_sample::KernelId)).
#[derive(Clone, Copy)]
struct Memo {
    /// The kernel's id (0: empty; ids start at 1).
    id: u64,
    /// Lanes 1 and 2 of `s − s₀`, then of `t − t₀`, as bits.
    diffs: [u32; 4],
    /// λ_base's bits.
    lam: u32,
    /// What `Kernel::lane_lod` selects for λ_base without bias.
    lod: Option<LaneLod>,
    /// When that is one level: its [`uni_levels`] slot for a 2D view (every lane the same),
    /// as (linear, absolute level, weight, base) — the pairs' route without the lookups.
    one: Option<(bool, u32, f32, i32)>,
}

thread_local! {
    /// [`first_selection`]'s memo: the last first-quad selection of the usual batch on this
    /// thread (one entry; a plain `Cell`, no destructor: a `%fs`-relative access).
    static MEMO: Cell<Memo> = const {
        Cell::new(Memo {
            id: 0,
            diffs: [0; 4],
            lam: 0,
            lod: None,
            one: None,
        })
    };
}

/// This thread's memo entry when it is kernel `k`'s for lane-0 differences `diffs`.
#[inline(always)]
fn memo_get(k: &Kernel, diffs: [u32; 4]) -> Option<Memo> {
    let m = MEMO.with(Cell::get);
    let hit = m.id == k.id.0 && m.diffs == diffs;
    #[cfg(test)]
    let hit = match MEMO_BUG.with(Cell::get) {
        1 => m.id != 0 && m.diffs == diffs, // planted: any kernel's entry
        2 => m.id == k.id.0 && m.diffs[..2] == diffs[..2], // planted: the s differences only
        _ => hit,
    };
    #[cfg(test)]
    if hit {
        MEMO_HITS.with(|h| h.set(h.get() + 1));
    }
    hit.then_some(m)
}

/// Lanes 1 and 2 of `s − s₀`, then of `t − t₀` ([`lane0_diffs`]): the memo's key.
#[inline(always)]
fn memo_key((ds, dt): (u32x4, u32x4)) -> [u32; 4] {
    let (a, b) = (ds.to_array(), dt.to_array());
    [a[1], a[2], b[1], b[2]]
}

/// λ_base (bits) and the level selection of a batch's first quad in [`wide_plane_implicit_in`]
/// (lane-0 differences `p`): from this thread's memo when it holds this kernel's for these
/// differences (bit for bit), else [`first_selection_miss`]. Consecutive batches of a draw
/// usually open with the same differences.
#[inline(always)]
fn first_selection(k: &Kernel, s: f32x4, t: f32x4, p: (u32x4, u32x4)) -> (u32, Option<LaneLod>) {
    let diffs = memo_key(p);
    match memo_get(k, diffs) {
        Some(m) => (m.lam, m.lod),
        None => first_selection_miss(k, s, t, diffs),
    }
}

/// [`first_selection`] computed ([`implicit_lambda`], then `lane_lod` unless the memo has
/// this kernel's for this λ_base) and memoised.
#[inline(never)]
fn first_selection_miss(k: &Kernel, s: f32x4, t: f32x4, diffs: [u32; 4]) -> (u32, Option<LaneLod>) {
    let m = MEMO.with(Cell::get);
    let lam = implicit_lambda(k, s, t).to_bits();
    let lod = if m.id == k.id.0 && m.lam == lam {
        m.lod
    } else {
        k.lane_lod(f32::from_bits(lam), 0.0, f32::NEG_INFINITY)
    };
    let one = lod.and_then(|l| {
        let (n, [a, _]) = uni_levels(k, &l, [k.view.base_layer; 4], true)?;
        let abs = k.view.base_level + l.levels.l[0].0;
        (n == 1).then(|| (l.linear, abs, a.weight.to_array()[0], a.base.to_array()[0]))
    });
    MEMO.with(|c| {
        c.set(Memo {
            id: k.id.0,
            diffs,
            lam,
            lod,
            one,
        })
    });
    (lam, lod)
}

// Test counter: memo hits on this thread (`tests::memo_*`); and planted bugs the memo tests
// must catch (`tests::memo_bugs_are_caught`): 1 ignores the kernel id, 2 half the key.
#[cfg(test)]
thread_local! {
    static MEMO_HITS: Cell<usize> = const { Cell::new(0) };
    static MEMO_BUG: Cell<u8> = const { Cell::new(0) };
}

/// `c − c₀` lane-wise, as bits: lanes 1 and 2 are the coarse x and y differences.
#[inline(always)]
fn lane0_diffs(c: f32x4) -> u32x4 {
    wide::bytemuck::cast(c - f32x4::splat(c.to_array()[0]))
}

/// The quads `0..n` of a batch while each is whole (mask `0xf`; mask 0 is skipped) and its
/// lane-0 differences (lanes 1 and 2 of `c − c₀`, as bits) equal `prev`'s, whose selection
/// `lv` is one level: each through [`plane_route`] exactly as the batch loop's per-quad code
/// would call it (`dref`: the Dref row from the run's first quad). Returns the number of
/// quads done; the batch loop takes the quad that stopped the run (a partial mask, new
/// differences, or a quad the routine does not serve). The loop's per-quad selection
/// bookkeeping, out of the way (batch bench under callgrind: nearest 174 → 145, bilinear 245
/// → 211 instructions per quad).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn one_level_run<const M: u8, const LIN: bool, const CMP: bool, const AVX: bool>(
    k: &Kernel,
    plane: &Plane,
    lv: &PlaneLevels,
    (ps, pt): (u32x4, u32x4),
    [s_q, t_q]: [&[[u32; 4]]; 2],
    dref: &[u32],
    masks: &[u8],
    out: &mut [[[u32; 4]; 4]],
) -> usize {
    let n = masks.len().min(s_q.len()).min(t_q.len()).min(out.len());
    let (s_q, t_q, masks, out) = (&s_q[..n], &t_q[..n], &masks[..n], &mut out[..n]);
    let cmp = CMP.then_some(k.sampler.compare_op);
    // AVX2: two quads per step (`fast_plane.rs`'s `one_level_pairs_avx2`), for nearest,
    // bilinear and bilinear Dref on levels its lane-wise wraps serve
    #[cfg(target_arch = "x86_64")]
    let pairs = AVX && (LIN || !CMP) && pairs_serve::<M>(plane, &lv.1[0]);
    let mut q = 0;
    while q < n {
        #[cfg(target_arch = "x86_64")]
        if pairs {
            let d = dref.get(4 * q..).unwrap_or(&[]);
            let (s, t, m, o) = (&s_q[q..], &t_q[q..], &masks[q..], &mut out[q..]);
            // SAFETY: `AVX` is set only by `wide_plane_implicit_avx2` (AVX2 detected), and
            // `pairs_serve` holds
            q += unsafe {
                one_level_pairs_avx2::<M, LIN, CMP>(k, plane, &lv.1[0], (ps, pt), s, t, d, m, o)
            };
            if q >= n {
                break;
            }
        }
        let m = masks[q] & 0xf;
        if m == 0 {
            q += 1;
            continue;
        }
        if m != 0xf {
            return q;
        }
        let s: f32x4 = wide::bytemuck::cast(s_q[q]);
        let t: f32x4 = wide::bytemuck::cast(t_q[q]);
        let (ds, dt) = (lane0_diffs(s), lane0_diffs(t));
        if (ps.simd_eq(ds) & pt.simd_eq(dt)).to_bitmask() & 0b0110 != 0b0110 {
            return q;
        }
        let qin = QuadIn {
            s: s.to_array(),
            t: t.to_array(),
            layer: [k.view.base_layer; 4],
            one_layer: true,
            off: None,
            dref: if CMP {
                quad4(dref, q).map(|r| k.dref_value(r))
            } else {
                [0.0; 4]
            },
        };
        let Some(r) = plane_route::<M, true, 1, false, AVX>(plane, &qin, lv, LIN, cmp, k.snorm)
        else {
            return q;
        };
        out[q] = wide::bytemuck::cast(r);
        q += 1;
    }
    n
}

// Test hook: when set (tests only), implicit λ comes from the x derivative alone (the
// larger of the two lengths is dropped) — a mutation the property test must catch
// (`tests::a_mutation_is_caught`).
#[cfg(test)]
thread_local! {
    static MUTANT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cfg(test)]
#[inline(always)]
fn mutant() -> bool {
    MUTANT.with(|m| m.get())
}

#[cfg(not(test))]
#[inline(always)]
fn mutant() -> bool {
    false
}

#[cfg(test)]
mod tests {
    //! The wide path against the per-quad [`Kernel::sample`] (itself held to the general
    //! path and, through it, to the f64 reference sampler): random images (sizes, levels,
    //! layers, non-power-of-two), views, samplers, policies, batches of 1..40 quads with
    //! random masks, coordinates (out of range, huge, NaN) and LOD operands must give the
    //! same bits in every active lane and leave the other lanes alone.

    use super::super::fast::tests::{
        coord, lane4, nan_as_one, random_2d_view, random_config, random_modes, random_sampler, Rng,
        FORMATS,
    };
    use super::super::*;
    use super::{BatchArgs, BatchLod, MEMO_BUG, MEMO_HITS, MUTANT, WIDE_QUADS};
    use proptest::prelude::*;

    const UNTOUCHED: [u32; 4] = [0xdead_beef; 4];

    /// A random batch for `k`'s view: quads around random points with small (sometimes
    /// bent or wild) steps, random masks; returns (coordinate rows, masks, LOD rows, the
    /// per-quad arguments the rows stand for).
    #[allow(clippy::type_complexity)]
    fn random_batch(
        r: &mut Rng,
        quads: usize,
    ) -> ([Vec<u32>; 4], Vec<u8>, (u8, Vec<u32>), Vec<SampleArgs>) {
        let lod_kind = r.below(4) as u8; // implicit, implicit + bias, explicit, zero
        let mut rows: [Vec<u32>; 4] = Default::default();
        let mut masks = Vec::new();
        let mut lod_row = Vec::new();
        let mut args = Vec::new();
        let empty_t = r.chance(3);
        let fourth = r.chance(50);
        let layer = r.f(-1.0, 4.0);
        let mut c0 = [coord(r), coord(r), layer, r.f(-2.0, 2.0)];
        for _ in 0..quads {
            if r.chance(30) {
                c0 = [coord(r), coord(r), r.f(-1.0, 4.0), r.f(-2.0, 2.0)];
            } else {
                // a neighbouring quad
                c0[0] += r.f(-0.1, 0.1);
                c0[1] += r.f(-0.1, 0.1);
            }
            let step = r.f(-0.5, 0.5) * r.f(0.0, 1.0).powi(3);
            let mut coords = [c0; 4];
            for (lane, c) in coords.iter_mut().enumerate() {
                c[0] += (lane & 1) as f32 * step + r.f(-0.01, 0.01) * r.below(2) as f32;
                c[1] += (lane >> 1) as f32 * step * r.f(0.2, 2.0);
                if r.chance(5) {
                    c[0] = coord(r);
                }
                if r.chance(5) {
                    c[2] = r.f(-1.0, 4.0);
                }
                if empty_t {
                    c[1] = 0.0;
                }
                if !fourth {
                    c[3] = 0.0;
                }
            }
            let mut a = SampleArgs::new(coords);
            a.mask = if r.chance(70) { 0xf } else { r.below(16) as u8 };
            let v = match lod_kind {
                0 => [0.0; 4],
                1 => lane4(r, -3.0, 3.0),
                _ => lane4(r, -1.0, 6.0),
            };
            a.lod = match lod_kind {
                0 | 1 => LodMode::Implicit {
                    bias: v,
                    fine: false,
                },
                2 => LodMode::Explicit(v),
                _ => LodMode::Zero,
            };
            for (k, row) in rows.iter_mut().enumerate() {
                row.extend(coords.map(|c| c[k].to_bits()));
            }
            lod_row.extend(v.map(f32::to_bits));
            masks.push(a.mask | if r.chance(10) { 0xf0 } else { 0 }); // high bits ignored
            args.push(a);
        }
        if empty_t {
            rows[1].clear();
        }
        if !fourth {
            rows[3].clear();
        }
        if lod_kind == 0 {
            lod_row.clear();
        }
        (rows, masks, (lod_kind, lod_row), args)
    }

    /// One random (image, view, sampler, config, batch): the wide path's results against
    /// [`Kernel::sample`] per quad. `Ok((quads the wide routine served, quads))`, `Err`: the
    /// first difference.
    fn one_batch(seed: u64) -> std::result::Result<(usize, usize), String> {
        let mut r = Rng(seed | 1);
        let fmt = FORMATS[r.below(FORMATS.len() as u64) as usize];
        let (img, view) = random_2d_view(&mut r, fmt);
        let address_mode = random_modes(&mut r);
        let sampler = random_sampler(&mut r, fmt, address_mode, 5);
        let cfg = random_config(&mut r);
        let quads = if r.chance(80) {
            1 + r.below(WIDE_QUADS as u64) as usize
        } else {
            1 + r.below(40) as usize
        };
        let (rows, masks, (lod_kind, lod_row), mut args) = random_batch(&mut r, quads);
        // a Dref row: mostly when the sampler compares, sometimes when it does not (Vulkan
        // ignores it, D3D refuses it), sometimes missing (refused)
        let with_dref = if sampler.compare_enable {
            r.chance(95)
        } else {
            r.chance(10)
        };
        let dref_row: Vec<u32> = if with_dref {
            (0..4 * quads)
                .map(|_| match r.below(10) {
                    0 => 0.5f32,
                    1 => f32::NAN,
                    _ => r.f(-0.2, 1.2),
                })
                .map(f32::to_bits)
                .collect()
        } else {
            Vec::new()
        };
        if with_dref {
            for (q, a) in args.iter_mut().enumerate() {
                a.dref = Some(std::array::from_fn(|l| f32::from_bits(dref_row[4 * q + l])));
            }
        }
        // offset rows in 30 %: per quad or per lane, in [−8, 7] (D3D keeps the low 4 bits,
        // sometimes out of the range); `v` sometimes absent
        let mut off_rows: [Vec<u32>; 2] = Default::default();
        if r.chance(30) {
            let per_lane = r.chance(30);
            let wide_range = r.chance(10);
            let o = |r: &mut Rng| {
                if wide_range {
                    r.below(40) as i32 - 20
                } else {
                    r.below(16) as i32 - 8
                }
            };
            for a in args.iter_mut() {
                let q = [o(&mut r), o(&mut r)];
                for l in 0..4 {
                    let v = if per_lane { [o(&mut r), o(&mut r)] } else { q };
                    a.offsets[l] = [v[0], v[1], 0];
                    off_rows[0].push(v[0] as u32);
                    off_rows[1].push(v[1] as u32);
                }
            }
            if r.chance(20) {
                off_rows[1].clear();
                for a in args.iter_mut() {
                    for o in a.offsets.iter_mut() {
                        o[1] = 0;
                    }
                }
            }
        }
        let Ok(k) = Kernel::new(&img, &view, &sampler, cfg) else {
            return Ok((0, 0));
        };
        let b = BatchArgs {
            coords: [&rows[0], &rows[1], &rows[2], &rows[3]],
            masks: &masks,
            lod: match lod_kind {
                0 | 1 => BatchLod::Implicit(&lod_row),
                2 => BatchLod::Explicit(&lod_row),
                _ => BatchLod::Zero,
            },
            dref: &dref_row,
            offsets: [&off_rows[0], &off_rows[1]],
        };
        let mut out = vec![UNTOUCHED; 4 * quads];
        let got = k.sample_batch(&img, &b, &mut out);
        let any = masks.iter().any(|m| m & 0xf != 0);
        if any && k.sample(&img, &args[0]).is_err() {
            // an operand the sampler refuses (Dref missing, or refused by D3D): an error, as
            // per quad
            assert!(got.is_err());
            return Ok((0, 0));
        }
        got.unwrap();
        for (q, a) in args.iter().enumerate() {
            let want = if a.mask == 0 {
                [UNTOUCHED; 4]
            } else {
                let mut w = k.sample(&img, a).unwrap();
                for (lane, x) in w.iter_mut().enumerate() {
                    if a.mask & (1 << lane) == 0 {
                        *x = UNTOUCHED;
                    }
                }
                w
            };
            let have: [[u32; 4]; 4] = std::array::from_fn(|l| out[4 * q + l]);
            if nan_as_one(have) != nan_as_one(want) {
                return Err(format!(
                    "seed {seed}: quad {q} of {quads}: wide {have:08x?} per quad {want:08x?}\n\
                     {fmt:?} {:?}x{} L{} {view:?} {sampler:?} {cfg:?} {a:?}",
                    img.extent(),
                    img.layers(),
                    img.levels()
                ));
            }
        }
        // how many quads the wide routine itself served
        let mut served = 0;
        if let Some(w) = k.wide {
            let mut scratch = vec![[0u32; 4]; 4 * quads];
            for q0 in (0..quads).step_by(WIDE_QUADS) {
                let nq = (quads - q0).min(WIDE_QUADS);
                let rest = (w.0)(&k, &img, &b, q0, nq, &mut scratch);
                served += (0..nq)
                    .filter(|&q| rest & (1 << q) == 0 && masks[q0 + q] & 0xf != 0)
                    .count();
            }
        }
        Ok((served, quads))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6000))]
        #[test]
        fn wide_path_equals_the_per_quad_path(seed in any::<u64>()) {
            if let Err(e) = one_batch(seed) {
                panic!("{e}");
            }
        }
    }

    #[test]
    fn most_random_batches_take_the_wide_path() {
        let (mut served, mut quads) = (0, 0);
        for s in 1..=1500u64 {
            let (a, b) = one_batch(s.wrapping_mul(0x9e37_79b9_7f4a_7c15)).unwrap();
            served += a;
            quads += b;
        }
        assert!(
            served * 3 > quads,
            "the wide path served only {served} of {quads} quads"
        );
    }

    #[test]
    fn a_mutation_is_caught() {
        // the same comparison with the wide path's implicit λ from the x derivative alone
        // must find differences (it changes only implicit-LOD batches whose y derivative is
        // the longer, on more than one level: 9 of these 300)
        MUTANT.with(|m| m.set(true));
        let caught = (1..=300u64)
            .filter(|&s| one_batch(s.wrapping_mul(0x9e37_79b9_7f4a_7c15)).is_err())
            .count();
        MUTANT.with(|m| m.set(false));
        assert!(
            caught > 3,
            "the mutation was caught in only {caught} of 300 batches"
        );
    }

    #[test]
    fn bad_batches_are_errors() {
        let img = Image::new_2d(Format::R8G8B8A8_UNORM, 4, 4, 1, 1).unwrap();
        let view = ImageView::whole(&img, ViewType::D2);
        let k = Kernel::new(&img, &view, &Sampler::default(), Config::default()).unwrap();
        assert!(k.has_wide_path());
        let row = [0u32; 8];
        let masks = [0xf, 0xf];
        let b = BatchArgs {
            coords: [&row, &row[..4], &[], &[]],
            masks: &masks,
            lod: BatchLod::Zero,
            dref: &[],
            offsets: [&[], &[]],
        };
        let mut out = [[0u32; 4]; 8];
        // a row of 4 lanes for 2 quads
        assert!(k.sample_batch(&img, &b, &mut out).is_err());
        let b = BatchArgs {
            coords: [&row, &row, &[], &[]],
            ..b
        };
        assert!(k.sample_batch(&img, &b, &mut out[..7]).is_err());
        // another image shape
        let other = Image::new_2d(Format::R8G8B8A8_UNORM, 8, 4, 1, 1).unwrap();
        assert!(k.sample_batch(&other, &b, &mut out).is_err());
        // a comparison sampler without a Dref operand
        let depth = Image::new_2d(Format::D32_SFLOAT, 4, 4, 1, 1).unwrap();
        let dv = ImageView::whole(&depth, ViewType::D2);
        let cmp = Sampler {
            compare_enable: true,
            ..Sampler::default()
        };
        let kc = Kernel::new(&depth, &dv, &cmp, Config::default()).unwrap();
        assert!(kc.sample_batch(&depth, &b, &mut out).is_err());
        // no active lane: nothing to do, nothing checked
        let none = BatchArgs {
            masks: &[0, 0],
            ..b
        };
        assert!(kc.sample_batch(&depth, &none, &mut out).is_ok());
    }

    /// The usual instruction's batch on `s`, `t` rows: implicit LOD, no bias, Dref or offset rows.
    fn usual_args<'a>(s: &'a [u32], t: &'a [u32], masks: &'a [u8]) -> BatchArgs<'a> {
        BatchArgs {
            coords: [s, t, &[], &[]],
            masks,
            lod: BatchLod::Implicit(&[]),
            dref: &[],
            offsets: [&[], &[]],
        }
    }

    /// `sample_batch` on `b` (`quads` quads) writes every active lane as `Kernel::sample` of
    /// that quad does, and leaves the inactive lanes untouched.
    fn batch_is_per_quad(k: &Kernel, img: &Image, b: &BatchArgs, quads: usize, what: &str) {
        let mut out = vec![UNTOUCHED; 4 * quads];
        k.sample_batch(img, b, &mut out).unwrap();
        for q in 0..quads {
            let a = b.quad_args(q);
            let mut want = [UNTOUCHED; 4];
            if a.mask != 0 {
                let w = k.sample(img, &a).unwrap();
                for lane in 0..4 {
                    if a.mask & (1 << lane) != 0 {
                        want[lane] = w[lane];
                    }
                }
            }
            let have: [[u32; 4]; 4] = std::array::from_fn(|l| out[4 * q + l]);
            assert_eq!(
                nan_as_one(have),
                nan_as_one(want),
                "{what} quad {q} of {quads}: {a:?}"
            );
        }
    }

    #[test]
    fn repeat_trilinear_batches_equal_the_per_quad_path() {
        // the AVX2 two-slot route's case (where the CPU has AVX2): power-of-two repeat levels,
        // trilinear, implicit LOD without bias; quads at every scale around the levels' wrap
        // columns and rows (footprints split by the wrap), far out, and with NaN, ±∞ or huge
        // lanes (the route refuses those); UNORM and SNORM (the −1 clamp)
        let mut r = Rng(0x5eed_7a11);
        for fmt in [Format::R8G8B8A8_UNORM, Format::R8G8B8A8_SNORM] {
            let mut img = Image::new_2d(fmt, 64, 32, 1, 7).unwrap();
            for b in img.bytes_mut() {
                *b = r.next() as u8;
            }
            let view = ImageView::whole(&img, ViewType::D2);
            let s = Sampler::trilinear(AddressMode::Repeat);
            let k = Kernel::new(&img, &view, &s, Config::default()).unwrap();
            assert!(k.has_wide_path());
            for _ in 0..400 {
                let quads = 1 + r.below(WIDE_QUADS as u64) as usize;
                let (mut s_row, mut t_row, mut masks) = (Vec::new(), Vec::new(), Vec::new());
                let step = 2f32.powf(r.f(-8.0, 0.0));
                let mut c = [r.f(-3.0, 3.0), r.f(-3.0, 3.0)];
                if r.chance(10) {
                    c = [r.f(-3e5, 3e5), r.f(-3e5, 3e5)];
                }
                for _ in 0..quads {
                    c[0] += step * 2.0;
                    for lane in 0..4 {
                        let mut x = c[0] + (lane & 1) as f32 * step;
                        let mut y = c[1] + (lane >> 1) as f32 * step * 0.75;
                        if r.chance(2) {
                            x = [f32::NAN, f32::INFINITY, -3e9, 1e30][r.below(4) as usize];
                        }
                        if r.chance(2) {
                            y = [f32::NAN, f32::NEG_INFINITY, 3e9][r.below(3) as usize];
                        }
                        s_row.push(x.to_bits());
                        t_row.push(y.to_bits());
                    }
                    masks.push(if r.chance(85) { 0xf } else { r.below(16) as u8 });
                }
                let b = usual_args(&s_row, &t_row, &masks);
                batch_is_per_quad(&k, &img, &b, quads, &format!("{fmt:?}"));
            }
        }
    }

    #[test]
    fn runs_of_repeating_quads_equal_the_per_quad_path() {
        // the AVX2 two-slot route's run loop (`trilinear_run_avx2`) takes whole quads whose
        // lane-0 differences repeat bit for bit: dyadic grid coordinates (exact sums and
        // differences, λ between levels) stepped along rows, as a fullscreen quad gives them,
        // over batches of up to 40 quads, with zero and partial masks, NaN or huge lanes, wrap
        // columns and a float format with random (NaN, infinite) texels; against
        // `Kernel::sample` per quad (swapping two lanes of the run's results fails it)
        let mut r = Rng(0x7a11_5eed);
        for fmt in [
            Format::R8G8B8A8_UNORM,
            Format::R8G8B8A8_SNORM,
            Format::R32_SFLOAT,
        ] {
            let mut img = Image::new_2d(fmt, 64, 32, 1, 7).unwrap();
            for b in img.bytes_mut() {
                *b = r.next() as u8;
            }
            let view = ImageView::whole(&img, ViewType::D2);
            let s = Sampler::trilinear(AddressMode::Repeat);
            let k = Kernel::new(&img, &view, &s, Config::default()).unwrap();
            assert!(k.has_wide_path());
            for _ in 0..300 {
                let quads = 1 + r.below(40) as usize;
                let (mut s_row, mut t_row, mut masks) = (Vec::new(), Vec::new(), Vec::new());
                // an odd multiple of a power of two: exact, and a λ between levels
                let step = (3 + 2 * r.below(7)) as f32 * 2f32.powi(-(5 + r.below(4) as i32));
                let grid = |r: &mut Rng| (r.f(-3.0, 3.0) * 4096.0).round() / 4096.0;
                let mut c = [grid(&mut r), grid(&mut r)];
                let per_row = 1 + r.below(12) as usize;
                for q in 0..quads {
                    if q % per_row == 0 && q > 0 {
                        c[0] -= 2.0 * step * per_row as f32;
                        c[1] += 1.5 * step;
                    }
                    for lane in 0..4 {
                        let mut x = c[0] + (lane & 1) as f32 * step;
                        let y = c[1] + (lane >> 1) as f32 * step * 0.75;
                        if r.chance(1) {
                            x = [f32::NAN, f32::INFINITY, 3e9][r.below(3) as usize];
                        }
                        s_row.push(x.to_bits());
                        t_row.push(y.to_bits());
                    }
                    c[0] += 2.0 * step;
                    masks.push(match r.below(20) {
                        0 => 0,
                        1 => r.below(16) as u8,
                        _ => 0xf,
                    });
                }
                let b = usual_args(&s_row, &t_row, &masks);
                batch_is_per_quad(&k, &img, &b, quads, &format!("{fmt:?}"));
            }
        }
    }

    /// The wide routine of plane kernels for the usual instruction
    /// (`wide_plane_implicit_in`) on a batch of at most [`WIDE_QUADS`] quads, plain (`AVX =
    /// false`) or in its AVX2 form (`None` where the CPU has no AVX2): the results of the
    /// served quads and the quads left.
    fn implicit_chunk(
        k: &Kernel,
        img: &Image,
        rows: [&[u32]; 3],
        masks: &[u8],
        avx: bool,
    ) -> Option<(Vec<[u32; 4]>, u64)> {
        use super::super::address::{CLAMP, MIRRORED, REPEAT};
        use super::wide_plane_implicit_in;
        let plane = img.plane().unwrap();
        let mut out = vec![UNTOUCHED; rows[0].len()];
        let cmp = k.sampler.compare_enable;
        macro_rules! go {
            ($m:expr) => {{
                if avx {
                    #[cfg(target_arch = "x86_64")]
                    if crate::cpu::avx2() {
                        // SAFETY: the CPU has AVX2 (`cpu::avx2()`)
                        return Some(unsafe {
                            let rest = if cmp {
                                super::wide_plane_implicit_avx2::<{ $m }, true>(
                                    k, plane, rows, masks, &mut out,
                                )
                            } else {
                                super::wide_plane_implicit_avx2::<{ $m }, false>(
                                    k, plane, rows, masks, &mut out,
                                )
                            };
                            (out, rest)
                        });
                    }
                    return None;
                }
                let rest = if cmp {
                    wide_plane_implicit_in::<{ $m }, true, false>(k, plane, rows, masks, &mut out)
                } else {
                    wide_plane_implicit_in::<{ $m }, false, false>(k, plane, rows, masks, &mut out)
                };
                Some((out, rest))
            }};
        }
        match k.modes[0] {
            REPEAT => go!(REPEAT),
            MIRRORED => go!(MIRRORED),
            _ => go!(CLAMP),
        }
    }

    #[test]
    fn one_level_runs_equal_the_per_quad_path() {
        // the one-level run (`one_level_run`; with AVX2 two quads a step, `fast_plane.rs`'s
        // `one_level_pairs_avx2`): whole quads whose lane-0 differences repeat bit for bit
        // (dyadic grid coordinates stepped along rows, as a fullscreen quad gives them) through
        // nearest, bilinear and Dref (bilinear and nearest) selections of one level, every
        // plane address mode, power-of-two extents and others (one texel wide or high too),
        // UNORM, SNORM (the −1 clamp), R32F from random bits (NaN, −0, infinite, denormal
        // texels), D32 and D16 (the Dref UNORM clamp) under both policies; runs of 1 to 40 quads
        // (odd and even counts: whole pairs and a lone quad), zero and partial masks inside
        // runs (quads without active lanes sometimes with other differences), NaN, infinite
        // and huge lanes, coordinates far out and across wrap edges.
        // Against `Kernel::sample` per quad, and the AVX2 form against the plain one bit for
        // bit (NaN payloads too).
        let mut r = Rng(0x0e1e_5eed);
        let formats = [
            (Format::R8G8B8A8_UNORM, false),
            (Format::R8G8B8A8_SNORM, false),
            (Format::R32_SFLOAT, false),
            (Format::D32_SFLOAT, true),
            (Format::D16_UNORM, true),
        ];
        let sizes: [(u32, u32); 8] = [
            (64, 32),
            (16, 16),
            (1, 8),
            (8, 1),
            (1, 1),
            (48, 20),
            (5, 3),
            (2, 2),
        ];
        let modes = [
            AddressMode::Repeat,
            AddressMode::MirroredRepeat,
            AddressMode::ClampToEdge,
        ];
        let ops = [
            CompareOp::Never,
            CompareOp::Less,
            CompareOp::Equal,
            CompareOp::LessOrEqual,
            CompareOp::Greater,
            CompareOp::NotEqual,
            CompareOp::GreaterOrEqual,
            CompareOp::Always,
        ];
        let before = super::super::fast_plane::PAIRS.with(|p| p.get());
        let mut compared = 0;
        for round in 0..900 {
            let (fmt, depth) = formats[round % formats.len()];
            let (w, h) = sizes[r.below(sizes.len() as u64) as usize];
            let max_levels = 32 - w.max(h).leading_zeros();
            let levels = 1 + r.below(max_levels.min(3) as u64) as u32;
            let mut img = Image::new_2d(fmt, w, h, 1, levels).unwrap();
            if depth {
                for level in 0..levels {
                    let d: Vec<[f32; 4]> = (0..img.level_texels(level))
                        .map(|_| {
                            let v = match r.below(10) {
                                0 => 0.5,
                                1 => 0.0,
                                _ => r.f(0.0, 1.0),
                            };
                            [v, 0.0, 0.0, 0.0]
                        })
                        .collect();
                    img.upload_f32(level, &d).unwrap();
                }
            } else {
                for b in img.bytes_mut() {
                    *b = r.next() as u8;
                }
            }
            let view = ImageView::whole(&img, ViewType::D2);
            let f = if r.chance(50) {
                Filter::Linear
            } else {
                Filter::Nearest
            };
            let sampler = Sampler {
                mag_filter: f,
                min_filter: f,
                address_mode: [modes[r.below(3) as usize]; 3],
                compare_enable: depth && r.chance(80),
                compare_op: ops[r.below(8) as usize],
                ..Sampler::default()
            };
            let cfg = Config {
                policy: if r.chance(50) {
                    Policy::Vulkan
                } else {
                    Policy::D3D
                },
                ..Config::default()
            };
            let k = Kernel::new(&img, &view, &sampler, cfg).unwrap();
            assert!(k.has_wide_path());
            let quads = 1 + r.below(40) as usize;
            let (mut s_row, mut t_row, mut d_row, mut masks) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            // an odd multiple of a power of two (exact sums and differences): magnified or
            // minified (a level of the chain, nearest mipmaps)
            let step = (1 + 2 * r.below(7)) as f32 * 2f32.powi(-(3 + r.below(8) as i32));
            let grid = |r: &mut Rng, a: f32| (r.f(-a, a) * 4096.0).round() / 4096.0;
            let far = r.chance(10);
            let mut c = [grid(&mut r, 3.0), grid(&mut r, 3.0)];
            if far {
                c = [grid(&mut r, 3000.0), grid(&mut r, 3000.0)];
            }
            let per_row = 1 + r.below(12) as usize;
            for q in 0..quads {
                if q % per_row == 0 && q > 0 {
                    c[0] -= 2.0 * step * per_row as f32;
                    c[1] += 2.0 * step;
                }
                let mask = match r.below(25) {
                    0..=1 => 0,
                    2 => r.below(16) as u8,
                    _ => 0xf,
                };
                // a quad without active lanes: sometimes other coordinates (other
                // differences, another λ), which nothing may take for the next quad's
                let junk = mask == 0 && r.chance(50);
                for lane in 0..4 {
                    let mut x = c[0] + (lane & 1) as f32 * step;
                    let mut y = c[1] + (lane >> 1) as f32 * step;
                    if junk {
                        x = r.f(-2.0, 2.0);
                        y = r.f(-2.0, 2.0);
                    }
                    if r.chance(1) {
                        x = [f32::NAN, f32::INFINITY, -3e9, 1e30][r.below(4) as usize];
                    }
                    if r.chance(1) {
                        y = [f32::NAN, f32::NEG_INFINITY, 3e9][r.below(3) as usize];
                    }
                    s_row.push(x.to_bits());
                    t_row.push(y.to_bits());
                    let d = match r.below(12) {
                        0 => 0.5,
                        1 => f32::NAN,
                        2 => 0.0,
                        _ => r.f(-0.2, 1.2),
                    };
                    d_row.push(d.to_bits());
                }
                c[0] += 2.0 * step;
                masks.push(mask);
            }
            let dref: &[u32] = if sampler.compare_enable { &d_row } else { &[] };
            let b = BatchArgs {
                coords: [&s_row, &t_row, &[], &[]],
                masks: &masks,
                lod: BatchLod::Implicit(&[]),
                dref,
                offsets: [&[], &[]],
            };
            let what = format!("round {round}: {fmt:?} {w}x{h} L{levels} {sampler:?} {cfg:?}");
            batch_is_per_quad(&k, &img, &b, quads, &what);
            // the AVX2 form against the plain one, bit for bit, chunk by chunk
            for q0 in (0..quads).step_by(WIDE_QUADS) {
                let q1 = (q0 + WIDE_QUADS).min(quads);
                let rows = [
                    &s_row[4 * q0..4 * q1],
                    &t_row[4 * q0..4 * q1],
                    dref.get(4 * q0..4 * q1).unwrap_or(&[]),
                ];
                let m = &masks[q0..q1];
                let plain = implicit_chunk(&k, &img, rows, m, false).unwrap();
                if let Some(avx) = implicit_chunk(&k, &img, rows, m, true) {
                    assert_eq!(avx.1, plain.1, "{what}: quads left");
                    for q in 0..q1 - q0 {
                        if plain.1 & (1 << q) == 0 {
                            assert_eq!(
                                avx.0[4 * q..4 * q + 4],
                                plain.0[4 * q..4 * q + 4],
                                "{what}: quad {}",
                                q0 + q
                            );
                        }
                    }
                    compared += 1;
                }
            }
        }
        // where the CPU has AVX2, the pairs served most quads
        let served = super::super::fast_plane::PAIRS.with(|p| p.get()) - before;
        if compared > 0 {
            assert!(served > 5000, "the AVX2 pairs served only {served} quads");
        }
    }

    #[test]
    fn two_by_two_bilinear_by_hand() {
        // 2×2 R8G8B8A8 texels R = 0, 51, 102, 153 (x + 2y order), one level, linear,
        // clamp-to-edge: the centre (0.5, 0.5) weighs all four by ¼ in f32:
        // top = 0 + (0.2 − 0)·0.5 = 0.1, bottom = 0.4 + (0.6 − 0.4)·0.5 = 0.5,
        // result = 0.1 + (0.5 − 0.1)·0.5 = 0.3 (each step rounded to f32)
        let mut img = Image::new_2d(Format::R8G8B8A8_UNORM, 2, 2, 1, 1).unwrap();
        for (i, b) in img.bytes_mut().chunks_mut(4).enumerate() {
            b.copy_from_slice(&[51 * i as u8, 0, 0, 255]);
        }
        let view = ImageView::whole(&img, ViewType::D2);
        let s = Sampler {
            mag_filter: Filter::Linear,
            min_filter: Filter::Linear,
            address_mode: [AddressMode::ClampToEdge; 3],
            ..Sampler::default()
        };
        let k = Kernel::new(&img, &view, &s, Config::default()).unwrap();
        let half = [0.5f32.to_bits(); 4];
        let b = BatchArgs {
            coords: [&half, &half, &[], &[]],
            masks: &[0b0101],
            lod: BatchLod::Implicit(&[]),
            dref: &[],
            offsets: [&[], &[]],
        };
        let mut out = [UNTOUCHED; 4];
        k.sample_batch(&img, &b, &mut out).unwrap();
        let (t0, b0) = (0.0f32, 102.0f32 / 255.0);
        let top = t0 + (51.0f32 / 255.0 - t0) * 0.5;
        let bot = b0 + (153.0f32 / 255.0 - b0) * 0.5;
        let want = top + (bot - top) * 0.5;
        assert!((want - 0.3).abs() < 1e-6);
        assert_eq!(out[0], [want.to_bits(), 0, 0, 1f32.to_bits()]);
        assert_eq!(out[2], out[0]);
        assert_eq!((out[1], out[3]), (UNTOUCHED, UNTOUCHED));
    }

    /// A full chunk (64 quads) whose only unusual quad is quad 40 (a NaN coordinate in an
    /// active lane): no quad but 40 may be reported left to the per-quad path (today the
    /// wide route serves it; the masks had been `u16` when a chunk was 16 quads, and at 64
    /// the release build's shifts wrapped, naming quad 8 for quad 40 and quad 40 for quad 8),
    /// plain and AVX2, and the batch equals the per-quad path.
    #[test]
    fn quads_past_the_sixteenth_are_left_by_their_own_bits() {
        assert_eq!(WIDE_QUADS, 64);
        let mut img = Image::new_2d(Format::R8G8B8A8_UNORM, 16, 16, 1, 1).unwrap();
        for (i, b) in img.bytes_mut().chunks_mut(4).enumerate() {
            b.copy_from_slice(&[i as u8, (i * 7) as u8, 3, 255]);
        }
        let view = ImageView::whole(&img, ViewType::D2);
        let s = Sampler {
            mag_filter: Filter::Linear,
            min_filter: Filter::Linear,
            ..Sampler::default()
        };
        let k = Kernel::new(&img, &view, &s, Config::default()).unwrap();
        let (mut s_row, mut t_row) = (Vec::new(), Vec::new());
        for q in 0..WIDE_QUADS {
            for lane in 0..4 {
                let x = 0.1 + 0.01 * q as f32 + (lane & 1) as f32 / 32.0;
                let y = 0.3 + (lane >> 1) as f32 / 32.0;
                let x = if q == 40 && lane == 3 { f32::NAN } else { x };
                s_row.push(x.to_bits());
                t_row.push(y.to_bits());
            }
        }
        let masks = [0xfu8; WIDE_QUADS];
        let rows = [&s_row[..], &t_row[..], &[][..]];
        for avx in [false, true] {
            if let Some((_, rest)) = implicit_chunk(&k, &img, rows, &masks, avx) {
                assert_eq!(rest & !(1u64 << 40), 0, "avx {avx}: left {rest:#x}");
            }
        }
        let b = usual_args(&s_row, &t_row, &masks);
        batch_is_per_quad(&k, &img, &b, WIDE_QUADS, "64 quads, quad 40 NaN");
    }

    // The per-thread memo of the usual batch's first selection (λ_base and levels): reused
    // for the same kernel and the same lane-0 differences, bit for bit, and only then.

    /// `quads` whole quads along a row (dyadic coordinates: every quad has the same lane-0
    /// differences, bit for bit), lane steps `dx` (lane 1) and `dy` (lane 2) as (s, t).
    fn even_rows(quads: usize, dx: [f32; 2], dy: [f32; 2]) -> [Vec<u32>; 2] {
        let mut rows: [Vec<u32>; 2] = Default::default();
        for q in 0..quads {
            let (s0, t0) = (0.125 + q as f32 / 32.0, 0.375 - q as f32 / 64.0);
            for l in 0..4 {
                let (x, y) = ((l & 1) as f32, (l >> 1) as f32);
                rows[0].push((s0 + x * dx[0] + y * dy[0]).to_bits());
                rows[1].push((t0 + x * dx[1] + y * dy[1]).to_bits());
            }
        }
        rows
    }

    /// [`Kernel::sample_batch`] on the rows (whole quads, implicit LOD, the Dref row when
    /// the sampler compares) against [`Kernel::sample`] per quad; the batch's results.
    fn usual_batch(
        k: &Kernel,
        img: &Image,
        rows: &[Vec<u32>; 2],
    ) -> std::result::Result<Vec<[u32; 4]>, String> {
        let quads = rows[0].len() / 4;
        let masks = vec![0xfu8; quads];
        let dref: Vec<u32> = (0..4 * quads)
            .map(|i| (0.1 + 0.8 * (i % 7) as f32 / 7.0).to_bits())
            .collect();
        let b = BatchArgs {
            coords: [&rows[0], &rows[1], &[], &[]],
            masks: &masks,
            lod: BatchLod::Implicit(&[]),
            dref: if k.sampler.compare_enable { &dref } else { &[] },
            offsets: [&[], &[]],
        };
        let mut out = vec![UNTOUCHED; 4 * quads];
        k.sample_batch(img, &b, &mut out)
            .map_err(|e| e.to_string())?;
        for q in 0..quads {
            let want = k.sample(img, &b.quad_args(q)).map_err(|e| e.to_string())?;
            if out[4 * q..4 * q + 4] != want {
                return Err(format!(
                    "quad {q}: {:x?} != {want:x?}",
                    &out[4 * q..4 * q + 4]
                ));
            }
        }
        Ok(out)
    }

    /// A 64×64 RGBA8 image of noise, 7 levels (every level differs).
    fn noise_image(seed: u64) -> Image {
        let mut img = Image::new_2d(Format::R8G8B8A8_UNORM, 64, 64, 1, 7).unwrap();
        let mut r = Rng(seed | 1);
        for b in img.bytes_mut() {
            *b = r.next() as u8;
        }
        img
    }

    fn samplers() -> Vec<Sampler> {
        let bilinear = Sampler {
            mag_filter: Filter::Linear,
            min_filter: Filter::Linear,
            ..Sampler::default()
        };
        vec![
            Sampler::default(),
            bilinear,
            Sampler::trilinear(AddressMode::Repeat),
            Sampler {
                address_mode: [AddressMode::ClampToEdge; 3],
                ..bilinear
            },
            Sampler {
                address_mode: [AddressMode::MirroredRepeat; 3],
                ..Sampler::default()
            },
        ]
    }

    #[test]
    fn memo_is_reused_for_the_same_kernel_and_differences() {
        let img = noise_image(1);
        let view = ImageView::whole(&img, ViewType::D2);
        let rows = even_rows(12, [3.0 / 64.0, 0.0], [0.0, 2.0 / 64.0]);
        for s in samplers() {
            let k = Kernel::new(&img, &view, &s, Config::default()).unwrap();
            let first = usual_batch(&k, &img, &rows).unwrap();
            let hits = MEMO_HITS.with(|h| h.get());
            let again = usual_batch(&k, &img, &rows).unwrap();
            assert!(MEMO_HITS.with(|h| h.get()) > hits, "{s:?}: no memo hit");
            assert_eq!(first, again);
        }
        // Dref PCF on a depth image (nearest and bilinear)
        let mut depth = Image::new_2d(Format::D32_SFLOAT, 64, 64, 1, 7).unwrap();
        let mut r = Rng(9);
        let d: Vec<[f32; 4]> = (0..depth.level_texels(0))
            .map(|_| [r.f(0.0, 1.0), 0.0, 0.0, 0.0])
            .collect();
        depth.upload_f32(0, &d).unwrap();
        let dv = ImageView::whole(&depth, ViewType::D2);
        for filter in [Filter::Nearest, Filter::Linear] {
            let s = Sampler {
                compare_enable: true,
                compare_op: CompareOp::LessOrEqual,
                mag_filter: filter,
                min_filter: filter,
                ..Sampler::default()
            };
            let k = Kernel::new(&depth, &dv, &s, Config::default()).unwrap();
            let first = usual_batch(&k, &depth, &rows).unwrap();
            let hits = MEMO_HITS.with(|h| h.get());
            assert_eq!(first, usual_batch(&k, &depth, &rows).unwrap());
            assert!(MEMO_HITS.with(|h| h.get()) > hits, "{s:?}: no memo hit");
        }
    }

    /// Kernels of the same differences but other selections (sampler bias, LOD clamps,
    /// filters, another image size), and clones, batch after batch on one thread: each
    /// gives its own per-quad results.
    fn kernels_take_their_own() -> std::result::Result<(), String> {
        let img = noise_image(2);
        let small = noise_image(3);
        let small = {
            // 16×16: λ 2 lower for the same differences
            let mut i = Image::new_2d(Format::R8G8B8A8_UNORM, 16, 16, 1, 5).unwrap();
            let n = i.bytes_mut().len();
            i.bytes_mut().copy_from_slice(&small.bytes()[..n]);
            i
        };
        let view = ImageView::whole(&img, ViewType::D2);
        let sview = ImageView::whole(&small, ViewType::D2);
        let rows = even_rows(9, [5.0 / 64.0, 1.0 / 64.0], [0.0, 4.0 / 64.0]);
        let tri = Sampler::trilinear(AddressMode::Repeat);
        let variants = [
            tri,
            Sampler {
                mip_lod_bias: 1.5,
                ..tri
            },
            Sampler {
                min_lod: 3.0,
                ..tri
            },
            Sampler {
                max_lod: 0.25,
                ..tri
            },
            Sampler {
                mipmap_mode: MipmapMode::Nearest,
                ..tri
            },
            Sampler::default(),
        ];
        let mut ks: Vec<(Kernel, &Image)> = variants
            .iter()
            .map(|s| {
                (
                    Kernel::new(&img, &view, s, Config::default()).unwrap(),
                    &img,
                )
            })
            .collect();
        ks.push((
            Kernel::new(&small, &sview, &tri, Config::default()).unwrap(),
            &small,
        ));
        let clone = ks[1].0.clone();
        if clone.id == ks[1].0.id {
            return Err("a clone kept its kernel's id".into());
        }
        ks.push((clone, &img));
        // each after each other one
        for i in 0..ks.len() {
            for j in 0..ks.len() {
                usual_batch(&ks[i].0, ks[i].1, &rows)?;
                usual_batch(&ks[j].0, ks[j].1, &rows).map_err(|e| format!("{j} after {i}: {e}"))?;
            }
        }
        Ok(())
    }

    #[test]
    fn memo_is_not_shared_between_kernels() {
        kernels_take_their_own().unwrap();
    }

    /// One kernel, batches whose lane-0 differences differ in one component each (λ differs):
    /// each after the others gives its own per-quad results.
    fn differences_take_their_own() -> std::result::Result<(), String> {
        let img = noise_image(4);
        let view = ImageView::whole(&img, ViewType::D2);
        let a = 1.0 / 64.0;
        let batches = [
            even_rows(6, [a, 0.0], [0.0, a]),
            even_rows(6, [8.0 * a, 0.0], [0.0, a]),
            even_rows(6, [a, 0.0], [8.0 * a, a]),
            even_rows(6, [a, 8.0 * a], [0.0, a]),
            even_rows(6, [a, 0.0], [0.0, 8.0 * a]),
        ];
        for s in samplers() {
            let k = Kernel::new(&img, &view, &s, Config::default()).unwrap();
            for (i, x) in batches.iter().enumerate() {
                for (j, y) in batches.iter().enumerate() {
                    usual_batch(&k, &img, x)?;
                    usual_batch(&k, &img, y).map_err(|e| format!("{j} after {i}: {e}"))?;
                }
            }
        }
        Ok(())
    }

    #[test]
    fn memo_is_not_reused_for_other_differences() {
        differences_take_their_own().unwrap();
    }

    #[test]
    fn memo_bugs_are_caught() {
        MEMO_BUG.with(|b| b.set(1));
        let any_kernel = kernels_take_their_own();
        MEMO_BUG.with(|b| b.set(2));
        let half_key = differences_take_their_own();
        MEMO_BUG.with(|b| b.set(0));
        assert!(
            any_kernel.is_err(),
            "an entry of another kernel was not caught"
        );
        assert!(
            half_key.is_err(),
            "an entry of other t differences was not caught"
        );
        // and without the bugs both pass
        kernels_take_their_own().unwrap();
        differences_take_their_own().unwrap();
    }

    #[test]
    fn memo_after_an_image_write() {
        // the memo holds λ and levels, never texels: a write between two batches of one
        // kernel (a memo hit) reads the new texels
        let mut img = noise_image(5);
        let view = ImageView::whole(&img, ViewType::D2);
        let rows = even_rows(8, [2.0 / 64.0, 0.0], [0.0, 2.0 / 64.0]);
        for s in samplers() {
            let k = Kernel::new(&img, &view, &s, Config::default()).unwrap();
            let before = usual_batch(&k, &img, &rows).unwrap();
            for b in img.bytes_mut() {
                *b = b.wrapping_mul(7).wrapping_add(91);
            }
            let hits = MEMO_HITS.with(|h| h.get());
            let after = usual_batch(&k, &img, &rows).unwrap();
            assert!(MEMO_HITS.with(|h| h.get()) > hits, "{s:?}: no memo hit");
            assert_ne!(before, after, "{s:?}: the write changed nothing");
        }
    }

    #[test]
    fn memo_is_per_thread_and_results_do_not_depend_on_it() {
        // results on a fresh thread, on one whose memo holds another kernel's entry for
        // the same differences, and on this thread after many batches: the same bits
        let img = noise_image(6);
        let view = ImageView::whole(&img, ViewType::D2);
        let rows = even_rows(10, [3.0 / 64.0, 1.0 / 64.0], [1.0 / 64.0, 3.0 / 64.0]);
        let tri = Sampler::trilinear(AddressMode::Repeat);
        let k = Kernel::new(&img, &view, &tri, Config::default()).unwrap();
        let other = Kernel::new(
            &img,
            &view,
            &Sampler {
                mip_lod_bias: -2.0,
                ..tri
            },
            Config::default(),
        )
        .unwrap();
        let here = usual_batch(&k, &img, &rows).unwrap();
        let (fresh, after_other) = std::thread::scope(|sc| {
            let a = sc.spawn(|| usual_batch(&k, &img, &rows).unwrap());
            let b = sc.spawn(|| {
                usual_batch(&other, &img, &rows).unwrap();
                let hits = MEMO_HITS.with(|h| h.get());
                let r = usual_batch(&k, &img, &rows).unwrap();
                // the other kernel's entry is not this kernel's
                assert_eq!(MEMO_HITS.with(|h| h.get()), hits);
                r
            });
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!(here, fresh);
        assert_eq!(here, after_other);
        assert_eq!(here, usual_batch(&k, &img, &rows).unwrap());
    }

    #[test]
    fn bad_usual_batches_are_errors() {
        // the lean entry's fallbacks keep the general path's errors
        let img = noise_image(7);
        let view = ImageView::whole(&img, ViewType::D2);
        let k = Kernel::new(&img, &view, &Sampler::default(), Config::default()).unwrap();
        let rows = even_rows(2, [0.01, 0.0], [0.0, 0.01]);
        let short = [0u32; 4];
        let masks = [0xf, 0xf];
        let b = BatchArgs {
            coords: [&rows[0], &rows[1], &[], &[]],
            masks: &masks,
            lod: BatchLod::Implicit(&[]),
            dref: &[],
            offsets: [&[], &[]],
        };
        let mut out = [[0u32; 4]; 8];
        assert!(k.sample_batch(&img, &b, &mut out).is_ok());
        for bad in [
            BatchArgs {
                coords: [&rows[0], &short, &[], &[]],
                ..b
            },
            BatchArgs {
                coords: [&rows[0], &rows[1], &short, &[]],
                ..b
            },
            BatchArgs {
                coords: [&rows[0], &rows[1], &[], &short],
                ..b
            },
        ] {
            assert!(k.sample_batch(&img, &bad, &mut out).is_err());
        }
        assert!(k.sample_batch(&img, &b, &mut out[..7]).is_err());
        let other = Image::new_2d(Format::R8G8B8A8_UNORM, 64, 32, 1, 7).unwrap();
        assert!(k.sample_batch(&other, &b, &mut out).is_err());
        // a Dref row through a sampler without compareEnable: Vulkan ignores it, D3D refuses
        let d = [0u32; 8];
        let with_dref = BatchArgs { dref: &d, ..b };
        let mut plain = [[0u32; 4]; 8];
        k.sample_batch(&img, &b, &mut plain).unwrap();
        let mut ignored = [[0u32; 4]; 8];
        k.sample_batch(&img, &with_dref, &mut ignored).unwrap();
        assert_eq!(plain, ignored);
        let d3d = Config {
            policy: Policy::D3D,
            ..Config::default()
        };
        let kd = Kernel::new(&img, &view, &Sampler::default(), d3d).unwrap();
        assert!(kd.sample_batch(&img, &with_dref, &mut out).is_err());
        // no active lane, another image shape: nothing to do, nothing checked
        let none = BatchArgs {
            masks: &[0, 0],
            ..b
        };
        assert!(k.sample_batch(&other, &none, &mut out).is_ok());
    }
}
