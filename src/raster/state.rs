//! Pipeline state: plain data mirroring the Vulkan create-info structs (without sType/pNext).
//! `PipelineState::default()` is a usable starting point: triangle list, no culling, depth and
//! stencil off, blending off, every colour component written.

use super::target::DepthAspect;
use crate::format::Format;

/// `VkVertexInputRate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InputRate {
    #[default]
    Vertex,
    Instance,
}

/// `VkVertexInputBindingDescription`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexBinding {
    pub binding: u32,
    pub stride: u32,
    pub input_rate: InputRate,
}

/// `VkVertexInputAttributeDescription`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexAttribute {
    pub location: u32,
    pub binding: u32,
    pub format: Format,
    pub offset: u32,
}

/// `VkPrimitiveTopology`. Without a geometry shader the adjacency topologies draw their
/// lines and triangles (the adjacent vertices are not drawn); `PatchList` needs
/// tessellation (`PipelineState::patch_control_points` vertices a patch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Topology {
    PointList,
    LineList,
    LineStrip,
    #[default]
    TriangleList,
    TriangleStrip,
    TriangleFan,
    LineListWithAdjacency,
    LineStripWithAdjacency,
    TriangleListWithAdjacency,
    TriangleStripWithAdjacency,
    PatchList,
}

/// `VkPolygonMode`. `Line` draws the triangle's edges as lines and `Point` its vertices as
/// points (edges and vertices made by clipping are not drawn). Depth bias applies in every mode,
/// computed from the triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PolygonMode {
    #[default]
    Fill,
    Line,
    Point,
}

/// `VkCullModeFlags`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CullMode {
    #[default]
    None,
    Front,
    Back,
    FrontAndBack,
}

/// `VkFrontFace`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FrontFace {
    #[default]
    CounterClockwise,
    Clockwise,
}

/// Depth bias (`depthBiasConstantFactor`, `depthBiasClamp`, `depthBiasSlopeFactor`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct DepthBias {
    pub constant_factor: f32,
    pub clamp: f32,
    pub slope_factor: f32,
}

/// `VkPipelineRasterizationStateCreateInfo`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct RasterizationState {
    pub depth_clamp: bool,
    pub rasterizer_discard: bool,
    pub polygon_mode: PolygonMode,
    pub cull_mode: CullMode,
    pub front_face: FrontFace,
    /// `Some` = depthBiasEnable.
    pub depth_bias: Option<DepthBias>,
}

/// `VkViewport`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub min_depth: f32,
    pub max_depth: f32,
}

impl Viewport {
    /// The whole `width` x `height` framebuffer, depth range 0..1.
    pub fn full(width: u32, height: u32) -> Self {
        Viewport {
            x: 0.0,
            y: 0.0,
            width: width as f32,
            height: height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }
    }
}

/// `VkRect2D`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect2D {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

/// `VkCompareOp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CompareOp {
    Never,
    Less,
    Equal,
    LessOrEqual,
    Greater,
    NotEqual,
    GreaterOrEqual,
    #[default]
    Always,
}

impl CompareOp {
    /// `reference OP stored`, given their order.
    pub fn test(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            CompareOp::Never => false,
            CompareOp::Less => ord == Less,
            CompareOp::Equal => ord == Equal,
            CompareOp::LessOrEqual => ord != Greater,
            CompareOp::Greater => ord == Greater,
            CompareOp::NotEqual => ord != Equal,
            CompareOp::GreaterOrEqual => ord != Less,
            CompareOp::Always => true,
        }
    }
}

/// `VkStencilOp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StencilOp {
    #[default]
    Keep,
    Zero,
    Replace,
    IncrementAndClamp,
    DecrementAndClamp,
    Invert,
    IncrementAndWrap,
    DecrementAndWrap,
}

/// `VkStencilOpState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilOpState {
    pub fail_op: StencilOp,
    pub pass_op: StencilOp,
    pub depth_fail_op: StencilOp,
    pub compare_op: CompareOp,
    pub compare_mask: u8,
    pub write_mask: u8,
    pub reference: u8,
}

impl Default for StencilOpState {
    fn default() -> Self {
        StencilOpState {
            fail_op: StencilOp::Keep,
            pass_op: StencilOp::Keep,
            depth_fail_op: StencilOp::Keep,
            compare_op: CompareOp::Always,
            compare_mask: 0xff,
            write_mask: 0xff,
            reference: 0,
        }
    }
}

/// `VkPipelineDepthStencilStateCreateInfo`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct DepthStencilState {
    pub depth_test: bool,
    pub depth_write: bool,
    pub depth_compare: CompareOp,
    /// `Some((min, max))` = depthBoundsTestEnable.
    pub depth_bounds: Option<(f32, f32)>,
    pub stencil_test: bool,
    pub front: StencilOpState,
    pub back: StencilOpState,
    /// `VK_EXT_depth_range_unrestricted` (with `depthClampZeroOne`): fragment depths outside
    /// [0, 1] reach a float depth attachment's test and store unchanged. Otherwise they are
    /// clamped to [0, 1] first (normalized formats clamp in their encoding either way).
    pub unrestricted_depth: bool,
}

impl DepthStencilState {
    /// A fragment depth `z` (after depth clamp) as the depth test compares and stores it
    /// in `format`.
    pub(crate) fn quantize(&self, format: Format, z: f32) -> u32 {
        if self.unrestricted_depth {
            format.quantize_unrestricted(z)
        } else {
            format.quantize(z)
        }
    }
}

/// [`BlendFactor`] and [`BlendFactor::ALL`], from one list of the factors.
macro_rules! blend_factors {
    ($($(#[$a:meta])* $f:ident),* $(,)?) => {
        /// `VkBlendFactor`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
        pub enum BlendFactor {
            $($(#[$a])* $f),*
        }

        impl BlendFactor {
            /// Every factor, in `VkBlendFactor` order.
            pub const ALL: [BlendFactor; [$(BlendFactor::$f),*].len()] = [$(BlendFactor::$f),*];
        }
    };
}

blend_factors!(
    Zero,
    #[default]
    One,
    SrcColor,
    OneMinusSrcColor,
    DstColor,
    OneMinusDstColor,
    SrcAlpha,
    OneMinusSrcAlpha,
    DstAlpha,
    OneMinusDstAlpha,
    ConstantColor,
    OneMinusConstantColor,
    ConstantAlpha,
    OneMinusConstantAlpha,
    SrcAlphaSaturate,
    Src1Color,
    OneMinusSrc1Color,
    Src1Alpha,
    OneMinusSrc1Alpha,
);

impl BlendFactor {
    /// Whether the factor reads the second (dual-source) fragment output.
    pub fn uses_src1(self) -> bool {
        use BlendFactor::*;
        matches!(
            self,
            Src1Color | OneMinusSrc1Color | Src1Alpha | OneMinusSrc1Alpha
        )
    }
}

/// `VkBlendOp` (the basic ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BlendOp {
    #[default]
    Add,
    Subtract,
    ReverseSubtract,
    Min,
    Max,
}

/// `VkColorComponentFlags`: bit 0 = R, 1 = G, 2 = B, 3 = A.
pub const COLOR_WRITE_ALL: u8 = 0xf;

/// `VkPipelineColorBlendAttachmentState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColorBlendAttachment {
    pub blend_enable: bool,
    pub src_color_factor: BlendFactor,
    pub dst_color_factor: BlendFactor,
    pub color_op: BlendOp,
    pub src_alpha_factor: BlendFactor,
    pub dst_alpha_factor: BlendFactor,
    pub alpha_op: BlendOp,
    pub write_mask: u8,
}

impl Default for ColorBlendAttachment {
    fn default() -> Self {
        ColorBlendAttachment {
            blend_enable: false,
            src_color_factor: BlendFactor::One,
            dst_color_factor: BlendFactor::Zero,
            color_op: BlendOp::Add,
            src_alpha_factor: BlendFactor::One,
            dst_alpha_factor: BlendFactor::Zero,
            alpha_op: BlendOp::Add,
            write_mask: COLOR_WRITE_ALL,
        }
    }
}

/// The whole graphics pipeline state (fixed functions plus viewport/scissor).
#[derive(Clone, Debug, PartialEq)]
pub struct PipelineState {
    pub vertex_bindings: Vec<VertexBinding>,
    pub vertex_attributes: Vec<VertexAttribute>,
    pub topology: Topology,
    pub primitive_restart: bool,
    /// `patchControlPoints` of a `PatchList` topology (1..=32).
    pub patch_control_points: u32,
    pub rasterization: RasterizationState,
    /// `None` = the whole framebuffer with depth range 0..1.
    pub viewport: Option<Viewport>,
    /// `None` = the whole framebuffer.
    pub scissor: Option<Rect2D>,
    /// `rasterizationSamples`: 1, 2, 4, 8 or 16, at Vulkan's standard sample locations; every
    /// attachment must have this many samples.
    pub samples: u32,
    /// `sampleShadingEnable` with its `minSampleShading`: `Some(min)`. The fragment stage runs
    /// once per covered sample when `min * samples > 1` (Vulkan asks for at least
    /// `ceil(min * samples)` invocations per pixel; one per sample is the most it can be), and
    /// whenever the fragment shader reads `SampleId` or `SamplePosition` or has a
    /// `Sample`-qualified input.
    pub sample_shading: Option<f32>,
    /// `pSampleMask`: bit s keeps sample s (all ones by default).
    pub sample_mask: u32,
    /// `alphaToCoverageEnable`: sample s of a fragment is kept when colour 0's alpha is
    /// above `s / samples` (llvmpipe's mapping).
    pub alpha_to_coverage: bool,
    /// `alphaToOneEnable`: colour outputs' alpha is replaced by 1 before blending.
    pub alpha_to_one: bool,
    pub depth_stencil: DepthStencilState,
    /// One entry per colour attachment; missing entries mean blending off, all channels written.
    pub blend_attachments: Vec<ColorBlendAttachment>,
    pub blend_constants: [f32; 4],
}

impl Default for PipelineState {
    fn default() -> Self {
        PipelineState {
            vertex_bindings: Vec::new(),
            vertex_attributes: Vec::new(),
            topology: Topology::TriangleList,
            primitive_restart: false,
            patch_control_points: 3,
            rasterization: RasterizationState::default(),
            viewport: None,
            scissor: None,
            samples: 1,
            sample_shading: None,
            sample_mask: u32::MAX,
            alpha_to_coverage: false,
            alpha_to_one: false,
            depth_stencil: DepthStencilState::default(),
            blend_attachments: Vec::new(),
            blend_constants: [0.0; 4],
        }
    }
}
