//! The README's library example is `examples/render_png.rs`, word for word: the example is
//! built and run as a test by `cargo test` (`test = true` in Cargo.toml), so the README's code
//! is run too.

#[test]
fn the_readmes_library_example_is_the_example_that_runs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("examples/render_png.rs")).unwrap();
    let blocks: Vec<&str> = readme
        .split("```rust\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert_eq!(blocks.len(), 1, "one Rust block in the README");
    let code = blocks[0];
    assert!(
        code.contains("fn render_png(") && code.contains("save_png"),
        "{code}"
    );
    assert!(
        example.contains(code),
        "the README's example differs from examples/render_png.rs:\n{code}"
    );
}
