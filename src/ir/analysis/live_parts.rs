//! Which parts of a function's composite values are ever read: for every vector, matrix,
//! struct or array value, the index paths (as `OpCompositeExtract` spells them) that something
//! reads. `vector-dce` and `dead-insert` rewrite what no one reads.
//!
//! Liveness flows backwards from the uses: an instruction the analysis does not see through
//! reads all of each operand; an extract reads the part at its path; an insert passes the
//! parts under its path to the object it inserts and the others to the composite it inserts
//! into (an inserted part hides the same part of that composite); a phi and a copy pass what
//! is read of their result to their operands; a construct passes each constituent what is read
//! of its place; a shuffle passes each source the components it picks; a component-wise
//! operation (arithmetic, comparisons, conversions, the GLSL.std.450 functions the op table
//! folds component by component) passes its vector operands the components read of its
//! result. A value of a type that is not composite is read when anything uses it.

use rspirv::dr::Operand;
use spirv::Op;

use super::super::func::Function;
use super::super::fxhash::FxHashMap;
use super::super::inst::{Id, Inst};
use super::super::module::Module;
use super::super::ops::{self, ExtSets};
use super::super::types::{literal_path, member_type, members, vector_len};

/// Beyond this many live paths a value counts as wholly read (keeps the analysis linear).
const MAX_PATHS: usize = 32;
/// An insert into an aggregate with more members than this hides nothing (the other members
/// are not listed one by one).
const MAX_SPLIT: u32 = 32;

/// The read parts of one value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parts {
    All,
    /// These paths and everything under them; empty when nothing is read.
    Paths(Vec<Vec<u32>>),
}

impl Parts {
    const NONE: Parts = Parts::Paths(Vec::new());

    pub fn is_none(&self) -> bool {
        matches!(self, Parts::Paths(p) if p.is_empty())
    }

    /// Whether anything at or under `path` is read.
    pub fn reads(&self, path: &[u32]) -> bool {
        match self {
            Parts::All => true,
            Parts::Paths(ps) => ps
                .iter()
                .any(|p| p.starts_with(path) || path.starts_with(p)),
        }
    }

    /// The parts under `path`, seen from the value at `path`.
    fn under(&self, path: &[u32]) -> Parts {
        match self {
            Parts::All => Parts::All,
            Parts::Paths(ps) => {
                if ps.iter().any(|p| path.starts_with(p)) {
                    return Parts::All;
                }
                Parts::Paths(
                    ps.iter()
                        .filter(|p| p.starts_with(path))
                        .map(|p| p[path.len()..].to_vec())
                        .collect(),
                )
            }
        }
    }

    /// Adds `path`; returns whether that read more.
    fn add(&mut self, path: Vec<u32>) -> bool {
        let Parts::Paths(ps) = self else {
            return false;
        };
        if path.is_empty() || ps.len() >= MAX_PATHS {
            *self = Parts::All;
            return true;
        }
        if ps.iter().any(|p| path.starts_with(p)) {
            return false;
        }
        ps.retain(|p| !p.starts_with(&path));
        ps.push(path);
        true
    }

    fn add_all(&mut self, other: &Parts) -> bool {
        match other {
            Parts::All => {
                let grew = *self != Parts::All;
                *self = Parts::All;
                grew
            }
            Parts::Paths(ps) => ps.iter().fold(false, |g, p| self.add(p.clone()) | g),
        }
    }
}

pub struct LiveParts {
    parts: FxHashMap<Id, Parts>,
}

/// Whether `inst` computes each component of its vector result from the same component of
/// its vector operands.
fn component_wise(m: &Module, f: &Function, inst: &Inst, sets: &ExtSets) -> bool {
    let n = inst.ty.and_then(|t| vector_len(m, t));
    match inst.op {
        Op::ConvertFToU
        | Op::ConvertFToS
        | Op::ConvertSToF
        | Op::ConvertUToF
        | Op::UConvert
        | Op::SConvert
        | Op::FConvert
        | Op::QuantizeToF16
        | Op::IsNan
        | Op::IsInf
        | Op::IsFinite
        | Op::IsNormal
        | Op::SignBitSet
        | Op::FRem
        | Op::FMod
        | Op::SMod
        | Op::FUnordEqual
        | Op::FUnordNotEqual
        | Op::FUnordLessThan
        | Op::FUnordGreaterThan
        | Op::FUnordLessThanEqual
        | Op::FUnordGreaterThanEqual
        | Op::BitReverse
        | Op::BitCount
        | Op::BitFieldInsert
        | Op::BitFieldSExtract
        | Op::BitFieldUExtract
        | Op::Select
        | Op::VectorTimesScalar => true,
        // A bitcast may change the component count (two 32-bit words from one 64-bit value).
        Op::Bitcast => false,
        _ => {
            ops::for_inst(inst, sets).is_some_and(|i| i.fold.is_some_and(|f| f.is_component_wise()))
                && inst.args.iter().all(|&a| {
                    // Every vector operand has the result's shape (the set id of an extended
                    // instruction has no type).
                    type_of(m, f, a)
                        .and_then(|t| vector_len(m, t))
                        .is_none_or(|k| Some(k) == n)
                })
        }
    }
}

/// The type of a value of `f` or of a global one (a constant, an undef).
fn type_of(m: &Module, f: &Function, id: Id) -> Option<Id> {
    f.def_of(id).or_else(|| m.global(id)).and_then(|i| i.ty)
}

fn is_composite(m: &Module, ty: Id) -> bool {
    members(m, ty).is_some()
}

/// `All` minus the part at `path` of a value of type `ty`: the other members at each level.
fn all_but(m: &Module, ty: Id, path: &[u32], prefix: &mut Vec<u32>, out: &mut Parts) {
    let Some((&first, rest)) = path.split_first() else {
        return;
    };
    let Some(ms) = members(m, ty).filter(|ms| ms.count() <= MAX_SPLIT) else {
        out.add(prefix.clone());
        return;
    };
    for k in 0..ms.count() {
        prefix.push(k);
        if k != first {
            out.add(prefix.clone());
        } else if let Some(t) = ms.get(k) {
            all_but(m, t, rest, prefix, out);
        }
        prefix.pop();
    }
}

impl LiveParts {
    pub fn new(m: &Module, f: &Function, sets: &ExtSets) -> Self {
        let ty_of = |id: Id| type_of(m, f, id);
        let tracked = |id: Id| {
            f.def_of(id)
                .and_then(|i| i.ty)
                .is_some_and(|t| is_composite(m, t))
        };
        let du = f.def_use(sets);
        let mut parts: FxHashMap<Id, Parts> = FxHashMap::default();
        let mut work: Vec<Id> = Vec::new();
        let read = |parts: &mut FxHashMap<Id, Parts>, work: &mut Vec<Id>, id: Id, p: &Parts| {
            if !tracked(id) {
                return;
            }
            let e = parts.entry(id).or_insert(Parts::NONE);
            if e.add_all(p) {
                work.push(id);
            }
        };
        // Seeds: operands of instructions not seen through are wholly read; a seen-through
        // instruction with a non-composite result is wholly read when that result is used.
        for inst in f.body() {
            // Debug records read nothing: a value only they describe is not computed for
            // them. `DebugPrintf` and other non-semantic sets' instructions read what they
            // name, as a record the core does not understand does.
            if sets.record(inst).is_some() {
                continue;
            }
            let through = inst.result.is_some() && sees_through(m, f, inst, sets);
            if !through {
                for &a in &inst.args {
                    read(&mut parts, &mut work, a, &Parts::All);
                }
            } else if let Some(r) = inst.result {
                if !tracked(r) && du.is_used(r) {
                    parts.insert(r, Parts::All);
                    work.push(r);
                }
            }
        }
        while let Some(id) = work.pop() {
            let Some(inst) = f.def_of(id) else { continue };
            // Too few operands for its op: not a module the verifier accepts; read nothing.
            let need = match inst.op {
                Op::CompositeExtract | Op::CopyObject => 1,
                Op::CompositeInsert | Op::VectorShuffle => 2,
                _ => 0,
            };
            if inst.args.len() < need {
                continue;
            }
            let live = parts.get(&id).cloned().unwrap_or(Parts::NONE);
            let path = || literal_path(inst);
            match inst.op {
                Op::CompositeExtract => {
                    let at = path();
                    let mut p = Parts::NONE;
                    match &live {
                        Parts::All => {
                            p.add(at);
                        }
                        Parts::Paths(ps) => {
                            for q in ps {
                                p.add(at.iter().chain(q).copied().collect());
                            }
                        }
                    }
                    read(&mut parts, &mut work, inst.args[0], &p);
                }
                Op::CompositeInsert => {
                    let at = path();
                    read(&mut parts, &mut work, inst.args[0], &live.under(&at));
                    let comp_ty = inst.ty.unwrap_or(0);
                    let mut rest = Parts::NONE;
                    match &live {
                        Parts::All => all_but(m, comp_ty, &at, &mut Vec::new(), &mut rest),
                        Parts::Paths(ps) => {
                            for q in ps {
                                if q.starts_with(&at) {
                                    continue;
                                }
                                if at.starts_with(q) {
                                    let t = member_type(m, comp_ty, q).unwrap_or(0);
                                    all_but(m, t, &at[q.len()..], &mut q.clone(), &mut rest);
                                } else {
                                    rest.add(q.clone());
                                }
                            }
                        }
                    }
                    read(&mut parts, &mut work, inst.args[1], &rest);
                }
                Op::Phi => {
                    for pair in inst.args.chunks(2) {
                        read(&mut parts, &mut work, pair[0], &live);
                    }
                }
                Op::CopyObject => read(&mut parts, &mut work, inst.args[0], &live),
                Op::CompositeConstruct => {
                    let ty = inst.ty.unwrap_or(0);
                    if vector_len(m, ty).is_some() {
                        let mut at = 0u32;
                        for &c in &inst.args {
                            let n = ty_of(c).and_then(|t| vector_len(m, t));
                            let width = n.unwrap_or(1);
                            if n.is_some() {
                                let mut p = Parts::NONE;
                                for k in 0..width {
                                    if live.reads(&[at + k]) {
                                        p.add(vec![k]);
                                    }
                                }
                                read(&mut parts, &mut work, c, &p);
                            }
                            at += width;
                        }
                    } else {
                        for (k, &c) in inst.args.iter().enumerate() {
                            read(&mut parts, &mut work, c, &live.under(&[k as u32]));
                        }
                    }
                }
                Op::VectorShuffle => {
                    let na = ty_of(inst.args[0])
                        .and_then(|t| vector_len(m, t))
                        .unwrap_or(0);
                    let (mut a, mut b) = (Parts::NONE, Parts::NONE);
                    for (i, o) in inst.lits().iter().enumerate() {
                        let Operand::LiteralBit32(c) = o else {
                            continue;
                        };
                        if *c == u32::MAX || !live.reads(&[i as u32]) {
                            continue;
                        }
                        if *c < na {
                            a.add(vec![*c]);
                        } else {
                            b.add(vec![*c - na]);
                        }
                    }
                    read(&mut parts, &mut work, inst.args[0], &a);
                    read(&mut parts, &mut work, inst.args[1], &b);
                }
                _ => {
                    // Component-wise: vector operands read what is read of the result; other
                    // operands (a scalar condition or factor) wholly, when anything is.
                    let n = inst.ty.and_then(|t| vector_len(m, t));
                    for &a in &inst.args {
                        let an = ty_of(a).and_then(|t| vector_len(m, t));
                        if an.is_some() && an == n {
                            read(&mut parts, &mut work, a, &live);
                        } else if !live.is_none() {
                            read(&mut parts, &mut work, a, &Parts::All);
                        }
                    }
                }
            }
        }
        LiveParts { parts }
    }

    /// What is read of `id` (nothing for an id the function does not define or use).
    pub fn of(&self, id: Id) -> &Parts {
        static NONE: Parts = Parts::NONE;
        self.parts.get(&id).unwrap_or(&NONE)
    }
}

/// Whether the analysis passes liveness through `inst` instead of counting its operands as
/// wholly read.
fn sees_through(m: &Module, f: &Function, inst: &Inst, sets: &ExtSets) -> bool {
    match inst.op {
        Op::CompositeExtract | Op::CompositeInsert | Op::CopyObject | Op::Phi => true,
        Op::CompositeConstruct => inst.ty.is_some_and(|t| is_composite(m, t)),
        Op::VectorShuffle => true,
        _ => {
            inst.ty.is_some_and(|t| vector_len(m, t).is_some()) && component_wise(m, f, inst, sets)
        }
    }
}
