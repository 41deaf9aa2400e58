//! Instructions: everything unused at once (`dce`), a global or an instruction nothing uses,
//! a store, image write or other instruction without a result (under `differs` only stores
//! to memory whose contents are defined without them), and an image instruction's optional
//! operands (an offset, a bias, a minimum level of detail).

use spirv::Op;

use super::apply::used_ids;
use super::guards::{read_variables, store_may_go};
use super::Chance;
use crate::ir::Module;

/// Everything unused at once, unused globals (all, then each), unused instructions; then,
/// in each block, the instructions without a result and atomics whose result nothing uses.
pub(super) fn unused(m: &Module, differs: bool) -> Vec<Chance> {
    let (read, used) = (read_variables(m), used_ids(m));
    let mut out = vec![Chance::Dce];
    let sets = crate::ir::ops::ExtSets::of(m);
    if m.globals()
        .iter()
        .any(|g| g.result().is_some_and(|r| !used.contains(&r)))
    {
        out.push(Chance::UnusedGlobals);
    }
    for g in m.globals() {
        if let Some(r) = g.result() {
            if !used.contains(&r) {
                out.push(Chance::UnusedGlobal(r));
            }
        }
    }
    for f in m.functions() {
        for i in f.insts() {
            if let Some(r) = i.result() {
                if !used.contains(&r)
                    && !matches!(i.op(), Op::Label | Op::Function | Op::FunctionParameter)
                    && (!differs
                        || i.op() == Op::Variable
                        || crate::pipeline::passes::dce::is_pure(i, &sets))
                {
                    out.push(Chance::Unused(f.id(), r));
                }
            }
        }
    }
    for f in m.functions() {
        let fid = f.id();
        for (b, block) in f.blocks().iter().enumerate() {
            let mut seen: std::collections::HashMap<Op, usize> = Default::default();
            for i in f.block_insts(b) {
                match i.op() {
                    op if i.result().is_none() => {
                        let k = *seen.entry(op).and_modify(|n| *n += 1).or_insert(0);
                        // Under `differs` only what writes memory whose contents are defined
                        // without it; else anything (what is then invalid is refused).
                        let may = match op {
                            Op::Store => store_may_go(m, f, i.args()[0], differs, &read),
                            Op::ImageWrite => true,
                            _ => !differs,
                        };
                        if may {
                            out.push(Chance::Plain(fid, block.label, op, k));
                        }
                    }
                    // An atomic whose result nothing uses is a store.
                    op if crate::ir::inst::is_atomic(op) => {
                        if let Some(r) = i.result() {
                            if !used.contains(&r) && store_may_go(m, f, i.args()[0], differs, &read)
                            {
                                out.push(Chance::Unused(fid, r));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// The image operands an image instruction may lose and stay valid: all but a level of
/// detail or gradients (an explicit-lod sample needs one), a multisampled image's sample and
/// the memory model's.
const OPTIONAL_IMAGE_OPERANDS: spirv::ImageOperands = spirv::ImageOperands::from_bits_truncate(
    spirv::ImageOperands::BIAS.bits()
        | spirv::ImageOperands::CONST_OFFSET.bits()
        | spirv::ImageOperands::OFFSET.bits()
        | spirv::ImageOperands::CONST_OFFSETS.bits()
        | spirv::ImageOperands::MIN_LOD.bits()
        | spirv::ImageOperands::OFFSETS.bits()
        | spirv::ImageOperands::NONTEMPORAL.bits(),
);

/// The image instructions with optional image operands, by result (or, for an image write,
/// none: those are left).
pub(super) fn image_operands(m: &Module) -> Vec<Chance> {
    let mut out = Vec::new();
    for f in m.functions() {
        for i in f.insts() {
            let Some(r) = i.result() else { continue };
            let optional = i.to_operands().iter().any(|o| {
                matches!(o, rspirv::dr::Operand::ImageOperands(mask)
                    if mask.intersects(OPTIONAL_IMAGE_OPERANDS))
            });
            if optional {
                out.push(Chance::ImageOperands(f.id(), r));
            }
        }
    }
    out
}

/// `operands` (an image instruction's) without its optional image operands, and the ids
/// those named; `None` when it has none.
pub(super) fn without_optional_image_operands(
    operands: &[rspirv::dr::Operand],
) -> Option<(Vec<rspirv::dr::Operand>, Vec<crate::ir::Id>)> {
    use rspirv::dr::Operand;
    let at = operands
        .iter()
        .position(|o| matches!(o, Operand::ImageOperands(_)))?;
    let Operand::ImageOperands(mask) = operands[at] else {
        return None;
    };
    if !mask.intersects(OPTIONAL_IMAGE_OPERANDS) {
        return None;
    }
    let kept = mask - OPTIONAL_IMAGE_OPERANDS;
    let mut out: Vec<Operand> = operands[..at].to_vec();
    if !kept.is_empty() {
        out.push(Operand::ImageOperands(kept));
    }
    let mut dropped = Vec::new();
    let mut next = at + 1;
    // The parameters follow the mask in the order of its bits.
    for k in 0..32 {
        let bit = spirv::ImageOperands::from_bits_truncate(1 << k);
        if bit.is_empty() || !mask.contains(bit) {
            continue;
        }
        let n = crate::ir::spirv::operand_tables::image_operand_params(bit);
        let params = operands.get(next..next + n)?;
        if kept.contains(bit) {
            out.extend_from_slice(params);
        } else {
            dropped.extend(params.iter().filter_map(|p| match p {
                Operand::IdRef(id) => Some(*id),
                _ => None,
            }));
        }
        next += n;
    }
    out.extend_from_slice(operands.get(next..)?);
    Some((out, dropped))
}
