//! `strip-debug`: removes debug information — `OpName`, `OpMemberName`, `OpString`,
//! `OpSource*`, `OpModuleProcessed`, `OpLine`/`OpNoLine`, and non-semantic extended
//! instructions (`NonSemantic.*` sets, e.g. shader debug info) and those of the older `DebugInfo`
//! and `OpenCL.DebugInfo.100` sets, with their imports and, when no
//! such set is left, the `SPV_KHR_non_semantic_info` extension. Decorations are kept: they are
//! semantics, not debug info.

use std::collections::HashSet;

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::debug::is_debug_set;
use crate::ir::inst::is_debug;
use crate::ir::{Id, Inst, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct StripDebug;

pub fn strip_debug(m: &mut Module) -> bool {
    let before = m.inst_count();
    let nonsemantic: HashSet<Id> = m
        .preamble
        .iter()
        .filter(|i| i.op == Op::ExtInstImport)
        .filter(|i| matches!(i.lits().first(), Some(Operand::LiteralString(s)) if is_debug_set(s)))
        .filter_map(|i| i.result)
        .collect();
    let is_nonsemantic = |i: &Inst| {
        i.op == Op::ExtInst && matches!(i.args.first(), Some(set) if nonsemantic.contains(set))
    };
    let drop = |i: &Inst| is_debug(i.op) || is_nonsemantic(i);
    m.debug.clear();
    m.trailing_debug.clear();
    m.globals_mut().retain(|i| !drop(i));
    for f in m.functions_mut() {
        f.prologue_debug.clear();
        f.leading_debug.clear();
        f.epilogue_debug.clear();
        f.clear_locations();
        f.retain_all(|i| !drop(i));
    }
    if !nonsemantic.is_empty() {
        m.preamble
            .retain(|i| !i.result.is_some_and(|r| nonsemantic.contains(&r)));
        let any_left = m.preamble.iter().any(|i| {
            i.op == Op::ExtInstImport
                && matches!(i.lits().first(), Some(Operand::LiteralString(s)) if is_debug_set(s))
        });
        if !any_left {
            m.preamble.retain(|i| {
                !(i.op == Op::Extension
                    && matches!(i.lits().first(), Some(Operand::LiteralString(s)) if s == "SPV_KHR_non_semantic_info"))
            });
        }
    }
    m.reindex();
    m.inst_count() != before
}

impl Pass for StripDebug {
    fn name(&self) -> &'static str {
        "strip-debug"
    }
    fn description(&self) -> &'static str {
        "remove names, source text, line info and non-semantic debug instructions"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(strip_debug(module).into())
    }
}
