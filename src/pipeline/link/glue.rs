//! Code the pipeline state asks for: specialization constants frozen to their values, a
//! vertex-fetch prolog (programmable vertex pulling) and a colour-export epilog.
//!
//! The prolog and epilog come in two placements. `Placement::Inline` is what a state known at
//! compile time gives: the code goes straight into the entry point, before the shader's own
//! code (fetch) or before each return (export), where later passes optimise across it.
//! `Placement::Glue` is what a state known only at link time gives: the code is a function of
//! its own (`%vertex_fetch`, `%color_export`) that the entry point calls, as LLPC glues a
//! prolog in front of a shader compiled without the state and an epilog behind it.
//!
//! Fetch: every vertex input with an attribute in the state becomes a `Private` variable that
//! the prolog fills from a storage buffer per vertex binding (`uint[]`, set
//! `vertex.buffer_set`, binding = the vertex binding), indexed by `VertexIndex` or
//! `InstanceIndex` times the stride plus the offset, converted as the format says; components
//! the format lacks are (0, 0, 0, 1) as in fixed-function fetch.
//!
//! Export: every fragment output with an attachment in the state becomes a `Private` variable;
//! the epilog converts it to the attachment's format (unorm/snorm quantisation, sRGB encoding,
//! half floats, integer truncation) and writes the packed texel as `uint`, `uvec2` or `uvec4` to
//! a new output at the same location: an attachment of `r32_uint`, `r32g32_uint` or
//! `r32g32b32a32_uint` then holds the bytes the original format would.

use std::collections::{HashMap, HashSet};

use rspirv::dr::Operand;
use spirv::{BuiltIn, Decoration, ExecutionModel, Op, StorageClass};

use super::stages::{interface, Slot};
use super::state::{Encoding, NumericClass, PipelineState, Rate, SpecValue};
use crate::ir::ops::fold::{rule, Value};
use crate::ir::rewrite::{self, out_of_ids, Builder};
use crate::ir::{Id, Inst, Module};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Inline,
    Glue,
}

const GLSL_PACK_HALF_2X16: u32 = 58;
const GLSL_UNPACK_HALF_2X16: u32 = 62;
const GLSL_ROUND: u32 = 1;
const GLSL_FCLAMP: u32 = 43;
const GLSL_FMAX: u32 = 40;
const GLSL_POW: u32 = 26;

/// The first entry point of `model`: (function id, index in `entry_points`).
fn entry_of(m: &Module, model: ExecutionModel) -> Option<(Id, usize)> {
    m.entry_points()
        .iter()
        .enumerate()
        .find_map(|(n, ep)| match (ep.lits().first(), ep.arg(0)) {
            (Some(Operand::ExecutionModel(em)), Some(f)) if *em == model => Some((f, n)),
            _ => None,
        })
}

fn decorate(m: &mut Module, id: Id, d: Decoration, extra: Vec<Operand>) {
    Builder::detached(m).decorate_once(id, d, extra);
}

fn name(m: &mut Module, id: Id, text: &str) {
    m.set_name(id, text.into());
}

/// Whether SPIR-V lists every global the entry point uses in its interface (1.4 on), rather
/// than only its inputs and outputs.
fn lists_all_globals(m: &Module) -> bool {
    m.header.version >= (1, 4)
}

fn add_to_interface(m: &mut Module, ep: usize, var: Id) {
    rewrite::add_interface(m, ep, var);
}

/// Turns an interface variable into a `Private` one of the same id, so the shader's own loads
/// and stores keep working while glue takes over its place in the interface.
fn make_private(m: &mut Module, ep: usize, var: Id) -> Result<(), String> {
    let g = m
        .global(var)
        .cloned()
        .ok_or("interface variable vanished")?;
    let pointee = g
        .ty()
        .and_then(|p| m.global(p))
        .and_then(|p| p.arg(0))
        .ok_or("interface variable without a pointer type")?;
    let ptr = m
        .pointer_to(StorageClass::Private, pointee)
        .ok_or_else(out_of_ids)?;
    // The pointer type may be new, and so after the variable: move the variable to the end.
    crate::ir::rewrite::retain_globals(m, |i| i.result() != Some(var));
    let v = g
        .retyped(Some(ptr))
        .with_lit(0, Operand::StorageClass(StorageClass::Private));
    m.push_global(v);
    crate::ir::rewrite::retain_annotations(m, |a| {
        !(a.op() == Op::Decorate
            && a.args().first() == Some(&var)
            && matches!(
                a.lits().first(),
                Some(Operand::Decoration(
                    Decoration::Location
                        | Decoration::Component
                        | Decoration::Flat
                        | Decoration::NoPerspective
                        | Decoration::Centroid
                        | Decoration::Sample
                        | Decoration::Index
                ))
            ))
    });
    if !lists_all_globals(m) {
        rewrite::retain_interface(m, ep, |o| o != var);
    }
    Ok(())
}

/// (component type, count, class) of a scalar or vector of 32-bit numbers.
fn shape(m: &Module, ty: Id) -> Option<(Id, u32, NumericClass)> {
    let t = m.global(ty)?;
    let (scalar, n) = match (t.op(), t.args(), t.lits()) {
        (Op::TypeVector, [c], [Operand::LiteralBit32(n)]) => (*c, *n),
        _ => (ty, 1),
    };
    let s = m.global(scalar)?;
    let class = match (s.op(), s.lits()) {
        (Op::TypeFloat, [Operand::LiteralBit32(32), ..]) => NumericClass::Float,
        (Op::TypeInt, [Operand::LiteralBit32(32), Operand::LiteralBit32(0)]) => NumericClass::Uint,
        (Op::TypeInt, [Operand::LiteralBit32(32), Operand::LiteralBit32(1)]) => NumericClass::Sint,
        _ => return None,
    };
    Some((scalar, n, class))
}

fn pointee(m: &Module, var: Id) -> Option<Id> {
    let p = m.global(var)?.ty()?;
    m.global(p)?.arg(0)
}

fn class_name(c: NumericClass) -> &'static str {
    match c {
        NumericClass::Float => "floats",
        NumericClass::Uint => "unsigned integers",
        NumericClass::Sint => "signed integers",
    }
}

/// Puts `code` where the placement says: at the start of the entry function (after its
/// variables), or in a new function `glue_name` called from there. For the epilog, `at_returns`
/// puts it before every `OpReturn` of the entry function instead; `code_for` is called once
/// per place, so every copy has ids of its own.
fn place(
    m: &mut Module,
    entry: Id,
    placement: Placement,
    glue_name: &str,
    at_returns: bool,
    mut code_for: impl FnMut(&mut Module) -> Result<Vec<Inst>, String>,
) -> Result<(), String> {
    let fi = m
        .function_position(entry)
        .ok_or("the entry point's function is missing")?;
    let sites: Vec<usize> = if at_returns {
        let f = &m.functions()[fi];
        (0..f.blocks().len())
            .filter(|&b| f.terminator(b).op() == Op::Return)
            .collect()
    } else {
        vec![0]
    };
    let call = match placement {
        Placement::Inline => None,
        Placement::Glue => {
            let code = code_for(m)?;
            let void = m.void_type().ok_or_else(out_of_ids)?;
            let mut b = Builder::detached(m);
            let mut f = b.function(void, &[])?;
            let label = b.fresh()?;
            b.ret(None);
            let ret = b.take_terminator();
            let id = f.id();
            name(m, id, glue_name);
            f.push_block(label, code, None, ret);
            m.push_function(f);
            Some((void, id))
        }
    };
    for site in sites {
        let code = match call {
            None => code_for(m)?,
            Some((void, f)) => {
                let mut b = Builder::detached(m);
                b.ids(Op::FunctionCall, void, &[f])?;
                b.take()
            }
        };
        let f = rewrite::function_at_mut(m, fi);
        let at = if at_returns {
            f.block(site).insts.len()
        } else {
            f.block_insts(site)
                .rposition(|i| i.op() == Op::Variable)
                .map_or(0, |p| p + 1)
        };
        for (k, inst) in code.into_iter().enumerate() {
            f.insert_inst(site, at + k, inst);
        }
    }
    Ok(())
}

/// The `SpecId` of every specialization constant, by constant id.
pub fn spec_ids(m: &Module) -> HashMap<Id, u32> {
    m.annotations()
        .iter()
        .filter_map(|a| match (a.args(), a.lits()) {
            ([id], [Operand::Decoration(Decoration::SpecId), Operand::LiteralBit32(n)]) => {
                Some((*id, *n))
            }
            _ => None,
        })
        .collect()
}

/// Freezes the specialization constants the state gives a value for and folds what depends on
/// them. Returns one line per frozen constant.
pub fn freeze_spec_constants(m: &mut Module, state: &PipelineState) -> Result<Vec<String>, String> {
    let spec_ids = spec_ids(m);
    let names = crate::ir::names::Names::for_module(m);
    let mut frozen = Vec::new();
    let mut frozen_ids = HashSet::new();
    let mut edits = Vec::new();
    for g in m.globals() {
        let (Some(id), Some(ty)) = (g.result(), g.ty()) else {
            continue;
        };
        if !matches!(
            g.op(),
            Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse
        ) {
            continue;
        }
        let Some(spec) = spec_ids.get(&id) else {
            continue;
        };
        let Some(value) = state.specialization.get(spec) else {
            continue;
        };
        let t = m.global(ty).ok_or("constant without a type")?;
        let what = || {
            format!(
                "{}: specialization constant {spec} (%{}, {})",
                state.source,
                names.get(id),
                super::stages::type_sig(m, ty, 0).replace("?", "")
            )
        };
        let (op, operands) = match (t.op(), t.lits(), value) {
            (Op::TypeBool, _, SpecValue::Bool(b)) => (
                if *b {
                    Op::ConstantTrue
                } else {
                    Op::ConstantFalse
                },
                vec![],
            ),
            (
                Op::TypeInt,
                [Operand::LiteralBit32(w), Operand::LiteralBit32(s)],
                SpecValue::Int(i),
            ) => {
                let (lo, hi) = match (*w, *s) {
                    (64, 1) => (i64::MIN, i64::MAX),
                    (64, _) => (0, i64::MAX),
                    (w @ 1..=63, 1) => (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1),
                    (w @ 1..=63, _) => (0, (1i64 << w) - 1),
                    (w, _) => {
                        return Err(format!(
                            "{} is a {w}-bit integer, which is not supported",
                            what()
                        ))
                    }
                };
                if *i < lo || *i > hi {
                    return Err(format!("{} is given {i}, which it cannot hold", what()));
                }
                let operand = if *w == 64 {
                    Operand::LiteralBit64(*i as u64)
                } else {
                    Operand::LiteralBit32((*i as u64 & ((1u64 << w) - 1)) as u32)
                };
                (Op::Constant, vec![operand])
            }
            (
                Op::TypeFloat,
                [Operand::LiteralBit32(w), ..],
                SpecValue::Float(_) | SpecValue::Int(_),
            ) => {
                let x = match value {
                    SpecValue::Float(x) => *x,
                    SpecValue::Int(i) => *i as f64,
                    SpecValue::Bool(_) => unreachable!("matched above"),
                };
                let operand = match w {
                    32 => Operand::LiteralBit32((x as f32).to_bits()),
                    64 => Operand::LiteralBit64(x.to_bits()),
                    16 => Operand::LiteralBit32(u32::from(crate::ir::number::f64_to_f16(x))),
                    _ => return Err(format!("{}: unsupported float width", what())),
                };
                (Op::Constant, vec![operand])
            }
            _ => {
                let kind = match value {
                    SpecValue::Bool(_) => "a boolean",
                    SpecValue::Int(_) => "an integer",
                    SpecValue::Float(_) => "a float",
                };
                return Err(format!("{} is given {kind} ({value})", what()));
            }
        };
        frozen.push(format!("SpecId {spec} %{} = {value}", names.get(id)));
        frozen_ids.insert(id);
        edits.push((id, op, operands));
    }
    rewrite::freeze_spec_constants(m, edits);
    if frozen.is_empty() {
        return Ok(frozen);
    }
    crate::ir::rewrite::retain_annotations(m, |a| {
        !(matches!(
            a.lits().first(),
            Some(Operand::Decoration(Decoration::SpecId))
        ) && matches!(a.args().first(), Some(i) if frozen_ids.contains(i)))
    });
    fold_spec_dependents(m);
    m.reindex();
    Ok(frozen)
}

/// Turns spec-constant composites and ops whose operands are all constants now into constants.
fn fold_spec_dependents(m: &mut Module) {
    let mut values: HashMap<Id, Value> = HashMap::new();
    let mut kinds: HashMap<Id, (Op, u32, bool)> = HashMap::new();
    let mut constant: HashSet<Id> = HashSet::new();
    // Frozen after the walk, which reads only what it noted of earlier globals.
    let mut frozen = Vec::new();
    for n in 0..m.globals().len() {
        let g = m.globals()[n].clone();
        let Some(id) = g.result() else { continue };
        match (g.op(), g.lits()) {
            (Op::TypeInt, [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]) => {
                kinds.insert(id, (Op::TypeInt, *w, *s == 1));
            }
            (Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => {
                kinds.insert(id, (Op::TypeFloat, *w, false));
            }
            (Op::TypeBool, _) => {
                kinds.insert(id, (Op::TypeBool, 1, false));
            }
            _ => {}
        }
        let ty_kind = g.ty().and_then(|t| kinds.get(&t).copied());
        match g.op() {
            Op::ConstantTrue | Op::ConstantFalse => {
                values.insert(id, Value::Bool(g.op() == Op::ConstantTrue));
                constant.insert(id);
            }
            Op::Constant => {
                constant.insert(id);
                let bits = match g.lits().first() {
                    Some(Operand::LiteralBit32(b)) => u64::from(*b),
                    Some(Operand::LiteralBit64(b)) => *b,
                    _ => continue,
                };
                match ty_kind {
                    Some((Op::TypeInt, w, _)) => {
                        values.insert(id, Value::Int { bits, width: w });
                    }
                    Some((Op::TypeFloat, 32, _)) => {
                        values.insert(
                            id,
                            Value::Float {
                                value: f64::from(f32::from_bits(bits as u32)),
                                width: 32,
                            },
                        );
                    }
                    Some((Op::TypeFloat, 64, _)) => {
                        values.insert(
                            id,
                            Value::Float {
                                value: f64::from_bits(bits),
                                width: 64,
                            },
                        );
                    }
                    _ => {}
                }
            }
            Op::ConstantComposite | Op::ConstantNull => {
                constant.insert(id);
            }
            Op::SpecConstantComposite if g.id_operands().all(|p| constant.contains(&p)) => {
                frozen.push((id, Op::ConstantComposite, g.to_operands()));
                constant.insert(id);
            }
            Op::SpecConstantOp => {
                let Some(Operand::LiteralSpecConstantOpInteger(inner)) = g.lits().first() else {
                    continue;
                };
                let args: Option<Vec<Value>> =
                    g.id_operands().map(|p| values.get(&p).copied()).collect();
                let Some(v) = args.and_then(|a| rule(*inner)?(&a)) else {
                    continue;
                };
                let (op, operands) = match (v, ty_kind) {
                    (Value::Bool(b), Some((Op::TypeBool, ..))) => (
                        if b {
                            Op::ConstantTrue
                        } else {
                            Op::ConstantFalse
                        },
                        vec![],
                    ),
                    (Value::Int { bits, .. }, Some((Op::TypeInt, 32, _))) => {
                        (Op::Constant, vec![Operand::LiteralBit32(bits as u32)])
                    }
                    (Value::Int { bits, .. }, Some((Op::TypeInt, 64, _))) => {
                        (Op::Constant, vec![Operand::LiteralBit64(bits)])
                    }
                    (Value::Float { value, .. }, Some((Op::TypeFloat, 32, _))) => (
                        Op::Constant,
                        vec![Operand::LiteralBit32((value as f32).to_bits())],
                    ),
                    (Value::Float { value, .. }, Some((Op::TypeFloat, 64, _))) => {
                        (Op::Constant, vec![Operand::LiteralBit64(value.to_bits())])
                    }
                    _ => continue,
                };
                values.insert(id, v);
                constant.insert(id);
                frozen.push((id, op, operands));
            }
            _ => {}
        }
    }
    rewrite::freeze_spec_constants(m, frozen);
}

/// Finds the `Input` variable decorated with `builtin`, or declares one (an `int`).
fn builtin_input(m: &mut Module, ep: usize, builtin: BuiltIn) -> Result<Id, String> {
    let found = m
        .annotations()
        .iter()
        .find_map(|a| match (a.args(), a.lits()) {
            ([v], [Operand::Decoration(Decoration::BuiltIn), Operand::BuiltIn(b)])
                if *b == builtin =>
            {
                Some(*v)
            }
            _ => None,
        });
    let var = match found {
        Some(v) => v,
        None => {
            let mut e = Builder::detached(m);
            let i32_t = e.i32_t()?;
            let ptr = e.ptr(StorageClass::Input, i32_t)?;
            let v = e.global(
                Op::Variable,
                ptr,
                vec![Operand::StorageClass(StorageClass::Input)],
            )?;
            decorate(m, v, Decoration::BuiltIn, vec![Operand::BuiltIn(builtin)]);
            name(
                m,
                v,
                match builtin {
                    BuiltIn::InstanceIndex => "instance_index",
                    _ => "vertex_index",
                },
            );
            v
        }
    };
    add_to_interface(m, ep, var);
    Ok(var)
}

/// The storage buffer the fetch glue reads vertex binding `binding` from: found by its
/// descriptor set and binding, or declared.
fn vertex_buffer(m: &mut Module, ep: usize, set: u32, binding: u32) -> Result<Id, String> {
    let decorated = |m: &Module, v: Id, d: Decoration, n: u32| {
        m.annotations().iter().any(|a| {
            a.op() == Op::Decorate
                && a.args() == [v]
                && a.lits() == [Operand::Decoration(d), Operand::LiteralBit32(n)]
        })
    };
    let existing = m.globals().iter().find_map(|g| {
        let v = g.result()?;
        (g.op() == Op::Variable
            && g.lits().first() == Some(&Operand::StorageClass(StorageClass::StorageBuffer))
            && decorated(m, v, Decoration::DescriptorSet, set)
            && decorated(m, v, Decoration::Binding, binding))
        .then_some(v)
    });
    if let Some(v) = existing {
        add_to_interface_if_needed(m, ep, v);
        return Ok(v);
    }
    if m.header.version < (1, 3) {
        m.require_extension("SPV_KHR_storage_buffer_storage_class");
    }
    let mut e = Builder::detached(m);
    let u32_t = e.u32_t()?;
    let words = e.intern(Op::TypeRuntimeArray, None, vec![Operand::IdRef(u32_t)])?;
    decorate(
        m,
        words,
        Decoration::ArrayStride,
        vec![Operand::LiteralBit32(4)],
    );
    // Structs are nominal: a fresh one, so its decorations are ours alone.
    let mut e = Builder::detached(m);
    let block = e.fresh()?;
    e.global_as(Op::TypeStruct, None, block, vec![Operand::IdRef(words)]);
    e.decorate_once(block, Decoration::Block, vec![]);
    e.member_decorate(block, 0, Decoration::Offset, vec![Operand::LiteralBit32(0)]);
    e.member_decorate(block, 0, Decoration::NonWritable, vec![]);
    let ptr = e.ptr(StorageClass::StorageBuffer, block)?;
    let v = e.global(
        Op::Variable,
        ptr,
        vec![Operand::StorageClass(StorageClass::StorageBuffer)],
    )?;
    decorate(
        m,
        v,
        Decoration::DescriptorSet,
        vec![Operand::LiteralBit32(set)],
    );
    decorate(
        m,
        v,
        Decoration::Binding,
        vec![Operand::LiteralBit32(binding)],
    );
    name(m, block, "VertexWords");
    name(m, v, &format!("vertex_buffer_{binding}"));
    add_to_interface_if_needed(m, ep, v);
    Ok(v)
}

fn add_to_interface_if_needed(m: &mut Module, ep: usize, var: Id) {
    if lists_all_globals(m) {
        add_to_interface(m, ep, var);
    }
}

/// The descriptor set the fetch glue uses when the state does not say: the one after the
/// highest the module uses.
fn free_set(m: &Module) -> u32 {
    m.annotations()
        .iter()
        .filter_map(|a| match a.lits() {
            [Operand::Decoration(Decoration::DescriptorSet), Operand::LiteralBit32(n)] => {
                Some(n + 1)
            }
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// A 32-bit float constant 1.0 or 0.0, an integer 1 or 0: the value fixed-function fetch gives
/// a component the format lacks.
fn default_component(e: &mut Builder, class: NumericClass, channel: u32) -> Result<Id, String> {
    let one = channel == 3;
    match class {
        NumericClass::Float => e.cf(if one { 1.0 } else { 0.0 }),
        NumericClass::Uint => e.cu(u32::from(one)),
        NumericClass::Sint => e.ci(i32::from(one)),
    }
}

/// Adds the vertex-fetch prolog for the vertex inputs `state` has attributes for. Returns one
/// line per fetched input. `set` is the descriptor set of the vertex buffers.
pub fn vertex_fetch(
    m: &mut Module,
    state: &PipelineState,
    placement: Placement,
) -> Result<Vec<String>, String> {
    let Some((entry, ep)) = entry_of(m, ExecutionModel::Vertex) else {
        return Ok(vec![]);
    };
    let set = state.vertex_buffer_set.unwrap_or_else(|| free_set(m));
    let mut jobs = Vec::new();
    let mut done = Vec::new();
    for input in interface(m, StorageClass::Input) {
        let Slot::Location(loc, comp) = input.slot else {
            continue;
        };
        let Some(attr) = state.attribute(loc) else {
            continue;
        };
        let what = format!("vertex input {} (location {loc})", input.name);
        if comp != 0 {
            return Err(format!(
                "{what}: inputs at a component other than 0 are not fetched"
            ));
        }
        let binding = state.binding(attr.binding).ok_or_else(|| {
            format!(
                "{}: vertex attribute at location {loc} uses binding {}, which the state does not declare",
                state.source, attr.binding
            )
        })?;
        let ty = pointee(m, input.id).ok_or("input without a type")?;
        let (_, count, class) = shape(m, ty).ok_or_else(|| {
            format!(
                "{what} is {}: only scalars and vectors of 32-bit numbers are fetched",
                input.ty
            )
        })?;
        if attr.format.encoding == Encoding::Srgb {
            return Err(format!(
                "{what}: {} is not a vertex format",
                attr.format.name
            ));
        }
        if attr.format.class() != class {
            return Err(format!(
                "{what} is {} but attribute format {} gives {}",
                input.ty,
                attr.format.name,
                class_name(attr.format.class())
            ));
        }
        jobs.push((input.id, ty, count, class, *attr, *binding));
        done.push(format!(
            "{} (location {loc}) from binding {} ({}, stride {}, offset {}, {} rate)",
            input.name,
            attr.binding,
            attr.format.name,
            binding.stride,
            attr.offset,
            match binding.rate {
                Rate::Vertex => "vertex",
                Rate::Instance => "instance",
            }
        ));
    }
    if jobs.is_empty() {
        return Ok(done);
    }
    let mut buffers = HashMap::new();
    let mut index_vars = HashMap::new();
    for &(_, _, _, _, attr, binding) in &jobs {
        if let std::collections::hash_map::Entry::Vacant(v) = buffers.entry(attr.binding) {
            v.insert(vertex_buffer(m, ep, set, attr.binding)?);
        }
        let builtin = match binding.rate {
            Rate::Vertex => BuiltIn::VertexIndex,
            Rate::Instance => BuiltIn::InstanceIndex,
        };
        if let std::collections::hash_map::Entry::Vacant(v) = index_vars.entry(binding.rate) {
            v.insert(builtin_input(m, ep, builtin)?);
        }
    }
    for &(var, ..) in &jobs {
        make_private(m, ep, var)?;
    }
    place(m, entry, placement, "vertex_fetch", false, |m| {
        let mut e = Builder::detached(m);
        let u32_t = e.u32_t()?;
        let i32_t = e.i32_t()?;
        let f32_t = e.f32_t()?;
        let ptr_word = e.ptr(StorageClass::StorageBuffer, u32_t)?;
        let zero = e.ci(0)?;
        let mut index = HashMap::new();
        for (&rate, &var) in &index_vars {
            let i = e.ids(Op::Load, i32_t, &[var])?;
            let u = e.ids(Op::Bitcast, u32_t, &[i])?;
            index.insert(rate, u);
        }
        for &(var, ty, count, class, attr, binding) in &jobs {
            let stride = e.cu(binding.stride)?;
            let offset = e.cu(attr.offset)?;
            let two = e.cu(2)?;
            let at = e.ids(Op::IMul, u32_t, &[index[&binding.rate], stride])?;
            let at = e.ids(Op::IAdd, u32_t, &[at, offset])?;
            let first = e.ids(Op::ShiftRightLogical, u32_t, &[at, two])?;
            let mut words = Vec::new();
            for k in 0..attr.format.words() {
                let w = if k == 0 {
                    first
                } else {
                    let k = e.cu(k)?;
                    e.ids(Op::IAdd, u32_t, &[first, k])?
                };
                let p = e.ids(
                    Op::AccessChain,
                    ptr_word,
                    &[buffers[&attr.binding], zero, w],
                )?;
                words.push(e.ids(Op::Load, u32_t, &[p])?);
            }
            let mut channels: [Option<Id>; 4] = [None; 4];
            for (i, &bits) in attr.format.bits.iter().enumerate() {
                let (w, off) = attr.format.place(i);
                let signed = matches!(attr.format.encoding, Encoding::Snorm | Encoding::Sint);
                let raw = if bits == 32 {
                    words[w as usize]
                } else {
                    let off = e.cu(off)?;
                    let count = e.cu(bits)?;
                    e.ids(
                        if signed {
                            Op::BitFieldSExtract
                        } else {
                            Op::BitFieldUExtract
                        },
                        u32_t,
                        &[words[w as usize], off, count],
                    )?
                };
                let max = |bits: u32| ((1u64 << bits) - 1) as f32;
                let value = match attr.format.encoding {
                    Encoding::Float if bits == 32 => e.ids(Op::Bitcast, f32_t, &[raw])?,
                    Encoding::Float => {
                        let v2 = e.vec(f32_t, 2)?;
                        let pair = e.glsl(v2, GLSL_UNPACK_HALF_2X16, &[raw])?;
                        e.op(
                            Op::CompositeExtract,
                            f32_t,
                            vec![Operand::IdRef(pair), Operand::LiteralBit32(0)],
                        )?
                    }
                    // A multiply by the reciprocal, as fixed-function fetch does it.
                    Encoding::Unorm | Encoding::Srgb => {
                        let f = e.ids(Op::ConvertUToF, f32_t, &[raw])?;
                        let r = e.cf(1.0 / max(bits))?;
                        e.ids(Op::FMul, f32_t, &[f, r])?
                    }
                    Encoding::Snorm => {
                        let s = e.ids(Op::Bitcast, i32_t, &[raw])?;
                        let f = e.ids(Op::ConvertSToF, f32_t, &[s])?;
                        let r = e.cf(1.0 / max(bits - 1))?;
                        let q = e.ids(Op::FMul, f32_t, &[f, r])?;
                        let m1 = e.cf(-1.0)?;
                        e.glsl(f32_t, GLSL_FMAX, &[q, m1])?
                    }
                    Encoding::Uint => raw,
                    Encoding::Sint => e.ids(Op::Bitcast, i32_t, &[raw])?,
                };
                channels[attr.format.channels[i] as usize] = Some(value);
            }
            let mut parts = Vec::new();
            for c in 0..count {
                parts.push(match channels.get(c as usize).copied().flatten() {
                    Some(v) => v,
                    None => default_component(&mut e, class, c)?,
                });
            }
            let value = if count == 1 {
                parts[0]
            } else {
                e.ids(Op::CompositeConstruct, ty, &parts)?
            };
            e.store(var, value);
        }
        Ok(e.code)
    })?;
    m.reindex();
    Ok(done)
}

/// Adds the colour-export epilog for the fragment outputs `state` has attachments for. Returns
/// one line per exported output.
pub fn color_export(
    m: &mut Module,
    state: &PipelineState,
    placement: Placement,
) -> Result<Vec<String>, String> {
    let Some((entry, ep)) = entry_of(m, ExecutionModel::Fragment) else {
        return Ok(vec![]);
    };
    let mut jobs = Vec::new();
    let mut done = Vec::new();
    for output in interface(m, StorageClass::Output) {
        let Slot::Location(loc, comp) = output.slot else {
            continue;
        };
        let Some(att) = state.attachment(loc) else {
            continue;
        };
        let what = format!("fragment output {} (location {loc})", output.name);
        if comp != 0 {
            return Err(format!(
                "{what}: outputs at a component other than 0 are not exported"
            ));
        }
        let ty = pointee(m, output.id).ok_or("output without a type")?;
        let (_, count, class) = shape(m, ty).ok_or_else(|| {
            format!(
                "{what} is {}: only scalars and vectors of 32-bit numbers are exported",
                output.ty
            )
        })?;
        if att.format.class() != class {
            return Err(format!(
                "{what} is {} but attachment format {} takes {}",
                output.ty,
                att.format.name,
                class_name(att.format.class())
            ));
        }
        let words = att.format.words();
        if words == 3 {
            return Err(format!(
                "{what}: {} is not a colour attachment format",
                att.format.name
            ));
        }
        jobs.push((output.id, ty, count, class, att.format, loc));
        done.push(format!(
            "{} (location {loc}) to {} as {}",
            output.name,
            att.format.name,
            match words {
                1 => "r32_uint",
                2 => "r32g32_uint",
                _ => "r32g32b32a32_uint",
            }
        ));
    }
    if jobs.is_empty() {
        return Ok(done);
    }
    let mut exports = Vec::new();
    for &(var, _, _, _, format, loc) in &jobs {
        make_private(m, ep, var)?;
        let mut e = Builder::detached(m);
        let u32_t = e.u32_t()?;
        let ty = e.vec(u32_t, format.words())?;
        let ptr = e.ptr(StorageClass::Output, ty)?;
        let v = e.global(
            Op::Variable,
            ptr,
            vec![Operand::StorageClass(StorageClass::Output)],
        )?;
        decorate(m, v, Decoration::Location, vec![Operand::LiteralBit32(loc)]);
        name(m, v, &format!("color_export_{loc}"));
        add_to_interface(m, ep, v);
        exports.push((v, ty));
    }
    place(m, entry, placement, "color_export", true, |m| {
        let mut e = Builder::detached(m);
        let u32_t = e.u32_t()?;
        let i32_t = e.i32_t()?;
        let f32_t = e.f32_t()?;
        for (&(var, ty, count, class, format, _), &(out, out_ty)) in jobs.iter().zip(&exports) {
            let value = e.ids(Op::Load, ty, &[var])?;
            let mut comps = Vec::new();
            for c in 0..count {
                comps.push(if count == 1 {
                    value
                } else {
                    let t = match class {
                        NumericClass::Float => f32_t,
                        NumericClass::Uint => u32_t,
                        NumericClass::Sint => i32_t,
                    };
                    e.op(
                        Op::CompositeExtract,
                        t,
                        vec![Operand::IdRef(value), Operand::LiteralBit32(c)],
                    )?
                });
            }
            let mut words: Vec<Option<Id>> = vec![None; format.words() as usize];
            for (i, &bits) in format.bits.iter().enumerate() {
                let channel = format.channels[i];
                let x = match comps.get(channel as usize) {
                    Some(&x) => x,
                    None => default_component(&mut e, class, channel)?,
                };
                let max = ((1u64 << bits.min(63)) - 1) as f32;
                let unorm = |e: &mut Builder, x: Id, max: f32| -> Result<Id, String> {
                    let (zero, one) = (e.cf(0.0)?, e.cf(1.0)?);
                    let c = e.glsl(f32_t, GLSL_FCLAMP, &[x, zero, one])?;
                    let scale = e.cf(max)?;
                    let s = e.ids(Op::FMul, f32_t, &[c, scale])?;
                    let half = e.cf(0.5)?;
                    let r = e.ids(Op::FAdd, f32_t, &[s, half])?;
                    e.ids(Op::ConvertFToU, u32_t, &[r])
                };
                let mut u = match format.encoding {
                    Encoding::Unorm => unorm(&mut e, x, max)?,
                    Encoding::Srgb if channel < 3 => {
                        let (zero, one) = (e.cf(0.0)?, e.cf(1.0)?);
                        let c = e.glsl(f32_t, GLSL_FCLAMP, &[x, zero, one])?;
                        let k = e.cf(12.92)?;
                        let low = e.ids(Op::FMul, f32_t, &[c, k])?;
                        let exp = e.cf(1.0 / 2.4)?;
                        let p = e.glsl(f32_t, GLSL_POW, &[c, exp])?;
                        let a = e.cf(1.055)?;
                        let hi = e.ids(Op::FMul, f32_t, &[p, a])?;
                        let b = e.cf(0.055)?;
                        let hi = e.ids(Op::FSub, f32_t, &[hi, b])?;
                        let edge = e.cf(0.003_130_8)?;
                        let bool_t = e.intern(Op::TypeBool, None, vec![])?;
                        let is_low = e.ids(Op::FOrdLessThanEqual, bool_t, &[c, edge])?;
                        let s = e.ids(Op::Select, f32_t, &[is_low, low, hi])?;
                        unorm(&mut e, s, max)?
                    }
                    Encoding::Srgb => unorm(&mut e, x, max)?,
                    Encoding::Snorm => {
                        let half_max = ((1u64 << (bits - 1)) - 1) as f32;
                        let (lo, hi) = (e.cf(-1.0)?, e.cf(1.0)?);
                        let c = e.glsl(f32_t, GLSL_FCLAMP, &[x, lo, hi])?;
                        let scale = e.cf(half_max)?;
                        let s = e.ids(Op::FMul, f32_t, &[c, scale])?;
                        let r = e.glsl(f32_t, GLSL_ROUND, &[s])?;
                        let i = e.ids(Op::ConvertFToS, i32_t, &[r])?;
                        e.ids(Op::Bitcast, u32_t, &[i])?
                    }
                    Encoding::Float if bits == 32 => e.ids(Op::Bitcast, u32_t, &[x])?,
                    Encoding::Float => {
                        let zero = e.cf(0.0)?;
                        let v2 = e.vec(f32_t, 2)?;
                        let pair = e.ids(Op::CompositeConstruct, v2, &[x, zero])?;
                        e.glsl(u32_t, GLSL_PACK_HALF_2X16, &[pair])?
                    }
                    Encoding::Uint => x,
                    Encoding::Sint => e.ids(Op::Bitcast, u32_t, &[x])?,
                };
                if bits < 32 {
                    let mask = e.cu(((1u64 << bits) - 1) as u32)?;
                    u = e.ids(Op::BitwiseAnd, u32_t, &[u, mask])?;
                }
                let (w, off) = format.place(i);
                if off > 0 {
                    let off = e.cu(off)?;
                    u = e.ids(Op::ShiftLeftLogical, u32_t, &[u, off])?;
                }
                let slot = &mut words[w as usize];
                *slot = Some(match *slot {
                    None => u,
                    Some(prev) => e.ids(Op::BitwiseOr, u32_t, &[prev, u])?,
                });
            }
            let mut parts = Vec::new();
            for w in words {
                parts.push(match w {
                    Some(w) => w,
                    None => e.cu(0)?,
                });
            }
            let texel = if parts.len() == 1 {
                parts[0]
            } else {
                e.ids(Op::CompositeConstruct, out_ty, &parts)?
            };
            e.store(out, texel);
        }
        Ok(e.code)
    })?;
    m.reindex();
    Ok(done)
}

/// Vertex inputs at a location the state gives no attribute for, and fragment outputs at a
/// location it gives no attachment for, once the state is complete.
pub fn unmet(m: &Module, state: &PipelineState) -> Vec<String> {
    let mut out = Vec::new();
    if entry_of(m, ExecutionModel::Vertex).is_some() {
        for v in interface(m, StorageClass::Input) {
            if let Slot::Location(l, _) = v.slot {
                if state.attribute(l).is_none() {
                    out.push(format!(
                        "vertex input {} (location {l}) has no attribute in the state",
                        v.name
                    ));
                }
            }
        }
    }
    out
}
