//! Changing the shape of a struct or array type together with every composite of it (the
//! reducer takes out a struct member nothing reaches, or shortens an array to its first
//! element).
//!
//! The type keeps its id: aggregates are nominal (never interned), so its decorations and
//! name stay on it and every use means the new shape. Its interned constants are not
//! rewritten in place — two of them could become equal, and the intern table would lie —
//! but interned anew, their uses replaced and the old ones dropped.

use spirv::Op;

use super::super::func::InstId;
use super::super::fxhash::FxHashSet;
use super::super::inst::{Args, Id, Inst};
use super::super::module::Module;
use super::change::{edit_args, move_global_before, retain_globals};
use super::Replacer;

/// Changes the members of struct type `ty` (or the element type and length of array type
/// `ty`) through `edit`. `None` when `ty` is not a global.
pub fn reshape_aggregate(m: &mut Module, ty: Id, edit: impl FnOnce(&mut Args)) -> Option<()> {
    let t = m.global_mut(ty)?;
    assert!(
        matches!(t.op, Op::TypeStruct | Op::TypeArray | Op::TypeRuntimeArray),
        "reshape_aggregate: %{ty} is a {:?}",
        t.op
    );
    edit(&mut t.args);
    Some(())
}

/// Changes the parts of every composite of type `ty` through `edit`, which may only drop
/// parts (so each new constant's parts are defined before the old one): its constants, its
/// spec constants and its constructs in functions. A constant is interned anew at the old
/// one's place and replaces it (recorded as made by `pass`); a spec constant, never interned,
/// changes in place. `None` when no id is left.
pub fn reshape_composites(
    m: &mut Module,
    ty: Id,
    edit: impl Fn(&mut Args),
    pass: &'static str,
) -> Option<()> {
    let of_ty = |g: &Inst, op: Op| g.op == op && g.ty == Some(ty);
    for g in m.globals_mut() {
        if of_ty(g, Op::SpecConstantComposite) {
            edit(&mut g.args);
        }
    }
    let constants: Vec<Id> = m
        .globals()
        .iter()
        .filter(|g| of_ty(g, Op::ConstantComposite))
        .filter_map(|g| g.result)
        .collect();
    let mut replacer = Replacer::new();
    for old in constants {
        let mut parts = m.global(old)?.args.clone();
        edit(&mut parts);
        let new = m.intern(Inst::with_args(
            Op::ConstantComposite,
            Some(ty),
            None,
            parts,
        ))?;
        move_global_before(m, new, old)?;
        replacer.replace(old, new);
    }
    let gone: FxHashSet<Id> = replacer.replaced().collect();
    replacer.apply(m, pass);
    retain_globals(m, |g| !g.result.is_some_and(|r| gone.contains(&r)));
    for f in m.functions_mut() {
        let constructs: Vec<InstId> = f
            .layout()
            .map(|(_, i)| i)
            .filter(|&i| of_ty(f.inst(i), Op::CompositeConstruct))
            .collect();
        for i in constructs {
            edit_args(f, i, &edit);
        }
    }
    m.reindex();
    Some(())
}
