//! `untype`: integer and float values become bit-vectors, as in Mesa NIR. A value of type
//! `float`, `int`, `uint` or a vector of them becomes `bits.b32` (or `v4b32`…) of the same width
//! and count: the operation, not the value, says how the bits are read (`ir::typing`).
//! Consequences: a same-width `OpBitcast` is a plain use and disappears; constants with equal
//! bits are one constant (`0` and `0.0`, `1.0` and `0x3f800000`); function parameters and
//! results lose their kind too.
//!
//! What keeps its type: memory (variables, pointers, aggregates, matrices — loads and stores
//! are typed by their pointer), spec constants (their type is part of the interface), the
//! signatures of imported and exported functions, and every value an instruction uses or makes
//! whose typing `ir::typing` cannot describe. `assign-types` gives the bit-vectors types back.

use std::collections::{HashMap, HashSet};

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::fxhash::FxHashSet;
use crate::ir::ops;
use crate::ir::rewrite::{self, forget, Builder, Replacer};
use crate::ir::typing::{Made, Numeric, TypeInfo};
use crate::ir::InstId;
use crate::ir::{Id, Inst, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct Untype;

/// Where an instruction is: function (position in the module) and instruction.
type At = (usize, InstId);

/// Constants (and global undefs) a bit-vector copy can stand in for.
fn is_numeric_constant(op: Op) -> bool {
    matches!(
        op,
        Op::Constant | Op::ConstantComposite | Op::ConstantNull | Op::Undef
    )
}

/// What `untype` decided, before changing anything.
struct Plan {
    /// Values (results and parameters) to retype, with their old type.
    values: HashMap<Id, Id>,
    /// Functions whose return type becomes a bit-vector.
    returns: HashSet<Id>,
    /// Instructions whose typing is known, with the `args` indices that hold numeric values.
    operands: HashMap<At, Vec<usize>>,
}

fn linkage_functions(m: &Module) -> HashSet<Id> {
    m.annotations()
        .iter()
        .filter(|i| {
            i.op() == Op::Decorate
                && matches!(
                    i.lits().first(),
                    Some(Operand::Decoration(spirv::Decoration::LinkageAttributes))
                )
        })
        .filter_map(|i| i.id_at(0))
        .collect()
}

fn plan(m: &Module) -> Plan {
    let info = TypeInfo::new(m);
    let sets = ops::ExtSets::of(m);
    let linked = linkage_functions(m);
    let typed_numeric = |v: Id| info.value_numeric(v).is_some_and(|n| n.label.is_some());
    let mut pinned: HashSet<Id> = HashSet::new();
    let mut operands = HashMap::new();
    let mut candidates: Vec<Id> = Vec::new();
    let mut call_results: Vec<(Id, Id)> = Vec::new();
    for (fi, f) in m.functions().iter().enumerate() {
        if linked.contains(&f.id()) {
            pinned.extend(f.params().iter().filter_map(|p| p.result()));
            pinned.insert(f.id());
        }
        for p in f.params() {
            candidates.extend(p.result().filter(|r| typed_numeric(*r)));
        }
        for (_, iid) in f.layout() {
            let inst = f.inst(iid);
            // Debug info describes values of any type: it pins none.
            if ops::attrs_of(inst, &sets).contains(ops::Attrs::DEBUG_INFO) {
                continue;
            }
            {
                match info.typing(Some(f), inst) {
                    None => {
                        pinned.extend(inst.result());
                        pinned.extend(inst.args().iter().copied());
                    }
                    Some(t) => {
                        if let Some(r) = inst.result().filter(|r| typed_numeric(*r)) {
                            candidates.push(r);
                            if let Some(Made::Tied(callee)) = t.result {
                                call_results.push((r, callee));
                            }
                        }
                        operands.insert((fi, iid), t.operands.iter().map(|(k, _)| *k).collect());
                    }
                }
            }
        }
    }
    // A call's result and its function's return type go together.
    let mut returns: HashSet<Id> = m
        .functions()
        .iter()
        .filter(|f| !pinned.contains(&f.id()) && !f.is_declaration())
        .filter(|f| {
            f.def()
                .ty()
                .and_then(|t| info.numeric(t))
                .is_some_and(|n| n.label.is_some())
        })
        .map(|f| f.id())
        .collect();
    for (r, callee) in &call_results {
        if pinned.contains(r) || !returns.contains(callee) {
            returns.remove(callee);
            pinned.insert(*r);
        }
    }
    let values = candidates
        .into_iter()
        .filter(|v| !pinned.contains(v))
        .filter_map(|v| Some((v, info.value_type(v)?)))
        .collect();
    Plan {
        values,
        returns,
        operands,
    }
}

/// What the rewrite needs to know of the module as it was, and what it has made so far.
struct Cx {
    /// Numeric scalar and vector types, by id.
    numeric: HashMap<Id, Numeric>,
    /// Typed numeric constants and global undefs, by id.
    constants: HashMap<Id, Inst>,
    /// Typed type → bit-vector type.
    types: HashMap<Id, Id>,
    /// Typed constant → bit-vector constant.
    made: HashMap<Id, Id>,
}

impl Cx {
    fn new(m: &Module) -> Self {
        let info = TypeInfo::new(m);
        let numeric: HashMap<Id, Numeric> = m
            .globals()
            .iter()
            .filter_map(|g| Some((g.result()?, info.numeric(g.result()?)?)))
            .collect();
        let constants = m
            .globals()
            .iter()
            .filter(|g| is_numeric_constant(g.op()))
            .filter(|g| {
                g.ty()
                    .and_then(|t| numeric.get(&t))
                    .is_some_and(|n| n.label.is_some())
            })
            .filter_map(|g| Some((g.result()?, g.clone())))
            .collect();
        Cx {
            numeric,
            constants,
            types: HashMap::new(),
            made: HashMap::new(),
        }
    }

    /// The bit-vector type standing for a typed numeric type.
    fn bits_of(&mut self, m: &mut Module, ty: Id) -> Option<Id> {
        if let Some(&b) = self.types.get(&ty) {
            return Some(b);
        }
        let n = *self.numeric.get(&ty)?;
        let b = m.bits_type(n.width, n.count)?;
        self.types.insert(ty, b);
        Some(b)
    }

    /// The bit-vector copy of a typed numeric constant (or undef), interned.
    fn bits_constant(&mut self, m: &mut Module, c: Id) -> Option<Id> {
        self.bits_constant_at(m, c, 0)
    }

    fn bits_constant_at(&mut self, m: &mut Module, c: Id, depth: usize) -> Option<Id> {
        if let Some(&b) = self.made.get(&c) {
            return Some(b);
        }
        // A broken module may nest a constant in itself.
        if depth > 64 {
            return None;
        }
        let def = self.constants.get(&c)?.clone();
        let old_ty = def.ty()?;
        let n = *self.numeric.get(&old_ty)?;
        let ty = self.bits_of(m, old_ty)?;
        let id = match def.op() {
            // Zero is zero whatever its kind: 0 and 0.0 become one constant.
            Op::ConstantNull if n.count == 1 => {
                let word = if n.width > 32 {
                    Operand::LiteralBit64(0)
                } else {
                    Operand::LiteralBit32(0)
                };
                Builder::detached(m).constant(ty, word).ok()?
            }
            Op::ConstantComposite => {
                let mut parts = Vec::with_capacity(def.args().len());
                for &o in def.args() {
                    parts.push(self.bits_constant_at(m, o, depth + 1)?);
                }
                Builder::detached(m).composite(ty, &parts).ok()?
            }
            // Narrow signed literals are sign-extended to the word; as bits they are just bits.
            Op::Constant if n.width < 32 => {
                let word = match def.lits().first() {
                    Some(Operand::LiteralBit32(w)) => *w & ((1u32 << n.width) - 1),
                    _ => return None,
                };
                Builder::detached(m)
                    .constant(ty, Operand::LiteralBit32(word))
                    .ok()?
            }
            // The same constant, of the bit-vector type.
            _ => {
                let i = def.clone().retyped(Some(ty));
                m.intern(i)?
            }
        };
        self.made.insert(c, id);
        Some(id)
    }
}

pub fn untype(m: &mut Module) -> Result<bool, String> {
    let plan = plan(m);
    let out_of_ids = || "the module has run out of ids".to_string();
    let mut cx = Cx::new(m);
    let mut changed = false;

    // Signatures: parameters and return types, then the function type.
    for fi in 0..m.functions().len() {
        let fid = m.functions()[fi].id();
        let mut sig_changed = false;
        let ret = m.functions()[fi].def().ty();
        let new_ret = match ret {
            Some(t) if plan.returns.contains(&fid) => {
                sig_changed = true;
                Some(cx.bits_of(m, t).ok_or_else(out_of_ids)?)
            }
            t => t,
        };
        let mut param_types = Vec::new();
        for pi in 0..m.functions()[fi].params().len() {
            let p = m.functions()[fi].params()[pi].clone();
            let new = match p.result().and_then(|r| plan.values.get(&r)) {
                Some(&old) => {
                    sig_changed = true;
                    cx.bits_of(m, old).ok_or_else(out_of_ids)?
                }
                None => p.ty().unwrap_or(0),
            };
            rewrite::retype_param(rewrite::function_at_mut(m, fi), pi, new);
            param_types.push(new);
        }
        if sig_changed {
            let fn_type = Builder::detached(m).fn_type(new_ret.unwrap_or(0), &param_types)?;
            let f = rewrite::function_at_mut(m, fi);
            rewrite::set_return_type(f, new_ret);
            rewrite::set_function_type(f, fn_type);
            changed = true;
        }
    }

    // Results, and constants where a known instruction reads them as numbers.
    for fi in 0..m.functions().len() {
        let layout: Vec<InstId> = m.functions()[fi].layout().map(|(_, i)| i).collect();
        for iid in layout {
            {
                let inst = m.functions()[fi].inst(iid).clone();
                let mut new = inst.clone();
                if let Some(&old) = inst.result().and_then(|r| plan.values.get(&r)) {
                    new = new.retyped(Some(cx.bits_of(m, old).ok_or_else(out_of_ids)?));
                }
                for &k in plan.operands.get(&(fi, iid)).into_iter().flatten() {
                    let Some(&c) = new.args().get(k) else {
                        continue;
                    };
                    if cx.constants.contains_key(&c) {
                        new = new.with_arg(k, cx.bits_constant(m, c).ok_or_else(out_of_ids)?);
                    }
                }
                if new != inst {
                    changed = true;
                    rewrite::function_at_mut(m, fi).replace_inst(iid, new);
                }
            }
        }
    }

    // Same-width bitcasts between bit-vectors are plain uses now.
    let value_types: HashMap<Id, Id> = {
        let mut t = HashMap::new();
        m.for_each_inst(|i| {
            if let (Some(r), Some(ty)) = (i.result(), i.ty()) {
                t.insert(r, ty);
            }
        });
        t
    };
    let mut replace = Replacer::new();
    for f in m.functions() {
        for i in f.body() {
            if let (Op::Bitcast, Some(r), Some(t), Some(&src)) =
                (i.op(), i.result(), i.ty(), i.args().first())
            {
                if value_types.get(&src) == Some(&t) {
                    replace.replace_in(f.id(), r, src);
                }
            }
        }
    }
    if !replace.is_empty() {
        for f in rewrite::functions_mut(m) {
            f.retain_all(|i| !i.result().is_some_and(|r| replace.is_replaced(r)));
        }
        changed = true;
        replace.apply(m, "untype");
    }

    // Typed constants nothing uses any more.
    if !cx.made.is_empty() {
        let mut used: HashSet<Id> = HashSet::new();
        m.for_each_inst(|i| {
            if !matches!(i.op(), Op::Name | Op::Decorate | Op::MemberName) {
                used.extend(i.uses());
            }
        });
        let dead: FxHashSet<Id> = cx
            .made
            .keys()
            .copied()
            .filter(|c| !used.contains(c))
            .collect();
        crate::ir::rewrite::retain_globals(m, |g| !g.result().is_some_and(|r| dead.contains(&r)));
        forget(m, &dead);
        m.reindex();
    }
    Ok(changed)
}

impl Pass for Untype {
    fn name(&self) -> &'static str {
        "untype"
    }
    fn description(&self) -> &'static str {
        "integer and float values become bit-vectors; same-width bitcasts vanish, equal constants merge"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        untype(module).map(Changed::from).map_err(PassError)
    }
}
