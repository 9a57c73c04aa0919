//! Index reading and primitive assembly: the vertex stream of one instance becomes a list of
//! primitives that name their vertices by position ("slot") in the shaded vertex array.

use super::state::Topology;
use crate::{Error, Result};

/// `VkIndexType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexType {
    U8,
    U16,
    U32,
}

impl IndexType {
    fn size(self) -> usize {
        match self {
            IndexType::U8 => 1,
            IndexType::U16 => 2,
            IndexType::U32 => 4,
        }
    }

    fn restart_value(self) -> u32 {
        match self {
            IndexType::U8 => 0xff,
            IndexType::U16 => 0xffff,
            IndexType::U32 => 0xffff_ffff,
        }
    }
}

/// An index buffer: bytes, offset of index 0 and the index type.
#[derive(Clone, Copy, Debug)]
pub struct IndexBuffer<'a> {
    pub data: &'a [u8],
    pub offset: usize,
    pub index_type: IndexType,
}

/// A vertex stream: the vertex indices to shade plus the runs between primitive restarts.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Stream {
    /// `VertexIndex` of every slot.
    pub vertex_index: Vec<u32>,
    /// (first slot, slot count) of each run between restarts.
    pub runs: Vec<(usize, usize)>,
}

/// The stream of a non-indexed draw.
pub(crate) fn linear_stream(first_vertex: u32, count: u32) -> Stream {
    Stream {
        vertex_index: (0..count).map(|i| first_vertex.wrapping_add(i)).collect(),
        runs: vec![(0, count as usize)],
    }
}

/// The stream of an indexed draw; `restart` cuts runs at the all-ones index.
pub(crate) fn indexed_stream(
    ib: &IndexBuffer,
    first_index: u32,
    count: u32,
    vertex_offset: i32,
    restart: bool,
) -> Result<Stream> {
    let size = ib.index_type.size();
    let start = ib.offset as u64 + first_index as u64 * size as u64;
    let end = start + count as u64 * size as u64;
    if end > ib.data.len() as u64 {
        return Err(Error::Pipeline(format!(
            "raster/assemble.rs: indices {first_index}..{} read bytes {start}..{end} of a \
             {}-byte index buffer",
            first_index as u64 + count as u64,
            ib.data.len()
        )));
    }
    let bytes = &ib.data[start as usize..end as usize];
    let mut s = Stream::default();
    let mut run_start = 0;
    for c in bytes.chunks_exact(size) {
        let idx = match ib.index_type {
            IndexType::U8 => c[0] as u32,
            IndexType::U16 => u16::from_le_bytes([c[0], c[1]]) as u32,
            IndexType::U32 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
        };
        if restart && idx == ib.index_type.restart_value() {
            s.runs.push((run_start, s.vertex_index.len() - run_start));
            run_start = s.vertex_index.len();
            continue;
        }
        s.vertex_index.push(idx.wrapping_add(vertex_offset as u32));
    }
    s.runs.push((run_start, s.vertex_index.len() - run_start));
    Ok(s)
}

/// One assembled primitive: 1, 2 or 3 slots; `slots[0]` is the provoking vertex. `layer`
/// and `viewport` are a geometry shader's `Layer` and `ViewportIndex` (0 without one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Assembled {
    pub slots: [u32; 3],
    pub count: u8,
    pub primitive_id: u32,
    pub layer: u16,
    pub viewport: u8,
}

/// Primitives `range` of a list topology of `size` vertices per primitive drawn as one run
/// from slot 0 (one instance, no restart), into `out`: what [`assemble`] makes of them, for a
/// worker that sets up only those (`geometry::shade_and_set_up`).
pub(crate) fn list_primitives(
    size: usize,
    range: std::ops::Range<usize>,
    out: &mut Vec<Assembled>,
) {
    out.clear();
    out.extend(range.map(|i| {
        let mut slots = [0u32; 3];
        for (j, s) in slots.iter_mut().take(size).enumerate() {
            *s = (size * i + j) as u32;
        }
        Assembled {
            slots,
            count: size as u8,
            primitive_id: i as u32,
            layer: 0,
            viewport: 0,
        }
    }));
}

/// Assemble the primitives of a stream, `base` added to every slot.
pub(crate) fn assemble(topology: Topology, stream: &Stream, base: u32) -> Vec<Assembled> {
    // At most one primitive per index for every topology: one allocation, no regrowth.
    let mut out = Vec::with_capacity(stream.vertex_index.len());
    let mut id = 0u32;
    let mut push = |slots: [usize; 3], count: u8, out: &mut Vec<Assembled>| {
        out.push(Assembled {
            slots: slots.map(|s| s as u32 + base),
            count,
            primitive_id: id,
            layer: 0,
            viewport: 0,
        });
        id += 1;
    };
    for &(s, n) in &stream.runs {
        match topology {
            Topology::PointList => (0..n).for_each(|i| push([s + i, 0, 0], 1, &mut out)),
            Topology::LineList => {
                (0..n / 2).for_each(|i| push([s + 2 * i, s + 2 * i + 1, 0], 2, &mut out))
            }
            Topology::LineStrip => {
                (1..n.max(1)).for_each(|i| push([s + i - 1, s + i, 0], 2, &mut out))
            }
            Topology::TriangleList => (0..n / 3)
                .for_each(|i| push([s + 3 * i, s + 3 * i + 1, s + 3 * i + 2], 3, &mut out)),
            Topology::TriangleStrip => (0..n.saturating_sub(2)).for_each(|i| {
                let o = i % 2;
                push([s + i, s + i + 1 + o, s + i + 2 - o], 3, &mut out)
            }),
            Topology::TriangleFan => {
                (0..n.saturating_sub(2)).for_each(|i| push([s + i + 1, s + i + 2, s], 3, &mut out))
            }
            // the adjacency topologies' own lines and triangles
            Topology::LineListWithAdjacency => {
                (0..n / 4).for_each(|i| push([s + 4 * i + 1, s + 4 * i + 2, 0], 2, &mut out))
            }
            Topology::LineStripWithAdjacency => {
                (1..n.saturating_sub(2)).for_each(|i| push([s + i, s + i + 1, 0], 2, &mut out))
            }
            Topology::TriangleListWithAdjacency => (0..n / 6)
                .for_each(|i| push([s + 6 * i, s + 6 * i + 2, s + 6 * i + 4], 3, &mut out)),
            Topology::TriangleStripWithAdjacency => {
                for_strip_with_adjacency(n, |v| push([s + v[0], s + v[2], s + v[4]], 3, &mut out))
            }
            // patches are tessellated, never drawn as they are (`stages`)
            Topology::PatchList => {}
        }
    }
    out
}

/// Each triangle of a triangle strip with adjacency of `n` vertices, as the six vertex
/// positions a geometry shader receives (the triangle at 0, 2, 4, the adjacent vertices at
/// 1, 3, 5), in the order of Vulkan's (and OpenGL's) table: triangle i is vertices 2i, 2i +
/// 2, 2i + 4, every other one with its first two swapped to keep the winding; the first
/// triangle's adjacent vertex before it is vertex 1, the last's after it vertex 2i + 5.
pub(crate) fn for_strip_with_adjacency(n: usize, mut f: impl FnMut([usize; 6])) {
    if n < 6 {
        return;
    }
    let mut idx = [1usize, 0, 0, 4, 2, 0];
    let mut i = 0;
    while i + 5 < n {
        idx[1] = idx[0];
        idx[0] = idx[2];
        idx[2] = idx[4];
        idx[4] = idx[3];
        idx[3] = i + if i + 7 < n { 6 } else { 5 };
        idx[5] = i + 3;
        if i & 2 != 0 {
            f([idx[0], idx[5], idx[4], idx[3], idx[2], idx[1]]);
        } else {
            f(idx);
        }
        i += 2;
    }
}

/// The input primitives of a geometry shader: every primitive of `topology` over `stream`,
/// with all its vertices (adjacent ones included), `base` added to every slot; `per` slots
/// each in `slots`, one id each in `ids`.
pub(crate) fn assemble_full(
    topology: Topology,
    stream: &Stream,
    base: u32,
    per: usize,
    slots: &mut Vec<u32>,
    ids: &mut Vec<u32>,
) {
    let mut id = 0;
    let mut push = |vs: &[usize], slots: &mut Vec<u32>| {
        slots.extend(vs.iter().map(|&v| v as u32 + base));
        ids.push(id);
        id += 1;
    };
    for &(s, n) in &stream.runs {
        match topology {
            Topology::LineListWithAdjacency => {
                (0..n / 4).for_each(|i| push(&[0, 1, 2, 3].map(|k| s + 4 * i + k), slots))
            }
            Topology::LineStripWithAdjacency => {
                (0..n.saturating_sub(3)).for_each(|i| push(&[0, 1, 2, 3].map(|k| s + i + k), slots))
            }
            Topology::TriangleListWithAdjacency => (0..n / 6)
                .for_each(|i| push(&std::array::from_fn::<_, 6, _>(|k| s + 6 * i + k), slots)),
            Topology::TriangleStripWithAdjacency => {
                for_strip_with_adjacency(n, |v| push(&v.map(|k| s + k), slots))
            }
            Topology::PatchList => (0..n / per.max(1)).for_each(|i| {
                push(
                    &(0..per).map(|k| s + per * i + k).collect::<Vec<_>>(),
                    slots,
                )
            }),
            _ => {
                let run = Stream {
                    vertex_index: Vec::new(),
                    runs: vec![(s, n)],
                };
                for a in assemble(topology, &run, 0) {
                    push(
                        &a.slots[..a.count as usize]
                            .iter()
                            .map(|&v| v as usize)
                            .collect::<Vec<_>>(),
                        slots,
                    );
                }
            }
        }
    }
}

/// Vertices per primitive `assemble_full` makes of `topology` (`patch`: a patch's).
pub(crate) fn full_size(topology: Topology, patch: usize) -> usize {
    match topology {
        Topology::PointList => 1,
        Topology::LineList | Topology::LineStrip => 2,
        Topology::TriangleList | Topology::TriangleStrip | Topology::TriangleFan => 3,
        Topology::LineListWithAdjacency | Topology::LineStripWithAdjacency => 4,
        Topology::TriangleListWithAdjacency | Topology::TriangleStripWithAdjacency => 6,
        Topology::PatchList => patch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(t: Topology, s: &Stream) -> Vec<Vec<u32>> {
        assemble(t, s, 0)
            .iter()
            .map(|a| a.slots[..a.count as usize].to_vec())
            .collect()
    }

    #[test]
    fn topologies_follow_the_vulkan_vertex_order() {
        let s = linear_stream(0, 5);
        assert_eq!(slots(Topology::TriangleList, &s), vec![vec![0, 1, 2]]);
        assert_eq!(
            slots(Topology::TriangleStrip, &s),
            vec![vec![0, 1, 2], vec![1, 3, 2], vec![2, 3, 4]]
        );
        assert_eq!(
            slots(Topology::TriangleFan, &s),
            vec![vec![1, 2, 0], vec![2, 3, 0], vec![3, 4, 0]]
        );
        assert_eq!(
            slots(Topology::LineStrip, &s),
            vec![vec![0, 1], vec![1, 2], vec![2, 3], vec![3, 4]]
        );
        assert_eq!(slots(Topology::LineList, &s), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(slots(Topology::PointList, &s).len(), 5);
    }

    #[test]
    fn list_primitives_are_those_of_the_whole_stream() {
        for (t, size) in [
            (Topology::PointList, 1),
            (Topology::LineList, 2),
            (Topology::TriangleList, 3),
        ] {
            for n in [0, 1, 2, 3, 7, 600] {
                let all = assemble(t, &linear_stream(5, n), 0);
                let mut got = vec![Assembled {
                    slots: [9; 3],
                    count: 9,
                    primitive_id: 9,
                    layer: 9,
                    viewport: 9,
                }];
                list_primitives(size, 0..all.len(), &mut got);
                assert_eq!(got, all, "{t:?} {n}");
                if all.len() > 4 {
                    list_primitives(size, 2..all.len() - 1, &mut got);
                    assert_eq!(got, all[2..all.len() - 1], "{t:?} {n}");
                }
            }
        }
    }

    #[test]
    fn restart_cuts_strips() {
        let idx: Vec<u8> = [0u16, 1, 2, 3, 0xffff, 4, 5, 6]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let ib = IndexBuffer {
            data: &idx,
            offset: 0,
            index_type: IndexType::U16,
        };
        let s = indexed_stream(&ib, 0, 8, 10, true).unwrap();
        assert_eq!(s.vertex_index, vec![10, 11, 12, 13, 14, 15, 16]);
        assert_eq!(s.runs, vec![(0, 4), (4, 3)]);
        let p = assemble(Topology::TriangleStrip, &s, 0);
        let v: Vec<_> = p.iter().map(|a| (a.slots, a.primitive_id)).collect();
        assert_eq!(v, vec![([0, 1, 2], 0), ([1, 3, 2], 1), ([4, 5, 6], 2)]);
        // without restart the index is an ordinary (huge) index
        let s = indexed_stream(&ib, 0, 8, 0, false).unwrap();
        assert_eq!(s.vertex_index[4], 0xffff);
        assert!(indexed_stream(&ib, 1, 8, 0, false).is_err());
    }
}
