//! Running a parsed Amber script through quadstep's public API: buffers and images become
//! interpreter buffers and texture-unit images for the length of one command, pipelines become
//! [`crate::pipeline`] shaders and [`crate::raster`] pipeline state, and every `EXPECT` is
//! checked the way google/amber's verifier checks it (`src/verifier.cc`).
//!
//! Shape: the script's buffers live as plain bytes (Amber's layout: the same bytes a
//! `BUFFER … DATA` or a framebuffer would hold) in [`Runner`]; each `RUN`/`DRAW_*` copies the
//! ones its pipeline binds into fresh resources, runs, and copies storage buffers, storage
//! images and attachments back. This costs copies but means any buffer can be used in any
//! role (attachment, then sampled image, then compared with `EQ_BUFFER`) without aliasing
//! rules. Shaders are compiled once per (shader, stage, entry point, specialisation).
//! Errors never escape as panics: a command's error becomes FAIL (or UNSUPPORTED for
//! [`Error::Unsupported`]) naming `file:line`.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ast::{self, *};
use super::formats;
use super::run_expect;
use super::run_shaders;
use crate::exec;
use crate::front::spirv::{Module, SpecConstants};
use crate::ir::{self, ResourceKind};
use crate::pipeline::{self, BoundStage, Descriptor, DescriptorSets, ImageResource};
use crate::raster::{
    self, ColorClass, ColorCodec, ColorTarget, DepthStencilTarget, IndexBuffer, IndexType,
    RenderTargets, VertexBuffer,
};
use crate::texture::{self, ImageView, ViewType};
use crate::{Error, Result};

/// How scripts are run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Interpreter instruction budget per batch (a runaway shader stops there).
    pub budget: u64,
    /// Wall-clock cap per script, checked between commands.
    pub time_limit: Duration,
    /// Directory of compiled GLSL/HLSL.
    pub cache_dir: PathBuf,
    /// Keep every colour attachment's final contents in [`ScriptResult::images`].
    pub keep_images: bool,
    /// Rasterizer worker threads per script (scripts themselves may run in parallel).
    pub raster_threads: usize,
    /// SPIR-V version of assembly without `TARGET_ENV` (`None`: SPIR-V 1.0, or the version
    /// the CTS uses for the script's folder, see [`cts_default_version`]).
    pub spirv_version: Option<(u8, u8)>,
    /// Texture rules for every shader (`None`: each shader's own, D3D for DXIL and Vulkan
    /// for SPIR-V).
    pub policy: Option<texture::Policy>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            budget: 20_000_000,
            time_limit: Duration::from_secs(30),
            cache_dir: run_shaders::default_cache_dir(),
            keep_images: false,
            raster_threads: 1,
            spirv_version: None,
            policy: None,
        }
    }
}

/// Outcome of one script.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Pass,
    Fail { message: String },
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
            Status::Fail { message } => message,
            Status::Unsupported { reason } => reason,
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
    /// Final colour attachments when [`RunOptions::keep_images`] is set.
    pub images: Vec<Picture>,
    /// Every buffer's final bytes when [`RunOptions::keep_images`] is set (what `quadstep
    /// diff` compares), in name order.
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
    pub bytes: Vec<u8>,
}

impl ScriptResult {
    /// The script's main picture: its only colour attachment, else the one named
    /// `framebuffer` (Amber's conventional name).
    pub fn framebuffer(&self) -> Option<&Picture> {
        self.images
            .iter()
            .find(|p| self.images.len() == 1 || p.buffer == "framebuffer")
    }
}

/// The SPIR-V version the Vulkan CTS assembles a script's shaders with when the script does not
/// say (`/work/shared/amber/README.md`): 1.4 for `spirv1p4` and `workgroup_memory_explicit_layout`
/// folders, 1.3 for the terminate-invocation subgroup scripts.
pub fn cts_default_version(path: &Path) -> Option<(u8, u8)> {
    let p = path.to_string_lossy();
    if p.contains("spirv1p4") || p.contains("workgroup_memory_explicit_layout") {
        Some((1, 4))
    } else if p.contains("terminate_invocation/subgroup_") {
        Some((1, 3))
    } else {
        None
    }
}

/// Whether the script is one that must fail (`*.expect_fail.*`).
pub fn expects_failure(path: &Path) -> bool {
    path.file_name()
        .map(|n| n.to_string_lossy().contains(".expect_fail."))
        .unwrap_or(false)
}

/// Parse and run a script file, applying the `*.expect_fail.*` convention.
pub fn run_file(path: &Path, opts: &RunOptions) -> ScriptResult {
    let start = Instant::now();
    let parsed = std::panic::catch_unwind(|| super::parse_file(path));
    let mut r = match parsed {
        Ok(Ok(script)) => {
            let mut o = opts.clone();
            if o.spirv_version.is_none() {
                o.spirv_version = cts_default_version(path);
            }
            run_script(&script, &o)
        }
        Ok(Err(e)) => ScriptResult {
            path: path.to_path_buf(),
            status: status_of(e, &path.display().to_string()),
            note: String::new(),
            elapsed: Duration::ZERO,
            images: Vec::new(),
            buffers: Vec::new(),
        },
        Err(p) => ScriptResult {
            path: path.to_path_buf(),
            status: Status::Fail {
                message: format!("{}: parser panicked: {}", path.display(), panic_text(&p)),
            },
            note: String::new(),
            elapsed: Duration::ZERO,
            images: Vec::new(),
            buffers: Vec::new(),
        },
    };
    r.path = path.to_path_buf();
    if expects_failure(path) {
        r.status = match r.status {
            Status::Fail { message } => {
                r.note = format!("expected failure: {message}");
                Status::Pass
            }
            Status::Pass => Status::Fail {
                message: format!(
                    "{}: an expect_fail script passed (it must fail)",
                    path.display()
                ),
            },
            u => u,
        };
    }
    r.elapsed = start.elapsed();
    r
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// `Error::Unsupported` → UNSUPPORTED, anything else → FAIL, prefixed with `at`.
fn status_of(e: Error, at: &str) -> Status {
    match e {
        Error::Unsupported(m) => Status::Unsupported {
            reason: format!("{at}: {m}"),
        },
        other => Status::Fail {
            message: format!("{at}: {other}"),
        },
    }
}

/// Run a parsed script (no `expect_fail` inversion: see [`run_file`]).
pub fn run_script(script: &Script, opts: &RunOptions) -> ScriptResult {
    let start = Instant::now();
    let file = script.path.display().to_string();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut r = Runner::new(script, opts)?;
        let st = r.run_all();
        let (images, buffers) = if opts.keep_images {
            (r.pictures(), r.buffer_dumps())
        } else {
            (Vec::new(), Vec::new())
        };
        Ok::<_, (Error, usize)>((st, images, buffers))
    }));
    let (status, images, buffers) = match outcome {
        Ok(Ok(x)) => x,
        Ok(Err((e, line))) => (
            status_of(e, &format!("{file}:{line}")),
            Vec::new(),
            Vec::new(),
        ),
        Err(p) => (
            Status::Fail {
                message: format!("{file}: panic while running: {}", panic_text(&p)),
            },
            Vec::new(),
            Vec::new(),
        ),
    };
    ScriptResult {
        path: script.path.clone(),
        status,
        note: String::new(),
        elapsed: start.elapsed(),
        images,
        buffers,
    }
}

/// Device features quadstep provides (any shader capability it lacks is refused by the front
/// end with its own UNSUPPORTED).
const FEATURES: &[&str] = &[
    "vertexPipelineStoresAndAtomics",
    "fragmentStoresAndAtomics",
    "shaderInt16",
    "shaderInt64",
    "shaderFloat64",
    "depthClamp",
    "fillModeNonSolid",
    "Storage16BitFeatures.storageBuffer16BitAccess",
    "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
    "Storage16BitFeatures.storagePushConstant16",
    "Storage8BitFeatures.storageBuffer8BitAccess",
    "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
    "Storage8BitFeatures.storagePushConstant8",
    "Float16Int8Features.shaderFloat16",
    "Float16Int8Features.shaderInt8",
    "VariablePointerFeatures.variablePointersStorageBuffer",
    "VariablePointerFeatures.variablePointers",
    "IndexTypeUint8Features.indexTypeUint8",
    "SubgroupSupportedStages.fragment",
    "SubgroupSupportedStages.compute",
    "SubgroupSupportedOperations.vote",
    "SubgroupSupportedOperations.ballot",
    "SubgroupSupportedOperations.basic",
    "SubgroupSupportedOperations.quad",
    "VulkanMemoryModelFeatures.vulkanMemoryModel",
    "VulkanMemoryModelFeatures.vulkanMemoryModelDeviceScope",
    "ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory",
    // Depth is always clamped to [0, 1] before the depth test (raster::target::quantize).
    "DepthClampZeroOneFeatures.depthClampZeroOne",
];

/// Device extensions quadstep provides.
const EXTENSIONS: &[&str] = &[
    "VK_KHR_shader_terminate_invocation",
    "VK_KHR_storage_buffer_storage_class",
    "VK_KHR_16bit_storage",
    "VK_KHR_8bit_storage",
    "VK_KHR_zero_initialize_workgroup_memory",
    "VK_KHR_spirv_1_4",
    "VK_KHR_shader_float_controls",
    "VK_KHR_shader_float16_int8",
    "VK_KHR_vulkan_memory_model",
    "VK_KHR_variable_pointers",
    "VK_EXT_index_type_uint8",
    "VK_EXT_primitive_topology_list_restart",
    "VK_KHR_workgroup_memory_explicit_layout",
    "VK_KHR_get_physical_device_properties2",
];

/// A script buffer: its declaration, its bytes, and its extent when used as an image.
#[derive(Clone, Debug)]
pub(crate) struct BufState {
    pub decl: Buffer,
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    /// Mip levels above 0 that were rendered or cleared as colour attachments
    /// (`BIND BUFFER … AS color … BASE_MIP_LEVEL n`), each `max(1, w>>n) x max(1, h>>n)`
    /// texels in the attachment's byte layout. They replace the generated levels when the
    /// buffer is sampled.
    pub mips: BTreeMap<u32, Vec<u8>>,
}

impl BufState {
    /// Bytes per texel (or per element, for a buffer without an image format).
    pub(crate) fn texel_bytes(&self) -> usize {
        match self
            .format_name()
            .and_then(|f| formats::texture_format(&f).ok())
        {
            Some(f) => f.texel_size(),
            None => self.decl.elem.stride(self.decl.layout) as usize,
        }
    }

    /// The Vulkan format name of its elements, if it has one.
    pub fn format_name(&self) -> Option<String> {
        formats::elem_format_name(&self.decl.elem)
    }
}

#[derive(Clone, Copy, Debug)]
struct ClearValues {
    color: [f64; 4],
    depth: f32,
    stencil: u32,
}

impl Default for ClearValues {
    fn default() -> Self {
        ClearValues {
            color: [0.0; 4],
            depth: 1.0,
            stencil: 0,
        }
    }
}

/// (shader, entry point, stage, specialisation, optimisation passes).
type ShaderKey = (String, String, &'static str, Vec<(u32, u64)>, String);

/// What to copy back into the script's buffers after a command.
enum WriteBack {
    Buffer {
        name: String,
        offset: usize,
        buf: Arc<exec::Buffer>,
    },
    Image {
        name: String,
        image: Arc<ImageResource>,
    },
}

/// Executes one script.
pub(crate) struct Runner<'s> {
    script: &'s Script,
    opts: &'s RunOptions,
    pub bufs: HashMap<String, BufState>,
    depth_targets: HashMap<String, DepthStencilTarget>,
    shaders: HashMap<ShaderKey, Arc<pipeline::Shader>>,
    clear: HashMap<String, ClearValues>,
    raster: raster::Rasterizer,
    deadline: Instant,
    /// Buffers used as colour attachments (for pictures).
    attachments: Vec<String>,
    /// The line of the statement being run.
    line: usize,
    /// The first failed expectation ("line: message").
    failure: Option<String>,
}

fn stage_name(s: ShaderType) -> &'static str {
    s.keyword()
}

impl<'s> Runner<'s> {
    fn new(script: &'s Script, opts: &'s RunOptions) -> Result<Self, (Error, usize)> {
        let raster = raster::Rasterizer::new(opts.raster_threads.max(1)).map_err(|e| (e, 0))?;
        let mut r = Runner {
            script,
            opts,
            bufs: HashMap::new(),
            depth_targets: HashMap::new(),
            shaders: HashMap::new(),
            clear: HashMap::new(),
            raster,
            deadline: Instant::now() + opts.time_limit,
            attachments: Vec::new(),
            line: 0,
            failure: None,
        };
        for st in &script.stmts {
            r.line = st.line;
            match &st.kind {
                StmtKind::DeviceFeature(f) if !FEATURES.contains(&f.as_str()) => {
                    return Err((Error::Unsupported(format!("DEVICE_FEATURE {f}")), st.line))
                }
                StmtKind::DeviceExtension(x) if !EXTENSIONS.contains(&x.as_str()) => {
                    return Err((Error::Unsupported(format!("DEVICE_EXTENSION {x}")), st.line))
                }
                StmtKind::AccelerationStructure(_) => {
                    return Err((
                        Error::Unsupported("ACCELERATION_STRUCTURE (ray tracing)".into()),
                        st.line,
                    ))
                }
                StmtKind::Buffer(b) => {
                    r.declare_buffer(b).map_err(|e| (e, st.line))?;
                }
                StmtKind::Pipeline(p) => {
                    r.check_pipeline(p).map_err(|e| (e, st.line))?;
                }
                _ => {}
            }
        }
        Ok(r)
    }

    fn declare_buffer(&mut self, b: &Buffer) -> Result<()> {
        let mut bytes = b.layout_bytes();
        let stride = b.elem.stride(b.layout) as u64;
        let want = b.element_count().saturating_mul(stride);
        if want > 1 << 30 {
            return Err(Error::Unsupported(format!(
                "buffer '{}' of {want} bytes",
                b.name
            )));
        }
        if (bytes.len() as u64) < want {
            bytes.resize(want as usize, 0);
        }
        let (width, height) = match (b.width, b.height) {
            (Some(w), h) => (w, h.unwrap_or(1)),
            _ => (b.element_count() as u32, 1),
        };
        self.bufs.insert(
            b.name.clone(),
            BufState {
                decl: b.clone(),
                bytes,
                width,
                height,
                depth: b.depth.unwrap_or(1),
                mips: BTreeMap::new(),
            },
        );
        Ok(())
    }

    /// Size attachments to the framebuffer, refuse pipeline kinds we cannot run.
    fn check_pipeline(&mut self, p: &Pipeline) -> Result<()> {
        match p.kind {
            PipelineKind::RayTracing => {
                return Err(Error::Unsupported("ray-tracing pipelines".into()))
            }
            PipelineKind::Compute | PipelineKind::Graphics => {}
        }
        self.size_attachments(p)
    }

    /// Give the pipeline's attachments its framebuffer size (contents are kept when the size
    /// already matches, zeroed otherwise).
    fn size_attachments(&mut self, p: &Pipeline) -> Result<()> {
        let (w, h) = p.framebuffer_size;
        for b in &p.bindings {
            if let Binding::Color {
                buffer,
                base_mip_level: level @ 1..,
                ..
            } = b
            {
                self.size_mip_attachment(p, buffer, *level)?;
                continue;
            }
            let name = match b {
                Binding::Color { buffer, .. } | Binding::DepthStencil { buffer } => buffer,
                _ => continue,
            };
            let st = self.bufs.get_mut(name).ok_or_else(|| {
                Error::Amber(format!("pipeline '{}': no buffer '{name}'", p.name))
            })?;
            let texel = st.texel_bytes();
            let need = w as usize * h as usize * texel;
            if st.width != w || st.height != h || st.bytes.len() < need {
                st.width = w;
                st.height = h;
                st.bytes = vec![0; need];
                st.mips.clear();
                self.depth_targets.remove(name);
            }
            if matches!(b, Binding::Color { .. }) && !self.attachments.contains(name) {
                self.attachments.push(name.clone());
            }
        }
        Ok(())
    }

    /// A colour attachment at mip level `level` > 0: the framebuffer is that level, so the
    /// base level is `framebuffer << level` (taken from the buffer when it already has that
    /// size, as when level 0 was bound first). The level's texels are kept in
    /// [`BufState::mips`].
    fn size_mip_attachment(&mut self, p: &Pipeline, name: &str, level: u32) -> Result<()> {
        let (w, h) = p.framebuffer_size;
        let st = self
            .bufs
            .get_mut(name)
            .ok_or_else(|| Error::Amber(format!("pipeline '{}': no buffer '{name}'", p.name)))?;
        if level >= st.decl.mip_levels.max(1) {
            return Err(Error::Amber(format!(
                "pipeline '{}': BASE_MIP_LEVEL {level} but '{name}' has {} mip level(s)",
                p.name,
                st.decl.mip_levels.max(1)
            )));
        }
        let fits = |base: u32, l: u32| (base >> level).max(1) == l;
        if !(fits(st.width, w) && fits(st.height, h)) {
            if level >= 32 || (w << level) >> level != w || (h << level) >> level != h {
                return Err(Error::Amber(format!(
                    "pipeline '{}': framebuffer {w}x{h} at BASE_MIP_LEVEL {level} is too large",
                    p.name
                )));
            }
            st.width = w << level;
            st.height = h << level;
            st.bytes.clear();
            st.mips.clear();
        }
        let texel = st.texel_bytes();
        let need = w as usize * h as usize * texel;
        let m = st.mips.entry(level).or_default();
        if m.len() != need {
            *m = vec![0; need];
        }
        Ok(())
    }

    fn run_all(&mut self) -> Status {
        let file = self.script.path.display().to_string();
        let stmts = &self.script.stmts;
        for st in stmts {
            if let StmtKind::Command(c) = &st.kind {
                if let Err(e) = self.command(st.line, c) {
                    let line = if self.line == 0 { st.line } else { self.line };
                    return status_of(e, &format!("{file}:{line}"));
                }
                if let Some(msg) = self.failure.take() {
                    return Status::Fail {
                        message: format!("{file}:{msg}"),
                    };
                }
            }
        }
        Status::Pass
    }

    fn check_time(&self) -> Result<()> {
        if Instant::now() > self.deadline {
            return Err(Error::Exec(format!(
                "time limit of {:?} per script exceeded",
                self.opts.time_limit
            )));
        }
        Ok(())
    }

    /// The script is VkScript (probe tolerances are in 0..1 units there).
    pub fn is_vkscript(&self) -> bool {
        self.script
            .path
            .extension()
            .is_some_and(|e| e == "vkscript")
    }

    fn pipeline(&self, name: &str) -> Result<&'s Pipeline> {
        self.script
            .pipeline(name)
            .ok_or_else(|| Error::Amber(format!("no pipeline '{name}'")))
    }

    pub fn buf(&self, name: &str) -> Result<&BufState> {
        self.bufs
            .get(name)
            .ok_or_else(|| Error::Amber(format!("no buffer '{name}'")))
    }

    fn command(&mut self, line: usize, c: &Command) -> Result<()> {
        self.line = line;
        self.check_time()?;
        match c {
            Command::Run(run) => self.run(run),
            Command::Debug(d) => self.run(&d.run),
            Command::Clear { pipeline } => self.clear_cmd(pipeline),
            Command::ClearColor { pipeline, color } => {
                self.clear.entry(pipeline.clone()).or_default().color = *color;
                Ok(())
            }
            Command::ClearDepth { pipeline, value } => {
                self.clear.entry(pipeline.clone()).or_default().depth = *value;
                Ok(())
            }
            Command::ClearStencil { pipeline, value } => {
                self.clear.entry(pipeline.clone()).or_default().stencil = *value;
                Ok(())
            }
            Command::Copy { from, to } => {
                let src = self.buf(from)?.clone();
                let dst = self
                    .bufs
                    .get_mut(to)
                    .ok_or_else(|| Error::Amber(format!("no buffer '{to}'")))?;
                dst.bytes = src.bytes;
                dst.width = src.width;
                dst.height = src.height;
                dst.depth = src.depth;
                dst.mips = src.mips;
                Ok(())
            }
            Command::SetBufferData {
                buffer,
                offset,
                ty,
                layout,
                values,
            } => {
                let data = ElemType::Data(*ty).layout_values(*layout, values);
                let st = self
                    .bufs
                    .get_mut(buffer)
                    .ok_or_else(|| Error::Amber(format!("no buffer '{buffer}'")))?;
                let end = *offset as usize + data.len();
                if st.bytes.len() < end {
                    st.bytes.resize(end, 0);
                }
                st.bytes[*offset as usize..end].copy_from_slice(&data);
                Ok(())
            }
            Command::Repeat { count, body } => {
                for _ in 0..*count {
                    for s in body {
                        if let StmtKind::Command(c) = &s.kind {
                            self.command(s.line, c)?;
                            if self.failure.is_some() {
                                return Ok(());
                            }
                        }
                    }
                }
                Ok(())
            }
            Command::Expect(e) => {
                if let Some(msg) = run_expect::check(self, e)? {
                    self.failure = Some(format!("{line}: {msg}"));
                }
                Ok(())
            }
        }
    }

    fn clear_cmd(&mut self, pipeline: &str) -> Result<()> {
        let p = self.pipeline(pipeline)?;
        self.size_attachments(p)?;
        let cv = self.clear.get(pipeline).copied().unwrap_or_default();
        for b in &p.bindings {
            match b {
                Binding::Color {
                    buffer,
                    base_mip_level,
                    ..
                } => {
                    let (mut t, emulated) = self.color_target(buffer, *base_mip_level)?;
                    let c = cv.color.map(|v| v as f32);
                    if t.format.class().is_integer() {
                        t.clear_raw(cv.color.map(|v| (v * 255.0).round() as i64 as u32));
                    } else {
                        t.clear_f32(c);
                    }
                    self.store_color(buffer, *base_mip_level, t, emulated);
                }
                Binding::DepthStencil { buffer } => {
                    let mut t = self.depth_target(buffer)?;
                    t.clear(cv.depth, cv.stencil as u8);
                    self.store_depth(buffer, t);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The colour attachment for a buffer. Formats the rasterizer cannot render to but the
    /// texture unit can encode are emulated: drawn into a 32-bit RGBA target of the same
    /// numeric kind and converted back by [`Runner::store_color`] (the second value).
    fn color_target(
        &self,
        name: &str,
        level: u32,
    ) -> Result<(ColorTarget, Option<texture::Format>)> {
        let st = self.buf(name)?;
        let fname = st.format_name().ok_or_else(|| {
            Error::Unsupported(format!("colour attachment '{name}' without a format"))
        })?;
        let (width, height) = if level == 0 {
            (st.width, st.height)
        } else {
            ((st.width >> level).max(1), (st.height >> level).max(1))
        };
        let src: &[u8] = if level == 0 {
            &st.bytes
        } else {
            st.mips.get(&level).map(Vec::as_slice).unwrap_or(&[])
        };
        match formats::color_format(&fname) {
            Ok(format) => {
                let mut t = ColorTarget::new(format, width, height);
                if src.len() == t.data.len() {
                    t.data.copy_from_slice(src);
                }
                Ok((t, None))
            }
            Err(e) => {
                let Ok(tf) = formats::texture_format(&fname) else {
                    return Err(e);
                };
                if tf.has_depth() || tf.has_stencil() {
                    return Err(e);
                }
                let wide = match tf.kind() {
                    texture::NumKind::Float => raster::ColorFormat::R32G32B32A32Sfloat,
                    texture::NumKind::Uint => raster::ColorFormat::R32G32B32A32Uint,
                    texture::NumKind::Sint => raster::ColorFormat::R32G32B32A32Sint,
                };
                let mut t = ColorTarget::new(wide, width, height);
                let ts = tf.texel_size();
                let n = width as usize * height as usize;
                if src.len() >= n * ts {
                    for i in 0..n {
                        let raw = tf.decode_raw(&src[i * ts..i * ts + ts]);
                        wide.encode_raw(raw, &mut t.data[i * 16..i * 16 + 16]);
                    }
                }
                Ok((t, Some(tf)))
            }
        }
    }

    /// Put a colour attachment's texels back into its buffer (converting emulated formats).
    fn store_color(
        &mut self,
        name: &str,
        level: u32,
        t: ColorTarget,
        emulated: Option<texture::Format>,
    ) {
        let bytes = match emulated {
            None => t.data,
            Some(tf) => {
                let ts = tf.texel_size();
                let bpp = t.format.bytes_per_texel();
                let n = t.width as usize * t.height as usize;
                let mut out = vec![0u8; n * ts];
                let saturate = integer_saturation(tf);
                for i in 0..n {
                    let mut raw = t.format.decode_raw(&t.data[i * bpp..i * bpp + bpp]);
                    if let Some(sat) = &saturate {
                        raw = sat(raw);
                    }
                    tf.encode_raw(raw, &mut out[i * ts..i * ts + ts]);
                }
                out
            }
        };
        if let Some(st) = self.bufs.get_mut(name) {
            if level == 0 {
                st.bytes = bytes;
            } else {
                st.mips.insert(level, bytes);
            }
        }
    }

    fn depth_target(&self, name: &str) -> Result<DepthStencilTarget> {
        if let Some(t) = self.depth_targets.get(name) {
            return Ok(t.clone());
        }
        let st = self.buf(name)?;
        let fname = st.format_name().ok_or_else(|| {
            Error::Unsupported(format!("depth attachment '{name}' without a format"))
        })?;
        let format = formats::depth_format(&fname)?;
        Ok(DepthStencilTarget::new(format, st.width, st.height))
    }

    /// Keep the depth target and mirror it into the buffer's bytes in the texture unit's
    /// texel layout (depth bytes, stencil byte at 3 for D24S8 and at 4 for D32FS8), so the
    /// attachment can be sampled or compared later.
    fn store_depth(&mut self, name: &str, t: DepthStencilTarget) {
        let db = t.format.depth_bytes();
        let n = t.width as usize * t.height as usize;
        let (ts, s_at) = match t.format {
            raster::DepthFormat::D24UnormS8Uint => (4, Some(3)),
            raster::DepthFormat::D32SfloatS8Uint => (8, Some(4)),
            raster::DepthFormat::S8Uint => (1, Some(0)),
            _ => (db, None),
        };
        let mut bytes = vec![0u8; n * ts];
        for i in 0..n {
            let o = i * ts;
            let k = db.min(ts);
            bytes[o..o + k].copy_from_slice(&t.depth[i * db..i * db + k]);
            if let (Some(s), Some(&v)) = (s_at, t.stencil.get(i)) {
                bytes[o + s] = v;
            }
        }
        if let Some(st) = self.bufs.get_mut(name) {
            st.bytes = bytes;
        }
        self.depth_targets.insert(name.to_string(), t);
    }

    /// Compile (once) the shader attached for `stage`.
    fn shader(&mut self, att: &Attachment) -> Result<Arc<pipeline::Shader>> {
        let stage = match att.stage {
            ShaderType::Vertex => ir::Stage::Vertex,
            ShaderType::Fragment => ir::Stage::Fragment,
            ShaderType::Compute => ir::Stage::Compute,
            other => {
                return Err(Error::Unsupported(format!(
                    "{} shaders (shader '{}')",
                    stage_name(other),
                    att.shader
                )))
            }
        };
        let spec: Vec<(u32, u64)> = att
            .specializations
            .iter()
            .map(|s| (s.id, spec_bits(s)))
            .collect();
        let key = (
            att.shader.clone(),
            att.entry_point.clone(),
            stage_name(att.stage),
            spec.clone(),
            att.optimizations.join(" "),
        );
        if let Some(s) = self.shaders.get(&key) {
            return Ok(s.clone());
        }
        let decl = self
            .script
            .shader(&att.shader)
            .ok_or_else(|| Error::Amber(format!("no shader '{}'", att.shader)))?;
        let mut sh = if decl.format == ShaderFormat::Dxil {
            run_shaders::dxil_shader(decl, att, stage)?
        } else {
            let words = run_shaders::shader_words(
                decl,
                att.stage,
                &att.entry_point,
                self.opts.spirv_version,
                &self.opts.cache_dir,
            )?;
            let words = run_shaders::optimize(&words, &att.optimizations, &self.opts.cache_dir)?;
            let module = Module::load(&words)?;
            let spec_map: SpecConstants = spec.into_iter().collect();
            let entry = if decl.format == ShaderFormat::Passthrough {
                "main"
            } else {
                att.entry_point.as_str()
            };
            pipeline::Shader::from_module(&module, entry, Some(stage), &spec_map)?
        };
        sh.set_budget(self.opts.budget);
        if let Some(policy) = self.opts.policy {
            sh.set_policy(policy);
        }
        let sh = Arc::new(sh);
        self.shaders.insert(key, sh.clone());
        Ok(sh)
    }

    fn run(&mut self, run: &Run) -> Result<()> {
        let p = self.pipeline(&run.pipeline)?;
        match &run.kind {
            RunKind::Compute { groups } => self.compute(p, *groups),
            RunKind::DrawRect {
                pos,
                size,
                ortho,
                patch,
            } => {
                if *patch {
                    return Err(Error::Unsupported(
                        "DRAW_RECT as a patch list (tessellation)".into(),
                    ));
                }
                let (fw, fh) = (p.framebuffer_size.0 as f32, p.framebuffer_size.1 as f32);
                let (mut x, mut y, mut w, mut h) = (pos[0], pos[1], size[0], size[1]);
                if *ortho {
                    x = x / fw * 2.0 - 1.0;
                    y = y / fh * 2.0 - 1.0;
                    w = w / fw * 2.0;
                    h = h / fh * 2.0;
                }
                // Amber's order: bottom-left, top-left, bottom-right, top-right; a strip.
                let v = [x, y + h, x, y, x + w, y + h, x + w, y];
                self.draw(p, Draw::Rect(v.to_vec(), raster::Topology::TriangleStrip))
            }
            RunKind::DrawGrid { pos, size, cells } => {
                let (fw, fh) = (p.framebuffer_size.0 as f32, p.framebuffer_size.1 as f32);
                let x = pos[0] / fw * 2.0 - 1.0;
                let y = pos[1] / fh * 2.0 - 1.0;
                let w = size[0] / fw * 2.0;
                let h = size[1] / fh * 2.0;
                let (cx, cy) = (cells[0].max(1), cells[1].max(1));
                let (cw, ch) = (w / cx as f32, h / cy as f32);
                let mut v = Vec::new();
                for j in 0..cy {
                    for i in 0..cx {
                        let x0 = x + cw * i as f32;
                        let y0 = y + ch * j as f32;
                        let (x1, y1) = (x0 + cw, y0 + ch);
                        // Both triangles start at the cell's top-left corner, which is the
                        // provoking vertex of flat-shaded outputs (Amber's `draw_grid` case
                        // colours cells by it).
                        v.extend_from_slice(&[x0, y0, x1, y0, x1, y1, x0, y0, x1, y1, x0, y1]);
                    }
                }
                self.draw(p, Draw::Rect(v, raster::Topology::TriangleList))
            }
            RunKind::DrawArray {
                topology,
                indexed,
                start_idx,
                count,
                start_instance,
                instance_count,
            } => {
                let topo = match topology {
                    Topology::PointList => raster::Topology::PointList,
                    Topology::LineList => raster::Topology::LineList,
                    Topology::LineStrip => raster::Topology::LineStrip,
                    Topology::TriangleList => raster::Topology::TriangleList,
                    Topology::TriangleStrip => raster::Topology::TriangleStrip,
                    Topology::TriangleFan => raster::Topology::TriangleFan,
                    other => {
                        return Err(Error::Unsupported(format!("topology {}", other.keyword())))
                    }
                };
                self.draw(
                    p,
                    Draw::Array {
                        topo,
                        indexed: *indexed,
                        start: *start_idx,
                        count: *count,
                        first_instance: *start_instance,
                        instances: *instance_count,
                    },
                )
            }
            RunKind::TraceRays { .. } => Err(Error::Unsupported("ray tracing (RUN RAYGEN)".into())),
        }
    }

    fn compute(&mut self, p: &Pipeline, groups: [u32; 3]) -> Result<()> {
        if p.kind != PipelineKind::Compute {
            return Err(Error::Amber(format!(
                "RUN {} x y z needs a compute pipeline",
                p.name
            )));
        }
        let att = p
            .shaders
            .iter()
            .find(|a| a.stage == ShaderType::Compute)
            .ok_or_else(|| Error::Amber(format!("pipeline '{}' has no compute shader", p.name)))?;
        let sh = self.shader(att)?;
        let (sets, wb) = self.descriptors(p, &[sh.ir()])?;
        pipeline::dispatch(&sh, groups, &sets, sh.config())?;
        self.write_back(wb)
    }

    /// Descriptor sets for the pipeline's `BIND`s, and what to copy back afterwards.
    fn descriptors(
        &self,
        p: &Pipeline,
        shaders: &[&ir::Shader],
    ) -> Result<(DescriptorSets, Vec<WriteBack>)> {
        let mut sets = DescriptorSets::new();
        let mut wb = Vec::new();
        let mut buf_cache: HashMap<(String, usize, usize), Arc<exec::Buffer>> = HashMap::new();
        let mut img_cache: HashMap<String, Arc<ImageResource>> = HashMap::new();
        let resource = |set: u32, binding: u32| {
            shaders.iter().find_map(|s| {
                s.resources
                    .iter()
                    .find(|r| r.set == set && r.binding == binding)
                    .cloned()
            })
        };
        for b in &p.bindings {
            match b {
                Binding::PushConstant { buffer } => {
                    sets.set_push_constants(&self.buf(buffer)?.bytes);
                }
                Binding::Descriptor {
                    buffers,
                    kind,
                    set,
                    binding,
                    samplers,
                    base_mip_level,
                    dynamic_offsets,
                    descriptor_offsets,
                    descriptor_ranges,
                } => {
                    let res = resource(*set, *binding);
                    let mut ds = Vec::new();
                    for (i, name) in buffers.iter().enumerate() {
                        let st = self.buf(name)?;
                        let d = match kind {
                            DescriptorKind::Uniform
                            | DescriptorKind::Storage
                            | DescriptorKind::UniformDynamic
                            | DescriptorKind::StorageDynamic => {
                                let off = dynamic_offsets.get(i).copied().unwrap_or(0) as usize
                                    + descriptor_offsets.get(i).copied().unwrap_or(0) as usize;
                                let len = st.bytes.len().saturating_sub(off);
                                let range = descriptor_ranges
                                    .get(i)
                                    .map(|&r| {
                                        if r == u64::MAX {
                                            len
                                        } else {
                                            (r as usize).min(len)
                                        }
                                    })
                                    .unwrap_or(len);
                                let key = (name.clone(), off, range);
                                let buf = buf_cache
                                    .entry(key)
                                    .or_insert_with(|| {
                                        let end = (off + range).min(st.bytes.len());
                                        let start = off.min(end);
                                        Arc::new(exec::Buffer::from_bytes(&st.bytes[start..end]))
                                    })
                                    .clone();
                                if matches!(
                                    kind,
                                    DescriptorKind::Storage | DescriptorKind::StorageDynamic
                                ) {
                                    wb.push(WriteBack::Buffer {
                                        name: name.clone(),
                                        offset: off,
                                        buf: buf.clone(),
                                    });
                                }
                                Descriptor::Buffer(buf)
                            }
                            DescriptorKind::UniformTexelBuffer
                            | DescriptorKind::StorageTexelBuffer => {
                                let what = format!(
                                    "BIND BUFFER {name} AS {} DESCRIPTOR_SET {set} BINDING {binding}",
                                    kind.keyword()
                                );
                                let view = texel_buffer_view(
                                    name,
                                    st,
                                    descriptor_offsets.get(i).copied().unwrap_or(0),
                                    descriptor_ranges.get(i).copied(),
                                    &mut buf_cache,
                                )
                                .map_err(|e| match e {
                                    Error::Unsupported(m) => {
                                        Error::Unsupported(format!("{what}: {m}"))
                                    }
                                    e => Error::Amber(format!("{what}: {e}")),
                                })?;
                                if *kind == DescriptorKind::StorageTexelBuffer {
                                    wb.push(WriteBack::Buffer {
                                        name: name.clone(),
                                        offset: 0,
                                        buf: view.buffer().clone(),
                                    });
                                }
                                Descriptor::TexelBuffer(view)
                            }
                            DescriptorKind::StorageImage
                            | DescriptorKind::SampledImage
                            | DescriptorKind::CombinedImageSampler => {
                                let img = match img_cache.get(name) {
                                    Some(i) => i.clone(),
                                    None => {
                                        let i = self.make_image(name)?;
                                        img_cache.insert(name.clone(), i.clone());
                                        if *kind == DescriptorKind::StorageImage {
                                            wb.push(WriteBack::Image {
                                                name: name.clone(),
                                                image: i.clone(),
                                            });
                                        }
                                        i
                                    }
                                };
                                let view = image_view(&img, res.as_ref(), *base_mip_level)?;
                                if *kind == DescriptorKind::CombinedImageSampler {
                                    let sname =
                                        samplers.get(i).or(samplers.first()).ok_or_else(|| {
                                            Error::Amber(
                                                "combined_image_sampler without SAMPLER".into(),
                                            )
                                        })?;
                                    Descriptor::CombinedImageSampler {
                                        image: img,
                                        view,
                                        sampler: self.sampler(sname)?,
                                    }
                                } else {
                                    Descriptor::Image { image: img, view }
                                }
                            }
                        };
                        ds.push(d);
                    }
                    sets.bind_array(*set, *binding, ds);
                }
                Binding::Sampler {
                    samplers,
                    set,
                    binding,
                } => {
                    let ds = samplers
                        .iter()
                        .map(|s| self.sampler(s).map(Descriptor::Sampler))
                        .collect::<Result<Vec<_>>>()?;
                    sets.bind_array(*set, *binding, ds);
                }
                Binding::AccelerationStructure { .. } => {
                    return Err(Error::Unsupported("acceleration structures".into()))
                }
                Binding::Kernel { .. } => {
                    return Err(Error::Unsupported("OpenCL kernel arguments".into()))
                }
                Binding::Color { .. } | Binding::DepthStencil { .. } => {}
                Binding::Resolve { .. } => {
                    return Err(Error::Unsupported(
                        "resolve attachments (multisampling)".into(),
                    ))
                }
            }
        }
        Ok((sets, wb))
    }

    fn sampler(&self, name: &str) -> Result<texture::Sampler> {
        let s = self
            .script
            .sampler(name)
            .ok_or_else(|| Error::Amber(format!("no sampler '{name}'")))?;
        Ok(convert_sampler(s))
    }

    /// A texture-unit image holding a buffer's bytes (mip levels generated from level 0).
    fn make_image(&self, name: &str) -> Result<Arc<ImageResource>> {
        let st = self.buf(name)?;
        let fname = st
            .format_name()
            .ok_or_else(|| Error::Amber(format!("image '{name}' has no format")))?;
        let format = formats::texture_format(&fname)?;
        if st.decl.samples > 1 {
            return Err(Error::Unsupported(format!(
                "multisampled image '{name}' ({} samples)",
                st.decl.samples
            )));
        }
        let mut layers = 1;
        let (dim, extent) = match st.decl.dim {
            Some(ImageDim::Cube) => {
                layers = 6;
                (
                    texture::ImageDim::D2,
                    [st.width.max(1), st.height.max(1), 1],
                )
            }
            Some(ImageDim::D1) => (texture::ImageDim::D1, [st.width.max(1), 1, 1]),
            Some(ImageDim::D3) => (
                texture::ImageDim::D3,
                [st.width.max(1), st.height.max(1), st.depth.max(1)],
            ),
            _ => (
                texture::ImageDim::D2,
                [st.width.max(1), st.height.max(1), 1],
            ),
        };
        let levels = st.decl.mip_levels.max(1);
        let mut img = texture::Image::new(format, dim, extent, layers, levels, 1)?;
        let n = img.level_texels(0) * format.texel_size();
        let mut bytes = st.bytes.clone();
        bytes.resize(n, 0);
        img.upload_bytes(0, &bytes)?;
        if levels > 1 {
            img.generate_mips()?;
            // Levels rendered as attachments replace the generated ones.
            for (&l, bytes) in st.mips.range(1..levels) {
                let mut b = bytes.clone();
                b.resize(img.level_texels(l) * format.texel_size(), 0);
                img.upload_bytes(l, &b)?;
            }
        }
        Ok(ImageResource::new(img))
    }

    /// Copy what the command wrote back into the script's buffers. A buffer bound several
    /// times (storage buffers at different offsets, a texel buffer over the whole of it) has
    /// one interpreter buffer per binding; each copies back only the bytes it changed, so an
    /// untouched copy never overwrites what another binding wrote.
    fn write_back(&mut self, wb: Vec<WriteBack>) -> Result<()> {
        let mut before: HashMap<String, Vec<u8>> = HashMap::new();
        for w in &wb {
            if let WriteBack::Buffer { name, .. } = w {
                if let (false, Some(st)) = (before.contains_key(name), self.bufs.get(name)) {
                    before.insert(name.clone(), st.bytes.clone());
                }
            }
        }
        for w in wb {
            match w {
                WriteBack::Buffer { name, offset, buf } => {
                    let data = buf.to_bytes();
                    if let (Some(st), Some(old)) = (self.bufs.get_mut(&name), before.get(&name)) {
                        let end = (offset + data.len()).min(st.bytes.len());
                        for i in offset..end {
                            let b = data[i - offset];
                            if old.get(i) != Some(&b) {
                                st.bytes[i] = b;
                            }
                        }
                    }
                }
                WriteBack::Image { name, image } => {
                    let img = image.read();
                    let bytes = img.level_bytes(0)?.to_vec();
                    if let Some(st) = self.bufs.get_mut(&name) {
                        st.bytes = bytes;
                    }
                }
            }
        }
        Ok(())
    }

    fn draw(&mut self, p: &Pipeline, what: Draw) -> Result<()> {
        if p.kind != PipelineKind::Graphics {
            return Err(Error::Amber(format!(
                "draw commands need a graphics pipeline; '{}' is not one",
                p.name
            )));
        }
        for a in &p.shaders {
            if !matches!(a.stage, ShaderType::Vertex | ShaderType::Fragment) {
                return Err(Error::Unsupported(format!(
                    "{} shaders (shader '{}')",
                    stage_name(a.stage),
                    a.shader
                )));
            }
        }
        let find = |st: ShaderType| {
            p.shaders.iter().find(|a| a.stage == st).ok_or_else(|| {
                Error::Amber(format!(
                    "pipeline '{}' has no {} shader",
                    p.name,
                    stage_name(st)
                ))
            })
        };
        self.size_attachments(p)?;
        let vs = self.shader(find(ShaderType::Vertex)?)?;
        let fs = match p.shaders.iter().find(|a| a.stage == ShaderType::Fragment) {
            Some(a) => Some(self.shader(a)?),
            None => None,
        };
        let mut irs = vec![vs.ir()];
        irs.extend(fs.as_ref().map(|f| f.ir()));
        let (sets, wb) = self.descriptors(p, &irs)?;
        let vstage = BoundStage::new(&vs, &sets, vs.config())?;
        let fstage = match &fs {
            Some(f) => Some(BoundStage::new(f, &sets, f.config())?),
            None => None,
        };
        // A pipeline without a fragment shader writes no colour.
        let no_fragment = raster::FragmentFn {
            interpolation: Vec::new(),
            writes_depth: false,
            can_discard: false,
            f: |_: &raster::QuadBatch, _: &mut raster::QuadOutputs| Ok(()),
        };
        let fragment: &dyn raster::FragmentStage = match &fstage {
            Some(f) => f,
            None => &no_fragment,
        };

        // Attachments, indexed by location (gaps get a throw-away target).
        let mut color_names: Vec<Option<(String, u32)>> = Vec::new();
        let mut depth_name = None;
        for b in &p.bindings {
            match b {
                Binding::Color {
                    buffer,
                    location,
                    base_mip_level,
                } => {
                    let l = *location as usize;
                    if color_names.len() <= l {
                        color_names.resize(l + 1, None);
                    }
                    color_names[l] = Some((buffer.clone(), *base_mip_level));
                }
                Binding::DepthStencil { buffer } => depth_name = Some(buffer.clone()),
                _ => {}
            }
        }
        let (fw, fh) = p.framebuffer_size;
        let mut targets = RenderTargets::default();
        let mut emulated = Vec::new();
        for n in &color_names {
            let (t, e) = match n {
                Some((n, level)) => self.color_target(n, *level)?,
                None => (
                    ColorTarget::new(raster::ColorFormat::R8G8B8A8Unorm, fw, fh),
                    None,
                ),
            };
            targets.color.push(t);
            emulated.push(e);
        }
        if let Some(d) = &depth_name {
            targets.depth_stencil = Some(self.depth_target(d)?);
        }
        if targets.color.is_empty() && targets.depth_stencil.is_none() {
            targets
                .color
                .push(ColorTarget::new(raster::ColorFormat::R8G8B8A8Unorm, fw, fh));
            color_names.push(None);
            emulated.push(None);
        }

        let mut state = pipeline_state(p, targets.color.len());
        // Vertex input.
        let mut vdata: Vec<Vec<u8>> = Vec::new();
        let mut vertex_count = u32::MAX;
        match &what {
            Draw::Rect(v, topo) => {
                state.topology = *topo;
                let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
                vdata.push(bytes);
                state.vertex_bindings.push(raster::VertexBinding {
                    binding: 0,
                    stride: 8,
                    input_rate: raster::InputRate::Vertex,
                });
                state.vertex_attributes.push(raster::VertexAttribute {
                    location: 0,
                    binding: 0,
                    format: raster::VertexFormat::R32G32Sfloat,
                    offset: 0,
                });
                vertex_count = (v.len() / 2) as u32;
            }
            Draw::Array { topo, .. } => {
                state.topology = *topo;
                for (i, vd) in p.vertex_data.iter().enumerate() {
                    let st = self.buf(&vd.buffer)?;
                    let fname = match &vd.format {
                        Some(f) => f.name.clone(),
                        None => st.format_name().ok_or_else(|| {
                            Error::Unsupported(format!(
                                "vertex buffer '{}' of a struct type",
                                vd.buffer
                            ))
                        })?,
                    };
                    let stride = vd
                        .stride
                        .unwrap_or_else(|| st.decl.elem.stride(st.decl.layout));
                    let (format, data, stride, offset) = match formats::vertex_format(&fname) {
                        Ok(f) => (f, st.bytes.clone(), stride, vd.offset),
                        Err(e) => widen_vertices(&fname, &st.bytes, stride, vd.offset).ok_or(e)?,
                    };
                    let rate = match vd.rate {
                        ast::InputRate::Vertex => raster::InputRate::Vertex,
                        ast::InputRate::Instance => raster::InputRate::Instance,
                    };
                    if rate == raster::InputRate::Vertex && stride > 0 {
                        let n = (data.len().saturating_sub(offset as usize)
                            + (stride as usize - format.size().min(stride as usize)))
                            / stride as usize;
                        vertex_count = vertex_count.min(n as u32);
                    }
                    vdata.push(data);
                    state.vertex_bindings.push(raster::VertexBinding {
                        binding: i as u32,
                        stride,
                        input_rate: rate,
                    });
                    state.vertex_attributes.push(raster::VertexAttribute {
                        location: vd.location,
                        binding: i as u32,
                        format,
                        offset,
                    });
                }
            }
        }
        if vertex_count == u32::MAX {
            vertex_count = 0;
        }
        let index = match &what {
            Draw::Array { indexed: true, .. } => {
                let name = p.index_data.as_ref().ok_or_else(|| {
                    Error::Amber(format!(
                        "DRAW_ARRAY INDEXED: pipeline '{}' has no INDEX_DATA",
                        p.name
                    ))
                })?;
                let st = self.buf(name)?;
                let it = match formats::scalar_of(&st.decl.elem).map(|s| s.bytes) {
                    Some(1) => IndexType::U8,
                    Some(2) => IndexType::U16,
                    _ => IndexType::U32,
                };
                let size = match it {
                    IndexType::U8 => 1,
                    IndexType::U16 => 2,
                    IndexType::U32 => 4,
                };
                Some((st.bytes.clone(), it, (st.bytes.len() / size) as u32))
            }
            _ => None,
        };

        let pipe = raster::Pipeline {
            state,
            vertex: &vstage,
            fragment,
        };
        {
            let mut pass = self.raster.begin(&mut targets);
            pass.bind_pipeline(&pipe);
            let vbs: Vec<VertexBuffer> = vdata
                .iter()
                .enumerate()
                .map(|(i, d)| VertexBuffer {
                    binding: i as u32,
                    data: d,
                    offset: 0,
                })
                .collect();
            pass.bind_vertex_buffers(&vbs);
            match &what {
                Draw::Rect(..) => pass.draw(vertex_count, 1, 0, 0)?,
                Draw::Array {
                    start,
                    count,
                    first_instance,
                    instances,
                    ..
                } => match &index {
                    Some((bytes, it, n)) => {
                        pass.bind_index_buffer(IndexBuffer {
                            data: bytes,
                            offset: 0,
                            index_type: *it,
                        });
                        // Amber draws indexed arrays from index 0 with the start as the
                        // vertex offset (`vkCmdDrawIndexed(count, n, 0, start, first)`).
                        let c = count.unwrap_or(*n);
                        pass.draw_indexed(c, *instances, 0, *start as i32, *first_instance)?;
                    }
                    None => {
                        let c = count.unwrap_or(vertex_count.saturating_sub(*start));
                        pass.draw(c, *instances, *start, *first_instance)?;
                    }
                },
            }
        }
        drop(pipe);
        drop(vstage);
        drop(fstage);
        for ((n, t), e) in color_names.iter().zip(targets.color).zip(emulated) {
            if let Some((n, level)) = n {
                self.store_color(n, *level, t, e);
            }
        }
        if let (Some(n), Some(d)) = (depth_name, targets.depth_stencil) {
            self.store_depth(&n, d);
        }
        self.write_back(wb)
    }

    /// Every buffer's final bytes, in name order.
    fn buffer_dumps(&self) -> Vec<BufferDump> {
        let mut names: Vec<&String> = self.bufs.keys().collect();
        names.sort();
        names
            .into_iter()
            .map(|n| {
                let b = &self.bufs[n];
                BufferDump {
                    name: n.clone(),
                    format: b.format_name(),
                    width: b.width,
                    bytes: b.bytes.clone(),
                }
            })
            .collect()
    }

    /// RGBA8 pictures of every colour attachment.
    fn pictures(&self) -> Vec<Picture> {
        let mut out = Vec::new();
        for name in &self.attachments {
            let Ok((t, _)) = self.color_target(name, 0) else {
                continue;
            };
            let mut rgba = Vec::with_capacity(t.width as usize * t.height as usize * 4);
            for y in 0..t.height {
                for x in 0..t.width {
                    let v = if t.format.class() == ColorClass::Unorm
                        || t.format.class() == ColorClass::Float
                    {
                        t.read_f32(x, y)
                    } else {
                        t.read_raw(x, y).map(|v| v as f32 / 255.0)
                    };
                    rgba.extend(v.map(|c| (c.clamp(0.0, 1.0) * 255.0 + 0.5) as u8));
                }
            }
            out.push(Picture {
                buffer: name.clone(),
                width: t.width,
                height: t.height,
                rgba,
            });
        }
        out
    }
}

/// For an integer format narrower than 32 bits per channel, a function clamping raw 32-bit
/// values into each channel's range (Vulkan leaves out-of-range integer colour writes
/// undefined; GPUs saturate, and the CTS `R16G16B16A16_UINT` frame script expects that: it
/// writes 65536 and probes 65535). The channel widths are found by encoding single bits.
fn integer_saturation(tf: texture::Format) -> Option<impl Fn([u32; 4]) -> [u32; 4]> {
    let signed = match tf.kind() {
        texture::NumKind::Uint => false,
        texture::NumKind::Sint => true,
        texture::NumKind::Float => return None,
    };
    let mut buf = vec![0u8; tf.texel_size()];
    let bits: [u32; 4] = std::array::from_fn(|c| {
        (0..32)
            .take_while(|&k| {
                let mut v = [0u32; 4];
                v[c] = 1 << k;
                buf.fill(0);
                tf.encode_raw(v, &mut buf);
                (tf.decode_raw(&buf)[c] >> k) & 1 == 1
            })
            .count() as u32
    });
    if bits.iter().all(|&b| b == 0 || b == 32) {
        return None;
    }
    Some(move |raw: [u32; 4]| {
        std::array::from_fn(|c| {
            let b = bits[c];
            if b == 0 || b == 32 {
                raw[c]
            } else if signed {
                let lo = -(1i64 << (b - 1));
                let hi = (1i64 << (b - 1)) - 1;
                (raw[c] as i32 as i64).clamp(lo, hi) as i32 as u32
            } else {
                raw[c].min((1u32 << b) - 1)
            }
        })
    })
}

/// What a draw command draws.
enum Draw {
    /// Vec2 positions at location 0 (DRAW_RECT, DRAW_GRID).
    Rect(Vec<f32>, raster::Topology),
    /// The pipeline's vertex data.
    Array {
        topo: raster::Topology,
        indexed: bool,
        start: u32,
        count: Option<u32>,
        first_instance: u32,
        instances: u32,
    },
}

/// Decodes one texel to raw words.
type TexelDecoder = dyn Fn(&[u8]) -> [u32; 4];

/// Vertex data in a format the rasterizer does not fetch, decoded by the texture unit's codec
/// and widened to 32-bit RGBA (float, uint or sint), so any texel format can be vertex data.
fn widen_vertices(
    name: &str,
    bytes: &[u8],
    stride: u32,
    offset: u32,
) -> Option<(raster::VertexFormat, Vec<u8>, u32, u32)> {
    let (ts, kind, decode): (usize, texture::NumKind, Box<TexelDecoder>) =
        match formats::texture_format(name) {
            Ok(f) => (f.texel_size(), f.kind(), Box::new(move |b| f.decode_raw(b))),
            Err(_) => {
                let f = super::types::Format::parse(name)?;
                let (ts, kind) = formats::plain_layout(&f)?;
                (ts, kind, Box::new(move |b| formats::decode_plain(&f, b)))
            }
        };
    let stride = (stride as usize).max(1);
    let mut out = Vec::new();
    let mut o = offset as usize;
    while o + ts <= bytes.len() {
        for w in decode(&bytes[o..o + ts]) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        o += stride;
    }
    let vf = match kind {
        texture::NumKind::Float => raster::VertexFormat::R32G32B32A32Sfloat,
        texture::NumKind::Uint => raster::VertexFormat::R32G32B32A32Uint,
        texture::NumKind::Sint => raster::VertexFormat::R32G32B32A32Sint,
    };
    Some((vf, out, 16, 0))
}

/// The raw bits of a specialisation constant.
fn spec_bits(s: &Specialization) -> u64 {
    let v = s.value;
    match s.ty.scalar {
        Scalar::F32 => (v.as_f64() as f32).to_bits() as u64,
        Scalar::F64 => v.as_f64().to_bits(),
        Scalar::F16 => half::f16::from_f64(v.as_f64()).to_bits() as u64,
        _ => {
            let bits = s.ty.scalar.bytes() * 8;
            let i = v.as_i128() as u64;
            if bits >= 64 {
                i
            } else {
                i & ((1u64 << bits) - 1)
            }
        }
    }
}

fn compare_op(c: CompareOp) -> raster::CompareOp {
    match c {
        CompareOp::Never => raster::CompareOp::Never,
        CompareOp::Less => raster::CompareOp::Less,
        CompareOp::Equal => raster::CompareOp::Equal,
        CompareOp::LessOrEqual => raster::CompareOp::LessOrEqual,
        CompareOp::Greater => raster::CompareOp::Greater,
        CompareOp::NotEqual => raster::CompareOp::NotEqual,
        CompareOp::GreaterOrEqual => raster::CompareOp::GreaterOrEqual,
        CompareOp::Always => raster::CompareOp::Always,
    }
}

fn stencil_op(o: StencilOp) -> raster::StencilOp {
    match o {
        StencilOp::Keep => raster::StencilOp::Keep,
        StencilOp::Zero => raster::StencilOp::Zero,
        StencilOp::Replace => raster::StencilOp::Replace,
        StencilOp::IncrementAndClamp => raster::StencilOp::IncrementAndClamp,
        StencilOp::DecrementAndClamp => raster::StencilOp::DecrementAndClamp,
        StencilOp::Invert => raster::StencilOp::Invert,
        StencilOp::IncrementAndWrap => raster::StencilOp::IncrementAndWrap,
        StencilOp::DecrementAndWrap => raster::StencilOp::DecrementAndWrap,
    }
}

fn stencil_state(s: &StencilState) -> raster::StencilOpState {
    raster::StencilOpState {
        fail_op: stencil_op(s.fail_op),
        pass_op: stencil_op(s.pass_op),
        depth_fail_op: stencil_op(s.depth_fail_op),
        compare_op: compare_op(s.compare),
        compare_mask: s.compare_mask as u8,
        write_mask: s.write_mask as u8,
        reference: s.reference as u8,
    }
}

fn blend_factor(f: BlendFactor) -> raster::BlendFactor {
    use raster::BlendFactor as R;
    match f {
        BlendFactor::Zero => R::Zero,
        BlendFactor::One => R::One,
        BlendFactor::SrcColor => R::SrcColor,
        BlendFactor::OneMinusSrcColor => R::OneMinusSrcColor,
        BlendFactor::DstColor => R::DstColor,
        BlendFactor::OneMinusDstColor => R::OneMinusDstColor,
        BlendFactor::SrcAlpha => R::SrcAlpha,
        BlendFactor::OneMinusSrcAlpha => R::OneMinusSrcAlpha,
        BlendFactor::DstAlpha => R::DstAlpha,
        BlendFactor::OneMinusDstAlpha => R::OneMinusDstAlpha,
        BlendFactor::ConstantColor => R::ConstantColor,
        BlendFactor::OneMinusConstantColor => R::OneMinusConstantColor,
        BlendFactor::ConstantAlpha => R::ConstantAlpha,
        BlendFactor::OneMinusConstantAlpha => R::OneMinusConstantAlpha,
        BlendFactor::SrcAlphaSaturate => R::SrcAlphaSaturate,
        BlendFactor::Src1Color => R::Src1Color,
        BlendFactor::OneMinusSrc1Color => R::OneMinusSrc1Color,
        BlendFactor::Src1Alpha => R::Src1Alpha,
        BlendFactor::OneMinusSrc1Alpha => R::OneMinusSrc1Alpha,
    }
}

fn blend_op(o: BlendOp) -> raster::BlendOp {
    match o {
        BlendOp::Add => raster::BlendOp::Add,
        BlendOp::Subtract => raster::BlendOp::Subtract,
        BlendOp::ReverseSubtract => raster::BlendOp::ReverseSubtract,
        BlendOp::Min => raster::BlendOp::Min,
        BlendOp::Max => raster::BlendOp::Max,
    }
}

/// The rasterizer state of an Amber graphics pipeline (vertex input is added by the draw).
fn pipeline_state(p: &Pipeline, color_count: usize) -> raster::PipelineState {
    let mut s = raster::PipelineState::default();
    s.rasterization.polygon_mode = match p.polygon_mode {
        PolygonMode::Fill => raster::PolygonMode::Fill,
        PolygonMode::Line => raster::PolygonMode::Line,
        PolygonMode::Point => raster::PolygonMode::Point,
    };
    if let Some(d) = &p.depth {
        s.depth_stencil.depth_test = d.test;
        s.depth_stencil.depth_write = d.write;
        s.depth_stencil.depth_compare = compare_op(d.compare);
        s.depth_stencil.depth_bounds = d.bounds;
        s.rasterization.depth_clamp = d.clamp;
        s.rasterization.depth_bias = d.bias.map(|b| raster::DepthBias {
            constant_factor: b.constant,
            clamp: b.clamp,
            slope_factor: b.slope,
        });
    }
    if let Some(f) = &p.stencil_front {
        s.depth_stencil.stencil_test |= f.test;
        s.depth_stencil.front = stencil_state(f);
    }
    if let Some(b) = &p.stencil_back {
        s.depth_stencil.stencil_test |= b.test;
        s.depth_stencil.back = stencil_state(b);
    }
    if let Some(b) = &p.blend {
        let a = raster::ColorBlendAttachment {
            blend_enable: true,
            src_color_factor: blend_factor(b.src_color),
            dst_color_factor: blend_factor(b.dst_color),
            color_op: blend_op(b.color_op),
            src_alpha_factor: blend_factor(b.src_alpha),
            dst_alpha_factor: blend_factor(b.dst_alpha),
            alpha_op: blend_op(b.alpha_op),
            write_mask: raster::COLOR_WRITE_ALL,
        };
        s.blend_attachments = vec![a; color_count];
    }
    if let Some(v) = &p.viewport {
        s.viewport = Some(raster::Viewport {
            x: v.x,
            y: v.y,
            width: v.width,
            height: v.height,
            min_depth: v.min_depth,
            max_depth: v.max_depth,
        });
    }
    s
}

fn convert_sampler(s: &ast::Sampler) -> texture::Sampler {
    let filter = |f: Filter| match f {
        Filter::Nearest => texture::Filter::Nearest,
        Filter::Linear => texture::Filter::Linear,
    };
    let addr = |a: AddressMode| match a {
        AddressMode::Repeat => texture::AddressMode::Repeat,
        AddressMode::MirroredRepeat => texture::AddressMode::MirroredRepeat,
        AddressMode::ClampToEdge => texture::AddressMode::ClampToEdge,
        AddressMode::ClampToBorder => texture::AddressMode::ClampToBorder,
        AddressMode::MirrorClampToEdge => texture::AddressMode::MirrorClampToEdge,
    };
    let border = match s.border_color {
        BorderColor::FloatTransparentBlack => texture::BorderColor::FloatTransparentBlack,
        BorderColor::IntTransparentBlack => texture::BorderColor::IntTransparentBlack,
        BorderColor::FloatOpaqueBlack => texture::BorderColor::FloatOpaqueBlack,
        BorderColor::IntOpaqueBlack => texture::BorderColor::IntOpaqueBlack,
        BorderColor::FloatOpaqueWhite => texture::BorderColor::FloatOpaqueWhite,
        BorderColor::IntOpaqueWhite => texture::BorderColor::IntOpaqueWhite,
    };
    let cmp = |c: CompareOp| match c {
        CompareOp::Never => texture::CompareOp::Never,
        CompareOp::Less => texture::CompareOp::Less,
        CompareOp::Equal => texture::CompareOp::Equal,
        CompareOp::LessOrEqual => texture::CompareOp::LessOrEqual,
        CompareOp::Greater => texture::CompareOp::Greater,
        CompareOp::NotEqual => texture::CompareOp::NotEqual,
        CompareOp::GreaterOrEqual => texture::CompareOp::GreaterOrEqual,
        CompareOp::Always => texture::CompareOp::Always,
    };
    texture::Sampler {
        mag_filter: filter(s.mag_filter),
        min_filter: filter(s.min_filter),
        mipmap_mode: match s.mipmap_mode {
            Filter::Nearest => texture::MipmapMode::Nearest,
            Filter::Linear => texture::MipmapMode::Linear,
        },
        address_mode: [addr(s.address_u), addr(s.address_v), addr(s.address_w)],
        compare_enable: s.compare.is_some(),
        compare_op: s.compare.map(cmp).unwrap_or(texture::CompareOp::Never),
        min_lod: s.min_lod,
        max_lod: s.max_lod,
        border_color: border,
        unnormalized_coordinates: !s.normalized_coords,
        ..texture::Sampler::default()
    }
}

/// The buffer view a texel buffer binding of buffer `name` makes: the buffer's own format
/// (`DATA_TYPE`/`FORMAT`), `DESCRIPTOR_OFFSET` bytes in, `DESCRIPTOR_RANGE` bytes long (or to
/// the end). The view reads and writes the interpreter buffer holding the whole of `name`
/// (shared through `cache` with storage-buffer bindings of the same bytes), so what a
/// storage texel buffer write stores is what the write-back copies to the script's buffer.
fn texel_buffer_view(
    name: &str,
    st: &BufState,
    offset: u64,
    range: Option<u64>,
    cache: &mut HashMap<(String, usize, usize), Arc<exec::Buffer>>,
) -> Result<pipeline::TexelBufferView> {
    let fname = st.format_name().ok_or_else(|| {
        Error::Amber(format!(
            "buffer '{name}' has no format for a texel buffer view"
        ))
    })?;
    let format = formats::texel_buffer_format(&fname)?;
    let ts = format.texel_size() as u64;
    let len = st.bytes.len() as u64;
    if offset > len {
        return Err(Error::Amber(format!(
            "DESCRIPTOR_OFFSET {offset} is past the end of the buffer's {len} bytes"
        )));
    }
    let bytes = match range {
        None | Some(u64::MAX) => (len - offset) / ts * ts,
        Some(r) if !r.is_multiple_of(ts) => {
            return Err(Error::Amber(format!(
                "DESCRIPTOR_RANGE {r} is not a multiple of the {ts}-byte {fname} texel"
            )))
        }
        Some(r) if offset.checked_add(r).is_none_or(|e| e > len) => {
            return Err(Error::Amber(format!(
                "DESCRIPTOR_OFFSET {offset} + DESCRIPTOR_RANGE {r} is past the end of the \
                 buffer's {len} bytes"
            )))
        }
        Some(r) => r,
    };
    let texels = u32::try_from(bytes / ts)
        .map_err(|_| Error::Amber(format!("{} texels do not fit a buffer view", bytes / ts)))?;
    let buf = cache
        .entry((name.to_string(), 0, st.bytes.len()))
        .or_insert_with(|| Arc::new(exec::Buffer::from_bytes(&st.bytes)))
        .clone();
    pipeline::TexelBufferView::new(buf, format, offset, texels)
}

/// The view a shader's image resource needs over `img`.
fn image_view(
    img: &Arc<ImageResource>,
    res: Option<&ir::Resource>,
    base_mip_level: u32,
) -> Result<ImageView> {
    let image = img.read();
    let it = res.and_then(|r| r.image);
    let vt = match (it.map(|t| t.dim), it.map(|t| t.arrayed).unwrap_or(false)) {
        (Some(ir::ImageDim::D1), false) => ViewType::D1,
        (Some(ir::ImageDim::D1), true) => ViewType::D1Array,
        (Some(ir::ImageDim::D2), true) => ViewType::D2Array,
        (Some(ir::ImageDim::D3), _) => ViewType::D3,
        (Some(ir::ImageDim::Cube), false) => ViewType::Cube,
        (Some(ir::ImageDim::Cube), true) => ViewType::CubeArray,
        (Some(ir::ImageDim::Buffer), _) => {
            return Err(Error::Amber(
                "the shader declares a texel buffer (Dim Buffer) here: bind it AS \
                 uniform_texel_buffer or storage_texel_buffer, not as an image"
                    .into(),
            ))
        }
        (Some(ir::ImageDim::SubpassData), _) => {
            return Err(Error::Unsupported("subpass inputs".into()))
        }
        _ => match image.dim() {
            texture::ImageDim::D1 => ViewType::D1,
            texture::ImageDim::D3 => ViewType::D3,
            _ => ViewType::D2,
        },
    };
    let mut v = ImageView::whole(&image, vt);
    if base_mip_level > 0 {
        if base_mip_level >= image.levels() {
            return Err(Error::Amber(format!(
                "BASE_MIP_LEVEL {base_mip_level} but the image has {} levels",
                image.levels()
            )));
        }
        v.base_level = base_mip_level;
        v.level_count = image.levels() - base_mip_level;
    }
    // Resource kinds matter only for the glue; unused here beyond the dimensionality.
    let _ = res.map(|r| r.kind == ResourceKind::StorageImage);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_attachment_writes_saturate_to_the_channel_width() {
        let f = |name: &str| texture::Format::from_vk_name(name).unwrap();
        let sat = integer_saturation(f("R16G16B16A16_UINT")).expect("16-bit uint");
        // 65536 = 2^16 does not fit: 65535; smaller values pass unchanged.
        assert_eq!(sat([65536, 65535, 7, u32::MAX]), [65535, 65535, 7, 65535]);
        let sat = integer_saturation(f("R8G8B8A8_SINT")).expect("8-bit sint");
        let v = [200u32, (-200i32) as u32, (-128i32) as u32, 127];
        assert_eq!(sat(v), [127, (-128i32) as u32, (-128i32) as u32, 127]);
        // 32-bit channels and float formats are left alone.
        assert!(integer_saturation(f("R32G32B32A32_UINT")).is_none());
        assert!(integer_saturation(f("R16G16B16A16_SFLOAT")).is_none());
    }
}
