//! `ccp`: sparse conditional constant propagation (Wegman and Zadeck). Every value starts
//! "not yet known" and every edge "not taken"; from the entry, blocks become executable as
//! edges into them are found taken, and each instruction of an executable block is evaluated
//! with what its operands are known to be:
//! - the op table's folding rules, applied component-wise to vectors, and the composite ops
//!   (construct, extract, insert, shuffle), conversions and selects (`ir::consts`);
//! - a phi is the one constant its incoming values on taken edges agree on;
//! - a conditional branch on a constant takes only one edge, a switch on a constant only one
//!   case, so constants that flow only through the other edges do not spoil phis.
//!
//! A value found constant is replaced by the interned constant, and its instruction goes. A
//! branch whose condition is constant and which heads no construct (a loop's conditional
//! break or continue) becomes unconditional; a selection or loop header keeps its structure
//! with the constant condition, for `dead-branch` to remove the construct's dead part. Loads,
//! calls, spec constants and function parameters are not constants here.

use std::sync::Arc;

use spirv::Op;

use crate::ir::analysis::{Cfg, DefUse};
use crate::ir::consts::{switch_target, Const, Consts, Eval};
use crate::ir::ext_sets::ExtSets;
use crate::ir::func::Function;
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::rewrite::{self, fold_branch, forget, prune_unreachable_in, Replacer};
use crate::ir::{Id, InstId, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError};

pub struct Ccp;

#[derive(Clone, Debug, PartialEq)]
enum Lattice {
    /// Not known yet (optimistically: may still turn out constant).
    Top,
    Const(Const),
    /// Varies.
    Bottom,
}

fn meet(a: &Lattice, b: &Lattice) -> Lattice {
    match (a, b) {
        (Lattice::Top, x) | (x, Lattice::Top) => x.clone(),
        (Lattice::Const(x), Lattice::Const(y)) if x == y => Lattice::Const(x.clone()),
        _ => Lattice::Bottom,
    }
}

const ENTRY: usize = usize::MAX;

struct Solver<'a> {
    f: &'a Function,
    consts: &'a Consts,
    cfg: Arc<Cfg>,
    du: Arc<DefUse>,
    values: FxHashMap<Id, Lattice>,
    executable: Vec<bool>,
    edges: FxHashSet<(usize, usize)>,
    flow: Vec<(usize, usize)>,
    ssa: Vec<InstId>,
}

impl Solver<'_> {
    fn value(&self, id: Id) -> Lattice {
        if let Some(l) = self.values.get(&id) {
            return l.clone();
        }
        if self.f.value(id).is_some() {
            return Lattice::Top;
        }
        match self.consts.of(id) {
            Some(c) => Lattice::Const(c.clone()),
            None => Lattice::Bottom,
        }
    }

    fn set(&mut self, id: Id, new: Lattice) {
        let old = self.value(id);
        let lowered = match old {
            Lattice::Top => new,
            _ => meet(&old, &new),
        };
        if lowered != old {
            self.values.insert(id, lowered);
            self.ssa.extend(self.du.users(id));
        }
    }

    fn take(&mut self, from: usize, to: usize) {
        if self.edges.insert((from, to)) {
            self.flow.push((from, to));
        }
    }

    fn visit(&mut self, b: usize, i: InstId) {
        let inst = self.f.inst(i);
        match inst.op() {
            Op::Phi => {
                let Some(r) = inst.result() else { return };
                let mut acc = Lattice::Top;
                for pair in inst.args().chunks(2) {
                    let (&v, Some(&label)) = (&pair[0], pair.get(1)) else {
                        continue;
                    };
                    let Some(p) = self.cfg.block(label) else {
                        continue;
                    };
                    if self.edges.contains(&(p, b)) {
                        acc = meet(&acc, &self.value(v));
                    }
                }
                self.set(r, acc);
            }
            Op::Branch => {
                if let Some(t) = inst.args().first().and_then(|&l| self.cfg.block(l)) {
                    self.take(b, t);
                }
            }
            Op::BranchConditional => {
                let targets: smallvec::SmallVec<[usize; 2]> = inst.args()[1..]
                    .iter()
                    .filter_map(|&l| self.cfg.block(l))
                    .collect();
                match self.value(inst.args()[0]) {
                    Lattice::Top => {}
                    Lattice::Const(c) => match (c.as_bool(), targets.as_slice()) {
                        (Some(true), [t, ..]) | (Some(false), [_, t]) => self.take(b, *t),
                        _ => self.take_all(b, &targets),
                    },
                    Lattice::Bottom => self.take_all(b, &targets),
                }
            }
            Op::Switch => {
                let targets: Vec<usize> = inst.args()[1..]
                    .iter()
                    .filter_map(|&l| self.cfg.block(l))
                    .collect();
                match self.value(inst.args()[0]) {
                    Lattice::Top => {}
                    Lattice::Const(c) => match switch_target(inst, &c) {
                        Some(label) => {
                            if let Some(t) = self.cfg.block(label) {
                                self.take(b, t);
                            }
                        }
                        None => self.take_all(b, &targets),
                    },
                    Lattice::Bottom => self.take_all(b, &targets),
                }
            }
            _ => {
                let Some(r) = inst.result() else { return };
                // Most instructions have a few operands: no allocation for them per visit.
                let lattices: smallvec::SmallVec<[Lattice; 4]> =
                    inst.args().iter().map(|&a| self.value(a)).collect();
                let args: smallvec::SmallVec<[Option<&Const>; 4]> = lattices
                    .iter()
                    .map(|l| match l {
                        Lattice::Const(c) => Some(c),
                        _ => None,
                    })
                    .collect();
                let new = match self.consts.eval(inst, &args) {
                    Eval::Const(c) => Lattice::Const(c),
                    Eval::Operand(k) => lattices.get(k).cloned().unwrap_or(Lattice::Bottom),
                    // Known only once the operands are: an extended instruction's set and
                    // other non-values are never "not yet known".
                    Eval::Unknown if lattices.contains(&Lattice::Top) => Lattice::Top,
                    Eval::Unknown => Lattice::Bottom,
                };
                self.set(r, new);
            }
        }
    }

    fn take_all(&mut self, b: usize, targets: &[usize]) {
        for &t in targets {
            self.take(b, t);
        }
    }

    fn solve(&mut self) {
        self.flow.push((ENTRY, 0));
        loop {
            if let Some((from, to)) = self.flow.pop() {
                let first = !self.executable[to];
                self.executable[to] = true;
                let block = self.f.block(to);
                let insts: Vec<InstId> = block
                    .insts
                    .iter()
                    .copied()
                    .chain(std::iter::once(block.terminator))
                    .collect();
                for i in insts {
                    if first || self.f.inst(i).op() == Op::Phi {
                        self.visit(to, i);
                    }
                }
                let _ = from;
                continue;
            }
            if let Some(i) = self.ssa.pop() {
                if let Some(b) = self.du.block_of(i) {
                    if self.executable[b] {
                        self.visit(b, i);
                    }
                }
                continue;
            }
            break;
        }
    }
}

/// What the solver found in one function: constant values (with their types) and the
/// branches that take one edge (block, the label it goes to).
struct Found {
    constants: Vec<(Id, Id, Const)>,
    branches: Vec<(usize, Id)>,
}

fn solve_function(f: &Function, consts: &Consts, sets: &ExtSets) -> Found {
    let cfg = f.cfg();
    let n = cfg.len();
    let mut s = Solver {
        f,
        consts,
        cfg: cfg.clone(),
        du: f.def_use(sets),
        values: FxHashMap::default(),
        executable: vec![false; n],
        edges: FxHashSet::default(),
        flow: Vec::new(),
        ssa: Vec::new(),
    };
    s.solve();
    let mut constants = Vec::new();
    let mut branches = Vec::new();
    for b in 0..n {
        if !s.executable[b] {
            continue;
        }
        for i in f.block_insts(b) {
            let (Some(r), Some(ty)) = (i.result(), i.ty()) else {
                continue;
            };
            if let Some(Lattice::Const(c)) = s.values.get(&r) {
                constants.push((r, ty, c.clone()));
            }
        }
        let t = f.terminator(b);
        if matches!(t.op(), Op::BranchConditional | Op::Switch) {
            let taken: Vec<Id> = t
                .branch_targets()
                .iter()
                .copied()
                .filter(|&l| cfg.block(l).is_some_and(|tb| s.edges.contains(&(b, tb))))
                .collect();
            if let [one, rest @ ..] = taken.as_slice() {
                if rest.iter().all(|l| l == one) && t.branch_targets().iter().any(|l| l != one) {
                    branches.push((b, *one));
                }
            }
        }
    }
    Found {
        constants,
        branches,
    }
}

pub fn ccp(m: &mut Module) -> bool {
    let mut consts = Consts::new(m);
    let sets = ExtSets::of(m);
    let mut replace = Replacer::new();
    let mut gone: FxHashSet<Id> = FxHashSet::default();
    let mut changed = false;
    for k in 0..m.functions().len() {
        if m.functions()[k].is_declaration() {
            continue;
        }
        let found = solve_function(&m.functions()[k], &consts, &sets);
        if found.constants.is_empty() && found.branches.is_empty() {
            continue;
        }
        let fid = m.functions()[k].id();
        let mut folded: FxHashSet<Id> = FxHashSet::default();
        for (r, ty, c) in &found.constants {
            if let Some(id) = consts.materialize(m, *ty, c) {
                if replace.replace_in(fid, *r, id) {
                    folded.insert(*r);
                }
            }
        }
        rewrite::with_function(m, k, |m, f| {
            f.retain_all(|i| !i.result().is_some_and(|r| folded.contains(&r)));
            replace.apply_to_function(f);
            // Branches that head no construct take their one edge; headers keep their
            // (now constant) condition for dead-branch.
            let mut folded_branch = false;
            for &(b, live) in &found.branches {
                // A back edge stays: a loop header needs exactly one, even if it is never taken.
                let drops_back_edge = f.successors(b).iter().any(|&t| {
                    t != live
                        && f.block_index(t).is_some_and(|tb| {
                            matches!(f.block(tb).merge, Some(crate::ir::Merge::Loop { .. }))
                        })
                });
                if f.block(b).merge.is_none() && !drops_back_edge {
                    fold_branch(f, b, live);
                    folded_branch = true;
                }
            }
            let pruned = prune_unreachable_in(m, f);
            changed |= !folded.is_empty() || folded_branch || !pruned.is_empty();
            gone.extend(pruned);
        });
    }
    replace.apply(m, "ccp");
    forget(m, &gone);
    changed
}

impl Pass for Ccp {
    fn name(&self) -> &'static str {
        "ccp"
    }
    fn description(&self) -> &'static str {
        "sparse conditional constant propagation: constants through phis and branches taken"
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(ccp(m).into())
    }
}
