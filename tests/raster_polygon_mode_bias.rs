//! Depth bias in the line and point polygon modes: the Vulkan spec ("Depth Bias") applies the
//! bias to every polygon mode, with `m` and `r` computed from the triangle, so a triangle's edges
//! get the bias its interior would get. Expected values are worked out by hand below.

mod raster_support;

use approx::abs_diff_eq;
use quadstep::raster::*;
use raster_support::*;

/// The triangle (2.5, 2.5, 0.25), (12.5, 2.5, 0.25), (2.5, 12.5, 0.75) in window coordinates of
/// a 16 x 16 target: dz/dx = 0, dz/dy = 0.5 / 10 = 0.05, so m = 0.05. Its top edge (y = 2.5)
/// lies at z = 0.25 and its own line plane has no slope at all, so only the triangle's m can
/// bias it. Returns the stored depth at (x, y) for the given mode and bias.
fn depth_at(mode: PolygonMode, bias: DepthBias, x: u32, y: u32) -> f32 {
    let (w, h) = (16, 16);
    let c = [1.0f32; 4];
    let verts = vec![
        clip_of(w, h, 2.5, 2.5, 0.25),
        c,
        clip_of(w, h, 12.5, 2.5, 0.25),
        c,
        clip_of(w, h, 2.5, 12.5, 0.75),
        c,
    ];
    let mut st = state_vec4s(2);
    st.rasterization.polygon_mode = mode;
    st.rasterization.depth_bias = Some(bias);
    st.depth_stencil.depth_test = true;
    st.depth_stencil.depth_write = true;
    let mut rt = targets(w, h, Some(Format::D32_SFLOAT));
    rt.depth_stencil.as_mut().unwrap().clear(1.0, 0);
    run_draw(
        &st,
        &verts,
        2,
        &fs_varying0(Interpolation::Smooth),
        &mut rt,
        1,
    )
    .unwrap();
    rt.depth_stencil.as_ref().unwrap().read_depth(x, y)
}

#[test]
fn line_mode_edges_get_the_triangles_slope_bias() {
    // slope factor 2: o = 2 * m = 0.1 on the top edge at z = 0.25.
    let slope = DepthBias {
        constant_factor: 0.0,
        clamp: 0.0,
        slope_factor: 2.0,
    };
    for x in [4, 7, 10] {
        let d = depth_at(PolygonMode::Line, slope, x, 2);
        assert!(abs_diff_eq!(d, 0.35, epsilon = 1e-6), "x {x}: {d}");
    }
    // Clamped to 0.04.
    let clamped = DepthBias {
        clamp: 0.04,
        ..slope
    };
    let d = depth_at(PolygonMode::Line, clamped, 6, 2);
    assert!(abs_diff_eq!(d, 0.29, epsilon = 1e-6), "{d}");
    // The interior is not drawn in line mode.
    assert_eq!(depth_at(PolygonMode::Line, slope, 5, 5), 1.0);
}

#[test]
fn line_and_point_modes_get_the_constant_bias_of_the_triangle() {
    // Float depth: r = 2^(e - 23) with e the exponent of the largest vertex depth 0.75 (e = -1),
    // so r = 2^-24 and a constant factor 2^20 adds 2^-4 = 0.0625, also on the top edge whose
    // own depths are only 0.25 (whose exponent would give twice less).
    let constant = DepthBias {
        constant_factor: (1u32 << 20) as f32,
        clamp: 0.0,
        slope_factor: 0.0,
    };
    assert_eq!(depth_at(PolygonMode::Line, constant, 6, 2), 0.3125);
    // Point mode: the vertex (2.5, 2.5) covers pixel (2, 2).
    assert_eq!(depth_at(PolygonMode::Point, constant, 2, 2), 0.3125);
    // Fill mode gives the same bias at the same place.
    assert_eq!(depth_at(PolygonMode::Fill, constant, 6, 2), 0.3125);
}
