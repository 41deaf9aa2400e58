//! Building blocks for passes that add types and imports: each returns the id of an existing
//! equal declaration, or declares it (types and constants are interned, see `Module::intern`).
//! `None` means the module has run out of ids — or, for constants and undefined values, that
//! the module may not have one of that type (`Module::constant_allowed`).

use rspirv::dr::Operand;
use spirv::Op;

use super::inst::{Id, Inst};
use super::module::Module;
use super::ops;
use super::typing::Labels;

/// The width capabilities a module declares, which let it make constants (and undefined values)
/// of 8- and 16-bit types. Without them such types exist only for storage
/// (`StorageBuffer8BitAccess`, `StorageBuffer16BitAccess`, …): values are loaded, stored and
/// converted, and spirv-val rejects any `OpConstant`, `OpConstantNull`, `OpConstantComposite` or
/// `OpUndef` of a type that is or holds one ("Cannot form constants of 8- or 16-bit types").
/// Which width needs which capability is the op table's `ops::width_capability`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NarrowCaps(Vec<spirv::Capability>);

impl NarrowCaps {
    /// The capabilities `m` declares.
    pub fn of(m: &Module) -> Self {
        NarrowCaps(m.capabilities().collect())
    }

    fn has(&self, kind: ops::Kind, width: u32) -> bool {
        ops::width_capability(kind, width).is_none_or(|c| self.0.contains(&c))
    }

    /// Whether every type may have constants.
    pub fn all(&self) -> bool {
        self.has(ops::Kind::Int, 8)
            && self.has(ops::Kind::Int, 16)
            && self.has(ops::Kind::Float, 16)
    }

    /// A bit-vector (`untype`) came from an integer or a float of its width: it needs the
    /// capability of either that exists at its width (an 8-bit one `Int8`, a 16-bit one `Int16`
    /// or `Float16`).
    fn bits(&self, width: u32) -> bool {
        let mut needs = [ops::Kind::Int, ops::Kind::Float]
            .into_iter()
            .filter_map(|k| ops::width_capability(k, width))
            .peekable();
        needs.peek().is_none() || needs.any(|c| self.0.contains(&c))
    }
}

impl Module {
    /// Whether the module may have a constant (`OpConstant`, `OpConstantComposite`,
    /// `OpConstantNull`) or an `OpUndef` of type `ty`: not when `ty` is, or holds as a
    /// component, member or element (not through a pointer), an 8-bit integer without `Int8`,
    /// a 16-bit integer without `Int16` or a 16-bit float without `Float16`. Every path that
    /// makes a constant of a type it did not find one of asks this; where the answer is no, a
    /// fold keeps the instruction it would have replaced.
    pub fn constant_allowed(&self, ty: Id) -> bool {
        self.constant_allowed_with(&NarrowCaps::of(self), ty)
    }

    /// `constant_allowed` with the capabilities already read (`NarrowCaps::of`).
    pub fn constant_allowed_with(&self, caps: &NarrowCaps, ty: Id) -> bool {
        caps.all() || self.allowed_at(caps, ty, 0)
    }

    fn allowed_at(&self, caps: &NarrowCaps, ty: Id, depth: u32) -> bool {
        // Nesting no real type has (or a cycle in a broken module): no constant.
        if depth > 64 {
            return false;
        }
        let Some(t) = self.global(ty) else {
            return false;
        };
        match (t.op, t.lits(), t.args.as_slice()) {
            (Op::TypeInt, [Operand::LiteralBit32(w), ..], _) => caps.has(ops::Kind::Int, *w),
            (Op::TypeFloat, [Operand::LiteralBit32(w), ..], _) => caps.has(ops::Kind::Float, *w),
            (
                Op::TypeVector | Op::TypeMatrix | Op::TypeArray | Op::TypeRuntimeArray,
                _,
                [e, ..],
            ) => self.allowed_at(caps, *e, depth + 1),
            (Op::TypeStruct, _, members) => {
                members.iter().all(|&m| self.allowed_at(caps, m, depth + 1))
            }
            (Op::ExtInst, _, _) => {
                let sets = ops::ExtSets::of(self);
                super::types::dialect_type_width(t, &sets).is_none_or(|w| caps.bits(w))
            }
            _ => true,
        }
    }

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
    /// value will do for a value nobody wrote. `None` also when the module may not have an
    /// undefined value of `ty` (`constant_allowed`).
    pub fn undef(&mut self, ty: Id) -> Option<Id> {
        if !self.constant_allowed(ty) {
            return None;
        }
        self.intern(Inst::with_args(Op::Undef, Some(ty), None, vec![]))
    }

    /// The pointer type to `pointee` in storage class `class` (interned: one id for each).
    pub fn pointer_to(&mut self, class: spirv::StorageClass, pointee: Id) -> Option<Id> {
        self.intern(Inst::new(
            Op::TypePointer,
            None,
            None,
            vec![Operand::StorageClass(class), Operand::IdRef(pointee)],
        ))
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

    /// The `OpConstantNull` of `ty`; `None` also when the module may not have a constant of
    /// `ty` (`constant_allowed`).
    pub fn null(&mut self, ty: Id) -> Option<Id> {
        if !self.constant_allowed(ty) {
            return None;
        }
        self.intern(Inst::with_args(Op::ConstantNull, Some(ty), None, vec![]))
    }
}

impl Module {
    /// Declares `cap` in the preamble (after the other capabilities) unless it is there.
    pub fn require_capability(&mut self, cap: spirv::Capability) {
        let has = self.preamble.iter().any(|i| {
            i.op == Op::Capability
                && matches!(i.lits().first(), Some(Operand::Capability(c)) if *c == cap)
        });
        if !has {
            let at = self
                .preamble
                .iter()
                .take_while(|i| i.op == Op::Capability)
                .count();
            self.preamble.insert(
                at,
                Inst::new(Op::Capability, None, None, vec![Operand::Capability(cap)]),
            );
        }
    }

    /// Declares extension `name` in the preamble (after the capabilities and extensions)
    /// unless it is there.
    pub fn require_extension(&mut self, name: &str) {
        let has = self.preamble.iter().any(|i| {
            i.op == Op::Extension
                && matches!(i.lits().first(), Some(Operand::LiteralString(s)) if s == name)
        });
        if !has {
            let at = self
                .preamble
                .iter()
                .take_while(|i| matches!(i.op, Op::Capability | Op::Extension))
                .count();
            self.preamble.insert(
                at,
                Inst::new(
                    Op::Extension,
                    None,
                    None,
                    vec![Operand::LiteralString(name.into())],
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Types of a module with 8- and 16-bit types for storage only, plus `extra` capabilities.
    fn module(extra: &str) -> Module {
        let text = format!(
            "OpCapability Shader
OpCapability StorageBuffer8BitAccess
OpCapability StorageBuffer16BitAccess
{extra}OpMemoryModel Logical GLSL450
OpName %uchar \"uchar\"
OpName %ushort \"ushort\"
OpName %half \"half\"
OpName %uint \"uint\"
OpName %float \"float\"
OpName %S \"S\"
OpName %T \"T\"
OpName %v2half \"v2half\"
OpName %a4u8 \"a4u8\"
OpName %nested \"nested\"
OpName %pu8 \"pu8\"
%uchar = OpTypeInt 8 0
%ushort = OpTypeInt 16 0
%half = OpTypeFloat 16
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%u4 = OpConstant %uint 4
%S = OpTypeStruct %uint %uchar
%T = OpTypeStruct %float %uint
%v2half = OpTypeVector %half 2
%a4u8 = OpTypeArray %uchar %u4
%nested = OpTypeStruct %T %a4u8
%pu8 = OpTypePointer StorageBuffer %uchar
"
        );
        crate::ir::parse::parse(&text).unwrap()
    }

    fn id(m: &Module, name: &str) -> Id {
        (1..m.bound)
            .find(|&i| m.debug_name(i) == Some(name))
            .unwrap_or_else(|| panic!("no {name}"))
    }

    #[test]
    fn narrow_types_have_constants_only_with_their_capability() {
        let mut m = module("");
        for ty in ["uchar", "ushort", "half", "S", "v2half", "a4u8", "nested"] {
            let t = id(&m, ty);
            assert!(!m.constant_allowed(t), "{ty}");
            assert_eq!(m.null(t), None, "{ty}");
            assert_eq!(m.undef(t), None, "{ty}");
        }
        // 32-bit types, and pointers to narrow ones (spirv-val accepts their nulls and undefs).
        for ty in ["uint", "float", "T", "pu8"] {
            let t = id(&m, ty);
            assert!(m.constant_allowed(t), "{ty}");
            assert!(m.null(t).is_some(), "{ty}");
        }
        let m = module("OpCapability Int8\n");
        assert!(m.constant_allowed(id(&m, "uchar")));
        assert!(m.constant_allowed(id(&m, "S")));
        assert!(!m.constant_allowed(id(&m, "ushort")));
        assert!(!m.constant_allowed(id(&m, "half")));
        let m = module("OpCapability Int8\nOpCapability Int16\nOpCapability Float16\n");
        for ty in ["uchar", "ushort", "half", "S", "v2half", "nested"] {
            assert!(m.constant_allowed(id(&m, ty)), "{ty}");
        }
    }
}
