//! The DXBC-style container around a DXIL program: header, part table, and the parts a
//! reader needs (`DXIL` program header and bitcode, `ISG1`/`OSG1`/`PSG1` signatures, `SFI0`
//! feature flags, `HASH`, `PSV0`, `VERS`), with the others (`RDAT`, `RTS0`, `STAT`, `ILDB`,
//! …) listed but not decoded.
//!
//! All fields are little-endian and parts are not aligned, so every read is a bounds-checked
//! byte-slice read at an offset. A digest that does not match the container is a finding in
//! [`DigestCheck`], not an error: unsigned and re-signed containers are common.

use super::shader::ShaderKind;

mod digest;
mod parse;
mod psv;

pub use parse::read_container;

/// A part's four-character code, as it appears in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FourCC(pub [u8; 4]);

impl FourCC {
    pub const DXIL: FourCC = FourCC(*b"DXIL");
    pub const SFI0: FourCC = FourCC(*b"SFI0");
    pub const ISG1: FourCC = FourCC(*b"ISG1");
    pub const OSG1: FourCC = FourCC(*b"OSG1");
    pub const PSG1: FourCC = FourCC(*b"PSG1");
    pub const HASH: FourCC = FourCC(*b"HASH");
    pub const PSV0: FourCC = FourCC(*b"PSV0");
    pub const VERS: FourCC = FourCC(*b"VERS");
    pub const RDAT: FourCC = FourCC(*b"RDAT");
    pub const RTS0: FourCC = FourCC(*b"RTS0");
    pub const STAT: FourCC = FourCC(*b"STAT");
    pub const ILDB: FourCC = FourCC(*b"ILDB");
    pub const ILDN: FourCC = FourCC(*b"ILDN");
}

impl std::fmt::Display for FourCC {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for &b in &self.0 {
            if b.is_ascii_graphic() {
                write!(f, "{}", b as char)?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

/// One entry of the part table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    pub fourcc: FourCC,
    /// Offset of the part's data (after its 8-byte header) in the container.
    pub data_offset: usize,
    pub size: usize,
}

/// The `DXIL` part's program header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgramHeader {
    /// The shader kind of the program version (`ps_6_8` → `Pixel`).
    pub kind: ShaderKind,
    pub major: u32,
    pub minor: u32,
    /// The DXIL version (major, minor) of the bitcode header.
    pub dxil_version: (u32, u32),
    /// Where the bitcode lies in the container (start, length).
    pub bitcode_offset: usize,
    pub bitcode_size: usize,
}

/// One element of an `ISG1`/`OSG1`/`PSG1` signature part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerSignatureElement {
    pub stream: u32,
    pub semantic_name: String,
    pub semantic_index: u32,
    /// `D3D_NAME` system value (1 Position, 64 Target…).
    pub system_value: u32,
    /// `D3D_REGISTER_COMPONENT_TYPE` (1 u32, 2 s32, 3 f32, …).
    pub component_type: u32,
    pub register: u32,
    pub mask: u8,
    /// Never-writes mask (outputs) or always-reads mask (inputs).
    pub rw_mask: u8,
    pub min_precision: u32,
}

/// The `HASH` part: the shader's hash as DXC computed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShaderHash {
    /// The hash covers the source too (flag 1).
    pub includes_source: bool,
    pub digest: [u8; 16],
}

/// The `VERS` part: which compiler made the container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompilerVersion {
    pub major: u16,
    pub minor: u16,
    pub flags: u32,
    pub commit_count: u32,
    pub commit_sha: String,
    pub version_string: String,
}

/// One resource binding of `PSV0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PsvResource {
    /// `PSVResourceType` (1 sampler, 2 CBV, 3 SRV typed…).
    pub res_type: u32,
    pub space: u32,
    pub lower_bound: u32,
    pub upper_bound: u32,
    /// `PSVResourceKind` and flags, when the record is long enough (v2+).
    pub kind: Option<u32>,
    pub flags: Option<u32>,
}

/// The parts of `PSV0` a reader can use: the runtime info and the resource bindings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineStateInfo {
    /// Size of the runtime-info record (24 v0, 36 v1, 48 v2, 52 v3).
    pub info_size: u32,
    pub min_wave_lanes: u32,
    pub max_wave_lanes: u32,
    /// v1+: the shader stage.
    pub shader_stage: Option<u8>,
    /// v1+: input, output and patch-constant signature element counts.
    pub signature_counts: Option<[u8; 3]>,
    /// v2+: threads per group.
    pub num_threads: Option<[u32; 3]>,
    pub resources: Vec<PsvResource>,
    /// v3+: the entry point's name (from the PSV string table).
    pub entry_name: Option<String>,
}

/// What the container's digest says about the container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestCheck {
    /// All zero: the container was not signed.
    Unsigned,
    /// The digest matches the container's bytes.
    Matches,
    /// The digest does not match; `computed` is what the bytes hash to.
    Mismatch { computed: [u8; 16] },
}

/// A decoded container.
#[derive(Debug, Clone, PartialEq)]
pub struct Container {
    pub digest: [u8; 16],
    pub digest_check: DigestCheck,
    /// Container format version (major, minor).
    pub version: (u16, u16),
    /// The size the header declares.
    pub declared_size: u32,
    pub parts: Vec<Part>,
    pub program: ProgramHeader,
    /// `SFI0`: the shader feature flags (`ShaderFeatureInfo_*` bits).
    pub features: Option<u64>,
    pub input_signature: Option<Vec<ContainerSignatureElement>>,
    pub output_signature: Option<Vec<ContainerSignatureElement>>,
    pub patch_constant_signature: Option<Vec<ContainerSignatureElement>>,
    pub hash: Option<ShaderHash>,
    /// Whether `HASH` matches the MD5 of what it covers (`None` when there is no `HASH`, or
    /// it covers source this reader does not have).
    pub hash_matches: Option<bool>,
    pub pipeline_state: Option<PipelineStateInfo>,
    pub compiler_version: Option<CompilerVersion>,
}

impl Container {
    /// The part with this code, if present (the first one).
    pub fn part(&self, fourcc: FourCC) -> Option<&Part> {
        self.parts.iter().find(|p| p.fourcc == fourcc)
    }
}
