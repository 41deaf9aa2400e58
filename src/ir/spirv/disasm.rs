//! SPIR-V assembly text in the style of `spirv-dis`: friendly `%names`, result ids right-aligned
//! so every `=` lines up, enum operands by name, literals typed by context.

use std::fmt::Write;

use rspirv::dr::Operand;
use spirv::Op;

use super::grammar;
use crate::ir::func::MarkerIds;
use crate::ir::fxhash::FxHashMap;
use crate::ir::inst::{Id, Inst, Opd};
use crate::ir::listing::{Listing, ListingBuilder};
use crate::ir::module::Module;
use crate::ir::names::Names;
use crate::ir::number::{format_number, ScalarKind};
use crate::ir::ops;
use crate::ir::strings;

/// Grammar spelling of a bit-mask operand: `None` or `A|B`.
fn mask_text<'a>(bits: u32, names: impl Iterator<Item = (&'a str, u32)>) -> String {
    if bits == 0 {
        return "None".into();
    }
    let mut parts = Vec::new();
    let mut rest = bits;
    for (name, flag) in names {
        if flag != 0 && bits & flag == flag && rest & flag != 0 {
            parts.push(camel(name));
            rest &= !flag;
        }
    }
    if rest != 0 {
        parts.push(format!("0x{rest:x}"));
    }
    parts.join("|")
}

/// `CONST_OFFSET` → `ConstOffset`, keeping vendor suffixes and the grammar's acronyms.
pub fn camel(screaming: &str) -> String {
    static UPPER: &[&str] = &[
        "KHR", "EXT", "INTEL", "NV", "AMD", "ALTERA", "ARM", "NSZ", "QCOM",
    ];
    match screaming {
        "NOT_NAN" => return "NotNaN".into(),
        "NOT_INF" => return "NotInf".into(),
        _ => {}
    }
    screaming
        .split('_')
        .map(|part| {
            if UPPER.contains(&part) {
                part.to_string()
            } else {
                let mut c = part.chars();
                match c.next() {
                    Some(f) => f.to_string() + &c.as_str().to_ascii_lowercase(),
                    None => String::new(),
                }
            }
        })
        .collect()
}

macro_rules! mask {
    ($v:expr) => {
        mask_text($v.bits(), $v.iter_names().map(|(n, f)| (n, f.bits())))
    };
}

/// Names an enum or mask operand as the grammar spells it.
pub fn enum_text(op: &Operand) -> Option<String> {
    Some(match op {
        Operand::ImageOperands(v) => mask!(v),
        Operand::FPFastMathMode(v) => mask!(v),
        Operand::SelectionControl(v) => mask!(v),
        Operand::LoopControl(v) => mask!(v),
        Operand::FunctionControl(v) => mask!(v),
        Operand::MemorySemantics(v) => mask!(v),
        Operand::MemoryAccess(v) => mask!(v),
        Operand::KernelProfilingInfo(v) => mask!(v),
        Operand::RayFlags(v) => mask!(v),
        Operand::FragmentShadingRate(v) => mask!(v),
        Operand::RawAccessChainOperands(v) => mask!(v),
        Operand::CooperativeMatrixOperands(v) => mask!(v),
        Operand::CooperativeMatrixReduce(v) => mask!(v),
        Operand::TensorAddressingOperands(v) => mask!(v),
        Operand::MatrixMultiplyAccumulateOperands(v) => mask!(v),
        Operand::Dim(v) => format!("{v:?}")[3..].to_string(),
        Operand::IdRef(_)
        | Operand::IdMemorySemantics(_)
        | Operand::IdScope(_)
        | Operand::LiteralBit32(_)
        | Operand::LiteralBit64(_)
        | Operand::LiteralExtInstInteger(_)
        | Operand::LiteralSpecConstantOpInteger(_)
        | Operand::LiteralString(_) => return None,
        other => other.to_string(),
    })
}

pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// What instruction formatting needs to know about the module.
pub struct Context {
    pub names: Names,
    scalars: FxHashMap<Id, ScalarKind>,
    value_types: FxHashMap<Id, Id>,
    ext_sets: FxHashMap<Id, String>,
    sets: ops::ExtSets,
}

impl Context {
    pub fn new(m: &Module, names: Names) -> Self {
        let mut value_types = FxHashMap::default();
        m.for_each_inst(|i| {
            if let (Some(r), Some(t)) = (i.result, i.ty) {
                value_types.insert(r, t);
            }
        });
        let ext_sets = m
            .preamble
            .iter()
            .filter(|i| i.op == Op::ExtInstImport)
            .filter_map(|i| match (i.result, i.lits().first()) {
                (Some(id), Some(Operand::LiteralString(s))) => Some((id, s.clone())),
                _ => None,
            })
            .collect();
        Context {
            names,
            scalars: crate::ir::types::scalar_kinds(m),
            value_types,
            ext_sets,
            sets: ops::ExtSets::of(m),
        }
    }

    /// The IR text's spelling of a dialect op, without the result: `qptr.offset %T %a %b`, the
    /// result type left out where the op's is void. `None` for any other instruction.
    pub fn dialect_body(&self, inst: &Inst) -> Option<String> {
        let mut s = String::new();
        self.write_dialect_body(inst, &mut s).then_some(s)
    }

    /// `dialect_body` appended to `s`; whether `inst` is a dialect op.
    pub fn write_dialect_body(&self, inst: &Inst, s: &mut String) -> bool {
        // The dialect's ops are extended instructions of its set.
        if inst.op != Op::ExtInst {
            return false;
        }
        let Some(info) = ops::for_inst(inst, &self.sets).filter(|o| o.set == ops::OpSet::Dialect)
        else {
            return false;
        };
        let Some(ty) = inst
            .ty
            .filter(|_| info.typed)
            .or((!info.typed).then_some(0))
        else {
            return false;
        };
        s.push_str(&info.name);
        if info.typed {
            s.push(' ');
            self.push_id(s, ty);
        }
        for op in inst.operands().skip(2) {
            s.push(' ');
            match op {
                Opd::Id(id) => self.push_id(s, id),
                // rspirv reads extended-instruction operands as ids; anything else is kept raw.
                Opd::Lit(Operand::LiteralBit32(v)) => {
                    let _ = write!(s, "!{v}");
                }
                Opd::Lit(other) => s.push_str(&enum_text(other).unwrap_or_default()),
            }
        }
        true
    }

    /// The ids the body of `inst` prints (`dialect_body` where it has one, else
    /// `format_body`), in the order they appear.
    pub fn body_ids(&self, inst: &Inst, out: &mut Vec<Id>) {
        let dialect = (inst.op == Op::ExtInst)
            .then(|| ops::for_inst(inst, &self.sets))
            .flatten()
            .filter(|o| o.set == ops::OpSet::Dialect);
        let skip = match dialect {
            Some(info) => {
                if info.typed {
                    out.extend(inst.ty);
                }
                2
            }
            None => {
                out.extend(inst.ty);
                0
            }
        };
        out.extend(inst.operands().skip(skip).filter_map(Opd::id));
    }

    pub fn id(&self, id: Id) -> String {
        let mut s = String::with_capacity(12);
        self.push_id(&mut s, id);
        s
    }

    /// Appends `%name` of `id` to `s`.
    pub fn push_id(&self, s: &mut String, id: Id) {
        s.push('%');
        self.names.push(id, s);
    }

    /// `OpName operands…` without the result.
    pub fn format_body(&self, inst: &Inst) -> String {
        let mut s = String::with_capacity(64);
        self.write_body(inst, &mut s);
        s
    }

    /// `format_body` appended to `s`: printing a large module is mostly this, and a string
    /// per operand was most of its time.
    pub fn write_body(&self, inst: &Inst, s: &mut String) {
        s.push_str("Op");
        match grammar::core(inst.op as u32) {
            Some(g) => s.push_str(g.opname),
            None => {
                let _ = write!(s, "{:?}", inst.op);
            }
        }
        if let Some(t) = inst.ty {
            s.push(' ');
            self.push_id(s, t);
        }
        let literal_kind = match inst.op {
            Op::Constant | Op::SpecConstant => inst.ty.and_then(|t| self.scalars.get(&t)).copied(),
            Op::Switch => inst
                .arg(0)
                .and_then(|sel| self.value_types.get(&sel))
                .and_then(|t| self.scalars.get(t))
                .copied(),
            _ => None,
        };
        let ext_set = match (inst.op, inst.arg(0)) {
            (Op::ExtInst, Some(set)) => self.ext_sets.get(&set).map(String::as_str),
            _ => None,
        };
        for op in inst.operands() {
            s.push(' ');
            let op = match op {
                Opd::Id(id) => {
                    self.push_id(s, id);
                    continue;
                }
                Opd::Lit(l) => l,
            };
            match op {
                Operand::LiteralBit32(v) => match literal_kind {
                    Some(k) => s.push_str(&format_number(k, u64::from(*v))),
                    None => {
                        let _ = write!(s, "{v}");
                    }
                },
                Operand::LiteralBit64(v) => match literal_kind {
                    Some(k) => s.push_str(&format_number(k, *v)),
                    None => {
                        let _ = write!(s, "{v}");
                    }
                },
                Operand::LiteralString(v) => s.push_str(&quote(&strings::display(v))),
                Operand::LiteralExtInstInteger(n) => {
                    match ext_set.and_then(|set| crate::ir::ops::ext_inst_name(set, *n)) {
                        Some(name) => s.push_str(name),
                        None => {
                            let _ = write!(s, "{n}");
                        }
                    }
                }
                Operand::LiteralSpecConstantOpInteger(op) => s.push_str(&op_name(*op)),
                other => s.push_str(&enum_text(other).unwrap_or_default()),
            }
        }
    }
}

/// The grammar name of an opcode without the `Op` prefix (the canonical one among aliases).
pub fn op_name(op: Op) -> String {
    match grammar::core(op as u32) {
        Some(g) => g.opname.to_string(),
        None => format!("{op:?}"),
    }
}

/// Known generator vendors (the SPIR-V registry's `generators` table), for the header comment
/// and for reading it back.
pub static GENERATORS: &[(u32, &str)] = &[
    (0, "Khronos"),
    (1, "LunarG"),
    (2, "Valve"),
    (3, "Codeplay"),
    (4, "NVIDIA"),
    (5, "ARM"),
    (6, "Khronos LLVM/SPIR-V Translator"),
    (7, "Khronos SPIR-V Tools Assembler"),
    (8, "Khronos Glslang Reference Front End"),
    (9, "Qualcomm"),
    (10, "AMD"),
    (11, "Intel"),
    (12, "Imagination"),
    (13, "Google Shaderc over Glslang"),
    (14, "Google spiregg"),
    (15, "Google rspirv"),
    (16, "X-LEGEND Mesa-IR/SPIR-V Translator"),
    (17, "Khronos SPIR-V Tools Linker"),
    (18, "Wine VKD3D Shader Compiler"),
    (19, "Tellusim Clay Shader Compiler"),
    (20, "W3C WebGPU Group WHLSL Shader Translator"),
    (21, "Google Clspv"),
    (22, "Google MLIR SPIR-V Serializer"),
    (23, "Google Tint Compiler"),
    (24, "Google ANGLE Shader Compiler"),
    (25, "Netease Games Messiah Shader Compiler"),
    (26, "Xenia Xenia Emulator Microcode Translator"),
    (27, "Embark Studios Rust GPU Compiler Backend"),
    (28, "gfx-rs community Naga"),
    (29, "Mikkosoft Productions MSP Shader Compiler"),
    (30, "SpvGenTwo community SpvGenTwo SPIR-V IR Tools"),
    (31, "Google Skia SkSL"),
    (32, "TornadoVM Beehive SPIRV Toolkit"),
    (33, "DragonJoker ShaderWriter"),
    (34, "Rayan Hatout SPIRVSmith"),
    (35, "Saarland University Shady"),
    (36, "Taichi Graphics Taichi"),
    (37, "heroseh Hero C Compiler"),
    (38, "Meta SparkSL"),
    (39, "SirLynix Nazara ShaderLang Compiler"),
    (40, "NVIDIA Slang Compiler"),
    (41, "Zig Software Foundation Zig Compiler"),
];

pub fn generator_text(generator: u32) -> String {
    let (tool, version) = (generator >> 16, generator & 0xffff);
    match GENERATORS.iter().find(|(id, _)| *id == tool) {
        Some((_, name)) => format!("{name}; {version}"),
        None => format!("Unknown({tool}); {version}"),
    }
}

pub struct DisasmOptions {
    /// Print ids as numbers (`spirv-dis --raw-id`).
    pub raw_ids: bool,
    /// Emit the `; SPIR-V` header comment.
    pub header: bool,
}

impl Default for DisasmOptions {
    fn default() -> Self {
        DisasmOptions {
            raw_ids: false,
            header: true,
        }
    }
}

pub fn disassemble(m: &Module, opts: &DisasmOptions) -> String {
    listing(m, opts).text()
}

/// The `; Version:` and `; Generator:` comments both text forms start with (the assembler
/// and the parser take the version back from them).
pub(crate) fn version_and_generator(out: &mut ListingBuilder, m: &Module) {
    out.note(format!(
        "; Version: {}.{}",
        m.header.version.0, m.header.version.1
    ));
    out.note(format!(
        "; Generator: {}",
        generator_text(m.header.generator)
    ));
}

/// The disassembly, with what each line holds.
pub fn listing(m: &Module, opts: &DisasmOptions) -> Listing {
    let names = if opts.raw_ids {
        Names::raw()
    } else {
        Names::for_module(m)
    };
    let cx = Context::new(m, names);
    let mut out = ListingBuilder::for_module(m, m.inst_count() + 8);
    if opts.header {
        out.note("; SPIR-V".into());
        version_and_generator(&mut out, m);
        out.note(format!("; Bound: {}", m.bound));
        out.note("; Schema: 0".into());
    }
    let mut ids = Vec::new();
    let mut line = |out: &mut ListingBuilder, inst: &Inst| {
        out.line_info(m, inst);
        ids.clear();
        cx.body_ids(inst, &mut ids);
        let mut text = String::new();
        format_line(&cx, inst, &mut text);
        out.push(text, inst.result, &ids, &[]);
    };
    for section in [
        &m.preamble,
        &m.entry_points,
        &m.execution_modes,
        &m.debug,
        m.annotations(),
        m.globals(),
    ] {
        for inst in section {
            line(&mut out, inst);
        }
    }
    let end = Inst::with_args(Op::FunctionEnd, None, None, vec![]);
    let mut next = m.bound;
    for func in m.functions() {
        out.enter_function(func.id());
        for inst in func
            .leading_debug
            .iter()
            .chain([&func.def])
            .chain(&func.params)
            .chain(&func.prologue_debug)
        {
            line(&mut out, inst);
        }
        let mut markers = MarkerIds::new(next);
        for (b, block) in func.blocks().iter().enumerate() {
            // Lines before a label belong to the block it leads into; their line info ends
            // at the label, as every block's does.
            out.enter_block(block.label);
            for inst in &block.lines {
                line(&mut out, inst);
            }
            out.enter_block(block.label);
            line(&mut out, &Inst::label(block.label));
            func.for_each_written_in(b, &mut markers, &mut |inst| {
                if let Some(i) = func.arena_id_of(inst) {
                    out.set_inst(i);
                }
                line(&mut out, inst)
            });
        }
        next = markers.next();
        for inst in &func.epilogue_debug {
            line(&mut out, inst);
        }
        line(&mut out, &end);
        out.leave_function(cx.names.get(func.id()));
    }
    for inst in &m.trailing_debug {
        line(&mut out, inst);
    }
    out.finish()
}

/// One instruction, with the result right-aligned so that `=` sits in column 13.
pub fn format_line(cx: &Context, inst: &Inst, out: &mut String) {
    const INDENT: usize = 15;
    match inst.result {
        Some(r) => {
            let id = cx.id(r);
            let pad = INDENT.saturating_sub(id.len() + 3);
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(&id);
            out.push_str(" = ");
        }
        None => out.extend(std::iter::repeat_n(' ', INDENT)),
    }
    out.push_str(&cx.format_body(inst));
}
