//! `qptr-lower`: typed pointers become untyped quasi-pointers, as in SPIR-T. An access chain
//! becomes byte arithmetic on an `OpTypeUntypedPointerKHR`: `qptr.offset` for its constant part
//! and `qptr.dyn_offset` (index × stride) for each dynamic index, computed from the layout
//! decorations (`Offset`, `ArrayStride`, `MatrixStride`, `RowMajor`), or a deterministic
//! scalar layout for memory without them. Buffer and image handles stay apart from memory: a
//! buffer variable becomes memory through `qptr.buffer_data`, an element of a descriptor array
//! is chosen by `qptr.handle_array_index`. Loads and stores keep their types: the access, not
//! the pointer, says what is read. The last op of a lowered chain takes the chain's id, so
//! names and decorations stay with it.
//!
//! `OpCopyMemory` becomes the experimental `qptr.copy` under `--experimental`, and a load and a
//! store otherwise.
//!
//! Variables and pointer parameters are roots: they stay typed (so they can still be passed to
//! calls), and qptrs are offsets from them. A function is lowered only when it can be lifted
//! back (`qptr-lift` is tried on it first): one that passes a pointer into an aggregate to a
//! call, does arithmetic on variable pointers or uses a pointer in a way lifting cannot undo
//! keeps its typed pointers, gets a `@typed-pointers` attribute and a warning naming the
//! function and the reason.

use std::collections::{HashMap, HashSet};

use rspirv::dr::Operand;
use spirv::{Op, StorageClass};

use super::qptr_lift::plan_function;
use crate::ir::module::Attribute;
use crate::ir::names::Names;
use crate::ir::ops;
use crate::ir::qptr::{Layout, Place};
use crate::ir::rewrite::{self, Builder, Edits};
use crate::ir::{Function, Id, Inst, InstId, Module};
use crate::pipeline::pass::{Changed, Diagnostic, Pass, PassCx, PassError, Preserves, Severity};

pub struct QptrLower;

/// Storage classes whose variables are buffers: handles, whose memory starts at
/// `qptr.buffer_data`.
fn is_buffer_class(c: StorageClass) -> bool {
    matches!(
        c,
        StorageClass::Uniform
            | StorageClass::StorageBuffer
            | StorageClass::PushConstant
            | StorageClass::ShaderRecordBufferKHR
    )
}

/// A typed pointer type: (storage class, pointee).
fn pointer_type(m: &Module, ty: Id) -> Option<(StorageClass, Id)> {
    let t = m.global(ty)?;
    match (t.op(), t.lits(), t.args()) {
        (Op::TypePointer, [Operand::StorageClass(c)], [p]) => Some((*c, *p)),
        _ => None,
    }
}

/// The pointer type (storage class, pointee) of `id`: a global variable, or a parameter or
/// value of `f`.
fn pointer_of(m: &Module, f: &Function, id: Id) -> Option<(StorageClass, Id)> {
    let ty = m
        .global(id)
        .and_then(|g| g.ty())
        .or_else(|| f.def_of(id)?.ty())?;
    pointer_type(m, ty)
}

/// What a function's pointers are, before any change: the reason it cannot be lowered, or
/// which values are pointers lowering will touch.
fn check(m: &Module, f: &Function, names: &std::cell::OnceCell<Names>) -> Result<(), String> {
    // Names are made only for a message.
    let name = |id: Id| format!("%{}", names.get_or_init(|| Names::for_module(m)).get(id));
    // Values of pointer type defined here, parameters and global variables. Variables and
    // parameters are roots: they stay typed, so they may be passed to calls; a pointer into
    // an aggregate may not, as it becomes a qptr.
    let mut pointers: HashSet<Id> = HashSet::new();
    let mut roots: HashSet<Id> = HashSet::new();
    let mut phis: HashSet<Id> = HashSet::new();
    for g in m.globals() {
        if g.op() == Op::Variable {
            pointers.extend(g.result());
            roots.extend(g.result());
        }
    }
    for p in f.params() {
        if p.ty().and_then(|t| pointer_type(m, t)).is_some() {
            pointers.extend(p.result());
            roots.extend(p.result());
        }
    }
    for i in f.body() {
        if i.ty().and_then(|t| pointer_type(m, t)).is_some() {
            pointers.extend(i.result());
            if matches!(i.op(), Op::Phi | Op::Select) {
                phis.extend(i.result());
            }
            if i.op() == Op::Variable {
                roots.extend(i.result());
            }
        }
    }
    let class_of = |id: Id| pointer_of(m, f, id).map(|(c, _)| c);
    let sets = ops::ExtSets::of(m);
    {
        for i in f.body() {
            for (k, &p) in i.args().iter().enumerate() {
                if !pointers.contains(&p) {
                    continue;
                }
                let allowed = match i.op() {
                    Op::Load => k == 0,
                    Op::Store => k == 0,
                    Op::AccessChain | Op::InBoundsAccessChain => {
                        if k == 0 && phis.contains(&p) {
                            return Err(format!(
                                "it indexes into a variable pointer ({})",
                                name(p)
                            ));
                        }
                        k == 0
                    }
                    Op::CopyMemory => k <= 1,
                    Op::ArrayLength | Op::ImageTexelPointer => k == 0,
                    Op::Phi | Op::Select => true,
                    op if crate::ir::inst::is_atomic(op) => k == 0,
                    Op::FunctionCall if roots.contains(&p) => true,
                    // A variable or parameter stays typed: its debug records stay right.
                    Op::ExtInst if ops::attrs_of(i, &sets).contains(ops::Attrs::DEBUG_INFO) => {
                        roots.contains(&p)
                    }
                    Op::FunctionCall => {
                        return Err(format!(
                            "it passes a pointer into an aggregate ({}) to a function call",
                            name(p)
                        ))
                    }
                    _ => false,
                };
                if !allowed {
                    let op = ops::for_inst(i, &sets)
                        .map_or_else(|| format!("{:?}", i.op()), |o| o.name.clone());
                    return Err(format!("{op} uses the pointer {}", name(p)));
                }
            }
            match i.op() {
                Op::PtrAccessChain | Op::InBoundsPtrAccessChain => {
                    return Err("it uses OpPtrAccessChain (pointer arithmetic)".into())
                }
                Op::AccessChain | Op::InBoundsAccessChain => {
                    let base = i.id_at(0).unwrap_or(0);
                    if class_of(base) == Some(StorageClass::UniformConstant) && i.args().len() > 2 {
                        return Err("it indexes a multi-dimensional array of handles".into());
                    }
                }
                Op::CopyMemory => {
                    let pointee = |k: usize| {
                        let id = i.id_at(k)?;
                        pointer_of(m, f, id).map(|(_, p)| p)
                    };
                    if pointee(0) != pointee(1) || pointee(0).is_none() {
                        return Err("it copies memory between different types".into());
                    }
                    if i.lits()
                        .iter()
                        .filter(|o| matches!(o, Operand::MemoryAccess(_)))
                        .count()
                        > 1
                    {
                        return Err(
                            "it copies memory with separate source and target access".into()
                        );
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// How to lower one access chain: its steps from the base.
enum Step {
    /// `qptr.buffer_data` of the current (typed) handle.
    Data,
    /// `qptr.handle_array_index`: a typed pointer of this type to element `index`.
    Handle {
        index: Id,
        ty: Id,
    },
    Offset(i64),
    Dyn {
        index: Id,
        stride: u64,
    },
}

struct ChainPlan {
    at: InstId,
    result: Id,
    base: Id,
    class: StorageClass,
    steps: Vec<Step>,
}

/// Lowers function `fi` in place. Returns whether anything changed.
fn lower_function(
    m: &mut Module,
    fi: usize,
    experimental: bool,
    qptr_types: &mut HashMap<StorageClass, Id>,
) -> Result<bool, String> {
    let out_of_ids = || "the module has run out of ids".to_string();
    // Plan with the layout (immutable), then rewrite.
    let plans = {
        let layout = Layout::new(m);
        let f = &m.functions()[fi];
        let types: HashMap<Id, Id> = f
            .body()
            .chain(m.globals().iter())
            .chain(f.params().iter())
            .filter_map(|i| Some((i.result()?, i.ty()?)))
            .collect();
        // Where lowered chains leave off: (place, class, typed handle?).
        let mut reached: HashMap<Id, (Place, StorageClass, bool)> = HashMap::new();
        let mut plans = Vec::new();
        for (_, iid) in f.layout() {
            let i = f.inst(iid);
            {
                if !matches!(i.op(), Op::AccessChain | Op::InBoundsAccessChain) {
                    continue;
                }
                let (Some(result), Some(base)) = (i.result(), i.id_at(0)) else {
                    continue;
                };
                let indices: Vec<Id> = i.args()[1..].to_vec();
                let (mut place, class, mut handle) = match reached.get(&base) {
                    Some(&r) => r,
                    None => {
                        let (class, pointee) =
                            types.get(&base).and_then(|t| pointer_type(m, *t)).ok_or(
                                "an access chain from a value that is not a typed pointer",
                            )?;
                        let handle =
                            is_buffer_class(class) || class == StorageClass::UniformConstant;
                        (Place::of(pointee), class, handle)
                    }
                };
                let mut steps = Vec::new();
                let mut pending: i64 = 0;
                let mut rest = &indices[..];
                if handle
                    && layout
                        .type_inst(place.ty)
                        .is_some_and(|t| matches!(t.op(), Op::TypeArray | Op::TypeRuntimeArray))
                {
                    // The first index picks a descriptor.
                    let (&index, tail) = rest.split_first().ok_or("an empty access chain")?;
                    // Descriptors have no size, so no stride: only the element type counts.
                    let elem = layout
                        .id_at(place.ty, 0)
                        .map(Place::of)
                        .ok_or("a descriptor array without an element type")?;
                    let ty = if tail.is_empty() {
                        i.ty().ok_or("an access chain without a type")?
                    } else {
                        0 // Made when applied: pointer to the element.
                    };
                    steps.push(Step::Handle { index, ty });
                    place = elem;
                    rest = tail;
                }
                if class == StorageClass::UniformConstant {
                    if !rest.is_empty() {
                        return Err("an access chain into an image or sampler".into());
                    }
                    reached.insert(result, (place, class, true));
                    plans.push(ChainPlan {
                        at: iid,
                        result,
                        base,
                        class,
                        steps,
                    });
                    continue;
                }
                if rest.is_empty() && handle {
                    // Only a descriptor was chosen: the result is still a typed handle.
                    reached.insert(result, (place, class, true));
                    plans.push(ChainPlan {
                        at: iid,
                        result,
                        base,
                        class,
                        steps,
                    });
                    continue;
                }
                if handle {
                    steps.push(Step::Data);
                    handle = false;
                }
                for &index in rest {
                    let is_struct = layout.struct_type(place.ty);
                    if is_struct {
                        let k = layout
                            .constant(index)
                            .ok_or("a struct member chosen by a non-constant index")?
                            as u32;
                        pending += layout
                            .member_offset(place.ty, k)
                            .ok_or("a struct member without an offset")?
                            as i64;
                        place = layout.locate_member(place, k).ok_or("no such member")?;
                        continue;
                    }
                    let (stride, elem) = layout.element(place).ok_or("an index into a scalar")?;
                    match layout.constant(index) {
                        Some(c) => pending += (c as u32 as i32 as i64) * stride as i64,
                        None => {
                            if pending != 0 {
                                steps.push(Step::Offset(pending));
                                pending = 0;
                            }
                            steps.push(Step::Dyn { index, stride });
                        }
                    }
                    place = elem;
                }
                let last_is_offset =
                    matches!(steps.last(), Some(Step::Offset(_) | Step::Dyn { .. }));
                if pending != 0 || !last_is_offset {
                    steps.push(Step::Offset(pending));
                }
                reached.insert(result, (place, class, handle));
                plans.push(ChainPlan {
                    at: iid,
                    result,
                    base,
                    class,
                    steps,
                });
            }
        }
        plans
    };
    let uint = m
        .numeric_type(crate::ir::typing::Labels::U, 32, 1)
        .ok_or_else(out_of_ids)?;
    let set = m.dialect_import().ok_or_else(out_of_ids)?;
    let void = m.void_type().ok_or_else(out_of_ids)?;
    let mut qptr_type = |m: &mut Module, c: StorageClass| -> Option<Id> {
        if let Some(&t) = qptr_types.get(&c) {
            return Some(t);
        }
        let t = Builder::detached(m)
            .intern(
                Op::TypeUntypedPointerKHR,
                None,
                vec![Operand::StorageClass(c)],
            )
            .ok()?;
        qptr_types.insert(c, t);
        Some(t)
    };
    let constant = |m: &mut Module, v: u64| {
        Builder::detached(m)
            .constant(uint, Operand::LiteralBit32(v as u32))
            .ok()
    };
    let dialect = |name: &str| ops::dialect_by_name(name).map(|o| o.number).unwrap_or(0);
    let mut changed = !plans.is_empty();
    // Replacements, by position: the ops that stand for each chain.
    let mut replacement: HashMap<InstId, Vec<Inst>> = HashMap::new();
    for plan in plans {
        let mut insts = Vec::new();
        let mut cur = plan.base;
        let n = plan.steps.len();
        for (k, step) in plan.steps.iter().enumerate() {
            let id = if k + 1 == n {
                plan.result
            } else {
                m.fresh_id().ok_or_else(out_of_ids)?
            };
            let qptr = qptr_type(m, plan.class).ok_or_else(out_of_ids)?;
            let (ty, op, args) = match step {
                Step::Data => (qptr, "qptr.buffer_data", vec![cur]),
                Step::Handle { index, ty } => {
                    let ty = if *ty != 0 {
                        *ty
                    } else {
                        // A pointer to the descriptor array's element.
                        let base_ty = m.functions()[fi]
                            .def_of(cur)
                            .or_else(|| m.global(cur))
                            .and_then(|i| i.ty())
                            .ok_or("a handle of unknown type")?;
                        let (class, arr) =
                            pointer_type(m, base_ty).ok_or("a handle that is not a pointer")?;
                        let elem = m
                            .global(arr)
                            .and_then(|a| a.arg(0))
                            .ok_or("a descriptor array without an element type")?;
                        m.pointer_to(class, elem).ok_or_else(out_of_ids)?
                    };
                    (ty, "qptr.handle_array_index", vec![cur, *index])
                }
                Step::Offset(o) => {
                    let c = constant(m, *o as u64).ok_or_else(out_of_ids)?;
                    (qptr, "qptr.offset", vec![cur, c])
                }
                Step::Dyn { index, stride } => {
                    let s = constant(m, *stride).ok_or_else(out_of_ids)?;
                    (qptr, "qptr.dyn_offset", vec![cur, *index, s])
                }
            };
            let mut b = Builder::detached(m);
            b.ext_as(ty, id, set, dialect(op), &args);
            insts.extend(b.take());
            cur = id;
        }
        replacement.insert(plan.at, insts);
    }
    // Pointer phis and selects of lowered pointers become qptrs; typed variables among their
    // operands are made qptrs at the top of the function.
    let qptr_results: HashSet<Id> = replacement
        .values()
        .filter_map(|v| v.last())
        .filter(|i| {
            ops::for_inst(i, &ops::ExtSets::of(m))
                .is_some_and(|o| o.name != "qptr.handle_array_index")
        })
        .filter_map(|i| i.result())
        .collect();
    let mut entry_insts: Vec<Inst> = Vec::new();
    let mut var_qptr: HashMap<Id, Id> = HashMap::new();
    let layout: Vec<InstId> = m.functions()[fi].layout().map(|(_, i)| i).collect();
    for &iid in &layout {
        {
            let i = m.functions()[fi].inst(iid).clone();
            if !matches!(i.op(), Op::Phi | Op::Select) {
                continue;
            }
            let Some((class, _)) = i.ty().and_then(|t| pointer_type(m, t)) else {
                continue;
            };
            let qptr = qptr_type(m, class).ok_or_else(out_of_ids)?;
            let mut args = i.args().to_vec();
            let skip = usize::from(i.op() == Op::Select);
            for (k, o) in args.iter_mut().enumerate() {
                let is_value = if i.op() == Op::Phi {
                    k % 2 == 0
                } else {
                    k >= skip
                };
                let id = *o;
                if !is_value {
                    continue;
                }
                if qptr_results.contains(&id) {
                    continue;
                }
                // A typed pointer (a variable): offset 0 from it, made once.
                let q = match var_qptr.get(&id) {
                    Some(&q) => q,
                    None => {
                        let zero = constant(m, 0).ok_or_else(out_of_ids)?;
                        let mut b = Builder::detached(m);
                        let q = b.ext(qptr, set, dialect("qptr.offset"), &[id, zero])?;
                        entry_insts.extend(b.take());
                        var_qptr.insert(id, q);
                        q
                    }
                };
                *o = q;
            }
            let new = i
                .clone()
                .retyped(Some(qptr))
                .with_args_edited(|a| a.copy_from_slice(&args));
            rewrite::function_at_mut(m, fi).replace_inst(iid, new);
            changed = true;
        }
    }
    // Copies.
    for &iid in &layout {
        {
            let i = m.functions()[fi].inst(iid).clone();
            if i.op() != Op::CopyMemory {
                continue;
            }
            let (Some(dst), Some(src)) = (i.id_at(0), i.id_at(1)) else {
                continue;
            };
            let pointee = pointee_of(m, fi, src).ok_or("a copy from an unknown pointer")?;
            let insts = if experimental {
                let size = Layout::new(m)
                    .size(Place::of(pointee))
                    .ok_or("a copy of a type without a size")?;
                let n = constant(m, size).ok_or_else(out_of_ids)?;
                let mut b = Builder::detached(m);
                b.ext(void, set, dialect("qptr.copy"), &[dst, src, n])?;
                b.take()
            } else {
                let access: Vec<Operand> = i.to_operands()[2..].to_vec();
                let mut load_ops = vec![Operand::IdRef(src)];
                load_ops.extend(access.iter().cloned());
                let mut b = Builder::detached(m);
                let v = b.op(Op::Load, pointee, load_ops)?;
                let mut store_ops = vec![Operand::IdRef(dst), Operand::IdRef(v)];
                store_ops.extend(access);
                b.void(Op::Store, store_ops);
                b.take()
            };
            replacement.insert(iid, insts);
            changed = true;
        }
    }
    // Each instruction gives way to the ops that stand for it.
    let mut edits = Edits::new();
    for (iid, insts) in replacement {
        edits.replace_with(iid, insts);
    }
    let f = rewrite::function_at_mut(m, fi);
    for inst in entry_insts {
        edits.after_variables(f, inst);
    }
    edits.apply(f);
    Ok(changed)
}

/// The pointee type of pointer `id` (a variable or a value of function `fi`), as it was typed.
fn pointee_of(m: &Module, fi: usize, id: Id) -> Option<Id> {
    pointer_of(m, &m.functions()[fi], id).map(|(_, p)| p)
}

pub struct Outcome {
    pub changed: bool,
    /// Functions kept typed: (function, reason).
    pub fallbacks: Vec<(Id, String)>,
}

/// GLSL.std.450 `Modf` and `Frexp` write one of their results through a pointer, which
/// qptr-lift cannot give a type back to. In function `fi` they become `ModfStruct` /
/// `FrexpStruct`, an extract stored through the pointer and an extract that keeps the result
/// id: the same values, and the pointer's only use a store. With `locals_only`, only where
/// the pointer is into a `Function` variable (what `mem2reg` can then promote). Returns whether
/// it rewrote any; `None` when the module ran out of ids.
pub(crate) fn struct_out_params(m: &mut Module, fi: usize, locals_only: bool) -> Option<bool> {
    const MODF: u32 = 35;
    const FREXP: u32 = 51;
    let sets = ops::ExtSets::of(m);
    let f = &m.functions()[fi];
    // (block, position, instruction number, operand, pointer, result, result type)
    let mut sites = Vec::new();
    for (b, block) in f.blocks().iter().enumerate() {
        for (pos, &iid) in block.insts.iter().enumerate() {
            let i = f.inst(iid);
            let Some((set, n)) = i.ext_inst() else {
                continue;
            };
            if sets.kind(set) == Some(ops::SetKind::Glsl) && matches!(n, MODF | FREXP) {
                if let ([_, x, p], Some(r), Some(t)) = (i.args(), i.result(), i.ty()) {
                    let (class, written) = pointer_of(m, f, *p)?;
                    if locals_only && class != StorageClass::Function {
                        continue;
                    }
                    // Typed values only: a struct of the dialect's bit-vectors (after
                    // `untype`) is not one `assign-types` gives types back to.
                    let scalar = |ty: Id| {
                        m.global(ty)
                            .is_some_and(|g| matches!(g.op(), Op::TypeFloat | Op::TypeInt))
                    };
                    let typed = |ty: Id| {
                        scalar(ty)
                            || m.global(ty).is_some_and(|g| {
                                g.op() == Op::TypeVector && g.arg(0).is_some_and(scalar)
                            })
                    };
                    if typed(t) && typed(written) {
                        sites.push((b, pos, set, n, *x, *p, r, t, written));
                    }
                }
            }
        }
    }
    // From the last, so that insertions leave the positions before them as they were.
    for &(b, pos, set, n, x, p, r, t, written) in sites.iter().rev() {
        let at = m.functions()[fi].blocks()[b].insts[pos];
        // Replaced, not edited in place: the function's map of values to instructions follows.
        let mut code = Builder::detached(m);
        let pair = code.intern_ids(Op::TypeStruct, None, &[t, written]).ok()?;
        let both = code.ext(pair, set, n + 1, &[x]).ok()?;
        let second = code.extract(written, both, &[1]).ok()?;
        code.store(p, second);
        code.extract_as(t, r, both, &[0]);
        let mut code = code.take();
        let f = rewrite::function_at_mut(m, fi);
        f.replace_inst(at, code.remove(0));
        for (k, inst) in code.into_iter().enumerate() {
            f.insert_inst(b, pos + 1 + k, inst);
        }
    }
    Some(!sites.is_empty())
}

pub fn qptr_lower(m: &mut Module, experimental: bool) -> Result<Outcome, String> {
    let names = std::cell::OnceCell::new();
    let mut changed = false;
    let mut fallbacks = Vec::new();
    let mut qptr_types: HashMap<StorageClass, Id> = HashMap::new();
    for fi in 0..m.functions().len() {
        if m.functions()[fi].is_declaration() {
            continue;
        }
        let fid = m.functions()[fi].id();
        // Out-parameters of Modf and Frexp as a struct and a store; undone when the function
        // is kept typed anyway.
        let before_rewrite = m.functions()[fi].clone();
        let rewrote = struct_out_params(m, fi, false) == Some(true);
        if let Err(why) = check(m, &m.functions()[fi], &names) {
            if rewrote {
                crate::ir::rewrite::restore_function(m, fi, before_rewrite);
            }
            fallbacks.push((fid, why));
            continue;
        }
        // What is restored when the function cannot be lowered after all: as it came.
        let original = before_rewrite;
        match lower_function(m, fi, experimental, &mut qptr_types) {
            Ok(false) if !rewrote => continue,
            Ok(false) => {}
            Ok(true) => {}
            Err(why) => {
                crate::ir::rewrite::restore_function(m, fi, original);
                fallbacks.push((fid, why));
                continue;
            }
        }
        // Only what can be lifted back stays lowered.
        if let Err(why) = plan_function(m, fi) {
            crate::ir::rewrite::restore_function(m, fi, original);
            fallbacks.push((fid, format!("its pointers could not be lifted back: {why}")));
            continue;
        }
        changed = true;
    }
    for (f, why) in &fallbacks {
        m.attributes
            .insert(*f, Attribute::TypedPointers(why.clone()));
    }
    if changed {
        add_untyped_pointer_capability(m);
    }
    Ok(Outcome {
        changed: changed || !fallbacks.is_empty(),
        fallbacks,
    })
}

/// Untyped pointers need their capability and extension while the module has them.
fn add_untyped_pointer_capability(m: &mut Module) {
    m.require_capability(spirv::Capability::UntypedPointersKHR);
    m.require_extension("SPV_KHR_untyped_pointers");
}

impl Pass for QptrLower {
    fn name(&self) -> &'static str {
        "qptr-lower"
    }
    fn description(&self) -> &'static str {
        "access chains become byte offsets on untyped pointers; handles stay apart from memory"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, cx: &mut PassCx) -> Result<Changed, PassError> {
        let out = qptr_lower(module, cx.experimental).map_err(PassError)?;
        if out.fallbacks.is_empty() {
            return Ok(out.changed.into());
        }
        let names = Names::for_module(module);
        for (f, why) in &out.fallbacks {
            cx.diagnostics.push(Diagnostic {
                severity: Severity::Warning,
                message: format!("%{} keeps typed pointers: {why}", names.get(*f)),
                function: Some(*f),
                at: None,
                place: Some(format!("in %{}", names.get(*f))),
            });
        }
        Ok(out.changed.into())
    }
}
