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
use crate::ir::fxhash::FxHashSet;
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

const ENTRY: usize = usize::MAX;

struct Solver<'a> {
    f: &'a Function,
    consts: &'a Consts,
    cfg: Arc<Cfg>,
    du: Arc<DefUse>,
    /// By the defining instruction's slot: every value of the function starts unknown.
    values: Vec<Lattice>,
    executable: Vec<bool>,
    /// The edges found executable, by the block they leave (a block has few successors).
    edges: Vec<smallvec::SmallVec<[usize; 2]>>,
    flow: Vec<(usize, usize)>,
    ssa: Vec<InstId>,
}

/// A value's lattice as the solver knows it, borrowed: reading an operand costs no copy of
/// its constant (a composite's would allocate).
#[derive(Clone, Copy, PartialEq)]
enum Known<'a> {
    Top,
    Const(&'a Const),
    Bottom,
}

impl Known<'_> {
    fn to_lattice(self) -> Lattice {
        match self {
            Known::Top => Lattice::Top,
            Known::Const(c) => Lattice::Const(c.clone()),
            Known::Bottom => Lattice::Bottom,
        }
    }
}

/// The meet of what is known so far and one more value: the one constant they agree on.
fn meet_known(acc: Lattice, k: Known) -> Lattice {
    match (acc, k) {
        (acc, Known::Top) => acc,
        (Lattice::Top, k) => k.to_lattice(),
        (Lattice::Const(x), Known::Const(y)) if x == *y => Lattice::Const(x),
        _ => Lattice::Bottom,
    }
}

impl Solver<'_> {
    fn known(&self, id: Id) -> Known<'_> {
        if let Some(i) = self.f.value(id) {
            return match &self.values[i.index()] {
                Lattice::Top => Known::Top,
                Lattice::Const(c) => Known::Const(c),
                Lattice::Bottom => Known::Bottom,
            };
        }
        match self.consts.of(id) {
            Some(c) => Known::Const(c),
            None => Known::Bottom,
        }
    }

    /// Lowers `id` to its meet with `new`; its users are visited again when that changed it.
    fn set(&mut self, id: Id, new: Lattice) {
        // Only the function's own values are ever lowered (`id` is an instruction's result).
        let Some(i) = self.f.value(id) else { return };
        let slot = &mut self.values[i.index()];
        let lowered = match (&*slot, &new) {
            (_, Lattice::Top) | (Lattice::Bottom, _) => return,
            (Lattice::Const(x), Lattice::Const(y)) if x == y => return,
            (Lattice::Const(_), _) => Lattice::Bottom,
            (Lattice::Top, _) => new,
        };
        *slot = lowered;
        self.ssa.extend(self.du.users(id));
    }

    fn taken(&self, from: usize, to: usize) -> bool {
        self.edges[from].contains(&to)
    }

    fn take(&mut self, from: usize, to: usize) {
        if !self.taken(from, to) {
            self.edges[from].push(to);
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
                    if self.taken(p, b) {
                        acc = meet_known(acc, self.known(v));
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
                match self.known(inst.args()[0]) {
                    Known::Top => {}
                    Known::Const(c) => match (c.as_bool(), targets.as_slice()) {
                        (Some(true), [t, ..]) | (Some(false), [_, t]) => self.take(b, *t),
                        _ => self.take_all(b, &targets),
                    },
                    Known::Bottom => self.take_all(b, &targets),
                }
            }
            Op::Switch => {
                let targets: smallvec::SmallVec<[usize; 8]> = inst.args()[1..]
                    .iter()
                    .filter_map(|&l| self.cfg.block(l))
                    .collect();
                match self.known(inst.args()[0]) {
                    Known::Top => {}
                    Known::Const(c) => match switch_target(inst, c) {
                        Some(label) => {
                            if let Some(t) = self.cfg.block(label) {
                                self.take(b, t);
                            }
                        }
                        None => self.take_all(b, &targets),
                    },
                    Known::Bottom => self.take_all(b, &targets),
                }
            }
            _ => {
                let Some(r) = inst.result() else { return };
                // Most instructions have a few operands: no allocation for them per visit.
                // The operands' borrows end with the block: `set` writes.
                let new = {
                    let mut any_top = false;
                    let mut args: smallvec::SmallVec<[Option<&Const>; 4]> =
                        smallvec::SmallVec::with_capacity(inst.args().len());
                    for &a in inst.args() {
                        args.push(match self.known(a) {
                            Known::Const(c) => Some(c),
                            Known::Top => {
                                any_top = true;
                                None
                            }
                            Known::Bottom => None,
                        });
                    }
                    match self.consts.eval(inst, &args) {
                        Eval::Const(c) => Lattice::Const(c),
                        Eval::Operand(k) => inst
                            .args()
                            .get(k)
                            .map_or(Lattice::Bottom, |&a| self.known(a).to_lattice()),
                        // Known only once the operands are: an extended instruction's set and
                        // other non-values are never "not yet known".
                        Eval::Unknown if any_top => Lattice::Top,
                        Eval::Unknown => Lattice::Bottom,
                    }
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
                let f = self.f;
                let block = f.block(to);
                let insts = block.insts.iter().copied();
                for i in insts.chain(std::iter::once(block.terminator)) {
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
        values: vec![Lattice::Top; f.arena_len()],
        executable: vec![false; n],
        edges: vec![smallvec::SmallVec::new(); n],
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
        let block = f.block(b);
        for &i in &block.insts {
            let inst = f.inst(i);
            let (Some(r), Some(ty)) = (inst.result(), inst.ty()) else {
                continue;
            };
            if let Lattice::Const(c) = &s.values[i.index()] {
                constants.push((r, ty, c.clone()));
            }
        }
        let t = f.terminator(b);
        if matches!(t.op(), Op::BranchConditional | Op::Switch) {
            let taken: Vec<Id> = t
                .branch_targets()
                .iter()
                .copied()
                .filter(|&l| cfg.block(l).is_some_and(|tb| s.taken(b, tb)))
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
