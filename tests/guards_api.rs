//! The library API's guards, as a program using quadstep directly meets them: dispatches and
//! draws held to the limits, a draw's arrays charged to the memory budget, a runaway shader
//! stopped by a cancel token's time limit, and allocations the system refuses reported as
//! errors. Limits are lavapipe's numbers from its `vulkaninfo` report.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quadstep::limits::{Guards, Limit, Limits, MemoryBudget};
use quadstep::raster::{
    ColorTarget, DepthStencilTarget, Format, FragmentFn, FragmentStage, PipelineState, QuadBatch,
    QuadOutputs, Rasterizer, RenderTargets, VertexBatch, VertexFn, VertexOutputs, VertexStage,
};
use quadstep::{Buffer, Cancel, Descriptor, DescriptorSets, Error, Shader};

fn shader(file: &str) -> Shader {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hostile")
        .join(file);
    Shader::from_file(&p, "main", &Default::default()).unwrap()
}

fn one_buffer() -> DescriptorSets {
    let mut sets = DescriptorSets::new();
    sets.bind(0, 0, Descriptor::Buffer(Arc::new(Buffer::new(4096))));
    sets
}

#[test]
fn dispatches_are_held_to_the_workgroup_limits() {
    let sh = shader("spin.comp.spvasm");
    let sets = one_buffer();
    let config = Default::default();
    match quadstep::dispatch(&sh, [65536, 1, 1], &sets, config) {
        Err(Error::Limit(m)) => assert!(m.contains("maxComputeWorkGroupCount[0] = 65535"), "{m}"),
        r => panic!("{r:?}"),
    }
    // forever.comp has 1024 invocations, lavapipe's maximum: a lower limit refuses it
    let sh = shader("forever.comp.spvasm");
    let mut small = Limits::default();
    small.set(Limit::MaxComputeWorkGroupInvocations, 512);
    match quadstep::dispatch_with(&sh, [1, 1, 1], &sets, config, &small) {
        Err(Error::Limit(m)) => assert!(m.contains("workgroup size 1024x1x1: 1024 exceeds"), "{m}"),
        r => panic!("{r:?}"),
    }
}

#[test]
fn a_time_limit_stops_an_endless_loop_inside_one_workgroup() {
    let mut sh = shader("forever.comp.spvasm");
    sh.set_budget(u64::MAX);
    let token = Cancel::new().with_time_limit(Duration::from_millis(300));
    sh.set_cancel(token);
    let start = Instant::now();
    let r = quadstep::dispatch(&sh, [1, 1, 1], &one_buffer(), Default::default());
    let took = start.elapsed();
    match r {
        Err(Error::Timeout(m)) => assert!(m.contains("300 ms"), "{m}"),
        r => panic!("{r:?}"),
    }
    assert!(took < Duration::from_millis(800), "stopped after {took:?}");
}

#[test]
fn cancelling_stops_a_long_dispatch_and_shows_its_progress() {
    let mut sh = shader("spin.comp.spvasm");
    let token = Cancel::new();
    sh.set_cancel(token.clone());
    let stopper = {
        let token = token.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let seen = token.progress();
            token.cancel();
            seen
        })
    };
    let r = quadstep::dispatch(&sh, [65535, 64, 1], &one_buffer(), Default::default());
    assert!(matches!(r, Err(Error::Cancelled(_))), "{r:?}");
    let (done, total) = stopper.join().unwrap();
    assert_eq!(total, 65535 * 64);
    assert!(done > 0 && done < total, "{done} of {total}");
}

/// A vertex stage drawing `n` full-screen triangles, and a fragment stage writing red.
fn stages() -> (impl VertexStage, impl FragmentStage) {
    let vs = VertexFn {
        varyings: 0,
        f: |i: &VertexBatch, o: &mut VertexOutputs| {
            for (v, &idx) in i.vertex_index.iter().enumerate() {
                let c = [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]][idx as usize % 3];
                o.position[v] = [c[0], c[1], 0.5, 1.0];
            }
            Ok(())
        },
    };
    let fs = FragmentFn {
        interpolation: vec![],
        writes_depth: false,
        can_discard: false,
        f: |_: &QuadBatch, o: &mut QuadOutputs| {
            o.color[0]
                .iter_mut()
                .for_each(|c| *c = [1.0f32, 0.0, 0.0, 1.0].map(f32::to_bits));
            Ok(())
        },
    };
    (vs, fs)
}

fn draw(guards: Guards, size: u32, vertices: u32, instances: u32) -> quadstep::Result<()> {
    let (vs, fs) = stages();
    let pipeline = quadstep::GraphicsPipeline {
        state: PipelineState::default(),
        vertex: &vs,
        fragment: &fs,
        stages: Default::default(),
    };
    let mut targets = RenderTargets {
        color: vec![ColorTarget::try_new(Format::R8G8B8A8_UNORM, size, size)?],
        depth_stencil: None,
    };
    let mut raster = Rasterizer::new(2)?;
    raster.set_guards(guards);
    let mut pass = raster.begin(&mut targets);
    pass.bind_pipeline(&pipeline);
    pass.draw(vertices, instances, 0, 0)
}

#[test]
fn draws_are_held_to_the_limits_and_the_memory_budget() {
    assert!(draw(Guards::default(), 16, 3, 1).is_ok());
    // vertices times instances: 3 * 2^25 > maxDrawVertices = 2^26
    match draw(Guards::default(), 16, 3, 1 << 25) {
        Err(Error::Limit(m)) => assert!(
            m.contains("100663296 exceeds") && m.contains("maxDrawVertices"),
            "{m}"
        ),
        r => panic!("{r:?}"),
    }
    // 4e9 vertices: refused before anything per vertex is allocated (the mutation test
    // found VkScript `draw arrays TRIANGLE_LIST 0 4000000000` aborting on 16 GB of indices)
    let start = Instant::now();
    match draw(Guards::default(), 16, 4_000_000_000, 1) {
        Err(Error::Limit(m)) => assert!(m.contains("4000000000 exceeds"), "{m}"),
        r => panic!("{r:?}"),
    }
    assert!(start.elapsed() < Duration::from_secs(1));
    // no instances: nothing to run, whatever the vertex count
    assert!(draw(Guards::default(), 16, 4_000_000_000, 0).is_ok());
    let mut narrow = Guards::default();
    narrow.limits.set(Limit::MaxFramebufferWidth, 8);
    match draw(narrow, 16, 3, 1) {
        Err(Error::Limit(m)) => assert!(
            m.contains("16 exceeds the device limit maxFramebufferWidth = 8"),
            "{m}"
        ),
        r => panic!("{r:?}"),
    }
    let guards = Guards {
        memory: MemoryBudget::new(1 << 20),
        ..Guards::default()
    };
    match draw(guards.clone(), 16, 3 << 16, 1) {
        Err(Error::Memory(m)) => {
            assert!(m.contains("the draw's vertex and primitive arrays"), "{m}")
        }
        r => panic!("{r:?}"),
    }
    // the charge is given back when the draw ends
    assert_eq!(guards.memory.used(), 0);
}

#[test]
fn a_cancelled_token_stops_a_draw() {
    let cancel = Cancel::new();
    cancel.cancel();
    let guards = Guards {
        cancel,
        ..Guards::default()
    };
    assert!(matches!(draw(guards, 64, 3, 1), Err(Error::Cancelled(_))));
}

#[test]
fn attachments_and_buffers_the_system_cannot_allocate_are_errors() {
    // 2^32 x 2^32 texels: far beyond any machine; the error comes back, no abort
    let r = ColorTarget::try_new(Format::R32G32B32A32_SFLOAT, u32::MAX, u32::MAX);
    assert!(matches!(r, Err(Error::Memory(_))), "{r:?}");
    let r = DepthStencilTarget::try_new(Format::D32_SFLOAT_S8_UINT, u32::MAX, u32::MAX);
    assert!(matches!(r, Err(Error::Memory(_))), "{r:?}");
    assert_eq!(
        Buffer::try_from_bytes(&[1, 2, 3]).unwrap().to_bytes(),
        vec![1, 2, 3]
    );
}

/// A shader with one `vec4` input and one `vec4` output at the given locations, copying one
/// to the other.
fn passthrough(stage: &str, input: u32, output: u32) -> quadstep::Result<Shader> {
    let mode = if stage == "Fragment" {
        "OpExecutionMode %main OriginUpperLeft"
    } else {
        ""
    };
    let text = format!(
        "OpCapability Shader
         OpMemoryModel Logical GLSL450
         OpEntryPoint {stage} %main \"main\" %in %out
         {mode}
         OpDecorate %in Location {input}
         OpDecorate %out Location {output}
         %void = OpTypeVoid
         %func = OpTypeFunction %void
         %float = OpTypeFloat 32
         %vec4 = OpTypeVector %float 4
         %pin = OpTypePointer Input %vec4
         %pout = OpTypePointer Output %vec4
         %in = OpVariable %pin Input
         %out = OpVariable %pout Output
         %main = OpFunction %void None %func
         %entry = OpLabel
         %v = OpLoad %vec4 %in
         OpStore %out %v
         OpReturn
         OpFunctionEnd"
    );
    Shader::from_spirv_asm(&text, "passthrough", "main", &Default::default())
}

/// The interpreter sizes a stage's rows by its highest location; the fuzz target found
/// vertex and fragment shaders at location 16777216 taking seconds and gigabytes. Locations
/// are held to lavapipe's limits when the shader is created: vertex inputs below 32,
/// vertex outputs and fragment inputs within 128 components (32 locations), fragment
/// outputs below 8.
#[test]
fn shader_interfaces_are_held_to_the_location_limits() {
    let cases = [
        ("Vertex", 31, 31, None),
        ("Vertex", 32, 0, Some("maxVertexInputAttributes = 32")),
        ("Vertex", 0, 32, Some("maxVertexOutputComponents = 128")),
        ("Vertex", 0, 16_777_216, Some(": 67108868 exceeds")),
        ("Fragment", 31, 7, None),
        ("Fragment", 32, 0, Some("maxFragmentInputComponents = 128")),
        ("Fragment", 0, 8, Some("maxFragmentOutputAttachments = 8")),
        ("Fragment", 0, 16_777_216, Some(": 16777217 exceeds")),
    ];
    for (stage, input, output, want) in cases {
        let start = Instant::now();
        let r = passthrough(stage, input, output);
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "{stage} {input} {output}"
        );
        match (r, want) {
            (Ok(_), None) => {}
            (Err(e @ Error::Limit(_)), Some(w)) => {
                assert!(e.to_string().contains(w), "{stage} {input} {output}: {e}")
            }
            (r, w) => panic!("{stage} {input} {output}: {:?}, wanted {w:?}", r.err()),
        }
    }
}

/// A compute shader with one Workgroup array of `n` 32-bit words, written by each invocation.
fn shared_array(n: u32) -> quadstep::Result<Shader> {
    let text = format!(
        "OpCapability Shader
         OpMemoryModel Logical GLSL450
         OpEntryPoint GLCompute %main \"main\" %lid
         OpExecutionMode %main LocalSize 64 1 1
         OpDecorate %lid BuiltIn LocalInvocationIndex
         %void = OpTypeVoid
         %func = OpTypeFunction %void
         %uint = OpTypeInt 32 0
         %n = OpConstant %uint {n}
         %arr = OpTypeArray %uint %n
         %parr = OpTypePointer Workgroup %arr
         %puint = OpTypePointer Workgroup %uint
         %pin = OpTypePointer Input %uint
         %lid = OpVariable %pin Input
         %shared = OpVariable %parr Workgroup
         %main = OpFunction %void None %func
         %entry = OpLabel
         %i = OpLoad %uint %lid
         %p = OpAccessChain %puint %shared %i
         OpStore %p %i
         OpReturn
         OpFunctionEnd"
    );
    Shader::from_spirv_asm(&text, "shared", "main", &Default::default())
}

/// Workgroup variables are held to lavapipe's `maxComputeSharedMemorySize` (32 KiB) when
/// the shader is created: the fuzz target found a 513-invocation shader with three 1 MB
/// Workgroup arrays taking 2.9 GB.
#[test]
fn workgroup_memory_is_held_to_the_shared_memory_limit() {
    assert!(shared_array(8192).is_ok(), "32 KiB is within the limit");
    match shared_array(8193) {
        Err(e @ Error::Limit(_)) => {
            let m = e.to_string();
            assert!(m.contains("maxComputeSharedMemorySize = 32768"), "{m}");
            assert!(m.contains("32772"), "{m}");
        }
        r => panic!("8193 words: {:?}", r.err()),
    }
    let start = Instant::now();
    assert!(matches!(shared_array(262_176), Err(Error::Limit(_))));
    assert!(start.elapsed() < Duration::from_secs(1));
}

/// A type whose id is defined a second time can close a cycle (`%a = array of %b`, then `%b`
/// redefined as a struct of `%a`), and laying it out recursed until the stack overflowed: the
/// fuzz target's SIGSEGV, the module kept as `fuzz/seeds/spirv/found_type_redefined_into_a_cycle.spv`
/// (its Workgroup block type is redefined). A type id defined twice is an error, as in
/// `spirv-val`.
#[test]
fn a_type_defined_twice_is_an_error_not_a_stack_overflow() {
    use quadstep::front::spirv::{Module, SpecConstants};
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds/spirv/found_type_redefined_into_a_cycle.spv");
    let bytes = std::fs::read(path).expect("the seed is in the repository");
    let errors: Vec<String> = match Module::from_bytes(&bytes) {
        Err(e) => vec![e.to_string()],
        Ok(m) => m
            .entry_points()
            .into_iter()
            .filter_map(|(name, stage)| {
                m.lower(&name, Some(stage), &SpecConstants::new())
                    .err()
                    .map(|e| e.to_string())
            })
            .collect(),
    };
    assert!(
        errors.iter().any(|e| e.contains("defined more than once")),
        "{errors:?}"
    );
}
