//! The AmberScript parser: tokens → [`Script`]. One method per statement; each reads exactly
//! its own line (or block up to its `END`) and checks the names it uses against what was
//! declared before, so errors point at the line that is wrong.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::ast::*;
use super::token::{Tok, Token, Tokenizer};
use crate::limits::Limits;
use crate::{Error, Result};

mod commands;
mod pipeline;

/// Parse an AmberScript file. `path` names the file in errors and is the base for relative
/// `FILE` paths. Errors are `Error::Amber("file:line: message")`. VkScript input (no
/// `#!amber` line, `[section]` headers) is lowered into the same AST.
pub fn parse(text: &str, path: &Path) -> Result<Script> {
    parse_with(text, path, &Limits::default())
}

/// [`parse`], reading the files the script names only up to `limits`' `maxFileBytes`.
pub fn parse_with(text: &str, path: &Path, limits: &Limits) -> Result<Script> {
    if is_vkscript(text) {
        return super::vkscript::parse_vkscript(text, path);
    }
    let mut p = Parser {
        limits: limits.clone(),
        tk: Tokenizer::new(text),
        file: path.display().to_string(),
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        line: 1,
        stmts: Vec::new(),
        shaders: HashMap::new(),
        buffers: HashMap::new(),
        samplers: HashSet::new(),
        structs: HashMap::new(),
        pipelines: HashMap::new(),
        virtual_files: HashMap::new(),
        accels: HashSet::new(),
    };
    p.script()?;
    Ok(Script {
        path: path.to_path_buf(),
        stmts: p.stmts,
    })
}

/// Read and parse a script file.
pub fn parse_file(path: &Path) -> Result<Script> {
    parse_file_with(path, &Limits::default())
}

/// [`parse_file`] within `limits`' `maxFileBytes` (for the script and the files it names).
pub fn parse_file_with(path: &Path, limits: &Limits) -> Result<Script> {
    parse_bytes(limits.read_file(path)?, path, limits)
}

/// [`parse_with`] of a file's bytes as read from `path`: bytes that are not UTF-8 are an
/// error at the line and column of the first bad byte.
pub fn parse_bytes(bytes: Vec<u8>, path: &Path, limits: &Limits) -> Result<Script> {
    parse_with(&utf8(bytes, &path.display().to_string())?, path, limits)
}

/// The text of a file's bytes, or an error at the line and column of the first byte that is
/// not UTF-8.
fn utf8(bytes: Vec<u8>, file: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        let start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        Error::Amber(format!(
            "{file}:{line}: not UTF-8 text (byte 0x{:02x} at column {})",
            bytes[at],
            at - start + 1
        ))
    })
}

/// VkScript files have no `#!amber` first line and their first line that is neither blank nor a
/// comment is a `[section]` header. (Amber itself calls anything not starting with `#!amber`
/// VkScript; this also accepts header-less AmberScript snippets.)
pub fn is_vkscript(text: &str) -> bool {
    if text.trim_start().starts_with("#!amber") {
        return false;
    }
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    first.is_some_and(|l| l.starts_with('[') && l.ends_with(']'))
}

struct Parser<'a> {
    /// Only `maxFileBytes` is used here (the rest: [`super::check`]).
    limits: Limits,
    tk: Tokenizer<'a>,
    file: String,
    dir: PathBuf,
    /// Line of the last token read.
    line: usize,
    stmts: Vec<Stmt>,
    shaders: HashMap<String, ShaderType>,
    /// Declared buffers / images and whether each is an image.
    buffers: HashMap<String, bool>,
    samplers: HashSet<String>,
    structs: HashMap<String, StructType>,
    pipelines: HashMap<String, Pipeline>,
    virtual_files: HashMap<String, String>,
    accels: HashSet<String>,
}

type R<T> = std::result::Result<T, String>;

fn on_off(w: &str) -> R<bool> {
    match w {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("expected 'on' or 'off', found '{w}'")),
    }
}

fn keyword<T>(w: &str, what: &str, f: fn(&str) -> Option<T>, all: &[&str]) -> R<T> {
    f(w).ok_or_else(|| format!("unknown {what} '{w}' (expected one of: {})", all.join(", ")))
}

impl<'a> Parser<'a> {
    // ---- token helpers -------------------------------------------------------------------

    /// The error at the current line; pieces of input in `msg` longer than
    /// [`crate::error::QUOTE_CHARS`] are cut.
    fn err(&self, msg: impl std::fmt::Display) -> Error {
        let msg = crate::error::clip(&msg.to_string());
        Error::Amber(format!("{}:{}: {msg}", self.file, self.line))
    }

    fn next(&mut self) -> Token {
        let t = self.tk.next();
        self.line = t.line;
        t
    }

    fn peek(&mut self) -> &Tok {
        &self.tk.peek().kind
    }

    fn peek_word(&mut self) -> Option<String> {
        match self.peek() {
            Tok::Word(w) => Some(w.clone()),
            _ => None,
        }
    }

    fn at_eol(&mut self) -> bool {
        matches!(self.peek(), Tok::Eol | Tok::Eos)
    }

    fn word(&mut self, what: &str) -> R<String> {
        match self.next().kind {
            Tok::Word(w) => Ok(w),
            t => Err(format!("expected {what}, found {}", t.describe())),
        }
    }

    fn expect(&mut self, kw: &str) -> R<()> {
        match self.next().kind {
            Tok::Word(w) if w == kw => Ok(()),
            t => Err(format!("expected '{kw}', found {}", t.describe())),
        }
    }

    fn number(&mut self, what: &str) -> R<Number> {
        match self.next().kind {
            Tok::Int(i) => Ok(Number::Int(i)),
            Tok::Float(f) => Ok(Number::Float(f)),
            t => Err(format!(
                "expected {what} (a number), found {}",
                t.describe()
            )),
        }
    }

    fn float(&mut self, what: &str) -> R<f64> {
        Ok(self.number(what)?.as_f64())
    }

    fn int(&mut self, what: &str) -> R<i128> {
        match self.next().kind {
            Tok::Int(i) => Ok(i),
            t => Err(format!(
                "expected {what} (an integer), found {}",
                t.describe()
            )),
        }
    }

    fn u32(&mut self, what: &str) -> R<u32> {
        let i = self.int(what)?;
        u32::try_from(i).map_err(|_| format!("{what} {i} is out of range 0..=4294967295"))
    }

    fn u64(&mut self, what: &str) -> R<u64> {
        let i = self.int(what)?;
        u64::try_from(i).map_err(|_| format!("{what} {i} is out of range for a u64"))
    }

    fn end_of_stmt(&mut self, what: &str) -> R<()> {
        match self.next().kind {
            Tok::Eol | Tok::Eos => Ok(()),
            t => Err(format!("extra parameter after {what}: {}", t.describe())),
        }
    }

    fn skip_eols(&mut self) {
        while *self.peek() == Tok::Eol {
            self.next();
        }
    }

    fn push(&mut self, line: usize, kind: StmtKind) {
        self.stmts.push(Stmt { line, kind });
    }

    fn need_buffer(&self, name: &str) -> R<()> {
        if self.buffers.contains_key(name) {
            Ok(())
        } else {
            Err(format!("unknown buffer or image '{name}'"))
        }
    }

    fn need_pipeline(&self, name: &str) -> R<&Pipeline> {
        self.pipelines
            .get(name)
            .ok_or_else(|| format!("unknown pipeline '{name}'"))
    }

    fn need_sampler(&self, name: &str) -> R<()> {
        if self.samplers.contains(name) {
            Ok(())
        } else {
            Err(format!("unknown sampler '{name}'"))
        }
    }

    fn resolve(&self, p: &str) -> PathBuf {
        self.dir.join(p)
    }

    // ---- top level -----------------------------------------------------------------------

    fn script(&mut self) -> Result<()> {
        loop {
            let t = self.next();
            let w = match t.kind {
                Tok::Eos => return Ok(()),
                Tok::Eol => continue,
                Tok::Word(w) => w,
                other => {
                    return Err(self.err(format!("expected a command, found {}", other.describe())))
                }
            };
            let line = t.line;
            let r = self.top_level(&w, line);
            r.map_err(|m| self.err(m))?;
        }
    }

    fn top_level(&mut self, w: &str, line: usize) -> R<()> {
        let kind = match w {
            "SHADER" => StmtKind::Shader(self.shader()?),
            "BUFFER" => StmtKind::Buffer(self.buffer(false)?),
            "IMAGE" => StmtKind::Buffer(self.buffer(true)?),
            "SAMPLER" => StmtKind::Sampler(self.sampler()?),
            "STRUCT" => StmtKind::Struct(self.struct_def()?),
            "PIPELINE" => StmtKind::Pipeline(self.pipeline()?),
            "DERIVE_PIPELINE" => StmtKind::Pipeline(self.derive_pipeline()?),
            "ACCELERATION_STRUCTURE" => {
                StmtKind::AccelerationStructure(self.acceleration_structure()?)
            }
            "VIRTUAL_FILE" => self.virtual_file()?,
            "DEVICE_FEATURE" | "DEVICE_PROPERTY" | "DEVICE_EXTENSION" | "INSTANCE_EXTENSION" => {
                let name = self.word(&format!("a name after {w}"))?;
                self.end_of_stmt(w)?;
                match w {
                    "DEVICE_FEATURE" => StmtKind::DeviceFeature(name),
                    "DEVICE_PROPERTY" => StmtKind::DeviceProperty(name),
                    "DEVICE_EXTENSION" => StmtKind::DeviceExtension(name),
                    _ => StmtKind::InstanceExtension(name),
                }
            }
            "SET" => {
                self.expect("ENGINE_DATA")?;
                let key = self.word("an engine data name")?;
                if key != "fence_timeout_ms" {
                    return Err(format!(
                        "unknown ENGINE_DATA '{key}' (expected fence_timeout_ms)"
                    ));
                }
                let value = self.number("the engine data value")?;
                self.end_of_stmt("SET ENGINE_DATA")?;
                StmtKind::EngineData { key, value }
            }
            _ => match self.command(w)? {
                Some(c) => StmtKind::Command(c),
                None => return Err(format!("unknown command {}", crate::error::quote(w))),
            },
        };
        self.push(line, kind);
        Ok(())
    }

    /// Commands allowed at top level and inside `REPEAT`; `None` if `w` is not one.
    fn command(&mut self, w: &str) -> R<Option<Command>> {
        Ok(Some(match w {
            "RUN" => Command::Run(self.run()?),
            "DEBUG" => self.debug()?,
            "CLEAR" => {
                let pipeline = self.graphics_pipeline_name("CLEAR")?;
                self.end_of_stmt("CLEAR")?;
                Command::Clear { pipeline }
            }
            "CLEAR_COLOR" => {
                let pipeline = self.graphics_pipeline_name("CLEAR_COLOR")?;
                let mut color = [0.0; 4];
                for (c, n) in color.iter_mut().zip(["red", "green", "blue", "alpha"]) {
                    *c = self.float(&format!("the CLEAR_COLOR {n} value"))? / 255.0;
                }
                self.end_of_stmt("CLEAR_COLOR")?;
                Command::ClearColor { pipeline, color }
            }
            "CLEAR_DEPTH" => {
                let pipeline = self.graphics_pipeline_name("CLEAR_DEPTH")?;
                let value = self.float("the CLEAR_DEPTH value")? as f32;
                self.end_of_stmt("CLEAR_DEPTH")?;
                Command::ClearDepth { pipeline, value }
            }
            "CLEAR_STENCIL" => {
                let pipeline = self.graphics_pipeline_name("CLEAR_STENCIL")?;
                let value = self.u32("the CLEAR_STENCIL value")?;
                self.end_of_stmt("CLEAR_STENCIL")?;
                Command::ClearStencil { pipeline, value }
            }
            "COPY" => {
                let from = self.word("the source buffer of COPY")?;
                self.need_buffer(&from)?;
                self.expect("TO")?;
                let to = self.word("the destination buffer of COPY")?;
                self.need_buffer(&to)?;
                if from == to {
                    return Err(format!("COPY of buffer '{from}' onto itself"));
                }
                self.end_of_stmt("COPY")?;
                Command::Copy { from, to }
            }
            "EXPECT" => Command::Expect(self.expect_cmd()?),
            "REPEAT" => self.repeat()?,
            _ => return Ok(None),
        }))
    }

    fn graphics_pipeline_name(&mut self, what: &str) -> R<String> {
        let name = self.word(&format!("a pipeline name after {what}"))?;
        let p = self.need_pipeline(&name)?;
        if p.kind != PipelineKind::Graphics {
            return Err(format!(
                "{what} requires a graphics pipeline, '{name}' is not one"
            ));
        }
        Ok(name)
    }

    // ---- SHADER / VIRTUAL_FILE -----------------------------------------------------------

    fn shader(&mut self) -> R<Shader> {
        let tw = self.word("a shader type")?;
        let stage = keyword(
            &tw,
            "shader type",
            ShaderType::from_keyword,
            ShaderType::KEYWORDS,
        )?;
        let name = self.word("a shader name")?;
        if self.shaders.contains_key(&name) {
            return Err(format!("duplicate shader name '{name}'"));
        }
        let fw = self.word("a shader format")?;
        let format = keyword(
            &fw,
            "shader format",
            ShaderFormat::from_keyword,
            ShaderFormat::KEYWORDS,
        )?;
        let mut shader = Shader {
            name: name.clone(),
            stage,
            format,
            target_env: None,
            file: None,
            source: ShaderSource::Passthrough,
            line: self.line,
        };
        if format == ShaderFormat::Passthrough {
            if stage != ShaderType::Vertex {
                return Err("PASSTHROUGH is only allowed for vertex shaders".into());
            }
            self.end_of_stmt("SHADER PASSTHROUGH")?;
            self.shaders.insert(name, stage);
            return Ok(shader);
        }
        if stage == ShaderType::Multi
            && !matches!(
                format,
                ShaderFormat::SpirvAsm | ShaderFormat::SpirvHex | ShaderFormat::SpirvBin
            )
        {
            return Err(
                "a 'multi' shader must be SPIR-V (SPIRV-ASM, SPIRV-HEX or SPIRV-BIN)".into(),
            );
        }
        let mut file_source = false;
        while !self.at_eol() {
            let w = self.word("a SHADER option")?;
            match w.as_str() {
                "TARGET_ENV" => shader.target_env = Some(self.word("a target environment")?),
                "FILE" | "VIRTUAL_FILE" => {
                    let p = unquote(&self.word("a file name")?).to_string();
                    shader.source = self.load_shader_file(&p, format, w == "VIRTUAL_FILE")?;
                    shader.file = Some(PathBuf::from(&p));
                    file_source = true;
                }
                _ => {
                    return Err(format!(
                        "unknown SHADER option '{w}' (expected TARGET_ENV, FILE or VIRTUAL_FILE)"
                    ))
                }
            }
        }
        self.end_of_stmt("SHADER")?;
        if !file_source {
            if matches!(format, ShaderFormat::SpirvBin | ShaderFormat::Dxil) {
                return Err(format!(
                    "{} shaders must be loaded with FILE",
                    format.keyword()
                ));
            }
            let start = self.line;
            let body = self
                .tk
                .raw_until_end()
                .ok_or_else(|| format!("SHADER '{name}' (line {start}) is missing its END"))?;
            if body.trim().is_empty() {
                return Err(format!("SHADER '{name}' has no source"));
            }
            self.expect("END")?;
            self.end_of_stmt("END")?;
            shader.source = ShaderSource::Text(body);
        }
        self.shaders.insert(name, stage);
        Ok(shader)
    }

    fn load_shader_file(
        &self,
        p: &str,
        format: ShaderFormat,
        virtual_only: bool,
    ) -> R<ShaderSource> {
        if let Some(t) = self.virtual_files.get(p) {
            return Ok(ShaderSource::Text(t.clone()));
        }
        if virtual_only {
            return Err(format!("unknown VIRTUAL_FILE '{p}'"));
        }
        let full = self.resolve(p);
        let bytes = self
            .limits
            .read_file(&full)
            .map_err(|e| format!("cannot read shader file: {e}"))?;
        if matches!(format, ShaderFormat::SpirvBin | ShaderFormat::Dxil) {
            Ok(ShaderSource::Binary(bytes))
        } else {
            utf8(bytes, &full.display().to_string())
                .map(ShaderSource::Text)
                .map_err(|e| format!("shader file {e}"))
        }
    }

    fn virtual_file(&mut self) -> R<StmtKind> {
        let path = unquote(&self.word("a virtual file path")?).to_string();
        if self.virtual_files.contains_key(&path) {
            return Err(format!("duplicate VIRTUAL_FILE '{path}'"));
        }
        self.end_of_stmt("VIRTUAL_FILE")?;
        let text = self
            .tk
            .raw_until_end()
            .ok_or_else(|| format!("VIRTUAL_FILE '{path}' is missing its END"))?;
        self.expect("END")?;
        self.end_of_stmt("END")?;
        self.virtual_files.insert(path.clone(), text.clone());
        Ok(StmtKind::VirtualFile { path, text })
    }

    // ---- BUFFER / IMAGE / SAMPLER / STRUCT -------------------------------------------------

    fn elem_type(&self, w: &str) -> R<ElemType> {
        if let Some(d) = DataType::parse(w) {
            return Ok(ElemType::Data(d));
        }
        if let Some(s) = self.structs.get(w) {
            return Ok(ElemType::Struct(s.clone()));
        }
        if let Some(f) = Format::parse(w) {
            return Ok(ElemType::Format(f));
        }
        Err(format!("invalid data type '{w}'"))
    }

    fn buffer(&mut self, is_image: bool) -> R<Buffer> {
        let what = if is_image { "IMAGE" } else { "BUFFER" };
        let name = self.word(&format!("a name after {what}"))?;
        if self.buffers.contains_key(&name) {
            return Err(format!("duplicate buffer name '{name}'"));
        }
        let mut elem = None;
        let mut b = Buffer {
            name: name.clone(),
            is_image,
            dim: None,
            elem: ElemType::Data(DataType::scalar(Scalar::U8)),
            declared_as_format: false,
            layout: Layout::Std430,
            size: None,
            width: None,
            height: None,
            depth: None,
            mip_levels: 1,
            samples: 1,
            init: BufferInit::None,
            file: None,
        };
        while !self.at_eol() {
            let w = self.word(&format!("a {what} option"))?;
            match w.as_str() {
                "DATA_TYPE" => {
                    let t = self.word("a data type")?;
                    elem = Some(self.elem_type(&t)?);
                }
                "FORMAT" => {
                    let t = self.word("a format")?;
                    let f = Format::parse(&t).ok_or_else(|| format!("invalid format '{t}'"))?;
                    elem = Some(ElemType::Format(f));
                    b.declared_as_format = true;
                }
                "STD140" => b.layout = Layout::Std140,
                "STD430" => b.layout = Layout::Std430,
                "SIZE" => b.size = Some(self.u64("the buffer SIZE")?),
                "WIDTH" => b.width = Some(self.u32("WIDTH")?),
                "HEIGHT" => b.height = Some(self.u32("HEIGHT")?),
                "DEPTH" => b.depth = Some(self.u32("DEPTH")?),
                "MIP_LEVELS" => b.mip_levels = self.u32("MIP_LEVELS")?,
                "SAMPLES" => {
                    let s = self.u32("SAMPLES")?;
                    if !matches!(s, 1 | 2 | 4 | 8 | 16 | 32 | 64) {
                        return Err(format!("invalid sample count {s}"));
                    }
                    b.samples = s;
                }
                "DIM_1D" | "DIM_2D" | "DIM_3D" | "DIM_CUBE" if is_image => {
                    b.dim = ImageDim::from_keyword(&w)
                }
                "FILL" => b.init = BufferInit::Fill(self.number("the FILL value")?),
                "SERIES_FROM" => {
                    let start = self.number("the SERIES_FROM start")?;
                    self.expect("INC_BY")?;
                    let inc = self.number("the INC_BY value")?;
                    b.init = BufferInit::Series { start, inc };
                }
                "DATA" => {
                    b.init = BufferInit::Data(self.data_block(&name)?);
                    break;
                }
                "FILE" => {
                    let mut kind = FileKind::Png;
                    let mut p = self.word("a file name")?;
                    if let Some(k) = FileKind::from_keyword(&p) {
                        kind = k;
                        p = self.word("a file name")?;
                    }
                    let full = self.resolve(unquote(&p));
                    b.init = self.load_buffer_file(&full, kind, &mut b)?;
                    b.file = Some(full);
                }
                _ => return Err(format!("unknown {what} option '{w}'")),
            }
        }
        self.end_of_stmt(what)?;
        b.elem = elem.ok_or_else(|| format!("{what} '{name}' needs a DATA_TYPE or FORMAT"))?;
        // FILL and SERIES_FROM give their value(s) to every component of an element
        let whole = |xs: &[Number]| {
            let n = b.elem.components().max(1) as usize;
            xs.iter().flat_map(|x| vec![*x; n]).collect()
        };
        let values = match &b.init {
            BufferInit::Data(v) => v.clone(),
            BufferInit::Fill(x) => whole(&[*x]),
            BufferInit::Series { start, inc } => whole(&[*start, *inc]),
            _ => Vec::new(),
        };
        if let Some(i) = b.elem.misplaced_nan(&values) {
            let at = match b.init {
                BufferInit::Data(_) => format!("value {i} of its DATA"),
                _ => "its FILL or SERIES_FROM value".to_string(),
            };
            return Err(format!(
                "{what} '{name}': {at} is nan, but that component is not a float"
            ));
        }
        if is_image && b.dim.is_none() {
            b.dim = Some(ImageDim::D2);
        }
        if b.dim == Some(ImageDim::Cube) {
            // quadstep extension: six square faces, stored as layers (see `ImageDim`).
            match (b.width, b.height, b.depth) {
                (Some(w), Some(h), None) if w == h => b.depth = Some(6),
                _ => {
                    return Err(format!(
                        "IMAGE '{name}': DIM_CUBE needs WIDTH and HEIGHT, equal, and no DEPTH"
                    ))
                }
            }
        }
        if matches!(b.init, BufferInit::Fill(_) | BufferInit::Series { .. })
            && b.size.is_none()
            && b.width.is_none()
        {
            return Err(format!(
                "{what} '{name}': FILL and SERIES_FROM need a SIZE (or WIDTH)"
            ));
        }
        self.buffers.insert(name, is_image);
        Ok(b)
    }

    /// Numbers up to `END` (which may share the last line).
    fn data_block(&mut self, name: &str) -> R<Vec<Number>> {
        let mut v = Vec::new();
        loop {
            let t = self.next();
            match t.kind {
                Tok::Int(i) => v.push(Number::Int(i)),
                Tok::Float(f) => v.push(Number::Float(f)),
                Tok::Eol => {}
                Tok::Word(w) if w == "END" => return Ok(v),
                Tok::Eos => return Err(format!("DATA of buffer '{name}' is missing its END")),
                Tok::Word(w) => {
                    let hint = if w
                        .trim_start_matches(['-', '+'])
                        .to_ascii_lowercase()
                        .starts_with("inf")
                    {
                        " (Amber has no infinity literal: write a value beyond the type's range, \
                         such as 1.0e39 for a float, or the bits in a uint buffer)"
                    } else {
                        ""
                    };
                    return Err(format!(
                        "invalid value '{w}' in DATA of buffer '{name}'{hint}"
                    ));
                }
            }
        }
    }

    fn load_buffer_file(&self, full: &Path, kind: FileKind, b: &mut Buffer) -> R<BufferInit> {
        let cant = |e: Error| format!("cannot read buffer file: {e}");
        let bytes = self.limits.read_file(full).map_err(cant)?;
        match kind {
            FileKind::Binary => Ok(BufferInit::Bytes(bytes)),
            FileKind::Text => {
                let text = utf8(bytes, &full.display().to_string()).map_err(cant)?;
                let mut tk = Tokenizer::new(&text);
                let mut v = Vec::new();
                loop {
                    let t = tk.next();
                    match t.kind {
                        Tok::Int(i) => v.push(Number::Int(i)),
                        Tok::Float(f) => v.push(Number::Float(f)),
                        Tok::Eol => {}
                        Tok::Word(w) if w == "," => {}
                        Tok::Eos => break,
                        Tok::Word(w) => {
                            return Err(format!(
                                "{}:{}: invalid value '{w}'",
                                full.display(),
                                t.line
                            ))
                        }
                    }
                }
                Ok(BufferInit::Data(v))
            }
            FileKind::Png => {
                let img = crate::golden::decode_png(&bytes, &self.limits)
                    .map_err(|e| cant(Error::Io(format!("{}: {e}", full.display()))))?;
                b.width = Some(img.width());
                b.height = Some(img.height());
                Ok(BufferInit::Bytes(img.into_raw()))
            }
        }
    }

    fn sampler(&mut self) -> R<Sampler> {
        let name = self.word("a sampler name")?;
        if self.samplers.contains(&name) {
            return Err(format!("duplicate sampler name '{name}'"));
        }
        let mut s = Sampler::new(&name);
        while !self.at_eol() {
            let w = self.word("a SAMPLER option")?;
            let filter = |p: &mut Self| -> R<Filter> {
                let v = p.word("a filter")?;
                keyword(&v, "filter", Filter::from_keyword, Filter::KEYWORDS)
            };
            let addr = |p: &mut Self| -> R<AddressMode> {
                let v = p.word("an address mode")?;
                keyword(
                    &v,
                    "address mode",
                    AddressMode::from_keyword,
                    AddressMode::KEYWORDS,
                )
            };
            match w.as_str() {
                "MAG_FILTER" => s.mag_filter = filter(self)?,
                "MIN_FILTER" => s.min_filter = filter(self)?,
                "MIPMAP_MODE" => s.mipmap_mode = filter(self)?,
                "ADDRESS_MODE_U" => s.address_u = addr(self)?,
                "ADDRESS_MODE_V" => s.address_v = addr(self)?,
                "ADDRESS_MODE_W" => s.address_w = addr(self)?,
                "BORDER_COLOR" => {
                    let v = self.word("a border color")?;
                    s.border_color = keyword(
                        &v,
                        "border color",
                        BorderColor::from_keyword,
                        BorderColor::KEYWORDS,
                    )?;
                }
                "MIN_LOD" => s.min_lod = self.float("MIN_LOD")? as f32,
                "MAX_LOD" => s.max_lod = self.float("MAX_LOD")? as f32,
                "NORMALIZED_COORDS" => s.normalized_coords = true,
                "UNNORMALIZED_COORDS" => s.normalized_coords = false,
                "COMPARE" => {
                    let on = on_off(&self.word("on or off")?)?;
                    s.compare = if on {
                        Some(s.compare.unwrap_or(CompareOp::Never))
                    } else {
                        None
                    };
                }
                "COMPARE_OP" => {
                    let v = self.word("a compare op")?;
                    let op = keyword(
                        &v,
                        "compare op",
                        CompareOp::from_keyword,
                        CompareOp::KEYWORDS,
                    )?;
                    s.compare = Some(op);
                }
                _ => return Err(format!("unknown SAMPLER option '{w}'")),
            }
        }
        self.end_of_stmt("SAMPLER")?;
        if s.max_lod < s.min_lod {
            return Err(format!(
                "SAMPLER '{name}': MAX_LOD {} is below MIN_LOD {}",
                s.max_lod, s.min_lod
            ));
        }
        self.samplers.insert(name);
        Ok(s)
    }

    fn struct_def(&mut self) -> R<StructType> {
        let name = self.word("a struct name")?;
        if self.structs.contains_key(&name) || DataType::parse(&name).is_some() {
            return Err(format!("duplicate or reserved struct name '{name}'"));
        }
        let mut st = StructType {
            name: name.clone(),
            stride: None,
            members: Vec::new(),
        };
        if self.peek_word().as_deref() == Some("STRIDE") {
            self.next();
            st.stride = Some(self.u32("STRIDE")?);
        }
        self.end_of_stmt("STRUCT")?;
        loop {
            self.skip_eols();
            let t = self.word("a member type or END")?;
            if t == "END" {
                break;
            }
            let ty = if let Some(d) = DataType::parse(&t) {
                MemberType::Data(d)
            } else if let Some(s) = self.structs.get(&t) {
                MemberType::Struct(Box::new(s.clone()))
            } else if t == name {
                return Err(format!("struct '{name}' contains itself"));
            } else {
                return Err(format!("invalid member type '{t}' in struct '{name}'"));
            };
            let mname = self.word("a member name")?;
            let mut m = Member {
                name: mname,
                ty,
                offset: None,
                array_stride: None,
                matrix_stride: None,
            };
            while !self.at_eol() {
                let w = self.word("a member option")?;
                match w.as_str() {
                    "OFFSET" => m.offset = Some(self.u32("OFFSET")?),
                    "ARRAY_STRIDE" => m.array_stride = Some(self.u32("ARRAY_STRIDE")?),
                    "MATRIX_STRIDE" => m.matrix_stride = Some(self.u32("MATRIX_STRIDE")?),
                    _ => return Err(format!("unknown struct member option '{w}'")),
                }
            }
            st.members.push(m);
        }
        self.end_of_stmt("END")?;
        self.structs.insert(name, st.clone());
        Ok(st)
    }
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s)
}
