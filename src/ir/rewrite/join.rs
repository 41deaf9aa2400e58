//! Every block that may join its single predecessor, joined in one sweep: what
//! `merge_into_predecessor` does for one block, in time linear in the function (one CFG, the
//! roles of blocks — merge block, continue target, header — followed as they move, the layout
//! rebuilt once).

use spirv::Op;

use super::super::func::{Function, InstId, Merge};
use super::super::fxhash::{FxHashMap, FxHashSet};
use super::super::inst::{Id, Inst};

/// What the structured rules ask of a block `b` joining its predecessor `a` (the shared rule
/// of `mergeable_into_predecessor` and `join_blocks`).
pub(super) struct Sides<'a> {
    pub a_merge: Option<&'a Merge>,
    pub a_is_merge_or_continue: bool,
    pub a_is_case_target: bool,
    pub b_label: Id,
    pub b_is_merge_or_continue: bool,
    pub b_is_header: bool,
    pub b_terminator: Op,
}

pub(super) fn structured_rules(s: &Sides) -> Result<(), &'static str> {
    // One block cannot be the merge block of two constructs, nor a merge block and a
    // continue target at once.
    if s.a_is_merge_or_continue && s.b_is_merge_or_continue {
        return Err("both blocks are merge blocks or continue targets");
    }
    match s.a_merge {
        // The header and its own merge block: the construct has no other block left.
        Some(m) if m.merge_block() == s.b_label => {}
        Some(Merge::Selection { .. }) => {
            return Err("a selection header must end in a conditional branch or switch")
        }
        Some(Merge::Loop { .. }) => {
            if s.b_is_header {
                return Err("both blocks are headers");
            }
            // OpLoopMerge must be followed by a branch.
            if !matches!(s.b_terminator, Op::Branch | Op::BranchConditional) {
                return Err("a loop header must end in a branch");
            }
        }
        None => {}
    }
    // A case target stays where the switch's case construct begins: merging a merge block
    // or continue target into it would take that block out of the construct.
    if s.b_is_merge_or_continue && s.a_is_case_target {
        return Err("the predecessor is the target of a switch case");
    }
    Ok(())
}

/// The state of a sweep, for a caller's veto: blocks by their index in the layout before the
/// sweep; a block that joined another is seen through the block it joined.
pub struct JoinState {
    labels: Vec<Id>,
    leader: Vec<usize>,
    terminator: Vec<InstId>,
    merge: Vec<Option<Merge>>,
    /// Per label: how many headers name it as merge block, as continue target.
    merge_named: FxHashMap<Id, u32>,
    continue_named: FxHashMap<Id, u32>,
    /// Per label: the blocks whose annotation names it (some may have joined others since).
    named_by: FxHashMap<Id, Vec<usize>>,
}

impl JoinState {
    /// The block `b` is part of now.
    pub fn find(&self, mut b: usize) -> usize {
        while self.leader[b] != b {
            b = self.leader[b];
        }
        b
    }
    pub fn label(&self, b: usize) -> Id {
        self.labels[self.find(b)]
    }
    pub fn terminator<'f>(&self, f: &'f Function, b: usize) -> &'f Inst {
        f.inst(self.terminator[self.find(b)])
    }
    pub fn merge(&self, b: usize) -> Option<&Merge> {
        self.merge[self.find(b)].as_ref()
    }
    pub fn is_merge_block(&self, label: Id) -> bool {
        self.merge_named.get(&label).is_some_and(|&n| n > 0)
    }
    pub fn is_continue_target(&self, label: Id) -> bool {
        self.continue_named.get(&label).is_some_and(|&n| n > 0)
    }
    /// The blocks whose merge annotation names `label` now.
    pub fn headers_naming(&self, label: Id) -> impl Iterator<Item = usize> + '_ {
        self.named_by
            .get(&label)
            .into_iter()
            .flatten()
            .map(|&h| self.find(h))
            .filter(move |&h| {
                self.merge[h]
                    .as_ref()
                    .is_some_and(|m| m.merge_block() == label || m.continue_target() == Some(label))
            })
    }
}

/// Joins every block that may join its single predecessor (the rules of
/// `mergeable_into_predecessor`), unless `veto(f, state, a, b)` refuses (`a` the block `b`
/// would join, as `JoinState` sees it). Phis of joined blocks are dropped and returned as
/// (phi, value) for the caller to replace; phis elsewhere name the blocks that took their
/// incoming blocks in. Returns the labels of the blocks that went, and those pairs.
pub fn join_blocks(
    f: &mut Function,
    veto: &mut dyn FnMut(&Function, &JoinState, usize, usize) -> bool,
) -> (Vec<Id>, Vec<(Id, Id)>) {
    let n = f.blocks().len();
    if n < 2 {
        return (Vec::new(), Vec::new());
    }
    let cfg = f.cfg();
    let labels: Vec<Id> = f.blocks().iter().map(|b| b.label).collect();
    let mut state = JoinState {
        labels: labels.clone(),
        leader: (0..n).collect(),
        terminator: f.blocks().iter().map(|b| b.terminator).collect(),
        merge: f.blocks().iter().map(|b| b.merge.clone()).collect(),
        merge_named: FxHashMap::default(),
        continue_named: FxHashMap::default(),
        named_by: FxHashMap::default(),
    };
    for (h, b) in f.blocks().iter().enumerate() {
        if let Some(m) = &b.merge {
            *state.merge_named.entry(m.merge_block()).or_default() += 1;
            state.named_by.entry(m.merge_block()).or_default().push(h);
            if let Some(c) = m.continue_target() {
                *state.continue_named.entry(c).or_default() += 1;
                state.named_by.entry(c).or_default().push(h);
            }
        }
    }
    let case_targets: FxHashSet<Id> = f
        .blocks()
        .iter()
        .map(|x| f.inst(x.terminator))
        .filter(|t| t.op == Op::Switch)
        .flat_map(|t| t.args.iter().skip(1).copied())
        .collect();
    // Per block: the blocks joined into it, in order (itself first).
    let mut members: Vec<Vec<usize>> = (0..n).map(|b| vec![b]).collect();
    let mut freed: Vec<InstId> = Vec::new();
    let mut gone: Vec<Id> = Vec::new();
    for b in 1..n {
        let [a] = cfg.preds[b].as_slice() else {
            continue;
        };
        let (a, b_label) = (state.find(*a), labels[b]);
        if a == b {
            continue;
        }
        let a_term = f.inst(state.terminator[a]);
        if a_term.op != Op::Branch || a_term.args.first() != Some(&b_label) {
            continue;
        }
        let a_label = labels[a];
        let role = |l: Id| state.is_merge_block(l) || state.is_continue_target(l);
        let sides = Sides {
            a_merge: state.merge[a].as_ref(),
            a_is_merge_or_continue: role(a_label),
            a_is_case_target: case_targets.contains(&a_label),
            b_label,
            b_is_merge_or_continue: role(b_label),
            b_is_header: state.merge[b].is_some(),
            b_terminator: f.inst(state.terminator[b]).op,
        };
        if structured_rules(&sides).is_err() || veto(f, &state, a, b) {
            continue;
        }
        // Join: `a` takes `b`'s blocks, terminator and roles.
        state.leader[b] = a;
        freed.push(state.terminator[a]);
        state.terminator[a] = state.terminator[b];
        let b_members = std::mem::take(&mut members[b]);
        members[a].extend(b_members);
        gone.push(b_label);
        let b_merge = state.merge[b].take();
        state.merge[a] = match state.merge[a].take() {
            Some(m) if m.merge_block() == b_label => {
                // A header joined with its own merge block: the construct is gone.
                *state.merge_named.entry(b_label).or_default() -= 1;
                if let Some(c) = m.continue_target() {
                    *state.continue_named.entry(c).or_default() -= 1;
                }
                b_merge
            }
            Some(m) => Some(m),
            None => b_merge,
        };
        // Headers that named `b` name `a` now.
        let naming: Vec<usize> = state.named_by.remove(&b_label).unwrap_or_default();
        for &h in &naming {
            let h = state.find(h);
            if let Some(m) = &mut state.merge[h] {
                m.remap(|l| if l == b_label { a_label } else { l });
            }
        }
        state.named_by.entry(a_label).or_default().extend(naming);
        for roles in [&mut state.merge_named, &mut state.continue_named] {
            if let Some(k) = roles.remove(&b_label) {
                *roles.entry(a_label).or_default() += k;
            }
        }
    }
    if gone.is_empty() {
        return (gone, Vec::new());
    }
    // The new layout: each remaining block with what joined it.
    let renamed: FxHashMap<Id, Id> = (0..n)
        .filter(|&b| state.leader[b] != b)
        .map(|b| (labels[b], state.label(b)))
        .collect();
    let mut replaced = Vec::new();
    let mut old = std::mem::take(f.blocks_mut());
    let mut blocks = Vec::with_capacity(n - gone.len());
    for b in 0..n {
        if state.leader[b] != b {
            continue;
        }
        let mut block = std::mem::replace(
            &mut old[b],
            super::super::func::Block {
                lines: Vec::new(),
                label: 0,
                insts: Vec::new(),
                merge: None,
                terminator: InstId(0),
            },
        );
        for &m in &members[b][1..] {
            for &i in &old[m].insts {
                let inst = f.inst(i);
                if inst.op == Op::Phi {
                    if let (Some(r), Some(&v)) = (inst.result, inst.args.first()) {
                        replaced.push((r, v));
                    }
                    freed.push(i);
                } else {
                    block.insts.push(i);
                }
            }
        }
        block.merge = state.merge[b].take();
        block.terminator = state.terminator[b];
        blocks.push(block);
    }
    *f.blocks_mut() = blocks;
    for i in freed {
        f.free_inst(i);
    }
    // Phis name the blocks that took their incoming blocks in.
    let phis: Vec<InstId> = f
        .blocks()
        .iter()
        .flat_map(|b| b.insts.iter().copied())
        .filter(|&i| f.inst(i).op == Op::Phi)
        .collect();
    for i in phis {
        if f.inst(i)
            .args
            .iter()
            .skip(1)
            .step_by(2)
            .any(|l| renamed.contains_key(l))
        {
            let inst = f.inst_mut(i);
            for k in (1..inst.args.len()).step_by(2) {
                if let Some(&to) = renamed.get(&inst.args[k]) {
                    inst.args[k] = to;
                }
            }
        }
    }
    (gone, replaced)
}
