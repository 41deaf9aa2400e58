//! Reaching a function to change it, and renaming every id of a module. What a pass may do to
//! a function it holds is `Function`'s own methods (`set_arg`, `replace_inst`, `insert_inst`,
//! `retain_all`, ...) and the kit's; these hand it out. A function's id must stay: the module
//! finds it by id.

use super::super::func::Function;
use super::super::inst::Id;
use super::super::module::Module;

/// Every function of `m`, to change its body.
pub fn functions_mut(m: &mut Module) -> impl Iterator<Item = &mut Function> {
    m.functions_mut()
}

/// Function `id` of `m`, to change its body.
pub fn function_mut(m: &mut Module, id: Id) -> Option<&mut Function> {
    m.function_mut(id)
}

/// The function at position `k` of `m`, to change its body.
pub fn function_at_mut(m: &mut Module, k: usize) -> &mut Function {
    m.function_at_mut(k)
}

/// Edits function `k` with the rest of the module at hand: the function is taken out while
/// `edit` runs, so `edit` may add types, constants and ids to the module meanwhile.
pub fn with_function<R>(
    m: &mut Module,
    k: usize,
    edit: impl FnOnce(&mut Module, &mut Function) -> R,
) -> R {
    m.with_function(k, edit)
}

/// Edits every function that has a body, in order (see `with_function`).
pub fn edit_functions(m: &mut Module, edit: impl FnMut(&mut Module, &mut Function)) {
    m.edit_functions(edit)
}

/// Renames every id `m` defines or uses (results, operands, labels, merge annotations,
/// attributes) through `f`, and rebuilds the indexes (`compact-ids`, the linker shifting a
/// module's ids past another's). The bound is the caller's to update.
pub fn remap_ids(m: &mut Module, f: impl Fn(Id) -> Id) {
    m.remap_ids(f)
}
