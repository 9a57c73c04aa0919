//! Reading a container's bytes into [`Container`]: the header and part table, then each
//! known part by its own small reader. Every field is read through [`Bytes`], which checks
//! the offset against the slice it reads from, so a short or lying part is an error naming
//! the byte.

use super::digest::{md5, retail_hash};
use super::*;
use crate::front::dxil::error::{DxilError, Result};

/// A little-endian view of a byte range that reports offsets relative to the container.
#[derive(Clone, Copy)]
pub(super) struct Bytes<'a> {
    data: &'a [u8],
    /// Offset of `data[0]` in the container, for messages.
    base: usize,
}

impl<'a> Bytes<'a> {
    pub(super) fn new(data: &'a [u8], base: usize) -> Self {
        Bytes { data, base }
    }

    pub(super) fn err<T>(&self, at: usize, msg: impl Into<String>) -> Result<T> {
        Err(DxilError::Container {
            offset: self.base + at,
            msg: msg.into(),
        })
    }

    pub(super) fn slice(&self, at: usize, len: usize, what: &str) -> Result<&'a [u8]> {
        match at.checked_add(len) {
            Some(end) if end <= self.data.len() => Ok(&self.data[at..end]),
            _ => self.err(
                at,
                format!(
                    "{what} ({len} bytes) runs past the end ({} bytes)",
                    self.data.len()
                ),
            ),
        }
    }

    pub(super) fn sub(&self, at: usize, len: usize, what: &str) -> Result<Bytes<'a>> {
        Ok(Bytes {
            data: self.slice(at, len, what)?,
            base: self.base + at,
        })
    }

    pub(super) fn u8(&self, at: usize, what: &str) -> Result<u8> {
        Ok(self.slice(at, 1, what)?[0])
    }

    pub(super) fn u16(&self, at: usize, what: &str) -> Result<u16> {
        let b = self.slice(at, 2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub(super) fn u32(&self, at: usize, what: &str) -> Result<u32> {
        let b = self.slice(at, 4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(super) fn u64(&self, at: usize, what: &str) -> Result<u64> {
        Ok(u64::from(self.u32(at, what)?) | u64::from(self.u32(at + 4, what)?) << 32)
    }

    pub(super) fn len(&self) -> usize {
        self.data.len()
    }

    /// A NUL-terminated string starting at `at`.
    pub(super) fn cstr(&self, at: usize, what: &str) -> Result<String> {
        let rest = match self.data.get(at..) {
            Some(r) => r,
            None => return self.err(at, format!("{what} starts past the end")),
        };
        match rest.iter().position(|&b| b == 0) {
            Some(n) => Ok(String::from_utf8_lossy(&rest[..n]).into_owned()),
            None => self.err(at, format!("{what} has no terminating NUL")),
        }
    }
}

const HEADER_SIZE: usize = 32;
/// The digest covers the container from the version field on.
const DIGEST_START: usize = 20;

/// Reads a container.
pub fn read_container(data: &[u8]) -> Result<Container> {
    let all = Bytes::new(data, 0);
    if all.slice(0, 4, "container magic")? != b"DXBC" {
        return all.err(0, "not a DXBC/DXIL container (no 'DXBC' magic)");
    }
    let mut digest = [0u8; 16];
    digest.copy_from_slice(all.slice(4, 16, "digest")?);
    let version = (all.u16(20, "version")?, all.u16(22, "version")?);
    let declared_size = all.u32(24, "container size")?;
    let part_count = all.u32(28, "part count")? as usize;
    if declared_size as usize > data.len() {
        return all.err(
            24,
            format!(
                "container declares {declared_size} bytes, {} present",
                data.len()
            ),
        );
    }
    let all = Bytes::new(&data[..declared_size as usize], 0);
    // Each part needs a 4-byte offset and an 8-byte header.
    if part_count > all.len() / 12 {
        return all.err(
            28,
            format!("{part_count} parts cannot fit in {declared_size} bytes"),
        );
    }
    let mut parts = Vec::with_capacity(part_count);
    for i in 0..part_count {
        let at = HEADER_SIZE + 4 * i;
        let offset = all.u32(at, "part offset")? as usize;
        let mut fourcc = [0u8; 4];
        fourcc.copy_from_slice(all.slice(offset, 4, "part header")?);
        let size = all.u32(offset + 4, "part size")? as usize;
        all.slice(offset + 8, size, &format!("part {}", FourCC(fourcc)))?;
        parts.push(Part {
            fourcc: FourCC(fourcc),
            data_offset: offset + 8,
            size,
        });
    }
    let part_bytes =
        |p: &Part| Bytes::new(&data[p.data_offset..p.data_offset + p.size], p.data_offset);
    let find = |cc: FourCC| parts.iter().find(|p| p.fourcc == cc);

    let Some(dxil) = find(FourCC::DXIL) else {
        return all.err(28, "no DXIL part");
    };
    let program = read_program(part_bytes(dxil))?;

    let features = find(FourCC::SFI0)
        .map(|p| {
            let b = part_bytes(p);
            if b.len() != 8 {
                return b.err(0, format!("SFI0 of {} bytes (8 expected)", b.len()));
            }
            b.u64(0, "SFI0")
        })
        .transpose()?;
    let signature = |cc| find(cc).map(|p| read_signature(part_bytes(p))).transpose();
    let input_signature = signature(FourCC::ISG1)?;
    let output_signature = signature(FourCC::OSG1)?;
    let patch_constant_signature = signature(FourCC::PSG1)?;
    let hash = find(FourCC::HASH)
        .map(|p| read_hash(part_bytes(p)))
        .transpose()?;
    let pipeline_state = find(FourCC::PSV0)
        .map(|p| super::psv::read_psv(part_bytes(p)))
        .transpose()?;
    let compiler_version = find(FourCC::VERS)
        .map(|p| read_version(part_bytes(p)))
        .transpose()?;

    let digest_check = if digest == [0; 16] {
        DigestCheck::Unsigned
    } else {
        let computed = retail_hash(&data[DIGEST_START..declared_size as usize]);
        if computed == digest {
            DigestCheck::Matches
        } else {
            DigestCheck::Mismatch { computed }
        }
    };
    let hash_matches = hash.and_then(|h| {
        (!h.includes_source).then(|| {
            let start = program.bitcode_offset;
            md5(&data[start..start + program.bitcode_size]) == h.digest
        })
    });

    Ok(Container {
        digest,
        digest_check,
        version,
        declared_size,
        parts,
        program,
        features,
        input_signature,
        output_signature,
        patch_constant_signature,
        hash,
        hash_matches,
        pipeline_state,
        compiler_version,
    })
}

/// The `DXIL` part: program header, bitcode header, and where the bitcode lies.
fn read_program(b: Bytes) -> Result<ProgramHeader> {
    let version = b.u32(0, "program version")?;
    let size_words = b.u32(4, "program size")? as usize;
    if size_words.checked_mul(4).is_none_or(|s| s > b.len()) {
        return b.err(
            4,
            format!(
                "program of {size_words} words is larger than its part ({} bytes)",
                b.len()
            ),
        );
    }
    if b.slice(8, 4, "DXIL magic")? != b"DXIL" {
        return b.err(8, "no 'DXIL' magic in the program header");
    }
    let dxil_version = b.u32(12, "DXIL version")?;
    let offset = b.u32(16, "bitcode offset")? as usize;
    let size = b.u32(20, "bitcode size")? as usize;
    let start = 8usize.saturating_add(offset);
    b.slice(start, size, "bitcode")?;
    Ok(ProgramHeader {
        kind: crate::front::dxil::shader::ShaderKind::from_raw(version >> 16),
        major: (version >> 4) & 0xF,
        minor: version & 0xF,
        dxil_version: ((dxil_version >> 8) & 0xFF, dxil_version & 0xFF),
        bitcode_offset: b.base + start,
        bitcode_size: size,
    })
}

/// `ISG1`/`OSG1`/`PSG1`: a count, an offset, 32-byte elements, names by offset.
fn read_signature(b: Bytes) -> Result<Vec<ContainerSignatureElement>> {
    let count = b.u32(0, "signature element count")? as usize;
    let offset = b.u32(4, "signature element offset")? as usize;
    if count > b.len() / 32 {
        return b.err(
            0,
            format!("{count} signature elements cannot fit in {} bytes", b.len()),
        );
    }
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let e = b.sub(offset.saturating_add(32 * i), 32, "signature element")?;
        let name_offset = e.u32(4, "semantic name offset")? as usize;
        out.push(ContainerSignatureElement {
            stream: e.u32(0, "stream")?,
            semantic_name: b.cstr(name_offset, "semantic name")?,
            semantic_index: e.u32(8, "semantic index")?,
            system_value: e.u32(12, "system value")?,
            component_type: e.u32(16, "component type")?,
            register: e.u32(20, "register")?,
            mask: e.u8(24, "mask")?,
            rw_mask: e.u8(25, "read/write mask")?,
            min_precision: e.u32(28, "min precision")?,
        });
    }
    Ok(out)
}

fn read_hash(b: Bytes) -> Result<ShaderHash> {
    if b.len() != 20 {
        return b.err(0, format!("HASH of {} bytes (20 expected)", b.len()));
    }
    let mut digest = [0u8; 16];
    digest.copy_from_slice(b.slice(4, 16, "hash digest")?);
    Ok(ShaderHash {
        includes_source: b.u32(0, "hash flags")? & 1 != 0,
        digest,
    })
}

/// `VERS`: `{u16 major, minor; u32 flags, commit count, string bytes}` then the commit sha
/// and the version string, each NUL-terminated.
fn read_version(b: Bytes) -> Result<CompilerVersion> {
    let len = b.u32(12, "version strings size")? as usize;
    let mut strings = b.slice(16, len, "version strings")?.split(|&c| c == 0);
    let mut next = || String::from_utf8_lossy(strings.next().unwrap_or_default()).into_owned();
    Ok(CompilerVersion {
        major: b.u16(0, "major")?,
        minor: b.u16(2, "minor")?,
        flags: b.u32(4, "flags")?,
        commit_count: b.u32(8, "commit count")?,
        commit_sha: next(),
        version_string: next(),
    })
}
