//! `qptr-lift`: untyped pointers become typed pointers and access chains again. For every
//! access through a qptr — a load, a store, an atomic, a copy — the address it stands for
//! (a typed root pointer and the offsets applied to it) is matched against the root's type:
//! the access chain is the path through structs, arrays, vectors and matrices that reaches the
//! accessed type at that offset, each dynamic offset becoming the index of the array whose
//! stride it has. The original types, and with them the layout decorations the application's
//! buffers are bound with, are what the path goes through. A load or store of a type other
//! than the member's (a union-like use) goes through the member's type and a bitcast; pointer
//! phis and selects (variable pointers) are typed by what is accessed through them.
//!
//! The usage attached by `qptr-analyze` must match the usage of the module as it is (a warning
//! says so if a pass between them changed it). A function that cannot be lifted makes the pass
//! fail naming the function and the reason; `qptr-lower` only lowers functions this pass can
//! lift, so that happens only when a pass between them did something lifting cannot undo.

use std::collections::{HashMap, HashSet};

use rspirv::dr::Operand;
use spirv::{Op, StorageClass};

use crate::ir::fxhash::FxHashSet;
use crate::ir::module::Attribute;
use crate::ir::names::Names;
use crate::ir::ops::{self, ExtSets, OpSet};
use crate::ir::qptr::{find_path, Defs, Index, Layout, Place};
use crate::ir::rewrite;
use crate::ir::rewrite::{forget, Builder, Edits};
use crate::ir::typing::TypeInfo;
use crate::ir::{Id, Inst, InstId, Module};
use crate::pipeline::pass::{Changed, Diagnostic, Pass, PassCx, PassError, Preserves, Severity};

pub struct QptrLift;

/// A typed pointer to make: root pointer plus path, placed where the qptr was defined.
#[derive(Clone, Debug)]
struct Chain {
    /// The qptr's definition.
    at: InstId,
    /// The qptr it replaces (its id is reused by the first chain made for it).
    qptr: Id,
    root: Id,
    class: StorageClass,
    path: Vec<Index>,
    pointee: Id,
}

/// What lifting one function does, decided before anything changes.
#[derive(Debug, Default)]
pub struct Plan {
    chains: Vec<Chain>,
    /// (instruction, index into its `args`) → chain index.
    operands: Vec<((InstId, usize), usize)>,
    /// Loads whose result must be reinterpreted: (load, member type).
    load_casts: Vec<(InstId, Id)>,
    /// Stores whose value must be reinterpreted: (store, member type).
    store_casts: Vec<(InstId, Id)>,
    /// `qptr.copy` → `OpCopyMemory` of (dst chain, src chain).
    copies: Vec<(InstId, usize, usize)>,
    /// Pointer phis and selects, with their new pointer type's (class, pointee).
    phis: Vec<(InstId, StorageClass, Id)>,
    /// `qptr.handle_array_index` → `OpAccessChain`.
    handles: Vec<InstId>,
    /// qptr arithmetic, removed at the end.
    removed: Vec<InstId>,
}

fn pointer_type(m: &Module, ty: Id) -> Option<(StorageClass, Id)> {
    let t = m.global(ty)?;
    match (t.op(), t.lits(), t.args()) {
        (Op::TypePointer, [Operand::StorageClass(c)], [p]) => Some((*c, *p)),
        _ => None,
    }
}

fn is_qptr_type(m: &Module, ty: Id) -> bool {
    m.global(ty)
        .is_some_and(|t| t.op() == Op::TypeUntypedPointerKHR)
}

/// How an accessed type relates to a member type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fit {
    Exact,
    /// Same width and count, one of them a bit-vector: typed by the access later.
    Bits,
    /// Same width and count, both typed: a bitcast reinterprets.
    Cast,
    No,
}

fn fit(info: &TypeInfo, member: Id, access: Id) -> Fit {
    if member == access {
        return Fit::Exact;
    }
    match (info.numeric(member), info.numeric(access)) {
        (Some(a), Some(b)) if a.width == b.width && a.count == b.count => {
            if a.label.is_none() || b.label.is_none() {
                Fit::Bits
            } else {
                Fit::Cast
            }
        }
        _ => Fit::No,
    }
}

/// Plans lifting function `fi`: every access through a qptr must find its typed path.
pub fn plan_function(m: &Module, fi: usize) -> Result<Plan, String> {
    let f = &m.functions()[fi];
    let layout = Layout::new(m);
    let info = TypeInfo::scoped(m, f);
    let defs = Defs::new(m, f);
    let sets = ExtSets::of(m);
    let names = || Names::for_module(m);
    let mut plan = Plan::default();
    let type_of = |id: Id| info.value_type(id);
    let is_qptr = |id: Id| type_of(id).is_some_and(|t| is_qptr_type(m, t));
    // Chains already planned, by (qptr, accepted type).
    let mut made: HashMap<(Id, Id), usize> = HashMap::new();
    // The typed pointer for an access of `access` through `p`, with how it fits.
    let mut chain_for = |plan: &mut Plan,
                         p: Id,
                         accept: &dyn Fn(Place) -> bool,
                         key: Id|
     -> Result<usize, String> {
        if let Some(&c) = made.get(&(p, key)) {
            return Ok(c);
        }
        let addr = defs
            .address(&layout, p)
            .ok_or_else(|| format!("%{} is not an offset from a typed pointer", names().get(p)))?;
        let root_ty = type_of(addr.root)
            .or_else(|| m.global(addr.root).and_then(|g| g.ty()))
            .ok_or("a root pointer of unknown type")?;
        let (class, pointee) = pointer_type(m, root_ty).ok_or_else(|| {
            format!(
                "%{} is built from %{}, which is not a typed pointer",
                names().get(p),
                names().get(addr.root)
            )
        })?;
        let (path, place) = find_path(&layout, Place::of(pointee), &addr.segs, accept)
            .map_err(|e| format!("%{}: {e}", names().get(p)))?;
        let at = f
            .value(p)
            .ok_or_else(|| format!("%{} is not defined in the function", names().get(p)))?;
        plan.chains.push(Chain {
            at,
            qptr: p,
            root: addr.root,
            class,
            path,
            pointee: place.ty,
        });
        made.insert((p, key), plan.chains.len() - 1);
        Ok(plan.chains.len() - 1)
    };

    // Pointer phis and selects first: they take the type accessed through them.
    let mut phi_types: HashMap<Id, Id> = HashMap::new();
    for (_, iid) in f.layout() {
        let i = f.inst(iid);
        {
            if !(matches!(i.op(), Op::Phi | Op::Select) && i.result().is_some_and(is_qptr)) {
                continue;
            }
            let r = i.result().unwrap_or(0);
            // The type accessed through it.
            let accessed = f
                .body()
                .find_map(|u| match (u.op(), u.args().first()) {
                    (Op::Load, Some(p)) if *p == r => u.ty(),
                    (Op::Store, Some(p)) if *p == r => u.id_at(1).and_then(type_of),
                    _ => None,
                })
                .ok_or_else(|| {
                    format!("the variable pointer %{} is never accessed", names().get(r))
                })?;
            let values: Vec<(usize, Id)> = i
                .args()
                .iter()
                .copied()
                .enumerate()
                .filter(|(k, _)| {
                    if i.op() == Op::Phi {
                        k % 2 == 0
                    } else {
                        *k >= 1
                    }
                })
                .collect();
            let mut target: Option<Id> = None;
            for (k, v) in values {
                if phi_types.contains_key(&v) {
                    return Err(format!(
                        "the variable pointer %{} merges another variable pointer",
                        names().get(r)
                    ));
                }
                let c = match target {
                    None => chain_for(
                        &mut plan,
                        v,
                        &|p: Place| fit(&info, p.ty, accessed) != Fit::No,
                        accessed,
                    )?,
                    Some(t) => chain_for(&mut plan, v, &|p: Place| p.ty == t, t)?,
                };
                target.get_or_insert(plan.chains[c].pointee);
                plan.operands.push(((iid, k), c));
            }
            let t = target.ok_or("a variable pointer with no incoming value")?;
            let class = plan.chains[plan.operands.last().map_or(0, |o| o.1)].class;
            phi_types.insert(r, t);
            plan.phis.push((iid, class, t));
        }
    }

    for (_, iid) in f.layout() {
        let i = f.inst(iid);
        {
            let dialect = ops::for_inst(i, &sets).filter(|o| o.set == OpSet::Dialect);
            match dialect.map(|o| o.name.as_str()) {
                Some("qptr.offset" | "qptr.dyn_offset" | "qptr.buffer_data") => {
                    plan.removed.push(iid);
                    continue;
                }
                Some("qptr.handle_array_index") => {
                    plan.handles.push(iid);
                    continue;
                }
                Some("qptr.copy") => {
                    let ids: Vec<Id> = i.id_operands().skip(1).collect();
                    let (dst, src, n) = match ids.as_slice() {
                        [d, s, n] => (*d, *s, *n),
                        _ => return Err("qptr.copy without dst, src and size".into()),
                    };
                    let size = layout
                        .constant(n)
                        .ok_or("qptr.copy of a non-constant size")?;
                    let sized = |p: Place| layout.size(p) == Some(size);
                    let mut typed_end =
                        |p: Id, plan: &mut Plan, accept: &dyn Fn(Place) -> bool, key: Id| {
                            if is_qptr(p) {
                                chain_for(plan, p, accept, key).map(Some)
                            } else {
                                Ok(None)
                            }
                        };
                    let src_c = typed_end(src, &mut plan, &sized, 0)?;
                    let src_ty = match src_c {
                        Some(c) => plan.chains[c].pointee,
                        None => type_of(src)
                            .and_then(|t| pointer_type(m, t))
                            .map(|(_, p)| p)
                            .ok_or("a copy from an unknown pointer")?,
                    };
                    let dst_c = typed_end(dst, &mut plan, &|p: Place| p.ty == src_ty, src_ty)?;
                    let dst_ty = match dst_c {
                        Some(c) => plan.chains[c].pointee,
                        None => type_of(dst)
                            .and_then(|t| pointer_type(m, t))
                            .map(|(_, p)| p)
                            .ok_or("a copy to an unknown pointer")?,
                    };
                    if dst_ty != src_ty {
                        return Err("qptr.copy between memory of different types".into());
                    }
                    // Typed ends need no chain: `usize::MAX` marks "keep the operand".
                    plan.copies.push((
                        iid,
                        dst_c.unwrap_or(usize::MAX),
                        src_c.unwrap_or(usize::MAX),
                    ));
                    continue;
                }
                _ => {}
            }
            // Accesses.
            let (p, access) = match i.op() {
                Op::Load => (i.id_at(0), i.ty()),
                Op::Store => (i.id_at(0), i.id_at(1).and_then(type_of)),
                Op::AtomicStore => (i.id_at(0), i.args().last().copied().and_then(type_of)),
                op if crate::ir::inst::is_atomic(op) => (i.id_at(0), i.ty()),
                _ => {
                    // Any other use of a qptr cannot be lifted.
                    if let Some(q) = i
                        .args()
                        .iter()
                        .copied()
                        .find(|&o| is_qptr(o) && !matches!(i.op(), Op::Phi | Op::Select))
                    {
                        return Err(format!("{:?} uses the qptr %{}", i.op(), names().get(q)));
                    }
                    continue;
                }
            };
            let (Some(p), Some(access)) = (p, access) else {
                continue;
            };
            if !is_qptr(p) {
                continue;
            }
            let member = if let Some(&t) = phi_types.get(&p) {
                t
            } else {
                let c = chain_for(
                    &mut plan,
                    p,
                    &|place: Place| fit(&info, place.ty, access) != Fit::No,
                    access,
                )?;
                plan.operands.push(((iid, 0), c));
                plan.chains[c].pointee
            };
            if fit(&info, member, access) == Fit::Cast {
                match i.op() {
                    Op::Load => plan.load_casts.push((iid, member)),
                    Op::Store => plan.store_casts.push((iid, member)),
                    _ => {
                        return Err(format!(
                            "an atomic through %{} reads another type than the member's",
                            names().get(p)
                        ))
                    }
                }
            }
        }
    }
    Ok(plan)
}

/// Carries out `plan` on function `fi`.
fn apply(m: &mut Module, fi: usize, plan: Plan) -> Option<()> {
    let int = m.numeric_type(crate::ir::typing::Labels::S, 32, 1)?;
    let constant = |m: &mut Module, ty: Id, v: u32| {
        Builder::detached(m)
            .constant(ty, Operand::LiteralBit32(v))
            .ok()
    };
    let value_types: HashMap<Id, Id> = {
        let mut t = HashMap::new();
        m.for_each_inst(|i| {
            if let (Some(r), Some(ty)) = (i.result(), i.ty()) {
                t.insert(r, ty);
            }
        });
        t
    };
    // Insertions at positions, and the id each chain gets.
    let mut inserts: HashMap<InstId, Vec<Inst>> = HashMap::new();
    let mut chain_ids: Vec<Id> = Vec::with_capacity(plan.chains.len());
    let mut reused: HashSet<Id> = HashSet::new();
    for c in &plan.chains {
        if c.path.is_empty() {
            chain_ids.push(c.root);
            continue;
        }
        let mut operands = vec![c.root];
        let mut pre = Vec::new();
        for step in &c.path {
            let id = match *step {
                Index::Const(k) => constant(m, int, k)?,
                Index::Dyn(i, 0) => i,
                Index::Dyn(i, extra) => {
                    let ty = *value_types.get(&i)?;
                    let k = constant(m, ty, extra).or_else(|| constant(m, int, extra))?;
                    let mut add = Builder::detached(m);
                    let id = add.ids(Op::IAdd, ty, &[i, k]).ok()?;
                    pre.extend(add.take());
                    id
                }
            };
            operands.push(id);
        }
        let ptr = m.pointer_to(c.class, c.pointee)?;
        // The first chain for a qptr takes its id, so names and decorations stay.
        let id = if reused.insert(c.qptr) {
            c.qptr
        } else {
            m.fresh_id()?
        };
        let mut chain = Builder::detached(m);
        chain.ids_as(Op::AccessChain, Some(ptr), Some(id), &operands);
        pre.extend(chain.take());
        inserts.entry(c.at).or_default().extend(pre);
        chain_ids.push(id);
    }
    let f = rewrite::function_at_mut(m, fi);
    for ((iid, k), c) in &plan.operands {
        f.set_arg(*iid, *k, chain_ids[*c]);
    }
    let mut replace: HashMap<InstId, Vec<Inst>> = HashMap::new();
    for (iid, d, s) in &plan.copies {
        let i = m.functions()[fi].inst(*iid);
        let ids: Vec<Id> = i.id_operands().skip(1).collect();
        let dst = if *d == usize::MAX {
            ids[0]
        } else {
            chain_ids[*d]
        };
        let src = if *s == usize::MAX {
            ids[1]
        } else {
            chain_ids[*s]
        };
        let mut copy = Builder::detached(m);
        copy.ids_as(Op::CopyMemory, None, None, &[dst, src]);
        replace.insert(*iid, copy.take());
    }
    for &iid in &plan.handles {
        let i = m.functions()[fi].inst(iid).clone();
        let ids: Vec<Id> = i.id_operands().skip(1).collect();
        let mut chain = Builder::detached(m);
        chain.ids_as(Op::AccessChain, i.ty(), i.result(), &ids);
        replace.insert(iid, chain.take());
    }
    let f = rewrite::function_at_mut(m, fi);
    for &iid in &plan.removed {
        replace.insert(iid, Vec::new());
    }
    let mut cast_ids = Vec::new();
    for (iid, member) in &plan.load_casts {
        cast_ids.push((*iid, *member, f.inst(*iid).clone(), true));
    }
    for (iid, member) in &plan.store_casts {
        cast_ids.push((*iid, *member, f.inst(*iid).clone(), false));
    }
    let phis: Vec<_> = plan.phis.clone();
    for (iid, member, i, is_load) in cast_ids {
        let mut cast = Builder::detached(m);
        let tmp = cast.fresh().ok()?;
        let insts = if is_load {
            let load = i.clone().retyped(Some(member)).renamed(Some(tmp));
            cast.ids_as(Op::Bitcast, i.ty(), i.result(), &[tmp]);
            let mut insts = vec![load];
            insts.extend(cast.take());
            insts
        } else {
            let v = i.id_at(1)?;
            let store = i.clone().with_arg(1, tmp);
            cast.ids_as(Op::Bitcast, Some(member), Some(tmp), &[v]);
            let mut insts = cast.take();
            insts.push(store);
            insts
        };
        replace.insert(iid, insts);
    }
    for (iid, class, t) in phis {
        let ptr = m.pointer_to(class, t)?;
        rewrite::retype(rewrite::function_at_mut(m, fi), iid, Some(ptr));
    }
    // Apply replacements and insertions. An insertion goes where the qptr it replaces was
    // defined: in its place when it goes, after its block's phis when it stays (a phi).
    let sets = ExtSets::of(m);
    let f = rewrite::function_at_mut(m, fi);
    let du = f.def_use(&sets);
    let mut edits = Edits::new();
    let mut inserts: Vec<(InstId, Vec<Inst>)> = inserts.into_iter().collect();
    inserts.sort_by_key(|(i, _)| *i);
    for (iid, new) in inserts {
        match replace.remove(&iid) {
            Some(r) => edits.replace_with(iid, new.into_iter().chain(r).collect()),
            None => {
                let b = du.block_of(iid)?;
                let anchor = f
                    .block(b)
                    .insts
                    .iter()
                    .copied()
                    .take_while(|&i| f.inst(i).op() == Op::Phi)
                    .last()
                    .unwrap_or(iid);
                for inst in new {
                    edits.insert_after(anchor, inst);
                }
            }
        }
    }
    for (iid, r) in replace {
        edits.replace_with(iid, r);
    }
    edits.apply(f);
    Some(())
}

/// Drops untyped-pointer declarations nothing uses any more.
fn remove_untyped_pointer_capability(m: &mut Module) {
    let mut used = false;
    let qptr_types: HashSet<Id> = m
        .globals()
        .iter()
        .filter(|g| g.op() == Op::TypeUntypedPointerKHR)
        .filter_map(|g| g.result())
        .collect();
    m.for_each_inst(|i| {
        if i.ty().is_some_and(|t| qptr_types.contains(&t)) {
            used = true;
        }
    });
    if used {
        return;
    }
    crate::ir::rewrite::retain_globals(m, |g| g.op() != Op::TypeUntypedPointerKHR);
    crate::ir::rewrite::retain_preamble(m, |i| {
        !(matches!(
            i.lits().first(),
            Some(Operand::Capability(spirv::Capability::UntypedPointersKHR))
        ) || matches!(i.lits().first(), Some(Operand::LiteralString(s)) if s == "SPV_KHR_untyped_pointers"))
    });
    m.reindex();
}

pub fn qptr_lift(m: &mut Module) -> Result<(bool, Vec<String>), String> {
    let mut changed = false;
    let mut warnings = Vec::new();
    // The attached usage must still describe the module.
    let mut changed_usage = Vec::new();
    for (p, u) in &super::qptr_analyze::module_usage(m) {
        if let Some(Attribute::QptrUsage(attached)) = m.attributes.get(p) {
            if attached != u {
                changed_usage.push(*p);
            }
        }
    }
    // Names only for messages.
    let names = std::cell::OnceCell::new();
    let name_of = |m: &Module, id: Id| names.get_or_init(|| Names::for_module(m)).get(id);
    for p in changed_usage {
        warnings.push(format!(
            "the usage of %{} changed since qptr-analyze: lifting from the current one",
            name_of(m, p)
        ));
    }
    for fi in 0..m.functions().len() {
        let has_qptrs = {
            let f = &m.functions()[fi];
            let sets = ExtSets::of(m);
            f.body().any(|i| {
                ops::for_inst(i, &sets)
                    .is_some_and(|o| o.set == OpSet::Dialect && o.name.starts_with("qptr."))
                    || i.ty().is_some_and(|t| is_qptr_type(m, t))
            })
        };
        if !has_qptrs {
            continue;
        }
        let plan = plan_function(m, fi).map_err(|e| {
            format!(
                "cannot lift the pointers of %{}: {e}",
                name_of(m, m.functions()[fi].id())
            )
        })?;
        // qptrs that only served as bases of others vanish: so do their names.
        let gone: FxHashSet<Id> = {
            let f = &m.functions()[fi];
            plan.removed
                .iter()
                .filter_map(|&iid| f.inst(iid).result())
                .filter(|r| {
                    !plan
                        .chains
                        .iter()
                        .any(|c| c.qptr == *r && !c.path.is_empty())
                })
                .collect()
        };
        apply(m, fi, plan).ok_or("the module has run out of ids")?;
        forget(m, &gone);
        changed = true;
    }
    // Usage attributes describe qptrs that are gone.
    let before = m.attributes.len();
    m.attributes
        .retain(|_, a| !matches!(a, Attribute::QptrUsage(_)));
    changed |= m.attributes.len() != before;
    remove_untyped_pointer_capability(m);
    Ok((changed, warnings))
}

impl Pass for QptrLift {
    fn name(&self) -> &'static str {
        "qptr-lift"
    }
    fn description(&self) -> &'static str {
        "untyped pointers become typed access chains again, through the original types and layouts"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, cx: &mut PassCx) -> Result<Changed, PassError> {
        let (changed, warnings) = qptr_lift(module).map_err(PassError)?;
        for w in warnings {
            cx.diagnostics.push(Diagnostic::new(Severity::Warning, w));
        }
        Ok(changed.into())
    }
}
