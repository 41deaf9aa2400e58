//! Constant values of any shape — scalars, vectors, matrices, arrays, structs — read from a
//! module's constants, computed from instructions with constant operands, and written back as
//! interned constants. The folding passes (`ccp`, and through it the constant parts of
//! `dead-branch`) evaluate with this; scalar rules come from the op table (`ops::fold`) and
//! apply component-wise to vectors (or make a struct's two members, or take whole vectors, as
//! the rule's shape says); composite ops, bitcasts and dynamic indices, which move bits, are
//! evaluated here.
//!
//! Bit-vector scalars (`untype`) are kept as their bits; an op reads them as its typing says
//! (`OpFAdd` as floats, `OpIAdd` as integers).

use rspirv::dr::Operand;
use spirv::Op;

use super::build::NarrowCaps;
use super::ext_sets::SetKind;
use super::fxhash::FxHashMap;
use super::inst::{Id, Inst};
use super::module::Module;
use super::number::{f16_to_f64, f64_to_f16, ScalarKind};
use super::ops::fold::{Fold, FoldFn, PairFn, Value, WholeFn};
use super::ops::{self, ExtSets, Val};

/// A constant.
#[derive(Clone, Debug)]
pub enum Const {
    /// A typed scalar (integers as bits, floats in their width's precision).
    Scalar(Value),
    /// A bit-vector scalar: its bits.
    Bits { bits: u64, width: u32 },
    /// The members, components, columns or elements, in order.
    Composite(Vec<Const>),
}

impl PartialEq for Const {
    /// Equal when they are the same bits (so a NaN equals itself and 0.0 is not -0.0).
    fn eq(&self, other: &Const) -> bool {
        match (self, other) {
            (
                Const::Scalar(Value::Float { value: a, width: w }),
                Const::Scalar(Value::Float { value: b, width: v }),
            ) => w == v && a.to_bits() == b.to_bits(),
            (Const::Scalar(a), Const::Scalar(b)) => a == b,
            (Const::Bits { bits: a, width: w }, Const::Bits { bits: b, width: v }) => {
                a == b && w == v
            }
            (Const::Composite(a), Const::Composite(b)) => a == b,
            _ => false,
        }
    }
}

impl Const {
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Const::Scalar(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// The bits of an integer scalar (typed or bit-vector).
    pub fn as_int_bits(&self) -> Option<(u64, u32)> {
        match self {
            Const::Scalar(Value::Int { bits, width }) | Const::Bits { bits, width } => {
                Some((*bits, *width))
            }
            _ => None,
        }
    }
}

/// What a type is made of.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Scalar(Scalar),
    Vector { elem: Id, n: u32 },
    Matrix { column: Id, n: u32 },
    Array { elem: Id, n: u32 },
    Struct(Vec<Id>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Int { width: u32, signed: bool },
    Float { width: u32 },
    Bool,
    Bits { width: u32 },
}

/// The largest constant (in scalars) a zero is spelled out for.
const MAX_SCALARS: u64 = 4096;

/// The outcome of evaluating an instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Eval {
    /// Its value is this constant.
    Const(Const),
    /// Its value is its `k`-th id operand's (a select on a constant condition, a copy).
    Operand(usize),
    /// Not a constant (or not one this module computes).
    Unknown,
}

pub fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

fn signed(bits: u64, width: u32) -> i64 {
    let shift = 64 - width.min(64);
    ((bits << shift) as i64) >> shift
}

pub fn decode_float(bits: u64, width: u32) -> f64 {
    match width {
        16 => f16_to_f64(bits as u16),
        32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

pub fn encode_float(value: f64, width: u32) -> Option<u64> {
    Some(match width {
        16 => u64::from(f64_to_f16(value)),
        32 => u64::from((value as f32).to_bits()),
        64 => value.to_bits(),
        _ => return None,
    })
}

fn round_float(value: f64, width: u32) -> Option<f64> {
    encode_float(value, width).map(|b| decode_float(b, width))
}

fn literal(op: &Operand) -> Option<u64> {
    match op {
        Operand::LiteralBit32(v) => Some(u64::from(*v)),
        Operand::LiteralBit64(v) => Some(*v),
        _ => None,
    }
}

/// The module's types and constants, for evaluation.
pub struct Consts {
    shapes: FxHashMap<Id, Shape>,
    values: FxHashMap<Id, Const>,
    sets: ExtSets,
    /// Which narrow types the module may have constants of (`Module::constant_allowed`).
    caps: NarrowCaps,
}

impl Consts {
    pub fn new(m: &Module) -> Self {
        Self::read(m, false)
    }

    /// `new` with specialization constants at their defaults too (`OpSpecConstantOp` as the
    /// op it names): what a pipeline that sets none runs. For the interpreter; the folder must
    /// not take a spec constant's default for its value.
    pub fn with_spec_defaults(m: &Module) -> Self {
        Self::read(m, true)
    }

    fn read(m: &Module, spec_defaults: bool) -> Self {
        let n = m.globals().len();
        let mut c = Consts {
            shapes: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            values: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            sets: ExtSets::of(m),
            caps: NarrowCaps::of(m),
        };
        for (id, kind) in super::types::scalar_kinds(m) {
            let s = match kind {
                ScalarKind::Int { width, signed } => Scalar::Int { width, signed },
                ScalarKind::Float { width } => Scalar::Float { width },
                ScalarKind::Bits { width } => Scalar::Bits { width },
            };
            c.shapes.insert(id, Shape::Scalar(s));
        }
        // In module order: an array's length is a constant declared before it.
        for g in m.globals() {
            let Some(id) = g.result else { continue };
            let shape = match (g.op, g.lits(), g.args.as_slice()) {
                (Op::TypeBool, _, _) => Some(Shape::Scalar(Scalar::Bool)),
                // (Counts beyond what SPIR-V allows are a broken module's: no shape.)
                (Op::TypeVector, [Operand::LiteralBit32(n)], [e]) if (2..=16).contains(n) => {
                    Some(Shape::Vector { elem: *e, n: *n })
                }
                (Op::TypeMatrix, [Operand::LiteralBit32(n)], [c]) if (2..=16).contains(n) => {
                    Some(Shape::Matrix { column: *c, n: *n })
                }
                (Op::TypeArray, _, [e, len]) => {
                    match c.values.get(len).and_then(Const::as_int_bits) {
                        Some((n, _)) if n <= 4096 => Some(Shape::Array {
                            elem: *e,
                            n: n as u32,
                        }),
                        _ => None,
                    }
                }
                (Op::TypeStruct, _, members) => Some(Shape::Struct(members.to_vec())),
                _ => None,
            };
            if let Some(s) = shape {
                c.shapes.insert(id, s);
                continue;
            }
            let v = match c.read_global(g) {
                None if spec_defaults => c.read_spec_default(g),
                v => v,
            };
            if let Some(v) = v {
                c.values.insert(id, v);
            }
        }
        c
    }

    fn read_spec_default(&self, g: &Inst) -> Option<Const> {
        let as_constant = |op: Op| {
            let mut plain = g.clone();
            plain.op = op;
            self.read_global(&plain)
        };
        match g.op {
            Op::SpecConstantTrue => as_constant(Op::ConstantTrue),
            Op::SpecConstantFalse => as_constant(Op::ConstantFalse),
            Op::SpecConstant => as_constant(Op::Constant),
            Op::SpecConstantComposite => as_constant(Op::ConstantComposite),
            Op::SpecConstantOp => {
                let ops = g.to_operands();
                let Some(Operand::LiteralSpecConstantOpInteger(inner)) = ops.first() else {
                    return None;
                };
                let inst = Inst::new(*inner, g.ty, g.result, ops[1..].to_vec());
                let args: Vec<Option<&Const>> =
                    inst.args.iter().map(|a| self.values.get(a)).collect();
                match self.eval(&inst, &args) {
                    Eval::Const(c) => Some(c),
                    Eval::Operand(k) => args.get(k).copied().flatten().cloned(),
                    Eval::Unknown => None,
                }
            }
            _ => None,
        }
    }

    fn read_global(&self, g: &Inst) -> Option<Const> {
        let values = &self.values;
        let ty = g.ty?;
        match g.op {
            Op::ConstantTrue => Some(Const::Scalar(Value::Bool(true))),
            Op::ConstantFalse => Some(Const::Scalar(Value::Bool(false))),
            Op::Constant => {
                let bits = g.lits().first().and_then(literal)?;
                Some(match self.shapes.get(&ty)? {
                    Shape::Scalar(Scalar::Int { width, .. }) => Const::Scalar(Value::Int {
                        bits: bits & mask(*width),
                        width: *width,
                    }),
                    Shape::Scalar(Scalar::Float { width }) => Const::Scalar(Value::Float {
                        value: decode_float(bits, *width),
                        width: *width,
                    }),
                    Shape::Scalar(Scalar::Bits { width }) => Const::Bits {
                        bits: bits & mask(*width),
                        width: *width,
                    },
                    _ => return None,
                })
            }
            Op::ConstantComposite => Some(Const::Composite(
                g.args
                    .iter()
                    .map(|a| values.get(a).cloned())
                    .collect::<Option<Vec<_>>>()?,
            )),
            Op::ConstantNull => self.null(ty),
            _ => None,
        }
    }

    pub fn shape(&self, ty: Id) -> Option<&Shape> {
        self.shapes.get(&ty)
    }

    /// The value of a module constant.
    pub fn of(&self, id: Id) -> Option<&Const> {
        self.values.get(&id)
    }

    /// The zero of a type (what `OpConstantNull` of it is); `None` for a type of more than
    /// `MAX_SCALARS` scalars, whose constant no pass should spell out.
    pub fn null(&self, ty: Id) -> Option<Const> {
        (self.scalar_count(ty, 0)? <= MAX_SCALARS).then_some(())?;
        self.null_at(ty, 0)
    }

    /// How many scalars a value of type `ty` holds.
    fn scalar_count(&self, ty: Id, depth: u32) -> Option<u64> {
        if depth > 32 {
            return None;
        }
        Some(match self.shapes.get(&ty)? {
            Shape::Scalar(_) => 1,
            Shape::Vector { elem, n } | Shape::Array { elem, n } => {
                u64::from(*n).saturating_mul(self.scalar_count(*elem, depth + 1)?)
            }
            Shape::Matrix { column, n } => {
                u64::from(*n).saturating_mul(self.scalar_count(*column, depth + 1)?)
            }
            Shape::Struct(members) => members.iter().try_fold(0u64, |acc, &t| {
                Some(acc.saturating_add(self.scalar_count(t, depth + 1)?))
            })?,
        })
    }

    fn null_at(&self, ty: Id, depth: u32) -> Option<Const> {
        if depth > 32 {
            return None;
        }
        Some(match self.shapes.get(&ty)? {
            Shape::Scalar(Scalar::Int { width, .. }) => Const::Scalar(Value::Int {
                bits: 0,
                width: *width,
            }),
            Shape::Scalar(Scalar::Float { width }) => Const::Scalar(Value::Float {
                value: 0.0,
                width: *width,
            }),
            Shape::Scalar(Scalar::Bool) => Const::Scalar(Value::Bool(false)),
            Shape::Scalar(Scalar::Bits { width }) => Const::Bits {
                bits: 0,
                width: *width,
            },
            Shape::Vector { elem, n } | Shape::Array { elem, n } => {
                let e = self.null_at(*elem, depth + 1)?;
                Const::Composite(vec![e; *n as usize])
            }
            Shape::Matrix { column, n } => {
                let c = self.null_at(*column, depth + 1)?;
                Const::Composite(vec![c; *n as usize])
            }
            Shape::Struct(members) => Const::Composite(
                members
                    .iter()
                    .map(|&t| self.null_at(t, depth + 1))
                    .collect::<Option<Vec<_>>>()?,
            ),
        })
    }

    /// The type of part `k` of a composite of type `ty`.
    fn part_type(&self, ty: Id, k: usize) -> Option<Id> {
        match self.shapes.get(&ty)? {
            Shape::Vector { elem, .. } | Shape::Array { elem, .. } => Some(*elem),
            Shape::Matrix { column, .. } => Some(*column),
            Shape::Struct(m) => m.get(k).copied(),
            Shape::Scalar(_) => None,
        }
    }

    /// Writes `c` (of type `ty`) into the module as interned constants; its id. `None` when
    /// the module may not have a constant of `ty` (an 8- or 16-bit type without the capability
    /// for its constants, `Module::constant_allowed`) or no id is left: either way the value
    /// is not folded and the instruction computing it stays.
    pub fn materialize(&mut self, m: &mut Module, ty: Id, c: &Const) -> Option<Id> {
        if !m.constant_allowed_with(&self.caps, ty) {
            return None;
        }
        self.materialize_allowed(m, ty, c)
    }

    /// `materialize` of a type already found allowed (so are its parts).
    fn materialize_allowed(&mut self, m: &mut Module, ty: Id, c: &Const) -> Option<Id> {
        let inst = match (self.shapes.get(&ty)?.clone(), c) {
            (Shape::Scalar(s), Const::Scalar(v)) => scalar_inst(ty, s, *v)?,
            (Shape::Scalar(Scalar::Bits { width }), Const::Bits { bits, .. }) => {
                Inst::new(Op::Constant, Some(ty), None, vec![word(*bits, width)])
            }
            (_, Const::Composite(parts)) => {
                let mut ids = Vec::with_capacity(parts.len());
                for (k, p) in parts.iter().enumerate() {
                    let t = self.part_type(ty, k)?;
                    ids.push(Operand::IdRef(self.materialize_allowed(m, t, p)?));
                }
                Inst::new(Op::ConstantComposite, Some(ty), None, ids)
            }
            _ => return None,
        };
        let id = m.intern(inst)?;
        self.values.entry(id).or_insert_with(|| c.clone());
        Some(id)
    }

    /// Evaluates `inst`, whose id operands have the constant values `args` gives (`None`: not
    /// a constant).
    pub fn eval(&self, inst: &Inst, args: &[Option<&Const>]) -> Eval {
        self.eval_inner(inst, args).unwrap_or(Eval::Unknown)
    }

    fn eval_inner(&self, inst: &Inst, args: &[Option<&Const>]) -> Option<Eval> {
        let ty = inst.ty?;
        let arg = |k: usize| args.get(k).copied().flatten();
        let lits_u32 = || -> Vec<u32> {
            inst.lits()
                .iter()
                .filter_map(|o| match o {
                    Operand::LiteralBit32(v) => Some(*v),
                    _ => None,
                })
                .collect()
        };
        let c = match inst.op {
            // (ExpectKHR's second operand is only a hint.)
            Op::CopyObject | Op::ExpectKHR => return Some(Eval::Operand(0)),
            Op::Select => {
                let cond = arg(0)?;
                if let Some(b) = cond.as_bool() {
                    return Some(Eval::Operand(if b { 1 } else { 2 }));
                }
                // A vector condition picks per component.
                let (Const::Composite(cs), Const::Composite(a), Const::Composite(b)) =
                    (cond, arg(1)?, arg(2)?)
                else {
                    return None;
                };
                Const::Composite(
                    cs.iter()
                        .zip(a.iter().zip(b))
                        .map(|(c, (x, y))| Some(if c.as_bool()? { x.clone() } else { y.clone() }))
                        .collect::<Option<Vec<_>>>()?,
                )
            }
            Op::CompositeConstruct => {
                let parts: Vec<&Const> = (0..inst.args.len()).map(arg).collect::<Option<_>>()?;
                match self.shapes.get(&ty)? {
                    // A vector may be built from smaller vectors: their components in order.
                    Shape::Vector { n, .. } => {
                        let mut comps = Vec::with_capacity(*n as usize);
                        for p in parts {
                            match p {
                                Const::Composite(c) => comps.extend(c.iter().cloned()),
                                s => comps.push(s.clone()),
                            }
                        }
                        (comps.len() == *n as usize).then_some(())?;
                        Const::Composite(comps)
                    }
                    _ => Const::Composite(parts.into_iter().cloned().collect()),
                }
            }
            Op::CompositeExtract => {
                let mut c = arg(0)?;
                for k in lits_u32() {
                    match c {
                        Const::Composite(parts) => c = parts.get(k as usize)?,
                        _ => return None,
                    }
                }
                c.clone()
            }
            Op::CompositeInsert => {
                let mut whole = arg(1)?.clone();
                let part = arg(0)?;
                let mut at = &mut whole;
                for k in lits_u32() {
                    match at {
                        Const::Composite(parts) => at = parts.get_mut(k as usize)?,
                        _ => return None,
                    }
                }
                *at = part.clone();
                whole
            }
            Op::VectorShuffle => {
                let (Const::Composite(a), Const::Composite(b)) = (arg(0)?, arg(1)?) else {
                    return None;
                };
                let mut out = Vec::new();
                for k in lits_u32() {
                    let k = k as usize;
                    // 0xFFFFFFFF: an undefined component, which no constant stands for.
                    out.push(if k < a.len() {
                        a[k].clone()
                    } else {
                        b.get(k - a.len())?.clone()
                    });
                }
                Const::Composite(out)
            }
            Op::VectorTimesScalar => {
                let (Const::Composite(v), s) = (arg(0)?, arg(1)?) else {
                    return None;
                };
                let rule = ops::fold::rule(Op::FMul)?;
                let elem = self.elem_scalar(ty)?;
                Const::Composite(
                    v.iter()
                        .map(|x| self.apply(rule, &[x, s], elem, &[Val::Float, Val::Float]))
                        .collect::<Option<Vec<_>>>()?,
                )
            }
            Op::Any | Op::All => {
                let Const::Composite(v) = arg(0)? else {
                    return None;
                };
                let bools = v.iter().map(Const::as_bool).collect::<Option<Vec<_>>>()?;
                Const::Scalar(Value::Bool(if inst.op == Op::Any {
                    bools.iter().any(|&b| b)
                } else {
                    bools.iter().all(|&b| b)
                }))
            }
            Op::ConvertFToS
            | Op::ConvertFToU
            | Op::ConvertSToF
            | Op::ConvertUToF
            | Op::UConvert
            | Op::SConvert
            | Op::FConvert => {
                let to = self.elem_scalar(ty)?;
                let op = inst.op;
                self.map_components(arg(0)?, &|x| convert(op, x, to))?
            }
            Op::Bitcast => self.bitcast(arg(0)?, ty)?,
            // An index past the vector's end leaves the result undefined.
            Op::VectorExtractDynamic => {
                let Const::Composite(v) = arg(0)? else {
                    return None;
                };
                let (k, _) = arg(1)?.as_int_bits()?;
                v.get(usize::try_from(k).ok()?)?.clone()
            }
            Op::VectorInsertDynamic => {
                let Const::Composite(v) = arg(0)? else {
                    return None;
                };
                let (k, _) = arg(2)?.as_int_bits()?;
                let mut v = v.clone();
                *v.get_mut(usize::try_from(k).ok()?)? = arg(1)?.clone();
                Const::Composite(v)
            }
            // The same parts under a type of the same structure: a constant, not the operand
            // (whose type is another).
            Op::CopyLogical => arg(0)?.clone(),
            _ => {
                let info = ops::for_inst(inst, &self.sets)?;
                let fold = info.fold?;
                // An extended instruction's first id is its set.
                let skip = usize::from(inst.op == Op::ExtInst);
                let mut values: Operands<&Const> = Operands::new();
                let mut how: Operands<Val> = Operands::new();
                for k in skip..inst.args.len() {
                    values.push(arg(k)?);
                    how.push(
                        info.typing
                            .as_ref()
                            .map_or(Val::Any, |t| t.operand(k - skip)),
                    );
                }
                match fold {
                    Fold::Each(rule) => self.each(rule, &values, ty, &how)?,
                    Fold::Pair(rule) => self.pair(rule, &values, ty, &how)?,
                    Fold::Whole(rule) => self.whole(rule, &values, ty, &how)?,
                }
            }
        };
        Some(Eval::Const(c))
    }

    /// Whether `eval` computes `inst` (or `eval_linear_algebra` does) whenever its operands are
    /// constants: then an `Unknown` for constant operands says SPIR-V leaves the result
    /// undefined (or to the implementation's choice: `Round` of x.5) rather than that the
    /// evaluator does not know the op. The interpreter tells the two apart with this.
    pub fn evaluates(&self, inst: &Inst) -> bool {
        let linear_algebra = match ops::ext_inst_parts(inst) {
            Some((set, n)) => {
                self.sets.kind(set) == Some(SetKind::Glsl)
                    && matches!(n, 33 | 34 | 46 | 49 | 50 | 66..=72)
            }
            None => matches!(
                inst.op,
                Op::Dot
                    | Op::VectorTimesMatrix
                    | Op::MatrixTimesVector
                    | Op::MatrixTimesMatrix
                    | Op::MatrixTimesScalar
                    | Op::OuterProduct
                    | Op::Transpose
            ),
        };
        linear_algebra
            || matches!(
                inst.op,
                Op::CopyObject
                    | Op::ExpectKHR
                    | Op::Select
                    | Op::CompositeConstruct
                    | Op::CompositeExtract
                    | Op::CompositeInsert
                    | Op::VectorShuffle
                    | Op::VectorTimesScalar
                    | Op::Any
                    | Op::All
                    // A float out of the integer's range (the other conversions decline
                    // only what they cannot round once).
                    | Op::ConvertFToU
                    | Op::ConvertFToS
                    | Op::Bitcast
                    | Op::VectorExtractDynamic
                    | Op::VectorInsertDynamic
                    | Op::CopyLogical
            )
            || ops::for_inst(inst, &self.sets).is_some_and(|i| i.fold.is_some())
    }

    /// A component-wise rule on scalars, or on vectors component by component (a scalar
    /// operand beside vectors stands for each of their components).
    fn each(&self, rule: FoldFn, values: &[&Const], ty: Id, how: &[Val]) -> Option<Const> {
        let elem = self.elem_scalar(ty)?;
        let Some(n) = vector_len(values) else {
            return self.apply(rule, values, elem, how);
        };
        let out = (0..n)
            .map(|k| self.apply(rule, &component(values, n, k)?, elem, how))
            .collect::<Option<Vec<_>>>()?;
        Some(Const::Composite(out))
    }

    /// A component-wise rule with two results, into the two members of a struct: scalars,
    /// or vectors of the operands' component count.
    fn pair(&self, rule: PairFn, values: &[&Const], ty: Id, how: &[Val]) -> Option<Const> {
        let Shape::Struct(members) = self.shapes.get(&ty)? else {
            return None;
        };
        let &[t0, t1] = members.as_slice() else {
            return None;
        };
        let (s0, s1) = (self.elem_scalar(t0)?, self.elem_scalar(t1)?);
        let one = |comps: &[&Const]| -> Option<(Const, Const)> {
            let (a, b) = rule(&read_values(comps, how)?)?;
            Some((to_const(a, s0)?, to_const(b, s1)?))
        };
        let Some(n) = vector_len(values) else {
            let (a, b) = one(values)?;
            return Some(Const::Composite(vec![a, b]));
        };
        let (mut first, mut second) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for k in 0..n {
            let (a, b) = one(&component(values, n, k)?)?;
            first.push(a);
            second.push(b);
        }
        Some(Const::Composite(vec![
            Const::Composite(first),
            Const::Composite(second),
        ]))
    }

    /// A rule over whole operands, its components made the result's scalar or vector.
    fn whole(&self, rule: WholeFn, values: &[&Const], ty: Id, how: &[Val]) -> Option<Const> {
        let operands: Vec<Vec<Value>> = values
            .iter()
            .enumerate()
            .map(|(n, v)| {
                let how = how.get(n).copied().unwrap_or(Val::Any);
                match v {
                    Const::Composite(parts) => parts.iter().map(|p| read_value(p, how)).collect(),
                    s => Some(vec![read_value(s, how)?]),
                }
            })
            .collect::<Option<_>>()?;
        let out = rule(&operands)?;
        match self.shapes.get(&ty)? {
            Shape::Scalar(s) => match out.as_slice() {
                [v] => to_const(*v, *s),
                _ => None,
            },
            Shape::Vector { n, .. } => {
                let s = self.elem_scalar(ty)?;
                (out.len() == *n as usize).then_some(())?;
                Some(Const::Composite(
                    out.into_iter()
                        .map(|v| to_const(v, s))
                        .collect::<Option<_>>()?,
                ))
            }
            _ => None,
        }
    }

    /// A bitcast: the operand's bits, its first component lowest, cut into the result's
    /// components (SPIR-V: of the type with more components, the lower-numbered ones hold
    /// the lower bits of a component of the other).
    fn bitcast(&self, x: &Const, ty: Id) -> Option<Const> {
        let parts: Vec<&Const> = match x {
            Const::Composite(p) => p.iter().collect(),
            s => vec![s],
        };
        let mut bytes = Vec::new();
        for p in parts {
            let (bits, width) = match p {
                Const::Scalar(Value::Int { bits, width }) | Const::Bits { bits, width } => {
                    (*bits, *width)
                }
                Const::Scalar(Value::Float { value, width }) => {
                    (encode_float(*value, *width)?, *width)
                }
                _ => return None,
            };
            let size = usize::try_from(width / 8)
                .ok()
                .filter(|s| (1..=8).contains(s))?;
            bytes.extend_from_slice(&bits.to_le_bytes()[..size]);
        }
        let to = self.elem_scalar(ty)?;
        let width = match to {
            Scalar::Int { width, .. } | Scalar::Float { width } | Scalar::Bits { width } => width,
            Scalar::Bool => return None,
        };
        let size = usize::try_from(width / 8)
            .ok()
            .filter(|s| (1..=8).contains(s))?;
        let count = match self.shapes.get(&ty)? {
            Shape::Vector { n, .. } => Some(*n as usize),
            _ => None,
        };
        (bytes.len() == size * count.unwrap_or(1)).then_some(())?;
        let mut comps = bytes.chunks(size).map(|c| {
            let mut word = [0u8; 8];
            word[..size].copy_from_slice(c);
            let bits = u64::from_le_bytes(word);
            match to {
                Scalar::Float { width } => Const::Scalar(Value::Float {
                    value: decode_float(bits, width),
                    width,
                }),
                Scalar::Bits { width } => Const::Bits { bits, width },
                _ => Const::Scalar(Value::Int { bits, width }),
            }
        });
        match count {
            Some(_) => Some(Const::Composite(comps.collect())),
            None => comps.next(),
        }
    }

    /// Evaluates the linear algebra ops (`OpDot`, `OpMatrixTimesVector`, `OpVectorTimesMatrix`,
    /// `OpMatrixTimesMatrix`, `OpMatrixTimesScalar`, `OpOuterProduct`, `OpTranspose`, and
    /// GLSL.std.450's `Length`, `Distance`, `Cross`, `Normalize`, `FaceForward`, `Reflect`,
    /// `Refract`, `FMix`, `Determinant`, `MatrixInverse`) as the op table's rules composed (`OpFMul`, `OpFAdd`,
    /// `OpFSub`, `OpFDiv`, `Sqrt`), products summed in component order. `eval`
    /// leaves them alone: a driver may fuse or reorder those sums, so folding them would fix
    /// one rounding of several allowed; the interpreter, which must give some value, uses this.
    pub fn eval_linear_algebra(&self, inst: &Inst, args: &[Option<&Const>]) -> Eval {
        self.linear_algebra(inst, args)
            .map_or(Eval::Unknown, Eval::Const)
    }

    fn linear_algebra(&self, inst: &Inst, args: &[Option<&Const>]) -> Option<Const> {
        let ty = inst.ty?;
        let arg = |k: usize| args.get(k).copied().flatten();
        let parts = |c: &Const| match c {
            Const::Composite(p) => Some(p.clone()),
            _ => None,
        };
        let columns =
            |c: &Const| -> Option<Vec<Vec<Const>>> { parts(c)?.iter().map(parts).collect() };
        let float = match self.elem_scalar(ty) {
            Some(s) => s,
            // A matrix result: its columns' scalar type.
            None => match self.shapes.get(&ty)? {
                Shape::Matrix { column, .. } => self.elem_scalar(*column)?,
                _ => return None,
            },
        };
        let how = [Val::Float, Val::Float];
        let mul =
            |a: &Const, b: &Const| self.apply(ops::fold::rule(Op::FMul)?, &[a, b], float, &how);
        let add =
            |a: &Const, b: &Const| self.apply(ops::fold::rule(Op::FAdd)?, &[a, b], float, &how);
        let dot = |a: &[Const], b: &[Const]| -> Option<Const> {
            if a.len() != b.len() || a.is_empty() {
                return None;
            }
            let mut sum = mul(&a[0], &b[0])?;
            for (x, y) in a.iter().zip(b).skip(1) {
                sum = add(&sum, &mul(x, y)?)?;
            }
            Some(sum)
        };
        // The rows of a matrix given as columns.
        let transpose = |cols: &[Vec<Const>]| -> Option<Vec<Vec<Const>>> {
            let n = cols.first()?.len();
            (0..n)
                .map(|r| cols.iter().map(|c| c.get(r).cloned()).collect())
                .collect()
        };
        let matrix = |cols: Vec<Vec<Const>>| {
            Const::Composite(cols.into_iter().map(Const::Composite).collect())
        };
        Some(match inst.op {
            Op::Dot => dot(&parts(arg(0)?)?, &parts(arg(1)?)?)?,
            Op::VectorTimesMatrix => {
                let v = parts(arg(0)?)?;
                let m = columns(arg(1)?)?;
                Const::Composite(m.iter().map(|c| dot(&v, c)).collect::<Option<_>>()?)
            }
            Op::MatrixTimesVector => {
                let rows = transpose(&columns(arg(0)?)?)?;
                let v = parts(arg(1)?)?;
                Const::Composite(rows.iter().map(|r| dot(r, &v)).collect::<Option<_>>()?)
            }
            Op::MatrixTimesMatrix => {
                let rows = transpose(&columns(arg(0)?)?)?;
                let b = columns(arg(1)?)?;
                matrix(
                    b.iter()
                        .map(|c| rows.iter().map(|r| dot(r, c)).collect::<Option<Vec<_>>>())
                        .collect::<Option<_>>()?,
                )
            }
            Op::MatrixTimesScalar => {
                let s = arg(1)?;
                matrix(
                    columns(arg(0)?)?
                        .iter()
                        .map(|c| c.iter().map(|x| mul(x, s)).collect::<Option<Vec<_>>>())
                        .collect::<Option<_>>()?,
                )
            }
            Op::OuterProduct => {
                let (a, b) = (parts(arg(0)?)?, parts(arg(1)?)?);
                matrix(
                    b.iter()
                        .map(|y| a.iter().map(|x| mul(x, y)).collect::<Option<Vec<_>>>())
                        .collect::<Option<_>>()?,
                )
            }
            Op::Transpose => matrix(transpose(&columns(arg(0)?)?)?),
            Op::ExtInst if self.sets.kind(inst.args.first().copied()?) == Some(SetKind::Glsl) => {
                // GLSL.std.450's geometric and matrix functions, on scalars or vectors (operand
                // k is argument k + 1: the first is the set).
                let list = |k: usize| -> Option<Vec<Const>> {
                    let c = arg(k + 1)?;
                    Some(parts(c).unwrap_or_else(|| vec![c.clone()]))
                };
                let one = |v: Vec<Const>, scalar: bool| {
                    if scalar {
                        v.into_iter().next()
                    } else {
                        Some(Const::Composite(v))
                    }
                };
                let scalar =
                    |k: usize| arg(k + 1).is_some_and(|c| !matches!(c, Const::Composite(_)));
                let rule = |op: Op| ops::fold::rule(op);
                let sub = |a: &Const, b: &Const| self.apply(rule(Op::FSub)?, &[a, b], float, &how);
                let div = |a: &Const, b: &Const| self.apply(rule(Op::FDiv)?, &[a, b], float, &how);
                let sqrt = |a: &Const| self.apply(ops::fold::glsl_rule(31)?, &[a], float, &how);
                let length = |v: &[Const]| sqrt(&dot(v, v)?);
                // 1.0 in the float type of `like`.
                let unit = |like: &Const| -> Option<Const> {
                    let width = match like {
                        Const::Scalar(Value::Float { width, .. }) | Const::Bits { width, .. } => {
                            *width
                        }
                        _ => return None,
                    };
                    Some(Const::Scalar(Value::Float { value: 1.0, width }))
                };
                let (_, number) = ops::ext_inst_parts(inst)?;
                match number {
                    33 => self.determinant(&transpose(&columns(arg(1)?)?)?, float)?,
                    // MatrixInverse: the adjugate over the determinant (entry (r, c) is the
                    // cofactor of (c, r) divided by it); undefined for a singular matrix.
                    34 => {
                        let rows = transpose(&columns(arg(1)?)?)?;
                        let n = rows.len();
                        rows.iter().all(|r| r.len() == n).then_some(())?;
                        let det = self.determinant(&rows, float)?;
                        let zero = match &det {
                            Const::Scalar(Value::Float { value, .. }) => *value == 0.0,
                            Const::Bits { bits, width } => decode_float(*bits, *width) == 0.0,
                            _ => return None,
                        };
                        if zero {
                            return None;
                        }
                        let neg = rule(Op::FNegate)?;
                        let cofactor = |r: usize, c: usize| -> Option<Const> {
                            let minor = self.determinant(&minor(&rows, r, c), float)?;
                            if (r + c) % 2 == 1 {
                                self.apply(neg, &[&minor], float, &how)
                            } else {
                                Some(minor)
                            }
                        };
                        matrix(
                            (0..n)
                                .map(|c| {
                                    (0..n)
                                        .map(|r| div(&cofactor(c, r)?, &det))
                                        .collect::<Option<Vec<_>>>()
                                })
                                .collect::<Option<_>>()?,
                        )
                    }
                    // Length, Distance
                    66 => length(&list(0)?)?,
                    67 => {
                        let (a, b) = (list(0)?, list(1)?);
                        let d: Vec<Const> = a
                            .iter()
                            .zip(&b)
                            .map(|(x, y)| sub(x, y))
                            .collect::<Option<_>>()?;
                        length(&d)?
                    }
                    // Cross
                    68 => {
                        let (a, b) = (list(0)?, list(1)?);
                        if a.len() != 3 || b.len() != 3 {
                            return None;
                        }
                        let term =
                            |i: usize, j: usize| sub(&mul(&a[i], &b[j])?, &mul(&a[j], &b[i])?);
                        Const::Composite(vec![term(1, 2)?, term(2, 0)?, term(0, 1)?])
                    }
                    // Normalize
                    69 => {
                        let v = list(0)?;
                        let len = length(&v)?;
                        one(
                            v.iter().map(|x| div(x, &len)).collect::<Option<_>>()?,
                            scalar(0),
                        )?
                    }
                    // FaceForward(N, I, Nref): N if dot(Nref, I) < 0, else -N.
                    70 => {
                        let (n, i, r) = (list(0)?, list(1)?, list(2)?);
                        let Const::Scalar(ops::fold::Value::Float { value, .. }) = dot(&r, &i)?
                        else {
                            return None;
                        };
                        let neg = rule(Op::FNegate)?;
                        let out = if value < 0.0 {
                            n
                        } else {
                            n.iter()
                                .map(|x| self.apply(neg, &[x], float, &how))
                                .collect::<Option<_>>()?
                        };
                        one(out, scalar(0))?
                    }
                    // Fma(a, b, c): a b + c, which Vulkan lets a driver fuse or not; the
                    // unfused product and sum here, component by component.
                    50 => {
                        let (a, b, c) = (list(0)?, list(1)?, list(2)?);
                        one(
                            (0..a.len())
                                .map(|i| add(&mul(a.get(i)?, b.get(i)?)?, c.get(i)?))
                                .collect::<Option<_>>()?,
                            scalar(0),
                        )?
                    }
                    // SmoothStep(e0, e1, x): t = clamp((x - e0) / (e1 - e0), 0, 1), then
                    // t t (3 - 2 t); undefined where e0 >= e1 (a scalar edge for every
                    // component).
                    49 => {
                        let (e0, e1, x) = (list(0)?, list(1)?, list(2)?);
                        let at = |v: &[Const], i: usize| v.get(i).or(v.first()).cloned();
                        let clamp = ops::fold::glsl_rule(43)?;
                        one(
                            (0..x.len())
                                .map(|i| {
                                    let (lo, hi, xi) = (at(&e0, i)?, at(&e1, i)?, at(&x, i)?);
                                    let u = unit(&xi)?;
                                    let zero = sub(&u, &u)?;
                                    let span = sub(&hi, &lo)?;
                                    match &span {
                                        Const::Scalar(Value::Float { value, .. })
                                            if *value > 0.0 => {}
                                        _ => return None,
                                    }
                                    let t = div(&sub(&xi, &lo)?, &span)?;
                                    let t = self.apply(
                                        clamp,
                                        &[&t, &zero, &u],
                                        float,
                                        &[Val::Float; 3],
                                    )?;
                                    let three = add(&add(&u, &u)?, &u)?;
                                    let two_t = add(&t, &t)?;
                                    mul(&mul(&t, &t)?, &sub(&three, &two_t)?)
                                })
                                .collect::<Option<_>>()?,
                            scalar(0),
                        )?
                    }
                    // FMix(x, y, a): x (1 - a) + y a, as Vulkan states its precision, component
                    // by component (a scalar `a` for every component).
                    46 => {
                        let (x, y, a) = (list(0)?, list(1)?, list(2)?);
                        let at = |v: &[Const], i: usize| v.get(i).or(v.first()).cloned();
                        let one_minus = |a: &Const| sub(&unit(a)?, a);
                        one(
                            (0..x.len())
                                .map(|i| {
                                    let (xi, yi, ai) = (at(&x, i)?, at(&y, i)?, at(&a, i)?);
                                    add(&mul(&xi, &one_minus(&ai)?)?, &mul(&yi, &ai)?)
                                })
                                .collect::<Option<_>>()?,
                            scalar(0),
                        )?
                    }
                    // Refract(I, N, eta): with k = 1 - eta² (1 - dot(N, I)²), a zero vector when
                    // k < 0, else eta I - (eta dot(N, I) + sqrt(k)) N.
                    72 => {
                        let (i, n) = (list(0)?, list(1)?);
                        let eta = arg(3)?;
                        let d = dot(&n, &i)?;
                        let one_c = unit(&d)?;
                        let k = sub(&one_c, &mul(&mul(eta, eta)?, &sub(&one_c, &mul(&d, &d)?)?)?)?;
                        let negative = match &k {
                            Const::Scalar(Value::Float { value, .. }) => *value < 0.0,
                            Const::Bits { bits, width } => decode_float(*bits, *width) < 0.0,
                            _ => return None,
                        };
                        let out: Vec<Const> = if negative {
                            i.iter().map(|x| sub(x, x)).collect::<Option<_>>()?
                        } else {
                            let t = add(&mul(eta, &d)?, &sqrt(&k)?)?;
                            i.iter()
                                .zip(&n)
                                .map(|(x, y)| sub(&mul(eta, x)?, &mul(&t, y)?))
                                .collect::<Option<_>>()?
                        };
                        one(out, scalar(0))?
                    }
                    // Reflect(I, N): I - 2 dot(N, I) N.
                    71 => {
                        let (i, n) = (list(0)?, list(1)?);
                        let d = dot(&n, &i)?;
                        let twice = add(&d, &d)?;
                        one(
                            i.iter()
                                .zip(&n)
                                .map(|(x, y)| sub(x, &mul(&twice, y)?))
                                .collect::<Option<_>>()?,
                            scalar(0),
                        )?
                    }
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    /// The determinant of a square matrix given as rows, by cofactors along the first row,
    /// as the op table's FMul, FAdd and FSub composed.
    fn determinant(&self, rows: &[Vec<Const>], float: Scalar) -> Option<Const> {
        let how = [Val::Float, Val::Float];
        let op =
            |op: Op, a: &Const, b: &Const| self.apply(ops::fold::rule(op)?, &[a, b], float, &how);
        match rows.len() {
            // (A 2x2 inverse's cofactors.)
            1 => rows[0].first().cloned(),
            2 => op(
                Op::FSub,
                &op(Op::FMul, rows[0].first()?, rows[1].get(1)?)?,
                &op(Op::FMul, rows[0].get(1)?, rows[1].first()?)?,
            ),
            _ => {
                let mut sum: Option<Const> = None;
                for (c, x) in rows.first()?.iter().enumerate() {
                    let term = op(Op::FMul, x, &self.determinant(&minor(rows, 0, c), float)?)?;
                    sum = Some(match sum {
                        None => term,
                        Some(s) => op(if c % 2 == 1 { Op::FSub } else { Op::FAdd }, &s, &term)?,
                    });
                }
                sum
            }
        }
    }

    /// The scalar type of a scalar or vector type.
    fn elem_scalar(&self, ty: Id) -> Option<Scalar> {
        match self.shapes.get(&ty)? {
            Shape::Scalar(s) => Some(*s),
            Shape::Vector { elem, .. } => match self.shapes.get(elem)? {
                Shape::Scalar(s) => Some(*s),
                _ => None,
            },
            _ => None,
        }
    }

    fn map_components(&self, c: &Const, f: &dyn Fn(&Const) -> Option<Const>) -> Option<Const> {
        match c {
            Const::Composite(parts) => Some(Const::Composite(
                parts.iter().map(f).collect::<Option<Vec<_>>>()?,
            )),
            s => f(s),
        }
    }

    /// A scalar rule on scalar operands, with a result of scalar type `to`.
    fn apply(
        &self,
        rule: ops::fold::FoldFn,
        args: &[&Const],
        to: Scalar,
        how: &[Val],
    ) -> Option<Const> {
        to_const(rule(&read_values(args, how)?)?, to)
    }
}

/// A matrix given as rows without row `row` and column `col`.
fn minor(rows: &[Vec<Const>], row: usize, col: usize) -> Vec<Vec<Const>> {
    rows.iter()
        .enumerate()
        .filter(|(r, _)| *r != row)
        .map(|(_, r)| {
            r.iter()
                .enumerate()
                .filter(|(c, _)| *c != col)
                .map(|(_, x)| x.clone())
                .collect()
        })
        .collect()
}

/// The component count of the vectors among `values`, if any is one.
fn vector_len(values: &[&Const]) -> Option<usize> {
    values.iter().find_map(|v| match v {
        Const::Composite(c) => Some(c.len()),
        _ => None,
    })
}

/// Component `k` of each of `values`: of a vector of `n` components its `k`-th, a scalar
/// itself.
fn component<'c>(values: &[&'c Const], n: usize, k: usize) -> Option<Operands<&'c Const>> {
    let mut out = Operands::new();
    for v in values {
        out.push(match v {
            Const::Composite(c) if c.len() == n => c.get(k)?,
            Const::Composite(_) => return None,
            s => s,
        });
    }
    Some(out)
}

/// An instruction's operands, inline: the interpreter evaluates every instruction it runs
/// through here, and most have four or fewer.
type Operands<T> = smallvec::SmallVec<[T; 4]>;

/// Scalar constants as a rule reads them: bit-vectors as `how` says for each.
fn read_values(args: &[&Const], how: &[Val]) -> Option<Operands<Value>> {
    // Pushed one by one: collecting into an `Option` costs more than the rule.
    let mut out = Operands::new();
    for (n, a) in args.iter().enumerate() {
        out.push(read_value(a, how.get(n).copied().unwrap_or(Val::Any))?);
    }
    Some(out)
}

fn read_value(c: &Const, how: Val) -> Option<Value> {
    match c {
        Const::Scalar(v) => Some(*v),
        Const::Bits { bits, width } => read_bits(*bits, *width, how),
        Const::Composite(_) => None,
    }
}

/// A rule's scalar as a constant of scalar type `to` (floats rounded to its width).
fn to_const(v: Value, to: Scalar) -> Option<Const> {
    Some(match (to, v) {
        (Scalar::Bits { width }, Value::Float { value, .. }) => Const::Bits {
            bits: encode_float(value, width)?,
            width,
        },
        (Scalar::Bits { width }, Value::Int { bits, .. }) => Const::Bits {
            bits: bits & mask(width),
            width,
        },
        (Scalar::Float { width }, Value::Float { value, .. }) => Const::Scalar(Value::Float {
            value: round_float(value, width)?,
            width,
        }),
        (Scalar::Int { width, .. }, Value::Int { bits, .. }) => Const::Scalar(Value::Int {
            bits: bits & mask(width),
            width,
        }),
        (Scalar::Bool, Value::Bool(b)) => Const::Scalar(Value::Bool(b)),
        _ => return None,
    })
}

/// The label a switch on constant `c` goes to.
pub fn switch_target(inst: &Inst, c: &Const) -> Option<Id> {
    let (bits, width) = c.as_int_bits()?;
    let ops = inst.to_operands();
    let default = inst.args.get(1).copied()?;
    let mut k = 2;
    while k + 1 < ops.len() {
        let lit = match &ops[k] {
            Operand::LiteralBit32(v) => u64::from(*v),
            Operand::LiteralBit64(v) => *v,
            _ => return None,
        };
        let Operand::IdRef(target) = ops[k + 1] else {
            return None;
        };
        if lit & mask(width) == bits {
            return Some(target);
        }
        k += 2;
    }
    Some(default)
}

/// A bit-vector read as `how` says.
fn read_bits(bits: u64, width: u32, how: Val) -> Option<Value> {
    match how {
        Val::Float => Some(Value::Float {
            value: decode_float(bits, width),
            width,
        }),
        Val::Int | Val::Uint => Some(Value::Int {
            bits: bits & mask(width),
            width,
        }),
        _ => None,
    }
}

/// A conversion of one scalar; `None` where SPIR-V leaves it undefined (a float out of the
/// integer's range, NaN to an integer) or where it would round twice.
fn convert(op: Op, x: &Const, to: Scalar) -> Option<Const> {
    let int = |bits: u64, width: u32| {
        Const::Scalar(Value::Int {
            bits: bits & mask(width),
            width,
        })
    };
    let float = |value: f64, width: u32| -> Option<Const> {
        Some(Const::Scalar(Value::Float {
            value: round_float(value, width)?,
            width,
        }))
    };
    match (op, x, to) {
        (Op::ConvertFToS, Const::Scalar(Value::Float { value, .. }), Scalar::Int { width, .. }) => {
            let t = value.trunc();
            let (lo, hi) = (-(2f64.powi(width as i32 - 1)), 2f64.powi(width as i32 - 1));
            (t >= lo && t < hi).then(|| int(t as i64 as u64, width))
        }
        (Op::ConvertFToU, Const::Scalar(Value::Float { value, .. }), Scalar::Int { width, .. }) => {
            let t = value.trunc();
            (t >= 0.0 && t < 2f64.powi(width as i32)).then(|| int(t as u64, width))
        }
        (
            Op::ConvertSToF,
            Const::Scalar(Value::Int { bits, width: w }),
            Scalar::Float { width },
        ) => {
            let v = signed(*bits, *w);
            (v.unsigned_abs() <= 1 << 53).then_some(())?;
            float(v as f64, width)
        }
        (Op::ConvertUToF, Const::Scalar(Value::Int { bits, .. }), Scalar::Float { width }) => {
            (*bits <= 1 << 53).then_some(())?;
            float(*bits as f64, width)
        }
        (Op::UConvert, Const::Scalar(Value::Int { bits, .. }), Scalar::Int { width, .. }) => {
            Some(int(*bits, width))
        }
        (Op::SConvert, Const::Scalar(Value::Int { bits, width: w }), Scalar::Int { width, .. }) => {
            Some(int(signed(*bits, *w) as u64, width))
        }
        (Op::FConvert, Const::Scalar(Value::Float { value, .. }), Scalar::Float { width }) => {
            float(*value, width)
        }
        _ => None,
    }
}

fn word(bits: u64, width: u32) -> Operand {
    if width > 32 {
        Operand::LiteralBit64(bits)
    } else {
        Operand::LiteralBit32(bits as u32)
    }
}

/// The constant instruction for scalar `v` of type `ty`.
fn scalar_inst(ty: Id, scalar: Scalar, v: Value) -> Option<Inst> {
    let width = match scalar {
        Scalar::Int { width, .. } | Scalar::Float { width } | Scalar::Bits { width } => width,
        Scalar::Bool => 1,
    };
    if width == 0 || width > 64 {
        return None;
    }
    Some(match (scalar, v) {
        (Scalar::Int { width, signed }, Value::Int { bits, .. }) => {
            // Narrow signed literals are sign-extended to the word.
            let bits = if signed && width < 32 {
                let shift = 64 - width;
                ((((bits << shift) as i64) >> shift) as u64) & 0xffff_ffff
            } else {
                bits & mask(width)
            };
            Inst::new(Op::Constant, Some(ty), None, vec![word(bits, width)])
        }
        (Scalar::Float { width } | Scalar::Bits { width }, Value::Float { value, .. }) => {
            let bits = encode_float(value, width)?;
            Inst::new(Op::Constant, Some(ty), None, vec![word(bits, width)])
        }
        (Scalar::Bits { width }, Value::Int { bits, .. }) => Inst::new(
            Op::Constant,
            Some(ty),
            None,
            vec![word(bits & mask(width), width)],
        ),
        (Scalar::Bool, Value::Bool(b)) => Inst::new(
            if b {
                Op::ConstantTrue
            } else {
                Op::ConstantFalse
            },
            Some(ty),
            None,
            vec![],
        ),
        _ => return None,
    })
}
