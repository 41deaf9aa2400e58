//! Changes of the module's sections outside globals and functions — the preamble, entry
//! points, execution modes, the debug section and the debug lines after the last function —
//! and of a function's signature and debug lines. Outside `ir` these are read through
//! `Module::preamble`, `entry_points`, ... and `Function::def`, `params`, ...; each change
//! here keeps the order its section must have.

use rspirv::dr::Operand;
use spirv::Op;

use super::super::func::Function;
use super::super::inst::{Id, Inst};
use super::super::module::Module;

// ---- Preamble ----

/// Keeps the preamble instructions (capabilities, extensions, imports, memory model) for
/// which `keep` holds, in order.
pub fn retain_preamble(m: &mut Module, keep: impl FnMut(&Inst) -> bool) {
    m.preamble.retain(keep);
}

/// Adds a preamble instruction where the layout wants it: a capability after the
/// capabilities, an extension after the capabilities and extensions, anything else (an
/// import) before the memory model.
pub fn add_to_preamble(m: &mut Module, inst: Inst) {
    let preamble = &m.preamble;
    let at = match inst.op {
        Op::Capability => preamble
            .iter()
            .rposition(|i| i.op == Op::Capability)
            .map_or(0, |p| p + 1),
        Op::Extension => preamble
            .iter()
            .rposition(|i| matches!(i.op, Op::Capability | Op::Extension))
            .map_or(0, |p| p + 1),
        _ => preamble
            .iter()
            .position(|i| i.op == Op::MemoryModel)
            .unwrap_or(preamble.len()),
    };
    m.preamble.insert(at, inst);
}

// ---- Entry points ----

/// Adds `var` to the interface of entry point `ep` (its position among the entry points)
/// unless it is there.
pub fn add_interface(m: &mut Module, ep: usize, var: Id) {
    let ep = &mut m.entry_points[ep];
    debug_assert_eq!(ep.op, Op::EntryPoint);
    if !ep.args[1..].contains(&var) {
        ep.args.push(var);
    }
}

/// Keeps the interface ids of entry point `ep` for which `keep` holds (its function stays);
/// returns whether any went.
pub fn retain_interface(m: &mut Module, ep: usize, mut keep: impl FnMut(Id) -> bool) -> bool {
    let ep = &mut m.entry_points[ep];
    debug_assert_eq!(ep.op, Op::EntryPoint);
    let before = ep.args.len();
    let mut k = 0;
    ep.args.retain(|a| {
        k += 1;
        k == 1 || keep(*a)
    });
    ep.args.len() != before
}

/// `retain_interface` for every entry point: ids that go (variables that left the module)
/// leave every interface. Returns whether any went.
pub fn retain_interfaces(m: &mut Module, mut keep: impl FnMut(Id) -> bool) -> bool {
    let mut changed = false;
    for ep in 0..m.entry_points.len() {
        changed |= retain_interface(m, ep, &mut keep);
    }
    changed
}

/// Removes entry point `ep` (its position) and the execution modes of its function; the
/// function itself stays.
pub fn remove_entry_point(m: &mut Module, ep: usize) {
    let f = m.entry_points.remove(ep).args.first().copied();
    m.execution_modes.retain(|e| e.args.first().copied() != f);
}

/// Keeps the execution modes for which `keep` holds, in order.
pub fn retain_execution_modes(m: &mut Module, keep: impl FnMut(&Inst) -> bool) {
    m.execution_modes.retain(keep);
}

// ---- Debug ----

/// Keeps the instructions of the debug section (strings, sources, names, processes) for
/// which `keep` holds, in order.
pub fn retain_debug(m: &mut Module, keep: impl FnMut(&Inst) -> bool) {
    m.debug.retain(keep);
}

/// Keeps the debug instructions after the last function for which `keep` holds, in order.
pub fn retain_trailing_debug(m: &mut Module, keep: impl FnMut(&Inst) -> bool) {
    m.trailing_debug.retain(keep);
}

/// Member `k` of struct `s` goes from its member decorations and names: its own go, those of
/// the members after it move down by one (for a member taken out of the struct).
pub fn drop_member_info(m: &mut Module, s: Id, k: u32) {
    let renumber = |i: &mut Inst| {
        if !matches!(
            i.op,
            Op::MemberDecorate | Op::MemberName | Op::MemberDecorateString
        ) || i.args.first() != Some(&s)
        {
            return true;
        }
        match i.lit_u32(0) {
            Some(j) if j == k => false,
            Some(j) if j > k => {
                if let Some(l) = i.lits_mut().first_mut() {
                    *l = Operand::LiteralBit32(j - 1);
                }
                true
            }
            _ => true,
        }
    };
    m.annotations_mut().retain_mut(renumber);
    m.debug.retain_mut(renumber);
}

// ---- Merging modules ----

/// Moves the entry points, execution modes, debug section and trailing debug lines of `from`
/// after those of `to`. Debug instructions join the end of their part of the section
/// (strings and sources, names, processes), which must stay in that order.
pub fn append_sections(to: &mut Module, from: &mut Module) {
    to.entry_points.append(&mut from.entry_points);
    to.execution_modes.append(&mut from.execution_modes);
    let part = |i: &Inst| match i.op {
        Op::String | Op::Source | Op::SourceContinued | Op::SourceExtension => 0,
        Op::ModuleProcessed => 2,
        _ => 1,
    };
    to.debug.append(&mut from.debug);
    // A stable sort keeps each module's order within a part.
    to.debug.sort_by_key(part);
    to.trailing_debug.append(&mut from.trailing_debug);
}

// ---- A function's signature and debug lines ----

/// Sets the result type of function `f` (its `OpFunction`'s); its function type is
/// `set_function_type`'s.
pub fn set_return_type(f: &mut Function, ty: Option<Id>) {
    f.def.ty = ty;
}

/// Sets the function type of `f` (the last operand of its `OpFunction`).
pub fn set_function_type(f: &mut Function, ty: Id) {
    if let Some(last) = f.def.args.last_mut() {
        *last = ty;
    }
}

/// Sets the type of parameter `k` of `f`.
pub fn retype_param(f: &mut Function, k: usize, ty: Id) {
    f.params[k].ty = Some(ty);
}

/// Keeps the debug lines around `f`'s body (before `OpFunction`, between it and the first
/// block, after the last block) for which `keep` holds.
pub fn retain_function_debug(f: &mut Function, mut keep: impl FnMut(&Inst) -> bool) {
    f.prologue_debug.retain(&mut keep);
    f.leading_debug.retain(&mut keep);
    f.epilogue_debug.retain(&mut keep);
}
