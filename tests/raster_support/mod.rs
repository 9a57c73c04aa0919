//! Shared helpers for the raster integration tests: closure stages, vertex buffers, and a slow
//! reference rasterizer written only for the tests (floating-point edge functions evaluated at
//! pixel centres, a geometric formulation of the top-left rule, homogeneous barycentrics for
//! clipping and perspective).
#![allow(dead_code, clippy::needless_range_loop)]

use quadstep::raster::*;
use quadstep::Result;

/// Vertex stage: location 0 is the clip position, locations 1..=n are copied to varyings
/// 0..n; point size from `point_size`.
pub struct PassVs {
    pub varyings: usize,
    pub point_size: f32,
}

impl VertexStage for PassVs {
    fn varying_count(&self) -> usize {
        self.varyings
    }
    fn run(&self, input: &VertexBatch, out: &mut VertexOutputs) -> Result<()> {
        let pos = input.attribute(0).expect("position");
        for v in 0..input.len() {
            out.position[v] = pos[v].map(f32::from_bits);
            out.point_size[v] = self.point_size;
            for l in 0..self.varyings {
                out.varyings[l][v] = input.attribute(l as u32 + 1).expect("varying")[v];
            }
        }
        Ok(())
    }
}

/// A pipeline state whose vertices are `k` interleaved vec4 (f32) attributes, locations 0..k.
pub fn state_vec4s(k: u32) -> PipelineState {
    PipelineState {
        vertex_bindings: vec![VertexBinding {
            binding: 0,
            stride: 16 * k,
            input_rate: InputRate::Vertex,
        }],
        vertex_attributes: (0..k)
            .map(|l| VertexAttribute {
                location: l,
                binding: 0,
                format: Format::R32G32B32A32_SFLOAT,
                offset: 16 * l,
            })
            .collect(),
        ..Default::default()
    }
}

/// Bytes of f32 values.
pub fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// Clip position of a window-space point for a full-framebuffer viewport of `w` x `h`.
pub fn clip_of(w: u32, h: u32, x: f32, y: f32, z: f32) -> [f32; 4] {
    [x / w as f32 * 2.0 - 1.0, y / h as f32 * 2.0 - 1.0, z, 1.0]
}

/// Fragment stage writing varying 0 to attachment 0 (all lanes, helpers included).
pub fn fs_varying0(
    interp: Interpolation,
) -> FragmentFn<impl Fn(&QuadBatch, &mut QuadOutputs) -> Result<()> + Sync> {
    FragmentFn {
        interpolation: vec![interp],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            for l in 0..i.quads * 4 {
                o.color[0][l] = i.varyings[0][l];
            }
            Ok(())
        },
    }
}

/// Fragment stage writing a constant colour to every attachment.
pub fn fs_const(
    c: [f32; 4],
) -> FragmentFn<impl Fn(&QuadBatch, &mut QuadOutputs) -> Result<()> + Sync> {
    FragmentFn {
        interpolation: vec![],
        writes_depth: false,
        can_discard: false,
        f: move |i: &QuadBatch, o: &mut QuadOutputs| {
            for att in o.color.iter_mut() {
                for l in 0..i.quads * 4 {
                    att[l] = c.map(f32::to_bits);
                }
            }
            Ok(())
        },
    }
}

/// Draw `verts` (window-space x, y, z per vertex, w = 1) as a triangle list with a constant
/// colour into a fresh `w` x `h` R32G32B32A32_SFLOAT target using ONE + ONE blending, so each
/// pixel's red channel counts how many times it was hit.
pub fn hit_counts(
    w: u32,
    h: u32,
    topology: Topology,
    verts: &[[f32; 3]],
    threads: usize,
) -> Vec<u32> {
    let mut st = state_vec4s(1);
    st.topology = topology;
    st.blend_attachments = vec![ColorBlendAttachment {
        blend_enable: true,
        src_color_factor: BlendFactor::One,
        dst_color_factor: BlendFactor::One,
        src_alpha_factor: BlendFactor::One,
        dst_alpha_factor: BlendFactor::One,
        ..Default::default()
    }];
    let data: Vec<f32> = verts
        .iter()
        .flat_map(|v| clip_of(w, h, v[0], v[1], v[2]))
        .collect();
    let data = bytes(&data);
    let vs = PassVs {
        varyings: 0,
        point_size: 1.0,
    };
    let fs = fs_const([1.0, 0.0, 0.0, 0.0]);
    let pipe = Pipeline {
        state: st,
        vertex: &vs,
        fragment: &fs,
        stages: Default::default(),
    };
    let mut rt = RenderTargets {
        color: vec![ColorTarget::new(Format::R32G32B32A32_SFLOAT, w, h)],
        depth_stencil: None,
    };
    let r = Rasterizer::new(threads).unwrap();
    {
        let mut pass = r.begin(&mut rt);
        pass.bind_pipeline(&pipe);
        pass.bind_vertex_buffers(&[VertexBuffer {
            binding: 0,
            data: &data,
            offset: 0,
        }]);
        pass.draw(verts.len() as u32, 1, 0, 0).unwrap();
    }
    let t = &rt.color[0];
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            out.push(t.read_f32(x, y)[0] as u32);
        }
    }
    out
}

/// Snap to the rasterizer's documented 8 sub-pixel bits (Vulkan subPixelPrecisionBits).
pub fn snap(v: f64) -> f64 {
    (v * 256.0).round() / 256.0
}

/// Reference coverage of a window-space triangle at pixel centres: inside all three edges,
/// or exactly on an edge that is a top edge (horizontal, third vertex below it) or a left edge
/// (third vertex to its right). Returns a w*h mask.
pub fn ref_triangle(w: u32, h: u32, t: [[f64; 2]; 3]) -> Vec<bool> {
    let t = t.map(|p| [snap(p[0]), snap(p[1])]);
    let mut out = vec![false; (w * h) as usize];
    let area =
        (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
    if area == 0.0 {
        return out;
    }
    for py in 0..h {
        for px in 0..w {
            let p = [px as f64 + 0.5, py as f64 + 0.5];
            let mut ok = true;
            for i in 0..3 {
                let (a, b, c) = (t[i], t[(i + 1) % 3], t[(i + 2) % 3]);
                // side of p and of c relative to the line a-b
                let side =
                    |q: [f64; 2]| (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]);
                let (sp, sc) = (side(p), side(c));
                if sp == 0.0 {
                    let top_or_left = if a[1] == b[1] {
                        c[1] > a[1]
                    } else {
                        let x_on_edge = a[0] + (c[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
                        c[0] > x_on_edge
                    };
                    ok &= top_or_left;
                } else {
                    ok &= (sp > 0.0) == (sc > 0.0);
                }
            }
            out[(py * w + px) as usize] = ok;
        }
    }
    out
}

/// Homogeneous (clip-space) barycentrics of the pixel centre (px, py) for a clip-space
/// triangle under a full `w` x `h` viewport with depth range 0..1: solves
/// sum c_i (x_i, y_i, w_i) = (ndc_x, ndc_y, 1), b = c / sum c. Returns (b, window z = z/w, 1/w)
/// for the point of the triangle's plane seen at that pixel when it lies in front of the eye
/// (w > 0); the point is inside the clipped triangle iff every b_i >= 0 and 0 <= z/w <= 1.
pub fn ref_homogeneous(
    w: u32,
    h: u32,
    v: [[f64; 4]; 3],
    px: u32,
    py: u32,
) -> Option<([f64; 3], f64, f64)> {
    let nx = (px as f64 + 0.5) / w as f64 * 2.0 - 1.0;
    let ny = (py as f64 + 0.5) / h as f64 * 2.0 - 1.0;
    let m = [
        [v[0][0], v[1][0], v[2][0]],
        [v[0][1], v[1][1], v[2][1]],
        [v[0][3], v[1][3], v[2][3]],
    ];
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(m);
    if d == 0.0 {
        return None;
    }
    let rhs = [nx, ny, 1.0];
    let mut c = [0.0; 3];
    for (i, ci) in c.iter_mut().enumerate() {
        let mut mi = m;
        for r in 0..3 {
            mi[r][i] = rhs[r];
        }
        *ci = det(mi) / d; // Cramer's rule
    }
    let s: f64 = c.iter().sum();
    if s <= 0.0 {
        return None;
    }
    let b = c.map(|ci| ci / s);
    let cz: f64 = (0..3).map(|i| b[i] * v[i][2]).sum();
    Some((b, cz * s, s))
}

/// Draw `verts` (groups of `k` vec4: clip position, then varyings) with `st` into `rt`.
pub fn run_draw(
    st: &PipelineState,
    verts: &[[f32; 4]],
    k: u32,
    fs: &dyn FragmentStage,
    rt: &mut RenderTargets,
    threads: usize,
) -> Result<()> {
    let data = bytes(&verts.iter().flatten().copied().collect::<Vec<_>>());
    let vs = PassVs {
        varyings: k as usize - 1,
        point_size: 1.0,
    };
    let pipe = Pipeline {
        state: st.clone(),
        vertex: &vs,
        fragment: fs,
        stages: Default::default(),
    };
    let r = Rasterizer::new(threads)?;
    let mut pass = r.begin(rt);
    pass.bind_pipeline(&pipe);
    pass.bind_vertex_buffers(&[VertexBuffer {
        binding: 0,
        data: &data,
        offset: 0,
    }]);
    pass.draw(verts.len() as u32 / k, 1, 0, 0)
}

/// A float colour target plus optional depth/stencil.
pub fn targets(w: u32, h: u32, ds: Option<Format>) -> RenderTargets {
    RenderTargets {
        color: vec![ColorTarget::new(Format::R32G32B32A32_SFLOAT, w, h)],
        depth_stencil: ds.map(|f| DepthStencilTarget::new(f, w, h)),
    }
}

/// Fragment stage writing FragCoord to attachment 0.
pub fn fs_fragcoord() -> FragmentFn<impl Fn(&QuadBatch, &mut QuadOutputs) -> Result<()> + Sync> {
    FragmentFn {
        interpolation: vec![],
        writes_depth: false,
        can_discard: false,
        f: |i: &QuadBatch, o: &mut QuadOutputs| {
            for l in 0..i.quads * 4 {
                o.color[0][l] = i.frag_coord[l].map(f32::to_bits);
            }
            Ok(())
        },
    }
}
