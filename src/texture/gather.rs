//! Gather (`OpImageGather`, `OpImageDrefGather`; sampling.md §6.3): the 2×2 footprint of
//! the linear filter at the view's base level, one component (or each texel's Dref
//! comparison) per texel, no filtering and no LOD. Cube corners get the average of the real
//! texels.
//!
//! [`quad`] is the general path (one lane at a time, every rule at run time), generic over
//! the [`Recorder`] that `Kernel::explain_gather` fills.

use super::address::{self, by_mode};
use super::batch::{inputs, unit_row, unit_rows, BatchArgs, BatchLod};
use super::binding::{Binding, Route};
use super::cube::remap_edge_step;
use super::explain::{FootprintExplain, NoRecord, Recorder, TapExplain, Texel};
use super::filter::{plane_taps, reads_channel, At, Fast, Input, Slot, Spec, Taps};
use super::format::NumKind;
use super::image::{self, Image, ViewType};
use super::lanes::fl;
#[cfg(target_arch = "x86_64")]
use super::lanes::Avx;
use super::lanes::{four, Lanes, Quad, F, I};
use super::sampler::{compare, CompareOp};
use super::source::{Bytes, Plane, Source};
use super::QuadBits;
use wide::f32x4;

/// Gather offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GatherOffsets {
    /// No offset.
    #[default]
    None,
    /// `ConstOffset`/`Offset`: one (u, v) offset per lane, added to the footprint.
    Offset([[i32; 2]; 4]),
    /// `ConstOffsets`: component k is the texel at `(i0, j0) + offsets[k]` (SPIR-V rule:
    /// relative to the footprint's top-left texel, for every component).
    Four([[i32; 2]; 4]),
}

/// Inputs of `OpImageGather` / `OpImageDrefGather` for a quad (coordinates as
/// [`SampleArgs`](super::SampleArgs)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GatherArgs {
    /// Per-lane coordinates.
    pub coords: [[f32; 4]; 4],
    /// Component to gather, 0..=3 (ignored with Dref, which compares the depth/R component).
    pub component: u32,
    /// Offsets.
    pub offsets: GatherOffsets,
    /// Per-lane depth reference.
    pub dref: Option<[f32; 4]>,
    /// Lanes that need results.
    pub mask: u8,
}

impl GatherArgs {
    /// Gather of `component`, no offsets, all lanes.
    pub fn new(coords: [[f32; 4]; 4], component: u32) -> GatherArgs {
        GatherArgs {
            coords,
            component,
            offsets: GatherOffsets::None,
            dref: None,
            mask: 0xf,
        }
    }
}

/// The offset operand of a batch of gathers ([`GatherBatchArgs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchGatherOffsets<'a> {
    /// No offset.
    None,
    /// `ConstOffset`/`Offset`: `u`, `v` rows of i32 bits (lane `4q + i` is quad `q`'s lane
    /// `i`); an empty row reads as zeros.
    Offset([&'a [u32]; 2]),
    /// `ConstOffsets`: the same four offsets for every quad.
    Four([[i32; 2]; 4]),
}

/// A batch of gathers for [`Kernel::gather_batch`](super::Kernel::gather_batch), in rows as
/// [`BatchArgs`]'s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GatherBatchArgs<'a> {
    /// Coordinate rows in [`GatherArgs::coords`] order (`s, t` then the layer of 2D arrays).
    pub coords: [&'a [u32]; 4],
    /// Lanes that need results, per quad (bit `i`: lane `4q + i`); its length is the quad
    /// count.
    pub masks: &'a [u8],
    /// The component operand: quad `q` gathers component `component[4q]` (its lane 0, as
    /// the per-quad form takes it); empty: component 0.
    pub component: &'a [u32],
    /// The offsets.
    pub offsets: BatchGatherOffsets<'a>,
    /// Dref per lane (f32 bits); empty: none.
    pub dref: &'a [u32],
}

impl GatherBatchArgs<'_> {
    /// Quad `q`'s [`GatherArgs`]: what the per-quad path is given for it.
    pub fn quad_args(&self, q: usize) -> GatherArgs {
        let row4 = |r: &[u32]| -> [u32; 4] {
            match r.get(4 * q..4 * q + 4) {
                Some(s) => [s[0], s[1], s[2], s[3]],
                None => [0; 4],
            }
        };
        let c = self.coords.map(|r| row4(r).map(f32::from_bits));
        GatherArgs {
            coords: std::array::from_fn(|l| [c[0][l], c[1][l], c[2][l], c[3][l]]),
            component: self.component.get(4 * q).copied().unwrap_or(0),
            offsets: match self.offsets {
                BatchGatherOffsets::None => GatherOffsets::None,
                BatchGatherOffsets::Offset([u, v]) => {
                    let (u, v) = (row4(u), row4(v));
                    GatherOffsets::Offset(std::array::from_fn(|l| [u[l] as i32, v[l] as i32]))
                }
                BatchGatherOffsets::Four(o) => GatherOffsets::Four(o),
            },
            dref: (!self.dref.is_empty()).then(|| row4(self.dref).map(f32::from_bits)),
            mask: self.masks.get(q).copied().unwrap_or(0) & 0xf,
        }
    }
}

/// The general path of a gather: the quad lane by lane from the image's bytes (the operand
/// checks are the caller's; a Dref operand here compares).
pub(super) fn quad<R: Recorder>(b: &Binding, img: &Image, a: &GatherArgs, rec: &R) -> QuadBits {
    let src = Bytes(img.bytes());
    let mut out = [[0u32; 4]; 4];
    for (l, o) in out.iter_mut().enumerate() {
        if a.mask & (1 << l) != 0 {
            *o = lane(b, &src, a, l, rec);
        }
    }
    out
}

/// Lane `l` of a gather by every rule: the footprint at the base level (offsets of either
/// form), each tap wrapped per axis (border: its raw bits) or, on a cube, moved to the
/// neighbouring face, compared if Dref, the missing tap of a cube corner the average of the
/// others.
#[inline(always)]
pub(super) fn lane<S: Source, R: Recorder>(
    b: &Binding,
    src: &S,
    a: &GatherArgs,
    l: usize,
    rec: &R,
) -> [u32; 4] {
    let level = b.view.base_level;
    if R::ON {
        rec.lane(l, a.coords[l]);
    }
    let (st, layer, face) = b.locate(&a.coords[l]);
    let at = At::new(b, src, level, layer, face);
    let one = match a.offsets {
        GatherOffsets::Offset(o) => b.offset_bits([o[l][0], o[l][1], 0], 6),
        _ => [0; 3],
    };
    let u = b.to_texel(level, st, one);
    let i0 = fl(b.snap(u[0] - 0.5));
    let j0 = if b.dims >= 2 {
        fl(b.snap(u[1] - 0.5))
    } else {
        0
    };
    let pos: [[i32; 2]; 4] = match a.offsets {
        GatherOffsets::Four(o) => o.map(|d| {
            let d = b.offset_bits([d[0], d[1], 0], 6);
            [i0.saturating_add(d[0]), j0.saturating_add(d[1])]
        }),
        _ => {
            let (i1, j1) = (i0.saturating_add(1), j0.saturating_add(1));
            [[i0, j1], [i1, j1], [i1, j0], [i0, j0]]
        }
    };
    let dref = a.dref.map(|d| b.dref_value(d[l]));
    if R::ON {
        rec.located(b.cube.then_some(face), layer, dref);
        rec.footprint(FootprintExplain {
            level,
            weight: 1.0,
            position: u,
            ..FootprintExplain::default()
        });
    }
    let n = at.size;
    let mut vals = [None::<u32>; 4];
    for (v, p) in vals.iter_mut().zip(&pos) {
        let t = if b.cube {
            remap_edge_step(face, p[0], p[1], n[0]).map(|(f, i, j)| (f, [i, j, 0]))
        } else {
            let (i, j) = (
                address::wrap::<{ address::DYN }>(p[0], n[0], b.modes[0]),
                address::wrap::<{ address::DYN }>(p[1], n[1], b.modes[1]),
            );
            Some((face, [i, j, 0]))
        };
        *v = t.map(|(f, ijk)| {
            let border = ijk[0] < 0 || ijk[1] < 0;
            let raw = if border {
                b.border_raw
            } else {
                src.raw(b, at.offset(ijk, f as isize - face as isize))
            };
            let (v, pass) = match dref {
                Some(r) => {
                    let pass = b.sampler.compare_op.test(r, f32::from_bits(raw[0]));
                    (if pass { 1.0f32 } else { 0.0 }.to_bits(), Some(pass))
                }
                None => (raw[a.component as usize & 3], None),
            };
            if R::ON {
                rec.tap(TapExplain {
                    unwrapped: [p[0], p[1], 0],
                    texel: at.texel((!border).then_some((f, ijk)), b.cube),
                    weight: 1.0,
                    value: raw,
                    compare: pass,
                });
            }
            v
        });
    }
    // cube corner: the missing texel is the average of the real ones (three for a normal
    // footprint; offsets, which are invalid on cubes, may miss more)
    let o = if vals.iter().all(Option::is_some) {
        vals.map(|v| v.unwrap_or_default())
    } else {
        let avg = average(b, vals.iter().flatten().copied(), dref.is_some());
        if R::ON {
            for (p, v) in pos.iter().zip(&vals) {
                if v.is_none() {
                    rec.tap(TapExplain {
                        unwrapped: [p[0], p[1], 0],
                        texel: Texel::CornerAverage,
                        weight: 1.0,
                        value: [avg; 4],
                        compare: None,
                    });
                }
            }
        }
        vals.map(|v| v.unwrap_or(avg))
    };
    if R::ON {
        rec.result(o);
    }
    o
}

/// The gathered values of the taps `t`: R = (i0, j1), G = (i1, j1), B = (i1, j0),
/// A = (i0, j0). Adjacent taps without a compare read each row as one pair of words of the
/// component copy; others read each tap's channel from the plane.
#[inline(always)]
fn gathered<L: Lanes>(
    b: &Binding,
    tx: Texels,
    slot: &Slot<L>,
    q: &Input<L>,
    t: &Taps<L>,
    component: usize,
    cmp: bool,
) -> L::A<[u32; 4]> {
    let [o00, o10, o01, o11] = t.four();
    let c = if cmp { 0 } else { component & 3 };
    let n = tx.plane.len();
    if let (false, None, Some(w)) = (cmp, t.hi, tx.comps) {
        let at = o00.lanes().i((c * n) as i32);
        // SAFETY: `w` has `4n < 2³¹` words ([`Texels::of`]) and `c ≤ 3`; `plane_taps` checked
        // `0 ≤ o` and `o + row + 1 < n` for every lane (`row ≥ 1`), so words `c·n + o + row`
        // and `c·n + o` and each next one are below `4n`, their i32 sums exact
        return unsafe { o00.lanes().pairs(w, o01 + at, o00 + at) };
    }
    let plane = tx.plane;
    let op = b.sampler.compare_op;
    let d = cmp.then_some((op, q.dref));
    let (x, y, z, w) = (
        tap(plane, o01, c, d),
        tap(plane, o11, c, d),
        tap(plane, o10, c, d),
        tap(plane, o00, c, d),
    );
    slot.size[0].lanes().rows(x, y, z, w)
}

/// What a group's gathers read: the plane and, without a compare, its component copy
/// ([`components`](super::image::Plane::components)).
#[derive(Clone, Copy)]
struct Texels<'a> {
    plane: &'a [f32x4],
    /// `4·plane.len() < 2³¹` words; `None` with a compare.
    comps: Option<&'a [u32]>,
}

impl<'a> Texels<'a> {
    /// The image's plane `p` for gathers with (`cmp`) or without a compare.
    fn of(p: &'a image::Plane, cmp: bool) -> Texels<'a> {
        let n = p.texels.len();
        Texels {
            plane: &p.texels,
            comps: (!cmp)
                .then(|| p.components())
                .filter(|c| c.len() == 4 * n && c.len() <= i32::MAX as usize),
        }
    }
}

/// The gathered value of the lanes' taps at plane indices `o`: channel `c`'s bits, or with
/// `dref` each texel's comparison as 1.0 or 0.0.
#[inline(always)]
fn tap<L: Lanes>(plane: &[f32x4], o: I<L>, c: usize, dref: Option<(CompareOp, F<L>)>) -> L::Iv {
    let v = reads_channel(plane, o, c);
    match dref {
        Some((op, d)) => compare(op, d, v).one_zero().bits().raw(),
        None => v.bits().raw(),
    }
}

/// Average of the real gathered values (cube corner synthesis): f64 mean for float kinds
/// and compare results, integer mean otherwise; 0 when there are none.
fn average(b: &Binding, v: impl Iterator<Item = u32> + Clone, compare: bool) -> u32 {
    let n = v.clone().count().max(1);
    match (compare, b.dec.kind) {
        (true, _) | (_, NumKind::Float) => {
            ((v.map(|x| f32::from_bits(x) as f64).sum::<f64>() / n as f64) as f32).to_bits()
        }
        (_, NumKind::Uint) => (v.map(|x| x as u64).sum::<u64>() / n as u64) as u32,
        (_, NumKind::Sint) => (v.map(|x| x as i32 as i64).sum::<i64>() / n as i64) as i32 as u32,
    }
}

/// The lanes' operands of a quad's gather as a group input: face coordinates, layers past
/// the view's first, cube faces, `Offset` offsets (D3D: their low 6 bits), Dref; inactive
/// lanes take the first active lane's.
#[inline(always)]
fn input(b: &Binding, a: &GatherArgs) -> Input<Quad> {
    let mask = a.mask & 0xf;
    let first = mask.trailing_zeros() as usize & 3;
    let lane = |l: usize| if mask >> l & 1 != 0 { l } else { first };
    let loc: [_; 4] = std::array::from_fn(|l| b.locate(&a.coords[lane(l)]));
    let off = match a.offsets {
        GatherOffsets::Offset(o) => Some(std::array::from_fn(|l| {
            b.offset_bits([o[lane(l)][0], o[lane(l)][1], 0], 6)
        })),
        _ => None,
    };
    let dref = a.dref.map(|d| std::array::from_fn(|l| d[lane(l)]));
    Input::quad(four(), b, &loc, off, dref)
}

/// A per-quad gather route, chosen once per kernel.
pub(super) type GatherFn = fn(&Binding, &Image, &GatherArgs) -> QuadBits;

/// The general path as a [`GatherFn`].
pub(super) fn general(b: &Binding, img: &Image, a: &GatherArgs) -> QuadBits {
    quad(b, img, a, &NoRecord)
}

/// A quad's gather on the image's plane: one group, footprints lane-wise ([`plane_taps`]),
/// each tap's component (its f32 bits are every float-kind format's raw result) or
/// comparison, lanes left through [`lane`]; `ConstOffsets` and no plane: the general path.
pub(super) fn plane_quad<const M: u8, const CUBE: bool>(
    b: &Binding,
    img: &Image,
    a: &GatherArgs,
) -> QuadBits {
    let (Some(p), false) = (img.plane(), matches!(a.offsets, GatherOffsets::Four(_))) else {
        return general(b, img, a);
    };
    let mut out = [[0u32; 4]; 4];
    if a.mask & 0xf == 0 {
        return out;
    }
    let slot = Slot::halves(four(), b, [b.view.base_level; 2], b.view.base_layer);
    let cmp = a.dref.is_some();
    let (tx, q) = (Texels::of(p, cmp), input(b, a));
    let src = Plane(&p.texels);
    let taps = plane_taps::<Quad, Fast<M, CUBE>, true, false>(b, &slot, &q, p.texels.len(), false);
    let r = match taps {
        None => Quad::each(|l| lane(b, &src, a, l, &NoRecord)),
        Some(t) => {
            let mut r = gathered(b, tx, &slot, &q, &t, a.component as usize, cmp);
            if t.rest != 0 {
                for (l, v) in r.iter_mut().enumerate() {
                    if t.rest >> l & 1 != 0 {
                        *v = lane(b, &src, a, l, &NoRecord);
                    }
                }
            }
            r
        }
    };
    super::merge_lanes(&mut out, &r, a.mask);
    out
}

/// The gather routes of a binding, per quad and batch: [`plane_quad`] and [`plane_batch`]
/// where [`Binding::lanewise`], else the general path and [`per_quad`].
pub(super) fn pick(b: &Binding) -> (GatherFn, BatchFn, Route) {
    let m = b.mode_2d();
    if !b.lanewise() {
        (general, per_quad, Route::General)
    } else if b.cube {
        const C: u8 = address::CLAMP;
        (plane_quad::<C, true>, plane_batch::<C, true>, Route::Cube)
    } else {
        (
            by_mode!(m, plane_quad, false),
            by_mode!(m, plane_batch, false),
            Route::Plane(address::instance(m)),
        )
    }
}

/// A batch gather route, chosen once per kernel: every quad of a checked batch into `out`.
pub(super) type BatchFn = fn(&Binding, &Image, &GatherBatchArgs, &mut [[u32; 4]]);

/// Every quad of a batch through the kernel's per-quad route.
pub(super) fn per_quad(b: &Binding, img: &Image, a: &GatherBatchArgs, out: &mut [[u32; 4]]) {
    quads(pick(b).0, b, img, a, 0, a.masks.len(), out);
}

/// Quads `q0..q0 + n` through the per-quad `route`, into `out` (quad `q0 + k`'s at `4k`):
/// the rare path of a plane batch.
#[cold]
#[inline(never)]
fn quads(
    route: GatherFn,
    b: &Binding,
    img: &Image,
    a: &GatherBatchArgs,
    q0: usize,
    n: usize,
    out: &mut [[u32; 4]],
) {
    for k in 0..n {
        let mask = a.masks[q0 + k] & 0xf;
        if mask != 0 {
            let r = route(b, img, &a.quad_args(q0 + k));
            super::merge_lanes(&mut out[4 * k..4 * k + 4], &r, mask);
        }
    }
}

/// A batch of gathers on the plane: runs of units of `W` lanes through [`run`], any other
/// quad through [`plane_quad`]; `ConstOffsets` (and no plane) quad by quad.
pub(super) fn plane_batch<const M: u8, const CUBE: bool>(
    b: &Binding,
    img: &Image,
    a: &GatherBatchArgs,
    out: &mut [[u32; 4]],
) {
    let Some(p) = img
        .plane()
        .filter(|_| !matches!(a.offsets, BatchGatherOffsets::Four(_)))
    else {
        return per_quad(b, img, a, out);
    };
    #[cfg(target_arch = "x86_64")]
    if let Some(l) = Avx::new() {
        // SAFETY: `l` exists only when the CPU has AVX2
        return unsafe { plane_batch_avx2::<M, CUBE>(l, b, img, p, a, out) };
    }
    batch_in::<M, CUBE, _>(four(), b, img, p, a, out)
}

/// [`plane_batch`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plane_batch_avx2<const M: u8, const CUBE: bool>(
    l: Avx,
    b: &Binding,
    img: &Image,
    plane: &image::Plane,
    a: &GatherBatchArgs,
    out: &mut [[u32; 4]],
) {
    batch_in::<M, CUBE, _>(l, b, img, plane, a, out)
}

/// A run of units from quad `q` on, while a unit's quads are whole and gather one
/// component: inputs straight from the rows, footprints lane-wise as in [`plane_quad`] (a
/// unit that leaves lanes goes through `route`), into `out`. Returns the quad that ended
/// the run; a batch with a short row has no runs. `PLAIN`: the batch has `t` and
/// component rows and no layer, Dref or offset rows, known as constants so tests fold.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run<'r, K: Spec, const PLAIN: bool, L: Lanes>(
    l: L,
    b: &Binding,
    img: &Image,
    route: GatherFn,
    tx: Texels,
    slot: &Slot<L>,
    rows: &BatchArgs<'r>,
    a: &GatherBatchArgs<'r>,
    mut q: usize,
    out: &mut [[u32; 4]],
) -> usize {
    let per = L::W / 4;
    let n = a.masks.len().min(out.len() / 4);
    let lanes = 4 * n;
    let s = rows.coords[0];
    let e: &[u32] = &[];
    let known = |r| if PLAIN { e } else { r };
    let all = [
        rows.coords[0],
        rows.coords[1],
        known(rows.coords[2]),
        known(rows.coords[3]),
        known(rows.dref),
        known(rows.offsets[0]),
        known(rows.offsets[1]),
        a.component,
    ];
    if q >= n || all.iter().any(|r| !r.is_empty() && r.len() < lanes) || s.is_empty() {
        return q;
    }
    let has = if PLAIN {
        [true, true, false, false, false, false, false, true]
    } else {
        all.map(|r| !r.is_empty())
    };
    let l0 = 4 * q;
    // `s`, `t` and the component rows zipped as units (an empty one as `s`'s), the others
    // read by index where used
    let units = |r: &'r [u32]| L::units(&(if r.is_empty() { s } else { r })[l0..lanes]);
    let (r2, r3, r4, r5, r6) = (
        unit_rows::<L>(all[2], l0..lanes),
        unit_rows::<L>(all[3], l0..lanes),
        unit_rows::<L>(all[4], l0..lanes),
        unit_rows::<L>(all[5], l0..lanes),
        unit_rows::<L>(all[6], l0..lanes),
    );
    let cmp = !PLAIN && !a.dref.is_empty();
    let units = units(s)
        .iter()
        .zip(units(all[1]))
        .zip(units(all[7]))
        .zip(a.masks[q..n].chunks_exact(per))
        .zip(L::units_mut(&mut out[l0..lanes]));
    for (x, ((((c0, c1), cm), m), o)) in units.enumerate() {
        let cm = cm.as_ref();
        let c = if has[7] { cm[0] } else { 0 };
        let same = (0..per).fold(true, |ok, k| ok & (cm[4 * k] == cm[0]));
        if !m
            .iter()
            .fold(!has[7] || same, |ok, &m| ok & (m & 0xf == 0xf))
        {
            break;
        }
        let ua = BatchArgs {
            coords: [
                c0.as_ref(),
                if has[1] { c1.as_ref() } else { e },
                unit_row(r2, x, has[2]),
                unit_row(r3, x, has[3]),
            ],
            masks: m,
            lod: BatchLod::Zero,
            dref: unit_row(r4, x, has[4]),
            offsets: [unit_row(r5, x, has[5]), unit_row(r6, x, has[6])],
        };
        let i = inputs::<K, L>(l, b, &ua, 6, |row| {
            if row.is_empty() {
                l.i(0)
            } else {
                l.f_row(row).bits()
            }
        });
        match plane_taps::<L, K, true, true>(b, slot, &i, tx.plane.len(), false) {
            Some(t) => *o = gathered(b, tx, slot, &i, &t, c as usize, cmp),
            None => quads(route, b, img, a, q, per, o.as_mut()),
        }
        q += per;
    }
    q
}

/// [`plane_batch`]'s loop: [`run`]s, and the quad that ends each through [`plane_quad`].
#[inline(always)]
fn batch_in<const M: u8, const CUBE: bool, L: Lanes>(
    l: L,
    b: &Binding,
    img: &Image,
    plane: &image::Plane,
    a: &GatherBatchArgs,
    out: &mut [[u32; 4]],
) {
    let n = a.masks.len().min(out.len() / 4);
    let slot = Slot::halves(l, b, [b.view.base_level; 2], b.view.base_layer);
    let rows = BatchArgs {
        coords: a.coords,
        masks: a.masks,
        lod: BatchLod::Zero,
        dref: a.dref,
        offsets: match a.offsets {
            BatchGatherOffsets::Offset(r) => r,
            _ => [&[], &[]],
        },
    };
    let cmp = !a.dref.is_empty();
    let tx = Texels::of(plane, cmp);
    let plain = !CUBE
        && b.view.view_type == ViewType::D2
        && !cmp
        && rows.offsets.iter().all(|r| r.is_empty())
        && !rows.coords[1].is_empty()
        && !a.component.is_empty();
    let route = plane_quad::<M, CUBE>;
    let mut q = 0;
    while q < n {
        q = if plain {
            run::<Fast<M, false, 0>, true, L>(l, b, img, route, tx, &slot, &rows, a, q, out)
        } else {
            run::<Fast<M, CUBE>, false, L>(l, b, img, route, tx, &slot, &rows, a, q, out)
        };
        if q < n {
            quads(route, b, img, a, q, 1, &mut out[4 * q..]);
            q += 1;
        }
    }
}
