//! Run-time errors point at the user's text: `quadstep amber` on scripts whose shaders stop
//! (instruction budget, OpUnreachable) or read a descriptor nobody bound. Each message names
//! the stage and entry point, the SPIR-V word offset and the source line, and a descriptor by
//! set, binding and name. The expected offsets come from `spirv-as` + `spirv-dis --offsets`
//! on the script's own assembly, the expected lines from the script's text.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::tools::{self, Tool};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadstep-rterr-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Runs `quadstep amber` on `text` saved as `name`: (exit code, the script's one output
/// line, the script's path).
fn amber(name: &str, text: &str, args: &[&str]) -> (Option<i32>, String, PathBuf) {
    let path = tmp(name);
    std::fs::write(&path, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_quadstep"))
        .arg("amber")
        .arg(&path)
        .args(args)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = out.lines().next().unwrap_or_default().to_string();
    (o.status.code(), line, path)
}

/// The 1-based line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?} in the script"))
        + 1
}

/// The number after `key` in `msg`.
fn number_after(msg: &str, key: &str) -> u32 {
    let at = msg
        .find(key)
        .unwrap_or_else(|| panic!("no {key:?} in {msg}"))
        + key.len();
    let digits: String = msg[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

/// `(word offset, text)` of each instruction of SPIR-V assembly `asm`, from `spirv-as` and
/// `spirv-dis --offsets` (byte offsets / 4).
fn spirv_dis_offsets(asm: &str) -> Vec<(u32, String)> {
    // a name per call: the tests run in parallel
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (src, spv) = (
        tmp(&format!("shader{n}.spvasm")),
        tmp(&format!("shader{n}.spv")),
    );
    std::fs::write(&src, asm).unwrap();
    let o = Command::new("spirv-as")
        .args(["--target-env", "spv1.3", "-o"])
        .arg(&spv)
        .arg(&src)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new("spirv-dis")
        .args(["--offsets", "--raw-id"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let (text, hex) = l.rsplit_once(" ; 0x")?;
            Some((
                u32::from_str_radix(hex, 16).ok()? / 4,
                text.trim().to_string(),
            ))
        })
        .collect()
}

/// The text between `SHADER … SPIRV-ASM` and `END` of a script.
fn shader_asm(script: &str) -> String {
    let start = script.find("SPIRV-ASM\n").unwrap() + "SPIRV-ASM\n".len();
    let end = script[start..].find("\nEND").unwrap() + start;
    script[start..end].to_string()
}

const SPIN_ASM: &str = "#!amber
# an endless loop whose OpLines name spin.comp lines 4 (the loop header) and 5 (its body)
SHADER compute spin SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 1 1 1
          %f = OpString \"spin.comp\"
               OpDecorate %S BufferBlock
               OpMemberDecorate %S 0 Offset 0
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
          %S = OpTypeStruct %uint
      %S_ptr = OpTypePointer Uniform %S
      %u_ptr = OpTypePointer Uniform %uint
        %buf = OpVariable %S_ptr Uniform
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpBranch %head
       %head = OpLabel
               OpLine %f 4 1
               OpLoopMerge %exit %cont None
               OpBranch %body
       %body = OpLabel
               OpLine %f 5 1
          %p = OpAccessChain %u_ptr %buf %uint_0
          %v = OpLoad %uint %p
          %w = OpIAdd %uint %v %uint_1
               OpStore %p %w
               OpBranch %cont
       %cont = OpLabel
               OpBranch %head
       %exit = OpLabel
               OpReturn
               OpFunctionEnd
END

BUFFER data DATA_TYPE uint32 SIZE 1 FILL 0

PIPELINE compute p
  ATTACH spin
  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 0
END

RUN p 1 1 1
";

#[test]
fn the_budget_names_the_stage_the_loops_word_and_line_and_the_option() {
    let (code, line, path) = amber("spin.amber", SPIN_ASM, &["--budget", "10000"]);
    // a failed run: exit 1, one line naming the script once, at the RUN
    assert_eq!(code, Some(1), "{line}");
    let run = line_of(SPIN_ASM, "RUN p");
    assert!(
        line.starts_with(&format!("FAIL {}:{run}: ", path.display())),
        "{line}"
    );
    assert_eq!(
        line.matches(&*path.display().to_string()).count(),
        1,
        "{line}"
    );
    assert!(
        line.contains("compute shader 'main' at SPIR-V word "),
        "{line}"
    );
    assert!(
        line.contains("budget of 10000 instructions") && line.contains("--budget"),
        "{line}"
    );
    assert!(!line.contains("at block b"), "{line}");
    // the word is an instruction of the loop: from the header's OpLabel to the merge block's
    let word = number_after(&line, "SPIR-V word ");
    if tools::have("budget offsets", &[Tool::SpirvAs, Tool::SpirvDis]) {
        let insts = spirv_dis_offsets(&shader_asm(SPIN_ASM));
        let merge = insts
            .iter()
            .position(|i| i.1.contains("OpLoopMerge"))
            .unwrap();
        let head = insts[..merge]
            .iter()
            .rposition(|i| i.1.ends_with("OpLabel"))
            .unwrap();
        let ret = insts.iter().position(|i| i.1 == "OpReturn").unwrap();
        let (from, to) = (insts[head].0, insts[ret - 1].0);
        assert!(
            (from..to).contains(&word) && insts.iter().any(|i| i.0 == word),
            "word {word} is not an instruction in {from}..{to}: {insts:?}"
        );
    }
    let at = number_after(&line, "(spin.comp:");
    assert!(at == 4 || at == 5, "{line}");
}

const SPIN_GLSL: &str = "#!amber
SHADER compute spin GLSL
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 2) buffer Data { uint v[]; } data;
void main() {
    uint x = 1u;
    while (data.v[0] != 0xdeadbeefu) {
        x = x * 1664525u + 1013904223u;
        data.v[1] = x;
    }
}
END

BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0

PIPELINE compute p
  ATTACH spin
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 2
END

RUN p 1 1 1
";

#[test]
fn a_glsl_shaders_budget_error_names_the_scripts_line_in_the_loop() {
    if !tools::have("GLSL budget line", &[Tool::Glslang]) {
        return;
    }
    let (code, line, path) = amber("spin_glsl.amber", SPIN_GLSL, &["--budget", "10000"]);
    assert_eq!(code, Some(1), "{line}");
    assert!(
        line.contains("compute shader 'main' at SPIR-V word "),
        "{line}"
    );
    let at = number_after(&line, &format!("({}:", path.display()));
    let lines = line_of(SPIN_GLSL, "while (")..=line_of(SPIN_GLSL, "data.v[1] = x;");
    assert!(lines.contains(&(at as usize)), "{line}: not in {lines:?}");
}

const UNBOUND_TEXTURE: &str = "#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 450
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(location = 0) out vec4 color;
void main() {
    color = texture(tex, gl_FragCoord.xy / 8.0);
}
END
BUFFER fb FORMAT B8G8R8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  BIND BUFFER fb AS color LOCATION 0
  FRAMEBUFFER_SIZE 8 8
END
RUN p DRAW_RECT POS 0 0 SIZE 8 8
";

#[test]
fn an_unbound_texture_is_named_by_set_binding_and_name_at_its_line() {
    if !tools::have("unbound texture", &[Tool::Glslang]) {
        return;
    }
    let (code, line, path) = amber("unbound_tex.amber", UNBOUND_TEXTURE, &[]);
    assert_eq!(code, Some(1), "{line}");
    assert!(
        line.contains("fragment shader 'main' at SPIR-V word "),
        "{line}"
    );
    assert!(line.contains("set 0 binding 1 'tex'"), "{line}");
    assert!(!line.contains("slot"), "{line}");
    let at = number_after(&line, &format!("({}:", path.display()));
    assert_eq!(
        at as usize,
        line_of(UNBOUND_TEXTURE, "texture(tex"),
        "{line}"
    );
}

#[test]
fn an_unbound_texture_of_assembly_is_at_the_sample_instructions_word() {
    // the module of `quadstep dis`'s test, by FILE: its OpLines name ops.frag
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dis");
    let script = format!(
        "#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs SPIRV-ASM TARGET_ENV spv1.3 FILE {}
BUFFER fb FORMAT B8G8R8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  BIND BUFFER fb AS color LOCATION 0
  FRAMEBUFFER_SIZE 8 8
END
RUN p DRAW_RECT POS 0 0 SIZE 8 8
",
        dir.join("ops.spvasm").display()
    );
    let (code, line, _) = amber("unbound_asm.amber", &script, &[]);
    assert_eq!(code, Some(1), "{line}");
    assert!(line.contains("set 0 binding 1 (") || line.contains("set 0 binding 1"));
    let word = number_after(&line, "fragment shader 'main' at SPIR-V word ");
    let asm = std::fs::read_to_string(dir.join("ops.spvasm")).unwrap();
    let glsl = std::fs::read_to_string(dir.join("ops.frag")).unwrap();
    assert_eq!(
        number_after(&line, "(ops.frag:") as usize,
        line_of(&glsl, "texture(tex"),
        "{line}"
    );
    if tools::have("unbound texture offsets", &[Tool::SpirvAs, Tool::SpirvDis]) {
        let insts = spirv_dis_offsets(&asm);
        let sample = insts
            .iter()
            .find(|i| i.1.contains("OpImageSampleImplicitLod"))
            .unwrap();
        assert_eq!(word, sample.0, "{line}");
    }
}

const UNBOUND_BUFFER: &str = "#!amber
SHADER compute c GLSL
#version 450
layout(local_size_x = 1) in;
layout(set = 1, binding = 2) buffer Data { uint v[]; } data;
void main() { data.v[0] = 1u; }
END
PIPELINE compute p
  ATTACH c
END
RUN p 1 1 1
";

#[test]
fn an_unbound_buffer_is_named_by_stage_set_binding_and_name() {
    if !tools::have("unbound buffer", &[Tool::Glslang]) {
        return;
    }
    let (code, line, path) = amber("unbound_buf.amber", UNBOUND_BUFFER, &[]);
    assert_eq!(code, Some(1), "{line}");
    let run = line_of(UNBOUND_BUFFER, "RUN p");
    assert!(
        line.starts_with(&format!("FAIL {}:{run}: ", path.display())),
        "{line}"
    );
    assert!(
        line.contains("compute shader 'main' uses a buffer at set 1 binding 2 'data'"),
        "{line}"
    );
}

const UNREACHABLE: &str = "#!amber
SHADER compute c SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpBranch %next
       %next = OpLabel
               OpUnreachable
               OpFunctionEnd
END
PIPELINE compute p
  ATTACH c
END
RUN p 1 1 1
";

#[test]
fn reaching_unreachable_names_its_word() {
    let (code, line, _) = amber("unreachable.amber", UNREACHABLE, &[]);
    assert_eq!(code, Some(1), "{line}");
    let word = number_after(&line, "compute shader 'main' at SPIR-V word ");
    assert!(line.contains("reached OpUnreachable"), "{line}");
    if tools::have("unreachable offsets", &[Tool::SpirvAs, Tool::SpirvDis]) {
        let insts = spirv_dis_offsets(&shader_asm(UNREACHABLE));
        let at = insts.iter().find(|i| i.1 == "OpUnreachable").unwrap();
        assert_eq!(word, at.0, "{line}");
    }
}

#[test]
fn a_parse_error_names_the_script_once() {
    let (code, line, path) = amber("parse.amber", "#!amber\nBOGUS\n", &[]);
    assert_eq!(code, Some(2), "{line}");
    assert_eq!(
        line,
        format!("FAIL {}:2: unknown command 'BOGUS'", path.display())
    );
}
