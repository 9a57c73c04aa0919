//! Gather (4 texels of the bilinear footprint at the base level), fetch (integer texel
//! loads, out of bounds → zeros) and size/level/sample queries (sampling.md §6.3, §11, §12).
//!
//! The general gather and the fetch are generic over the [`Recorder`] they report to, so
//! [`Kernel::explain_gather`] and [`explain_fetch`] record the code that makes the results.

use super::cube::remap_edge;
use super::explain::{FootprintExplain, Log, NoRecord, Operation, QuadExplain, Recorder};
use super::explain::{TapExplain, Texel};
use super::fast_gather::{plane_gather_lanes, LANE_QUADS};
use super::filter::fl;
use super::image::{Image, ImageView, ViewType};
use super::sample::Kernel;
use super::QuadBits;
use crate::{Error, Result};

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

/// A batch of gathers in the interpreter's structure-of-arrays form for
/// [`Kernel::gather_batch`] (rows as [`BatchArgs`](super::BatchArgs)'s: f32 bits, lane
/// `4q + i` is quad `q`'s lane `i`, an empty row reads as zeros).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GatherBatchArgs<'a> {
    /// Coordinate rows in [`GatherArgs::coords`] order (`s, t` then the layer of 2D arrays).
    pub coords: [&'a [u32]; 4],
    /// Lanes that need results, per quad (bit `i` = lane `4q + i`); its length is the quad
    /// count.
    pub masks: &'a [u8],
    /// The component operand: quad `q` gathers component `component[4q]` (its lane 0, as
    /// the per-quad form takes it); empty: component 0.
    pub component: &'a [u32],
    /// The offsets.
    pub offsets: BatchGatherOffsets<'a>,
    /// The depth reference per lane (f32 bits); empty: no Dref operand.
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

/// Inputs of `OpImageFetch` / `TextureLoad` for a quad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchArgs {
    /// Per-lane integer coordinates `(i[, j][, k])` then the layer for arrayed views (cube
    /// views: `(i, j, face + 6·cube)`).
    pub coords: [[i32; 4]; 4],
    /// Per-lane view-relative mip level.
    pub lod: [i32; 4],
    /// Per-lane sample index (0 for single-sampled images).
    pub sample: [u32; 4],
    /// Per-lane offsets (u, v, w).
    pub offsets: [[i32; 3]; 4],
    /// Lanes that need results.
    pub mask: u8,
}

impl FetchArgs {
    /// Level 0, sample 0, no offsets, all lanes.
    pub fn new(coords: [[i32; 4]; 4]) -> FetchArgs {
        FetchArgs {
            coords,
            lod: [0; 4],
            sample: [0; 4],
            offsets: [[0; 3]; 4],
            mask: 0xf,
        }
    }
}

impl Kernel {
    /// Gathers one component (or 4 compare results) of the 2×2 footprint at the view's base
    /// level: `R = τ(i0,j1), G = τ(i1,j1), B = τ(i1,j0), A = τ(i0,j0)`. Raw bits: values are
    /// returned untouched (f32 bits / integers); Dref results are 0.0/1.0. Cube corners get
    /// the average of the three real texels (after compare). Filters, LOD and bias are ignored.
    /// The Dref operand's rule against `compareEnable` is `Kernel::dref_operand`'s.
    pub fn gather(&self, img: &Image, a: &GatherArgs) -> Result<QuadBits> {
        self.gather_checks(img, a)?;
        if a.dref.is_some() != self.sampler.compare_enable {
            // an error, or the gather without its Dref
            let dref = self.dref_operand(a.dref, "gather")?;
            return self.gather(img, &GatherArgs { dref, ..*a });
        }
        if let Some(fast) = self.fast_gather_fn() {
            return Ok(fast(self, img, a));
        }
        Ok(self.gather_lanes(img, a, &NoRecord))
    }

    /// What [`Kernel::gather`] does for this quad, step by step: the general gather run with
    /// a recording recorder (see [`super::explain`]). The record's result is what
    /// [`Kernel::gather`] returns; the errors are its errors.
    pub fn explain_gather(&self, img: &Image, a: &GatherArgs) -> Result<QuadExplain> {
        self.gather_checks(img, a)?;
        let a = GatherArgs {
            dref: self.dref_operand(a.dref, "gather")?,
            ..*a
        };
        let log = Log::new(Operation::Gather {
            component: a.component,
        });
        let r = self.gather_lanes(img, &a, &log);
        Ok(log.finish(r))
    }

    /// The image's shape and the component operand of [`Kernel::gather`].
    #[inline(always)]
    fn gather_checks(&self, img: &Image, a: &GatherArgs) -> Result<()> {
        self.check(img)?;
        if a.component > 3 {
            return Err(Error::Texture(format!(
                "gather component {} out of range 0..=3",
                a.component
            )));
        }
        Ok(())
    }

    /// The general gather: lane by lane, the footprint at the base level (offsets of either
    /// form), each tap wrapped per axis (border: its raw bits) or, on a cube, moved to the
    /// neighbouring face, compared if Dref, the missing tap of a cube corner the average of
    /// the others; each step reported to `rec`.
    fn gather_lanes<R: Recorder>(&self, img: &Image, a: &GatherArgs, rec: &R) -> QuadBits {
        let level = self.view.base_level;
        let lv = &self.lv[level as usize];
        let unnorm = self.sampler.unnormalized_coordinates;
        let mut out = [[0u32; 4]; 4];
        for lane in 0..4 {
            if a.mask & (1 << lane) == 0 {
                continue;
            }
            if R::ON {
                rec.lane(lane, a.coords[lane]);
            }
            let (st, layer, face) = self.locate(&a.coords[lane]);
            let one = match a.offsets {
                GatherOffsets::Offset(o) => self.offset_bits([o[lane][0], o[lane][1], 0], 6),
                _ => [0; 3],
            };
            let uvw = self.to_texel(level, st, one, unnorm);
            let i0 = fl(self.snap(uvw[0] - 0.5));
            let j0 = if self.dims >= 2 {
                fl(self.snap(uvw[1] - 0.5))
            } else {
                0
            };
            let pos: [[i32; 2]; 4] = match a.offsets {
                GatherOffsets::Four(o) => o.map(|d| {
                    let d = self.offset_bits([d[0], d[1], 0], 6);
                    [i0.saturating_add(d[0]), j0.saturating_add(d[1])]
                }),
                _ => {
                    let (i1, j1) = (i0.saturating_add(1), j0.saturating_add(1));
                    [[i0, j1], [i1, j1], [i1, j0], [i0, j0]]
                }
            };
            let dref = a.dref.map(|d| self.dref_value(d[lane]));
            if R::ON {
                rec.located(self.cube.then_some(face), layer, dref);
                rec.footprint(FootprintExplain {
                    level,
                    weight: 1.0,
                    position: uvw,
                    ..FootprintExplain::default()
                });
            }
            // the gathered value of a texel's raw bits, and its comparison for Dref
            let pick = |v: [u32; 4]| -> (u32, Option<bool>) {
                match dref {
                    Some(r) => {
                        let pass = self.sampler.compare_op.test(r, f32::from_bits(v[0]));
                        (if pass { 1.0f32 } else { 0.0 }.to_bits(), Some(pass))
                    }
                    None => (v[a.component as usize], None),
                }
            };
            let mut vals = [None::<u32>; 4];
            for (k, p) in pos.iter().enumerate() {
                // the texel read (`None`: the border) at (layer, face), and its bits
                let read = if self.cube {
                    remap_edge(face, p[0], p[1], lv.size[0]).map(|(f, i, j)| {
                        let layer = layer - face + f;
                        let o = lv.layout(layer).offset([i, j, 0], self.texel_size);
                        ((Some([i, j, 0]), layer, f), self.raw_texel(img.bytes(), o))
                    })
                } else {
                    let (w, v) = self.raw_at(img, level, layer, [p[0], p[1], 0]);
                    Some(((w, layer, face), v))
                };
                vals[k] = read.map(|((at, layer, f), raw)| {
                    let (v, pass) = pick(raw);
                    if R::ON {
                        rec.tap(TapExplain {
                            unwrapped: [p[0], p[1], 0],
                            texel: match at {
                                Some(ijk) => Texel::At {
                                    layer,
                                    face: self.cube.then_some(f),
                                    ijk,
                                },
                                None => Texel::Border,
                            },
                            weight: 1.0,
                            value: raw,
                            compare: pass,
                        });
                    }
                    v
                });
            }
            // cube corner: the missing texel is the average of the real ones (three for a
            // normal footprint; offsets, which are invalid on cubes, may miss more)
            out[lane] = if vals.iter().all(Option::is_some) {
                vals.map(|v| v.unwrap_or_default())
            } else {
                let avg = self.average(vals.iter().flatten().copied(), dref.is_some());
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
                rec.result(out[lane]);
            }
        }
        out
    }

    /// Gathers a batch of quads: the results of [`Kernel::gather`] on each quad with a
    /// non-empty mask (its [`GatherBatchArgs::quad_args`]), written to the active lanes of
    /// `out` (lane `4q + i`); other lanes are left as they are. The operand checks are made
    /// once per batch; plane kernels of 2D and 2D-array views take `fast_gather.rs`'s plane
    /// route, every other quad [`Kernel::gather`]. Errors: rows or `out` shorter than the
    /// batch, and the errors of [`Kernel::gather`].
    pub fn gather_batch(
        &self,
        img: &Image,
        b: &GatherBatchArgs<'_>,
        out: &mut [[u32; 4]],
    ) -> Result<()> {
        let quads = b.masks.len();
        let lanes = 4 * quads;
        let short = |r: &[u32]| !r.is_empty() && r.len() < lanes;
        let off_short = match b.offsets {
            BatchGatherOffsets::Offset(r) => r.iter().any(|r| short(r)),
            _ => false,
        };
        if b.coords.iter().any(|r| short(r))
            || short(b.dref)
            || (!b.component.is_empty() && b.component.len() + 3 < lanes)
            || off_short
            || out.len() < lanes
        {
            return Err(Error::Texture(format!(
                "gather_batch: {quads} quads need operand rows and results of {lanes} lanes"
            )));
        }
        if b.masks.iter().all(|&m| m & 0xf == 0) {
            return Ok(());
        }
        self.check(img)?;
        if b.dref.is_empty() == self.sampler.compare_enable {
            // the Dref rule of `Kernel::gather`: an error, or the gathers without their Dref
            self.dref_operand((!b.dref.is_empty()).then_some(()), "gather")?;
            return self.gather_batch(img, &GatherBatchArgs { dref: &[], ..*b }, out);
        }
        let plane = if self.plane_gather() {
            img.plane()
        } else {
            None
        };
        // the lane-wide route first, `LANE_QUADS` quads at a time; the quads it leaves go on
        let lanes_route = plane.filter(|_| b.offsets == BatchGatherOffsets::None);
        for c0 in (0..quads).step_by(LANE_QUADS) {
            let c1 = (c0 + LANE_QUADS).min(quads);
            let served = match lanes_route {
                Some(p) => plane_gather_lanes(self, p, b, (c0, c1), out),
                None => 0,
            };
            if served.count_ones() as usize == c1 - c0 {
                continue;
            }
            for q in c0..c1 {
                let mask = b.masks[q] & 0xf;
                if mask == 0 || served & (1 << (q - c0)) != 0 {
                    continue;
                }
                let o = &mut out[4 * q..4 * q + 4];
                let component = b.component.get(4 * q).copied().unwrap_or(0);
                if let (Some(plane), 0..=3) = (plane, component) {
                    let r = super::fast_gather::plane_gather(self, plane, b, q, component as usize);
                    if mask == 0xf {
                        o.copy_from_slice(&r);
                    } else {
                        super::merge_lanes(o, &r, mask);
                    }
                    continue;
                }
                let r = self.gather(img, &b.quad_args(q))?;
                super::merge_lanes(o, &r, mask);
            }
        }
        Ok(())
    }

    /// Average of the real gathered values (cube corner synthesis); 0 when there are none.
    fn average(&self, v: impl Iterator<Item = u32>, compare: bool) -> u32 {
        use super::format::NumKind;
        let v: Vec<u32> = v.collect();
        let n = v.len().max(1);
        match (compare, self.dec.kind) {
            (true, _) | (_, NumKind::Float) => {
                ((v.iter().map(|&x| f32::from_bits(x) as f64).sum::<f64>() / n as f64) as f32)
                    .to_bits()
            }
            (_, NumKind::Uint) => (v.iter().map(|&x| x as u64).sum::<u64>() / n as u64) as u32,
            (_, NumKind::Sint) => {
                (v.iter().map(|&x| x as i32 as i64).sum::<i64>() / n as i64) as i32 as u32
            }
        }
    }
}

/// What a read outside an image or texel buffer returns (robust access): zeros in the `comps`
/// components the format has and the (0, 0, 0, 1) defaults in the missing ones, as raw bits
/// (1.0 for float kinds, 1 for integer kinds).
pub fn out_of_range_texel(comps: usize, kind: super::NumKind) -> [u32; 4] {
    let one = if kind == super::NumKind::Float {
        1.0f32.to_bits()
    } else {
        1
    };
    if comps == 4 {
        [0; 4]
    } else {
        [0, 0, 0, one]
    }
}

/// Fetches texels by integer coordinates: level `base + lod`, offsets added, no wrapping.
/// Anything out of range (coordinate, level, layer, sample) gives zeros in the present
/// components and (0,0,0,1) defaults in missing ones. Raw bits as [`Kernel::sample`].
pub fn fetch_quad(img: &Image, view: &ImageView, a: &FetchArgs) -> Result<QuadBits> {
    fetch(img, view, a, &NoRecord)
}

/// What [`fetch_quad`] does for this quad, lane by lane: the texel each lane reads (or that
/// it is out of range) and its value. The record's result is [`fetch_quad`]'s.
pub fn explain_fetch(img: &Image, view: &ImageView, a: &FetchArgs) -> Result<QuadExplain> {
    let log = Log::new(Operation::Fetch);
    let r = fetch(img, view, a, &log)?;
    Ok(log.finish(r))
}

/// [`fetch_quad`], each lane's texel reported to `rec`.
fn fetch<R: Recorder>(img: &Image, view: &ImageView, a: &FetchArgs, rec: &R) -> Result<QuadBits> {
    view.validate(img)?;
    let f = img.format();
    let dec = f.decoder(view.aspect)?;
    let comps = if view.aspect == super::Aspect::Color {
        f.components()
    } else {
        1
    };
    let oob = out_of_range_texel(comps, dec.kind);
    let dims = match view.view_type {
        ViewType::Cube | ViewType::CubeArray => 2,
        t => t.spatial_dims(),
    };
    let layer_at = match view.view_type {
        ViewType::Cube | ViewType::CubeArray => Some(2),
        t => t.layer_coord(),
    };
    let ts = f.texel_size();
    let mut out = [[0u32; 4]; 4];
    for (lane, res) in out.iter_mut().enumerate() {
        if a.mask & (1 << lane) == 0 {
            continue;
        }
        let c = a.coords[lane];
        let lod = a.lod[lane];
        let mut xyz = [0u32; 3];
        let mut ok = lod >= 0 && (lod as u32) < view.level_count;
        for d in 0..dims {
            match c[d].checked_add(a.offsets[lane][d]) {
                Some(v) if v >= 0 => xyz[d] = v as u32,
                _ => ok = false,
            }
        }
        let layer = match layer_at {
            Some(i) if c[i] >= 0 && (c[i] as u32) < view.layer_count => {
                view.base_layer + c[i] as u32
            }
            Some(_) => {
                ok = false;
                0
            }
            None => view.base_layer,
        };
        let level = view.base_level + lod.max(0) as u32;
        let at = img
            .texel_offset(level, layer, xyz, a.sample[lane])
            .filter(|_| ok);
        *res = match at {
            Some(o) => (dec.raw)(&img.bytes()[o..o + ts]),
            None => oob,
        };
        if R::ON {
            let unwrapped: [i32; 3] =
                std::array::from_fn(|d| c[d].saturating_add(a.offsets[lane][d]));
            rec.lane(lane, c.map(|x| x as f32));
            rec.located(None, layer, None);
            rec.footprint(FootprintExplain {
                level,
                weight: 1.0,
                position: unwrapped.map(|x| x as f32),
                ..FootprintExplain::default()
            });
            rec.tap(TapExplain {
                unwrapped,
                texel: match at {
                    Some(_) => Texel::At {
                        layer,
                        face: None,
                        ijk: xyz.map(|x| x as i32),
                    },
                    None => Texel::OutOfRange,
                },
                weight: 1.0,
                value: *res,
                compare: None,
            });
            rec.result(*res);
        }
    }
    Ok(out)
}

/// `OpImageQuerySizeLod`: the view's size at view-relative `lod` as `(w, h, d)`, with the
/// layer count (cube arrays: cube count) in the component after the spatial ones;
/// cubes report `(size, size, [cubes])`. `None` for a level outside the view.
pub fn query_size(img: &Image, view: &ImageView, lod: u32) -> Option<[u32; 3]> {
    if lod >= view.level_count {
        return None;
    }
    let e = view.level_extent(img, lod);
    Some(match view.view_type {
        ViewType::D1 => [e[0], 0, 0],
        ViewType::D1Array => [e[0], view.layer_count, 0],
        ViewType::D2 | ViewType::Cube => [e[0], e[1], 0],
        ViewType::D2Array => [e[0], e[1], view.layer_count],
        ViewType::D3 => e,
        ViewType::CubeArray => [e[0], e[1], view.layer_count / 6],
    })
}

/// `OpImageQueryLevels`.
pub fn query_levels(view: &ImageView) -> u32 {
    view.level_count
}

/// `OpImageQuerySamples`.
pub fn query_samples(img: &Image) -> u32 {
    img.samples()
}
