//! The [`Kernel`]: one (image shape, view, sampler, config) bound ([`Binding`]) and the
//! routes chosen for it once — per-quad sample, batch sample, per-quad gather, batch gather —
//! plus the operand checks every route shares, made once per call.
//!
//! The dispatcher: it picks each route by what the binding is, through each route module's
//! `pick`. Nothing it picks imports it.

use super::batch::{self, BatchArgs, BatchFn, BatchLod};
use super::binding::{Binding, Route};
use super::explain::{Log, NoRecord, Operation, QuadExplain};
use super::gather::{self, GatherArgs, GatherBatchArgs, GatherFn};
use super::image::{Image, ImageView};
use super::sample::{self, QuadFn, SampleArgs};
use super::sampler::{Config, Sampler};
use super::QuadBits;
use crate::{Error, Result};

/// Everything about a (image shape, view, sampler, config) chosen once: the validated,
/// derived state and the routes. Build with [`Kernel::new`] (or through a
/// [`KernelCache`](super::KernelCache)); then call the quad operations with the image.
#[derive(Clone)]
pub struct Kernel {
    b: Binding,
    sample: QuadFn,
    batch: BatchFn,
    gather: GatherFn,
    gather_batch: gather::BatchFn,
    routes: Routes,
}

/// The routes a kernel's operations take, by name (see [`Route`]); the per-quad and the
/// batch gather take the same one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Routes {
    pub sample: Route,
    pub batch: Route,
    pub gather: Route,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("view", &self.b.view)
            .field("sampler", &self.b.sampler)
            .field("config", &self.b.cfg)
            .finish_non_exhaustive()
    }
}

impl Kernel {
    /// Validates the view and sampler against the image and picks the routes.
    pub fn new(img: &Image, view: &ImageView, sampler: &Sampler, cfg: Config) -> Result<Kernel> {
        let b = Binding::new(img, view, sampler, cfg)?;
        let (sample, sample_route) = sample::pick(&b);
        let (batch, batch_route) = batch::pick(&b);
        let (gather, gather_batch, gather_route) = gather::pick(&b);
        Ok(Kernel {
            sample,
            batch,
            gather,
            gather_batch,
            routes: Routes {
                sample: sample_route,
                batch: batch_route,
                gather: gather_route,
            },
            b,
        })
    }

    /// The out-of-bounds result (zeros in present components, (0,0,0,1) defaults).
    pub fn oob(&self) -> [u32; 4] {
        self.b.oob
    }

    /// Whether [`Kernel::sample_batch`] takes whole batches through the batch loop
    /// (otherwise it samples quad by quad, as a caller could).
    pub fn has_wide_path(&self) -> bool {
        self.routes.batch != Route::General
    }

    /// The operand rule of a Dref operand against `compareEnable` (`what`: the operation):
    /// `Ok(dref)` with the Dref dropped where Vulkan does no comparison.
    fn dref<T: Copy>(&self, dref: Option<T>, what: &str) -> Result<Option<T>> {
        let cmp = self.b.compares(dref.is_some(), what)?;
        Ok(dref.filter(|_| cmp))
    }

    /// Samples a quad. Results are raw bits per lane: f32 bits for float/normalized/depth
    /// formats, integers for UINT/SINT (integer formats use nearest texels and the nearest
    /// level whatever the filters say; they are not filterable). With Dref the result is
    /// `(c, 0, 0, 1)` with `c` the filtered pass fraction (compare each tap, then filter).
    ///
    /// A Dref operand through a sampler whose `compareEnable` is off is undefined in Vulkan;
    /// under the Vulkan policy quadstep then does what lavapipe and SwiftShader do, no
    /// comparison: the filtered texel (its first component being the depth). Under the D3D
    /// policy it is an error (the DXIL validator requires a `SamplerComparisonState` for
    /// `SampleCmp*`). A sample without Dref through a comparison sampler is always an error.
    pub fn sample(&self, img: &Image, a: &SampleArgs) -> Result<QuadBits> {
        self.b.check(img)?;
        let dref = self.dref(a.dref, "sample")?;
        if dref.is_none() && a.dref.is_some() {
            return Ok((self.sample)(&self.b, img, &SampleArgs { dref, ..*a }));
        }
        Ok((self.sample)(&self.b, img, a))
    }

    /// What [`Kernel::sample`] does for this quad, step by step: the general path run with a
    /// recording recorder (see [`super::explain`]). The record's result is what
    /// [`Kernel::sample`] returns; the errors are its errors.
    pub fn explain_sample(&self, img: &Image, a: &SampleArgs) -> Result<QuadExplain> {
        self.b.check(img)?;
        let a = SampleArgs {
            dref: self.dref(a.dref, "sample")?,
            ..*a
        };
        let log = Log::new(Operation::Sample);
        let r = sample::quad(&self.b, img, &a, &log);
        Ok(log.finish(r))
    }

    /// Samples a batch of quads: the results of [`Kernel::sample`] on each quad with a
    /// non-empty mask (its [`BatchArgs::quad_args`]), written to the active lanes of `out`
    /// (lane `4q + i`); other lanes of `out` are left as they are. Errors: rows or `out`
    /// shorter than the batch, and the errors of [`Kernel::sample`], checked once per batch.
    pub fn sample_batch(&self, img: &Image, a: &BatchArgs<'_>, out: &mut [[u32; 4]]) -> Result<()> {
        let quads = a.masks.len();
        let lanes = 4 * quads;
        let c = &a.coords;
        let (lod_row, grad) = match a.lod {
            BatchLod::Implicit(r) | BatchLod::Explicit(r) => (r, None),
            BatchLod::Zero => (&[][..], None),
            BatchLod::Grad(g) => (&[][..], Some(g)),
        };
        let short = |r: &&[u32]| !r.is_empty() && r.len() < lanes;
        let rows = [c[0], c[1], c[2], c[3], lod_row, a.dref];
        let grad_short = grad.is_some_and(|g| g.dx.iter().chain(&g.dy).any(short));
        if rows.iter().any(short) || grad_short || out.len() < lanes {
            let lod = a.lod.rows();
            return Err(Error::Texture(format!(
                "sample_batch: {quads} quads need operand rows and results of {lanes} lanes \
                 (rows {:?}, LOD rows {:?}, Dref row {}, results {})",
                a.coords.map(<[u32]>::len),
                lod.map(<[u32]>::len),
                a.dref.len(),
                out.len()
            )));
        }
        if a.masks.iter().all(|&m| m & 0xf == 0) {
            return Ok(());
        }
        self.b.check(img)?;
        let dref = self.dref((!a.dref.is_empty()).then_some(a.dref), "sample")?;
        if dref.is_none() && !a.dref.is_empty() {
            // a Dref the sampler does not compare with: dropped
            let a = BatchArgs { dref: &[], ..*a };
            (self.batch)(&self.b, img, &a, out);
        } else {
            (self.batch)(&self.b, img, a, out);
        }
        Ok(())
    }

    /// Gathers one component (or 4 compare results) of the 2×2 footprint at the view's base
    /// level: `R = τ(i0,j1), G = τ(i1,j1), B = τ(i1,j0), A = τ(i0,j0)`. Raw bits: values are
    /// returned untouched (f32 bits / integers); Dref results are 0.0/1.0. Cube corners get
    /// the average of the three real texels (after compare). Filters, LOD and bias are
    /// ignored.
    pub fn gather(&self, img: &Image, a: &GatherArgs) -> Result<QuadBits> {
        let a = self.gather_args(img, a)?;
        Ok((self.gather)(&self.b, img, &a))
    }

    /// What [`Kernel::gather`] does for this quad, step by step (see
    /// [`Kernel::explain_sample`]).
    pub fn explain_gather(&self, img: &Image, a: &GatherArgs) -> Result<QuadExplain> {
        let a = self.gather_args(img, a)?;
        let log = Log::new(Operation::Gather {
            component: a.component,
        });
        let r = gather::quad(&self.b, img, &a, &log);
        Ok(log.finish(r))
    }

    /// The checks of [`Kernel::gather`], and its operands with the Dref rule applied.
    fn gather_args(&self, img: &Image, a: &GatherArgs) -> Result<GatherArgs> {
        self.b.check(img)?;
        component(a.component)?;
        Ok(GatherArgs {
            dref: self.dref(a.dref, "gather")?,
            ..*a
        })
    }

    /// Gathers a batch of quads: the results of [`Kernel::gather`] on each quad with a
    /// non-empty mask (its [`GatherBatchArgs::quad_args`]), written to the active lanes of
    /// `out` (lane `4q + i`); other lanes are left as they are. Errors: rows or `out`
    /// shorter than the batch, and the errors of [`Kernel::gather`].
    pub fn gather_batch(
        &self,
        img: &Image,
        a: &GatherBatchArgs<'_>,
        out: &mut [[u32; 4]],
    ) -> Result<()> {
        let quads = a.masks.len();
        let lanes = 4 * quads;
        let short = |r: &[u32]| !r.is_empty() && r.len() < lanes;
        let off_short = match a.offsets {
            gather::BatchGatherOffsets::Offset(r) => r.iter().any(|r| short(r)),
            _ => false,
        };
        if a.coords.iter().any(|r| short(r))
            || short(a.dref)
            || (!a.component.is_empty() && a.component.len() + 3 < lanes)
            || off_short
            || out.len() < lanes
        {
            return Err(Error::Texture(format!(
                "gather_batch: {quads} quads need operand rows and results of {lanes} lanes"
            )));
        }
        if a.masks.iter().all(|&m| m & 0xf == 0) {
            return Ok(());
        }
        self.b.check(img)?;
        // (every component in range, the usual row, passes with one vectorised test: the
        // components' OR is at most 3 exactly when each is)
        if a.component.iter().fold(0, |m, &c| m | c) > 3 {
            for (q, &m) in a.masks.iter().enumerate() {
                if m & 0xf != 0 {
                    component(a.component.get(4 * q).copied().unwrap_or(0))?;
                }
            }
        }
        let dref = self.dref((!a.dref.is_empty()).then_some(a.dref), "gather")?;
        let a = GatherBatchArgs {
            dref: dref.unwrap_or(&[]),
            ..*a
        };
        (self.gather_batch)(&self.b, img, &a, out);
        Ok(())
    }

    /// `OpImageQueryLod` / `CalculateLevelOfDetail[Unclamped]` for a quad (implicit
    /// derivatives). Vulkan: `(d_l − level_base, λ')` with d_l the clamped level (rounded for
    /// NEAREST mip mode). D3D: `(max(MinLOD, min(MaxLOD, λ')), λ')` (no per-sample clamp).
    /// λ' includes the sampler bias; anisotropic samplers report the minor-axis LOD.
    pub fn query_lod(
        &self,
        img: &Image,
        coords: &[[f32; 4]; 4],
        fine: bool,
    ) -> Result<[[f32; 2]; 4]> {
        self.b.check(img)?;
        Ok(self.b.query_lod(coords, fine, &NoRecord))
    }

    /// What [`Kernel::query_lod`] does for this quad: each lane's LOD steps; the record's
    /// result holds lane `i`'s `(level, λ')` bits in its first two components.
    pub fn explain_query_lod(
        &self,
        img: &Image,
        coords: &[[f32; 4]; 4],
        fine: bool,
    ) -> Result<QuadExplain> {
        self.b.check(img)?;
        let log = Log::new(Operation::QueryLod);
        let r = self.b.query_lod(coords, fine, &log);
        Ok(log.finish(r.map(|l| [l[0].to_bits(), l[1].to_bits(), 0, 0])))
    }
}

/// A gather's component operand must be 0 to 3.
fn component(c: u32) -> Result<()> {
    if c > 3 {
        return Err(Error::Texture(format!(
            "gather component {c} out of range 0..=3"
        )));
    }
    Ok(())
}

/// The test-only views of a kernel: its routes and the general path alone.
#[cfg(test)]
mod test_views {
    use super::*;

    impl Kernel {
        /// The routes this kernel's operations take.
        pub(in super::super) fn routes(&self) -> Routes {
            self.routes
        }

        /// The general path alone (the equivalence tests' reference).
        pub(in super::super) fn sample_general(
            &self,
            img: &Image,
            a: &SampleArgs,
        ) -> Result<QuadBits> {
            self.b.check(img)?;
            let a = SampleArgs {
                dref: self.dref(a.dref, "sample")?,
                ..*a
            };
            Ok(sample::general(&self.b, img, &a))
        }

        /// The general gather alone (the equivalence tests' reference).
        pub(in super::super) fn gather_general(
            &self,
            img: &Image,
            a: &GatherArgs,
        ) -> Result<QuadBits> {
            let a = self.gather_args(img, a)?;
            Ok(gather::general(&self.b, img, &a))
        }
    }
}
