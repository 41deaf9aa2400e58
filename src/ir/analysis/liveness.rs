//! Liveness and register pressure: which values are live at each instruction of a function,
//! and how many 32-bit components they hold.
//!
//! A value is live from its definition to its last use on any path; a phi's operand is live at
//! the end of the predecessor it comes from, not in the phi's block. The pressure after an
//! instruction is the components of the values live immediately after it (its own result
//! included when something uses it later): a `vec4` of `f32` counts 4, a `double` 2, a `bool`
//! or a 16-bit scalar 1; pointers, images, samplers, types and constants count nothing (they
//! are not values a function holds in registers). A function's peak is its highest pressure;
//! an entry point's is the highest over its call tree, a callee's peak counting on top of what
//! is live across the call.

use spirv::Op;
use std::collections::HashMap;

use super::super::ext_sets::ExtSets;
use super::super::func::{Function, InstId};
use super::super::fxhash::FxHashMap;
use super::super::inst::{Id, Inst};
use super::super::module::Module;
use super::super::number::ScalarKind;

/// The 32-bit components a value of each type holds (types that hold none are absent), and the
/// module's sets: debug info reads no register.
pub struct Weights(FxHashMap<Id, u32>, ExtSets);

impl Weights {
    pub fn of(m: &Module) -> Self {
        let scalars = super::super::types::scalar_kinds(m);
        let mut w: FxHashMap<Id, u32> = FxHashMap::default();
        // Globals are in definition order: a composite's members come before it.
        for t in m.globals() {
            let Some(id) = t.result else { continue };
            let of = |k: usize| t.args.get(k).and_then(|a| w.get(a)).copied().unwrap_or(0);
            let n = match t.op {
                Op::TypeBool => 1,
                Op::TypeInt | Op::TypeFloat => t.lit_u32(0).unwrap_or(32).div_ceil(32).max(1),
                Op::TypeVector | Op::TypeMatrix => of(0) * t.lit_u32(0).unwrap_or(0),
                Op::TypeArray => {
                    let len = t
                        .args
                        .get(1)
                        .and_then(|l| super::super::types::const_int(m, *l))
                        .unwrap_or(0);
                    of(0).saturating_mul(u32::try_from(len).unwrap_or(u32::MAX))
                }
                Op::TypeStruct => (0..t.args.len()).map(of).sum(),
                _ => match scalars.get(&id) {
                    // The dialect's bit-vector types.
                    Some(ScalarKind::Bits { width }) => width.div_ceil(32).max(1),
                    _ => 0,
                },
            };
            if n > 0 {
                w.insert(id, n);
            }
        }
        Weights(w, ExtSets::of(m))
    }

    /// Whether `inst` is debug info (a record of a debug-info set): its operands are not read
    /// from registers, so it keeps nothing live and is never where the pressure peaks.
    pub fn is_debug_info(&self, inst: &Inst) -> bool {
        self.1.is_debug_info_inst(inst)
    }

    /// The components a value of type `ty` holds.
    pub fn of_type(&self, ty: Option<Id>) -> u32 {
        ty.and_then(|t| self.0.get(&t)).copied().unwrap_or(0)
    }
}

/// The pressure of one function.
#[derive(Clone, Debug, Default)]
pub struct Pressure {
    /// The pressure after each instruction of the body, by arena index (`u32::MAX` for
    /// instructions not in the layout).
    pub after: Vec<u32>,
    /// The pressure on entry, the parameters live.
    pub entry: u32,
    /// The highest pressure, and the instruction after which it is (`None`: on entry).
    pub max: u32,
    pub peak: Option<InstId>,
    /// Each call: the instruction, the callee and the components live across it.
    pub calls: Vec<(InstId, Id, u32)>,
}

impl Pressure {
    /// The pressure after instruction `i`.
    pub fn at(&self, i: InstId) -> Option<u32> {
        self.after
            .get(i.index())
            .copied()
            .filter(|&p| p != u32::MAX)
    }
}

/// The values of one function that hold components, and which are live where.
pub struct Liveness {
    /// Instructions of debug-info sets, by arena index: skipped.
    debug: Vec<bool>,
    values: Vec<Id>,
    weight: Vec<u32>,
    index: FxHashMap<Id, u32>,
    /// Live on exit of each block (layout order), as bit sets over `values`.
    live_out: Vec<Vec<u64>>,
    live_in_entry: Vec<u64>,
}

fn set(bits: &mut [u64], k: u32) -> bool {
    let (w, b) = ((k / 64) as usize, k % 64);
    let had = bits[w] >> b & 1 == 1;
    bits[w] |= 1 << b;
    !had
}

fn clear(bits: &mut [u64], k: u32) -> bool {
    let (w, b) = ((k / 64) as usize, k % 64);
    let had = bits[w] >> b & 1 == 1;
    bits[w] &= !(1 << b);
    had
}

/// Phi operands come in (value, predecessor) pairs.
fn phi_pairs(inst: &Inst) -> impl Iterator<Item = (Id, Id)> + '_ {
    inst.args.chunks_exact(2).map(|p| (p[0], p[1]))
}

impl Liveness {
    pub fn new(f: &Function, weights: &Weights) -> Self {
        let mut values = Vec::new();
        let mut weight = Vec::new();
        let mut index: FxHashMap<Id, u32> = FxHashMap::default();
        let mut add = |inst: &Inst| {
            if let Some(r) = inst.result {
                let w = weights.of_type(inst.ty);
                if w > 0 {
                    index.insert(r, values.len() as u32);
                    values.push(r);
                    weight.push(w);
                }
            }
        };
        f.params.iter().for_each(&mut add);
        f.body().for_each(&mut add);
        let words = values.len().div_ceil(64);
        let n = f.blocks().len();
        let blocks: FxHashMap<Id, usize> = f
            .blocks()
            .iter()
            .enumerate()
            .map(|(i, b)| (b.label, i))
            .collect();
        // Upward-exposed uses and definitions of each block; phi operands are used at the end
        // of the predecessor they come from.
        let mut gen = vec![vec![0u64; words]; n];
        let mut kill = vec![vec![0u64; words]; n];
        let mut phi_use = vec![vec![0u64; words]; n];
        for (b, block) in f.blocks().iter().enumerate() {
            let term = f.inst(block.terminator);
            for inst in block.insts.iter().map(|&i| f.inst(i)).chain([term]) {
                if weights.is_debug_info(inst) {
                    continue;
                }
                if inst.op == Op::Phi {
                    for (v, pred) in phi_pairs(inst) {
                        if let (Some(&k), Some(&p)) = (index.get(&v), blocks.get(&pred)) {
                            set(&mut phi_use[p], k);
                        }
                    }
                } else {
                    for a in inst.id_operands() {
                        if let Some(&k) = index.get(&a) {
                            if kill[b][(k / 64) as usize] >> (k % 64) & 1 == 0 {
                                set(&mut gen[b], k);
                            }
                        }
                    }
                }
                if let Some(&k) = inst.result.and_then(|r| index.get(&r)) {
                    set(&mut kill[b], k);
                }
            }
        }
        let succs: Vec<Vec<usize>> = (0..n)
            .map(|b| {
                f.successors(b)
                    .iter()
                    .filter_map(|s| blocks.get(s).copied())
                    .collect()
            })
            .collect();
        let mut live_in = vec![vec![0u64; words]; n];
        let mut live_out = vec![vec![0u64; words]; n];
        // Backward: blocks from last to first converge fast on structured code.
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..n).rev() {
                let mut out = phi_use[b].clone();
                for &s in &succs[b] {
                    for (o, i) in out.iter_mut().zip(&live_in[s]) {
                        *o |= i;
                    }
                }
                let inn: Vec<u64> = out
                    .iter()
                    .zip(&kill[b])
                    .zip(&gen[b])
                    .map(|((o, k), g)| (o & !k) | g)
                    .collect();
                if inn != live_in[b] {
                    live_in[b] = inn;
                    changed = true;
                }
                live_out[b] = out;
            }
        }
        let mut live_in_entry = live_in.first().cloned().unwrap_or_default();
        // The parameters are live on entry when something uses them.
        for p in &f.params {
            if let Some(&k) = p.result.and_then(|r| index.get(&r)) {
                if live_in
                    .first()
                    .is_some_and(|l| l[(k / 64) as usize] >> (k % 64) & 1 == 1)
                {
                    set(&mut live_in_entry, k);
                }
            }
        }
        let mut debug = vec![false; f.arena_len()];
        for block in f.blocks() {
            for &i in &block.insts {
                debug[i.index()] = weights.is_debug_info(f.inst(i));
            }
        }
        Liveness {
            debug,
            values,
            weight,
            index,
            live_out,
            live_in_entry,
        }
    }

    fn is_debug(&self, i: InstId) -> bool {
        self.debug.get(i.index()).copied().unwrap_or(false)
    }

    fn weight_of(&self, bits: &[u64]) -> u32 {
        let mut sum = 0;
        for (w, &word) in bits.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let b = word.trailing_zeros();
                sum += self.weight[w * 64 + b as usize];
                word &= word - 1;
            }
        }
        sum
    }

    /// Walks block `b` backward from its exit: `visit(inst, live after it, its weight)` for
    /// each instruction, terminator first. Returns false from `visit` to stop.
    fn walk(
        &self,
        f: &Function,
        b: usize,
        mut visit: impl FnMut(InstId, &[u64], u32) -> bool,
    ) -> Vec<u64> {
        let block = f.block(b);
        let mut live = self.live_out[b].clone();
        let mut weight = self.weight_of(&live);
        for &i in [block.terminator].iter().chain(block.insts.iter().rev()) {
            if !visit(i, &live, weight) {
                break;
            }
            if self.is_debug(i) {
                continue;
            }
            let inst = f.inst(i);
            if let Some(&k) = inst.result.and_then(|r| self.index.get(&r)) {
                if clear(&mut live, k) {
                    weight -= self.weight[k as usize];
                }
            }
            if inst.op != Op::Phi {
                for a in inst.id_operands() {
                    if let Some(&k) = self.index.get(&a) {
                        if set(&mut live, k) {
                            weight += self.weight[k as usize];
                        }
                    }
                }
            }
        }
        live
    }

    /// The pressure after every instruction, its peak, and what is live across each call.
    pub fn pressure(&self, f: &Function) -> Pressure {
        let mut p = Pressure {
            after: vec![u32::MAX; f.arena_len()],
            entry: self.weight_of(&self.live_in_entry),
            ..Pressure::default()
        };
        p.max = p.entry;
        for b in 0..f.blocks().len() {
            self.walk(f, b, |i, live, w| {
                p.after[i.index()] = w;
                if w > p.max && !self.is_debug(i) {
                    p.max = w;
                    p.peak = Some(i);
                }
                let inst = f.inst(i);
                if inst.op == Op::FunctionCall {
                    // Live across: live after the call, its own result aside.
                    let own = inst
                        .result
                        .and_then(|r| self.index.get(&r))
                        .filter(|&&k| live[(k / 64) as usize] >> (k % 64) & 1 == 1)
                        .map_or(0, |&k| self.weight[k as usize]);
                    if let Some(&callee) = inst.args.first() {
                        p.calls.push((i, callee, w - own));
                    }
                }
                true
            });
        }
        p
    }

    /// The values live immediately after instruction `at` (on entry, for `None`), with their
    /// components, heaviest first.
    pub fn live_after(&self, f: &Function, at: Option<InstId>) -> Vec<(Id, u32)> {
        let bits = match at {
            None => self.live_in_entry.clone(),
            Some(at) => {
                let Some(b) = f
                    .blocks()
                    .iter()
                    .position(|bl| bl.terminator == at || bl.insts.contains(&at))
                else {
                    return Vec::new();
                };
                let mut found = None;
                self.walk(f, b, |i, live, _| {
                    if i == at {
                        found = Some(live.to_vec());
                        false
                    } else {
                        true
                    }
                });
                found.unwrap_or_default()
            }
        };
        let mut out: Vec<(Id, u32)> = (0..self.values.len())
            .filter(|&k| bits[k / 64] >> (k % 64) & 1 == 1)
            .map(|k| (self.values[k], self.weight[k]))
            .collect();
        out.sort_by_key(|&(id, w)| (std::cmp::Reverse(w), id));
        out
    }
}

/// The pressure of every function of a module, and of each over its call tree.
#[derive(Clone, Debug, Default)]
pub struct ModulePressure {
    /// Per function, in module order.
    pub functions: Vec<(Id, Pressure)>,
    /// Per function: its peak over its call tree (its own, or a callee's on top of what is live
    /// across the call).
    pub total: FxHashMap<Id, u32>,
    /// The highest over the entry points' call trees (over every function in a module that has
    /// none), and the function it peaks in.
    pub max: u32,
    pub peak_function: Option<Id>,
    /// Where each function is in `functions`.
    index: FxHashMap<Id, usize>,
}

impl ModulePressure {
    pub fn of(m: &Module) -> Self {
        let weights = Weights::of(m);
        let functions: Vec<(Id, Pressure)> = m
            .functions()
            .iter()
            .map(|f| (f.id(), Liveness::new(f, &weights).pressure(f)))
            .collect();
        let by_id: HashMap<Id, &Pressure> = functions.iter().map(|(id, p)| (*id, p)).collect();
        let mut total: FxHashMap<Id, u32> = FxHashMap::default();
        fn total_of(
            id: Id,
            by_id: &HashMap<Id, &Pressure>,
            total: &mut FxHashMap<Id, u32>,
            visiting: &mut Vec<Id>,
        ) -> u32 {
            if let Some(&t) = total.get(&id) {
                return t;
            }
            let Some(p) = by_id.get(&id) else { return 0 };
            // Recursion (invalid for shaders) counts the callee once.
            if visiting.contains(&id) {
                return p.max;
            }
            visiting.push(id);
            let mut t = p.max;
            for &(_, callee, across) in &p.calls {
                t = t.max(across + total_of(callee, by_id, total, visiting));
            }
            visiting.pop();
            total.insert(id, t);
            t
        }
        let mut visiting = Vec::new();
        for (id, _) in &functions {
            total_of(*id, &by_id, &mut total, &mut visiting);
        }
        let entries: Vec<Id> = m
            .entry_points
            .iter()
            .filter_map(|e| e.args.first().copied())
            .filter(|f| total.contains_key(f))
            .collect();
        let roots: Vec<Id> = if entries.is_empty() {
            functions.iter().map(|(id, _)| *id).collect()
        } else {
            entries
        };
        let (max, peak_function) = roots
            .iter()
            .map(|r| (total[r], *r))
            .max_by_key(|&(t, r)| (t, std::cmp::Reverse(r)))
            .map_or((0, None), |(t, r)| (t, Some(r)));
        let index = functions
            .iter()
            .enumerate()
            .map(|(k, (id, _))| (*id, k))
            .collect();
        ModulePressure {
            functions,
            total,
            max,
            peak_function,
            index,
        }
    }

    pub fn function(&self, id: Id) -> Option<&Pressure> {
        self.index.get(&id).map(|&k| &self.functions[k].1)
    }
}
