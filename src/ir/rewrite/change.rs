//! Small changes of single instructions: their type, result and id operands. Outside `ir` an
//! instruction's fields are read-only; these (and `Function`'s own `set_arg`, `map_args`,
//! `replace_inst`, `set_result`) are how it changes.
//!
//! Two kinds: `Inst`'s `retyped`, `renamed`, `with_arg`, ... make a new instruction value from
//! one (a copy about to be inserted or interned); the free functions change an instruction
//! where it is, in a function or among the globals, keeping the indexes right.

use std::sync::Arc;

use rspirv::dr::Operand;
use spirv::Op;

use super::super::func::{Block, Function, InstId};
use super::super::inst::{Args, Id, Inst};
use super::super::module::Module;

impl Inst {
    /// The same instruction with result type `ty`.
    pub fn retyped(mut self, ty: Option<Id>) -> Inst {
        self.ty = ty;
        self
    }

    /// The same instruction with result id `result`.
    pub fn renamed(mut self, result: Option<Id>) -> Inst {
        self.result = result;
        self
    }

    /// The same instruction with id operand `k` set to `id`.
    pub fn with_arg(mut self, k: usize, id: Id) -> Inst {
        self.args[k] = id;
        self
    }

    /// The same instruction with its id operands changed by `edit` (their number may change:
    /// the literals keep their places among all operands only when it does not).
    pub fn with_args_edited(mut self, edit: impl FnOnce(&mut Args)) -> Inst {
        edit(&mut self.args);
        self
    }

    /// The same instruction with literal `k` (counted among the literals) set to `lit`.
    /// Panics when it has no such literal.
    pub fn with_lit(mut self, k: usize, lit: Operand) -> Inst {
        self.lits_mut()[k] = lit;
        self
    }

    /// The same instruction with every id it holds (result type, result, operands) renamed
    /// through `f`: one taken out of a module for another (the linker).
    pub fn remapped(mut self, f: impl FnMut(Id) -> Id) -> Inst {
        self.remap_ids(f);
        self
    }
}

/// Sets the result type of instruction `i` of `f`.
pub fn retype(f: &mut Function, i: InstId, ty: Option<Id>) {
    if f.inst(i).ty != ty {
        f.inst_mut(i).ty = ty;
    }
}

/// Changes the id operands of instruction `i` of `f` through `edit` (a phi gaining incoming
/// pairs, a composite losing a part); its result stays.
pub fn edit_args(f: &mut Function, i: InstId, edit: impl FnOnce(&mut Args)) {
    let mut args = f.inst(i).args.clone();
    edit(&mut args);
    if args != f.inst(i).args {
        f.inst_mut(i).args = args;
    }
}

/// Freezes each specialization constant `id` to `op` with `operands` (an `OpConstant*` of
/// the same type and result). A specialization constant is never interned, so this changes
/// no interned constant in place; the frozen constants join the intern table unless an
/// equal one is there already.
pub fn freeze_spec_constants(
    m: &mut Module,
    frozen: impl IntoIterator<Item = (Id, Op, Vec<Operand>)>,
) {
    let mut any = false;
    for (id, op, operands) in frozen {
        any = true;
        let Some(g) = m.global_mut(id) else {
            continue;
        };
        assert!(
            super::super::inst::is_spec_constant(g.op),
            "freeze_spec_constants: %{id} is a {:?}",
            g.op
        );
        g.op = op;
        g.set_operands(operands);
    }
    if any {
        m.reindex();
    }
}

/// Moves global `id` to just before global `before`, if it comes after it (a global made
/// late that an earlier one now uses). Returns `None` when either is not a global.
pub fn move_global_before(m: &mut Module, id: Id, before: Id) -> Option<()> {
    let at = m.global_position(before)?;
    let from = m.global_position(id)?;
    if from > at {
        let globals = m.globals_mut();
        let g = globals.remove(from);
        globals.insert(at, g);
    }
    Some(())
}

/// Sets literal operand `p` (counted among the literals) of instruction `i` of `f`; `None`
/// when it has no such literal.
pub fn set_lit(f: &mut Function, i: InstId, p: usize, lit: Operand) -> Option<()> {
    if p >= f.inst(i).lits().len() {
        return None;
    }
    f.inst_mut(i).lits_mut()[p] = lit;
    Some(())
}

/// Keeps the globals for which `keep` holds, in order.
pub fn retain_globals(m: &mut Module, keep: impl FnMut(&Inst) -> bool) {
    m.globals_mut().retain(keep);
}

/// Inserts `blocks` (made with `Function::new_block`) into the layout of `f` at position
/// `at` (the end when `at` is the number of blocks), in order.
pub fn insert_blocks(f: &mut Function, at: usize, blocks: Vec<Block>) {
    f.blocks_mut().splice(at..at, blocks);
}

/// Takes the blocks at the positions `which` selects out of the layout of `f`, in order;
/// their instructions stay in the arena until `Function::free_block`.
pub fn take_blocks(f: &mut Function, mut which: impl FnMut(usize) -> bool) -> Vec<Block> {
    let blocks = f.blocks_mut();
    let mut taken = Vec::new();
    let mut kept = Vec::with_capacity(blocks.len());
    for (k, block) in std::mem::take(blocks).into_iter().enumerate() {
        if which(k) {
            taken.push(block);
        } else {
            kept.push(block);
        }
    }
    *blocks = kept;
    taken
}

/// Moves every instruction of block `from` (not its terminator) to the end of block `to`,
/// before `to`'s terminator; returns them.
pub fn move_insts(f: &mut Function, from: usize, to: usize) -> Vec<InstId> {
    let moved = std::mem::take(f.block_insts_mut(from));
    f.block_insts_mut(to).extend(moved.iter().copied());
    moved
}

/// Takes all globals out of `m` (to merge them into another module).
pub fn take_globals(m: &mut Module) -> Vec<Inst> {
    std::mem::take(m.globals_mut())
}

/// Appends `globals` to those of `m`, in order (each uses only earlier ids); call
/// `Module::reindex` when they hold types or constants interning should see.
pub fn append_globals(m: &mut Module, globals: impl IntoIterator<Item = Inst>) {
    m.globals_mut().extend(globals);
}

/// Replaces the globals of `m` by `globals` (the same ones, reordered: each uses only earlier
/// ids), and rebuilds the intern table.
pub fn reorder_globals(m: &mut Module, globals: Vec<Inst>) {
    *m.globals_mut() = globals;
    m.reindex();
}

/// Keeps the annotations (decorations) for which `keep` holds, in order.
pub fn retain_annotations(m: &mut Module, keep: impl FnMut(&Inst) -> bool) {
    m.annotations_mut().retain(keep);
}

/// Replaces each annotation for which `edit` gives a changed copy (made with
/// `Inst::with_lit`, ...); returns whether any changed.
pub fn edit_annotations(m: &mut Module, mut edit: impl FnMut(&Inst) -> Option<Inst>) -> bool {
    let mut changed = false;
    for a in m.annotations_mut() {
        if let Some(new) = edit(a) {
            changed |= new != *a;
            *a = new;
        }
    }
    changed
}

/// Takes all annotations out of `m` (to merge them into another module).
pub fn take_annotations(m: &mut Module) -> Vec<Inst> {
    std::mem::take(m.annotations_mut())
}

/// Appends `annotations` to those of `m`, in order.
pub fn append_annotations(m: &mut Module, annotations: impl IntoIterator<Item = Inst>) {
    m.annotations_mut().extend(annotations);
}

/// Keeps the functions for which `keep` holds, in order.
pub fn retain_functions(m: &mut Module, mut keep: impl FnMut(&Function) -> bool) {
    m.function_list_mut().retain(|f| keep(f));
}

/// Takes all functions out of `m` (to merge them into another module).
pub fn take_functions(m: &mut Module) -> Vec<Arc<Function>> {
    std::mem::take(m.function_list_mut())
}

/// Appends `functions` to those of `m`, in order.
pub fn append_functions(m: &mut Module, functions: Vec<Arc<Function>>) {
    m.function_list_mut().extend(functions);
}

/// Puts `saved` in place of function `k` of `m`: the same function (so ids and the function
/// index stay right), as it was before a change being undone or as a copy edited apart.
pub fn restore_function(m: &mut Module, k: usize, saved: Arc<Function>) {
    debug_assert_eq!(m.functions()[k].id(), saved.id());
    m.function_list_mut()[k] = saved;
}
