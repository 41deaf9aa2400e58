//! What the module declares beside its code: debug info and names, interface variables,
//! decorations, capabilities and extensions.

use spirv::Op;

use super::Chance;
use crate::ir::{Id, Module};

/// All debug info and names at once, when there are some.
pub(super) fn debug_info(m: &Module) -> Vec<Chance> {
    if !m.debug().is_empty()
        || m.functions().iter().any(|f| {
            f.insts()
                .any(|i| matches!(i.op(), Op::Line | Op::NoLine | Op::ExtInst))
        })
    {
        vec![Chance::DebugInfo]
    } else {
        Vec::new()
    }
}

/// Each variable of an entry point's interface, out of every entry point.
pub(super) fn interface(m: &Module) -> Vec<Chance> {
    let mut vars: Vec<Id> = m
        .entry_points()
        .iter()
        .flat_map(|e| e.args().iter().skip(1).copied())
        .collect();
    vars.sort_unstable();
    vars.dedup();
    vars.into_iter().map(Chance::Interface).collect()
}

/// Each annotation.
pub(super) fn decorations(m: &Module) -> Vec<Chance> {
    (0..m.annotations().len()).map(Chance::Decoration).collect()
}

/// Each extension, ext-inst import and capability but `Shader`.
pub(super) fn capabilities(m: &Module) -> Vec<Chance> {
    m.preamble()
        .iter()
        .enumerate()
        .filter(|(_, i)| {
            i.op() == Op::Extension
                || i.op() == Op::ExtInstImport
                || (i.op() == Op::Capability
                    && i.lits().first()
                        != Some(&rspirv::dr::Operand::Capability(spirv::Capability::Shader)))
        })
        .map(|(k, _)| Chance::Preamble(k))
        .collect()
}
