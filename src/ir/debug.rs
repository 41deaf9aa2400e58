//! Debug info of the `NonSemantic.Shader.DebugInfo.100` and `OpenCL.DebugInfo.100` sets: which
//! `OpExtInst`s are debug records, and which of them only describe a value.
//!
//! `DebugDeclare` and `DebugValue` name a variable or a value without using it: they never keep
//! a value alive nor stop a pass from promoting, splitting or deleting it. Passes ask
//! [`DebugSets::is_debug_use`] to skip them, and the rewrite kit fixes them up afterwards
//! (`rewrite::debug`): what they describe may be gone.

use rspirv::dr::Operand;
use spirv::Op;

use super::inst::{Id, Inst};
use super::module::Module;

pub const SHADER_SET: &str = "NonSemantic.Shader.DebugInfo.100";
pub const OPENCL_SET: &str = "OpenCL.DebugInfo.100";

/// Instruction numbers; both sets share them where both have the instruction.
pub const INFO_NONE: u32 = 0;
pub const GLOBAL_VARIABLE: u32 = 18;
pub const FUNCTION: u32 = 20;
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

/// Which of the two sets an import is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Shader,
    OpenCl,
}

/// The debug-info sets a module imports, by the id of their import.
#[derive(Clone, Debug, Default)]
pub struct DebugSets {
    sets: Vec<(Id, Flavor)>,
}

impl DebugSets {
    pub fn of(m: &Module) -> Self {
        let sets = m
            .preamble
            .iter()
            .filter(|i| i.op == Op::ExtInstImport)
            .filter_map(|i| {
                let flavor = match i.lits().first() {
                    Some(Operand::LiteralString(s)) if s == SHADER_SET => Flavor::Shader,
                    Some(Operand::LiteralString(s)) if s == OPENCL_SET => Flavor::OpenCl,
                    _ => return None,
                };
                Some((i.result?, flavor))
            })
            .collect();
        DebugSets { sets }
    }

    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// The set and instruction number of a debug record.
    pub fn op(&self, inst: &Inst) -> Option<(Flavor, u32)> {
        let (set, n) = inst.ext_inst()?;
        self.sets
            .iter()
            .find(|(id, _)| *id == set)
            .map(|&(_, flavor)| (flavor, n))
    }

    /// Whether `inst` is debug record `n` of either set.
    pub fn is(&self, inst: &Inst, n: u32) -> bool {
        self.op(inst).is_some_and(|(_, k)| k == n)
    }

    /// `DebugDeclare` or `DebugValue`: describes a variable or value without using it.
    pub fn is_debug_use(&self, inst: &Inst) -> bool {
        self.op(inst)
            .is_some_and(|(_, n)| n == DECLARE || n == VALUE)
    }

    /// The ids of the imports.
    pub fn imports(&self) -> impl Iterator<Item = Id> + '_ {
        self.sets.iter().map(|(id, _)| *id)
    }

    /// The id of the first import, to make new records with.
    pub fn import(&self) -> Option<(Id, Flavor)> {
        self.sets.first().copied()
    }
}

/// `DebugGlobalVariable`'s variable among `args` (`NonSemantic.Shader.DebugInfo.100`, whose
/// numbers are ids too; in `OpenCL.DebugInfo.100` line and column are literals).
pub fn global_variable_arg(flavor: Flavor) -> usize {
    match flavor {
        Flavor::Shader => 8,
        Flavor::OpenCl => 6,
    }
}

/// The variable a `DebugGlobalVariable` describes: no use of it, so it goes when nothing else
/// uses it (and the record then names `DebugInfoNone`).
pub fn described_global(sets: &DebugSets, inst: &Inst) -> Option<Id> {
    match sets.op(inst)? {
        (flavor, GLOBAL_VARIABLE) => inst.arg(global_variable_arg(flavor)),
        _ => None,
    }
}

/// The source line a `DebugLine` (`NonSemantic.Shader.DebugInfo.100`) sets: the `OpString` id of
/// its `DebugSource`'s file and its first line. `None` for any other instruction, and for a
/// `DebugLine` whose operands are not a `DebugSource` and a 32-bit integer constant.
pub fn debug_line(m: &Module, sets: &DebugSets, inst: &Inst) -> Option<(Id, u32)> {
    if sets.op(inst)? != (Flavor::Shader, LINE) {
        return None;
    }
    let source = m.global(inst.arg(1)?)?;
    if !sets.is(source, SOURCE) {
        return None;
    }
    let file = source.arg(1)?;
    let line = m.global(inst.arg(2)?)?;
    if line.op != Op::Constant {
        return None;
    }
    Some((file, line.lit_u32(0)?))
}

/// The source texts `DebugSource` records embed (`NonSemantic.Shader.DebugInfo.100`): the
/// `OpString` id of the file and the text, with its `DebugSourceContinued` parts appended.
pub fn source_texts(m: &Module) -> Vec<(Id, String)> {
    let sets = DebugSets::of(m);
    if sets.is_empty() {
        return Vec::new();
    }
    let string = |id: Option<Id>| match m.debug.iter().find(|i| i.result == id && id.is_some()) {
        Some(i) if i.op == Op::String => match i.lits().first() {
            Some(Operand::LiteralString(s)) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    };
    let mut out: Vec<(Id, String)> = Vec::new();
    // A continuation belongs to the `DebugSource` just before it.
    let mut last: Option<usize> = None;
    for inst in m.globals() {
        match sets.op(inst) {
            Some((Flavor::Shader, SOURCE)) => {
                last = None;
                if let (Some(file), Some(text)) = (inst.arg(1), string(inst.arg(2))) {
                    out.push((file, text));
                    last = Some(out.len() - 1);
                }
            }
            Some((Flavor::Shader, SOURCE_CONTINUED)) => {
                if let (Some(k), Some(text)) = (last, string(inst.arg(1))) {
                    out[k].1.push_str(&text);
                }
            }
            _ => last = None,
        }
    }
    out
}

/// `DebugDeclare`'s and `DebugValue`'s operands among `args` (the set's import is `args[0]`).
pub const ARG_VARIABLE: usize = 1;
/// The variable (`DebugDeclare`) or the value (`DebugValue`) described.
pub const ARG_DESCRIBED: usize = 2;
pub const ARG_EXPRESSION: usize = 3;

/// The `DebugValue` saying that the variable `declare` (a `DebugDeclare`) describes now holds
/// `value`: same variable, expression and indexes, result `id`.
pub fn value_from_declare(declare: &Inst, value: Id, id: Id) -> Inst {
    let mut v = declare.clone();
    if let Some(n) = v.lits_mut().first_mut() {
        *n = Operand::LiteralExtInstInteger(VALUE);
    }
    if let Some(d) = v.args.get_mut(ARG_DESCRIBED) {
        *d = value;
    }
    v.result = Some(id);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::grammar::{
        NONSEMANTIC_SHADER_DEBUGINFO_100_INSTRUCTION_TABLE as SHADER,
        OPENCL_DEBUGINFO_100_INSTRUCTION_TABLE as OPENCL,
    };

    #[test]
    fn numbers_are_the_grammars() {
        let name = |n: u32| {
            SHADER
                .iter()
                .find(|i| spirv::Word::from(i.opcode) == n)
                .map(|i| i.opname)
        };
        for (n, expect) in [
            (INFO_NONE, "DebugInfoNone"),
            (GLOBAL_VARIABLE, "DebugGlobalVariable"),
            (FUNCTION, "DebugFunction"),
            (SCOPE, "DebugScope"),
            (NO_SCOPE, "DebugNoScope"),
            (INLINED_AT, "DebugInlinedAt"),
            (LOCAL_VARIABLE, "DebugLocalVariable"),
            (DECLARE, "DebugDeclare"),
            (VALUE, "DebugValue"),
            (EXPRESSION, "DebugExpression"),
            (SOURCE, "DebugSource"),
            (SOURCE_CONTINUED, "DebugSourceContinued"),
            (FUNCTION_DEFINITION, "DebugFunctionDefinition"),
            (LINE, "DebugLine"),
            (NO_LINE, "DebugNoLine"),
        ] {
            assert_eq!(
                name(n),
                Some(expect),
                "NonSemantic.Shader.DebugInfo.100 #{n}"
            );
            if n < FUNCTION_DEFINITION {
                let cl = OPENCL
                    .iter()
                    .find(|i| spirv::Word::from(i.opcode) == n)
                    .map(|i| i.opname);
                assert_eq!(cl, Some(expect), "OpenCL.DebugInfo.100 #{n}");
            }
        }
    }
}
