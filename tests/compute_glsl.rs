//! Compute shaders compiled from GLSL (shaders/compute/*.comp, SPIR-V committed beside them)
//! through the whole path: front end, interpreter, descriptor sets, dispatch. Expected values
//! come from plain Rust transcriptions of the shader functions, run per invocation alone.

use std::path::Path;
use std::sync::Arc;

use quadstep::{dispatch, texture::Config, Buffer, Descriptor, DescriptorSets, Shader};

fn shader(name: &str) -> Shader {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("shaders/compute")
        .join(name);
    Shader::from_file(&path, "main", &Default::default()).expect("shader compiles")
}

/// Rust transcription of `f` in divergence.comp (wrapping like GLSL uint arithmetic).
fn divergence_ref(id: u32) -> u32 {
    let mut acc = id;
    let mut i = 0u32;
    while i < (id % 7) + 1 {
        if acc & 1 == 1 {
            acc = acc.wrapping_mul(3).wrapping_add(1);
            i += 1;
            continue;
        }
        for j in 0..5u32 {
            if j == id % 4 {
                break;
            }
            acc = acc.wrapping_add(j * i);
        }
        if acc > 200 {
            break;
        }
        acc = acc / 2 + i;
        i += 1;
    }
    match id % 5 {
        0 => acc += 11,
        1 => acc += 10,
        2 => return acc ^ 0xff,
        _ => acc = acc.wrapping_mul(2),
    }
    acc
}

#[test]
fn divergent_loops_switch_and_early_return_match_each_lane_alone() {
    let sh = shader("divergence.comp.spv");
    let groups = 4u32;
    let n = (64 * groups) as usize;
    let out = Arc::new(Buffer::new(n * 4));
    let mut sets = DescriptorSets::new();
    sets.bind(0, 0, Descriptor::Buffer(out.clone()));
    dispatch(&sh, [groups, 1, 1], &sets, Config::default()).expect("dispatch");
    let got = out.to_u32s();
    for id in 0..n as u32 {
        assert_eq!(got[id as usize], divergence_ref(id), "invocation {id}");
    }
}

/// `m` (column-major, `n` × `n`) inverted by Gauss–Jordan elimination with partial pivoting
/// in f64, within a few f64 ulps of the exact inverse (far below half an f16 ulp): the
/// reference of `f16_inverse_and_determinant_are_the_exact_ones_rounded`, written only for
/// it (quadstep expands cofactors).
fn gauss_jordan_inverse(m: &[f64], n: usize) -> Vec<f64> {
    let mut a: Vec<Vec<f64>> = (0..n)
        .map(|r| {
            let mut row: Vec<f64> = (0..n).map(|c| m[c * n + r]).collect();
            row.extend((0..n).map(|c| (c == r) as u32 as f64));
            row
        })
        .collect();
    for i in 0..n {
        let p = (i..n)
            .max_by(|&x, &y| a[x][i].abs().total_cmp(&a[y][i].abs()))
            .unwrap();
        a.swap(i, p);
        let pv = a[i][i];
        a[i].iter_mut().for_each(|x| *x /= pv);
        for k in 0..n {
            if k != i {
                let f = a[k][i];
                let pivot_row = a[i].clone();
                a[k].iter_mut()
                    .zip(&pivot_row)
                    .for_each(|(x, y)| *x -= f * y);
            }
        }
    }
    (0..n * n).map(|k| a[k % n][n + k / n]).collect()
}

/// The determinant of `m` (column-major, `n` × `n`) by the Leibniz formula, the signed sum
/// over all permutations, in f64: exact for the inputs below (multiples of 1/8 of magnitude
/// at most 8, so every product of four is an integer over 8^4 below 2^24 and the sum below
/// 2^29).
fn leibniz_determinant(m: &[f64], n: usize) -> f64 {
    fn perms(rest: Vec<usize>, acc: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if rest.is_empty() {
            out.push(acc.clone());
        }
        for (i, &x) in rest.iter().enumerate() {
            let mut r = rest.clone();
            r.remove(i);
            acc.push(x);
            perms(r, acc, out);
            acc.pop();
        }
    }
    let mut all = Vec::new();
    perms((0..n).collect(), &mut Vec::new(), &mut all);
    all.iter()
        .map(|p| {
            let inversions = (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .filter(|&(i, j)| p[i] > p[j])
                .count();
            let sign = if inversions % 2 == 0 { 1.0 } else { -1.0 };
            // row r, column p[r]
            sign * (0..n).map(|r| m[p[r] * n + r]).product::<f64>()
        })
        .sum()
}

/// `inverse()` and `determinant()` of f16 matrices (matrix_f16.comp) equal the exact results
/// rounded to f16 (the references above, rounded once). The matrices are ill-conditioned
/// enough that the cofactor expansion evaluated in f16 arithmetic would be off by up to 4
/// (3×3) and 8 (4×4) f16 ulps. Layout (std430): an f16 column vector of 3 or 4 takes 8
/// bytes, so the 3×3 takes bytes 0..24 and the 4×4 24..56; the determinants are at 56 and 58.
#[test]
fn f16_inverse_and_determinant_are_the_exact_ones_rounded() {
    use half::f16;
    let m3 = [1.625, -3.5, -5.125, -6.75, 4.625, 6.375, -3.0, -7.625, -6.0];
    let m4 = [
        4.625, 5.375, -1.25, -8.0, 0.625, 1.625, -7.375, -1.375, -2.125, 4.5, -4.875, -6.75,
        -3.375, -1.25, 6.125, 0.25,
    ];
    let mut input = vec![0u8; 56];
    let put = |buf: &mut Vec<u8>, at: usize, v: f64| {
        buf[at..at + 2].copy_from_slice(&f16::from_f64(v).to_le_bytes())
    };
    for (k, &v) in m3.iter().enumerate() {
        put(&mut input, 8 * (k / 3) + 2 * (k % 3), v);
    }
    for (k, &v) in m4.iter().enumerate() {
        put(&mut input, 24 + 8 * (k / 4) + 2 * (k % 4), v);
    }
    let sh = shader("matrix_f16.comp.spv");
    let (inb, out) = (
        Arc::new(Buffer::from_bytes(&input)),
        Arc::new(Buffer::new(64)),
    );
    let mut sets = DescriptorSets::new();
    sets.bind(0, 0, Descriptor::Buffer(inb));
    sets.bind(0, 1, Descriptor::Buffer(out.clone()));
    dispatch(&sh, [1, 1, 1], &sets, Config::default()).expect("dispatch");
    let got = out.to_bytes();
    let at = |o: usize| f16::from_le_bytes([got[o], got[o + 1]]);
    let want = |v: f64| f16::from_f64(v);
    for (k, &r) in gauss_jordan_inverse(&m3, 3).iter().enumerate() {
        assert_eq!(at(8 * (k / 3) + 2 * (k % 3)), want(r), "inverse 3x3 [{k}]");
    }
    for (k, &r) in gauss_jordan_inverse(&m4, 4).iter().enumerate() {
        assert_eq!(
            at(24 + 8 * (k / 4) + 2 * (k % 4)),
            want(r),
            "inverse 4x4 [{k}]"
        );
    }
    assert_eq!(at(56), want(leibniz_determinant(&m3, 3)), "determinant 3x3");
    assert_eq!(at(58), want(leibniz_determinant(&m4, 4)), "determinant 4x4");
}
