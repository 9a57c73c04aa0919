//! VkScript (the VkRunner-style `[require]` / `[… shader]` / `[vertex data]` / `[indices]` /
//! `[test]` format, google/amber `docs/vk_script.md`) lowered into the same AST as AmberScript.
//!
//! The lowering mirrors what Amber does: one pipeline named `pipeline` (compute when a compute
//! shader is present, graphics otherwise), a `framebuffer` colour attachment (default
//! `B8G8R8A8_UNORM`, 250×250), an optional `depth_buffer`, one buffer per vertex attribute
//! (`vertices_<location>`), `indices` (uint32), and one buffer per descriptor used by the test
//! (`ssbo_<set>_<binding>`, `ubo_<set>_<binding>`, `push_constants`). `ssbo`/`uniform` writes
//! become [`Command::SetBufferData`]; a buffer's element type is the first type the test uses
//! with it (Amber's rule) and `ssbo b n` sizes it to `n` such elements.

use std::collections::BTreeMap;
use std::path::Path;

use super::ast::*;
use crate::{Error, Result};

type R<T> = std::result::Result<T, String>;

/// Parse VkScript text into a [`Script`]. Errors are `Error::Amber("file:line: message")`.
pub fn parse_vkscript(text: &str, path: &Path) -> Result<Script> {
    let file = path.display().to_string();
    let mut v = Lowering::default();
    v.run(text)
        .map_err(|(line, m)| Error::Amber(format!("{file}:{line}: {}", crate::error::clip(&m))))?;
    Ok(Script {
        path: path.to_path_buf(),
        stmts: v.finish(),
    })
}

#[derive(Default)]
struct Lowering {
    stmts: Vec<Stmt>,
    commands: Vec<Stmt>,
    shaders: Vec<(usize, Shader)>,
    fb_format: Option<Format>,
    ds_format: Option<Format>,
    fb_size: Option<(u32, u32)>,
    vertex: Vec<(usize, u32, Format, Vec<Number>)>,
    indices: Option<(usize, Vec<Number>)>,
    /// Descriptor buffers: name → (line, kind, set, binding, element type, layout, size).
    descriptors: BTreeMap<String, Descriptor>,
    push: Option<(usize, DataType)>,
    entry_points: Vec<(ShaderType, String)>,
    patch_points: Option<u32>,
    depth: Option<DepthState>,
    tolerance: Vec<Tolerance>,
}

struct Descriptor {
    line: usize,
    kind: DescriptorKind,
    set: u32,
    binding: u32,
    ty: Option<DataType>,
    layout: Layout,
    size: Option<u64>,
}

fn num(s: &str) -> Option<Number> {
    if super::token::nan_literal(s) {
        return Some(Number::Float(f64::NAN));
    }
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    if let Some(h) = body.strip_prefix("0x") {
        let v = u64::from_str_radix(h, 16).ok()? as i128;
        return Some(Number::Int(if neg { -v } else { v }));
    }
    if let Ok(i) = s.parse::<i128>() {
        return Some(Number::Int(i));
    }
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some(Number::Float(f))
}

fn nums(words: &[&str]) -> R<Vec<Number>> {
    words
        .iter()
        .map(|w| num(w).ok_or_else(|| format!("invalid number '{w}'")))
        .collect()
}

fn uint(w: Option<&&str>, what: &str) -> R<u32> {
    let w = w.ok_or_else(|| format!("missing {what}"))?;
    w.parse()
        .map_err(|_| format!("invalid {what} '{w}' (expected a non-negative integer)"))
}

fn float(w: Option<&&str>, what: &str) -> R<f64> {
    let w = w.ok_or_else(|| format!("missing {what}"))?;
    num(w)
        .map(Number::as_f64)
        .ok_or_else(|| format!("invalid {what} '{w}'"))
}

/// `N` (set 0) or `S:B`.
fn binding(w: Option<&&str>) -> R<(u32, u32)> {
    let w = w.ok_or("missing binding")?;
    let bad = || format!("invalid binding '{w}' (expected N or SET:BINDING)");
    match w.split_once(':') {
        Some((s, b)) => Ok((s.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?)),
        None => Ok((0, w.parse().map_err(|_| bad())?)),
    }
}

/// VkScript type names (`int`, `uvec3`, `dmat2x3`, `i8vec2`, `float16_t` …).
pub fn vk_data_type(s: &str) -> Option<DataType> {
    let scalar = |x: &str| -> Option<Scalar> {
        Some(match x {
            "int" => Scalar::I32,
            "uint" => Scalar::U32,
            "int8_t" => Scalar::I8,
            "uint8_t" => Scalar::U8,
            "int16_t" => Scalar::I16,
            "uint16_t" => Scalar::U16,
            "int64_t" => Scalar::I64,
            "uint64_t" => Scalar::U64,
            "float16_t" | "half" => Scalar::F16,
            "float" => Scalar::F32,
            "double" => Scalar::F64,
            _ => return None,
        })
    };
    if let Some(sc) = scalar(s) {
        return Some(DataType::scalar(sc));
    }
    let dim = |d: &str| -> Option<u32> {
        match d {
            "" => Some(4),
            _ => d.parse().ok().filter(|n| (2..=4).contains(n)),
        }
    };
    for (prefix, sc) in [
        ("vec", Scalar::F32),
        ("dvec", Scalar::F64),
        ("ivec", Scalar::I32),
        ("uvec", Scalar::U32),
        ("i8vec", Scalar::I8),
        ("u8vec", Scalar::U8),
        ("i16vec", Scalar::I16),
        ("u16vec", Scalar::U16),
        ("i64vec", Scalar::I64),
        ("u64vec", Scalar::U64),
    ] {
        if let Some(rest) = s.strip_prefix(prefix) {
            return Some(DataType {
                rows: dim(rest)?,
                ..DataType::scalar(sc)
            });
        }
    }
    for (prefix, sc) in [("mat", Scalar::F32), ("dmat", Scalar::F64)] {
        if let Some(rest) = s.strip_prefix(prefix) {
            let (c, r) = match rest.split_once('x') {
                Some((c, r)) => (dim(c)?, dim(r)?),
                None => (dim(rest)?, dim(rest)?),
            };
            return Some(DataType {
                rows: r,
                cols: c,
                ..DataType::scalar(sc)
            });
        }
    }
    None
}

fn data_type(w: Option<&&str>) -> R<DataType> {
    let w = w.ok_or("missing data type")?;
    vk_data_type(w).ok_or_else(|| format!("unknown data type '{w}'"))
}

fn vk_topology(s: &str) -> Option<Topology> {
    Some(match s {
        "GL_POINTS" => Topology::PointList,
        "GL_LINES" => Topology::LineList,
        "GL_LINES_ADJACENCY" => Topology::LineListWithAdjacency,
        "GL_LINE_STRIP" => Topology::LineStrip,
        "GL_LINE_STRIP_ADJACENCY" => Topology::LineStripWithAdjacency,
        "GL_TRIANGLES" => Topology::TriangleList,
        "GL_TRIANGLES_ADJACENCY" => Topology::TriangleListWithAdjacency,
        "GL_TRIANGLE_STRIP" => Topology::TriangleStrip,
        "GL_TRIANGLE_STRIP_ADJACENCY" => Topology::TriangleStripWithAdjacency,
        "GL_TRIANGLE_FAN" => Topology::TriangleFan,
        "GL_PATCHES" => Topology::PatchList,
        _ => return Topology::from_keyword(s.strip_prefix("VK_PRIMITIVE_TOPOLOGY_").unwrap_or(s)),
    })
}

fn vk_bool(w: Option<&&str>) -> R<bool> {
    match w.copied() {
        Some("true") | Some("1") => Ok(true),
        Some("false") | Some("0") => Ok(false),
        other => Err(format!("expected true or false, found {other:?}")),
    }
}

/// A vertex attribute header: `loc/FORMAT` or `loc/gl_type/glsl_type`.
fn attribute(h: &str) -> R<(u32, Format)> {
    let parts: Vec<&str> = h.split('/').collect();
    let bad = || format!("invalid vertex data header '{h}'");
    let loc: u32 = parts.first().and_then(|l| l.parse().ok()).ok_or_else(bad)?;
    let fmt = match parts.len() {
        2 => Format::parse(parts[1]).ok_or_else(|| format!("unknown format '{}'", parts[1]))?,
        3 => {
            let (bits, mode) = match parts[1] {
                "byte" => (8, "SINT"),
                "ubyte" => (8, "UINT"),
                "short" => (16, "SINT"),
                "ushort" => (16, "UINT"),
                "int" => (32, "SINT"),
                "uint" => (32, "UINT"),
                "half" => (16, "SFLOAT"),
                "float" => (32, "SFLOAT"),
                "double" => (64, "SFLOAT"),
                _ => return Err(bad()),
            };
            let n = match parts[2] {
                "int" | "uint" | "float" | "double" => 1,
                t => {
                    vk_data_type(t)
                        .filter(|d| d.cols == 1)
                        .ok_or_else(bad)?
                        .rows
                }
            };
            let name: String = ["R", "G", "B", "A"][..n as usize]
                .iter()
                .map(|c| format!("{c}{bits}"))
                .collect();
            Format::parse(&format!("{name}_{mode}")).ok_or_else(bad)?
        }
        _ => return Err(bad()),
    };
    Ok((loc, fmt))
}

fn strip_comment(l: &str) -> &str {
    l.split('#').next().unwrap_or("")
}

impl Lowering {
    fn run(&mut self, text: &str) -> std::result::Result<(), (usize, String)> {
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let l = lines[i].trim();
            if !is_header(l) {
                if l.starts_with('[') && l.ends_with(']') {
                    return Err((i + 1, format!("unknown section {l}")));
                }
                if !strip_comment(l).trim().is_empty() {
                    return Err((i + 1, format!("text outside a section: '{l}'")));
                }
                i += 1;
                continue;
            }
            let header = l[1..l.len() - 1].trim().to_string();
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && !is_header(lines[end].trim()) {
                end += 1;
            }
            self.section(&header, start, &lines[start..end])
                .map_err(|(off, m)| (start + off, m))?;
            i = end;
        }
        Ok(())
    }

    /// `off` in errors is the 0-based line within the section body (the header is line
    /// `start`, 1-based, so body line k is `start + k + 1`… handled by the caller's `+ start`).
    fn section(
        &mut self,
        header: &str,
        start: usize,
        body: &[&str],
    ) -> std::result::Result<(), (usize, String)> {
        let words: Vec<&str> = header.split_whitespace().collect();
        if let Some(si) = words.iter().position(|w| *w == "shader") {
            let stage_name = words[..si].join(" ");
            let stage = match stage_name.as_str() {
                "vertex" => ShaderType::Vertex,
                "fragment" => ShaderType::Fragment,
                "geometry" => ShaderType::Geometry,
                "tessellation control" => ShaderType::TessellationControl,
                "tessellation evaluation" => ShaderType::TessellationEvaluation,
                "compute" => ShaderType::Compute,
                _ => return Err((0, format!("unknown shader stage in [{header}]"))),
            };
            let format = match &words[si + 1..] {
                [] => ShaderFormat::Glsl,
                ["spirv"] => ShaderFormat::SpirvAsm,
                ["spirv", "hex"] => ShaderFormat::SpirvHex,
                ["passthrough"] if stage == ShaderType::Vertex => ShaderFormat::Passthrough,
                _ => return Err((0, format!("unknown shader format in [{header}]"))),
            };
            let name = format!("{}_shader", stage.keyword());
            if self.shaders.iter().any(|(_, s)| s.name == name) {
                return Err((0, format!("second [{header}] section")));
            }
            let source = if format == ShaderFormat::Passthrough {
                ShaderSource::Passthrough
            } else {
                let mut t = body.join("\n");
                t.push('\n');
                if t.trim().is_empty() {
                    return Err((0, format!("[{header}] has no source")));
                }
                ShaderSource::Text(t)
            };
            self.shaders.push((
                start,
                Shader {
                    name,
                    stage,
                    format,
                    target_env: None,
                    file: None,
                    source,
                    line: start,
                },
            ));
            return Ok(());
        }
        // Non-shader sections: comments and `\` continuations.
        let mut joined: Vec<(usize, String)> = Vec::new();
        let mut cont = false;
        for (k, raw) in body.iter().enumerate() {
            let l = strip_comment(raw).trim_end();
            let (l, next_cont) = match l.strip_suffix('\\') {
                Some(x) => (x, true),
                None => (l, false),
            };
            if cont {
                if let Some(last) = joined.last_mut() {
                    last.1.push(' ');
                    last.1.push_str(l);
                }
            } else {
                joined.push((k + 1, l.to_string()));
            }
            cont = next_cont;
        }
        joined.retain(|(_, l)| !l.trim().is_empty());
        let run = |f: &mut dyn FnMut(&str) -> R<()>| -> std::result::Result<(), (usize, String)> {
            for (k, l) in &joined {
                f(l).map_err(|m| (*k, m))?;
            }
            Ok(())
        };
        match header {
            "require" => run(&mut |l| self.require(l)),
            "indices" => {
                let mut v = Vec::new();
                run(&mut |l| {
                    v.extend(nums(&l.split_whitespace().collect::<Vec<_>>())?);
                    Ok(())
                })?;
                self.indices = Some((start, v));
                Ok(())
            }
            "vertex data" => self.vertex_data(start, &joined),
            "test" => {
                for (k, l) in &joined {
                    self.test(start + k, l).map_err(|m| (*k, m))?;
                }
                Ok(())
            }
            "comment" => Ok(()),
            _ => Err((0, format!("unknown section [{header}]"))),
        }
    }

    fn require(&mut self, l: &str) -> R<()> {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w[0] {
            "framebuffer" => {
                let f = w.get(1).ok_or("missing framebuffer format")?;
                self.fb_format =
                    Some(Format::parse(f).ok_or_else(|| format!("unknown format '{f}'"))?);
            }
            "depthstencil" => {
                let f = w.get(1).ok_or("missing depthstencil format")?;
                self.ds_format =
                    Some(Format::parse(f).ok_or_else(|| format!("unknown format '{f}'"))?);
            }
            "fbsize" => {
                let (a, b) = (
                    uint(w.get(1), "fbsize width")?,
                    uint(w.get(2), "fbsize height")?,
                );
                if a == 0 || b == 0 {
                    return Err("fbsize must not be zero".into());
                }
                self.fb_size = Some((a, b));
            }
            "fence_timeout" => {
                let t = uint(w.get(1), "fence timeout")?;
                self.stmts.push(Stmt {
                    line: 0,
                    kind: StmtKind::EngineData {
                        key: "fence_timeout_ms".into(),
                        value: Number::Int(t as i128),
                    },
                });
            }
            x if w.len() == 1 && x.starts_with("VK_") => self.stmts.push(Stmt {
                line: 0,
                kind: StmtKind::DeviceExtension(x.to_string()),
            }),
            x if w.len() == 1
                && x.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') =>
            {
                self.stmts.push(Stmt {
                    line: 0,
                    kind: StmtKind::DeviceFeature(x.to_string()),
                })
            }
            _ => return Err(format!("invalid [require] line '{l}'")),
        }
        Ok(())
    }

    fn vertex_data(
        &mut self,
        start: usize,
        lines: &[(usize, String)],
    ) -> std::result::Result<(), (usize, String)> {
        let Some(((hk, header), rows)) = lines.split_first() else {
            return Ok(());
        };
        let mut attrs = Vec::new();
        for h in header.split_whitespace() {
            let (loc, f) = attribute(h).map_err(|m| (*hk, m))?;
            if attrs.iter().any(|(l, _, _)| *l == loc) {
                return Err((*hk, format!("vertex location {loc} given twice")));
            }
            attrs.push((loc, f, Vec::new()));
        }
        let per_row: usize = attrs
            .iter()
            .map(|(_, f, _)| f.value_components() as usize)
            .sum();
        for (k, row) in rows {
            let v = nums(&row.split_whitespace().collect::<Vec<_>>()).map_err(|m| (*k, m))?;
            if v.len() != per_row {
                return Err((
                    *k,
                    format!(
                        "vertex data row has {} values, the header needs {per_row}",
                        v.len()
                    ),
                ));
            }
            let mut at = 0;
            for (_, f, data) in attrs.iter_mut() {
                let n = f.value_components() as usize;
                data.extend_from_slice(&v[at..at + n]);
                at += n;
            }
        }
        for (loc, f, data) in attrs {
            self.vertex.push((start, loc, f, data));
        }
        Ok(())
    }

    fn descriptor(
        &mut self,
        line: usize,
        kind: DescriptorKind,
        set: u32,
        binding: u32,
        ty: Option<DataType>,
    ) -> String {
        let prefix = if kind == DescriptorKind::Uniform {
            "ubo"
        } else {
            "ssbo"
        };
        let name = format!("{prefix}_{set}_{binding}");
        let layout = if kind == DescriptorKind::Uniform {
            Layout::Std140
        } else {
            Layout::Std430
        };
        let d = self.descriptors.entry(name.clone()).or_insert(Descriptor {
            line,
            kind,
            set,
            binding,
            ty: None,
            layout,
            size: None,
        });
        if d.ty.is_none() {
            d.ty = ty;
        }
        name
    }

    fn push_cmd(&mut self, line: usize, c: Command) {
        self.commands.push(Stmt {
            line,
            kind: StmtKind::Command(c),
        });
    }

    fn test(&mut self, line: usize, l: &str) -> R<()> {
        let cleaned = l.replace(['(', ')', ','], " ");
        let w: Vec<&str> = cleaned.split_whitespace().collect();
        let p = "pipeline".to_string();
        match w.as_slice() {
            ["clear"] => self.push_cmd(line, Command::Clear { pipeline: p }),
            ["clear", "color", rest @ ..] => {
                let v = nums(rest)?;
                if v.len() != 4 {
                    return Err("clear color needs 4 values".into());
                }
                let color = [v[0].as_f64(), v[1].as_f64(), v[2].as_f64(), v[3].as_f64()];
                self.push_cmd(line, Command::ClearColor { pipeline: p, color });
            }
            ["clear", "depth", v] => {
                let value = float(Some(v), "depth clear value")? as f32;
                self.push_cmd(line, Command::ClearDepth { pipeline: p, value });
            }
            ["clear", "stencil", v] => {
                let value = uint(Some(v), "stencil clear value")?;
                self.push_cmd(line, Command::ClearStencil { pipeline: p, value });
            }
            ["draw", "rect", rest @ ..] => {
                let (mut ortho, mut patch, mut r) = (false, false, rest);
                while let Some((f, tail)) = r.split_first() {
                    match *f {
                        "ortho" => ortho = true,
                        "patch" => patch = true,
                        _ => break,
                    }
                    r = tail;
                }
                let v = nums(r)?;
                if v.len() != 4 {
                    return Err("draw rect needs x y width height".into());
                }
                if self.vertex.len() > 1 {
                    return Err("draw rect command is not supported in a pipeline with more than one vertex buffer attached".into());
                }
                let f = |i: usize| v[i].as_f64() as f32;
                let kind = RunKind::DrawRect {
                    pos: [f(0), f(1)],
                    size: [f(2), f(3)],
                    ortho,
                    patch,
                };
                self.push_cmd(
                    line,
                    Command::Run(Run {
                        pipeline: p,
                        timed: false,
                        kind,
                    }),
                );
            }
            ["draw", "arrays", rest @ ..] => {
                let (mut indexed, mut instanced, mut r) = (false, false, rest);
                while let Some((f, tail)) = r.split_first() {
                    match *f {
                        "indexed" => indexed = true,
                        "instanced" => instanced = true,
                        _ => break,
                    }
                    r = tail;
                }
                let t = r.first().ok_or("draw arrays needs a topology")?;
                let topology = vk_topology(t).ok_or_else(|| format!("unknown topology '{t}'"))?;
                let start_idx = uint(r.get(1), "first vertex")?;
                let count = uint(r.get(2), "vertex count")?;
                let instance_count = if r.len() > 3 {
                    uint(r.get(3), "instance count")?
                } else {
                    1
                };
                if r.len() > 4 {
                    return Err(format!("extra parameter after draw arrays: '{}'", r[4]));
                }
                let _ = instanced;
                if indexed && self.indices.is_none() {
                    return Err(
                        "draw arrays indexed needs an [indices] section before [test]".into(),
                    );
                }
                let kind = RunKind::DrawArray {
                    topology,
                    indexed,
                    start_idx,
                    count: Some(count),
                    start_instance: 0,
                    instance_count,
                };
                self.push_cmd(
                    line,
                    Command::Run(Run {
                        pipeline: p,
                        timed: false,
                        kind,
                    }),
                );
            }
            ["compute", x, y, z] => {
                let groups = [
                    uint(Some(x), "x")?,
                    uint(Some(y), "y")?,
                    uint(Some(z), "z")?,
                ];
                self.push_cmd(
                    line,
                    Command::Run(Run {
                        pipeline: p,
                        timed: false,
                        kind: RunKind::Compute { groups },
                    }),
                );
            }
            [stage @ .., "entrypoint", name] if !stage.is_empty() => {
                let st = match stage.join(" ").as_str() {
                    "vertex" => ShaderType::Vertex,
                    "fragment" => ShaderType::Fragment,
                    "geometry" => ShaderType::Geometry,
                    "tessellation control" => ShaderType::TessellationControl,
                    "tessellation evaluation" => ShaderType::TessellationEvaluation,
                    "compute" => ShaderType::Compute,
                    s => return Err(format!("unknown shader stage '{s}'")),
                };
                self.entry_points.push((st, name.to_string()));
            }
            ["probe", "ssbo", rest @ ..] => {
                let ty = data_type(rest.first())?;
                let (set, b) = binding(rest.get(1))?;
                let index = uint(rest.get(2), "offset")? as u64;
                let c = rest.get(3).ok_or("missing comparison")?;
                let (comparator, fuzzy) = match *c {
                    "==" => (Comparator::Eq, false),
                    "~=" => (Comparator::Eq, true),
                    "!=" => (Comparator::Ne, false),
                    "<" => (Comparator::Lt, false),
                    "<=" => (Comparator::Le, false),
                    ">" => (Comparator::Gt, false),
                    ">=" => (Comparator::Ge, false),
                    _ => return Err(format!("unknown comparison '{c}'")),
                };
                let values = nums(&rest[4..])?;
                if values.is_empty() || values.len() % ty.components() as usize != 0 {
                    return Err(format!(
                        "probe ssbo needs a non-zero multiple of {} values",
                        ty.components()
                    ));
                }
                let buffer = self.descriptor(line, DescriptorKind::Storage, set, b, Some(ty));
                let tolerance = if fuzzy {
                    self.tolerance.clone()
                } else {
                    Vec::new()
                };
                let e = Expect::Values {
                    buffer,
                    index,
                    data_type: Some(ty),
                    tolerance,
                    comparator,
                    values,
                };
                self.push_cmd(line, Command::Expect(e));
            }
            ["ssbo", b, "subdata", rest @ ..] => {
                let (set, bi) = binding(Some(b))?;
                let ty = data_type(rest.first())?;
                let offset = uint(rest.get(1), "offset")? as u64;
                let values = nums(rest.get(2..).unwrap_or(&[]))?;
                if values.is_empty() || values.len() % ty.components() as usize != 0 {
                    return Err(format!(
                        "ssbo subdata needs a non-zero multiple of {} values",
                        ty.components()
                    ));
                }
                let buffer = self.descriptor(line, DescriptorKind::Storage, set, bi, Some(ty));
                self.push_cmd(
                    line,
                    Command::SetBufferData {
                        buffer,
                        offset,
                        ty,
                        layout: Layout::Std430,
                        values,
                    },
                );
            }
            ["ssbo", b, n] => {
                let (set, bi) = binding(Some(b))?;
                let size = uint(Some(n), "ssbo size")? as u64;
                let name = self.descriptor(line, DescriptorKind::Storage, set, bi, None);
                if let Some(d) = self.descriptors.get_mut(&name) {
                    d.size = Some(size);
                }
            }
            ["uniform", "ubo", b, rest @ ..] => {
                let (set, bi) = binding(Some(b))?;
                let ty = data_type(rest.first())?;
                let offset = uint(rest.get(1), "offset")? as u64;
                let values = nums(rest.get(2..).unwrap_or(&[]))?;
                if values.is_empty() || values.len() % ty.components() as usize != 0 {
                    return Err(format!(
                        "uniform ubo needs a non-zero multiple of {} values",
                        ty.components()
                    ));
                }
                let buffer = self.descriptor(line, DescriptorKind::Uniform, set, bi, Some(ty));
                self.push_cmd(
                    line,
                    Command::SetBufferData {
                        buffer,
                        offset,
                        ty,
                        layout: Layout::Std140,
                        values,
                    },
                );
            }
            ["uniform", rest @ ..] => {
                let ty = data_type(rest.first())?;
                let offset = uint(rest.get(1), "offset")? as u64;
                let values = nums(rest.get(2..).unwrap_or(&[]))?;
                if values.is_empty() || values.len() % ty.components() as usize != 0 {
                    return Err(format!(
                        "uniform needs a non-zero multiple of {} values",
                        ty.components()
                    ));
                }
                if self.push.is_none() {
                    self.push = Some((line, ty));
                }
                let buffer = "push_constants".to_string();
                self.push_cmd(
                    line,
                    Command::SetBufferData {
                        buffer,
                        offset,
                        ty,
                        layout: Layout::Std430,
                        values,
                    },
                );
            }
            ["tolerance", rest @ ..] => {
                let mut t = Vec::new();
                for x in rest {
                    let (v, percent) = match x.strip_suffix('%') {
                        Some(v) => (v, true),
                        None => (*x, false),
                    };
                    let value = num(v)
                        .ok_or_else(|| format!("invalid tolerance '{x}'"))?
                        .as_f64();
                    t.push(Tolerance { value, percent });
                }
                if t.is_empty() || t.len() > 4 {
                    return Err("tolerance needs 1 to 4 values".into());
                }
                self.tolerance = t;
            }
            ["patch", "parameter", "vertices", n] => {
                self.patch_points = Some(uint(Some(n), "patch vertices")?)
            }
            ["depthTestEnable", v] => {
                self.depth.get_or_insert_with(DepthState::default).test = vk_bool(Some(v))?
            }
            ["depthWriteEnable", v] => {
                self.depth.get_or_insert_with(DepthState::default).write = vk_bool(Some(v))?
            }
            ["depthClampEnable", v] => {
                self.depth.get_or_insert_with(DepthState::default).clamp = vk_bool(Some(v))?
            }
            ["depthCompareOp", v] => {
                let name = v
                    .strip_prefix("VK_COMPARE_OP_")
                    .unwrap_or(v)
                    .to_ascii_lowercase();
                let op = CompareOp::from_keyword(&name)
                    .ok_or_else(|| format!("unknown compare op '{v}'"))?;
                self.depth.get_or_insert_with(DepthState::default).compare = op;
            }
            [first, ..] if first.ends_with("probe") || *first == "relative" => {
                let e = self.probe(&w)?;
                self.push_cmd(line, Command::Expect(e));
            }
            _ => {
                return Err(format!(
                    "unknown or unsupported VkScript test command '{l}'"
                ))
            }
        }
        Ok(())
    }

    fn probe(&self, w: &[&str]) -> R<Expect> {
        let mut r = w;
        let relative = r.first() == Some(&"relative");
        if relative {
            r = &r[1..];
        }
        if r.first() != Some(&"probe") {
            return Err(format!(
                "unknown command {}",
                crate::error::quote(&w.join(" "))
            ));
        }
        r = &r[1..];
        let (mut all, mut rect) = (false, false);
        match r.first() {
            Some(&"all") => all = true,
            Some(&"rect") => rect = true,
            _ => {}
        }
        if all || rect {
            r = &r[1..];
        }
        let has_alpha = match r.first() {
            Some(&"rgb") => false,
            Some(&"rgba") => true,
            other => return Err(format!("expected rgb or rgba, found {other:?}")),
        };
        let v = nums(&r[1..])?;
        let ncol = if has_alpha { 4 } else { 3 };
        let npos = if all {
            0
        } else if rect {
            4
        } else {
            2
        };
        if v.len() != npos + ncol {
            return Err(format!(
                "probe needs {npos} position and {ncol} colour values, found {}",
                v.len()
            ));
        }
        let f = |i: usize| v[i].as_f64() as f32;
        let (pos, size, relative) = if all {
            ([0.0, 0.0], [1.0, 1.0], true)
        } else if rect {
            ([f(0), f(1)], [f(2), f(3)], relative)
        } else if relative {
            // One texel at a relative position: (1, 1) would mean the whole framebuffer.
            ([f(0), f(1)], [0.0, 0.0], true)
        } else {
            ([f(0), f(1)], [1.0, 1.0], false)
        };
        let mut color = [0.0, 0.0, 0.0, 1.0];
        for (k, c) in color.iter_mut().take(ncol).enumerate() {
            *c = v[npos + k].as_f64();
        }
        Ok(Expect::Probe {
            buffer: "framebuffer".into(),
            pos,
            size,
            relative,
            has_alpha,
            color,
            tolerance: self.tolerance.clone(),
        })
    }

    fn finish(mut self) -> Vec<Stmt> {
        let mut out = std::mem::take(&mut self.stmts);
        let is_compute = self
            .shaders
            .iter()
            .any(|(_, s)| s.stage == ShaderType::Compute);
        let mut p = Pipeline::new(
            "pipeline",
            if is_compute {
                PipelineKind::Compute
            } else {
                PipelineKind::Graphics
            },
        );
        if let Some(sz) = self.fb_size {
            p.framebuffer_size = sz;
        }
        for (line, s) in &self.shaders {
            if is_compute != (s.stage == ShaderType::Compute) {
                continue;
            }
            let entry_point = self
                .entry_points
                .iter()
                .rev()
                .find(|(st, _)| *st == s.stage)
                .map(|(_, e)| e.clone())
                .unwrap_or_else(|| "main".into());
            p.shaders.push(Attachment {
                shader: s.name.clone(),
                stage: s.stage,
                entry_point,
                specializations: Vec::new(),
                optimizations: Vec::new(),
                compile_options: Vec::new(),
                subgroup: SubgroupOptions::default(),
            });
            out.push(Stmt {
                line: *line,
                kind: StmtKind::Shader(s.clone()),
            });
        }
        let buf = |name: &str, elem: ElemType, init: BufferInit| Buffer {
            name: name.to_string(),
            is_image: false,
            dim: None,
            declared_as_format: matches!(elem, ElemType::Format(_)),
            elem,
            layout: Layout::Std430,
            size: None,
            width: None,
            height: None,
            depth: None,
            mip_levels: 1,
            samples: 1,
            init,
            file: None,
        };
        if !is_compute {
            let fb = self
                .fb_format
                .clone()
                .unwrap_or_else(|| Format::parse("B8G8R8A8_UNORM").expect("valid format"));
            out.push(Stmt {
                line: 0,
                kind: StmtKind::Buffer(buf("framebuffer", ElemType::Format(fb), BufferInit::None)),
            });
            p.bindings.push(Binding::Color {
                buffer: "framebuffer".into(),
                location: 0,
                base_mip_level: 0,
            });
            if let Some(ds) = self.ds_format.clone() {
                out.push(Stmt {
                    line: 0,
                    kind: StmtKind::Buffer(buf(
                        "depth_buffer",
                        ElemType::Format(ds),
                        BufferInit::None,
                    )),
                });
                p.bindings.push(Binding::DepthStencil {
                    buffer: "depth_buffer".into(),
                });
            }
        }
        for (line, loc, f, data) in &self.vertex {
            let name = format!("vertices_{loc}");
            out.push(Stmt {
                line: *line,
                kind: StmtKind::Buffer(buf(
                    &name,
                    ElemType::Format(f.clone()),
                    BufferInit::Data(data.clone()),
                )),
            });
            p.vertex_data.push(VertexData {
                buffer: name,
                location: *loc,
                rate: InputRate::Vertex,
                offset: 0,
                stride: None,
                format: None,
            });
        }
        if let Some((line, v)) = &self.indices {
            let t = ElemType::Data(DataType::scalar(Scalar::U32));
            out.push(Stmt {
                line: *line,
                kind: StmtKind::Buffer(buf("indices", t, BufferInit::Data(v.clone()))),
            });
            p.index_data = Some("indices".into());
        }
        for (name, d) in &self.descriptors {
            let ty = d.ty.unwrap_or(DataType::scalar(Scalar::U8));
            let mut b = buf(name, ElemType::Data(ty), BufferInit::None);
            b.layout = d.layout;
            b.size = d.size;
            out.push(Stmt {
                line: d.line,
                kind: StmtKind::Buffer(b),
            });
            p.bindings.push(Binding::Descriptor {
                buffers: vec![name.clone()],
                kind: d.kind,
                set: d.set,
                binding: d.binding,
                samplers: Vec::new(),
                base_mip_level: 0,
                dynamic_offsets: Vec::new(),
                descriptor_offsets: Vec::new(),
                descriptor_ranges: Vec::new(),
            });
        }
        if let Some((line, ty)) = self.push {
            out.push(Stmt {
                line,
                kind: StmtKind::Buffer(buf("push_constants", ElemType::Data(ty), BufferInit::None)),
            });
            p.bindings.push(Binding::PushConstant {
                buffer: "push_constants".into(),
            });
        }
        p.patch_control_points = self.patch_points;
        p.depth = self.depth;
        out.push(Stmt {
            line: 0,
            kind: StmtKind::Pipeline(p),
        });
        out.extend(self.commands);
        out
    }
}

fn is_header(t: &str) -> bool {
    if !(t.starts_with('[') && t.ends_with(']')) {
        return false;
    }
    let inner = t[1..t.len() - 1].trim();
    matches!(
        inner,
        "require" | "test" | "indices" | "vertex data" | "comment"
    ) || inner.contains(" shader")
}
