//! Fast lookups into rspirv's grammar tables (which are linear lists).

use crate::ir::fxhash::FxHashMap;
use std::sync::OnceLock;

use rspirv::grammar::{self, ExtInstOp, Instruction, InstructionTable, INSTRUCTION_TABLE};

fn by_opcode() -> &'static [Option<&'static Instruction<'static>>] {
    static T: OnceLock<Vec<Option<&'static Instruction<'static>>>> = OnceLock::new();
    T.get_or_init(|| {
        let max = INSTRUCTION_TABLE
            .iter()
            .map(|i| i.opcode as usize)
            .max()
            .unwrap_or(0);
        let mut by_opcode = vec![None; max + 1];
        for inst in INSTRUCTION_TABLE.iter() {
            let slot = &mut by_opcode[inst.opcode as usize];
            // Aliases share an opcode; the first entry is the canonical spelling.
            if slot.is_none() {
                *slot = Some(inst);
            }
        }
        by_opcode
    })
}

/// Older spellings of renamed ops (the SPIR-V grammar's `aliases`), which rspirv's table does
/// not list but `spirv-dis` and other tools still print: assembled as the op they name.
const ALIASES: &[(&str, &str)] = &[
    ("DecorateStringGOOGLE", "DecorateString"),
    ("MemberDecorateStringGOOGLE", "MemberDecorateString"),
    ("ReportIntersectionNV", "ReportIntersectionKHR"),
    (
        "TypeAccelerationStructureNV",
        "TypeAccelerationStructureKHR",
    ),
    ("GroupNonUniformPartitionNV", "GroupNonUniformPartitionEXT"),
    ("DemoteToHelperInvocationEXT", "DemoteToHelperInvocation"),
    ("SDotKHR", "SDot"),
    ("UDotKHR", "UDot"),
    ("SUDotKHR", "SUDot"),
    ("SDotAccSatKHR", "SDotAccSat"),
    ("UDotAccSatKHR", "UDotAccSat"),
    ("SUDotAccSatKHR", "SUDotAccSat"),
    ("FunctionPointerINTEL", "ConstantFunctionPointerINTEL"),
];

/// By name: only what reads op names (the assemblers) builds it, not a reader or a run.
fn by_name() -> &'static FxHashMap<&'static str, &'static Instruction<'static>> {
    static T: OnceLock<FxHashMap<&'static str, &'static Instruction<'static>>> = OnceLock::new();
    T.get_or_init(|| {
        let mut by_name = FxHashMap::default();
        for inst in INSTRUCTION_TABLE.iter() {
            by_name.insert(inst.opname, inst);
        }
        for &(alias, canonical) in ALIASES {
            if let Some(&inst) = by_name.get(canonical) {
                by_name.entry(alias).or_insert(inst);
            }
        }
        by_name
    })
}

/// The grammar of a core opcode.
pub fn core(opcode: u32) -> Option<&'static Instruction<'static>> {
    by_opcode().get(opcode as usize).copied().flatten()
}

/// The grammar of a core instruction by name without the `Op` prefix.
pub fn core_by_name(name: &str) -> Option<&'static Instruction<'static>> {
    by_name().get(name).copied()
}

/// The instruction table of an extended instruction set, by its import name.
pub fn ext_set(name: &str) -> Option<&'static InstructionTable<ExtInstOp>> {
    grammar::ext_inst_table(name)
}

/// Name of an extended instruction, if the set is known (rspirv's sets and our dialect).
pub fn ext_inst_name(set: &str, number: u32) -> Option<&'static str> {
    if set == crate::ir::ops::DIALECT_SET {
        return crate::ir::ops::dialect(number).map(|o| o.name.as_str());
    }
    ext_set(set)?.lookup_opcode(number).map(|i| i.opname)
}

/// The number of a named extended instruction of a set (rspirv's sets and our dialect).
pub fn ext_inst_number(set: &str, name: &str) -> Option<u32> {
    if set == crate::ir::ops::DIALECT_SET {
        return crate::ir::ops::dialect_by_name(name).map(|o| o.number);
    }
    ext_set(set)?
        .iter()
        .find(|i| i.opname == name)
        .map(|i| i.opcode.into())
}

/// Positions (among the operands after result type and id) of the `IdScope` and
/// `IdMemorySemantics` operands of a core op: ids that are always 32-bit integer constants,
/// whatever the op computes on.
pub fn scope_operands(op: spirv::Op) -> impl Iterator<Item = usize> {
    use rspirv::grammar::OperandKind as K;
    core(op as u32)
        .into_iter()
        .flat_map(|g| g.operands.iter())
        .filter(|o| !matches!(o.kind, K::IdResultType | K::IdResult))
        .enumerate()
        .filter(|(_, o)| matches!(o.kind, K::IdScope | K::IdMemorySemantics))
        .map(|(k, _)| k)
}
