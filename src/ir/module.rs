//! The module: SPIR-V's logical layout, split into typed sections.
//!
//! Invariants (checked by `verify`):
//! - every id is defined once, by exactly one instruction, and is below `bound`;
//! - types and constants are interned: two non-aggregate type instructions with equal operands
//!   do not exist, and `intern` returns the existing id;
//! - a function with a body has blocks; each block ends in exactly one terminator and a header
//!   block carries its merge annotation in `Block::merge`, never among its instructions;
//! - instructions the IR does not model are kept as they came, in the section they came in.
//!
//! Globals and functions are found by id in O(1): the indexes are built on first use and
//! dropped by `globals_mut`/`functions_mut`, the only ways to change those lists wholesale.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use rspirv::dr::Operand;
use spirv::Op;

use super::func::Function;
use super::fxhash::FxHashMap;
use super::inst::{Id, Inst};
use super::usage::Usage;

#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// SPIR-V version as (major, minor).
    pub version: (u8, u8),
    /// Generator word, kept from the input so tools downstream see who produced the module.
    pub generator: u32,
}

impl Default for Header {
    fn default() -> Self {
        Header {
            version: (1, 0),
            generator: 0,
        }
    }
}

/// What an analysis attached to an id: not SPIR-V, but part of the IR and of its text form
/// (a `; @…` line under the id's definition, read back by the parser).
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    /// How a pointer is used (`qptr-analyze`).
    QptrUsage(Usage),
    /// This function keeps typed pointers, for this reason (`qptr-lower`).
    TypedPointers(String),
}

/// One value replaced by another everywhere (`rewrite::replace_all_uses`), by a pass: what a
/// value's history across passes is built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    pub old: Id,
    pub new: Id,
    /// The function the value was local to (`None`: a global).
    pub function: Option<Id>,
    pub pass: &'static str,
}

#[derive(Clone, Debug, Default)]
pub struct Module {
    pub header: Header,
    /// `OpCapability`, `OpExtension`, `OpExtInstImport`, `OpMemoryModel` — in order.
    pub(in crate::ir) preamble: Vec<Inst>,
    pub(in crate::ir) entry_points: Vec<Inst>,
    pub(in crate::ir) execution_modes: Vec<Inst>,
    /// `OpString`, `OpSource*`, `OpName`, `OpMemberName`, `OpModuleProcessed`.
    pub(in crate::ir) debug: Vec<Inst>,
    /// Decorations and decoration groups.
    annotations: Vec<Inst>,
    /// The positions in `annotations` of the decorations of each id, built on first use.
    decoration_index: OnceLock<FxHashMap<Id, Vec<usize>>>,
    /// Types, constants, global variables, undefs, module-level debug instructions: in order,
    /// which is a valid definition order.
    globals: Vec<Inst>,
    global_index: OnceLock<FxHashMap<Id, usize>>,
    /// Shared with the steps a pipeline recorded while a function stays as it was (see
    /// `snapshot`); changed through `Arc::make_mut`, so a module never changes another's.
    functions: Vec<Arc<Function>>,
    function_index: OnceLock<FxHashMap<Id, usize>>,
    /// `OpLine`/`OpNoLine` and non-semantic instructions after the last function.
    pub(in crate::ir) trailing_debug: Vec<Inst>,
    /// One past the largest id in use.
    pub bound: u32,
    /// Analysis results attached to ids.
    pub attributes: BTreeMap<Id, Attribute>,
    /// Values replaced by others since the list was last taken (see `Replacement`).
    pub replacements: Vec<Replacement>,
    /// Interning table for types and constants: the instruction without its result → id.
    /// `None` after `reindex` until the next `intern` builds it from the globals then: most
    /// passes that reindex intern nothing afterwards.
    interned: Option<FxHashMap<Inst, Id>>,
}

impl PartialEq for Module {
    fn eq(&self, other: &Self) -> bool {
        self.header == other.header
            && self.preamble == other.preamble
            && self.entry_points == other.entry_points
            && self.execution_modes == other.execution_modes
            && self.debug == other.debug
            && self.annotations == other.annotations
            && self.globals == other.globals
            && self.functions == other.functions
            && self.trailing_debug == other.trailing_debug
            && self.bound == other.bound
            && self.attributes == other.attributes
    }
}

impl Module {
    // ---- Sections (read here; changed through the rewrite kit) ----

    /// `OpCapability`, `OpExtension`, `OpExtInstImport`, `OpMemoryModel`, in order.
    pub fn preamble(&self) -> &[Inst] {
        &self.preamble
    }

    /// The capabilities the module declares.
    pub fn capabilities(&self) -> impl Iterator<Item = spirv::Capability> + '_ {
        self.preamble.iter().filter_map(|i| match (i.op, i.lits()) {
            (Op::Capability, [Operand::Capability(c)]) => Some(*c),
            _ => None,
        })
    }

    /// The `OpEntryPoint`s, in order.
    pub fn entry_points(&self) -> &[Inst] {
        &self.entry_points
    }

    /// The `OpExecutionMode*`s, in order.
    pub fn execution_modes(&self) -> &[Inst] {
        &self.execution_modes
    }

    /// `OpString`, `OpSource*`, `OpName`, `OpMemberName`, `OpModuleProcessed`, in order.
    pub fn debug(&self) -> &[Inst] {
        &self.debug
    }

    /// `OpLine`/`OpNoLine` and non-semantic instructions after the last function.
    pub fn trailing_debug(&self) -> &[Inst] {
        &self.trailing_debug
    }

    // ---- Decorations ----

    /// Decorations and decoration groups, in order.
    pub fn annotations(&self) -> &[Inst] {
        &self.annotations
    }

    /// The annotations, to change (the decoration index is rebuilt on next use).
    pub(in crate::ir) fn annotations_mut(&mut self) -> &mut Vec<Inst> {
        self.decoration_index = OnceLock::new();
        &mut self.annotations
    }

    /// The decorations (`OpDecorate*`, `OpMemberDecorate*`) whose target is `id`, in order,
    /// found in O(1) through an index built on first use.
    pub fn decorations_of(&self, id: Id) -> impl Iterator<Item = &Inst> + '_ {
        let index = self.decoration_index.get_or_init(|| {
            let mut index: FxHashMap<Id, Vec<usize>> =
                FxHashMap::with_capacity_and_hasher(self.annotations.len(), Default::default());
            for (k, a) in self.annotations.iter().enumerate() {
                if let Some(target) = a.arg(0) {
                    index.entry(target).or_default().push(k);
                }
            }
            index
        });
        index
            .get(&id)
            .into_iter()
            .flatten()
            .map(|&k| &self.annotations[k])
    }

    // ---- Globals ----

    pub fn globals(&self) -> &[Inst] {
        &self.globals
    }

    /// The globals, to change wholesale (the id index is rebuilt on next use; call `reindex`
    /// when types or constants changed, so interning sees them).
    pub(in crate::ir) fn globals_mut(&mut self) -> &mut Vec<Inst> {
        self.global_index = OnceLock::new();
        &mut self.globals
    }

    fn global_index_map(&self) -> &FxHashMap<Id, usize> {
        self.global_index.get_or_init(|| {
            // Sized once: growing it rehashed every entry several times per rebuild.
            let mut index =
                FxHashMap::with_capacity_and_hasher(self.globals.len(), Default::default());
            index.extend(
                self.globals
                    .iter()
                    .enumerate()
                    .filter_map(|(k, g)| g.result.map(|r| (r, k))),
            );
            index
        })
    }

    /// The position of global `id` in `globals`.
    pub fn global_position(&self, id: Id) -> Option<usize> {
        self.global_index_map().get(&id).copied()
    }

    /// The definition of a global (type, constant, variable) by id.
    pub fn global(&self, id: Id) -> Option<&Inst> {
        self.global_position(id).map(|k| &self.globals[k])
    }

    /// Global `id`, to change in place (its result must stay).
    pub(in crate::ir) fn global_mut(&mut self, id: Id) -> Option<&mut Inst> {
        let k = self.global_position(id)?;
        Some(&mut self.globals[k])
    }

    /// Appends a global (a type, constant or variable that uses only earlier ids).
    pub fn push_global(&mut self, inst: Inst) {
        if let (Some(r), Some(index)) = (inst.result, self.global_index.get_mut()) {
            index.insert(r, self.globals.len());
        }
        self.globals.push(inst);
    }

    // ---- Functions ----

    pub fn functions(&self) -> &[Arc<Function>] {
        &self.functions
    }

    /// Every function, to change its body (its id must stay).
    pub(in crate::ir) fn functions_mut(&mut self) -> impl Iterator<Item = &mut Function> {
        self.functions.iter_mut().map(Arc::make_mut)
    }

    /// The functions, to add, remove or reorder (the id index is rebuilt on next use).
    pub(in crate::ir) fn function_list_mut(&mut self) -> &mut Vec<Arc<Function>> {
        self.function_index = OnceLock::new();
        &mut self.functions
    }

    /// The position of function `id` in `functions`.
    pub fn function_position(&self, id: Id) -> Option<usize> {
        self.function_index
            .get_or_init(|| {
                self.functions
                    .iter()
                    .enumerate()
                    .map(|(k, f)| (f.id(), k))
                    .collect()
            })
            .get(&id)
            .copied()
    }

    pub fn function(&self, id: Id) -> Option<&Function> {
        self.function_position(id).map(|k| &*self.functions[k])
    }

    /// Function `id`, to change its body (its id must stay).
    pub(in crate::ir) fn function_mut(&mut self, id: Id) -> Option<&mut Function> {
        let k = self.function_position(id)?;
        Some(Arc::make_mut(&mut self.functions[k]))
    }

    /// The function at position `k`, to change its body (its id must stay).
    pub(in crate::ir) fn function_at_mut(&mut self, k: usize) -> &mut Function {
        Arc::make_mut(&mut self.functions[k])
    }

    /// Edits function `k` with the rest of the module at hand: the function is taken out while
    /// `edit` runs (the module holds a body-less stand-in with its definition), so `edit` may
    /// add types, constants and ids to the module meanwhile.
    pub(in crate::ir) fn with_function<R>(
        &mut self,
        k: usize,
        edit: impl FnOnce(&mut Module, &mut Function) -> R,
    ) -> R {
        let stand_in = Function::new(self.functions[k].def.clone(), Vec::new());
        let mut f = std::mem::replace(Arc::make_mut(&mut self.functions[k]), stand_in);
        let r = edit(self, &mut f);
        *Arc::make_mut(&mut self.functions[k]) = f;
        r
    }

    /// Edits every function that has a body, in order (see `with_function`).
    pub(in crate::ir) fn edit_functions(
        &mut self,
        mut edit: impl FnMut(&mut Module, &mut Function),
    ) {
        for k in 0..self.functions.len() {
            if !self.functions[k].is_declaration() {
                self.with_function(k, &mut edit);
            }
        }
    }

    /// A copy to keep as a pipeline's step: each function `before` (the step kept last) has
    /// unchanged is shared with it, the others are copied. Steps of a large module then cost
    /// what their passes changed, not a module each.
    pub fn snapshot(&self, before: Option<&Module>) -> Module {
        let mut copy = self.clone();
        for f in &mut copy.functions {
            let kept = before
                .and_then(|b| Some(&b.functions[b.function_position(f.id())?]))
                .filter(|old| f.unchanged_from(old));
            *f = match kept {
                Some(old) => Arc::clone(old),
                None => Arc::new(Function::clone(f)),
            };
        }
        copy
    }

    /// Appends a function.
    pub fn push_function(&mut self, f: Function) {
        if let Some(index) = self.function_index.get_mut() {
            index.insert(f.id(), self.functions.len());
        }
        self.functions.push(Arc::new(f));
    }

    // ---- Ids ----

    /// A new id; `None` when the id space is exhausted (the bound is already `u32::MAX`).
    pub fn fresh_id(&mut self) -> Option<Id> {
        let id = self.bound.max(1);
        self.bound = id.checked_add(1)?;
        Some(id)
    }

    /// One past the largest id defined or used: what tables indexed by id are sized by when
    /// `bound` is far above the module's size (a valid module may declare four billion).
    pub fn id_limit(&self) -> usize {
        let mut max = 0;
        self.for_each_inst(|i| {
            for id in i.result.into_iter().chain(i.uses()) {
                max = max.max(id);
            }
        });
        max as usize + 1
    }

    /// Total instruction count, as a SPIR-V binary of this module would have.
    pub fn inst_count(&self) -> usize {
        self.preamble.len()
            + self.entry_points.len()
            + self.execution_modes.len()
            + self.debug.len()
            + self.annotations.len()
            + self.globals.len()
            + self.functions.iter().map(|f| f.inst_count()).sum::<usize>()
            + self.trailing_debug.len()
    }

    // ---- Interning ----

    /// Forgets the intern table (the next `intern` builds it again from `globals`) and the
    /// global index; call after editing types or constants directly.
    pub fn reindex(&mut self) {
        self.global_index = OnceLock::new();
        self.interned = None;
    }

    /// Returns the id of the type or constant instruction `inst` (its result is ignored),
    /// adding it to the globals when no equal one exists; `None` when no id is left.
    pub fn intern(&mut self, mut inst: Inst) -> Option<Id> {
        inst.result = None;
        let globals = &self.globals;
        let interned = self.interned.get_or_insert_with(|| {
            let mut table = FxHashMap::default();
            for g in globals {
                if let (true, Some(id)) = (internable(g), g.result) {
                    table.entry(g.intern_key()).or_insert(id);
                }
            }
            table
        });
        if let Some(&id) = interned.get(&inst) {
            return Some(id);
        }
        let id = self.fresh_id()?;
        self.interned
            .get_or_insert_with(FxHashMap::default)
            .insert(inst.clone(), id);
        inst.result = Some(id);
        self.push_global(inst);
        Some(id)
    }

    /// Debug name (`OpName`) of an id, if any.
    pub fn debug_name(&self, id: Id) -> Option<&str> {
        self.debug.iter().find_map(|i| match (i.op, i.lits()) {
            (Op::Name, [Operand::LiteralString(s)]) if i.arg(0) == Some(id) => Some(s.as_str()),
            _ => None,
        })
    }

    /// Names `id` (`OpName`). The name goes after the other names and before
    /// `OpModuleProcessed`: the debug section's three parts (strings and sources, names,
    /// processes) must stay in that order.
    pub fn set_name(&mut self, id: Id, name: String) {
        let at = self
            .debug
            .iter()
            .position(|d| d.op == Op::ModuleProcessed)
            .unwrap_or(self.debug.len());
        self.debug.insert(
            at,
            Inst::new(
                Op::Name,
                None,
                None,
                vec![Operand::IdRef(id), Operand::LiteralString(name)],
            ),
        );
    }

    // ---- Every instruction ----

    /// Every instruction of the module in SPIR-V binary order, the location markers that say
    /// each body instruction's `loc` included (see `ir::loc`).
    pub fn for_each_inst(&self, f: impl FnMut(&Inst)) {
        self.for_each_written(f);
    }

    /// `for_each_inst`, returning the bound the instructions need: more than `bound` when a
    /// function needs more marker ids than `settle_markers` gave it.
    pub fn for_each_written(&self, mut f: impl FnMut(&Inst)) -> Id {
        for section in [
            &self.preamble,
            &self.entry_points,
            &self.execution_modes,
            &self.debug,
            &self.annotations,
            &self.globals,
        ] {
            section.iter().for_each(&mut f);
        }
        let end = Inst::with_args(Op::FunctionEnd, None, None, vec![]);
        let mut next = self.bound;
        for func in &self.functions {
            func.leading_debug.iter().for_each(&mut f);
            f(&func.def);
            func.params.iter().for_each(&mut f);
            func.prologue_debug.iter().for_each(&mut f);
            func.for_each_written(&mut next, &mut f);
            func.epilogue_debug.iter().for_each(&mut f);
            f(&end);
        }
        self.trailing_debug.iter().for_each(&mut f);
        next
    }

    /// Gives every function the result ids its location markers need (see
    /// `Function::marker_ids`), from the bound. Returns `None` when no id is left.
    pub fn settle_markers(&mut self) -> Option<()> {
        for k in 0..self.functions.len() {
            let need = self.functions[k].markers_said();
            let have = self.functions[k].marker_ids.len();
            if have < need {
                let ids = (have..need)
                    .map(|_| self.fresh_id())
                    .collect::<Option<Vec<Id>>>()?;
                Arc::make_mut(&mut self.functions[k]).marker_ids.extend(ids);
            }
        }
        Some(())
    }

    /// Renames every id the module defines or uses (results, operands, block labels, merge
    /// annotations, attributes) through `f`. The bound is the caller's to update.
    pub(in crate::ir) fn remap_ids(&mut self, f: impl Fn(Id) -> Id) {
        for section in [
            &mut self.preamble,
            &mut self.entry_points,
            &mut self.execution_modes,
            &mut self.debug,
            &mut self.annotations,
            &mut self.globals,
            &mut self.trailing_debug,
        ] {
            for i in section.iter_mut() {
                i.remap_ids(&f);
            }
        }
        for func in self.functions_mut() {
            func.remap_ids(&f);
        }
        self.attributes = std::mem::take(&mut self.attributes)
            .into_iter()
            .map(|(id, mut a)| {
                if let Attribute::QptrUsage(u) = &mut a {
                    u.remap_ids(&f);
                }
                (f(id), a)
            })
            .collect();
        self.global_index = OnceLock::new();
        self.function_index = OnceLock::new();
        self.decoration_index = OnceLock::new();
        self.reindex();
    }
}

/// Whether a global may stand for every equal one: an internable type or constant, or a
/// dialect type (an `OpExtInst` naming only its set and number).
fn internable(inst: &Inst) -> bool {
    super::inst::is_internable(inst.op)
        || inst.op == Op::Undef
        || (inst.op == Op::ExtInst && inst.args.len() == 1 && inst.lits().len() == 1)
}

impl super::ext_sets::ExtSets {
    /// The sets `m` imports. Here rather than in `ext_sets`, which knows instructions only.
    pub fn of(m: &Module) -> Self {
        Self::of_imports(&m.preamble)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decorate(target: Id, d: spirv::Decoration) -> Inst {
        Inst::new(
            Op::Decorate,
            None,
            None,
            vec![Operand::IdRef(target), Operand::Decoration(d)],
        )
    }

    #[test]
    fn the_decoration_index_follows_changes() {
        let mut m = Module::default();
        m.annotations_mut()
            .push(decorate(5, spirv::Decoration::NonUniform));
        m.annotations_mut()
            .push(decorate(7, spirv::Decoration::RelaxedPrecision));
        assert_eq!(m.decorations_of(5).count(), 1);
        assert_eq!(m.decorations_of(6).count(), 0);
        // Built on first use, dropped by every way of changing the annotations.
        m.annotations_mut()
            .push(decorate(5, spirv::Decoration::NoContraction));
        assert_eq!(m.decorations_of(5).count(), 2);
        m.remap_ids(|id| if id == 5 { 6 } else { id });
        assert_eq!(m.decorations_of(5).count(), 0);
        assert_eq!(m.decorations_of(6).count(), 2);
    }
}
