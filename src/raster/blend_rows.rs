//! The blend equation and write mask over rows of fragments: what [`write_color`] computes
//! for one fragment, computed for a whole batch at once.
//!
//! Shape: the batch's colours already sit in rows, one row per component (the fragment
//! stage's output rows), so the destination texels are decoded into rows beside them
//! ([`BlendRows::dst`], filled by the caller, who knows where a batch's texels are), and each
//! component is then a few straight loops over whole rows: the clamped sources, the source
//! and destination factor rows, the operation, the write mask. The blend state is resolved
//! once per draw ([`Equation::of`]) and branched on once per row, never per fragment; the
//! loops have no branches, so the compiler vectorises them (every operation is an f32 add,
//! subtract, multiply, min or max, which round alike in every vector width, and FMA is never
//! enabled). Every value is the same f32 operation on the same operands as `write_color`'s
//! (`factor` and `op` in `output.rs`), so the results are the same bits: a test holds them to
//! `write_color` over random inputs, every factor, operation and write mask, and the common
//! formats. The results leave as f32 bits ([`BlendRows::out`]) for the caller to encode with
//! the attachment's encoder.
//!
//! Order: a batch holds at most one fragment per texel, so blending its fragments together
//! keeps every texel's fragments in submission order.

use super::state::{BlendFactor, BlendOp, ColorBlendAttachment};
use super::target::{ColorClass, ColorCodec};

/// Fragments per call at most: the lanes of a batch.
pub(crate) const ROW: usize = 4 * crate::stage::QUAD_BATCH;

/// One attachment's blend state and write mask as the rows use them, resolved once per draw.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Equation {
    class: ColorClass,
    att: ColorBlendAttachment,
    /// The blend constants, clamped as the class requires.
    constant: [f32; 4],
    /// Write mask (bit c: component c is written).
    mask: u8,
    /// Whether a factor reads the second source.
    src1: bool,
}

impl Equation {
    /// The equation of an attachment whose writes read the texel back as f32 (blending or a
    /// partial write mask on a float-kind format), else `None`: integer formats, a write mask
    /// of nothing, and plain writes go `write_color`'s other ways.
    pub fn of(
        codec: &ColorCodec,
        att: &ColorBlendAttachment,
        constants: [f32; 4],
    ) -> Option<Equation> {
        let mask = att.write_mask & 0xf;
        let class = codec.class;
        if mask == 0 || class.is_integer() || (mask == 0xf && !att.blend_enable) {
            return None;
        }
        use BlendFactor::*;
        let src1 = att.blend_enable
            && [
                att.src_color_factor,
                att.dst_color_factor,
                att.src_alpha_factor,
                att.dst_alpha_factor,
            ]
            .iter()
            .any(|f| {
                matches!(
                    f,
                    Src1Color | OneMinusSrc1Color | Src1Alpha | OneMinusSrc1Alpha
                )
            });
        Some(Equation {
            class,
            att: *att,
            constant: class.clamp(constants),
            mask,
            src1,
        })
    }
}

/// The rows one batch's blend works in (kept by a tile shader: no allocation per batch).
pub(crate) struct BlendRows {
    /// The destination texels' values (f32 RGBA), written by the caller before
    /// [`BlendRows::blend`].
    pub dst: [[f32; ROW]; 4],
    /// The values to encode into the texels, as f32 bits, after [`BlendRows::blend`].
    pub out: [[u32; ROW]; 4],
    /// The clamped sources.
    src: [[f32; ROW]; 4],
    src1: [[f32; ROW]; 4],
    /// The current component's factors.
    sf: [f32; ROW],
    df: [f32; ROW],
}

/// What a factor row is computed from: the clamped sources, the destination, the constants.
struct Inputs<'r> {
    src: &'r [[f32; ROW]; 4],
    src1: &'r [[f32; ROW]; 4],
    dst: &'r [[f32; ROW]; 4],
    constant: [f32; 4],
}

impl BlendRows {
    /// Rows for one batch, on the heap (about 14 KB).
    pub fn new() -> Box<BlendRows> {
        Box::new(BlendRows {
            dst: [[0.0; ROW]; 4],
            out: [[0; ROW]; 4],
            src: [[0.0; ROW]; 4],
            src1: [[0.0; ROW]; 4],
            sf: [0.0; ROW],
            df: [0.0; ROW],
        })
    }

    /// The first `n` fragments (`n <= ROW`): sources `src` and `src1` (f32 bits, rows of at
    /// least `n` words) blended with `self.dst` and masked, into `self.out`. The loops are
    /// compiled twice from [`BlendRows::blend_rows`]: 256-bit where the CPU has AVX2, else
    /// the plain SSE2 forms (the same f32 operations per lane, so the same bits).
    pub fn blend(&mut self, eq: &Equation, src: [&[u32]; 4], src1: [&[u32]; 4], n: usize) {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::avx2() {
            // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
            unsafe { self.blend_avx2(eq, src, src1, n) };
            return;
        }
        self.blend_rows(eq, src, src1, n);
    }

    /// [`BlendRows::blend_rows`] with AVX2 enabled (the compiler's vectorised loops take
    /// eight lanes at a time; no FMA).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn blend_avx2(&mut self, eq: &Equation, src: [&[u32]; 4], src1: [&[u32]; 4], n: usize) {
        self.blend_rows(eq, src, src1, n);
    }

    /// [`BlendRows::blend`]'s loops, inlined into each form (no closures: they would be
    /// compiled out of line without the caller's features).
    #[inline(always)]
    fn blend_rows(&mut self, eq: &Equation, src: [&[u32]; 4], src1: [&[u32]; 4], n: usize) {
        let n = n.min(ROW);
        let class = eq.class;
        if eq.att.blend_enable {
            for (row, s) in self.src.iter_mut().zip(src) {
                clamp_row(class, &s[..n], &mut row[..n]);
            }
            if eq.src1 {
                for (row, s) in self.src1.iter_mut().zip(src1) {
                    clamp_row(class, &s[..n], &mut row[..n]);
                }
            }
        }
        let a = &eq.att;
        for (c, src_c) in src.iter().enumerate() {
            let out = &mut self.out[c][..n];
            if eq.mask & (1 << c) == 0 {
                for (o, d) in out.iter_mut().zip(&self.dst[c][..n]) {
                    *o = d.to_bits();
                }
                continue;
            }
            if !a.blend_enable {
                out.copy_from_slice(&src_c[..n]);
                continue;
            }
            let (sfac, dfac, bop) = if c < 3 {
                (a.src_color_factor, a.dst_color_factor, a.color_op)
            } else {
                (a.src_alpha_factor, a.dst_alpha_factor, a.alpha_op)
            };
            let inputs = Inputs {
                src: &self.src,
                src1: &self.src1,
                dst: &self.dst,
                constant: eq.constant,
            };
            let (s, d) = (&self.src[c][..n], &self.dst[c][..n]);
            match bop {
                BlendOp::Min => {
                    for ((o, s), d) in out.iter_mut().zip(s).zip(d) {
                        *o = s.min(*d).to_bits();
                    }
                }
                BlendOp::Max => {
                    for ((o, s), d) in out.iter_mut().zip(s).zip(d) {
                        *o = s.max(*d).to_bits();
                    }
                }
                _ => {
                    let sf = &mut self.sf[..n];
                    let df = &mut self.df[..n];
                    factor_row(sfac, c, &inputs, sf);
                    factor_row(dfac, c, &inputs, df);
                    let terms = out.iter_mut().zip(s).zip(&*sf).zip(d).zip(&*df);
                    match bop {
                        BlendOp::Add => {
                            for ((((o, s), sf), d), df) in terms {
                                *o = (s * sf + d * df).to_bits();
                            }
                        }
                        BlendOp::Subtract => {
                            for ((((o, s), sf), d), df) in terms {
                                *o = (s * sf - d * df).to_bits();
                            }
                        }
                        _ => {
                            for ((((o, s), sf), d), df) in terms {
                                *o = (d * df - s * sf).to_bits();
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `ColorClass::clamp` of f32 bits, row by row.
#[inline(always)]
fn clamp_row(class: ColorClass, src: &[u32], out: &mut [f32]) {
    let (lo, hi) = match class {
        ColorClass::Unorm => (0.0, 1.0),
        ColorClass::Snorm => (-1.0, 1.0),
        _ => {
            for (o, s) in out.iter_mut().zip(src) {
                *o = f32::from_bits(*s);
            }
            return;
        }
    };
    for (o, s) in out.iter_mut().zip(src) {
        *o = f32::from_bits(*s).clamp(lo, hi);
    }
}

/// `out` = `1 - r`, lane by lane.
#[inline(always)]
fn one_minus(out: &mut [f32], r: &[f32]) {
    for (o, x) in out.iter_mut().zip(r) {
        *o = 1.0 - x;
    }
}

/// The factor `f` of component `c` for every fragment (`output::factor`, row by row).
#[inline(always)]
fn factor_row(f: BlendFactor, c: usize, b: &Inputs, out: &mut [f32]) {
    use BlendFactor::*;
    let n = out.len();
    #[inline(always)]
    fn row(r: &[[f32; ROW]; 4], c: usize, n: usize) -> &[f32] {
        &r[c][..n]
    }
    #[inline(always)]
    fn copy(out: &mut [f32], r: &[f32]) {
        out.copy_from_slice(r)
    }
    match f {
        Zero => out.fill(0.0),
        One => out.fill(1.0),
        SrcColor => copy(out, row(b.src, c, n)),
        OneMinusSrcColor => one_minus(out, row(b.src, c, n)),
        DstColor => copy(out, row(b.dst, c, n)),
        OneMinusDstColor => one_minus(out, row(b.dst, c, n)),
        SrcAlpha => copy(out, row(b.src, 3, n)),
        OneMinusSrcAlpha => one_minus(out, row(b.src, 3, n)),
        DstAlpha => copy(out, row(b.dst, 3, n)),
        OneMinusDstAlpha => one_minus(out, row(b.dst, 3, n)),
        ConstantColor => out.fill(b.constant[c]),
        OneMinusConstantColor => out.fill(1.0 - b.constant[c]),
        ConstantAlpha => out.fill(b.constant[3]),
        OneMinusConstantAlpha => out.fill(1.0 - b.constant[3]),
        SrcAlphaSaturate if c == 3 => out.fill(1.0),
        SrcAlphaSaturate => {
            for ((o, s), d) in out.iter_mut().zip(row(b.src, 3, n)).zip(row(b.dst, 3, n)) {
                *o = s.min(1.0 - d);
            }
        }
        Src1Color => copy(out, row(b.src1, c, n)),
        OneMinusSrc1Color => one_minus(out, row(b.src1, c, n)),
        Src1Alpha => copy(out, row(b.src1, 3, n)),
        OneMinusSrc1Alpha => one_minus(out, row(b.src1, 3, n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::raster::output::write_color;

    const FACTORS: [BlendFactor; 19] = BlendFactor::ALL;
    const OPS: [BlendOp; 5] = [
        BlendOp::Add,
        BlendOp::Subtract,
        BlendOp::ReverseSubtract,
        BlendOp::Min,
        BlendOp::Max,
    ];
    const FORMATS: [Format; 9] = [
        Format::R8G8B8A8_UNORM,
        Format::B8G8R8A8_UNORM,
        Format::R8G8B8A8_SRGB,
        Format::B8G8R8A8_SRGB,
        Format::R32G32B32A32_SFLOAT,
        Format::R16G16B16A16_SFLOAT,
        Format::R8G8B8A8_SNORM,
        Format::R16G16B16A16_UNORM,
        Format::A2B10G10R10_UNORM_PACK32,
    ];

    /// A colour component to blend: mostly in [-0.25, 1.25], with the edges, NaN and
    /// infinities now and then.
    fn value(r: &mut fastrand::Rng) -> f32 {
        match r.u32(0..40) {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => 0.0,
            4 => 1.0,
            5 => -0.0,
            6 => f32::from_bits(r.u32(..)),
            _ => r.f32() * 1.5 - 0.25,
        }
    }

    /// `n` fragments blended by the rows and, one by one, by `write_color`, from the same
    /// random texels: the same bytes.
    fn check(r: &mut fastrand::Rng, format: Format, att: &ColorBlendAttachment, n: usize) {
        let codec = ColorCodec::of(format);
        let bpp = format.texel_size();
        let constants = [value(r), value(r), value(r), value(r)];
        let src: [Vec<u32>; 4] =
            std::array::from_fn(|_| (0..n).map(|_| value(r).to_bits()).collect());
        let src1: [Vec<u32>; 4] =
            std::array::from_fn(|_| (0..n).map(|_| value(r).to_bits()).collect());
        // texels as the format stores them: random values encoded (so f16 and f32 texels hold
        // NaN and infinities too)
        let mut texels = vec![0u8; n * bpp];
        for t in texels.chunks_exact_mut(bpp) {
            codec.encode_f32([value(r), value(r), value(r), value(r)], t);
        }
        let mut want = texels.clone();
        for (i, t) in want.chunks_exact_mut(bpp).enumerate() {
            let v = src.each_ref().map(|s| s[i]);
            let v1 = src1.each_ref().map(|s| s[i]);
            write_color(&codec, att, constants, v, v1, t);
        }
        let Some(eq) = Equation::of(&codec, att, constants) else {
            return;
        };
        let mut rows = BlendRows::new();
        for (i, t) in texels.chunks_exact(bpp).enumerate() {
            let d = codec.decode_f32(t);
            for (row, d) in rows.dst.iter_mut().zip(d) {
                row[i] = d;
            }
        }
        rows.blend(
            &eq,
            src.each_ref().map(|s| &s[..]),
            src1.each_ref().map(|s| &s[..]),
            n,
        );
        for (i, t) in texels.chunks_exact_mut(bpp).enumerate() {
            let v = std::array::from_fn(|c| f32::from_bits(rows.out[c][i]));
            codec.encode_f32(v, t);
        }
        // The same bytes, except that a NaN may carry another payload: which NaN operand an
        // x86 instruction passes on depends on the operand order the compiler picked, for
        // `write_color` as for the rows (Vulkan leaves NaN payloads undefined).
        for (i, (got, want)) in texels
            .chunks_exact(bpp)
            .zip(want.chunks_exact(bpp))
            .enumerate()
        {
            let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            let (g, w) = (codec.decode_f32(got), codec.decode_f32(want));
            assert!(
                got == want || (0..4).all(|c| same(g[c], w[c])),
                "{format:?} {att:?} constants {constants:?} fragment {i}: {got:?} {g:?}, \
                 write_color {want:?} {w:?}"
            );
        }
    }

    #[test]
    fn rows_blend_as_write_color_does() {
        let mut r = fastrand::Rng::with_seed(30);
        for format in FORMATS {
            // every factor in every slot and every operation pair, the others random
            for slot in 0..4 {
                for f in FACTORS {
                    for (cop, aop) in OPS.iter().flat_map(|a| OPS.iter().map(move |b| (*a, *b))) {
                        let mut fs = [0; 4].map(|_| FACTORS[r.usize(..FACTORS.len())]);
                        fs[slot] = f;
                        let att = ColorBlendAttachment {
                            blend_enable: true,
                            src_color_factor: fs[0],
                            dst_color_factor: fs[1],
                            color_op: cop,
                            src_alpha_factor: fs[2],
                            dst_alpha_factor: fs[3],
                            alpha_op: aop,
                            write_mask: if r.u32(0..4) == 0 { r.u8(..) } else { 0xf },
                        };
                        let n = 1 + r.usize(..ROW);
                        check(&mut r, format, &att, n);
                    }
                }
            }
            // write masks without blending
            for mask in 0..16 {
                let att = ColorBlendAttachment {
                    write_mask: mask,
                    ..Default::default()
                };
                check(&mut r, format, &att, ROW);
            }
        }
    }
}
