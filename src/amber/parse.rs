//! The AmberScript parser: tokens → [`Script`]. One method per statement; each reads exactly
//! its own line (or block up to its `END`) and checks the names it uses against what was
//! declared before, so errors point at the line that is wrong.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::ast::*;
use super::token::{Tok, Token, Tokenizer};
use crate::{Error, Result};

/// Parse an AmberScript file. `path` names the file in errors and is the base for relative
/// `FILE` paths. Errors are `Error::Amber("file:line: message")`. VkScript input (no
/// `#!amber` line, `[section]` headers) is lowered into the same AST by [`super::vkscript`].
pub fn parse(text: &str, path: &Path) -> Result<Script> {
    if is_vkscript(text) {
        return super::vkscript::parse_vkscript(text, path);
    }
    let mut p = Parser {
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
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    parse(&text, path)
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

/// Largest buffer a script may declare (bytes), so hostile input cannot exhaust memory.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;
const MAX_STRIDE: u64 = 1 << 24;

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

    fn err(&self, msg: impl std::fmt::Display) -> Error {
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
                None => return Err(format!("unknown command '{w}'")),
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
            if format == ShaderFormat::SpirvBin {
                return Err("SPIRV-BIN shaders must be loaded with FILE".into());
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
        let bytes = std::fs::read(&full)
            .map_err(|e| format!("cannot read shader file {}: {e}", full.display()))?;
        if format == ShaderFormat::SpirvBin {
            Ok(ShaderSource::Binary(bytes))
        } else {
            String::from_utf8(bytes)
                .map(ShaderSource::Text)
                .map_err(|_| format!("shader file {} is not UTF-8 text", full.display()))
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
                "DIM_1D" | "DIM_2D" | "DIM_3D" if is_image => b.dim = ImageDim::from_keyword(&w),
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
        if is_image && b.dim.is_none() {
            b.dim = Some(ImageDim::D2);
        }
        if matches!(b.init, BufferInit::Fill(_) | BufferInit::Series { .. })
            && b.size.is_none()
            && b.width.is_none()
        {
            return Err(format!(
                "{what} '{name}': FILL and SERIES_FROM need a SIZE (or WIDTH)"
            ));
        }
        let stride = b.elem.stride(b.layout) as u64;
        let bytes = stride.saturating_mul(b.element_count());
        if stride > MAX_STRIDE || bytes > MAX_BUFFER_BYTES {
            return Err(format!(
                "{what} '{name}' is too large ({bytes} bytes, element stride {stride}; limit {MAX_BUFFER_BYTES})"
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
                    return Err(format!("invalid value '{w}' in DATA of buffer '{name}'"))
                }
            }
        }
    }

    fn load_buffer_file(&self, full: &Path, kind: FileKind, b: &mut Buffer) -> R<BufferInit> {
        let cant =
            |e: &dyn std::fmt::Display| format!("cannot read buffer file {}: {e}", full.display());
        match kind {
            FileKind::Binary => Ok(BufferInit::Bytes(
                std::fs::read(full).map_err(|e| cant(&e))?,
            )),
            FileKind::Text => {
                let text = std::fs::read_to_string(full).map_err(|e| cant(&e))?;
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
                let img = image::open(full).map_err(|e| cant(&e))?.to_rgba8();
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

    // ---- PIPELINE --------------------------------------------------------------------------

    fn pipeline(&mut self) -> R<Pipeline> {
        let kw = self.word("a pipeline type")?;
        let kind = keyword(
            &kw,
            "pipeline type",
            PipelineKind::from_keyword,
            PipelineKind::KEYWORDS,
        )?;
        let name = self.word("a pipeline name")?;
        if self.pipelines.contains_key(&name) {
            return Err(format!("duplicate pipeline name '{name}'"));
        }
        self.end_of_stmt("PIPELINE")?;
        let p = Pipeline::new(&name, kind);
        self.pipeline_body(p)
    }

    fn derive_pipeline(&mut self) -> R<Pipeline> {
        let name = self.word("a pipeline name")?;
        if self.pipelines.contains_key(&name) {
            return Err(format!("duplicate pipeline name '{name}'"));
        }
        self.expect("FROM")?;
        let parent = self.word("a parent pipeline name")?;
        let mut p = self.need_pipeline(&parent)?.clone();
        self.end_of_stmt("DERIVE_PIPELINE")?;
        p.name = name;
        p.derived_from = Some(parent);
        self.pipeline_body(p)
    }

    fn pipeline_body(&mut self, mut p: Pipeline) -> R<Pipeline> {
        let start = self.line;
        loop {
            let t = self.next();
            let w = match t.kind {
                Tok::Eol => continue,
                Tok::Eos => {
                    return Err(format!(
                        "PIPELINE '{}' (line {start}) is missing its END",
                        p.name
                    ))
                }
                Tok::Word(w) => w,
                other => {
                    return Err(format!(
                        "expected a pipeline command, found {}",
                        other.describe()
                    ))
                }
            };
            match w.as_str() {
                "END" => break,
                "ATTACH" => self.attach(&mut p)?,
                "SHADER_OPTIMIZATION" | "COMPILE_OPTIONS" => {
                    let sh = self.word("a shader name")?;
                    self.end_of_stmt(&w)?;
                    let mut words = Vec::new();
                    loop {
                        match self.next().kind {
                            Tok::Eol => {}
                            Tok::Word(x) if x == "END" => break,
                            Tok::Word(x) => words.push(x),
                            Tok::Int(i) => words.push(i.to_string()),
                            Tok::Float(f) => words.push(f.to_string()),
                            Tok::Eos => return Err(format!("{w} is missing its END")),
                        }
                    }
                    let a = attached(&mut p, &sh, &w)?;
                    if w == "SHADER_OPTIMIZATION" {
                        a.optimizations = words;
                    } else {
                        a.compile_options = words;
                    }
                    self.end_of_stmt("END")?;
                }
                "SUBGROUP" => self.subgroup(&mut p)?,
                "FRAMEBUFFER_SIZE" => {
                    let w = self.u32("the framebuffer width")?;
                    let h = self.u32("the framebuffer height")?;
                    if w == 0 || h == 0 {
                        return Err("FRAMEBUFFER_SIZE must not be zero".into());
                    }
                    p.framebuffer_size = (w, h);
                    self.end_of_stmt("FRAMEBUFFER_SIZE")?;
                }
                "BIND" => {
                    let b = self.bind(&p)?;
                    p.bindings.push(b);
                }
                "VERTEX_DATA" => {
                    let v = self.vertex_data()?;
                    if p.vertex_data.iter().any(|x| x.location == v.location) {
                        return Err(format!(
                            "VERTEX_DATA location {} is already bound",
                            v.location
                        ));
                    }
                    p.vertex_data.push(v);
                }
                "INDEX_DATA" => {
                    let b = self.word("an index buffer name")?;
                    self.need_buffer(&b)?;
                    if p.index_data.is_some() {
                        return Err("INDEX_DATA is already set".into());
                    }
                    p.index_data = Some(b);
                    self.end_of_stmt("INDEX_DATA")?;
                }
                "SET" => {
                    self.expect("KERNEL")?;
                    let arg = self.kernel_arg()?;
                    self.expect("AS")?;
                    let tw = self.word("a data type")?;
                    let ty =
                        DataType::parse(&tw).ok_or_else(|| format!("invalid data type '{tw}'"))?;
                    let value = self.number("the argument value")?;
                    self.end_of_stmt("SET")?;
                    p.kernel_args.push(KernelArgValue { arg, ty, value });
                }
                "POLYGON_MODE" => {
                    let m = self.word("a polygon mode")?;
                    p.polygon_mode = keyword(
                        &m,
                        "polygon mode",
                        PolygonMode::from_keyword,
                        PolygonMode::KEYWORDS,
                    )?;
                    self.end_of_stmt("POLYGON_MODE")?;
                }
                "PATCH_CONTROL_POINTS" => {
                    p.patch_control_points = Some(self.u32("the patch control point count")?);
                    self.end_of_stmt("PATCH_CONTROL_POINTS")?;
                }
                "DEPTH" => self.depth(&mut p)?,
                "STENCIL" => self.stencil(&mut p)?,
                "BLEND" => self.blend(&mut p)?,
                "VIEWPORT" => {
                    let x = self.float("viewport x")? as f32;
                    let y = self.float("viewport y")? as f32;
                    self.expect("SIZE")?;
                    let width = self.float("viewport width")? as f32;
                    let height = self.float("viewport height")? as f32;
                    let mut v = Viewport {
                        x,
                        y,
                        width,
                        height,
                        min_depth: 0.0,
                        max_depth: 1.0,
                    };
                    while !self.at_eol() {
                        let o = self.word("MIN_DEPTH or MAX_DEPTH")?;
                        match o.as_str() {
                            "MIN_DEPTH" => v.min_depth = self.float("MIN_DEPTH")? as f32,
                            "MAX_DEPTH" => v.max_depth = self.float("MAX_DEPTH")? as f32,
                            _ => return Err(format!("unknown VIEWPORT option '{o}'")),
                        }
                    }
                    self.end_of_stmt("VIEWPORT")?;
                    p.viewport = Some(v);
                }
                "SHADER_GROUP" => {
                    let name = self.word("a shader group name")?;
                    let mut shaders = Vec::new();
                    while !self.at_eol() {
                        let s = self.word("a shader name")?;
                        if !self.shaders.contains_key(&s) {
                            return Err(format!("unknown shader '{s}' in SHADER_GROUP"));
                        }
                        shaders.push(s);
                    }
                    self.end_of_stmt("SHADER_GROUP")?;
                    p.shader_groups.push(ShaderGroup { name, shaders });
                }
                "SHADER_BINDING_TABLE" => {
                    let name = self.word("a shader binding table name")?;
                    self.end_of_stmt("SHADER_BINDING_TABLE")?;
                    let mut groups = Vec::new();
                    loop {
                        self.skip_eols();
                        let g = self.word("a shader group name or END")?;
                        if g == "END" {
                            break;
                        }
                        groups.push(g);
                    }
                    self.end_of_stmt("END")?;
                    p.binding_tables.push(ShaderBindingTable { name, groups });
                }
                "MAX_RAY_PAYLOAD_SIZE" => {
                    p.max_ray_payload_size = Some(self.u32("MAX_RAY_PAYLOAD_SIZE")?);
                    self.end_of_stmt(&w)?;
                }
                "MAX_RAY_HIT_ATTRIBUTE_SIZE" => {
                    p.max_ray_hit_attribute_size = Some(self.u32("MAX_RAY_HIT_ATTRIBUTE_SIZE")?);
                    self.end_of_stmt(&w)?;
                }
                "MAX_RAY_RECURSION_DEPTH" => {
                    p.max_ray_recursion_depth = Some(self.u32("MAX_RAY_RECURSION_DEPTH")?);
                    self.end_of_stmt(&w)?;
                }
                "FLAGS" => {
                    while !self.at_eol() {
                        p.flags.push(self.word("a pipeline flag")?);
                    }
                    self.end_of_stmt("FLAGS")?;
                }
                "USE_LIBRARY" => {
                    while !self.at_eol() {
                        let l = self.word("a pipeline library name")?;
                        self.need_pipeline(&l)?;
                        p.libraries.push(l);
                    }
                    self.end_of_stmt("USE_LIBRARY")?;
                }
                _ => return Err(format!("unknown command '{w}' in PIPELINE '{}'", p.name)),
            }
        }
        self.end_of_stmt("END")?;
        validate_pipeline(&p)?;
        self.pipelines.insert(p.name.clone(), p.clone());
        Ok(p)
    }

    fn attach(&mut self, p: &mut Pipeline) -> R<()> {
        let sh = self.word("a shader name")?;
        let own = *self
            .shaders
            .get(&sh)
            .ok_or_else(|| format!("unknown shader '{sh}' in ATTACH"))?;
        let mut a = Attachment {
            shader: sh.clone(),
            stage: own,
            entry_point: "main".into(),
            specializations: Vec::new(),
            optimizations: Vec::new(),
            compile_options: Vec::new(),
            subgroup: SubgroupOptions::default(),
        };
        let mut typed = false;
        while !self.at_eol() {
            let w = self.word("an ATTACH option")?;
            match w.as_str() {
                "TYPE" => {
                    let t = self.word("a shader type")?;
                    a.stage = keyword(
                        &t,
                        "shader type",
                        ShaderType::from_keyword,
                        ShaderType::KEYWORDS,
                    )?;
                    if own != ShaderType::Multi && a.stage != own {
                        return Err(format!("ATTACH TYPE {t} does not match shader '{sh}'"));
                    }
                    typed = true;
                }
                "ENTRY_POINT" => a.entry_point = self.word("an entry point name")?,
                "SPECIALIZE" => {
                    let id = self.u32("the specialization id")?;
                    self.expect("AS")?;
                    let tw = self.word("a data type")?;
                    let ty = DataType::parse(&tw)
                        .filter(|t| t.rows == 1 && t.cols == 1 && !t.is_array)
                        .ok_or_else(|| {
                            format!("invalid specialization type '{tw}' (expected a scalar type)")
                        })?;
                    let value = self.number("the specialization value")?;
                    a.specializations.push(Specialization { id, ty, value });
                }
                _ => return Err(format!("unknown ATTACH option '{w}'")),
            }
        }
        self.end_of_stmt("ATTACH")?;
        if own == ShaderType::Multi && !typed {
            return Err(format!("ATTACH of multi shader '{sh}' needs TYPE"));
        }
        let bad = match p.kind {
            PipelineKind::Compute => a.stage != ShaderType::Compute,
            PipelineKind::Graphics => matches!(
                a.stage,
                ShaderType::Compute
                    | ShaderType::RayGeneration
                    | ShaderType::AnyHit
                    | ShaderType::ClosestHit
                    | ShaderType::Miss
                    | ShaderType::Intersection
                    | ShaderType::Callable
            ),
            PipelineKind::RayTracing => false,
        };
        if bad {
            return Err(format!(
                "a {} shader cannot be attached to a {} pipeline",
                a.stage.keyword(),
                p.kind.keyword()
            ));
        }
        if let Some(old) = p.shaders.iter_mut().find(|x| x.stage == a.stage) {
            if p.derived_from.is_some() {
                *old = a; // derived pipelines may replace a parent's shader
                return Ok(());
            }
            return Err(format!(
                "a {} shader is already attached",
                a.stage.keyword()
            ));
        }
        p.shaders.push(a);
        Ok(())
    }

    fn subgroup(&mut self, p: &mut Pipeline) -> R<()> {
        let sh = self.word("a shader name")?;
        self.end_of_stmt("SUBGROUP")?;
        let mut o = SubgroupOptions::default();
        loop {
            self.skip_eols();
            let w = self.word("a SUBGROUP option or END")?;
            match w.as_str() {
                "END" => break,
                "FULLY_POPULATED" => o.fully_populated = Some(on_off(&self.word("on or off")?)?),
                "VARYING_SIZE" => o.varying_size = Some(on_off(&self.word("on or off")?)?),
                "REQUIRED_SIZE" => {
                    o.required_size = Some(match self.next().kind {
                        Tok::Int(i) if (1..=128).contains(&i) && (i & (i - 1)) == 0 => {
                            SubgroupSize::Exact(i as u32)
                        }
                        Tok::Word(x) if x == "MIN" => SubgroupSize::Min,
                        Tok::Word(x) if x == "MAX" => SubgroupSize::Max,
                        t => return Err(format!("invalid REQUIRED_SIZE {}", t.describe())),
                    })
                }
                _ => return Err(format!("unknown SUBGROUP option '{w}'")),
            }
            self.end_of_stmt(&w)?;
        }
        self.end_of_stmt("END")?;
        attached(p, &sh, "SUBGROUP")?.subgroup = o;
        Ok(())
    }

    fn kernel_arg(&mut self) -> R<KernelArg> {
        let w = self.word("ARG_NAME or ARG_NUMBER")?;
        match w.as_str() {
            "ARG_NAME" => Ok(KernelArg::Name(self.word("an argument name")?)),
            "ARG_NUMBER" => Ok(KernelArg::Number(self.u32("an argument number")?)),
            _ => Err(format!("expected ARG_NAME or ARG_NUMBER, found '{w}'")),
        }
    }

    fn bind(&mut self, p: &Pipeline) -> R<Binding> {
        let what =
            self.word("BUFFER, BUFFER_ARRAY, SAMPLER, SAMPLER_ARRAY or ACCELERATION_STRUCTURE")?;
        let b = match what.as_str() {
            "BUFFER" | "BUFFER_ARRAY" => {
                let mut names = vec![self.word("a buffer name")?];
                if what == "BUFFER_ARRAY" {
                    while !self.at_eol()
                        && !matches!(self.peek_word().as_deref(), Some("AS" | "KERNEL"))
                    {
                        names.push(self.word("a buffer name")?);
                    }
                }
                for n in &names {
                    self.need_buffer(n)?;
                }
                if self.peek_word().as_deref() == Some("KERNEL") {
                    self.next();
                    let arg = self.kernel_arg()?;
                    let mut kind = None;
                    if self.peek_word().as_deref() == Some("AS") {
                        self.next();
                        let k = self.word("a descriptor kind")?;
                        kind = Some(keyword(
                            &k,
                            "buffer type",
                            DescriptorKind::from_keyword,
                            DescriptorKind::KEYWORDS,
                        )?);
                    }
                    self.end_of_stmt("BIND")?;
                    return Ok(Binding::Kernel {
                        name: names.remove(0),
                        is_sampler: false,
                        arg,
                        kind,
                    });
                }
                self.expect("AS")?;
                let k = self.word("a buffer type")?;
                let buffer = names[0].clone();
                match k.as_str() {
                    "color" => {
                        self.expect("LOCATION")?;
                        let location = self.u32("the color LOCATION")?;
                        let mut base_mip_level = 0;
                        if self.peek_word().as_deref() == Some("BASE_MIP_LEVEL") {
                            self.next();
                            base_mip_level = self.u32("BASE_MIP_LEVEL")?;
                        }
                        if p.bindings.iter().any(
                            |b| matches!(b, Binding::Color { location: l, .. } if *l == location),
                        ) {
                            return Err(format!("color LOCATION {location} is already bound"));
                        }
                        Binding::Color {
                            buffer,
                            location,
                            base_mip_level,
                        }
                    }
                    "depth_stencil" => {
                        if p.bindings
                            .iter()
                            .any(|b| matches!(b, Binding::DepthStencil { .. }))
                        {
                            return Err("a depth_stencil buffer is already bound".into());
                        }
                        Binding::DepthStencil { buffer }
                    }
                    "resolve" => Binding::Resolve { buffer },
                    "push_constant" => {
                        if p.bindings
                            .iter()
                            .any(|b| matches!(b, Binding::PushConstant { .. }))
                        {
                            return Err("a push_constant buffer is already bound".into());
                        }
                        Binding::PushConstant { buffer }
                    }
                    _ => {
                        let kind = keyword(
                            &k,
                            "buffer type",
                            DescriptorKind::from_keyword,
                            DescriptorKind::KEYWORDS,
                        )?;
                        self.descriptor(names, kind)?
                    }
                }
            }
            "SAMPLER" | "SAMPLER_ARRAY" => {
                let mut samplers = vec![self.word("a sampler name")?];
                if what == "SAMPLER_ARRAY" {
                    while !self.at_eol() && self.peek_word().as_deref() != Some("DESCRIPTOR_SET") {
                        samplers.push(self.word("a sampler name")?);
                    }
                }
                for s in &samplers {
                    self.need_sampler(s)?;
                }
                if self.peek_word().as_deref() == Some("KERNEL") {
                    self.next();
                    let arg = self.kernel_arg()?;
                    self.end_of_stmt("BIND")?;
                    return Ok(Binding::Kernel {
                        name: samplers.remove(0),
                        is_sampler: true,
                        arg,
                        kind: None,
                    });
                }
                let (set, binding) = self.set_binding()?;
                Binding::Sampler {
                    samplers,
                    set,
                    binding,
                }
            }
            "ACCELERATION_STRUCTURE" => {
                let name = self.word("an acceleration structure name")?;
                if !self.accels.contains(&name) {
                    return Err(format!("unknown acceleration structure '{name}'"));
                }
                let (set, binding) = self.set_binding()?;
                Binding::AccelerationStructure { name, set, binding }
            }
            _ => return Err(format!("unknown BIND target '{what}'")),
        };
        self.end_of_stmt("BIND")?;
        Ok(b)
    }

    fn set_binding(&mut self) -> R<(u32, u32)> {
        self.expect("DESCRIPTOR_SET")?;
        let set = self.u32("DESCRIPTOR_SET")?;
        self.expect("BINDING")?;
        let binding = self.u32("BINDING")?;
        Ok((set, binding))
    }

    fn descriptor(&mut self, buffers: Vec<String>, kind: DescriptorKind) -> R<Binding> {
        let mut samplers = Vec::new();
        if kind == DescriptorKind::CombinedImageSampler {
            self.expect("SAMPLER")?;
            while !self.at_eol() && self.peek_word().as_deref() != Some("DESCRIPTOR_SET") {
                let s = self.word("a sampler name")?;
                self.need_sampler(&s)?;
                samplers.push(s);
            }
            if samplers.is_empty() {
                return Err("combined_image_sampler needs a SAMPLER name".into());
            }
        }
        let (set, binding) = self.set_binding()?;
        let n = buffers.len();
        let mut b = (Vec::new(), Vec::new(), Vec::new(), 0u32);
        while !self.at_eol() {
            let w = self.word("a BIND option")?;
            match w.as_str() {
                "OFFSET" => {
                    for _ in 0..n {
                        b.0.push(self.u32("a dynamic OFFSET")?);
                    }
                }
                "DESCRIPTOR_OFFSET" => {
                    for _ in 0..n {
                        b.1.push(self.u64("a DESCRIPTOR_OFFSET")?);
                    }
                }
                "DESCRIPTOR_RANGE" => {
                    for _ in 0..n {
                        b.2.push(self.u64("a DESCRIPTOR_RANGE")?);
                    }
                }
                "BASE_MIP_LEVEL" => b.3 = self.u32("BASE_MIP_LEVEL")?,
                _ => return Err(format!("unknown BIND option '{w}'")),
            }
        }
        let dynamic = matches!(
            kind,
            DescriptorKind::UniformDynamic | DescriptorKind::StorageDynamic
        );
        if dynamic && b.0.is_empty() {
            return Err(format!("{} bindings need an OFFSET", kind.keyword()));
        }
        Ok(Binding::Descriptor {
            buffers,
            kind,
            set,
            binding,
            samplers,
            base_mip_level: b.3,
            dynamic_offsets: b.0,
            descriptor_offsets: b.1,
            descriptor_ranges: b.2,
        })
    }

    fn vertex_data(&mut self) -> R<VertexData> {
        let buffer = self.word("a vertex buffer name")?;
        self.need_buffer(&buffer)?;
        self.expect("LOCATION")?;
        let location = self.u32("the vertex LOCATION")?;
        let mut v = VertexData {
            buffer,
            location,
            rate: InputRate::Vertex,
            offset: 0,
            stride: None,
            format: None,
        };
        while !self.at_eol() {
            let w = self.word("a VERTEX_DATA option")?;
            match w.as_str() {
                "RATE" => {
                    let r = self.word("vertex or instance")?;
                    v.rate = keyword(
                        &r,
                        "input rate",
                        InputRate::from_keyword,
                        InputRate::KEYWORDS,
                    )?;
                }
                "OFFSET" => v.offset = self.u32("OFFSET")?,
                "STRIDE" => {
                    let s = self.u32("STRIDE")?;
                    if s == 0 {
                        return Err("STRIDE must not be zero".into());
                    }
                    v.stride = Some(s);
                }
                "FORMAT" => {
                    let f = self.word("a format")?;
                    v.format =
                        Some(Format::parse(&f).ok_or_else(|| format!("invalid format '{f}'"))?);
                }
                _ => return Err(format!("unknown VERTEX_DATA option '{w}'")),
            }
        }
        self.end_of_stmt("VERTEX_DATA")?;
        Ok(v)
    }

    fn depth(&mut self, p: &mut Pipeline) -> R<()> {
        self.end_of_stmt("DEPTH")?;
        let mut d = p.depth.clone().unwrap_or_default();
        loop {
            self.skip_eols();
            let w = self.word("a DEPTH option or END")?;
            match w.as_str() {
                "END" => break,
                "TEST" => d.test = on_off(&self.word("on or off")?)?,
                "WRITE" => d.write = on_off(&self.word("on or off")?)?,
                "CLAMP" => d.clamp = on_off(&self.word("on or off")?)?,
                "COMPARE_OP" => {
                    let v = self.word("a compare op")?;
                    d.compare = keyword(
                        &v,
                        "compare op",
                        CompareOp::from_keyword,
                        CompareOp::KEYWORDS,
                    )?;
                }
                "BOUNDS" => {
                    self.expect("min")?;
                    let lo = self.float("the min depth bound")? as f32;
                    self.expect("max")?;
                    let hi = self.float("the max depth bound")? as f32;
                    d.bounds = Some((lo, hi));
                }
                "BIAS" => {
                    self.expect("constant")?;
                    let constant = self.float("the constant bias")? as f32;
                    self.expect("clamp")?;
                    let clamp = self.float("the bias clamp")? as f32;
                    self.expect("slope")?;
                    let slope = self.float("the slope bias")? as f32;
                    d.bias = Some(DepthBias {
                        constant,
                        clamp,
                        slope,
                    });
                }
                _ => return Err(format!("unknown DEPTH option '{w}'")),
            }
            self.end_of_stmt(&w)?;
        }
        self.end_of_stmt("END")?;
        p.depth = Some(d);
        Ok(())
    }

    fn stencil(&mut self, p: &mut Pipeline) -> R<()> {
        let f = self.word("front, back or front_and_back")?;
        let face = keyword(
            &f,
            "stencil face",
            StencilFace::from_keyword,
            StencilFace::KEYWORDS,
        )?;
        self.end_of_stmt("STENCIL")?;
        let mut s = match face {
            StencilFace::Back => p.stencil_back.clone(),
            _ => p.stencil_front.clone(),
        }
        .unwrap_or_default();
        loop {
            self.skip_eols();
            let w = self.word("a STENCIL option or END")?;
            let op = |p: &mut Self| -> R<StencilOp> {
                let v = p.word("a stencil op")?;
                keyword(
                    &v,
                    "stencil op",
                    StencilOp::from_keyword,
                    StencilOp::KEYWORDS,
                )
            };
            match w.as_str() {
                "END" => break,
                "TEST" => s.test = on_off(&self.word("on or off")?)?,
                "FAIL_OP" => s.fail_op = op(self)?,
                "PASS_OP" => s.pass_op = op(self)?,
                "DEPTH_FAIL_OP" => s.depth_fail_op = op(self)?,
                "COMPARE_OP" => {
                    let v = self.word("a compare op")?;
                    s.compare = keyword(
                        &v,
                        "compare op",
                        CompareOp::from_keyword,
                        CompareOp::KEYWORDS,
                    )?;
                }
                "COMPARE_MASK" => s.compare_mask = self.u32("COMPARE_MASK")?,
                "WRITE_MASK" => s.write_mask = self.u32("WRITE_MASK")?,
                "REFERENCE" => s.reference = self.u32("REFERENCE")?,
                _ => return Err(format!("unknown STENCIL option '{w}'")),
            }
            self.end_of_stmt(&w)?;
        }
        self.end_of_stmt("END")?;
        if face != StencilFace::Back {
            p.stencil_front = Some(s.clone());
        }
        if face != StencilFace::Front {
            p.stencil_back = Some(s);
        }
        Ok(())
    }

    fn blend(&mut self, p: &mut Pipeline) -> R<()> {
        self.end_of_stmt("BLEND")?;
        let mut b = p.blend.clone().unwrap_or_default();
        loop {
            self.skip_eols();
            let w = self.word("a BLEND option or END")?;
            let factor = |p: &mut Self| -> R<BlendFactor> {
                let v = p.word("a blend factor")?;
                keyword(
                    &v,
                    "blend factor",
                    BlendFactor::from_keyword,
                    BlendFactor::KEYWORDS,
                )
            };
            let op = |p: &mut Self| -> R<BlendOp> {
                let v = p.word("a blend op")?;
                keyword(&v, "blend op", BlendOp::from_keyword, BlendOp::KEYWORDS)
            };
            match w.as_str() {
                "END" => break,
                "SRC_COLOR_FACTOR" => b.src_color = factor(self)?,
                "DST_COLOR_FACTOR" => b.dst_color = factor(self)?,
                "SRC_ALPHA_FACTOR" => b.src_alpha = factor(self)?,
                "DST_ALPHA_FACTOR" => b.dst_alpha = factor(self)?,
                "COLOR_OP" => b.color_op = op(self)?,
                "ALPHA_OP" => b.alpha_op = op(self)?,
                _ => return Err(format!("unknown BLEND option '{w}'")),
            }
            self.end_of_stmt(&w)?;
        }
        self.end_of_stmt("END")?;
        p.blend = Some(b);
        Ok(())
    }

    // ---- ACCELERATION_STRUCTURE -------------------------------------------------------------

    fn acceleration_structure(&mut self) -> R<AccelerationStructure> {
        let level = self.word("BOTTOM_LEVEL or TOP_LEVEL")?;
        let name = self.word("an acceleration structure name")?;
        if !self.accels.insert(name.clone()) {
            return Err(format!("duplicate acceleration structure '{name}'"));
        }
        self.end_of_stmt("ACCELERATION_STRUCTURE")?;
        let r = match level.as_str() {
            "BOTTOM_LEVEL" => {
                let mut geometries = Vec::new();
                loop {
                    self.skip_eols();
                    let w = self.word("GEOMETRY or END")?;
                    match w.as_str() {
                        "END" => break,
                        "GEOMETRY" => {
                            let k = self.word("TRIANGLES or AABBS")?;
                            let aabbs = match k.as_str() {
                                "TRIANGLES" => false,
                                "AABBS" => true,
                                _ => return Err(format!("unknown GEOMETRY kind '{k}'")),
                            };
                            let mut g = Geometry {
                                aabbs,
                                flags: Vec::new(),
                                data: Vec::new(),
                            };
                            while !self.at_eol() {
                                let w = self.word("FLAGS")?;
                                if w != "FLAGS" {
                                    return Err(format!("unknown GEOMETRY option '{w}'"));
                                }
                                while !self.at_eol() {
                                    g.flags.push(self.word("a geometry flag")?);
                                }
                            }
                            loop {
                                match self.next().kind {
                                    Tok::Eol => {}
                                    Tok::Int(i) => g.data.push(i as f64),
                                    Tok::Float(f) => g.data.push(f),
                                    Tok::Word(x) if x == "END" => break,
                                    Tok::Word(x) if x == "FLAGS" => {
                                        while !self.at_eol() {
                                            g.flags.push(self.word("a geometry flag")?);
                                        }
                                    }
                                    t => {
                                        return Err(format!(
                                            "expected a coordinate or END, found {}",
                                            t.describe()
                                        ))
                                    }
                                }
                            }
                            let per = if aabbs { 6 } else { 9 };
                            if !g.data.len().is_multiple_of(per) {
                                return Err(format!(
                                    "GEOMETRY {k} needs a multiple of {per} numbers, found {}",
                                    g.data.len()
                                ));
                            }
                            self.end_of_stmt("END")?;
                            geometries.push(g);
                        }
                        _ => return Err(format!("unknown BOTTOM_LEVEL command '{w}'")),
                    }
                }
                AccelerationStructure::Bottom { name, geometries }
            }
            "TOP_LEVEL" => {
                let mut instances = Vec::new();
                loop {
                    self.skip_eols();
                    let w = self.word("BOTTOM_LEVEL_INSTANCE or END")?;
                    match w.as_str() {
                        "END" => break,
                        "BOTTOM_LEVEL_INSTANCE" => {
                            let blas = self.word("a bottom level structure name")?;
                            if !self.accels.contains(&blas) {
                                return Err(format!("unknown acceleration structure '{blas}'"));
                            }
                            if self.peek_word().as_deref() == Some("END") {
                                // `BOTTOM_LEVEL_INSTANCE name END` on one line.
                                self.next();
                                self.end_of_stmt("END")?;
                                instances.push(Instance {
                                    blas,
                                    index: None,
                                    offset: None,
                                    mask: None,
                                    flags: Vec::new(),
                                    transform: None,
                                });
                                continue;
                            }
                            self.end_of_stmt("BOTTOM_LEVEL_INSTANCE")?;
                            instances.push(self.instance(blas)?);
                        }
                        _ => return Err(format!("unknown TOP_LEVEL command '{w}'")),
                    }
                }
                AccelerationStructure::Top { name, instances }
            }
            _ => {
                return Err(format!(
                    "expected BOTTOM_LEVEL or TOP_LEVEL, found '{level}'"
                ))
            }
        };
        self.end_of_stmt("END")?;
        Ok(r)
    }

    fn instance(&mut self, blas: String) -> R<Instance> {
        let mut i = Instance {
            blas,
            index: None,
            offset: None,
            mask: None,
            flags: Vec::new(),
            transform: None,
        };
        loop {
            self.skip_eols();
            let w = self.word("an instance option or END")?;
            match w.as_str() {
                "END" => break,
                "INDEX" => i.index = Some(self.u32("INDEX")?),
                "OFFSET" => i.offset = Some(self.u32("OFFSET")?),
                "MASK" => i.mask = Some(self.u32("MASK")?),
                "FLAGS" => {
                    let block = self.at_eol();
                    loop {
                        match self.next().kind {
                            Tok::Eol | Tok::Eos if !block => break,
                            Tok::Eol => {}
                            Tok::Word(x) if block && x == "END" => break,
                            Tok::Word(x) => i.flags.push(x),
                            Tok::Int(n) => i.flags.push(n.to_string()),
                            t => return Err(format!("invalid instance flag {}", t.describe())),
                        }
                    }
                    if !block {
                        continue;
                    }
                }
                "TRANSFORM" => {
                    let mut m = Vec::new();
                    loop {
                        match self.next().kind {
                            Tok::Eol => {}
                            Tok::Int(n) => m.push(n as f64),
                            Tok::Float(f) => m.push(f),
                            Tok::Word(x) if x == "END" => break,
                            t => {
                                return Err(format!(
                                    "expected a TRANSFORM value or END, found {}",
                                    t.describe()
                                ))
                            }
                        }
                    }
                    if m.len() != 12 {
                        return Err(format!(
                            "TRANSFORM needs 12 numbers (3x4), found {}",
                            m.len()
                        ));
                    }
                    i.transform = Some(m);
                }
                _ => return Err(format!("unknown BOTTOM_LEVEL_INSTANCE option '{w}'")),
            }
            self.end_of_stmt(&w)?;
        }
        self.end_of_stmt("END")?;
        Ok(i)
    }

    // ---- RUN / DEBUG / EXPECT / REPEAT ---------------------------------------------------------

    fn run(&mut self) -> R<Run> {
        let r = self.run_args("RUN")?;
        self.end_of_stmt("RUN")?;
        Ok(r)
    }

    fn run_args(&mut self, what: &str) -> R<Run> {
        let mut name = self.word("a pipeline name")?;
        let mut timed = false;
        if name == "TIMED_EXECUTION" {
            timed = true;
            name = self.word("a pipeline name")?;
        }
        let p = self.need_pipeline(&name)?.clone();
        let kind = match self.peek().clone() {
            Tok::Int(_) => {
                if p.kind != PipelineKind::Compute {
                    return Err(format!(
                        "{what} with workgroup counts needs a compute pipeline, '{name}' is {}",
                        p.kind.keyword()
                    ));
                }
                let mut groups = [0u32; 3];
                for (g, n) in groups.iter_mut().zip(["x", "y", "z"]) {
                    *g = self.u32(&format!("the {n} workgroup count"))?;
                }
                RunKind::Compute { groups }
            }
            Tok::Word(w) => {
                self.next();
                if w == "RAYGEN" {
                    if p.kind != PipelineKind::RayTracing {
                        return Err(format!(
                            "RAYGEN needs a raytracing pipeline, '{name}' is {}",
                            p.kind.keyword()
                        ));
                    }
                    let raygen = self.word("a shader binding table")?;
                    let (mut miss, mut hit, mut call) = (None, None, None);
                    while let Some(k) = self.peek_word() {
                        self.next();
                        let v = Some(self.word("a shader binding table")?);
                        match k.as_str() {
                            "MISS" => miss = v,
                            "HIT" => hit = v,
                            "CALL" => call = v,
                            _ => return Err(format!("unknown RAYGEN option '{k}'")),
                        }
                    }
                    let mut size = [0u32; 3];
                    for (g, n) in size.iter_mut().zip(["width", "height", "depth"]) {
                        *g = self.u32(&format!("the ray {n}"))?;
                    }
                    return Ok(Run {
                        pipeline: name,
                        timed,
                        kind: RunKind::TraceRays {
                            raygen,
                            miss,
                            hit,
                            call,
                            size,
                        },
                    });
                }
                if p.kind != PipelineKind::Graphics {
                    return Err(format!(
                        "{what} {w} needs a graphics pipeline, '{name}' is {}",
                        p.kind.keyword()
                    ));
                }
                match w.as_str() {
                    "DRAW_RECT" | "DRAW_GRID" => {
                        self.expect("POS")?;
                        let pos = [self.float("x")? as f32, self.float("y")? as f32];
                        self.expect("SIZE")?;
                        let size = [self.float("width")? as f32, self.float("height")? as f32];
                        if w == "DRAW_RECT" {
                            if p.vertex_data.len() > 1 {
                                return Err("RUN DRAW_RECT is not supported in a pipeline with more than one vertex buffer attached".into());
                            }
                            RunKind::DrawRect {
                                pos,
                                size,
                                ortho: true,
                                patch: false,
                            }
                        } else {
                            self.expect("CELLS")?;
                            let cells = [self.u32("columns")?, self.u32("rows")?];
                            if !p.vertex_data.is_empty() {
                                return Err("RUN DRAW_GRID is not supported in a pipeline with vertex buffers attached".into());
                            }
                            RunKind::DrawGrid { pos, size, cells }
                        }
                    }
                    "DRAW_ARRAY" => {
                        let mut topology = None;
                        let mut indexed = false;
                        let (mut start_idx, mut count, mut start_instance, mut instance_count) = (0, None, 0, 1);
                        while !self.at_eol() {
                            let o = self.word("a DRAW_ARRAY option")?;
                            match o.as_str() {
                                "AS" => {
                                    let t = self.word("a topology")?;
                                    topology = Some(keyword(&t, "topology", Topology::from_keyword, Topology::KEYWORDS)?);
                                }
                                "INDEXED" => indexed = true,
                                "START_IDX" => start_idx = self.u32("START_IDX")?,
                                "COUNT" => count = Some(self.u32("COUNT")?),
                                "START_INSTANCE" => start_instance = self.u32("START_INSTANCE")?,
                                "INSTANCE_COUNT" => instance_count = self.u32("INSTANCE_COUNT")?,
                                _ => return Err(format!("unknown DRAW_ARRAY option '{o}'")),
                            }
                        }
                        let topology = topology.ok_or("DRAW_ARRAY needs AS <topology>")?;
                        if indexed && p.index_data.is_none() {
                            return Err("RUN DRAW_ARRAY INDEXED needs INDEX_DATA in the pipeline".into());
                        }
                        RunKind::DrawArray { topology, indexed, start_idx, count, start_instance, instance_count }
                    }
                    _ => return Err(format!("unknown {what} kind '{w}' (expected DRAW_RECT, DRAW_GRID, DRAW_ARRAY or workgroup counts)")),
                }
            }
            t => return Err(format!("expected what to run, found {}", t.describe())),
        };
        Ok(Run {
            pipeline: name,
            timed,
            kind,
        })
    }

    fn debug(&mut self) -> R<Command> {
        let run = self.run_args("DEBUG")?;
        self.end_of_stmt("DEBUG")?;
        let start = self.line;
        let mut body = Vec::new();
        let mut depth = 0usize;
        loop {
            let mut words: Vec<String> = Vec::new();
            loop {
                match self.next().kind {
                    Tok::Eol => break,
                    Tok::Eos => {
                        if words.is_empty() {
                            return Err(format!("DEBUG (line {start}) is missing its END"));
                        }
                        break;
                    }
                    Tok::Word(w) => words.push(w),
                    Tok::Int(i) => words.push(i.to_string()),
                    Tok::Float(f) => words.push(f.to_string()),
                }
            }
            match words.first().map(String::as_str) {
                None => continue,
                Some("END") if depth == 0 => break,
                Some("END") => depth -= 1,
                Some("THREAD") => depth += 1,
                Some("EXPECT") if words.get(1).map(String::as_str) == Some("CALLSTACK") => {
                    depth += 1
                }
                _ => {}
            }
            body.push(words.join(" "));
        }
        Ok(Command::Debug(Debug { run, body }))
    }

    fn tolerances(&mut self) -> R<Vec<Tolerance>> {
        let mut v = Vec::new();
        while matches!(self.peek(), Tok::Int(_) | Tok::Float(_)) {
            let value = self.float("a tolerance")?;
            let mut percent = false;
            if self.peek_word().as_deref() == Some("%") {
                self.next();
                percent = true;
            }
            v.push(Tolerance { value, percent });
        }
        if v.is_empty() || v.len() > 4 {
            return Err(format!("TOLERANCE needs 1 to 4 values, found {}", v.len()));
        }
        Ok(v)
    }

    fn expect_cmd(&mut self) -> R<Expect> {
        let buffer = self.word("a buffer name")?;
        self.need_buffer(&buffer)?;
        let w = self.word("IDX, EQ_BUFFER, RMSE_BUFFER or EQ_HISTOGRAM_EMD_BUFFER")?;
        let e = match w.as_str() {
            "EQ_BUFFER" | "RMSE_BUFFER" | "EQ_HISTOGRAM_EMD_BUFFER" => {
                let other = self.word("a buffer name")?;
                self.need_buffer(&other)?;
                if w == "EQ_BUFFER" {
                    Expect::EqBuffer { buffer, other }
                } else {
                    self.expect("TOLERANCE")?;
                    let tolerance = self.float("a tolerance")?;
                    if w == "RMSE_BUFFER" {
                        Expect::RmseBuffer {
                            buffer,
                            other,
                            tolerance,
                        }
                    } else {
                        Expect::HistogramEmdBuffer {
                            buffer,
                            other,
                            tolerance,
                        }
                    }
                }
            }
            "IDX" => {
                let x = self.u64("the IDX position")?;
                if matches!(self.peek(), Tok::Int(_)) {
                    let y = self.u32("the y position")? as f32;
                    let x = u32::try_from(x).map_err(|_| format!("x position {x} out of range"))?;
                    let mut size = [1.0, 1.0];
                    if self.peek_word().as_deref() == Some("SIZE") {
                        self.next();
                        size = [
                            self.u32("the probe width")? as f32,
                            self.u32("the probe height")? as f32,
                        ];
                    }
                    let c = self.word("EQ_RGB or EQ_RGBA")?;
                    let has_alpha = match c.as_str() {
                        "EQ_RGB" => false,
                        "EQ_RGBA" => true,
                        _ => return Err(format!("expected EQ_RGB or EQ_RGBA, found '{c}'")),
                    };
                    let mut color = [0.0, 0.0, 0.0, 1.0];
                    for ch in color.iter_mut().take(if has_alpha { 4 } else { 3 }) {
                        *ch = self.float("a color value")? / 255.0;
                    }
                    let mut tolerance = Vec::new();
                    if self.peek_word().as_deref() == Some("TOLERANCE") {
                        self.next();
                        tolerance = self.tolerances()?;
                    }
                    Expect::Probe {
                        buffer,
                        pos: [x as f32, y],
                        size,
                        relative: false,
                        has_alpha,
                        color,
                        tolerance,
                    }
                } else {
                    let mut tolerance = Vec::new();
                    if self.peek_word().as_deref() == Some("TOLERANCE") {
                        self.next();
                        tolerance = self.tolerances()?;
                    }
                    let c = self.word("a comparator (EQ, NE, LT, LE, GT, GE)")?;
                    let comparator = Comparator::from_keyword(&c)
                        .ok_or_else(|| format!("unknown comparator '{c}'"))?;
                    if !tolerance.is_empty() && comparator != Comparator::Eq {
                        return Err("TOLERANCE is only allowed with EQ".into());
                    }
                    let mut values = Vec::new();
                    while !self.at_eol() {
                        values.push(self.number("an expected value")?);
                    }
                    if values.is_empty() {
                        return Err("EXPECT needs at least one value".into());
                    }
                    Expect::Values {
                        buffer,
                        index: x,
                        data_type: None,
                        tolerance,
                        comparator,
                        values,
                    }
                }
            }
            _ => return Err(format!("unknown EXPECT form '{w}'")),
        };
        self.end_of_stmt("EXPECT")?;
        Ok(e)
    }

    fn repeat(&mut self) -> R<Command> {
        let count = self.u32("the REPEAT count")?;
        self.end_of_stmt("REPEAT")?;
        let start = self.line;
        let mut body = Vec::new();
        loop {
            let t = self.next();
            let w = match t.kind {
                Tok::Eol => continue,
                Tok::Eos => return Err(format!("REPEAT (line {start}) is missing its END")),
                Tok::Word(w) => w,
                other => return Err(format!("expected a command, found {}", other.describe())),
            };
            if w == "END" {
                break;
            }
            match self.command(&w)? {
                Some(c) => body.push(Stmt {
                    line: t.line,
                    kind: StmtKind::Command(c),
                }),
                None => return Err(format!("'{w}' is not allowed inside REPEAT")),
            }
        }
        self.end_of_stmt("END")?;
        Ok(Command::Repeat { count, body })
    }
}

fn attached<'p>(p: &'p mut Pipeline, sh: &str, what: &str) -> R<&'p mut Attachment> {
    p.shaders
        .iter_mut()
        .find(|a| a.shader == sh)
        .ok_or_else(|| {
            format!(
                "{what}: shader '{sh}' is not attached to pipeline '{}'",
                p.name
            )
        })
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s)
}

fn validate_pipeline(p: &Pipeline) -> R<()> {
    let has = |s: ShaderType| p.shaders.iter().any(|a| a.stage == s);
    match p.kind {
        PipelineKind::Compute => {
            if !has(ShaderType::Compute) {
                return Err(format!(
                    "compute pipeline '{}' has no compute shader",
                    p.name
                ));
            }
        }
        PipelineKind::Graphics => {
            if !has(ShaderType::Vertex) {
                return Err(format!(
                    "graphics pipeline '{}' has no vertex shader",
                    p.name
                ));
            }
            if !has(ShaderType::Fragment) {
                return Err(format!(
                    "graphics pipeline '{}' has no fragment shader",
                    p.name
                ));
            }
        }
        PipelineKind::RayTracing => {}
    }
    Ok(())
}
