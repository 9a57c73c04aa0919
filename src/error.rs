//! The crate-wide error type. Every error names where it happened (file, word offset, line) and
//! the rule that was broken; nothing reachable from user input panics.

use thiserror::Error;

/// Every way quadstep can refuse input or fail to run it.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// Malformed or unsupported SPIR-V (binary or text).
    #[error("SPIR-V: {0}")]
    Spirv(String),
    /// A shader feature quadstep does not implement (capability, opcode, operand, format…).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A run-time failure of a shader: instruction budget exhausted, bad resource binding…
    #[error("execution: {0}")]
    Exec(String),
    /// Bad texture / image / sampler description.
    #[error("texture: {0}")]
    Texture(String),
    /// Misuse of the pipeline API.
    #[error("pipeline: {0}")]
    Pipeline(String),
    /// Amber script errors (file:line: message).
    #[error("amber: {0}")]
    Amber(String),
    /// I/O and image-file errors, with the path.
    #[error("io: {0}")]
    Io(String),
    /// A size or count above the device limits ([`crate::limits::Limits`]): what asked, the
    /// value, the limit.
    #[error("limit: {0}")]
    Limit(String),
    /// The memory budget ([`crate::limits::MemoryBudget`]) or the system refused an
    /// allocation.
    #[error("memory: {0}")]
    Memory(String),
    /// The run's time limit passed ([`crate::limits::Cancel`]).
    #[error("timeout: {0}")]
    Timeout(String),
    /// The run was cancelled (Ctrl-C, or the caller's [`crate::limits::Cancel::cancel`]).
    #[error("cancelled: {0}")]
    Cancelled(String),
}

impl Error {
    /// The message without the kind's prefix (`amber: `, `execution: `…).
    pub fn message(&self) -> &str {
        match self {
            Error::Spirv(m)
            | Error::Unsupported(m)
            | Error::Exec(m)
            | Error::Texture(m)
            | Error::Pipeline(m)
            | Error::Amber(m)
            | Error::Io(m)
            | Error::Limit(m)
            | Error::Memory(m)
            | Error::Timeout(m)
            | Error::Cancelled(m) => m,
        }
    }
}

/// Longest piece of input an error message quotes, in characters.
pub const QUOTE_CHARS: usize = 80;

/// A piece of input for an error message: in single quotes, control characters escaped, and
/// cut to [`QUOTE_CHARS`] characters (with `…` and the full length) so that a huge token
/// cannot make a huge message.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(QUOTE_CHARS * 2) + 2);
    out.push('\'');
    for c in s.chars().take(QUOTE_CHARS) {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    let n = s.chars().count();
    if n > QUOTE_CHARS {
        out.push_str(&format!("… ({n} characters)"));
    }
    out
}

/// `msg` with every whitespace-separated piece longer than [`QUOTE_CHARS`] characters (and
/// room for a [`quote`]'s quotes and `…`) cut there, for messages built from input where the
/// pieces are not quoted one by one.
pub fn clip(msg: &str) -> String {
    const MAX: usize = QUOTE_CHARS + 3;
    if msg.len() <= MAX {
        return msg.to_string();
    }
    let mut out = String::with_capacity(msg.len().min(4096));
    let mut run = 0;
    for c in msg.chars() {
        if c.is_whitespace() {
            run = 0;
        } else {
            run += 1;
            if run > MAX {
                if run == MAX + 1 {
                    out.push('…');
                }
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Short alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_short_and_escaped() {
        assert_eq!(quote("abc"), "'abc'");
        assert_eq!(quote("a\nb"), "'a\\nb'");
        let long = "x".repeat(5_000_000);
        let q = quote(&long);
        assert!(q.len() < 120, "{q}");
        assert!(q.ends_with("… (5000000 characters)"), "{q}");
    }

    #[test]
    fn clip_cuts_long_pieces_only() {
        assert_eq!(clip("short words stay"), "short words stay");
        let m = format!("file:3: unknown command '{}' here", "y".repeat(1000));
        let c = clip(&m);
        assert!(
            c.len() < 120 && c.starts_with("file:3: unknown command 'yyy"),
            "{c}"
        );
        assert!(c.ends_with("… here"), "{c}");
    }
}
