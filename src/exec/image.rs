//! The image interface. The interpreter knows nothing about image formats or samplers: for an
//! image instruction it gathers every operand's four lane values of one quad and calls the
//! caller's [`ImageUnit`] once per quad that has at least one active lane.

use crate::ir::{ImageInst, Lod};
use crate::{Error, Result};

/// The operands of one image instruction for one quad. All values are raw register bits
/// (`f32::to_bits` for float operands, two's complement for ints), indexed `[lane]` or
/// `[lane][component]`, lanes in quad order `0 1 / 2 3`. Operands the instruction does not
/// have are zero / `None`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuadOperands {
    /// Lanes executing this instruction (control flow). Results are only kept for these.
    pub active: [bool; 4],
    /// Helper lanes (not covered, demoted): they need results (for derivatives) but a storage
    /// image write must not be performed for them.
    pub helper: [bool; 4],
    /// Index of the quad within the batch (for observers and debugging).
    pub quad: u32,
    /// Descriptor array element of the image and of the separate sampler.
    pub image_index: [u32; 4],
    pub sampler_index: [u32; 4],
    /// Number of valid coordinate components and the coordinates `[lane][component]`.
    pub coord_count: usize,
    pub coords: [[u32; 4]; 4],
    pub proj: Option<[u32; 4]>,
    pub dref: Option<[u32; 4]>,
    pub lod: QuadLod,
    pub offset_count: usize,
    pub offset: [[u32; 3]; 4],
    pub min_lod: Option<[u32; 4]>,
    pub sample: Option<[u32; 4]>,
    pub component: Option<[u32; 4]>,
    /// Texel to write, `[lane][component]` (the instruction's `texel.len()` components valid).
    pub texel: [[u32; 4]; 4],
}

/// The level-of-detail operand of a quad.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum QuadLod {
    Implicit {
        bias: Option<[u32; 4]>,
    },
    Explicit([u32; 4]),
    /// Explicit gradients `[lane][component]`, `count` components valid.
    Grad {
        count: usize,
        dx: [[u32; 3]; 4],
        dy: [[u32; 3]; 4],
    },
    #[default]
    None,
}

/// What the caller implements to give the interpreter images.
pub trait ImageUnit: Sync {
    /// Perform `inst` for one quad. `out[lane][component]` receives the result components as
    /// raw bits of `inst.result_ty` (only active lanes' results are used).
    fn image_op(
        &self,
        inst: &ImageInst,
        quad: &QuadOperands,
        out: &mut [[u32; 4]; 4],
    ) -> Result<()>;
}

/// An image unit for shaders without images: every image op is an error.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoImages;

impl ImageUnit for NoImages {
    fn image_op(&self, inst: &ImageInst, _: &QuadOperands, _: &mut [[u32; 4]; 4]) -> Result<()> {
        Err(Error::Exec(format!(
            "image instruction {:?} on resource slot {} but no image unit is bound",
            inst.kind, inst.image.slot
        )))
    }
}

/// Fill `ops` from the registers of quad `q`: `get(reg, lane)` reads a 32-bit register.
pub(crate) fn gather_operands(
    inst: &ImageInst,
    q: usize,
    get: impl Fn(u32, usize) -> u32,
    ops: &mut QuadOperands,
) {
    let lanes = |r: u32| -> [u32; 4] { std::array::from_fn(|l| get(r, q * 4 + l)) };
    let opt = |r: Option<u32>| r.map(lanes);
    ops.quad = q as u32;
    ops.image_index = inst.image.index.map(lanes).unwrap_or_default();
    ops.sampler_index = inst
        .sampler
        .and_then(|s| s.index)
        .map(lanes)
        .unwrap_or_default();
    ops.coord_count = inst.coords.len();
    for l in 0..4 {
        for (c, &r) in inst.coords.iter().enumerate() {
            ops.coords[l][c] = get(r, q * 4 + l);
        }
        for (c, &r) in inst.offset.iter().enumerate() {
            ops.offset[l][c] = get(r, q * 4 + l);
        }
        for (c, &r) in inst.texel.iter().enumerate() {
            ops.texel[l][c] = get(r, q * 4 + l);
        }
    }
    ops.offset_count = inst.offset.len();
    ops.proj = opt(inst.proj);
    ops.dref = opt(inst.dref);
    ops.min_lod = opt(inst.min_lod);
    ops.sample = opt(inst.sample);
    ops.component = opt(inst.component);
    ops.lod = match &inst.lod {
        Lod::Implicit { bias } => QuadLod::Implicit { bias: opt(*bias) },
        Lod::Explicit(r) => QuadLod::Explicit(lanes(*r)),
        Lod::Grad { dx, dy } => {
            let mut gx = [[0; 3]; 4];
            let mut gy = [[0; 3]; 4];
            for l in 0..4 {
                for (c, &r) in dx.iter().enumerate() {
                    gx[l][c] = get(r, q * 4 + l);
                }
                for (c, &r) in dy.iter().enumerate() {
                    gy[l][c] = get(r, q * 4 + l);
                }
            }
            QuadLod::Grad {
                count: dx.len(),
                dx: gx,
                dy: gy,
            }
        }
        Lod::None => QuadLod::None,
    };
}
