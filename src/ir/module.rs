//! The module: SPIR-V's logical layout, split into typed sections.
//!
//! Invariants (checked by `verify`):
//! - every id is defined once, by exactly one instruction, and is below `bound`;
//! - types and constants are interned: two non-aggregate type instructions with equal operands
//!   do not exist, and `intern_type`/`intern_const` return the existing id;
//! - a function with a body has blocks; each block ends in exactly one terminator and a header
//!   block carries its merge annotation in `Block::merge`, never in `insts`;
//! - instructions the IR does not model are kept as they came, in the section they came in.

use rspirv::dr::Operand;
use std::collections::{BTreeMap, HashMap};

use super::inst::{Id, Inst};

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

#[derive(Clone, Debug, PartialEq)]
pub enum Merge {
    Selection {
        merge: Id,
        control: Operand,
    },
    Loop {
        merge: Id,
        continue_target: Id,
        /// LoopControl mask followed by its parameters.
        control: Vec<Operand>,
    },
}

impl Merge {
    pub fn merge_block(&self) -> Id {
        match self {
            Merge::Selection { merge, .. } | Merge::Loop { merge, .. } => *merge,
        }
    }
    pub fn continue_target(&self) -> Option<Id> {
        match self {
            Merge::Loop {
                continue_target, ..
            } => Some(*continue_target),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub label: Id,
    /// Phis, variables, ordinary and debug-line instructions, in order.
    pub insts: Vec<Inst>,
    pub merge: Option<Merge>,
    pub terminator: Inst,
}

impl Block {
    pub fn successors(&self) -> Vec<Id> {
        self.terminator.branch_targets()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The `OpFunction` instruction: result type, result id, control, function type.
    pub def: Inst,
    pub params: Vec<Inst>,
    /// Empty for a declaration (an imported function).
    pub blocks: Vec<Block>,
    /// `OpLine`/`OpNoLine` between `OpFunction` and the first label, kept in place.
    pub prologue_debug: Vec<Inst>,
    /// `OpLine`/`OpNoLine` between the previous `OpFunctionEnd` and this `OpFunction`.
    pub leading_debug: Vec<Inst>,
}

impl Function {
    pub fn id(&self) -> Id {
        self.def.result.unwrap_or(0)
    }
    pub fn block_index(&self, label: Id) -> Option<usize> {
        self.blocks.iter().position(|b| b.label == label)
    }
    pub fn inst_count(&self) -> usize {
        // OpFunction + params + per block: label, insts, merge, terminator + OpFunctionEnd.
        2 + self.params.len()
            + self.prologue_debug.len()
            + self.leading_debug.len()
            + self
                .blocks
                .iter()
                .map(|b| 2 + b.insts.len() + usize::from(b.merge.is_some()))
                .sum::<usize>()
    }
}

/// What an analysis attached to an id: not SPIR-V, but part of the IR and of its text form
/// (a `; @…` line under the id's definition, read back by the parser).
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    /// How a pointer is used (`qptr-analyze`).
    QptrUsage(super::qptr::Usage),
    /// This function keeps typed pointers, for this reason (`qptr-lower`).
    TypedPointers(String),
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub header: Header,
    /// `OpCapability`, `OpExtension`, `OpExtInstImport`, `OpMemoryModel` — in order.
    pub preamble: Vec<Inst>,
    pub entry_points: Vec<Inst>,
    pub execution_modes: Vec<Inst>,
    /// `OpString`, `OpSource*`, `OpName`, `OpMemberName`, `OpModuleProcessed`.
    pub debug: Vec<Inst>,
    /// Decorations and decoration groups.
    pub annotations: Vec<Inst>,
    /// Types, constants, global variables, undefs, module-level debug instructions: in order,
    /// which is a valid definition order.
    pub globals: Vec<Inst>,
    pub functions: Vec<Function>,
    /// `OpLine`/`OpNoLine` after the last function.
    pub trailing_debug: Vec<Inst>,
    /// One past the largest id in use.
    pub bound: u32,
    /// Analysis results attached to ids.
    pub attributes: BTreeMap<Id, Attribute>,
    /// Interning table for types and constants: (opcode, result type, operands) → id.
    pub(crate) interned: HashMap<InternKey, Id>,
}

pub(crate) type InternKey = (u32, Option<Id>, Vec<Operand>);

/// Counts that say how far a module is from plain typed SPIR-V.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub bitcasts: usize,
    /// Values of pointer type, typed or untyped (variables included).
    pub pointer_values: usize,
    /// `qptr.*` instructions.
    pub qptr_ops: usize,
    /// Functions `qptr-lower` left with typed pointers.
    pub qptr_fallbacks: usize,
}

impl Module {
    pub fn counts(&self) -> Counts {
        let pointer_types: std::collections::HashSet<Id> = self
            .globals
            .iter()
            .filter(|g| {
                matches!(
                    g.op,
                    spirv::Op::TypePointer | spirv::Op::TypeUntypedPointerKHR
                )
            })
            .filter_map(|g| g.result)
            .collect();
        let sets = super::ops::ExtSets::of(self);
        let mut c = Counts {
            qptr_fallbacks: self
                .attributes
                .values()
                .filter(|a| matches!(a, Attribute::TypedPointers(_)))
                .count(),
            ..Counts::default()
        };
        self.for_each_inst(|i| {
            c.bitcasts += usize::from(i.op == spirv::Op::Bitcast);
            c.pointer_values += usize::from(i.ty.is_some_and(|t| pointer_types.contains(&t)));
            if sets.dialect_import().is_some() {
                c.qptr_ops += usize::from(super::ops::for_inst(i, &sets).is_some_and(|o| {
                    o.set == super::ops::OpSet::Dialect && o.name.starts_with("qptr.")
                }));
            }
        });
        c
    }

    /// A new id; `None` when the id space is exhausted (the bound is already `u32::MAX`).
    pub fn fresh_id(&mut self) -> Option<Id> {
        let id = self.bound.max(1);
        self.bound = id.checked_add(1)?;
        Some(id)
    }

    /// One past the largest id defined or used. Tables indexed by id are sized by this, not by
    /// `bound`: a valid module may declare a bound of four billion.
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
            + self
                .functions
                .iter()
                .map(Function::inst_count)
                .sum::<usize>()
            + self.trailing_debug.len()
    }

    pub fn function(&self, id: Id) -> Option<&Function> {
        self.functions.iter().find(|f| f.id() == id)
    }

    /// Rebuilds the intern table from `globals`; call after editing globals directly.
    pub fn reindex(&mut self) {
        self.interned.clear();
        let sets = super::ops::ExtSets::of(self);
        for inst in &self.globals {
            let internable = super::inst::is_internable(inst.op)
                || super::spirv::disasm::dialect_type_width(inst, &sets).is_some();
            if let (true, Some(id)) = (internable, inst.result) {
                self.interned.entry(inst.intern_key()).or_insert(id);
            }
        }
    }

    /// Returns the id of the type or constant instruction `inst` (its result is ignored),
    /// adding it to the globals when no equal one exists; `None` when no id is left.
    pub fn intern(&mut self, mut inst: Inst) -> Option<Id> {
        let key = inst.intern_key();
        if let Some(&id) = self.interned.get(&key) {
            return Some(id);
        }
        let id = self.fresh_id()?;
        inst.result = Some(id);
        self.interned.insert(key, id);
        self.globals.push(inst);
        Some(id)
    }

    /// The definition of a global (type, constant, variable) by id.
    pub fn global(&self, id: Id) -> Option<&Inst> {
        self.globals.iter().find(|i| i.result == Some(id))
    }

    /// Debug name (`OpName`) of an id, if any.
    pub fn debug_name(&self, id: Id) -> Option<&str> {
        self.debug
            .iter()
            .find_map(|i| match (i.op, i.operands.as_slice()) {
                (spirv::Op::Name, [Operand::IdRef(t), Operand::LiteralString(s)]) if *t == id => {
                    Some(s.as_str())
                }
                _ => None,
            })
    }

    /// Every instruction of the module in SPIR-V binary order.
    pub fn for_each_inst(&self, mut f: impl FnMut(&Inst)) {
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
        for func in &self.functions {
            func.leading_debug.iter().for_each(&mut f);
            f(&func.def);
            func.params.iter().for_each(&mut f);
            func.prologue_debug.iter().for_each(&mut f);
            for block in &func.blocks {
                f(&Inst::label(block.label));
                block.insts.iter().for_each(&mut f);
                if let Some(m) = &block.merge {
                    f(&Inst::from_merge(m));
                }
                f(&block.terminator);
            }
            f(&Inst::new(spirv::Op::FunctionEnd, None, None, vec![]));
        }
        self.trailing_debug.iter().for_each(&mut f);
    }

    /// Renames every id the module defines or uses (results, operands, block labels, merge
    /// annotations) through `f`. The bound and indexes are the caller's to update.
    pub fn remap_ids(&mut self, f: impl Fn(Id) -> Id) {
        self.for_each_inst_mut(|i| i.remap_ids(&f));
        for func in &mut self.functions {
            for b in &mut func.blocks {
                b.label = f(b.label);
                match &mut b.merge {
                    Some(Merge::Selection { merge, .. }) => *merge = f(*merge),
                    Some(Merge::Loop {
                        merge,
                        continue_target,
                        ..
                    }) => {
                        *merge = f(*merge);
                        *continue_target = f(*continue_target);
                    }
                    None => {}
                }
            }
        }
        self.attributes = std::mem::take(&mut self.attributes)
            .into_iter()
            .map(|(id, a)| (f(id), a))
            .collect();
    }

    /// Every instruction, mutably, except synthesized labels/merges/function ends.
    pub fn for_each_inst_mut(&mut self, mut f: impl FnMut(&mut Inst)) {
        for section in [
            &mut self.preamble,
            &mut self.entry_points,
            &mut self.execution_modes,
            &mut self.debug,
            &mut self.annotations,
            &mut self.globals,
        ] {
            section.iter_mut().for_each(&mut f);
        }
        for func in &mut self.functions {
            func.leading_debug.iter_mut().for_each(&mut f);
            f(&mut func.def);
            func.params.iter_mut().for_each(&mut f);
            func.prologue_debug.iter_mut().for_each(&mut f);
            for block in &mut func.blocks {
                block.insts.iter_mut().for_each(&mut f);
                f(&mut block.terminator);
            }
        }
        self.trailing_debug.iter_mut().for_each(&mut f);
    }
}
