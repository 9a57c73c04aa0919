//! AmberScript: parsing the test-script format of google/amber (and the Vulkan CTS) into a
//! typed AST that a runner can execute through quadstep's public API.
//!
//! Shape: `token` splits text the way Amber's tokenizer does (so line numbers and odd inputs
//! like `5%` or `\` continuations behave the same), [`parse`] turns tokens into the AST in
//! [`ast`], checking names and loading the files a script refers to, and [`types`] owns data
//! types and the std140/std430 rules for laying typed values into buffer bytes. Parsing never
//! executes anything; every error is `Error::Amber("file:line: message")`. `vkscript` lowers
//! the older VkScript format into the same AST, so a runner only knows one shape.
//!
//! One quadstep extension to the format: `IMAGE name ... DIM_CUBE WIDTH n HEIGHT n` declares a
//! cube image (six faces +X, -X, +Y, -Y, +Z, -Z stored as layers, covered in that order by
//! `DATA`/`FILL`), which Amber lacks; see [`ast::ImageDim`]. Colour attachments at
//! `BASE_MIP_LEVEL n` render into level n of the image: the runner keeps rendered levels and
//! uploads them in place of generated mips when the image is sampled.

pub mod ast;
mod check;
mod parse;
mod token;
pub mod types;
mod vkscript;

pub use ast::Script;
pub use parse::{is_vkscript, parse, parse_bytes, parse_file, parse_file_with, parse_with};

mod formats;
mod hook;
mod outcome;
mod run;
mod run_expect;
mod run_repeat;
pub mod run_shaders;
mod texture_of;

pub use check::check;
pub use hook::{Command, HookStages, RunHook};
pub use outcome::{BufferDump, FailKind, Picture, ScriptResult, Status};
pub use run::{cts_default_version, run_file, run_script, RunOptions};
