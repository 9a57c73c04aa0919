//! Shader generation, textures, lane operands and the case runner for the hand-computed table
//! of `tests/sample_cmp_family.rs`.

use approx::abs_diff_eq;
use quadstep::exec::{run_fragment_quads, FragQuadInput};
use quadstep::pipeline::{Descriptor, DescriptorSets, ImageResource, Shader, ShaderImages};
pub use quadstep::texture::LodPrecision;
use quadstep::texture::{self, Format, Image, ImageDim, ImageView, ViewType};
pub use quadstep::texture::{
    AddressMode, BorderColor, CompareOp, Filter, MipmapMode, Policy, Sampler,
};

/// The six receivers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recv {
    T1,
    T1A,
    T2,
    T2A,
    Cube,
    CubeA,
}

impl Recv {
    /// (SPIR-V Dim, arrayed, spatial components).
    fn shape(self) -> (&'static str, bool, usize) {
        match self {
            Recv::T1 => ("1D", false, 1),
            Recv::T1A => ("1D", true, 1),
            Recv::T2 => ("2D", false, 2),
            Recv::T2A => ("2D", true, 2),
            Recv::Cube => ("Cube", false, 3),
            Recv::CubeA => ("Cube", true, 3),
        }
    }
    fn view_type(self) -> ViewType {
        match self {
            Recv::T1 => ViewType::D1,
            Recv::T1A => ViewType::D1Array,
            Recv::T2 => ViewType::D2,
            Recv::T2A => ViewType::D2Array,
            Recv::Cube => ViewType::Cube,
            Recv::CubeA => ViewType::CubeArray,
        }
    }
}

/// The HLSL overloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `SampleCmp`: DrefImplicitLod.
    Cmp,
    /// `SampleCmpBias`: DrefImplicitLod Bias (lane input `lb`).
    Bias,
    /// `SampleCmpLevelZero`: DrefExplicitLod Lod 0.0.
    LevelZero,
    /// `SampleCmpLevel`: DrefExplicitLod Lod (lane input `lb`).
    Level,
    /// `SampleCmpGrad`: DrefExplicitLod Grad (lane inputs gx, gy).
    Grad,
}

/// One shader variant.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub recv: Recv,
    pub op: Op,
    /// `ConstOffset` (1D uses `.0[0]`).
    pub offset: Option<[i32; 2]>,
    /// `MinLod` operand (HLSL clamp), from lane input `cl`.
    pub clamp: bool,
    /// Separate `Texture*` + `SamplerComparisonState` (DXC) instead of a combined sampler.
    pub separate: bool,
    /// Non-constant `Offset` operand (SM 6.7 programmable offsets), from lane input `off`.
    pub var_offset: bool,
}

impl Key {
    pub fn new(recv: Recv, op: Op) -> Key {
        Key {
            recv,
            op,
            offset: None,
            clamp: false,
            separate: false,
            var_offset: false,
        }
    }
    pub fn offset(mut self, o: [i32; 2]) -> Key {
        self.offset = Some(o);
        self
    }
    pub fn clamp(mut self) -> Key {
        self.clamp = true;
        self
    }
    pub fn var_offset(mut self) -> Key {
        self.var_offset = true;
        self
    }
    pub fn separate(mut self) -> Key {
        self.separate = true;
        self
    }
}

const TEMPLATE: &str = include_str!("../../shaders/sample_cmp/sample_cmp.spvasm.in");

fn ind(s: &str) -> String {
    format!("               {s}\n")
}

/// The spirv-as text for a key.
pub fn shader_text(k: &Key) -> String {
    let (dim, arrayed, sp) = k.recv.shape();
    let mut caps = String::new();
    if dim == "1D" {
        caps += &ind("OpCapability Sampled1D");
    }
    if k.recv == Recv::CubeA {
        caps += &ind("OpCapability SampledCubeArray");
    }
    if k.clamp {
        caps += &ind("OpCapability MinLod");
    }
    if k.var_offset {
        caps += &ind("OpCapability ImageGatherExtended");
    }
    let (sampler_dec, resources, sampled) = if k.separate {
        (
            ind("OpDecorate %smp DescriptorSet 0") + &ind("OpDecorate %smp Binding 1"),
            "    %ptr_img = OpTypePointer UniformConstant %img_t\n\
             \x20       %tex = OpVariable %ptr_img UniformConstant\n\
             \x20     %smp_t = OpTypeSampler\n\
             \x20   %ptr_smp = OpTypePointer UniformConstant %smp_t\n\
             \x20       %smp = OpVariable %ptr_smp UniformConstant\n"
                .to_string(),
            "          %t = OpLoad %img_t %tex\n\
             \x20         %s = OpLoad %smp_t %smp\n\
             \x20        %si = OpSampledImage %si_t %t %s\n"
                .to_string(),
        )
    } else {
        (
            String::new(),
            "     %ptr_si = OpTypePointer UniformConstant %si_t\n\
             \x20       %tex = OpVariable %ptr_si UniformConstant\n"
                .to_string(),
            "         %si = OpLoad %si_t %tex\n".to_string(),
        )
    };
    let n = sp + arrayed as usize;
    let coord = match n {
        1 => "      %coord = OpCompositeExtract %float %c4 0\n".to_string(),
        2 => "      %coord = OpVectorShuffle %v2float %c4 %c4 0 1\n".to_string(),
        3 => "      %coord = OpVectorShuffle %v3float %c4 %c4 0 1 2\n".to_string(),
        _ => "      %coord = OpCopyObject %v4float %c4\n".to_string(),
    };
    let grads = match sp {
        1 => "         %gx = OpCompositeExtract %float %gx4 0\n\
              \x20        %gy = OpCompositeExtract %float %gy4 0\n"
            .to_string(),
        2 => "         %gx = OpVectorShuffle %v2float %gx4 %gx4 0 1\n\
              \x20        %gy = OpVectorShuffle %v2float %gy4 %gy4 0 1\n"
            .to_string(),
        _ => "         %gx = OpVectorShuffle %v3float %gx4 %gx4 0 1 2\n\
              \x20        %gy = OpVectorShuffle %v3float %gy4 %gy4 0 1 2\n"
            .to_string(),
    };
    let offset_consts = match k.offset {
        None => String::new(),
        Some(o) if sp == 1 => format!("        %off = OpConstant %int {}\n", o[0]),
        Some(o) => format!(
            "         %ox = OpConstant %int {}\n         %oy = OpConstant %int {}\n        %off = OpConstantComposite %v2int %ox %oy\n",
            o[0], o[1]
        ),
    };
    let offset_var = match (k.var_offset, sp) {
        (false, _) => String::new(),
        (true, 1) => "        %oxf = OpCompositeExtract %float %gx4 3\n\
                      \x20       %off = OpBitcast %int %oxf\n"
            .to_string(),
        (true, _) => "        %oxf = OpCompositeExtract %float %gx4 3\n\
                      \x20      %oyf = OpCompositeExtract %float %gy4 3\n\
                      \x20      %oxi = OpBitcast %int %oxf\n\
                      \x20      %oyi = OpBitcast %int %oyf\n\
                      \x20      %off = OpCompositeConstruct %v2int %oxi %oyi\n"
            .to_string(),
    };
    let mut masks: Vec<&str> = Vec::new();
    let mut ids: Vec<&str> = Vec::new();
    let opcode = match k.op {
        Op::Cmp => "OpImageSampleDrefImplicitLod",
        Op::Bias => {
            masks.push("Bias");
            ids.push("%lb");
            "OpImageSampleDrefImplicitLod"
        }
        Op::LevelZero => {
            masks.push("Lod");
            ids.push("%float_0");
            "OpImageSampleDrefExplicitLod"
        }
        Op::Level => {
            masks.push("Lod");
            ids.push("%lb");
            "OpImageSampleDrefExplicitLod"
        }
        Op::Grad => {
            masks.push("Grad");
            ids.push("%gx %gy");
            "OpImageSampleDrefExplicitLod"
        }
    };
    if k.offset.is_some() {
        masks.push("ConstOffset");
        ids.push("%off");
    }
    if k.var_offset {
        masks.push("Offset");
        ids.push("%off");
    }
    if k.clamp {
        masks.push("MinLod");
        ids.push("%cl");
    }
    let operands = if masks.is_empty() {
        String::new()
    } else {
        format!(" {} {}", masks.join("|"), ids.join(" "))
    };
    TEMPLATE
        .replace("{{CAPS}}", &caps)
        .replace("{{SAMPLER_DECORATIONS}}", &sampler_dec)
        .replace("{{DIM}}", dim)
        // DXC declares `Texture*` with Depth 2 ("unknown") and samples it with a comparison
        // sampler; glslang's combined `sampler2DShadow` has Depth 1.
        .replace("{{DEPTH}}", if k.separate { "2" } else { "1" })
        .replace("{{ARRAYED}}", if arrayed { "1" } else { "0" })
        .replace("{{RESOURCES}}", &resources)
        .replace("{{OFFSET_CONSTANTS}}", &offset_consts)
        .replace("{{COORD}}", &coord)
        .replace("{{GRADS}}", &grads)
        .replace("{{OFFSET_VAR}}", &offset_var)
        .replace("{{SAMPLED_IMAGE}}", &sampled)
        .replace("{{OPCODE}}", opcode)
        .replace("{{OPERANDS}}", &operands)
}

/// Depth of level `l`, layer (or cube face / 6·cube + face) `layer` of a "level" texture.
pub fn dv(l: u32, layer: u32) -> f32 {
    (16 * l + layer + 1) as f32 / 256.0
}

/// Depth of texel (i, j) of layer `l` of a "ramp" texture.
pub fn ramp(i: u32, j: u32, l: u32) -> f32 {
    (64 * l + 8 * j + i + 1) as f32 / 256.0
}

fn make_image(recv: Recv, format: Format, size: u32, layers: u32, levels: u32) -> Image {
    let r = match recv {
        Recv::T1 | Recv::T1A => Image::new(format, ImageDim::D1, [size, 1, 1], layers, levels, 1),
        _ => Image::new(format, ImageDim::D2, [size, size, 1], layers, levels, 1),
    };
    r.expect("image")
}

fn fill(img: &mut Image, f: impl Fn(u32, u32, u32, u32) -> f32) {
    for l in 0..img.levels() {
        let e = img.level_extent(l);
        let mut t = Vec::new();
        for layer in 0..img.layers() {
            for j in 0..e[1] {
                for i in 0..e[0] {
                    t.push([f(l, layer, i, j), 0.0, 0.0, 1.0]);
                }
            }
        }
        img.upload_f32(l, &t).expect("upload");
    }
}

/// The "level" texture of a receiver: 1D 16 wide ×5 levels (1D array: 4 layers); 2D 16×16 ×5
/// levels (2D array: 4 layers); cube 8×8 ×4 levels (cube array: 2 cubes = 12 layers).
/// Texel of level L, layer/face n = `dv(L, n)`.
pub fn level_tex(recv: Recv) -> Image {
    let (size, layers, levels) = match recv {
        Recv::T1 | Recv::T2 => (16, 1, 5),
        Recv::T1A | Recv::T2A => (16, 4, 5),
        Recv::Cube => (8, 6, 4),
        Recv::CubeA => (8, 12, 4),
    };
    let mut img = make_image(recv, Format::D32_SFLOAT, size, layers, levels);
    fill(&mut img, |l, layer, _, _| dv(l, layer));
    img
}

/// The "ramp" texture: one level, 8 wide (2D: 8×8), arrays with 2 layers; `ramp(i, j, l)`.
pub fn ramp_tex(recv: Recv) -> Image {
    let layers = match recv {
        Recv::T1A | Recv::T2A => 2,
        _ => 1,
    };
    let mut img = make_image(recv, Format::D32_SFLOAT, 8, layers, 1);
    fill(&mut img, |_, layer, i, j| ramp(i, j, layer));
    img
}

/// Depth of texel (i, j) of level 1 of the two-level 2D ramp ([`ramp_mip_tex`]).
pub fn ramp1(i: u32, j: u32) -> f32 {
    (128 + 4 * j + i + 1) as f32 / 256.0
}

/// 2D, 8×8, two levels: level 0 holds `ramp(i, j, 0)`, level 1 (4×4) holds `ramp1(i, j)`.
pub fn ramp_mip_tex() -> Image {
    let mut img = make_image(Recv::T2, Format::D32_SFLOAT, 8, 1, 2);
    fill(
        &mut img,
        |l, _, i, j| if l == 0 { ramp(i, j, 0) } else { ramp1(i, j) },
    );
    img
}

/// A one-level texture of `format` holding `value` everywhere.
pub fn const_tex(recv: Recv, format: Format, value: f32) -> Image {
    let mut img = make_image(recv, format, 8, 1, 1);
    fill(&mut img, |_, _, _, _| value);
    img
}

/// The comparison sampler most cases start from: nearest/nearest/nearest mip, clamp to edge,
/// compare EQUAL, no LOD clamps.
pub fn cmp_sampler(op: CompareOp) -> Sampler {
    Sampler {
        compare_enable: true,
        compare_op: op,
        address_mode: [AddressMode::ClampToEdge; 3],
        ..Sampler::default()
    }
}

/// One lane's operands.
#[derive(Clone, Copy, Debug, Default)]
pub struct L {
    pub c: [f32; 4],
    pub dref: f32,
    pub lb: f32,
    pub cl: f32,
    pub gx: [f32; 3],
    pub gy: [f32; 3],
    /// Programmable offset (inputs 2.w and 3.w as int bits).
    pub off: [i32; 2],
}

/// A lane at coordinates `c` (missing trailing components 0) with reference `dref`.
pub fn lane(c: &[f32], dref: f32) -> L {
    let mut l = L {
        dref,
        ..L::default()
    };
    l.c[..c.len()].copy_from_slice(c);
    l
}

impl L {
    /// Lod (SampleCmpLevel) or bias (SampleCmpBias).
    pub fn lb(mut self, v: f32) -> L {
        self.lb = v;
        self
    }
    /// MinLod clamp.
    pub fn cl(mut self, v: f32) -> L {
        self.cl = v;
        self
    }
    /// Programmable (non-constant) offset.
    pub fn off(mut self, x: i32, y: i32) -> L {
        self.off = [x, y];
        self
    }
    /// Gradients (normalized units).
    pub fn grad(mut self, gx: &[f32], gy: &[f32]) -> L {
        self.gx[..gx.len()].copy_from_slice(gx);
        self.gy[..gy.len()].copy_from_slice(gy);
        self
    }
}

/// What a case expects.
#[derive(Clone, Copy, Debug)]
pub enum Want {
    /// The four lanes' results, within 1e-6 (every expectation is a dyadic fraction, or a sum
    /// of them with a third of one).
    Results([f32; 4]),
    /// An error at load, bind or run time whose message contains this text (`""`: any error).
    Error(&'static str),
}

/// The texture a case samples, made for the case's receiver.
#[derive(Clone, Copy, Debug)]
pub enum Tex {
    /// [`level_tex`]: one depth per level and layer.
    Levels,
    /// [`ramp_tex`]: one level, one depth per texel.
    Ramp,
    /// [`ramp_mip_tex`]: the 2D ramp with a second level.
    RampMip,
    /// [`const_tex`]: one level of a format holding one value.
    Const(Format, f32),
}

impl Tex {
    fn image(self, recv: Recv) -> Image {
        match self {
            Tex::Levels => level_tex(recv),
            Tex::Ramp => ramp_tex(recv),
            Tex::RampMip => ramp_mip_tex(),
            Tex::Const(format, value) => const_tex(recv, format, value),
        }
    }
}

/// One hand-computed case: a shader variant sampling a texture through a sampler under a
/// policy, on one quad of four lanes, and what it must give.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub name: &'static str,
    pub key: Key,
    pub tex: Tex,
    pub sampler: Sampler,
    pub policy: Policy,
    pub precision: LodPrecision,
    /// Helper lanes run and feed derivatives; their results are checked too.
    pub helper: [bool; 4],
    pub lanes: [L; 4],
    pub want: Want,
}

/// A case with exact LOD arithmetic and no helper lanes, expecting `want`.
pub fn case(
    name: &'static str,
    key: Key,
    tex: Tex,
    sampler: Sampler,
    policy: Policy,
    lanes: [L; 4],
    want: [f32; 4],
) -> Case {
    Case {
        name,
        key,
        tex,
        sampler,
        policy,
        precision: LodPrecision::Exact,
        helper: [false; 4],
        lanes,
        want: Want::Results(want),
    }
}

impl Case {
    /// The case with another LOD/weight precision.
    pub fn precision(self, precision: LodPrecision) -> Case {
        Case { precision, ..self }
    }

    /// The case with helper lanes.
    pub fn helper(self, helper: [bool; 4]) -> Case {
        Case { helper, ..self }
    }

    /// The case expecting an error whose message contains `text`.
    pub fn error(self, text: &'static str) -> Case {
        Case {
            want: Want::Error(text),
            ..self
        }
    }

    /// Runs the case: `Err` says how it failed.
    pub fn check(&self) -> Result<(), String> {
        let (name, got) = (self.name, self.run());
        match (self.want, got) {
            (Want::Results(want), Ok(got)) if abs_diff_eq!(got[..], want[..], epsilon = 1e-6) => {
                Ok(())
            }
            (Want::Results(want), Ok(got)) => Err(format!("{name}: got {got:?}, want {want:?}")),
            (Want::Results(_), Err(e)) => Err(format!("{name}: {e}\n{}", shader_text(&self.key))),
            (Want::Error(text), Err(e)) if e.contains(text) => Ok(()),
            (Want::Error(text), Err(e)) => Err(format!("{name}: error {e:?} lacks {text:?}")),
            (Want::Error(_), Ok(got)) => Err(format!("{name}: accepted, results {got:?}")),
        }
    }

    /// The four lane results, or the load/bind/run error.
    fn run(&self) -> Result<[f32; 4], String> {
        let Case {
            key,
            sampler,
            policy,
            precision,
            helper,
            lanes,
            ..
        } = *self;
        let img = self.tex.image(key.recv);
        let text = shader_text(&key);
        let words = quadstep::front::spvasm::assemble_with(&text, "sample_cmp.spvasm", (1, 3))
            .unwrap_or_else(|e| panic!("assemble {key:?}: {e}\n{text}"));
        let shader = Shader::from_spirv(&words, "main", &Default::default())
            .map_err(|e| format!("load {key:?}: {e}"))?;
        let view = ImageView::whole(&img, key.recv.view_type());
        let image = ImageResource::new(img);
        let mut sets = DescriptorSets::new();
        if key.separate {
            sets.bind(0, 0, Descriptor::Image { image, view });
            sets.bind(0, 1, Descriptor::Sampler(sampler));
        } else {
            sets.bind(
                0,
                0,
                Descriptor::CombinedImageSampler {
                    image,
                    view,
                    sampler,
                },
            );
        }
        let images = ShaderImages::new(
            shader.ir(),
            |r| sets.lookup(r),
            texture::Config { policy, precision },
        )
        .map_err(|e| format!("images: {e}"))?;
        let bindings = sets
            .bindings(shader.ir(), &images)
            .map_err(|e| format!("bindings: {e}"))?;
        let mut fq = FragQuadInput {
            sample_mask: [1; 4],
            varyings: vec![0; 64],
            helper,
            ..Default::default()
        };
        for (i, l) in lanes.iter().enumerate() {
            fq.frag_coord[i] = [(i & 1) as f32 + 0.5, (i >> 1) as f32 + 0.5, 0.0, 1.0];
            let words: [[f32; 4]; 4] = [
                l.c,
                [l.dref, l.lb, l.cl, 0.0],
                [l.gx[0], l.gx[1], l.gx[2], f32::from_bits(l.off[0] as u32)],
                [l.gy[0], l.gy[1], l.gy[2], f32::from_bits(l.off[1] as u32)],
            ];
            for (loc, w) in words.iter().enumerate() {
                for (c, v) in w.iter().enumerate() {
                    fq.varyings[i * 16 + loc * 4 + c] = v.to_bits();
                }
            }
        }
        let out = run_fragment_quads(shader.program(), &[fq], &bindings)
            .map_err(|e| format!("run {key:?}: {e}"))?;
        let o = &out[0].outputs;
        let stride = o.len() / 4;
        Ok([0, 1, 2, 3].map(|i| f32::from_bits(o[i * stride])))
    }
}

/// Lane i at `base + (i & 1)·dx + (i >> 1)·dy` (so coarse dX = dx, dY = dy) with ref `refs[i]`.
pub fn grid(base: [f32; 4], dx: [f32; 4], dy: [f32; 4], refs: [f32; 4]) -> [L; 4] {
    [0, 1, 2, 3].map(|i| {
        let fx = (i & 1) as f32;
        let fy = (i >> 1) as f32;
        let c = [0, 1, 2, 3].map(|k| base[k] + fx * dx[k] + fy * dy[k]);
        lane(&c, refs[i])
    })
}

/// `lanes` with `f(lane, value)` applied lane by lane (per-lane bias, LOD, clamp, offset).
pub fn per_lane<T>(mut lanes: [L; 4], f: impl Fn(L, T) -> L, values: [T; 4]) -> [L; 4] {
    for (l, v) in lanes.iter_mut().zip(values) {
        *l = f(*l, v);
    }
    lanes
}

/// Checks every case (names unique), failing with the list of those that do not give what
/// they expect.
pub fn check_all(cases: &[Case]) {
    let mut names: Vec<&str> = cases.iter().map(|c| c.name).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        panic!("two cases named {}", w[0]);
    }
    let failures: Vec<String> = cases.iter().filter_map(|c| c.check().err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
