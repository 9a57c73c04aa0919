//! Commands executed in order: `RUN`, `DEBUG`, `EXPECT`, `REPEAT` (the other one-line commands
//! are in the parent module's `command`).

use super::*;

impl Parser<'_> {
    // ---- RUN / DEBUG / EXPECT / REPEAT ---------------------------------------------------------

    pub(super) fn run(&mut self) -> R<Run> {
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

    pub(super) fn debug(&mut self) -> R<Command> {
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

    pub(super) fn expect_cmd(&mut self) -> R<Expect> {
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

    pub(super) fn repeat(&mut self) -> R<Command> {
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
