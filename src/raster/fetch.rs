//! Vertex fetch: reading attributes for a batch of vertices through the format table's
//! decoders.

use super::state::{InputRate, PipelineState};
use crate::format::{Aspect, Format};
use crate::stage::AttributeStream;
use crate::{Error, Result};

/// A vertex buffer bound to a binding number: bytes and the offset of element 0.
#[derive(Clone, Copy, Debug)]
pub struct VertexBuffer<'a> {
    pub binding: u32,
    pub data: &'a [u8],
    pub offset: usize,
}

/// Whether `format` can be a vertex attribute format (any colour format of the table: its
/// raw decoding is what the vertex stage reads, f32 bits for float, normalized and scaled
/// formats, integers for integer formats, missing components (0, 0, 0, 1)), else
/// `Error::Unsupported` naming it.
pub fn vertex_attribute(format: Format) -> Result<Format> {
    if format.has_depth() || format.has_stencil() {
        return Err(Error::Unsupported(format!(
            "{} is a depth/stencil format, not a vertex attribute format",
            format.vk_name()
        )));
    }
    Ok(format)
}

/// Components of a 32-bit float format (read as their own bits, without a decoder call).
fn float32_components(format: Format) -> Option<usize> {
    match format {
        Format::R32_SFLOAT => Some(1),
        Format::R32G32_SFLOAT => Some(2),
        Format::R32G32B32_SFLOAT => Some(3),
        Format::R32G32B32A32_SFLOAT => Some(4),
        _ => None,
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
        let format = vertex_attribute(attr.format)?;
        let size = format.texel_size();
        // 32-bit float formats are their own bits: no decoder call per element
        let float32 = float32_components(format);
        let decode = format.decoder(Aspect::Color)?.raw;
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
                (None, _) => decode(bytes),
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
            Format::R32_SFLOAT,
            Format::R32G32_SFLOAT,
            Format::R32G32B32_SFLOAT,
            Format::R32G32B32A32_SFLOAT,
            Format::R32G32_SINT,
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
                    attr.format.decode_raw(&data[at..]),
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
            Format::R32G32_SFLOAT
                .decode_raw(&[1.5f32.to_le_bytes(), 2.0f32.to_le_bytes()].concat()),
            [f, 2f32.to_bits(), 0, 1f32.to_bits()]
        );
        // three floats, one a NaN payload that must pass through untouched; w defaults to 1
        let nan = 0x7fc0_1234u32;
        assert_eq!(
            Format::R32G32B32_SFLOAT
                .decode_raw(&[f.to_le_bytes(), nan.to_le_bytes(), (-0f32).to_le_bytes()].concat()),
            [f, nan, 0x8000_0000, 1f32.to_bits()]
        );
        assert_eq!(
            Format::R32_SINT.decode_raw(&(-5i32).to_le_bytes()),
            [(-5i32) as u32, 0, 0, 1]
        );
        assert_eq!(
            Format::R8G8B8A8_UNORM.decode_raw(&[255, 0, 51, 255]),
            [1f32.to_bits(), 0, 0.2f32.to_bits(), 1f32.to_bits()]
        );
        assert_eq!(
            Format::B8G8R8A8_UNORM.decode_raw(&[255, 0, 0, 0]),
            [0, 0, 1f32.to_bits(), 0]
        );
        // snorm: -128 clamps to -1, 127 is 1
        assert_eq!(
            Format::R16G16_SNORM.decode_raw(&[0x00, 0x80, 0xff, 0x7f]),
            [(-1f32).to_bits(), 1f32.to_bits(), 0, 1f32.to_bits()]
        );
        // f16 1.0 = 0x3c00
        assert_eq!(
            Format::R16G16_SFLOAT.decode_raw(&[0x00, 0x3c, 0x00, 0xc0]),
            [1f32.to_bits(), (-2f32).to_bits(), 0, 1f32.to_bits()]
        );
        assert_eq!(
            Format::R8G8B8A8_SINT.decode_raw(&[0xff, 1, 2, 3]),
            [u32::MAX, 1, 2, 3]
        );
        assert!(vertex_attribute(Format::D32_SFLOAT).is_err());
    }
}
