//! Render one built-in scene (for profiling): `cargo run --release --example render_scene --
//! textured 256 1` renders `textured` at 256×256 on 1 thread and prints the time.
use quadstep::{demo, raster::Rasterizer};

fn main() -> quadstep::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map(String::as_str).unwrap_or("textured");
    let size: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(256);
    let threads: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let scene = demo::all(size)?
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| quadstep::Error::Pipeline(format!("no scene {name}")))?;
    let raster = Rasterizer::new(threads)?;
    let t0 = std::time::Instant::now();
    demo::render(&scene, &raster)?;
    println!(
        "{name} {size}x{size} on {threads} threads: {:.1} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
