//! `assign-types`: gives every bit-vector value (`untype`) a type again — float, signed or
//! unsigned integer of its width — and inserts `OpBitcast` only where one value is read as two
//! kinds.
//!
//! Evidence comes from the ops (`ir::typing`): an `OpFAdd` makes and reads floats, a load makes
//! what its pointer points to, a store reads it, a phi, select or shuffle makes what its
//! operands are (and they must agree). Each value takes one label; a use that needs another
//! label costs one bitcast of that value (shared by every use that needs the same label).
//! Labels are chosen to make the total smallest: first by majority of the evidence, then by
//! repeated local improvement (each change lowers the total, so it ends), in module order, so
//! the result is deterministic. Constants cost nothing: each use gets a constant of the kind it
//! reads. Function parameters and results are labels like any other; typed values (memory,
//! spec constants, values `untype` left alone) are labels that cannot change.
//!
//! It does not change values that are already typed except by adding bitcasts where they are
//! read as another kind.

use std::collections::{HashMap, HashSet};

use crate::ir::fxhash::FxHashSet;

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::ops;
use crate::ir::rewrite;
use crate::ir::rewrite::{forget, Builder, Edits};
use crate::ir::typing::{Labels, Made, Need, Numeric, TypeInfo};
use crate::ir::{Id, Inst, InstId, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct AssignTypes;

/// Where an operand is: function (its position), instruction, index into its `args`.
type Slot = (usize, InstId, usize);

/// Where a value is defined, for inserting its bitcasts after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DefAt {
    /// An instruction of function `f` (a phi: after its block's phis).
    Inst { f: usize, inst: InstId, phi: bool },
    /// A parameter of function `f`: at the start of its entry block.
    Param { f: usize },
    /// A module-level value (a spec constant): in each function that needs it.
    Global,
    /// A function's return value (no instruction of its own).
    Return,
    /// A function-local variable whose element kind is chosen here (`Locals`).
    Variable { f: usize },
}

struct Value {
    id: Id,
    numeric: Numeric,
    /// The labels the definition allows.
    domain: Labels,
    /// Typed values keep their type; only bit-vectors are relabelled.
    typed: bool,
    def: DefAt,
    uses: Vec<(Slot, Need)>,
    /// Values its defining instruction reads (indices into `Analysis::values`).
    operands: Vec<usize>,
}

struct ConstUse {
    slot: Slot,
    constant: Id,
    need: Need,
    /// The result of the reading instruction, whose label breaks ties.
    reader: Option<Id>,
}

struct Analysis {
    values: Vec<Value>,
    index: HashMap<Id, usize>,
    /// Union-find over `values`: a call's result is tied to its function's return.
    parent: Vec<usize>,
    const_uses: Vec<ConstUse>,
    /// Bit-vector constants and global undefs by id, and their numeric type.
    bits_constants: HashMap<Id, (Inst, Numeric)>,
    /// Capabilities the module declares: a label is open to a bit-vector only where its type
    /// needs no capability the module lacks (a 64-bit value untyped from `ulong` must not come
    /// back as a `double` without `Float64`).
    capabilities: FxHashSet<spirv::Capability>,
}

/// The labels a bit-vector of `width` may take in a module with these capabilities.
fn allowed_labels(capabilities: &FxHashSet<spirv::Capability>, width: u32) -> Labels {
    use crate::ir::ops::{width_capability, Kind};
    let open = |kind| width_capability(kind, width).is_none_or(|c| capabilities.contains(&c));
    let mut l = Labels::NONE;
    if open(Kind::Float) {
        l = l.or(Labels::F);
    }
    if open(Kind::Int) {
        l = l.or(Labels::INT);
    }
    l
}

/// `labels` narrowed to what `width` allows, unless that leaves none (a module whose own
/// types lack their capability: it keeps what it had).
fn within(capabilities: &FxHashSet<spirv::Capability>, width: u32, labels: Labels) -> Labels {
    match labels.and(allowed_labels(capabilities, width)) {
        Labels::NONE => labels,
        l => l,
    }
}

fn single_label(n: &Numeric) -> Option<Labels> {
    n.label.filter(|l| l.is_single())
}

impl Analysis {
    fn find(&mut self, mut v: usize) -> usize {
        while self.parent[v] != v {
            self.parent[v] = self.parent[self.parent[v]];
            v = self.parent[v];
        }
        v
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // The earlier value represents the class, so results do not depend on order.
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo;
        }
    }
}

/// Function-local variables private enough that their element kind is ours to choose: their
/// pointer (and access chains into them) is only loaded from, stored to and indexed — never
/// passed to a call, an atomic or an extended instruction — and their element is a number, a
/// vector or an array of them. A register file of a translated D3D shader is the typical case:
/// typed `uvec4`, it forces a bitcast at every float use until its kind follows its uses.
struct Locals {
    /// Pointer (the variable or an access chain into it) → the variable.
    root: HashMap<Id, Id>,
    /// The variables that qualify, with their element width and function.
    free: HashMap<Id, (u32, usize)>,
}

/// The scalar width of a type whose numbers may be relabelled: a number, a vector, or an
/// array of them.
fn relabelable_width(info: &TypeInfo, ty: Id) -> Option<u32> {
    let mut ty = ty;
    // Arrays of arrays…; a broken module may nest a type in itself.
    for _ in 0..64 {
        if let Some(n) = info.numeric(ty) {
            return n.label.map(|_| n.width);
        }
        let t = info.type_inst(ty)?;
        match (t.op(), t.args().first()) {
            (Op::TypeArray, Some(e)) => ty = *e,
            _ => return None,
        }
    }
    None
}

fn free_locals(m: &Module, info: &TypeInfo) -> Locals {
    let sets = ops::ExtSets::of(m);
    let mut root: HashMap<Id, Id> = HashMap::new();
    let mut free: HashMap<Id, (u32, usize)> = HashMap::new();
    for (fi, f) in m.functions().iter().enumerate() {
        let mut candidates: HashMap<Id, u32> = HashMap::new();
        for i in f.body() {
            {
                match (i.op(), i.result(), i.lits().first()) {
                    (
                        Op::Variable,
                        Some(r),
                        Some(Operand::StorageClass(spirv::StorageClass::Function)),
                    ) => {
                        let pointee = i
                            .ty()
                            .and_then(|t| info.type_inst(t))
                            .and_then(|t| t.arg(0));
                        // An initializer of a whole array keeps its kind, as a stored one does.
                        let init_numeric = i.arg(0).is_none_or(|c| {
                            info.value_type(c)
                                .is_some_and(|t| info.numeric(t).is_some())
                        });
                        if let (Some(w), true) = (
                            pointee.and_then(|p| relabelable_width(info, p)),
                            init_numeric,
                        ) {
                            candidates.insert(r, w);
                            root.insert(r, r);
                        }
                    }
                    (Op::AccessChain | Op::InBoundsAccessChain, Some(r), _) => {
                        if let Some(&v) = i.arg(0).and_then(|base| root.get(&base)) {
                            root.insert(r, v);
                        }
                    }
                    _ => {}
                }
            }
        }
        // Any other use of one of these pointers disqualifies its variable, and so does a load
        // or store of a whole array: its value is not a number this pass relabels, so it
        // would keep its kind while the variable took another.
        let value_types: HashMap<Id, Id> = f
            .body()
            .chain(f.params().iter())
            .filter_map(|i| Some((i.result()?, i.ty()?)))
            .collect();
        let numeric = |v: Option<Id>| {
            v.and_then(|v| value_types.get(&v).copied().or_else(|| info.value_type(v)))
                .is_some_and(|t| info.numeric(t).is_some())
        };
        let mut bad: HashSet<Id> = HashSet::new();
        for i in f.body() {
            {
                for (k, o) in i.args().iter().enumerate() {
                    let Some(v) = root.get(o) else {
                        continue;
                    };
                    let allowed = match i.op() {
                        Op::AccessChain | Op::InBoundsAccessChain => k == 0,
                        Op::Load => k == 0 && numeric(i.result()),
                        Op::Store => k == 0 && numeric(i.arg(1)),
                        // A debug record describes the variable whatever its kind.
                        _ => ops::attrs_of(i, &sets).contains(ops::Attrs::DEBUG_INFO),
                    };
                    if !allowed {
                        bad.insert(*v);
                    }
                }
            }
        }
        for (v, w) in candidates {
            if !bad.contains(&v) {
                free.insert(v, (w, fi));
            }
        }
    }
    root.retain(|_, v| free.contains_key(v));
    Locals { root, free }
}

fn analyse(m: &Module) -> Analysis {
    let info = TypeInfo::new(m);
    let locals = free_locals(m, &info);
    let numeric: HashMap<Id, Numeric> = m
        .globals()
        .iter()
        .filter_map(|g| Some((g.result()?, info.numeric(g.result()?)?)))
        .collect();
    let bits_constants: HashMap<Id, (Inst, Numeric)> = m
        .globals()
        .iter()
        .filter(|g| {
            matches!(
                g.op(),
                Op::Constant | Op::ConstantComposite | Op::ConstantNull | Op::Undef
            )
        })
        .filter_map(|g| {
            let n = *numeric.get(&g.ty()?)?;
            n.label
                .is_none()
                .then(|| (g.result().unwrap_or(0), (g.clone(), n)))
        })
        .collect();
    let capabilities = m
        .preamble()
        .iter()
        .filter(|i| i.op() == Op::Capability)
        .filter_map(|i| match i.lits().first() {
            Some(Operand::Capability(c)) => Some(*c),
            _ => None,
        })
        // The one implicit declaration among the width capabilities.
        .flat_map(|c| match c {
            spirv::Capability::Int64Atomics => vec![c, spirv::Capability::Int64],
            _ => vec![c],
        })
        .collect();
    let mut a = Analysis {
        values: Vec::new(),
        index: HashMap::new(),
        parent: Vec::new(),
        const_uses: Vec::new(),
        bits_constants,
        capabilities,
    };
    let add = |a: &mut Analysis, id: Id, numeric: Numeric, domain: Labels, def: DefAt| {
        if a.index.contains_key(&id) {
            return;
        }
        let typed = numeric.label.is_some();
        let domain = match single_label(&numeric) {
            Some(l) => l,
            None if typed => return,
            None => within(&a.capabilities, numeric.width, domain),
        };
        a.index.insert(id, a.values.len());
        a.parent.push(a.values.len());
        a.values.push(Value {
            id,
            numeric,
            domain,
            typed,
            def,
            uses: Vec::new(),
            operands: Vec::new(),
        });
    };
    // Free local variables first: loads from them are tied to them.
    let mut ties: Vec<(Id, Id)> = Vec::new();
    let mut free: Vec<(&Id, &(u32, usize))> = locals.free.iter().collect();
    free.sort_unstable();
    for (&var, &(width, f)) in free {
        let n = Numeric {
            label: None,
            width,
            count: 1,
        };
        add(&mut a, var, n, Labels::ALL, DefAt::Variable { f });
    }
    // Definitions: function returns, parameters, instruction results.
    for (fi, f) in m.functions().iter().enumerate() {
        if let Some(n) = f.def().ty().and_then(|t| info.numeric(t)) {
            add(&mut a, f.id(), n, Labels::ALL, DefAt::Return);
        }
        for p in f.params() {
            if let (Some(r), Some(n)) = (p.result(), p.ty().and_then(|t| info.numeric(t))) {
                add(&mut a, r, n, Labels::ALL, DefAt::Param { f: fi });
            }
        }
        for (_, iid) in f.layout() {
            let inst = f.inst(iid);
            {
                let (Some(r), Some(n)) = (inst.result(), inst.ty().and_then(|t| info.numeric(t)))
                else {
                    continue;
                };
                let local = match (inst.op(), inst.args().first()) {
                    (Op::Load, Some(p)) => locals.root.get(p).copied(),
                    _ => None,
                };
                let domain = match (local, info.typing(Some(f), inst).and_then(|t| t.result)) {
                    (Some(var), _) => {
                        ties.push((r, var));
                        Labels::ALL
                    }
                    (None, Some(Made::In(l))) => l,
                    _ => Labels::ALL,
                };
                let def = DefAt::Inst {
                    f: fi,
                    inst: iid,
                    phi: inst.op() == Op::Phi,
                };
                add(&mut a, r, n, domain, def);
            }
        }
    }
    // Module-level typed values read by instructions (spec constants and the like).
    for g in m.globals() {
        if matches!(
            g.op(),
            Op::SpecConstant | Op::SpecConstantComposite | Op::SpecConstantOp
        ) {
            if let (Some(r), Some(n)) = (g.result(), g.ty().and_then(|t| info.numeric(t))) {
                add(&mut a, r, n, Labels::ALL, DefAt::Global);
            }
        }
    }
    // Uses, ties and constant reads.
    for (fi, f) in m.functions().iter().enumerate() {
        for (_, iid) in f.layout() {
            let inst = f.inst(iid);
            {
                let Some(t) = info.typing(Some(f), inst) else {
                    continue;
                };
                if let (Some(Made::Tied(callee)), Some(r)) = (t.result, inst.result()) {
                    ties.push((r, callee));
                }
                // A value stored into (or initializing) a free local has the local's kind.
                // (the local, the index of the stored value among the instruction's ids)
                let local = match (inst.op(), inst.args().first()) {
                    (Op::Store, Some(p)) => locals.root.get(p).map(|&v| (v, 1)),
                    (Op::Variable, _) => inst
                        .result()
                        .filter(|r| locals.free.contains_key(r))
                        .map(|v| (v, 0)),
                    _ => None,
                };
                for (k, need) in t.operands {
                    let Some(&v) = inst.args().get(k) else {
                        continue;
                    };
                    let need = match local {
                        Some((var, value)) if k == value => Need::Same(var),
                        _ => need,
                    };
                    let slot = (fi, iid, k);
                    if let Some(&vi) = a.index.get(&v) {
                        a.values[vi].uses.push((slot, need));
                        if let Some(&ri) = inst.result().and_then(|r| a.index.get(&r)) {
                            a.values[ri].operands.push(vi);
                        }
                    } else if a.bits_constants.contains_key(&v) {
                        a.const_uses.push(ConstUse {
                            slot,
                            constant: v,
                            need,
                            reader: inst.result(),
                        });
                    }
                }
            }
        }
    }
    for (r, callee) in ties {
        if let (Some(&x), Some(&y)) = (a.index.get(&r), a.index.get(&callee)) {
            a.union(x, y);
        }
    }
    a
}

/// How many labels beyond `h` the needs take, and which (the first such in F, S, U order).
fn extras(h: Labels, needs: &[Labels]) -> (u32, Labels) {
    if needs.iter().all(|r| r.contains(h)) {
        return (0, Labels::NONE);
    }
    for e in Labels::ALL.singles() {
        if e != h && needs.iter().all(|r| r.contains(h) || r.contains(e)) {
            return (1, e);
        }
    }
    let mut all = Labels::NONE;
    for r in needs {
        if !r.contains(h) {
            all = all.or(r.singles().next().unwrap_or(Labels::NONE));
        }
    }
    (all.0.count_ones(), all)
}

struct Solver<'a> {
    a: &'a mut Analysis,
    /// Label of each class representative.
    label: Vec<Labels>,
    /// Values with a use that needs `Same(value)`, by the index of that value.
    dependents: Vec<Vec<usize>>,
}

impl Solver<'_> {
    fn label_of(&mut self, v: usize) -> Labels {
        let r = self.a.find(v);
        self.label[r]
    }

    fn needs(&mut self, v: usize) -> Vec<Labels> {
        let uses: Vec<Need> = self.a.values[v].uses.iter().map(|(_, n)| *n).collect();
        uses.into_iter()
            .map(|n| match n {
                Need::In(l) => l,
                Need::Same(x) => match self.a.index.get(&x).copied() {
                    Some(xi) => self.label_of(xi),
                    None => Labels::ALL,
                },
            })
            .collect()
    }

    fn cost_of(&mut self, v: usize) -> u32 {
        let h = self.label_of(v);
        let needs = self.needs(v);
        extras(h, &needs).0
    }
}

/// Chooses a label for every class. Returns the labels by value index.
fn solve(a: &mut Analysis) -> Vec<Labels> {
    let n = a.values.len();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for v in 0..n {
        let r = a.find(v);
        members[r].push(v);
    }
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    // Groups of values that "same type" links join (a phi and its incoming values, a vector
    // and its components…): flipping one alone rarely helps, flipping them together may.
    let mut group: Vec<usize> = (0..n).collect();
    fn root(group: &mut [usize], mut v: usize) -> usize {
        while group[v] != v {
            group[v] = group[group[v]];
            v = group[v];
        }
        v
    }
    for v in 0..n {
        for (_, need) in &a.values[v].uses {
            if let Need::Same(x) = need {
                if let Some(&xi) = a.index.get(x) {
                    dependents[xi].push(v);
                    let (rv, rx) = (root(&mut group, v), root(&mut group, xi));
                    if rv != rx {
                        group[rv.max(rx)] = rv.min(rx);
                    }
                }
            }
        }
    }
    // A class (tied values) is one unit of a group too.
    for (r, class) in members.iter().enumerate() {
        for &v in class {
            let (rv, rr) = (root(&mut group, v), root(&mut group, r));
            if rv != rr {
                group[rv.max(rr)] = rv.min(rr);
            }
        }
    }
    // Domains of classes.
    let mut label = vec![Labels::F; n];
    let mut domain = vec![Labels::ALL; n];
    for r in 0..n {
        if members[r].is_empty() {
            continue;
        }
        let mut d = Labels::ALL;
        for &v in &members[r] {
            d = d.and(a.values[v].domain);
        }
        if d == Labels::NONE {
            // Contradictory definitions (a broken module): keep the first member's.
            d = a.values[members[r][0]].domain;
        }
        domain[r] = d;
        label[r] = d.singles().next().unwrap_or(Labels::F);
    }
    // First labels, in module order: what the uses read (strongest when only one kind will
    // do), then what the operands already are — a compiler makes a result of the kind of its
    // operands unless told otherwise.
    let mut done = vec![false; n];
    for r in 0..n {
        if members[r].is_empty() {
            continue;
        }
        if domain[r].is_single() {
            done[r] = true;
            continue;
        }
        let mut best = (i64::MIN, Labels::NONE);
        for l in domain[r].singles() {
            let mut score = 0i64;
            for &v in &members[r] {
                for (_, need) in &a.values[v].uses {
                    if let Need::In(req) = need {
                        if req.contains(l) {
                            score += if req.is_single() { 3 } else { 1 };
                        }
                    }
                }
                for o in a.values[v].operands.clone() {
                    let ro = a.find(o);
                    if done[ro] && label[ro] == l {
                        score += 2;
                    }
                }
            }
            if score > best.0 {
                best = (score, l);
            }
        }
        label[r] = best.1;
        done[r] = true;
    }
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for r in 0..n {
        if !members[r].is_empty() && !domain[r].is_single() {
            let g = root(&mut group, r);
            groups.entry(g).or_default().push(r);
        }
    }
    let mut group_list: Vec<(usize, Vec<usize>)> = groups.into_iter().collect();
    group_list.sort_unstable_by_key(|(g, _)| *g);
    let mut s = Solver {
        a,
        label,
        dependents,
    };
    let affected_by = |s: &Solver, classes: &[usize]| {
        let mut affected: Vec<usize> = Vec::new();
        for &r in classes {
            for &v in &members[r] {
                affected.push(v);
                affected.extend(s.dependents[v].iter().copied());
            }
        }
        affected.sort_unstable();
        affected.dedup();
        affected
    };
    // Local improvement until nothing changes: single classes in module order, then whole
    // groups. Every accepted change lowers the total, so this ends.
    for _round in 0..64 {
        let mut changed = false;
        for r in 0..n {
            if members[r].is_empty() || domain[r].is_single() {
                continue;
            }
            let affected = affected_by(&s, &[r]);
            let current = s.label[r];
            let mut best = (u32::MAX, current);
            for l in std::iter::once(current).chain(domain[r].singles().filter(|l| *l != current)) {
                s.label[r] = l;
                let cost: u32 = affected.iter().map(|&v| s.cost_of(v)).sum();
                if cost < best.0 {
                    best = (cost, l);
                }
            }
            s.label[r] = best.1;
            changed |= best.1 != current;
        }
        for (_, classes) in &group_list {
            if classes.len() < 2 {
                continue;
            }
            let affected = affected_by(&s, classes);
            let saved: Vec<Labels> = classes.iter().map(|&r| s.label[r]).collect();
            let base: u32 = affected.iter().map(|&v| s.cost_of(v)).sum();
            let mut best: Option<(u32, Labels)> = None;
            for l in Labels::ALL.singles() {
                for &r in classes {
                    if domain[r].contains(l) {
                        s.label[r] = l;
                    }
                }
                let cost: u32 = affected.iter().map(|&v| s.cost_of(v)).sum();
                if cost < base && best.is_none_or(|(c, _)| cost < c) {
                    best = Some((cost, l));
                }
                for (&r, &old) in classes.iter().zip(&saved) {
                    s.label[r] = old;
                }
            }
            if let Some((_, l)) = best {
                for &r in classes {
                    if domain[r].contains(l) {
                        s.label[r] = l;
                    }
                }
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (0..n).map(|v| s.label_of(v)).collect()
}

/// Picks the label a constant is read as: the reader's own label when the need allows it.
fn constant_label(need: Labels, reader: Option<Labels>) -> Labels {
    if let Some(r) = reader.filter(|r| need.contains(*r) && r.is_single()) {
        return r;
    }
    need.singles().next().unwrap_or(Labels::F)
}

/// The typed copy of a bit-vector constant (or undef).
fn typed_constant(
    m: &mut Module,
    a: &Analysis,
    c: Id,
    label: Labels,
    made: &mut HashMap<(Id, u8), Id>,
) -> Option<Id> {
    typed_constant_at(m, a, c, label, made, 0)
}

fn typed_constant_at(
    m: &mut Module,
    a: &Analysis,
    c: Id,
    label: Labels,
    made: &mut HashMap<(Id, u8), Id>,
    depth: usize,
) -> Option<Id> {
    if let Some(&id) = made.get(&(c, label.0)) {
        return Some(id);
    }
    // A broken module may nest a constant in itself.
    if depth > 64 {
        return None;
    }
    let (def, n) = a.bits_constants.get(&c)?.clone();
    let ty = m.numeric_type(label, n.width, n.count)?;
    let id = match def.op() {
        Op::ConstantComposite => {
            let mut parts = Vec::with_capacity(def.args().len());
            for &o in def.args() {
                parts.push(typed_constant_at(m, a, o, label, made, depth + 1)?);
            }
            Builder::detached(m).composite(ty, &parts).ok()?
        }
        // A narrow signed literal is sign-extended to the word.
        Op::Constant if label == Labels::S && n.width < 32 => {
            let word = match def.lits().first() {
                Some(Operand::LiteralBit32(w)) => {
                    let shift = 32 - n.width;
                    (((*w << shift) as i32) >> shift) as u32
                }
                _ => return None,
            };
            Builder::detached(m)
                .constant(ty, Operand::LiteralBit32(word))
                .ok()?
        }
        // The same constant, of the typed type.
        _ => {
            let i = def.clone().retyped(Some(ty));
            m.intern(i)?
        }
    };
    made.insert((c, label.0), id);
    Some(id)
}

pub struct Outcome {
    pub changed: bool,
}

pub fn assign_types(m: &mut Module) -> Result<Outcome, String> {
    let mut a = analyse(m);
    let out_of_ids = || "the module has run out of ids".to_string();
    if a.values.iter().all(|v| v.typed) && a.const_uses.is_empty() {
        // Nothing to type; bit-vector declarations may still be left over.
        let before = (m.globals().len(), m.preamble().len());
        remove_bits_declarations(m);
        return Ok(Outcome {
            changed: before != (m.globals().len(), m.preamble().len()),
        });
    }
    let labels = solve(&mut a);
    let label_of_id = |a: &Analysis, id: Id| a.index.get(&id).map(|&i| labels[i]);

    // Retype values.
    let mut new_types: HashMap<Id, Id> = HashMap::new();
    let mut relabelled: HashMap<(Id, u8), Id> = HashMap::new();
    for (i, v) in a.values.iter().enumerate() {
        if let DefAt::Variable { f } = v.def {
            relabel_local(m, f, v.id, labels[i], &mut relabelled).ok_or_else(out_of_ids)?;
        } else if !v.typed {
            let ty = m
                .numeric_type(labels[i], v.numeric.width, v.numeric.count)
                .ok_or_else(out_of_ids)?;
            new_types.insert(v.id, ty);
        }
    }
    for f in rewrite::functions_mut(m) {
        if let Some(&t) = new_types.get(&f.id()) {
            rewrite::set_return_type(f, Some(t));
        }
        for k in 0..f.params().len() {
            if let Some(&t) = f.params()[k].result().and_then(|r| new_types.get(&r)) {
                rewrite::retype_param(f, k, t);
            }
        }
        let ids: Vec<InstId> = f.layout().map(|(_, i)| i).collect();
        for i in ids {
            if let Some(&t) = f.inst(i).result().and_then(|r| new_types.get(&r)) {
                rewrite::retype(f, i, Some(t));
            }
        }
    }

    // Constants: each read gets a constant of the kind it reads.
    let mut made: HashMap<(Id, u8), Id> = HashMap::new();
    let mut operand_edits: Vec<(Slot, Id)> = Vec::new();
    for cu in &a.const_uses {
        let need = match cu.need {
            Need::In(l) => l,
            Need::Same(x) => label_of_id(&a, x).unwrap_or(Labels::ALL),
        };
        let reader = cu.reader.and_then(|r| label_of_id(&a, r));
        let need = match a.bits_constants.get(&cu.constant) {
            Some((_, n)) => within(&a.capabilities, n.width, need),
            None => need,
        };
        let l = constant_label(need, reader);
        let typed = typed_constant(m, &a, cu.constant, l, &mut made).ok_or_else(out_of_ids)?;
        operand_edits.push((cu.slot, typed));
    }

    // Bitcasts where a value is read as another kind.
    let mut inserts: Vec<(DefAt, Id, Inst)> = Vec::new();
    // Module-level values get one bitcast per function and label.
    let mut global_casts: HashMap<(usize, Id, u8), Id> = HashMap::new();
    let mut global_inserts: Vec<(usize, Inst)> = Vec::new();
    for (i, v) in a.values.iter().enumerate() {
        let h = labels[i];
        let needs: Vec<(Slot, Labels)> = v
            .uses
            .iter()
            .map(|(slot, n)| {
                let l = match n {
                    Need::In(l) => *l,
                    Need::Same(x) => label_of_id(&a, *x).unwrap_or(Labels::ALL),
                };
                (*slot, l)
            })
            .collect();
        let plain: Vec<Labels> = needs.iter().map(|(_, l)| *l).collect();
        let (count, extra) = extras(h, &plain);
        if count == 0 {
            continue;
        }
        let mut cast_of: HashMap<u8, Id> = HashMap::new();
        for e in extra.singles() {
            let ty = m
                .numeric_type(e, v.numeric.width, v.numeric.count)
                .ok_or_else(out_of_ids)?;
            if v.def == DefAt::Global {
                // Made per function below, where a use needs it.
                cast_of.insert(e.0, ty);
                continue;
            }
            let mut cast = Builder::detached(m);
            let id = cast.ids(Op::Bitcast, ty, &[v.id])?;
            for inst in cast.take() {
                inserts.push((v.def, v.id, inst));
            }
            cast_of.insert(e.0, id);
        }
        for (slot, need) in needs {
            if need.contains(h) {
                continue;
            }
            let Some(e) = extra.singles().find(|e| need.contains(*e)) else {
                continue;
            };
            let target = if v.def == DefAt::Global {
                let ty = cast_of[&e.0];
                let key = (slot.0, v.id, e.0);
                match global_casts.get(&key) {
                    Some(&id) => id,
                    None => {
                        let mut cast = Builder::detached(m);
                        let id = cast.ids(Op::Bitcast, ty, &[v.id])?;
                        global_casts.insert(key, id);
                        for inst in cast.take() {
                            global_inserts.push((slot.0, inst));
                        }
                        id
                    }
                }
            } else {
                cast_of[&e.0]
            };
            operand_edits.push((slot, target));
        }
    }
    let changed = true;
    for ((fi, iid, k), id) in operand_edits {
        rewrite::function_at_mut(m, fi).set_arg(iid, k, id);
    }
    // Insert bitcasts: after their definition (after a phi's block's phis), or at the top of
    // the entry block (after its variables) for parameters and module-level values.
    let mut edits: HashMap<usize, Edits> = HashMap::new();
    let sets = ops::ExtSets::of(m);
    for (def, _, inst) in inserts {
        match def {
            DefAt::Inst { f, inst: i, phi } => {
                let func = &m.functions()[f];
                let anchor = if phi {
                    // After the last phi of its block.
                    func.def_use(&sets)
                        .block_of(i)
                        .and_then(|b| {
                            func.block(b)
                                .insts
                                .iter()
                                .copied()
                                .take_while(|&x| func.inst(x).op() == Op::Phi)
                                .last()
                        })
                        .unwrap_or(i)
                } else {
                    i
                };
                edits.entry(f).or_default().insert_after(anchor, inst);
            }
            DefAt::Param { f } => edits
                .entry(f)
                .or_default()
                .after_variables(&m.functions()[f], inst),
            DefAt::Global | DefAt::Return | DefAt::Variable { .. } => {}
        }
    }
    for (f, inst) in global_inserts {
        edits
            .entry(f)
            .or_default()
            .after_variables(&m.functions()[f], inst);
    }
    for (fi, e) in edits {
        e.apply(rewrite::function_at_mut(m, fi));
    }

    // Function types follow their parameters and results.
    for fi in 0..m.functions().len() {
        let f = &m.functions()[fi];
        let ret = f.def().ty().unwrap_or(0);
        let params: Vec<Id> = f.params().iter().map(|p| p.ty().unwrap_or(0)).collect();
        let current = f.def().args().last().copied();
        let same = current.and_then(|c| m.global(c)).is_some_and(|g| {
            g.args().first() == Some(&ret) && g.args().get(1..) == Some(params.as_slice())
        });
        if !same {
            let ty = Builder::detached(m).fn_type(ret, &params)?;
            rewrite::set_function_type(rewrite::function_at_mut(m, fi), ty);
        }
    }
    remove_bits_declarations(m);
    Ok(Outcome { changed })
}

/// The type `ty` with every number in it of kind `label`: numbers and vectors, and arrays of
/// them (a new array type; arrays are not interned).
fn relabel_type(
    m: &mut Module,
    ty: Id,
    label: Labels,
    made: &mut HashMap<(Id, u8), Id>,
) -> Option<Id> {
    relabel_type_at(m, ty, label, made, 0)
}

fn relabel_type_at(
    m: &mut Module,
    ty: Id,
    label: Labels,
    made: &mut HashMap<(Id, u8), Id>,
    depth: usize,
) -> Option<Id> {
    if let Some(&t) = made.get(&(ty, label.0)) {
        return Some(t);
    }
    if depth > 64 {
        return None;
    }
    let def = m.global(ty)?.clone();
    let new = match (def.op(), def.args(), def.lits()) {
        (Op::TypeInt | Op::TypeFloat, _, [Operand::LiteralBit32(w), ..]) => {
            m.numeric_type(label, *w, 1)?
        }
        (Op::TypeVector, [c], [Operand::LiteralBit32(n)]) => {
            let c = relabel_type_at(m, *c, label, made, depth + 1)?;
            m.vector_of(c, *n)?
        }
        (Op::TypeArray, [old, len], _) => {
            let e = relabel_type_at(m, *old, label, made, depth + 1)?;
            if e == *old {
                ty
            } else {
                // (`global`: arrays are not interned.)
                let mut array = Builder::detached(m);
                let id = array.fresh().ok()?;
                array.global_as(
                    Op::TypeArray,
                    None,
                    id,
                    vec![Operand::IdRef(e), Operand::IdRef(*len)],
                );
                id
            }
        }
        _ => return None,
    };
    made.insert((ty, label.0), new);
    Some(new)
}

/// Gives local variable `var` of function `f` (and every access chain into it) the element
/// kind `label`.
fn relabel_local(
    m: &mut Module,
    f: usize,
    var: Id,
    label: Labels,
    made: &mut HashMap<(Id, u8), Id>,
) -> Option<()> {
    let mut pointers: HashSet<Id> = HashSet::from([var]);
    let mut edits: Vec<(InstId, Id)> = Vec::new();
    let func = &m.functions()[f];
    for (_, iid) in func.layout() {
        let i = func.inst(iid);
        {
            let base = match (i.op(), i.args().first()) {
                (Op::Variable, _) => i.result(),
                (Op::AccessChain | Op::InBoundsAccessChain, Some(b)) => Some(*b),
                _ => None,
            };
            if let (Some(base), Some(r), Some(ty)) = (base, i.result(), i.ty()) {
                if pointers.contains(&base) {
                    pointers.insert(r);
                    edits.push((iid, ty));
                }
            }
        }
    }
    for (iid, ptr_ty) in edits {
        let def = m.global(ptr_ty)?.clone();
        let (Some(&Operand::StorageClass(class)), Some(pointee)) = (def.lits().first(), def.arg(0))
        else {
            return None;
        };
        let pointee = relabel_type(m, pointee, label, made)?;
        let new_ptr = m.pointer_to(class, pointee)?;
        rewrite::retype(rewrite::function_at_mut(m, f), iid, Some(new_ptr));
    }
    Some(())
}

/// Removes bit-vector types, constants and undefs nothing refers to any more, and the types
/// built from them (function types of the untyped signatures).
fn remove_bits_declarations(m: &mut Module) {
    let info = TypeInfo::new(m);
    let mut bits: HashSet<Id> = HashSet::new();
    for g in m.globals() {
        let Some(r) = g.result() else { continue };
        let own = info.numeric(r).is_some_and(|n| n.label.is_none());
        let typed_by = g
            .ty()
            .and_then(|t| info.numeric(t))
            .is_some_and(|n| n.label.is_none());
        let built_from =
            crate::ir::inst::is_type(g.op()) && g.args().iter().any(|o| bits.contains(o));
        if own || typed_by || built_from {
            bits.insert(r);
        }
    }
    drop(info);
    loop {
        let mut used: HashSet<Id> = HashSet::new();
        m.for_each_inst(|i| {
            if !matches!(i.op(), Op::Name | Op::MemberName | Op::Decorate) {
                used.extend(i.uses());
            }
        });
        let dead: HashSet<Id> = bits.iter().copied().filter(|b| !used.contains(b)).collect();
        if dead.is_empty() {
            break;
        }
        bits.retain(|b| !dead.contains(b));
        crate::ir::rewrite::retain_globals(m, |g| !g.result().is_some_and(|r| dead.contains(&r)));
        forget(m, &dead.iter().copied().collect());
    }
    m.reindex();
}

impl Pass for AssignTypes {
    fn name(&self) -> &'static str {
        "assign-types"
    }
    fn description(&self) -> &'static str {
        "give bit-vectors int or float types back, with the fewest bitcasts the evidence allows"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        assign_types(module)
            .map(|o| o.changed.into())
            .map_err(PassError)
    }
}
