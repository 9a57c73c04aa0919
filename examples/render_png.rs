//! Render a fragment shader into a PNG through quadstep's public API (the README's library
//! example): `cargo run --release --example render_png -- [FRAG.spv] [OUT.png]`, by default
//! the built-in quad-swap scene into `out/render_png.png`.

use std::path::Path;

use quadstep::{BoundStage, ColorTarget, DescriptorSets, Format, GraphicsPipeline};
use quadstep::{Error, PipelineState, Rasterizer, RenderTargets, Result, Shader};

/// Draw `frag` (SPIR-V; `uv` at location 0) over a full-screen triangle into a
/// `size`x`size` RGBA8 picture and save it as `out`.
fn render_png(frag: &Path, out: &Path, size: u32) -> Result<()> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| Error::Io(format!("{}: {e}", p.display())));
    let vertex = Shader::from_spirv_bytes(
        &read(Path::new("shaders/demo/fullscreen.vert.spv"))?,
        "main",
    )?;
    let fragment = Shader::from_spirv_bytes(&read(frag)?, "main")?;
    let sets = DescriptorSets::new(); // no textures or buffers
    let vs = BoundStage::new(&vertex, &sets, Default::default())?;
    let fs = BoundStage::new(&fragment, &sets, Default::default())?;
    let pipeline = GraphicsPipeline {
        state: PipelineState::default(),
        vertex: &vs,
        fragment: &fs,
        stages: Default::default(),
    };
    let color = ColorTarget::new(Format::R8G8B8A8_UNORM, size, size);
    let mut targets = RenderTargets {
        color: vec![color],
        depth_stencil: None,
    };
    let raster = Rasterizer::new(0)?; // one thread per core
    let mut pass = raster.begin(&mut targets);
    pass.bind_pipeline(&pipeline);
    pass.draw(3, 1, 0, 0)?; // three vertices, one instance
    drop(pass);
    targets.color[0].save_png(out)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let frag = args
        .get(1)
        .map_or("shaders/demo/quad_swap.frag.spv", String::as_str);
    let out = args.get(2).map_or("out/render_png.png", String::as_str);
    render_png(Path::new(frag), Path::new(out), 256)?;
    println!("wrote {out}");
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The example runs (`cargo test` builds it as a test: `test = true` in Cargo.toml) and
    /// writes a 64x64 8-bit PNG of the quad-swap scene, not of one colour.
    #[test]
    fn renders_the_quad_swap_scene() {
        let out = std::env::temp_dir().join(format!("quadstep-example-{}.png", std::process::id()));
        let frag = std::path::Path::new("shaders/demo/quad_swap.frag.spv");
        super::render_png(frag, &out, 64).unwrap();
        let img = image::open(&out).unwrap();
        assert_eq!(img.color(), image::ColorType::Rgba8);
        let img = img.to_rgba8();
        assert_eq!(img.dimensions(), (64, 64));
        let first = img.get_pixel(0, 0);
        assert!(img.pixels().any(|p| p != first), "a picture of one colour");
        let _ = std::fs::remove_file(&out);
    }
}
