//! Shading a batch: the fragment inputs (built-ins, interpolated varyings: plane ratios in f64
//! evaluated at each quad's lane 0 and stepped to its other lanes), the fragment stage run, the
//! post-shader tests for discard and late tests, and the colour writes (the RGBA8 whole-quad
//! conversion). See the parent module's doc for the measured reasons.

use super::*;

impl<'a> TileShader<'a> {
    pub(super) fn flush(&mut self, view: &mut TileView) -> Result<()> {
        self.occupied = [0; (TILE / 2) as usize];
        let scene = self.scene;
        let (rx, ry) = (view.rect.x0, view.rect.y0);

        // `self.z`: the quads' depths (unclamped: it is also `FragCoord.z`, and Vulkan clamps
        // only the depth that is tested and stored, after the fragment shader); early tests
        // were done as the quads were submitted.
        self.build_input();
        let lanes = self.quads.len() * 4;
        let n_att = self.atts.len();
        let out = &mut self.output;
        out.color.resize(n_att, Vec::new());
        // Zeroed with `fill` (a memset) and only grown by `resize`: clearing and resizing wrote
        // the zeros one element at a time (callgrind: ~13 instructions per lane).
        for c in &mut out.color {
            zeroed_lanes(c, lanes);
        }
        zeroed_lanes(&mut out.color1, lanes);
        if self.needs_z {
            out.depth.clear();
            out.depth
                .extend_from_slice(self.z[..self.quads.len()].as_flattened());
        } else {
            zeroed(&mut out.depth, lanes);
        }
        zeroed(&mut out.killed, self.quads.len());
        scene.fs.run(&self.input, out)?;
        let bad = out.color.len() != n_att
            || out.color.iter().any(|c| c.len() != lanes)
            || out.color1.len() != lanes
            || out.depth.len() != lanes
            || out.killed.len() != self.quads.len();
        if bad {
            return Err(Error::Exec(format!(
                "raster/tile.rs: the fragment stage resized its outputs (expected {n_att} \
                 attachments x {lanes} lanes, {} quads)",
                self.quads.len()
            )));
        }

        // Which lanes survive (discard, late tests), then the colour writes attachment by
        // attachment. The batch's quads are at distinct positions, so doing every test before
        // any colour write changes nothing: each pixel still sees its test, then its write.
        let discard = scene.fs.can_discard();
        let writes_depth = scene.fs.writes_depth();
        let late = !self.early && self.tests;
        // Without discard or late tests every quad keeps its mask: no walk over the quads
        // (it cost ~20 instructions per quad doing nothing).
        let quads = if discard || late { self.quads.len() } else { 0 };
        for qi in 0..quads {
            let q = self.quads[qi];
            let mut live = q.mask;
            if discard {
                live &= !self.output.killed[qi];
            }
            if late {
                let front = q.p.info.front;
                for k in 0..4usize {
                    if live & (1 << k) == 0 {
                        continue;
                    }
                    let lane = qi * 4 + k;
                    let z = self.clamp_z(if writes_depth {
                        self.output.depth[lane]
                    } else {
                        self.z[qi][k]
                    });
                    let (lx, ly) = (q.x - rx + (k & 1) as i32, q.y - ry + (k >> 1) as i32);
                    if !self.test(view, lx as usize, ly as usize, z, front) {
                        live &= !(1 << k);
                    }
                }
            }
            self.quads[qi].mask = live;
        }
        for (a, &(format, att, bpp)) in self.atts.iter().enumerate() {
            let src = &self.output.color[a];
            let rows = &mut view.colors[a];
            // What write_color does without blending, minus its dispatch.
            let plain = !att.blend_enable && att.write_mask & 0xf == 0xf;
            let rgba8 = plain && format == ColorFormat::R8G8B8A8Unorm;
            if rgba8 {
                // One walk over the quads and their lanes together (no per-quad index
                // arithmetic or bounds checks on the outputs); the two rows of a whole quad
                // sliced once.
                for (q, lanes) in self.quads.iter().zip(src.chunks_exact(4)) {
                    let (lx0, ly0) = ((q.x - rx) as usize, (q.y - ry) as usize);
                    let lanes: &[[u32; 4]; 4] = lanes.try_into().expect("4 lanes");
                    let rows8 = unorm8_quad(lanes);
                    if q.mask == 0xf {
                        // A whole quad: two 8-byte row pieces, converted in one straight loop.
                        let [top, bottom] = &mut rows[ly0..ly0 + 2] else {
                            unreachable!("a whole quad covers two rows");
                        };
                        top[lx0 * 4..][..8].copy_from_slice(&rows8[0]);
                        bottom[lx0 * 4..][..8].copy_from_slice(&rows8[1]);
                        continue;
                    }
                    // A partly covered quad: the same conversion, then the covered pixels'
                    // 4-byte pieces (the scalar per-byte conversion below was ~50 instructions
                    // per pixel; most quads of small triangles are partial).
                    for k in 0..4usize {
                        if q.mask & (1 << k) != 0 {
                            let (lx, ly) = (lx0 + (k & 1), ly0 + (k >> 1));
                            let b = &rows8[k >> 1][(k & 1) * 4..(k & 1) * 4 + 4];
                            rows[ly][lx * 4..lx * 4 + 4].copy_from_slice(b);
                        }
                    }
                }
                continue;
            }
            for (qi, q) in self.quads.iter().enumerate() {
                let (lx0, ly0) = ((q.x - rx) as usize, (q.y - ry) as usize);
                for k in 0..4usize {
                    if q.mask & (1 << k) == 0 {
                        continue;
                    }
                    let lane = qi * 4 + k;
                    let (lx, ly) = (lx0 + (k & 1), ly0 + (k >> 1));
                    let texel = &mut rows[ly][lx * bpp..(lx + 1) * bpp];
                    let src = src[lane];
                    if plain {
                        match format {
                            ColorFormat::R8G8B8A8Unorm => {
                                for (t, v) in texel.iter_mut().zip(src) {
                                    *t = unorm8(f32::from_bits(v));
                                }
                            }
                            ColorFormat::R32G32B32A32Sfloat
                            | ColorFormat::R32G32B32A32Uint
                            | ColorFormat::R32G32B32A32Sint => {
                                for (t, v) in texel.chunks_exact_mut(4).zip(src) {
                                    t.copy_from_slice(&v.to_le_bytes());
                                }
                            }
                            _ => format.encode_raw(src, texel),
                        }
                        continue;
                    }
                    let src1 = if a == 0 {
                        self.output.color1[lane]
                    } else {
                        [0; 4]
                    };
                    write_color(format, &att, scene.state.blend_constants, src, src1, texel);
                }
            }
        }
        self.quads.clear();
        Ok(())
    }

    /// Fill `self.input` for the current quads. Every array is resized once to the batch and
    /// then written by index (the buffers live as long as the tile shader: no allocation after
    /// the first batches).
    fn build_input(&mut self) {
        let scene = self.scene;
        let modes = scene.fs.interpolation();
        let inp = &mut self.input;
        let lanes = self.quads.len() * 4;
        inp.quads = self.quads.len();
        inp.frag_coord.resize(lanes, [0.0; 4]);
        inp.point_coord.resize(lanes, [0.0; 2]);
        inp.coverage.resize(self.quads.len(), 0);
        inp.front_facing.resize(lanes, false);
        inp.primitive_id.resize(lanes, 0);
        inp.varyings.resize(modes.len(), Vec::new());
        for v in &mut inp.varyings {
            v.resize(lanes, [0; 4]);
        }
        for (q, cov) in self.quads.iter().zip(inp.coverage.iter_mut()) {
            *cov = q.mask;
        }
        // The built-ins the shader reads, each in one zipped walk over whole quads (no
        // per-lane index arithmetic or bounds checks); the others keep stale values.
        let reads = self.built_ins;
        if reads.frag_coord {
            let per_quad = self
                .quads
                .iter()
                .zip(self.z.iter())
                .zip(inp.frag_coord.chunks_exact_mut(4));
            for ((q, z), fc) in per_quad {
                let inv_w = quad_values(&q.p.inv_w, q);
                let (x, y) = (q.x as f32 + 0.5, q.y as f32 + 0.5);
                fc.copy_from_slice(&[
                    [x, y, z[0], inv_w[0] as f32],
                    [x + 1.0, y, z[1], inv_w[1] as f32],
                    [x, y + 1.0, z[2], inv_w[2] as f32],
                    [x + 1.0, y + 1.0, z[3], inv_w[3] as f32],
                ]);
            }
        }
        if reads.point_coord {
            for (q, pc) in self.quads.iter().zip(inp.point_coord.chunks_exact_mut(4)) {
                match q.p.point {
                    Some((l, t, s)) => {
                        for (k, pc) in pc.iter_mut().enumerate() {
                            let (x, y) = (lane_x(q, k), lane_y(q, k));
                            *pc = [((x - l) / s) as f32, ((y - t) / s) as f32];
                        }
                    }
                    None => pc.fill([0.0; 2]),
                }
            }
        }
        if reads.front_facing {
            for (q, ff) in self.quads.iter().zip(inp.front_facing.chunks_exact_mut(4)) {
                ff.fill(q.p.info.front);
            }
        }
        if reads.primitive_id {
            for (q, pid) in self.quads.iter().zip(inp.primitive_id.chunks_exact_mut(4)) {
                pid.fill(q.p.info.primitive_id);
            }
        }
        // Smooth: sum_k v_k (b_k / w) / sum_k (b_k / w), with b the clip-space weights of the
        // original vertices. Noperspective: the same with every term scaled by the original
        // vertex's w, which turns the weights into window-space ones. Both are ratios of
        // planes, so the per-primitive work is combining planes and the per-lane work is one
        // reciprocal of the denominator per mode and one plane step per component.
        let wanted = [
            modes.contains(&Interpolation::Smooth),
            modes.contains(&Interpolation::NoPerspective),
        ];
        let mut start = 0;
        while start < self.quads.len() {
            let prim = self.quads[start].prim;
            let end = start
                + self.quads[start..]
                    .iter()
                    .take_while(|q| q.prim == prim)
                    .count();
            let p = self.quads[start].p;
            let quads = &self.quads[start..end];
            let n = p.info.n_verts as usize;
            let bw = &p.bw[..n];
            let scales = [[1.0; 3], p.info.orig_w];
            for m in 0..2 {
                if !wanted[m] || scene.n_vary == 0 {
                    continue;
                }
                let den = Plane::combine(bw, |j| scales[m][j]);
                // A fixed array, one entry per quad of the run (a `Vec` and its
                // `extend_from_slice` cost ~8 instructions per quad more).
                for (q, inv) in quads.iter().zip(self.inv[m].iter_mut()) {
                    let d = quad_values(&den, q);
                    *inv = d.map(|d| if d == 0.0 { 1.0 } else { 1.0 / d });
                }
            }
            let slots = p.info.slots;
            for (loc, mode) in modes.iter().enumerate() {
                let out = &mut inp.varyings[loc][start * 4..end * 4];
                if loc >= scene.n_vary {
                    out.fill([0; 4]);
                    continue;
                }
                let var = |j: usize| scene.varyings[slots[j] as usize * scene.n_vary + loc];
                let m = match mode {
                    Interpolation::Flat => {
                        out.fill(var(0));
                        continue;
                    }
                    Interpolation::Smooth => 0,
                    Interpolation::NoPerspective => 1,
                };
                let scale = &scales[m];
                // Each vertex's varying looked up once (was once per component and vertex);
                // `combine` asks only for the primitive's `n` vertices.
                let vs: [[u32; 4]; 3] =
                    std::array::from_fn(|j| if j < n { var(j) } else { [0; 4] });
                let num: [Plane; 4] = std::array::from_fn(|c| {
                    Plane::combine(bw, |j| scale[j] * f32::from_bits(vs[j][c]) as f64)
                });
                // Lane-major: the four planes' terms as `[f64; 4]`s, so a lane's four
                // components are one expression (two f64x2 halves: mulpd, cvtpd2ps, one
                // 16-byte store per lane). Literal arrays: `map` / `from_fn` here were left out
                // of line per run (small triangles +2.7 M).
                let pa = [num[0].a, num[1].a, num[2].a, num[3].a];
                let pdx = [num[0].dx, num[1].dx, num[2].dx, num[3].dx];
                let pdy = [num[0].dy, num[1].dy, num[2].dy, num[3].dy];
                for ((q, inv), out) in quads
                    .iter()
                    .zip(self.inv[m].iter())
                    .zip(out.chunks_exact_mut(4))
                {
                    // Opaque to the loop vectoriser, which otherwise runs two quads per
                    // iteration, one per f64x2 half, and converts and stores word by word
                    // (~75 instructions per quad, with or without the lane-major form).
                    let inv = std::hint::black_box(inv);
                    // The planes share their origin (`combine`): the quad's offset from it is
                    // computed once. Lane 0 is `Plane::at`'s expression, the others `quad_values`'
                    // steps (lane 3 is lane 1 plus `dy`): the same operations on the same
                    // values, so the same bits.
                    let (ox, oy) = ((q.x as f64 + 0.5) - bw[0].x0, (q.y as f64 + 0.5) - bw[0].y0);
                    let v0 = [
                        pa[0] + pdx[0] * ox + pdy[0] * oy,
                        pa[1] + pdx[1] * ox + pdy[1] * oy,
                        pa[2] + pdx[2] * ox + pdy[2] * oy,
                        pa[3] + pdx[3] * ox + pdy[3] * oy,
                    ];
                    let v1 = [
                        v0[0] + pdx[0],
                        v0[1] + pdx[1],
                        v0[2] + pdx[2],
                        v0[3] + pdx[3],
                    ];
                    let v2 = [
                        v0[0] + pdy[0],
                        v0[1] + pdy[1],
                        v0[2] + pdy[2],
                        v0[3] + pdy[3],
                    ];
                    let v3 = [
                        v1[0] + pdy[0],
                        v1[1] + pdy[1],
                        v1[2] + pdy[2],
                        v1[3] + pdy[3],
                    ];
                    for ((out, v), inv) in out.iter_mut().zip([v0, v1, v2, v3]).zip(*inv) {
                        *out = [
                            ((v[0] * inv) as f32).to_bits(),
                            ((v[1] * inv) as f32).to_bits(),
                            ((v[2] * inv) as f32).to_bits(),
                            ((v[3] * inv) as f32).to_bits(),
                        ];
                    }
                }
            }
            start = end;
        }
    }
}

/// The four lanes of a quad as R8G8B8A8 unorm bytes, lanes 0 1 then lanes 2 3, with exactly
/// [`unorm8`]'s rounding (`(v * 255 + 0.5)` truncated; below 0 and NaN give 0, above 1 gives
/// 255). `as u8` is a saturating conversion that LLVM keeps scalar (callgrind: ~50 instructions
/// per pixel); here the clamp is two compare-selects and the truncation is integer arithmetic,
/// so the 16 conversions are one straight loop that vectorises with SSE2.
#[inline]
pub(crate) fn unorm8_quad(lanes: &[[u32; 4]; 4]) -> [[u8; 8]; 2] {
    let flat = lanes.as_flattened();
    let mut b = [0u8; 16];
    for (o, &bits) in b.iter_mut().zip(flat) {
        // The clamp changes nothing (the value is in 0..=255) but lets LLVM narrow with
        // saturating packs (two per four lanes) instead of a mask and two packs per lane group.
        *o = floor_0_255(f32::from_bits(bits) * 255.0 + 0.5).clamp(0, 255) as u8;
    }
    let mut out = [[0u8; 8]; 2];
    out[0].copy_from_slice(&b[..8]);
    out[1].copy_from_slice(&b[8..]);
    out
}

/// `x as u8` for any f32 `x` (saturating, NaN to 0) as an i32 in 0..=255, without a saturating
/// conversion: clamp with compare-selects (`x > 0` is false for NaN), round to an integer by
/// adding 2^23 (the f32 spacing there is 1), and step down when that rounded up.
#[inline]
pub(super) fn floor_0_255(x: f32) -> i32 {
    let x = if x > 0.0 { x } else { 0.0 };
    let x = if x < 255.0 { x } else { 255.0 };
    let r = (x + 8_388_608.0).to_bits() as i32 - 0x4b00_0000;
    r - ((r as f32 > x) as i32)
}

/// [`zeroed`] for lanes of four words, filled as one `[u32]` so LLVM makes it a memset (filling
/// `[u32; 4]` elements was an unrolled loop of 16-byte stores, ~100 instructions per 1 KB
/// output array and batch).
#[inline]
pub(super) fn zeroed_lanes(v: &mut Vec<[u32; 4]>, len: usize) {
    v.truncate(len);
    v.as_flattened_mut().fill(0);
    v.resize(len, [0; 4]);
}

/// `v` as `len` zero (default) values, keeping its allocation.
#[inline]
pub(super) fn zeroed<T: Copy + Default>(v: &mut Vec<T>, len: usize) {
    v.truncate(len);
    v.fill(T::default());
    v.resize(len, T::default());
}

/// Pixel-centre x of lane `k` of a quad.
#[inline]
pub(super) fn lane_x(q: &Quad, k: usize) -> f64 {
    (q.x + (k & 1) as i32) as f64 + 0.5
}

/// Pixel-centre y of lane `k` of a quad.
#[inline]
pub(super) fn lane_y(q: &Quad, k: usize) -> f64 {
    (q.y + (k >> 1) as i32) as f64 + 0.5
}
