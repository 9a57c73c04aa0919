//! The image interface. The interpreter knows nothing about image formats or samplers: for an
//! image instruction it calls the caller's [`ImageUnit`] once per batch with the operand
//! registers read in place ([`BatchOperands`]); a unit either reads those rows directly
//! (`ImageUnit::image_batch`, what the pipeline's texture glue does) or takes the default,
//! which gathers each quad that has an active lane into a [`QuadOperands`] and calls
//! `ImageUnit::image_op` per quad (the simple form, used by tests and small units).
//!
//! Why per batch: gathering every operand of a quad into a `QuadOperands` (~260 bytes) for
//! the pipeline to convert into the texture unit's `SampleArgs` (~260 bytes) would copy each
//! operand twice; reading the rows in place builds only the texture unit's arguments, and the
//! unit can look the kernel up once per batch.

use crate::ir::{ImageInst, Lod, Reg};
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

/// The operands of one image instruction for a whole batch, read in place from the
/// interpreter's registers: `row(r)[lane]` is the raw bits of register `r` in `lane` (lanes
/// `4q..4q + 4` are quad `q`, in quad order `0 1 / 2 3`). Every register an image instruction
/// names is 32-bit (checked when the program is compiled).
pub struct BatchOperands<'a> {
    pub(crate) n: usize,
    pub(crate) slots: &'a [(bool, u32)],
    pub(crate) r32: &'a [u32],
    pub(crate) active: &'a [u32],
    pub(crate) helper: &'a [bool],
    /// Every lane of the batch is active (`active` is all ones): each quad's mask is `0xf`
    /// without reading `active` (the usual batch, in uniform control flow).
    pub(crate) full: bool,
}

impl<'a> BatchOperands<'a> {
    /// Lanes in the batch (a multiple of 4).
    pub fn lanes(&self) -> usize {
        self.n
    }
    pub fn quads(&self) -> usize {
        self.n / 4
    }
    /// The lane values of 32-bit register `r` (an empty slice for a register that is not a
    /// 32-bit register of the program).
    pub fn row(&self, r: Reg) -> &'a [u32] {
        match self.slots.get(r as usize) {
            Some(&(false, s)) => {
                let at = s as usize * self.n;
                self.r32.get(at..at + self.n).unwrap_or(&[])
            }
            _ => &[],
        }
    }
    /// Whether `lane` executes the instruction (results are only kept for these lanes).
    pub fn active(&self, lane: usize) -> bool {
        self.active.get(lane).is_some_and(|&a| a != 0)
    }
    /// Helper lanes need results (for derivatives) but never write storage images.
    pub fn helper(&self, lane: usize) -> bool {
        self.helper.get(lane).copied().unwrap_or(false)
    }
    /// The active lanes of quad `q`, bit `i` = lane `4q + i`.
    #[inline(always)]
    pub fn quad_mask(&self, q: usize) -> u8 {
        if self.full && q < self.quads() {
            return 0xf;
        }
        // one bounds check, the four mask words compared at once (a compare and a move-mask,
        // not a lane-by-lane test)
        match self.active.get(q * 4..q * 4 + 4) {
            Some(&[a, b, c, d]) => {
                let zero = wide::u32x4::new([a, b, c, d]).simd_eq(wide::u32x4::ZERO);
                (zero.to_bitmask() as u8) ^ 0xf
            }
            _ => (0..4).fold(0, |m, i| m | (self.active(q * 4 + i) as u8) << i),
        }
    }
    /// `masks[k]` = [`quad_mask`](Self::quad_mask)`(q0 + k)`: a fill when every lane is
    /// active.
    #[inline]
    pub fn quad_masks(&self, q0: usize, masks: &mut [u8]) {
        if self.full && q0 + masks.len() <= self.quads() {
            masks.fill(0xf);
            return;
        }
        for (k, m) in masks.iter_mut().enumerate() {
            *m = self.quad_mask(q0 + k);
        }
    }
    /// Quad `q`'s operands in the per-quad form.
    pub fn quad(&self, inst: &ImageInst, q: usize) -> QuadOperands {
        let mut ops = QuadOperands::default();
        gather_operands(
            inst,
            q,
            |r, l| self.row(r).get(l).copied().unwrap_or(0),
            &mut ops,
        );
        for i in 0..4 {
            ops.active[i] = self.active(q * 4 + i);
            ops.helper[i] = self.helper(q * 4 + i);
        }
        ops
    }
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

    /// Perform `inst` for every quad of the batch that has an active lane (the interpreter
    /// calls this, once per image instruction per batch). `out[lane][component]` (one entry
    /// per lane) receives the results: the unit must write all four components of every
    /// active lane, because `out` holds unspecified values on entry (a previous
    /// instruction's results; the interpreter does not clear it per call). Inactive lanes'
    /// entries may be left as they are or overwritten: they are never used.
    /// The default calls [`image_op`](Self::image_op) per quad ([`image_per_quad`]);
    /// override it to read the operand rows in place.
    fn image_batch(
        &self,
        inst: &ImageInst,
        ops: &BatchOperands<'_>,
        out: &mut [[u32; 4]],
    ) -> Result<()> {
        image_per_quad(self, inst, ops, out)
    }
}

/// The default [`ImageUnit::image_batch`]: [`ImageUnit::image_op`] on each quad that has an
/// active lane, in quad order (units that override `image_batch` use it for the operations
/// they do not specialise). Each such quad's four entries are written whole (from a zeroed
/// quad result), so every active lane's four components are.
pub fn image_per_quad<U: ImageUnit + ?Sized>(
    unit: &U,
    inst: &ImageInst,
    ops: &BatchOperands<'_>,
    out: &mut [[u32; 4]],
) -> Result<()> {
    for (q, chunk) in out.chunks_exact_mut(4).enumerate().take(ops.quads()) {
        if ops.quad_mask(q) == 0 {
            continue;
        }
        let quad = ops.quad(inst, q);
        let mut o = [[0u32; 4]; 4];
        unit.image_op(inst, &quad, &mut o)?;
        chunk.copy_from_slice(&o);
    }
    Ok(())
}

/// An image unit for shaders without images: every image op is an error.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoImages;

impl ImageUnit for NoImages {
    fn image_op(&self, inst: &ImageInst, _: &QuadOperands, _: &mut [[u32; 4]; 4]) -> Result<()> {
        Err(Error::Exec(format!(
            "Image{:?} on res{} but no image unit is bound",
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

#[cfg(test)]
mod tests {
    use super::BatchOperands;

    #[test]
    fn quad_masks_are_the_active_lanes_of_each_quad() {
        // against a lane-by-lane reading of the mask words: partial quads, empty quads, a
        // batch cut short (lanes past `active`), and every lane active with and without `full`
        let n = 24;
        let patterns: [fn(usize) -> bool; 4] = [
            |l| l % 3 != 1,
            |l| l / 4 == 2 || l == 13,
            |_| false,
            |_| true,
        ];
        for (k, on) in patterns.iter().enumerate() {
            let active: Vec<u32> = (0..n).map(|l| if on(l) { !0 } else { 0 }).collect();
            for (len, full) in [(n, false), (n - 3, false), (n, k == 3)] {
                let ops = BatchOperands {
                    n,
                    slots: &[],
                    r32: &[],
                    active: &active[..len],
                    helper: &[],
                    full,
                };
                let want: Vec<u8> = (0..n / 4)
                    .map(|q| {
                        (0..4)
                            .filter(|&i| q * 4 + i < len && on(q * 4 + i))
                            .fold(0, |m, i| m | 1 << i)
                    })
                    .collect();
                let got: Vec<u8> = (0..n / 4).map(|q| ops.quad_mask(q)).collect();
                assert_eq!(got, want, "pattern {k}, {len} mask words, full {full}");
                for q0 in 0..n / 4 {
                    let mut masks = vec![0x55; n / 4 - q0];
                    ops.quad_masks(q0, &mut masks);
                    assert_eq!(
                        masks,
                        want[q0..],
                        "pattern {k}, from quad {q0}, full {full}"
                    );
                }
            }
        }
    }
}
