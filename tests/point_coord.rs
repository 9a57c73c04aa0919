//! `gl_PointCoord` (SPIR-V `BuiltIn PointCoord`) read by a fragment shader, end to end through
//! an Amber script. Expected values by hand from the Vulkan rule (point rasterization):
//! PointCoord = (0.5 + (x_f − x_p) / size, 0.5 + (y_f − y_p) / size), with (x_f, y_f) the
//! fragment's pixel centre and (x_p, y_p) the point's window position.
//!
//! A 4-pixel point at NDC (0, 0) of a 32×32 framebuffer sits at window (16, 16) and covers the
//! pixels 14..=17 in x and y; their centres 14.5, 15.5, 16.5, 17.5 give 0.125, 0.375, 0.625 and
//! 0.875, which R8G8B8A8_UNORM stores as round(255·v) = 32, 96, 159, 223. Pixels outside the
//! point keep the clear colour. Needs `glslangValidator` (CI installs glslang-tools).

use std::path::Path;

mod common;

use common::tools::{self, Tool};
use quadstep::amber::{self, RunOptions, Status};

#[test]
fn point_coord_spans_the_point_left_to_right_and_top_to_bottom() {
    if !tools::have("point_coord", &[Tool::Glslang]) {
        return;
    }
    let unorm = [32, 96, 159, 223];
    let mut expects = String::new();
    for (j, &v) in unorm.iter().enumerate() {
        for (i, &u) in unorm.iter().enumerate() {
            let (x, y) = (14 + i, 14 + j);
            expects +=
                &format!("EXPECT fb IDX {x} {y} SIZE 1 1 EQ_RGBA {u} {v} 0 255 TOLERANCE 1\n");
        }
    }
    // outside the point: the clear colour
    for (x, y) in [(13, 16), (18, 16), (16, 13), (16, 18)] {
        expects += &format!("EXPECT fb IDX {x} {y} SIZE 1 1 EQ_RGBA 0 0 255 0\n");
    }
    let script = format!(
        r#"#!amber
SHADER vertex vs GLSL
#version 450
layout(location = 0) in vec4 pos;
void main() {{
    gl_Position = pos;
    gl_PointSize = 4.0;
}}
END
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 c;
void main() {{
    c = vec4(gl_PointCoord, 0.0, 1.0);
}}
END
BUFFER pos DATA_TYPE vec4<float> DATA
0.0 0.0 0.0 1.0
END
BUFFER fb FORMAT R8G8B8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  VERTEX_DATA pos LOCATION 0
  FRAMEBUFFER_SIZE 32 32
  BIND BUFFER fb AS color LOCATION 0
END
CLEAR_COLOR p 0 0 255 0
CLEAR p
RUN p DRAW_ARRAY AS POINT_LIST START_IDX 0 COUNT 1
{expects}"#
    );
    let parsed = amber::parse(&script, Path::new("point_coord.amber")).expect("script parses");
    let st = amber::run_script(&parsed, &RunOptions::default()).status;
    assert_eq!(st, Status::Pass, "script:\n{script}");
}
