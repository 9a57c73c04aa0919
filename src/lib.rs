//! quadstep: a CPU software rasterizer and shader interpreter that runs SPIR-V on 2×2 quads in
//! lock-step, exactly and headlessly. See `ARCHITECTURE.md` for the picture.
//!
//! The public API in one screen:
//! - shaders: [`Shader`] (SPIR-V binary or text → IR → interpreter program);
//! - resources: [`Buffer`], [`Image`] / [`ImageView`] / [`Format`], [`Sampler`], texel buffers
//!   ([`TexelBufferView`]), bound through [`DescriptorSets`] / [`Descriptor`];
//! - compute: [`dispatch`];
//! - graphics: a [`Rasterizer`] draws into [`RenderTargets`] with a [`GraphicsPipeline`]
//!   (fixed-function [`PipelineState`] + two [`BoundStage`]s);
//! - guards: [`Limits`] (sizes and counts), [`MemoryBudget`] (bytes), [`Cancel`] (time limits,
//!   Ctrl-C), together [`Guards`] (see [`limits`]);
//! - tools: [`amber`] scripts, [`golden`] image comparison, [`image_file`] pictures as PNG
//!   (8 or 16 bits), EXR or f32 ([`ColorTarget::save_png`]), the [`exec`] observer hook, the
//!   [`bench`] cases and statistics.
//!
//! ```no_run
//! use quadstep::*;
//! let words: Vec<u32> = vec![]; // a SPIR-V module
//! let shader = Shader::from_spirv(&words, "main", &Default::default())?;
//! let out = std::sync::Arc::new(Buffer::new(64));
//! let mut sets = DescriptorSets::new();
//! sets.bind(0, 0, Descriptor::Buffer(out.clone()));
//! dispatch(&shader, [1, 1, 1], &sets, texture::Config::default())?;
//! # Ok::<(), quadstep::Error>(())
//! ```

pub mod amber;
#[doc(hidden)]
pub mod bench;
mod cpu;
pub mod debug;
#[doc(hidden)]
pub mod demo;
pub mod diff;
mod error;
#[doc(hidden)]
pub mod exec;
mod format;
pub mod front;
pub mod golden;
pub mod image_file;
pub mod ir;
pub mod limits;
mod math;
pub mod pipeline;
pub mod raster;
mod stage;
pub mod texture;

pub use error::{Error, Result};
pub use exec::Buffer;
pub use image_file::{FileFormat, Pixels};
pub use limits::{Cancel, Guards, Limit, Limits, MemoryBudget};
pub use pipeline::{
    dispatch, dispatch_with, BoundStage, Descriptor, DescriptorSets, ImageResource, Shader,
    TexelBufferView,
};
pub use raster::{
    ColorTarget, DepthStencilTarget, Pipeline as GraphicsPipeline, PipelineState, Rasterizer,
    RenderTargets,
};
pub use texture::{Format, Image, ImageView, Sampler};
