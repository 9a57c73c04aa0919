//! Vertex fetch: vertex buffer formats and reading attributes for a batch of vertices.

use super::state::{InputRate, PipelineState};
use crate::stage::AttributeStream;
use crate::{Error, Result};
use half::f16;

/// A vertex buffer bound to a binding number: bytes and the offset of element 0.
#[derive(Clone, Copy, Debug)]
pub struct VertexBuffer<'a> {
    pub binding: u32,
    pub data: &'a [u8],
    pub offset: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Float,
}

/// Vertex attribute formats (Vulkan names).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexFormat {
    R32Sfloat,
    R32G32Sfloat,
    R32G32B32Sfloat,
    R32G32B32A32Sfloat,
    R32Uint,
    R32G32Uint,
    R32G32B32Uint,
    R32G32B32A32Uint,
    R32Sint,
    R32G32Sint,
    R32G32B32Sint,
    R32G32B32A32Sint,
    R8Unorm,
    R8G8Unorm,
    R8G8B8A8Unorm,
    R8G8B8A8Snorm,
    R8G8B8A8Uscaled,
    R8G8B8A8Sscaled,
    R8G8B8A8Uint,
    R8G8B8A8Sint,
    B8G8R8A8Unorm,
    R16G16Unorm,
    R16G16Snorm,
    R16G16Uint,
    R16G16Sint,
    R16G16Sfloat,
    R16G16B16A16Unorm,
    R16G16B16A16Snorm,
    R16G16B16A16Uint,
    R16G16B16A16Sint,
    R16G16B16A16Sfloat,
}

impl VertexFormat {
    /// The format with this `VkFormat` number, or `Error::Unsupported`.
    pub fn from_vk(vk_format: u32) -> Result<Self> {
        use VertexFormat::*;
        Ok(match vk_format {
            100 => R32Sfloat,
            103 => R32G32Sfloat,
            106 => R32G32B32Sfloat,
            109 => R32G32B32A32Sfloat,
            98 => R32Uint,
            101 => R32G32Uint,
            104 => R32G32B32Uint,
            107 => R32G32B32A32Uint,
            99 => R32Sint,
            102 => R32G32Sint,
            105 => R32G32B32Sint,
            108 => R32G32B32A32Sint,
            9 => R8Unorm,
            16 => R8G8Unorm,
            37 => R8G8B8A8Unorm,
            38 => R8G8B8A8Snorm,
            39 => R8G8B8A8Uscaled,
            40 => R8G8B8A8Sscaled,
            41 => R8G8B8A8Uint,
            42 => R8G8B8A8Sint,
            44 => B8G8R8A8Unorm,
            77 => R16G16Unorm,
            78 => R16G16Snorm,
            81 => R16G16Uint,
            82 => R16G16Sint,
            83 => R16G16Sfloat,
            91 => R16G16B16A16Unorm,
            92 => R16G16B16A16Snorm,
            95 => R16G16B16A16Uint,
            96 => R16G16B16A16Sint,
            97 => R16G16B16A16Sfloat,
            _ => {
                return Err(Error::Unsupported(format!(
                    "raster/fetch.rs: vertex attribute format VkFormat {vk_format} is not \
                     implemented"
                )))
            }
        })
    }

    /// (components, bytes per component, kind, BGRA order)
    fn desc(self) -> (usize, usize, Kind, bool) {
        use Kind::*;
        use VertexFormat::*;
        match self {
            R32Sfloat => (1, 4, Float, false),
            R32G32Sfloat => (2, 4, Float, false),
            R32G32B32Sfloat => (3, 4, Float, false),
            R32G32B32A32Sfloat => (4, 4, Float, false),
            R32Uint => (1, 4, Uint, false),
            R32G32Uint => (2, 4, Uint, false),
            R32G32B32Uint => (3, 4, Uint, false),
            R32G32B32A32Uint => (4, 4, Uint, false),
            R32Sint => (1, 4, Sint, false),
            R32G32Sint => (2, 4, Sint, false),
            R32G32B32Sint => (3, 4, Sint, false),
            R32G32B32A32Sint => (4, 4, Sint, false),
            R8Unorm => (1, 1, Unorm, false),
            R8G8Unorm => (2, 1, Unorm, false),
            R8G8B8A8Unorm => (4, 1, Unorm, false),
            R8G8B8A8Snorm => (4, 1, Snorm, false),
            R8G8B8A8Uscaled => (4, 1, Uscaled, false),
            R8G8B8A8Sscaled => (4, 1, Sscaled, false),
            R8G8B8A8Uint => (4, 1, Uint, false),
            R8G8B8A8Sint => (4, 1, Sint, false),
            B8G8R8A8Unorm => (4, 1, Unorm, true),
            R16G16Unorm => (2, 2, Unorm, false),
            R16G16Snorm => (2, 2, Snorm, false),
            R16G16Uint => (2, 2, Uint, false),
            R16G16Sint => (2, 2, Sint, false),
            R16G16Sfloat => (2, 2, Float, false),
            R16G16B16A16Unorm => (4, 2, Unorm, false),
            R16G16B16A16Snorm => (4, 2, Snorm, false),
            R16G16B16A16Uint => (4, 2, Uint, false),
            R16G16B16A16Sint => (4, 2, Sint, false),
            R16G16B16A16Sfloat => (4, 2, Float, false),
        }
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        let (n, b, _, _) = self.desc();
        n * b
    }

    /// Decode one element (`bytes.len() >= size()`) to four raw 32-bit words.
    pub fn decode(self, bytes: &[u8]) -> [u32; 4] {
        let (n, b, kind, bgra) = self.desc();
        let int = matches!(kind, Kind::Uint | Kind::Sint);
        let mut out = [0, 0, 0, if int { 1 } else { 1f32.to_bits() }];
        if kind == Kind::Float && b == 4 {
            // 32-bit floats are their own bits: what the loop below does for them, without
            // its per-component size and kind dispatch (~170 instructions per element).
            for (slot, p) in out.iter_mut().zip(bytes[..n * 4].chunks_exact(4)) {
                *slot = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
            }
            return out;
        }
        for (c, slot) in out.iter_mut().enumerate().take(n) {
            let p = &bytes[c * b..c * b + b];
            let u: u32 = match b {
                1 => p[0] as u32,
                2 => u16::from_le_bytes([p[0], p[1]]) as u32,
                _ => u32::from_le_bytes([p[0], p[1], p[2], p[3]]),
            };
            let s: i32 = match b {
                1 => p[0] as i8 as i32,
                2 => i16::from_le_bytes([p[0], p[1]]) as i32,
                _ => u as i32,
            };
            let max_u = ((1u64 << (8 * b)) - 1) as f32;
            let max_s = ((1u64 << (8 * b - 1)) - 1) as f32;
            *slot = match kind {
                Kind::Uint | Kind::Sint => {
                    if kind == Kind::Sint {
                        s as u32
                    } else {
                        u
                    }
                }
                Kind::Float if b == 2 => f16::from_bits(u as u16).to_f32().to_bits(),
                Kind::Float => u,
                Kind::Unorm => (u as f32 / max_u).to_bits(),
                Kind::Snorm => (s as f32 / max_s).max(-1.0).to_bits(),
                Kind::Uscaled => (u as f32).to_bits(),
                Kind::Sscaled => (s as f32).to_bits(),
            };
        }
        if bgra {
            out.swap(0, 2);
        }
        out
    }
}

/// Fetch every pipeline attribute for the given vertices.
pub(crate) fn fetch(
    state: &PipelineState,
    buffers: &[VertexBuffer],
    vertex_index: &[u32],
    instance_index: &[u32],
) -> Result<Vec<AttributeStream>> {
    let mut out = Vec::with_capacity(state.vertex_attributes.len());
    for attr in &state.vertex_attributes {
        let binding = state
            .vertex_bindings
            .iter()
            .find(|b| b.binding == attr.binding)
            .ok_or_else(|| {
                Error::Pipeline(format!(
                    "raster/fetch.rs: attribute at location {} uses binding {} which the \
                     pipeline does not describe",
                    attr.location, attr.binding
                ))
            })?;
        let buf = buffers
            .iter()
            .find(|b| b.binding == attr.binding)
            .ok_or_else(|| {
                Error::Pipeline(format!(
                    "raster/fetch.rs: no vertex buffer bound at binding {} (attribute location {})",
                    attr.binding, attr.location
                ))
            })?;
        let size = attr.format.size();
        // 32-bit float formats: `decode`'s own fast path, here without a call and a format
        // dispatch per element (~110 instructions per element before)
        let (n, b, kind, _) = attr.format.desc();
        let float32 = (kind == Kind::Float && b == 4).then_some(n);
        let mut values = Vec::with_capacity(vertex_index.len());
        for (&v, &i) in vertex_index.iter().zip(instance_index) {
            let element = match binding.input_rate {
                InputRate::Vertex => v,
                InputRate::Instance => i,
            };
            let start =
                (buf.offset as u64) + element as u64 * binding.stride as u64 + attr.offset as u64;
            let end = start + size as u64;
            if end > buf.data.len() as u64 {
                return Err(Error::Pipeline(format!(
                    "raster/fetch.rs: attribute location {} of element {element} reads bytes \
                     {start}..{end} of a {}-byte vertex buffer at binding {}",
                    attr.location,
                    buf.data.len(),
                    attr.binding
                )));
            }
            let bytes = &buf.data[start as usize..end as usize];
            values.push(match (float32, bytes.first_chunk::<16>()) {
                // the usual vec4: four words straight from a 16-byte array
                (Some(4), Some(b)) => std::array::from_fn(|c| {
                    u32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]])
                }),
                (Some(n), _) => {
                    let mut out = [0, 0, 0, 1f32.to_bits()];
                    for (slot, p) in out[..n].iter_mut().zip(bytes.chunks_exact(4)) {
                        *slot = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
                    }
                    out
                }
                (None, _) => attr.format.decode(bytes),
            });
        }
        out.push(AttributeStream {
            location: attr.location,
            values,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fetch_of_32_bit_floats_matches_decode() {
        // The inlined 32-bit float path against `decode` (the per-element general path) for
        // every component count, plus an integer format that still goes through `decode`; a
        // 20-byte stride, offsets inside the record, an instanced binding.
        use super::super::state::{VertexAttribute, VertexBinding};
        let words: Vec<u32> = (0..64u32)
            .map(|i| i.wrapping_mul(0x9E37_79B9) ^ 0x7fc0_0001)
            .collect();
        let data: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let formats = [
            VertexFormat::R32Sfloat,
            VertexFormat::R32G32Sfloat,
            VertexFormat::R32G32B32Sfloat,
            VertexFormat::R32G32B32A32Sfloat,
            VertexFormat::R32G32Sint,
        ];
        let state = PipelineState {
            vertex_bindings: vec![
                VertexBinding {
                    binding: 0,
                    stride: 20,
                    input_rate: InputRate::Vertex,
                },
                VertexBinding {
                    binding: 1,
                    stride: 16,
                    input_rate: InputRate::Instance,
                },
            ],
            vertex_attributes: formats
                .iter()
                .enumerate()
                .map(|(k, &format)| VertexAttribute {
                    location: k as u32,
                    binding: (k % 2) as u32,
                    format,
                    offset: 4 * (k as u32 % 2),
                })
                .collect(),
            ..PipelineState::default()
        };
        let buffers = [
            VertexBuffer {
                binding: 0,
                data: &data,
                offset: 8,
            },
            VertexBuffer {
                binding: 1,
                data: &data,
                offset: 0,
            },
        ];
        let (vi, ii) = ([0u32, 3, 1, 7, 2], [1u32, 0, 2, 2, 9]);
        let got = fetch(&state, &buffers, &vi, &ii).expect("fetch");
        for (k, (stream, attr)) in got.iter().zip(&state.vertex_attributes).enumerate() {
            assert_eq!(stream.location, k as u32);
            let (stride, base) = if k % 2 == 0 { (20, 8) } else { (16, 0) };
            for (j, v) in stream.values.iter().enumerate() {
                let e = if k % 2 == 0 { vi[j] } else { ii[j] } as usize;
                let at = base + e * stride + attr.offset as usize;
                assert_eq!(
                    *v,
                    attr.format.decode(&data[at..]),
                    "attribute {k} vertex {j}"
                );
            }
        }
        // by hand: the vec4 (instance rate, 16-byte stride, offset 4) of instance 2 starts at
        // byte 36, word 9; the float of vertex 0 (offset 8) is word 2, padded with 0, 0, 1
        assert_eq!(
            got[3].values[2],
            [words[9], words[10], words[11], words[12]]
        );
        assert_eq!(got[0].values[0], [words[2], 0, 0, 1f32.to_bits()]);
    }

    #[test]
    fn decode_formats_by_hand() {
        let f = 1.5f32.to_bits();
        assert_eq!(
            VertexFormat::R32G32Sfloat
                .decode(&[1.5f32.to_le_bytes(), 2.0f32.to_le_bytes()].concat()),
            [f, 2f32.to_bits(), 0, 1f32.to_bits()]
        );
        // three floats, one a NaN payload that must pass through untouched; w defaults to 1
        let nan = 0x7fc0_1234u32;
        assert_eq!(
            VertexFormat::R32G32B32Sfloat
                .decode(&[f.to_le_bytes(), nan.to_le_bytes(), (-0f32).to_le_bytes()].concat()),
            [f, nan, 0x8000_0000, 1f32.to_bits()]
        );
        assert_eq!(
            VertexFormat::R32Sint.decode(&(-5i32).to_le_bytes()),
            [(-5i32) as u32, 0, 0, 1]
        );
        assert_eq!(
            VertexFormat::R8G8B8A8Unorm.decode(&[255, 0, 51, 255]),
            [1f32.to_bits(), 0, 0.2f32.to_bits(), 1f32.to_bits()]
        );
        assert_eq!(
            VertexFormat::B8G8R8A8Unorm.decode(&[255, 0, 0, 0]),
            [0, 0, 1f32.to_bits(), 0]
        );
        // snorm: -128 clamps to -1, 127 is 1
        assert_eq!(
            VertexFormat::R16G16Snorm.decode(&[0x00, 0x80, 0xff, 0x7f]),
            [(-1f32).to_bits(), 1f32.to_bits(), 0, 1f32.to_bits()]
        );
        // f16 1.0 = 0x3c00
        assert_eq!(
            VertexFormat::R16G16Sfloat.decode(&[0x00, 0x3c, 0x00, 0xc0]),
            [1f32.to_bits(), (-2f32).to_bits(), 0, 1f32.to_bits()]
        );
        assert_eq!(
            VertexFormat::R8G8B8A8Sint.decode(&[0xff, 1, 2, 3]),
            [u32::MAX, 1, 2, 3]
        );
        assert!(VertexFormat::from_vk(4).is_err());
        assert_eq!(
            VertexFormat::from_vk(106).unwrap(),
            VertexFormat::R32G32B32Sfloat
        );
    }
}
