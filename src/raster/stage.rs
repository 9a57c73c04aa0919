//! The two shader stages as the rasterizer sees them. Everything crosses as raw 32-bit words in
//! structure-of-arrays form (one `Vec` per location, one entry per vertex or lane), which is the
//! layout the lock-step interpreter keeps its registers in.

use crate::Result;

/// Vertices per vertex-stage call (the last batch of a draw may be shorter).
pub const VERTEX_BATCH: usize = 64;
/// Quads (4 lanes each) per fragment-stage call at most.
pub const QUAD_BATCH: usize = 16;

/// One fetched vertex attribute stream: the values at `location` for every vertex of a batch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttributeStream {
    pub location: u32,
    /// Per vertex, four components as raw bits: f32 bits for float, normalized and scaled
    /// formats, integers for integer formats. Missing components are (0, 0, 0, 1).
    pub values: Vec<[u32; 4]>,
}

/// Input of one vertex-stage call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexBatch {
    /// `VertexIndex` per vertex (index + vertexOffset for indexed draws, firstVertex + i otherwise).
    pub vertex_index: Vec<u32>,
    /// `InstanceIndex` per vertex (firstInstance + instance).
    pub instance_index: Vec<u32>,
    /// One stream per vertex attribute of the pipeline, in declaration order.
    pub attributes: Vec<AttributeStream>,
}

impl VertexBatch {
    /// Number of vertices in the batch.
    pub fn len(&self) -> usize {
        self.vertex_index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vertex_index.is_empty()
    }

    /// The fetched values at `location`, if the pipeline declares that attribute.
    pub fn attribute(&self, location: u32) -> Option<&[[u32; 4]]> {
        self.attributes
            .iter()
            .find(|a| a.location == location)
            .map(|a| a.values.as_slice())
    }
}

/// Output of one vertex-stage call; the rasterizer sizes every `Vec` to the batch length
/// (zero-filled, point size 1.0) before the call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexOutputs {
    /// `Position` in clip space.
    pub position: Vec<[f32; 4]>,
    /// `PointSize` (used for point primitives).
    pub point_size: Vec<f32>,
    /// `varyings[location][vertex]` as raw bits, locations `0..VertexStage::varying_count()`.
    pub varyings: Vec<Vec<[u32; 4]>>,
}

/// A vertex shader.
pub trait VertexStage: Sync {
    /// Number of output locations (`0..n`) the stage writes.
    fn varying_count(&self) -> usize;
    /// Shade one batch. `output` comes sized to `input.len()` vertices.
    fn run(&self, input: &VertexBatch, output: &mut VertexOutputs) -> Result<()>;
}

/// How a fragment input location is interpolated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// Perspective-correct (the default).
    #[default]
    Smooth,
    /// Linear in screen space.
    NoPerspective,
    /// The provoking (first) vertex's raw bits, no conversion.
    Flat,
}

/// Input of one fragment-stage call: `quads` 2x2 quads, lanes `4q..4q+4` laid out `0 1 / 2 3`
/// (x right, y down); quad origins are at even x and y.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuadBatch {
    /// Number of quads (`lanes = 4 * quads`).
    pub quads: usize,
    /// `FragCoord` per lane: (x + 0.5, y + 0.5, z, 1/w).
    pub frag_coord: Vec<[f32; 4]>,
    /// `FrontFacing` per lane.
    pub front_facing: Vec<bool>,
    /// `PrimitiveId` per lane.
    pub primitive_id: Vec<u32>,
    /// `PointCoord` per lane (points only; (0, 0) for lines and triangles).
    pub point_coord: Vec<[f32; 2]>,
    /// Coverage per quad: bit k set = lane 4q+k is a covered fragment; clear = helper lane.
    pub coverage: Vec<u8>,
    /// `varyings[location][lane]` as raw bits (f32 bits unless flat), one per
    /// `FragmentStage::interpolation()` entry.
    pub varyings: Vec<Vec<[u32; 4]>>,
}

/// Output of one fragment-stage call; sized and zero-filled by the rasterizer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuadOutputs {
    /// `color[attachment][lane]`: raw bits (f32 bits for float/normalized attachments).
    pub color: Vec<Vec<[u32; 4]>>,
    /// Second colour output of location 0 (index 1) for dual-source blending, per lane.
    pub color1: Vec<[u32; 4]>,
    /// `FragDepth` per lane, pre-filled with the interpolated depth (read only if
    /// `FragmentStage::writes_depth()`).
    pub depth: Vec<f32>,
    /// Per quad: bit k set = lane 4q+k was discarded (read only if `can_discard()`).
    pub killed: Vec<u8>,
}

/// Which per-lane built-in inputs of a [`QuadBatch`] a fragment stage reads. The rasterizer
/// sizes every array but fills only these; the others hold stale values. (For a shader that
/// reads none of them, filling them was ~15 % of the rasterizer's per-quad work.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragInputs {
    /// `frag_coord` (also needed when the stage writes `FragDepth`, which starts as its z).
    pub frag_coord: bool,
    pub front_facing: bool,
    pub primitive_id: bool,
    pub point_coord: bool,
}

impl FragInputs {
    /// Every built-in input (the default).
    pub const ALL: FragInputs = FragInputs {
        frag_coord: true,
        front_facing: true,
        primitive_id: true,
        point_coord: true,
    };
}

/// A fragment shader.
pub trait FragmentStage: Sync {
    /// Interpolation of input locations `0..n` (one entry per location up to the highest one
    /// read; locations the vertex stage does not write read as zero).
    fn interpolation(&self) -> &[Interpolation];
    /// Whether the stage writes `FragDepth` (forces late depth tests).
    fn writes_depth(&self) -> bool {
        false
    }
    /// Whether the stage may discard (forces late depth tests).
    fn can_discard(&self) -> bool {
        false
    }
    /// The built-in inputs the stage reads (all unless it says otherwise).
    fn built_ins(&self) -> FragInputs {
        FragInputs::ALL
    }
    /// Shade one batch of quads (helper lanes included).
    fn run(&self, input: &QuadBatch, output: &mut QuadOutputs) -> Result<()>;
}

/// A vertex stage made of a closure (tests, benches, simple tools).
pub struct VertexFn<F> {
    pub varyings: usize,
    pub f: F,
}

impl<F> VertexStage for VertexFn<F>
where
    F: Fn(&VertexBatch, &mut VertexOutputs) -> Result<()> + Sync,
{
    fn varying_count(&self) -> usize {
        self.varyings
    }
    fn run(&self, input: &VertexBatch, output: &mut VertexOutputs) -> Result<()> {
        (self.f)(input, output)
    }
}

/// A fragment stage made of a closure (tests, benches, simple tools).
pub struct FragmentFn<F> {
    pub interpolation: Vec<Interpolation>,
    pub writes_depth: bool,
    pub can_discard: bool,
    pub f: F,
}

impl<F> FragmentStage for FragmentFn<F>
where
    F: Fn(&QuadBatch, &mut QuadOutputs) -> Result<()> + Sync,
{
    fn interpolation(&self) -> &[Interpolation] {
        &self.interpolation
    }
    fn writes_depth(&self) -> bool {
        self.writes_depth
    }
    fn can_discard(&self) -> bool {
        self.can_discard
    }
    fn run(&self, input: &QuadBatch, output: &mut QuadOutputs) -> Result<()> {
        (self.f)(input, output)
    }
}
