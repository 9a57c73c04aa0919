//! The quadstep command line (placeholder until the CLI lands): runs the built-in demo.
fn main() {
    let out = std::path::Path::new("out/demo");
    if let Err(e) = quadstep::demo::run(out) {
        eprintln!("quadstep: {e}");
        std::process::exit(1);
    }
}
