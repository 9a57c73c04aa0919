//! The vertex entry point: attributes and built-ins in, Position / varyings / PointSize /
//! ClipDistance out, over more vertices than one batch.

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
