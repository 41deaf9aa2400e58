//! Composites some of whose parts are undefined (`Value::Partly`): a vector written one
//! component at a time, a struct loaded before all its members were stored. Loads, stores,
//! phis, calls and the ops that only move parts (extract, insert, construct, shuffle, select)
//! keep each part's own value, so a defined part stays defined wherever it goes; any other op
//! on such a value gives an undefined result, as on an undefined one.

use spirv::Op;

use super::super::consts::{Const, Shape};
use super::super::inst::{Id, Inst};
use super::{Invocation, Machine, Mem, Value};

/// The value `mem` holds: `Partly` when some of its leaves were never written.
pub(super) fn mem_value(mem: &Mem) -> Value {
    match mem {
        Mem::Leaf(Some(c)) => Value::Const(c.clone()),
        Mem::Leaf(None) => Value::Undef,
        Mem::Parts(parts) => normalize(parts.iter().map(mem_value).collect()),
    }
}

/// Writes `v` over `mem` (an undefined part makes its leaves unwritten); `false` for a value
/// of another shape.
pub(super) fn store_value(mem: &mut Mem, v: &Value) -> bool {
    match (mem, v) {
        (mem, Value::Const(c)) => mem.store(Some(c)),
        (mem, Value::Undef) => mem.store(None),
        (Mem::Parts(ms), Value::Partly(vs)) if ms.len() == vs.len() => {
            ms.iter_mut().zip(vs).all(|(m, v)| store_value(m, v))
        }
        _ => false,
    }
}

/// Parts made one value: a constant when all are, undefined when none is.
fn normalize(parts: Vec<Value>) -> Value {
    if parts.iter().all(|p| matches!(p, Value::Const(_))) {
        return Value::Const(Const::Composite(
            parts
                .into_iter()
                .filter_map(|p| match p {
                    Value::Const(c) => Some(c),
                    _ => None,
                })
                .collect(),
        ));
    }
    if parts.iter().all(|p| matches!(p, Value::Undef)) {
        return Value::Undef;
    }
    Value::Partly(parts)
}

impl Machine<'_> {
    /// The type of value `id` in `inv`'s current function, or of a global one.
    pub(super) fn type_of(&self, inv: &Invocation, id: Id) -> Option<Id> {
        let fr = inv.frames.last()?;
        let f = self.code[fr.func].f;
        f.def_of(id)
            .or_else(|| f.params().iter().find(|p| p.result() == Some(id)))
            .or_else(|| self.m.global(id))
            .and_then(|i| i.ty())
    }

    /// The number of parts of a composite type and the type of part `k`.
    fn part_type(&self, ty: Id, k: usize) -> Option<(usize, Id)> {
        match self.consts.shape(ty)? {
            Shape::Vector { elem, n } => Some((*n as usize, *elem)),
            Shape::Matrix { column, n } => Some((*n as usize, *column)),
            Shape::Array { elem, n } => Some((*n as usize, *elem)),
            Shape::Struct(members) => Some((members.len(), *members.get(k)?)),
            Shape::Scalar(_) => None,
        }
    }

    /// The parts of a composite value of type `ty`.
    fn parts_of(&self, v: &Value, ty: Id) -> Option<Vec<Value>> {
        match v {
            Value::Const(Const::Composite(ps)) => {
                Some(ps.iter().cloned().map(Value::Const).collect())
            }
            Value::Partly(ps) => Some(ps.clone()),
            Value::Undef => Some(vec![Value::Undef; self.part_type(ty, 0)?.0]),
            _ => None,
        }
    }

    fn insert(&self, base: &Value, ty: Id, path: &[u32], object: &Value) -> Option<Value> {
        let Some((&k, rest)) = path.split_first() else {
            return Some(object.clone());
        };
        let mut parts = self.parts_of(base, ty)?;
        let (_, part_ty) = self.part_type(ty, k as usize)?;
        let slot = parts.get_mut(k as usize)?;
        *slot = self.insert(slot, part_ty, rest, object)?;
        Some(normalize(parts))
    }

    /// An op that moves parts, on values some of which are undefined or partly so: its
    /// result part by part. `None` for any other op (or a shape it cannot follow).
    pub(super) fn move_parts(
        &self,
        inv: &Invocation,
        inst: &Inst,
        values: &[Value],
    ) -> Option<Value> {
        let ty = inst.ty()?;
        match inst.op() {
            Op::CompositeExtract => {
                let mut cur = values.first()?.clone();
                for k in super::super::types::literal_path(inst) {
                    cur = match cur {
                        Value::Const(Const::Composite(ps)) => {
                            Value::Const(ps.get(k as usize)?.clone())
                        }
                        Value::Partly(ps) => ps.get(k as usize)?.clone(),
                        Value::Undef => Value::Undef,
                        _ => return None,
                    };
                }
                Some(cur)
            }
            Op::CompositeInsert => {
                let path = super::super::types::literal_path(inst);
                self.insert(values.get(1)?, ty, &path, values.first()?)
            }
            Op::CompositeConstruct => {
                let vector = matches!(self.consts.shape(ty)?, Shape::Vector { .. });
                let mut parts = Vec::new();
                for (&id, v) in inst.args().iter().zip(values) {
                    let arg_ty = self.type_of(inv, id)?;
                    match self.consts.shape(arg_ty)? {
                        Shape::Vector { .. } if vector => parts.extend(self.parts_of(v, arg_ty)?),
                        _ => parts.push(v.clone()),
                    }
                }
                Some(normalize(parts))
            }
            Op::VectorShuffle => {
                let (a, b) = (inst.args().first()?, inst.args().get(1)?);
                let mut all = self.parts_of(values.first()?, self.type_of(inv, *a)?)?;
                all.extend(self.parts_of(values.get(1)?, self.type_of(inv, *b)?)?);
                let picked = super::super::types::literal_path(inst)
                    .into_iter()
                    .map(|k| all.get(k as usize).cloned().unwrap_or(Value::Undef))
                    .collect();
                Some(normalize(picked))
            }
            Op::Select => match values.first()? {
                Value::Const(c) => match c.as_bool() {
                    Some(true) => values.get(1).cloned(),
                    Some(false) => values.get(2).cloned(),
                    None => None,
                },
                _ => Some(Value::Undef),
            },
            Op::CopyLogical => values.first().cloned(),
            _ => None,
        }
    }
}
