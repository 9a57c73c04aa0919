//! Builds and renders one `tests/lavapipe/scenes/<scene>.json` (the lvp tool's scene format,
//! ../shared/tools/lvp/README.md) with quadstep, with lvp's fixed state: viewport = whole
//! framebuffer with depth 0..1, no culling, blending only as `blend` says, triangle list,
//! textures as combined image samplers whose views cover every level and layer. Also reads
//! lavapipe's raw outputs.
//!
//! Only the scene format is interpreted here; tolerances and verdicts live in the test file.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use quadstep::pipeline::{BoundStage, Descriptor, DescriptorSets, ImageResource, Shader};
use quadstep::raster::{
    BlendFactor, ClearColor, ColorBlendAttachment, CompareOp as DepthCompare, DepthStencilState,
    DepthStencilTarget, DrawTimes, Format, Pipeline, PipelineState, Rasterizer, RenderTargets,
    VertexAttribute, VertexBinding, VertexBuffer, Viewport,
};
use quadstep::texture::{
    AddressMode, BorderColor, CompareOp, Config, Filter, Image, ImageDim, ImageView, MipmapMode,
    Sampler, ViewType, LOD_CLAMP_NONE,
};
use serde_json::Value;

/// `tests/lavapipe` under the crate root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lavapipe")
}

/// Every scene name, sorted.
pub fn scene_names() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("scenes"))
        .expect("tests/lavapipe/scenes exists")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "json").then(|| p.file_stem().unwrap().to_string_lossy().into())
        })
        .collect();
    v.sort();
    v
}

/// An RGBA f32 image, rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct Rgba {
    pub width: u32,
    pub height: u32,
    pub px: Vec<[f32; 4]>,
}

impl Rgba {
    pub fn at(&self, x: u32, y: u32) -> [f32; 4] {
        self.px[(y * self.width + x) as usize]
    }
    /// lvp's PNG preview rule: `round(clamp(v, 0, 1) * 255)`.
    pub fn to_rgba8(&self) -> quadstep::golden::RgbaImage {
        let bytes: Vec<u8> = self
            .px
            .iter()
            .flat_map(|p| p.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8))
            .collect();
        quadstep::golden::RgbaImage::from_raw(self.width, self.height, bytes)
            .expect("buffer matches the size")
    }
}

/// Read lavapipe's `expected/<scene>.lvp.f32`.
pub fn expected(name: &str, width: u32, height: u32) -> Rgba {
    let path = root().join("expected").join(format!("{name}.lvp.f32"));
    let f = read_f32s(&path);
    assert_eq!(
        f.len(),
        (width * height * 4) as usize,
        "{}: size does not match {width}x{height}",
        path.display()
    );
    Rgba {
        width,
        height,
        px: f
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect(),
    }
}

pub fn read_f32s(path: &Path) -> Vec<f32> {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A parsed scene file.
pub struct Scene {
    pub name: String,
    pub json: Value,
    pub dir: PathBuf,
    pub width: u32,
    pub height: u32,
}

const KNOWN_FIELDS: &[&str] = &[
    "width",
    "height",
    "vertex_spv",
    "fragment_spv",
    "vertex_entry",
    "fragment_entry",
    "vertices",
    "attributes",
    "push_constants",
    "color_format",
    "clear_color",
    "depth",
    "blend",
    "textures",
    "samples",
];

const TEXTURE_FIELDS: &[&str] = &[
    "set",
    "binding",
    "format",
    "view_type",
    "width",
    "height",
    "depth",
    "layers",
    "mip_levels",
    "data",
    "mag_filter",
    "min_filter",
    "mipmap_mode",
    "address_u",
    "address_v",
    "address_w",
    "mip_lod_bias",
    "min_lod",
    "max_lod",
    "compare_op",
    "border_color",
    "max_anisotropy",
    "unnormalized_coordinates",
];

impl Scene {
    pub fn load(name: &str) -> Result<Scene, String> {
        Self::load_file(&root().join("scenes").join(format!("{name}.json")))
    }

    /// A scene file anywhere (its name is the file stem).
    pub fn load_file(path: &Path) -> Result<Scene, String> {
        let name = path
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().into_owned());
        let name = name.as_str();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let json: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        // Like lvp: an unknown field is an error, never silently ignored.
        let obj = json.as_object().ok_or("scene is not a JSON object")?;
        for k in obj.keys() {
            if !KNOWN_FIELDS.contains(&k.as_str()) {
                return Err(format!("{name}: unknown scene field `{k}`"));
            }
        }
        for t in obj
            .get("textures")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for k in t.as_object().ok_or("texture is not an object")?.keys() {
                if !TEXTURE_FIELDS.contains(&k.as_str()) {
                    return Err(format!("{name}: unknown texture field `{k}`"));
                }
            }
        }
        let width = json["width"].as_u64().ok_or("width missing")? as u32;
        let height = json["height"].as_u64().ok_or("height missing")? as u32;
        Ok(Scene {
            name: name.to_string(),
            dir: path.parent().unwrap().to_path_buf(),
            json,
            width,
            height,
        })
    }

    fn str_or<'a>(v: &'a Value, key: &str, default: &'a str) -> &'a str {
        v.get(key).and_then(Value::as_str).unwrap_or(default)
    }

    fn f32_or(v: &Value, key: &str, default: f32) -> f32 {
        v.get(key)
            .and_then(Value::as_f64)
            .map_or(default, |x| x as f32)
    }

    fn u32_or(v: &Value, key: &str, default: u32) -> u32 {
        v.get(key)
            .and_then(Value::as_u64)
            .map_or(default, |x| x as u32)
    }

    /// Render the scene with a rasterizer of `threads` threads and read the image back.
    pub fn render(&self, threads: usize) -> Result<Rgba, String> {
        let raster = Rasterizer::new(threads).map_err(|m| format!("{}: {m}", self.name))?;
        let targets = self.prepare()?.draw(&raster)?;
        let c = &targets.color[0].resolve();
        let mut px = Vec::with_capacity((self.width * self.height) as usize);
        for y in 0..self.height {
            for x in 0..self.width {
                px.push(c.read_f32(x, y));
            }
        }
        Ok(Rgba {
            width: self.width,
            height: self.height,
            px,
        })
    }

    /// Everything a draw needs, built once: shaders, descriptors, vertex bytes, pipeline
    /// state and the cleared attachments. [`Prepared::draw`] is then the work lvp times
    /// (the clear and the draw).
    pub fn prepare(&self) -> Result<Prepared, String> {
        let j = &self.json;
        let e = |m: quadstep::Error| format!("{}: {m}", self.name);
        let shader = |key: &str, entry_key: &str| -> Result<Shader, String> {
            let p = self
                .dir
                .join(j[key].as_str().ok_or(format!("{key} missing"))?);
            Shader::from_file(&p, Self::str_or(j, entry_key, "main"), &Default::default())
                .map_err(e)
        };
        let vs = shader("vertex_spv", "vertex_entry")?;
        let fs = shader("fragment_spv", "fragment_entry")?;

        // Descriptors: push constants and textures.
        let mut sets = DescriptorSets::new();
        let pc: Vec<u8> = j
            .get("push_constants")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .flat_map(|v| (v.as_f64().unwrap_or(0.0) as f32).to_le_bytes())
            .collect();
        if !pc.is_empty() {
            sets.set_push_constants(&pc);
        }
        for t in j
            .get("textures")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (set, binding, d) = self.texture(t)?;
            sets.bind(set, binding, d);
        }

        // Vertex input.
        let mut state = PipelineState {
            viewport: Some(Viewport::full(self.width, self.height)),
            ..Default::default()
        };
        let mut vbytes = Vec::new();
        let mut vcount = 3u32;
        if let Some(verts) = j.get("vertices").and_then(Value::as_array) {
            let first_len = verts
                .first()
                .and_then(Value::as_array)
                .map_or(0, |v| v.len());
            let attrs: Vec<u32> = match j.get("attributes").and_then(Value::as_array) {
                Some(a) => a.iter().map(|x| x.as_u64().unwrap_or(0) as u32).collect(),
                None => vec![first_len as u32],
            };
            let comps: u32 = attrs.iter().sum();
            let mut offset = 0;
            for (loc, &n) in attrs.iter().enumerate() {
                let format = match n {
                    1 => Format::R32_SFLOAT,
                    2 => Format::R32G32_SFLOAT,
                    3 => Format::R32G32B32_SFLOAT,
                    4 => Format::R32G32B32A32_SFLOAT,
                    _ => return Err(format!("{}: attribute of {n} components", self.name)),
                };
                state.vertex_attributes.push(VertexAttribute {
                    location: loc as u32,
                    binding: 0,
                    format,
                    offset,
                });
                offset += 4 * n;
            }
            state.vertex_bindings.push(VertexBinding {
                binding: 0,
                stride: 4 * comps,
                input_rate: Default::default(),
            });
            for v in verts {
                let v = v.as_array().ok_or("vertex is not an array")?;
                if v.len() != comps as usize {
                    return Err(format!(
                        "{}: vertex of {} floats, attributes need {comps}",
                        self.name,
                        v.len()
                    ));
                }
                for x in v {
                    vbytes.extend_from_slice(&(x.as_f64().unwrap_or(0.0) as f32).to_le_bytes());
                }
            }
            vcount = verts.len() as u32;
        }

        // Attachments.
        let cf = match Self::str_or(j, "color_format", "R32G32B32A32_SFLOAT") {
            "R32G32B32A32_SFLOAT" => Format::R32G32B32A32_SFLOAT,
            "R8G8B8A8_UNORM" => Format::R8G8B8A8_UNORM,
            "R16G16B16A16_SFLOAT" => Format::R16G16B16A16_SFLOAT,
            o => return Err(format!("{}: colour format {o}", self.name)),
        };
        // lvp renders `samples` samples a pixel and resolves them at the end of the pass
        let samples = Self::u32_or(j, "samples", 1);
        if !matches!(samples, 1 | 2 | 4 | 8 | 16) {
            return Err(format!("{}: {samples} samples", self.name));
        }
        state.samples = samples;
        let mut color =
            quadstep::raster::ColorTarget::multisampled(cf, self.width, self.height, samples);
        let clear: Vec<f32> = j
            .get("clear_color")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|x| x.as_f64().unwrap_or(0.0) as f32).collect())
            .unwrap_or_else(|| vec![0.0; 4]);
        let clear_color = [clear[0], clear[1], clear[2], clear[3]];
        color.clear_f32(clear_color);
        let mut clear_depth = None;
        let mut targets = RenderTargets {
            color: vec![color],
            depth_stencil: None,
        };
        if let Some(d) = j.get("depth") {
            let format = match Self::str_or(d, "format", "D32_SFLOAT") {
                "D32_SFLOAT" => Format::D32_SFLOAT,
                "D16_UNORM" => Format::D16_UNORM,
                o => return Err(format!("{}: depth format {o}", self.name)),
            };
            let mut ds = DepthStencilTarget::multisampled(format, self.width, self.height, samples);
            let depth = Self::f32_or(d, "clear", 1.0);
            ds.clear(depth, 0);
            clear_depth = Some(depth);
            targets.depth_stencil = Some(ds);
            state.depth_stencil = DepthStencilState {
                depth_test: true,
                depth_write: d.get("write").and_then(Value::as_bool).unwrap_or(true),
                depth_compare: depth_op(Self::str_or(d, "compare_op", "LESS"))
                    .ok_or(format!("{}: bad depth compare_op", self.name))?,
                ..Default::default()
            };
        }

        // lvp's `"blend": "alpha"`: colour src·srcA + dst·(1 − srcA), alpha src + dst·(1 − srcA)
        match j.get("blend").map(|b| b.as_str()) {
            None => {}
            Some(Some("alpha")) => {
                state.blend_attachments = vec![ColorBlendAttachment {
                    blend_enable: true,
                    src_color_factor: BlendFactor::SrcAlpha,
                    dst_color_factor: BlendFactor::OneMinusSrcAlpha,
                    src_alpha_factor: BlendFactor::One,
                    dst_alpha_factor: BlendFactor::OneMinusSrcAlpha,
                    ..Default::default()
                }]
            }
            Some(b) => return Err(format!("{}: blend {b:?}", self.name)),
        }

        Ok(Prepared {
            name: self.name.clone(),
            vs,
            fs,
            sets,
            state,
            vbytes,
            vcount,
            targets,
            clear_color,
            clear_depth,
        })
    }

    /// One texture: image with its data uploaded level by level, whole view, sampler.
    fn texture(&self, t: &Value) -> Result<(u32, u32, Descriptor), String> {
        let err = |m: String| format!("{}: texture: {m}", self.name);
        let format = Format::from_vk_name(t["format"].as_str().ok_or(err("format".into()))?)
            .map_err(|x| err(x.to_string()))?;
        let vt = Self::str_or(t, "view_type", "2D");
        let (view_type, dim) = match vt {
            "1D" => (ViewType::D1, ImageDim::D1),
            "1D_ARRAY" => (ViewType::D1Array, ImageDim::D1),
            "2D" => (ViewType::D2, ImageDim::D2),
            "2D_ARRAY" => (ViewType::D2Array, ImageDim::D2),
            "CUBE" => (ViewType::Cube, ImageDim::D2),
            "CUBE_ARRAY" => (ViewType::CubeArray, ImageDim::D2),
            "3D" => (ViewType::D3, ImageDim::D3),
            o => return Err(err(format!("view type {o}"))),
        };
        let w = Self::u32_or(t, "width", 1);
        let h = Self::u32_or(t, "height", 1);
        let d = Self::u32_or(t, "depth", 1);
        let layers = Self::u32_or(t, "layers", if vt == "CUBE" { 6 } else { 1 });
        let levels = Self::u32_or(t, "mip_levels", 1);
        let mut img = Image::new(format, dim, [w, h, d], layers, levels, 1)
            .map_err(|x| err(x.to_string()))?;
        let data_path = self
            .dir
            .join(t["data"].as_str().ok_or(err("data missing".into()))?);
        let data = read_f32s(&data_path);
        let mut at = 0usize;
        for l in 0..levels {
            let n = img.level_texels(l);
            let texels: Vec<[f32; 4]> = data
                .get(at * 4..(at + n) * 4)
                .ok_or_else(|| err(format!("{} too short for level {l}", data_path.display())))?
                .chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect();
            img.upload_f32(l, &texels).map_err(|x| err(x.to_string()))?;
            at += n;
        }
        if at * 4 != data.len() {
            return Err(err(format!(
                "{} holds {} floats, the levels need {}",
                data_path.display(),
                data.len(),
                at * 4
            )));
        }
        let view = ImageView::whole(&img, view_type);
        let filter = |k: &str| match Self::str_or(t, k, "NEAREST") {
            "LINEAR" => Ok(Filter::Linear),
            "NEAREST" => Ok(Filter::Nearest),
            o => Err(err(format!("{k} {o}"))),
        };
        let address = |k: &str| match Self::str_or(t, k, "REPEAT") {
            "REPEAT" => Ok(AddressMode::Repeat),
            "MIRRORED_REPEAT" => Ok(AddressMode::MirroredRepeat),
            "CLAMP_TO_EDGE" => Ok(AddressMode::ClampToEdge),
            "CLAMP_TO_BORDER" => Ok(AddressMode::ClampToBorder),
            "MIRROR_CLAMP_TO_EDGE" => Ok(AddressMode::MirrorClampToEdge),
            o => Err(err(format!("{k} {o}"))),
        };
        let compare = t.get("compare_op").and_then(Value::as_str);
        let sampler = Sampler {
            mag_filter: filter("mag_filter")?,
            min_filter: filter("min_filter")?,
            mipmap_mode: match Self::str_or(t, "mipmap_mode", "NEAREST") {
                "LINEAR" => MipmapMode::Linear,
                "NEAREST" => MipmapMode::Nearest,
                o => return Err(err(format!("mipmap_mode {o}"))),
            },
            address_mode: [
                address("address_u")?,
                address("address_v")?,
                address("address_w")?,
            ],
            mip_lod_bias: Self::f32_or(t, "mip_lod_bias", 0.0),
            anisotropy_enable: t.get("max_anisotropy").is_some(),
            max_anisotropy: Self::f32_or(t, "max_anisotropy", 1.0),
            compare_enable: compare.is_some(),
            compare_op: match compare {
                None => CompareOp::Never,
                Some(c) => sampler_op(c).ok_or_else(|| err(format!("compare_op {c}")))?,
            },
            min_lod: Self::f32_or(t, "min_lod", 0.0),
            max_lod: Self::f32_or(t, "max_lod", LOD_CLAMP_NONE),
            border_color: match Self::str_or(t, "border_color", "FLOAT_TRANSPARENT_BLACK") {
                "FLOAT_TRANSPARENT_BLACK" => BorderColor::FloatTransparentBlack,
                "FLOAT_OPAQUE_BLACK" => BorderColor::FloatOpaqueBlack,
                "FLOAT_OPAQUE_WHITE" => BorderColor::FloatOpaqueWhite,
                o => return Err(err(format!("border_color {o}"))),
            },
            unnormalized_coordinates: t
                .get("unnormalized_coordinates")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
        Ok((
            Self::u32_or(t, "set", 0),
            t["binding"].as_u64().ok_or(err("binding missing".into()))? as u32,
            Descriptor::CombinedImageSampler {
                image: ImageResource::new(img),
                view,
                sampler,
            },
        ))
    }
}

fn depth_op(s: &str) -> Option<DepthCompare> {
    Some(match s {
        "NEVER" => DepthCompare::Never,
        "LESS" => DepthCompare::Less,
        "EQUAL" => DepthCompare::Equal,
        "LESS_OR_EQUAL" => DepthCompare::LessOrEqual,
        "GREATER" => DepthCompare::Greater,
        "NOT_EQUAL" => DepthCompare::NotEqual,
        "GREATER_OR_EQUAL" => DepthCompare::GreaterOrEqual,
        "ALWAYS" => DepthCompare::Always,
        _ => return None,
    })
}

fn sampler_op(s: &str) -> Option<CompareOp> {
    Some(match s {
        "NEVER" => CompareOp::Never,
        "LESS" => CompareOp::Less,
        "EQUAL" => CompareOp::Equal,
        "LESS_OR_EQUAL" => CompareOp::LessOrEqual,
        "GREATER" => CompareOp::Greater,
        "NOT_EQUAL" => CompareOp::NotEqual,
        "GREATER_OR_EQUAL" => CompareOp::GreaterOrEqual,
        "ALWAYS" => CompareOp::Always,
        _ => return None,
    })
}

/// A scene ready to draw (see [`Scene::prepare`]).
pub struct Prepared {
    name: String,
    vs: Shader,
    fs: Shader,
    sets: DescriptorSets,
    state: PipelineState,
    vbytes: Vec<u8>,
    vcount: u32,
    /// The attachments, cleared to the scene's clear values.
    targets: RenderTargets,
    clear_color: [f32; 4],
    clear_depth: Option<f32>,
}

/// An FNV-1a hash of every attachment's bytes (colour, then depth and stencil), which the
/// benches print so a speed change can be shown to leave a frame bit-identical.
pub fn hash_targets(targets: &RenderTargets) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for c in &targets.color {
        eat(&c.data);
    }
    if let Some(ds) = &targets.depth_stencil {
        eat(&ds.depth);
        eat(&ds.stencil);
    }
    h
}

impl Prepared {
    /// One frame into fresh attachments (see [`Prepared::draw_into`]).
    pub fn draw(&self, raster: &Rasterizer) -> Result<RenderTargets, String> {
        let mut targets = self.targets.clone();
        self.draw_into(raster, &mut targets)?;
        Ok(targets)
    }

    /// Attachments of the scene's size and formats, cleared.
    #[allow(dead_code)] // used by the benches
    pub fn targets(&self) -> RenderTargets {
        self.targets.clone()
    }

    /// One frame, the work lvp times per submit on its persistent image: the render pass's
    /// clear (load op), shaders bound to the descriptors, the draw. Returns the draw's phase
    /// times.
    pub fn draw_into(
        &self,
        raster: &Rasterizer,
        targets: &mut RenderTargets,
    ) -> Result<Option<DrawTimes>, String> {
        let e = |m: quadstep::Error| format!("{}: {m}", self.name);
        let config = Config::default();
        let vstage = BoundStage::new(&self.vs, &self.sets, config).map_err(e)?;
        let fstage = BoundStage::new(&self.fs, &self.sets, config).map_err(e)?;
        let pipeline = Pipeline {
            state: self.state.clone(),
            vertex: &vstage,
            fragment: &fstage,
            stages: Default::default(),
        };
        {
            let mut pass = raster.begin(targets);
            pass.clear_color(0, ClearColor::Float(self.clear_color))
                .map_err(e)?;
            if let Some(depth) = self.clear_depth {
                pass.clear_depth_stencil(depth, 0).map_err(e)?;
            }
            pass.bind_pipeline(&pipeline);
            if !self.vbytes.is_empty() {
                pass.bind_vertex_buffers(&[VertexBuffer {
                    binding: 0,
                    data: &self.vbytes,
                    offset: 0,
                }]);
            }
            pass.draw(self.vcount, 1, 0, 0).map_err(e)?;
            let times = pass.last_draw_times();
            drop(pass);
            // lvp's pass ends in the resolve
            if targets.color[0].samples > 1 {
                std::hint::black_box(targets.color[0].resolve());
            }
            Ok(times)
        }
    }
}
