//! Instructions: an opcode, an optional result type and result id, and operands.
//!
//! Operands use rspirv's `dr::Operand`, which already knows every SPIR-V operand kind and the
//! parameters of enumerants; the IR adds structure around instructions, not inside them.

use rspirv::dr::Operand;
use rspirv::grammar::reflect;
use spirv::Op;

use super::module::Merge;

/// A result id. Types, constants, globals, functions, blocks and values share one id space,
/// exactly as in SPIR-V, so ids from the input survive the round trip unchanged.
pub type Id = spirv::Word;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    pub op: Op,
    pub ty: Option<Id>,
    pub result: Option<Id>,
    pub operands: Vec<Operand>,
}

impl Inst {
    pub fn new(op: Op, ty: Option<Id>, result: Option<Id>, operands: Vec<Operand>) -> Self {
        Inst {
            op,
            ty,
            result,
            operands,
        }
    }

    pub fn label(id: Id) -> Self {
        Inst::new(Op::Label, None, Some(id), vec![])
    }

    pub fn from_merge(merge: &Merge) -> Self {
        match merge {
            Merge::Selection { merge, control } => Inst::new(
                Op::SelectionMerge,
                None,
                None,
                vec![Operand::IdRef(*merge), control.clone()],
            ),
            Merge::Loop {
                merge,
                continue_target,
                control,
            } => {
                let mut ops = vec![Operand::IdRef(*merge), Operand::IdRef(*continue_target)];
                ops.extend(control.iter().cloned());
                Inst::new(Op::LoopMerge, None, None, ops)
            }
        }
    }

    pub fn is_terminator(&self) -> bool {
        reflect::is_block_terminator(self.op)
    }

    /// Blocks this terminator may transfer control to, in operand order.
    pub fn branch_targets(&self) -> Vec<Id> {
        match self.op {
            Op::Branch => self.id_operands().collect(),
            Op::BranchConditional => self.id_operands().skip(1).take(2).collect(),
            Op::Switch => self.id_operands().skip(1).collect(),
            _ => vec![],
        }
    }

    /// Ids referenced by operands (not the result type).
    pub fn id_operands(&self) -> impl Iterator<Item = Id> + '_ {
        self.operands.iter().filter_map(operand_id)
    }

    /// Every id this instruction refers to, result type included.
    pub fn uses(&self) -> impl Iterator<Item = Id> + '_ {
        self.ty.into_iter().chain(self.id_operands())
    }

    /// Applies `f` to every id this instruction refers to (result type included) and its result.
    pub fn remap_ids(&mut self, mut f: impl FnMut(Id) -> Id) {
        if let Some(t) = self.ty.as_mut() {
            *t = f(*t);
        }
        if let Some(r) = self.result.as_mut() {
            *r = f(*r);
        }
        for op in &mut self.operands {
            if let Some(id) = operand_id_mut(op) {
                *id = f(*id);
            }
        }
    }

    pub(crate) fn intern_key(&self) -> super::module::InternKey {
        (self.op as u32, self.ty, self.operands.clone())
    }

    /// Number of words this instruction takes in a binary.
    pub fn word_count(&self) -> usize {
        let mut words = Vec::new();
        super::spirv::write::encode_operands(&self.operands, &mut words);
        1 + usize::from(self.ty.is_some()) + usize::from(self.result.is_some()) + words.len()
    }
}

pub fn operand_id(op: &Operand) -> Option<Id> {
    match op {
        Operand::IdRef(id) | Operand::IdMemorySemantics(id) | Operand::IdScope(id) => Some(*id),
        _ => None,
    }
}

pub fn operand_id_mut(op: &mut Operand) -> Option<&mut Id> {
    match op {
        Operand::IdRef(id) | Operand::IdMemorySemantics(id) | Operand::IdScope(id) => Some(id),
        _ => None,
    }
}

/// Type declarations.
pub fn is_type(op: Op) -> bool {
    op as u32 >= Op::TypeVoid as u32 && op as u32 <= Op::TypeForwardPointer as u32
        || matches!(
            op,
            Op::TypePipeStorage
                | Op::TypeNamedBarrier
                | Op::TypeAccelerationStructureKHR
                | Op::TypeRayQueryKHR
                | Op::TypeCooperativeMatrixKHR
                | Op::TypeUntypedPointerKHR
        )
}

/// Constant declarations (spec constants included).
pub fn is_constant(op: Op) -> bool {
    matches!(
        op,
        Op::ConstantTrue
            | Op::ConstantFalse
            | Op::Constant
            | Op::ConstantComposite
            | Op::ConstantSampler
            | Op::ConstantNull
            | Op::SpecConstantTrue
            | Op::SpecConstantFalse
            | Op::SpecConstant
            | Op::SpecConstantComposite
            | Op::SpecConstantOp
    )
}

/// Types and constants that are equal exactly when their operands are equal. Aggregates are
/// nominal (equal members with different decorations are different types) and spec constants
/// are told apart by their `SpecId`, so neither is merged.
pub fn is_internable(op: Op) -> bool {
    (is_type(op)
        && !matches!(
            op,
            Op::TypeStruct
                | Op::TypeArray
                | Op::TypeRuntimeArray
                | Op::TypeForwardPointer
                | Op::TypeOpaque
        ))
        || matches!(
            op,
            Op::ConstantTrue
                | Op::ConstantFalse
                | Op::Constant
                | Op::ConstantComposite
                | Op::ConstantNull
        )
}

/// Debug instructions that `strip-debug` removes.
pub fn is_debug(op: Op) -> bool {
    matches!(
        op,
        Op::SourceContinued
            | Op::Source
            | Op::SourceExtension
            | Op::Name
            | Op::MemberName
            | Op::String
            | Op::Line
            | Op::NoLine
            | Op::ModuleProcessed
    )
}

/// Instructions that can only appear inside a block: seeing one at module level is a layout
/// error, not an opaque global.
pub fn is_block_level_only(op: Op) -> bool {
    reflect::is_block_terminator(op) || matches!(op, Op::Phi | Op::SelectionMerge | Op::LoopMerge)
}

/// Atomic memory operations: their first operand is the pointer they act on.
pub fn is_atomic(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicCompareExchangeWeak
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFAddEXT
            | Op::AtomicFMinEXT
            | Op::AtomicFMaxEXT
    )
}
