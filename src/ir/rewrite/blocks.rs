//! Changing blocks while keeping phis and merge annotations right.

use spirv::Op;

use super::super::func::{Function, Merge};
use super::super::inst::{Id, Inst};
use super::join::{structured_rules, Sides};

/// In block `b`, phis that name `from` as an incoming block name `to` instead.
pub fn redirect_phis(f: &mut Function, b: usize, from: Id, to: Id) {
    let phis: Vec<_> = f.block(b).insts.clone();
    for i in phis {
        if f.inst(i).op != Op::Phi {
            continue;
        }
        if f.inst(i).args.iter().skip(1).step_by(2).any(|&l| l == from) {
            let inst = f.inst_mut(i);
            for k in (1..inst.args.len()).step_by(2) {
                if inst.args[k] == from {
                    inst.args[k] = to;
                }
            }
        }
    }
}

/// Splits block `b` before position `pos` of its instruction list: the instructions from
/// `pos` on, the merge annotation and the terminator move to a new block labelled `label`,
/// placed right after `b`, which `b` now branches to. Phis of the old successors name the new
/// block. `pos` must not be inside `b`'s phis.
///
/// A loop header keeps its `OpLoopMerge` (back edges go to it); the new block then ends the
/// header's branch without a merge of its own, which is only structured when that branch is
/// unconditional or one of its targets is the loop's merge block or continue target — `None`
/// otherwise, and nothing changes.
pub fn split_block(f: &mut Function, b: usize, pos: usize, label: Id) -> Option<usize> {
    let block = f.block(b);
    let phis = block
        .insts
        .iter()
        .take_while(|&&i| f.inst(i).op == Op::Phi)
        .count();
    if pos < phis || pos > block.insts.len() {
        return None;
    }
    let loop_merge = match &block.merge {
        Some(Merge::Loop {
            merge,
            continue_target,
            ..
        }) => {
            let t = f.terminator(b);
            let ok = t.op == Op::Branch
                || t.branch_targets()
                    .iter()
                    .any(|l| l == merge || l == continue_target);
            if !ok {
                return None;
            }
            true
        }
        _ => false,
    };
    let succs: Vec<Id> = f.successors(b).to_vec();
    let old_label = block.label;
    // The branch stands where the code before it is.
    let like = pos
        .checked_sub(1)
        .map_or(block.terminator, |p| block.insts[p]);
    let branch = f.add_inst_like(Inst::with_args(Op::Branch, None, None, vec![label]), like);
    let mut blocks = std::mem::take(f.blocks_mut());
    let old = &mut blocks[b];
    let moved = old.insts.split_off(pos);
    let merge = if loop_merge { None } else { old.merge.take() };
    let terminator = std::mem::replace(&mut old.terminator, branch);
    blocks.insert(
        b + 1,
        super::super::func::Block {
            lines: Vec::new(),
            label,
            insts: moved,
            merge,
            terminator,
        },
    );
    *f.blocks_mut() = blocks;
    for s in succs {
        if let Some(si) = f.block_index(s) {
            redirect_phis(f, si, old_label, label);
        }
    }
    Some(b + 1)
}

/// Makes block `b` branch unconditionally to `live`, one of its current targets: the phis of
/// the targets it no longer branches to forget it as a predecessor. Its merge annotation is
/// the caller's to fix (an `OpSelectionMerge` must not stay before an `OpBranch`).
pub fn fold_branch(f: &mut Function, b: usize, live: Id) {
    let from = f.block(b).label;
    let dead: Vec<Id> = f
        .successors(b)
        .iter()
        .copied()
        .filter(|&t| t != live)
        .collect();
    f.set_terminator(b, Inst::with_args(Op::Branch, None, None, vec![live]));
    for t in dead {
        let Some(tb) = f.block_index(t) else { continue };
        remove_phi_incoming(f, tb, from);
    }
}

/// In block `b`, phis drop their incoming value from block `from`.
pub fn remove_phi_incoming(f: &mut Function, b: usize, from: Id) {
    let phis: Vec<_> = f.block(b).insts.clone();
    for i in phis {
        if f.inst(i).op != Op::Phi {
            break;
        }
        if !f.inst(i).args.chunks(2).any(|p| p.get(1) == Some(&from)) {
            continue;
        }
        let inst = f.inst_mut(i);
        let kept: Vec<Id> = inst
            .args
            .chunks(2)
            .filter(|p| p.get(1) != Some(&from))
            .flatten()
            .copied()
            .collect();
        inst.args = kept.into();
    }
}

/// Whether block `b` can be merged into its predecessor (see `merge_into_predecessor`):
/// `Ok(predecessor)` or the reason it cannot.
pub fn mergeable_into_predecessor(f: &Function, b: usize) -> Result<usize, &'static str> {
    if b == 0 {
        return Err("the entry block has no predecessor");
    }
    let label = f.block(b).label;
    let cfg = f.cfg();
    let [a] = cfg.preds[b].as_slice() else {
        return Err("the block has more than one predecessor");
    };
    let a = *a;
    if a == b || f.terminator(a).op != Op::Branch {
        return Err("the predecessor does not branch to it unconditionally");
    }
    let a_label = f.block(a).label;
    let (mut a_merge, mut a_continue, mut b_merge, mut b_continue) = (false, false, false, false);
    for x in f.blocks() {
        if let Some(m) = &x.merge {
            a_merge |= m.merge_block() == a_label;
            a_continue |= m.continue_target() == Some(a_label);
            b_merge |= m.merge_block() == label;
            b_continue |= m.continue_target() == Some(label);
        }
    }
    let a_is_case_target = f.blocks().iter().any(|x| {
        let t = f.inst(x.terminator);
        t.op == Op::Switch && t.args.iter().skip(1).any(|&l| l == a_label)
    });
    structured_rules(&Sides {
        a_merge: f.block(a).merge.as_ref(),
        a_is_merge_or_continue: a_merge || a_continue,
        a_is_case_target,
        b_label: label,
        b_is_merge_or_continue: b_merge || b_continue,
        b_is_header: f.block(b).merge.is_some(),
        b_terminator: f.terminator(b).op,
    })?;
    Ok(a)
}

/// Merges block `b` into its single predecessor `a`, which must end in `OpBranch` to it:
/// `b`'s instructions follow `a`'s and `b`'s terminator ends the block. `b`'s phis (one
/// incoming value each) are dropped and returned as (phi, value) for the caller to replace.
/// Where `b` was a merge block or continue target, `a` becomes it; a header merged with its
/// own merge block loses its merge annotation (the construct has no other block left).
/// Refused (`Err` with the reason, nothing changed) where the structured rules forbid it: see
/// `mergeable_into_predecessor`.
pub fn merge_into_predecessor(f: &mut Function, b: usize) -> Result<Vec<(Id, Id)>, String> {
    let label = f.block(b).label;
    let a = mergeable_into_predecessor(f, b)?;
    let a_label = f.block(a).label;
    let mut replaced = Vec::new();
    let ids = f.block(b).insts.clone();
    let mut kept = Vec::with_capacity(ids.len());
    for i in ids {
        let inst = f.inst(i);
        if inst.op == Op::Phi {
            if let (Some(r), Some(&v)) = (inst.result, inst.args.first()) {
                replaced.push((r, v));
            }
            f.free_inst(i);
        } else {
            kept.push(i);
        }
    }
    let succs: Vec<Id> = f.successors(b).to_vec();
    let mut blocks = std::mem::take(f.blocks_mut());
    let gone = blocks.remove(b);
    let pred = &mut blocks[if a > b { a - 1 } else { a }];
    let old_branch = std::mem::replace(&mut pred.terminator, gone.terminator);
    pred.insts.extend(kept);
    pred.merge = match pred.merge.take() {
        Some(m) if m.merge_block() != label => Some(m),
        _ => gone.merge,
    };
    // Headers that named `b` name `a` now.
    for x in &mut blocks {
        if let Some(m) = &mut x.merge {
            m.remap(|l| if l == label { a_label } else { l });
        }
    }
    *f.blocks_mut() = blocks;
    f.free_inst(old_branch);
    for s in succs {
        if let Some(si) = f.block_index(s) {
            redirect_phis(f, si, label, a_label);
        }
    }
    Ok(replaced)
}

/// Removes the blocks no path from the entry reaches. A block a reachable header names as
/// its merge block or continue target must stay: it is emptied instead, a merge block ending
/// in `OpUnreachable`, a continue target branching back to its header. Phis lose the incoming
/// values of edges that are gone, and an undefined value (of `undef(type)`) for a value that
/// went with a removed block. Returns the labels of the removed blocks and the results of the
/// instructions that went with them.
pub fn prune_unreachable(f: &mut Function, undef: &mut dyn FnMut(Id) -> Id) -> Vec<Id> {
    if f.is_declaration() {
        return Vec::new();
    }
    let cfg = f.cfg();
    if (0..cfg.len()).all(|b| cfg.reachable(b)) {
        return Vec::new();
    }
    // Blocks named by reachable headers, and the header a continue target returns to.
    let mut named: crate::ir::fxhash::FxHashMap<Id, Option<Id>> = Default::default();
    for (b, block) in f.blocks().iter().enumerate() {
        if !cfg.reachable(b) {
            continue;
        }
        if let Some(m) = &block.merge {
            named.entry(m.merge_block()).or_insert(None);
            if let Some(c) = m.continue_target() {
                named.insert(c, Some(block.label));
            }
        }
    }
    let mut gone = Vec::new();
    let mut blocks = std::mem::take(f.blocks_mut());
    let mut kept = Vec::with_capacity(blocks.len());
    let mut freed = Vec::new();
    for (b, block) in blocks.drain(..).enumerate() {
        if cfg.reachable(b) {
            kept.push(block);
            continue;
        }
        match named.get(&block.label) {
            Some(back) => {
                let term = match back {
                    Some(h) => Inst::with_args(Op::Branch, None, None, vec![*h]),
                    None => Inst::with_args(Op::Unreachable, None, None, vec![]),
                };
                let stub = super::super::func::Block {
                    lines: Vec::new(),
                    label: block.label,
                    insts: Vec::new(),
                    merge: None,
                    terminator: f.add_inst_like(term, block.terminator),
                };
                freed.push(block);
                kept.push(stub);
            }
            None => {
                gone.push(block.label);
                freed.push(block);
            }
        }
    }
    let mut results = Vec::new();
    for block in &freed {
        for &i in block.insts.iter().chain(std::iter::once(&block.terminator)) {
            results.extend(f.inst(i).result);
            f.free_inst(i);
        }
    }
    *f.blocks_mut() = kept;
    // Phis keep only the edges that still exist, and no value that is gone.
    let removed: crate::ir::fxhash::FxHashSet<Id> = results.iter().copied().collect();
    let cfg = f.cfg();
    for b in 0..cfg.len() {
        let preds: Vec<Id> = cfg.preds[b].iter().map(|&p| cfg.labels[p]).collect();
        let phis: Vec<_> = f.block(b).insts.clone();
        for i in phis {
            if f.inst(i).op != Op::Phi {
                break;
            }
            let phi = f.inst(i);
            if phi
                .args
                .chunks(2)
                .all(|c| preds.contains(&c[1]) && !removed.contains(&c[0]))
            {
                continue;
            }
            let ty = phi.ty.unwrap_or(0);
            let mut args: Vec<Id> = Vec::with_capacity(phi.args.len());
            for c in phi.args.chunks(2) {
                if preds.contains(&c[1]) {
                    let v = if removed.contains(&c[0]) {
                        undef(ty)
                    } else {
                        c[0]
                    };
                    args.extend([v, c[1]]);
                }
            }
            f.inst_mut(i).args = args.into();
        }
    }
    gone.extend(results);
    gone
}
