//! Buffer device addresses: a `PhysicalStorageBuffer` pointer is its 64-bit address, held as
//! an integer value (`Const::Scalar(Int { width: 64 })`), so it is stored, loaded, selected,
//! compared and converted as the integer it is on the device. Addresses point into the
//! buffers the caller gives (`Inputs::pointees`): buffer `k` starts at `address_of(k)`, far
//! enough from the next that no offset within one reaches another. Loads and stores through
//! an address read and write those buffers' bytes through the module's explicit layout, as
//! buffer variables are read (`memory::Bytes`).

use spirv::{Op, StorageClass};

use super::super::consts::Const;
use super::super::func::InstId;
use super::super::inst::{Id, Inst};
use super::super::ops::fold::Value as Scalar;
use super::super::qptr::Place;
use super::memory::Bytes;
use super::{id_of, partly, FindingKind, Invocation, Machine, Pointer, Value};

/// Buffer `k` behind addresses is root `PHYS_ROOTS + k` for race detection, each 4-byte word
/// `w` of it place `[w]`.
pub(super) const PHYS_ROOTS: usize = usize::MAX / 4 * 3;

/// Distance between the starts of two buffers behind addresses.
const SPAN: u64 = 1 << 40;

/// The address buffer `k` of `Inputs::pointees` starts at.
pub fn address_of(k: usize) -> u64 {
    (k as u64 + 1) * SPAN
}

/// The buffer an address points into and the offset in it.
fn decode(address: u64) -> Option<(usize, u64)> {
    let k = (address / SPAN).checked_sub(1)?;
    Some((usize::try_from(k).ok()?, address % SPAN))
}

/// The address a value holds, when it is one.
pub(super) fn as_address(v: &Value) -> Option<u64> {
    match v {
        Value::Const(Const::Scalar(Scalar::Int { bits, width: 64 })) => Some(*bits),
        _ => None,
    }
}

fn int(bits: u64, width: u32) -> Value {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    Value::Const(Const::Scalar(Scalar::Int {
        bits: bits & mask,
        width,
    }))
}

impl Machine<'_> {
    /// Whether `ty` is a pointer to a physical storage buffer.
    pub(super) fn is_address_type(&self, ty: Id) -> bool {
        super::super::types::pointer_type(self.m, ty)
            .is_some_and(|(class, _)| class == StorageClass::PhysicalStorageBuffer)
    }

    /// What a pointer operand points to: its pointee type, when it is a buffer address.
    pub(super) fn address_pointee(&self, inv: &Invocation, ptr: Id) -> Option<Id> {
        let ty = self.type_of(inv, ptr)?;
        match super::super::types::pointer_type(self.m, ty)? {
            (StorageClass::PhysicalStorageBuffer, pointee) => Some(pointee),
            _ => None,
        }
    }

    /// `OpConvertUToPtr`, `OpConvertPtrToU` and bitcasts to or from an address, `None` for
    /// any other instruction (or a bitcast between two non-pointers).
    pub(super) fn convert_address(&self, inv: &Invocation, inst: &Inst) -> Option<Value> {
        if !matches!(
            inst.op(),
            Op::ConvertUToPtr | Op::ConvertPtrToU | Op::Bitcast
        ) {
            return None;
        }
        let from = inst.arg(0)?;
        let to_address = inst.ty().is_some_and(|t| self.is_address_type(t));
        let from_address = self
            .type_of(inv, from)
            .is_some_and(|t| self.is_address_type(t));
        let v = self.value(inv, from);
        let bits = |v: &Value| -> Option<u64> {
            match v {
                Value::Const(Const::Scalar(Scalar::Int { bits, .. })) => Some(*bits),
                // A pair of 32-bit words, the low one first.
                Value::Const(Const::Composite(parts)) if parts.len() == 2 => {
                    match (&parts[0], &parts[1]) {
                        (
                            Const::Scalar(Scalar::Int {
                                bits: lo,
                                width: 32,
                            }),
                            Const::Scalar(Scalar::Int {
                                bits: hi,
                                width: 32,
                            }),
                        ) => Some(lo | hi << 32),
                        _ => None,
                    }
                }
                _ => None,
            }
        };
        match inst.op() {
            Op::ConvertUToPtr => Some(bits(&v).map_or(Value::Undef, |b| int(b, 64))),
            Op::ConvertPtrToU => {
                let width = inst
                    .ty()
                    .and_then(|t| self.consts.shape(t))
                    .and_then(|s| match s {
                        super::super::consts::Shape::Scalar(
                            super::super::consts::Scalar::Int { width, .. },
                        ) => Some(*width),
                        _ => None,
                    })
                    .unwrap_or(64);
                Some(as_address(&v).map_or(Value::Undef, |a| int(a, width)))
            }
            Op::Bitcast if to_address => Some(bits(&v).map_or(Value::Undef, |b| int(b, 64))),
            Op::Bitcast if from_address => {
                let a = as_address(&v)?;
                let two = inst
                    .ty()
                    .and_then(|t| self.consts.shape(t))
                    .is_some_and(|s| matches!(s, super::super::consts::Shape::Vector { .. }));
                Some(if two {
                    Value::Const(Const::Composite(vec![
                        Const::Scalar(Scalar::Int {
                            bits: a & 0xffff_ffff,
                            width: 32,
                        }),
                        Const::Scalar(Scalar::Int {
                            bits: a >> 32,
                            width: 32,
                        }),
                    ]))
                } else {
                    int(a, 64)
                })
            }
            _ => None,
        }
    }

    /// The buffer and offset `size` bytes at `address` are in; out of every buffer is a
    /// finding.
    fn locate_address(
        &mut self,
        inv: &Invocation,
        address: u64,
        size: u64,
        func: Id,
        inst: &Inst,
    ) -> Option<(usize, u64)> {
        let found = decode(address).filter(|&(k, offset)| {
            self.phys
                .get(k)
                .is_some_and(|b| offset.saturating_add(size) <= b.len() as u64)
        });
        if found.is_none() {
            self.find(
                FindingKind::OutOfBounds,
                inv.number,
                func,
                id_of(inst),
                None,
                format!("{size} bytes at address {address:#x}, which is in no buffer"),
            );
        }
        found
    }

    fn size_of(&self, ty: Id) -> u64 {
        if self.is_address_type(ty) {
            return 8;
        }
        self.layout.size(Place::of(ty)).unwrap_or(0)
    }

    /// The places (4-byte words) `size` bytes at `offset` of buffer `k` are, for races.
    fn words(k: usize, offset: u64, size: u64) -> impl Iterator<Item = Pointer> {
        (offset / 4..(offset + size).div_ceil(4)).map(move |w| Pointer {
            root: PHYS_ROOTS + k,
            path: smallvec::smallvec![w as u32],
        })
    }

    /// A load of a value of type `ty` at `address`.
    pub(super) fn load_address(
        &mut self,
        inv: &Invocation,
        address: u64,
        ty: Id,
        func: Id,
        at: InstId,
        inst: &Inst,
    ) -> Value {
        let size = self.size_of(ty);
        let Some((k, offset)) = self.locate_address(inv, address, size, func, inst) else {
            return Value::Undef;
        };
        // Atomics are ordered; plain loads race with unordered writes.
        if inst.op() == Op::Load {
            for p in Self::words(k, offset, size) {
                self.access(inv, &p, false, func, at, inst);
            }
        }
        if (offset..offset + size).any(|b| self.phys_undefined.contains(&(k, b)))
            || Self::words(k, offset, size).any(|p| self.raced.contains(&(p.root, p.path)))
        {
            return Value::Undef;
        }
        Bytes {
            layout: &self.layout,
            consts: &self.consts,
        }
        .read(Place::of(ty), &self.phys[k], offset)
        .map_or(Value::Undef, |m| partly::mem_value(&m))
    }

    /// A store of `value`, of type `ty`, at `address`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_address(
        &mut self,
        inv: &Invocation,
        address: u64,
        ty: Id,
        value: &Value,
        func: Id,
        at: InstId,
        inst: &Inst,
    ) {
        // A helper invocation's writes to memory others see have no effect.
        if inv.helper {
            return;
        }
        let size = self.size_of(ty);
        let Some((k, offset)) = self.locate_address(inv, address, size, func, inst) else {
            return;
        };
        if inst.op() == Op::Store {
            for p in Self::words(k, offset, size) {
                self.access(inv, &p, true, func, at, inst);
            }
        }
        {
            let bytes = Bytes {
                layout: &self.layout,
                consts: &self.consts,
            };
            let Some(mut mem) = bytes.read(Place::of(ty), &self.phys[k], offset) else {
                return;
            };
            partly::store_value(&mut mem, value);
            let _ = bytes.write(Place::of(ty), &mem, &mut self.phys[k], offset);
        }
        if matches!(value, Value::Const(_)) {
            for b in offset..offset + size {
                self.phys_undefined.remove(&(k, b));
            }
        } else {
            self.phys_undefined
                .extend((offset..offset + size).map(|b| (k, b)));
            self.find(
                FindingKind::UndefinedOutput,
                inv.number,
                func,
                inst.arg(1).unwrap_or(0),
                Some(at),
                "an undefined value is stored to a buffer behind an address".into(),
            );
        }
    }

    /// An access chain (`OpPtrAccessChain` too) from an address: the address of the part.
    pub(super) fn address_chain(&mut self, inv: &Invocation, inst: &Inst, base: u64) -> Value {
        let base_id = inst.arg(0).unwrap_or(0);
        let Some(base_ty) = self.type_of(inv, base_id) else {
            return Value::Undef;
        };
        let Some((_, pointee)) = super::super::types::pointer_type(self.m, base_ty) else {
            return Value::Undef;
        };
        let mut indices = Vec::new();
        for &ix in inst.args().get(1..).unwrap_or_default() {
            match self.value(inv, ix) {
                Value::Const(c) => match c.as_int_bits() {
                    Some((bits, width)) => {
                        let shift = 64 - width.min(64);
                        indices.push(((bits << shift) as i64) >> shift);
                    }
                    None => return Value::Undef,
                },
                _ => return Value::Undef,
            }
        }
        let mut address = base as i64;
        let mut rest = indices.as_slice();
        if matches!(inst.op(), Op::PtrAccessChain | Op::InBoundsPtrAccessChain) {
            let Some((&element, tail)) = rest.split_first() else {
                return Value::Undef;
            };
            // The pointer type's ArrayStride, else the pointee's size.
            let stride = self
                .layout
                .array_stride(base_ty)
                .unwrap_or_else(|| self.size_of(pointee));
            address = address.wrapping_add(element.wrapping_mul(stride as i64));
            rest = tail;
        }
        let mut place = Place::of(pointee);
        for &k in rest {
            let Some(t) = self.layout.type_inst(place.ty) else {
                return Value::Undef;
            };
            if t.op() == Op::TypeStruct {
                let (Some(offset), Some(member)) = (
                    self.layout.member_offset(place.ty, k as u32),
                    self.layout.locate_member(place, k as u32),
                ) else {
                    return Value::Undef;
                };
                address = address.wrapping_add(offset as i64);
                place = member;
            } else {
                let Some((stride, elem)) = self.layout.element(place) else {
                    return Value::Undef;
                };
                address = address.wrapping_add(k.wrapping_mul(stride as i64));
                place = elem;
            }
        }
        int(address as u64, 64)
    }

    /// `OpPtrEqual` and `OpPtrNotEqual`: variables' pointers are equal when they point to the
    /// same part of one variable, addresses when they are the same number.
    pub(super) fn pointers_equal(&self, inv: &Invocation, inst: &Inst) -> Value {
        let (a, b) = (
            self.value(inv, inst.arg(0).unwrap_or(0)),
            self.value(inv, inst.arg(1).unwrap_or(0)),
        );
        let equal = match (&a, &b) {
            (Value::Pointer(Pointer { root, path }), Value::Pointer(q)) => {
                Some(*root == q.root && *path == q.path)
            }
            _ => as_address(&a).zip(as_address(&b)).map(|(x, y)| x == y),
        };
        match equal {
            Some(e) => Value::Const(Const::Scalar(Scalar::Bool(
                e == (inst.op() == Op::PtrEqual),
            ))),
            None => Value::Undef,
        }
    }
}
