//! `strip-debug`: removes debug information — `OpName`, `OpMemberName`, `OpString`,
//! `OpSource*`, `OpModuleProcessed`, `OpLine`/`OpNoLine`, and the instructions of the debug-info
//! sets (`NonSemantic.Shader.DebugInfo.100`, `OpenCL.DebugInfo.100`, the older `DebugInfo`) with
//! their imports. Other non-semantic sets (`NonSemantic.DebugPrintf`, …) are not debug info:
//! their instructions stay (unless they name debug info that goes), with the `OpString`s they
//! name, and so does the
//! `SPV_KHR_non_semantic_info` extension while any `NonSemantic.*` import is left. Decorations
//! are kept: they are semantics, not debug info.

use std::collections::HashSet;

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::ext_sets::{import_name, ExtSets};
use crate::ir::inst::is_debug;
use crate::ir::rewrite;
use crate::ir::{Id, Inst, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct StripDebug;

pub fn strip_debug(m: &mut Module) -> bool {
    let before = m.inst_count();
    let sets = ExtSets::of(m);
    let debug_sets: HashSet<Id> = m
        .preamble()
        .iter()
        .filter_map(|i| i.result().filter(|&r| sets.is_debug_info(r)))
        .collect();
    let is_debug_info = |i: &Inst| {
        i.op() == Op::ExtInst && matches!(i.args().first(), Some(set) if debug_sets.contains(set))
    };
    // Instructions of other non-semantic sets that name what goes go too: they cannot be
    // said without it.
    let mut dropped: HashSet<Id> = HashSet::new();
    loop {
        let before = dropped.len();
        m.for_each_inst(|i| {
            let named_gone = || {
                sets.is_non_semantic_inst(i) && i.args()[1..].iter().any(|a| dropped.contains(a))
            };
            // (Strings stay while something names them, see below.)
            let gone = (is_debug(i.op()) && i.op() != Op::String) || is_debug_info(i);
            if gone || named_gone() {
                dropped.extend(i.result());
            }
        });
        if dropped.len() == before {
            break;
        }
    }
    let drop = |i: &Inst| {
        (is_debug(i.op()) && i.op() != Op::String)
            || is_debug_info(i)
            || i.result().is_some_and(|r| dropped.contains(&r))
    };
    rewrite::retain_trailing_debug(m, |i| !drop(i));
    rewrite::retain_globals(m, |i| !drop(i));
    for f in rewrite::functions_mut(m) {
        rewrite::retain_function_debug(f, |i| !drop(i));
        f.clear_locations();
        f.retain_all(|i| !drop(i));
    }
    // The strings what is left names (another non-semantic set's instructions may).
    let mut named: HashSet<Id> = HashSet::new();
    m.for_each_inst(|i| {
        if !is_debug(i.op()) {
            named.extend(i.args().iter().copied());
        }
    });
    rewrite::retain_debug(m, |i| {
        i.op() == Op::String && i.result().is_some_and(|r| named.contains(&r))
    });
    if !debug_sets.is_empty() {
        rewrite::retain_preamble(m, |i| !i.result().is_some_and(|r| debug_sets.contains(&r)));
        let any_left = m
            .preamble()
            .iter()
            .any(|i| import_name(i).is_some_and(|n| n.starts_with("NonSemantic.")));
        if !any_left {
            rewrite::retain_preamble(m, |i| {
                !(i.op() == Op::Extension
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
        "remove names, source text, line info and the debug-info sets' records"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(strip_debug(module).into())
    }
}
