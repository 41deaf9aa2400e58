//! `sroa`: scalar replacement of aggregates. A `Function` variable of struct or array type
//! (arrays of at most 64 elements) whose every use reaches a member by a constant index is
//! split into one variable per member used, recursively, so `mem2reg` can promote them:
//! - `OpAccessChain %v %c …` uses member `c`'s variable instead (the rest of the chain stays);
//! - a load of the whole variable loads each member and builds the value with
//!   `OpCompositeConstruct`; a store of the whole stores each member (`OpCompositeExtract`);
//! - `OpCopyMemory` to or from it is first a load and a store;
//! - an initializer gives each member its part.
//!
//! Vectors and matrices are not split; when a variable of any type is reached only by access
//! chains whose indices are all constants (and whole loads and stores), those accesses become
//! a load of the whole variable with `OpCompositeExtract`, and a load, `OpCompositeInsert` and
//! store — so `mem2reg` can take it too (spirv-opt's local access chain conversion).
//!
//! Not touched: variables indexed dynamically (they stay memory), passed to calls, used by
//! pointer phis or selects, volatile accesses, decorated variables (other than names and
//! `RelaxedPrecision`).

use rspirv::dr::Operand;
use spirv::{Op, StorageClass};

use crate::ir::debug::{self, DebugSets};
use crate::ir::func::Function;
use crate::ir::fxhash::FxHashSet;
use crate::ir::rewrite::{self, decorated_ids, forget, out_of_ids, Builder, Edits, Replacer};
use crate::ir::types::{const_int, is_volatile, member_type, members, pointer_type};
use crate::ir::{Id, InstId, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct Sroa;

/// Largest array split into one variable per element.
const MAX_ELEMENTS: u32 = 64;

/// How a variable is used, from its def-use chains.
#[derive(Default)]
struct Uses {
    /// Access chains based on it: (chain, its leading constant indices, whether all its
    /// indices are constants and only loads and stores use it).
    chains: Vec<(InstId, Vec<u32>, bool)>,
    loads: Vec<InstId>,
    stores: Vec<InstId>,
    copies: Vec<InstId>,
    /// `DebugDeclare`s of it: each part is declared as its index of the variable.
    declares: Vec<InstId>,
}

/// The uses of variable `v`, or `None` when one of them is not a plain access.
fn uses_of(m: &Module, f: &Function, v: Id) -> Option<Uses> {
    let dsets = DebugSets::of(m);
    let du = f.def_use(&dsets);
    let mut out = Uses::default();
    // Its declares are split with it; a value record of the pointer goes with it (`forget`).
    for u in du.debug_uses(v) {
        if u.arg as usize != debug::ARG_DESCRIBED {
            return None;
        }
        if dsets.is(f.inst(u.inst), debug::DECLARE) {
            out.declares.push(u.inst);
        }
    }
    for u in du.uses(v) {
        let i = f.inst(u.inst);
        match (i.op(), u.arg) {
            (Op::Load, 0) if !is_volatile(i) => out.loads.push(u.inst),
            (Op::Store, 0) if !is_volatile(i) && i.args().get(1) != Some(&v) => {
                out.stores.push(u.inst)
            }
            (Op::CopyMemory, 0 | 1) if i.args()[0] != i.args()[1] => out.copies.push(u.inst),
            (Op::AccessChain | Op::InBoundsAccessChain, 0) => {
                let idx: Vec<Option<u32>> = i.args()[1..]
                    .iter()
                    .map(|&a| const_int(m, a).and_then(|c| u32::try_from(c).ok()))
                    .collect();
                let path: Vec<u32> = idx.iter().map_while(|c| *c).collect();
                // The chain's result may only be loaded, stored or indexed further.
                let r = i.result()?;
                let plain = du
                    .uses(r)
                    .iter()
                    .all(|w| matches!(f.inst(w.inst).op(), Op::Load | Op::Store));
                let all = plain && idx.iter().all(Option::is_some);
                let fine = du.uses(r).iter().all(|w| {
                    let j = f.inst(w.inst);
                    matches!(
                        (j.op(), w.arg),
                        (Op::Load, 0)
                            | (Op::Store, 0)
                            | (Op::AccessChain | Op::InBoundsAccessChain, 0)
                    ) && !is_volatile(j)
                        && !(j.op() == Op::Store && j.args().get(1) == Some(&r))
                });
                if !fine {
                    return None;
                }
                out.chains.push((u.inst, path, all));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// One round over function `f`: splits what can be split and converts constant chains.
/// Returns whether anything changed.
fn round(
    m: &mut Module,
    f: &mut Function,
    replace: &mut Replacer,
    gone: &mut FxHashSet<Id>,
) -> Result<bool, String> {
    let decorated = decorated_ids(m);
    let mut candidates = Vec::new();
    for &i in &f.block(0).insts {
        let v = f.inst(i);
        let (Op::Variable, Some(id), Some(ptr)) = (v.op(), v.result(), v.ty()) else {
            continue;
        };
        if decorated.contains(&id) {
            continue;
        }
        let Some((StorageClass::Function, pointee)) = pointer_type(m, ptr) else {
            continue;
        };
        if let Some(uses) = uses_of(m, f, id) {
            candidates.push((i, id, pointee, v.args().first().copied(), uses));
        }
    }
    // Copies become a load and a store of the whole first, which the next round handles.
    let copies: Vec<(InstId, Id)> = candidates
        .iter()
        .flat_map(|c| c.4.copies.iter().map(|&i| (i, c.2)))
        .collect();
    if !copies.is_empty() {
        let mut edits = Edits::new();
        let mut done = FxHashSet::default();
        for (c, ty) in copies {
            if !done.insert(c) {
                continue;
            }
            let copy = f.inst(c).clone();
            let mut b = Builder::detached(m);
            let tmp = b.load(ty, copy.args()[1])?;
            b.store(copy.args()[0], tmp);
            edits.replace_with(c, b.take());
        }
        edits.apply(f);
        return Ok(true);
    }
    let mut edits = Edits::new();
    let mut changed = false;
    for (var_inst, v, pointee, init, uses) in candidates {
        let t = m.global(pointee).map(|t| t.op());
        let splittable = match t {
            Some(Op::TypeStruct) => true,
            Some(Op::TypeArray) => members(m, pointee).is_some_and(|ms| ms.count() <= MAX_ELEMENTS),
            _ => false,
        };
        // Every chain must pick an existing member by a constant.
        let count = members(m, pointee).map_or(0, |ms| ms.count());
        if splittable
            && uses
                .chains
                .iter()
                .all(|c| c.1.first().is_some_and(|&k| k < count))
        {
            if !uses.chains.is_empty() || !uses.loads.is_empty() || !uses.stores.is_empty() {
                split(m, f, &mut edits, var_inst, v, pointee, init, &uses, replace)?;
                gone.insert(v);
                // Its chains go too: what debug info said of them goes with them.
                gone.extend(uses.chains.iter().filter_map(|c| f.inst(c.0).result()));
                changed = true;
            }
        } else if !uses.chains.is_empty()
            && uses
                .chains
                .iter()
                .all(|c| c.2 && member_type(m, pointee, &c.1).is_some())
        {
            // Every path stays inside the type (an array sized by a spec constant has no
            // known members, and an index past the end is no member).
            convert_chains(m, f, &mut edits, v, pointee, &uses)?;
            gone.extend(uses.chains.iter().filter_map(|c| f.inst(c.0).result()));
            changed = true;
        }
    }
    edits.apply(f);
    Ok(changed)
}

/// Splits variable `v` (of aggregate type `ty`) into one variable per member used.
#[allow(clippy::too_many_arguments)]
fn split(
    m: &mut Module,
    f: &Function,
    edits: &mut Edits,
    var_inst: InstId,
    v: Id,
    ty: Id,
    init: Option<Id>,
    uses: &Uses,
    replace: &mut Replacer,
) -> Result<(), String> {
    let ms = members(m, ty).ok_or("an aggregate without members")?;
    let count = ms.count();
    let member_types: Vec<Id> = (0..count).filter_map(|k| ms.get(k)).collect();
    // Which members need a variable.
    let whole = !uses.loads.is_empty() || !uses.stores.is_empty();
    let mut needed: Vec<bool> = vec![whole; count as usize];
    for (_, path, _) in &uses.chains {
        if let Some(slot) = needed.get_mut(path[0] as usize) {
            *slot = true;
        }
    }
    // The member variables, with their initializers.
    let init_def = init.and_then(|i| m.global(i).cloned());
    let name = m.debug_name(v).map(str::to_string);
    let mut parts: Vec<Option<Id>> = vec![None; count as usize];
    for k in 0..count as usize {
        if !needed[k] {
            continue;
        }
        let mt = member_types[k];
        let ptr = m
            .pointer_to(StorageClass::Function, mt)
            .ok_or_else(out_of_ids)?;
        let part_init = match &init_def {
            Some(d) if d.op() == Op::ConstantComposite => d.args().get(k).copied(),
            Some(d) if d.op() == Op::ConstantNull => Some(m.null(mt).ok_or_else(out_of_ids)?),
            _ => None,
        };
        let mut b = Builder::detached(m);
        let id = b.variable(ptr, part_init)?;
        edits.insert_all_before(var_inst, b.take());
        if let Some(n) = &name {
            m.set_name(id, format!("{n}.{k}"));
        }
        parts[k] = Some(id);
    }
    let part = |k: u32| parts[k as usize].ok_or("a member without a variable");
    // Chains take the member's variable.
    for (c, path, _) in &uses.chains {
        let chain = f.inst(*c);
        if chain.args().len() == 2 {
            replace.replace_in(f.id(), chain.result().unwrap_or(0), part(path[0])?);
            edits.remove(*c);
        } else {
            let base = part(path[0])?;
            let new = chain.clone().with_args_edited(|a| {
                a.remove(1);
                a[0] = base;
            });
            edits.replace(*c, new);
        }
    }
    // Whole loads: a load per member and a construct.
    for &l in &uses.loads {
        let load = f.inst(l);
        let mut pieces = Vec::with_capacity(count as usize);
        let mut b = Builder::detached(m);
        for (k, &mt) in member_types.iter().enumerate() {
            pieces.push(b.load(mt, part(k as u32)?)?);
        }
        b.ids_as(Op::CompositeConstruct, load.ty(), load.result(), &pieces);
        edits.replace_with(l, b.take());
    }
    // Whole stores: an extract and a store per member.
    for &s in &uses.stores {
        let value = f.inst(s).args()[1];
        let mut b = Builder::detached(m);
        for (k, &mt) in member_types.iter().enumerate() {
            let id = b.extract(mt, value, &[k as u32])?;
            b.store(part(k as u32)?, id);
        }
        edits.insert_all_before(s, b.take());
        edits.remove(s);
    }
    // Declares: one per part, its index added to the declare's.
    for &d in &uses.declares {
        for (k, p) in parts.iter().enumerate() {
            let Some(p) = *p else { continue };
            let declare = f.inst(d);
            if declare.args().len() <= debug::ARG_DESCRIBED {
                continue;
            }
            let declare = declare.clone();
            let index = m.u32_constant(k as u32).ok_or_else(out_of_ids)?;
            let part_declare = declare
                .with_arg(debug::ARG_DESCRIBED, p)
                .with_args_edited(|a| a.push(index))
                .renamed(Some(m.fresh_id().ok_or_else(out_of_ids)?));
            edits.insert_before(d, part_declare);
        }
        edits.remove(d);
    }
    edits.remove(var_inst);
    Ok(())
}

/// Accesses through constant access chains become whole loads with extracts, and whole loads,
/// inserts and stores.
fn convert_chains(
    m: &mut Module,
    f: &Function,
    edits: &mut Edits,
    v: Id,
    ty: Id,
    uses: &Uses,
) -> Result<(), String> {
    let du = f.def_use(&DebugSets::of(m));
    for (c, path, _) in &uses.chains {
        let chain_result = f.inst(*c).result().unwrap_or(0);
        let member_ty = member_type(m, ty, path).ok_or("a path outside its type")?;
        let lits: Vec<Operand> = path.iter().map(|&k| Operand::LiteralBit32(k)).collect();
        for u in du.users(chain_result) {
            let inst = f.inst(u);
            let mut b = Builder::detached(m);
            let whole = b.load(ty, v)?;
            if inst.op() == Op::Load {
                let result = inst.result().ok_or("a load without a result")?;
                b.extract_as(member_ty, result, whole, path);
            } else {
                let mut ops = vec![Operand::IdRef(inst.args()[1]), Operand::IdRef(whole)];
                ops.extend(lits.iter().cloned());
                let updated = b.op(Op::CompositeInsert, ty, ops)?;
                b.store(v, updated);
            }
            edits.replace_with(u, b.take());
        }
        edits.remove(*c);
    }
    Ok(())
}

pub fn sroa(m: &mut Module) -> Result<bool, String> {
    let mut changed = false;
    let mut gone: FxHashSet<Id> = FxHashSet::default();
    for k in 0..m.functions().len() {
        if m.functions()[k].is_declaration() {
            continue;
        }
        let mut replace = Replacer::new();
        // Members that are aggregates are split in the next round; bounded for safety.
        rewrite::with_function(m, k, |m, f| {
            for _ in 0..8 {
                if !round(m, f, &mut replace, &mut gone)? {
                    break;
                }
                replace.apply_to_function(f);
                changed = true;
            }
            Ok::<(), String>(())
        })?;
        replace.apply(m, "sroa");
    }
    forget(m, &gone);
    Ok(changed)
}

impl Pass for Sroa {
    fn name(&self) -> &'static str {
        "sroa"
    }
    fn description(&self) -> &'static str {
        "split aggregate function variables reached by constant indices into one per member"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        sroa(m).map(Changed::from).map_err(PassError)
    }
}
