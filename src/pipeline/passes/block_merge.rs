//! `block-merge`: a block whose only predecessor branches to it unconditionally joins that
//! predecessor. Inlining leaves such chains at every call site (the call's block, the
//! callee's entry, its return block, the block after the call), and `dead-branch` leaves
//! them where a branch lost an arm.
//!
//! All joins happen in one sweep (`ir::rewrite::join_blocks`, linear in the function). The
//! structured rules decide what may join (see `ir::rewrite::mergeable_into_predecessor`):
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
use crate::ir::rewrite::{self, forget, join_blocks, prune_unreachable_in, JoinState, Replacer};
use crate::ir::{Id, Inst, Merge, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError};

pub struct BlockMerge;

/// Whether joining `b` to `a` would leave a loop header branching conditionally straight to
/// its continue target, the continue target then holding the whole loop body. That is valid
/// SPIR-V (spirv-opt -O makes it), but Mesa 22.3's lavapipe runs such loops wrongly when
/// invocations leave them at different iterations (one iteration too many), and a separate
/// continue block costs two instructions.
fn makes_body_the_continue_target(f: &Function, s: &JoinState, a: usize, b: usize) -> bool {
    let conditional = |t: &Inst| matches!(t.op(), Op::BranchConditional | Op::Switch);
    let (a_label, b_label) = (s.label(a), s.label(b));
    // `b` is the continue target and `a`, which becomes it, a conditional target of the header.
    let b_continues = s.is_continue_target(b_label)
        && s.headers_naming(b_label).any(|h| {
            h != a
                && s.merge(h).and_then(|m| m.continue_target()) == Some(b_label)
                && conditional(s.terminator(f, h))
                && s.terminator(f, h).args().contains(&a_label)
        });
    // `a` is a loop header and `b` branches conditionally to its continue target.
    let header_takes_branch = match s.merge(a) {
        Some(Merge::Loop {
            continue_target, ..
        }) => {
            *continue_target != a_label
                && conditional(s.terminator(f, b))
                && s.terminator(f, b).args().contains(continue_target)
        }
        _ => false,
    };
    b_continues || header_takes_branch
}

fn merge_function(
    m: &mut Module,
    f: &mut Function,
    keep_merges: bool,
    replace: &mut Replacer,
    gone: &mut FxHashSet<Id>,
) -> bool {
    let pruned = prune_unreachable_in(m, f);
    let mut changed = !pruned.is_empty();
    gone.extend(pruned);
    let fid = f.id();
    let (joined, phis) = join_blocks(f, &mut |f, s, a, b| {
        makes_body_the_continue_target(f, s, a, b) || keep_merges && s.is_merge_block(s.label(b))
    });
    if !joined.is_empty() {
        for (phi, value) in phis {
            replace.replace_in(fid, phi, value);
            gone.insert(phi);
        }
        gone.extend(joined);
        changed = true;
        replace.apply_to_function(f);
    }
    changed
}

pub fn block_merge(m: &mut Module) -> bool {
    let keep_merges = m.preamble().iter().any(|i| {
        i.op() == Op::Extension
            && matches!(i.lits().first(), Some(Operand::LiteralString(s)) if s == "SPV_KHR_maximal_reconvergence")
    });
    let mut replace = Replacer::new();
    let mut gone = FxHashSet::default();
    let mut changed = false;
    rewrite::edit_functions(m, |m, f| {
        changed |= merge_function(m, f, keep_merges, &mut replace, &mut gone);
    });
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
