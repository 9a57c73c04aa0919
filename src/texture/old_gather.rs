//! Gather (4 texels of the bilinear footprint at the base level), fetch (integer texel
//! loads, out of bounds → zeros) and size/level/sample queries (sampling.md §6.3, §11, §12).

use super::cube::remap_edge;
use super::fast_gather::{plane_gather_lanes, LANE_QUADS};
use super::old_filter::fl;
use super::image::{Image, ImageView, ViewType};
use super::old_sample::Kernel;
use super::QuadBits;
use crate::{Error, Result};

pub use super::gather::{BatchGatherOffsets, GatherArgs, GatherBatchArgs, GatherOffsets};

impl Kernel {
    /// Gathers one component (or 4 compare results) of the 2×2 footprint at the view's base
    /// level: `R = τ(i0,j1), G = τ(i1,j1), B = τ(i1,j0), A = τ(i0,j0)`. Raw bits: values are
    /// returned untouched (f32 bits / integers); Dref results are 0.0/1.0. Cube corners get
    /// the average of the three real texels (after compare). Filters, LOD and bias are ignored.
    pub fn gather(&self, img: &Image, a: &GatherArgs) -> Result<QuadBits> {
        self.check(img)?;
        if a.component > 3 {
            return Err(Error::Texture(format!(
                "gather component {} out of range 0..=3",
                a.component
            )));
        }
        // Dref without compareEnable: no comparison under Vulkan, an error under D3D, as in
        // `Kernel::sample`.
        if a.dref.is_some() && !self.sampler.compare_enable {
            if self.cfg.policy == super::Policy::D3D {
                return Err(Error::Texture(
                    "a Dref gather through a sampler with compareEnable off (D3D: needs a \
                     SamplerComparisonState)"
                        .into(),
                ));
            }
            return self.gather(img, &GatherArgs { dref: None, ..*a });
        }
        if a.dref.is_none() && self.sampler.compare_enable {
            return Err(Error::Texture(
                "a gather without a Dref operand through a sampler with compareEnable".into(),
            ));
        }
        if super::old_sample::NEW_ROUTES.load(std::sync::atomic::Ordering::Relaxed) && !self.legacy {
            return Ok((self.gather_route)(&self.bind, img, a));
        }
        if let Some(fast) = self.fast_gather_fn() {
            return Ok(fast(self, img, a));
        }
        let level = self.view.base_level;
        let lv = &self.lv[level as usize];
        let unnorm = self.sampler.unnormalized_coordinates;
        let mut out = [[0u32; 4]; 4];
        for lane in 0..4 {
            if a.mask & (1 << lane) == 0 {
                continue;
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
            let pick = |v: [u32; 4]| -> u32 {
                match dref {
                    Some(r) => {
                        let pass = self.sampler.compare_op.test(r, f32::from_bits(v[0]));
                        if pass { 1.0f32 } else { 0.0 }.to_bits()
                    }
                    None => v[a.component as usize],
                }
            };
            let mut vals = [None::<u32>; 4];
            for (k, p) in pos.iter().enumerate() {
                vals[k] = if self.cube {
                    remap_edge(face, p[0], p[1], lv.size[0]).map(|(f, i, j)| {
                        let o = lv
                            .layout(layer - face + f)
                            .offset([i, j, 0], self.texel_size);
                        pick(self.raw_texel(img.bytes(), o))
                    })
                } else {
                    Some(pick(self.raw_at(img, level, layer, [p[0], p[1], 0])))
                };
            }
            // cube corner: the missing texel is the average of the real ones (three for a
            // normal footprint; offsets, which are invalid on cubes, may miss more)
            out[lane] = if vals.iter().all(Option::is_some) {
                vals.map(|v| v.unwrap_or_default())
            } else {
                let avg = self.average(vals.iter().flatten().copied(), dref.is_some());
                vals.map(|v| v.unwrap_or(avg))
            };
        }
        Ok(out)
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
        // the operand checks of `Kernel::gather`
        if !b.dref.is_empty() && !self.sampler.compare_enable {
            if self.cfg.policy == super::Policy::D3D {
                return Err(Error::Texture(
                    "a Dref gather through a sampler with compareEnable off (D3D: needs a \
                     SamplerComparisonState)"
                        .into(),
                ));
            }
            return self.gather_batch(img, &GatherBatchArgs { dref: &[], ..*b }, out);
        }
        if b.dref.is_empty() && self.sampler.compare_enable {
            return Err(Error::Texture(
                "a gather without a Dref operand through a sampler with compareEnable".into(),
            ));
        }
        if super::old_sample::NEW_ROUTES.load(std::sync::atomic::Ordering::Relaxed) && !self.legacy {
            for (q, &m) in b.masks.iter().enumerate() {
                let c = b.component.get(4 * q).copied().unwrap_or(0);
                if m & 0xf != 0 && c > 3 {
                    return Err(Error::Texture(format!("gather component {c} out of range 0..=3")));
                }
            }
            (self.gather_batch_route)(&self.bind, img, b, out);
            return Ok(());
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

