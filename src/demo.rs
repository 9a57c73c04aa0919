//! Built-in scenes: the README's first command renders them, the raster benchmarks time them,
//! and the golden-image tests compare them.
//!
//! Every scene is a fullscreen triangle (`shaders/demo/fullscreen.vert`, uv = (0,0) top-left
//! to (1,1) bottom-right) and one fragment shader from `shaders/demo/`, with the SPIR-V built
//! in by `include_bytes!` so the binary runs anywhere. `textured` and `alu` are the scenes of
//! the lavapipe oracle (`tools/lvp/examples`), with the same textures, so their
//! timings compare side by side with lavapipe's (BENCHMARKS.md).

use std::path::Path;
use std::time::Instant;

use crate::pipeline::{BoundStage, Descriptor, DescriptorSets, ImageResource, Shader};
use crate::raster::{ColorTarget, Pipeline, PipelineState, Rasterizer, RenderTargets};
use crate::texture::{
    AddressMode, CompareOp, Config, Filter, Format, Image, ImageView, MipmapMode, Sampler, ViewType,
};
use crate::{Error, Result};

const FULLSCREEN_VS: &[u8] = include_bytes!("../shaders/demo/fullscreen.vert.spv");
const TEXTURED_FS: &[u8] = include_bytes!("../shaders/demo/textured.frag.spv");
const ALU_FS: &[u8] = include_bytes!("../shaders/demo/alu.frag.spv");
const QUAD_SWAP_FS: &[u8] = include_bytes!("../shaders/demo/quad_swap.frag.spv");
const FWIDTH_FS: &[u8] = include_bytes!("../shaders/demo/fwidth_edges.frag.spv");

/// A fullscreen-triangle scene: a fragment shader and its resources.
pub struct Scene {
    pub name: &'static str,
    pub width: u32,
    pub height: u32,
    pub vertex: Shader,
    pub fragment: Shader,
    pub sets: DescriptorSets,
}

fn spirv(bytes: &[u8]) -> Result<Shader> {
    let module = crate::front::spirv::Module::from_bytes(bytes)?;
    Shader::from_module(&module, "main", None, &Default::default())
}

fn scene(name: &'static str, fs: &[u8], size: u32) -> Result<Scene> {
    Ok(Scene {
        name,
        width: size,
        height: size,
        vertex: spirv(FULLSCREEN_VS)?,
        fragment: spirv(fs)?,
        sets: DescriptorSets::new(),
    })
}

/// One distinct colour per mip level (linear RGB), as the lavapipe oracle's textures.
const MIP_COLORS: [[f32; 3]; 7] = [
    [1.0, 1.0, 1.0],
    [1.0, 0.25, 0.25],
    [0.25, 1.0, 0.25],
    [0.3, 0.45, 1.0],
    [1.0, 1.0, 0.2],
    [1.0, 0.3, 1.0],
    [0.2, 1.0, 1.0],
];

/// The lvp example's 64×64 checkerboard: 8×8 cells at level 0, level m in `MIP_COLORS[m]`.
fn checker() -> Result<Image> {
    let mut img = Image::new_2d(Format::R8G8B8A8_UNORM, 64, 64, 1, 7)?;
    for (m, bright) in MIP_COLORS.iter().enumerate() {
        let n = (64u32 >> m).max(1);
        let cell = (n / 8).max(1);
        let texels: Vec<[f32; 4]> = (0..n * n)
            .map(|i| {
                let (x, y) = (i % n, i / n);
                let k = if ((x / cell) + (y / cell)).is_multiple_of(2) {
                    1.0
                } else {
                    0.2
                };
                [bright[0] * k, bright[1] * k, bright[2] * k, 1.0]
            })
            .collect();
        img.upload_f32(m as u32, &texels)?;
    }
    Ok(img)
}

/// The lvp example's D32 disc: depth = distance of the texel centre from the centre.
fn shadow_disc() -> Result<Image> {
    let mut img = Image::new_2d(Format::D32_SFLOAT, 64, 64, 1, 4)?;
    for m in 0..4u32 {
        let n = 64u32 >> m;
        let texels: Vec<[f32; 4]> = (0..n * n)
            .map(|i| {
                let u = ((i % n) as f32 + 0.5) / n as f32;
                let v = ((i / n) as f32 + 0.5) / n as f32;
                [(u - 0.5).hypot(v - 0.5), 0.0, 0.0, 0.0]
            })
            .collect();
        img.upload_f32(m, &texels)?;
    }
    Ok(img)
}

fn linear(address: AddressMode) -> Sampler {
    Sampler {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        mipmap_mode: MipmapMode::Linear,
        address_mode: [address; 3],
        ..Sampler::default()
    }
}

/// The lavapipe oracle's texture-bound scene: trilinear RGBA8 + Dref `textureGrad` per pixel.
pub fn textured(size: u32) -> Result<Scene> {
    let mut s = scene("textured", TEXTURED_FS, size)?;
    let checker = checker()?;
    let shadow = shadow_disc()?;
    let shadow_sampler = Sampler {
        compare_enable: true,
        compare_op: CompareOp::LessOrEqual,
        ..linear(AddressMode::ClampToEdge)
    };
    s.sets
        .bind(
            0,
            0,
            Descriptor::CombinedImageSampler {
                view: ImageView::whole(&checker, ViewType::D2),
                image: ImageResource::new(checker),
                sampler: linear(AddressMode::Repeat),
            },
        )
        .bind(
            0,
            1,
            Descriptor::CombinedImageSampler {
                view: ImageView::whole(&shadow, ViewType::D2),
                image: ImageResource::new(shadow),
                sampler: shadow_sampler,
            },
        )
        .set_push_constants(&[0.3f32, 8.0].map(f32::to_le_bytes).concat());
    Ok(s)
}

/// The lavapipe oracle's ALU-bound scene: a 64-iteration loop per pixel.
pub fn alu(size: u32) -> Result<Scene> {
    scene("alu", ALU_FS, size)
}

/// `QuadReadAcrossX`, `Y` and `Diagonal` visualised in three bands.
pub fn quad_swap(size: u32) -> Result<Scene> {
    scene("quad_swap", QUAD_SWAP_FS, size)
}

/// `fwidth` edge detection, with discarded (demoted) pixels in the bottom quarter.
pub fn fwidth_edges(size: u32) -> Result<Scene> {
    scene("fwidth_edges", FWIDTH_FS, size)
}

/// Every built-in scene at `size`×`size`.
pub fn all(size: u32) -> Result<Vec<Scene>> {
    Ok(vec![
        textured(size)?,
        quad_swap(size)?,
        fwidth_edges(size)?,
        alu(size)?,
    ])
}

/// Render a scene into an `R32G32B32A32_SFLOAT` target cleared to opaque black.
pub fn render(scene: &Scene, raster: &Rasterizer) -> Result<ColorTarget> {
    let vs = BoundStage::new(&scene.vertex, &scene.sets, Config::default())?;
    let fs = BoundStage::new(&scene.fragment, &scene.sets, Config::default())?;
    let pipeline = Pipeline {
        state: PipelineState::default(),
        vertex: &vs,
        fragment: &fs,
        stages: Default::default(),
    };
    let mut color = ColorTarget::new(Format::R32G32B32A32_SFLOAT, scene.width, scene.height);
    color.clear_f32([0.0, 0.0, 0.0, 1.0]);
    let mut targets = RenderTargets {
        color: vec![color],
        depth_stencil: None,
    };
    {
        let mut pass = raster.begin(&mut targets);
        pass.bind_pipeline(&pipeline);
        pass.draw(3, 1, 0, 0)?;
    }
    targets
        .color
        .pop()
        .ok_or_else(|| Error::Pipeline("render pass lost its colour target".into()))
}

/// An RGBA8 picture of a float target: `round(clamp(v, 0, 1) * 255)`, like lvp's PNGs.
pub fn to_rgba8(t: &ColorTarget) -> image::RgbaImage {
    image::RgbaImage::from_fn(t.width, t.height, |x, y| {
        image::Rgba(
            t.read_f32(x, y)
                .map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8),
        )
    })
}

/// Render every built-in scene at 512×512 into `out_dir` as PNG and print what happened.
pub fn run(out_dir: &Path) -> Result<()> {
    std::fs::create_dir_all(out_dir)
        .map_err(|e| Error::Io(format!("{}: {e}", out_dir.display())))?;
    let raster = Rasterizer::new(0)?;
    println!("quadstep demo: {} threads", raster.threads());
    for scene in all(512)? {
        let t0 = Instant::now();
        let img = render(&scene, &raster)?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        let path = out_dir.join(format!("{}.png", scene.name));
        crate::golden::save_png(&path, &to_rgba8(&img))?;
        println!(
            "  {:<13} {}x{}  {:>8.1} ms  -> {}",
            scene.name,
            scene.width,
            scene.height,
            ms,
            path.display()
        );
    }
    Ok(())
}
