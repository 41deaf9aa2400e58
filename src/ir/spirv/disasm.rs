//! SPIR-V assembly text in the style of `spirv-dis`: friendly `%names`, result ids right-aligned
//! so every `=` lines up, enum operands by name, literals typed by context.

use std::collections::HashMap;
use std::fmt::Write;

use rspirv::dr::Operand;
use spirv::Op;

use super::grammar;
use crate::ir::inst::{Id, Inst};
use crate::ir::module::Module;
use crate::ir::names::Names;
use crate::ir::ops;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
    },
    /// A dialect bit-vector (`bits.b32`): neither integer nor float, written in hex.
    Bits {
        width: u32,
    },
}

impl ScalarKind {
    /// The width of a dialect bit-vector type op (`bits.b32` → 32).
    pub fn bits_width(op_name: &str) -> Option<u32> {
        op_name.strip_prefix("bits.b")?.parse().ok()
    }

    /// Integer, float and bit-vector scalar types of the module, by id.
    pub fn table(m: &Module) -> HashMap<Id, ScalarKind> {
        let mut t = HashMap::new();
        let sets = ops::ExtSets::of(m);
        for inst in &m.globals {
            if let Some(width) = dialect_type_width(inst, &sets) {
                if let Some(id) = inst.result {
                    t.insert(id, ScalarKind::Bits { width });
                }
                continue;
            }
            let (Some(id), ops) = (inst.result, inst.operands.as_slice()) else {
                continue;
            };
            match (inst.op, ops) {
                (Op::TypeInt, [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]) => {
                    t.insert(
                        id,
                        ScalarKind::Int {
                            width: *w,
                            signed: *s == 1,
                        },
                    );
                }
                (Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => {
                    t.insert(id, ScalarKind::Float { width: *w });
                }
                _ => {}
            }
        }
        t
    }
}

/// The width of `inst` if it declares a dialect bit-vector type.
pub fn dialect_type_width(inst: &Inst, sets: &ops::ExtSets) -> Option<u32> {
    let info = ops::for_inst(inst, sets).filter(|o| o.set == ops::OpSet::Dialect)?;
    ScalarKind::bits_width(&info.name)
}

/// Formats the literal value of `OpConstant`/`OpSpecConstant` (its first operand).
pub fn format_literal_number(kind: ScalarKind, ops: &[Operand]) -> String {
    let bits: u64 = match ops.first() {
        Some(Operand::LiteralBit32(v)) => u64::from(*v),
        Some(Operand::LiteralBit64(v)) => *v,
        _ => return String::new(),
    };
    format_number(kind, bits)
}

pub fn format_number(kind: ScalarKind, bits: u64) -> String {
    match kind {
        ScalarKind::Int {
            width,
            signed: true,
        } => {
            let shift = 64 - width.min(64);
            (((bits << shift) as i64) >> shift).to_string()
        }
        ScalarKind::Int { .. } => bits.to_string(),
        ScalarKind::Float { width: 16 } => format_f64(f16_to_f64(bits as u16), 16, bits),
        ScalarKind::Float { width: 32 } => {
            let v = f32::from_bits(bits as u32);
            if v.is_finite() {
                format!("{v:?}").trim_end_matches(".0").to_string()
            } else {
                hex_float(bits, 23, 8)
            }
        }
        ScalarKind::Float { width: 64 } => format_f64(f64::from_bits(bits), 64, bits),
        ScalarKind::Float { .. } => format!("0x{bits:x}"),
        ScalarKind::Bits { width } => format!("0x{:0w$x}", bits, w = (width as usize).div_ceil(4)),
    }
}

fn format_f64(v: f64, width: u32, bits: u64) -> String {
    if v.is_finite() {
        format!("{v:?}").trim_end_matches(".0").to_string()
    } else if width == 16 {
        hex_float(bits, 10, 5)
    } else {
        hex_float(bits, 52, 11)
    }
}

/// Non-finite floats as spirv-dis prints them: `0x1p+128`, `-0x1.8p+128`.
fn hex_float(bits: u64, mantissa_bits: u32, exp_bits: u32) -> String {
    let sign = (bits >> (mantissa_bits + exp_bits)) & 1 == 1;
    let mantissa = bits & ((1 << mantissa_bits) - 1);
    let exp = 1i64 << (exp_bits - 1);
    let digits = mantissa_bits.div_ceil(4);
    let shifted = mantissa << (digits * 4 - mantissa_bits);
    let mut frac = format!("{shifted:0width$x}", width = digits as usize);
    while frac.ends_with('0') {
        frac.pop();
    }
    let sign = if sign { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}0x1p+{exp}")
    } else {
        format!("{sign}0x1.{frac}p+{exp}")
    }
}

pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

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
    const UPPER: &[&str] = &[
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
    scalars: HashMap<Id, ScalarKind>,
    value_types: HashMap<Id, Id>,
    ext_sets: HashMap<Id, String>,
    sets: ops::ExtSets,
}

impl Context {
    pub fn new(m: &Module, names: Names) -> Self {
        let mut value_types = HashMap::new();
        m.for_each_inst(|i| {
            if let (Some(r), Some(t)) = (i.result, i.ty) {
                value_types.insert(r, t);
            }
        });
        let ext_sets = m
            .preamble
            .iter()
            .filter(|i| i.op == Op::ExtInstImport)
            .filter_map(|i| match (i.result, i.operands.first()) {
                (Some(id), Some(Operand::LiteralString(s))) => Some((id, s.clone())),
                _ => None,
            })
            .collect();
        Context {
            names,
            scalars: ScalarKind::table(m),
            value_types,
            ext_sets,
            sets: ops::ExtSets::of(m),
        }
    }

    /// The IR text's spelling of a dialect op, without the result: `qptr.offset %T %a %b`, the
    /// result type left out where the op's is void. `None` for any other instruction.
    pub fn dialect_body(&self, inst: &Inst) -> Option<String> {
        let info = ops::for_inst(inst, &self.sets).filter(|o| o.set == ops::OpSet::Dialect)?;
        let mut s = info.name.clone();
        if info.typed {
            s.push(' ');
            s.push_str(&self.id(inst.ty?));
        }
        for op in inst.operands.iter().skip(2) {
            s.push(' ');
            match op {
                Operand::IdRef(id) => s.push_str(&self.id(*id)),
                // rspirv reads extended-instruction operands as ids; anything else is kept raw.
                Operand::LiteralBit32(v) => {
                    let _ = write!(s, "!{v}");
                }
                other => s.push_str(&enum_text(other).unwrap_or_default()),
            }
        }
        Some(s)
    }

    pub fn id(&self, id: Id) -> String {
        format!("%{}", self.names.get(id))
    }

    /// `OpName operands…` without the result.
    pub fn format_body(&self, inst: &Inst) -> String {
        let mut s = format!("Op{}", op_name(inst.op));
        if let Some(t) = inst.ty {
            s.push(' ');
            s.push_str(&self.id(t));
        }
        let literal_kind = match inst.op {
            Op::Constant | Op::SpecConstant => inst.ty.and_then(|t| self.scalars.get(&t)).copied(),
            Op::Switch => match inst.operands.first() {
                Some(Operand::IdRef(sel)) => self
                    .value_types
                    .get(sel)
                    .and_then(|t| self.scalars.get(t))
                    .copied(),
                _ => None,
            },
            _ => None,
        };
        let ext_set = match (inst.op, inst.operands.first()) {
            (Op::ExtInst, Some(Operand::IdRef(set))) => self.ext_sets.get(set).map(String::as_str),
            _ => None,
        };
        for op in &inst.operands {
            s.push(' ');
            match op {
                Operand::IdRef(id) | Operand::IdMemorySemantics(id) | Operand::IdScope(id) => {
                    s.push_str(&self.id(*id))
                }
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
                Operand::LiteralString(v) => s.push_str(&quote(v)),
                Operand::LiteralExtInstInteger(n) => {
                    match ext_set.and_then(|set| grammar::ext_inst_name(set, *n)) {
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
        s
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
pub const GENERATORS: &[(u32, &str)] = &[
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
    let names = if opts.raw_ids {
        Names::raw()
    } else {
        Names::for_module(m)
    };
    let cx = Context::new(m, names);
    let mut out = String::new();
    if opts.header {
        let _ = writeln!(out, "; SPIR-V");
        let _ = writeln!(
            out,
            "; Version: {}.{}",
            m.header.version.0, m.header.version.1
        );
        let _ = writeln!(out, "; Generator: {}", generator_text(m.header.generator));
        let _ = writeln!(out, "; Bound: {}", m.bound);
        let _ = writeln!(out, "; Schema: 0");
    }
    m.for_each_inst(|inst| {
        format_line(&cx, inst, &mut out);
        out.push('\n');
    });
    out
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
