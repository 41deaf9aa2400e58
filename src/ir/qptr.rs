//! Untyped pointers ("qptrs", after SPIR-T): byte layouts of types, the address a qptr stands
//! for, how each pointer is used (the usage tree `qptr-analyze` attaches), and the search that
//! turns an address back into a typed access chain (`qptr-lift`).
//!
//! A qptr is a value of type `OpTypeUntypedPointerKHR`. It is made from a typed pointer (a
//! variable, or a buffer handle through `qptr.buffer_data`) by `qptr.offset` (a constant number
//! of bytes) and `qptr.dyn_offset` (an index times a stride); loads and stores through it are
//! typed by the access.
//!
//! Layout: types with explicit layout decorations (`Offset`, `ArrayStride`, `MatrixStride`,
//! `RowMajor`) use them; others use a deterministic scalar layout (members in order, each
//! aligned to its scalar size, arrays strided by their element's aligned size). Within a
//! row-major matrix a column is not contiguous: column `j` starts `j` scalars in and its
//! components are `MatrixStride` apart — the layout model says so, and lifting inverts it.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use rspirv::dr::Operand;
use spirv::{Decoration, Op};

use super::func::Function;
use super::fxhash::FxHashMap;
use super::inst::{Id, Inst, Opd};
use super::module::Module;
use super::ops::{self, ExtSets, OpSet};
use super::usage::{Access, Usage};

/// A type as reached by a path: row-major and matrix-stride information comes from the
/// struct member that holds the matrix, so it travels with the place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    pub ty: Id,
    /// For a matrix or one of its columns: (MatrixStride, RowMajor).
    pub matrix: Option<(u64, bool)>,
}

impl Place {
    pub fn of(ty: Id) -> Place {
        Place { ty, matrix: None }
    }
}

/// Byte layout of the module's types.
pub struct Layout<'m> {
    types: FxHashMap<Id, &'m Inst>,
    offsets: FxHashMap<(Id, u32), u64>,
    matrix: FxHashMap<(Id, u32), (u64, bool)>,
    strides: FxHashMap<Id, u64>,
    constants: FxHashMap<Id, u64>,
    /// Sizes already computed: a struct's size needs every member's offset, and under the
    /// scalar layout each offset needs the sizes before it, so without this nested structs
    /// cost a power of their depth.
    sizes: RefCell<FxHashMap<Place, Option<u64>>>,
    /// Alignments already computed, for the same reason: a struct of structs that share their
    /// member types costs a power of its depth without it (found by the fuzzer).
    aligns: RefCell<FxHashMap<Id, u64>>,
    /// How deep `size` is: a broken module may nest a type in itself.
    depth: std::cell::Cell<u32>,
}

impl<'m> Layout<'m> {
    pub fn new(m: &'m Module) -> Self {
        let sets = ExtSets::of(m);
        let mut types = FxHashMap::default();
        let mut constants = FxHashMap::default();
        for g in m.globals() {
            let Some(r) = g.result else { continue };
            if super::inst::is_type(g.op) || super::types::dialect_type_width(g, &sets).is_some() {
                types.insert(r, g);
            }
            if g.op == Op::Constant {
                match g.lits().first() {
                    Some(Operand::LiteralBit32(v)) => {
                        constants.insert(r, u64::from(*v));
                    }
                    Some(Operand::LiteralBit64(v)) => {
                        constants.insert(r, *v);
                    }
                    _ => {}
                }
            }
        }
        let mut offsets = FxHashMap::default();
        let mut matrix: FxHashMap<(Id, u32), (u64, bool)> = FxHashMap::default();
        let mut strides = FxHashMap::default();
        for a in m.annotations() {
            let Some(target) = a.arg(0) else { continue };
            match (a.op, a.lits()) {
                (
                    Op::MemberDecorate,
                    [Operand::LiteralBit32(k), Operand::Decoration(d), rest @ ..],
                ) => {
                    let s = &target;
                    let value = match rest.first() {
                        Some(Operand::LiteralBit32(v)) => u64::from(*v),
                        _ => 0,
                    };
                    match d {
                        Decoration::Offset => {
                            offsets.insert((*s, *k), value);
                        }
                        Decoration::MatrixStride => {
                            matrix.entry((*s, *k)).or_insert((0, false)).0 = value;
                        }
                        Decoration::RowMajor => {
                            matrix.entry((*s, *k)).or_insert((0, false)).1 = true;
                        }
                        _ => {}
                    }
                }
                (
                    Op::Decorate,
                    [Operand::Decoration(Decoration::ArrayStride), Operand::LiteralBit32(v)],
                ) => {
                    strides.insert(target, u64::from(*v));
                }
                _ => {}
            }
        }
        Layout {
            types,
            offsets,
            matrix,
            strides,
            constants,
            sizes: RefCell::default(),
            aligns: RefCell::default(),
            depth: std::cell::Cell::new(0),
        }
    }

    pub fn type_inst(&self, ty: Id) -> Option<&'m Inst> {
        self.types.get(&ty).copied()
    }

    pub fn constant(&self, id: Id) -> Option<u64> {
        self.constants.get(&id).copied()
    }

    pub fn id_at(&self, ty: Id, k: usize) -> Option<Id> {
        self.type_inst(ty)?.id_at(k)
    }

    fn literal_at(&self, ty: Id, k: usize) -> Option<u64> {
        match self.type_inst(ty)?.operand(k)? {
            Opd::Lit(Operand::LiteralBit32(v)) => Some(u64::from(*v)),
            _ => None,
        }
    }

    /// Size of a scalar type in bytes (bools count as 4, as in memory they are not stored).
    fn scalar_size(&self, ty: Id) -> Option<u64> {
        let t = self.type_inst(ty)?;
        match t.op {
            Op::TypeInt | Op::TypeFloat => self.literal_at(ty, 0).map(|w| w.div_ceil(8)),
            Op::TypeBool => Some(4),
            Op::ExtInst => {
                let name = t.ext_inst().and_then(|(_, n)| ops::dialect(n))?;
                super::number::ScalarKind::bits_width(&name.name).map(|w| u64::from(w).div_ceil(8))
            }
            _ => None,
        }
    }

    /// Alignment under the scalar layout: the largest scalar in the type (at least 1).
    pub fn align(&self, ty: Id) -> u64 {
        self.align_inner(ty, 0).max(1)
    }

    fn align_inner(&self, ty: Id, depth: usize) -> u64 {
        if depth > 64 {
            return 1;
        }
        if let Some(&known) = self.aligns.borrow().get(&ty) {
            return known;
        }
        let Some(t) = self.type_inst(ty) else {
            return 1;
        };
        let align = match t.op {
            Op::TypeVector | Op::TypeMatrix | Op::TypeArray | Op::TypeRuntimeArray => self
                .id_at(ty, 0)
                .map_or(1, |e| self.align_inner(e, depth + 1)),
            Op::TypeStruct => t
                .args
                .iter()
                .map(|&m| self.align_inner(m, depth + 1))
                .max()
                .unwrap_or(1),
            _ => self.scalar_size(ty).unwrap_or(4),
        };
        self.aligns.borrow_mut().insert(ty, align);
        align
    }

    fn is_struct(&self, ty: Id) -> bool {
        self.type_inst(ty).is_some_and(|t| t.op == Op::TypeStruct)
    }

    /// Offset of member `k` of a struct.
    pub fn member_offset(&self, st: Id, k: u32) -> Option<u64> {
        if let Some(&o) = self.offsets.get(&(st, k)) {
            return Some(o);
        }
        // Scalar layout: members in order, each aligned.
        let t = self.type_inst(st)?;
        let mut at = 0u64;
        for (i, m) in t.args.iter().copied().enumerate() {
            let a = self.align(m);
            at = at.div_ceil(a) * a;
            if i as u32 == k {
                return Some(at);
            }
            at += self.size(Place::of(m))?;
        }
        None
    }

    /// The stride between elements of an array, vector or matrix place.
    pub fn element_stride(&self, place: Place) -> Option<u64> {
        let t = self.type_inst(place.ty)?;
        match t.op {
            Op::TypeArray | Op::TypeRuntimeArray => match self.strides.get(&place.ty) {
                Some(&s) => Some(s),
                None => {
                    let e = self.id_at(place.ty, 0)?;
                    let a = self.align(e);
                    Some(self.size(Place::of(e))?.div_ceil(a) * a)
                }
            },
            Op::TypeVector => {
                let c = self.scalar_size(self.id_at(place.ty, 0)?)?;
                Some(match place.matrix {
                    Some((ms, true)) if ms > 0 => ms,
                    _ => c,
                })
            }
            Op::TypeMatrix => {
                let col = self.id_at(place.ty, 0)?;
                let c = self.scalar_size(self.id_at(col, 0)?)?;
                Some(match place.matrix {
                    Some((_, true)) => c,
                    Some((ms, false)) if ms > 0 => ms,
                    _ => self.size(Place::of(col))?,
                })
            }
            _ => None,
        }
    }

    /// The `ArrayStride` decorating `ty` (an array, or a pointer for `OpPtrAccessChain`).
    pub fn array_stride(&self, ty: Id) -> Option<u64> {
        self.strides.get(&ty).copied()
    }

    /// Number of elements of an array, vector or matrix (`None` for a runtime array).
    pub fn element_count(&self, ty: Id) -> Option<u64> {
        let t = self.type_inst(ty)?;
        match t.op {
            Op::TypeArray => self.constant(self.id_at(ty, 1)?),
            Op::TypeVector | Op::TypeMatrix => self.literal_at(ty, 1),
            _ => None,
        }
    }

    /// Size in bytes (`None` for runtime arrays and types without a size).
    pub fn size(&self, place: Place) -> Option<u64> {
        if let Some(&known) = self.sizes.borrow().get(&place) {
            return known;
        }
        if self.depth.get() > 64 {
            return None;
        }
        self.depth.set(self.depth.get() + 1);
        let size = self.size_inner(place);
        self.depth.set(self.depth.get() - 1);
        self.sizes.borrow_mut().insert(place, size);
        size
    }

    fn size_inner(&self, place: Place) -> Option<u64> {
        let t = self.type_inst(place.ty)?;
        match t.op {
            Op::TypeStruct => {
                let mut end = 0;
                for (k, m) in t.args.iter().copied().enumerate() {
                    let mp = self.member_place(place.ty, k as u32, m);
                    end = end.max(
                        self.member_offset(place.ty, k as u32)?
                            .checked_add(self.size(mp)?)?,
                    );
                }
                Some(end)
            }
            Op::TypeVector | Op::TypeMatrix | Op::TypeArray => {
                let n = self.element_count(place.ty)?;
                let stride = self.element_stride(place)?;
                let (_, elem) = self.element(place)?;
                // Sizes past the integer's range are not sizes any layout has.
                stride
                    .checked_mul(n.saturating_sub(1))?
                    .checked_add(self.size(elem)?)
            }
            _ => self.scalar_size(place.ty),
        }
    }

    fn member_place(&self, st: Id, k: u32, ty: Id) -> Place {
        Place {
            ty,
            matrix: self.matrix.get(&(st, k)).copied(),
        }
    }

    /// The place of member `k` of a struct place.
    pub fn locate_member(&self, place: Place, k: u32) -> Option<Place> {
        let m = self.id_at(place.ty, k as usize)?;
        Some(self.member_place(place.ty, k, m))
    }

    /// The element place of an array, vector or matrix (with its stride).
    pub fn element(&self, place: Place) -> Option<(u64, Place)> {
        let stride = self.element_stride(place)?;
        let e = self.id_at(place.ty, 0)?;
        let t = self.type_inst(place.ty)?;
        let matrix = match t.op {
            // Arrays of matrices keep the member's matrix layout; a column keeps it too.
            Op::TypeArray | Op::TypeRuntimeArray | Op::TypeMatrix => place.matrix,
            _ => None,
        };
        Some((stride, Place { ty: e, matrix }))
    }

    /// The member holding byte `offset` of `place`: (index, offset within it, its place).
    pub fn locate(&self, place: Place, offset: u64) -> Option<(u32, u64, Place)> {
        let t = self.type_inst(place.ty)?;
        if t.op == Op::TypeStruct {
            let members: Vec<Id> = t.args.to_vec();
            // The last member (in declaration order: offsets need not increase with it) that
            // starts at or before the offset and reaches it.
            for k in (0..members.len() as u32).rev() {
                let start = self.member_offset(place.ty, k)?;
                if start <= offset {
                    let mp = self.member_place(place.ty, k, members[k as usize]);
                    if self.size(mp).is_none_or(|s| offset - start < s.max(1)) {
                        return Some((k, offset - start, mp));
                    }
                }
            }
            return None;
        }
        let (stride, elem) = self.element(place)?;
        if stride == 0 {
            return None;
        }
        // A row-major matrix interleaves its columns: column k's rows are MatrixStride apart
        // from byte k × scalar size, so the column is found within the row.
        if let (Op::TypeMatrix, Some((ms, true))) = (t.op, place.matrix) {
            if ms == 0 {
                return None;
            }
            let index = (offset % ms) / stride;
            if self.element_count(place.ty).is_some_and(|n| index >= n) {
                return None;
            }
            return Some((u32::try_from(index).ok()?, offset - index * stride, elem));
        }
        let index = offset / stride;
        if self.element_count(place.ty).is_some_and(|n| index >= n) {
            return None;
        }
        Some((u32::try_from(index).ok()?, offset % stride, elem))
    }

    /// Whether a place can be indexed (struct, array, vector, matrix).
    pub fn is_composite(&self, ty: Id) -> bool {
        self.type_inst(ty).is_some_and(|t| {
            matches!(
                t.op,
                Op::TypeStruct
                    | Op::TypeArray
                    | Op::TypeRuntimeArray
                    | Op::TypeVector
                    | Op::TypeMatrix
            )
        })
    }

    /// Whether `ty` is a struct (exposed for lowering decisions).
    pub fn struct_type(&self, ty: Id) -> bool {
        self.is_struct(ty)
    }
}

/// One part of an address after its root: a constant number of bytes, or an index times a
/// stride.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg {
    Const(i64),
    Dyn { index: Id, stride: u64 },
}

/// What a qptr points at: a typed root pointer and the offsets applied to it, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    pub root: Id,
    pub segs: Vec<Seg>,
}

/// Function-local definitions, to follow qptrs back to their root.
pub struct Defs<'f> {
    defs: HashMap<Id, &'f Inst>,
    sets: ExtSets,
}

impl<'f> Defs<'f> {
    pub fn new(m: &Module, f: &'f Function) -> Self {
        let mut defs = HashMap::new();
        for i in f.body() {
            if let Some(r) = i.result {
                defs.insert(r, i);
            }
        }
        Defs {
            defs,
            sets: ExtSets::of(m),
        }
    }

    pub fn get(&self, id: Id) -> Option<&'f Inst> {
        self.defs.get(&id).copied()
    }

    /// The dialect op defining `id`, by name, with its value operands.
    pub fn dialect(&self, id: Id) -> Option<(&'static str, Vec<Id>)> {
        let i = self.get(id)?;
        let info = ops::for_inst(i, &self.sets).filter(|o| o.set == OpSet::Dialect)?;
        Some((info.name.as_str(), i.id_operands().skip(1).collect()))
    }

    /// The address `ptr` stands for; `None` when it is not built from a root by offsets.
    pub fn address(&self, layout: &Layout, ptr: Id) -> Option<Address> {
        let mut segs = Vec::new();
        let mut at = ptr;
        for _ in 0..4096 {
            match self.dialect(at) {
                Some(("qptr.offset", ops)) => {
                    let c = layout.constant(*ops.get(1)?)? as u32 as i32 as i64;
                    segs.push(Seg::Const(c));
                    at = *ops.first()?;
                }
                Some(("qptr.dyn_offset", ops)) => {
                    let stride = layout.constant(*ops.get(2)?)?;
                    segs.push(Seg::Dyn {
                        index: *ops.get(1)?,
                        stride,
                    });
                    at = *ops.first()?;
                }
                Some(("qptr.buffer_data", ops)) => {
                    at = *ops.first()?;
                    break;
                }
                Some(_) => return None,
                None => break,
            }
        }
        segs.reverse();
        // Merge neighbouring constants.
        let mut merged: Vec<Seg> = Vec::new();
        for s in segs {
            match (merged.last_mut(), s) {
                (Some(Seg::Const(a)), Seg::Const(b)) => *a += b,
                (_, s) => merged.push(s),
            }
        }
        Some(Address {
            root: at,
            segs: merged,
        })
    }
}

/// A step of a typed access chain found by `find_path`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    Const(u32),
    /// A dynamic index plus a constant number of elements.
    Dyn(Id, u32),
}

/// Finds the access chain from a root of type `root` that reaches the address `segs`, ending
/// at the outermost place `accept` takes. Errors say why there is none.
pub fn find_path(
    layout: &Layout,
    root: Place,
    segs: &[Seg],
    accept: &dyn Fn(Place) -> bool,
) -> Result<(Vec<Index>, Place), String> {
    let mut place = root;
    let mut path = Vec::new();
    let mut segs = segs.iter().copied().peekable();
    let mut r: i64 = match segs.peek() {
        Some(Seg::Const(c)) => {
            let c = *c;
            segs.next();
            c
        }
        _ => 0,
    };
    for _ in 0..256 {
        if r < 0 {
            return Err("a negative offset from the root".into());
        }
        let done = segs.peek().is_none();
        if done && r == 0 && accept(place) {
            return Ok((path, place));
        }
        // A dynamic index applies to the first array-like level with its stride.
        if let Some(Seg::Dyn { index, stride }) = segs.peek().copied() {
            if stride == 0 {
                return Err("a dynamic offset with a stride of 0".into());
            }
            if layout.element_stride(place) == Some(stride) {
                let (_, elem) = layout.element(place).ok_or("no element type")?;
                let extra = u32::try_from(r as u64 / stride).map_err(|_| "offset too large")?;
                path.push(Index::Dyn(index, extra));
                r %= stride as i64;
                place = elem;
                segs.next();
                if let Some(Seg::Const(c)) = segs.peek().copied() {
                    r += c;
                    segs.next();
                }
                continue;
            }
        }
        if !layout.is_composite(place.ty) {
            return Err(if done {
                "no member of the accessed type at that offset".into()
            } else {
                "a dynamic offset whose stride no array at that place has".into()
            });
        }
        let (k, inner, child) = layout
            .locate(place, r as u64)
            .ok_or_else(|| format!("offset {r} is outside its type"))?;
        path.push(Index::Const(k));
        place = child;
        r = inner as i64;
    }
    Err("the address is too deep".into())
}

/// The usage tree of every pointer of a function that qptrs are made from or accessed through:
/// roots (variables, handles), `qptr.*` results. Each tree covers what is reached through it.
pub fn analyze(m: &Module, f: &Function, layout: &Layout) -> BTreeMap<Id, Usage> {
    let defs = Defs::new(m, f);
    let info = super::typing::TypeInfo::scoped(m, f);
    let value_type = |v: &Id| info.value_type(*v);
    // Direct accesses and children (pointers made from a pointer) of each pointer.
    let mut own: HashMap<Id, Usage> = HashMap::new();
    let mut children: HashMap<Id, Vec<(Id, Option<Seg>)>> = HashMap::new();
    let mut made: Vec<Id> = Vec::new();
    for b in 0..f.blocks().len() {
        for i in f.block_insts(b) {
            let ids: Vec<Id> = i.id_operands().collect();
            match defs.dialect(i.result.unwrap_or(0)) {
                Some(("qptr.offset", ops)) => {
                    let c = layout.constant(ops[1]).map(|c| c as u32 as i32 as i64);
                    if let (Some(&base), Some(c)) = (ops.first(), c) {
                        children
                            .entry(base)
                            .or_default()
                            .push((i.result.unwrap_or(0), Some(Seg::Const(c))));
                        made.push(i.result.unwrap_or(0));
                    }
                    continue;
                }
                Some(("qptr.dyn_offset", ops)) => {
                    if let (Some(&base), Some(s)) =
                        (ops.first(), ops.get(2).and_then(|s| layout.constant(*s)))
                    {
                        children.entry(base).or_default().push((
                            i.result.unwrap_or(0),
                            Some(Seg::Dyn {
                                index: ops[1],
                                stride: s,
                            }),
                        ));
                        made.push(i.result.unwrap_or(0));
                    }
                    continue;
                }
                Some(("qptr.buffer_data", ops)) => {
                    if let Some(&h) = ops.first() {
                        children
                            .entry(h)
                            .or_default()
                            .push((i.result.unwrap_or(0), None));
                        made.push(i.result.unwrap_or(0));
                    }
                    continue;
                }
                Some(("qptr.copy", ops)) => {
                    let n = ops.get(2).and_then(|n| layout.constant(*n)).unwrap_or(0);
                    if let (Some(&d), Some(&s)) = (ops.first(), ops.get(1)) {
                        own.entry(d).or_default().accesses.push(Access::CopyDst(n));
                        own.entry(s).or_default().accesses.push(Access::CopySrc(n));
                    }
                    continue;
                }
                _ => {}
            }
            let push = |own: &mut HashMap<Id, Usage>, p: Id, a: Access| {
                let u = own.entry(p).or_default();
                if !u.accesses.contains(&a) {
                    u.accesses.push(a);
                }
            };
            match i.op {
                Op::Load => push(&mut own, ids[0], Access::Load(i.ty.unwrap_or(0))),
                Op::Store => {
                    let vt = ids.get(1).and_then(value_type).unwrap_or(0);
                    push(&mut own, ids[0], Access::Store(vt));
                }
                Op::AtomicStore => {
                    let vt = ids.last().and_then(value_type).unwrap_or(0);
                    push(&mut own, ids[0], Access::Atomic(vt));
                }
                op if super::inst::is_atomic(op) => {
                    push(&mut own, ids[0], Access::Atomic(i.ty.unwrap_or(0)))
                }
                _ => {}
            }
        }
    }
    fn build(
        p: Id,
        own: &HashMap<Id, Usage>,
        children: &HashMap<Id, Vec<(Id, Option<Seg>)>>,
        depth: usize,
    ) -> Usage {
        let mut u = own.get(&p).cloned().unwrap_or_default();
        if depth > 256 {
            return u;
        }
        for (c, seg) in children.get(&p).into_iter().flatten() {
            let cu = build(*c, own, children, depth + 1);
            if cu.is_empty() {
                continue;
            }
            match seg {
                Some(Seg::Const(k)) => u.offsets.entry(*k).or_default().merge(cu),
                Some(Seg::Dyn { stride, .. }) => {
                    u.dyn_offsets.entry(*stride).or_default().merge(cu)
                }
                None => u.data.get_or_insert_with(Default::default).merge(cu),
            }
        }
        u
    }
    let mut out = BTreeMap::new();
    let mut pointers: Vec<Id> = made.clone();
    pointers.extend(children.keys().copied());
    pointers.sort_unstable();
    pointers.dedup();
    for p in pointers {
        let u = build(p, &own, &children, 0);
        if !u.is_empty() {
            out.insert(p, u);
        }
    }
    out
}
