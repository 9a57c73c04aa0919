//! Random test material for the texture unit's property tests, from one seeded generator
//! ([`Rng`]): images of random texels in 20 formats, views (2D, 2D arrays, cubes, cube
//! arrays, any base level and layers), samplers, policies, quads (coordinates near texel
//! edges, out of range, huge, NaN; every LOD form, offsets, `MinLod`, Dref, partial masks)
//! and batches of them as the interpreter's rows. Test-only.

use super::*;

/// The texture unit's random tests' draws, from the project's one seeded generator
/// (fastrand).
pub(super) struct Rng(fastrand::Rng);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }
    /// Uniform in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.u64(0..n)
    }
    /// Uniform in [lo, hi).
    pub fn f(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.0.f32()
    }
    /// True in `pct` % of the draws.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
    /// One of `xs`.
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.0.usize(0..xs.len())]
    }
    /// A random byte.
    pub fn byte(&mut self) -> u8 {
        self.0.u8(..)
    }
}

/// The 8-bit and single-f32 formats, normalized, float, packed and depth ones (1 to 4
/// channels), and an integer format (no lane-wise route takes it).
pub(super) const FORMATS: [Format; 20] = [
    Format::R8G8B8A8_UNORM,
    Format::B8G8R8A8_UNORM,
    Format::R8G8B8A8_SRGB,
    Format::B8G8R8A8_SRGB,
    Format::R32_SFLOAT,
    Format::D32_SFLOAT,
    Format::D32_SFLOAT_S8_UINT,
    Format::R8G8B8A8_SNORM,
    Format::R8_UNORM,
    Format::R8G8_SNORM,
    Format::B8G8R8_SRGB,
    Format::R16_SFLOAT,
    Format::R16G16B16A16_UNORM,
    Format::R32G32B32A32_SFLOAT,
    Format::A2B10G10R10_UNORM_PACK32,
    Format::B10G11R11_UFLOAT_PACK32,
    Format::E5B9G9R9_UFLOAT_PACK32,
    Format::D16_UNORM,
    Format::X8_D24_UNORM_PACK32,
    Format::R8G8B8A8_UINT,
];

/// Every address mode.
pub(super) const MODES: [AddressMode; 5] = [
    AddressMode::Repeat,
    AddressMode::MirroredRepeat,
    AddressMode::ClampToEdge,
    AddressMode::ClampToBorder,
    AddressMode::MirrorClampToEdge,
];

/// Every compare op.
pub(super) const OPS: [CompareOp; 8] = [
    CompareOp::Never,
    CompareOp::Less,
    CompareOp::Equal,
    CompareOp::LessOrEqual,
    CompareOp::Greater,
    CompareOp::NotEqual,
    CompareOp::GreaterOrEqual,
    CompareOp::Always,
];

/// A 2D image of random texels: any bytes for 8-bit formats; finite or infinite f32 (with
/// ±0 and subnormals) in the first word of single-f32 formats. No NaN texels: which NaN an
/// operation on two NaNs returns is not pinned down by Rust.
pub(super) fn image(r: &mut Rng, fmt: Format, w: u32, h: u32, layers: u32, levels: u32) -> Image {
    let mut img = Image::new_2d(fmt, w, h, layers, levels).unwrap();
    let f32_texels = fmt.texel_size() >= 4 && fmt.components() != 4;
    let ts = fmt.texel_size();
    let bytes = img.bytes_mut();
    if f32_texels {
        for t in bytes.chunks_mut(ts) {
            let v = match r.below(10) {
                0 => 0.0,
                1 => -0.0,
                2 => f32::INFINITY,
                3 => f32::from_bits(r.below(0x007f_ffff) as u32 + 1),
                4 => r.f(-1e6, 1e6),
                _ => r.f(-0.25, 1.25),
            };
            t[..4].copy_from_slice(&v.to_le_bytes());
        }
    } else {
        for b in bytes.iter_mut() {
            *b = r.byte();
        }
    }
    img
}

/// The aspect a view of `fmt` reads.
fn aspect(fmt: Format) -> Aspect {
    if fmt.has_depth() {
        Aspect::Depth
    } else {
        Aspect::Color
    }
}

/// A random 2D or 2D-array view (any base level and layers) of a random image of `fmt`.
pub(super) fn view_2d(r: &mut Rng, fmt: Format) -> (Image, ImageView) {
    let wmax = if r.chance(30) { 40 } else { 9 };
    let w = 1 + r.below(wmax) as u32;
    let h = 1 + r.below(9) as u32;
    let layers = 1 + r.below(3) as u32;
    let levels = 1 + r.below((32 - w.max(h).leading_zeros()) as u64) as u32;
    let img = image(r, fmt, w, h, layers, levels);
    let array = r.chance(50);
    let base_level = r.below(levels as u64) as u32;
    let base_layer = r.below(layers as u64) as u32;
    let view = ImageView {
        view_type: if array {
            ViewType::D2Array
        } else {
            ViewType::D2
        },
        base_level,
        level_count: 1 + r.below((levels - base_level) as u64) as u32,
        base_layer,
        layer_count: if array {
            1 + r.below((layers - base_layer) as u64) as u32
        } else {
            1
        },
        aspect: aspect(fmt),
    };
    (img, view)
}

/// A random cube or cube-array view (any base level, whole cubes) of a random image of
/// `fmt` (faces of 1 to 33 texels).
pub(super) fn view_cube(r: &mut Rng, fmt: Format) -> (Image, ImageView) {
    let nmax = if r.chance(30) { 33 } else { 9 };
    let n = 1 + r.below(nmax) as u32;
    let cubes = 1 + r.below(2) as u32;
    let layers = 6 * cubes + r.below(2) as u32;
    let levels = 1 + r.below((32 - n.leading_zeros()) as u64) as u32;
    let img = image(r, fmt, n, n, layers, levels);
    let array = r.chance(40);
    let base_level = r.below(levels as u64) as u32;
    let layer_count = if array {
        6 * (1 + r.below(cubes as u64) as u32)
    } else {
        6
    };
    let view = ImageView {
        view_type: if array {
            ViewType::CubeArray
        } else {
            ViewType::Cube
        },
        base_level,
        level_count: 1 + r.below((levels - base_level) as u64) as u32,
        base_layer: r.below((layers - layer_count + 1) as u64) as u32,
        layer_count,
        aspect: aspect(fmt),
    };
    (img, view)
}

/// A random policy (70 % Vulkan) and LOD precision (95 % exact).
pub(super) fn config(r: &mut Rng) -> Config {
    Config {
        policy: if r.chance(70) {
            Policy::Vulkan
        } else {
            Policy::D3D
        },
        precision: if r.chance(95) {
            LodPrecision::Exact
        } else {
            LodPrecision::Hardware
        },
    }
}

/// Address modes: mostly one of repeat, mirrored repeat, clamp-to-edge on every axis,
/// sometimes border or mirror-clamp, sometimes another mode for v.
pub(super) fn modes(r: &mut Rng) -> [AddressMode; 3] {
    let m = if r.chance(80) {
        MODES[r.below(3) as usize]
    } else {
        r.pick(&MODES)
    };
    let mut address_mode = [m; 3];
    if r.chance(10) {
        address_mode[1] = r.pick(&MODES);
    }
    address_mode
}

/// A random sampler for `fmt` with the given address modes; anisotropy in `aniso_pct` %
/// of the cases, a comparison mostly on depth and R32 formats.
pub(super) fn sampler(
    r: &mut Rng,
    fmt: Format,
    address_mode: [AddressMode; 3],
    aniso_pct: u64,
) -> Sampler {
    let filt = |r: &mut Rng| {
        if r.chance(50) {
            Filter::Linear
        } else {
            Filter::Nearest
        }
    };
    let min_lod = if r.chance(70) { 0.0 } else { r.f(0.0, 4.0) };
    Sampler {
        mag_filter: filt(r),
        min_filter: filt(r),
        mipmap_mode: if r.chance(50) {
            MipmapMode::Linear
        } else {
            MipmapMode::Nearest
        },
        address_mode,
        mip_lod_bias: if r.chance(60) { 0.0 } else { r.f(-4.0, 4.0) },
        anisotropy_enable: r.chance(aniso_pct),
        max_anisotropy: r.pick(&[2.0, 4.0, 16.0]),
        compare_enable: (fmt.has_depth() || fmt == Format::R32_SFLOAT || r.chance(10))
            && r.chance(60),
        compare_op: r.pick(&OPS),
        min_lod,
        max_lod: if r.chance(50) {
            LOD_CLAMP_NONE
        } else {
            min_lod + r.f(-1.0, 5.0)
        },
        border_color: r.pick(&[
            BorderColor::FloatTransparentBlack,
            BorderColor::FloatOpaqueWhite,
            BorderColor::IntOpaqueBlack,
        ]),
        ..Sampler::default()
    }
}

/// Four lane values in [lo, hi): half the time one value for the quad.
pub(super) fn lane4(r: &mut Rng, lo: f32, hi: f32) -> [f32; 4] {
    let v = r.f(lo, hi);
    if r.chance(50) {
        [v; 4]
    } else {
        std::array::from_fn(|_| r.f(lo, hi))
    }
}

/// A random LOD source; explicit gradients have `dims` non-zero components (2 or 3).
pub(super) fn lod(r: &mut Rng, dims: usize) -> LodMode {
    let g = |r: &mut Rng| -> [f32; 3] {
        std::array::from_fn(|i| if i < dims { r.f(-0.6, 0.6) } else { 0.0 })
    };
    match r.below(5) {
        0 | 1 => LodMode::Implicit {
            bias: if r.chance(50) {
                [0.0; 4]
            } else {
                lane4(r, -3.0, 3.0)
            },
            fine: r.chance(30),
        },
        2 => LodMode::Explicit(lane4(r, -1.0, 6.0)),
        3 => {
            let (dx, dy) = (g(r), g(r));
            let same = r.chance(60);
            LodMode::Grad {
                dx: std::array::from_fn(|_| if same { dx } else { g(r) }),
                dy: std::array::from_fn(|_| if same { dy } else { g(r) }),
            }
        }
        _ => LodMode::Zero,
    }
}

/// A coordinate: mostly in [−2.5, 2.5), sometimes on a half texel, huge or NaN.
pub(super) fn coord(r: &mut Rng) -> f32 {
    match r.below(20) {
        0 => f32::NAN,
        1 => r.f(-1e9, 1e9),
        2 => 0.5,
        _ => r.f(-2.5, 2.5),
    }
}

/// A direction: moderate, near a face edge or corner (a minor component close to ±the
/// major), exactly on an edge or corner (ties), lavapipe's `(fract(uv)·2 − 1, 1)`, huge,
/// tiny, zero or with a NaN.
pub(super) fn dir(r: &mut Rng) -> [f32; 3] {
    let mut d = [r.f(-1.0, 1.0), r.f(-1.0, 1.0), r.f(-1.0, 1.0)];
    let major = r.below(3) as usize;
    let sign = if r.chance(50) { 1.0 } else { -1.0 };
    d[major] = sign * r.f(0.5, 2.0);
    let pm = |r: &mut Rng| if r.chance(50) { 1.0 } else { -1.0 };
    match r.below(14) {
        0..=2 => {
            let m = (major + 1 + r.below(2) as usize) % 3;
            d[m] = d[major].abs() * r.f(0.9, 1.0) * pm(r);
        }
        3 | 4 => {
            for m in [(major + 1) % 3, (major + 2) % 3] {
                d[m] = d[major].abs() * r.f(0.9, 1.0) * pm(r);
            }
        }
        5 => d[(major + 1) % 3] = d[major],
        6 => d = [d[major]; 3].map(|x| x * pm(r)),
        7 => d = [r.f(-1.0, 1.0), r.f(-1.0, 1.0), 1.0],
        8 => d = d.map(|x| x * 1e30),
        9 => d = d.map(|x| x * 1e-30),
        10 if r.chance(30) => d[r.below(3) as usize] = f32::NAN,
        11 if r.chance(30) => d = [0.0, -0.0, 0.0],
        _ => {}
    }
    d
}

/// A quad's coordinates for `view`: lane 0 plus small steps (sometimes bent, sometimes a
/// lane elsewhere); cube views: directions, the cube index in the fourth component.
pub(super) fn coords(r: &mut Rng, view: &ImageView) -> [[f32; 4]; 4] {
    let mut c = [[0.0; 4]; 4];
    if view.view_type.is_cube() {
        let d0 = dir(r);
        let scale = d0.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let step = r.f(-0.3, 0.3) * r.f(0.0, 1.0).powi(3) * scale;
        let cube_index = r.f(-1.0, 3.0);
        for (lane, c) in c.iter_mut().enumerate() {
            let (x, y) = ((lane & 1) as f32, (lane >> 1) as f32);
            *c = [
                d0[0] + x * step,
                d0[1] + y * step * r.f(0.2, 2.0),
                d0[2] + x * step * r.f(-1.0, 1.0),
                if r.chance(90) {
                    cube_index
                } else {
                    r.f(-1.0, 3.0)
                },
            ];
            if r.chance(5) {
                c[..3].copy_from_slice(&dir(r));
            }
        }
        return c;
    }
    let c0 = [coord(r), coord(r), r.f(-1.0, 4.0), 0.0];
    let step = r.f(-0.5, 0.5) * r.f(0.0, 1.0).powi(3);
    for (lane, c) in c.iter_mut().enumerate() {
        *c = c0;
        c[0] += (lane & 1) as f32 * step + r.f(-0.01, 0.01) * r.below(2) as f32;
        c[1] += (lane >> 1) as f32 * step * r.f(0.2, 2.0);
        if r.chance(5) {
            c[0] = coord(r);
        }
    }
    c
}

/// The operands of a random quad around `coords`: offsets (none, per quad or per lane;
/// none on cubes, where they are invalid), `MinLod` in 30 %, Dref when the sampler
/// compares, 30 % partial masks.
pub(super) fn sample_args(r: &mut Rng, view: &ImageView, sampler: &Sampler) -> SampleArgs {
    let coords = coords(r, view);
    let lod = lod(r, if view.view_type.is_cube() { 3 } else { 2 });
    let off = |r: &mut Rng| r.below(16) as i32 - 8;
    let offsets = if r.chance(60) || view.view_type.is_cube() {
        [[0; 3]; 4]
    } else if r.chance(70) {
        [[off(r), off(r), 0]; 4]
    } else {
        std::array::from_fn(|_| [off(r), off(r), 0])
    };
    SampleArgs {
        coords,
        lod,
        min_lod: r.chance(30).then(|| lane4(r, -1.0, 4.0)),
        offsets,
        dref: sampler.compare_enable.then(|| lane4(r, -0.2, 1.2)),
        mask: if r.chance(70) { 0xf } else { r.below(16) as u8 },
    }
}

/// Result bits as hex, with every NaN as one: which NaN (sign, payload) an f32 operation
/// returns is not fixed by Rust or LLVM (nor by Vulkan).
pub(super) fn nan_as_one(q: QuadBits) -> [[String; 4]; 4] {
    q.map(|l| {
        l.map(|x| {
            let x = if f32::from_bits(x).is_nan() {
                0x7fc0_0000
            } else {
                x
            };
            format!("{x:08x}")
        })
    })
}
