//! What running a script comes to: its [`Status`] (pass, fail of some [`FailKind`], or
//! unsupported), and the exit status a command line reports for a set of them.
//!
//! Why kinds: a CI system feeding thousands of scripts needs to tell "the shader computed
//! the wrong value" from "the script is malformed", "it ran out of time" and "quadstep
//! itself broke", in JSON and in the exit status. Every [`Error`] maps to one kind
//! ([`FailKind::of`]), and every kind to one exit status ([`FailKind::exit_code`]).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::ast;
use crate::{texture, Error, Result};

/// Why a script failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailKind {
    /// An `EXPECT` did not hold.
    Expect,
    /// The shaders ran and failed: the instruction budget, a bad binding, an API error.
    Runtime,
    /// The script's time limit passed.
    Timeout,
    /// The memory budget (or the system) refused an allocation.
    Memory,
    /// The script is malformed: syntax, an unknown name, a command its pipeline cannot run.
    Parse,
    /// A shader did not compile or load (GLSL/HLSL, SPIR-V text or binary).
    Compile,
    /// A size or count above the device limits.
    Limit,
    /// A file could not be read or written (script files, dumps, outputs).
    Io,
    /// A colour attachment differs from its golden image (or has none): `quadstep amber
    /// --golden-dir`.
    Golden,
    /// The run was cancelled (Ctrl-C).
    Cancelled,
    /// quadstep itself failed (a panic caught while running the script).
    Internal,
}

impl FailKind {
    /// Every kind.
    pub const ALL: [FailKind; 11] = [
        FailKind::Expect,
        FailKind::Runtime,
        FailKind::Timeout,
        FailKind::Memory,
        FailKind::Parse,
        FailKind::Compile,
        FailKind::Limit,
        FailKind::Io,
        FailKind::Golden,
        FailKind::Cancelled,
        FailKind::Internal,
    ];

    /// The kind of failure an error is.
    pub fn of(e: &Error) -> FailKind {
        match e {
            Error::Amber(_) => FailKind::Parse,
            Error::Spirv(_) => FailKind::Compile,
            Error::Exec(_) | Error::Texture(_) | Error::Pipeline(_) | Error::Unsupported(_) => {
                FailKind::Runtime
            }
            Error::Io(_) => FailKind::Io,
            Error::Limit(_) => FailKind::Limit,
            Error::Memory(_) => FailKind::Memory,
            Error::Timeout(_) => FailKind::Timeout,
            Error::Cancelled(_) => FailKind::Cancelled,
        }
    }

    /// The word for it in JSON and messages.
    pub fn word(self) -> &'static str {
        match self {
            FailKind::Expect => "expect",
            FailKind::Runtime => "runtime",
            FailKind::Timeout => "timeout",
            FailKind::Memory => "memory",
            FailKind::Parse => "parse",
            FailKind::Compile => "compile",
            FailKind::Limit => "limit",
            FailKind::Io => "io",
            FailKind::Golden => "golden",
            FailKind::Cancelled => "cancelled",
            FailKind::Internal => "internal",
        }
    }

    /// The exit status a run with this failure reports: 1 a test failed (an expectation,
    /// the shader's run, its time or memory), 2 usage or input error (the script or a file
    /// is bad, or asks beyond the limits), 3 internal error, 130 interrupted (the shell's
    /// value for Ctrl-C). A run reports the largest of its scripts'.
    pub fn exit_code(self) -> u8 {
        match self {
            FailKind::Expect
            | FailKind::Runtime
            | FailKind::Timeout
            | FailKind::Memory
            | FailKind::Golden => 1,
            FailKind::Parse | FailKind::Compile | FailKind::Limit | FailKind::Io => 2,
            FailKind::Internal => 3,
            FailKind::Cancelled => 130,
        }
    }
}

/// Outcome of one script.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Pass,
    Fail { kind: FailKind, message: String },
    Unsupported { reason: String },
}

impl Status {
    /// `PASS`, `FAIL` or `SKIP`.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail { .. } => "FAIL",
            Status::Unsupported { .. } => "SKIP",
        }
    }
    /// The message or reason ("" for a pass).
    pub fn detail(&self) -> &str {
        match self {
            Status::Pass => "",
            Status::Fail { message, .. } => message,
            Status::Unsupported { reason } => reason,
        }
    }
    /// The kind of failure, for a failure.
    pub fn kind(&self) -> Option<FailKind> {
        match self {
            Status::Fail { kind, .. } => Some(*kind),
            _ => None,
        }
    }
    /// The exit status this outcome asks for (0 for a pass or a skip).
    pub fn exit_code(&self) -> u8 {
        self.kind().map_or(0, FailKind::exit_code)
    }
    /// `Error::Unsupported` → UNSUPPORTED, anything else → a failure of its kind, the
    /// message prefixed with `at` (`file:line`) — unless it names a place in that file
    /// already (a script's parse error, `file:line: …`), then it stands as it is.
    pub fn of_error(e: Error, at: &str) -> Status {
        let file = at
            .rsplit_once(':')
            .filter(|(_, n)| n.parse::<usize>().is_ok())
            .map_or(at, |(f, _)| f);
        let placed = e.message().starts_with(&format!("{file}:"));
        match e {
            Error::Unsupported(m) => Status::Unsupported {
                reason: if placed { m } else { format!("{at}: {m}") },
            },
            other => Status::Fail {
                kind: FailKind::of(&other),
                message: if placed {
                    other.message().to_string()
                } else {
                    format!("{at}: {other}")
                },
            },
        }
    }
}

/// An RGBA8 picture of a colour attachment.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    pub buffer: String,
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// The result of running one script.
#[derive(Clone, Debug)]
pub struct ScriptResult {
    pub path: PathBuf,
    pub status: Status,
    /// A note for passes (e.g. "expected failure").
    pub note: String,
    pub elapsed: Duration,
    /// Final colour attachments when [`super::RunOptions::keep_images`] is set.
    pub images: Vec<Picture>,
    /// Every buffer's final bytes when [`super::RunOptions::keep_images`] is set (what
    /// `quadstep diff` compares), in name order.
    pub buffers: Vec<BufferDump>,
}

/// A buffer's final contents.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferDump {
    pub name: String,
    /// The Vulkan format name of its elements, if it has one.
    pub format: Option<String>,
    /// Texels per row for images (0 for plain buffers).
    pub width: u32,
    /// Rows and slices of an image (1 for plain buffers; 6, the faces, for a cube).
    pub height: u32,
    pub depth: u32,
    /// The declared dimensionality, mip levels and samples.
    pub dim: Option<ast::ImageDim>,
    pub mip_levels: u32,
    pub samples: u32,
    /// Level 0 (each pixel's samples together for a multisampled image).
    pub bytes: Vec<u8>,
    /// Levels above 0 rendered or cleared as colour attachments, by level.
    pub mips: BTreeMap<u32, Vec<u8>>,
}

impl BufferDump {
    /// The texture a shader sampling this buffer would see now: level 0 from its bytes, the
    /// other levels generated from it except those rendered as attachments.
    pub fn texture(&self) -> Result<texture::Image> {
        let fname = self
            .format
            .as_deref()
            .ok_or_else(|| Error::Amber(format!("buffer '{}' has no image format", self.name)))?;
        let format = texture::Format::from_vk_name(fname)?;
        let g = super::texture_of::geometry(
            self.dim,
            [self.width, self.height, self.depth],
            self.mip_levels,
            self.samples,
        );
        let mut img = g.image(format)?;
        let mut level0 = self.bytes.clone();
        level0.resize(img.level_texels(0) * format.texel_size(), 0);
        super::texture_of::fill(&mut img, &level0, &self.mips, || Ok(()))?;
        Ok(img)
    }
}

impl ScriptResult {
    /// The script line the outcome points at (a failed `EXPECT`, the command that failed, a
    /// compile error's line), when its message names one: the first `path:N:` in it.
    pub fn line(&self) -> Option<usize> {
        let path = self.path.display().to_string();
        let msg = self.status.detail();
        msg.match_indices(&path).find_map(|(at, _)| {
            let rest = msg[at + path.len()..].strip_prefix(':')?;
            let digits = rest.find(|c: char| !c.is_ascii_digit())?;
            (digits > 0 && rest[digits..].starts_with(':'))
                .then(|| rest[..digits].parse().ok())
                .flatten()
        })
    }

    /// The script's main picture: its only colour attachment, else the one named
    /// `framebuffer` (Amber's conventional name).
    pub fn framebuffer(&self) -> Option<&Picture> {
        self.images
            .iter()
            .find(|p| self.images.len() == 1 || p.buffer == "framebuffer")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_the_first_place_in_the_script_the_message_names() {
        let at = |msg: &str| ScriptResult {
            path: PathBuf::from("d/x.amber"),
            status: Status::Fail {
                kind: FailKind::Parse,
                message: msg.into(),
            },
            note: String::new(),
            elapsed: Duration::ZERO,
            images: Vec::new(),
            buffers: Vec::new(),
        };
        assert_eq!(at("d/x.amber: amber: d/x.amber:16: bad").line(), Some(16));
        assert_eq!(at("d/x.amber:7: 'foo' : undeclared").line(), Some(7));
        assert_eq!(at("d/x.amber: no line here").line(), None);
        assert_eq!(at("d/x.amber:12x: odd").line(), None);
    }

    #[test]
    fn a_message_placed_in_the_file_is_not_prefixed_again() {
        let st = Status::of_error(Error::Amber("d/x.amber:16: bad".into()), "d/x.amber");
        assert_eq!(st.detail(), "d/x.amber:16: bad");
        let st = Status::of_error(Error::Exec("boom".into()), "d/x.amber:3");
        assert_eq!(st.detail(), "d/x.amber:3: execution: boom");
        let st = Status::of_error(Error::Spirv("a.spvasm:2:1: bad".into()), "d/x.amber:3");
        assert_eq!(st.detail(), "d/x.amber:3: SPIR-V: a.spvasm:2:1: bad");
    }

    #[test]
    fn every_error_has_a_kind_and_every_kind_an_exit_code() {
        let cases = [
            (Error::Amber("x".into()), FailKind::Parse, 2),
            (Error::Spirv("x".into()), FailKind::Compile, 2),
            (Error::Limit("x".into()), FailKind::Limit, 2),
            (Error::Io("x".into()), FailKind::Io, 2),
            (Error::Exec("x".into()), FailKind::Runtime, 1),
            (Error::Memory("x".into()), FailKind::Memory, 1),
            (Error::Timeout("x".into()), FailKind::Timeout, 1),
            (Error::Cancelled("x".into()), FailKind::Cancelled, 130),
        ];
        for (e, kind, code) in cases {
            let st = Status::of_error(e, "f:1");
            assert_eq!(st.kind(), Some(kind));
            assert_eq!(st.exit_code(), code);
        }
        assert_eq!(FailKind::Internal.exit_code(), 3);
        assert_eq!(Status::Pass.exit_code(), 0);
        let skip = Status::of_error(Error::Unsupported("tess".into()), "f:2");
        assert_eq!((skip.word(), skip.exit_code()), ("SKIP", 0));
        let words: std::collections::HashSet<_> = FailKind::ALL.iter().map(|k| k.word()).collect();
        assert_eq!(words.len(), FailKind::ALL.len());
    }
}
