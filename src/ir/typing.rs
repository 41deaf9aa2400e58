//! What numeric kind each instruction makes and reads, for modules whose integer and float
//! values may be untyped bit-vectors (`bits.b32`, see `untype`).
//!
//! A value's *label* is the kind its type would have: float (`F`), signed integer (`S`) or
//! unsigned integer (`U`); with a width and a component count it names exactly one SPIR-V type.
//! The op table's typing signatures (`ops::Typing`) say what most ops make and read, and its
//! image descriptions (`ops::ImageAccess`) what image ops do; other ops typed by their context —
//! loads and stores (the pointee), composites (the aggregate's members), calls and returns (the
//! function's signature), atomics — are described here one by one. An instruction this module cannot
//! describe gets no typing, and passes keep its values typed.

use std::collections::HashMap;

use rspirv::dr::Operand;
use spirv::Op;

use super::func::Function;
use super::inst::{Id, Inst, Opd};
use super::module::Module;
use super::ops::{
    self, AfterCoordinate, Coordinate, ExtSets, ImageAccess, ImageResult, OpSet, Val,
};
use super::types::dialect_type_width;

/// A set of labels: bit 0 float, bit 1 signed integer, bit 2 unsigned integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Labels(pub u8);

impl Labels {
    pub const F: Labels = Labels(1);
    pub const S: Labels = Labels(2);
    pub const U: Labels = Labels(4);
    pub const INT: Labels = Labels(6);
    pub const ALL: Labels = Labels(7);
    pub const NONE: Labels = Labels(0);

    pub fn contains(self, l: Labels) -> bool {
        self.0 & l.0 == l.0
    }
    pub fn intersects(self, l: Labels) -> bool {
        self.0 & l.0 != 0
    }
    pub fn and(self, l: Labels) -> Labels {
        Labels(self.0 & l.0)
    }
    pub fn or(self, l: Labels) -> Labels {
        Labels(self.0 | l.0)
    }
    /// The single labels in this set, in the order F, S, U.
    pub fn singles(self) -> impl Iterator<Item = Labels> {
        [Labels::F, Labels::S, Labels::U]
            .into_iter()
            .filter(move |l| self.contains(*l))
    }
    pub fn is_single(self) -> bool {
        self.0.count_ones() == 1
    }
    pub fn name(self) -> &'static str {
        match self.0 {
            1 => "float",
            2 => "signed integer",
            4 => "unsigned integer",
            6 => "integer",
            7 => "any",
            _ => "mixed",
        }
    }
}

/// What an operand must be read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// One of these labels.
    In(Labels),
    /// The label of this value (a polymorphic op's result, a parameter, a function's return).
    Same(Id),
}

/// What an instruction's result may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Made {
    /// One of these labels (one label when the op fixes it).
    In(Labels),
    /// Whatever label this other value has (a call's result is its function's return).
    Tied(Id),
}

/// The typing of one instruction: its result (when numeric) and, by index into `inst.args`,
/// what its numeric operands need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstTyping {
    pub result: Option<Made>,
    pub operands: Vec<(usize, Need)>,
}

/// A numeric scalar or vector type: its label (or none for a bit-vector), width and count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Numeric {
    pub label: Option<Labels>,
    pub width: u32,
    pub count: u32,
}

/// Type information about a module, to answer typing questions quickly.
pub struct TypeInfo<'m> {
    types: HashMap<Id, &'m Inst>,
    value_type: HashMap<Id, Id>,
    sets: ExtSets,
    /// Parameters of each function, in order.
    params: HashMap<Id, Vec<Id>>,
}

fn val_labels(v: Val) -> Option<Labels> {
    match v {
        Val::Float => Some(Labels::F),
        Val::Int => Some(Labels::INT),
        Val::Uint => Some(Labels::U),
        Val::Same | Val::Any => Some(Labels::ALL),
        _ => None,
    }
}

impl<'m> TypeInfo<'m> {
    pub fn new(m: &'m Module) -> Self {
        let sets = ExtSets::of(m);
        let mut types = HashMap::new();
        for g in m.globals() {
            let is_type = super::inst::is_type(g.op) || dialect_type_width(g, &sets).is_some();
            if let (true, Some(r)) = (is_type, g.result) {
                types.insert(r, g);
            }
        }
        let mut value_type = HashMap::new();
        m.for_each_inst(|i| {
            if let (Some(r), Some(t)) = (i.result, i.ty) {
                value_type.insert(r, t);
            }
        });
        let params = m
            .functions()
            .iter()
            .map(|f| (f.id(), f.params.iter().filter_map(|p| p.result).collect()))
            .collect();
        TypeInfo {
            types,
            value_type,
            sets,
            params,
        }
    }

    /// Type information for one function: the module's types and globals, and the values of
    /// `f` alone (what questions about `f` need, without scanning every other function).
    pub fn scoped(m: &'m Module, f: &Function) -> Self {
        let sets = ExtSets::of(m);
        let mut types = HashMap::new();
        let mut value_type = HashMap::new();
        for g in m.globals() {
            let is_type = super::inst::is_type(g.op) || dialect_type_width(g, &sets).is_some();
            if let (true, Some(r)) = (is_type, g.result) {
                types.insert(r, g);
            }
            if let (Some(r), Some(t)) = (g.result, g.ty) {
                value_type.insert(r, t);
            }
        }
        for i in f.params.iter().chain(f.body()) {
            if let (Some(r), Some(t)) = (i.result, i.ty) {
                value_type.insert(r, t);
            }
        }
        for g in m.functions() {
            if let (Some(r), Some(t)) = (g.def.result, g.def.ty) {
                value_type.insert(r, t);
            }
        }
        let params = m
            .functions()
            .iter()
            .map(|f| (f.id(), f.params.iter().filter_map(|p| p.result).collect()))
            .collect();
        TypeInfo {
            types,
            value_type,
            sets,
            params,
        }
    }

    pub fn sets(&self) -> &ExtSets {
        &self.sets
    }

    pub fn type_inst(&self, ty: Id) -> Option<&'m Inst> {
        self.types.get(&ty).copied()
    }

    pub fn value_type(&self, v: Id) -> Option<Id> {
        self.value_type.get(&v).copied()
    }

    /// The scalar kind of a type: label (`None` for a bit-vector) and width.
    fn scalar(&self, ty: Id) -> Option<(Option<Labels>, u32)> {
        let t = self.type_inst(ty)?;
        match (t.op, t.lits()) {
            (Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => Some((Some(Labels::F), *w)),
            (Op::TypeInt, [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]) => {
                Some((Some(if *s == 1 { Labels::S } else { Labels::U }), *w))
            }
            (Op::ExtInst, _) => dialect_type_width(t, &self.sets).map(|w| (None, w)),
            _ => None,
        }
    }

    /// A numeric scalar or vector type (typed or a bit-vector).
    pub fn numeric(&self, ty: Id) -> Option<Numeric> {
        let t = self.type_inst(ty)?;
        let (component, count) = match (t.op, t.args.as_slice(), t.lits()) {
            (Op::TypeVector, [c], [Operand::LiteralBit32(n)]) => (*c, *n),
            _ => (ty, 1),
        };
        let (label, width) = self.scalar(component)?;
        Some(Numeric {
            label,
            width,
            count,
        })
    }

    /// The numeric type of a value.
    pub fn value_numeric(&self, v: Id) -> Option<Numeric> {
        self.numeric(self.value_type(v)?)
    }

    /// The label a typed numeric type has; every label for a bit-vector, none for others.
    fn labels_of_type(&self, ty: Id) -> Option<Labels> {
        self.numeric(ty).map(|n| n.label.unwrap_or(Labels::ALL))
    }

    /// The type a pointer value points to (`None` for an untyped pointer or a non-pointer).
    fn pointee(&self, ptr: Id) -> Option<Id> {
        let t = self.type_inst(self.value_type(ptr)?)?;
        match (t.op, t.arg(0)) {
            (Op::TypePointer, Some(p)) => Some(p),
            _ => None,
        }
    }

    fn is_untyped_pointer(&self, ptr: Id) -> bool {
        self.value_type(ptr)
            .and_then(|t| self.type_inst(t))
            .is_some_and(|t| t.op == Op::TypeUntypedPointerKHR)
    }

    /// What a value stored through, or loaded from, `ptr` is: the pointee's label, any label
    /// for untyped memory; `None` when the pointee is not numeric.
    fn memory_labels(&self, ptr: Id) -> Option<Labels> {
        if self.is_untyped_pointer(ptr) {
            return Some(Labels::ALL);
        }
        self.labels_of_type(self.pointee(ptr)?)
    }

    /// The type of member `index` of an aggregate or vector type.
    fn member(&self, ty: Id, index: u32) -> Option<Id> {
        let t = self.type_inst(ty)?;
        match t.op {
            Op::TypeStruct => t.arg(index as usize),
            Op::TypeVector | Op::TypeMatrix | Op::TypeArray | Op::TypeRuntimeArray => t.arg(0),
            _ => None,
        }
    }

    fn is_vector_or_scalar(&self, ty: Id) -> bool {
        self.numeric(ty).is_some()
    }

    /// The sampled type's labels of the image behind an image, sampled image or pointer to one.
    fn sampled_labels(&self, image: Id) -> Option<Labels> {
        let mut ty = self.type_inst(self.value_type(image)?)?;
        for _ in 0..3 {
            match (ty.op, ty.arg(0)) {
                (Op::TypeSampledImage | Op::TypePointer, Some(i)) => ty = self.type_inst(i)?,
                (Op::TypeImage, Some(sampled)) => {
                    return self.scalar(sampled).and_then(|(l, _)| l);
                }
                _ => return None,
            }
        }
        None
    }

    /// The typing of `inst`, which is in function `f` (for returns), or `None` when it cannot be
    /// described (its values must keep their types).
    pub fn typing(&self, f: Option<&Function>, inst: &Inst) -> Option<InstTyping> {
        let info = ops::for_inst(inst, &self.sets)?;
        let typing = info.typing.as_ref()?;
        let ids: Vec<(usize, Id)> = inst.args.iter().copied().enumerate().collect();
        // An extended instruction's first id is its set.
        let values = if info.set == OpSet::Core {
            &ids[..]
        } else {
            ids.get(1..).unwrap_or(&[])
        };
        let numeric_result = inst.ty.is_some_and(|t| self.is_vector_or_scalar(t));
        let mut out = InstTyping {
            result: None,
            operands: Vec::new(),
        };
        let generic_result = |v: Val| val_labels(v).map(Made::In);
        let result_id = inst.result.unwrap_or(0);
        // Scopes and memory semantics are always 32-bit integers, whatever the op.
        let scopes = scope_args(inst);
        for &k in &scopes {
            out.operands.push((k, Need::In(Labels::INT)));
        }
        let generic = typing.result != Val::Context && !typing.operands.contains(&Val::Context);
        if generic {
            if numeric_result {
                out.result = generic_result(typing.result);
            }
            for (n, &(k, _)) in values.iter().enumerate() {
                if !scopes.contains(&k) {
                    let need = match typing.operand(n) {
                        Val::Same => Some(Need::Same(result_id)),
                        v => val_labels(v).map(Need::In),
                    };
                    out.operands.extend(need.map(|need| (k, need)));
                }
            }
            if inst.op == Op::Phi {
                // (value, block) pairs: only the values.
                out.operands.retain(|(k, _)| k % 2 == 0);
            }
            if inst.op == Op::Bitcast {
                // A pointer converts only to and from integers.
                let is_pointer = |t: Option<Id>| {
                    t.and_then(|t| self.type_inst(t)).is_some_and(|t| {
                        matches!(t.op, Op::TypePointer | Op::TypeUntypedPointerKHR)
                    })
                };
                if numeric_result && is_pointer(values.first().and_then(|v| self.value_type(v.1))) {
                    out.result = Some(Made::In(Labels::INT));
                }
                if is_pointer(inst.ty) {
                    for (_, need) in &mut out.operands {
                        *need = Need::In(Labels::INT);
                    }
                }
            }
            return Some(out);
        }
        if let Some(image) = info.image {
            return self.image_typing(inst, image, values, numeric_result, out);
        }
        self.context_typing(f, inst, values, numeric_result, out)
    }

    /// Ops typed by their context, one by one.
    fn context_typing(
        &self,
        f: Option<&Function>,
        inst: &Inst,
        values: &[(usize, Id)],
        numeric_result: bool,
        mut out: InstTyping,
    ) -> Option<InstTyping> {
        let result_id = inst.result.unwrap_or(0);
        let ty = inst.ty;
        let first = values.first().map(|v| v.1);
        let need_of_type = |t: Id| self.labels_of_type(t).map(Need::In);
        match inst.op {
            Op::Load => {
                if numeric_result {
                    out.result = Some(Made::In(self.memory_labels(first?)?));
                }
            }
            Op::Store => {
                let &(k, _) = values.get(1)?;
                out.operands
                    .extend(self.memory_labels(first?).map(|l| (k, Need::In(l))));
            }
            Op::Variable => {
                // The initializer has the pointee's type.
                let Some(&(k, _)) = values.first() else {
                    return Some(out);
                };
                let pointee = self.type_inst(ty?)?.arg(0)?;
                out.operands.extend(need_of_type(pointee).map(|n| (k, n)));
            }
            op if super::inst::is_atomic(op) => {
                let labels = self.memory_labels(first?)?;
                if numeric_result {
                    out.result = Some(Made::In(labels));
                }
                let scopes = scope_args(inst);
                for &(k, _) in &values[1..] {
                    if !scopes.contains(&k) {
                        out.operands.push((k, Need::In(labels)));
                    }
                }
            }
            Op::CompositeConstruct => {
                let t = ty?;
                if self.numeric(t).is_some_and(|n| n.label.is_none()) {
                    out.result = Some(Made::In(Labels::ALL));
                    for &(k, _) in values {
                        out.operands.push((k, Need::Same(result_id)));
                    }
                } else {
                    let is_struct = self.type_inst(t)?.op == Op::TypeStruct;
                    for (n, &(k, _)) in values.iter().enumerate() {
                        // A vector built from pieces takes its component type from each piece's
                        // own shape; a struct, array or matrix gives each member's type.
                        let member = if is_struct {
                            self.member(t, n as u32)
                        } else {
                            self.member(t, 0)
                        };
                        let need = match (self.numeric(t), member) {
                            (Some(n), _) => n.label.map(Need::In),
                            (None, Some(m)) => need_of_type(m),
                            _ => None,
                        };
                        out.operands.extend(need.map(|need| (k, need)));
                    }
                    if numeric_result {
                        out.result = Some(Made::In(self.labels_of_type(t)?));
                    }
                }
            }
            Op::CompositeExtract => {
                let (k, composite) = *values.first()?;
                let ct = self.value_type(composite)?;
                if self.numeric(ct).is_some() {
                    // From a vector: the component has the vector's label.
                    if numeric_result {
                        out.result = Some(Made::In(Labels::ALL));
                        out.operands.push((k, Need::Same(result_id)));
                    }
                } else if numeric_result {
                    // From a typed aggregate: the member's type at the path.
                    let mut t = ct;
                    for o in inst.lits() {
                        if let Operand::LiteralBit32(i) = o {
                            t = self.member(t, *i)?;
                        }
                    }
                    out.result = Some(Made::In(self.labels_of_type(t)?));
                }
            }
            Op::CompositeInsert => {
                let (ko, _) = *values.first()?;
                let (kc, composite) = *values.get(1)?;
                let ct = self.value_type(composite)?;
                if self.numeric(ct).is_some_and(|n| n.label.is_none()) {
                    out.result = Some(Made::In(Labels::ALL));
                    out.operands.push((ko, Need::Same(result_id)));
                    out.operands.push((kc, Need::Same(result_id)));
                } else {
                    // Into a typed aggregate or vector: the object has the member's type.
                    let mut t = ct;
                    for o in inst.lits() {
                        if let Operand::LiteralBit32(i) = o {
                            t = self.member(t, *i)?;
                        }
                    }
                    out.operands.extend(need_of_type(t).map(|n| (ko, n)));
                    if numeric_result {
                        out.result = Some(Made::In(self.labels_of_type(ty?)?));
                    }
                }
            }
            Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => {
                let member = self.member(ty?, 0)?;
                for &(k, _) in values {
                    out.operands.extend(need_of_type(member).map(|n| (k, n)));
                }
            }
            Op::FunctionCall => {
                let callee = first?;
                if numeric_result {
                    out.result = Some(Made::Tied(callee));
                }
                let params = self.params.get(&callee)?;
                for (n, &(k, _)) in values[1..].iter().enumerate() {
                    out.operands.push((k, Need::Same(*params.get(n)?)));
                }
            }
            Op::ReturnValue => {
                let &(k, _) = values.first()?;
                out.operands.push((k, Need::Same(f?.id())));
            }
            _ => {
                // A family typed by context whose op is not described here.
                let info = ops::for_inst(inst, &self.sets)?;
                let typing = info.typing.as_ref()?;
                if typing.result == Val::Context && numeric_result {
                    return None;
                }
                for (n, &(k, _)) in values.iter().enumerate() {
                    match typing.operand(n) {
                        Val::Context => {
                            if self
                                .value_type(inst.args[k])
                                .is_some_and(|t| self.numeric(t).is_some())
                            {
                                return None;
                            }
                        }
                        Val::Same => out.operands.push((k, Need::Same(result_id))),
                        v => out.operands.extend(val_labels(v).map(|l| (k, Need::In(l)))),
                    }
                }
                if numeric_result {
                    out.result = val_labels(typing.result).map(Made::In);
                }
            }
        }
        Some(out)
    }

    /// Image ops, as the op table describes them (`ops::ImageAccess`): the result and a
    /// written texel have the image's sampled type; the coordinate's kind is the op's; image
    /// operands follow their mask.
    fn image_typing(
        &self,
        inst: &Inst,
        image: ImageAccess,
        values: &[(usize, Id)],
        numeric_result: bool,
        mut out: InstTyping,
    ) -> Option<InstTyping> {
        let sampled = self.sampled_labels(values.first()?.1);
        let coordinate = match image.coordinate {
            Coordinate::Float => Labels::F,
            Coordinate::Int => Labels::INT,
        };
        if numeric_result {
            out.result = Some(Made::In(match image.result {
                ImageResult::Float => Labels::F,
                // A depth comparison of an image whose sampled type is not numeric is a float.
                ImageResult::DepthSampled => sampled.unwrap_or(Labels::F),
                ImageResult::Sampled => sampled?,
                // A struct, a pointer or no value: a numeric result means a broken module.
                ImageResult::Sparse | ImageResult::Pointer | ImageResult::Nothing => return None,
            }));
        }
        if let Some(&(k, _)) = values.get(1) {
            out.operands.push((k, Need::In(coordinate)));
        }
        let after = match image.after_coordinate {
            AfterCoordinate::Nothing => None,
            AfterCoordinate::DepthReference => Some(Labels::F),
            AfterCoordinate::Component | AfterCoordinate::Sample => Some(Labels::INT),
            AfterCoordinate::Texel => Some(sampled?),
        };
        if let (Some(l), Some(&(k, _))) = (after, values.get(2)) {
            out.operands.push((k, Need::In(l)));
        }
        // Image operands: a mask, then its parameters in bit order.
        let Some(mask_at) = (0..inst.operand_count())
            .find(|&k| matches!(inst.operand(k), Some(Opd::Lit(Operand::ImageOperands(_)))))
        else {
            return Some(out);
        };
        let Some(Opd::Lit(Operand::ImageOperands(mask))) = inst.operand(mask_at) else {
            return Some(out);
        };
        let mask = *mask;
        use spirv::ImageOperands as I;
        // A fetch's level of detail is an integer, a sample's a float.
        let lod = coordinate;
        let mut params: Vec<Option<Labels>> = Vec::new();
        for (bit, kinds) in [
            (I::BIAS, vec![Some(Labels::F)]),
            (I::LOD, vec![Some(lod)]),
            (I::GRAD, vec![Some(Labels::F), Some(Labels::F)]),
            (I::CONST_OFFSET, vec![Some(Labels::INT)]),
            (I::OFFSET, vec![Some(Labels::INT)]),
            (I::CONST_OFFSETS, vec![None]),
            (I::SAMPLE, vec![Some(Labels::INT)]),
            (I::MIN_LOD, vec![Some(Labels::F)]),
            (I::MAKE_TEXEL_AVAILABLE, vec![Some(Labels::INT)]),
            (I::MAKE_TEXEL_VISIBLE, vec![Some(Labels::INT)]),
            (I::OFFSETS, vec![None]),
        ] {
            if mask.contains(bit) {
                params.extend(kinds);
            }
        }
        // Every parameter is an id, so the ids after the mask are the parameters in order.
        let first = (0..inst.args.len()).find(|&n| inst.arg_position(n) > mask_at);
        if let Some(first) = first {
            for (n, l) in (first..inst.args.len()).zip(&params) {
                if let Some(l) = l {
                    out.operands.push((n, Need::In(*l)));
                }
            }
        }
        Some(out)
    }
}

/// The `args` indices of an instruction's scope and memory-semantics operands.
fn scope_args(inst: &Inst) -> Vec<usize> {
    let scopes: Vec<usize> = super::spirv::grammar::scope_operands(inst.op).collect();
    if scopes.is_empty() {
        return scopes;
    }
    (0..inst.args.len())
        .filter(|&n| scopes.contains(&inst.arg_position(n)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const IMAGES: &str = "OpCapability Shader
OpCapability SparseResidency
OpCapability ImageQuery
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\"
OpExecutionMode %main OriginUpperLeft
%void = OpTypeVoid
%fn = OpTypeFunction %void
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%v2float = OpTypeVector %float 2
%v2int = OpTypeVector %int 2
%v4float = OpTypeVector %float 4
%v4uint = OpTypeVector %uint 4
%sparse = OpTypeStruct %int %v4float
%f0 = OpConstant %float 0
%i0 = OpConstant %int 0
%u0 = OpConstant %uint 0
%uv = OpConstantComposite %v2float %f0 %f0
%ij = OpConstantComposite %v2int %i0 %i0
%texel = OpConstantComposite %v4uint %u0 %u0 %u0 %u0
%image = OpTypeImage %float 2D 0 0 0 1 Unknown
%sampled = OpTypeSampledImage %image
%depth = OpTypeImage %float 2D 1 0 0 1 Unknown
%dsampled = OpTypeSampledImage %depth
%storage = OpTypeImage %uint 2D 0 0 0 2 R32ui
%ptr_tex = OpTypePointer UniformConstant %sampled
%ptr_dtex = OpTypePointer UniformConstant %dsampled
%ptr_img = OpTypePointer UniformConstant %storage
%ptr_texel = OpTypePointer Image %uint
%tex = OpVariable %ptr_tex UniformConstant
%dtex = OpVariable %ptr_dtex UniformConstant
%img = OpVariable %ptr_img UniformConstant
%main = OpFunction %void None %fn
%entry = OpLabel
%t = OpLoad %sampled %tex
%dt = OpLoad %dsampled %dtex
%si = OpLoad %storage %img
%ti = OpImage %image %t
%s = OpImageSampleImplicitLod %v4float %t %uv Bias %f0
%fe = OpImageFetch %v4float %ti %ij Lod %i0
%rd = OpImageRead %v4uint %si %ij
OpImageWrite %si %ij %texel
%g = OpImageGather %v4float %t %uv %i0 ConstOffset %ij
%d = OpImageSampleDrefExplicitLod %float %dt %uv %f0 Lod %f0
%q = OpImageQueryLod %v2float %t %uv
%tp = OpImageTexelPointer %ptr_texel %img %ij %u0
%sp = OpImageSparseSampleImplicitLod %sparse %t %uv
%sf = OpImageSparseFetch %sparse %ti %ij
%sg = OpImageSparseDrefGather %sparse %dt %uv %f0
OpReturn
OpFunctionEnd
";

    fn typing_of(op: Op) -> Option<InstTyping> {
        let m = crate::ir::parse::parse(IMAGES).unwrap();
        let info = TypeInfo::new(&m);
        let f = &m.functions()[0];
        let inst = f.body().find(|i| i.op == op).unwrap();
        info.typing(Some(f), inst)
    }

    fn typing(result: Option<Labels>, operands: &[(usize, Labels)]) -> Option<InstTyping> {
        Some(InstTyping {
            result: result.map(Made::In),
            operands: operands.iter().map(|&(k, l)| (k, Need::In(l))).collect(),
        })
    }

    #[test]
    fn image_ops_are_typed_from_the_op_table() {
        use Labels as L;
        // Sampling: float coordinate and bias; the result is the sampled type.
        assert_eq!(
            typing_of(Op::ImageSampleImplicitLod),
            typing(Some(L::F), &[(1, L::F), (2, L::F)])
        );
        // Fetching: integer coordinate, and an integer level of detail.
        assert_eq!(
            typing_of(Op::ImageFetch),
            typing(Some(L::F), &[(1, L::INT), (2, L::INT)])
        );
        assert_eq!(typing_of(Op::ImageRead), typing(Some(L::U), &[(1, L::INT)]));
        // The texel written has the image's sampled type.
        assert_eq!(
            typing_of(Op::ImageWrite),
            typing(None, &[(1, L::INT), (2, L::U)])
        );
        // Gathering: an integer component, then an integer offset.
        assert_eq!(
            typing_of(Op::ImageGather),
            typing(Some(L::F), &[(1, L::F), (2, L::INT), (3, L::INT)])
        );
        assert_eq!(
            typing_of(Op::ImageSampleDrefExplicitLod),
            typing(Some(L::F), &[(1, L::F), (2, L::F), (3, L::F)])
        );
        assert_eq!(
            typing_of(Op::ImageQueryLod),
            typing(Some(L::F), &[(1, L::F)])
        );
    }

    #[test]
    fn texel_pointers_and_sparse_ops_type_their_operands() {
        use Labels as L;
        // These were left undescribed, so their coordinates stayed typed: a texel pointer's
        // coordinate and sample are integers; a sparse op reads what its plain form reads and
        // makes a struct, which is no numeric value.
        assert_eq!(
            typing_of(Op::ImageTexelPointer),
            typing(None, &[(1, L::INT), (2, L::INT)])
        );
        assert_eq!(
            typing_of(Op::ImageSparseSampleImplicitLod),
            typing(None, &[(1, L::F)])
        );
        assert_eq!(
            typing_of(Op::ImageSparseFetch),
            typing(None, &[(1, L::INT)])
        );
        assert_eq!(
            typing_of(Op::ImageSparseDrefGather),
            typing(None, &[(1, L::F), (2, L::F)])
        );
    }
}
