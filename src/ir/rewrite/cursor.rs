//! `Builder`: emits instructions at a place in a function (a cursor that moves past what it
//! emits) or into a list the caller places later, declaring the types, constants and imports
//! they need in the module as it goes (interned: an existing equal declaration is reused).

use rspirv::dr::Operand;
use spirv::{Op, StorageClass};

use super::super::inst::{Id, Inst};
use super::super::module::Module;
use super::super::typing::Labels;

/// Where a builder puts what it emits.
enum Target {
    /// Into `Builder::code`.
    List,
    /// Into function `func` (its position in the module), block `block`, before instruction
    /// `pos` of the block's list.
    At {
        func: usize,
        block: usize,
        pos: usize,
    },
}

pub struct Builder<'m> {
    pub m: &'m mut Module,
    target: Target,
    /// What was emitted, for a builder without a place.
    pub code: Vec<Inst>,
}

/// The error of a builder: the module has run out of ids.
pub fn out_of_ids() -> String {
    "the module has run out of ids (its bound reached 2^32)".to_string()
}

impl<'m> Builder<'m> {
    /// A builder that collects what it emits in `code`.
    pub fn detached(m: &'m mut Module) -> Self {
        Builder {
            m,
            target: Target::List,
            code: Vec::new(),
        }
    }

    /// A builder that inserts into function `func` (its position in the module) at position
    /// `pos` of block `block`'s instruction list, moving on past each instruction it inserts.
    pub fn at(m: &'m mut Module, func: usize, block: usize, pos: usize) -> Self {
        Builder {
            m,
            target: Target::At { func, block, pos },
            code: Vec::new(),
        }
    }

    /// Emits an instruction.
    pub fn emit(&mut self, inst: Inst) {
        match &mut self.target {
            Target::List => self.code.push(inst),
            Target::At { func, block, pos } => {
                self.m
                    .function_at_mut(*func)
                    .insert_inst(*block, *pos, inst);
                *pos += 1;
            }
        }
    }

    pub fn fresh(&mut self) -> Result<Id, String> {
        self.m.fresh_id().ok_or_else(out_of_ids)
    }

    /// Emits `op` with a result of type `ty` and the given operands; returns the result.
    pub fn op(&mut self, op: Op, ty: Id, operands: Vec<Operand>) -> Result<Id, String> {
        let id = self.fresh()?;
        self.emit(Inst::new(op, Some(ty), Some(id), operands));
        Ok(id)
    }

    /// `op` whose operands are all ids.
    pub fn ids(&mut self, op: Op, ty: Id, args: &[Id]) -> Result<Id, String> {
        let id = self.fresh()?;
        self.emit(Inst::with_args(op, Some(ty), Some(id), args.to_vec()));
        Ok(id)
    }

    /// A GLSL.std.450 instruction.
    pub fn glsl(&mut self, ty: Id, number: u32, args: &[Id]) -> Result<Id, String> {
        let set = self.m.glsl_import().ok_or_else(out_of_ids)?;
        let mut ops = vec![Operand::IdRef(set), Operand::LiteralExtInstInteger(number)];
        ops.extend(args.iter().map(|a| Operand::IdRef(*a)));
        self.op(Op::ExtInst, ty, ops)
    }

    pub fn load(&mut self, ty: Id, ptr: Id) -> Result<Id, String> {
        self.ids(Op::Load, ty, &[ptr])
    }

    pub fn store(&mut self, ptr: Id, value: Id) {
        self.emit(Inst::with_args(Op::Store, None, None, vec![ptr, value]));
    }

    /// `OpCompositeExtract` at constant indices.
    pub fn extract(&mut self, ty: Id, composite: Id, path: &[u32]) -> Result<Id, String> {
        let mut ops = vec![Operand::IdRef(composite)];
        ops.extend(path.iter().map(|&k| Operand::LiteralBit32(k)));
        self.op(Op::CompositeExtract, ty, ops)
    }

    // ---- Declarations ----

    pub fn intern(&mut self, op: Op, ty: Option<Id>, operands: Vec<Operand>) -> Result<Id, String> {
        self.m
            .intern(Inst::new(op, ty, None, operands))
            .ok_or_else(out_of_ids)
    }

    pub fn u32_t(&mut self) -> Result<Id, String> {
        self.m.numeric_type(Labels::U, 32, 1).ok_or_else(out_of_ids)
    }

    pub fn i32_t(&mut self) -> Result<Id, String> {
        self.m.numeric_type(Labels::S, 32, 1).ok_or_else(out_of_ids)
    }

    pub fn f32_t(&mut self) -> Result<Id, String> {
        self.m.numeric_type(Labels::F, 32, 1).ok_or_else(out_of_ids)
    }

    pub fn bool_t(&mut self) -> Result<Id, String> {
        self.intern(Op::TypeBool, None, vec![])
    }

    pub fn vec(&mut self, of: Id, n: u32) -> Result<Id, String> {
        self.m.vector_of(of, n).ok_or_else(out_of_ids)
    }

    pub fn ptr(&mut self, class: StorageClass, to: Id) -> Result<Id, String> {
        self.intern(
            Op::TypePointer,
            None,
            vec![Operand::StorageClass(class), Operand::IdRef(to)],
        )
    }

    /// A 32-bit unsigned constant.
    pub fn cu(&mut self, v: u32) -> Result<Id, String> {
        let t = self.u32_t()?;
        self.intern(Op::Constant, Some(t), vec![Operand::LiteralBit32(v)])
    }

    /// A 32-bit signed constant.
    pub fn ci(&mut self, v: i32) -> Result<Id, String> {
        let t = self.i32_t()?;
        self.intern(Op::Constant, Some(t), vec![Operand::LiteralBit32(v as u32)])
    }

    /// A 32-bit float constant.
    pub fn cf(&mut self, v: f32) -> Result<Id, String> {
        let t = self.f32_t()?;
        self.intern(
            Op::Constant,
            Some(t),
            vec![Operand::LiteralBit32(v.to_bits())],
        )
    }

    /// `OpUndef` of a type (module-level).
    pub fn undef(&mut self, ty: Id) -> Result<Id, String> {
        self.m.undef(ty).ok_or_else(out_of_ids)
    }
}
