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

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ast::{self, *};
use super::formats;
use super::hook::{Command as HookCommand, HookStages, RunHook};
pub use super::outcome::{BufferDump, FailKind, Picture, ScriptResult, Status};
use super::run_expect;
use super::run_repeat;
use super::run_shaders;
use super::texture_of;
use crate::exec;
use crate::front::spirv::{Module, SpecConstants};
use crate::ir::{self, ResourceKind};
use crate::limits::{Cancel, Charge, Guards, Limit, Limits, MemoryBudget};
use crate::pipeline::{self, BoundStage, Descriptor, DescriptorSets, ImageResource};
use crate::raster::{
    self, ColorClass, ColorTarget, DepthAspect, DepthStencilTarget, IndexBuffer, IndexType,
    RenderTargets, VertexBuffer,
};
use crate::texture::{self, ImageView, ViewType};
use crate::{Error, Result};

/// How scripts are run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Interpreter instruction budget per batch (a runaway shader stops there).
    pub budget: u64,
    /// Wall-clock cap per script: draws and dispatches stop within milliseconds of it.
    pub time_limit: Duration,
    /// The sizes and counts a script may ask for ([`super::check`] before it runs, and the
    /// draws and dispatches while it runs).
    pub limits: Limits,
    /// Bytes a script may hold at once: its buffers and images, the copies a command makes
    /// of them, attachments, a draw's vertex and primitive arrays.
    pub memory_limit: u64,
    /// The token scripts poll; each script runs under a child of it that also stops at
    /// `time_limit`, so cancelling this stops every script (Ctrl-C).
    pub cancel: Cancel,
    /// Directory of compiled GLSL/HLSL.
    pub cache_dir: PathBuf,
    /// A folder of SPIR-V compiled ahead of time from the scripts' GLSL/HLSL (files named by
    /// [`run_shaders::prebuilt_name`]), used before glslang: scripts that ship their SPIR-V
    /// run where glslang is not installed.
    pub prebuilt_spirv: Option<PathBuf>,
    /// Keep every colour attachment's final contents in [`ScriptResult::images`].
    pub keep_images: bool,
    /// Rasterizer worker threads per script (scripts themselves may run in parallel).
    pub raster_threads: usize,
    /// SPIR-V version of assembly without `TARGET_ENV` (`None`: SPIR-V 1.0, or the version
    /// the CTS uses for the script's folder, see [`cts_default_version`]).
    pub spirv_version: Option<(u8, u8)>,
    /// What a lane that executes `OpKill` does (see [`Discard`](crate::Discard)).
    pub discard: exec::Discard,
    /// Compile GLSL/HLSL with debug information (`glslangValidator -g`: `OpLine`s and the
    /// source text, which the shader debugger shows and run-time errors name). On by
    /// default: debug instructions change nothing a shader computes.
    pub debug_info: bool,
    /// A tool watching the draws and dispatches (the shader debugger).
    pub hook: Option<Arc<dyn RunHook>>,
    /// Texture rules for every shader (`None`: each shader's own, D3D for DXIL and Vulkan
    /// for SPIR-V).
    pub policy: Option<texture::Policy>,
    /// Implicit-LOD arithmetic for every shader (`None`: the texture unit's default, exact).
    pub lod_precision: Option<texture::LodPrecision>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            budget: 20_000_000,
            time_limit: Duration::from_secs(30),
            limits: Limits::default(),
            memory_limit: MemoryBudget::default().limit(),
            cancel: Cancel::default(),
            cache_dir: run_shaders::default_cache_dir(),
            prebuilt_spirv: None,
            keep_images: false,
            raster_threads: 1,
            spirv_version: None,
            discard: exec::Discard::default(),
            debug_info: true,
            hook: None,
            policy: None,
            lod_precision: None,
        }
    }
}

/// The SPIR-V version the Vulkan CTS assembles a script's shaders with when the script does not
/// say, by the CTS's folder conventions: 1.4 for `spirv1p4` and
/// `workgroup_memory_explicit_layout` folders, 1.3 for the terminate-invocation subgroup
/// scripts.
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
    let limits = &opts.limits;
    let parsed = std::panic::catch_unwind(|| super::parse_file_with(path, limits));
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
            status: Status::of_error(e, &path.display().to_string()),
            note: String::new(),
            elapsed: Duration::ZERO,
            images: Vec::new(),
            buffers: Vec::new(),
        },
        Err(p) => ScriptResult {
            path: path.to_path_buf(),
            status: Status::Fail {
                kind: FailKind::Internal,
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
            // a cancelled run or quadstep's own failure is not the failure the script expects
            Status::Fail { kind, message }
                if !matches!(kind, FailKind::Cancelled | FailKind::Internal) =>
            {
                r.note = format!("expected failure: {message}");
                Status::Pass
            }
            Status::Pass => Status::Fail {
                kind: FailKind::Expect,
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

/// Run a parsed script (no `expect_fail` inversion: see [`run_file`]).
///
/// The script is first held against `opts.limits` ([`super::check`]); it then runs under a
/// child of `opts.cancel` that stops at `opts.time_limit`, with a memory budget of
/// `opts.memory_limit` bytes.
pub fn run_script(script: &Script, opts: &RunOptions) -> ScriptResult {
    let start = Instant::now();
    let file = script.path.display().to_string();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        super::check::check(script, &opts.limits)?;
        let mut r = Runner::new(script, opts)?;
        let st = r.run_all();
        // (no pictures of a script that was stopped: it is late already)
        let (images, buffers) = if opts.keep_images && !r.cancel.is_cancelled() {
            (r.pictures(), r.buffer_dumps())
        } else {
            (Vec::new(), Vec::new())
        };
        Ok::<_, (Error, usize)>((st, images, buffers))
    }));
    let (status, images, buffers) = match outcome {
        Ok(Ok(x)) => x,
        Ok(Err((e, 0))) => (Status::of_error(e, &file), Vec::new(), Vec::new()),
        Ok(Err((e, line))) => (
            Status::of_error(e, &format!("{file}:{line}")),
            Vec::new(),
            Vec::new(),
        ),
        Err(p) => (
            Status::Fail {
                kind: FailKind::Internal,
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
    // any power of two from 4 to 64 lanes per pipeline (`SUBGROUP … REQUIRED_SIZE`), full
    // compute subgroups (`FULLY_POPULATED`)
    "SubgroupSizeControl.subgroupSizeControl",
    "SubgroupSizeControl.computeFullSubgroups",
    "VulkanMemoryModelFeatures.vulkanMemoryModel",
    "VulkanMemoryModelFeatures.vulkanMemoryModelDeviceScope",
    "ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory",
    // Depth is clamped to [0, 1] before the depth test (raster::DepthAspect::quantize), unless
    // the script enables VK_EXT_depth_range_unrestricted and the attachment is float.
    "DepthClampZeroOneFeatures.depthClampZeroOne",
    // 2 to 16 samples at the standard locations, sample shading, multisampled storage images
    "sampleRateShading",
    "shaderStorageImageMultisample",
    // tessellation control and evaluation, geometry shaders with their point sizes
    "tessellationShader",
    "geometryShader",
    "shaderTessellationAndGeometryPointSize",
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
    UNRESTRICTED_DEPTH,
];

/// The extension under which float depth attachments keep depths outside [0, 1]
/// (`raster::DepthStencilState::unrestricted_depth`).
const UNRESTRICTED_DEPTH: &str = "VK_EXT_depth_range_unrestricted";

/// Items (bytes copied, texels converted) of the runner's own bulk work between two polls
/// of the cancel token ([`Runner::polled`]): a few milliseconds.
const POLL_ITEMS: usize = 1 << 22;

/// A script buffer: its declaration, its bytes, and its extent when used as an image.
#[derive(Debug)]
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
    /// What `bytes` and `mips` hold, counted against the script's memory budget
    /// ([`Runner::settle`]).
    charge: Charge,
    /// Moves on with every change ([`Runner::buf_mut`]): a texture made from the buffer is
    /// used again while its version is the buffer's.
    version: u64,
}

impl BufState {
    /// Bytes it holds (level 0 and rendered levels).
    fn held(&self) -> u64 {
        (self.bytes.len() + self.mips.values().map(Vec::len).sum::<usize>()) as u64
    }

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

/// (shader, entry point, stage, specialisation, optimisation passes, `SUBGROUP` options).
type ShaderKey = (
    String,
    String,
    &'static str,
    Vec<(u32, u64)>,
    String,
    String,
);

/// What to copy back into the script's buffers after a command.
pub(super) enum WriteBack {
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

/// A texture made from a buffer: the buffer's version it holds, the image, its charge.
type Texture = (u64, Arc<ImageResource>, Charge);

/// Executes one script.
pub(crate) struct Runner<'s> {
    script: &'s Script,
    opts: &'s RunOptions,
    pub bufs: HashMap<String, BufState>,
    /// Depth/stencil attachments kept between commands, with their charges.
    depth_targets: HashMap<String, (DepthStencilTarget, Charge)>,
    shaders: HashMap<ShaderKey, Arc<pipeline::Shader>>,
    clear: HashMap<String, ClearValues>,
    raster: raster::Rasterizer,
    /// Stops at the script's time limit, or with the caller's token (Ctrl-C).
    cancel: Cancel,
    /// What the script's buffers, images, attachments and commands hold.
    pub(super) mem: MemoryBudget,
    /// Buffers used as colour attachments (for pictures).
    attachments: Vec<String>,
    /// The line of the statement being run.
    line: usize,
    /// The first failed expectation ("line: message").
    failure: Option<String>,
    /// Draw and dispatch commands started so far (`hook::Command::index`).
    commands: usize,
    /// The last version given to a changed buffer ([`Runner::buf_mut`]).
    version: u64,
    /// Textures made from buffers for sampling, by buffer name, with the buffer's version
    /// they hold and their charge: made once, not once per command, while the buffer is
    /// unchanged.
    textures: RefCell<HashMap<String, Texture>>,
}

fn no_buffer(name: &str) -> Error {
    Error::Amber(format!("no buffer {}", crate::error::quote(name)))
}

fn stage_name(s: ShaderType) -> &'static str {
    s.keyword()
}

impl<'s> Runner<'s> {
    fn new(script: &'s Script, opts: &'s RunOptions) -> Result<Self, (Error, usize)> {
        let cancel = opts.cancel.with_time_limit(opts.time_limit);
        let mem = MemoryBudget::new(opts.memory_limit);
        let mut raster = raster::Rasterizer::new(opts.raster_threads.max(1)).map_err(|e| (e, 0))?;
        raster.set_guards(Guards {
            limits: opts.limits.clone(),
            memory: mem.clone(),
            cancel: cancel.clone(),
        });
        let mut r = Runner {
            script,
            opts,
            bufs: HashMap::new(),
            depth_targets: HashMap::new(),
            shaders: HashMap::new(),
            clear: HashMap::new(),
            raster,
            cancel,
            mem,
            attachments: Vec::new(),
            line: 0,
            failure: None,
            commands: 0,
            version: 0,
            textures: RefCell::new(HashMap::new()),
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
        let what = format!("buffer {}", crate::error::quote(&b.name));
        let stride = b.elem.stride(b.layout) as u64;
        let want = b.element_count().saturating_mul(stride);
        let charge = self.mem.charge(want, &what)?;
        let max = self.opts.limits.get(Limit::MaxMemoryAllocationSize);
        let mut bytes = b.try_layout_bytes(max, &self.cancel)?;
        if (bytes.len() as u64) < want {
            let (laid, want) = (bytes.len(), want as usize);
            bytes
                .try_reserve_exact(want - laid)
                .map_err(|_| Error::Memory(format!("{what}: {want} bytes")))?;
            self.polled(want - laid, |r| bytes.resize(laid + r.end, 0))?;
        }
        if b.samples > 1 && b.width.is_some() {
            // a multisampled image: every pixel's samples hold what the pixel was given
            let n = b.samples as usize;
            if want.saturating_mul(n as u64) > 1 << 30 {
                return Err(Error::Unsupported(format!(
                    "image '{}' of {want} bytes x {n} samples",
                    b.name
                )));
            }
            let stride = (stride as usize).max(1);
            bytes = bytes
                .chunks(stride)
                .flat_map(|t| std::iter::repeat_n(t, n).flatten().copied())
                .collect();
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
                charge,
                version: 0,
            },
        );
        self.settle(&b.name)
    }

    /// `name`'s state, to change: its version moves on, so that no texture made from its
    /// old contents is sampled again. The only way to a buffer's state for writing.
    fn buf_mut(&mut self, name: &str) -> Option<&mut BufState> {
        self.version += 1;
        let st = self.bufs.get_mut(name)?;
        st.version = self.version;
        Some(st)
    }

    /// After a change to `name`'s bytes: its charge is what it holds now (an error when
    /// that passes the budget).
    fn settle(&mut self, name: &str) -> Result<()> {
        if let Some(st) = self.buf_mut(name) {
            let held = st.held();
            let what = format_args!("buffer {}", crate::error::quote(name));
            st.charge.resize(held, what)?;
        }
        Ok(())
    }

    /// `f` over `0..n` in runs of [`POLL_ITEMS`], polling the script's cancel token before
    /// each: the runner's own bulk work (copies, fills, texel conversions) stops with the
    /// time limit like the shaders do.
    fn polled(&self, n: usize, mut f: impl FnMut(std::ops::Range<usize>)) -> Result<()> {
        let mut at = 0;
        while at < n {
            self.cancel.check()?;
            let end = at.saturating_add(POLL_ITEMS).min(n);
            f(at..end);
            at = end;
        }
        Ok(())
    }

    /// `len` bytes counted against the budget for as long as the charge lives: `src`'s
    /// bytes, then zeros (written in polled runs).
    fn bytes(
        &self,
        len: usize,
        src: &[u8],
        what: impl std::fmt::Display,
    ) -> Result<(Vec<u8>, Charge)> {
        let charge = self.mem.charge(len as u64, &what)?;
        let mut v = Vec::new();
        v.try_reserve_exact(len)
            .map_err(|_| Error::Memory(format!("{what}: {len} bytes")))?;
        self.polled(len, |r| {
            let copied = r.end.min(src.len());
            v.extend_from_slice(&src[r.start.min(copied)..copied]);
            v.resize(r.end, 0);
        })?;
        Ok((v, charge))
    }

    /// `len` zero bytes, charged ([`Runner::bytes`]).
    fn zeroed(&self, len: usize, what: impl std::fmt::Display) -> Result<(Vec<u8>, Charge)> {
        self.bytes(len, &[], what)
    }

    /// A copy of `src`, charged ([`Runner::bytes`]).
    fn copy(&self, src: &[u8], what: impl std::fmt::Display) -> Result<(Vec<u8>, Charge)> {
        self.bytes(src.len(), src, what)
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
                Binding::Color { buffer, .. }
                | Binding::DepthStencil { buffer }
                | Binding::Resolve { buffer } => buffer,
                _ => continue,
            };
            let st = self.buf_mut(name).ok_or_else(|| {
                Error::Amber(format!("pipeline '{}': no buffer '{name}'", p.name))
            })?;
            let texel = st.texel_bytes() * st.decl.samples.max(1) as usize;
            let need = w as usize * h as usize * texel;
            if st.width != w || st.height != h || st.bytes.len() < need {
                let what = format!("attachment {} of {w}x{h}", crate::error::quote(name));
                let (bytes, fresh) = self.zeroed(need, what)?;
                let st = self.buf_mut(name).ok_or_else(|| no_buffer(name))?;
                st.width = w;
                st.height = h;
                st.bytes = bytes;
                st.mips.clear();
                drop(fresh);
                self.settle(name)?;
                self.depth_targets.remove(name);
            }
            let colour = matches!(b, Binding::Color { .. } | Binding::Resolve { .. });
            if colour && !self.attachments.contains(name) {
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
            .buf_mut(name)
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
        if st.mips.get(&level).map(Vec::len) != Some(need) {
            let what = format!("level {level} of attachment {}", crate::error::quote(name));
            let (bytes, fresh) = self.zeroed(need, what)?;
            let st = self.buf_mut(name).ok_or_else(|| no_buffer(name))?;
            st.mips.insert(level, bytes);
            drop(fresh);
            self.settle(name)?;
        }
        Ok(())
    }

    fn run_all(&mut self) -> Status {
        let file = self.script.path.display().to_string();
        let stmts = &self.script.stmts;
        for st in stmts {
            if let StmtKind::Command(c) = &st.kind {
                if let Err(e) = self.command(st.line, c) {
                    // A compile error names its own place: the shader block's line plus the
                    // compiler's.
                    if let Error::Spirv(m) = &e {
                        if m.starts_with(&format!("{file}:")) {
                            return Status::Fail {
                                kind: FailKind::Compile,
                                message: m.clone(),
                            };
                        }
                    }
                    let line = if self.line == 0 { st.line } else { self.line };
                    return Status::of_error(e, &format!("{file}:{line}"));
                }
                if let Some(msg) = self.failure.take() {
                    return Status::Fail {
                        kind: FailKind::Expect,
                        message: format!("{file}:{msg}"),
                    };
                }
            }
        }
        Status::Pass
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
        self.bufs.get(name).ok_or_else(|| no_buffer(name))
    }

    fn command(&mut self, line: usize, c: &Command) -> Result<()> {
        self.line = line;
        self.cancel.check()?;
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
                let src = self.buf(from)?;
                let what = format!("COPY to {}", crate::error::quote(to));
                let (bytes, fresh) = self.copy(&src.bytes, &what)?;
                let mut mips = BTreeMap::new();
                let mut charges = vec![fresh];
                for (&l, m) in &src.mips {
                    let (m, c) = self.copy(m, &what)?;
                    mips.insert(l, m);
                    charges.push(c);
                }
                let (width, height, depth) = (src.width, src.height, src.depth);
                let dst = self.buf_mut(to).ok_or_else(|| no_buffer(to))?;
                dst.bytes = bytes;
                dst.width = width;
                dst.height = height;
                dst.depth = depth;
                dst.mips = mips;
                drop(charges);
                self.settle(to)
            }
            Command::SetBufferData {
                buffer,
                offset,
                ty,
                layout,
                values,
            } => {
                let data = ElemType::Data(*ty).layout_values(*layout, values);
                let end = offset.saturating_add(data.len() as u64);
                let what = format!("a write to {}", crate::error::quote(buffer));
                self.opts
                    .limits
                    .check(Limit::MaxMemoryAllocationSize, end, &what)?;
                let grow = end.saturating_sub(self.buf(buffer)?.bytes.len() as u64);
                let fresh = self.mem.charge(grow, &what)?;
                let st = self.buf_mut(buffer).ok_or_else(|| no_buffer(buffer))?;
                let (offset, end) = (*offset as usize, end as usize);
                if st.bytes.len() < end {
                    st.bytes
                        .try_reserve_exact(end - st.bytes.len())
                        .map_err(|_| Error::Memory(format!("{what}: {end} bytes")))?;
                    st.bytes.resize(end, 0);
                }
                st.bytes[offset..end].copy_from_slice(&data);
                drop(fresh);
                self.settle(buffer)
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
                    let (mut t, charge) = self.color_target(buffer, *base_mip_level)?;
                    let c = cv.color.map(|v| v as f32);
                    if ColorClass::of(t.format).is_integer() {
                        t.clear_raw(cv.color.map(|v| (v * 255.0).round() as i64 as u32));
                    } else {
                        t.clear_f32(c);
                    }
                    self.store_color(buffer, *base_mip_level, t, charge)?;
                }
                Binding::DepthStencil { buffer } => {
                    let (mut t, charge) = self.depth_target(buffer)?;
                    t.clear(cv.depth, cv.stencil as u8);
                    self.store_depth(buffer, t, charge)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The colour attachment for a buffer, in the buffer's own format, and its charge against
    /// the budget.
    fn color_target(&self, name: &str, level: u32) -> Result<(ColorTarget, Charge)> {
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
        let samples = st.decl.samples.max(1);
        if samples > 1 && level > 0 {
            return Err(Error::Amber(format!(
                "multisampled image '{name}' bound at BASE_MIP_LEVEL {level}"
            )));
        }
        // the attachment's bytes: the buffer's when they have exactly their size, else zeros
        let format = formats::color_format(&fname)?;
        let what = format!("colour attachment {}", crate::error::quote(name));
        let len = width as usize * height as usize * samples as usize * format.texel_size();
        let from = if src.len() == len { src } else { &[] };
        let (data, charge) = self.bytes(len, from, what)?;
        let t = ColorTarget {
            format,
            width,
            height,
            samples,
            data,
        };
        Ok((t, charge))
    }

    /// Put a colour attachment's texels back into its buffer; `charge` counted the target.
    fn store_color(
        &mut self,
        name: &str,
        level: u32,
        t: ColorTarget,
        charge: Charge,
    ) -> Result<()> {
        let bytes = t.data;
        if let Some(st) = self.buf_mut(name) {
            if level == 0 {
                st.bytes = bytes;
            } else {
                st.mips.insert(level, bytes);
            }
        }
        drop(charge);
        self.settle(name)
    }

    /// The depth/stencil attachment for a buffer (the one kept from the last command, or a
    /// new one), and its charge against the budget.
    fn depth_target(&self, name: &str) -> Result<(DepthStencilTarget, Charge)> {
        let what = format!("depth attachment {}", crate::error::quote(name));
        let st = self.buf(name)?;
        let fname = st.format_name().ok_or_else(|| {
            Error::Unsupported(format!("depth attachment '{name}' without a format"))
        })?;
        let format = formats::depth_format(&fname)?;
        let (w, h, samples) = match self.depth_targets.get(name) {
            Some((t, _)) => (t.width, t.height, t.samples),
            None => (st.width, st.height, st.decl.samples.max(1)),
        };
        let n = w as usize * h as usize * samples as usize;
        let stencil = if format.has_stencil() { n } else { 0 };
        let (kept_depth, kept_stencil): (&[u8], &[u8]) = match self.depth_targets.get(name) {
            Some((t, _)) => (&t.depth, &t.stencil),
            None => (&[], &[]),
        };
        let (depth, mut charge) = self.bytes(n * format.depth_bytes(), kept_depth, &what)?;
        let (stencil, more) = self.bytes(stencil, kept_stencil, &what)?;
        charge.absorb(more);
        let t = DepthStencilTarget {
            format,
            width: w,
            height: h,
            samples,
            depth,
            stencil,
        };
        Ok((t, charge))
    }

    /// Keep the depth target and mirror it into the buffer's bytes in the texture unit's
    /// texel layout (depth bytes, stencil byte at 3 for D24S8 and at 4 for D32FS8), so the
    /// attachment can be sampled or compared later.
    fn store_depth(&mut self, name: &str, t: DepthStencilTarget, charge: Charge) -> Result<()> {
        let db = t.format.depth_bytes();
        let n = t.width as usize * t.height as usize * t.samples as usize;
        let (ts, s_at) = match t.format {
            texture::Format::D24_UNORM_S8_UINT => (4, Some(3)),
            texture::Format::D32_SFLOAT_S8_UINT => (8, Some(4)),
            texture::Format::S8_UINT => (1, Some(0)),
            _ => (db, None),
        };
        let what = format!("depth attachment {}", crate::error::quote(name));
        let (mut bytes, fresh) = self.zeroed(n * ts, what)?;
        self.polled(n, |texels| {
            for i in texels {
                let o = i * ts;
                let k = db.min(ts);
                bytes[o..o + k].copy_from_slice(&t.depth[i * db..i * db + k]);
                if let (Some(s), Some(&v)) = (s_at, t.stencil.get(i)) {
                    bytes[o + s] = v;
                }
            }
        })?;
        if let Some(st) = self.buf_mut(name) {
            st.bytes = bytes;
        }
        drop(fresh);
        self.settle(name)?;
        self.depth_targets.insert(name.to_string(), (t, charge));
        Ok(())
    }

    /// Compile (once) the shader attached for `stage`.
    fn shader(&mut self, att: &Attachment) -> Result<Arc<pipeline::Shader>> {
        let stage = match att.stage {
            ShaderType::Vertex => ir::Stage::Vertex,
            ShaderType::Fragment => ir::Stage::Fragment,
            ShaderType::Compute => ir::Stage::Compute,
            ShaderType::Geometry => ir::Stage::Geometry,
            ShaderType::TessellationControl => ir::Stage::TessControl,
            ShaderType::TessellationEvaluation => ir::Stage::TessEval,
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
            format!("{:?}", att.subgroup),
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
            let glsl = run_shaders::GlslOptions {
                cache: &self.opts.cache_dir,
                prebuilt: self.opts.prebuilt_spirv.as_deref(),
                debug_info: self.opts.debug_info,
                script: Some(&self.script.path),
            };
            let words = run_shaders::shader_words_with(
                decl,
                att.stage,
                &att.entry_point,
                self.opts.spirv_version,
                &glsl,
            )?;
            let words = run_shaders::optimize(&words, &att.optimizations, &self.opts.cache_dir)?;
            let mut module = Module::load(&words)?;
            run_shaders::place_source_lines(module.source_map_mut(), decl, Some(&self.script.path));
            let spec_map: SpecConstants = spec.into_iter().collect();
            let entry = if decl.format == ShaderFormat::Passthrough {
                "main"
            } else {
                att.entry_point.as_str()
            };
            pipeline::Shader::from_module(&module, entry, Some(stage), &spec_map)?
        };
        subgroup_options(&mut sh, &att.subgroup)?;
        sh.set_budget(self.opts.budget);
        sh.set_discard(self.opts.discard);
        sh.set_cancel(self.cancel.clone());
        if let Some(policy) = self.opts.policy {
            sh.set_policy(policy);
        }
        let sh = Arc::new(sh);
        self.shaders.insert(key, sh.clone());
        Ok(sh)
    }

    /// The texture unit configuration `sh` runs with: its own, the LOD precision of the
    /// options.
    fn config(&self, sh: &pipeline::Shader) -> texture::Config {
        let mut c = sh.config();
        if let Some(p) = self.opts.lod_precision {
            c.precision = p;
        }
        c
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
                let topo = match patch {
                    true => raster::Topology::PatchList,
                    false => raster::Topology::TriangleStrip,
                };
                self.draw(p, Draw::Rect(v.to_vec(), topo))
            }
            RunKind::DrawGrid { pos, size, cells } => {
                let (fw, fh) = (p.framebuffer_size.0 as f32, p.framebuffer_size.1 as f32);
                let x = pos[0] / fw * 2.0 - 1.0;
                let y = pos[1] / fh * 2.0 - 1.0;
                let w = size[0] / fw * 2.0;
                let h = size[1] / fh * 2.0;
                let (cx, cy) = (cells[0].max(1), cells[1].max(1));
                let (cw, ch) = (w / cx as f32, h / cy as f32);
                // 12 floats a cell, and their bytes for the vertex buffer
                let floats = cx as u64 * cy as u64 * 12;
                let _grid = self.mem.charge(floats * 8, "the DRAW_GRID vertices")?;
                let mut v = Vec::new();
                v.try_reserve_exact(floats as usize)
                    .map_err(|_| Error::Memory("the DRAW_GRID vertices".into()))?;
                for j in 0..cy {
                    self.cancel.check()?;
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
                    Topology::LineListWithAdjacency => raster::Topology::LineListWithAdjacency,
                    Topology::LineStripWithAdjacency => raster::Topology::LineStripWithAdjacency,
                    Topology::TriangleListWithAdjacency => {
                        raster::Topology::TriangleListWithAdjacency
                    }
                    Topology::TriangleStripWithAdjacency => {
                        raster::Topology::TriangleStripWithAdjacency
                    }
                    Topology::PatchList => raster::Topology::PatchList,
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
        let (sets, wb, _copies) = self.descriptors(p, &[sh.ir()])?;
        self.cancel.check()?;
        let config = self.config(&sh);
        let [x, y, z] = sh.ir().workgroup_size;
        let invocations = [groups[0], groups[1], groups[2], x, y, z]
            .iter()
            .fold(1u64, |n, &g| n.saturating_mul(g as u64));
        let command = self.hook_command(p, Vec::new(), Some(invocations));
        let opts: &'s RunOptions = self.opts;
        let reps = opts.hook.as_ref().map_or(1, |h| h.repetitions(&command));
        let times = run_repeat::repeat(reps, &mut (), &wb, &self.mem, &self.cancel, |_| {
            let hooked = opts
                .hook
                .as_ref()
                .and_then(|h| h.dispatch(&command, &sh, groups, &sets, config, &opts.limits));
            match hooked {
                Some(r) => r,
                None => pipeline::dispatch_with(&sh, groups, &sets, config, &opts.limits),
            }
        })?;
        if let Some(h) = &opts.hook {
            h.timed(&command, &times);
        }
        self.write_back(wb)
    }

    /// The next draw or dispatch command, as a hook sees it.
    fn hook_command(
        &mut self,
        p: &Pipeline,
        attachments: Vec<Option<String>>,
        invocations: Option<u64>,
    ) -> HookCommand {
        self.commands += 1;
        HookCommand {
            index: self.commands - 1,
            line: self.line,
            pipeline: p.name.clone(),
            framebuffer: p.framebuffer_size,
            attachments,
            invocations,
        }
    }

    /// Descriptor sets for the pipeline's `BIND`s, what to copy back afterwards, and the
    /// charges of the copies and images made (to hold until the command ends).
    fn descriptors(
        &self,
        p: &Pipeline,
        shaders: &[&ir::Shader],
    ) -> Result<(DescriptorSets, Vec<WriteBack>, Vec<Charge>)> {
        let mut sets = DescriptorSets::new();
        let mut wb = Vec::new();
        let mut charges = Vec::new();
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
                    let bytes = &self.buf(buffer)?.bytes;
                    self.opts.limits.check(
                        Limit::MaxPushConstantsSize,
                        bytes.len() as u64,
                        format_args!("push constant buffer {}", crate::error::quote(buffer)),
                    )?;
                    sets.set_push_constants(bytes);
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
                                let (row, what) = match kind {
                                    DescriptorKind::Uniform | DescriptorKind::UniformDynamic => {
                                        (Limit::MaxUniformBufferRange, "uniform buffer")
                                    }
                                    _ => (Limit::MaxStorageBufferRange, "storage buffer"),
                                };
                                let what = format!(
                                    "the range of {what} {} at DESCRIPTOR_SET {set} BINDING \
                                     {binding}",
                                    crate::error::quote(name)
                                );
                                self.opts.limits.check(row, range as u64, &what)?;
                                let key = (name.clone(), off, range);
                                let buf = match buf_cache.get(&key) {
                                    Some(b) => b.clone(),
                                    None => {
                                        let end = (off + range).min(st.bytes.len());
                                        let start = off.min(end);
                                        let bytes = &st.bytes[start..end];
                                        charges.push(self.mem.charge(bytes.len() as u64, &what)?);
                                        let b = Arc::new(exec::Buffer::try_from_bytes(bytes)?);
                                        buf_cache.insert(key, b.clone());
                                        b
                                    }
                                };
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
                                    (&self.opts.limits, &self.mem, &mut charges),
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
                                    None if *kind != DescriptorKind::StorageImage => {
                                        let i = self.sampled_image(name)?;
                                        img_cache.insert(name.clone(), i.clone());
                                        i
                                    }
                                    None => {
                                        let (i, c) = self.make_image(name)?;
                                        charges.push(c);
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
                Binding::Color { .. } | Binding::DepthStencil { .. } | Binding::Resolve { .. } => {}
            }
        }
        Ok((sets, wb, charges))
    }

    fn sampler(&self, name: &str) -> Result<texture::Sampler> {
        let s = self
            .script
            .sampler(name)
            .ok_or_else(|| Error::Amber(format!("no sampler '{name}'")))?;
        Ok(convert_sampler(s))
    }

    /// The texture for sampling buffer `name`: the one made before while the buffer has not
    /// changed since ([`Runner::buf_mut`]), else a new one, kept for the next command.
    fn sampled_image(&self, name: &str) -> Result<Arc<ImageResource>> {
        let version = self.buf(name)?.version;
        let mut textures = self.textures.borrow_mut();
        if let Some((v, img, _)) = textures.get(name) {
            if *v == version {
                return Ok(img.clone());
            }
        }
        // the old one's memory goes back before the new one is charged
        textures.remove(name);
        let (img, charge) = self.make_image(name)?;
        textures.insert(name.to_string(), (version, img.clone(), charge));
        Ok(img)
    }

    /// A texture-unit image holding a buffer's bytes (mip levels generated from level 0).
    fn make_image(&self, name: &str) -> Result<(Arc<ImageResource>, Charge)> {
        let st = self.buf(name)?;
        let fname = st
            .format_name()
            .ok_or_else(|| Error::Amber(format!("image '{name}' has no format")))?;
        let format = formats::texture_format(&fname)?;
        let g = texture_of::geometry(
            st.decl.dim,
            [st.width, st.height, st.depth],
            st.decl.mip_levels,
            st.decl.samples,
        );
        let (extent, layers, levels, samples) = (g.extent, g.layers, g.levels, g.samples);
        let what = format!("image {}", crate::error::quote(name));
        let l = &self.opts.limits;
        let (row, edge) = match st.decl.dim {
            Some(ImageDim::D1) => (Limit::MaxImageDimension1D, extent[0]),
            Some(ImageDim::D3) => (
                Limit::MaxImageDimension3D,
                extent.into_iter().max().unwrap_or(1),
            ),
            Some(ImageDim::Cube) => (Limit::MaxImageDimensionCube, extent[0].max(extent[1])),
            _ => (Limit::MaxImageDimension2D, extent[0].max(extent[1])),
        };
        l.check(row, edge as u64, format_args!("{what}: extent"))?;
        // the levels, a padded copy of the buffer's bytes, and the texture unit's decoded
        // copies (16 bytes a texel, up to 2^22 texels, twice more for gathers)
        let texel = format.texel_size() as u64;
        let texels: u64 = (0..levels)
            .map(|k| {
                extent
                    .map(|e| (e >> k).max(1) as u64)
                    .iter()
                    .product::<u64>()
            })
            .sum::<u64>()
            * layers as u64
            * samples as u64;
        let level0 = extent.map(|e| e as u64).iter().product::<u64>()
            * layers as u64
            * samples as u64
            * texel;
        let decoded = texels.min(1 << 22) * 48;
        let bytes = (texels * texel)
            .saturating_add(level0)
            .saturating_add(decoded);
        l.check(Limit::MaxMemoryAllocationSize, texels * texel, &what)?;
        let charge = self.mem.charge(bytes, &what)?;
        let mut img = g.image(format)?;
        let n = img.level_texels(0) * format.texel_size();
        let (bytes, _padded) = self.bytes(n, &st.bytes[..n.min(st.bytes.len())], &what)?;
        texture_of::fill(&mut img, &bytes, &st.mips, || self.cancel.check())?;
        if let Some(h) = &self.opts.hook {
            h.image_uploaded(name);
        }
        Ok((ImageResource::new(img), charge))
    }

    /// Copy what the command wrote back into the script's buffers. A buffer bound several
    /// times (storage buffers at different offsets, a texel buffer over the whole of it) has
    /// one interpreter buffer per binding; each copies back only the bytes it changed, so an
    /// untouched copy never overwrites what another binding wrote.
    fn write_back(&mut self, wb: Vec<WriteBack>) -> Result<()> {
        let mut before: HashMap<String, (Vec<u8>, Charge)> = HashMap::new();
        for w in &wb {
            if let WriteBack::Buffer { name, .. } = w {
                if let (false, Some(st)) = (before.contains_key(name), self.bufs.get(name)) {
                    let what = format!("a copy of buffer {}", crate::error::quote(name));
                    before.insert(name.clone(), self.copy(&st.bytes, what)?);
                }
            }
        }
        for w in wb {
            match w {
                WriteBack::Buffer { name, offset, buf } => {
                    let what = format!("a copy of buffer {}", crate::error::quote(&name));
                    let _copy = self.mem.charge(buf.len() as u64, what)?;
                    let data = buf.to_bytes();
                    let old = before.get(&name).map(|(b, _)| b);
                    if let (Some(st), Some(old)) = (self.bufs.get(&name), old) {
                        let end = (offset + data.len()).min(st.bytes.len());
                        // the bytes this binding changed
                        let mut changed = Vec::new();
                        self.polled(end.saturating_sub(offset), |r| {
                            for i in r.start + offset..r.end + offset {
                                let b = data[i - offset];
                                if old.get(i) != Some(&b) {
                                    changed.push((i, b));
                                }
                            }
                        })?;
                        if let Some(st) = self.buf_mut(&name) {
                            for (i, b) in changed {
                                st.bytes[i] = b;
                            }
                        }
                    }
                }
                WriteBack::Image { name, image } => {
                    let img = image.read();
                    let what = format!("storage image {}", crate::error::quote(&name));
                    let (bytes, fresh) = self.copy(img.level_bytes(0)?, what)?;
                    if let Some(st) = self.buf_mut(&name) {
                        st.bytes = bytes;
                    }
                    drop(fresh);
                    self.settle(&name)?;
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
            if !matches!(
                a.stage,
                ShaderType::Vertex
                    | ShaderType::Fragment
                    | ShaderType::Geometry
                    | ShaderType::TessellationControl
                    | ShaderType::TessellationEvaluation
            ) {
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
        // the optional stages: tessellation control, tessellation evaluation, geometry
        let mut middle = Vec::new();
        for st in [
            ShaderType::TessellationControl,
            ShaderType::TessellationEvaluation,
            ShaderType::Geometry,
        ] {
            middle.push(match p.shaders.iter().find(|a| a.stage == st) {
                Some(a) => Some(self.shader(a)?),
                None => None,
            });
        }
        let mut irs = vec![vs.ir()];
        irs.extend(fs.as_ref().map(|f| f.ir()));
        irs.extend(middle.iter().flatten().map(|s| s.ir()));
        let (sets, wb, _copies) = self.descriptors(p, &irs)?;
        let vstage = BoundStage::new(&vs, &sets, self.config(&vs))?;
        let fstage = match &fs {
            Some(f) => Some(BoundStage::new(f, &sets, self.config(f))?),
            None => None,
        };
        let bound = middle
            .iter()
            .map(|s| {
                s.as_ref()
                    .map(|s| BoundStage::new(s, &sets, self.config(s)))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        let stages = raster::Stages {
            tessellation: match (&bound[0], &bound[1]) {
                (Some(c), Some(e)) => Some((c as &dyn raster::TessControlStage, e as _)),
                (None, None) => None,
                _ => {
                    return Err(Error::Amber(format!(
                        "pipeline '{}' has one of the two tessellation shaders",
                        p.name
                    )))
                }
            },
            geometry: bound[2].as_ref().map(|g| g as &dyn raster::GeometryStage),
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
        // the charge of each colour target
        let mut charges = Vec::new();
        let scratch = || {
            let charge = self
                .mem
                .charge(fw as u64 * fh as u64 * 4, "a scratch attachment")?;
            let t = ColorTarget::try_new(texture::Format::R8G8B8A8_UNORM, fw, fh)?;
            Ok::<_, Error>((t, charge))
        };
        for n in &color_names {
            let (t, c) = match n {
                Some((n, level)) => self.color_target(n, *level)?,
                None => scratch()?,
            };
            targets.color.push(t);
            charges.push(c);
        }
        let mut depth_charge = None;
        if let Some(d) = &depth_name {
            let (t, c) = self.depth_target(d)?;
            targets.depth_stencil = Some(t);
            depth_charge = Some(c);
        }
        if targets.color.is_empty() && targets.depth_stencil.is_none() {
            let (t, c) = scratch()?;
            targets.color.push(t);
            color_names.push(None);
            charges.push(c);
        }

        let mut state = pipeline_state(p, targets.color.len());
        state.depth_stencil.unrestricted_depth = self
            .script
            .device_extensions()
            .any(|x| x == UNRESTRICTED_DEPTH);
        // the attachments' sample count (the raster checks that they agree)
        state.samples = targets
            .color
            .first()
            .map(|c| c.samples)
            .or(targets.depth_stencil.as_ref().map(|d| d.samples))
            .unwrap_or(1);
        // Vertex input.
        let mut vdata: Vec<Vec<u8>> = Vec::new();
        let mut vdata_charges = Vec::new();
        let mut vertex_count = u32::MAX;
        match &what {
            Draw::Rect(v, topo) => {
                state.topology = *topo;
                // VkScript's `draw rect patch`: the rectangle's 4 vertices are one patch
                state.patch_control_points = 4;
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
                    format: texture::Format::R32G32_SFLOAT,
                    offset: 0,
                });
                vertex_count = (v.len() / 2) as u32;
            }
            Draw::Array { topo, .. } => {
                state.topology = *topo;
                if let Some(n) = p.patch_control_points {
                    state.patch_control_points = n;
                }
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
                    let what = format!("vertex data {}", crate::error::quote(&vd.buffer));
                    let format = formats::vertex_format(&fname)?;
                    let (data, c) = self.copy(&st.bytes, &what)?;
                    vdata_charges.push(c);
                    let offset = vd.offset;
                    let rate = match vd.rate {
                        ast::InputRate::Vertex => raster::InputRate::Vertex,
                        ast::InputRate::Instance => raster::InputRate::Instance,
                    };
                    if rate == raster::InputRate::Vertex && stride > 0 {
                        let n = (data.len().saturating_sub(offset as usize)
                            + (stride as usize - format.texel_size().min(stride as usize)))
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
                let what = format!("index data {}", crate::error::quote(name));
                let (bytes, c) = self.copy(&st.bytes, what)?;
                vdata_charges.push(c);
                Some((bytes, it, (st.bytes.len() / size) as u32))
            }
            _ => None,
        };

        let names = color_names.iter().map(|n| n.as_ref().map(|n| n.0.clone()));
        let command = self.hook_command(p, names.collect(), None);
        let opts: &'s RunOptions = self.opts;
        let hooked = match &opts.hook {
            Some(h) => h.stages(&command, &vstage, fstage.as_ref()),
            None => HookStages::default(),
        };
        let vertex: &dyn raster::VertexStage = match &hooked.vertex {
            Some(v) => v.as_ref(),
            None => &vstage,
        };
        let fragment: &dyn raster::FragmentStage = match &hooked.fragment {
            Some(f) => f.as_ref(),
            None => fragment,
        };
        let pipe = raster::Pipeline {
            state,
            vertex,
            fragment,
            stages,
        };
        let reps = opts.hook.as_ref().map_or(1, |h| h.repetitions(&command));
        let raster = &self.raster;
        let times = run_repeat::repeat(
            reps,
            &mut targets,
            &wb,
            &self.mem,
            &self.cancel,
            |targets| {
                let mut pass = raster.begin(targets);
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
                Ok(())
            },
        )?;
        drop(pipe);
        drop(hooked);
        if let Some(h) = &opts.hook {
            h.timed(&command, &times);
            h.after_draw(&command, &targets);
        }
        drop(vstage);
        drop(fstage);
        drop(vdata_charges);
        drop(bound);
        // `BIND BUFFER … AS resolve`: the i-th resolve attachment receives colour attachment
        // i resolved, at the end of the render pass (each draw is one)
        let resolves = p.bindings.iter().filter_map(|b| match b {
            Binding::Resolve { buffer } => Some(buffer),
            _ => None,
        });
        for (name, t) in resolves.zip(&targets.color) {
            let r = t.resolve();
            let charge = self
                .mem
                .charge(r.data.len() as u64, "a resolve attachment")?;
            self.store_color(name, 0, r, charge)?;
        }
        for ((n, t), c) in color_names.iter().zip(targets.color).zip(charges) {
            if let Some((n, level)) = n {
                self.store_color(n, *level, t, c)?;
            }
        }
        if let (Some(n), Some(d), Some(c)) = (depth_name, targets.depth_stencil, depth_charge) {
            self.store_depth(&n, d, c)?;
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
                    height: b.height,
                    depth: b.depth,
                    dim: b.decl.dim,
                    mip_levels: b.decl.mip_levels,
                    samples: b.decl.samples,
                    bytes: b.bytes.clone(),
                    mips: b.mips.clone(),
                }
            })
            .collect()
    }

    /// RGBA8 pictures of every colour and resolve attachment (a multisampled one resolved).
    fn pictures(&self) -> Vec<Picture> {
        let mut out = Vec::new();
        for name in &self.attachments {
            let Ok((t, _charge)) = self.color_target(name, 0) else {
                continue;
            };
            let t = t.resolve();
            let mut rgba = Vec::with_capacity(t.width as usize * t.height as usize * 4);
            for y in 0..t.height {
                for x in 0..t.width {
                    let v = if !ColorClass::of(t.format).is_integer() {
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

/// A `SUBGROUP` block on a shader: `REQUIRED_SIZE` (a number, `MIN` = 4, `MAX` = 64) sets
/// the shader's subgroup size; `FULLY_POPULATED on` (`requireFullSubgroups`) holds a compute
/// shader's local size in x to a multiple of that size, or of the largest size (64) without
/// one, as Vulkan requires of the pipeline (`VUID-VkPipelineShaderStageCreateInfo-flags-02758`
/// and `-02759`; otherwise the script is not run: `Error::Unsupported`); `VARYING_SIZE`
/// changes nothing (the size never varies within a dispatch).
fn subgroup_options(sh: &mut pipeline::Shader, o: &ast::SubgroupOptions) -> Result<()> {
    let (min, max) = (
        *crate::exec::SUBGROUP_SIZES.start() as u32,
        *crate::exec::SUBGROUP_SIZES.end() as u32,
    );
    if let Some(req) = o.required_size {
        sh.set_subgroup_size(match req {
            ast::SubgroupSize::Exact(n) => n,
            ast::SubgroupSize::Min => min,
            ast::SubgroupSize::Max => max,
        })?;
    }
    if o.fully_populated == Some(true) {
        if sh.stage() != crate::ir::Stage::Compute {
            return Err(Error::Amber(format!(
                "FULLY_POPULATED on a {:?} shader: full subgroups are a compute pipeline option",
                sh.stage()
            )));
        }
        let x = sh.ir().workgroup_size[0];
        let of = match o.required_size {
            Some(_) => sh.program().subgroup_size() as u32,
            None => max,
        };
        if !x.is_multiple_of(of) {
            // an invalid pipeline, which quadstep declines to run (the CTS's partial-subgroup
            // scripts ask for full subgroups of 119 invocations a row)
            return Err(Error::Unsupported(format!(
                "FULLY_POPULATED: the local size in x ({x}) is not a multiple of {of}, the {}",
                if o.required_size.is_some() {
                    "required subgroup size"
                } else {
                    "largest subgroup size (maxSubgroupSize)"
                }
            )));
        }
    }
    Ok(())
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
/// The view is held to the limits, and a new copy charged to the budget (kept in `charges`).
fn texel_buffer_view(
    name: &str,
    st: &BufState,
    offset: u64,
    range: Option<u64>,
    cache: &mut HashMap<(String, usize, usize), Arc<exec::Buffer>>,
    (limits, mem, charges): (&Limits, &MemoryBudget, &mut Vec<Charge>),
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
    limits.check(
        Limit::MaxTexelBufferElements,
        bytes / ts,
        "the texels of the view",
    )?;
    let texels = u32::try_from(bytes / ts)
        .map_err(|_| Error::Amber(format!("{} texels do not fit a buffer view", bytes / ts)))?;
    let key = (name.to_string(), 0, st.bytes.len());
    let buf = match cache.get(&key) {
        Some(b) => b.clone(),
        None => {
            let what = format!("texel buffer {}", crate::error::quote(name));
            charges.push(mem.charge(st.bytes.len() as u64, what)?);
            let b = Arc::new(exec::Buffer::try_from_bytes(&st.bytes)?);
            cache.insert(key, b.clone());
            b
        }
    };
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
