//! Rule families 2, 3 and 4: blocks, branches and merges, SSA dominance and phis, and the
//! structured constructs of a function.

use super::*;
use crate::ir::fxhash::{FxHashMap, FxHashSet};

impl<'m> Verifier<'m> {
    /// Rules 2 to 4 over function `f`, and each instruction's own rules.
    pub(super) fn function(&mut self, f: &Function) {
        if f.blocks().is_empty() {
            return;
        }
        let cfg = f.cfg();
        let dom = f.domtree();
        // SPIR-V exempts unreachable blocks from the dominance rules.
        let dominates = |a: usize, b: usize| !cfg.reachable(b) || dom.dominates(a, b);
        // Where each local value is defined: (block index, position); params at (usize::MAX, 0).
        let mut def_at: FxHashMap<Id, (usize, usize)> = FxHashMap::default();
        def_at.reserve(f.arena_len());
        for p in &f.params {
            if let Some(r) = p.result {
                def_at.insert(r, (usize::MAX, 0));
            }
        }
        for bi in 0..f.blocks().len() {
            for (k, i) in f.block_insts(bi).enumerate() {
                if let Some(r) = i.result {
                    def_at.insert(r, (bi, k));
                }
            }
        }
        let labels: FxHashSet<Id> = cfg.labels.iter().copied().collect();
        let mut merge_owner: FxHashMap<Id, Id> = FxHashMap::default();

        for bi in 0..f.blocks().len() {
            self.branches(f, &cfg, &dominates, &labels, &mut merge_owner, bi);
            self.block_body(f, &cfg, &dominates, &def_at, bi);
        }
    }

    /// Rules 2 and 4 for block `bi`: its branch targets, its merge annotation and the
    /// terminator it needs, and the blocks the annotation names (`merge_owner`: each merge
    /// block's header so far).
    fn branches(
        &mut self,
        f: &Function,
        cfg: &Cfg,
        dominates: &dyn Fn(usize, usize) -> bool,
        labels: &FxHashSet<Id>,
        merge_owner: &mut FxHashMap<Id, Id>,
        bi: usize,
    ) {
        let fid = Some(f.id());
        let b = &f.blocks()[bi];
        let at = Some(b.label);
        for &t in f.successors(bi) {
            if !labels.contains(&t) {
                self.error(
                    fid,
                    at,
                    format!("branch to %{t}, which is not a block of this function"),
                );
            }
        }
        if let Some(merge) = &b.merge {
            let (kind_ok, what) = match merge {
                Merge::Selection { .. } => (
                    matches!(f.terminator(bi).op, Op::BranchConditional | Op::Switch),
                    "OpSelectionMerge must be followed by OpBranchConditional or OpSwitch",
                ),
                Merge::Loop { .. } => (
                    matches!(f.terminator(bi).op, Op::Branch | Op::BranchConditional),
                    "OpLoopMerge must be followed by OpBranch or OpBranchConditional",
                ),
            };
            if !kind_ok {
                self.error(fid, at, what.into());
            }
            let mb = merge.merge_block();
            match cfg.index.get(&mb) {
                None => self.error(
                    fid,
                    at,
                    format!("merge block %{mb} is not a block of this function"),
                ),
                Some(&mi) => {
                    if let Some(prev) = merge_owner.insert(mb, b.label) {
                        self.error(
                            fid,
                            at,
                            format!("%{mb} is already the merge block of header %{prev}"),
                        );
                    }
                    if cfg.reachable(bi) && cfg.reachable(mi) && !dominates(bi, mi) {
                        self.error(
                            fid,
                            at,
                            format!("header does not dominate its merge block %{mb}"),
                        );
                    }
                }
            }
            if let Some(ct) = merge.continue_target() {
                match cfg.index.get(&ct) {
                    None => self.error(
                        fid,
                        at,
                        format!("continue target %{ct} is not a block of this function"),
                    ),
                    Some(&ci) => {
                        if cfg.reachable(bi) && cfg.reachable(ci) && !dominates(bi, ci) {
                            self.error(
                                fid,
                                at,
                                format!("loop header does not dominate its continue target %{ct}"),
                            );
                        }
                    }
                }
            }
        }
    }

    /// Rule 3 for block `bi` (phis first, uses dominated by their definitions), and each of
    /// its instructions' own rules.
    fn block_body(
        &mut self,
        f: &Function,
        cfg: &Cfg,
        dominates: &dyn Fn(usize, usize) -> bool,
        def_at: &FxHashMap<Id, (usize, usize)>,
        bi: usize,
    ) {
        let fid = Some(f.id());
        let b = &f.blocks()[bi];
        let mut seen_non_phi = false;
        let all = f.block_insts(bi).chain(std::iter::once(f.terminator(bi)));
        for (k, i) in all.enumerate() {
            let at = i.result.or(Some(b.label));
            if i.op == Op::Phi {
                if seen_non_phi {
                    self.error(fid, at, "OpPhi after a non-phi instruction".into());
                }
                self.phi(f, cfg, dominates, def_at, bi, i);
                continue;
            }
            seen_non_phi = true;
            if cfg.reachable(bi) {
                for u in i.id_operands() {
                    if let Some(&(db, dk)) = def_at.get(&u) {
                        let ok = db == usize::MAX
                            || (db == bi && dk < k)
                            || (db != bi && dominates(db, bi));
                        if !ok {
                            self.error(
                                fid,
                                at,
                                format!("use of %{u} is not dominated by its definition"),
                            );
                        }
                    }
                }
            }
            self.check_inst(Some(f), i, at);
            self.operand_types(f, i, at);
        }
    }

    pub(super) fn phi(
        &mut self,
        f: &Function,
        cfg: &Cfg,
        dominates: &dyn Fn(usize, usize) -> bool,
        def_at: &FxHashMap<Id, (usize, usize)>,
        bi: usize,
        i: &Inst,
    ) {
        let fid = Some(f.id());
        let at = i.result;
        let ids: Vec<Id> = i.id_operands().collect();
        if !ids.len().is_multiple_of(2) {
            self.error(
                fid,
                at,
                "OpPhi operands must be (value, block) pairs".into(),
            );
            return;
        }
        for pair in ids.chunks(2) {
            let (value, pred) = (pair[0], pair[1]);
            let Some(&pi) = cfg.index.get(&pred) else {
                self.error(
                    fid,
                    at,
                    format!("OpPhi names %{pred}, which is not a block of this function"),
                );
                continue;
            };
            if !cfg.preds[bi].contains(&pi) {
                self.error(
                    fid,
                    at,
                    format!("OpPhi names %{pred}, which is not a predecessor"),
                );
                continue;
            }
            if let Some(&(db, _)) = def_at.get(&value) {
                if db != usize::MAX && cfg.reachable(pi) && !dominates(db, pi) {
                    self.error(
                        fid,
                        at,
                        format!("phi value %{value} does not dominate incoming block %{pred}"),
                    );
                }
            }
            if let (Some(t), Some(vt)) = (i.ty, self.value_type(value)) {
                if !self.compatible(vt, t) {
                    self.error(
                        fid,
                        at,
                        format!("phi value %{value} has type %{vt}, the phi has %{t}"),
                    );
                }
            }
        }
    }
}
