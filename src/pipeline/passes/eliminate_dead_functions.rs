//! `eliminate-dead-functions`: removes the functions no entry point can reach through calls,
//! with the names and decorations of everything they defined. Roots are the entry points,
//! exported functions (`LinkageAttributes` … `Export`) and any function an instruction other
//! than a call refers to (a kernel enqueue, say): those are kept, and so is what they call.
//!
//! It does not look inside functions (a call on a path that never runs still keeps its callee).

use rspirv::dr::Operand;
use spirv::{Decoration, LinkageType, Op};

use crate::ir::analysis::CallGraph;
use crate::ir::debug::{self, DebugSets};
use crate::ir::fxhash::FxHashSet;
use crate::ir::rewrite::{forget, is_metadata};
use crate::ir::{Id, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct EliminateDeadFunctions;

/// Functions that must stay whether called or not.
fn roots(m: &Module) -> FxHashSet<Id> {
    let mut roots: FxHashSet<Id> = m.entry_points().iter().filter_map(|e| e.arg(0)).collect();
    for a in m.annotations() {
        if let (
            Op::Decorate,
            Some(t),
            [Operand::Decoration(Decoration::LinkageAttributes), _, Operand::LinkageType(LinkageType::Export)],
        ) = (a.op(), a.arg(0), a.lits())
        {
            roots.insert(t);
        }
    }
    let functions: FxHashSet<Id> = m.functions().iter().map(|f| f.id()).collect();
    let dsets = DebugSets::of(m);
    // A function named by anything but a call's callee operand, metadata or its debug
    // records is in use.
    let mut note = |i: &crate::ir::Inst| {
        if is_metadata(i.op())
            || i.op() == Op::EntryPoint
            || dsets.is(i, debug::FUNCTION_DEFINITION)
            || dsets.is(i, debug::FUNCTION)
        {
            return;
        }
        let skip = usize::from(i.op() == Op::FunctionCall);
        for a in i.args().iter().skip(skip) {
            if functions.contains(a) {
                roots.insert(*a);
            }
        }
    };
    for g in m.globals() {
        note(g);
    }
    for f in m.functions() {
        for i in f.body() {
            note(i);
        }
    }
    roots
}

pub fn eliminate_dead_functions(m: &mut Module) -> bool {
    let cg = CallGraph::new(m);
    let roots = roots(m);
    let live = cg.reachable_from(
        cg.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| roots.contains(f))
            .map(|(i, _)| i),
    );
    if live.iter().all(|&l| l) {
        return false;
    }
    let mut gone: FxHashSet<Id> = FxHashSet::default();
    let mut k = 0;
    crate::ir::rewrite::retain_functions(m, |f| {
        let keep = live[k];
        k += 1;
        if !keep {
            gone.extend(f.defined_ids());
        }
        keep
    });
    forget(m, &gone);
    true
}

impl Pass for EliminateDeadFunctions {
    fn name(&self) -> &'static str {
        "eliminate-dead-functions"
    }
    fn description(&self) -> &'static str {
        "remove functions no entry point reaches through calls"
    }
    fn preserves(&self) -> Preserves {
        Preserves::All
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(eliminate_dead_functions(module).into())
    }
}
