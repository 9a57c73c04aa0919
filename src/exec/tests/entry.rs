//! The vertex entry point: attributes and built-ins in, Position / varyings / PointSize /
//! ClipDistance out, over more vertices than one batch; the fragment row form against the
//! per-quad entry point.

use super::*;
use BinaryOp as Bo;
use ScalarTy::*;

#[test]
fn vertex_batches() {
    // gl_Position = (a.x * 2, float(VertexIndex), 0, 1); out1 = a.y + InstanceIndex (int);
    // ClipDistance[1] = -1.
    let mut b = B::new();
    let ax = b.load_local(F32, 0);
    let ay = b.load_local(I32, 1);
    let vi = b.load_local(I32, 2);
    let ii = b.load_local(I32, 3);
    let two = b.kf(2.0);
    let px = b.bin(Bo::FMul, F32, ax, two);
    let py = b.reg(F32);
    b.push(Inst::Convert {
        op: ConvOp::UToF,
        from: I32,
        to: F32,
        dst: py,
        a: vi,
    });
    let (z, w) = (b.kf(0.0), b.kf(1.0));
    b.store_local(F32, 4, px);
    b.store_local(F32, 5, py);
    b.store_local(F32, 6, z);
    b.store_local(F32, 7, w);
    let o1 = b.bin(Bo::IAdd, I32, ay, ii);
    b.store_local(I32, 8, o1);
    let m1 = b.kf(-1.0);
    b.store_local(F32, 11, m1);
    let mut sh = b.shader(Stage::Vertex);
    let io = |binding, ty, word, count| IoVar {
        binding,
        ty,
        word,
        count,
        interp: Interp::Smooth,
        sampling: Default::default(),
        per: Default::default(),
        name: String::new(),
    };
    sh.inputs = vec![
        io(
            IoBinding::Location {
                location: 0,
                component: 0,
            },
            F32,
            0,
            1,
        ),
        io(
            IoBinding::Location {
                location: 0,
                component: 1,
            },
            I32,
            1,
            1,
        ),
        io(IoBinding::BuiltIn(BuiltIn::VertexIndex), I32, 2, 1),
        io(IoBinding::BuiltIn(BuiltIn::InstanceIndex), I32, 3, 1),
    ];
    sh.outputs = vec![
        io(IoBinding::BuiltIn(BuiltIn::Position), F32, 4, 4),
        io(
            IoBinding::Location {
                location: 1,
                component: 2,
            },
            I32,
            8,
            1,
        ),
        io(IoBinding::BuiltIn(BuiltIn::PointSize), F32, 9, 1),
        io(IoBinding::BuiltIn(BuiltIn::ClipDistance), F32, 10, 2),
    ];
    let p = compile(&sh).unwrap();
    let nv = 70;
    let ids: Vec<VertexIds> = (0..nv)
        .map(|v| VertexIds {
            vertex_index: v as u32 + 5,
            instance_index: 3,
            ..Default::default()
        })
        .collect();
    let mut attrs = vec![0u32; nv * 4];
    for v in 0..nv {
        attrs[v * 4] = (v as f32 * 0.5).to_bits();
        attrs[v * 4 + 1] = 1000 + v as u32;
    }
    let out = run_vertex(&p, &ids, &attrs, 4, &Bindings::default()).unwrap();
    assert_eq!(out.stride, 8);
    assert_eq!(out.clip_count, 2);
    for v in 0..nv {
        assert_eq!(
            out.position[v],
            [v as f32, (v + 5) as f32, 0.0, 1.0],
            "vertex {v}"
        );
        assert_eq!(out.varyings[v * 8 + 6], 1003 + v as u32, "vertex {v}");
        assert_eq!(out.point_size[v], 1.0);
        assert_eq!(&out.clip_distances[v * 2..v * 2 + 2], &[0.0, -1.0]);
    }
    // Records cut short: vertices 66.. have no whole record and read zeros (by hand:
    // position.x = 0 * 2, out1 = 0 + InstanceIndex).
    let out = run_vertex(&p, &ids, &attrs[..66 * 4 + 2], 4, &Bindings::default()).unwrap();
    for v in 0..nv {
        let (x, o1) = if v < 66 {
            (v as f32, 1003 + v as u32)
        } else {
            (0.0, 3)
        };
        assert_eq!(out.position[v][0], x, "vertex {v}");
        assert_eq!(out.varyings[v * 8 + 6], o1, "vertex {v}");
    }
    // A one-word record: component 1 lies outside it and reads zero.
    let out = run_vertex(&p, &ids, &attrs, 1, &Bindings::default()).unwrap();
    for (v, &a) in attrs.iter().enumerate().take(nv) {
        assert_eq!(out.position[v][0], f32::from_bits(a) * 2.0, "vertex {v}");
        assert_eq!(out.varyings[v * 8 + 6], 3, "vertex {v}");
    }
}

#[test]
fn wrong_stage_is_an_error() {
    let p = B::new().program(); // a fragment shader
    assert!(run_vertex(&p, &[VertexIds::default()], &[], 0, &Bindings::default()).is_err());
    assert!(run_compute(&p, [1, 1, 1], &Bindings::default()).is_err());
}

/// A fragment shader in `b` with a vec4 input at location 0 (words 0..4) and a vec4 output at
/// location 0 (words 4..8).
fn frag_io(b: &B) -> Program {
    let mut sh = b.shader(Stage::Fragment);
    let io = |word| IoVar {
        binding: IoBinding::Location {
            location: 0,
            component: 0,
        },
        ty: F32,
        word,
        count: 4,
        interp: Interp::Smooth,
        sampling: Default::default(),
        per: Default::default(),
        name: String::new(),
    };
    sh.inputs = vec![io(0)];
    sh.outputs = vec![io(4)];
    compile(&sh).unwrap()
}

/// `p` in row form (every row but the inputs' full of garbage, so a word the row form fails to
/// zero shows) against `run_fragment_quads` on the same inputs: the colour words of every lane.
fn rows_match_per_quad(p: &Program, what: &str) {
    let quads = 5;
    let lanes = quads * 4;
    let layout = fragment_row_layout(p);
    let value = |l: usize, c: usize| (l as f32 * 1.5 - 7.0 + c as f32 * 0.25).to_bits();
    let mut batch = crate::stage::RowBatch {
        quads,
        coverage: vec![0xf; quads],
        frag_coord: vec![[0.0; 4]; lanes],
        front_facing: vec![false; lanes],
        primitive_id: vec![0; lanes],
        point_coord: vec![[0.0; 2]; lanes],
        rows: vec![0xdead_beef; layout.rows * lanes],
        depth: vec![0.0; lanes],
        killed: vec![0; quads],
        ..Default::default()
    };
    for &(loc, words) in &layout.inputs {
        assert_eq!(loc, 0);
        // a word no instruction loads has no row: it keeps its garbage
        for (c, r) in words.iter().enumerate() {
            let Some(r) = r.map(|r| r as usize) else {
                continue;
            };
            for l in 0..lanes {
                batch.rows[r * lanes + l] = value(l, c);
            }
        }
    }
    run_fragment_rows(p, &mut batch, &Bindings::default()).unwrap();
    let per_quad: Vec<FragQuadInput> = (0..quads)
        .map(|q| FragQuadInput {
            sample_mask: [1; 4],
            varyings: (0..4)
                .flat_map(|i| (0..4).map(move |c| value(q * 4 + i, c)))
                .collect(),
            ..Default::default()
        })
        .collect();
    let want = run_fragment_quads(p, &per_quad, &Bindings::default()).unwrap();
    for (q, o) in want.iter().enumerate() {
        for i in 0..4 {
            for c in 0..4 {
                let row = layout.colors[0][c].map(|r| batch.rows[r as usize * lanes + q * 4 + i]);
                assert_eq!(
                    row.unwrap_or(0),
                    o.outputs[i * 4 + c],
                    "{what}: quad {q} lane {i} c {c}"
                );
            }
        }
    }
}

#[test]
fn fragment_row_form_matches_the_per_quad_path() {
    // color = v: every output word is its input's row, and the run copies nothing.
    let mut b = B::new();
    b.local_words = 8;
    let v: Vec<Reg> = (0..4).map(|c| b.load_local(F32, c)).collect();
    for (c, &r) in v.iter().enumerate() {
        b.store_local(F32, 4 + c as i32, r);
    }
    let p = frag_io(&b);
    assert_eq!(p.row_alias, vec![(4, 0), (5, 1), (6, 2), (7, 3)]);
    assert!(p.row_ops.as_ref().is_some_and(|(_, ops)| ops.is_empty()));
    // nothing left to run: the row form skips the interpreter (within the budget)
    assert!(p.row_noop_cost.is_some());
    assert_eq!(
        fragment_row_layout(&p).colors[0],
        [Some(0), Some(1), Some(2), Some(3)]
    );
    rows_match_per_quad(&p, "pass-through");
    // with a budget below its cost the run is not skipped: the same error as the per-quad path
    let mut tight = frag_io(&b);
    tight.set_budget(0);
    let quad = FragQuadInput {
        varyings: vec![0; 16],
        ..Default::default()
    };
    assert!(run_fragment_quads(&tight, &[quad], &Bindings::default()).is_err());
    let mut batch = crate::stage::RowBatch {
        quads: 1,
        coverage: vec![0xf],
        frag_coord: vec![[0.0; 4]; 4],
        front_facing: vec![false; 4],
        primitive_id: vec![0; 4],
        point_coord: vec![[0.0; 2]; 4],
        rows: vec![0; 8 * 4],
        depth: vec![0.0; 4],
        killed: vec![0],
        ..Default::default()
    };
    assert!(run_fragment_rows(&tight, &mut batch, &Bindings::default()).is_err());

    // x: a copy whose load is also used (the store goes, the load stays); y: computed;
    // z: never stored (reads 0); w: stored twice (no alias); a scratch word read before it
    // is stored (zero) feeds y.
    let mut b = B::new();
    b.local_words = 12;
    let x = b.load_local(F32, 0);
    let scratch = b.load_local(F32, 9);
    let two = b.kf(2.0);
    let y = b.bin(Bo::FMul, F32, x, two);
    let y = b.bin(Bo::FAdd, F32, y, scratch);
    b.store_local(F32, 9, y);
    b.store_local(F32, 4, x);
    b.store_local(F32, 5, y);
    let w = b.load_local(F32, 3);
    b.store_local(F32, 7, two);
    b.store_local(F32, 7, w);
    let p = frag_io(&b);
    assert_eq!(p.row_noop_cost, None);
    assert_eq!(p.row_alias, vec![(4, 0)]);
    // words 1 and 2 are never loaded: no rows
    assert_eq!(p.row_unread, vec![1, 2]);
    assert_eq!(
        fragment_row_layout(&p).inputs,
        vec![(0, [Some(0), None, None, Some(3)])]
    );
    rows_match_per_quad(&p, "mixed");

    // An input the shader overwrites after loading it, and an output it reads back: neither
    // may be read from another row.
    let mut b = B::new();
    b.local_words = 8;
    let x = b.load_local(F32, 0);
    let five = b.kf(5.0);
    b.store_local(F32, 0, five);
    b.store_local(F32, 4, x);
    let y = b.load_local(F32, 1);
    b.store_local(F32, 5, y);
    let back = b.load_local(F32, 5);
    b.store_local(F32, 6, back);
    let p = frag_io(&b);
    assert!(p.row_alias.is_empty(), "{:?}", p.row_alias);
    rows_match_per_quad(&p, "overwritten input, output read back");

    // Two blocks: the general zeroing, no shortcuts.
    let mut b = B::new();
    b.local_words = 8;
    let next = b.block();
    let x = b.load_local(F32, 2);
    b.jump(next);
    b.at(next);
    b.store_local(F32, 6, x);
    let p = frag_io(&b);
    assert!(p.row_alias.is_empty() && p.row_ops.is_none());
    rows_match_per_quad(&p, "two blocks");
}
