//! `block-merge`: a block whose only predecessor branches to it unconditionally joins that
//! predecessor. Inlining leaves such chains at every call site (the call's block, the
//! callee's entry, its return block, the block after the call), and `dead-branch` leaves
//! them where a branch lost an arm.
//!
//! The structured rules decide what may join (see `ir::rewrite::mergeable_into_predecessor`):
//! a merge block or continue target may join its predecessor, which then takes that role; a
//! loop header may take in the block after it when that block is no header and ends in a
//! branch; a header joined with its own merge block drops its merge annotation. Two merge
//! blocks, two headers, or a merge block and a continue target never join, and with
//! `SPV_KHR_maximal_reconvergence` a merge block keeps its own block (merging would change
//! where invocations reconverge). A loop's continue block stays apart from a one-block body
//! that the header branches to (see `makes_body_the_continue_target`: a driver runs that form
//! wrongly). Unreachable blocks are removed first, as they would only block merges.
//!
//! Phis of a joined block have one incoming value and are replaced by it; a debug line
//! that the joined block's first line overrides goes.

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::func::Function;
use crate::ir::fxhash::FxHashSet;
use crate::ir::rewrite::{
    drop_superseded_lines, forget, merge_into_predecessor, mergeable_into_predecessor,
    prune_unreachable, Replacer,
};
use crate::ir::{Id, Inst, Merge, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError};

pub struct BlockMerge;

/// Whether `b` is named as a merge block by some header of `f`.
fn is_merge_block(f: &Function, b: usize) -> bool {
    let label = f.block(b).label;
    f.blocks()
        .iter()
        .any(|x| x.merge.as_ref().is_some_and(|m| m.merge_block() == label))
}

/// Whether joining `b` to its predecessor `a` would leave a loop header branching
/// conditionally straight to its continue target, the continue target then holding the whole
/// loop body. That is valid SPIR-V (spirv-opt -O makes it), but Mesa 22.3's lavapipe runs such
/// loops wrongly when invocations leave them at different iterations (one iteration too
/// many), and a separate continue block costs two instructions.
fn makes_body_the_continue_target(f: &Function, a: usize, b: usize) -> bool {
    let label = f.block(b).label;
    let cfg = f.cfg();
    f.blocks().iter().enumerate().any(|(h, x)| {
        let Some(Merge::Loop {
            continue_target, ..
        }) = &x.merge
        else {
            return false;
        };
        let conditional = |t: &Inst| matches!(t.op, Op::BranchConditional | Op::Switch);
        // `b` is the continue target and `a`, which becomes it, a conditional target of the
        // header; or `a` is the header and `b` branches conditionally to the continue target.
        (*continue_target == label
            && h != a
            && conditional(f.terminator(h))
            && cfg.succs[h].contains(&a))
            || (h == a
                && *continue_target != x.label
                && conditional(f.terminator(b))
                && f.terminator(b).args.contains(continue_target))
    })
}

fn merge_function(
    m: &mut Module,
    f: &mut Function,
    keep_merges: bool,
    replace: &mut Replacer,
    gone: &mut FxHashSet<Id>,
) -> bool {
    let mut undef = |ty: Id| m.undef(ty).unwrap_or(0);
    let pruned = prune_unreachable(f, &mut undef);
    let mut changed = !pruned.is_empty();
    gone.extend(pruned);
    let fid = f.id();
    let mut b = 1;
    while b < f.blocks().len() {
        let joinable = match mergeable_into_predecessor(f, b) {
            Ok(a) => {
                !(makes_body_the_continue_target(f, a, b) || keep_merges && is_merge_block(f, b))
            }
            Err(_) => false,
        };
        if !joinable {
            b += 1;
            continue;
        }
        let label = f.block(b).label;
        match merge_into_predecessor(f, b) {
            Ok(phis) => {
                for (phi, value) in phis {
                    replace.replace_in(fid, phi, value);
                    gone.insert(phi);
                }
                gone.insert(label);
                changed = true;
                // The block that took `b` in may take its new successor too: blocks are in
                // dominance order, so that successor comes after it, and `b` now names the
                // block that followed the removed one.
            }
            Err(_) => b += 1,
        }
    }
    if changed {
        replace.apply_to_function(f);
        // A joined block's first line overrides the last line of the block it joined.
        drop_superseded_lines(f);
    }
    changed
}

pub fn block_merge(m: &mut Module) -> bool {
    let keep_merges = m.preamble.iter().any(|i| {
        i.op == Op::Extension
            && matches!(i.lits().first(), Some(Operand::LiteralString(s)) if s == "SPV_KHR_maximal_reconvergence")
    });
    let mut replace = Replacer::new();
    let mut gone = FxHashSet::default();
    let mut changed = false;
    for k in 0..m.functions().len() {
        if m.functions()[k].is_declaration() {
            continue;
        }
        let placeholder = Function::new(m.functions()[k].def.clone(), Vec::new());
        let mut f = std::mem::replace(m.function_at_mut(k), placeholder);
        changed |= merge_function(m, &mut f, keep_merges, &mut replace, &mut gone);
        *m.function_at_mut(k) = f;
    }
    replace.apply(m, "block-merge");
    forget(m, &gone);
    changed
}

impl Pass for BlockMerge {
    fn name(&self) -> &'static str {
        "block-merge"
    }
    fn description(&self) -> &'static str {
        "join a block to its only predecessor when that predecessor branches only to it"
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(block_merge(m).into())
    }
}
