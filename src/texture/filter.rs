//! The sampling kernel: one footprint per lane, from its texel-space position to its
//! filtered value — floor (or the linear split), wrap per axis (border, cube seams and
//! corners), read, compare (Dref), lerp — written once (sampling.md §4.3, §7, §8, §10).
//!
//! Shape: every instantiation is this code. What it knows at compile time is a [`Spec`]
//! (address mode, cube or not, dimensions, precision), whose constants fold branches away;
//! [`General`] knows nothing and reads every mode from the [`Binding`]: the general path.
//! The lanes are a parameter ([`lanes`]): one lane by every rule ([`lane`]),
//! or a group ([`group`]) whose footprints are formed lane-wise and read with one offset
//! per lane and no per-tap tests where each lies inside its level or wraps lane-wise; any
//! other lane goes through [`lane`] (the same operations in the same order, so the same
//! bits). The texel [`Source`] and the general path's [`Recorder`] are parameters too.

use super::address::{self, wrap, wrap_lanes, DYN};
use super::binding::Binding;
use super::cube::remap_edge_step;
use super::explain::{FootprintExplain, NoRecord, Recorder, TapExplain, Texel};
use super::image::ViewType;
use super::lanes::{self, lerp, lerp_xy, split, Arr, Lanes, F, I};
use super::sampler::{compare, Filter};
use super::source::{Addr, Source};
use wide::f32x4;

/// What a kernel instantiation knows at compile time; `DYN`: read it from the binding.
pub(super) trait Spec {
    /// Address mode code on every axis, or `DYN` (each axis's from the binding).
    const MODE: u8;
    /// Cube view: 1, 0, or `DYN`.
    const CUBE: u8;
    /// Spatial dimensions 1 to 3 of a non-cube view, or `DYN`.
    const DIMS: u8;
    /// Exact precision and normalized coordinates: nothing to snap (else the binding says).
    const EXACT: bool;
    /// A 2D-array view: 1, 0, or `DYN`.
    const ARRAY: u8;

    /// The address mode of `axis`.
    #[inline(always)]
    fn mode(b: &Binding, axis: usize) -> u8 {
        known(Self::MODE, b.modes[axis])
    }
    /// Whether the view is a cube.
    #[inline(always)]
    fn cube(b: &Binding) -> bool {
        known(Self::CUBE, b.cube as u8) != 0
    }
    /// Whether the view is a 2D array (each lane on its own layer).
    #[inline(always)]
    fn array(b: &Binding) -> bool {
        known(Self::ARRAY, (b.view.view_type == ViewType::D2Array) as u8) != 0
    }
    /// The axes a footprint spans (a cube face: 2).
    #[inline(always)]
    fn dims(b: &Binding) -> usize {
        if Self::cube(b) {
            2
        } else {
            known(Self::DIMS, b.dims as u8) as usize
        }
    }
    /// Hardware snapping of texel coordinates, if it applies.
    #[inline(always)]
    fn snap(b: &Binding, x: f32) -> f32 {
        if Self::EXACT {
            x
        } else {
            b.snap(x)
        }
    }
}

/// A [`Spec`] code: `c`, or the binding's `run_time` value if `c` is `DYN`.
#[inline(always)]
fn known(c: u8, run_time: u8) -> u8 {
    if c == DYN {
        run_time
    } else {
        c
    }
}

/// The general path: every mode at run time.
pub(super) struct General;

impl Spec for General {
    const MODE: u8 = DYN;
    const CUBE: u8 = DYN;
    const DIMS: u8 = DYN;
    const EXACT: bool = false;
    const ARRAY: u8 = DYN;
}

/// A 2D or cube view at exact precision with normalized coordinates, address mode `M` (or
/// `DYN`) on both axes; a 2D-array view if `ARRAY` is 1, not if 0, either if `DYN`.
pub(super) struct Fast<const M: u8, const CUBE: bool, const ARRAY: u8 = DYN>;

impl<const M: u8, const CUBE: bool, const ARRAY: u8> Spec for Fast<M, CUBE, ARRAY> {
    const MODE: u8 = M;
    const CUBE: u8 = CUBE as u8;
    const DIMS: u8 = 2;
    const EXACT: bool = true;
    const ARRAY: u8 = ARRAY;
}

/// Where one lane's footprint reads: absolute level, layer and cube face, the level's
/// extent and the (level, layer)'s addressing in the source.
#[derive(Clone, Copy, Debug)]
pub(super) struct At {
    pub level: u32,
    pub layer: u32,
    pub face: u32,
    pub size: [i32; 3],
    pub addr: Addr,
}

impl At {
    /// Lane data for absolute `level` and `layer` (and `face`) of a source.
    #[inline(always)]
    pub fn new<S: Source>(b: &Binding, src: &S, level: u32, layer: u32, face: u32) -> At {
        let lv = &b.lv[level as usize];
        At {
            level,
            layer,
            face,
            size: lv.size,
            addr: src.level(b, lv, layer),
        }
    }

    /// The unit offset of in-range texel `ijk` on this lane's layer moved by `dl` layers
    /// (a cube's neighbouring face).
    #[inline(always)]
    pub fn offset(&self, ijk: [i32; 3], dl: isize) -> usize {
        let a = &self.addr;
        (a.base as isize + dl * a.layer as isize) as usize
            + ijk[2] as usize * a.slice
            + ijk[1] as usize * a.row
            + ijk[0] as usize * a.step
    }

    /// The recorder's name for texel `t`: `(face, ijk)` (a cube's face may be a
    /// neighbour), or `None`: the border.
    pub fn texel(&self, t: Option<(u32, [i32; 3])>, cube: bool) -> Texel {
        match t {
            Some((f, ijk)) => Texel::At {
                layer: self.layer - self.face + f,
                face: cube.then_some(f),
                ijk,
            },
            None => Texel::Border,
        }
    }
}

/// A footprint's probe and weight in the lane's sum, for the recorder.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Note {
    pub probe: u32,
    pub weight: f32,
}

/// `ref OP texel` as the filtered value of a compared texel: `(pass, 0, 0, 1)`.
#[inline(always)]
fn compared(b: &Binding, r: f32, v: [f32; 4]) -> [f32; 4] {
    let pass = b.sampler.compare_op.test(r, v[0]);
    [if pass { 1.0 } else { 0.0 }, 0.0, 0.0, 1.0]
}

/// One lane's footprint by every rule: the general path, and any lane a group cannot take
/// lane-wise. `u`: texel-space position (after offsets); `dref`: the compare reference
/// (after its clamp) of a Dref sample.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn lane<K: Spec, S: Source, R: Recorder>(
    b: &Binding,
    src: &S,
    at: &At,
    u: [f32; 3],
    dref: Option<f32>,
    linear: bool,
    note: Note,
    rec: &R,
) -> [f32; 4] {
    let dims = K::dims(b);
    let cube = K::cube(b);
    let n = at.size;
    // a texel (`None`: the border) compared if Dref, and recorded
    let read = |t: Option<(u32, [i32; 3])>, unwrapped: [i32; 3], weight: f32| -> [f32; 4] {
        let v = match t {
            Some((f, ijk)) => src.texel(b, at.offset(ijk, f as isize - at.face as isize)),
            None => b.border,
        };
        let out = match dref {
            Some(r) => compared(b, r, v),
            None => v,
        };
        if R::ON {
            rec.tap(TapExplain {
                unwrapped,
                texel: at.texel(t, cube),
                weight,
                value: v.map(f32::to_bits),
                compare: dref.map(|_| out[0] == 1.0),
            });
        }
        out
    };
    if R::ON {
        rec.footprint(FootprintExplain {
            probe: note.probe,
            level: at.level,
            weight: note.weight,
            position: u,
            filter: if linear {
                Filter::Linear
            } else {
                Filter::Nearest
            },
            ..FootprintExplain::default()
        });
    }
    let v = if !linear {
        let (ijk, t) = nearest::<K>(b, at, u);
        read(t, ijk, 1.0)
    } else {
        // lower texel and fraction per axis (after the −0.5 shift), upper texel one on
        let mut lo = [0i32; 3];
        let mut fr = [0f32; 3];
        for d in 0..dims {
            let (i, f, _) = split(Arr::<1>.f(K::snap(b, u[d] - 0.5)));
            (lo[d], fr[d]) = (i.at(0), f.at(0));
        }
        if R::ON {
            rec.fractions(fr);
        }
        let taps = 1usize << dims;
        let corner = |t: usize| -> [i32; 3] {
            std::array::from_fn(|d| {
                if d < dims && t >> d & 1 != 0 {
                    lo[d].saturating_add(1)
                } else {
                    lo[d]
                }
            })
        };
        let weight = |t: usize| -> f32 {
            (0..dims).fold(1.0, |w, d| {
                w * if t >> d & 1 != 0 { fr[d] } else { 1.0 - fr[d] }
            })
        };
        let mut v = [[0f32; 4]; 8];
        if cube {
            // seamless: a tap off the face reads the neighbouring face's texel; a corner's
            // missing texel is the average of the three real ones ([`corner_texel`])
            let mut got = [None; 4];
            for (t, g) in got.iter_mut().enumerate() {
                let [i, j, _] = corner(t);
                let at_ = remap_edge_step(at.face, i, j, n[0]);
                *g = at_.map(|(f, i, j)| read(Some((f, [i, j, 0])), [i, j, 0], weight(t)));
            }
            if got.iter().any(Option::is_none) {
                let avg = corner_texel(got.iter().flatten().copied());
                for (t, g) in got.iter_mut().enumerate() {
                    if g.is_none() {
                        if R::ON {
                            rec.tap(TapExplain {
                                unwrapped: corner(t),
                                texel: Texel::CornerAverage,
                                weight: weight(t),
                                value: avg.map(f32::to_bits),
                                compare: None,
                            });
                        }
                        *g = Some(avg);
                    }
                }
            }
            for t in 0..4 {
                v[t] = got[t].unwrap_or_default();
            }
        } else {
            for (t, vt) in v.iter_mut().enumerate().take(taps) {
                let c = corner(t);
                *vt = read(wrapped::<K>(b, at, c), c, weight(t));
            }
        }
        // x first, then y, then z: pairs of neighbours lerped axis by axis
        let mut m = taps;
        for &f in &fr[..dims] {
            m /= 2;
            for k in 0..m {
                v[k] = lerp(
                    f32x4::new(v[2 * k]),
                    f32x4::new(v[2 * k + 1]),
                    f32x4::splat(f),
                )
                .to_array();
            }
        }
        v[0]
    };
    if R::ON {
        rec.value(v);
    }
    v
}

/// Texel `ijk` of `at`'s level wrapped on each axis by its address mode: `(face, ijk)` on
/// the lane's face, or `None`: the border.
#[inline(always)]
fn wrapped<K: Spec>(b: &Binding, at: &At, ijk: [i32; 3]) -> Option<(u32, [i32; 3])> {
    let mut w = [0i32; 3];
    for d in 0..K::dims(b) {
        w[d] = wrap::<DYN>(ijk[d], at.size[d], K::mode(b, d));
        if w[d] < 0 {
            return None;
        }
    }
    Some((at.face, w))
}

/// The nearest texel of texel-space `u`: its floor on each axis (after snapping), and the
/// texel it reads ([`wrapped`]; a cube's clamped to the face).
#[inline(always)]
fn nearest<K: Spec>(b: &Binding, at: &At, u: [f32; 3]) -> ([i32; 3], Option<(u32, [i32; 3])>) {
    let mut ijk = [0i32; 3];
    for d in 0..K::dims(b) {
        ijk[d] = super::lanes::fl(K::snap(b, u[d]));
    }
    let n = at.size[0];
    let t = if K::cube(b) {
        let c = [ijk[0].clamp(0, n - 1), ijk[1].clamp(0, n - 1), 0];
        Some((at.face, c))
    } else {
        wrapped::<K>(b, at, ijk)
    };
    (ijk, t)
}

/// One lane of an integer (UINT/SINT) format: the nearest texel's raw bits at `at` (texel
/// space `u`), border bits outside a border-mode level.
#[inline(always)]
pub(super) fn lane_raw<S: Source, R: Recorder>(
    b: &Binding,
    src: &S,
    at: &At,
    u: [f32; 3],
    rec: &R,
) -> [u32; 4] {
    let (ijk, t) = nearest::<General>(b, at, u);
    let v = match t {
        Some((_, ijk)) => src.raw(b, at.offset(ijk, 0)),
        None => b.border_raw,
    };
    if R::ON {
        rec.footprint(FootprintExplain {
            level: at.level,
            weight: 1.0,
            position: u,
            ..FootprintExplain::default()
        });
        rec.tap(TapExplain {
            unwrapped: ijk,
            texel: at.texel(t, b.cube),
            weight: 1.0,
            value: v,
            compare: None,
        });
    }
    v
}

/// A level slot of a group of lanes: each lane's level extent, first texel on the slot's
/// layer (plane index), layer step and absolute level. Built once per level selection; a
/// group's lanes may sit on other layers ([`Input::layer`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot<L: Lanes> {
    pub size: [I<L>; 2],
    pub sizef: [F<L>; 2],
    /// Plane index of texel (0, 0) of each lane's level on the slot's layer.
    pub base: I<L>,
    /// Plane texels per layer of each lane's level.
    pub tlayer: I<L>,
    /// Every lane's level is a power of two on both axes.
    pub pow2: bool,
    /// The row length every lane's level has, if one (a cube slot's lanes then share one
    /// face size and edge table).
    pub row: Option<usize>,
    /// Each lane's absolute level, and the slot's absolute layer.
    pub level: L::A<u32>,
    pub layer: u32,
}

impl<L: Lanes> Slot<L> {
    /// Lanes `0..4` on absolute level `levels[0]`, lanes `4..` on `levels[1]`, absolute
    /// `layer`.
    #[inline(always)]
    pub fn halves(l: L, b: &Binding, levels: [u32; 2], layer: u32) -> Slot<L> {
        // (a cube face is square: its rows are its width)
        let y = if b.cube { 0 } else { 1 };
        let of = |v: u32| {
            let lv = &b.lv[v as usize];
            let base = (lv.tbase + layer as usize * lv.tlayer) as i32;
            let size = [lv.size[0], lv.size[y], base, lv.tlayer as i32];
            (size, [lv.sizef[0], lv.sizef[y]], lv.pow2)
        };
        let half = [of(levels[0]), of(levels[1])];
        let h = |k: usize| &half[(k >= 4) as usize];
        let one = levels[0] == levels[1];
        let i = |c: usize| {
            if one {
                l.i(half[0].0[c])
            } else {
                l.i_of(|k| h(k).0[c])
            }
        };
        let f = |c: usize| {
            if one {
                l.f(half[0].1[c])
            } else {
                l.f_of(|k| h(k).1[c])
            }
        };
        Slot {
            size: [i(0), i(1)],
            sizef: [f(0), f(1)],
            base: i(2),
            tlayer: i(3),
            pow2: half[0].2 && (L::W <= 4 || half[1].2),
            row: (L::W <= 4 || half[0].0[0] == half[1].0[0]).then_some(half[0].0[0] as usize),
            level: L::each(|k| levels[(k >= 4) as usize]),
            layer,
        }
    }

    /// Lane `k` on absolute level `lv[k / 4][k % 4]`, absolute `layer`.
    #[inline(always)]
    pub fn quads(l: L, b: &Binding, lv: [[u32; 4]; 2], layer: u32) -> Slot<L> {
        if lv[0] == [lv[0][0]; 4] && lv[1] == [lv[1][0]; 4] {
            Slot::halves(l, b, [lv[0][0], lv[1][0]], layer)
        } else {
            Slot::of(l, b, |k| lv[k / 4][k % 4], layer)
        }
    }

    /// Lane `k` on absolute level `level(k)`, absolute `layer`.
    #[inline(always)]
    fn of(l: L, b: &Binding, level: impl Fn(usize) -> u32, layer: u32) -> Slot<L> {
        let lv = |k: usize| &b.lv[level(k) as usize];
        let y = if b.cube { 0 } else { 1 };
        Slot {
            size: [l.i_of(|k| lv(k).size[0]), l.i_of(|k| lv(k).size[y])],
            sizef: [l.f_of(|k| lv(k).sizef[0]), l.f_of(|k| lv(k).sizef[y])],
            base: l.i_of(|k| (lv(k).tbase + layer as usize * lv(k).tlayer) as i32),
            tlayer: l.i_of(|k| lv(k).tlayer as i32),
            pow2: (0..L::W).all(|k| lv(k).pow2),
            row: (0..L::W)
                .all(|k| lv(k).size[0] == lv(0).size[0])
                .then_some(lv(0).size[0] as usize),
            level: L::each(level),
            layer,
        }
    }
}

/// What varies from group to group on a slot: the lanes' normalized (cube: face)
/// coordinates, offsets, layers, cube faces and Dref.
#[derive(Clone, Copy, Debug)]
pub(super) struct Input<L: Lanes> {
    pub s: F<L>,
    pub t: F<L>,
    /// Texel offsets (u, v) as f32; `None`: all zero.
    pub off: Option<(F<L>, F<L>)>,
    /// Layers past the slot's (cube views: `6·cube + face`); `None`: none.
    pub layer: Option<I<L>>,
    /// Cube faces (cube views only).
    pub face: I<L>,
    pub dref: F<L>,
}

impl<L: Lanes> Input<L> {
    /// A quad's operands on `l`'s lanes (lane `k` is quad lane `k & 3`): each lane's
    /// [`Binding::locate`] (`loc`), offsets and Dref (clamped: [`Binding::dref_lanes`]).
    #[inline(always)]
    pub fn quad(
        l: L,
        b: &Binding,
        loc: &[([f32; 3], u32, u32); 4],
        off: Option<[[i32; 3]; 4]>,
        dref: Option<[f32; 4]>,
    ) -> Input<L> {
        let view = &b.view;
        Input {
            s: l.f_of(|k| loc[k & 3].0[0]),
            t: l.f_of(|k| loc[k & 3].0[1]),
            off: off.map(|o| {
                (
                    l.f_of(|k| o[k & 3][0] as f32),
                    l.f_of(|k| o[k & 3][1] as f32),
                )
            }),
            layer: (view.view_type != ViewType::D2)
                .then(|| l.i_of(|k| (loc[k & 3].1 - view.base_layer) as i32)),
            face: l.i_of(|k| loc[k & 3].2 as i32),
            dref: match dref {
                Some(d) => b.dref_lanes(l.f_of(|k| d[k & 3])),
                None => l.f(0.0),
            },
        }
    }

    /// Lane `l`'s [`At`] on `slot` in source `src`.
    #[inline(always)]
    pub fn at<S: Source>(&self, b: &Binding, src: &S, slot: &Slot<L>, l: usize) -> At {
        let d = self.layer.map_or(0, |d| d.at(l) as u32);
        At::new(
            b,
            src,
            slot.level[l],
            slot.layer + d,
            self.face.at(l) as u32,
        )
    }
}

/// Where a group's taps are on the plane, lane-wise; every index is a checked plane index.
pub(super) struct Taps<L: Lanes> {
    /// Each lane's first tap.
    pub o: I<L>,
    pub row: I<L>,
    /// The other three taps (linear); `None`: `o + 1`, `o + row`, `o + row + 1`.
    pub hi: Option<[I<L>; 3]>,
    /// The fractions toward them.
    pub fa: F<L>,
    pub fb: F<L>,
    /// Lanes left to [`lane`] (bit `l`), holding another lane's indices.
    pub rest: u32,
    /// Per tap, the lanes whose tap is a cube corner: its index is the opposite tap's, its
    /// texel the average of the other three.
    pub corner: [u32; 4],
}

impl<L: Lanes> Taps<L> {
    /// The four taps' indices: `(i0, j0)`, `(i1, j0)`, `(i0, j1)`, `(i1, j1)`.
    #[inline(always)]
    pub fn four(&self) -> [I<L>; 4] {
        let one = self.o.lanes().i(1);
        let [o10, o01, o11] =
            self.hi
                .unwrap_or([self.o + one, self.o + self.row, self.o + self.row + one]);
        [self.o, o10, o01, o11]
    }
}

/// `v` with the lanes of `rest` replaced by lane `src`'s.
#[inline(always)]
fn fill<L: Lanes>(v: I<L>, rest: u32, src: usize) -> I<L> {
    let a = v.arr();
    v.lanes()
        .i_of(|l| if rest >> l & 1 != 0 { a[src] } else { a[l] })
}

/// A lane-wise wrap by the spec's constant mode (one [`address::lanewise`] takes).
#[inline(always)]
fn wrap_mode<K: Spec, L: Lanes>(i: I<L>, n: I<L>, pow2: bool) -> I<L> {
    match K::MODE {
        address::REPEAT => wrap_lanes::<{ address::REPEAT }, L>(i, n, pow2),
        address::MIRRORED => wrap_lanes::<{ address::MIRRORED }, L>(i, n, pow2),
        _ => wrap_lanes::<{ address::CLAMP }, L>(i, n, pow2),
    }
}

/// The lanes with `0 ≤ i < n − d`, as bits.
#[inline(always)]
fn in_level<L: Lanes>(i: I<L>, n: I<L>, d: i32) -> u32 {
    let l = i.lanes();
    (i.gt(l.i(-1)) & (n - l.i(d)).gt(i)).bits()
}

/// Whether every lane has `0 ≤ lo ≤ hi < len`, in i32 lane arithmetic (`len` saturated):
/// the check the unchecked reads rest on (`lo ≤ hi` fails an upper index that wrapped).
#[inline(always)]
fn in_plane<L: Lanes>(lo: I<L>, hi: I<L>, len: usize) -> bool {
    let l = lo.lanes();
    let len = l.i(len.min(i32::MAX as usize) as i32);
    (lo.gt(l.i(-1)) & !lo.gt(hi) & len.gt(hi)).all()
}

/// The plane index of tap `(i, j)` of each lane's cube footprint, and the lanes whose tap
/// is off both axes (a corner). `w`: the face size; `base`: texel (0, 0) of the lane's
/// face, `cube0`: of its cube's face 0; `sides`: the edge table's `(a, d)` of the lane's
/// face. One step off one axis, the tap is on the neighbouring face by the table.
#[inline(always)]
fn edge_tap<L: Lanes>(
    base: I<L>,
    cube0: I<L>,
    w: I<L>,
    sides: &[(I<L>, I<L>); 4],
    i: I<L>,
    j: I<L>,
) -> (I<L>, lanes::M<L>) {
    let zero = i.lanes().i(0);
    let (ilo, jlo) = (zero.gt(i), zero.gt(j));
    let oi = ilo | !w.gt(i);
    let oj = jlo | !w.gt(j);
    let (ai, di) = (
        I::select(ilo, sides[0].0, sides[1].0),
        I::select(ilo, sides[0].1, sides[1].1),
    );
    let (aj, dj) = (
        I::select(jlo, sides[2].0, sides[3].0),
        I::select(jlo, sides[2].1, sides[3].1),
    );
    let (a, d) = (I::select(oi, ai, aj), I::select(oi, di, dj));
    let k = I::select(oi, j, i);
    let off = cube0 + a + d * k;
    (I::select(oi | oj, off, base + j * w + i), oi & oj)
}

/// The lane-wise footprints of a group on the plane, [`lane`]'s operations lane for lane,
/// range-checked against the plane (`len`). Left in `rest`: a coordinate of magnitude ≥ 2²¹
/// or NaN, a footprint leaving its level under a wrap that is not lane-wise, a cube
/// footprint over a corner unless `corners` (then in [`Taps::corner`]). `None`: every lane
/// is left (or an index is off the plane, which the kernel's own image cannot give), or
/// with `ALL` any lane is.
#[inline(always)]
pub(super) fn plane_taps<L: Lanes, K: Spec, const LIN: bool, const ALL: bool>(
    b: &Binding,
    slot: &Slot<L>,
    q: &Input<L>,
    len: usize,
    corners: bool,
) -> Option<Taps<L>> {
    let [w, h] = slot.size;
    let (u, v) = texel_space(slot, q);
    let l = u.lanes();
    let mut base = slot.base;
    if let Some(d) = q.layer {
        base = base + d * slot.tlayer;
    }
    let m = K::mode(b, 0);
    let lanewise = K::MODE != DYN && address::lanewise(m, slot.pow2);
    let one = l.i(1);
    let cube = K::cube(b);
    let full = (1u32 << L::W) - 1;
    let (o, hi, rest): (I<L>, Option<[I<L>; 3]>, u32);
    let mut corner = [0u32; 4];
    let (fa, fb): (F<L>, F<L>);
    if !LIN {
        let (i, _, si) = split(u);
        let (j, _, sj) = split(v);
        let small = (si & sj).bits();
        let (i, j, ok) = if cube {
            let zero = l.i(0);
            (i.max(zero).min(w - one), j.max(zero).min(h - one), small)
        } else if lanewise {
            (
                wrap_mode::<K, L>(i, w, slot.pow2),
                wrap_mode::<K, L>(j, h, slot.pow2),
                small,
            )
        } else {
            (i, j, small & in_level(i, w, 0) & in_level(j, h, 0))
        };
        (o, hi, fa, fb, rest) = (base + j * w + i, None, l.f(0.0), l.f(0.0), !ok);
    } else {
        let half = l.f(0.5);
        let (i0, a, sx) = split(u - half);
        let (j0, c, sy) = split(v - half);
        (fa, fb) = (a, c);
        let small = (sx & sy).bits();
        // every footprint inside its level: every wrap is the identity, the taps adjacent
        let inside = in_level(i0, w, 1) & in_level(j0, h, 1);
        if inside & small == full {
            (o, hi, rest) = (base + j0 * w + i0, None, 0);
        } else if let (true, Some(_)) = (cube, slot.row) {
            // footprints over an edge, every lane on one level's edge table; a tap farther
            // out leaves the lane to `lane`
            let e = &b.lv[slot.level[0] as usize].edges;
            let f = q.face;
            let sides = [
                (f.lookup8(&e.a[0]), f.lookup8(&e.d[0])),
                (f.lookup8(&e.a[1]), f.lookup8(&e.d[1])),
                (f.lookup8(&e.a[2]), f.lookup8(&e.d[2])),
                (f.lookup8(&e.a[3]), f.lookup8(&e.d[3])),
            ];
            let cube0 = base - f * slot.tlayer;
            let valid = in_level(i0 + one, w, -1) & in_level(j0 + one, h, -1);
            let (i1, j1) = (i0 + one, j0 + one);
            let t = [
                edge_tap(base, cube0, w, &sides, i0, j0),
                edge_tap(base, cube0, w, &sides, i1, j0),
                edge_tap(base, cube0, w, &sides, i0, j1),
                edge_tap(base, cube0, w, &sides, i1, j1),
            ];
            let c = [t[0].1.bits(), t[1].1.bits(), t[2].1.bits(), t[3].1.bits()];
            let any = c[0] | c[1] | c[2] | c[3];
            if corners {
                // a corner tap reads the opposite tap (never a corner too: a 2×2
                // footprint within one step of the face holds at most one corner)
                let x = [
                    I::select(t[0].1, t[3].0, t[0].0),
                    I::select(t[1].1, t[2].0, t[1].0),
                    I::select(t[2].1, t[1].0, t[2].0),
                    I::select(t[3].1, t[0].0, t[3].0),
                ];
                let left = !small | !valid;
                corner = [c[0] & !left, c[1] & !left, c[2] & !left, c[3] & !left];
                (o, hi, rest) = (x[0], Some([x[1], x[2], x[3]]), left);
            } else {
                (o, hi, rest) = (
                    t[0].0,
                    Some([t[1].0, t[2].0, t[3].0]),
                    !small | !valid | any,
                );
            }
        } else if cube {
            // footprints over an edge: each tap off the face on the neighbouring face; a tap
            // off both axes (a corner) leaves the lane to `lane`
            let cube0 = (base - q.face * slot.tlayer).arr();
            let t0 = base + j0 * w + i0;
            let mut t = [
                t0.arr(),
                (t0 + one).arr(),
                (t0 + w).arr(),
                (t0 + w + one).arr(),
            ];
            let (i0a, j0a, wa, face, tl) =
                (i0.arr(), j0.arr(), w.arr(), q.face.arr(), slot.tlayer.arr());
            let mut left = !small;
            for k in 0..L::W {
                if inside >> k & 1 != 0 || left >> k & 1 != 0 {
                    continue;
                }
                let n = wa[k];
                for (c, tc) in t.iter_mut().enumerate() {
                    let (i, j) = (i0a[k] + (c & 1) as i32, j0a[k] + (c >> 1) as i32);
                    match remap_edge_step(face[k] as u32, i, j, n) {
                        Some((f, i, j)) => tc[k] = cube0[k] + f as i32 * tl[k] + j * n + i,
                        None => left |= 1 << k,
                    }
                }
            }
            let t = |c: usize| l.i_of(|k| t[c][k]);
            (o, hi, rest) = (t(0), Some([t(1), t(2), t(3)]), left);
        } else if lanewise {
            let (i0, i1) = (
                wrap_mode::<K, L>(i0, w, slot.pow2),
                wrap_mode::<K, L>(i0 + one, w, slot.pow2),
            );
            let (j0, j1) = (
                wrap_mode::<K, L>(j0, h, slot.pow2),
                wrap_mode::<K, L>(j0 + one, h, slot.pow2),
            );
            let (r0, r1) = (base + j0 * w, base + j1 * w);
            let adjacent = (i1.eq(i0 + one) & j1.eq(j0 + one)).all();
            o = r0 + i0;
            hi = (!adjacent).then_some([r0 + i1, r1 + i0, r1 + i1]);
            rest = !small;
        } else {
            (o, hi, rest) = (base + j0 * w + i0, None, !(inside & small));
        }
    }
    let rest = rest & full;
    if rest == full || (ALL && rest != 0) {
        return None;
    }
    // the lanes left read the first taken lane's texels
    let (o, row, hi) = if rest == 0 {
        (o, w, hi)
    } else {
        let src = (!rest).trailing_zeros() as usize;
        #[allow(clippy::manual_map)]
        let hi = match hi {
            Some(h) => Some([
                fill(h[0], rest, src),
                fill(h[1], rest, src),
                fill(h[2], rest, src),
            ]),
            None => None,
        };
        (fill(o, rest, src), fill(w, rest, src), hi)
    };
    let ok = match hi {
        // nearest reads `o` alone
        None if !LIN => in_plane(o, o, len),
        None => in_plane(o, o + row + one, len),
        Some(h) => {
            let lo = o.min(h[0]).min(h[1]).min(h[2]);
            let top = o.max(h[0]).max(h[1]).max(h[2]);
            in_plane(lo, top, len)
        }
    };
    ok.then_some(Taps {
        o,
        row,
        hi,
        fa,
        fb,
        rest,
        corner,
    })
}

/// The plane's texels at indices `o` (checked by [`plane_taps`]).
#[inline(always)]
fn reads<L: Lanes>(texels: &[f32x4], o: I<L>) -> L::A<f32x4> {
    let b = o.x16().arr();
    let base = texels.as_ptr().cast::<u8>();
    // SAFETY: `plane_taps` checked `0 ≤ lo ≤ hi < texels.len()` for the least and greatest
    // of every lane's taps (adjacent: `o` and `o + row + 1`, bounding all four as `row ≥ 1`;
    // nearest: `o`); each offset is 16 × a tap, so its 16 bytes are an aligned texel
    L::each(|l| unsafe { *base.add(b[l] as u32 as usize).cast::<f32x4>() })
}

/// Channel `c` (0 to 3) of the plane's texels at indices `o` (checked by [`plane_taps`]).
#[inline(always)]
pub(super) fn reads_channel<L: Lanes>(texels: &[f32x4], o: I<L>, c: usize) -> F<L> {
    let base = texels.as_ptr().cast::<u8>().wrapping_add(4 * (c & 3));
    // SAFETY: as in `reads`, each lane of `o` is a checked index: 16 × it is a texel's
    // offset, and its channel `c & 3` the aligned f32 `4·(c & 3)` bytes on
    unsafe { o.lanes().gather(base, o.x16()) }
}

/// A group of lanes on one slot, filtered by `LIN`, compared first if `CMP`: lane-wise where
/// [`plane_taps`] takes the lanes, every other lane by [`lane`] from `src`.
#[inline(always)]
pub(super) fn group<L: Lanes, K: Spec, S: Source, const LIN: bool, const CMP: bool>(
    b: &Binding,
    src: &S,
    plane: &[f32x4],
    slot: &Slot<L>,
    q: &Input<L>,
) -> L::A<f32x4> {
    let Some(t) = plane_taps::<L, K, LIN, false>(b, slot, q, plane.len(), !CMP) else {
        let zero = L::each(|_| f32x4::splat(0.0));
        return rest_lanes::<L, K, S, LIN, CMP>(zero, b, src, *slot, *q, (1u32 << L::W) - 1);
    };
    let r = filter_taps::<L, LIN, CMP>(b, plane, slot, q, &t);
    if t.rest != 0 {
        return rest_lanes::<L, K, S, LIN, CMP>(r, b, src, *slot, *q, t.rest);
    }
    r
}

/// [`group`] when [`plane_taps`] takes every lane, else `None`: nothing left over to test
/// for or fill in, so the results stay in registers.
#[inline(always)]
pub(super) fn group_all<L: Lanes, K: Spec, const LIN: bool, const CMP: bool>(
    b: &Binding,
    plane: &[f32x4],
    slot: &Slot<L>,
    q: &Input<L>,
) -> Option<L::A<f32x4>> {
    let t = plane_taps::<L, K, LIN, true>(b, slot, q, plane.len(), !CMP)?;
    Some(filter_taps::<L, LIN, CMP>(b, plane, slot, q, &t))
}

/// [`group_all`] of a compare as the lanes' filtered pass fractions (the first channel;
/// the others are 0, 0, 1).
#[inline(always)]
pub(super) fn group_all_cmp<L: Lanes, K: Spec, const LIN: bool>(
    b: &Binding,
    plane: &[f32x4],
    slot: &Slot<L>,
    q: &Input<L>,
) -> Option<F<L>> {
    let t = plane_taps::<L, K, LIN, true>(b, slot, q, plane.len(), false)?;
    Some(compare_taps::<L, LIN>(b, plane, q, &t))
}

/// Each tap's depth (channel 0) compared with the lane's Dref, as 1 or 0, filtered by `LIN`.
#[inline(always)]
fn compare_taps<L: Lanes, const LIN: bool>(
    b: &Binding,
    plane: &[f32x4],
    q: &Input<L>,
    t: &Taps<L>,
) -> F<L> {
    let [o00, o10, o01, o11] = t.four();
    let op = b.sampler.compare_op;
    if LIN {
        let d = [
            reads_channel(plane, o00, 0),
            reads_channel(plane, o10, 0),
            reads_channel(plane, o01, 0),
            reads_channel(plane, o11, 0),
        ];
        let [p00, p10, p01, p11] = [
            compare(op, q.dref, d[0]),
            compare(op, q.dref, d[1]),
            compare(op, q.dref, d[2]),
            compare(op, q.dref, d[3]),
        ];
        let (p00, p10, p01, p11) = (
            p00.one_zero(),
            p10.one_zero(),
            p01.one_zero(),
            p11.one_zero(),
        );
        lerp_xy([p00, p10, p01, p11], t.fa, t.fb)
    } else {
        compare(op, q.dref, reads_channel(plane, o00, 0)).one_zero()
    }
}

/// The texels of the taps `t` filtered by `LIN`, compared first if `CMP`.
#[inline(always)]
fn filter_taps<L: Lanes, const LIN: bool, const CMP: bool>(
    b: &Binding,
    plane: &[f32x4],
    slot: &Slot<L>,
    q: &Input<L>,
    t: &Taps<L>,
) -> L::A<f32x4> {
    let [o00, o10, o01, o11] = t.four();
    if CMP {
        let c = compare_taps::<L, LIN>(b, plane, q, t).arr();
        L::each(|l| f32x4::new([c[l], 0.0, 0.0, 1.0]))
    } else if let (true, None, Some(row)) = (LIN, t.hi, slot.row) {
        // SAFETY: `plane_taps` checked `0 ≤ o` and `o + row + 1 < plane.len()` for
        // every lane (the adjacent form), with `row` every lane's row length (≥ 1)
        unsafe { t.fa.lanes().bilerp_block(plane, t.o, row, t.fa, t.fb) }
    } else if LIN {
        let mut tx = [
            reads(plane, o00),
            reads(plane, o10),
            reads(plane, o01),
            reads(plane, o11),
        ];
        if t.corner != [0; 4] {
            tx = corner_average::<L>(tx, t.corner);
        }
        t.fa.lanes().bilerp(tx, t.fa, t.fb)
    } else {
        reads(plane, o00)
    }
}

/// A cube corner's missing texel: the three real ones summed in f64 in tap order, over 3
/// (so three equal texels average to exactly themselves).
fn corner_texel(t: impl Iterator<Item = [f32; 4]>) -> [f32; 4] {
    let mut s = [0.0f64; 4];
    for v in t {
        for c in 0..4 {
            s[c] += v[c] as f64;
        }
    }
    s.map(|x| (x / 3.0) as f32)
}

/// The taps `tx` with each lane's corner tap (bit `l` of `corner[c]`) replaced by
/// [`corner_texel`] of the other three, as [`lane`] makes it.
#[cold]
#[inline(never)]
fn corner_average<L: Lanes>(mut tx: [L::A<f32x4>; 4], corner: [u32; 4]) -> [L::A<f32x4>; 4] {
    for c in 0..4 {
        for l in (0..L::W).filter(|&l| corner[c] >> l & 1 != 0) {
            let others = (0..4).filter(|&k| k != c).map(|k| tx[k][l].to_array());
            tx[c][l] = f32x4::new(corner_texel(others));
        }
    }
    tx
}

/// [`group`] with the texel filter (`linear`) and the compare (`cmp`) known at run time:
/// its four instantiations.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn group_of<L: Lanes, K: Spec, S: Source>(
    b: &Binding,
    src: &S,
    plane: &[f32x4],
    linear: bool,
    cmp: bool,
    slot: &Slot<L>,
    q: &Input<L>,
) -> L::A<f32x4> {
    match (linear, cmp) {
        (false, false) => group::<L, K, S, false, false>(b, src, plane, slot, q),
        (true, false) => group::<L, K, S, true, false>(b, src, plane, slot, q),
        (false, true) => group::<L, K, S, false, true>(b, src, plane, slot, q),
        (true, true) => group::<L, K, S, true, true>(b, src, plane, slot, q),
    }
}

/// [`group_all`] with the texel filter (`linear`) and the compare (`cmp`) known at run
/// time: its four instantiations.
#[inline(always)]
pub(super) fn group_all_of<L: Lanes, K: Spec>(
    b: &Binding,
    plane: &[f32x4],
    linear: bool,
    cmp: bool,
    slot: &Slot<L>,
    q: &Input<L>,
) -> Option<L::A<f32x4>> {
    match (linear, cmp) {
        (false, false) => group_all::<L, K, false, false>(b, plane, slot, q),
        (true, false) => group_all::<L, K, true, false>(b, plane, slot, q),
        (false, true) => group_all::<L, K, false, true>(b, plane, slot, q),
        (true, true) => group_all::<L, K, true, true>(b, plane, slot, q),
    }
}

/// `r` with the lanes `rest` (bit `l`) replaced by [`lane`]'s results: the rare path, out
/// of line, its operands by value so that the group's stay in registers.
#[cold]
#[inline(never)]
fn rest_lanes<L: Lanes, K: Spec, S: Source, const LIN: bool, const CMP: bool>(
    mut r: L::A<f32x4>,
    b: &Binding,
    src: &S,
    slot: Slot<L>,
    q: Input<L>,
    rest: u32,
) -> L::A<f32x4> {
    let (u, v) = texel_space(&slot, &q);
    let (u, v, d) = (u.arr(), v.arr(), q.dref.arr());
    for l in 0..L::W {
        if rest >> l & 1 != 0 {
            let at = q.at(b, src, &slot, l);
            let (u, d) = ([u[l], v[l], 0.0], CMP.then_some(d[l]));
            let note = Note::default();
            r[l] = f32x4::new(lane::<K, S, _>(b, src, &at, u, d, LIN, note, &NoRecord));
        }
    }
    r
}

/// The group's texel-space positions `s·w (+ offset)` (cube faces: square).
#[inline(always)]
pub(super) fn texel_space<L: Lanes>(slot: &Slot<L>, q: &Input<L>) -> (F<L>, F<L>) {
    let mut u = q.s * slot.sizef[0];
    let mut v = q.t * slot.sizef[1];
    if let Some((ou, ov)) = q.off {
        u = u + ou;
        v = v + ov;
    }
    (u, v)
}
