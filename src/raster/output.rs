//! Per-fragment operations on one pixel: depth bounds, stencil, depth test and write, blending
//! and the colour write mask.

use super::state::{BlendFactor, BlendOp, ColorBlendAttachment, DepthStencilState, StencilOp};
use super::target::{ColorCodec, DepthAspect, DepthStencilTarget};
use crate::format::Format;

/// `VkStencilOp` applied to a stencil value.
pub(crate) fn stencil_op(op: StencilOp, cur: u8, reference: u8) -> u8 {
    match op {
        StencilOp::Keep => cur,
        StencilOp::Zero => 0,
        StencilOp::Replace => reference,
        StencilOp::IncrementAndClamp => cur.saturating_add(1),
        StencilOp::DecrementAndClamp => cur.saturating_sub(1),
        StencilOp::Invert => !cur,
        StencilOp::IncrementAndWrap => cur.wrapping_add(1),
        StencilOp::DecrementAndWrap => cur.wrapping_sub(1),
    }
}

/// A tile's depth/stencil storage.
pub(crate) struct DepthStencilBuf<'a> {
    pub format: Format,
    pub depth: &'a mut [u8],
    pub stencil: &'a mut [u8],
}

/// Depth bounds, stencil and depth tests for one fragment at texel `i`, with their writes.
/// Returns whether the fragment survives.
pub(crate) fn depth_stencil(
    st: &DepthStencilState,
    buf: &mut DepthStencilBuf,
    i: usize,
    z: f32,
    front: bool,
) -> bool {
    let fmt = buf.format;
    let has_d = fmt.has_depth();
    let stored = if has_d {
        DepthStencilTarget::stored_depth(buf.depth, fmt, i)
    } else {
        0
    };
    if let (Some((lo, hi)), true) = (st.depth_bounds, has_d) {
        let d = fmt.dequantize(stored);
        if !(d >= lo && d <= hi) {
            return false;
        }
    }
    let stencil_on = st.stencil_test && fmt.has_stencil();
    let face = if front { &st.front } else { &st.back };
    let write_stencil = |buf: &mut DepthStencilBuf, op: StencilOp| {
        let cur = buf.stencil[i];
        let new = stencil_op(op, cur, face.reference);
        buf.stencil[i] = (cur & !face.write_mask) | (new & face.write_mask);
    };
    if stencil_on {
        let r = face.reference & face.compare_mask;
        let s = buf.stencil[i] & face.compare_mask;
        if !face.compare_op.test(r.cmp(&s)) {
            write_stencil(buf, face.fail_op);
            return false;
        }
    }
    if st.depth_test && has_d {
        let q = st.quantize(fmt, z);
        if !st.depth_compare.test(fmt.cmp_stored(q, stored)) {
            if stencil_on {
                write_stencil(buf, face.depth_fail_op);
            }
            return false;
        }
        if st.depth_write {
            DepthStencilTarget::store_depth(buf.depth, fmt, i, q);
        }
    }
    if stencil_on {
        write_stencil(buf, face.pass_op);
    }
    true
}

/// Whether any depth/stencil work happens for a pipeline and attachment.
pub(crate) fn tests_enabled(st: &DepthStencilState, fmt: Option<Format>) -> bool {
    match fmt {
        None => false,
        Some(f) => {
            (f.has_depth() && (st.depth_test || st.depth_bounds.is_some()))
                || (f.has_stencil() && st.stencil_test)
        }
    }
}

/// Blend inputs: source, second source, destination, constants.
pub(crate) struct BlendIn {
    pub src: [f32; 4],
    pub src1: [f32; 4],
    pub dst: [f32; 4],
    pub constant: [f32; 4],
}

fn factor(f: BlendFactor, b: &BlendIn, c: usize) -> f32 {
    use BlendFactor::*;
    match f {
        Zero => 0.0,
        One => 1.0,
        SrcColor => b.src[c],
        OneMinusSrcColor => 1.0 - b.src[c],
        DstColor => b.dst[c],
        OneMinusDstColor => 1.0 - b.dst[c],
        SrcAlpha => b.src[3],
        OneMinusSrcAlpha => 1.0 - b.src[3],
        DstAlpha => b.dst[3],
        OneMinusDstAlpha => 1.0 - b.dst[3],
        ConstantColor => b.constant[c],
        OneMinusConstantColor => 1.0 - b.constant[c],
        ConstantAlpha => b.constant[3],
        OneMinusConstantAlpha => 1.0 - b.constant[3],
        SrcAlphaSaturate => {
            if c == 3 {
                1.0
            } else {
                b.src[3].min(1.0 - b.dst[3])
            }
        }
        Src1Color => b.src1[c],
        OneMinusSrc1Color => 1.0 - b.src1[c],
        Src1Alpha => b.src1[3],
        OneMinusSrc1Alpha => 1.0 - b.src1[3],
    }
}

fn op(o: BlendOp, s: f32, sf: f32, d: f32, df: f32) -> f32 {
    match o {
        BlendOp::Add => s * sf + d * df,
        BlendOp::Subtract => s * sf - d * df,
        BlendOp::ReverseSubtract => d * df - s * sf,
        BlendOp::Min => s.min(d),
        BlendOp::Max => s.max(d),
    }
}

/// The blend equation of one attachment (inputs already clamped for normalized formats).
pub(crate) fn blend(a: &ColorBlendAttachment, b: &BlendIn) -> [f32; 4] {
    let mut out = [0.0; 4];
    for (c, o) in out.iter_mut().enumerate() {
        let (sf, df, bop) = if c < 3 {
            (a.src_color_factor, a.dst_color_factor, a.color_op)
        } else {
            (a.src_alpha_factor, a.dst_alpha_factor, a.alpha_op)
        };
        *o = op(bop, b.src[c], factor(sf, b, c), b.dst[c], factor(df, b, c));
    }
    out
}

/// Write one fragment's colour (raw output bits) into a texel of the attachment `codec`
/// resolves: blend if enabled and the format is not integer, then apply the write mask.
pub(crate) fn write_color(
    codec: &ColorCodec,
    att: &ColorBlendAttachment,
    constants: [f32; 4],
    src: [u32; 4],
    src1: [u32; 4],
    texel: &mut [u8],
) {
    let mask = att.write_mask & 0xf;
    if mask == 0 {
        return;
    }
    let class = codec.class;
    if mask == 0xf && (class.is_integer() || !att.blend_enable) {
        codec.encode_output(src, texel);
        return;
    }
    if class.is_integer() {
        let mut v = codec.decode_raw(texel);
        for (c, slot) in v.iter_mut().enumerate() {
            if mask & (1 << c) != 0 {
                *slot = src[c];
            }
        }
        codec.encode_output(v, texel);
        return;
    }
    let s = src.map(f32::from_bits);
    let dst = codec.decode_f32(texel);
    let result = if att.blend_enable {
        let b = BlendIn {
            src: class.clamp(s),
            src1: class.clamp(src1.map(f32::from_bits)),
            dst,
            constant: class.clamp(constants),
        };
        blend(att, &b)
    } else {
        s
    };
    let mut v = dst;
    for (c, slot) in v.iter_mut().enumerate() {
        if mask & (1 << c) != 0 {
            *slot = result[c];
        }
    }
    codec.encode_f32(v, texel);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stencil_ops_by_hand() {
        assert_eq!(stencil_op(StencilOp::IncrementAndClamp, 255, 0), 255);
        assert_eq!(stencil_op(StencilOp::IncrementAndWrap, 255, 0), 0);
        assert_eq!(stencil_op(StencilOp::DecrementAndClamp, 0, 0), 0);
        assert_eq!(stencil_op(StencilOp::DecrementAndWrap, 0, 0), 255);
        assert_eq!(stencil_op(StencilOp::Invert, 0x0f, 0), 0xf0);
        assert_eq!(stencil_op(StencilOp::Replace, 3, 7), 7);
    }

    #[test]
    fn blend_src_alpha_by_hand() {
        let a = ColorBlendAttachment {
            blend_enable: true,
            src_color_factor: BlendFactor::SrcAlpha,
            dst_color_factor: BlendFactor::OneMinusSrcAlpha,
            src_alpha_factor: BlendFactor::One,
            dst_alpha_factor: BlendFactor::Zero,
            ..Default::default()
        };
        let mut texel = [0u8, 0, 255, 255];
        write_color(
            &ColorCodec::of(Format::R8G8B8A8_UNORM),
            &a,
            [0.0; 4],
            [1.0f32, 0.0, 0.0, 0.25].map(f32::to_bits),
            [0; 4],
            &mut texel,
        );
        // r = 1 * .25 = .25 -> 64 (63.75); b = 1 * .75 -> 191 (191.25); a = .25 -> 64
        assert_eq!(texel, [64, 0, 191, 64]);
    }
}
