//! `PIPELINE` / `DERIVE_PIPELINE` bodies: shaders, bindings, vertex input and fixed-function
//! state blocks, and the ray-tracing `ACCELERATION_STRUCTURE` declarations they bind.

use super::*;

impl Parser<'_> {
    // ---- PIPELINE --------------------------------------------------------------------------

    pub(super) fn pipeline(&mut self) -> R<Pipeline> {
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

    pub(super) fn derive_pipeline(&mut self) -> R<Pipeline> {
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
                _ => {
                    return Err(format!(
                        "unknown command {} in PIPELINE '{}'",
                        crate::error::quote(&w),
                        p.name
                    ))
                }
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

    pub(super) fn acceleration_structure(&mut self) -> R<AccelerationStructure> {
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
