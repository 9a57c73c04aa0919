//! Fetch (integer texel loads: no sampler, no filtering, out of bounds → the out-of-range
//! result) and the size, level and sample queries (sampling.md §11, §12).

use super::explain::{FootprintExplain, Log, NoRecord, Operation, QuadExplain, Recorder};
use super::explain::{TapExplain, Texel};
use super::format::NumKind;
use super::image::{Image, ImageView, ViewType};
use super::QuadBits;
use crate::Result;

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

/// What a read outside an image or texel buffer returns (robust access): zeros in the `comps`
/// components the format has and the (0, 0, 0, 1) defaults in the missing ones, as raw bits
/// (1.0 for float kinds, 1 for integer kinds).
pub fn out_of_range_texel(comps: usize, kind: NumKind) -> [u32; 4] {
    result_bits(kind, present(comps, [0.0; 4]))
}

/// `v` in the `comps` components a format has, the (0, 0, 0, 1) defaults in the others.
pub(super) fn present(comps: usize, v: [f32; 4]) -> [f32; 4] {
    let mut o = [0.0, 0.0, 0.0, 1.0];
    o[..comps].copy_from_slice(&v[..comps]);
    o
}

/// Values as result bits of a format of `kind`: f32 bits, or integers for UINT/SINT.
pub(super) fn result_bits(kind: NumKind, v: [f32; 4]) -> [u32; 4] {
    match kind {
        NumKind::Float => v.map(f32::to_bits),
        _ => v.map(|x| x as u32),
    }
}

/// Fetches texels by integer coordinates: level `base + lod`, offsets added, no wrapping.
/// Anything out of range (coordinate, level, layer, sample) gives zeros in the present
/// components and (0,0,0,1) defaults in missing ones. Raw bits as
/// [`Kernel::sample`](super::Kernel::sample).
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
