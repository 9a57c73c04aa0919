//! What the texture unit did for one quad operation, step by step, for the shader debugger:
//! per lane the derivatives, ρ and λ before and after bias and clamps, the mag/min choice,
//! the levels and their weights, every texel read (its coordinates before and after
//! wrapping, or the border), its value, the per-texel comparison of Dref operations and the
//! filter weights.
//!
//! Shape: the sampling code is generic over a `Recorder` it calls at each step. Normal runs
//! use `NoRecord` (empty methods, `Recorder::ON` false: the calls compile away);
//! `Kernel::explain_*` run the general path with `Log`, which fills the data types below.
//! No rule is implemented twice: [`QuadExplain::result`] is the recorded run's output, bit
//! for bit what the operation returns.

use super::sampler::{Filter, MipmapMode};
use super::QuadBits;
use std::cell::RefCell;

/// Which operation a [`QuadExplain`] describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Operation {
    /// `OpImageSample*` / `Sample*` (Dref forms included).
    #[default]
    Sample,
    /// `OpImageGather` / `OpImageDrefGather` of a component.
    Gather {
        /// The gathered component (Dref gathers compare the first).
        component: u32,
    },
    /// `OpImageFetch` / `Load`.
    Fetch,
    /// `OpImageQueryLod` / `CalculateLevelOfDetail`: the result is `(level, λ')` per lane.
    QueryLod,
}

/// One quad operation, explained.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuadExplain {
    /// The operation.
    pub op: Operation,
    /// Lane `i` at quad position `(i & 1, i >> 1)`.
    pub lanes: [LaneExplain; 4],
    /// The operation's result bits, exactly what the operation returns.
    pub result: QuadBits,
}

/// One lane of a [`QuadExplain`]. A lane outside the operation's mask has `active: false`
/// and nothing else recorded (its result is zeros).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaneExplain {
    /// The lane takes part (its mask bit is set).
    pub active: bool,
    /// The coordinate operand as given (fetch: the integer coordinates as f32).
    pub coords: [f32; 4],
    /// Cube views: the face the direction selected (0..6: +x, −x, +y, −y, +z, −z).
    pub face: Option<u32>,
    /// The absolute array layer read (cube views: the selected face's layer).
    pub layer: u32,
    /// Dref operations: the reference after the UNORM clamp (and D3D quantization).
    pub dref: Option<f32>,
    /// How the lane's level of detail was chosen (sample and query operations).
    pub lod: Option<LodExplain>,
    /// Every footprint the lane filtered, in the order they were summed (probe outer, level
    /// inner).
    pub footprints: Vec<FootprintExplain>,
    /// The lane's result bits.
    pub result: [u32; 4],
}

/// The level-of-detail steps of one lane (sampling.md §3, §5).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LodExplain {
    /// The derivatives λ came from, in normalized coordinates (cube views: of the direction)
    /// as `(∂/∂x, ∂/∂y)`; `None` for an explicit or zero LOD.
    pub derivatives: Option<([f32; 3], [f32; 3])>,
    /// ρ: the lengths of the x and y derivatives in texels of the view's base level (cube
    /// views: after the face transform); non-finite lengths count as 0.
    pub rho: [f32; 2],
    /// Anisotropic probes (1: isotropic) and the major axis they are spread along
    /// (normalized coordinates).
    pub probes: u32,
    /// See [`LodExplain::probes`].
    pub major: [f32; 2],
    /// λ_base: `log2(ρ)` (anisotropic: of the minor axis), or the explicit LOD.
    pub lambda_base: f32,
    /// The shader's bias operand (0 without one).
    pub shader_bias: f32,
    /// The sampler's `mipLodBias`.
    pub sampler_bias: f32,
    /// λ′: λ_base plus the biases, by the API policy's bias rule, before the clamps.
    pub lambda_biased: f32,
    /// The sampler's `minLod`.
    pub sampler_min_lod: f32,
    /// The shader's `MinLod` operand, if any.
    pub shader_min_lod: Option<f32>,
    /// The sampler's `maxLod`.
    pub sampler_max_lod: f32,
    /// λ after the clamps (and, in hardware precision, snapped to 8.8).
    pub lambda: f32,
    /// `λ > 0`: the minification filter applies, else the magnification one.
    pub minified: bool,
    /// The texel filter chosen (integer formats: always nearest).
    pub filter: Filter,
    /// The mipmap mode applied (integer formats: always nearest).
    pub mipmap_mode: MipmapMode,
    /// The view-relative levels read and their weights.
    pub levels: Vec<(u32, f32)>,
    /// D3D: the shader `MinLod` lies beyond the last level, so the lane returns the
    /// out-of-bounds result and reads nothing.
    pub out_of_range: bool,
}

/// One footprint: one probe at one level.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FootprintExplain {
    /// The anisotropic probe (0 for isotropic sampling).
    pub probe: u32,
    /// The absolute mip level.
    pub level: u32,
    /// The footprint's weight in the lane's sum: its level's weight over the probe count.
    pub weight: f32,
    /// The texel-space position (after offsets; hardware precision: before snapping).
    pub position: [f32; 3],
    /// The texel filter.
    pub filter: Filter,
    /// Linear: the fractions toward the upper texel per axis (the lerp weights); nearest
    /// and gathers: zeros.
    pub fractions: [f32; 3],
    /// The texels read: nearest one; linear 2, 4 or 8 (x fastest, then y, then z); gathers
    /// four in result order (R, G, B, A); fetches one.
    pub taps: Vec<TapExplain>,
    /// The filtered value of the footprint, before the lane's sum (gathers and fetches:
    /// the taps' values are the result).
    pub value: [f32; 4],
}

/// Which texel a tap read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Texel {
    /// The texel at integer coordinates `ijk` (after wrapping) of absolute `layer` (cube
    /// views: `face` is that layer's face, which a seamless tap may have moved to).
    At {
        /// Absolute array layer.
        layer: u32,
        /// Cube face of the layer.
        face: Option<u32>,
        /// Texel coordinates.
        ijk: [i32; 3],
    },
    /// Outside the level under clamp-to-border: the border colour.
    #[default]
    Border,
    /// A cube corner's missing texel: the average of the other three.
    CornerAverage,
    /// A fetch outside the image, level, layer or samples: the out-of-bounds result.
    OutOfRange,
}

/// One texel read of a footprint.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TapExplain {
    /// The integer texel coordinates before wrapping (after offsets).
    pub unwrapped: [i32; 3],
    /// The texel read.
    pub texel: Texel,
    /// The tap's weight in its footprint: the product of the fractions (`f` or `1 − f` per
    /// axis) for linear filtering, 1 for nearest; the filter itself forms the same value by
    /// lerps, `a + (b − a)·f`, axis after axis.
    pub weight: f32,
    /// The value read, as result bits: f32 bits for float-kind formats (decoded), integers
    /// for UINT/SINT; a Dref tap's comparison result replaces it in the filter.
    pub value: [u32; 4],
    /// Dref operations: `Dref OP texel` for this texel.
    pub compare: Option<bool>,
}

/// The steps the sampling code reports (see the module doc). Every method has an empty
/// default; the calls apply to the lane of the last [`Recorder::lane`].
pub(super) trait Recorder {
    /// Whether this recorder records: false lets the kernel keep its lane-wide branches.
    const ON: bool = false;
    /// A lane begins.
    fn lane(&self, _lane: usize, _coords: [f32; 4]) {}
    /// Where the lane landed: cube face and absolute layer, Dref after its clamp.
    fn located(&self, _face: Option<u32>, _layer: u32, _dref: Option<f32>) {}
    /// The lane's derivatives (`None`: explicit or zero LOD) and λ_base.
    fn lod_base(
        &self,
        _d: Option<([f32; 3], [f32; 3])>,
        _rho: [f32; 2],
        _base: (f32, u32, [f32; 2]),
    ) {
    }
    /// The lane's λ steps and selection (everything of [`LodExplain`] after λ_base).
    fn lod(&self, _f: &dyn Fn(&mut LodExplain)) {}
    /// A footprint begins.
    fn footprint(&self, _f: FootprintExplain) {}
    /// The current footprint's linear fractions.
    fn fractions(&self, _f: [f32; 3]) {}
    /// A texel of the current footprint.
    fn tap(&self, _t: TapExplain) {}
    /// The current footprint's filtered value.
    fn value(&self, _v: [f32; 4]) {}
    /// The lane's result.
    fn result(&self, _r: [u32; 4]) {}
}

/// The recorder of normal runs: records nothing, compiles away.
pub(super) struct NoRecord;

impl Recorder for NoRecord {}

/// The recorder of `Kernel::explain_*`: fills a [`QuadExplain`].
#[derive(Default)]
pub(super) struct Log {
    q: RefCell<QuadExplain>,
    lane: std::cell::Cell<usize>,
}

impl Log {
    /// A log of `op`.
    pub fn new(op: Operation) -> Log {
        let l = Log::default();
        l.q.borrow_mut().op = op;
        l
    }

    /// The record, with the operation's `result`.
    pub fn finish(self, result: QuadBits) -> QuadExplain {
        let mut q = self.q.into_inner();
        q.result = result;
        q
    }

    fn with(&self, f: impl FnOnce(&mut LaneExplain)) {
        f(&mut self.q.borrow_mut().lanes[self.lane.get() & 3]);
    }

    fn last(&self, f: impl FnOnce(&mut FootprintExplain)) {
        self.with(|l| {
            if let Some(fp) = l.footprints.last_mut() {
                f(fp)
            }
        });
    }
}

impl Recorder for Log {
    const ON: bool = true;
    fn lane(&self, lane: usize, coords: [f32; 4]) {
        self.lane.set(lane);
        self.with(|l| {
            l.active = true;
            l.coords = coords;
        });
    }
    fn located(&self, face: Option<u32>, layer: u32, dref: Option<f32>) {
        self.with(|l| {
            l.face = face;
            l.layer = layer;
            l.dref = dref;
        });
    }
    fn lod_base(&self, d: Option<([f32; 3], [f32; 3])>, rho: [f32; 2], b: (f32, u32, [f32; 2])) {
        self.with(|l| {
            let lod = l.lod.get_or_insert_with(LodExplain::default);
            lod.derivatives = d;
            lod.rho = rho;
            (lod.lambda_base, lod.probes, lod.major) = b;
        });
    }
    fn lod(&self, f: &dyn Fn(&mut LodExplain)) {
        self.with(|l| f(l.lod.get_or_insert_with(LodExplain::default)));
    }
    fn footprint(&self, f: FootprintExplain) {
        self.with(|l| l.footprints.push(f));
    }
    fn fractions(&self, f: [f32; 3]) {
        self.last(|fp| fp.fractions = f);
    }
    fn tap(&self, t: TapExplain) {
        self.last(|f| f.taps.push(t));
    }
    fn value(&self, v: [f32; 4]) {
        self.last(|f| f.value = v);
    }
    fn result(&self, r: [u32; 4]) {
        self.with(|l| l.result = r);
    }
}
