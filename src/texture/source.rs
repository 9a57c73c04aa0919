//! Texel sources: where the kernel's reads come from. [`Bytes`] decodes the image's bytes as
//! it reads them (every format); [`Plane`] reads the decoded plane (float kinds). Both give
//! the same bits, so the source is a type parameter of the kernel, not a rule of it.
//!
//! A source addresses texels in its own unit: [`Source::level`] gives where a (level,
//! layer) starts and its steps, so the footprint code forms one offset per tap whatever it
//! reads.

use super::binding::{Binding, Level, FC_R32F, FC_RGBA8};
use super::format::UNORM8;
use wide::f32x4;

/// Where a (level, layer) starts in a source, and its steps, in the source's unit.
#[derive(Clone, Copy, Debug)]
pub(super) struct Addr {
    pub base: usize,
    pub row: usize,
    pub slice: usize,
    pub step: usize,
    /// One layer (a cube's neighbouring face is `f − face` layers on).
    pub layer: usize,
}

/// A texel source (see the module doc).
pub(super) trait Source: Copy {
    /// Addressing of absolute level `lv` on absolute `layer`.
    fn level(&self, b: &Binding, lv: &Level, layer: u32) -> Addr;
    /// The decoded texel (f32 RGBA; 0, 0, 0, 1 for missing components) at `at`.
    fn texel(&self, b: &Binding, at: usize) -> [f32; 4];
    /// The raw result bits of the texel at `at` (integers for UINT/SINT formats).
    fn raw(&self, b: &Binding, at: usize) -> [u32; 4];
}

/// The image's bytes, decoded per read: the binding's format class ([`FC_RGBA8`] and
/// [`FC_R32F`] inline, every other format through its decoder).
#[derive(Clone, Copy)]
pub(super) struct Bytes<'a>(pub &'a [u8]);

/// The image's decoded plane.
#[derive(Clone, Copy)]
pub(super) struct Plane<'a>(pub &'a [f32x4]);

impl Source for Bytes<'_> {
    #[inline(always)]
    fn level(&self, b: &Binding, lv: &Level, layer: u32) -> Addr {
        Addr {
            base: lv.base + layer as usize * lv.layer,
            row: lv.row,
            slice: lv.slice,
            step: b.texel_size,
            layer: lv.layer,
        }
    }
    #[inline(always)]
    fn texel(&self, b: &Binding, at: usize) -> [f32; 4] {
        match b.class {
            FC_RGBA8 => {
                let t = &self.0[at..at + 4];
                [t[0], t[1], t[2], t[3]].map(|x| UNORM8[x as usize])
            }
            // the inline class reads 4 bytes (D32_SFLOAT_S8_UINT: depth first)
            FC_R32F => {
                let t = &self.0[at..at + 4];
                [f32::from_le_bytes([t[0], t[1], t[2], t[3]]), 0.0, 0.0, 1.0]
            }
            _ => (b.dec.f32)(&self.0[at..at + b.texel_size]),
        }
    }
    #[inline(always)]
    fn raw(&self, b: &Binding, at: usize) -> [u32; 4] {
        if b.class == FC_RGBA8 {
            let t = &self.0[at..at + 4];
            return [t[0], t[1], t[2], t[3]].map(|x| UNORM8[x as usize].to_bits());
        }
        (b.dec.raw)(&self.0[at..at + b.texel_size])
    }
}

impl Source for Plane<'_> {
    #[inline(always)]
    fn level(&self, _: &Binding, lv: &Level, layer: u32) -> Addr {
        Addr {
            base: lv.tbase + layer as usize * lv.tlayer,
            row: lv.size[0] as usize,
            slice: lv.size[0] as usize * lv.size[1] as usize,
            step: 1,
            layer: lv.tlayer,
        }
    }
    #[inline(always)]
    fn texel(&self, _: &Binding, at: usize) -> [f32; 4] {
        self.0[at].to_array()
    }
    #[inline(always)]
    fn raw(&self, _: &Binding, at: usize) -> [u32; 4] {
        self.0[at].to_array().map(f32::to_bits)
    }
}
