//! What variables hold while a module runs: each variable is a tree of scalars shaped as its
//! type (members, elements, columns, components), a leaf empty until something is stored
//! there. Buffers are read into such trees from their bytes through the module's explicit
//! layout (`qptr::Layout`: `Offset`, `ArrayStride`, `MatrixStride`, `RowMajor`) and written
//! back the same way, so loads and stores are walks of a path whatever the storage class.

use super::super::consts::{decode_float, encode_float, Const, Consts, Scalar, Shape};
use super::super::inst::Id;
use super::super::ops::fold::Value;
use super::super::qptr::{Layout, Place};
use spirv::Op;

/// A variable's contents, or a part of them.
#[derive(Clone, Debug, PartialEq)]
pub enum Mem {
    /// A scalar; `None` until written.
    Leaf(Option<Const>),
    /// Members, elements, columns or components, in order.
    Parts(Vec<Mem>),
}

/// The most scalars a variable may hold: a larger one is refused rather than allocated.
pub const MAX_SCALARS: usize = 1 << 22;

impl Mem {
    /// A variable of type `ty`, unwritten (`init`: its initializer).
    pub fn fresh(consts: &Consts, ty: Id, init: Option<&Const>) -> Option<Mem> {
        if let Some(c) = init {
            return Some(Mem::of(c));
        }
        let mut budget = MAX_SCALARS;
        Self::empty(consts, ty, &mut budget)
    }

    fn empty(consts: &Consts, ty: Id, budget: &mut usize) -> Option<Mem> {
        let parts = |elem: Id, n: u32, budget: &mut usize| -> Option<Mem> {
            (0..n)
                .map(|_| Self::empty(consts, elem, budget))
                .collect::<Option<Vec<_>>>()
                .map(Mem::Parts)
        };
        match consts.shape(ty)? {
            Shape::Scalar(_) => {
                *budget = budget.checked_sub(1)?;
                Some(Mem::Leaf(None))
            }
            Shape::Vector { elem, n } => parts(*elem, *n, budget),
            Shape::Matrix { column, n } => parts(*column, *n, budget),
            Shape::Array { elem, n } => parts(*elem, *n, budget),
            Shape::Struct(members) => members
                .clone()
                .iter()
                .map(|&m| Self::empty(consts, m, budget))
                .collect::<Option<Vec<_>>>()
                .map(Mem::Parts),
        }
    }

    /// Memory holding the value `c`.
    pub fn of(c: &Const) -> Mem {
        match c {
            Const::Composite(parts) => Mem::Parts(parts.iter().map(Mem::of).collect()),
            s => Mem::Leaf(Some(s.clone())),
        }
    }

    /// The value held; `None` when some part of it was never written.
    pub fn value(&self) -> Option<Const> {
        match self {
            Mem::Leaf(c) => c.clone(),
            Mem::Parts(parts) => parts
                .iter()
                .map(Mem::value)
                .collect::<Option<Vec<_>>>()
                .map(Const::Composite),
        }
    }

    /// Writes `c` over this part; `None` makes every leaf unwritten (an undefined value).
    /// Returns `false` when `c` has another shape.
    pub fn store(&mut self, c: Option<&Const>) -> bool {
        match (self, c) {
            (Mem::Leaf(slot), Some(c @ (Const::Scalar(_) | Const::Bits { .. }))) => {
                *slot = Some(c.clone());
                true
            }
            (Mem::Leaf(slot), None) => {
                *slot = None;
                true
            }
            (Mem::Parts(parts), Some(Const::Composite(cs))) if parts.len() == cs.len() => {
                parts.iter_mut().zip(cs).all(|(p, c)| p.store(Some(c)))
            }
            (Mem::Parts(parts), None) => parts.iter_mut().all(|p| p.store(None)),
            _ => false,
        }
    }

    /// The part at `path` (member, element, column or component indices).
    pub fn at(&self, path: &[u32]) -> Option<&Mem> {
        path.iter().try_fold(self, |m, &k| match m {
            Mem::Parts(parts) => parts.get(k as usize),
            Mem::Leaf(_) => None,
        })
    }

    pub fn at_mut(&mut self, path: &[u32]) -> Option<&mut Mem> {
        path.iter().try_fold(self, |m, &k| match m {
            Mem::Parts(parts) => parts.get_mut(k as usize),
            Mem::Leaf(_) => None,
        })
    }

    /// How many parts it has (0 for a scalar).
    pub fn parts(&self) -> usize {
        match self {
            Mem::Parts(parts) => parts.len(),
            Mem::Leaf(_) => 0,
        }
    }
}

/// Reads and writes buffer bytes as memory trees.
pub struct Bytes<'m> {
    pub layout: &'m Layout<'m>,
    pub consts: &'m Consts,
}

impl Bytes<'_> {
    /// The tree of a buffer of type `place` read from `bytes` at `offset`. A runtime array
    /// takes as many elements as the bytes hold.
    pub fn read(&self, place: Place, bytes: &[u8], offset: u64) -> Option<Mem> {
        let mut budget = MAX_SCALARS;
        self.read_inner(place, bytes, offset, &mut budget)
    }

    fn read_inner(
        &self,
        place: Place,
        bytes: &[u8],
        offset: u64,
        budget: &mut usize,
    ) -> Option<Mem> {
        let t = self.layout.type_inst(place.ty)?;
        match t.op() {
            Op::TypeStruct => {
                let mut parts = Vec::with_capacity(t.args().len());
                for k in 0..t.args().len() as u32 {
                    let mp = self.layout.locate_member(place, k)?;
                    let at = offset + self.layout.member_offset(place.ty, k)?;
                    parts.push(self.read_inner(mp, bytes, at, budget)?);
                }
                Some(Mem::Parts(parts))
            }
            Op::TypeArray | Op::TypeRuntimeArray | Op::TypeVector | Op::TypeMatrix => {
                let (stride, elem) = self.layout.element(place)?;
                // An array sized by a specialization constant: its default (the layout
                // knows plain constants only).
                let spec_sized = match self.consts.shape(place.ty) {
                    Some(Shape::Array { n, .. }) if t.op() == Op::TypeArray => Some(u64::from(*n)),
                    _ => None,
                };
                let n = match self.layout.element_count(place.ty).or(spec_sized) {
                    Some(n) => n,
                    // A runtime array: the elements that fit in what is left.
                    None => (bytes.len() as u64).saturating_sub(offset) / stride.max(1),
                };
                let mut parts = Vec::with_capacity(n.min(4096) as usize);
                for k in 0..n {
                    parts.push(self.read_inner(elem, bytes, offset + k * stride, budget)?);
                }
                Some(Mem::Parts(parts))
            }
            // Only buffer addresses are pointers in memory with a layout: 64-bit integers.
            Op::TypePointer => {
                *budget = budget.checked_sub(1)?;
                Some(Mem::Leaf(read_scalar(
                    Scalar::Int {
                        width: 64,
                        signed: false,
                    },
                    bytes,
                    offset,
                )))
            }
            _ => {
                *budget = budget.checked_sub(1)?;
                let Shape::Scalar(s) = self.consts.shape(place.ty)? else {
                    return None;
                };
                Some(Mem::Leaf(read_scalar(*s, bytes, offset)))
            }
        }
    }

    /// Writes `mem`, of type `place`, into `bytes` at `offset` (unwritten leaves keep their
    /// bytes; bytes past the end are not written).
    pub fn write(&self, place: Place, mem: &Mem, bytes: &mut [u8], offset: u64) -> Option<()> {
        let t = self.layout.type_inst(place.ty)?;
        match (t.op(), mem) {
            (Op::TypeStruct, Mem::Parts(parts)) => {
                for (k, part) in parts.iter().enumerate() {
                    let mp = self.layout.locate_member(place, k as u32)?;
                    let at = offset + self.layout.member_offset(place.ty, k as u32)?;
                    self.write(mp, part, bytes, at)?;
                }
                Some(())
            }
            (
                Op::TypeArray | Op::TypeRuntimeArray | Op::TypeVector | Op::TypeMatrix,
                Mem::Parts(parts),
            ) => {
                let (stride, elem) = self.layout.element(place)?;
                for (k, part) in parts.iter().enumerate() {
                    self.write(elem, part, bytes, offset + k as u64 * stride)?;
                }
                Some(())
            }
            (_, Mem::Leaf(Some(c))) => {
                write_scalar(c, bytes, offset);
                Some(())
            }
            (_, Mem::Leaf(None)) => Some(()),
            _ => None,
        }
    }
}

fn read_scalar(s: Scalar, bytes: &[u8], offset: u64) -> Option<Const> {
    let width = match s {
        Scalar::Int { width, .. } | Scalar::Float { width } | Scalar::Bits { width } => width,
        // Booleans have no size in buffers.
        Scalar::Bool => return None,
    };
    let n = (width / 8) as usize;
    let start = usize::try_from(offset).ok()?;
    let raw = bytes.get(start..start.checked_add(n)?)?;
    let bits = raw
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    Some(match s {
        Scalar::Int { width, .. } => Const::Scalar(Value::Int { bits, width }),
        Scalar::Float { width } => Const::Scalar(Value::Float {
            value: decode_float(bits, width),
            width,
        }),
        Scalar::Bits { width } => Const::Bits { bits, width },
        Scalar::Bool => return None,
    })
}

fn write_scalar(c: &Const, bytes: &mut [u8], offset: u64) {
    let (bits, width) = match c {
        Const::Scalar(Value::Int { bits, width }) | Const::Bits { bits, width } => (*bits, *width),
        Const::Scalar(Value::Float { value, width }) => {
            let Some(bits) = encode_float(*value, *width) else {
                return;
            };
            (bits, *width)
        }
        _ => return,
    };
    let Ok(start) = usize::try_from(offset) else {
        return;
    };
    for k in 0..(width / 8) as usize {
        if let Some(b) = bytes.get_mut(start + k) {
            *b = (bits >> (8 * k)) as u8;
        }
    }
}
