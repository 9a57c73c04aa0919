//! lvp: render one scene with real Vulkan on Mesa's lavapipe (headless, offscreen),
//! read the image back as f32 RGBA and time the draw. See README.md for the scene format.

use ash::vk::{self, AccessFlags2 as Access, Handle, ImageLayout as Layout, PipelineStageFlags2 as Stage};
use serde::Deserialize;
use std::cell::RefCell;
use std::ffi::{CString, c_void};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

const USAGE: &str =
    "usage: lvp SCENE.json [--out-raw FILE] [--out-png FILE] [--iterations N] [--warmup N] [--validate] [--info]
       lvp --info [--validate]        (device report only)";

type R<T> = Result<T, String>;

/// Attach the name of the failing call to an error.
trait Ctx<T> {
    fn ctx(self, what: &str) -> R<T>;
}
impl<T, E: std::fmt::Debug> Ctx<T> for Result<T, E> {
    fn ctx(self, what: &str) -> R<T> {
        self.map_err(|e| format!("{what} failed: {e:?}"))
    }
}

// ----------------------------------------------------------------------------- scene

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scene {
    width: u32,
    height: u32,
    vertex_spv: PathBuf,
    fragment_spv: PathBuf,
    vertex_entry: Option<String>,
    fragment_entry: Option<String>,
    vertices: Option<Vec<Vec<f32>>>,
    attributes: Option<Vec<u32>>,
    #[serde(default)]
    push_constants: Vec<f32>,
    color_format: Option<String>,
    #[serde(default)]
    clear_color: [f32; 4],
    depth: Option<DepthCfg>,
    blend: Option<String>,
    #[serde(default)]
    textures: Vec<Tex>,
    samples: Option<u32>,
    min_sample_shading: Option<f32>,
    topology: Option<String>,
    geometry_spv: Option<PathBuf>,
    tess_control_spv: Option<PathBuf>,
    tess_eval_spv: Option<PathBuf>,
    patch_size: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DepthCfg {
    format: Option<String>,
    compare_op: Option<String>,
    clear: Option<f32>,
    write: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Tex {
    #[serde(default)]
    set: u32,
    binding: u32,
    format: String,
    view_type: Option<String>,
    width: u32,
    height: Option<u32>,
    depth: Option<u32>,
    layers: Option<u32>,
    mip_levels: Option<u32>,
    data: PathBuf,
    mag_filter: Option<String>,
    min_filter: Option<String>,
    mipmap_mode: Option<String>,
    address_u: Option<String>,
    address_v: Option<String>,
    address_w: Option<String>,
    #[serde(default)]
    mip_lod_bias: f32,
    #[serde(default)]
    min_lod: f32,
    max_lod: Option<f32>,
    compare_op: Option<String>,
    border_color: Option<String>,
    max_anisotropy: Option<f32>,
    #[serde(default)]
    unnormalized_coordinates: bool,
}

/// Look a scene string up in a name table (`None` selects `default`).
fn pick<T: Copy>(s: Option<&str>, default: &str, table: &[(&str, T)], what: &str) -> R<T> {
    let s = s.unwrap_or(default);
    table.iter().find(|e| e.0 == s).map(|e| e.1).ok_or_else(|| {
        let names: Vec<_> = table.iter().map(|e| e.0).collect();
        format!("unknown {what} \"{s}\" (expected one of {})", names.join(", "))
    })
}

const FILTERS: &[(&str, vk::Filter)] = &[("NEAREST", vk::Filter::NEAREST), ("LINEAR", vk::Filter::LINEAR)];
const MIPMAP_MODES: &[(&str, vk::SamplerMipmapMode)] =
    &[("NEAREST", vk::SamplerMipmapMode::NEAREST), ("LINEAR", vk::SamplerMipmapMode::LINEAR)];
const ADDRESS_MODES: &[(&str, vk::SamplerAddressMode)] = &[
    ("REPEAT", vk::SamplerAddressMode::REPEAT),
    ("MIRRORED_REPEAT", vk::SamplerAddressMode::MIRRORED_REPEAT),
    ("CLAMP_TO_EDGE", vk::SamplerAddressMode::CLAMP_TO_EDGE),
    ("CLAMP_TO_BORDER", vk::SamplerAddressMode::CLAMP_TO_BORDER),
    ("MIRROR_CLAMP_TO_EDGE", vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE),
];
const COMPARE_OPS: &[(&str, vk::CompareOp)] = &[
    ("NEVER", vk::CompareOp::NEVER),
    ("LESS", vk::CompareOp::LESS),
    ("EQUAL", vk::CompareOp::EQUAL),
    ("LESS_OR_EQUAL", vk::CompareOp::LESS_OR_EQUAL),
    ("GREATER", vk::CompareOp::GREATER),
    ("NOT_EQUAL", vk::CompareOp::NOT_EQUAL),
    ("GREATER_OR_EQUAL", vk::CompareOp::GREATER_OR_EQUAL),
    ("ALWAYS", vk::CompareOp::ALWAYS),
];
const BORDER_COLORS: &[(&str, vk::BorderColor)] = &[
    ("FLOAT_TRANSPARENT_BLACK", vk::BorderColor::FLOAT_TRANSPARENT_BLACK),
    ("FLOAT_OPAQUE_BLACK", vk::BorderColor::FLOAT_OPAQUE_BLACK),
    ("FLOAT_OPAQUE_WHITE", vk::BorderColor::FLOAT_OPAQUE_WHITE),
];
const VIEW_TYPES: &[(&str, (vk::ImageViewType, vk::ImageType))] = &[
    ("1D", (vk::ImageViewType::TYPE_1D, vk::ImageType::TYPE_1D)),
    ("1D_ARRAY", (vk::ImageViewType::TYPE_1D_ARRAY, vk::ImageType::TYPE_1D)),
    ("2D", (vk::ImageViewType::TYPE_2D, vk::ImageType::TYPE_2D)),
    ("2D_ARRAY", (vk::ImageViewType::TYPE_2D_ARRAY, vk::ImageType::TYPE_2D)),
    ("CUBE", (vk::ImageViewType::CUBE, vk::ImageType::TYPE_2D)),
    ("CUBE_ARRAY", (vk::ImageViewType::CUBE_ARRAY, vk::ImageType::TYPE_2D)),
    ("3D", (vk::ImageViewType::TYPE_3D, vk::ImageType::TYPE_3D)),
];

/// How one channel is stored.
#[derive(Clone, Copy, PartialEq)]
enum Enc {
    Unorm8,
    Srgb8,
    Unorm16,
    F16,
    F32,
}
impl Enc {
    fn size(self) -> usize {
        match self {
            Enc::Unorm8 | Enc::Srgb8 => 1,
            Enc::Unorm16 | Enc::F16 => 2,
            Enc::F32 => 4,
        }
    }
}

/// Sampled-texture formats: (format, channels, channel encoding).
const TEX_FORMATS: &[(&str, (vk::Format, usize, Enc))] = &[
    ("R8_UNORM", (vk::Format::R8_UNORM, 1, Enc::Unorm8)),
    ("R8G8_UNORM", (vk::Format::R8G8_UNORM, 2, Enc::Unorm8)),
    ("R8G8B8A8_UNORM", (vk::Format::R8G8B8A8_UNORM, 4, Enc::Unorm8)),
    ("R8G8B8A8_SRGB", (vk::Format::R8G8B8A8_SRGB, 4, Enc::Srgb8)),
    ("R16_UNORM", (vk::Format::R16_UNORM, 1, Enc::Unorm16)),
    ("R16G16B16A16_UNORM", (vk::Format::R16G16B16A16_UNORM, 4, Enc::Unorm16)),
    ("R16_SFLOAT", (vk::Format::R16_SFLOAT, 1, Enc::F16)),
    ("R16G16_SFLOAT", (vk::Format::R16G16_SFLOAT, 2, Enc::F16)),
    ("R16G16B16A16_SFLOAT", (vk::Format::R16G16B16A16_SFLOAT, 4, Enc::F16)),
    ("R32_SFLOAT", (vk::Format::R32_SFLOAT, 1, Enc::F32)),
    ("R32G32_SFLOAT", (vk::Format::R32G32_SFLOAT, 2, Enc::F32)),
    ("R32G32B32A32_SFLOAT", (vk::Format::R32G32B32A32_SFLOAT, 4, Enc::F32)),
    ("D16_UNORM", (vk::Format::D16_UNORM, 1, Enc::Unorm16)),
    ("D32_SFLOAT", (vk::Format::D32_SFLOAT, 1, Enc::F32)),
];
/// Render-target formats (always RGBA).
const COLOR_FORMATS: &[(&str, (vk::Format, Enc))] = &[
    ("R32G32B32A32_SFLOAT", (vk::Format::R32G32B32A32_SFLOAT, Enc::F32)),
    ("R16G16B16A16_SFLOAT", (vk::Format::R16G16B16A16_SFLOAT, Enc::F16)),
    ("R8G8B8A8_UNORM", (vk::Format::R8G8B8A8_UNORM, Enc::Unorm8)),
];
const DEPTH_FORMATS: &[(&str, vk::Format)] =
    &[("D32_SFLOAT", vk::Format::D32_SFLOAT), ("D16_UNORM", vk::Format::D16_UNORM)];

fn is_depth(f: vk::Format) -> bool {
    f == vk::Format::D16_UNORM || f == vk::Format::D32_SFLOAT
}

/// Append one texel (the first `channels` of an RGBA f32 quadruple) in the given encoding.
/// unorm: round(clamp(v,0,1)*max) computed exactly (in f64); sRGB: the standard encode of
/// clamp(v,0,1) for RGB, alpha linear; f16: IEEE round-to-nearest-even; D32: clamped to [0,1].
fn encode(out: &mut Vec<u8>, px: &[f32], channels: usize, enc: Enc, depth: bool) {
    for (c, &v) in px[..channels].iter().enumerate() {
        let l = f64::from(v).clamp(0.0, 1.0);
        match enc {
            Enc::Unorm8 => out.push((l * 255.0).round() as u8),
            Enc::Srgb8 => {
                let s = if c == 3 {
                    l
                } else if l <= 0.0031308 {
                    l * 12.92
                } else {
                    1.055 * l.powf(1.0 / 2.4) - 0.055
                };
                out.push((s * 255.0).round() as u8)
            }
            Enc::Unorm16 => out.extend(((l * 65535.0).round() as u16).to_le_bytes()),
            Enc::F16 => out.extend(half::f16::from_f32(v).to_le_bytes()),
            Enc::F32 => out.extend((if depth { l as f32 } else { v }).to_le_bytes()),
        }
    }
}

/// Read back render-target bytes as f32 values.
fn decode(bytes: &[u8], enc: Enc) -> Vec<f32> {
    match enc {
        Enc::Unorm8 => bytes.iter().map(|&b| f32::from(b) / 255.0).collect(),
        Enc::F16 => bytes.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
        _ => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
    }
}

/// (set, binding) of every resource a SPIR-V module declares (OpDecorate DescriptorSet/Binding).
fn spirv_bindings(code: &[u32]) -> Vec<(u32, u32)> {
    let (mut sets, mut binds) = (std::collections::HashMap::new(), Vec::new());
    let mut i = 5; // skip the header
    while i + 3 < code.len() {
        let (words, op) = ((code[i] >> 16) as usize, code[i] & 0xffff);
        if op == 71 && words >= 4 {
            match code[i + 2] {
                34 => drop(sets.insert(code[i + 1], code[i + 3])),
                33 => binds.push((code[i + 1], code[i + 3])),
                _ => {}
            }
        }
        i += words.max(1);
    }
    binds.iter().map(|(id, b)| (sets.get(id).copied().unwrap_or(0), *b)).collect()
}

fn read_file(p: &Path) -> R<Vec<u8>> {
    std::fs::read(p).map_err(|e| format!("reading {}: {e}", p.display()))
}

// ----------------------------------------------------------------------------- validation

static VALIDATION_ERRORS: AtomicUsize = AtomicUsize::new(0);

fn validation_ok() -> R<()> {
    match VALIDATION_ERRORS.load(Ordering::SeqCst) {
        0 => Ok(()),
        n => Err(format!("{n} validation error(s) reported")),
    }
}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    let msg = unsafe { data.as_ref().and_then(|d| d.message_as_c_str()) };
    let msg = msg.map(|m| m.to_string_lossy().into_owned()).unwrap_or_default();
    let level = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        VALIDATION_ERRORS.fetch_add(1, Ordering::SeqCst);
        "ERROR"
    } else {
        "warning"
    };
    eprintln!("lvp: validation {level}: {msg}");
    vk::FALSE
}

// ----------------------------------------------------------------------------- instance

struct Inst {
    _entry: ash::Entry, // keeps libvulkan loaded
    instance: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    pd: vk::PhysicalDevice,
}

/// Device features as reported by the driver (p_next chains cleared).
#[derive(Default)]
struct Features {
    core: vk::PhysicalDeviceFeatures,
    v11: vk::PhysicalDeviceVulkan11Features<'static>,
    v12: vk::PhysicalDeviceVulkan12Features<'static>,
    v13: vk::PhysicalDeviceVulkan13Features<'static>,
}

impl Inst {
    fn new(validate: bool) -> R<Inst> {
        unsafe {
            let entry = ash::Entry::load().ctx("loading libvulkan.so.1")?;
            let layer = c"VK_LAYER_KHRONOS_validation";
            if validate {
                let layers = entry.enumerate_instance_layer_properties().ctx("vkEnumerateInstanceLayerProperties")?;
                if !layers.iter().any(|l| l.layer_name_as_c_str() == Ok(layer)) {
                    return Err(
                        "--validate: VK_LAYER_KHRONOS_validation is not available (install vulkan-validationlayers)"
                            .into(),
                    );
                }
            }
            let app = vk::ApplicationInfo::default().application_name(c"lvp").api_version(vk::API_VERSION_1_3);
            let layers = if validate { vec![layer.as_ptr()] } else { vec![] };
            let exts = if validate {
                vec![ash::ext::debug_utils::NAME.as_ptr(), ash::ext::validation_features::NAME.as_ptr()]
            } else {
                vec![]
            };
            let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
            let mut vfeatures = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
            let mut ci = vk::InstanceCreateInfo::default()
                .application_info(&app)
                .enabled_layer_names(&layers)
                .enabled_extension_names(&exts);
            if validate {
                ci = ci.push_next(&mut vfeatures);
            }
            let instance = entry.create_instance(&ci, None).ctx("vkCreateInstance")?;
            let debug = if validate {
                let du = ash::ext::debug_utils::Instance::new(&entry, &instance);
                type S = vk::DebugUtilsMessageSeverityFlagsEXT;
                type T = vk::DebugUtilsMessageTypeFlagsEXT;
                let ci = vk::DebugUtilsMessengerCreateInfoEXT::default()
                    .message_severity(S::WARNING | S::ERROR)
                    .message_type(T::GENERAL | T::VALIDATION)
                    .pfn_user_callback(Some(debug_callback));
                let messenger = du.create_debug_utils_messenger(&ci, None).ctx("vkCreateDebugUtilsMessengerEXT")?;
                Some((du, messenger))
            } else {
                None
            };
            // Prefer a CPU device (lavapipe); fall back to the first one.
            let pds = instance.enumerate_physical_devices().ctx("vkEnumeratePhysicalDevices")?;
            let cpu = pds
                .iter()
                .copied()
                .find(|&p| instance.get_physical_device_properties(p).device_type == vk::PhysicalDeviceType::CPU);
            let pd = cpu.or(pds.first().copied()).ok_or("no Vulkan physical device found")?;
            let api = instance.get_physical_device_properties(pd).api_version;
            if vk::api_version_major(api) == 1 && vk::api_version_minor(api) < 3 {
                return Err("the Vulkan device does not support Vulkan 1.3 (needed for dynamic rendering)".into());
            }
            Ok(Inst { _entry: entry, instance, debug, pd })
        }
    }

    fn features(&self) -> Features {
        let mut f = Features::default();
        let mut f2 =
            vk::PhysicalDeviceFeatures2::default().push_next(&mut f.v11).push_next(&mut f.v12).push_next(&mut f.v13);
        unsafe { self.instance.get_physical_device_features2(self.pd, &mut f2) };
        f.core = f2.features;
        f.v11.p_next = std::ptr::null_mut();
        f.v12.p_next = std::ptr::null_mut();
        f.v13.p_next = std::ptr::null_mut();
        f
    }

    /// The --info report (stderr, so stdout stays one JSON line).
    fn print_info(&self) {
        let mut p11 = vk::PhysicalDeviceVulkan11Properties::default();
        let mut p12 = vk::PhysicalDeviceVulkan12Properties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut p11).push_next(&mut p12);
        unsafe { self.instance.get_physical_device_properties2(self.pd, &mut p2) };
        let (p, f) = (p2.properties, self.features());
        let l = p.limits;
        let s = |c: Result<&std::ffi::CStr, _>| c.map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
        let v = p.api_version;
        eprintln!(
            "device: {} ({:?}), Vulkan {}.{}.{}",
            s(p.device_name_as_c_str()),
            p.device_type,
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v)
        );
        eprintln!("driver: {} ({})", s(p12.driver_name_as_c_str()), s(p12.driver_info_as_c_str()));
        eprintln!("subgroupSize: {}", p11.subgroup_size);
        eprintln!("subgroupSupportedStages: {:?}", p11.subgroup_supported_stages);
        eprintln!("subgroupSupportedOperations: {:?}", p11.subgroup_supported_operations);
        eprintln!("subgroupQuadOperationsInAllStages: {}", p11.subgroup_quad_operations_in_all_stages != 0);
        eprintln!(
            "limits: subPixelPrecisionBits={} subTexelPrecisionBits={} mipmapPrecisionBits={} maxSamplerLodBias={} \
             maxSamplerAnisotropy={} maxPushConstantsSize={} maxImageDimension2D={}",
            l.sub_pixel_precision_bits,
            l.sub_texel_precision_bits,
            l.mipmap_precision_bits,
            l.max_sampler_lod_bias,
            l.max_sampler_anisotropy,
            l.max_push_constants_size,
            l.max_image_dimension2_d
        );
        let b = |x: vk::Bool32| x != 0;
        eprintln!(
            "features: imageCubeArray={} samplerAnisotropy={} shaderImageGatherExtended={} shaderResourceMinLod={} \
             samplerMirrorClampToEdge={} samplerFilterMinmax={} shaderDemoteToHelperInvocation={} dynamicRendering={}",
            b(f.core.image_cube_array),
            b(f.core.sampler_anisotropy),
            b(f.core.shader_image_gather_extended),
            b(f.core.shader_resource_min_lod),
            b(f.v12.sampler_mirror_clamp_to_edge),
            b(f.v12.sampler_filter_minmax),
            b(f.v13.shader_demote_to_helper_invocation),
            b(f.v13.dynamic_rendering)
        );
        eprintln!("(all reported features are enabled except robustBufferAccess/robustImageAccess)");
    }

    fn destroy(self) {
        unsafe {
            if let Some((du, m)) = &self.debug {
                du.destroy_debug_utils_messenger(*m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

// ----------------------------------------------------------------------------- device

struct Gpu {
    dev: ash::Device,
    queue: vk::Queue,
    cmd_pool: vk::CommandPool,
    fence: vk::Fence,
    mem: vk::PhysicalDeviceMemoryProperties,
    objs: RefCell<Vec<(vk::ObjectType, u64)>>, // destroyed in reverse order
}

/// (stage, access) half of a barrier.
type Scope = (Stage, Access);

/// All levels/layers from 0.
fn range(aspect: vk::ImageAspectFlags, levels: u32, layers: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange { aspect_mask: aspect, level_count: levels, layer_count: layers, ..Default::default() }
}

impl Gpu {
    fn new(inst: &Inst) -> R<Gpu> {
        unsafe {
            let i = &inst.instance;
            let qf = i
                .get_physical_device_queue_family_properties(inst.pd)
                .iter()
                .position(|q| q.queue_flags.contains(vk::QueueFlags::GRAPHICS))
                .ok_or("no graphics queue family")? as u32;
            // Enable everything the driver offers except robustness (which only defines
            // out-of-bounds accesses and costs time).
            let mut f = inst.features();
            f.core.robust_buffer_access = vk::FALSE;
            f.v13.robust_image_access = vk::FALSE;
            let mut f2 = vk::PhysicalDeviceFeatures2::default()
                .features(f.core)
                .push_next(&mut f.v11)
                .push_next(&mut f.v12)
                .push_next(&mut f.v13);
            let prio = [1.0f32];
            let qci = [vk::DeviceQueueCreateInfo::default().queue_family_index(qf).queue_priorities(&prio)];
            let ci = vk::DeviceCreateInfo::default().queue_create_infos(&qci).push_next(&mut f2);
            let dev = i.create_device(inst.pd, &ci, None).ctx("vkCreateDevice")?;
            let g = Gpu {
                queue: dev.get_device_queue(qf, 0),
                cmd_pool: vk::CommandPool::null(),
                fence: vk::Fence::null(),
                mem: i.get_physical_device_memory_properties(inst.pd),
                objs: RefCell::new(Vec::new()),
                dev,
            };
            let pool_ci = vk::CommandPoolCreateInfo::default().queue_family_index(qf);
            let cmd_pool = g.keep(g.dev.create_command_pool(&pool_ci, None).ctx("vkCreateCommandPool")?);
            let fence = g.keep(g.dev.create_fence(&vk::FenceCreateInfo::default(), None).ctx("vkCreateFence")?);
            Ok(Gpu { cmd_pool, fence, ..g })
        }
    }

    /// Remember a handle for destruction at the end.
    fn keep<T: Handle + Copy>(&self, h: T) -> T {
        self.objs.borrow_mut().push((T::TYPE, h.as_raw()));
        h
    }

    fn memory(&self, req: vk::MemoryRequirements, flags: vk::MemoryPropertyFlags) -> R<vk::DeviceMemory> {
        let m = &self.mem;
        let idx = (0..m.memory_type_count)
            .find(|&i| {
                req.memory_type_bits & (1 << i) != 0 && m.memory_types[i as usize].property_flags.contains(flags)
            })
            .ok_or_else(|| format!("no memory type with {flags:?}"))?;
        let ai = vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(idx);
        Ok(self.keep(unsafe { self.dev.allocate_memory(&ai, None) }.ctx("vkAllocateMemory")?))
    }

    /// Create an image in device-local memory.
    fn image(&self, ci: &vk::ImageCreateInfo) -> R<vk::Image> {
        unsafe {
            let img = self.keep(self.dev.create_image(ci, None).ctx("vkCreateImage")?);
            let mem =
                self.memory(self.dev.get_image_memory_requirements(img), vk::MemoryPropertyFlags::DEVICE_LOCAL)?;
            self.dev.bind_image_memory(img, mem, 0).ctx("vkBindImageMemory")?;
            Ok(img)
        }
    }

    fn view(
        &self,
        img: vk::Image,
        ty: vk::ImageViewType,
        fmt: vk::Format,
        range: vk::ImageSubresourceRange,
    ) -> R<vk::ImageView> {
        let ci = vk::ImageViewCreateInfo::default().image(img).view_type(ty).format(fmt).subresource_range(range);
        Ok(self.keep(unsafe { self.dev.create_image_view(&ci, None) }.ctx("vkCreateImageView")?))
    }

    /// Create a persistently mapped, host-coherent buffer.
    fn host_buffer(&self, size: usize, usage: vk::BufferUsageFlags) -> R<(vk::Buffer, *mut u8)> {
        unsafe {
            let ci = vk::BufferCreateInfo::default().size(size.max(4) as u64).usage(usage);
            let buf = self.keep(self.dev.create_buffer(&ci, None).ctx("vkCreateBuffer")?);
            let flags = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let mem = self.memory(self.dev.get_buffer_memory_requirements(buf), flags)?;
            self.dev.bind_buffer_memory(buf, mem, 0).ctx("vkBindBufferMemory")?;
            let ptr = self.dev.map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()).ctx("vkMapMemory")?;
            Ok((buf, ptr.cast()))
        }
    }

    /// Allocate a primary command buffer and begin recording it.
    fn begin(&self) -> R<vk::CommandBuffer> {
        unsafe {
            let ai = vk::CommandBufferAllocateInfo::default().command_pool(self.cmd_pool).command_buffer_count(1);
            let cb = self.dev.allocate_command_buffers(&ai).ctx("vkAllocateCommandBuffers")?[0];
            self.dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default()).ctx("vkBeginCommandBuffer")?;
            Ok(cb)
        }
    }

    /// Submit one command buffer and wait for its fence; returns wall-clock ms from submit to signal.
    fn submit_wait(&self, cb: vk::CommandBuffer) -> R<f64> {
        validation_ok()?; // invalid work can crash lavapipe: never submit it
        unsafe {
            self.dev.reset_fences(&[self.fence]).ctx("vkResetFences")?;
            let cbs = [cb];
            let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
            let t0 = Instant::now();
            self.dev.queue_submit(self.queue, &submit, self.fence).ctx("vkQueueSubmit")?;
            self.dev.wait_for_fences(&[self.fence], true, u64::MAX).ctx("vkWaitForFences")?;
            Ok(t0.elapsed().as_secs_f64() * 1e3)
        }
    }

    /// Image layout transition `layouts.0 -> layouts.1` ordered after `src` and before `dst`.
    fn barrier(
        &self,
        cb: vk::CommandBuffer,
        img: vk::Image,
        range: vk::ImageSubresourceRange,
        layouts: (Layout, Layout),
        src: Scope,
        dst: Scope,
    ) {
        let b = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(src.0)
            .src_access_mask(src.1)
            .dst_stage_mask(dst.0)
            .dst_access_mask(dst.1)
            .old_layout(layouts.0)
            .new_layout(layouts.1)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(img)
            .subresource_range(range)];
        unsafe { self.dev.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().image_memory_barriers(&b)) };
    }

    fn destroy(self) {
        unsafe {
            let d = &self.dev;
            d.device_wait_idle().ok();
            for &(t, h) in self.objs.borrow().iter().rev() {
                match t {
                    vk::ObjectType::IMAGE => d.destroy_image(vk::Image::from_raw(h), None),
                    vk::ObjectType::IMAGE_VIEW => d.destroy_image_view(vk::ImageView::from_raw(h), None),
                    vk::ObjectType::BUFFER => d.destroy_buffer(vk::Buffer::from_raw(h), None),
                    vk::ObjectType::DEVICE_MEMORY => d.free_memory(vk::DeviceMemory::from_raw(h), None),
                    vk::ObjectType::SAMPLER => d.destroy_sampler(vk::Sampler::from_raw(h), None),
                    vk::ObjectType::SHADER_MODULE => d.destroy_shader_module(vk::ShaderModule::from_raw(h), None),
                    vk::ObjectType::PIPELINE => d.destroy_pipeline(vk::Pipeline::from_raw(h), None),
                    vk::ObjectType::PIPELINE_LAYOUT => d.destroy_pipeline_layout(vk::PipelineLayout::from_raw(h), None),
                    vk::ObjectType::DESCRIPTOR_SET_LAYOUT => {
                        d.destroy_descriptor_set_layout(vk::DescriptorSetLayout::from_raw(h), None)
                    }
                    vk::ObjectType::DESCRIPTOR_POOL => d.destroy_descriptor_pool(vk::DescriptorPool::from_raw(h), None),
                    vk::ObjectType::COMMAND_POOL => d.destroy_command_pool(vk::CommandPool::from_raw(h), None),
                    vk::ObjectType::FENCE => d.destroy_fence(vk::Fence::from_raw(h), None),
                    other => unreachable!("untracked object type {other:?}"),
                }
            }
            d.destroy_device(None);
        }
    }
}

// ----------------------------------------------------------------------------- textures

/// A texture ready to bind.
struct Texture {
    set: u32,
    binding: u32,
    view: vk::ImageView,
    sampler: vk::Sampler,
}

/// One image's pending upload: copy regions into `staging`, and the full subresource range.
struct Upload {
    image: vk::Image,
    regions: Vec<vk::BufferImageCopy>,
    range: vk::ImageSubresourceRange,
}

/// Create the image, view and sampler of one texture and append its converted texels to
/// `staging` (the copy itself is recorded by `upload`).
fn create_texture(
    g: &Gpu,
    inst: &Inst,
    t: &Tex,
    base: &Path,
    staging: &mut Vec<u8>,
    uploads: &mut Vec<Upload>,
) -> R<Texture> {
    let (fmt, channels, enc) = pick(Some(t.format.as_str()), "", TEX_FORMATS, "texture format")?;
    let (view_type, image_type) = pick(t.view_type.as_deref(), "2D", VIEW_TYPES, "view_type")?;
    type V = vk::ImageViewType;
    let cube = view_type == V::CUBE || view_type == V::CUBE_ARRAY;
    let arrayed = cube || view_type == V::TYPE_1D_ARRAY || view_type == V::TYPE_2D_ARRAY;
    let (w, h, d) = (t.width, t.height.unwrap_or(1), t.depth.unwrap_or(1));
    let layers = t.layers.unwrap_or(if cube { 6 } else { 1 });
    let mips = t.mip_levels.unwrap_or(1);
    let name = format!("texture (set {}, binding {})", t.set, t.binding);
    let fail = |m: &str| Err(format!("{name}: {m}"));
    if w == 0 || h == 0 || d == 0 || layers == 0 || mips == 0 {
        return fail("width/height/depth/layers/mip_levels must be >= 1");
    }
    if (image_type == vk::ImageType::TYPE_1D && h != 1) || (image_type != vk::ImageType::TYPE_3D && d != 1) {
        return fail("height must be 1 for 1D views, depth must be 1 unless 3D");
    }
    if !arrayed && layers != 1 {
        return fail("layers > 1 needs an array view type");
    }
    if cube && (w != h || !layers.is_multiple_of(6) || (view_type == V::CUBE && layers != 6)) {
        return fail("cube textures need width == height and 6 layers (CUBE) or 6*n layers (CUBE_ARRAY)");
    }
    if mips > 32 - w.max(h).max(d).leading_zeros() {
        return fail("mip_levels exceeds the full mip chain of the base level");
    }
    let aspect = if is_depth(fmt) { vk::ImageAspectFlags::DEPTH } else { vk::ImageAspectFlags::COLOR };
    let linear = [&t.mag_filter, &t.min_filter, &t.mipmap_mode].iter().any(|f| f.as_deref() == Some("LINEAR"));
    let flags = if cube { vk::ImageCreateFlags::CUBE_COMPATIBLE } else { vk::ImageCreateFlags::empty() };
    let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
    let (i, pd) = (&inst.instance, inst.pd);

    unsafe {
        // Capability checks give clear errors instead of undefined results. Linear filtering
        // needs FILTER_LINEAR only without compare; compare needs DEPTH_COMPARISON.
        let mut fp3 = vk::FormatProperties3::default();
        i.get_physical_device_format_properties2(pd, fmt, &mut vk::FormatProperties2::default().push_next(&mut fp3));
        let feats = fp3.optimal_tiling_features;
        type FF = vk::FormatFeatureFlags2;
        if !feats.contains(FF::SAMPLED_IMAGE | FF::TRANSFER_DST) {
            return fail(&format!("format {} cannot be sampled/uploaded on this device", t.format));
        }
        if linear && t.compare_op.is_none() && !feats.contains(FF::SAMPLED_IMAGE_FILTER_LINEAR) {
            return fail(&format!("format {} does not support LINEAR filtering on this device", t.format));
        }
        if t.compare_op.is_some() && !feats.contains(FF::SAMPLED_IMAGE_DEPTH_COMPARISON) {
            return fail(&format!("format {} does not support depth comparison on this device", t.format));
        }
        let ifp = i
            .get_physical_device_image_format_properties(pd, fmt, image_type, vk::ImageTiling::OPTIMAL, usage, flags)
            .ctx(&format!("{name}: vkGetPhysicalDeviceImageFormatProperties"))?;
        let e = ifp.max_extent;
        if w > e.width || h > e.height || d > e.depth || mips > ifp.max_mip_levels || layers > ifp.max_array_layers {
            return fail("size, layers or mip_levels exceed the device limits for this format");
        }
        let limits = i.get_physical_device_properties(pd).limits;
        if t.mip_lod_bias.abs() > limits.max_sampler_lod_bias {
            return fail(&format!("|mip_lod_bias| exceeds maxSamplerLodBias {}", limits.max_sampler_lod_bias));
        }
        if let Some(a) = t.max_anisotropy
            && !(1.0..=limits.max_sampler_anisotropy).contains(&a)
        {
            return fail(&format!("max_anisotropy must be in [1, {}]", limits.max_sampler_anisotropy));
        }

        // Convert the f32 data: per mip level, all layers, each w_m*h_m*d_m RGBA texels.
        let raw = read_file(&base.join(&t.data))?;
        let dims = |m: u32| ((w >> m).max(1), (h >> m).max(1), (d >> m).max(1));
        let texels: usize = (0..mips).map(dims).map(|(a, b, c)| (a * b * c * layers) as usize).sum();
        if raw.len() != texels * 16 {
            let (path, len) = (t.data.display(), raw.len());
            return fail(&format!("data {path} has {len} bytes, expected {} ({texels} RGBA f32 texels)", texels * 16));
        }
        let floats = decode(&raw, Enc::F32);
        let (mut regions, mut src) = (Vec::new(), 0);
        for m in 0..mips {
            let (wm, hm, dm) = dims(m);
            staging.resize(staging.len().next_multiple_of(16), 0); // offset alignment for every format
            let layers = vk::ImageSubresourceLayers {
                aspect_mask: aspect,
                mip_level: m,
                base_array_layer: 0,
                layer_count: layers,
            };
            regions.push(vk::BufferImageCopy {
                buffer_offset: staging.len() as u64,
                image_subresource: layers,
                image_extent: vk::Extent3D { width: wm, height: hm, depth: dm },
                ..Default::default()
            });
            let n = (wm * hm * dm * layers.layer_count) as usize * 4;
            for px in floats[src..src + n].chunks_exact(4) {
                encode(staging, px, channels, enc, is_depth(fmt));
            }
            src += n;
        }

        let ci = vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(image_type)
            .format(fmt)
            .extent(vk::Extent3D { width: w, height: h, depth: d })
            .mip_levels(mips)
            .array_layers(layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage);
        let image = g.image(&ci)?;
        let range = range(aspect, mips, layers);
        let view = g.view(image, view_type, fmt, range)?;
        uploads.push(Upload { image, regions, range });

        let addr = |s: &Option<String>| pick(s.as_deref(), "REPEAT", ADDRESS_MODES, "address mode");
        let sci = vk::SamplerCreateInfo::default()
            .mag_filter(pick(t.mag_filter.as_deref(), "NEAREST", FILTERS, "mag_filter")?)
            .min_filter(pick(t.min_filter.as_deref(), "NEAREST", FILTERS, "min_filter")?)
            .mipmap_mode(pick(t.mipmap_mode.as_deref(), "NEAREST", MIPMAP_MODES, "mipmap_mode")?)
            .address_mode_u(addr(&t.address_u)?)
            .address_mode_v(addr(&t.address_v)?)
            .address_mode_w(addr(&t.address_w)?)
            .mip_lod_bias(t.mip_lod_bias)
            .anisotropy_enable(t.max_anisotropy.is_some())
            .max_anisotropy(t.max_anisotropy.unwrap_or(1.0))
            .compare_enable(t.compare_op.is_some())
            .compare_op(pick(t.compare_op.as_deref(), "NEVER", COMPARE_OPS, "compare_op")?)
            .min_lod(t.min_lod)
            .max_lod(t.max_lod.unwrap_or(vk::LOD_CLAMP_NONE))
            .border_color(pick(t.border_color.as_deref(), "FLOAT_TRANSPARENT_BLACK", BORDER_COLORS, "border_color")?)
            .unnormalized_coordinates(t.unnormalized_coordinates);
        let sampler = g.keep(g.dev.create_sampler(&sci, None).ctx("vkCreateSampler")?);
        Ok(Texture { set: t.set, binding: t.binding, view, sampler })
    }
}

/// Copy all texture data in one submission and leave the images in SHADER_READ_ONLY_OPTIMAL.
fn upload(g: &Gpu, staging: &[u8], uploads: &[Upload]) -> R<()> {
    if uploads.is_empty() {
        return Ok(());
    }
    unsafe {
        let (buf, ptr) = g.host_buffer(staging.len(), vk::BufferUsageFlags::TRANSFER_SRC)?;
        std::ptr::copy_nonoverlapping(staging.as_ptr(), ptr, staging.len());
        let cb = g.begin()?;
        let copy = (Stage::COPY, Access::TRANSFER_WRITE);
        let sample = (Stage::VERTEX_SHADER | Stage::FRAGMENT_SHADER, Access::SHADER_SAMPLED_READ);
        for u in uploads {
            g.barrier(
                cb,
                u.image,
                u.range,
                (Layout::UNDEFINED, Layout::TRANSFER_DST_OPTIMAL),
                (Stage::NONE, Access::NONE),
                copy,
            );
            g.dev.cmd_copy_buffer_to_image(cb, buf, u.image, Layout::TRANSFER_DST_OPTIMAL, &u.regions);
            g.barrier(
                cb,
                u.image,
                u.range,
                (Layout::TRANSFER_DST_OPTIMAL, Layout::SHADER_READ_ONLY_OPTIMAL),
                copy,
                sample,
            );
        }
        g.dev.end_command_buffer(cb).ctx("vkEndCommandBuffer")?;
        g.submit_wait(cb)?;
        Ok(())
    }
}

/// One set per set index up to the highest used (gaps get empty layouts), one combined image
/// sampler per texture, visible to both stages.
fn descriptor_sets(g: &Gpu, textures: &[Texture]) -> R<(Vec<vk::DescriptorSetLayout>, Vec<vk::DescriptorSet>)> {
    let nsets = textures.iter().map(|t| t.set + 1).max().unwrap_or(0);
    let combined = vk::DescriptorType::COMBINED_IMAGE_SAMPLER;
    let mut layouts = Vec::new();
    unsafe {
        for s in 0..nsets {
            let mut binds: Vec<_> = textures.iter().filter(|t| t.set == s).map(|t| t.binding).collect();
            binds.sort();
            if binds.windows(2).any(|p| p[0] == p[1]) {
                return Err(format!("two textures share a binding in set {s}"));
            }
            let binds: Vec<_> = binds
                .iter()
                .map(|&b| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b)
                        .descriptor_type(combined)
                        .descriptor_count(1)
                        .stage_flags(STAGES)
                })
                .collect();
            let ci = vk::DescriptorSetLayoutCreateInfo::default().bindings(&binds);
            layouts.push(g.keep(g.dev.create_descriptor_set_layout(&ci, None).ctx("vkCreateDescriptorSetLayout")?));
        }
        if nsets == 0 {
            return Ok((layouts, Vec::new()));
        }
        let sizes = [vk::DescriptorPoolSize { ty: combined, descriptor_count: textures.len() as u32 }];
        let ci = vk::DescriptorPoolCreateInfo::default().max_sets(nsets).pool_sizes(&sizes);
        let pool = g.keep(g.dev.create_descriptor_pool(&ci, None).ctx("vkCreateDescriptorPool")?);
        let ai = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts);
        let sets = g.dev.allocate_descriptor_sets(&ai).ctx("vkAllocateDescriptorSets")?;
        let layout = Layout::SHADER_READ_ONLY_OPTIMAL;
        let infos: Vec<_> = textures
            .iter()
            .map(|t| [vk::DescriptorImageInfo { sampler: t.sampler, image_view: t.view, image_layout: layout }])
            .collect();
        let writes: Vec<_> = textures
            .iter()
            .zip(&infos)
            .map(|(t, info)| {
                let set = sets[t.set as usize];
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(t.binding)
                    .descriptor_type(combined)
                    .image_info(info)
            })
            .collect();
        g.dev.update_descriptor_sets(&writes, &[]);
        Ok((layouts, sets))
    }
}

// ----------------------------------------------------------------------------- pipeline

const STAGES: vk::ShaderStageFlags = vk::ShaderStageFlags::ALL_GRAPHICS;

const TOPOLOGIES: &[(&str, vk::PrimitiveTopology)] = &[
    ("TRIANGLE_LIST", vk::PrimitiveTopology::TRIANGLE_LIST),
    ("TRIANGLE_STRIP", vk::PrimitiveTopology::TRIANGLE_STRIP),
    ("POINT_LIST", vk::PrimitiveTopology::POINT_LIST),
    ("LINE_LIST", vk::PrimitiveTopology::LINE_LIST),
];

/// The scene's sample count as Vulkan's flag (1, 2, 4, 8 or 16).
fn sample_count(sc: &Scene) -> R<vk::SampleCountFlags> {
    match sc.samples.unwrap_or(1) {
        n @ (1 | 2 | 4 | 8 | 16) => Ok(vk::SampleCountFlags::from_raw(n)),
        n => Err(format!("samples: {n} is not 1, 2, 4, 8 or 16")),
    }
}

/// Vertex input: one interleaved f32 binding, attribute i at location i.
struct VertexInput {
    bindings: Vec<vk::VertexInputBindingDescription>,
    attributes: Vec<vk::VertexInputAttributeDescription>,
    data: Vec<u8>,
    count: u32,
}

fn vertex_input(sc: &Scene) -> R<VertexInput> {
    let Some(verts) = &sc.vertices else {
        // No vertex buffer: 3 vertices for a fullscreen triangle built from gl_VertexIndex.
        return Ok(VertexInput { bindings: vec![], attributes: vec![], data: vec![], count: 3 });
    };
    let attrs = sc.attributes.clone().unwrap_or_else(|| vec![verts.first().map_or(4, |v| v.len() as u32)]);
    let per_vertex: u32 = attrs.iter().sum();
    if attrs.iter().any(|&n| !(1..=4).contains(&n)) {
        return Err("attributes: each component count must be 1..4".into());
    }
    if verts.is_empty() || verts.iter().any(|v| v.len() != per_vertex as usize) {
        return Err(format!("vertices: need >= 1 vertex, each with {per_vertex} floats (sum of attributes)"));
    }
    use vk::Format as F;
    let formats = [F::R32_SFLOAT, F::R32G32_SFLOAT, F::R32G32B32_SFLOAT, F::R32G32B32A32_SFLOAT];
    let (mut attributes, mut offset) = (Vec::new(), 0);
    for (location, &n) in attrs.iter().enumerate() {
        let format = formats[n as usize - 1];
        attributes.push(vk::VertexInputAttributeDescription { location: location as u32, binding: 0, format, offset });
        offset += 4 * n;
    }
    let bindings =
        vec![vk::VertexInputBindingDescription { binding: 0, stride: offset, input_rate: vk::VertexInputRate::VERTEX }];
    let data = verts.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
    Ok(VertexInput { bindings, attributes, data, count: verts.len() as u32 })
}

/// Load a SPIR-V module. A declared but unprovided binding is legal if unused, but a used
/// unbound descriptor is undefined behaviour (lavapipe may crash), so warn about it.
fn shader_module(g: &Gpu, path: &Path, textures: &[Texture]) -> R<vk::ShaderModule> {
    let bytes = read_file(path)?;
    let code = ash::util::read_spv(&mut std::io::Cursor::new(bytes)).map_err(|e| format!("{}: {e}", path.display()))?;
    for (s, b) in spirv_bindings(&code) {
        if !textures.iter().any(|t| t.set == s && t.binding == b) {
            eprintln!(
                "lvp: warning: {} declares set {s} binding {b}, which the scene does not provide \
                 (undefined results, or a crash, if the shader uses it)",
                path.display()
            );
        }
    }
    let ci = vk::ShaderModuleCreateInfo::default().code(&code);
    Ok(g.keep(unsafe { g.dev.create_shader_module(&ci, None) }.ctx("vkCreateShaderModule")?))
}

/// Graphics pipeline for dynamic rendering: full viewport, triangle list, fill, no culling,
/// one sample, optional alpha blending, optional depth test.
#[allow(clippy::too_many_arguments)]
fn create_pipeline(
    g: &Gpu,
    sc: &Scene,
    base: &Path,
    textures: &[Texture],
    layout: vk::PipelineLayout,
    vin: &VertexInput,
    color_fmt: vk::Format,
    depth_fmt: vk::Format,
) -> R<vk::Pipeline> {
    let (vs, fs) = (
        shader_module(g, &base.join(&sc.vertex_spv), textures)?,
        shader_module(g, &base.join(&sc.fragment_spv), textures)?,
    );
    let entry = |e: &Option<String>| {
        CString::new(e.as_deref().unwrap_or("main")).map_err(|_| "bad entry point name".to_string())
    };
    let (vs_entry, fs_entry) = (entry(&sc.vertex_entry)?, entry(&sc.fragment_entry)?);
    let main = c"main";
    let stage = |s, m, e| vk::PipelineShaderStageCreateInfo::default().stage(s).module(m).name(e);
    let mut stages =
        vec![stage(vk::ShaderStageFlags::VERTEX, vs, &vs_entry), stage(vk::ShaderStageFlags::FRAGMENT, fs, &fs_entry)];
    // the optional stages, entry point "main"
    let tessellated = match (&sc.tess_control_spv, &sc.tess_eval_spv) {
        (Some(c), Some(e)) => {
            stages.push(stage(
                vk::ShaderStageFlags::TESSELLATION_CONTROL,
                shader_module(g, &base.join(c), textures)?,
                main,
            ));
            stages.push(stage(
                vk::ShaderStageFlags::TESSELLATION_EVALUATION,
                shader_module(g, &base.join(e), textures)?,
                main,
            ));
            true
        }
        (None, None) => false,
        _ => return Err("tess_control_spv and tess_eval_spv go together".into()),
    };
    if let Some(gs) = &sc.geometry_spv {
        stages.push(stage(vk::ShaderStageFlags::GEOMETRY, shader_module(g, &base.join(gs), textures)?, main));
    }
    let vertex = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&vin.bindings)
        .vertex_attribute_descriptions(&vin.attributes);
    let topology = match tessellated {
        true => vk::PrimitiveTopology::PATCH_LIST,
        false => pick(sc.topology.as_deref(), "TRIANGLE_LIST", TOPOLOGIES, "topology")?,
    };
    let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(topology);
    let patch_size = sc.patch_size.unwrap_or(3);
    if tessellated && !(1..=32).contains(&patch_size) {
        return Err(format!("patch_size: {patch_size} is not 1..32"));
    }
    let tessellation = vk::PipelineTessellationStateCreateInfo::default().patch_control_points(patch_size);
    let (w, h) = (sc.width, sc.height);
    let viewports =
        [vk::Viewport { x: 0.0, y: 0.0, width: w as f32, height: h as f32, min_depth: 0.0, max_depth: 1.0 }];
    let scissors = [vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: w, height: h } }];
    let viewport = vk::PipelineViewportStateCreateInfo::default().viewports(&viewports).scissors(&scissors);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0);
    let mut multisample = vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(sample_count(sc)?);
    if let Some(m) = sc.min_sample_shading {
        multisample = multisample.sample_shading_enable(true).min_sample_shading(m);
    }
    let mut depth = vk::PipelineDepthStencilStateCreateInfo::default();
    if let Some(d) = &sc.depth {
        let op = pick(d.compare_op.as_deref(), "LESS", COMPARE_OPS, "depth compare_op")?;
        depth = depth.depth_test_enable(true).depth_write_enable(d.write.unwrap_or(true)).depth_compare_op(op);
    }
    let mut attachment = vk::PipelineColorBlendAttachmentState::default().color_write_mask(vk::ColorComponentFlags::RGBA);
    match sc.blend.as_deref() {
        None => {}
        // "over": colour src·srcA + dst·(1 − srcA), alpha src + dst·(1 − srcA)
        Some("alpha") => {
            attachment = attachment
                .blend_enable(true)
                .src_color_blend_factor(vk::BlendFactor::SRC_ALPHA)
                .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                .color_blend_op(vk::BlendOp::ADD)
                .src_alpha_blend_factor(vk::BlendFactor::ONE)
                .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                .alpha_blend_op(vk::BlendOp::ADD);
        }
        Some(o) => return Err(format!("unknown blend \"{o}\" (expected \"alpha\")")),
    }
    let attachments = [attachment];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
    let color_formats = [color_fmt];
    let mut rendering = vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(&color_formats)
        .depth_attachment_format(depth_fmt);
    let mut ci = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .depth_stencil_state(&depth)
        .color_blend_state(&blend)
        .layout(layout)
        .push_next(&mut rendering);
    if tessellated {
        ci = ci.tessellation_state(&tessellation);
    }
    let pipelines = unsafe { g.dev.create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None) }
        .map_err(|(_, e)| format!("vkCreateGraphicsPipelines failed: {e:?}"))?;
    Ok(g.keep(pipelines[0]))
}

// ----------------------------------------------------------------------------- main

struct Args {
    scene: Option<PathBuf>,
    out_raw: Option<PathBuf>,
    out_png: Option<PathBuf>,
    iterations: usize,
    warmup: usize,
    validate: bool,
    info: bool,
}

fn parse_args() -> R<Args> {
    let mut a =
        Args { scene: None, out_raw: None, out_png: None, iterations: 1, warmup: 0, validate: false, info: false };
    let mut it = std::env::args().skip(1);
    while let Some(s) = it.next() {
        match s.as_str() {
            "--out-raw" => a.out_raw = Some(it.next().ok_or("--out-raw needs a file")?.into()),
            "--out-png" => a.out_png = Some(it.next().ok_or("--out-png needs a file")?.into()),
            "--iterations" => {
                a.iterations = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--iterations needs a positive integer")?
            }
            "--warmup" => a.warmup = it.next().and_then(|n| n.parse().ok()).ok_or("--warmup needs an integer")?,
            "--validate" => a.validate = true,
            "--info" => a.info = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ if !s.starts_with('-') && a.scene.is_none() => a.scene = Some(s.into()),
            _ => return Err(format!("unexpected argument {s}\n{USAGE}")),
        }
    }
    if a.scene.is_none() && !a.info {
        return Err(format!("no scene file given\n{USAGE}"));
    }
    Ok(a)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("lvp: error: {e}");
        std::process::exit(1);
    }
}

fn run() -> R<()> {
    let args = parse_args()?;
    let scene = match &args.scene {
        Some(p) => Some(serde_json::from_slice::<Scene>(&read_file(p)?).map_err(|e| format!("{}: {e}", p.display()))?),
        None => None,
    };
    let inst = Inst::new(args.validate)?;
    if args.info {
        inst.print_info();
    }
    let result = match &scene {
        Some(scene) => {
            // Relative paths in the scene are relative to the scene file.
            let base = args.scene.as_deref().and_then(Path::parent).unwrap_or(Path::new("")).to_path_buf();
            let g = Gpu::new(&inst)?;
            let r = render(&g, &inst, scene, &base, &args);
            g.destroy();
            r
        }
        None => Ok(()),
    };
    inst.destroy();
    result?;
    validation_ok()
}

fn render(g: &Gpu, inst: &Inst, sc: &Scene, base: &Path, args: &Args) -> R<()> {
    let (w, h) = (sc.width, sc.height);
    if w == 0 || h == 0 {
        return Err("width and height must be >= 1".into());
    }
    let (color_fmt, color_enc) =
        pick(sc.color_format.as_deref(), "R32G32B32A32_SFLOAT", COLOR_FORMATS, "color_format")?;
    let depth_fmt = match &sc.depth {
        Some(d) => pick(d.format.as_deref(), "D32_SFLOAT", DEPTH_FORMATS, "depth format")?,
        None => vk::Format::UNDEFINED,
    };
    let dev = &g.dev;
    unsafe {
        let (mut staging, mut uploads, mut textures) = (Vec::new(), Vec::new(), Vec::new());
        for t in &sc.textures {
            textures.push(create_texture(g, inst, t, base, &mut staging, &mut uploads)?);
        }
        upload(g, &staging, &uploads)?;
        let (set_layouts, sets) = descriptor_sets(g, &textures)?;

        // Push constants: visible to both stages at offset 0.
        let pc_bytes: Vec<u8> = sc.push_constants.iter().flat_map(|f| f.to_le_bytes()).collect();
        let pc_ranges = [vk::PushConstantRange { stage_flags: STAGES, offset: 0, size: pc_bytes.len() as u32 }];
        let pc_ranges = if pc_bytes.is_empty() { &pc_ranges[..0] } else { &pc_ranges[..] };
        let layout_ci =
            vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts).push_constant_ranges(pc_ranges);
        let layout = g.keep(dev.create_pipeline_layout(&layout_ci, None).ctx("vkCreatePipelineLayout")?);

        let vin = vertex_input(sc)?;
        let pipeline = create_pipeline(g, sc, base, &textures, layout, &vin, color_fmt, depth_fmt)?;
        validation_ok()?; // an inconsistent layout can crash recording: stop here
        let vertex_buffer = if vin.data.is_empty() {
            None
        } else {
            let (buf, ptr) = g.host_buffer(vin.data.len(), vk::BufferUsageFlags::VERTEX_BUFFER)?;
            std::ptr::copy_nonoverlapping(vin.data.as_ptr(), ptr, vin.data.len());
            Some(buf)
        };

        // Render targets and the readback buffer.
        let samples = sample_count(sc)?;
        let target = |fmt, usage, aspect, samples| -> R<_> {
            let ci = vk::ImageCreateInfo::default()
                .image_type(vk::ImageType::TYPE_2D)
                .format(fmt)
                .extent(vk::Extent3D { width: w, height: h, depth: 1 })
                .mip_levels(1)
                .array_layers(1)
                .samples(samples)
                .tiling(vk::ImageTiling::OPTIMAL)
                .usage(usage);
            let img = g.image(&ci)?;
            Ok((img, g.view(img, vk::ImageViewType::TYPE_2D, fmt, range(aspect, 1, 1))?, range(aspect, 1, 1)))
        };
        // with several samples the draw renders into a multisampled image that the render
        // pass resolves (the average of each pixel's samples) into the single-sample `color`
        let one = vk::SampleCountFlags::TYPE_1;
        let (color, color_view, color_range) = target(
            color_fmt,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            vk::ImageAspectFlags::COLOR,
            one,
        )?;
        let ms = match samples == one {
            true => None,
            false => {
                Some(target(color_fmt, vk::ImageUsageFlags::COLOR_ATTACHMENT, vk::ImageAspectFlags::COLOR, samples)?)
            }
        };
        let depth = match sc.depth {
            Some(_) => Some(target(
                depth_fmt,
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
                vk::ImageAspectFlags::DEPTH,
                samples,
            )?),
            None => None,
        };
        let out_bytes = (w * h) as usize * 4 * color_enc.size();
        let (readback, readback_ptr) = g.host_buffer(out_bytes, vk::BufferUsageFlags::TRANSFER_DST)?;

        // The timed command buffer: layout transitions, clear (load op) and draw. Each submit
        // first waits for the previous one's attachment writes (write-after-write).
        let color_out =
            (Stage::COLOR_ATTACHMENT_OUTPUT, Access::COLOR_ATTACHMENT_WRITE | Access::COLOR_ATTACHMENT_READ);
        let depth_out = (
            Stage::EARLY_FRAGMENT_TESTS | Stage::LATE_FRAGMENT_TESTS,
            Access::DEPTH_STENCIL_ATTACHMENT_WRITE | Access::DEPTH_STENCIL_ATTACHMENT_READ,
        );
        let cb = g.begin()?;
        g.barrier(cb, color, color_range, (Layout::UNDEFINED, Layout::COLOR_ATTACHMENT_OPTIMAL), color_out, color_out);
        if let Some((img, _, range)) = ms {
            g.barrier(cb, img, range, (Layout::UNDEFINED, Layout::COLOR_ATTACHMENT_OPTIMAL), color_out, color_out);
        }
        if let Some((img, _, range)) = depth {
            g.barrier(cb, img, range, (Layout::UNDEFINED, Layout::DEPTH_ATTACHMENT_OPTIMAL), depth_out, depth_out);
        }
        let mut color_att = [vk::RenderingAttachmentInfo::default()
            .image_view(color_view)
            .image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(vk::ClearValue { color: vk::ClearColorValue { float32: sc.clear_color } })];
        if let Some((_, ms_view, _)) = ms {
            color_att[0] = color_att[0]
                .image_view(ms_view)
                .store_op(vk::AttachmentStoreOp::DONT_CARE)
                .resolve_mode(vk::ResolveModeFlags::AVERAGE)
                .resolve_image_view(color_view)
                .resolve_image_layout(Layout::COLOR_ATTACHMENT_OPTIMAL);
        }
        let depth_clear = sc.depth.as_ref().and_then(|d| d.clear).unwrap_or(1.0);
        let depth_att = depth.map(|(_, view, _)| {
            vk::RenderingAttachmentInfo::default()
                .image_view(view)
                .image_layout(Layout::DEPTH_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::DONT_CARE)
                .clear_value(vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue { depth: depth_clear, stencil: 0 },
                })
        });
        let area = vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: w, height: h } };
        let mut ri = vk::RenderingInfo::default().render_area(area).layer_count(1).color_attachments(&color_att);
        if let Some(d) = &depth_att {
            ri = ri.depth_attachment(d);
        }
        dev.cmd_begin_rendering(cb, &ri);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        if !sets.is_empty() {
            dev.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::GRAPHICS, layout, 0, &sets, &[]);
        }
        if !pc_bytes.is_empty() {
            dev.cmd_push_constants(cb, layout, STAGES, 0, &pc_bytes);
        }
        if let Some(vb) = vertex_buffer {
            dev.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
        }
        dev.cmd_draw(cb, vin.count, 1, 0, 0);
        dev.cmd_end_rendering(cb);
        dev.end_command_buffer(cb).ctx("vkEndCommandBuffer")?;

        // The readback command buffer (not timed): image -> host-visible buffer.
        let rb = g.begin()?;
        let to_copy = (Layout::COLOR_ATTACHMENT_OPTIMAL, Layout::TRANSFER_SRC_OPTIMAL);
        g.barrier(rb, color, color_range, to_copy, color_out, (Stage::COPY, Access::TRANSFER_READ));
        let region = vk::BufferImageCopy {
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                layer_count: 1,
                ..Default::default()
            },
            image_extent: vk::Extent3D { width: w, height: h, depth: 1 },
            ..Default::default()
        };
        dev.cmd_copy_image_to_buffer(rb, color, Layout::TRANSFER_SRC_OPTIMAL, readback, &[region]);
        let to_host = [vk::MemoryBarrier2::default()
            .src_stage_mask(Stage::COPY)
            .src_access_mask(Access::TRANSFER_WRITE)
            .dst_stage_mask(Stage::HOST)
            .dst_access_mask(Access::HOST_READ)];
        dev.cmd_pipeline_barrier2(rb, &vk::DependencyInfo::default().memory_barriers(&to_host));
        dev.end_command_buffer(rb).ctx("vkEndCommandBuffer")?;

        // Run: untimed warm-up submits (lavapipe JITs shader variants lazily at the first
        // draw), then the timed ones, then the readback.
        for _ in 0..args.warmup {
            g.submit_wait(cb)?;
        }
        let mut times = (0..args.iterations).map(|_| g.submit_wait(cb)).collect::<R<Vec<f64>>>()?;
        g.submit_wait(rb)?;
        let pixels = decode(std::slice::from_raw_parts(readback_ptr, out_bytes), color_enc);

        if let Some(p) = &args.out_raw {
            let bytes: Vec<u8> = pixels.iter().flat_map(|f| f.to_le_bytes()).collect();
            std::fs::write(p, bytes).map_err(|e| format!("writing {}: {e}", p.display()))?;
        }
        if let Some(p) = &args.out_png {
            let bytes: Vec<u8> = pixels.iter().map(|&v| (v.clamp(0.0, 1.0) * 255.0).round() as u8).collect();
            image::save_buffer(p, &bytes, w, h, image::ColorType::Rgba8)
                .map_err(|e| format!("writing {}: {e}", p.display()))?;
        }
        times.sort_by(f64::total_cmp);
        let n = times.len();
        let median = if n % 2 == 1 { times[n / 2] } else { (times[n / 2 - 1] + times[n / 2]) / 2.0 };
        let (min, max) = (times[0], times[n - 1]);
        println!("{{\"iterations\":{n},\"median_ms\":{median:.4},\"min_ms\":{min:.4},\"max_ms\":{max:.4}}}");
        Ok(())
    }
}
