//! AmberScript: parsing the test-script format of google/amber (and the Vulkan CTS) into a
//! typed AST that a runner can execute through quadstep's public API.
//!
//! Shape: [`token`] splits text the way Amber's tokenizer does (so line numbers and odd inputs
//! like `5%` or `\` continuations behave the same), [`parse`] turns tokens into the AST in
//! [`ast`], checking names and loading the files a script refers to, and [`types`] owns data
//! types and the std140/std430 rules for laying typed values into buffer bytes. Parsing never
//! executes anything; every error is `Error::Amber("file:line: message")`. [`vkscript`] lowers
//! the older VkScript format into the same AST, so a runner only knows one shape.

pub mod ast;
pub mod parse;
pub mod token;
pub mod types;
pub mod vkscript;

pub use ast::Script;
pub use parse::{parse, parse_file};

pub mod formats;
pub mod run;
mod run_expect;
pub mod run_shaders;

pub use run::{run_file, run_script, RunOptions, ScriptResult, Status};
