//! The op table: one declarative description of every op the IR knows, read by the printer and
//! parser (dialect op names), the verifier (operands, overloads, versions, capabilities, result
//! types, the experimental gate), the constant folder (`fold`), passes (which ask attributes
//! such as "writes memory" instead of matching opcodes) and the documentation (`shaderstep ops`,
//! `o` in the TUI).
//!
//! Three sets of ops:
//! - SPIR-V core ops, from rspirv's grammar (name, opcode, operands, capabilities), enriched per
//!   family (`families.rs`, generated the way Mesa's `nir_opcodes.py` generates conversions) with
//!   the op class, the valid overloads (element kind × bit width, each width gated by a
//!   capability), a result-type rule, attributes, documentation and the SPIR-V version it needs;
//! - GLSL.std.450 extended instructions, from rspirv's grammar of the set, enriched the same way
//!   (`glsl.rs`);
//! - the IR's own dialect (`dialect.rs`): bit-vector types and untyped-pointer ops.
//!
//! Opcodes are 32-bit: the top 16 bits are a FeatureID. Bit 15 marks the experimental
//! partition (`0x8000`); stable partitions are `0x0000` (SPIR-V core, keeping SPIR-V's own
//! opcodes, gaps included), `0x0001` (GLSL.std.450, keeping the set's numbers) and `0x0002` (the
//! stable dialect). Dialect partitions are numbered contiguously from 0; a retired dialect op
//! leaves a reserved slot.
//!
//! An op no family lists is `Other` with no attributes, which passes must treat as having
//! unknown side effects.

mod dialect;
mod docs;
mod families;
pub mod fold;
mod glsl;

use std::fmt;
use std::sync::OnceLock;

use rspirv::grammar::{self, OperandKind, OperandQuantifier};
use spirv::{Capability, Op};

pub use dialect::{DialectOp, Slot, SET_NAME as DIALECT_SET};
pub use docs::{to_json, to_markdown};
pub use families::FAMILIES;

use super::fxhash::FxHashMap;
use super::inst::{Id, Inst};
use super::module::Module;
use crate::ir::spirv::grammar::{
    self as spirv_grammar, core_named as grammar_by_name, core_spellings,
};

/// FeatureID of SPIR-V core ops (stable).
pub const STABLE: u16 = 0x0000;
/// FeatureID of GLSL.std.450 instructions (stable).
pub const GLSL_FEATURE: u16 = 0x0001;
/// FeatureID of the dialect's stable ops.
pub const DIALECT_FEATURE: u16 = dialect::STABLE_FEATURE;
/// FeatureID of the experimental partition.
pub const EXPERIMENTAL: u16 = 0x8000;

/// The name of the GLSL.std.450 set as modules import it.
pub use crate::ir::ext_sets::GLSL_SET;

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
    /// Debug info (`NonSemantic.Shader.DebugInfo.100`, `OpenCL.DebugInfo.100`): touches no
    /// memory and has no effect, but is not removed for being unused.
    pub const DEBUG_INFO: Attrs = Attrs(256);
    /// Reads texels (or their level of detail) of the image its first operand is: the same
    /// result for the same operands when nothing writes the image while the shader runs.
    pub const IMAGE_READ: Attrs = Attrs(512);

    const NAMES: [(Attrs, &'static str); 10] = [
        (Attrs::PURE, "pure"),
        (Attrs::READS_MEMORY, "reads-memory"),
        (Attrs::WRITES_MEMORY, "writes-memory"),
        (Attrs::DERIVATIVE, "derivative"),
        (Attrs::WAVE, "wave"),
        (Attrs::BARRIER, "barrier"),
        (Attrs::TERMINATOR, "terminator"),
        (Attrs::COMMUTATIVE, "commutative"),
        (Attrs::DEBUG_INFO, "debug-info"),
        (Attrs::IMAGE_READ, "image-read"),
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
    /// A dialect bit-vector: the op decides whether it is read as an integer or a float, so it
    /// fits every integer and float overload of its width.
    Bits,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Float => "float",
            Kind::Int => "int",
            Kind::Bool => "bool",
            Kind::Bits => "bits",
        }
    }
    /// The one-letter prefix of a width (`f32`, `i16`, `b32`).
    pub fn short(self) -> &'static str {
        &self.name()[..1]
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
pub fn width_capability(kind: Kind, width: u32) -> Option<Capability> {
    match (kind, width) {
        (Kind::Float, 16) => Some(Capability::Float16),
        (Kind::Float, 64) => Some(Capability::Float64),
        (Kind::Int, 8) => Some(Capability::Int8),
        (Kind::Int, 16) => Some(Capability::Int16),
        (Kind::Int, 64) => Some(Capability::Int64),
        _ => None,
    }
}

/// How an op's result type relates to its value operands' types (checked by the verifier).
///
/// Besides the rule, the verifier reads the element kinds from the op's typing (`Typing`): the
/// result and every value operand of an op with a rule must be of the kind its symbol names
/// (`f` a float, `i` an integer of either signedness, `u` an unsigned integer, `b` a bool, `*`
/// the result's kind), as `spirv-val` requires. A dialect bit-vector fits `f`, `i` and `u` of
/// its width. Only scalars and vectors are checked: a rule says nothing about a matrix, struct
/// or pointer operand (`spirv-val` accepts some, such as cooperative matrices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// No relation the table states.
    None,
    /// Every value operand has exactly the result type.
    SameType,
    /// Every value operand has the result's component count and width (signedness may differ).
    SameShape,
    /// The first operand has the result's shape; the second only its component count.
    Shift,
    /// The result is a bool with the operands' component count; the operands have one shape.
    Compare,
    /// The operand has the result's component count.
    SameCount,
    /// The operand has the result's component count and a different width (a conversion
    /// within one kind: `UConvert`, `SConvert`, `FConvert`).
    Resize,
    /// The result is a scalar; the operands are vectors of one component count whose
    /// components have the result's width (`Dot`, `Any`, `All`).
    Reduce,
    /// The first operand, the condition, is a bool or a vector of bools; a vector condition
    /// needs a vector result of its component count. The other operands have the result type
    /// (`Select`).
    Select,
}

/// How an op reads a value operand, or what its result is, in a module whose integer and
/// float values may be untyped bit-vectors (`untype`): the op, not the value, carries the type,
/// as in NIR. `assign-types` reads this to give every bit-vector a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    /// `f`: a float.
    Float,
    /// `i`: an integer of either signedness.
    Int,
    /// `u`: an unsigned integer.
    Uint,
    /// `b`: a bool (never a bit-vector).
    Bool,
    /// `*`: as an operand, the result's type; as a result, any type (the op is polymorphic).
    Same,
    /// `?`: any type.
    Any,
    /// `p`: not a numeric value (a pointer, handle, label or function).
    NotValue,
    /// `c`: typed by context — memory, an aggregate's member, an image's sampled type, a
    /// function signature; `assign-types` knows these ops one by one, image ops by their
    /// `ImageAccess`.
    Context,
    /// `-`: no result.
    Nothing,
}

impl Val {
    /// The element kind the symbol names (`i` and `u` both name integers; signedness is
    /// apart, see `unsigned`); none for symbols that name no one kind.
    pub fn kind(self) -> Option<Kind> {
        match self {
            Val::Float => Some(Kind::Float),
            Val::Int | Val::Uint => Some(Kind::Int),
            Val::Bool => Some(Kind::Bool),
            _ => None,
        }
    }

    /// Whether the symbol asks for an unsigned integer (`u`).
    pub fn unsigned(self) -> bool {
        self == Val::Uint
    }
}

/// An op's typing signature, written `"RESULT: OPERAND…"` with one symbol per id operand (an
/// extended instruction's set not counted); the last operand symbol repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Typing {
    pub result: Val,
    pub operands: Vec<Val>,
}

impl Typing {
    /// `None` for an empty signature (the op's typing is unknown).
    pub fn parse(text: &str) -> Option<Result<Typing, String>> {
        if text.is_empty() {
            return None;
        }
        let sym = |c: &str| match c {
            "f" => Ok(Val::Float),
            "i" => Ok(Val::Int),
            "u" => Ok(Val::Uint),
            "b" => Ok(Val::Bool),
            "*" => Ok(Val::Same),
            "?" => Ok(Val::Any),
            "p" => Ok(Val::NotValue),
            "c" => Ok(Val::Context),
            "-" => Ok(Val::Nothing),
            other => Err(format!("unknown typing symbol '{other}' in \"{text}\"")),
        };
        let parse = || {
            let (result, operands) = text
                .split_once(':')
                .ok_or_else(|| format!("typing \"{text}\" has no ':'"))?;
            Ok(Typing {
                result: sym(result.trim())?,
                operands: operands
                    .split_whitespace()
                    .map(sym)
                    .collect::<Result<_, _>>()?,
            })
        };
        Some(parse())
    }

    /// How id operand `k` is read (the last symbol repeats; none: not at all).
    pub fn operand(&self, k: usize) -> Val {
        self.operands
            .get(k)
            .or(self.operands.last())
            .copied()
            .unwrap_or(Val::NotValue)
    }
}

/// What an image op's coordinate is (SPIR-V's image instructions, shader capabilities).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coordinate {
    /// Normalized or projective: sampling, gathers, level-of-detail queries.
    Float,
    /// Texel indices: fetches, storage-image reads and writes, texel pointers.
    Int,
}

/// The id operand right after an image op's coordinate, which the op's role decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterCoordinate {
    Nothing,
    /// `Dref`: the float a depth comparison compares with.
    DepthReference,
    /// `Component`: which component a gather reads, an integer.
    Component,
    /// `Sample`: the sample of a multisampled image, an integer.
    Sample,
    /// `Texel`: the value written, of the image's sampled type.
    Texel,
}

/// What an image op makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageResult {
    /// Texels of the image's sampled type.
    Sampled,
    /// A depth comparison: the sampled type, a float when the image's is not numeric.
    DepthSampled,
    /// Levels of detail: floats, whatever the image.
    Float,
    /// A struct of a residency code and texels of the sampled type (not a numeric value).
    Sparse,
    /// A pointer to a texel (not a numeric value).
    Pointer,
    Nothing,
}

/// How an image op reads its operands and what it makes, beyond the image (its first id): what
/// its typing signature spells `c`. Image operands (`Lod`, `Offset`, …) follow their mask; a
/// `Lod` has the coordinate's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageAccess {
    pub coordinate: Coordinate,
    pub after_coordinate: AfterCoordinate,
    pub result: ImageResult,
}

impl Coordinate {
    pub fn name(self) -> &'static str {
        match self {
            Coordinate::Float => "float",
            Coordinate::Int => "int",
        }
    }
}

impl AfterCoordinate {
    pub fn name(self) -> &'static str {
        match self {
            AfterCoordinate::Nothing => "nothing",
            AfterCoordinate::DepthReference => "depth-reference",
            AfterCoordinate::Component => "component",
            AfterCoordinate::Sample => "sample",
            AfterCoordinate::Texel => "texel",
        }
    }
}

impl ImageResult {
    pub fn name(self) -> &'static str {
        match self {
            ImageResult::Sampled => "sampled",
            ImageResult::DepthSampled => "sampled-or-float",
            ImageResult::Float => "float",
            ImageResult::Sparse => "sparse-struct",
            ImageResult::Pointer => "texel-pointer",
            ImageResult::Nothing => "nothing",
        }
    }
}

impl fmt::Display for ImageAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "coordinate {}, then {}, result {}",
            self.coordinate.name(),
            self.after_coordinate.name(),
            self.result.name()
        )
    }
}

/// A family: ops that share class, overloads, result rule, typing, attributes and documentation.
pub struct Family {
    pub name: &'static str,
    pub class: OpClass,
    pub attrs: Attrs,
    pub overloads: &'static [Overload],
    pub rule: Rule,
    /// Typing signature (see `Typing`); empty when the ops' typing is not described.
    pub typing: &'static str,
    pub doc: &'static str,
    pub ops: &'static [&'static str],
}

/// Which set an op belongs to, and so how a module spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpSet {
    /// A SPIR-V instruction of its own opcode.
    Core,
    /// `OpExtInst` of an imported `GLSL.std.450`.
    Glsl,
    /// `OpExtInst` of an imported `shaderstep.dialect`.
    Dialect,
}

impl OpSet {
    pub fn name(self) -> &'static str {
        match self {
            OpSet::Core => "SPIR-V",
            OpSet::Glsl => GLSL_SET,
            OpSet::Dialect => DIALECT_SET,
        }
    }
}

#[derive(Clone, Debug)]
pub struct OpInfo {
    /// The op's name as the text form spells it: `OpFAdd`, `GLSL.std.450.Sqrt`, `qptr.offset`.
    pub name: String,
    /// 32-bit opcode: FeatureID in the top 16 bits.
    pub opcode: u32,
    pub set: OpSet,
    /// The number a SPIR-V binary encodes: the core opcode, the GLSL.std.450 instruction
    /// number, or (dialect) the full opcode.
    pub number: u32,
    pub class: OpClass,
    pub attrs: Attrs,
    pub overloads: &'static [Overload],
    pub rule: Rule,
    pub family: Option<&'static str>,
    pub doc: &'static str,
    /// Operands as the grammar gives them: for core ops result type and id included; for
    /// extended instructions the operands after the instruction number.
    pub operands: Vec<(OperandKind, OperandQuantifier)>,
    /// Dialect ops: the operands' names.
    pub operand_names: &'static [&'static str],
    /// Whether the op yields a typed value (core and GLSL: per the grammar; dialect: declared).
    pub typed: bool,
    /// At least one of these capabilities must be declared (none: always available).
    pub capabilities: Vec<Capability>,
    /// The SPIR-V version the op needs, when above 1.0.
    pub min_version: Option<(u8, u8)>,
    /// Extensions that make the op available before `min_version` (of all its spellings).
    pub extensions: Vec<&'static str>,
    /// How to compute the op on constant operands, where that is defined.
    pub fold: Option<fold::Fold>,
    /// What kinds of values the op reads and makes; `None` when the table does not say.
    pub typing: Option<Typing>,
    /// Image ops: their coordinate, the operand after it and their result.
    pub image: Option<ImageAccess>,
}

impl OpInfo {
    pub fn feature_id(&self) -> u16 {
        (self.opcode >> 16) as u16
    }
    pub fn experimental(&self) -> bool {
        self.feature_id() & EXPERIMENTAL != 0
    }
}

/// The whole table, for what lists or names every op (documentation, the parser's names).
struct Table {
    ops: Vec<&'static OpInfo>,
    by_name: FxHashMap<String, &'static OpInfo>,
}

/// Each core op's family and own typing, by its place in the grammar
/// (`spirv::grammar::core_position`), built once: scanning the family tables for each op was
/// most of the cost of building its entry, and maps keyed by name cost a short run more than
/// the few entries it builds.
struct CoreIndex {
    /// Index + 1 into `FAMILIES` (0: none).
    family: Vec<u16>,
    /// Index + 1 into `families::TYPINGS` (0: none).
    typing: Vec<u16>,
}

fn core_index() -> &'static CoreIndex {
    static I: OnceLock<CoreIndex> = OnceLock::new();
    I.get_or_init(|| {
        let n = spirv_grammar::core_count();
        let (mut family, mut typing) = (vec![0u16; n], vec![0u16; n]);
        // The first table entry naming an op wins.
        let mark = |column: &mut Vec<u16>, name: &str, k: usize| {
            if let Some(at) = spirv_grammar::core_place(name) {
                if column[at] == 0 {
                    column[at] = k as u16 + 1;
                }
            }
        };
        for (k, f) in FAMILIES.iter().enumerate() {
            for &name in f.ops {
                mark(&mut family, name, k);
            }
        }
        for (k, &(name, _)) in families::TYPINGS.iter().enumerate() {
            mark(&mut typing, name, k);
        }
        CoreIndex { family, typing }
    })
}

/// The core op spelled `name` without its `Op` prefix (`IAdd`).
pub fn core_op_by_name(name: &str) -> Option<Op> {
    grammar_by_name(name).map(|g| g.opcode)
}

/// The typing of an op: its own, else its family's.
fn typing_of(name: &str, own: Option<&'static str>, family: Option<&Family>) -> Option<Typing> {
    let text = own.or(family.map(|f| f.typing))?;
    Typing::parse(text).map(|t| t.unwrap_or_else(|e| panic!("op table: {name}: {e}")))
}

/// The entry of core opcode `opcode`, from the grammar and the families. Built on first use:
/// a module uses a few dozen of the ops, and building all of them took most of a short run.
fn core_entry(opcode: u32) -> Option<OpInfo> {
    let g = *core_spellings(opcode).first()?;
    let index = core_index();
    let at = spirv_grammar::core_position(opcode)?;
    let family = (index.family[at].checked_sub(1)).map(|k| &FAMILIES[usize::from(k)]);
    let own_typing = (index.typing[at].checked_sub(1)).map(|k| families::TYPINGS[usize::from(k)].1);
    let (class, attrs, overloads, rule, doc) = match family {
        Some(f) => (f.class, f.attrs, f.overloads, f.rule, f.doc),
        None if g.opname.starts_with("Type") => (
            OpClass::Type,
            Attrs::PURE,
            &[][..],
            Rule::None,
            "Declares a type.",
        ),
        None => (
            OpClass::Other,
            Attrs::NONE,
            &[][..],
            Rule::None,
            "No shaderstep semantics: treated as having side effects.",
        ),
    };
    let attrs = if families::COMMUTATIVE.contains(&g.opname) {
        attrs.union(Attrs::COMMUTATIVE)
    } else {
        attrs
    };
    // Aliases share an opcode: the first spelling is the canonical one, but an alias may be
    // the one that lists the extension (OpDemoteToHelperInvocationEXT).
    let mut extensions: Vec<&'static str> = Vec::new();
    let aliases = core_spellings(opcode);
    let early = families::EARLY_EXTENSIONS
        .iter()
        .filter(|(name, _)| aliases.iter().any(|a| a.opname == *name))
        .flat_map(|(_, exts)| exts.iter().copied());
    for e in aliases
        .iter()
        .flat_map(|a| a.extensions.iter().copied())
        .chain(early)
    {
        if !extensions.contains(&e) {
            extensions.push(e);
        }
    }
    Some(OpInfo {
        name: format!("Op{}", g.opname),
        opcode: (u32::from(STABLE) << 16) | opcode,
        set: OpSet::Core,
        number: opcode,
        class,
        attrs,
        overloads,
        rule,
        family: family.map(|f| f.name),
        doc,
        operands: g.operands.iter().map(|o| (o.kind, o.quantifier)).collect(),
        operand_names: &[],
        typed: g
            .operands
            .iter()
            .any(|o| o.kind == OperandKind::IdResultType),
        capabilities: g.capabilities.to_vec(),
        min_version: families::VERSIONED
            .iter()
            .find(|(_, names)| names.contains(&g.opname))
            .map(|(v, _)| *v),
        extensions,
        fold: fold::fold(g.opcode),
        typing: typing_of(g.opname, own_typing, family),
        image: families::IMAGES
            .iter()
            .find(|(name, _)| *name == g.opname)
            .map(|(_, a)| *a),
    })
}

/// The entry of GLSL.std.450 instruction `number`.
fn glsl_entry(number: u32) -> Option<OpInfo> {
    let g = grammar::GLSL_STD_450_INSTRUCTION_TABLE
        .iter()
        .find(|g| u32::from(g.opcode) == number)?;
    let family = glsl::FAMILIES.iter().find(|f| f.ops.contains(&g.opname));
    let (class, attrs, overloads, rule, doc) = match family {
        Some(f) => (f.class, f.attrs, f.overloads, f.rule, f.doc),
        None => (
            OpClass::Other,
            Attrs::NONE,
            &[][..],
            Rule::None,
            "No shaderstep semantics: treated as having side effects.",
        ),
    };
    Some(OpInfo {
        name: format!("{GLSL_SET}.{}", g.opname),
        opcode: (u32::from(GLSL_FEATURE) << 16) | number,
        set: OpSet::Glsl,
        number,
        class,
        attrs,
        overloads,
        rule,
        family: family.map(|f| f.name),
        doc,
        operands: g.operands.iter().map(|o| (o.kind, o.quantifier)).collect(),
        operand_names: &[],
        typed: true,
        capabilities: g.capabilities.to_vec(),
        min_version: None,
        extensions: Vec::new(),
        fold: fold::glsl_fold(number),
        typing: typing_of(
            g.opname,
            glsl::TYPINGS
                .iter()
                .find(|(n, _)| *n == g.opname)
                .map(|(_, t)| *t),
            family,
        ),
        image: None,
    })
}

fn build_dialect(ops: &mut Vec<OpInfo>, reserved: &mut Vec<(u32, &'static str)>) {
    for (feature, slots) in [
        (DIALECT_FEATURE, dialect::STABLE),
        (EXPERIMENTAL, dialect::EXPERIMENTAL),
    ] {
        for (k, slot) in slots.iter().enumerate() {
            let opcode = (u32::from(feature) << 16) | k as u32;
            match slot {
                Slot::Reserved(name) => reserved.push((opcode, name)),
                Slot::Op(d) => ops.push(OpInfo {
                    name: d.name.to_string(),
                    opcode,
                    set: OpSet::Dialect,
                    number: opcode,
                    class: d.class,
                    attrs: d.attrs,
                    overloads: &[],
                    rule: Rule::None,
                    family: None,
                    doc: d.doc,
                    operands: d
                        .operands
                        .iter()
                        .map(|_| (OperandKind::IdRef, OperandQuantifier::One))
                        .collect(),
                    operand_names: d.operands,
                    typed: d.typed,
                    capabilities: d.capabilities.to_vec(),
                    min_version: None,
                    extensions: Vec::new(),
                    fold: None,
                    typing: Typing::parse(d.typing)
                        .map(|t| t.unwrap_or_else(|e| panic!("op table: {}: {e}", d.name))),
                    image: None,
                }),
            }
        }
    }
}

/// Entries by number, for the numbers the grammar has (sorted): opcodes reach the thousands
/// but only some hundreds exist, and a slot per possible number was a tenth of the page
/// faults of a short run.
struct Slots {
    numbers: Vec<u32>,
    entries: Vec<OnceLock<Option<Box<OpInfo>>>>,
}

impl Slots {
    fn new(numbers: impl Iterator<Item = u32>) -> Slots {
        let mut numbers: Vec<u32> = numbers.collect();
        numbers.sort_unstable();
        numbers.dedup();
        let entries = numbers.iter().map(|_| OnceLock::new()).collect();
        Slots { numbers, entries }
    }
}

/// Entries built on first use, by core opcode and by GLSL.std.450 number; the dialect's few
/// ops, built at once.
struct Lazy {
    /// By place in the grammar (`spirv::grammar::core_position`): found without a search, as
    /// the verifier and every pass look an op up per instruction.
    core: Vec<OnceLock<Option<Box<OpInfo>>>>,
    glsl: Slots,
    dialect: Vec<OpInfo>,
    reserved: Vec<(u32, &'static str)>,
}

fn lazy() -> &'static Lazy {
    static L: OnceLock<Lazy> = OnceLock::new();
    L.get_or_init(|| {
        let mut dialect = Vec::new();
        let mut reserved = Vec::new();
        build_dialect(&mut dialect, &mut reserved);
        Lazy {
            core: (0..spirv_grammar::core_count())
                .map(|_| OnceLock::new())
                .collect(),
            glsl: Slots::new(
                grammar::GLSL_STD_450_INSTRUCTION_TABLE
                    .iter()
                    .map(|g| u32::from(g.opcode)),
            ),
            dialect,
            reserved,
        }
    })
}

fn core_slot(opcode: u32) -> Option<&'static OpInfo> {
    let at = spirv_grammar::core_position(opcode)?;
    lazy().core[at]
        .get_or_init(|| core_entry(opcode).map(Box::new))
        .as_deref()
}

fn slot(
    slots: &'static Slots,
    k: u32,
    build: fn(u32) -> Option<OpInfo>,
) -> Option<&'static OpInfo> {
    let at = slots.numbers.binary_search(&k).ok()?;
    slots.entries[at]
        .get_or_init(|| build(k).map(Box::new))
        .as_deref()
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let l = lazy();
        let mut ops: Vec<&'static OpInfo> = Vec::new();
        let mut opcodes: Vec<u32> = grammar::INSTRUCTION_TABLE
            .iter()
            .map(|g| g.opcode as u32)
            .collect();
        opcodes.sort_unstable();
        opcodes.dedup();
        for k in opcodes {
            ops.extend(core_slot(k));
        }
        for &k in &l.glsl.numbers {
            ops.extend(slot(&l.glsl, k, glsl_entry));
        }
        ops.extend(l.dialect.iter());
        ops.sort_by_key(|o| o.opcode);
        let by_name = ops.iter().map(|o| (o.name.clone(), *o)).collect();
        Table { ops, by_name }
    })
}

/// Every op, ordered by opcode.
pub fn all() -> &'static [&'static OpInfo] {
    &table().ops
}

/// Retired dialect ops: their opcodes stay taken.
pub fn reserved() -> &'static [(u32, &'static str)] {
    &lazy().reserved
}

/// The entry of a SPIR-V core op.
pub fn info(op: Op) -> Option<&'static OpInfo> {
    core_slot(op as u32)
}

/// The entry of an op by its 32-bit opcode.
pub fn by_opcode(opcode: u32) -> Option<&'static OpInfo> {
    let (feature, number) = ((opcode >> 16) as u16, opcode & 0xffff);
    match feature {
        STABLE => core_slot(number),
        GLSL_FEATURE => slot(&lazy().glsl, number, glsl_entry),
        _ => lazy().dialect.iter().find(|o| o.opcode == opcode),
    }
}

/// The entry of a GLSL.std.450 instruction by its number in the set.
pub fn glsl(number: u32) -> Option<&'static OpInfo> {
    slot(&lazy().glsl, number, glsl_entry)
}

/// The entry of a dialect op by the number a module encodes (its full opcode).
pub fn dialect(number: u32) -> Option<&'static OpInfo> {
    lazy().dialect.iter().find(|o| o.opcode == number)
}

/// The entry of an op by its text-form name: `OpFAdd`, `GLSL.std.450.Sqrt`, `qptr.offset`.
pub fn by_name(name: &str) -> Option<&'static OpInfo> {
    if let Some(d) = lazy().dialect.iter().find(|o| o.name == name) {
        return Some(d);
    }
    if let Some(core) = name.strip_prefix("Op") {
        return grammar_by_name(core).and_then(|g| info(g.opcode));
    }
    table().by_name.get(name).copied()
}

/// The entry of a dialect op by name (`qptr.offset`).
pub fn dialect_by_name(name: &str) -> Option<&'static OpInfo> {
    lazy().dialect.iter().find(|o| o.name == name)
}

pub fn attrs(op: Op) -> Attrs {
    info(op).map_or(Attrs::NONE, |i| i.attrs)
}

/// The extended instruction sets a module imports: the module's one classification of its
/// sets (`ir::ext_sets`).
pub use crate::ir::ext_sets::{ExtSets, SetKind};

/// The set and instruction number of an `OpExtInst`.
pub fn ext_inst_parts(inst: &Inst) -> Option<(Id, u32)> {
    if inst.op != Op::ExtInst {
        return None;
    }
    inst.ext_inst()
}

/// The entry describing `inst`: its core op, or for an extended instruction of a set the
/// table knows, that instruction (an unknown instruction of a known set has no entry).
pub fn for_inst(inst: &Inst, sets: &ExtSets) -> Option<&'static OpInfo> {
    match ext_inst_parts(inst) {
        Some((set, n)) => match sets.kind(set) {
            Some(SetKind::Glsl) => glsl(n),
            Some(SetKind::Dialect) => dialect(n),
            _ => info(Op::ExtInst),
        },
        None => info(inst.op),
    }
}

/// Whether `inst` imports the dialect's instruction set (which `lift` drops once unused).
pub fn is_dialect_import(inst: &crate::ir::Inst) -> bool {
    inst.op == spirv::Op::ExtInstImport
        && matches!(inst.lits().first(), Some(rspirv::dr::Operand::LiteralString(s)) if s == DIALECT_SET)
}

/// The dialect ops a module uses, each once, by name.
pub fn dialect_ops(m: &Module) -> Vec<&'static OpInfo> {
    let sets = ExtSets::of(m);
    if sets.dialect_import().is_none() {
        return Vec::new();
    }
    let mut found: Vec<&'static OpInfo> = Vec::new();
    m.for_each_inst(|i| {
        if let Some(info) = for_inst(i, &sets).filter(|o| o.set == OpSet::Dialect) {
            if !found.iter().any(|f| f.opcode == info.opcode) {
                found.push(info);
            }
        }
    });
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// The experimental ops a module uses, each once, by name. A module that uses any is a
/// *preview* module.
pub fn experimental_ops(m: &Module) -> Vec<&'static OpInfo> {
    let mut found = dialect_ops(m);
    found.retain(|o| o.experimental());
    found
}

/// "qptr.copy (FeatureID 0x8000), …": how messages name experimental ops.
pub fn describe_experimental(found: &[&OpInfo]) -> String {
    found
        .iter()
        .map(|o| format!("{} (FeatureID 0x{:04x})", o.name, o.feature_id()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The attributes of `inst` (an unknown op has none, so it counts as having side effects). An
/// instruction of a debug-info set is `DEBUG_INFO`; one of another non-semantic set
/// (`NonSemantic.DebugPrintf`, …) is not: it is an effect.
pub fn attrs_of(inst: &Inst, sets: &ExtSets) -> Attrs {
    if ext_inst_parts(inst).is_some_and(|(set, _)| sets.is_debug_info(set)) {
        return Attrs::DEBUG_INFO;
    }
    for_inst(inst, sets).map_or(Attrs::NONE, |i| i.attrs)
}

impl fmt::Display for Overload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let widths: Vec<String> = self
            .widths
            .iter()
            .map(|w| format!("{}{w}", self.kind.short()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_grammar_op_is_in_the_table_once() {
        let mut seen = HashSet::new();
        for o in all() {
            assert!(
                seen.insert(o.opcode),
                "opcode {:#x} appears twice",
                o.opcode
            );
        }
        for (opcode, name) in reserved() {
            assert!(
                seen.insert(*opcode),
                "reserved slot {name} reuses {opcode:#x}"
            );
        }
        for g in grammar::INSTRUCTION_TABLE.iter() {
            assert!(
                info(g.opcode).is_some(),
                "Op{} missing from the table",
                g.opname
            );
        }
        for g in grammar::GLSL_STD_450_INSTRUCTION_TABLE.iter() {
            let o = glsl(g.opcode.into()).unwrap_or_else(|| panic!("{} missing", g.opname));
            assert_eq!(o.name, format!("GLSL.std.450.{}", g.opname));
        }
    }

    #[test]
    fn partitions_are_contiguous_and_only_dialect_ops_are_experimental() {
        let mut numbers: std::collections::HashMap<u16, Vec<u32>> = Default::default();
        for o in all() {
            numbers
                .entry(o.feature_id())
                .or_default()
                .push(o.opcode & 0xffff);
            if o.experimental() {
                assert_eq!(o.set, OpSet::Dialect, "{} is experimental", o.name);
            }
        }
        for (opcode, _) in reserved() {
            numbers
                .entry((opcode >> 16) as u16)
                .or_default()
                .push(opcode & 0xffff);
        }
        assert_eq!(
            numbers.keys().copied().collect::<HashSet<_>>(),
            [STABLE, GLSL_FEATURE, DIALECT_FEATURE, EXPERIMENTAL]
                .into_iter()
                .collect()
        );
        // Our partitions count from 0; GLSL.std.450 keeps the set's numbers, which start at 1.
        for (feature, first) in [(GLSL_FEATURE, 1), (DIALECT_FEATURE, 0), (EXPERIMENTAL, 0)] {
            let mut n = numbers[&feature].clone();
            n.sort_unstable();
            let expected: Vec<u32> = (first..first + n.len() as u32).collect();
            assert_eq!(n, expected, "partition {feature:#06x} has gaps");
        }
        assert!(
            all().iter().any(|o| o.experimental()),
            "the experimental partition holds a real op"
        );
    }

    #[test]
    fn families_name_real_ops_once() {
        let core: HashSet<&str> = grammar::INSTRUCTION_TABLE
            .iter()
            .map(|g| g.opname)
            .collect();
        let glsl_names: HashSet<&str> = grammar::GLSL_STD_450_INSTRUCTION_TABLE
            .iter()
            .map(|g| g.opname)
            .collect();
        for (families, names, set) in [
            (FAMILIES, &core, "SPIR-V"),
            (glsl::FAMILIES, &glsl_names, GLSL_SET),
        ] {
            let mut listed = HashSet::new();
            for f in families {
                assert!(!f.doc.is_empty(), "{} has no documentation", f.name);
                for op in f.ops {
                    assert!(
                        names.contains(op),
                        "family {} names {op}, which {set} does not have",
                        f.name
                    );
                    assert!(listed.insert(*op), "{op} is in two families");
                }
            }
            if set == GLSL_SET {
                let missing: Vec<_> = names.difference(&listed).collect();
                assert!(
                    missing.is_empty(),
                    "GLSL.std.450 ops in no family: {missing:?}"
                );
            }
        }
        for op in families::COMMUTATIVE {
            assert!(core.contains(op), "commutative list names unknown Op{op}");
        }
        for (_, names) in families::VERSIONED {
            for op in *names {
                assert!(core.contains(op), "version list names unknown Op{op}");
            }
        }
        for (op, _) in families::EARLY_EXTENSIONS {
            assert!(core.contains(op), "extension list names unknown Op{op}");
        }
        for (op, _) in families::TYPINGS {
            assert!(core.contains(op), "typing list names unknown Op{op}");
        }
        for (op, _) in glsl::TYPINGS {
            assert!(glsl_names.contains(op), "typing list names unknown {op}");
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
                    o.set == OpSet::Core
                        && rspirv::grammar::reflect::is_block_terminator(
                            Op::from_u32(o.number).unwrap()
                        ),
                    "{}",
                    o.name
                );
            }
            if o.rule != Rule::None {
                assert!(o.typed, "{} has a result rule but no result", o.name);
            }
        }
        assert!(attrs(Op::FAdd).contains(Attrs::COMMUTATIVE));
        assert!(!attrs(Op::FSub).contains(Attrs::COMMUTATIVE));
        assert!(attrs(Op::Store).contains(Attrs::WRITES_MEMORY));
        let modf = by_name("GLSL.std.450.Modf").unwrap();
        assert!(modf.attrs.contains(Attrs::WRITES_MEMORY));
        assert_eq!(
            info(Op::GroupNonUniformIAdd).unwrap().min_version,
            Some((1, 3))
        );
    }

    #[test]
    fn typings_parse_and_cover_the_ops_passes_untype() {
        // Building the table parses every signature (a bad one panics).
        let t = |name: &str| by_name(name).unwrap().typing.clone();
        assert_eq!(
            t("OpFAdd"),
            Some(Typing {
                result: Val::Float,
                operands: vec![Val::Float]
            })
        );
        assert_eq!(t("OpConvertFToU").unwrap().result, Val::Uint);
        assert_eq!(t("OpSelect").unwrap().operand(2), Val::Same);
        assert_eq!(t("GLSL.std.450.Ldexp").unwrap().operand(1), Val::Int);
        assert_eq!(t("qptr.dyn_offset").unwrap().operand(1), Val::Int);
        assert!(t("OpCopyLogical").is_none());
        // Every GLSL.std.450 instruction has a typing.
        for o in all().iter().filter(|o| o.set == OpSet::Glsl) {
            assert!(o.typing.is_some(), "{} has no typing", o.name);
        }
        assert!(Typing::parse("x: f").unwrap().is_err());
    }

    #[test]
    fn image_ops_describe_coordinate_operand_and_result() {
        let image = |op: Op| info(op).unwrap().image;
        let fetch = image(Op::ImageFetch).unwrap();
        assert_eq!(fetch.coordinate, Coordinate::Int);
        assert_eq!(fetch.after_coordinate, AfterCoordinate::Nothing);
        assert_eq!(fetch.result, ImageResult::Sampled);
        let dref = image(Op::ImageSampleDrefImplicitLod).unwrap();
        assert_eq!(dref.coordinate, Coordinate::Float);
        assert_eq!(dref.after_coordinate, AfterCoordinate::DepthReference);
        assert_eq!(dref.result, ImageResult::DepthSampled);
        let write = image(Op::ImageWrite).unwrap();
        assert_eq!(
            (write.coordinate, write.after_coordinate, write.result),
            (
                Coordinate::Int,
                AfterCoordinate::Texel,
                ImageResult::Nothing
            )
        );
        assert_eq!(image(Op::ImageQueryLod).unwrap().result, ImageResult::Float);
        assert_eq!(
            image(Op::ImageGather).unwrap().after_coordinate,
            AfterCoordinate::Component
        );
        assert_eq!(
            image(Op::ImageTexelPointer).unwrap().after_coordinate,
            AfterCoordinate::Sample
        );
        // A sparse form reads what its plain form reads; its result is a residency struct.
        for (sparse, plain) in [
            (Op::ImageSparseSampleImplicitLod, Op::ImageSampleImplicitLod),
            (
                Op::ImageSparseSampleDrefExplicitLod,
                Op::ImageSampleDrefExplicitLod,
            ),
            (
                Op::ImageSparseSampleProjDrefImplicitLod,
                Op::ImageSampleProjDrefImplicitLod,
            ),
            (Op::ImageSparseGather, Op::ImageGather),
            (Op::ImageSparseDrefGather, Op::ImageDrefGather),
            (Op::ImageSparseFetch, Op::ImageFetch),
            (Op::ImageSparseRead, Op::ImageRead),
        ] {
            let (s, p) = (image(sparse).unwrap(), image(plain).unwrap());
            assert_eq!(s.result, ImageResult::Sparse, "{sparse:?}");
            assert_eq!(
                (s.coordinate, s.after_coordinate),
                (p.coordinate, p.after_coordinate),
                "{sparse:?}"
            );
        }
        assert!(image(Op::ImageQuerySize).is_none() && image(Op::FAdd).is_none());
        // Every op whose typing leaves an operand to context and that reads an image says
        // how: `assign-types` would otherwise keep its values typed.
        for o in all() {
            let context = o
                .typing
                .as_ref()
                .is_some_and(|t| t.operands.contains(&Val::Context));
            if o.class == OpClass::Image && context {
                assert!(o.image.is_some(), "{} has no image description", o.name);
            }
            if o.image.is_some() {
                assert!(
                    context,
                    "{} describes an image access it does not use",
                    o.name
                );
            }
        }
        for (op, _) in families::IMAGES {
            assert!(
                core_op_by_name(op).is_some(),
                "image list names unknown Op{op}"
            );
        }
    }

    #[test]
    fn dialect_ops_are_found_by_name_and_number() {
        let copy = dialect_by_name("qptr.copy").unwrap();
        assert!(copy.experimental());
        assert_eq!(copy.feature_id(), EXPERIMENTAL);
        assert_eq!(dialect(copy.number).unwrap().name, "qptr.copy");
        let offset = dialect_by_name("qptr.offset").unwrap();
        assert_eq!(offset.feature_id(), DIALECT_FEATURE);
        assert!(dialect_by_name("OpFAdd").is_none());
        assert_eq!(glsl(31).unwrap().name, "GLSL.std.450.Sqrt");
    }
}

/// Counts that say how far a module is from plain typed SPIR-V.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub bitcasts: usize,
    /// Values of pointer type, typed or untyped (variables included).
    pub pointer_values: usize,
    /// `qptr.*` instructions.
    pub qptr_ops: usize,
    /// Functions `qptr-lower` left with typed pointers.
    pub qptr_fallbacks: usize,
}

pub fn counts(m: &Module) -> Counts {
    let pointer_types: std::collections::HashSet<Id> = m
        .globals()
        .iter()
        .filter(|g| matches!(g.op, Op::TypePointer | Op::TypeUntypedPointerKHR))
        .filter_map(|g| g.result)
        .collect();
    let sets = ExtSets::of(m);
    let mut c = Counts {
        qptr_fallbacks: m
            .attributes
            .values()
            .filter(|a| matches!(a, super::module::Attribute::TypedPointers(_)))
            .count(),
        ..Counts::default()
    };
    m.for_each_inst(|i| {
        c.bitcasts += usize::from(i.op == Op::Bitcast);
        c.pointer_values += usize::from(i.ty.is_some_and(|t| pointer_types.contains(&t)));
        if sets.dialect_import().is_some() {
            c.qptr_ops += usize::from(
                for_inst(i, &sets)
                    .is_some_and(|o| o.set == OpSet::Dialect && o.name.starts_with("qptr.")),
            );
        }
    });
    c
}

/// Name of an extended instruction, if the set is known (rspirv's sets and our dialect). Here,
/// above the grammar: the grammar knows rspirv's sets, the op table our dialect.
pub fn ext_inst_name(set: &str, number: u32) -> Option<&'static str> {
    if set == DIALECT_SET {
        return dialect(number).map(|o| o.name.as_str());
    }
    spirv_grammar::ext_set(set)?
        .lookup_opcode(number)
        .map(|i| i.opname)
}

/// The number of a named extended instruction of a set (rspirv's sets and our dialect).
pub fn ext_inst_number(set: &str, name: &str) -> Option<u32> {
    if set == DIALECT_SET {
        return dialect_by_name(name).map(|o| o.number);
    }
    spirv_grammar::ext_set(set)?
        .iter()
        .find(|i| i.opname == name)
        .map(|i| i.opcode.into())
}
