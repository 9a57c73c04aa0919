//! The tessellation stages' side of the contract: the control stage's patch batches and
//! outputs, the fixed-function tessellator's modes, and the evaluation stage's domain-point
//! batches. Control points are slots of the shaded [`Vertices`].

use super::vertex::Vertices;
use crate::Result;

/// Input of one tessellation control call: `patches` patches of `patch_size` control points,
/// patch `p`'s point `i` being vertex `slots[p * patch_size + i]` of `vertices`.
#[derive(Clone, Copy, Debug)]
pub struct PatchBatch<'a> {
    pub vertices: &'a Vertices,
    pub slots: &'a [u32],
    pub patch_size: usize,
    /// `PrimitiveId` per patch.
    pub primitive_id: &'a [u32],
}

impl PatchBatch<'_> {
    /// Number of patches.
    pub fn patches(&self) -> usize {
        self.primitive_id.len()
    }
}

/// Output of a tessellation control stage: per patch, its output control points (the stage's
/// `output_vertices()` each, in `points`), its tessellation levels and its per-patch outputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Patches {
    pub points: Vertices,
    /// `TessLevelOuter[0..4]`, then `TessLevelInner[0..2]`.
    pub levels: Vec<[f32; 6]>,
    /// Per-patch output location `l` of patch `p`: `patch[p * n_patch + l]`.
    pub patch: Vec<[u32; 4]>,
    pub n_patch: usize,
}

/// A tessellation control shader.
pub trait TessControlStage: Sync {
    /// Output control points per patch (`OutputVertices`).
    fn output_vertices(&self) -> usize;
    /// Per-vertex output locations (`0..n`).
    fn varying_count(&self) -> usize;
    /// Per-patch output locations (`0..n`).
    fn patch_count(&self) -> usize;
    /// The domain, spacing, winding and point mode the shader declares (the pipeline takes
    /// these from either tessellation stage).
    fn modes(&self) -> TessModes {
        TessModes::default()
    }
    /// Shade a batch of patches; `output` comes empty and is filled with every patch in
    /// order.
    fn run(&self, input: &PatchBatch, output: &mut Patches) -> Result<()>;
}

/// A tessellation domain, as declared by the evaluation (or control) shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Domain {
    #[default]
    Triangles,
    Quads,
    Isolines,
}

/// Tessellation spacing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Spacing {
    #[default]
    Equal,
    FractionalEven,
    FractionalOdd,
}

/// The fixed-function tessellator's settings: each `None` leaves it to the other stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TessModes {
    pub domain: Option<Domain>,
    pub spacing: Option<Spacing>,
    /// Triangles counter-clockwise in (u, v) space (`VertexOrderCcw`).
    pub ccw: Option<bool>,
    pub point_mode: bool,
}

impl TessModes {
    /// These, with what `other` declares where these do not.
    pub fn or(self, other: TessModes) -> TessModes {
        TessModes {
            domain: self.domain.or(other.domain),
            spacing: self.spacing.or(other.spacing),
            ccw: self.ccw.or(other.ccw),
            point_mode: self.point_mode || other.point_mode,
        }
    }
}

/// Input of one tessellation evaluation call: one invocation per domain point.
#[derive(Clone, Copy, Debug)]
pub struct DomainBatch<'a> {
    /// The control stage's output (every patch of the draw).
    pub patches: &'a Patches,
    /// Control points per patch.
    pub patch_vertices: usize,
    /// Per point: its patch and `TessCoord`.
    pub patch: &'a [u32],
    pub coord: &'a [[f32; 3]],
    /// `PrimitiveId` per patch.
    pub primitive_id: &'a [u32],
}

/// A tessellation evaluation shader.
pub trait TessEvalStage: Sync {
    /// The tessellator's settings the shader declares.
    fn modes(&self) -> TessModes;
    /// Output locations (`0..n`).
    fn varying_count(&self) -> usize;
    /// Shade one vertex per domain point; `output` comes sized to the points (fresh).
    fn run(&self, input: &DomainBatch, output: &mut Vertices) -> Result<()>;
}
