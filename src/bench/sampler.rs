//! The texture unit's benchmark cases, defined once for `benches/sampler.rs` (criterion and
//! its callgrind mode) and `quadstep bench sampler`. A [`Case`] is a name and a closure that
//! samples [`QUADS`] quads (4 samples each) through the public [`Kernel`] API, with its
//! image, view, sampler and operands built beforehand, so running it is the texture unit
//! alone.
//!
//! Two tables:
//! - [`cases`]: the named cases (the default matrix): the common operations at fixed shapes,
//!   several of them matching lavapipe's sampling scenes (`benches/lavapipe/`), each through
//!   the per-quad entry ([`Kernel::sample`], [`Kernel::gather`]) and, as `*_wide`, the batch
//!   entry the interpreter uses ([`Kernel::sample_batch`], [`Kernel::gather_batch`]);
//! - [`Spec`] / [`Axes::matrix`]: a generated matrix, one case per combination of format ×
//!   view type × filter × mip mode × address mode × LOD form × texture size × entry, named
//!   after its coordinates (`r8g8b8a8_unorm.2d.linear.mip_linear.repeat.implicit.256.quad`).
//!   Combinations the texture unit does not take (Dref on a colour format, gathers on 1D
//!   or 3D views, offsets on cubes, gradients through the batch entry) are errors of
//!   [`Spec::case`], for the caller to report and skip.
//!
//! Texels are pseudo-random from a fixed seed (a splitmix64 generator here, so the library
//! needs no random-number crate at run time): every build samples the same data.

use std::cell::RefCell;
use std::hint::black_box;
use std::ops::Range;
use std::rc::Rc;

use crate::texture::{
    AddressMode, BatchArgs, BatchGatherOffsets, BatchLod, CompareOp, Config, Filter, Format,
    GatherArgs, GatherBatchArgs, Image, ImageDim, ImageView, Kernel, LodMode, MipmapMode,
    SampleArgs, Sampler, ViewType, WIDE_QUADS,
};
use crate::{Error, Result};

/// Quads one run of a case samples.
pub const QUADS: usize = 64;
/// Samples one run of a case takes (4 lanes per quad).
pub const SAMPLES_PER_RUN: u64 = 4 * QUADS as u64;
/// Largest image a generated case may ask for, in texels over all layers.
pub const MAX_TEXELS: u64 = 1 << 24;

/// One benchmark case: a name and a closure sampling its [`QUADS`] quads once.
pub struct Case {
    /// The case's name (`--case` globs and criterion's ids match it).
    pub name: String,
    run: Box<dyn Fn() -> Result<()>>,
}

impl Case {
    fn new(name: impl Into<String>, run: impl Fn() -> Result<()> + 'static) -> Case {
        Case {
            name: name.into(),
            run: Box::new(run),
        }
    }

    /// Samples the case's quads once.
    #[inline]
    pub fn run(&self) -> Result<()> {
        (self.run)()
    }
}

/// splitmix64: a fixed-seed stream of texels.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 24 bits.
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u32 << 24) as f32
    }
}

/// Fills every level of `img` with texels uniform in [0, 1).
fn noise(img: &mut Image) -> Result<()> {
    let mut rng = Rng(0x5eed);
    for l in 0..img.levels() {
        let t: Vec<[f32; 4]> = (0..img.level_texels(l))
            .map(|_| std::array::from_fn(|_| rng.unit()))
            .collect();
        img.upload_f32(l, &t)?;
    }
    Ok(())
}

/// Coordinate rows a view's batch operands carry (spatial components, then the layer).
fn coord_rows(view: ViewType) -> usize {
    match view {
        ViewType::D1 => 1,
        ViewType::D1Array | ViewType::D2 => 2,
        ViewType::D2Array | ViewType::D3 | ViewType::Cube => 3,
        ViewType::CubeArray => 4,
    }
}

/// Row `c` of a batch: component `c` of each quad's lanes, as f32 bits.
fn row(coords: &[[[f32; 4]; 4]], c: usize) -> Vec<u32> {
    coords
        .iter()
        .flat_map(|q| q.map(|l| l[c].to_bits()))
        .collect()
}

/// The lanes `lanes` of a row; an empty row stays empty (it reads as zeros).
fn lanes_of<'r>(r: &'r [u32], lanes: &Range<usize>) -> &'r [u32] {
    r.get(lanes.clone()).unwrap_or(&[])
}

/// A per-lane operand as a row, or an empty row when no quad has it.
fn opt_row(rows: impl Iterator<Item = Option<[u32; 4]>> + Clone) -> Vec<u32> {
    if rows.clone().all(|r| r.is_none()) {
        return Vec::new();
    }
    rows.flat_map(|r| r.unwrap_or([0; 4])).collect()
}

/// What both batch entries take besides their own operands, as rows: the coordinates
/// (lane `4q + i` is quad `q`'s lane `i`), the Dref row, the masks, and room for the results.
struct Rows {
    coords: Vec<Vec<u32>>,
    dref: Vec<u32>,
    masks: Vec<u8>,
    out: RefCell<Vec<[u32; 4]>>,
}

/// One quad's coordinates, Dref and mask.
type QuadOperands = ([[f32; 4]; 4], Option<[f32; 4]>, u8);

impl Rows {
    fn new(view: ViewType, quads: impl Iterator<Item = QuadOperands> + Clone) -> Rows {
        let coords: Vec<_> = quads.clone().map(|q| q.0).collect();
        Rows {
            coords: (0..coord_rows(view)).map(|c| row(&coords, c)).collect(),
            dref: opt_row(quads.clone().map(|q| q.1.map(|d| d.map(f32::to_bits)))),
            masks: quads.map(|q| q.2).collect(),
            out: RefCell::new(vec![[0; 4]; 4 * coords.len()]),
        }
    }

    /// Calls `f(lanes, coordinate rows, masks, Dref row, results)` for each [`WIDE_QUADS`]
    /// quads in turn, the rows cut to those quads' lanes.
    fn each(
        &self,
        mut f: impl FnMut(&Range<usize>, [&[u32]; 4], &[u8], &[u32], &mut [[u32; 4]]) -> Result<()>,
    ) -> Result<()> {
        let mut out = self.out.borrow_mut();
        for q0 in (0..self.masks.len()).step_by(WIDE_QUADS) {
            let q1 = (q0 + WIDE_QUADS).min(self.masks.len());
            let lanes = 4 * q0..4 * q1;
            let coords = std::array::from_fn(|c| {
                self.coords.get(c).map_or(&[][..], |r| lanes_of(r, &lanes))
            });
            let dref = lanes_of(&self.dref, &lanes);
            f(
                &lanes,
                coords,
                &self.masks[q0..q1],
                dref,
                &mut out[lanes.clone()],
            )?;
        }
        black_box(&*out);
        Ok(())
    }
}

/// The quads of `args` through [`Kernel::sample`].
fn quad_case(
    name: impl Into<String>,
    img: Rc<Image>,
    view: ViewType,
    s: &Sampler,
    args: Vec<SampleArgs>,
) -> Result<Case> {
    let k = Kernel::new(&img, &ImageView::whole(&img, view), s, Config::default())?;
    Ok(Case::new(name, move || {
        for a in &args {
            black_box(k.sample(&img, black_box(a))?);
        }
        Ok(())
    }))
}

/// The quads of `args` through [`Kernel::sample_batch`]: as the interpreter's rows (lane
/// `4q + i` is quad `q`'s lane `i`), [`WIDE_QUADS`] quads a call. `args` may have an
/// implicit LOD with or without bias, an explicit LOD, Dref and offsets; not gradients.
fn batch_case(
    name: impl Into<String>,
    img: Rc<Image>,
    view: ViewType,
    s: &Sampler,
    args: &[SampleArgs],
) -> Result<Case> {
    let k = Kernel::new(&img, &ImageView::whole(&img, view), s, Config::default())?;
    let (mut bias, mut explicit) = (Vec::new(), None);
    for a in args {
        match a.lod {
            LodMode::Implicit {
                bias: b,
                fine: false,
            } => bias.extend(b.map(f32::to_bits)),
            LodMode::Explicit(l) => explicit
                .get_or_insert_with(Vec::new)
                .extend(l.map(f32::to_bits)),
            _ => {
                return Err(Error::Unsupported(
                    "the batch entry takes implicit (coarse) or explicit LOD only".into(),
                ))
            }
        }
    }
    if explicit.is_some() && !bias.is_empty() {
        return Err(Error::Unsupported("mixed LOD forms in one batch".into()));
    }
    if bias.iter().all(|&b| b == 0) {
        bias.clear();
    }
    let offset = |c: usize| {
        opt_row(args.iter().map(move |a| {
            let o = a.offsets.map(|l| l[c] as u32);
            (o != [0; 4]).then_some(o)
        }))
    };
    let offsets = [offset(0), offset(1)];
    let rows = Rows::new(view, args.iter().map(|a| (a.coords, a.dref, a.mask)));
    Ok(Case::new(name, move || {
        rows.each(|lanes, coords, masks, dref, out| {
            let part = |r| lanes_of(r, lanes);
            let b = BatchArgs {
                coords,
                masks,
                lod: match &explicit {
                    Some(l) => BatchLod::Explicit(part(l)),
                    None => BatchLod::Implicit(part(&bias)),
                },
                dref,
                offsets: [part(&offsets[0]), part(&offsets[1])],
            };
            k.sample_batch(&img, black_box(&b), out)
        })
    }))
}

/// The gathers of `args` through [`Kernel::gather`].
fn gather_case(
    name: impl Into<String>,
    img: Rc<Image>,
    view: ViewType,
    s: &Sampler,
    args: Vec<GatherArgs>,
) -> Result<Case> {
    let k = Kernel::new(&img, &ImageView::whole(&img, view), s, Config::default())?;
    Ok(Case::new(name, move || {
        for a in &args {
            black_box(k.gather(&img, black_box(a))?);
        }
        Ok(())
    }))
}

/// The gathers of `args` (no offsets) through [`Kernel::gather_batch`], as rows.
fn gather_batch_case(
    name: impl Into<String>,
    img: Rc<Image>,
    view: ViewType,
    s: &Sampler,
    args: &[GatherArgs],
) -> Result<Case> {
    let k = Kernel::new(&img, &ImageView::whole(&img, view), s, Config::default())?;
    let comp: Vec<u32> = args.iter().flat_map(|a| [a.component; 4]).collect();
    let rows = Rows::new(view, args.iter().map(|a| (a.coords, a.dref, a.mask)));
    Ok(Case::new(name, move || {
        rows.each(|lanes, coords, masks, dref, out| {
            let b = GatherBatchArgs {
                coords,
                masks,
                component: lanes_of(&comp, lanes),
                offsets: BatchGatherOffsets::None,
                dref,
            };
            k.gather_batch(&img, black_box(&b), out)
        })
    }))
}

/// Quads of 2D coordinates with the given per-pixel step (normalized units).
fn quads(step: [f32; 2], z: f32) -> Vec<SampleArgs> {
    (0..QUADS)
        .map(|q| {
            let s = 0.013 * q as f32 + 0.1;
            let t = 0.007 * q as f32 + 0.2;
            SampleArgs::new(std::array::from_fn(|i| {
                let (x, y) = ((i & 1) as f32, (i >> 1) as f32);
                [s + x * step[0], t + y * step[1], z, 0.0]
            }))
        })
        .collect()
}

/// `args` with gradients `dx`, `dy` in every lane.
fn with_grad(mut args: Vec<SampleArgs>, dx: [f32; 3], dy: [f32; 3]) -> Vec<SampleArgs> {
    for a in &mut args {
        a.lod = LodMode::Grad {
            dx: [dx; 4],
            dy: [dy; 4],
        };
    }
    args
}

fn with_dref(mut args: Vec<SampleArgs>, d: f32) -> Vec<SampleArgs> {
    for a in &mut args {
        a.dref = Some([d; 4]);
    }
    args
}

/// The named cases, in the order criterion runs them (the default matrix of
/// `quadstep bench sampler`). The `*_wide` cases sample the same quads as their namesakes
/// through [`Kernel::sample_batch`] (`dref_pcf2x2_d32_wide` with its Dref row, the cube
/// cases with the direction's third row), `gather_rgba8_2d_wide` through
/// [`Kernel::gather_batch`]; `cube_bilinear_rgba8*` are lavapipe's cube scene's quads;
/// `trilinear_varying_rgba8_2d_wide` has λ change from quad to quad.
pub fn cases() -> Result<Vec<Case>> {
    let mut rgba = Image::new_2d(Format::R8G8B8A8_UNORM, 256, 256, 1, 9)?;
    noise(&mut rgba)?;
    let rgba = Rc::new(rgba);
    let mut depth = Image::new_2d(Format::D32_SFLOAT, 256, 256, 1, 1)?;
    let d: Vec<[f32; 4]> = (0..depth.level_texels(0))
        .map(|i| [(i % 97) as f32 / 97.0, 0.0, 0.0, 0.0])
        .collect();
    depth.upload_f32(0, &d)?;
    let depth = Rc::new(depth);
    let mut cube = Image::new_cube(Format::R8G8B8A8_UNORM, 128, 1, 8)?;
    noise(&mut cube)?;
    let cube = Rc::new(cube);
    // lavapipe's cube scene's shape: 8×8 faces, one level (`benches/lavapipe/`)
    let mut cube8 = Image::new_cube(Format::R8G8B8A8_UNORM, 8, 1, 1)?;
    noise(&mut cube8)?;
    let cube8 = Rc::new(cube8);

    let d2 = ViewType::D2;
    let nearest = Sampler::default();
    let bilinear = Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..Sampler::default()
    };
    let tri = Sampler::trilinear(AddressMode::Repeat);
    let mag = quads([0.5 / 256.0, 0.5 / 256.0], 0.0);
    let minify = quads([2.8 / 256.0, 2.8 / 256.0], 0.0); // λ ≈ 1.49
                                                         // each quad its own footprint, as on a surface seen at an angle: λ from ≈ 0.5 to ≈ 2.2
                                                         // over the quads, two levels each, so the selection changes from quad to quad
    let varying: Vec<SampleArgs> = (0..QUADS)
        .map(|q| {
            let step = (1.4 + 0.05 * q as f32) / 256.0;
            quads([step, step], 0.0)[q]
        })
        .collect();
    let mut v = vec![
        quad_case("nearest_rgba8_2d", rgba.clone(), d2, &nearest, mag.clone())?,
        quad_case(
            "bilinear_rgba8_2d",
            rgba.clone(),
            d2,
            &bilinear,
            mag.clone(),
        )?,
        quad_case("trilinear_rgba8_2d", rgba.clone(), d2, &tri, minify.clone())?,
        batch_case("nearest_rgba8_2d_wide", rgba.clone(), d2, &nearest, &mag)?,
        batch_case("bilinear_rgba8_2d_wide", rgba.clone(), d2, &bilinear, &mag)?,
        batch_case("trilinear_rgba8_2d_wide", rgba.clone(), d2, &tri, &minify)?,
        batch_case(
            "trilinear_varying_rgba8_2d_wide",
            rgba.clone(),
            d2,
            &tri,
            &varying,
        )?,
    ];

    let aniso = Sampler {
        anisotropy_enable: true,
        max_anisotropy: 16.0,
        ..tri
    };
    // a 16:1 footprint
    let (du, dv) = (16.0 / 256.0, 1.0 / 256.0);
    let an = with_grad(quads([du, dv], 0.0), [du, 0.0, 0.0], [0.0, dv, 0.0]);
    v.push(quad_case("aniso16_rgba8_2d", rgba.clone(), d2, &aniso, an)?);
    // the same footprint 2.8 times larger: λ ≈ 1.49, 16 probes in two levels each
    let (du, dv) = (44.8 / 256.0, 2.8 / 256.0);
    let an2 = with_grad(quads([du, dv], 0.0), [du, 0.0, 0.0], [0.0, dv, 0.0]);
    v.push(quad_case(
        "aniso16_trilinear_rgba8_2d",
        rgba.clone(),
        d2,
        &aniso,
        an2,
    )?);

    let pcf = Sampler {
        compare_enable: true,
        compare_op: CompareOp::LessOrEqual,
        ..bilinear
    };
    let dq = with_dref(quads([1.0 / 256.0, 1.0 / 256.0], 0.0), 0.5);
    v.push(batch_case(
        "dref_pcf2x2_d32_wide",
        depth.clone(),
        d2,
        &pcf,
        &dq,
    )?);
    v.push(quad_case("dref_pcf2x2_d32", depth, d2, &pcf, dq)?);

    let cq: Vec<SampleArgs> = (0..QUADS)
        .map(|q| {
            let a = q as f32 * 0.37;
            let dir = [a.cos(), 0.3 * (a * 0.7).sin(), a.sin()];
            let st = 0.03;
            SampleArgs::new(std::array::from_fn(|i| {
                [
                    dir[0] + st * (i & 1) as f32,
                    dir[1] + st * (i >> 1) as f32,
                    dir[2],
                    0.0,
                ]
            }))
        })
        .collect();
    let c = ViewType::Cube;
    v.push(batch_case(
        "cube_trilinear_rgba8_wide",
        cube.clone(),
        c,
        &tri,
        &cq,
    )?);
    v.push(quad_case("cube_trilinear_rgba8", cube, c, &tri, cq)?);

    // lavapipe's cube scene (`benches/lavapipe/samp.frag`, CUBE): 8×8 faces, one level,
    // bilinear, direction `(fract(uv)·2 − 1, 1)` with `uv = pixel / 512 + i·(0.0137, 0.0071)`
    // for loop index `i`, at quads spread over the 512×512 frame (so ~30 % of the quads have
    // a footprint over a face edge, as there)
    let cb: Vec<SampleArgs> = (0..QUADS)
        .map(|q| {
            let h = (q as u32).wrapping_mul(0x9e37_79b9) >> 8;
            let (x, y) = ((h % 256) * 2, ((h >> 8) % 256) * 2);
            let i = (q % 16) as f32;
            SampleArgs::new(std::array::from_fn(|l| {
                let px = (x + (l & 1) as u32) as f32 + 0.5;
                let py = (y + (l >> 1) as u32) as f32 + 0.5;
                let u = px / 512.0 + i * 0.0137;
                let v = py / 512.0 + i * 0.0071;
                [u.fract() * 2.0 - 1.0, v.fract() * 2.0 - 1.0, 1.0, 0.0]
            }))
        })
        .collect();
    v.push(batch_case(
        "cube_bilinear_rgba8_wide",
        cube8.clone(),
        c,
        &tri,
        &cb,
    )?);
    v.push(quad_case("cube_bilinear_rgba8", cube8, c, &tri, cb)?);

    let ga: Vec<GatherArgs> = mag.iter().map(|a| GatherArgs::new(a.coords, 1)).collect();
    v.push(gather_case(
        "gather_rgba8_2d",
        rgba.clone(),
        d2,
        &nearest,
        ga.clone(),
    )?);
    v.push(gather_batch_case(
        "gather_rgba8_2d_wide",
        rgba,
        d2,
        &nearest,
        &ga,
    )?);
    Ok(v)
}

/// How a generated case derives its LOD (and which operands it adds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LodForm {
    /// Implicit LOD, the same footprint (2.8 texels a pixel, λ ≈ 1.49) in every quad.
    Implicit,
    /// Implicit LOD, a footprint varying from quad to quad (0.5 to 5.7 texels a pixel).
    Varying,
    /// Implicit LOD at one texel a pixel plus a shader bias of 1.49.
    Bias,
    /// Explicit λ = 1.49 (`Lod` operand).
    Explicit,
    /// Explicit isotropic gradients of 2.8 texels (`Grad` operand).
    Grad,
    /// Implicit LOD as [`LodForm::Implicit`] with a depth reference (compare sampler,
    /// `LESS_OR_EQUAL`; depth formats).
    Dref,
    /// Implicit LOD as [`LodForm::Implicit`] with a texel offset (1, −1).
    Offset,
    /// Gather of component 0 at one texel a pixel.
    Gather,
}

/// Which entry of the texture unit a generated case calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// One quad a call: [`Kernel::sample`], [`Kernel::gather`].
    Quad,
    /// Rows of quads: [`Kernel::sample_batch`], [`Kernel::gather_batch`].
    Batch,
}

/// An axis's values and their names on the command line and in case names.
pub type Names<T> = &'static [(&'static str, T)];

/// View types.
pub const VIEWS: Names<ViewType> = &[
    ("1d", ViewType::D1),
    ("1d_array", ViewType::D1Array),
    ("2d", ViewType::D2),
    ("2d_array", ViewType::D2Array),
    ("3d", ViewType::D3),
    ("cube", ViewType::Cube),
    ("cube_array", ViewType::CubeArray),
];
/// Minification and magnification filters (both the same).
pub const FILTERS: Names<Filter> = &[("nearest", Filter::Nearest), ("linear", Filter::Linear)];
/// Mipmap modes.
pub const MIPS: Names<MipmapMode> = &[
    ("mip_nearest", MipmapMode::Nearest),
    ("mip_linear", MipmapMode::Linear),
];
/// Address modes (all three axes the same).
pub const ADDRESSES: Names<AddressMode> = &[
    ("repeat", AddressMode::Repeat),
    ("mirrored_repeat", AddressMode::MirroredRepeat),
    ("clamp_to_edge", AddressMode::ClampToEdge),
    ("clamp_to_border", AddressMode::ClampToBorder),
    ("mirror_clamp_to_edge", AddressMode::MirrorClampToEdge),
];
/// LOD forms.
pub const LODS: Names<LodForm> = &[
    ("implicit", LodForm::Implicit),
    ("varying", LodForm::Varying),
    ("bias", LodForm::Bias),
    ("explicit", LodForm::Explicit),
    ("grad", LodForm::Grad),
    ("dref", LodForm::Dref),
    ("offset", LodForm::Offset),
    ("gather", LodForm::Gather),
];
/// Entries.
pub const ENTRIES: Names<Entry> = &[("quad", Entry::Quad), ("batch", Entry::Batch)];

/// The value named `name` (case-insensitive) in `table`.
pub fn parse<T: Copy>(table: Names<T>, name: &str) -> Option<T> {
    table
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, v)| v)
}

/// The name of `value` in `table`.
pub fn name<T: PartialEq>(table: Names<T>, value: T) -> &'static str {
    table
        .iter()
        .find(|(_, v)| *v == value)
        .map_or("?", |(n, _)| n)
}

/// One generated case's coordinates in the matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spec {
    /// Texel format.
    pub format: Format,
    /// View type (arrays have 4 layers, cube arrays 2 cubes).
    pub view: ViewType,
    /// Minification and magnification filter.
    pub filter: Filter,
    /// Mipmap mode.
    pub mip: MipmapMode,
    /// Address mode on every axis.
    pub address: AddressMode,
    /// LOD form.
    pub lod: LodForm,
    /// Texture width (and height, and depth for 3D); the image has a full mip chain.
    pub size: u32,
    /// Entry called.
    pub entry: Entry,
}

/// The values of each axis; [`Axes::matrix`] is their product.
#[derive(Clone, Debug, PartialEq)]
pub struct Axes {
    /// Formats.
    pub formats: Vec<Format>,
    /// View types.
    pub views: Vec<ViewType>,
    /// Filters.
    pub filters: Vec<Filter>,
    /// Mipmap modes.
    pub mips: Vec<MipmapMode>,
    /// Address modes.
    pub addresses: Vec<AddressMode>,
    /// LOD forms.
    pub lods: Vec<LodForm>,
    /// Sizes.
    pub sizes: Vec<u32>,
    /// Entries.
    pub entries: Vec<Entry>,
}

impl Default for Axes {
    /// One value per axis: R8G8B8A8_UNORM, 2D, linear, linear mips, repeat, implicit LOD,
    /// 256, the per-quad entry.
    fn default() -> Axes {
        Axes {
            formats: vec![Format::R8G8B8A8_UNORM],
            views: vec![ViewType::D2],
            filters: vec![Filter::Linear],
            mips: vec![MipmapMode::Linear],
            addresses: vec![AddressMode::Repeat],
            lods: vec![LodForm::Implicit],
            sizes: vec![256],
            entries: vec![Entry::Quad],
        }
    }
}

impl Axes {
    /// Every combination, the last axis (entry) varying fastest.
    pub fn matrix(&self) -> Vec<Spec> {
        let mut v = Vec::new();
        for &format in &self.formats {
            for &view in &self.views {
                for &filter in &self.filters {
                    for &mip in &self.mips {
                        for &address in &self.addresses {
                            for &lod in &self.lods {
                                for &size in &self.sizes {
                                    for &entry in &self.entries {
                                        v.push(Spec {
                                            format,
                                            view,
                                            filter,
                                            mip,
                                            address,
                                            lod,
                                            size,
                                            entry,
                                        });
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        v
    }
}

impl Spec {
    /// `format.view.filter.mip.address.lod.size.entry`, lower case.
    pub fn name(&self) -> String {
        format!(
            "{}.{}.{}.{}.{}.{}.{}.{}",
            self.format.vk_name().to_ascii_lowercase(),
            name(VIEWS, self.view),
            name(FILTERS, self.filter),
            name(MIPS, self.mip),
            name(ADDRESSES, self.address),
            name(LODS, self.lod),
            self.size,
            name(ENTRIES, self.entry)
        )
    }

    /// Why the texture unit does not take this combination, if it does not.
    fn check(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::Unsupported(m.into()));
        let v = self.view;
        match self.lod {
            LodForm::Dref if !self.format.has_depth() => bad("Dref needs a depth format"),
            LodForm::Gather if matches!(v, ViewType::D1 | ViewType::D1Array | ViewType::D3) => {
                bad("gathers take 2D, 2D array and cube views")
            }
            LodForm::Offset if v.is_cube() => bad("cube views take no offsets"),
            LodForm::Grad if self.entry == Entry::Batch => {
                bad("the batch entry has no gradient operand")
            }
            _ => Ok(()),
        }
    }

    /// The image's shape: extent and layers.
    fn shape(&self) -> (ImageDim, [u32; 3], u32) {
        let n = self.size;
        match self.view {
            ViewType::D1 => (ImageDim::D1, [n, 1, 1], 1),
            ViewType::D1Array => (ImageDim::D1, [n, 1, 1], 4),
            ViewType::D2 => (ImageDim::D2, [n, n, 1], 1),
            ViewType::D2Array => (ImageDim::D2, [n, n, 1], 4),
            ViewType::D3 => (ImageDim::D3, [n, n, n], 1),
            ViewType::Cube => (ImageDim::D2, [n, n, 1], 6),
            ViewType::CubeArray => (ImageDim::D2, [n, n, 1], 12),
        }
    }

    /// The image this case samples, noise-filled with a full mip chain; the size is
    /// checked against [`MAX_TEXELS`] before anything is allocated.
    fn image(&self) -> Result<Image> {
        let (dim, e, layers) = self.shape();
        let texels = e.iter().map(|&x| x as u64).product::<u64>() * layers as u64;
        if self.size == 0 || texels > MAX_TEXELS {
            return Err(Error::Limit(format!(
                "a {} texture of size {} has {texels} texels; at most {MAX_TEXELS}",
                name(VIEWS, self.view),
                self.size
            )));
        }
        let levels = 32 - e[0].max(e[1]).max(e[2]).leading_zeros();
        let mut img = Image::new(self.format, dim, e, layers, levels, 1)?;
        noise(&mut img)?;
        Ok(img)
    }

    /// Lane `l`'s coordinates in quad `q`, `step` texels a pixel apart.
    fn coords(&self, q: usize, l: usize, step: f32) -> [f32; 4] {
        let (x, y) = ((l & 1) as f32, (l >> 1) as f32);
        let layer = (q % 4) as f32;
        if self.view.is_cube() {
            // a direction on a unit-distance face: a texel is 2 / size across
            let a = q as f32 * 0.37;
            let st = 2.0 * step / self.size as f32;
            let cube = if self.view == ViewType::CubeArray {
                (q % 2) as f32
            } else {
                0.0
            };
            return [
                a.cos() + st * x,
                0.3 * (a * 0.7).sin() + st * y,
                a.sin(),
                cube,
            ];
        }
        // quads spread over [-0.25, 1.25)², so every address mode has work
        let st = step / self.size as f32;
        let frac = |x: f32| x - x.floor();
        let s = -0.25 + 1.5 * frac(q as f32 * 0.618_034) + st * x;
        let t = -0.25 + 1.5 * frac(q as f32 * 0.414_214) + st * y;
        match self.view {
            ViewType::D1 => [s, 0.0, 0.0, 0.0],
            ViewType::D1Array => [s, layer, 0.0, 0.0],
            ViewType::D2 => [s, t, 0.0, 0.0],
            ViewType::D2Array => [s, t, layer, 0.0],
            _ => [s, t, frac(q as f32 * 0.3), 0.0],
        }
    }

    /// The sampler: the filter for both, the mip mode, the address mode on every axis,
    /// `LESS_OR_EQUAL` comparison for Dref.
    fn sampler(&self) -> Sampler {
        Sampler {
            mag_filter: self.filter,
            min_filter: self.filter,
            mipmap_mode: self.mip,
            address_mode: [self.address; 3],
            compare_enable: self.lod == LodForm::Dref,
            compare_op: CompareOp::LessOrEqual,
            ..Sampler::default()
        }
    }

    /// The case, or why the texture unit does not take this combination.
    pub fn case(&self) -> Result<Case> {
        self.check()?;
        let img = Rc::new(self.image()?);
        let s = self.sampler();
        let name = self.name();
        let step = |q: usize| match self.lod {
            LodForm::Implicit | LodForm::Dref | LodForm::Offset | LodForm::Grad => 2.8,
            LodForm::Varying => 0.5 * 2f32.powf((q % 8) as f32 * 0.5),
            LodForm::Bias | LodForm::Explicit | LodForm::Gather => 1.0,
        };
        let quad = |q: usize| -> [[f32; 4]; 4] {
            // gradients are given, not taken from the quad: its lanes sit one texel apart
            let st = if self.lod == LodForm::Grad {
                1.0
            } else {
                step(q)
            };
            std::array::from_fn(|l| self.coords(q, l, st))
        };
        if self.lod == LodForm::Gather {
            let args: Vec<GatherArgs> = (0..QUADS).map(|q| GatherArgs::new(quad(q), 0)).collect();
            return match self.entry {
                Entry::Quad => gather_case(name, img, self.view, &s, args),
                Entry::Batch => gather_batch_case(name, img, self.view, &s, &args),
            };
        }
        let args: Vec<SampleArgs> = (0..QUADS)
            .map(|q| {
                let mut a = SampleArgs::new(quad(q));
                match self.lod {
                    LodForm::Bias => {
                        a.lod = LodMode::Implicit {
                            bias: [1.49; 4],
                            fine: false,
                        }
                    }
                    LodForm::Explicit => a.lod = LodMode::Explicit([1.49; 4]),
                    LodForm::Grad => {
                        // 2.8 texels along the first two spatial axes
                        let g =
                            2.8 / self.size as f32 * if self.view.is_cube() { 2.0 } else { 1.0 };
                        let dy = if matches!(self.view, ViewType::D1 | ViewType::D1Array) {
                            0.0
                        } else {
                            g
                        };
                        a.lod = LodMode::Grad {
                            dx: [[g, 0.0, 0.0]; 4],
                            dy: [[0.0, dy, 0.0]; 4],
                        };
                    }
                    LodForm::Dref => a.dref = Some([0.5; 4]),
                    LodForm::Offset => a.offsets = [[1, -1, 0]; 4],
                    _ => {}
                }
                a
            })
            .collect();
        match self.entry {
            Entry::Quad => quad_case(name, img, self.view, &s, args),
            Entry::Batch => batch_case(name, img, self.view, &s, &args),
        }
    }
}

/// `*` (any run of characters) and `?` (any one character) glob match of a whole name.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // the classic backtracking matcher: on a mismatch, let the last `*` absorb one more
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("*", ""));
        assert!(glob_match("*_wide", "gather_rgba8_2d_wide"));
        assert!(!glob_match("*_wide", "gather_rgba8_2d"));
        assert!(glob_match("cube_*_rgba8", "cube_bilinear_rgba8"));
        assert!(glob_match("?earest*", "nearest_rgba8_2d"));
        assert!(!glob_match("nearest", "nearest_rgba8_2d"));
        assert!(glob_match("a*b*c", "aXbYbZc"));
        assert!(!glob_match("a*b*c", "aXbYbZ"));
    }

    #[test]
    fn every_named_case_runs() {
        let c = cases().unwrap();
        assert_eq!(c.len(), 17);
        for case in &c {
            case.run().unwrap_or_else(|e| panic!("{}: {e}", case.name));
        }
    }

    #[test]
    fn the_matrix_is_the_product_and_names_its_coordinates() {
        let axes = Axes {
            formats: vec![Format::R8G8B8A8_UNORM, Format::D32_SFLOAT],
            lods: vec![LodForm::Implicit, LodForm::Dref],
            sizes: vec![16, 64],
            ..Axes::default()
        };
        let m = axes.matrix();
        assert_eq!(m.len(), 8);
        assert_eq!(
            m[0].name(),
            "r8g8b8a8_unorm.2d.linear.mip_linear.repeat.implicit.16.quad"
        );
        let dref_on_colour = m.iter().find(|s| s.lod == LodForm::Dref).unwrap();
        assert_eq!(dref_on_colour.format, Format::R8G8B8A8_UNORM);
        assert!(matches!(dref_on_colour.case(), Err(Error::Unsupported(_))));
        let too_big = Spec {
            view: ViewType::D3,
            size: 512,
            ..m[0]
        };
        assert!(matches!(too_big.case(), Err(Error::Limit(_))));
    }

    #[test]
    fn every_form_runs_on_every_view_it_takes() {
        let axes = Axes {
            formats: vec![Format::D32_SFLOAT],
            views: VIEWS.iter().map(|v| v.1).collect(),
            lods: LODS.iter().map(|v| v.1).collect(),
            sizes: vec![8],
            entries: vec![Entry::Quad, Entry::Batch],
            ..Axes::default()
        };
        let (mut ran, mut refused) = (0, 0);
        for s in axes.matrix() {
            match s.case() {
                Ok(c) => {
                    c.run().unwrap_or_else(|e| panic!("{}: {e}", s.name()));
                    ran += 1;
                }
                Err(Error::Unsupported(_)) => refused += 1,
                Err(e) => panic!("{}: {e}", s.name()),
            }
        }
        assert!(ran > 40 && refused > 0, "{ran} ran, {refused} refused");
    }
}
