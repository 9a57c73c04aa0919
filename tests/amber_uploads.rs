//! Textures are made from a script's buffers once for each contents, not once per `RUN`:
//! the runner reports every texture it makes (`RunHook::image_uploaded`), and a script that
//! samples one image in several draws, then changes it and samples it again, must make two;
//! the draws after the change must see the new contents (the colours are the script's own
//! `CLEAR_COLOR`s).

use std::path::Path;
use std::sync::{Arc, Mutex};

mod common;

use common::tools::{self, Tool};
use quadstep::amber::{self, RunHook, RunOptions, Status};

#[derive(Default)]
struct Uploads(Mutex<Vec<String>>);

impl RunHook for Uploads {
    fn image_uploaded(&self, buffer: &str) {
        self.0.lock().unwrap().push(buffer.to_string());
    }
}

const SCRIPT: &str = r#"#!amber
SHADER vertex vert PASSTHROUGH
SHADER fragment paint GLSL
#version 450
layout(location = 0) out vec4 color;
void main() { color = vec4(0.0); }
END
SHADER fragment show GLSL
#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
void main() { color = texture(tex, gl_FragCoord.xy / 8.0); }
END

BUFFER tex FORMAT R8G8B8A8_UNORM
BUFFER framebuffer FORMAT R8G8B8A8_UNORM
SAMPLER nearest MAG_FILTER nearest MIN_FILTER nearest

PIPELINE graphics fill
  ATTACH vert
  ATTACH paint
  FRAMEBUFFER_SIZE 4 4
  BIND BUFFER tex AS color LOCATION 0
END

PIPELINE graphics sample
  ATTACH vert
  ATTACH show
  FRAMEBUFFER_SIZE 8 8
  BIND BUFFER tex AS combined_image_sampler SAMPLER nearest DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER framebuffer AS color LOCATION 0
END

CLEAR_COLOR fill 255 0 0 255
CLEAR fill
RUN sample DRAW_RECT POS 0 0 SIZE 8 8
RUN sample DRAW_RECT POS 0 0 SIZE 8 8
RUN sample DRAW_RECT POS 0 0 SIZE 8 8
EXPECT framebuffer IDX 0 0 SIZE 8 8 EQ_RGBA 255 0 0 255

CLEAR_COLOR fill 0 0 255 255
CLEAR fill
RUN sample DRAW_RECT POS 0 0 SIZE 8 8
EXPECT framebuffer IDX 0 0 SIZE 8 8 EQ_RGBA 0 0 255 255
RUN sample DRAW_RECT POS 0 0 SIZE 8 8
"#;

#[test]
fn a_texture_is_made_once_per_contents_not_once_per_run() {
    if !tools::have("amber_uploads", &[Tool::Glslang]) {
        return;
    }
    let script = amber::parse(SCRIPT, Path::new("uploads.amber")).unwrap();
    let hook = Arc::new(Uploads::default());
    let opts = RunOptions {
        hook: Some(hook.clone()),
        ..RunOptions::default()
    };
    let r = amber::run_script(&script, &opts);
    assert_eq!(r.status, Status::Pass, "{}", r.status.detail());
    // five draws sample `tex`: three before the second CLEAR, two after
    assert_eq!(*hook.0.lock().unwrap(), ["tex", "tex"]);
}
