//! The op table: one declarative description of every op the IR knows, read by the printer's
//! documentation (`shaderstep ops`), the verifier (overloads and capabilities) and passes (which
//! ask attributes such as "writes memory" instead of matching opcodes).
//!
//! SPIR-V core ops come from rspirv's grammar (name, opcode, operands); this file adds, per
//! family of ops — generated the way Mesa's `nir_opcodes.py` generates conversions — the op
//! class, the valid overloads (element kind × bit width, each width gated by a capability),
//! attributes and documentation. An op no family lists is `Other` with no attributes, which
//! passes must treat as having unknown side effects.
//!
//! Opcodes are 32-bit: the top 16 bits are a FeatureID partition — `0x0000` for stable ops
//! (SPIR-V's own opcodes live there unchanged) and `0x8000` for experimental ones.

mod families;
pub mod fold;

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use rspirv::grammar::{self, OperandKind, OperandQuantifier};

pub use families::FAMILIES;

/// FeatureID of the stable partition.
pub const STABLE: u16 = 0x0000;
/// FeatureID of the experimental partition.
pub const EXPERIMENTAL: u16 = 0x8000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    Unary,
    Binary,
    Compare,
    Convert,
    Composite,
    Pointer,
    Memory,
    Atomic,
    Barrier,
    Image,
    Derivative,
    Subgroup,
    ExtInst,
    Call,
    Control,
    Terminator,
    Type,
    Constant,
    Debug,
    Annotation,
    ModeSetting,
    Other,
}

impl OpClass {
    pub fn name(self) -> &'static str {
        match self {
            OpClass::Unary => "unary",
            OpClass::Binary => "binary",
            OpClass::Compare => "compare",
            OpClass::Convert => "convert",
            OpClass::Composite => "composite",
            OpClass::Pointer => "pointer",
            OpClass::Memory => "memory",
            OpClass::Atomic => "atomic",
            OpClass::Barrier => "barrier",
            OpClass::Image => "image",
            OpClass::Derivative => "derivative",
            OpClass::Subgroup => "subgroup",
            OpClass::ExtInst => "ext-inst",
            OpClass::Call => "call",
            OpClass::Control => "control",
            OpClass::Terminator => "terminator",
            OpClass::Type => "type",
            OpClass::Constant => "constant",
            OpClass::Debug => "debug",
            OpClass::Annotation => "annotation",
            OpClass::ModeSetting => "mode-setting",
            OpClass::Other => "other",
        }
    }
}

/// Attributes passes ask about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attrs(pub u16);

impl Attrs {
    pub const NONE: Attrs = Attrs(0);
    /// No memory access and no side effect: the result depends on the operands only.
    pub const PURE: Attrs = Attrs(1);
    pub const READS_MEMORY: Attrs = Attrs(2);
    pub const WRITES_MEMORY: Attrs = Attrs(4);
    /// Depends on neighbouring invocations through implicit derivatives.
    pub const DERIVATIVE: Attrs = Attrs(8);
    /// Communicates across the subgroup (wave).
    pub const WAVE: Attrs = Attrs(16);
    pub const BARRIER: Attrs = Attrs(32);
    pub const TERMINATOR: Attrs = Attrs(64);
    /// The two value operands may be swapped.
    pub const COMMUTATIVE: Attrs = Attrs(128);

    const NAMES: [(Attrs, &'static str); 8] = [
        (Attrs::PURE, "pure"),
        (Attrs::READS_MEMORY, "reads-memory"),
        (Attrs::WRITES_MEMORY, "writes-memory"),
        (Attrs::DERIVATIVE, "derivative"),
        (Attrs::WAVE, "wave"),
        (Attrs::BARRIER, "barrier"),
        (Attrs::TERMINATOR, "terminator"),
        (Attrs::COMMUTATIVE, "commutative"),
    ];

    pub const fn union(self, other: Attrs) -> Attrs {
        Attrs(self.0 | other.0)
    }
    pub fn contains(self, other: Attrs) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }
    pub fn names(self) -> Vec<&'static str> {
        Attrs::NAMES
            .iter()
            .filter(|(a, _)| self.contains(*a))
            .map(|(_, n)| *n)
            .collect()
    }
}

/// Element kinds an overload ranges over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Float,
    Int,
    Bool,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Float => "float",
            Kind::Int => "int",
            Kind::Bool => "bool",
        }
    }
}

/// One set of overloads: an element kind, the widths it comes in, and whether vectors of it
/// are accepted (the result or, for comparisons, the operands have this element type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overload {
    pub kind: Kind,
    pub widths: &'static [u32],
    pub vector: bool,
}

/// The capability an arithmetic use of a width needs, if any.
pub fn width_capability(kind: Kind, width: u32) -> Option<spirv::Capability> {
    use spirv::Capability as C;
    match (kind, width) {
        (Kind::Float, 16) => Some(C::Float16),
        (Kind::Float, 64) => Some(C::Float64),
        (Kind::Int, 8) => Some(C::Int8),
        (Kind::Int, 16) => Some(C::Int16),
        (Kind::Int, 64) => Some(C::Int64),
        _ => None,
    }
}

/// A family: ops that share class, overloads, attributes and documentation.
pub struct Family {
    pub name: &'static str,
    pub class: OpClass,
    pub attrs: Attrs,
    pub overloads: &'static [Overload],
    pub doc: &'static str,
    pub ops: &'static [&'static str],
}

#[derive(Clone, Debug)]
pub struct OpInfo {
    /// The op's name as the text form spells it (`OpFAdd`).
    pub name: String,
    /// 32-bit opcode: FeatureID in the top 16 bits.
    pub opcode: u32,
    pub class: OpClass,
    pub attrs: Attrs,
    pub overloads: &'static [Overload],
    pub family: Option<&'static str>,
    pub doc: String,
    /// Operands as the grammar gives them (result type and id included).
    pub operands: Vec<(OperandKind, OperandQuantifier)>,
    pub capabilities: Vec<spirv::Capability>,
    /// How to compute the op on constant operands, where that is defined.
    pub fold: Option<fold::FoldFn>,
}

impl OpInfo {
    pub fn feature_id(&self) -> u16 {
        (self.opcode >> 16) as u16
    }
    pub fn experimental(&self) -> bool {
        self.feature_id() & EXPERIMENTAL != 0
    }
}

struct Table {
    ops: Vec<OpInfo>,
    by_opcode: HashMap<u32, usize>,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let mut family_of: HashMap<&str, &'static Family> = HashMap::new();
        for f in FAMILIES {
            for op in f.ops {
                family_of.insert(op, f);
            }
        }
        let mut ops = Vec::new();
        let mut by_opcode = HashMap::new();
        for g in grammar::INSTRUCTION_TABLE.iter() {
            let opcode = g.opcode as u32;
            // Aliases share an opcode: the first spelling is the canonical one.
            if by_opcode.contains_key(&opcode) {
                continue;
            }
            let family = family_of.get(g.opname).copied();
            let (class, attrs, overloads, doc) = match family {
                Some(f) => (f.class, f.attrs, f.overloads, f.doc.to_string()),
                None if g.opname.starts_with("Type") => (
                    OpClass::Type,
                    Attrs::PURE,
                    &[][..],
                    "Declares a type.".to_string(),
                ),
                None => (
                    OpClass::Other,
                    Attrs::NONE,
                    &[][..],
                    "No shaderstep semantics: treated as having side effects.".to_string(),
                ),
            };
            let attrs = if families::COMMUTATIVE.contains(&g.opname) {
                attrs.union(Attrs::COMMUTATIVE)
            } else {
                attrs
            };
            by_opcode.insert(opcode, ops.len());
            ops.push(OpInfo {
                name: format!("Op{}", g.opname),
                opcode: (u32::from(STABLE) << 16) | opcode,
                class,
                attrs,
                overloads,
                family: family.map(|f| f.name),
                doc,
                operands: g.operands.iter().map(|o| (o.kind, o.quantifier)).collect(),
                capabilities: g.capabilities.to_vec(),
                fold: fold::rule(g.opcode),
            });
        }
        ops.sort_by_key(|o| o.opcode);
        let by_opcode = ops.iter().enumerate().map(|(i, o)| (o.opcode, i)).collect();
        Table { ops, by_opcode }
    })
}

/// Every op, ordered by opcode.
pub fn all() -> &'static [OpInfo] {
    &table().ops
}

/// The entry of a SPIR-V core op.
pub fn info(op: spirv::Op) -> Option<&'static OpInfo> {
    let t = table();
    t.by_opcode.get(&(op as u32)).map(|&i| &t.ops[i])
}

/// The entry of an op by its text-form name (`OpFAdd`).
pub fn by_name(name: &str) -> Option<&'static OpInfo> {
    all().iter().find(|o| o.name == name)
}

pub fn attrs(op: spirv::Op) -> Attrs {
    info(op).map_or(Attrs::NONE, |i| i.attrs)
}

impl fmt::Display for Overload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let widths: Vec<String> = self
            .widths
            .iter()
            .map(|w| format!("{}{w}", &self.kind.name()[..1]))
            .collect();
        write!(
            f,
            "{}{}",
            widths.join("|"),
            if self.vector {
                " (scalar or vector)"
            } else {
                " (scalar)"
            }
        )
    }
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn overloads_json(o: &[Overload]) -> String {
    let items: Vec<String> = o
        .iter()
        .map(|o| {
            let widths: Vec<String> = o
                .widths
                .iter()
                .map(|w| match width_capability(o.kind, *w) {
                    Some(c) => format!("{{\"width\":{w},\"capability\":\"{c:?}\"}}"),
                    None => format!("{{\"width\":{w}}}"),
                })
                .collect();
            format!(
                "{{\"kind\":\"{}\",\"vector\":{},\"widths\":[{}]}}",
                o.kind.name(),
                o.vector,
                widths.join(",")
            )
        })
        .collect();
    format!("[{}]", items.join(","))
}

/// The table as JSON: `{"ops": [{"name", "opcode", "feature_id", "class", "overloads", "attributes", "doc"}, …]}`.
pub fn to_json() -> String {
    let ops: Vec<String> = all()
        .iter()
        .map(|o| {
            let attrs: Vec<String> = o.attrs.names().iter().map(|a| json_str(a)).collect();
            format!(
                "{{\"name\":{},\"opcode\":{},\"feature_id\":{},\"class\":\"{}\",\"overloads\":{},\"attributes\":[{}],\"folds\":{},\"doc\":{}}}",
                json_str(&o.name),
                o.opcode,
                o.feature_id(),
                o.class.name(),
                overloads_json(o.overloads),
                attrs.join(","),
                o.fold.is_some(),
                json_str(&o.doc)
            )
        })
        .collect();
    format!("{{\"ops\":[\n{}\n]}}\n", ops.join(",\n"))
}

/// The table as the markdown reference page (`docs/ops.md`).
pub fn to_markdown() -> String {
    let mut out = String::from(
        "# The op table\n\nGenerated by `shaderstep ops --markdown`; do not edit (a test fails when it is stale).\n\n\
         Opcodes are 32-bit: the top 16 bits are a FeatureID (`0x0000` stable, `0x8000` experimental). SPIR-V's \
         own ops keep their SPIR-V opcode in the stable partition. Attributes: `pure` (no memory access, no side \
         effect), `reads-memory`, `writes-memory`, `derivative`, `wave`, `barrier`, `terminator`, `commutative`. \
         Overload widths marked with a capability need it declared.\n\n## Families\n\n",
    );
    for f in FAMILIES {
        let overloads: Vec<String> = f.overloads.iter().map(ToString::to_string).collect();
        out.push_str(&format!(
            "### {}\n\n{}\n\n- class: `{}`\n- attributes: {}\n- overloads: {}\n- ops: {}\n\n",
            f.name,
            f.doc,
            f.class.name(),
            if f.attrs.names().is_empty() {
                "none".to_string()
            } else {
                f.attrs
                    .names()
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            if overloads.is_empty() {
                "any type".to_string()
            } else {
                overloads.join("; ")
            },
            f.ops
                .iter()
                .map(|o| format!("`Op{o}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out.push_str(
        "## Every op\n\n| opcode | op | class | attributes | folds | family |\n|---|---|---|---|---|---|\n",
    );
    for o in all() {
        out.push_str(&format!(
            "| 0x{:08x} | `{}` | {} | {} | {} | {} |\n",
            o.opcode,
            o.name,
            o.class.name(),
            o.attrs.names().join(" "),
            if o.fold.is_some() { "yes" } else { "" },
            o.family.unwrap_or("")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_opcode_is_in_the_table_once() {
        let mut seen = std::collections::HashSet::new();
        for o in all() {
            assert!(
                seen.insert(o.opcode),
                "opcode {:#x} appears twice",
                o.opcode
            );
            assert!(
                !o.experimental(),
                "{} is in the experimental partition",
                o.name
            );
        }
        for g in grammar::INSTRUCTION_TABLE.iter() {
            assert!(
                info(g.opcode).is_some(),
                "Op{} missing from the table",
                g.opname
            );
        }
    }

    #[test]
    fn families_name_real_ops_once() {
        let names: std::collections::HashSet<&str> = grammar::INSTRUCTION_TABLE
            .iter()
            .map(|g| g.opname)
            .collect();
        let mut listed = std::collections::HashSet::new();
        for f in FAMILIES {
            assert!(!f.doc.is_empty(), "{} has no documentation", f.name);
            for op in f.ops {
                assert!(
                    names.contains(op),
                    "family {} names Op{op}, which the grammar does not have",
                    f.name
                );
                assert!(listed.insert(*op), "Op{op} is in two families");
            }
        }
        for op in families::COMMUTATIVE {
            assert!(names.contains(op), "commutative list names unknown Op{op}");
        }
    }

    #[test]
    fn attributes_are_consistent() {
        for o in all() {
            if o.attrs.contains(Attrs::PURE) {
                assert!(
                    !o.attrs.contains(Attrs::WRITES_MEMORY)
                        && !o.attrs.contains(Attrs::READS_MEMORY),
                    "{} is pure but accesses memory",
                    o.name
                );
            }
            if o.attrs.contains(Attrs::TERMINATOR) {
                assert!(
                    rspirv::grammar::reflect::is_block_terminator(
                        spirv::Op::from_u32(o.opcode).unwrap()
                    ),
                    "{}",
                    o.name
                );
            }
        }
        assert!(attrs(spirv::Op::FAdd).contains(Attrs::COMMUTATIVE));
        assert!(!attrs(spirv::Op::FSub).contains(Attrs::COMMUTATIVE));
        assert!(attrs(spirv::Op::Store).contains(Attrs::WRITES_MEMORY));
    }
}
