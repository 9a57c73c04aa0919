//! The batch entry ([`Kernel::sample_batch`](super::Kernel::sample_batch)): quads in the
//! interpreter's structure-of-arrays rows (one `&[u32]` row of f32 bits per operand
//! component, lanes `4q..4q + 4` are quad `q`; a lane mask per quad).
//!
//! The one layer that reuses work between quads: λ while a quad's coarse differences
//! repeat bit for bit, the level selection (and its slots) while λ and the bias repeat, and
//! a call's first selection from a per-thread memo keyed by kernel id. Each is a function of
//! those bits alone, so reuse gives the bits computing would. Quads go through
//! [`filter::group`](super::filter::group) in units of eight lanes with AVX2, else four:
//! - a run of whole quads with one selection (and one offset on every lane): unit after unit;
//! - two whole quads of different keys, or a `Grad` batch's pair (`run_own`): one
//!   `LaneUnit`, each lane on its own levels, when they share a texel filter;
//! - any other quad alone, by its first active lane's selection when its lanes agree on λ,
//!   else through the per-quad route ([`sample::quad_lanes`](super::sample::quad_lanes)).

use super::address::by_mode;
use super::binding::{layer_index, Binding, Route};
use super::cube::faces;
use super::explain::NoRecord;
use super::filter::{group_all_cmp, group_all_of, group_of, Fast, Input, Slot, Spec};
use super::image::{Image, ViewType};
#[cfg(target_arch = "x86_64")]
use super::lanes::Avx;
use super::lanes::{four, Lanes, I};
use super::lod::{Choices, LodMode, Selection};
use super::sample::{quad_lanes, SampleArgs};
use super::source::Plane;
use std::cell::Cell;
use std::marker::PhantomData;
use wide::f32x4;

/// Quads per call the glue hands over at most: the rasterizer's fragment batch
/// (`QUAD_BATCH`), so a batch pays one entry and first selection.
pub const WIDE_QUADS: usize = 64;

/// The LOD operand of a batch, as rows of f32 bits (lane `4q + i` is quad `q`'s lane `i`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BatchLod<'a> {
    /// Implicit LOD from coarse (lane-0) derivatives, plus a per-lane shader bias row (empty:
    /// no `Bias` operand).
    Implicit(&'a [u32]),
    /// Explicit per-lane λ_base (`Lod` operand); an empty row reads as zeros.
    Explicit(&'a [u32]),
    /// λ_base = 0 (what an absent LOD operand means outside fragment shaders).
    Zero,
    /// Explicit per-lane derivatives (`Grad`), by reference (units copy the operand).
    Grad(&'a GradRows<'a>),
}

/// The rows of a `Grad` operand (f32 bits; an empty row reads as zeros).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GradRows<'a> {
    /// ∂coord/∂x, component by component.
    pub dx: [&'a [u32]; 3],
    /// ∂coord/∂y, component by component.
    pub dy: [&'a [u32]; 3],
}

impl<'a> BatchLod<'a> {
    /// The operand's rows, empty ones included (to report rows shorter than the batch).
    pub(super) fn rows(&self) -> [&'a [u32]; 6] {
        let e: &[u32] = &[];
        match *self {
            BatchLod::Implicit(r) | BatchLod::Explicit(r) => [r, e, e, e, e, e],
            BatchLod::Zero => [e; 6],
            BatchLod::Grad(&GradRows { dx, dy }) => [dx[0], dx[1], dx[2], dy[0], dy[1], dy[2]],
        }
    }
}

/// A batch of quads in structure-of-arrays form for [`Kernel::sample_batch`](super::Kernel::sample_batch).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchArgs<'a> {
    /// Coordinate rows (f32 bits) in [`SampleArgs::coords`] order. An empty row reads as
    /// zeros; others need at least `4 · masks.len()` lanes.
    pub coords: [&'a [u32]; 4],
    /// Lanes that need results, per quad (bit `i`: lane `4q + i`); its length is the quad
    /// count.
    pub masks: &'a [u8],
    /// The LOD operand.
    pub lod: BatchLod<'a>,
    /// Dref per lane (f32 bits, before the UNORM clamp); empty: none.
    pub dref: &'a [u32],
    /// Texel offsets `u`, `v` per lane (i32 bits, `ConstOffset`/`Offset`); empty rows: zero.
    pub offsets: [&'a [u32]; 2],
}

impl BatchArgs<'_> {
    /// Quad `q`'s [`SampleArgs`]: what the per-quad path is given for it.
    pub fn quad_args(&self, q: usize) -> SampleArgs {
        let row4 = |r: &[u32]| row4(r, 4 * q);
        let c = self.coords.map(row4);
        let mut a = SampleArgs::new(std::array::from_fn(|l| {
            [c[0][l], c[1][l], c[2][l], c[3][l]]
        }));
        a.lod = match self.lod {
            BatchLod::Implicit(b) => LodMode::Implicit {
                bias: row4(b),
                fine: false,
            },
            BatchLod::Explicit(r) => LodMode::Explicit(row4(r)),
            BatchLod::Zero => LodMode::Zero,
            BatchLod::Grad(g) => {
                let (x, y) = (g.dx.map(row4), g.dy.map(row4));
                LodMode::Grad {
                    dx: std::array::from_fn(|l| [x[0][l], x[1][l], x[2][l]]),
                    dy: std::array::from_fn(|l| [y[0][l], y[1][l], y[2][l]]),
                }
            }
        };
        a.mask = self.masks.get(q).copied().unwrap_or(0) & 0xf;
        if !self.dref.is_empty() {
            a.dref = Some(row4(self.dref));
        }
        let off = self.offsets.map(|r| row4(r).map(|x| x.to_bits() as i32));
        a.offsets = std::array::from_fn(|l| [off[0][l], off[1][l], 0]);
        a
    }
}

/// A batch route, chosen once per kernel: every quad of a checked batch into `out`.
pub(super) type BatchFn = fn(&Binding, &Image, &BatchArgs, &mut [[u32; 4]]);

/// Lanes `l0..l0 + 4` of `row` as f32 (zeros past its end: an empty row reads as zeros).
#[inline(always)]
fn row4(row: &[u32], l0: usize) -> [f32; 4] {
    match row.get(l0..l0 + 4) {
        Some(r) => [r[0], r[1], r[2], r[3]].map(f32::from_bits),
        None => [0.0; 4],
    }
}

/// The bits of lanes 1 and 2 of `c − c₀` for `s` and `t`: a quad's coarse differences.
#[inline(always)]
fn diffs(s: [f32; 4], t: [f32; 4]) -> [u32; 4] {
    [
        (s[1] - s[0]).to_bits(),
        (s[2] - s[0]).to_bits(),
        (t[1] - t[0]).to_bits(),
        (t[2] - t[0]).to_bits(),
    ]
}

/// Whether two quads' coarse differences are the same bits (one test, not four).
#[inline(always)]
fn same4(x: [u32; 4], y: [u32; 4]) -> bool {
    (x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) == 0
}

/// λ_base of the coarse differences of quads `q..q + 4` of rows `s`, `t` (2D, isotropic:
/// [`Binding::iso_bases_2d`]). Out of line: once per four quads that need a new λ.
#[inline(never)]
fn lambdas_2d(b: &Binding, s: &[u32], t: &[u32], q: usize) -> [f32; 4] {
    let (mut dx, mut dy) = ([[0.0f32; 4]; 2], [[0.0f32; 4]; 2]);
    for k in 0..4 {
        let d = diffs(row4(s, 4 * (q + k)), row4(t, 4 * (q + k))).map(f32::from_bits);
        (dx[0][k], dx[1][k], dy[0][k], dy[1][k]) = (d[0], d[2], d[1], d[3]);
    }
    b.iso_bases_2d(dx, dy)[0]
}

/// [`lambdas_2d`] of quads `q..q + 8` in one AVX2 evaluation ([`Binding::iso_lanes`]: the
/// same rule, so the same bits).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn lambdas_2d8(b: &Binding, s: &[u32], t: &[u32], q: usize) -> [f32; 8] {
    use crate::math::x86::F8;
    use std::arch::x86_64::*;
    // quads in lane order 0, 2, 4, 6, 1, 3, 5, 7 (in-lane shuffles), put back below
    let (sx, sy) = quad_diffs8(s, 4 * q);
    let (tx, ty) = quad_diffs8(t, 4 * q);
    let (lam, _, _) = b.iso_lanes([F8(sx), F8(tx)], [F8(sy), F8(ty)]);
    let mut out = [0.0; 8];
    // SAFETY: AVX2 (the caller's promise); `out` holds eight f32
    unsafe {
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        _mm256_storeu_ps(out.as_mut_ptr(), _mm256_permutevar8x32_ps(lam.0, order));
    }
    out
}

/// Lanes 1 and 2 less lane 0 (∂/∂x, ∂/∂y) of the eight quads of `row` from lane `l0`, in
/// lane order 0, 2, 4, 6, 1, 3, 5, 7 (a quad past the row's end reads as zeros, as in
/// [`row4`]).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn quad_diffs8(
    row: &[u32],
    l0: usize,
) -> (std::arch::x86_64::__m256, std::arch::x86_64::__m256) {
    use std::arch::x86_64::*;
    // SAFETY: AVX2 (the caller's promise); every load reads eight lanes inside `row`
    unsafe {
        let mut d = [_mm256_setzero_ps(); 4];
        for (j, d) in d.iter_mut().enumerate() {
            let l = l0 + 8 * j;
            let v = match row.get(l..l + 8) {
                Some(r) => _mm256_loadu_ps(r.as_ptr().cast()),
                None => {
                    let (a, b) = (row4(row, l), row4(row, l + 4));
                    _mm256_setr_ps(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])
                }
            };
            // each quad's lanes less its lane 0
            *d = _mm256_sub_ps(v, _mm256_permute_ps::<0>(v));
        }
        // per 128-bit half: [lanes 1, 2 of d[0]'s quad, lanes 1, 2 of d[1]'s]
        let a = _mm256_shuffle_ps::<0x99>(d[0], d[1]);
        let b = _mm256_shuffle_ps::<0x99>(d[2], d[3]);
        (
            _mm256_shuffle_ps::<0x88>(a, b),
            _mm256_shuffle_ps::<0xdd>(a, b),
        )
    }
}

/// Never called off x86-64 (no lanes there have `AVX2`).
#[cfg(not(target_arch = "x86_64"))]
unsafe fn lambdas_2d8(_: &Binding, _: &[u32], _: &[u32], _: usize) -> [f32; 8] {
    unreachable!("eight-quad λ needs AVX2")
}

/// A call's implicit 2D λ_base per quad, computed four quads at a time (eight with AVX2)
/// when first asked for. Cells: the batch loop and its runs share it by reference.
struct Lambdas<'a, L: Lanes> {
    b: &'a Binding,
    /// The `s` and `t` rows.
    s: &'a [u32],
    t: &'a [u32],
    lanes: PhantomData<L>,
    /// The first quad of those held (`usize::MAX`: none yet).
    base: Cell<usize>,
    /// Their λ_base.
    lam: Cell<[f32; 8]>,
}

impl<'a, L: Lanes> Lambdas<'a, L> {
    /// The λ of rows `s` and `t` (the token proves `L` usable).
    fn new(_: L, b: &'a Binding, s: &'a [u32], t: &'a [u32]) -> Lambdas<'a, L> {
        Lambdas {
            b,
            s,
            t,
            lanes: PhantomData,
            base: Cell::new(usize::MAX),
            lam: Cell::new([0.0; 8]),
        }
    }

    /// λ_base of quad `q`'s coarse differences.
    #[inline(always)]
    fn of(&self, q: usize) -> f32 {
        let held = if L::AVX2 { 8 } else { 4 };
        if let Some(k) = q.checked_sub(self.base.get()).filter(|&k| k < held) {
            return self.lam.get()[k];
        }
        let lam = if L::AVX2 {
            // SAFETY: `L::AVX2` holds only for AVX2's lanes, whose values (one was given to
            // `new`) exist only when the CPU has it
            unsafe { lambdas_2d8(self.b, self.s, self.t, q) }
        } else {
            let l = lambdas_2d(self.b, self.s, self.t, q);
            [l[0], l[1], l[2], l[3], 0.0, 0.0, 0.0, 0.0]
        };
        self.base.set(q);
        self.lam.set(lam);
        lam[0]
    }
}

thread_local! {
    /// The last first λ of a call on this thread: (kernel id, differences, λ bits). A
    /// plain `Cell` without destructor: a `%fs`-relative access.
    static MEMO: Cell<(u64, [u32; 4], u32)> = const { Cell::new((0, [0; 4], 0)) };
}

/// λ_base of a call's first quad `q` (differences `d`), from [`MEMO`] when it holds this
/// kernel's for these bits (ids are never reused: a clone draws a new one).
#[inline(always)]
fn first_lambda<L: Lanes>(lams: &Lambdas<L>, q: usize, d: [u32; 4]) -> f32 {
    let (id, md, lam) = MEMO.with(Cell::get);
    if id == lams.b.id.0 && same4(md, d) {
        #[cfg(test)]
        MEMO_HITS.with(|h| h.set(h.get() + 1));
        return f32::from_bits(lam);
    }
    let lam = lams.of(q);
    MEMO.with(|m| m.set((lams.b.id.0, d, lam.to_bits())));
    lam
}

/// A memoised selection: (kernel id, λ and bias bits) and what they select.
type Memoised = ((u64, u32, u32), Selection);

thread_local! {
    /// The last two selections made on this thread, the latest first (a draw's batches
    /// often alternate between two).
    static SELECTIONS: Cell<[Memoised; 2]> = const { Cell::new([((0, 0, 0), FALLBACK); 2]) };
}

/// The selection of λ_base `lam` and bias `bias` (no MinLod: it always succeeds), from
/// [`SELECTIONS`] when it holds this kernel's for these bits.
#[inline(always)]
fn selection(b: &Binding, lam: f32, bias: f32) -> Selection {
    let key = (b.id.0, lam.to_bits(), bias.to_bits());
    let m = SELECTIONS.with(Cell::get);
    if m[0].0 == key {
        return m[0].1;
    }
    if m[1].0 == key {
        SELECTIONS.with(|c| c.set([m[1], m[0]]));
        return m[1].1;
    }
    let sel = b
        .select(lam, bias, f32::NEG_INFINITY, &NoRecord)
        .unwrap_or(FALLBACK);
    SELECTIONS.with(|c| c.set([(key, sel), m[0]]));
    sel
}

#[cfg(test)]
thread_local! {
    /// Memo hits on this thread (tests).
    pub(super) static MEMO_HITS: Cell<usize> = const { Cell::new(0) };
}

/// A selection as a run's units read it: a slot per level (every lane on it), its weight.
#[derive(Clone, Copy)]
struct Units<L: Lanes> {
    /// The texel filter.
    linear: bool,
    slot: [Slot<L>; 2],
    weight: [f32; 2],
    two: bool,
    /// One level of weight 1.
    one: bool,
}

impl<L: Lanes> Units<L> {
    /// The units of selection `sel` (slot 1 is read only on two levels).
    #[inline(always)]
    fn new(l: L, b: &Binding, sel: Selection) -> Units<L> {
        let (lv, layer) = (sel.levels, b.view.base_layer);
        let two = lv.n == 2;
        let first = Slot::halves(l, b, [b.view.base_level + lv.l[0].0; 2], layer);
        let second = if two {
            Slot::halves(l, b, [b.view.base_level + lv.l[1].0; 2], layer)
        } else {
            first
        };
        Units {
            linear: sel.linear,
            slot: [first, second],
            weight: [lv.l[0].1, lv.l[1].1],
            two,
            one: !two && lv.l[0].1 == 1.0,
        }
    }
}

/// The batch route of a plane kernel's 2D (`ARRAY` 0) or 2D-array (`ARRAY` 1) view, address
/// mode `M`, in its AVX2 form when the CPU has it.
pub(super) fn plane_2d<const M: u8, const ARRAY: u8>(
    b: &Binding,
    img: &Image,
    a: &BatchArgs,
    out: &mut [[u32; 4]],
) {
    let Some(p) = img.plane() else {
        return per_quad(b, img, a, out);
    };
    #[cfg(target_arch = "x86_64")]
    if let Some(l) = Avx::new() {
        // SAFETY: `l` exists only when the CPU has AVX2
        return unsafe {
            match a.lod {
                BatchLod::Grad(g) => own_2d_avx2::<M, ARRAY>(l, b, &p.texels, a, g, out),
                _ => plane_2d_avx2::<M, ARRAY>(l, b, &p.texels, a, out),
            }
        };
    }
    match a.lod {
        BatchLod::Grad(g) => run_own::<Fast<M, false, ARRAY>, _>(four(), b, &p.texels, a, g, out),
        _ => run::<Fast<M, false, ARRAY>, _>(four(), b, &p.texels, a, out),
    }
}

/// [`plane_2d`] compiled for AVX2 (no FMA: the same roundings).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plane_2d_avx2<const M: u8, const ARRAY: u8>(
    l: Avx,
    b: &Binding,
    plane: &[f32x4],
    a: &BatchArgs,
    out: &mut [[u32; 4]],
) {
    run::<Fast<M, false, ARRAY>, _>(l, b, plane, a, out)
}

/// [`run_own`] on [`plane_2d`]'s kernels, compiled for AVX2 (apart from [`run`]'s, whose
/// code it would otherwise change).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn own_2d_avx2<const M: u8, const ARRAY: u8>(
    l: Avx,
    b: &Binding,
    plane: &[f32x4],
    a: &BatchArgs,
    g: &GradRows,
    out: &mut [[u32; 4]],
) {
    run_own::<Fast<M, false, ARRAY>, _>(l, b, plane, a, g, out)
}

/// The batch route of a cube or cube-array plane kernel whose selection cannot depend on λ,
/// in its AVX2 form when the CPU has it.
pub(super) fn plane_cube(b: &Binding, img: &Image, a: &BatchArgs, out: &mut [[u32; 4]]) {
    let Some(p) = img.plane() else {
        return per_quad(b, img, a, out);
    };
    #[cfg(target_arch = "x86_64")]
    if let Some(l) = Avx::new() {
        // SAFETY: `l` exists only when the CPU has AVX2
        return unsafe { plane_cube_avx2(l, b, &p.texels, a, out) };
    }
    run::<Fast<{ super::address::CLAMP }, true>, _>(four(), b, &p.texels, a, out)
}

/// [`plane_cube`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plane_cube_avx2(l: Avx, b: &Binding, plane: &[f32x4], a: &BatchArgs, out: &mut [[u32; 4]]) {
    run::<Fast<{ super::address::CLAMP }, true>, _>(l, b, plane, a, out)
}

/// Every quad of the batch through the kernel's per-quad route.
pub(super) fn per_quad(b: &Binding, img: &Image, a: &BatchArgs, out: &mut [[u32; 4]]) {
    let (route, _) = super::sample::pick(b);
    for q in 0..a.masks.len() {
        let mask = a.masks[q] & 0xf;
        if mask != 0 {
            let r = route(b, img, &a.quad_args(q));
            super::merge_lanes(&mut out[4 * q..4 * q + 4], &r, mask);
        }
    }
}

/// The batch loop on the plane (see the module doc), in units of `L` lanes.
#[inline(always)]
fn run<K: Spec, L: Lanes>(l: L, b: &Binding, plane: &[f32x4], a: &BatchArgs, out: &mut [[u32; 4]]) {
    let src = Plane(plane);
    let n = a.masks.len().min(out.len() / 4);
    let (masks, out) = (&a.masks[..n], &mut out[..4 * n]);
    let (implicit, lod_row) = match a.lod {
        BatchLod::Implicit(r) => (true, r),
        BatchLod::Explicit(r) => (false, r),
        // (a cube's: its selection does not depend on λ; others take `run_own`)
        BatchLod::Zero | BatchLod::Grad(_) => (false, &[][..]),
    };
    // a selection λ cannot change (always a cube's: `pick`): no λ, one key for every quad
    let fixed = K::cube(b) || b.lod_fixed();
    let lams = Lambdas::new(l, b, a.coords[0], a.coords[1]);
    let qs = QuadLods {
        lams: &lams,
        coords: [a.coords[0], a.coords[1]],
        masks,
        lod_row,
        implicit,
        fixed,
    };
    // every quad's λ comes from its coarse differences alone (or none matters), and every
    // lane has the same offsets (a cube's are ignored): runs apply, with those offsets
    let off = !(K::cube(b) || (a.offsets[0].is_empty() && a.offsets[1].is_empty()));
    let runs = !off || (one_value(a.offsets[0], 4 * n) && one_value(a.offsets[1], 4 * n));
    let by_diffs = implicit && !fixed;
    // a pair's lane unit is built in place: eight lanes' slots are half a kilobyte
    let mut prev_d: Option<([u32; 4], f32)> = None;
    let mut key_now: Option<(u32, u32)> = None;
    let mut u = Units::new(l, b, FALLBACK);
    let mut lu: Option<LaneUnit<L>> = None;
    let mut q = 0;
    while q < n {
        let mask = masks[q] & 0xf;
        if mask == 0 {
            q += 1;
            continue;
        }
        let l0 = 4 * q;
        let first = mask.trailing_zeros() as usize;
        if !qs.uniform(q, mask) {
            let r = quad_lanes::<K, _, L>(l, b, &src, plane, &a.quad_args(q));
            super::merge_lanes(&mut out[l0..l0 + 4], &r, mask);
            q += 1;
            continue;
        }
        let (lam, bias, d) = qs.lod_of(q, first, prev_d);
        prev_d = d;
        let key = qs.key_of(lam, bias);
        if key_now != Some(key) {
            // a pair of whole quads whose keys differ: one lane unit
            if qs.pair(q, mask) {
                let (lam1, bias1, d1) = qs.lod_of(q + 1, 0, prev_d);
                if qs.key_of(lam1, bias1) != key {
                    // SAFETY: `pair` holds only for AVX2's lanes, made only when the CPU
                    // has it
                    let c = unsafe { quad_choices8(b, [lam, lam1], [bias, bias1]) };
                    if let Some(lu) = LaneUnit::set(&mut lu, l, b, &c) {
                        lane_unit::<K, L>(b, plane, a, lu, &c, l0, out);
                        prev_d = d1;
                        q += 2;
                        continue;
                    }
                }
            }
            u = Units::new(l, b, selection(b, lam, bias));
            key_now = Some(key);
        }
        let start = q;
        if runs && mask == 0xf {
            let k = RunKey {
                d0: prev_d.map_or([0; 4], |p| p.0),
                lam: lam.to_bits(),
                by_diffs,
                // a fixed selection ignores the LOD operand
                lod_row: if fixed { &[] } else { lod_row },
                lod: key.1,
                lams: &lams,
            };
            q = if off {
                run_units_of::<K, L, true>(b, plane, a, &u, q, &k, out)
            } else {
                run_units_of::<K, L, false>(b, plane, a, &u, q, &k, out)
            };
        }
        if q == start {
            // this quad alone: inactive lanes take the first active lane's operands
            let idx = L::each(|k| {
                l0 + if mask >> (k % 4) & 1 != 0 {
                    k % 4
                } else {
                    first
                }
            });
            let ld = |row: &[u32]| l.i_of(|k| row.get(idx[k]).copied().unwrap_or(0) as i32);
            let i = inputs::<K, L>(l, b, a, 4, ld);
            let r = unit::<K, L>(b, plane, &u, &i, u.linear, !a.dref.is_empty());
            super::merge_lanes(&mut out[l0..l0 + 4], &[r[0], r[1], r[2], r[3]], mask);
            q += 1;
        }
    }
}

/// Whether the first `n` lanes of `row` are one value (an empty row: zeros; a short row:
/// no).
#[inline(always)]
fn one_value(row: &[u32], n: usize) -> bool {
    match row.get(..n) {
        _ if row.is_empty() => true,
        Some(r) => r.iter().fold(0, |d, &x| d | (x ^ r[0])) == 0,
        None => false,
    }
}

/// A row's first lane as i32 (an empty row reads as zeros).
#[inline(always)]
fn first_i32(row: &[u32]) -> i32 {
    row.first().map_or(0, |&x| x as i32)
}

/// What the batch loop asks of each quad's LOD operands (methods, not closures: see
/// [`lanes`](super::lanes)).
struct QuadLods<'a, L: Lanes> {
    lams: &'a Lambdas<'a, L>,
    /// The `s` and `t` rows.
    coords: [&'a [u32]; 2],
    masks: &'a [u8],
    /// The bias (implicit LOD) or explicit λ row; empty if none.
    lod_row: &'a [u32],
    implicit: bool,
    /// The selection cannot depend on the LOD operands ([`Binding::lod_fixed`]).
    fixed: bool,
}

impl<L: Lanes> QuadLods<'_, L> {
    /// λ_base and bias (or explicit λ) of quad `q` by its first active lane `first`, and
    /// the differences and λ to hand on (`pd`: the quad before's).
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn lod_of(
        &self,
        q: usize,
        first: usize,
        pd: Option<([u32; 4], f32)>,
    ) -> (f32, f32, Option<([u32; 4], f32)>) {
        let l0 = 4 * q;
        let row = row4(self.lod_row, l0);
        if self.fixed {
            (0.0, 0.0, None) // a fixed selection: λ selects nothing
        } else if self.implicit {
            let d = diffs(row4(self.coords[0], l0), row4(self.coords[1], l0));
            let lam = match pd {
                Some((pd, l)) if same4(pd, d) => l,
                None => first_lambda(self.lams, q, d),
                _ => self.lams.of(q),
            };
            (lam, row[first], Some((d, lam)))
        } else {
            (row[first], 0.0, pd)
        }
    }

    /// Whether quad `q`'s active lanes (`mask`) share its first lane's LOD operand (or it
    /// selects nothing).
    #[inline(always)]
    fn uniform(&self, q: usize, mask: u8) -> bool {
        let row = row4(self.lod_row, 4 * q);
        let first = mask.trailing_zeros() as usize;
        self.fixed
            || self.lod_row.is_empty()
            || (0..4).all(|k| mask >> k & 1 == 0 || row[k].to_bits() == row[first].to_bits())
    }

    /// The bits a run must repeat: λ_base and bias, or the explicit λ.
    #[inline(always)]
    fn key_of(&self, lam: f32, bias: f32) -> (u32, u32) {
        let second = if self.implicit { bias } else { lam };
        (lam.to_bits(), second.to_bits())
    }

    /// Whether quads `q` and `q + 1` are whole with uniform LOD operands: a pair for an
    /// eight-lane unit.
    #[inline(always)]
    fn pair(&self, q: usize, mask: u8) -> bool {
        let m = self.masks;
        L::W == 8
            && mask == 0xf
            && q + 1 < m.len()
            && m[q + 1] & 0xf == 0xf
            && self.uniform(q + 1, 0xf)
    }
}

/// The level slots of two whole quads whose lanes each select by their own λ: the lanes'
/// first and second levels (a one-level lane's second is read, not used). Remade in place
/// ([`LaneUnit::set`]), keeping the slots when the levels repeat, as neighbouring units'
/// usually do; the filter and weights are read from the unit's [`Choices`].
struct LaneUnit<L: Lanes> {
    slot: [Slot<L>; 2],
    /// Each half's level per slot ([`Slot::halves`]), or [`MIXED`].
    levels: [[u32; 2]; 2],
}

/// [`LaneUnit::levels`] of slots whose halves are not each on one level.
const MIXED: [[u32; 2]; 2] = [[u32::MAX; 2]; 2];

impl<L: Lanes> LaneUnit<L> {
    /// The unit of choices `c`, made in `unit`; `None` if the lanes disagree on the texel
    /// filter or one has the D3D out-of-range-MinLod result.
    #[inline(always)]
    fn set<'a>(unit: &'a mut Option<Self>, l: L, b: &Binding, c: &Choices<8>) -> Option<&'a Self> {
        if c.out != 0 || (c.linear != 0 && c.linear != 0xff) {
            return None;
        }
        let layer = b.view.base_layer;
        let lv = &c.level;
        let halves = by_quads(l, lv);
        let levels = if halves {
            [[lv[0][0], lv[0][4]], [lv[1][0], lv[1][4]]]
        } else {
            MIXED
        };
        if !(halves && matches!(unit, Some(u) if u.levels == levels)) {
            let slot = if halves {
                [
                    Slot::halves(l, b, levels[0], layer),
                    Slot::halves(l, b, levels[1], layer),
                ]
            } else {
                [
                    Slot::quads(l, b, quads(&lv[0]), layer),
                    Slot::quads(l, b, quads(&lv[1]), layer),
                ]
            };
            *unit = Some(LaneUnit { slot, levels });
        }
        unit.as_ref()
    }
}

/// Whether every lane of both level slots `lv` (eight lanes) has its quad's first lane's
/// level (then [`Slot::quads`] is [`Slot::halves`]).
#[inline(always)]
fn by_quads<L: Lanes>(l: L, lv: &[[u32; 8]; 2]) -> bool {
    let (a, b) = (l.f_row(&lv[0]), l.f_row(&lv[1]));
    let same = a.bits().eq(a.quad_first().bits()) & b.bits().eq(b.quad_first().bits());
    L::W == 8 && same.all()
}

/// Eight lanes' values as two quads'.
#[inline(always)]
fn quads(v: &[u32; 8]) -> [[u32; 4]; 2] {
    [[v[0], v[1], v[2], v[3]], [v[4], v[5], v[6], v[7]]]
}

/// The batch loop of a `Grad` operand on a 2D or 2D-array view: two whole quads at a time
/// as a [`LaneUnit`] when they make one (AVX2), any other quad through the per-quad route.
#[inline(always)]
fn run_own<K: Spec, L: Lanes>(
    l: L,
    b: &Binding,
    plane: &[f32x4],
    a: &BatchArgs,
    g: &GradRows,
    out: &mut [[u32; 4]],
) {
    let n = a.masks.len().min(out.len() / 4);
    let masks = &a.masks[..n];
    let mut u = None;
    let mut q = 0;
    while q < n {
        let (l0, mask) = (4 * q, masks[q] & 0xf);
        if mask == 0 {
            q += 1;
            continue;
        }
        if L::AVX2 && mask == 0xf && masks.get(q + 1).is_some_and(|m| m & 0xf == 0xf) {
            // SAFETY: `L::AVX2` holds only for the AVX2 lanes, made only when the CPU has it
            let c = unsafe { grad_choices8(b, g, l0) };
            if let Some(u) = LaneUnit::set(&mut u, l, b, &c) {
                lane_unit::<K, L>(b, plane, a, u, &c, l0, out);
                q += 2;
                continue;
            }
        }
        let r = quad_lanes::<K, _, L>(l, b, &Plane(plane), plane, &a.quad_args(q));
        super::merge_lanes(&mut out[l0..l0 + 4], &r, mask);
        q += 1;
    }
}

/// What lanes `l0..l0 + 8` select by their `Grad` derivatives ([`Binding::grad_choices`]:
/// the per-quad route's rule; a batch has no bias or `MinLod`).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn grad_choices8(b: &Binding, g: &GradRows, l0: usize) -> Choices<8> {
    use crate::math::{lanes::Float, x86::F8};
    // SAFETY: the caller promises AVX2 (an empty row reads as zeros, as `row4` has it)
    let row = |r: &[u32]| unsafe {
        match r.get(l0..l0 + 8) {
            Some(r) => F8::load_bits(r),
            None => F8::load(&[0.0; 8]),
        }
    };
    b.grad_choices([row(g.dx[0]), row(g.dx[1])], [row(g.dy[0]), row(g.dy[1])])
}

/// What two whole quads' lanes select by quad `k`'s λ_base `lam[k]` and bias `bias[k]`
/// ([`Binding::choose_lanes`]: [`selection`]'s rule).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn quad_choices8(b: &Binding, lam: [f32; 2], bias: [f32; 2]) -> Choices<8> {
    use crate::math::{lanes::Float, x86::F8};
    // SAFETY: the caller promises AVX2
    let (lam, bias) = unsafe { (F8::load(&by_quad(lam)), F8::load(&by_quad(bias))) };
    b.choose_lanes(lam, bias, lam.splat(f32::NEG_INFINITY))
}

/// Two quads' values in each of their lanes.
#[inline(always)]
fn by_quad(v: [f32; 2]) -> [f32; 8] {
    [v[0], v[0], v[0], v[0], v[1], v[1], v[1], v[1]]
}

/// Never called off x86-64 (no lanes there have `AVX2`).
#[cfg(not(target_arch = "x86_64"))]
unsafe fn grad_choices8(_: &Binding, _: &GradRows, _: usize) -> Choices<8> {
    unreachable!("eight-lane units need AVX2")
}
#[cfg(not(target_arch = "x86_64"))]
unsafe fn quad_choices8(_: &Binding, _: [f32; 2], _: [f32; 2]) -> Choices<8> {
    unreachable!("eight-lane units need AVX2")
}

/// Lanes `l0..l0 + 8` through the lane unit `u` of choices `c`, from the rows, into `out`.
#[inline(always)]
fn lane_unit<K: Spec, L: Lanes>(
    b: &Binding,
    plane: &[f32x4],
    a: &BatchArgs,
    u: &LaneUnit<L>,
    c: &Choices<8>,
    l0: usize,
    out: &mut [[u32; 4]],
) {
    let l = u.slot[0].base.lanes();
    let src = Plane(plane);
    let (cmp, linear) = (!a.dref.is_empty(), c.linear != 0);
    let i = inputs::<K, L>(l, b, a, 4, |r| run_lanes(l, r, l0));
    let v = level_group::<K, L>(b, &src, plane, linear, cmp, &u.slot[0], &i);
    let v1 = if c.two != 0 {
        level_group::<K, L>(b, &src, plane, linear, cmp, &u.slot[1], &i)
    } else {
        v
    };
    let (Some(v), Some(v1)) = (eight(&v), eight(&v1)) else {
        unreachable!("a lane unit has eight lanes")
    };
    // SAFETY: a lane unit is set only with AVX2's lanes (`L::AVX2`: `run`'s pairs and
    // `run_own`'s units), whose values exist only when the CPU has it
    let r = unsafe { lane_sums8([&c.weight[0], &c.weight[1]], c.two, b.snorm, [v, v1]) };
    for (o, r) in out[l0..l0 + 8].iter_mut().zip(r) {
        *o = r;
    }
}

/// `v` as eight values, if it has eight.
#[inline(always)]
fn eight<T: Copy>(v: &impl AsRef<[T]>) -> Option<&[T; 8]> {
    v.as_ref().try_into().ok()
}

/// A [`LaneUnit`]'s results: per lane `0 + w₀·v₀`, then `+ w₁·v₁` where bit `k` of `two`
/// is set (a select, not a sum: `0·v₁` is not nothing when `v₁` is ∞ or NaN), SNORM
/// clamped as [`finish`](super::sample::finish) does; the per-quad route's rule and order.
/// Lanes `k` and `k + 4` share a register, as the filters leave them. `#[inline(always)]`,
/// not `#[target_feature]`: that would leave it out of line.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn lane_sums8(
    w: [&[f32; 8]; 2],
    two: u8,
    snorm: bool,
    v: [&[f32x4; 8]; 2],
) -> [[u32; 4]; 8] {
    use std::arch::x86_64::*;
    // SAFETY: AVX2 (the caller's promise); no memory is read but through references
    unsafe {
        let (w0, w1) = (f8(w[0]), f8(w[1]));
        let bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        let on = _mm256_and_si256(_mm256_set1_epi32(two as i32), bit);
        let on = _mm256_castsi256_ps(_mm256_cmpeq_epi32(on, bit));
        let (zero, m1) = (_mm256_setzero_ps(), _mm256_set1_ps(-1.0));
        let mut out = [[0u32; 4]; 8];
        for k in 0..4 {
            let (a, b, c) = (spread(w0, k), spread(w1, k), spread(on, k));
            let p0 = _mm256_set_m128(v[0][k + 4].into(), v[0][k].into());
            let p1 = _mm256_set_m128(v[1][k + 4].into(), v[1][k].into());
            let one = _mm256_add_ps(zero, _mm256_mul_ps(a, p0));
            let both = _mm256_add_ps(one, _mm256_mul_ps(b, p1));
            let mut acc = _mm256_blendv_ps(one, both, c);
            if snorm {
                acc = _mm256_max_ps(acc, m1);
            }
            out[k] = bits4(_mm256_castps256_ps128(acc));
            out[k + 4] = bits4(_mm256_extractf128_ps::<1>(acc));
        }
        out
    }
}

/// Eight f32 as an AVX2 register.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn f8(a: &[f32; 8]) -> std::arch::x86_64::__m256 {
    // SAFETY: AVX2 (the caller's promise)
    unsafe { std::arch::x86_64::_mm256_setr_ps(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]) }
}

/// Lane `k` of `x` four times, then lane `k + 4` four times (`k < 4`).
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn spread(x: std::arch::x86_64::__m256, k: usize) -> std::arch::x86_64::__m256 {
    use std::arch::x86_64::_mm256_shuffle_ps as shuffle;
    // SAFETY: AVX2 (the caller's promise)
    unsafe {
        match k {
            0 => shuffle::<0x00>(x, x),
            1 => shuffle::<0x55>(x, x),
            2 => shuffle::<0xaa>(x, x),
            _ => shuffle::<0xff>(x, x),
        }
    }
}

/// Four f32's bits.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn bits4(x: std::arch::x86_64::__m128) -> [u32; 4] {
    let a = f32x4::from(x).to_array();
    [
        a[0].to_bits(),
        a[1].to_bits(),
        a[2].to_bits(),
        a[3].to_bits(),
    ]
}

/// Never called off x86-64 (no lanes there have `AVX2`).
#[cfg(not(target_arch = "x86_64"))]
unsafe fn lane_sums8(_: [&[f32; 8]; 2], _: u8, _: bool, _: [&[f32x4; 8]; 2]) -> [[u32; 4]; 8] {
    unreachable!("lane units need AVX2")
}

/// A level slot's group: [`group_all_of`] when every lane can go lane-wise, else
/// [`group_of`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn level_group<K: Spec, L: Lanes>(
    b: &Binding,
    src: &Plane,
    plane: &[f32x4],
    linear: bool,
    cmp: bool,
    slot: &Slot<L>,
    i: &Input<L>,
) -> L::A<f32x4> {
    match group_all_of::<L, K>(b, plane, linear, cmp, slot, i) {
        Some(v) => v,
        None => group_of::<L, K, _>(b, src, plane, linear, cmp, slot, i),
    }
}

/// What keeps a run of units going: each quad's λ_base has the run's bits `lam` (if
/// `by_diffs`; a quad with differences `d0` needs no λ), and every lane of `lod_row` (the
/// bias or explicit λ row, empty if none) the bits `lod`.
struct RunKey<'a, L: Lanes> {
    d0: [u32; 4],
    lams: &'a Lambdas<'a, L>,
    lam: u32,
    by_diffs: bool,
    lod_row: &'a [u32],
    lod: u32,
}

/// [`run_units`] with the texel filter, compare and one-level case as constants: one loop
/// per filter. `OFF`: the run's units take the batch's one offset.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run_units_of<K: Spec, L: Lanes, const OFF: bool>(
    b: &Binding,
    plane: &[f32x4],
    a: &BatchArgs,
    u: &Units<L>,
    q: usize,
    k: &RunKey<L>,
    out: &mut [[u32; 4]],
) -> usize {
    let one = u.one && !b.snorm;
    match (u.linear, !a.dref.is_empty(), one) {
        (false, false, true) => units::<K, L, false, false, true, OFF>(b, plane, a, u, q, k, out),
        (true, false, true) => units::<K, L, true, false, true, OFF>(b, plane, a, u, q, k, out),
        (false, true, true) => units::<K, L, false, true, true, OFF>(b, plane, a, u, q, k, out),
        (true, true, true) => units::<K, L, true, true, true, OFF>(b, plane, a, u, q, k, out),
        (false, false, false) => units::<K, L, false, false, false, OFF>(b, plane, a, u, q, k, out),
        (true, false, false) => units::<K, L, true, false, false, OFF>(b, plane, a, u, q, k, out),
        (false, true, false) => units::<K, L, false, true, false, OFF>(b, plane, a, u, q, k, out),
        (true, true, false) => units::<K, L, true, true, false, OFF>(b, plane, a, u, q, k, out),
    }
}

/// [`run_units`]: inlined into the AVX2 batch loop (compiled for AVX2 with it), out of line
/// in the plain one.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn units<K: Spec, L: Lanes, const LIN: bool, const CMP: bool, const ONE: bool, const OFF: bool>(
    b: &Binding,
    plane: &[f32x4],
    a: &BatchArgs,
    u: &Units<L>,
    q: usize,
    k: &RunKey<L>,
    out: &mut [[u32; 4]],
) -> usize {
    if L::AVX2 {
        return run_units::<K, L, LIN, CMP, ONE, OFF>(b, plane, a, u, q, k, out);
    }
    run_units_plain::<K, L, LIN, CMP, ONE, OFF>(b, plane, a, u, q, k, out)
}

/// [`run_units`] out of line.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn run_units_plain<
    K: Spec,
    L: Lanes,
    const LIN: bool,
    const CMP: bool,
    const ONE: bool,
    const OFF: bool,
>(
    b: &Binding,
    plane: &[f32x4],
    a: &BatchArgs,
    u: &Units<L>,
    q: usize,
    k: &RunKey<L>,
    out: &mut [[u32; 4]],
) -> usize {
    run_units::<K, L, LIN, CMP, ONE, OFF>(b, plane, a, u, q, k, out)
}

/// A run of units from quad `q` on, while a unit's quads are whole and keep the run's key
/// ([`RunKey`]: nothing else can change the selection): inputs straight from the rows, taken
/// as chunks of `W` lanes, through the kernel into `out`. Returns the quad that ended the
/// run (a batch with an empty `s` or `t` row has no runs).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run_units<
    K: Spec,
    L: Lanes,
    const LIN: bool,
    const CMP: bool,
    const ONE: bool,
    const OFF: bool,
>(
    b: &Binding,
    plane: &[f32x4],
    a: &BatchArgs,
    u: &Units<L>,
    mut q: usize,
    k: &RunKey<L>,
    out: &mut [[u32; 4]],
) -> usize {
    let l = u.slot[0].base.lanes();
    let per = L::W / 4;
    let n = a.masks.len().min(out.len() / 4);
    let lanes = 4 * n;
    let (s, t) = (a.coords[0], a.coords[1]);
    if s.len() < lanes || t.len() < lanes || q >= n {
        return q;
    }
    let l0 = 4 * q;
    let (r0, r1, r2, r3) = (
        unit_rows::<L>(s, l0..lanes),
        unit_rows::<L>(t, l0..lanes),
        unit_rows::<L>(a.coords[2], l0..lanes),
        unit_rows::<L>(a.coords[3], l0..lanes),
    );
    let (r4, r5) = (
        unit_rows::<L>(a.dref, l0..lanes),
        unit_rows::<L>(k.lod_row, l0..lanes),
    );
    let has = [
        !a.coords[2].is_empty(),
        !a.coords[3].is_empty(),
        !k.lod_row.is_empty(),
    ];
    let mut w = want(l, k.d0);
    let lod = l.i(k.lod as i32);
    let off = if OFF {
        Some((
            b.offset_lanes(l.i(first_i32(a.offsets[0])), 4),
            b.offset_lanes(l.i(first_i32(a.offsets[1])), 4),
        ))
    } else {
        None
    };
    let (masks, out) = (&a.masks[q..n], &mut out[l0..lanes]);
    let e: &[u32] = &[];
    // (the rows every unit reads zipped, the others read by index where used: a chain of
    // eight zipped iterators is left out of line)
    let units = r0
        .iter()
        .zip(r1)
        .zip(masks.chunks_exact(per))
        .zip(out.chunks_exact_mut(L::W));
    for (x, (((c0, c1), m), o)) in units.enumerate() {
        if !m.iter().fold(true, |ok, &m| ok & (m & 0xf == 0xf)) {
            break;
        }
        let ua = BatchArgs {
            coords: [
                c0.as_ref(),
                c1.as_ref(),
                unit_row(r2, x, has[0]),
                unit_row(r3, x, has[1]),
            ],
            masks: m,
            lod: a.lod,
            dref: unit_row(r4, x, CMP),
            offsets: [e, e],
        };
        let mut i = inputs::<K, L>(l, b, &ua, 4, |row| {
            if row.is_empty() {
                l.i(0)
            } else {
                l.f_row(row).bits()
            }
        });
        if OFF {
            i.off = off;
        }
        if k.by_diffs && !same_diffs(&i, &w) {
            // other differences: the run goes on while they give its λ
            match same_lambda::<L>(k.lams, q, i.s.arr(), i.t.arr(), k.lam) {
                Some(d) => w = want(l, d),
                None => break,
            }
        }
        if has[2] && !l.f_row(unit_row(r5, x, true)).bits().eq(lod).all() {
            break;
        }
        match unit_all::<K, L, ONE>(b, plane, u, &i, LIN, CMP) {
            Some(r) => {
                // (quad by quad: a slice copy is left as a `memcpy` call)
                for (k, o) in o.as_chunks_mut::<4>().0.iter_mut().enumerate() {
                    *o = [r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3]];
                }
            }
            None => unit_parts::<K, L>(b, plane, u, i, LIN, CMP, o),
        }
        q += per;
    }
    q
}

/// Lanes `lanes` of `row` as units of `W` lanes (none if it is shorter).
#[inline(always)]
pub(super) fn unit_rows<L: Lanes>(row: &[u32], lanes: std::ops::Range<usize>) -> &[L::A<u32>] {
    L::units(row.get(lanes).unwrap_or(&[]))
}

/// Unit `x` of the rows `r` if `used` and there, else empty.
#[inline(always)]
pub(super) fn unit_row<T: AsRef<[u32]>>(r: &[T], x: usize, used: bool) -> &[u32] {
    match r.get(x) {
        Some(r) if used => r.as_ref(),
        _ => &[],
    }
}

/// Lanes `l0..l0 + W` of `row`; an empty row reads as zeros.
#[inline(always)]
pub(super) fn run_lanes<L: Lanes>(l: L, row: &[u32], l0: usize) -> I<L> {
    match row.get(l0..l0 + L::W) {
        Some(r) => l.f_row(r).bits(),
        None => l.i(0),
    }
}

/// Differences `d` lane-wise, for [`same_diffs`] (in lanes 1 and 2 of each quad).
#[inline(always)]
fn want<L: Lanes>(l: L, d: [u32; 4]) -> (I<L>, I<L>) {
    (
        l.i_of(|k| if k & 3 == 2 { d[1] } else { d[0] } as i32),
        l.i_of(|k| if k & 3 == 2 { d[3] } else { d[2] } as i32),
    )
}

/// The unit's last quad's coarse differences if every quad's λ_base (unit from quad `q0`,
/// coordinates `s`, `t`) has the bits `lam`. Out of line: once per change of differences.
#[cold]
#[inline(never)]
fn same_lambda<L: Lanes>(
    lams: &Lambdas<L>,
    q0: usize,
    s: L::A<f32>,
    t: L::A<f32>,
    lam: u32,
) -> Option<[u32; 4]> {
    let mut last: Option<[u32; 4]> = None;
    for k in 0..L::W / 4 {
        let q = |v: &L::A<f32>| [v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]];
        let d = diffs(q(&s), q(&t));
        if last != Some(d) && lams.of(q0 + k).to_bits() != lam {
            return None;
        }
        last = Some(d);
    }
    last
}

/// The lanes [`same_diffs`] does not compare (lanes 0 and 3 of each quad), as bits.
const SKIP: u32 = 0x9999_9999;

/// Whether each quad of the unit has the coarse differences `w` (one move-mask).
#[inline(always)]
fn same_diffs<L: Lanes>(i: &Input<L>, w: &(I<L>, I<L>)) -> bool {
    let (ds, dt) = (i.s - i.s.quad_first(), i.t - i.t.quad_first());
    let eq = (ds.bits().eq(w.0) & dt.bits().eq(w.1)).bits();
    let full = (1u32 << L::W) - 1;
    (eq | SKIP) & full == full
}

/// A unit's inputs from checked rows (`ld`: a row's lanes for the unit): coordinates (a
/// cube's face coordinates, layer `6·cube + face`), array layers, offsets (D3D: their low
/// `bits` bits), Dref after its clamp.
#[inline(always)]
pub(super) fn inputs<K: Spec, L: Lanes>(
    l: L,
    b: &Binding,
    a: &BatchArgs,
    bits: u32,
    ld: impl Fn(&[u32]) -> I<L>,
) -> Input<L> {
    let view = &b.view;
    let (mut s, mut t) = (ld(a.coords[0]).as_f32_bits(), ld(a.coords[1]).as_f32_bits());
    let mut face = l.i(0);
    let layer = if K::cube(b) {
        let f = faces(s, t, ld(a.coords[2]).as_f32_bits());
        (s, t) = f.st();
        face = f.face;
        if view.view_type == ViewType::CubeArray {
            let c = ld(a.coords[3]).as_f32_bits().arr();
            Some(l.i_of(|k| 6 * layer_index(c[k], view.layer_count / 6) as i32) + face)
        } else {
            Some(face)
        }
    } else if K::array(b) {
        let c = ld(a.coords[2]).as_f32_bits().arr();
        Some(l.i_of(|k| layer_index(c[k], view.layer_count) as i32))
    } else {
        None
    };
    let off = if !K::cube(b) && a.offsets.iter().any(|r| !r.is_empty()) {
        Some((
            b.offset_lanes(ld(a.offsets[0]), bits),
            b.offset_lanes(ld(a.offsets[1]), bits),
        ))
    } else {
        None
    };
    let dref = if a.dref.is_empty() {
        l.f(0.0)
    } else {
        b.dref_lanes(ld(a.dref).as_f32_bits())
    };
    Input {
        s,
        t,
        off,
        layer,
        face,
        dref,
    }
}

/// A selection nothing selects (the batch has no MinLod, so `select` never declines).
const FALLBACK: Selection = Selection {
    linear: false,
    levels: super::lod::Levels {
        l: [(0, 1.0), (0, 0.0)],
        n: 1,
    },
};

/// One unit through the kernel: the results' bits lane by lane ([`sum`]). `linear` is
/// the texel filter, a parameter so that a caller's constant folds.
#[inline(always)]
fn unit<K: Spec, L: Lanes>(
    b: &Binding,
    plane: &[f32x4],
    u: &Units<L>,
    q: &Input<L>,
    linear: bool,
    cmp: bool,
) -> L::A<[u32; 4]> {
    match unit_all::<K, L, false>(b, plane, u, q, linear, cmp) {
        Some(r) => r,
        None => {
            let mut r = L::each(|_| [0; 4]);
            unit_parts::<K, L>(b, plane, u, *q, linear, cmp, r.as_mut());
            r
        }
    }
}

/// [`unit()`] when every group goes lane-wise, else `None`. `ONE`: one level of weight 1
/// and no SNORM clamp ([`Units::one`]).
#[inline(always)]
fn unit_all<K: Spec, L: Lanes, const ONE: bool>(
    b: &Binding,
    plane: &[f32x4],
    u: &Units<L>,
    q: &Input<L>,
    linear: bool,
    cmp: bool,
) -> Option<L::A<[u32; 4]>> {
    if ONE && cmp {
        // `0 + 1·(c, 0, 0, 1)` is `(0 + c, 0, 0, 1)`
        let c = if linear {
            group_all_cmp::<L, K, true>(b, plane, &u.slot[0], q)
        } else {
            group_all_cmp::<L, K, false>(b, plane, &u.slot[0], q)
        }?;
        let l = c.lanes();
        let (zero, one) = (l.f(0.0), l.f(1.0).bits().raw());
        let c = (zero + c).bits().raw();
        return Some(l.rows(c, zero.bits().raw(), zero.bits().raw(), one));
    }
    let v = group_all_of::<L, K>(b, plane, linear, cmp, &u.slot[0], q)?;
    if ONE {
        // `0 + 1·v` is `0 + v` (exact; a NaN quieted alike)
        let zero = f32x4::splat(0.0);
        return Some(L::each(|k| (zero + v[k]).to_array().map(f32::to_bits)));
    }
    let v1 = if u.two {
        Some(group_all_of::<L, K>(b, plane, linear, cmp, &u.slot[1], q)?)
    } else {
        None
    };
    Some(sum(b, u, v, v1))
}

/// [`unit()`] with some lanes on the lane-by-lane rules, into `out`: rare, out of line.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn unit_parts<K: Spec, L: Lanes>(
    b: &Binding,
    plane: &[f32x4],
    u: &Units<L>,
    q: Input<L>,
    linear: bool,
    cmp: bool,
    out: &mut [[u32; 4]],
) {
    let src = Plane(plane);
    let v = group_of::<L, K, _>(b, &src, plane, linear, cmp, &u.slot[0], &q);
    let v1 = u
        .two
        .then(|| group_of::<L, K, _>(b, &src, plane, linear, cmp, &u.slot[1], &q));
    let r = sum(b, u, v, v1);
    for (o, r) in out.iter_mut().zip(r.as_ref()) {
        *o = *r;
    }
}

/// A unit's levels summed as `0 + w·v` (then `+ w·v1`), SNORM results clamped: the
/// results' bits.
#[inline(always)]
fn sum<L: Lanes>(
    b: &Binding,
    u: &Units<L>,
    v: L::A<f32x4>,
    v1: Option<L::A<f32x4>>,
) -> L::A<[u32; 4]> {
    let l = u.slot[0].base.lanes();
    let zero = f32x4::splat(0.0);
    let mut acc = if u.one {
        // `0 + 1·v` is `0 + v` (exact; a NaN quieted alike)
        L::each(|k| zero + v[k])
    } else {
        l.axpy(L::each(|_| zero), [u.weight[0]; 2], v)
    };
    if let Some(v) = v1 {
        acc = l.axpy(acc, [u.weight[1]; 2], v);
    }
    if b.snorm {
        // `fast_max` is `maxps`: −1 for a NaN lane, as `f32::max(x, −1)`
        let m = f32x4::splat(-1.0);
        acc = L::each(|k| acc[k].fast_max(m));
    }
    L::each(|k| acc[k].to_array().map(f32::to_bits))
}

/// The batch route of a binding: the batch loop on the plane for lane-wise isotropic 2D
/// and 2D-array views (one instantiation per address mode of both axes) and cube views
/// whose selection cannot depend on λ, else the per-quad route.
pub(super) fn pick(b: &Binding) -> (BatchFn, Route) {
    let m = b.mode_2d();
    if !b.lanewise() || b.aniso.is_some() {
        (per_quad, Route::General)
    } else if b.cube {
        if b.lod_fixed() {
            (plane_cube, Route::Cube)
        } else {
            (per_quad, Route::General)
        }
    } else {
        (
            if b.view.view_type == ViewType::D2Array {
                by_mode!(m, plane_2d, 1)
            } else {
                by_mode!(m, plane_2d, 0)
            },
            Route::Plane(super::address::instance(m)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::testgen::Rng;
    use super::super::{Config, Format, Image, ImageView, Sampler, ViewType};
    use super::*;

    /// Eight quads' λ at once is each quad's isotropic λ_base by the scalar rule
    /// ([`Binding::lod_from_derivs_2d`] of its coarse differences), bit for bit, in quad order,
    /// with the quads not wholly in a row read as zeros.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn eight_quads_lambda_is_the_scalar_rule() {
        if !crate::cpu::avx2() {
            return;
        }
        let img = Image::new_2d(Format::R8G8B8A8_UNORM, 64, 32, 1, 7).unwrap();
        let view = ImageView::whole(&img, ViewType::D2);
        let b = Binding::new(&img, &view, &Sampler::default(), Config::default()).unwrap();
        let mut r = Rng::new(7);
        for _ in 0..400 {
            let n = 4 * r.below(12) as usize + r.below(4) as usize;
            let row = |r: &mut Rng| -> Vec<u32> {
                let scale = [1e-3, 0.1, 10.0, 1e4][r.below(4) as usize];
                (0..n)
                    .map(|_| match r.below(40) {
                        0 => f32::NAN,
                        1 => f32::INFINITY,
                        _ => r.f(-1.0, 1.0) * scale,
                    })
                    .map(f32::to_bits)
                    .collect()
            };
            let (s, t) = (row(&mut r), row(&mut r));
            let q = r.below(3) as usize;
            // SAFETY: the CPU has AVX2 (checked above)
            let got = unsafe { lambdas_2d8(&b, &s, &t, q) };
            for (k, got) in got.into_iter().enumerate() {
                let lane = |row: &[u32], i: usize| match row.get(4 * (q + k)..4 * (q + k + 1)) {
                    Some(c) => f32::from_bits(c[i]),
                    None => 0.0,
                };
                let d = |row: &[u32], i: usize| lane(row, i) - lane(row, 0);
                let want = b
                    .lod_from_derivs_2d([d(&s, 1), d(&t, 1), 0.0], [d(&s, 2), d(&t, 2), 0.0], false)
                    .lambda;
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "quad {k} of {q}, rows of {n}"
                );
            }
        }
    }

    /// A lane unit's sums, eight lanes at once, are the per-lane rule computed here lane by
    /// lane and channel by channel in scalar f32 (`0 + w₀·v₀`, then `+ w₁·v₁` on a lane of two
    /// levels only; SNORM: `max(x, −1)`), bit for bit but for a NaN's payload and sign, on
    /// hostile values: NaN, ∞, −0, denormals, weights 0 and 1.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn lane_sums_are_the_lane_rule() {
        if !crate::cpu::avx2() {
            return;
        }
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            -1.5,
            0.3,
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-40,
            -1e-40,
            f32::MAX,
            -f32::MAX,
            f32::MIN_POSITIVE,
        ];
        let weights = [0.0, 1.0, -0.0, 0.5, 0.25, 0.999_999_9, 1e-40, 1e-7];
        let mut r = Rng::new(11);
        for _ in 0..4000 {
            let mut v = [[f32x4::splat(0.0); 8]; 2];
            let mut raw = [[[0.0f32; 4]; 8]; 2];
            for (v, raw) in v.iter_mut().zip(raw.iter_mut()) {
                for (v, raw) in v.iter_mut().zip(raw.iter_mut()) {
                    *raw = std::array::from_fn(|_| {
                        if r.chance(50) {
                            r.pick(&values)
                        } else {
                            r.f(-2.0, 2.0)
                        }
                    });
                    *v = f32x4::from(*raw);
                }
            }
            let w: [[f32; 8]; 2] = std::array::from_fn(|_| {
                std::array::from_fn(|_| {
                    if r.chance(60) {
                        r.pick(&weights)
                    } else {
                        r.f(0.0, 1.0)
                    }
                })
            });
            let (two, snorm) = (r.byte(), r.chance(50));
            // SAFETY: the CPU has AVX2 (checked above)
            let got = unsafe { lane_sums8([&w[0], &w[1]], two, snorm, [&v[0], &v[1]]) };
            for k in 0..8 {
                for c in 0..4 {
                    let mut x = 0.0 + w[0][k] * raw[0][k][c];
                    if two >> k & 1 != 0 {
                        x += w[1][k] * raw[1][k][c];
                    }
                    if snorm {
                        x = x.max(-1.0);
                    }
                    // (which NaN a sum of two NaNs gives is not fixed: the compiler may
                    // swap the operands of `+`; a NaN result is compared as NaN)
                    let nan = |b: u32| f32::from_bits(b).is_nan();
                    let got = if nan(got[k][c]) && x.is_nan() {
                        x.to_bits()
                    } else {
                        got[k][c]
                    };
                    assert_eq!(
                        got,
                        x.to_bits(),
                        "lane {k} channel {c}: w {:?}, v {:?}, two {two:#x}",
                        [w[0][k], w[1][k]],
                        [raw[0][k][c], raw[1][k][c]]
                    );
                }
            }
        }
    }

    /// A depth format for a compare case, else a colour one.
    fn format_of(depth: bool) -> Format {
        if depth {
            Format::D32_SFLOAT
        } else {
            Format::R8G8B8A8_UNORM
        }
    }

    /// Every active lane of batch `a` through `k` is the general path's, bit for bit (`ctx`
    /// names the case).
    fn assert_general(
        k: &super::super::Kernel,
        img: &Image,
        a: &BatchArgs,
        ctx: impl std::fmt::Debug,
    ) {
        let mut out = vec![[0u32; 4]; 4 * a.masks.len()];
        k.sample_batch(img, a, &mut out).unwrap();
        for (q, &m) in a.masks.iter().enumerate() {
            let want = k.sample_general(img, &a.quad_args(q)).unwrap();
            for l in (0..4).filter(|l| m >> l & 1 != 0) {
                assert_eq!(out[4 * q + l], want[l], "{ctx:?} quad {q} lane {l}");
            }
        }
    }

    /// A batch on a binding whose selection λ cannot change (one level, one texel filter)
    /// takes that selection for every quad: with offsets (one value on every lane, which
    /// runs take, or lanes that differ; Vulkan's or D3D's) or none, Dref or none, λ varying
    /// from quad to quad, per-lane bias or explicit λ, every active lane is the general
    /// path's, bit for bit.
    #[test]
    fn fixed_selection_batches_are_the_general_path() {
        use super::super::testgen as gen;
        use super::super::{CompareOp, Filter, Kernel, Policy};
        let mut r = Rng::new(31);
        for case in 0..256 {
            let depth = case % 2 == 1;
            let fmt = format_of(depth);
            let (w, h) = (1 + r.below(40) as u32, 1 + r.below(24) as u32);
            let img = gen::image(&mut r, fmt, w, h, 1, 1);
            let view = ImageView::whole(&img, ViewType::D2);
            let f = r.pick(&[Filter::Linear, Filter::Nearest]);
            let s = Sampler {
                min_filter: f,
                mag_filter: f,
                address_mode: gen::modes(&mut r),
                compare_enable: depth,
                compare_op: CompareOp::LessOrEqual,
                mip_lod_bias: r.pick(&[0.0, 1.5, -3.0]),
                ..Sampler::default()
            };
            // (D3D keeps an offset's low four bits)
            let policy = r.pick(&[Policy::Vulkan, Policy::D3D]);
            let cfg = Config {
                policy,
                ..Config::default()
            };
            assert!(Binding::new(&img, &view, &s, cfg).unwrap().lod_fixed());
            let k = Kernel::new(&img, &view, &s, cfg).unwrap();
            let quads = 1 + r.below(WIDE_QUADS as u64) as usize;
            let (mut s_row, mut t_row, mut lod_row, mut dref) = (vec![], vec![], vec![], vec![]);
            let (mut u_row, mut v_row, mut masks) = (vec![], vec![], vec![]);
            for _ in 0..quads {
                // a footprint from far magnified to far minified, quad by quad
                let d = r.pick(&[1e-4, 1e-2, 0.1, 2.0]) * r.f(0.5, 1.0);
                let (s0, t0) = (r.f(-0.3, 1.3), r.f(-0.3, 1.3));
                s_row.extend([s0, s0 + d, s0, s0 + d].map(f32::to_bits));
                t_row.extend([t0, t0, t0 + d, t0 + d].map(f32::to_bits));
                for _ in 0..4 {
                    let v = match r.below(12) {
                        0 => f32::NAN,
                        1 => f32::INFINITY,
                        2 => f32::NEG_INFINITY,
                        _ => r.f(-6.0, 6.0),
                    };
                    lod_row.push(v.to_bits());
                    dref.push(r.f(-0.2, 1.2).to_bits());
                    u_row.push((r.below(16) as i32 - 8) as u32);
                    v_row.push((r.below(16) as i32 - 8) as u32);
                }
                masks.push(if r.chance(80) { 0xf } else { r.below(16) as u8 });
            }
            if !depth {
                dref.clear();
            }
            // offsets: none, one value on every lane (the runs take it: far enough to leave
            // the level, D3D's past four bits), one axis of them, or lanes that differ
            let o = [r.below(48) as i32 - 24, r.below(48) as i32 - 24].map(|o| o as u32);
            match r.below(4) {
                0 => (u_row.clear(), v_row.clear()),
                1 => (u_row.fill(o[0]), v_row.fill(o[1])),
                2 => (u_row.fill(o[0]), v_row.clear()),
                _ => ((), ()),
            };
            let lod = match r.below(4) {
                0 => BatchLod::Implicit(&[]),
                1 => BatchLod::Implicit(&lod_row),
                2 => BatchLod::Explicit(&lod_row),
                _ => BatchLod::Zero,
            };
            let a = BatchArgs {
                coords: [&s_row, &t_row, &[], &[]],
                masks: &masks,
                lod,
                dref: &dref,
                offsets: [&u_row, &v_row],
            };
            assert_general(&k, &img, &a, (case, cfg));
        }
    }

    /// A batch of `Grad` derivatives whose pairs of quads keep their levels for a while,
    /// then change them, or have a quad's lanes on different levels (the lane unit's slots
    /// kept, rebuilt, or built lane by lane), trilinear and nearest-mipmapped, with and
    /// without Dref: every active lane is the general path's, bit for bit.
    #[test]
    fn grad_batches_are_the_general_path() {
        use super::super::{testgen as gen, CompareOp, Filter, Kernel, MipmapMode};
        let mut r = Rng::new(47);
        for case in 0..96 {
            let (w, h) = (8 << r.below(4), 8 << r.below(3));
            let depth = case % 2 == 1;
            let img = gen::image(&mut r, format_of(depth), w, h, 1, 4);
            let view = ImageView::whole(&img, ViewType::D2);
            let s = Sampler {
                min_filter: Filter::Linear,
                mag_filter: r.pick(&[Filter::Linear, Filter::Nearest]),
                mipmap_mode: r.pick(&[MipmapMode::Linear, MipmapMode::Nearest]),
                address_mode: gen::modes(&mut r),
                compare_enable: depth,
                compare_op: CompareOp::LessOrEqual,
                ..Sampler::default()
            };
            let k = Kernel::new(&img, &view, &s, Config::default()).unwrap();
            let quads = 2 + r.below(WIDE_QUADS as u64 - 1) as usize;
            let mut rows: [Vec<u32>; 7] = Default::default();
            let mut masks = vec![];
            // a footprint kept for a few quads, then another; sometimes one lane's own
            let mut g = 1.0 / w as f32;
            for _ in 0..quads {
                if r.chance(25) {
                    g = r.pick(&[0.3, 1.0, 2.5, 6.0, 20.0]) / w as f32;
                }
                let (s0, t0) = (r.f(-0.2, 1.2), r.f(-0.2, 1.2));
                for (i, row) in rows.iter_mut().enumerate() {
                    let mut v = match i {
                        0 => [s0, s0 + g, s0, s0 + g],
                        1 => [t0, t0, t0 + g, t0 + g],
                        2 => gen::lane4(&mut r, -0.2, 1.2),
                        3 | 6 => [g * r.f(0.9, 1.1); 4],
                        _ => [0.0; 4],
                    };
                    if i >= 3 && r.chance(10) {
                        v[r.below(4) as usize] = g * r.f(0.1, 8.0);
                    }
                    row.extend(v.map(f32::to_bits));
                }
                masks.push(if r.chance(90) { 0xf } else { r.below(16) as u8 });
            }
            if !depth {
                rows[2].clear();
            }
            let grad = GradRows {
                dx: [&rows[3], &rows[4], &[]],
                dy: [&rows[5], &rows[6], &[]],
            };
            let a = BatchArgs {
                coords: [&rows[0], &rows[1], &[], &[]],
                masks: &masks,
                lod: BatchLod::Grad(&grad),
                dref: &rows[2],
                offsets: [&[], &[]],
            };
            assert_general(&k, &img, &a, case);
        }
    }

    /// [`by_quads`] holds exactly when every quad of both slots has one level, as
    /// [`Slot::quads`] asks it lane by lane.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn by_quads_is_each_quad_on_one_level() {
        let Some(l) = Avx::new() else {
            return;
        };
        let mut r = Rng::new(5);
        for _ in 0..2000 {
            let mut lv = [[r.below(3) as u32; 8]; 2];
            for _ in 0..r.below(3) {
                let (s, k) = (r.below(2) as usize, r.below(8) as usize);
                lv[s][k] = r.below(3) as u32;
            }
            let want = lv
                .iter()
                .all(|s| s[..4].iter().all(|&x| x == s[0]) && s[4..].iter().all(|&x| x == s[4]));
            assert_eq!(by_quads(l, &lv), want, "{lv:?}");
        }
    }
}
