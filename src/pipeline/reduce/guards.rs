//! What keeps an edit from bringing undefined behaviour in under `differs`: which stores may
//! go, which values a constant may stand for, which divisors and loops stay.

use spirv::Op;

use crate::ir::{Id, Module};

/// Whether `ty` is an integer type or a vector of integers.
pub(super) fn integer_typed(m: &Module, ty: Id) -> bool {
    m.global(ty).is_some_and(|t| match t.op() {
        Op::TypeInt => true,
        Op::TypeVector => t
            .args()
            .first()
            .and_then(|&e| m.global(e))
            .is_some_and(|e| e.op() == Op::TypeInt),
        _ => false,
    })
}

/// The blocks of each loop of `f` that computes an integer used after it. Under `differs`
/// their branches stay: a loop run once or not at all could leave such a value (an index)
/// where it makes an access out of bounds.
pub(super) fn loops_computing_indices(m: &Module, f: &crate::ir::Function) -> Vec<Vec<usize>> {
    let structure = f.structure();
    let mut out = Vec::new();
    for l in structure.loops() {
        let inside = |b: usize| l.blocks.binary_search(&b).is_ok();
        let made: std::collections::HashSet<Id> = l
            .blocks
            .iter()
            .flat_map(|&b| f.block_insts(b))
            .filter(|i| i.ty().is_some_and(|t| integer_typed(m, t)))
            .filter_map(|i| i.result())
            .collect();
        let used_after = (0..f.blocks().len()).filter(|&b| !inside(b)).any(|b| {
            f.block_insts(b)
                .chain([f.terminator(b)])
                .any(|i| i.args().iter().any(|a| made.contains(a)))
        });
        if used_after {
            out.push(l.blocks.clone());
        }
    }
    out
}

/// The variable `ptr` points into (through access chains), if that is known.
pub(super) fn variable_of(m: &Module, f: &crate::ir::Function, ptr: Id) -> Option<Id> {
    let mut at = ptr;
    for _ in 0..64 {
        match f.def_of(at).or_else(|| m.global(at)) {
            Some(d)
                if matches!(
                    d.op(),
                    Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain
                ) =>
            {
                at = d.args()[0]
            }
            Some(d) if d.op() == Op::Variable => return Some(at),
            _ => return None,
        }
    }
    None
}

/// Variables something reads: loaded, used atomically, or passed to a call (which may read
/// them) — through access chains.
pub(super) fn read_variables(m: &Module) -> std::collections::HashSet<Id> {
    let mut out = std::collections::HashSet::new();
    for f in m.functions() {
        for i in f.insts() {
            let pointers: Vec<Id> = match i.op() {
                Op::Load | Op::CopyMemory | Op::CopyMemorySized => {
                    i.args().last().copied().into_iter().collect()
                }
                Op::FunctionCall => i.args().iter().skip(1).copied().collect(),
                op if crate::ir::inst::is_atomic(op) => {
                    i.args().first().copied().into_iter().collect()
                }
                _ => Vec::new(),
            };
            for p in pointers {
                match variable_of(m, f, p) {
                    Some(v) => {
                        out.insert(v);
                    }
                    // A pointer of unknown origin may read anything: every variable counts.
                    None if i.op() != Op::FunctionCall => {
                        out.extend(
                            m.globals()
                                .iter()
                                .filter(|g| g.op() == Op::Variable)
                                .filter_map(|g| g.result()),
                        );
                        out.extend(
                            f.insts()
                                .filter(|g| g.op() == Op::Variable)
                                .filter_map(|g| g.result()),
                        );
                    }
                    None => {}
                }
            }
        }
    }
    out
}

/// Whether a store through `ptr` may go. Under `differs` only where nothing reads what it
/// wrote afterwards as memory nothing else wrote: buffers, images and outputs (whose starting
/// contents are defined), and function, private or workgroup variables nothing reads.
pub(super) fn store_may_go(
    m: &Module,
    f: &crate::ir::Function,
    ptr: Id,
    differs: bool,
    read: &std::collections::HashSet<Id>,
) -> bool {
    if !differs {
        return true;
    }
    let Some(var) = variable_of(m, f, ptr) else {
        return false;
    };
    let def = f.def_of(var).or_else(|| m.global(var));
    let local = def.is_some_and(|d| {
        matches!(
            d.lits().first(),
            Some(rspirv::dr::Operand::StorageClass(
                spirv::StorageClass::Function
                    | spirv::StorageClass::Private
                    | spirv::StorageClass::Workgroup
            ))
        )
    });
    !local || !read.contains(&var)
}

/// Whether a null constant of type `ty` exists and is a plain value.
pub(super) fn nullable(m: &Module, ty: Id) -> bool {
    m.global(ty).is_some_and(|t| {
        matches!(
            t.op(),
            Op::TypeInt
                | Op::TypeFloat
                | Op::TypeBool
                | Op::TypeVector
                | Op::TypeMatrix
                | Op::TypeArray
                | Op::TypeStruct
        )
    })
}

/// Whether a constant may stand for a value of type `ty`: a null constant, or outside
/// `differs` an `OpUndef` of a type with no null (an image, a sampler; never a pointer).
pub(super) fn constant_may_stand_for(m: &Module, ty: Id, differs: bool) -> bool {
    let pointer = m.global(ty).is_some_and(|t| t.op() == Op::TypePointer);
    nullable(m, ty) || (!differs && !pointer)
}

/// Ops whose second operand divides: made zero, it is undefined behaviour.
pub(super) const DIVISIONS: [Op; 8] = [
    Op::UDiv,
    Op::SDiv,
    Op::SRem,
    Op::SMod,
    Op::UMod,
    Op::FDiv,
    Op::FRem,
    Op::FMod,
];
