//! Edits of types for the reducer: a struct member nothing reaches taken out, and an array
//! whose elements past the first nothing reaches made one element long. Both follow every
//! index path of the module (access chains, composite extracts and inserts, array lengths) to
//! know what is reached, and renumber what comes after a member taken out.

use std::collections::{HashMap, HashSet};

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::rewrite;
use crate::ir::rewrite::Builder;
use crate::ir::types::{const_int, pointer_type};
use crate::ir::{Function, Id, InstId, Module};

/// Where the index of one step of an index path is.
#[derive(Clone, Copy, Debug)]
enum Site {
    /// Operand `k` (an id) of an instruction of a function.
    Arg(Id, InstId, usize),
    /// Literal `k` of an instruction of a function.
    Lit(Id, InstId, usize),
}

/// One step of an index path into a struct or an array.
#[derive(Clone, Copy, Debug)]
struct Step {
    /// The struct or array type stepped into.
    ty: Id,
    /// The index, when it is constant.
    index: Option<u64>,
    at: Site,
}

/// The type of value `id` seen from function `f`.
fn type_of(m: &Module, f: &Function, id: Id) -> Option<Id> {
    f.def_of(id).or_else(|| m.global(id)).and_then(|d| d.ty())
}

/// Every step of every index path of the module's functions; `None` when a path goes where
/// this cannot follow (a spec-constant operation, a type it does not know), so no type edit
/// is offered.
fn steps(m: &Module) -> Option<Vec<Step>> {
    if m.globals().iter().any(|g| g.op() == Op::SpecConstantOp) {
        return None;
    }
    let mut out = Vec::new();
    for f in m.functions() {
        let fid = f.id();
        for b in 0..f.blocks().len() {
            for &i in &f.block(b).insts {
                let inst = f.inst(i);
                match inst.op() {
                    Op::AccessChain
                    | Op::InBoundsAccessChain
                    | Op::PtrAccessChain
                    | Op::InBoundsPtrAccessChain => {
                        let base = type_of(m, f, *inst.args().first()?)?;
                        let (_, mut ty) = pointer_type(m, base)?;
                        // A pointer access chain's first index steps over elements of what
                        // the base points into, not into its type.
                        let first =
                            if matches!(inst.op(), Op::AccessChain | Op::InBoundsAccessChain) {
                                1
                            } else {
                                2
                            };
                        for k in first..inst.args().len() {
                            let index = const_int(m, inst.args()[k]);
                            ty = step(m, ty, index, Site::Arg(fid, i, k), &mut out)?;
                        }
                    }
                    Op::CompositeExtract | Op::CompositeInsert => {
                        let object = if inst.op() == Op::CompositeExtract {
                            inst.args().first()
                        } else {
                            inst.args().get(1)
                        };
                        let mut ty = type_of(m, f, *object?)?;
                        for (k, lit) in inst.lits().iter().enumerate() {
                            let Operand::LiteralBit32(index) = lit else {
                                return None;
                            };
                            let site = Site::Lit(fid, i, k);
                            ty = step(m, ty, Some(u64::from(*index)), site, &mut out)?;
                        }
                    }
                    Op::ArrayLength => {
                        let (_, ty) = pointer_type(m, type_of(m, f, *inst.args().first()?)?)?;
                        let index = inst.lit_u32(0).map(u64::from);
                        out.push(Step {
                            ty,
                            index,
                            at: Site::Lit(fid, i, 0),
                        });
                    }
                    _ => {}
                }
            }
        }
    }
    Some(out)
}

/// Records a step into `ty` and returns the type it reaches.
fn step(m: &Module, ty: Id, index: Option<u64>, at: Site, out: &mut Vec<Step>) -> Option<Id> {
    let t = m.global(ty)?;
    match t.op() {
        Op::TypeStruct => {
            out.push(Step { ty, index, at });
            t.args().get(usize::try_from(index?).ok()?).copied()
        }
        Op::TypeArray | Op::TypeRuntimeArray => {
            out.push(Step { ty, index, at });
            t.args().first().copied()
        }
        Op::TypeVector | Op::TypeMatrix => t.args().first().copied(),
        _ => None,
    }
}

/// Struct members nothing reaches, as (struct, member), and arrays longer than one whose
/// every index is a constant 0 (or, when `dynamic` indices are allowed, anything but a
/// constant past 0).
pub(super) fn chances(m: &Module, dynamic: bool) -> (Vec<(Id, u32)>, Vec<Id>) {
    let Some(steps) = steps(m) else {
        return Default::default();
    };
    let mut reached: HashMap<Id, HashSet<Option<u64>>> = HashMap::new();
    for s in &steps {
        reached.entry(s.ty).or_default().insert(s.index);
    }
    let mut members = Vec::new();
    let mut arrays = Vec::new();
    for g in m.globals() {
        let Some(ty) = g.result() else {
            continue;
        };
        let seen = reached.get(&ty);
        match g.op() {
            Op::TypeStruct if g.args().len() > 1 => {
                members.extend(
                    (0..g.args().len() as u32)
                        .filter(|&k| seen.is_none_or(|s| !s.contains(&Some(u64::from(k)))))
                        .map(|k| (ty, k)),
                );
            }
            Op::TypeArray => {
                let long = g
                    .args()
                    .get(1)
                    .and_then(|&n| const_int(m, n))
                    .is_some_and(|n| n > 1);
                let first_only = seen.is_none_or(|s| {
                    s.iter()
                        .all(|i| matches!(i, Some(0)) || (dynamic && i.is_none()))
                });
                if long && first_only {
                    arrays.push(ty);
                }
            }
            _ => {}
        }
    }
    (members, arrays)
}

/// The total length of the module's arrays: what a shorter array makes smaller.
pub(super) fn array_elements(m: &Module) -> u64 {
    m.globals()
        .iter()
        .filter(|g| g.op() == Op::TypeArray)
        .filter_map(|g| const_int(m, *g.args().get(1)?))
        .sum()
}

/// Takes member `k` out of struct `s`: its decorations and name, its part of every constant
/// and construct of the struct; the indices of the members after it move down by one.
/// `None` when something reaches the member after all.
pub(super) fn remove_member(m: &mut Module, s: Id, k: u32) -> Option<()> {
    let steps = steps(m)?;
    let mut moved: Vec<(Site, u64)> = Vec::new();
    for st in steps.iter().filter(|st| st.ty == s) {
        match st.index? {
            i if i == u64::from(k) => return None,
            i if i > u64::from(k) => moved.push((st.at, i - 1)),
            _ => {}
        }
    }
    for (at, index) in moved {
        match at {
            Site::Arg(fid, i, p) => {
                let old = m.function(fid)?.inst(i).args()[p];
                let new = constant_like(m, old, index)?;
                rewrite::function_mut(m, fid)?.set_arg(i, p, new);
            }
            Site::Lit(fid, i, p) => {
                let lit = Operand::LiteralBit32(u32::try_from(index).ok()?);
                rewrite::set_lit(rewrite::function_mut(m, fid)?, i, p, lit)?;
            }
        }
    }
    let k_at = k as usize;
    let without_member = |parts: &mut crate::ir::inst::Args| {
        if k_at < parts.len() {
            parts.remove(k_at);
        }
    };
    rewrite::reshape_aggregate(m, s, without_member)?;
    rewrite::reshape_composites(m, s, without_member, "reduce")?;
    // Member decorations and names: the member's go, those after it move down.
    rewrite::drop_member_info(m, s, k);
    Some(())
}

/// Makes array type `a` one element long: its constants and constructs keep their first part.
/// `None` when an index past the first reaches it.
pub(super) fn shorten_array(m: &mut Module, a: Id, dynamic: bool) -> Option<()> {
    let steps = steps(m)?;
    if steps
        .iter()
        .filter(|st| st.ty == a)
        .any(|st| !(st.index == Some(0) || (dynamic && st.index.is_none())))
    {
        return None;
    }
    let length = *m.global(a)?.args().get(1)?;
    let one = constant_like(m, length, 1)?;
    m.global_position(a)?;
    rewrite::reshape_aggregate(m, a, |args| args[1] = one)?;
    // A new constant comes last: it must come before the array that uses it.
    rewrite::move_global_before(m, one, a)?;
    rewrite::reshape_composites(m, a, |parts| parts.truncate(1), "reduce")
}

/// An integer constant of the type of constant `like` (and its width), holding `value`.
fn constant_like(m: &mut Module, like: Id, value: u64) -> Option<Id> {
    let c = m.global(like)?;
    let ty = c.ty()?;
    let word = match c.lits() {
        [Operand::LiteralBit64(_)] => Operand::LiteralBit64(value),
        _ => Operand::LiteralBit32(u32::try_from(value).ok()?),
    };
    Builder::detached(m).constant(ty, word).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHADER: &str = r#"
               OpCapability Shader
               OpExtension "SPV_KHR_storage_buffer_storage_class"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpMemberDecorate %S 0 Offset 0
               OpMemberDecorate %S 1 Offset 4
               OpMemberDecorate %S 2 Offset 8
               OpDecorate %S Block
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
        %int = OpTypeInt 32 1
      %int_0 = OpConstant %int 0
      %int_2 = OpConstant %int 2
     %uint_4 = OpConstant %int 4
        %arr = OpTypeArray %float %uint_4
          %S = OpTypeStruct %float %float %float
      %ptr_S = OpTypePointer StorageBuffer %S
    %ptr_f = OpTypePointer StorageBuffer %float
  %ptr_arr = OpTypePointer Function %arr
   %ptr_ff = OpTypePointer Function %float
        %buf = OpVariable %ptr_S StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %a = OpVariable %ptr_arr Function
          %p = OpAccessChain %ptr_f %buf %int_2
          %x = OpLoad %float %p
          %q = OpAccessChain %ptr_f %buf %int_0
               OpStore %q %x
         %e0 = OpAccessChain %ptr_ff %a %int_0
               OpStore %e0 %x
               OpReturn
               OpFunctionEnd
"#;

    fn module() -> Module {
        let words = crate::ir::spirv::asm::assemble(SHADER).unwrap();
        super::super::start_of(&words).unwrap()
    }

    #[test]
    fn the_unreached_member_goes_and_the_one_after_it_is_renumbered() {
        let mut m = module();
        let (members, arrays) = chances(&m, false);
        let s = members[0].0;
        assert_eq!(members, [(s, 1)], "only member 1 is unreached");
        assert_eq!(arrays.len(), 1, "the array is indexed at 0 only");
        remove_member(&mut m, s, 1).unwrap();
        assert_eq!(m.global(s).unwrap().args().len(), 2);
        // The load of member 2 now reads member 1; member 2's Offset is member 1's.
        let f = &m.functions()[0];
        let chain = f.insts().find(|i| i.op() == Op::AccessChain).unwrap();
        assert_eq!(const_int(&m, chain.args()[1]), Some(1));
        let offsets: Vec<(u32, u32)> = m
            .annotations()
            .iter()
            .filter(|i| i.op() == Op::MemberDecorate)
            .map(|i| (i.lit_u32(0).unwrap(), i.lit_u32(2).unwrap()))
            .collect();
        assert_eq!(offsets, [(0, 0), (1, 8)]);
        assert_valid(&m);
        // Member 0 is reached: it cannot go.
        assert!(remove_member(&mut m, s, 0).is_none());
    }

    #[test]
    fn an_array_indexed_only_at_zero_becomes_one_long() {
        let mut m = module();
        let (_, arrays) = chances(&m, false);
        shorten_array(&mut m, arrays[0], false).unwrap();
        let a = m.global(arrays[0]).unwrap();
        assert_eq!(const_int(&m, a.args()[1]), Some(1));
        assert_valid(&m);
    }

    /// Two constants of the struct that differ only in the member taken out become one: each
    /// is interned anew in its shorter shape, never rewritten where it is, so the module
    /// keeps one constant per value.
    #[test]
    fn constants_of_a_shrunk_struct_are_interned_anew() {
        let text = SHADER
            .replace(
                "        %arr = OpTypeArray",
                "    %float_1 = OpConstant %float 1
    %float_2 = OpConstant %float 2
    %float_3 = OpConstant %float 3
        %arr = OpTypeArray",
            )
            .replace(
                "        %buf = OpVariable",
                "         %c1 = OpConstantComposite %S %float_1 %float_2 %float_3
         %c2 = OpConstantComposite %S %float_1 %float_3 %float_3
        %buf = OpVariable",
            )
            .replace(
                "               OpReturn",
                "               OpStore %buf %c1
               OpStore %buf %c2
               OpReturn",
            );
        let words = crate::ir::spirv::asm::assemble(&text).unwrap();
        let mut m = super::super::start_of(&words).unwrap();
        let composites = |m: &Module| -> Vec<Id> {
            m.globals()
                .iter()
                .filter(|g| g.op() == Op::ConstantComposite)
                .filter_map(|g| g.result())
                .collect()
        };
        let before = composites(&m);
        assert_eq!(before.len(), 2);
        let (members, _) = chances(&m, false);
        let s = members[0].0;
        assert_eq!(members, [(s, 1)]);
        remove_member(&mut m, s, 1).unwrap();
        let after = composites(&m);
        assert_eq!(after.len(), 1, "the two constants are equal now");
        assert!(
            !before.contains(&after[0]),
            "a new constant, not an old one changed"
        );
        assert_eq!(m.global(after[0]).unwrap().args().len(), 2);
        let stored: Vec<Id> = m.functions()[0]
            .insts()
            .filter(|i| i.op() == Op::Store)
            .map(|i| i.args()[1])
            .filter(|v| {
                m.global(*v)
                    .is_some_and(|g| g.op() == Op::ConstantComposite)
            })
            .collect();
        assert_eq!(
            stored,
            [after[0], after[0]],
            "both stores take the new constant"
        );
        assert_valid(&m);
    }

    fn assert_valid(m: &Module) {
        use crate::pipeline::external::{spirv_val_with, target_env, Validation};
        let words = crate::pipeline::validate::spirv_of(m).unwrap().words;
        match spirv_val_with(&words, &target_env(m), &[]) {
            Ok(Validation::Valid) => {}
            Ok(Validation::Invalid(why)) => panic!("{why:?}"),
            Err(e) => panic!("{e}"),
        }
    }
}
