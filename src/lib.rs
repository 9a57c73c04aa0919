//! quadstep: a CPU software rasterizer and shader interpreter that runs SPIR-V on 2×2 quads in
//! lock-step, exactly and headlessly. See `ARCHITECTURE.md` for the picture.

pub mod amber;
pub mod debug;
pub mod error;
pub mod exec;
pub mod front;
pub mod golden;
pub mod ir;
pub mod pipeline;
pub mod raster;
pub mod texture;

pub use error::{Error, Result};
