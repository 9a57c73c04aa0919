//! The vertex stage's side of the contract: the attribute streams a vertex-stage call reads,
//! the positions and varyings it writes, and [`Vertices`], the store of shaded vertices that
//! tessellation, geometry and primitive assembly read. Everything crosses as raw 32-bit words
//! in structure-of-arrays form, the layout the lock-step interpreter keeps its registers in.

use crate::Result;

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

/// Vertices between the vertex stage and rasterization: what a vertex stage outputs and what
/// the tessellation and geometry stages read and make. Vertex `v`'s output location `l` is
/// `varyings[v * n_vary + l]` (raw bits).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vertices {
    pub position: Vec<[f32; 4]>,
    pub point_size: Vec<f32>,
    pub varyings: Vec<[u32; 4]>,
    pub n_vary: usize,
}

impl Vertices {
    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// `n` fresh vertices (zeros, point size 1.0) of `n_vary` locations.
    pub fn fresh(n: usize, n_vary: usize) -> Vertices {
        Vertices {
            position: vec![[0.0; 4]; n],
            point_size: vec![1.0; n],
            varyings: vec![[0; 4]; n * n_vary],
            n_vary,
        }
    }

    /// Location `l` of vertex `v` (zeros past the varyings).
    pub fn varying(&self, v: usize, l: usize) -> [u32; 4] {
        match l < self.n_vary {
            true => self
                .varyings
                .get(v * self.n_vary + l)
                .copied()
                .unwrap_or([0; 4]),
            false => [0; 4],
        }
    }

    /// Whether the arrays agree with each other.
    pub fn consistent(&self) -> bool {
        let n = self.position.len();
        self.point_size.len() == n && self.varyings.len() == n * self.n_vary
    }
}
