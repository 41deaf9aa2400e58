//! What each extended instruction set a module imports is, decided once: the op table's sets
//! (`GLSL.std.450`, the IR's dialect), the debug-info sets the core understands
//! (`NonSemantic.Shader.DebugInfo.100`, `OpenCL.DebugInfo.100`), the legacy `DebugInfo` set,
//! every other `NonSemantic.*` set (`NonSemantic.DebugPrintf`, …) and the rest.
//!
//! Only debug info is debug info: an instruction of `NonSemantic.DebugPrintf` or of another
//! non-semantic set has an effect (it prints, or tells a tool something), so it is kept with
//! its operands as any instruction with side effects is. It touches no memory the shader reads,
//! though, so passes that reason about memory may look through it.
//!
//! A leaf of `src/ir`: it reads imports and the two debug sets' grammars, nothing else.

use std::sync::OnceLock;

use rspirv::dr::Operand;
use rspirv::grammar::ExtendedInstruction;
use spirv::Op;

use super::inst::{Id, Inst};

pub const GLSL_SET: &str = "GLSL.std.450";
pub const DIALECT_SET: &str = "shaderstep.dialect";
pub const SHADER_DEBUG_SET: &str = "NonSemantic.Shader.DebugInfo.100";
pub const OPENCL_DEBUG_SET: &str = "OpenCL.DebugInfo.100";
/// `debugPrintfEXT`'s set: an effect (it prints), which the core understands as one.
pub const PRINTF_SET: &str = "NonSemantic.DebugPrintf";
/// The debug-info set before `OpenCL.DebugInfo.100`; the core does not read its records.
pub const LEGACY_DEBUG_SET: &str = "DebugInfo";

/// Which of the two understood debug-info sets an import is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Shader,
    OpenCl,
}

/// What an imported set is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetKind {
    Glsl,
    Dialect,
    /// A debug-info set whose records the core understands.
    DebugInfo(Flavor),
    /// The legacy `DebugInfo` set: debug info, its records opaque.
    LegacyDebugInfo,
    /// Any other `NonSemantic.*` set: not debug info, its instructions are effects.
    NonSemantic,
    Other,
}

impl SetKind {
    pub fn of_name(name: &str) -> SetKind {
        match name {
            GLSL_SET => SetKind::Glsl,
            DIALECT_SET => SetKind::Dialect,
            SHADER_DEBUG_SET => SetKind::DebugInfo(Flavor::Shader),
            OPENCL_DEBUG_SET => SetKind::DebugInfo(Flavor::OpenCl),
            LEGACY_DEBUG_SET => SetKind::LegacyDebugInfo,
            n if n.starts_with("NonSemantic.") => SetKind::NonSemantic,
            _ => SetKind::Other,
        }
    }

    /// Whether the set only carries debug information.
    pub fn is_debug_info(self) -> bool {
        matches!(self, SetKind::DebugInfo(_) | SetKind::LegacyDebugInfo)
    }

    /// Whether what the set's instructions say has no effect on what the shader computes (the
    /// debug-info sets and every `NonSemantic.*` set).
    pub fn is_non_semantic(self) -> bool {
        matches!(
            self,
            SetKind::DebugInfo(_) | SetKind::LegacyDebugInfo | SetKind::NonSemantic
        )
    }
}

/// The name an `OpExtInstImport` imports.
pub fn import_name(i: &Inst) -> Option<&str> {
    if i.op != Op::ExtInstImport {
        return None;
    }
    match i.lits().first() {
        Some(Operand::LiteralString(s)) => Some(s.as_str()),
        _ => None,
    }
}

/// Instruction numbers; both sets share them where both have the instruction.
pub const INFO_NONE: u32 = 0;
pub const GLOBAL_VARIABLE: u32 = 18;
pub const FUNCTION: u32 = 20;
pub const LEXICAL_BLOCK: u32 = 21;
pub const SCOPE: u32 = 23;
pub const NO_SCOPE: u32 = 24;
pub const INLINED_AT: u32 = 25;
pub const LOCAL_VARIABLE: u32 = 26;
pub const DECLARE: u32 = 28;
pub const VALUE: u32 = 29;
pub const EXPRESSION: u32 = 31;
pub const SOURCE: u32 = 35;
/// `NonSemantic.Shader.DebugInfo.100` only.
pub const FUNCTION_DEFINITION: u32 = 101;
pub const SOURCE_CONTINUED: u32 = 102;
pub const LINE: u32 = 103;
pub const NO_LINE: u32 = 104;

/// A new debug record: instruction `n` of the set imported as `set`, with id operands `args`.
pub fn record(ty: Option<Id>, id: Id, set: Id, n: u32, args: &[Id]) -> Inst {
    let mut record = Inst::with_args(Op::ExtInst, ty, Some(id), vec![set]);
    record.push_operand(Operand::LiteralExtInstInteger(n));
    for &a in args {
        record.push_operand(Operand::IdRef(a));
    }
    record
}

/// The sets a module imports, by the id of their import.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtSets {
    sets: Vec<(Id, SetKind)>,
}

impl ExtSets {
    /// The sets the `OpExtInstImport`s among `preamble` import.
    pub fn of_imports(preamble: &[Inst]) -> Self {
        let sets = preamble
            .iter()
            .filter_map(|i| Some((i.result?, SetKind::of_name(import_name(i)?))))
            .collect();
        ExtSets { sets }
    }

    /// What the import `set` is (`None`: not an import).
    pub fn kind(&self, set: Id) -> Option<SetKind> {
        self.sets.iter().find(|(id, _)| *id == set).map(|&(_, k)| k)
    }

    /// Whether the module imports no debug-info set.
    pub fn is_empty(&self) -> bool {
        !self.sets.iter().any(|(_, k)| k.is_debug_info())
    }

    /// Whether an import is of a debug-info set (understood or legacy).
    pub fn is_debug_info(&self, set: Id) -> bool {
        self.kind(set).is_some_and(SetKind::is_debug_info)
    }

    /// Whether an import is of a non-semantic set (debug info or another `NonSemantic.*`).
    pub fn is_non_semantic(&self, set: Id) -> bool {
        self.kind(set).is_some_and(SetKind::is_non_semantic)
    }

    /// Whether `inst` is an instruction of a debug-info set: a record, understood or not.
    pub fn is_debug_info_inst(&self, inst: &Inst) -> bool {
        inst.ext_inst().is_some_and(|(s, _)| self.is_debug_info(s))
    }

    /// Whether `inst` is an instruction of a non-semantic set, debug info or not.
    pub fn is_non_semantic_inst(&self, inst: &Inst) -> bool {
        inst.ext_inst()
            .is_some_and(|(s, _)| self.is_non_semantic(s))
    }

    /// Which understood debug set the import `set` is.
    pub fn flavor(&self, set: Id) -> Option<Flavor> {
        match self.kind(set)? {
            SetKind::DebugInfo(f) => Some(f),
            _ => None,
        }
    }

    /// The id of the dialect's import, if the module has one.
    pub fn dialect_import(&self) -> Option<Id> {
        self.sets
            .iter()
            .find(|(_, k)| *k == SetKind::Dialect)
            .map(|(id, _)| *id)
    }

    /// The set and instruction number of any `OpExtInst` of an understood debug set, whether
    /// it fits the grammar or not.
    pub fn set_of(&self, inst: &Inst) -> Option<(Flavor, u32)> {
        let (set, n) = inst.ext_inst()?;
        Some((self.flavor(set)?, n))
    }

    /// The set and instruction number of a debug record the core understands: one its set's
    /// grammar has, with the operands the grammar gives it (see [`fits_grammar`]). Any other
    /// `OpExtInst` of a debug set is `None` here, as an instruction of an unknown set is: passes
    /// leave it as it was (it keeps what it names, as an opaque instruction does).
    pub fn record(&self, inst: &Inst) -> Option<(Flavor, u32)> {
        let (flavor, n) = self.set_of(inst)?;
        fits_grammar(inst, flavor, n).then_some((flavor, n))
    }

    /// Whether `inst` is debug record `n` of either understood set.
    pub fn is(&self, inst: &Inst, n: u32) -> bool {
        self.record(inst).is_some_and(|(_, k)| k == n)
    }

    /// `DebugDeclare` or `DebugValue`: describes a variable or value without using it.
    pub fn is_debug_use(&self, inst: &Inst) -> bool {
        self.record(inst)
            .is_some_and(|(_, n)| n == DECLARE || n == VALUE)
    }
}

impl ExtSets {
    /// Debug info in a function body that describes code without being code: `DebugDeclare`,
    /// `DebugValue` and the function's `DebugFunctionDefinition`. Its operands are debug uses,
    /// not uses (see `analysis::defuse`).
    pub fn is_debug_only(&self, inst: &Inst) -> bool {
        self.record(inst).is_some_and(|(flavor, n)| {
            n == DECLARE || n == VALUE || (flavor == Flavor::Shader && n == FUNCTION_DEFINITION)
        })
    }
}

/// The grammar entries of a set, by instruction number (the sets number their instructions
/// densely from 0, so a lookup is an index).
fn grammar_by_number(flavor: Flavor) -> &'static [Option<&'static ExtendedInstruction<'static>>] {
    use rspirv::grammar::{
        NONSEMANTIC_SHADER_DEBUGINFO_100_INSTRUCTION_TABLE as SHADER_TABLE,
        OPENCL_DEBUGINFO_100_INSTRUCTION_TABLE as OPENCL_TABLE,
    };
    static TABLES: OnceLock<[Vec<Option<&'static ExtendedInstruction<'static>>>; 2]> =
        OnceLock::new();
    let index = |table: &'static rspirv::grammar::InstructionTable<rspirv::grammar::ExtInstOp>| {
        let mut out: Vec<Option<&'static ExtendedInstruction<'static>>> = Vec::new();
        for g in table.iter() {
            let n = spirv::Word::from(g.opcode) as usize;
            if out.len() <= n {
                out.resize(n + 1, None);
            }
            out[n] = Some(g);
        }
        out
    };
    let tables = TABLES.get_or_init(|| [index(&SHADER_TABLE), index(&OPENCL_TABLE)]);
    match flavor {
        Flavor::Shader => &tables[0],
        Flavor::OpenCl => &tables[1],
    }
}

/// The grammar's name of instruction `n` of a set, if it has one.
pub fn record_name(flavor: Flavor, n: u32) -> Option<&'static str> {
    grammar_by_number(flavor)
        .get(n as usize)
        .copied()
        .flatten()
        .map(|g| g.opname)
}

/// Whether `inst`, instruction `n` of a debug set, is one the grammar has with the operands it
/// gives it: no fewer than it needs, no more than it takes, each an id where it takes an id
/// and a literal where it takes a literal.
pub fn fits_grammar(inst: &Inst, flavor: Flavor, n: u32) -> bool {
    use rspirv::grammar::{OperandKind as K, OperandQuantifier as Q};
    let Some(Some(g)) = grammar_by_number(flavor).get(n as usize) else {
        return false;
    };
    let mut count = 0;
    // After the set's import and the instruction number.
    for (k, o) in inst.operands().skip(2).enumerate() {
        let kind = match g.operands.get(k) {
            Some(l) => l.kind,
            None => match g.operands.last() {
                Some(l) if l.quantifier == Q::ZeroOrMore => l.kind,
                _ => return false,
            },
        };
        let takes_id = matches!(kind, K::IdRef | K::IdScope | K::IdMemorySemantics);
        if takes_id != o.id().is_some() {
            return false;
        }
        count = k + 1;
    }
    let needed = g.operands.iter().filter(|l| l.quantifier == Q::One).count();
    count >= needed
}
