//! Building blocks for passes that add types and imports: each returns the id of an existing
//! equal declaration, or declares it (types and constants are interned, see `Module::intern`).
//! `None` means the module has run out of ids.

use rspirv::dr::Operand;
use spirv::Op;

use super::inst::{Id, Inst};
use super::module::Module;
use super::ops;
use super::typing::Labels;

impl Module {
    pub fn void_type(&mut self) -> Option<Id> {
        self.intern(Inst::new(Op::TypeVoid, None, None, vec![]))
    }

    /// The id of the dialect's `OpExtInstImport`, added (after the other imports) if missing.
    pub fn dialect_import(&mut self) -> Option<Id> {
        if let Some(id) = ops::ExtSets::of(self).dialect_import() {
            return Some(id);
        }
        let id = self.fresh_id()?;
        let at = self
            .preamble
            .iter()
            .position(|i| i.op == Op::MemoryModel)
            .unwrap_or(self.preamble.len());
        self.preamble.insert(
            at,
            Inst::new(
                Op::ExtInstImport,
                None,
                Some(id),
                vec![Operand::LiteralString(ops::DIALECT_SET.into())],
            ),
        );
        Some(id)
    }

    /// A vector of `count` `component`s, or the component itself when `count` is 1.
    pub fn vector_of(&mut self, component: Id, count: u32) -> Option<Id> {
        if count == 1 {
            return Some(component);
        }
        self.intern(Inst::new(
            Op::TypeVector,
            None,
            None,
            vec![Operand::IdRef(component), Operand::LiteralBit32(count)],
        ))
    }

    /// The bit-vector type of `width` bits (`bits.b32`), as a vector of `count` when above 1.
    pub fn bits_type(&mut self, width: u32, count: u32) -> Option<Id> {
        let info = ops::dialect_by_name(&format!("bits.b{width}"))?;
        let void = self.void_type()?;
        let set = self.dialect_import()?;
        let scalar = self.intern(Inst::new(
            Op::ExtInst,
            Some(void),
            None,
            vec![
                Operand::IdRef(set),
                Operand::LiteralExtInstInteger(info.number),
            ],
        ))?;
        self.vector_of(scalar, count)
    }

    /// The typed scalar or vector type of a single label: float, signed or unsigned integer.
    pub fn numeric_type(&mut self, label: Labels, width: u32, count: u32) -> Option<Id> {
        let scalar = if label == Labels::F {
            Inst::new(
                Op::TypeFloat,
                None,
                None,
                vec![Operand::LiteralBit32(width)],
            )
        } else {
            Inst::new(
                Op::TypeInt,
                None,
                None,
                vec![
                    Operand::LiteralBit32(width),
                    Operand::LiteralBit32(u32::from(label == Labels::S)),
                ],
            )
        };
        let scalar = self.intern(scalar)?;
        self.vector_of(scalar, count)
    }
}

impl Module {
    /// The id of the `GLSL.std.450` import, added (after the other imports) if missing.
    pub fn glsl_import(&mut self) -> Option<Id> {
        if let Some(id) = self.preamble.iter().find_map(|i| match i.lits().first() {
            Some(Operand::LiteralString(s)) if i.op == Op::ExtInstImport && s == ops::GLSL_SET => {
                i.result
            }
            _ => None,
        }) {
            return Some(id);
        }
        let id = self.fresh_id()?;
        let at = self
            .preamble
            .iter()
            .position(|i| i.op == Op::MemoryModel)
            .unwrap_or(self.preamble.len());
        self.preamble.insert(
            at,
            Inst::new(
                Op::ExtInstImport,
                None,
                Some(id),
                vec![Operand::LiteralString(ops::GLSL_SET.into())],
            ),
        );
        Some(id)
    }

    /// A module-level `OpUndef` of `ty`, shared by everything that needs one: any undefined
    /// value will do for a value nobody wrote.
    pub fn undef(&mut self, ty: Id) -> Option<Id> {
        self.intern(Inst::with_args(Op::Undef, Some(ty), None, vec![]))
    }

    /// The 32-bit unsigned `OpConstant` `value` (debug records' numbers and indexes).
    pub fn u32_constant(&mut self, value: u32) -> Option<Id> {
        let uint = self.intern(Inst::new(
            Op::TypeInt,
            None,
            None,
            vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
        ))?;
        self.intern(Inst::new(
            Op::Constant,
            Some(uint),
            None,
            vec![Operand::LiteralBit32(value)],
        ))
    }

    /// The `OpConstantNull` of `ty`.
    pub fn null(&mut self, ty: Id) -> Option<Id> {
        self.intern(Inst::with_args(Op::ConstantNull, Some(ty), None, vec![]))
    }
}
