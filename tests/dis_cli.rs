//! `quadstep dis` as people read it: every op family in IR syntax, word offsets that match
//! `spirv-dis --offsets`, and source lines that match the GLSL file.
//!
//! The module is `tests/data/dis/ops.spvasm`, written by hand with numbered ids, whose
//! `OpLine`s point into `tests/data/dis/ops.frag` (which it embeds with `OpSource`); the
//! expected text below is derived from those two files, the word counts of the instructions
//! and the SPIR-V rules for `OpLine` (a position lasts until the next `OpLine`, `OpNoLine` or
//! the end of the block).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::tools::{self, Tool};

fn quadstep() -> Command {
    Command::new(env!("CARGO_BIN_EXE_quadstep"))
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/dis")
        .join(name)
}

fn dis(args: &[&std::ffi::OsStr]) -> String {
    let o = quadstep().arg("dis").args(args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Runs of spaces as one (the listing aligns its columns; the text is what is compared).
fn squeeze(s: &str) -> String {
    s.split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The function of ops.spvasm as `dis` lists it. Offsets: the 5-word header, then the
/// instructions before the function end at word 215 (OpSource: 4 words plus the 391 bytes of
/// ops.frag and its NUL in 98 words, from word 33), then each instruction's word count
/// (OpFunction 5, OpLabel 2, OpLine 4, OpLoad 4, OpImageSampleImplicitLod 5,
/// OpCompositeExtract 5, OpDPdxFine 4, OpGroupNonUniformQuadSwap 6, OpGroupNonUniformFAdd 6,
/// OpCompositeConstruct 7, OpFAdd 5, OpNoLine 1, OpStore 3, OpReturn 1). Lines: from each
/// OpLine to the OpNoLine; a line's text shows where the line starts.
const FUNCTION: &str = "\
%1 = OpFunction %6 None %7 ; @215
%19 = OpLabel ; @220
OpLine %4 8 5 ; @222 ops.frag:8 | vec4 t = texture(tex, uv);
%20 = OpLoad %15 %5 ; @226 ops.frag:8
%21 = OpLoad %9 %2 ; @230 ops.frag:8
%22 = OpImageSampleImplicitLod %10 %20 %21 ; @234 ops.frag:8
OpLine %4 9 5 ; @239 ops.frag:9 | float d = dFdxFine(uv.x);
%23 = OpCompositeExtract %8 %21 0 ; @243 ops.frag:9
%24 = OpDPdxFine %8 %23 ; @248 ops.frag:9
OpLine %4 10 5 ; @252 ops.frag:10 | float q = subgroupQuadSwapDiagonal(d);
%25 = OpGroupNonUniformQuadSwap %8 %13 %24 %12 ; @256 ops.frag:10
OpLine %4 11 5 ; @262 ops.frag:11 | color = t + subgroupAdd(q);
%26 = OpGroupNonUniformFAdd %8 %13 Reduce %25 ; @266 ops.frag:11
%27 = OpCompositeConstruct %10 %26 %26 %26 %26 ; @272 ops.frag:11
%28 = OpFAdd %10 %22 %27 ; @279 ops.frag:11
OpNoLine ; @284
OpStore %3 %28 ; @285
OpReturn ; @288
OpFunctionEnd ; @289
";

/// The IR before the optimiser. Constants first: the module's (%12 = 2, %13 = 3), then the
/// per-lane word addresses the lowering needs (uv at words 0-1, color at 2-5; 2 and 3 are
/// %12 and %13 again). Markers only before instructions that made IR: the sampled-image
/// load, `OpCompositeExtract` and `OpCompositeConstruct` are register renames; the store
/// after `OpNoLine` has no line. Quad swap direction 2 is the diagonal; `OpGroupNonUniformFAdd
/// Reduce` a reduction over the subgroup; the vec4 `OpFAdd` four scalar adds.
const IR: &str = "
; IR of entry point \"main\" (fragment shader), before the optimiser
; input  location 0 component 0: 2 x F32 at Local[0] (Smooth)
; output location 0 component 0: 4 x F32 at Local[2] (Smooth)
; res0 = set 0 binding 1: CombinedImageSampler 2D F32
; 6 words of per-lane memory, 0 of workgroup memory
  r0:I32 = const 0x2
  r1:I32 = const 0x3
  r2:I32 = const 0x0
  r4:I32 = const 0x1
  r17:I32 = const 0x4
  r18:I32 = const 0x5
b0:
  jump b1
b1:
  ; @230 ops.frag:8  | vec4 t = texture(tex, uv);
  r3 = load.F32 Local[r2]
  r5 = load.F32 Local[r4]
  ; @234 ops.frag:8
  r6, r7, r8, r9 = ImageSample.F32 res0, (r3, r5)
  ; @248 ops.frag:9  | float d = dFdxFine(uv.x);
  r10 = DPdxFine.F32 r3
  ; @256 ops.frag:10  | float q = subgroupQuadSwapDiagonal(d);
  r11 = QuadSwapDiagonal.F32 r10
  ; @266 ops.frag:11  | color = t + subgroupAdd(q);
  r12 = GroupFAdd.Reduce.F32 r11
  ; @279 ops.frag:11
  r13 = FAdd.F32 r6, r12
  r14 = FAdd.F32 r7, r12
  r15 = FAdd.F32 r8, r12
  r16 = FAdd.F32 r9, r12
  ; @285
  store.F32 Local[r0], r13
  store.F32 Local[r1], r14
  store.F32 Local[r17], r15
  store.F32 Local[r18], r16
  return
; texture policy Vulkan (the shader's own)
";

#[test]
fn dis_lists_each_op_family_with_offsets_and_source_lines() {
    let out = dis(&[data("ops.spvasm").as_os_str(), "--no-opt".as_ref()]);
    let (spirv, ir) = out.split_at(out.find("\n; IR of").expect("an IR section"));
    let func: Vec<String> = spirv
        .lines()
        .skip_while(|l| !l.contains("OpFunction "))
        .map(squeeze)
        .collect();
    let want: Vec<&str> = FUNCTION.lines().collect();
    assert_eq!(func, want, "{spirv}");
    assert_eq!(ir, IR, "{ir}");
    // the offsets stand in one column where the instruction leaves room
    let cols: Vec<usize> = spirv
        .lines()
        .filter(|l| l.contains("OpDecorate") || l.contains("OpLabel"))
        .map(|l| l.find("; @").unwrap())
        .collect();
    assert!(cols.windows(2).all(|w| w[0] == w[1]), "{cols:?}\n{spirv}");
    // no Rust debug structs anywhere
    assert!(!out.contains(" { ") && !out.contains("ImageType"), "{out}");
}

/// `(word offset, instruction text)` of `quadstep dis` lines and of `spirv-dis --offsets`
/// lines (whose byte offsets are divided by 4).
fn offsets(text: &str, mark: &str, radix: u32, scale: u32) -> Vec<u32> {
    text.lines()
        .filter_map(|l| {
            let at = l.rfind(mark)? + mark.len();
            let digits: String = l[at..].chars().take_while(|c| c.is_digit(radix)).collect();
            Some(u32::from_str_radix(&digits, radix).ok()? / scale)
        })
        .collect()
}

fn assert_offsets_match_spirv_dis(spv: &Path) {
    let ours = dis(&[spv.as_os_str(), "--ir-only".as_ref()]);
    let ours_markers = offsets(&ours, "; @", 10, 1);
    let listing = dis(&[spv.as_os_str()]);
    let listing = &listing[..listing.find("\n; IR of").unwrap()];
    let theirs = Command::new("spirv-dis")
        .args(["--offsets", "--raw-id"])
        .arg(spv)
        .output()
        .unwrap();
    assert!(theirs.status.success());
    let theirs = String::from_utf8(theirs.stdout).unwrap();
    let want = offsets(&theirs, "; 0x", 16, 4);
    assert!(want.len() > 20, "{theirs}");
    assert_eq!(offsets(listing, "; @", 10, 1), want, "{listing}\n{theirs}");
    // every IR marker names an instruction of the listing
    assert!(!ours_markers.is_empty());
    for m in ours_markers {
        assert!(
            want.contains(&m),
            "IR marker @{m} is no instruction:\n{theirs}"
        );
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quadstep-dis-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn dis_offsets_are_spirv_dis_offsets() {
    if !tools::have("dis offsets", &[Tool::SpirvAs, Tool::SpirvDis]) {
        return;
    }
    let spv = tmp("ops.spv");
    let o = Command::new("spirv-as")
        .args(["--target-env", "spv1.3", "-o"])
        .arg(&spv)
        .arg(data("ops.spvasm"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_offsets_match_spirv_dis(&spv);
    if tools::have("dis offsets of glslang -g", &[Tool::Glslang]) {
        let src = std::fs::read_to_string(data("ops.frag")).unwrap();
        let bytes = Tool::Glslang
            .compile(&["-V", "-g", "--target-env", "spirv1.3"], "frag", &src)
            .unwrap();
        let spv = tmp("ops_g.spv");
        std::fs::write(&spv, bytes).unwrap();
        assert_offsets_match_spirv_dis(&spv);
    }
}

/// Each IR line that starts a source line shows that line of the GLSL file, and the image,
/// derivative, quad and subgroup instructions sit under the lines that call them.
#[test]
fn dis_of_glsl_shows_the_files_own_lines() {
    if !tools::have("dis source lines", &[Tool::Glslang]) {
        return;
    }
    let glsl = std::fs::read_to_string(data("ops.frag")).unwrap();
    let line_of = |needle: &str| glsl.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let out = dis(&[data("ops.frag").as_os_str(), "--ir-only".as_ref()]);
    let mut line = 0;
    let mut under = Vec::new();
    for l in out.lines() {
        if let Some(rest) = l.trim().strip_prefix("; @") {
            let at = rest.split_once(" ops.frag:").expect(l).1;
            let (n, text) = at.split_once("  | ").unwrap_or((at, ""));
            line = n.parse().unwrap();
            if !text.is_empty() {
                assert_eq!(text, glsl.lines().nth(line - 1).unwrap().trim(), "{l}");
            }
        } else if l.contains(" = ") && !l.contains("const") && !l.starts_with(';') {
            under.push((l.trim().to_string(), line));
        }
    }
    for (op, call) in [
        ("ImageSample", "texture("),
        ("DPdxFine", "dFdxFine("),
        ("QuadSwapDiagonal", "subgroupQuadSwapDiagonal("),
        ("GroupFAdd.Reduce", "subgroupAdd("),
    ] {
        let (_, at) = under
            .iter()
            .find(|(i, _)| i.contains(op))
            .unwrap_or_else(|| panic!("no {op} in\n{out}"));
        assert_eq!(*at, line_of(call), "{op}\n{out}");
    }
}
