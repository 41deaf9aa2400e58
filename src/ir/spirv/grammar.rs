//! Fast lookups into rspirv's grammar tables (which are linear lists).

use std::sync::OnceLock;

use rspirv::grammar::{self, ExtInstOp, Instruction, InstructionTable, INSTRUCTION_TABLE};

/// The grammar's instructions in opcode order (aliases, which share an opcode, in grammar
/// order: the canonical spelling first), with an index by opcode and one by name. Small on
/// purpose: a short run is mostly start-up, and each page a table touches is a page fault.
struct Tables {
    sorted: Vec<&'static Instruction<'static>>,
    /// Position in `sorted` + 1 of each opcode below `DENSE` (0: none); core ops are all
    /// below it, the rest are found by binary search.
    dense: Vec<u16>,
    /// Open addressing by name: position in `sorted` + 1 (0: empty).
    by_name: Vec<u16>,
}

const DENSE: usize = 1024;

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let mut sorted: Vec<&'static Instruction<'static>> = INSTRUCTION_TABLE.iter().collect();
        // The grammar lists instructions nearly in opcode order: a stable sort of sorted runs
        // is linear, and keeps aliases in grammar order.
        sorted.sort_by_key(|g| g.opcode as u32);
        let mut dense = vec![0u16; DENSE];
        for (k, g) in sorted.iter().enumerate().rev() {
            if let Some(slot) = dense.get_mut(g.opcode as usize) {
                *slot = k as u16 + 1;
            }
        }
        let mut by_name = vec![0u16; (sorted.len() * 2).next_power_of_two()];
        let mask = by_name.len() - 1;
        for (k, g) in sorted.iter().enumerate() {
            let mut at = name_hash(g.opname) & mask;
            loop {
                match by_name[at] {
                    0 => {
                        by_name[at] = k as u16 + 1;
                        break;
                    }
                    // The first entry of a name wins.
                    j if sorted[j as usize - 1].opname == g.opname => break,
                    _ => at = (at + 1) & mask,
                }
            }
        }
        Tables {
            sorted,
            dense,
            by_name,
        }
    })
}

/// A hash of an op name from its length and its first and last eight bytes, each read as
/// one word: names differ there (`TypeVector`, `CompositeExtract`), and hashing every byte of
/// every name was most of the cost of building the index.
fn name_hash(name: &str) -> usize {
    let b = name.as_bytes();
    let load = |part: &[u8]| {
        if let Some(w) = part.first_chunk::<8>() {
            u64::from_le_bytes(*w)
        } else {
            part.iter()
                .rev()
                .fold(0u64, |w, &x| (w << 8) | u64::from(x))
        }
    };
    let head = load(b);
    let tail = load(&b[b.len().saturating_sub(8)..]);
    let h = (head ^ b.len() as u64)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(29)
        ^ tail;
    (h.wrapping_mul(0x51_7c_c1_b7_27_22_0a_95) >> 40) as usize
}

/// Every spelling of a core opcode, the canonical one first.
pub fn core_spellings(opcode: u32) -> &'static [&'static Instruction<'static>] {
    let all = &tables().sorted;
    let Some(start) = core_position(opcode) else {
        return &[];
    };
    let len = all[start..]
        .iter()
        .take_while(|a| a.opcode as u32 == opcode)
        .count();
    &all[start..start + len]
}

/// The grammar of a core instruction by the name the grammar gives it (without `Op`).
pub fn core_named(name: &str) -> Option<&'static Instruction<'static>> {
    named_at(name).map(|k| tables().sorted[k])
}

/// Where the op spelled `name` is among the grammar's entries (`core_position`), when that is
/// its canonical spelling.
pub fn core_place(name: &str) -> Option<usize> {
    let k = named_at(name)?;
    let sorted = &tables().sorted;
    (k == 0 || sorted[k - 1].opcode != sorted[k].opcode).then_some(k)
}

fn named_at(name: &str) -> Option<usize> {
    let t = tables();
    let mask = t.by_name.len() - 1;
    let mut at = name_hash(name) & mask;
    loop {
        match t.by_name[at] {
            0 => return None,
            k if t.sorted[k as usize - 1].opname == name => return Some(k as usize - 1),
            _ => at = (at + 1) & mask,
        }
    }
}

/// Older spellings of renamed ops (the SPIR-V grammar's `aliases`), which rspirv's table does
/// not list but `spirv-dis` and other tools still print: assembled as the op they name.
static ALIASES: &[(&str, &str)] = &[
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

/// The grammar of a core opcode.
pub fn core(opcode: u32) -> Option<&'static Instruction<'static>> {
    core_position(opcode).map(|k| tables().sorted[k])
}

/// Where a core opcode's canonical spelling is among the grammar's `core_count()` entries:
/// an index for tables kept beside the grammar.
pub fn core_position(opcode: u32) -> Option<usize> {
    let t = tables();
    match t.dense.get(opcode as usize) {
        Some(0) => None,
        Some(&k) => Some(k as usize - 1),
        None => {
            let start = t.sorted.partition_point(|a| (a.opcode as u32) < opcode);
            (t.sorted.get(start)?.opcode as u32 == opcode).then_some(start)
        }
    }
}

/// How many entries (spellings) the core grammar has.
pub fn core_count() -> usize {
    tables().sorted.len()
}

/// The grammar of a core instruction by name without the `Op` prefix, older spellings too.
pub fn core_by_name(name: &str) -> Option<&'static Instruction<'static>> {
    core_named(name).or_else(|| {
        let (_, canonical) = ALIASES.iter().find(|(alias, _)| *alias == name)?;
        core_named(canonical)
    })
}

/// The instruction table of an extended instruction set, by its import name.
pub fn ext_set(name: &str) -> Option<&'static InstructionTable<ExtInstOp>> {
    grammar::ext_inst_table(name)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry of the grammar is found by name and by opcode, and an opcode gives its
    /// first spelling in grammar order, below the dense index's end and above it alike.
    #[test]
    fn every_entry_is_found_by_name_and_by_opcode() {
        let mut above_dense = 0;
        for g in INSTRUCTION_TABLE.iter() {
            let opcode = g.opcode as u32;
            let first = INSTRUCTION_TABLE
                .iter()
                .find(|e| e.opcode as u32 == opcode)
                .expect("itself");
            assert_eq!(core(opcode).map(|c| c.opname), Some(first.opname));
            assert_eq!(core_named(g.opname).map(|c| c.opname), Some(g.opname));
            let place = core_position(opcode).expect("a place");
            assert_eq!(
                core_place(g.opname),
                (g.opname == first.opname).then_some(place)
            );
            assert_eq!(core_spellings(opcode)[0].opname, first.opname);
            above_dense += usize::from(opcode as usize >= DENSE);
        }
        assert!(above_dense > 100, "extension opcodes are searched too");
        assert!(core(3).is_some() && core(0xfff0).is_none() && core(700).is_none());
        assert!(core_named("NoSuchOp").is_none());
        assert_eq!(core_by_name("SDotKHR").map(|c| c.opname), Some("SDot"));
    }
}
