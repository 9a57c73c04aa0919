//! The geometry stage's side of the contract: its input and output primitive modes, the
//! primitive batches it reads (slots of the shaded [`Vertices`]) and the emits and cuts it
//! makes.

use super::vertex::Vertices;
use crate::Result;

/// A geometry shader's input and output primitives and limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeometryModes {
    /// Vertices per input primitive: 1, 2, 3, 4 (lines with adjacency), 6 (triangles with
    /// adjacency).
    pub input_vertices: usize,
    pub output: GeometryOutput,
    /// The most vertices one invocation emits (further emits are dropped).
    pub max_vertices: usize,
    /// Invocations per input primitive.
    pub invocations: usize,
}

/// A geometry shader's output primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeometryOutput {
    Points,
    LineStrip,
    TriangleStrip,
}

/// Input of one geometry call: `primitive_id.len()` primitives of `per_primitive` vertices,
/// primitive `p`'s vertex `i` being `vertices` slot `slots[p * per_primitive + i]`; each runs
/// `invocations` times.
#[derive(Clone, Copy, Debug)]
pub struct PrimitiveBatch<'a> {
    pub vertices: &'a Vertices,
    pub slots: &'a [u32],
    pub per_primitive: usize,
    /// `PrimitiveIdIn` per primitive.
    pub primitive_id: &'a [u32],
    pub invocations: usize,
}

/// What a geometry call emitted, invocation after invocation (primitive-major, then
/// invocation): the vertices and, in order, every emit and cut.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Emitted {
    pub vertices: Vertices,
    /// Per emitted vertex: `Layer`, `ViewportIndex` and the `PrimitiveId` output (`None`: not
    /// written by the shader).
    pub layer: Vec<u32>,
    pub viewport: Vec<u32>,
    pub primitive_id: Vec<Option<u32>>,
    pub events: Vec<GeometryEvent>,
}

/// One emit or cut of a geometry invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeometryEvent {
    /// The invocation: `primitive * invocations + invocation` within the call.
    pub invocation: u32,
    pub stream: u32,
    /// `Some(v)`: vertex `v` of [`Emitted::vertices`] was emitted; `None`: `EndPrimitive`.
    pub vertex: Option<u32>,
}

/// A geometry shader.
pub trait GeometryStage: Sync {
    fn modes(&self) -> GeometryModes;
    /// Output locations (`0..n`).
    fn varying_count(&self) -> usize;
    /// Shade a batch of primitives; `output` comes empty.
    fn run(&self, input: &PrimitiveBatch, output: &mut Emitted) -> Result<()>;
}
