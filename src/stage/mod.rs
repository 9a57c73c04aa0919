//! The shader stages as the rasterizer sees them: the contract between fixed-function work
//! (`raster`) and whatever runs the shaders (`exec`'s interpreter, or closures in tests and
//! tools). Everything crosses as raw 32-bit words in structure-of-arrays form, the layout the
//! lock-step interpreter keeps its registers in, so neither side converts.
//!
//! It is a leaf: it imports nothing of `raster` or `exec`, so both can depend on it without
//! depending on each other. The standard sample locations live here too, because coverage,
//! `FragCoord` under sample shading, `SamplePosition` and `InterpolateAtSample` must all read
//! the one table.
//!
//! - [`vertex`]: vertex-stage batches and the store of shaded vertices.
//! - [`fragment`]: interpolation modes, multisample use, the per-lane quad form and
//!   [`FragmentStage`].
//! - [`rows`]: fragment batches in row form ([`RowBatch`], [`RowLayout`]).
//! - [`tessellation`], [`geometry`]: the optional stages between vertex and rasterization.
//! - [`sample_locations`]: Vulkan's standard sample locations.

pub mod fragment;
pub mod geometry;
pub mod rows;
pub mod sample_locations;
pub mod tessellation;
pub mod vertex;

pub use fragment::{
    FragInputs, FragmentFn, FragmentStage, InterpPlanes, Interpolation, QuadBatch, QuadOutputs,
    SampleUse, Sampling,
};
pub use geometry::{
    Emitted, GeometryEvent, GeometryModes, GeometryOutput, GeometryStage, PrimitiveBatch,
};
pub use rows::{RowBatch, RowLayout};
pub use tessellation::{
    Domain, DomainBatch, PatchBatch, Patches, Spacing, TessControlStage, TessEvalStage, TessModes,
};
pub use vertex::{AttributeStream, VertexBatch, VertexFn, VertexOutputs, VertexStage, Vertices};

/// Vertices per vertex-stage call (the last batch of a draw may be shorter).
pub const VERTEX_BATCH: usize = 64;
/// Quads (4 lanes each) per fragment-stage call at most.
pub const QUAD_BATCH: usize = 64;
