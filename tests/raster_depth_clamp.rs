//! Depth clamp (`depthClampEnable`) clamps the depth used by the depth test and stored in the
//! attachment to the viewport's depth range, after the fragment shader: `FragCoord.z` keeps
//! the unclamped window depth (Vulkan "Depth Test": depth clamping is a fragment operation;
//! CTS cts/depth/bias_fs_clamp.amber). Expected values are worked out by hand below.

mod raster_support;

use approx::abs_diff_eq;
use quadstep::raster::*;
use raster_support::*;

#[test]
fn fragcoord_z_is_unclamped_and_the_stored_depth_is_clamped() {
    let (w, h) = (4u32, 4u32);
    // Clip z = 2 at w = 1 with the depth range [0.1, 0.9]: window z = 0.1 + 2 * 0.8 = 1.7, past
    // the far plane, kept (not clipped) because depth clamp is on.
    let c = [0.0f32; 4];
    let verts = vec![
        [-1.0, -1.0, 2.0, 1.0],
        c,
        [3.0, -1.0, 2.0, 1.0],
        c,
        [-1.0, 3.0, 2.0, 1.0],
        c,
    ];
    let mut st = state_vec4s(2);
    st.rasterization.depth_clamp = true;
    st.viewport = Some(Viewport {
        x: 0.0,
        y: 0.0,
        width: w as f32,
        height: h as f32,
        min_depth: 0.1,
        max_depth: 0.9,
    });
    st.depth_stencil.depth_test = true;
    st.depth_stencil.depth_write = true;
    let mut rt = targets(w, h, Some(Format::D32_SFLOAT));
    rt.depth_stencil.as_mut().unwrap().clear(1.0, 0);
    run_draw(&st, &verts, 2, &fs_fragcoord(), &mut rt, 1).unwrap();
    let z = rt.color[0].read_f32(1, 1)[2];
    assert!(abs_diff_eq!(z, 1.7, epsilon = 1e-6), "FragCoord.z {z}");
    // The test ran on the clamped 0.9 < 1.0, so the fragment passed and 0.9 is stored.
    assert_eq!(rt.depth_stencil.as_ref().unwrap().read_depth(1, 1), 0.9);
}
