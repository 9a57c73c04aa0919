//! The typed AST of an AmberScript file. Names (of shaders, buffers, samplers, pipelines) stay
//! names: the runner resolves them through [`Script`]'s lookups. The parser has already checked
//! that every name a statement uses was declared before it, loaded the files a statement names
//! (`FILE`, `VIRTUAL_FILE`), and expanded `DERIVE_PIPELINE` into a full copy of its parent.

use std::path::PathBuf;

use crate::limits::{Cancel, Limit, Limits};
use crate::{Error, Result};

pub use super::types::{
    DataType, ElemType, Format, Layout, Member, MemberType, Number, Scalar, StructType,
};

/// Defines a keyword enum with its script spelling.
macro_rules! keywords {
    ($(#[$m:meta])* $name:ident { $($var:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($var),+ }
        impl $name {
            /// Parse the script spelling.
            pub fn from_keyword(s: &str) -> Option<Self> {
                match s { $($s => Some($name::$var),)+ _ => None }
            }
            /// The script spelling.
            pub fn keyword(self) -> &'static str {
                match self { $($name::$var => $s),+ }
            }
            /// Every spelling, for error messages.
            pub const KEYWORDS: &'static [&'static str] = &[$($s),+];
        }
    };
}

keywords!(
    /// Shader stage.
    ShaderType {
        Vertex = "vertex",
        Fragment = "fragment",
        Geometry = "geometry",
        TessellationEvaluation = "tessellation_evaluation",
        TessellationControl = "tessellation_control",
        Compute = "compute",
        Multi = "multi",
        RayGeneration = "ray_generation",
        AnyHit = "any_hit",
        ClosestHit = "closest_hit",
        Miss = "miss",
        Intersection = "intersection",
        Callable = "callable",
    }
);

keywords!(
    /// Shader source language.
    ShaderFormat {
        Glsl = "GLSL",
        Hlsl = "HLSL",
        SpirvAsm = "SPIRV-ASM",
        SpirvHex = "SPIRV-HEX",
        SpirvBin = "SPIRV-BIN",
        Dxil = "DXIL",
        OpenClC = "OPENCL-C",
        Passthrough = "PASSTHROUGH",
    }
);

/// Where a shader's code is.
#[derive(Debug, Clone, PartialEq)]
pub enum ShaderSource {
    /// Amber's built-in vertex shader passing location 0 to `gl_Position`.
    Passthrough,
    /// Inline or loaded text.
    Text(String),
    /// Loaded binary (`SPIRV-BIN FILE`, `DXIL FILE`).
    Binary(Vec<u8>),
}

/// `SHADER type name format [TARGET_ENV env] [FILE path | VIRTUAL_FILE path]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Shader {
    pub name: String,
    pub stage: ShaderType,
    pub format: ShaderFormat,
    pub target_env: Option<String>,
    /// The file the source came from (`FILE` or `VIRTUAL_FILE`), if not inline.
    pub file: Option<PathBuf>,
    pub source: ShaderSource,
    /// The script line of the `SHADER` statement (VkScript: of the section header), 0 when
    /// unknown: line n of inline source is script line `line + n`, where compile errors are
    /// reported.
    pub line: usize,
}

keywords!(
    /// File kinds of `BUFFER … FILE`.
    FileKind { Text = "TEXT", Binary = "BINARY", Png = "PNG" }
);

/// How a buffer / image is initialised.
#[derive(Debug, Clone, PartialEq)]
pub enum BufferInit {
    /// Nothing said: zero, or sized later by a pipeline (framebuffer attachments).
    None,
    /// `DATA … END` (or the numbers read from a `FILE TEXT`).
    Data(Vec<Number>),
    /// `FILL v`: every component of every element.
    Fill(Number),
    /// `SERIES_FROM start INC_BY inc`: component `i` is `start + i·inc`.
    Series { start: Number, inc: Number },
    /// Raw bytes from `FILE BINARY`, or RGBA8 texels decoded from `FILE PNG`.
    Bytes(Vec<u8>),
}

keywords!(
    /// Image dimensionality. `DIM_CUBE` is a quadstep extension (Amber has no cube images):
    /// a 2D image of 6 square layers, the faces +X, -X, +Y, -Y, +Z, -Z, which `DATA`/`FILL`
    /// cover in that order (the parser records the 6 faces as the image's `depth`).
    ImageDim { D1 = "DIM_1D", D2 = "DIM_2D", D3 = "DIM_3D", Cube = "DIM_CUBE" }
);

/// `BUFFER` and `IMAGE` declarations (Amber keeps both in one namespace).
#[derive(Debug, Clone, PartialEq)]
pub struct Buffer {
    pub name: String,
    /// Declared with `IMAGE` (then `dim` is set) rather than `BUFFER`.
    pub is_image: bool,
    pub dim: Option<ImageDim>,
    /// The element type (`DATA_TYPE …` or `FORMAT …`).
    pub elem: ElemType,
    /// `FORMAT` rather than `DATA_TYPE` was used.
    pub declared_as_format: bool,
    pub layout: Layout,
    /// `SIZE n` in elements.
    pub size: Option<u64>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub depth: Option<u32>,
    pub mip_levels: u32,
    pub samples: u32,
    pub init: BufferInit,
    /// File a `FILE` initialiser came from.
    pub file: Option<PathBuf>,
}

impl Buffer {
    /// Number of elements the initialiser produces (or `SIZE`, or width·height·depth).
    pub fn element_count(&self) -> u64 {
        if let Some(n) = self.size {
            return n;
        }
        if self.width.is_some() {
            return self.width.unwrap_or(1) as u64
                * self.height.unwrap_or(1) as u64
                * self.depth.unwrap_or(1) as u64;
        }
        let comps = self.elem.components().max(1) as u64;
        match &self.init {
            BufferInit::Data(v) => (v.len() as u64).div_ceil(comps),
            BufferInit::Bytes(b) => b.len() as u64 / self.elem.stride(self.layout).max(1) as u64,
            _ => 0,
        }
    }

    /// The initial contents laid out by Amber's rules (see [`super::types`]): `DATA` values
    /// element by element, `FILL`/`SERIES_FROM` expanded over `SIZE` (or the image extent),
    /// file bytes as loaded; empty for uninitialised buffers, and for buffers larger than
    /// the default `maxMemoryAllocationSize` (use [`Buffer::try_layout_bytes`] to be told).
    pub fn layout_bytes(&self) -> Vec<u8> {
        let max = Limits::default().get(Limit::MaxMemoryAllocationSize);
        self.try_layout_bytes(max, &Cancel::never())
            .unwrap_or_default()
    }

    /// [`Buffer::layout_bytes`], or an error when the contents would pass `max_bytes`
    /// ([`Error::Limit`]), cannot be allocated ([`Error::Memory`]), or `cancel` stops the
    /// work. `FILL` and `SERIES_FROM` are laid out a few thousand elements at a time
    /// (polling `cancel` between), so nothing but the bytes themselves is allocated.
    pub fn try_layout_bytes(&self, max_bytes: u64, cancel: &Cancel) -> Result<Vec<u8>> {
        let comps = self.elem.components().max(1) as u64;
        let stride = self.elem.stride(self.layout) as u64;
        let elements = match &self.init {
            BufferInit::None => 0,
            BufferInit::Bytes(b) => b.len() as u64 / stride.max(1),
            BufferInit::Data(v) => (v.len() as u64).div_ceil(comps),
            BufferInit::Fill(_) | BufferInit::Series { .. } => self.element_count(),
        };
        let bytes = elements.saturating_mul(stride);
        if bytes > max_bytes {
            return Err(Error::Limit(format!(
                "the contents of buffer {}: {bytes} bytes exceed {max_bytes}",
                crate::error::quote(&self.name)
            )));
        }
        let mut out = Vec::new();
        out.try_reserve_exact(bytes as usize)
            .map_err(|_| Error::Memory(format!("the contents of buffer '{}'", self.name)))?;
        const STEP: u64 = 4096;
        match &self.init {
            BufferInit::None => {}
            BufferInit::Bytes(b) => out.extend_from_slice(b),
            BufferInit::Data(v) => out.extend(self.elem.layout_values(self.layout, v)),
            BufferInit::Fill(x) => {
                let one = self
                    .elem
                    .layout_values(self.layout, &vec![*x; comps as usize]);
                for k in 0..elements {
                    if k % STEP == 0 {
                        cancel.check()?;
                    }
                    out.extend_from_slice(&one);
                }
            }
            BufferInit::Series { start, inc } => {
                let mut first = 0;
                while first < elements {
                    cancel.check()?;
                    let n = STEP.min(elements - first);
                    let vals: Vec<Number> = (first * comps..(first + n) * comps)
                        .map(|i| match (start, inc) {
                            (Number::Int(s), Number::Int(d)) => {
                                Number::Int(s.wrapping_add(d.wrapping_mul(i as i128)))
                            }
                            _ => Number::Float(start.as_f64() + inc.as_f64() * i as f64),
                        })
                        .collect();
                    out.extend(self.elem.layout_values(self.layout, &vals));
                    first += n;
                }
            }
        }
        Ok(out)
    }
}

keywords!(
    /// Sampler filters.
    Filter { Nearest = "nearest", Linear = "linear" }
);
keywords!(
    /// Sampler address modes.
    AddressMode {
        Repeat = "repeat",
        MirroredRepeat = "mirrored_repeat",
        ClampToEdge = "clamp_to_edge",
        ClampToBorder = "clamp_to_border",
        MirrorClampToEdge = "mirror_clamp_to_edge",
    }
);
keywords!(
    /// Sampler border colours.
    BorderColor {
        FloatTransparentBlack = "float_transparent_black",
        IntTransparentBlack = "int_transparent_black",
        FloatOpaqueBlack = "float_opaque_black",
        IntOpaqueBlack = "int_opaque_black",
        FloatOpaqueWhite = "float_opaque_white",
        IntOpaqueWhite = "int_opaque_white",
    }
);
keywords!(
    /// Depth, stencil and sampler comparison.
    CompareOp {
        Never = "never",
        Less = "less",
        Equal = "equal",
        LessOrEqual = "less_or_equal",
        Greater = "greater",
        NotEqual = "not_equal",
        GreaterOrEqual = "greater_or_equal",
        Always = "always",
    }
);

/// `SAMPLER name [options]`, with Amber's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampler {
    pub name: String,
    pub mag_filter: Filter,
    pub min_filter: Filter,
    pub mipmap_mode: Filter,
    pub address_u: AddressMode,
    pub address_v: AddressMode,
    pub address_w: AddressMode,
    pub border_color: BorderColor,
    pub min_lod: f32,
    pub max_lod: f32,
    pub normalized_coords: bool,
    /// `COMPARE on` with `COMPARE_OP`.
    pub compare: Option<CompareOp>,
}

impl Sampler {
    /// A sampler with Amber's defaults: nearest, repeat, black border, LOD 0..1, normalized.
    pub fn new(name: &str) -> Self {
        Sampler {
            name: name.to_string(),
            mag_filter: Filter::Nearest,
            min_filter: Filter::Nearest,
            mipmap_mode: Filter::Nearest,
            address_u: AddressMode::Repeat,
            address_v: AddressMode::Repeat,
            address_w: AddressMode::Repeat,
            border_color: BorderColor::FloatTransparentBlack,
            min_lod: 0.0,
            max_lod: 1.0,
            normalized_coords: true,
            compare: None,
        }
    }
}

keywords!(
    /// Pipeline kinds.
    PipelineKind { Graphics = "graphics", Compute = "compute", RayTracing = "raytracing" }
);

/// `SPECIALIZE id AS type value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Specialization {
    pub id: u32,
    pub ty: DataType,
    pub value: Number,
}

/// Required subgroup size of a `SUBGROUP` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubgroupSize {
    Exact(u32),
    Min,
    Max,
}

/// Per-shader `SUBGROUP shader … END` settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubgroupOptions {
    pub fully_populated: Option<bool>,
    pub varying_size: Option<bool>,
    pub required_size: Option<SubgroupSize>,
}

/// A shader attached to a pipeline (`ATTACH`) and what other pipeline commands said about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    pub shader: String,
    /// The stage: the shader's own, or `TYPE` for a `multi` shader.
    pub stage: ShaderType,
    pub entry_point: String,
    pub specializations: Vec<Specialization>,
    /// `SHADER_OPTIMIZATION` pass names.
    pub optimizations: Vec<String>,
    /// `COMPILE_OPTIONS` words.
    pub compile_options: Vec<String>,
    pub subgroup: SubgroupOptions,
}

keywords!(
    /// Descriptor kinds of `BIND BUFFER … AS kind`.
    DescriptorKind {
        Uniform = "uniform",
        Storage = "storage",
        UniformDynamic = "uniform_dynamic",
        StorageDynamic = "storage_dynamic",
        StorageImage = "storage_image",
        SampledImage = "sampled_image",
        CombinedImageSampler = "combined_image_sampler",
        UniformTexelBuffer = "uniform_texel_buffer",
        StorageTexelBuffer = "storage_texel_buffer",
    }
);

/// An OpenCL kernel argument reference.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelArg {
    Name(String),
    Number(u32),
}

/// A `BIND` statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Binding {
    /// `BIND BUFFER b AS color LOCATION n [BASE_MIP_LEVEL m]`.
    Color {
        buffer: String,
        location: u32,
        base_mip_level: u32,
    },
    /// `BIND BUFFER b AS depth_stencil`.
    DepthStencil { buffer: String },
    /// `BIND BUFFER b AS resolve`.
    Resolve { buffer: String },
    /// `BIND BUFFER b AS push_constant`.
    PushConstant { buffer: String },
    /// `BIND BUFFER[_ARRAY] b… AS kind [SAMPLER s] DESCRIPTOR_SET d BINDING n …`.
    Descriptor {
        /// One buffer, or several for `BUFFER_ARRAY`.
        buffers: Vec<String>,
        kind: DescriptorKind,
        set: u32,
        binding: u32,
        /// Samplers of a `combined_image_sampler`.
        samplers: Vec<String>,
        base_mip_level: u32,
        /// `OFFSET` of dynamic buffers, one per buffer.
        dynamic_offsets: Vec<u32>,
        /// `DESCRIPTOR_OFFSET`, one per buffer.
        descriptor_offsets: Vec<u64>,
        /// `DESCRIPTOR_RANGE`, one per buffer.
        descriptor_ranges: Vec<u64>,
    },
    /// `BIND SAMPLER[_ARRAY] s… DESCRIPTOR_SET d BINDING n`.
    Sampler {
        samplers: Vec<String>,
        set: u32,
        binding: u32,
    },
    /// `BIND ACCELERATION_STRUCTURE a DESCRIPTOR_SET d BINDING n`.
    AccelerationStructure {
        name: String,
        set: u32,
        binding: u32,
    },
    /// `BIND BUFFER|SAMPLER x KERNEL ARG_NAME n|ARG_NUMBER i [AS kind]` (OpenCL).
    Kernel {
        name: String,
        is_sampler: bool,
        arg: KernelArg,
        kind: Option<DescriptorKind>,
    },
}

keywords!(
    /// Vertex input rate.
    InputRate { Vertex = "vertex", Instance = "instance" }
);

/// `VERTEX_DATA b LOCATION n [RATE r] [OFFSET o] [STRIDE s] [FORMAT f]`.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexData {
    pub buffer: String,
    pub location: u32,
    pub rate: InputRate,
    pub offset: u32,
    /// `None`: the element size of the buffer's format.
    pub stride: Option<u32>,
    /// `None`: the buffer's own format.
    pub format: Option<Format>,
}

keywords!(
    /// Polygon modes.
    PolygonMode { Fill = "fill", Line = "line", Point = "point" }
);

/// `DEPTH … END`.
#[derive(Debug, Clone, PartialEq)]
pub struct DepthState {
    pub test: bool,
    pub write: bool,
    pub compare: CompareOp,
    pub clamp: bool,
    /// `BOUNDS min a max b` (depth bounds test).
    pub bounds: Option<(f32, f32)>,
    /// `BIAS constant c clamp k slope s`.
    pub bias: Option<DepthBias>,
}

impl Default for DepthState {
    fn default() -> Self {
        DepthState {
            test: false,
            write: false,
            // Amber's default depthCompareOp is ALWAYS (`src/pipeline_data.h`).
            compare: CompareOp::Always,
            clamp: false,
            bounds: None,
            bias: None,
        }
    }
}

/// Depth bias factors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthBias {
    pub constant: f32,
    pub clamp: f32,
    pub slope: f32,
}

keywords!(
    /// Stencil faces of a `STENCIL` block.
    StencilFace { Front = "front", Back = "back", FrontAndBack = "front_and_back" }
);
keywords!(
    /// Stencil operations.
    StencilOp {
        Keep = "keep",
        Zero = "zero",
        Replace = "replace",
        IncrementAndClamp = "increment_and_clamp",
        DecrementAndClamp = "decrement_and_clamp",
        Invert = "invert",
        IncrementAndWrap = "increment_and_wrap",
        DecrementAndWrap = "decrement_and_wrap",
    }
);

/// One face's stencil state.
#[derive(Debug, Clone, PartialEq)]
pub struct StencilState {
    pub test: bool,
    pub fail_op: StencilOp,
    pub pass_op: StencilOp,
    pub depth_fail_op: StencilOp,
    pub compare: CompareOp,
    pub compare_mask: u32,
    pub write_mask: u32,
    pub reference: u32,
}

impl Default for StencilState {
    fn default() -> Self {
        StencilState {
            test: false,
            fail_op: StencilOp::Keep,
            pass_op: StencilOp::Keep,
            depth_fail_op: StencilOp::Keep,
            compare: CompareOp::Always,
            compare_mask: 0,
            write_mask: 0,
            reference: 0,
        }
    }
}

keywords!(
    /// Blend factors.
    BlendFactor {
        Zero = "zero",
        One = "one",
        SrcColor = "src_color",
        OneMinusSrcColor = "one_minus_src_color",
        DstColor = "dst_color",
        OneMinusDstColor = "one_minus_dst_color",
        SrcAlpha = "src_alpha",
        OneMinusSrcAlpha = "one_minus_src_alpha",
        DstAlpha = "dst_alpha",
        OneMinusDstAlpha = "one_minus_dst_alpha",
        ConstantColor = "constant_color",
        OneMinusConstantColor = "one_minus_constant_color",
        ConstantAlpha = "constant_alpha",
        OneMinusConstantAlpha = "one_minus_constant_alpha",
        SrcAlphaSaturate = "src_alpha_saturate",
        Src1Color = "src1_color",
        OneMinusSrc1Color = "one_minus_src1_color",
        Src1Alpha = "src1_alpha",
        OneMinusSrc1Alpha = "one_minus_src1_alpha",
    }
);
keywords!(
    /// Blend operations (the core ones; advanced-blend names are kept as `Other`-free errors).
    BlendOp {
        Add = "add",
        Subtract = "subtract",
        ReverseSubtract = "reverse_subtract",
        Min = "min",
        Max = "max",
    }
);

/// `BLEND … END` (enables blending).
#[derive(Debug, Clone, PartialEq)]
pub struct BlendState {
    pub src_color: BlendFactor,
    pub dst_color: BlendFactor,
    pub color_op: BlendOp,
    pub src_alpha: BlendFactor,
    pub dst_alpha: BlendFactor,
    pub alpha_op: BlendOp,
}

impl Default for BlendState {
    fn default() -> Self {
        BlendState {
            src_color: BlendFactor::One,
            dst_color: BlendFactor::Zero,
            color_op: BlendOp::Add,
            src_alpha: BlendFactor::One,
            dst_alpha: BlendFactor::Zero,
            alpha_op: BlendOp::Add,
        }
    }
}

/// `VIEWPORT x y SIZE w h [MIN_DEPTH d] [MAX_DEPTH d]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub min_depth: f32,
    pub max_depth: f32,
}

/// `SET KERNEL ARG_NAME n|ARG_NUMBER i AS type value` (OpenCL pipelines).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelArgValue {
    pub arg: KernelArg,
    pub ty: DataType,
    pub value: Number,
}

/// A ray-tracing `SHADER_GROUP name shader…`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShaderGroup {
    pub name: String,
    pub shaders: Vec<String>,
}

/// A ray-tracing `SHADER_BINDING_TABLE name group… END`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShaderBindingTable {
    pub name: String,
    pub groups: Vec<String>,
}

/// `PIPELINE kind name … END` (or `DERIVE_PIPELINE name FROM parent … END`).
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    pub name: String,
    pub kind: PipelineKind,
    pub derived_from: Option<String>,
    pub shaders: Vec<Attachment>,
    /// `FRAMEBUFFER_SIZE w h` (Amber's default is 250×250).
    pub framebuffer_size: (u32, u32),
    pub bindings: Vec<Binding>,
    pub vertex_data: Vec<VertexData>,
    pub index_data: Option<String>,
    pub polygon_mode: PolygonMode,
    pub patch_control_points: Option<u32>,
    pub depth: Option<DepthState>,
    /// (front, back) stencil states when a `STENCIL` block was given.
    pub stencil_front: Option<StencilState>,
    pub stencil_back: Option<StencilState>,
    pub blend: Option<BlendState>,
    pub viewport: Option<Viewport>,
    pub kernel_args: Vec<KernelArgValue>,
    pub shader_groups: Vec<ShaderGroup>,
    pub binding_tables: Vec<ShaderBindingTable>,
    pub max_ray_payload_size: Option<u32>,
    pub max_ray_hit_attribute_size: Option<u32>,
    pub max_ray_recursion_depth: Option<u32>,
    /// `FLAGS` words (ray-tracing pipeline libraries).
    pub flags: Vec<String>,
    /// `USE_LIBRARY` pipeline names.
    pub libraries: Vec<String>,
}

impl Pipeline {
    pub fn new(name: &str, kind: PipelineKind) -> Self {
        Pipeline {
            name: name.to_string(),
            kind,
            derived_from: None,
            shaders: Vec::new(),
            framebuffer_size: (250, 250),
            bindings: Vec::new(),
            vertex_data: Vec::new(),
            index_data: None,
            polygon_mode: PolygonMode::Fill,
            patch_control_points: None,
            depth: None,
            stencil_front: None,
            stencil_back: None,
            blend: None,
            viewport: None,
            kernel_args: Vec::new(),
            shader_groups: Vec::new(),
            binding_tables: Vec::new(),
            max_ray_payload_size: None,
            max_ray_hit_attribute_size: None,
            max_ray_recursion_depth: None,
            flags: Vec::new(),
            libraries: Vec::new(),
        }
    }
}

keywords!(
    /// Primitive topologies of `DRAW_ARRAY AS`.
    Topology {
        PointList = "POINT_LIST",
        LineList = "LINE_LIST",
        LineListWithAdjacency = "LINE_LIST_WITH_ADJACENCY",
        LineStrip = "LINE_STRIP",
        LineStripWithAdjacency = "LINE_STRIP_WITH_ADJACENCY",
        TriangleList = "TRIANGLE_LIST",
        TriangleListWithAdjacency = "TRIANGLE_LIST_WITH_ADJACENCY",
        TriangleStrip = "TRIANGLE_STRIP",
        TriangleStripWithAdjacency = "TRIANGLE_STRIP_WITH_ADJACENCY",
        TriangleFan = "TRIANGLE_FAN",
        PatchList = "PATCH_LIST",
    }
);

/// What a `RUN` does.
#[derive(Debug, Clone, PartialEq)]
pub enum RunKind {
    /// `RUN p x y z` on a compute pipeline.
    Compute { groups: [u32; 3] },
    /// `DRAW_RECT POS x y SIZE w h`.
    DrawRect {
        pos: [f32; 2],
        size: [f32; 2],
        /// `true`: `pos`/`size` are framebuffer pixels (AmberScript always, VkScript
        /// `draw rect ortho`); `false`: normalized device coordinates (VkScript `draw rect`).
        ortho: bool,
        /// Drawn as a 4-vertex `PATCH_LIST` (VkScript `draw rect patch`).
        patch: bool,
    },
    /// `DRAW_GRID POS x y SIZE w h CELLS c r`.
    DrawGrid {
        pos: [f32; 2],
        size: [f32; 2],
        cells: [u32; 2],
    },
    /// `DRAW_ARRAY AS topology [INDEXED] [START_IDX s] [COUNT c] [START_INSTANCE i]
    /// [INSTANCE_COUNT n]`.
    DrawArray {
        topology: Topology,
        indexed: bool,
        start_idx: u32,
        /// `None`: to the end of the vertex (or index) data.
        count: Option<u32>,
        start_instance: u32,
        instance_count: u32,
    },
    /// `RAYGEN sbt [MISS sbt] [HIT sbt] [CALL sbt] x y z`.
    TraceRays {
        raygen: String,
        miss: Option<String>,
        hit: Option<String>,
        call: Option<String>,
        size: [u32; 3],
    },
}

/// `RUN [TIMED_EXECUTION] pipeline …`.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub pipeline: String,
    pub timed: bool,
    pub kind: RunKind,
}

/// Buffer comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparator {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Comparator {
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "EQ" => Comparator::Eq,
            "NE" => Comparator::Ne,
            "LT" => Comparator::Lt,
            "LE" => Comparator::Le,
            "GT" => Comparator::Gt,
            "GE" => Comparator::Ge,
            _ => return None,
        })
    }
}

/// One `TOLERANCE` value: absolute, or a percentage when written `5%`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    pub value: f64,
    pub percent: bool,
}

/// `EXPECT …`.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// `EXPECT img IDX x y [SIZE w h] EQ_RGB r g b | EQ_RGBA r g b a [TOLERANCE t…]`
    /// (VkScript `[relative] probe [rect] …`). `size` is (1, 1) for a single-point probe, and
    /// (0, 0) for a `relative` single-point probe (one texel at a fractional position).
    /// `color` is normalized to 0..1 (AmberScript's 0–255 values are divided by 255).
    /// Tolerances are kept exactly as written: AmberScript writes them in the same 0–255 units
    /// as its colours, VkScript (`tolerance` before the probe) in 0..1 units or percent.
    Probe {
        buffer: String,
        pos: [f32; 2],
        size: [f32; 2],
        /// `pos`/`size` are fractions of the framebuffer (VkScript `relative probe`).
        relative: bool,
        has_alpha: bool,
        color: [f64; 4],
        tolerance: Vec<Tolerance>,
    },
    /// `EXPECT buf IDX i [TOLERANCE t…] cmp values…` (`i` in bytes for Amber, i.e. the byte
    /// offset into the buffer).
    Values {
        buffer: String,
        index: u64,
        /// Type to read the buffer as (VkScript `probe ssbo type`, std430); `None`: the
        /// buffer's own element type.
        data_type: Option<DataType>,
        tolerance: Vec<Tolerance>,
        comparator: Comparator,
        values: Vec<Number>,
    },
    /// `EXPECT a EQ_BUFFER b`.
    EqBuffer { buffer: String, other: String },
    /// `EXPECT a RMSE_BUFFER b TOLERANCE t`.
    RmseBuffer {
        buffer: String,
        other: String,
        tolerance: f64,
    },
    /// `EXPECT a EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE t`.
    HistogramEmdBuffer {
        buffer: String,
        other: String,
        tolerance: f64,
    },
}

/// `DEBUG pipeline run-args … END`: the run it makes, and its debugger script kept verbatim.
#[derive(Debug, Clone, PartialEq)]
pub struct Debug {
    pub run: Run,
    /// The lines between the header and the matching `END`.
    pub body: Vec<String>,
}

/// A command executed in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Run(Run),
    /// `CLEAR pipeline`.
    Clear {
        pipeline: String,
    },
    /// `CLEAR_COLOR pipeline r g b a`, normalized to 0..1 (AmberScript's 0–255 values are
    /// divided by 255; VkScript's `clear color` is already normalized).
    ClearColor {
        pipeline: String,
        color: [f64; 4],
    },
    /// `CLEAR_DEPTH pipeline d`.
    ClearDepth {
        pipeline: String,
        value: f32,
    },
    /// `CLEAR_STENCIL pipeline s`.
    ClearStencil {
        pipeline: String,
        value: u32,
    },
    /// `COPY from TO to`.
    Copy {
        from: String,
        to: String,
    },
    Expect(Expect),
    /// Write `values` of type `ty` laid out by `layout` at byte `offset` of `buffer`, growing
    /// it if needed (VkScript `ssbo b subdata`, `uniform`, `uniform ubo`).
    SetBufferData {
        buffer: String,
        offset: u64,
        ty: DataType,
        layout: Layout,
        values: Vec<Number>,
    },
    /// `REPEAT n … END`.
    Repeat {
        count: u32,
        body: Vec<Stmt>,
    },
    Debug(Debug),
}

/// A bottom-level acceleration structure geometry.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    /// `TRIANGLES` (3 floats a vertex) or `AABBS` (6 floats a box).
    pub aabbs: bool,
    pub flags: Vec<String>,
    pub data: Vec<f64>,
}

/// A top-level instance of a bottom-level structure.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    pub blas: String,
    pub index: Option<u32>,
    pub offset: Option<u32>,
    pub mask: Option<u32>,
    pub flags: Vec<String>,
    /// Row-major 3×4 transform.
    pub transform: Option<Vec<f64>>,
}

/// `ACCELERATION_STRUCTURE BOTTOM_LEVEL|TOP_LEVEL name … END`.
#[derive(Debug, Clone, PartialEq)]
pub enum AccelerationStructure {
    Bottom {
        name: String,
        geometries: Vec<Geometry>,
    },
    Top {
        name: String,
        instances: Vec<Instance>,
    },
}

/// A statement and the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub line: usize,
    pub kind: StmtKind,
}

/// Top-level statements in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    Shader(Shader),
    Buffer(Buffer),
    Sampler(Sampler),
    Struct(StructType),
    Pipeline(Pipeline),
    AccelerationStructure(AccelerationStructure),
    /// `VIRTUAL_FILE path … END`.
    VirtualFile {
        path: String,
        text: String,
    },
    DeviceFeature(String),
    DeviceProperty(String),
    DeviceExtension(String),
    InstanceExtension(String),
    /// `SET ENGINE_DATA key value`.
    EngineData {
        key: String,
        value: Number,
    },
    Command(Command),
}

/// A parsed script.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The file it came from (relative `FILE`s were resolved against its folder).
    pub path: PathBuf,
    pub stmts: Vec<Stmt>,
}

impl Script {
    /// Declared shaders.
    pub fn shaders(&self) -> impl Iterator<Item = &Shader> {
        self.stmts.iter().filter_map(|s| match &s.kind {
            StmtKind::Shader(x) => Some(x),
            _ => None,
        })
    }
    /// Declared buffers and images.
    pub fn buffers(&self) -> impl Iterator<Item = &Buffer> {
        self.stmts.iter().filter_map(|s| match &s.kind {
            StmtKind::Buffer(x) => Some(x),
            _ => None,
        })
    }
    /// Declared pipelines.
    pub fn pipelines(&self) -> impl Iterator<Item = &Pipeline> {
        self.stmts.iter().filter_map(|s| match &s.kind {
            StmtKind::Pipeline(x) => Some(x),
            _ => None,
        })
    }
    /// Declared samplers.
    pub fn samplers(&self) -> impl Iterator<Item = &Sampler> {
        self.stmts.iter().filter_map(|s| match &s.kind {
            StmtKind::Sampler(x) => Some(x),
            _ => None,
        })
    }
    /// Top-level commands in order, with their lines.
    pub fn commands(&self) -> impl Iterator<Item = (usize, &Command)> {
        self.stmts.iter().filter_map(|s| match &s.kind {
            StmtKind::Command(c) => Some((s.line, c)),
            _ => None,
        })
    }
    pub fn shader(&self, name: &str) -> Option<&Shader> {
        self.shaders().find(|s| s.name == name)
    }
    pub fn buffer(&self, name: &str) -> Option<&Buffer> {
        self.buffers().find(|s| s.name == name)
    }
    pub fn pipeline(&self, name: &str) -> Option<&Pipeline> {
        self.pipelines().find(|s| s.name == name)
    }
    pub fn sampler(&self, name: &str) -> Option<&Sampler> {
        self.samplers().find(|s| s.name == name)
    }
    /// `DEVICE_FEATURE`s required.
    pub fn device_features(&self) -> impl Iterator<Item = &str> {
        self.stmts.iter().filter_map(|s| match &s.kind {
            StmtKind::DeviceFeature(x) => Some(x.as_str()),
            _ => None,
        })
    }
    /// `DEVICE_EXTENSION`s required.
    pub fn device_extensions(&self) -> impl Iterator<Item = &str> {
        self.stmts.iter().filter_map(|s| match &s.kind {
            StmtKind::DeviceExtension(x) => Some(x.as_str()),
            _ => None,
        })
    }
}
