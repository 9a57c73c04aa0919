//! `VK_EXT_depth_range_unrestricted` (`DepthStencilState::unrestricted_depth`): a float depth
//! attachment's test compares and stores fragment depths outside [0, 1] as they are; without
//! it (and for normalized formats either way) they are clamped to [0, 1] first, the
//! `depthClampZeroOne` rule of Vulkan's "Depth Clamping and Range Adjustment". Expected
//! values are worked out by hand below from the viewport transform and the depth bias
//! formula; the Amber tests run the runner's `DEVICE_EXTENSION` switch end to end.

mod raster_support;

use std::path::Path;

use approx::abs_diff_eq;
use quadstep::amber::{self, RunOptions, Status};
use quadstep::raster::*;
use raster_support::*;

/// Full-screen triangles at the clip depths of `draws` (w = 1), each with its compare op,
/// through the viewport depth range `range` and `bias`, over a depth attachment cleared to
/// 1.0. Returns the stored depth and the last draw's `FragCoord.z`.
fn draw(
    format: Format,
    unrestricted: bool,
    range: (f32, f32),
    bias: Option<DepthBias>,
    draws: &[(f32, CompareOp)],
) -> (f32, f32) {
    let (w, h) = (4u32, 4u32);
    let mut st = state_vec4s(2);
    st.viewport = Some(Viewport {
        x: 0.0,
        y: 0.0,
        width: w as f32,
        height: h as f32,
        min_depth: range.0,
        max_depth: range.1,
    });
    st.rasterization.depth_bias = bias;
    st.depth_stencil.depth_test = true;
    st.depth_stencil.depth_write = true;
    st.depth_stencil.unrestricted_depth = unrestricted;
    let mut rt = targets(w, h, Some(format));
    rt.depth_stencil.as_mut().unwrap().clear(1.0, 0);
    for &(z, op) in draws {
        let c = [0.0f32; 4];
        let tri = [
            [-1.0, -1.0, z, 1.0],
            c,
            [3.0, -1.0, z, 1.0],
            c,
            [-1.0, 3.0, z, 1.0],
            c,
        ];
        st.depth_stencil.depth_compare = op;
        run_draw(&st, &tri, 2, &fs_fragcoord(), &mut rt, 1).unwrap();
    }
    let stored = rt.depth_stencil.as_ref().unwrap().read_depth(1, 1);
    (stored, rt.color[0].read_f32(1, 1)[2])
}

/// The CTS `depth/bias_outside_range_fs_clamp_unrestricted` case: window z = 0.1 + 1 · 0.8 =
/// 0.9, whose exponent e is -1, so r = 2^(e - 23) = 2^-24 for D32 and a constant factor of
/// 2^24 biases it by exactly 1: 1.9, stored as is when unrestricted, 1.0 otherwise; D16
/// clamps to its largest code either way. `FragCoord.z` is 1.9 in every case.
#[test]
fn a_bias_past_one_is_kept_by_float_attachments_only() {
    let bias = Some(DepthBias {
        constant_factor: 16_777_216.0,
        clamp: 0.0,
        slope_factor: 0.0,
    });
    let one = [(1.0, CompareOp::Always)];
    let near = |a: f32, b: f32| abs_diff_eq!(a, b, epsilon = 1e-6);
    let (d, fz) = draw(Format::D32_SFLOAT, true, (0.1, 0.9), bias, &one);
    assert!(near(d, 1.9) && near(fz, 1.9), "{d} {fz}");
    let (d, fz) = draw(Format::D32_SFLOAT, false, (0.1, 0.9), bias, &one);
    assert!(d == 1.0 && near(fz, 1.9), "{d} {fz}");
    let (d, _) = draw(Format::D16_UNORM, true, (0.1, 0.9), bias, &one);
    assert_eq!(d, 1.0);
}

/// A viewport range [-0.5, 2.5]: clip z 0 lands at -0.5, 0.5 at 1.0 and 1 at 2.5. The
/// compares see the unclamped values: after 2.5 is stored, a draw at 1.0 passes LESS
/// (1.0 < 2.5) but not GREATER. Restricted, 2.5 is stored as 1.0, which 1.0 does not exceed.
#[test]
fn depths_outside_zero_one_are_stored_and_compared_as_they_are() {
    use CompareOp::{Always, Greater, Less};
    let r = (-0.5, 2.5);
    let d = |unrestricted, draws: &[(f32, CompareOp)]| {
        draw(Format::D32_SFLOAT, unrestricted, r, None, draws).0
    };
    assert_eq!(d(true, &[(0.0, Always)]), -0.5);
    assert_eq!(d(false, &[(0.0, Always)]), 0.0);
    assert_eq!(d(true, &[(1.0, Always)]), 2.5);
    assert_eq!(d(true, &[(1.0, Always), (0.5, Less)]), 1.0);
    assert_eq!(d(true, &[(1.0, Always), (0.5, Greater)]), 2.5);
    assert_eq!(d(false, &[(1.0, Always), (0.5, Greater)]), 1.0);
    assert_eq!(d(false, &[(1.0, Always), (0.0, Less)]), 0.0);
}

fn run(text: &str) -> Status {
    let script = amber::parse(text, Path::new("inline.amber")).unwrap_or_else(|e| panic!("{e}"));
    amber::run_script(&script, &RunOptions::default()).status
}

/// A fragment shader writing `FragDepth = 2.0` over a D32 attachment cleared to 1.0 with
/// NOT_EQUAL: with the extension 2.0 is stored, without it the clamped 1.0 equals the clear
/// value and nothing is written (the CTS `depth/out_of_range*` pair).
#[test]
fn the_amber_device_extension_turns_it_on() {
    let body = r#"
SHADER vertex vs PASSTHROUGH
SHADER fragment fs SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %color %depth
               OpExecutionMode %main OriginUpperLeft
               OpExecutionMode %main DepthReplacing
               OpDecorate %color Location 0
               OpDecorate %depth BuiltIn FragDepth
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
      %ptr_c = OpTypePointer Output %v4float
      %ptr_d = OpTypePointer Output %float
      %color = OpVariable %ptr_c Output
      %depth = OpVariable %ptr_d Output
         %f0 = OpConstant %float 0
         %f1 = OpConstant %float 1
         %f2 = OpConstant %float 2
      %green = OpConstantComposite %v4float %f0 %f1 %f0 %f1
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpStore %color %green
               OpStore %depth %f2
               OpReturn
               OpFunctionEnd
END
BUFFER framebuffer FORMAT B8G8R8A8_UNORM
BUFFER depth FORMAT D32_SFLOAT
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  DEPTH
    TEST on
    WRITE on
    COMPARE_OP not_equal
  END
  FRAMEBUFFER_SIZE 8 8
  BIND BUFFER framebuffer AS color LOCATION 0
  BIND BUFFER depth AS depth_stencil
END
CLEAR_COLOR p 0 0 0 255
CLEAR_DEPTH p 1.0
CLEAR p
RUN p DRAW_RECT POS 0 0 SIZE 8 8
"#;
    let with = format!("#!amber\nDEVICE_EXTENSION VK_EXT_depth_range_unrestricted\n{body}");
    let without = format!("#!amber\n{body}");
    assert_eq!(
        run(&format!(
            "{with}EXPECT depth IDX 0 EQ 2.0\nEXPECT framebuffer IDX 0 0 SIZE 8 8 EQ_RGBA 0 255 0 255\n"
        )),
        Status::Pass
    );
    assert_eq!(
        run(&format!(
            "{without}EXPECT depth IDX 0 EQ 1.0\nEXPECT framebuffer IDX 0 0 SIZE 8 8 EQ_RGBA 0 0 0 255\n"
        )),
        Status::Pass
    );
}
