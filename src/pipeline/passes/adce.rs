//! `adce`: aggressive dead code elimination on the control-dependence graph. Everything is
//! dead until shown live, starting from what has an effect:
//! - instructions with side effects (writes to memory other than the function's own
//!   variables, barriers, atomics, calls, image writes, volatile loads, anything the op table
//!   does not describe), returns and other non-branch terminators;
//! - a store to a function variable (or a pointer into one) is live when the variable is:
//!   when some live instruction reads it; a store to a `Private` or `Workgroup` variable
//!   nothing in the module reads is dead;
//! - a live instruction makes live the definitions of its operands and the branches it is
//!   control dependent on (the blocks whose choice decides whether it runs — the reverse
//!   dominance frontier); a live phi makes live the branches that choose its incoming edges;
//! - the header of every construct around live code stays (the structured rules need it),
//!   and a loop with live code anywhere in it, its header included, keeps its header's branch,
//!   so it runs as often as before;
//! - a loop that never ends (no path reaches its merge block) stays whole.
//!
//! Debug info makes nothing live: source-location markers (`OpLine`, `DebugLine`,
//! `DebugScope`…) stay in the blocks that stay, except those that then describe nothing, and a
//! `DebugDeclare` or `DebugValue` stays while what it describes does.
//!
//! An entry point's interface loses the variables no function it calls uses (not
//! `SampleId`/`SamplePosition`, which turn on sample shading by being there).
//!
//! A loop with no live code goes (as spirv-opt's ADCE removes it): like every optimizer of
//! shaders, this assumes a loop without effects ends. Then dead instructions go; a selection
//! or loop header whose branch is dead branches straight to its merge block, which makes the
//! construct's blocks unreachable, and unreachable blocks go
//! (merge blocks and continue targets a header names are emptied instead). Finally, types,
//! constants (spec constants too, as spirv-opt -O: Vulkan ignores specialization entries for
//! ids a shader does not have) and global variables nothing uses any more go, with every name
//! and decoration of what went.

use spirv::{Op, StorageClass};

use super::dce::{is_pure, remove_unused_globals, SpecConstants};
use crate::ir::analysis::{CallGraph, ConstructKind};
use crate::ir::debug::{self, DebugSets};
use crate::ir::func::Function;
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::ops::ExtSets;
use crate::ir::rewrite;
use crate::ir::rewrite::Builder;
use crate::ir::rewrite::{forget, is_debug_only, prune_unreachable_in, undefine_debug_uses};
use crate::ir::types::pointer_type;
use crate::ir::{Id, InstId, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError};

pub struct Adce;

/// The function variable a pointer is into, if it is into one.
fn local_root(f: &Function, mut p: Id, locals: &FxHashSet<Id>) -> Option<Id> {
    for _ in 0..64 {
        if locals.contains(&p) {
            return Some(p);
        }
        let i = f.def_of(p)?;
        match i.op() {
            Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject => p = *i.args().first()?,
            _ => return None,
        }
    }
    None
}

/// The `Private` and `Workgroup` variables nothing in the module reads: every use, through
/// access chains, is the target of a store. Stores to them are dead.
fn write_only_globals(m: &Module) -> FxHashSet<Id> {
    let volatile: FxHashSet<Id> = m
        .annotations()
        .iter()
        .filter(|a| {
            a.op() == Op::Decorate
                && matches!(
                    a.lits().first(),
                    Some(rspirv::dr::Operand::Decoration(
                        spirv::Decoration::Volatile | spirv::Decoration::Coherent
                    ))
                )
        })
        .filter_map(|a| a.arg(0))
        .collect();
    let mut candidates: FxHashSet<Id> = m
        .globals()
        .iter()
        .filter(|g| {
            g.op() == Op::Variable
                && g.args().is_empty()
                && g.ty()
                    .and_then(|t| pointer_type(m, t))
                    .is_some_and(|(c, _)| {
                        matches!(c, StorageClass::Private | StorageClass::Workgroup)
                    })
        })
        .filter_map(|g| g.result())
        .filter(|r| !volatile.contains(r))
        .collect();
    let dsets = DebugSets::of(m);
    for f in m.functions() {
        // Pointers into a candidate: the chains based on it.
        let mut root: FxHashMap<Id, Id> = FxHashMap::default();
        for inst in f.body().filter(|i| !dsets.is_debug_use(i)) {
            for (k, a) in inst.args().iter().enumerate() {
                let Some(v) = root
                    .get(a)
                    .copied()
                    .or_else(|| candidates.contains(a).then_some(*a))
                else {
                    continue;
                };
                match (inst.op(), k) {
                    (Op::Store | Op::CopyMemory, 0) => {}
                    (Op::AccessChain | Op::InBoundsAccessChain, 0) => {
                        if let Some(r) = inst.result() {
                            root.insert(r, v);
                        }
                    }
                    _ => {
                        candidates.remove(&v);
                    }
                }
            }
        }
    }
    candidates
}

/// The module-level variable a pointer is into, through access chains.
fn global_root(f: &Function, mut p: Id) -> Option<Id> {
    for _ in 0..64 {
        match f.def_of(p) {
            None => return Some(p),
            Some(i) if matches!(i.op(), Op::AccessChain | Op::InBoundsAccessChain) => {
                p = *i.args().first()?
            }
            Some(_) => return None,
        }
    }
    None
}

/// Marks live instructions; returns the live set (by instruction index) and whether each
/// block's terminator is live.
fn mark(
    m: &Module,
    f: &Function,
    sets: &ExtSets,
    dsets: &DebugSets,
    write_only: &FxHashSet<Id>,
) -> (Vec<bool>, Vec<bool>) {
    let cfg = f.cfg();
    let cd = f.control_deps();
    let structure = f.structure();
    let n = cfg.len();
    let mut live = vec![false; f.arena_len()];
    // The block of each instruction, by slot.
    let mut block_of = vec![usize::MAX; f.arena_len()];
    let locals: FxHashSet<Id> = f
        .block_insts(0)
        .filter(|i| {
            i.op() == Op::Variable
                && i.ty()
                    .and_then(|t| pointer_type(m, t))
                    .is_some_and(|(c, _)| c == StorageClass::Function)
        })
        .filter_map(|i| i.result())
        .collect();
    // Stores into each function variable, kept until the variable is live.
    let mut stores_into: FxHashMap<Id, Vec<InstId>> = FxHashMap::default();
    let mut work: Vec<InstId> = Vec::new();
    for (b, i) in f.layout() {
        block_of[i.index()] = b;
        if !cfg.reachable(b) {
            continue;
        }
        let inst = f.inst(i);
        let root = match inst.op() {
            Op::Store | Op::CopyMemory => {
                match inst.args().first().and_then(|&p| local_root(f, p, &locals)) {
                    Some(v) => {
                        stores_into.entry(v).or_default().push(i);
                        false
                    }
                    // Nothing ever reads what it writes.
                    None => !inst
                        .args()
                        .first()
                        .and_then(|&p| global_root(f, p))
                        .is_some_and(|g| write_only.contains(&g)),
                }
            }
            Op::Branch | Op::BranchConditional | Op::Switch => false,
            Op::Phi | Op::Variable | Op::Undef => false,
            _ if is_debug_only(inst, dsets) => false,
            _ if inst.is_terminator() => true,
            _ => !is_pure(inst, sets),
        };
        if root {
            live[i.index()] = true;
            work.push(i);
        }
    }
    // A loop that never ends (its merge block unreachable) stays: removing it would let the
    // code after it run.
    let mut term_live = vec![false; n];
    for c in &structure.constructs {
        if c.kind == ConstructKind::Loop && c.merge.is_none_or(|mb| !cfg.reachable(mb)) {
            let t = f.block(c.header).terminator;
            term_live[c.header] = true;
            if !live[t.index()] {
                live[t.index()] = true;
                work.push(t);
            }
        }
    }
    let mut live_block_deps = vec![false; n];
    let push = |i: InstId, live: &mut Vec<bool>, work: &mut Vec<InstId>| {
        if !live[i.index()] {
            live[i.index()] = true;
            work.push(i);
        }
    };
    // The branches deciding whether an instruction runs (and, for a phi, which edge it came
    // by): one list, emptied for each.
    let mut deciding: Vec<usize> = Vec::new();
    loop {
        while let Some(i) = work.pop() {
            let inst = f.inst(i);
            let b = block_of[i.index()];
            // Operands defined here.
            for &a in inst.args() {
                if let Some(d) = f.value(a) {
                    push(d, &mut live, &mut work);
                }
            }
            // A live variable makes its stores live.
            if inst.op() == Op::Variable {
                if let Some(stores) = inst.result().and_then(|r| stores_into.remove(&r)) {
                    for s in stores {
                        push(s, &mut live, &mut work);
                    }
                }
            }
            // What decides whether block `x` runs: the branches it is control dependent on,
            // and the headers of the constructs around it (the branches out of a construct,
            // breaks to its merge, need it even where its branch decides nothing; a loop with
            // live code in it, its header's included, runs as often as it did).
            let mut depend_on = |x: usize, deciding: &mut Vec<usize>| {
                if live_block_deps[x] {
                    return;
                }
                live_block_deps[x] = true;
                deciding.extend(&cd.0[x]);
                let mut c = structure.innermost[x];
                while let Some(k) = c {
                    let h = structure.constructs[k].header;
                    if h != x || structure.constructs[k].kind != ConstructKind::Selection {
                        deciding.push(h);
                    }
                    c = structure.constructs[k].parent;
                }
            };
            depend_on(b, &mut deciding);
            // A live phi needs the edges it chooses between: their blocks run.
            if inst.op() == Op::Phi {
                for pair in inst.args().chunks(2) {
                    if let Some(p) = f.block_index(pair[1]) {
                        deciding.push(p);
                        depend_on(p, &mut deciding);
                    }
                }
            }
            for d in deciding.drain(..) {
                push(f.block(d).terminator, &mut live, &mut work);
                term_live[d] = true;
            }
        }
        // Blocks that stay reachable once dead headers branch to their merge blocks: a
        // conditional branch there that heads no construct stays, so its operands must.
        let reach = reachable_after_collapse(f, &cfg, &live);
        let mut more = false;
        for (b, &reached) in reach.iter().enumerate() {
            let t = f.block(b).terminator;
            if reached
                && f.block(b).merge.is_none()
                && matches!(f.inst(t).op(), Op::BranchConditional | Op::Switch)
                && !live[t.index()]
            {
                push(t, &mut live, &mut work);
                more = true;
            }
        }
        if !more {
            break;
        }
    }
    let term_live = (0..n)
        .map(|b| live[f.block(b).terminator.index()])
        .collect();
    (live, term_live)
}

/// The blocks reachable when every header whose branch is dead branches to its merge block.
fn reachable_after_collapse(
    f: &Function,
    cfg: &crate::ir::analysis::Cfg,
    live: &[bool],
) -> Vec<bool> {
    let n = cfg.len();
    let mut seen = vec![false; n];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if b >= n || seen[b] {
            continue;
        }
        seen[b] = true;
        let dead_header = f.block(b).merge.is_some() && !live[f.block(b).terminator.index()];
        match (dead_header, f.block(b).merge.as_ref()) {
            (true, Some(m)) => stack.extend(cfg.block(m.merge_block())),
            _ => stack.extend(cfg.succs[b].iter().copied()),
        }
    }
    seen
}

/// Removes what is dead from function `f`; returns the ids that went, or `None` when nothing
/// did.
fn sweep(
    m: &mut Module,
    f: &mut Function,
    sets: &ExtSets,
    dsets: &DebugSets,
    write_only: &FxHashSet<Id>,
) -> Option<FxHashSet<Id>> {
    let (mut live, term_live) = mark(m, f, sets, dsets, write_only);
    // Debug records stay where code stays; a declare or value of what goes says it is
    // undefined from there on.
    let mut undefined: FxHashMap<Id, Id> = FxHashMap::default();
    for (_, i) in f.layout() {
        let inst = f.inst(i);
        if live[i.index()] || !is_debug_only(inst, dsets) {
            continue;
        }
        live[i.index()] = true;
        let described = inst
            .arg(debug::ARG_DESCRIBED)
            .filter(|_| dsets.is_debug_use(inst));
        if let Some((d, v)) = described.and_then(|d| Some((d, f.value(d)?))) {
            if !live[v.index()] {
                undefined.extend(f.inst(v).ty().map(|t| (d, t)));
            }
        }
    }
    let mut changed = undefine_debug_uses(m, f, dsets, &undefined).unwrap_or(false);
    let mut gone: FxHashSet<Id> = FxHashSet::default();
    let cfg = f.cfg();
    for (b, &branch_live) in term_live.iter().enumerate() {
        if !cfg.reachable(b) {
            continue;
        }
        let removed = f.retain_ids(b, |i, inst| {
            let keep = live[i.index()];
            if !keep {
                gone.extend(inst.result());
            }
            keep
        });
        changed |= removed > 0;
        // A dead selection or loop: straight to its merge block.
        let t = f.terminator(b);
        let dead_loop = matches!(f.block(b).merge, Some(crate::ir::Merge::Loop { .. }));
        if !branch_live && (dead_loop || matches!(t.op(), Op::BranchConditional | Op::Switch)) {
            if let Some(merge) = f.block(b).merge.as_ref().map(|m| m.merge_block()) {
                f.set_merge(b, None);
                Builder::at_end(m, f, b).branch(merge);
                changed = true;
            }
        }
    }
    let pruned = prune_unreachable_in(m, f);
    changed |= !pruned.is_empty();
    gone.extend(pruned);
    changed.then_some(gone)
}

/// Takes out of each entry point's interface the variables that no function it calls uses (as
/// spirv-opt -O does): an input nobody reads, an output nobody writes (its value was
/// undefined), a built-in declared and never touched — but not `SampleId` or
/// `SamplePosition`, whose presence turns on sample shading, nor an output with an initializer
/// (which writes it). The variables then go with the
/// other unused globals. Returns whether an interface changed.
fn drop_unused_interface(m: &mut Module, sets: &ExtSets) -> bool {
    let cg = CallGraph::new(m);
    let sample_rate: FxHashSet<Id> = crate::ir::types::builtins(m)
        .into_iter()
        .filter(|(_, b)| matches!(b, spirv::BuiltIn::SampleId | spirv::BuiltIn::SamplePosition))
        .map(|(t, _)| t)
        .collect();
    // An output with an initializer writes it even when no code stores there.
    let initialized_outputs: FxHashSet<Id> = m
        .globals()
        .iter()
        .filter(|g| {
            g.op() == spirv::Op::Variable
                && !g.args().is_empty()
                && g.lits().first()
                    == Some(&rspirv::dr::Operand::StorageClass(
                        spirv::StorageClass::Output,
                    ))
        })
        .filter_map(|g| g.result())
        .collect();
    let mut changed = false;
    for e in 0..m.entry_points().len() {
        let Some(root) = m.entry_points()[e].arg(0).and_then(|f| cg.index(f)) else {
            continue;
        };
        let reached = cg.reachable_from([root]);
        let mut used: FxHashSet<Id> = FxHashSet::default();
        for (k, f) in m.functions().iter().enumerate() {
            if reached[k] {
                // A declare or value names a variable without using it.
                for inst in f.body().filter(|i| !sets.is_debug_use(i)) {
                    used.extend(inst.args().iter().copied());
                }
            }
        }
        changed |= rewrite::retain_interface(m, e, |v| {
            used.contains(&v) || sample_rate.contains(&v) || initialized_outputs.contains(&v)
        });
    }
    changed
}

pub fn adce(m: &mut Module) -> bool {
    let sets = ExtSets::of(m);
    let dsets = DebugSets::of(m);
    let write_only = write_only_globals(m);
    let mut gone: FxHashSet<Id> = FxHashSet::default();
    let mut changed = false;
    rewrite::edit_functions(m, |m, f| {
        if let Some(g) = sweep(m, f, &sets, &dsets, &write_only) {
            gone.extend(g);
            changed = true;
        }
    });
    changed |= drop_unused_interface(m, &sets);
    let before = m.globals().len();
    remove_unused_globals(m, &mut gone, SpecConstants::Remove);
    changed |= m.globals().len() != before;
    forget(m, &gone);
    if changed {
        m.reindex();
    }
    changed
}

impl Pass for Adce {
    fn name(&self) -> &'static str {
        "adce"
    }
    fn description(&self) -> &'static str {
        "aggressive dead code elimination: only what has an effect, and what it depends on, stays"
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(adce(m).into())
    }
}
