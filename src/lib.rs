//! quadstep: a CPU software rasterizer and shader interpreter. It runs SPIR-V and DXIL shaders
//! on 2×2 quads in lock-step, exactly and headlessly, so that derivatives, implicit LOD and
//! quad operations mean what the specs say, with the same bits on every x86-64 machine.
//! ARCHITECTURE.md has the picture of the modules.
//!
//! # The public API
//! - **Shaders**: a [`Shader`] is one entry point of SPIR-V (binary words, the bytes of a
//!   `.spv` file, or assembly text) or of a DXIL container, lowered and compiled. [`front`]
//!   holds the readers behind it (a SPIR-V module's entry points and specialisation constants,
//!   the DXIL container reader and checker, the SPIR-V assembler and disassembler) and [`ir`]
//!   what they lower to: a shader's interface and resources ([`Shader::ir`]).
//! - **Resources**: [`Buffer`]s; [`Image`]s read through an [`ImageView`] and a [`Sampler`],
//!   in any [`Format`] (the texture unit's settings and sampling rules are in [`texture`]);
//!   texel buffers ([`TexelBufferView`]); all bound by set and binding in [`DescriptorSets`]
//!   as [`Descriptor`]s.
//! - **Compute**: [`dispatch`], or [`dispatch_with`] under chosen [`Limits`].
//! - **Graphics**: a [`Rasterizer`] draws into [`RenderTargets`] ([`ColorTarget`],
//!   [`DepthStencilTarget`]) with a [`GraphicsPipeline`]: fixed-function [`PipelineState`] and
//!   [`BoundStage`]s (a shader with its descriptor sets). [`raster`] holds the rest of the
//!   fixed-function state and the stage traits, which closures implement too.
//! - **Pictures**: [`ColorTarget::save_png`]; [`image_file`] writes an attachment or any level
//!   and layer of an image as PNG (8 or 16 bits), OpenEXR or raw f32 without losing
//!   precision; [`golden`] compares pictures under a tolerance and draws diff images.
//! - **Amber**: [`amber`] parses AmberScript and VkScript and runs scripts
//!   ([`amber::run_file`]) with their `EXPECT`s, through this same API.
//! - **Debugger**: [`debug`] traces one pixel's quad (or a compute invocation's, or a
//!   vertex's) through a script's real draw: [`debug::trace_script`] gives a [`debug::Trace`].
//! - **Differential runs**: [`diff`] runs two builds of one shader on the same inputs and
//!   reports the first differing values.
//! - **Guards**: [`Limits`] (sizes and counts, lavapipe's by default), [`MemoryBudget`]
//!   (bytes), [`Cancel`] (time limits, Ctrl-C), together [`Guards`] (see [`limits`]).
//! - **Errors**: every fallible call returns a [`Result`] whose [`Error`] says the kind (bad
//!   SPIR-V, unsupported feature, a limit, memory, a timeout, …) and where; bad input is an
//!   error, never a panic.
//!
//! The interpreter's own entry points, the built-in demo scenes and the benchmarks' case
//! tables are public for the command line, the tests and the benchmarks, but hidden from
//! these pages: they are not part of the API.
//!
//! # Example
//!
//! A compute shader (SPIR-V assembly) that writes each invocation's index squared into a
//! storage buffer:
//!
//! ```
//! use quadstep::{dispatch, Buffer, Descriptor, DescriptorSets, Shader};
//! use std::sync::Arc;
//!
//! let text = r#"
//! ; SPIR-V
//! ; Version: 1.3
//!                OpCapability Shader
//!                OpMemoryModel Logical GLSL450
//!                OpEntryPoint GLCompute %main "main" %id
//!                OpExecutionMode %main LocalSize 8 1 1
//!                OpDecorate %id BuiltIn LocalInvocationId
//!                OpDecorate %arr ArrayStride 4
//!                OpMemberDecorate %Out 0 Offset 0
//!                OpDecorate %Out Block
//!                OpDecorate %out DescriptorSet 0
//!                OpDecorate %out Binding 0
//!        %void = OpTypeVoid
//!          %fn = OpTypeFunction %void
//!        %uint = OpTypeInt 32 0
//!       %uvec3 = OpTypeVector %uint 3
//!     %p_uvec3 = OpTypePointer Input %uvec3
//!          %id = OpVariable %p_uvec3 Input
//!         %arr = OpTypeRuntimeArray %uint
//!         %Out = OpTypeStruct %arr
//!       %p_Out = OpTypePointer StorageBuffer %Out
//!         %out = OpVariable %p_Out StorageBuffer
//!      %p_uint = OpTypePointer StorageBuffer %uint
//!          %c0 = OpConstant %uint 0
//!        %main = OpFunction %void None %fn
//!       %entry = OpLabel
//!         %idv = OpLoad %uvec3 %id
//!           %x = OpCompositeExtract %uint %idv 0
//!          %sq = OpIMul %uint %x %x
//!         %dst = OpAccessChain %p_uint %out %c0 %x
//!                OpStore %dst %sq
//!                OpReturn
//!                OpFunctionEnd
//! "#;
//! let shader = Shader::from_spirv_asm(text, "square.spvasm", "main", &Default::default())?;
//! let out = Arc::new(Buffer::new(8 * 4));
//! let mut sets = DescriptorSets::new();
//! sets.bind(0, 0, Descriptor::Buffer(out.clone()));
//! dispatch(&shader, [1, 1, 1], &sets, shader.config())?;
//! assert_eq!(out.to_u32s(), [0, 1, 4, 9, 16, 25, 36, 49]);
//! # Ok::<(), quadstep::Error>(())
//! ```
//!
//! Drawing is the same with a [`Rasterizer`]: `examples/render_png.rs` renders a fragment
//! shader into a PNG in about fifteen lines.

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
pub use exec::{Buffer, Discard};
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
