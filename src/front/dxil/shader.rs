//! What a DXIL module declares through its `dx.*` metadata: the DXIL version, the shader
//! model, and each entry point's signatures, resources and properties (raw shader flags,
//! numthreads, …). These are the facts lowering and `quadstep inspect` consume; they are read
//! from the decoded [`super::module::Module`]'s metadata, never from the container's
//! parts, which repeat some of them for the runtime.
//!
//! Enumerations that come from DXC (`DxilConstants.h`) keep unknown values as `Other(n)`, so
//! a newer compiler's value decodes and is reported rather than refused.

use super::module::{FuncId, MdId, TypeId};

/// Declares a C-like enum mirrored from DXC with an `Other(u32)` fallback, `from_raw`, `raw`
/// and `name` (DXC's spelling).
macro_rules! dxc_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $value:expr),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
            /// A value this reader does not know.
            Other(u32),
        }

        impl $name {
            /// The enum for DXC's number.
            pub fn from_raw(raw: u32) -> Self {
                match raw {
                    $($value => $name::$variant,)*
                    other => $name::Other(other),
                }
            }

            /// DXC's number.
            pub fn raw(self) -> u32 {
                match self {
                    $($name::$variant => $value,)*
                    $name::Other(raw) => raw,
                }
            }

            /// DXC's name for the value.
            pub fn name(self) -> std::borrow::Cow<'static, str> {
                match self {
                    $($name::$variant => std::borrow::Cow::Borrowed(stringify!($variant)),)*
                    $name::Other(raw) => std::borrow::Cow::Owned(format!("{}({raw})", stringify!($name))),
                }
            }
        }
    };
}

dxc_enum!(
    /// `DXIL::ShaderKind`: the program version's kind and `dx.shaderModel`'s.
    ShaderKind {
        Pixel = 0, Vertex = 1, Geometry = 2, Hull = 3, Domain = 4, Compute = 5, Library = 6,
        RayGeneration = 7, Intersection = 8, AnyHit = 9, ClosestHit = 10, Miss = 11,
        Callable = 12, Mesh = 13, Amplification = 14, Node = 15,
    }
);

impl ShaderKind {
    /// The profile prefix (`ps`, `vs`, `cs`, `lib`…) for the kinds that have one.
    pub fn profile_prefix(self) -> Option<&'static str> {
        Some(match self {
            ShaderKind::Pixel => "ps",
            ShaderKind::Vertex => "vs",
            ShaderKind::Geometry => "gs",
            ShaderKind::Hull => "hs",
            ShaderKind::Domain => "ds",
            ShaderKind::Compute => "cs",
            ShaderKind::Library => "lib",
            ShaderKind::Mesh => "ms",
            ShaderKind::Amplification => "as",
            _ => return None,
        })
    }

    /// The kind for a profile prefix (`dx.shaderModel`'s first operand).
    pub fn from_profile_prefix(s: &str) -> Option<ShaderKind> {
        Some(match s {
            "ps" => ShaderKind::Pixel,
            "vs" => ShaderKind::Vertex,
            "gs" => ShaderKind::Geometry,
            "hs" => ShaderKind::Hull,
            "ds" => ShaderKind::Domain,
            "cs" => ShaderKind::Compute,
            "lib" => ShaderKind::Library,
            "ms" => ShaderKind::Mesh,
            "as" => ShaderKind::Amplification,
            _ => return None,
        })
    }
}

dxc_enum!(
    /// `DXIL::ComponentType`: element types of signatures and typed resources.
    ComponentType {
        Invalid = 0, I1 = 1, I16 = 2, U16 = 3, I32 = 4, U32 = 5, I64 = 6, U64 = 7, F16 = 8,
        F32 = 9, F64 = 10, SNormF16 = 11, UNormF16 = 12, SNormF32 = 13, UNormF32 = 14,
        SNormF64 = 15, UNormF64 = 16, PackedS8x32 = 17, PackedU8x32 = 18,
    }
);

dxc_enum!(
    /// `DXIL::SemanticKind`: the system value of a signature element.
    SemanticKind {
        Arbitrary = 0, VertexID = 1, InstanceID = 2, Position = 3, RenderTargetArrayIndex = 4,
        ViewPortArrayIndex = 5, ClipDistance = 6, CullDistance = 7, OutputControlPointID = 8,
        DomainLocation = 9, PrimitiveID = 10, GSInstanceID = 11, SampleIndex = 12,
        IsFrontFace = 13, Coverage = 14, InnerCoverage = 15, Target = 16, Depth = 17,
        DepthLessEqual = 18, DepthGreaterEqual = 19, StencilRef = 20, DispatchThreadID = 21,
        GroupID = 22, GroupIndex = 23, GroupThreadID = 24, TessFactor = 25,
        InsideTessFactor = 26, ViewID = 27, Barycentrics = 28, ShadingRate = 29,
        CullPrimitive = 30, StartVertexLocation = 31, StartInstanceLocation = 32,
    }
);

dxc_enum!(
    /// `DXIL::InterpolationMode` of a signature element.
    InterpolationMode {
        Undefined = 0, Constant = 1, Linear = 2, LinearCentroid = 3, LinearNoperspective = 4,
        LinearNoperspectiveCentroid = 5, LinearSample = 6, LinearNoperspectiveSample = 7,
    }
);

dxc_enum!(
    /// `DXIL::ResourceKind`: the shape of a resource.
    ResourceKind {
        Invalid = 0, Texture1D = 1, Texture2D = 2, Texture2DMS = 3, Texture3D = 4,
        TextureCube = 5, Texture1DArray = 6, Texture2DArray = 7, Texture2DMSArray = 8,
        TextureCubeArray = 9, TypedBuffer = 10, RawBuffer = 11, StructuredBuffer = 12,
        CBuffer = 13, Sampler = 14, TBuffer = 15, RTAccelerationStructure = 16,
        FeedbackTexture2D = 17, FeedbackTexture2DArray = 18,
    }
);

dxc_enum!(
    /// `DXIL::SamplerKind`.
    SamplerKind { Default = 0, Comparison = 1, Mono = 2 }
);

/// A shader model: `ps_6_8` is `{ Pixel, 6, 8 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShaderModel {
    pub kind: ShaderKind,
    pub major: u32,
    pub minor: u32,
}

impl ShaderModel {
    /// Whether this model is at least `major.minor`.
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        (self.major, self.minor) >= (major, minor)
    }
}

impl std::fmt::Display for ShaderModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind.profile_prefix() {
            Some(p) => write!(f, "{p}_{}_{}", self.major, self.minor),
            None => write!(f, "{}_{}_{}", self.kind.name(), self.major, self.minor),
        }
    }
}

/// One element of a signature (`dx.entryPoints` → signatures), as `loadInput`/`storeOutput`
/// address it by `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct SignatureElement {
    /// The element id (`loadInput`'s first argument after the opcode).
    pub id: u32,
    /// The semantic name (`TEXCOORD`, `SV_Position`…).
    pub name: String,
    pub component_type: ComponentType,
    pub semantic_kind: SemanticKind,
    /// One semantic index per row.
    pub semantic_indices: Vec<u32>,
    pub interpolation: InterpolationMode,
    pub rows: u32,
    pub cols: u32,
    /// Packed location; -1 when the element is not allocated (system values like
    /// `SV_DispatchThreadID` in some stages).
    pub start_row: i32,
    pub start_col: i32,
    /// The element's tag/value list (0 output stream, 2 dynamic-index mask, 3 usage mask…).
    pub properties: Vec<(u32, u64)>,
}

/// An entry point's signatures.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Signatures {
    pub inputs: Vec<SignatureElement>,
    pub outputs: Vec<SignatureElement>,
    /// Patch-constant (hull/domain) or per-primitive (mesh) outputs.
    pub patch_constants: Vec<SignatureElement>,
}

/// Which register class a resource binds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceClass {
    /// `t` registers.
    Srv,
    /// `u` registers.
    Uav,
    /// `b` registers.
    Cbv,
    /// `s` registers.
    Sampler,
}

impl ResourceClass {
    /// The register letter.
    pub fn register_letter(self) -> char {
        match self {
            ResourceClass::Srv => 't',
            ResourceClass::Uav => 'u',
            ResourceClass::Cbv => 'b',
            ResourceClass::Sampler => 's',
        }
    }
}

/// One resource range of `dx.resources`.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub class: ResourceClass,
    /// The range id within its class (`createHandle`'s range id).
    pub id: u32,
    /// The pointee type of the resource's symbol (`%"class.Texture2D<float>"`…), if present.
    pub symbol_type: Option<TypeId>,
    pub name: String,
    pub space: u32,
    pub lower_bound: u32,
    /// Number of registers; `u32::MAX` for an unbounded range.
    pub range_size: u32,
    /// Shape: a texture or buffer kind for SRVs/UAVs, `CBuffer` for CBVs, `Sampler` for
    /// samplers.
    pub kind: ResourceKind,
    /// SRVs and UAVs: multisample count (0 when not multisampled).
    pub sample_count: u32,
    /// UAVs.
    pub globally_coherent: bool,
    pub has_counter: bool,
    pub rasterizer_ordered: bool,
    /// CBVs: size in bytes.
    pub cbuffer_size: u32,
    /// Samplers.
    pub sampler_kind: Option<SamplerKind>,
    /// Typed resources: the element type (tag 0).
    pub element_type: Option<ComponentType>,
    /// Structured buffers: the element stride (tag 1).
    pub element_stride: Option<u32>,
    /// The full tag/value list.
    pub properties: Vec<(u32, u64)>,
}

/// The four resource lists of `dx.resources` (or of an entry point's resources field).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Resources {
    pub srvs: Vec<Resource>,
    pub uavs: Vec<Resource>,
    pub cbvs: Vec<Resource>,
    pub samplers: Vec<Resource>,
}

impl Resources {
    /// All resources, SRVs then UAVs, CBVs and samplers.
    pub fn iter(&self) -> impl Iterator<Item = &Resource> {
        self.srvs
            .iter()
            .chain(&self.uavs)
            .chain(&self.cbvs)
            .chain(&self.samplers)
    }

    /// The list of a class.
    pub fn of_class(&self, class: ResourceClass) -> &[Resource] {
        match class {
            ResourceClass::Srv => &self.srvs,
            ResourceClass::Uav => &self.uavs,
            ResourceClass::Cbv => &self.cbvs,
            ResourceClass::Sampler => &self.samplers,
        }
    }
}

/// An entry point's properties list (tag/value pairs), with the tags DXC defines decoded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EntryProperties {
    /// Raw shader flags (tag 0; `DxilShaderFlags.h` bit order).
    pub shader_flags: u64,
    /// Compute, mesh, amplification, node: threads per group (tag 4).
    pub num_threads: Option<[u32; 3]>,
    /// Library functions: the kind of shader (tag 8).
    pub shader_kind: Option<ShaderKind>,
    /// `[WaveSize(n)]` (tag 11), or `(min, max, preferred)` (tag 23).
    pub wave_size: Option<[u32; 3]>,
    /// Tags not decoded above (GS/HS/DS/MS/AS state, payload sizes, node tags…), with their
    /// value nodes.
    pub other: Vec<(u32, Option<MdId>)>,
}

/// One `dx.entryPoints` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryPoint {
    /// The function; `None` for a library's module-level entry.
    pub function: Option<FuncId>,
    pub name: String,
    pub signatures: Signatures,
    /// The entry point's resources (non-library shaders list `dx.resources` here).
    pub resources: Resources,
    pub properties: EntryProperties,
}

/// Everything the `dx.*` metadata declares.
#[derive(Debug, Clone, PartialEq)]
pub struct ShaderInfo {
    /// `dx.version` (major, minor).
    pub dxil_version: Option<(u32, u32)>,
    /// `dx.valver` (major, minor).
    pub validator_version: Option<(u32, u32)>,
    /// `dx.shaderModel`.
    pub shader_model: ShaderModel,
    /// `dx.resources`.
    pub resources: Resources,
    pub entry_points: Vec<EntryPoint>,
}
