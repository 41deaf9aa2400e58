//! `if-convert`: a small selection whose arms only compute values becomes straight-line code
//! with `OpSelect`. The selection must be a diamond or a triangle: the header ends in
//! `OpBranchConditional %c %t %f` with `OpSelectionMerge %m`, and each arm is either `%m`
//! itself or one block that branches to `%m` and holds at most `MAX_ARM` instructions, all
//! pure and safe to run when the arm would not have (no memory access, no derivatives or
//! subgroup operations, nothing the op table does not know). The arms' instructions move into
//! the header, every phi of `%m` becomes `OpSelect %c %from_t %from_f`, and the header
//! branches to `%m`. Phis of types `OpSelect` cannot take (pointers; composites before SPIR-V
//! 1.4) leave the selection alone. `block-merge` then joins the header and the merge block.

use spirv::Op;

use crate::ir::debug::{self, DebugSets};
use crate::ir::func::Function;
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::ops::{self, Attrs, ExtSets};
use crate::ir::rewrite::Builder;
use crate::ir::rewrite::{self, forget, is_debug_only, prune_unreachable_in};
use crate::ir::{Id, Inst, InstId, Merge, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError};

pub struct IfConvert;

/// Most instructions one arm may hold (more would make the shader compute both arms for
/// little gain).
const MAX_ARM: usize = 4;

/// Whether `inst` may run where it did not before: pure, no derivative or subgroup
/// dependence, and not an `OpSampledImage` (which must stay in its user's block).
fn speculatable(inst: &Inst, sets: &ExtSets) -> bool {
    let a = ops::attrs_of(inst, sets);
    a.contains(Attrs::PURE)
        && !a.contains(Attrs::DERIVATIVE)
        && !a.contains(Attrs::WAVE)
        && !matches!(inst.op(), Op::Phi | Op::SampledImage | Op::Variable)
        && inst.result().is_some()
}

/// Whether `OpSelect` can choose between values of type `ty`.
fn selectable(m: &Module, ty: Id) -> bool {
    let Some(t) = m.global(ty) else { return false };
    match t.op() {
        Op::TypeBool | Op::TypeInt | Op::TypeFloat | Op::TypeVector => true,
        Op::TypeStruct | Op::TypeArray | Op::TypeMatrix => m.header.version >= (1, 4),
        _ => crate::ir::types::dialect_type_width(t, &ExtSets::of(m)).is_some(),
    }
}

/// The arm that starts at `label` (the merge block itself: an empty arm), if it is one.
fn arm(
    f: &Function,
    preds: &FxHashMap<Id, usize>,
    label: Id,
    merge: Id,
    sets: &ExtSets,
    dsets: &DebugSets,
) -> Option<Option<usize>> {
    if label == merge {
        return Some(None);
    }
    let b = f.block_index(label)?;
    let block = f.block(b);
    let ok = preds.get(&label) == Some(&1)
        && block.merge.is_none()
        && f.successors(b) == [merge]
        && f.terminator(b).op() == Op::Branch
        && f.block_insts(b)
            .filter(|i| !is_debug_only(i, dsets))
            .count()
            <= MAX_ARM
        && f.block_insts(b)
            .all(|i| is_debug_only(i, dsets) || speculatable(i, sets));
    ok.then_some(Some(b))
}

/// What an arm's `DebugValue` said held on that arm only: moved into the header it runs on
/// both paths, wrong on the other. It goes where another record still describes its variable
/// (the one mem2reg put after the merge block's phi says the select's value from then on);
/// the only record of a variable stays, rather than the variable being described nowhere.
fn drop_arm_values(f: &mut Function, h: usize, moved: &[InstId], dsets: &DebugSets) {
    let arm_values: FxHashSet<InstId> = moved
        .iter()
        .copied()
        .filter(|&i| dsets.is(f.inst(i), debug::VALUE))
        .collect();
    if arm_values.is_empty() {
        return;
    }
    let described_elsewhere: FxHashSet<Id> = f
        .layout()
        .filter(|(_, i)| !arm_values.contains(i))
        .map(|(_, i)| f.inst(i))
        .filter(|i| dsets.is_debug_use(i))
        .filter_map(|i| i.arg(debug::ARG_VARIABLE))
        .collect();
    f.retain_ids(h, |i, inst| {
        !(arm_values.contains(&i)
            && inst
                .arg(debug::ARG_VARIABLE)
                .is_some_and(|v| described_elsewhere.contains(&v)))
    });
}

fn convert_function(m: &mut Module, f: &mut Function, sets: &ExtSets) -> bool {
    let dsets = DebugSets::of(m);
    let mut changed = false;
    // Predecessor counts, once: a conversion changes only those of its own merge block, which
    // no other selection has as its merge block.
    let preds: FxHashMap<Id, usize> = {
        let cfg = f.cfg();
        (0..cfg.len())
            .map(|b| (f.block(b).label, cfg.preds[b].len()))
            .collect()
    };
    let mut h = 0;
    while h < f.blocks().len() {
        let found = (|| {
            let Some(Merge::Selection { merge, .. }) = f.block(h).merge.clone() else {
                return None;
            };
            let t = f.terminator(h);
            if t.op() != Op::BranchConditional {
                return None;
            }
            let (cond, tl, fl) = (t.args()[0], t.args()[1], t.args()[2]);
            if tl == fl {
                return None;
            }
            let ta = arm(f, &preds, tl, merge, sets, &dsets)?;
            let fa = arm(f, &preds, fl, merge, sets, &dsets)?;
            let mb = f.block_index(merge)?;
            // The merge block is reached from the two arms (or the header) only.
            if preds.get(&merge) != Some(&2) {
                return None;
            }
            let from_t = ta.map_or(f.block(h).label, |b| f.block(b).label);
            let from_f = fa.map_or(f.block(h).label, |b| f.block(b).label);
            let phis: Vec<InstId> = f
                .block(mb)
                .insts
                .iter()
                .copied()
                .take_while(|&i| f.inst(i).op() == Op::Phi)
                .collect();
            for &p in &phis {
                if !f.inst(p).ty().is_some_and(|ty| selectable(m, ty)) {
                    return None;
                }
            }
            Some((cond, merge, mb, ta, fa, from_t, from_f, phis))
        })();
        let Some((cond, merge, mb, ta, fa, from_t, from_f, phis)) = found else {
            h += 1;
            continue;
        };
        // The arms' instructions move into the header, before its branch.
        let mut moved_all: Vec<InstId> = Vec::new();
        for a in [ta, fa].into_iter().flatten() {
            moved_all.extend(crate::ir::rewrite::move_insts(f, a, h));
        }
        drop_arm_values(f, h, &moved_all, &dsets);
        // Phis become selects. Before SPIR-V 1.4 a vector select needs a condition of as many
        // components: the condition, splatted once per width in the header.
        let mut splats: Vec<(u32, Id)> = Vec::new();
        for p in phis {
            let width = (m.header.version < (1, 4))
                .then(|| f.inst(p).ty().and_then(|t| m.global(t)))
                .flatten()
                .filter(|t| t.op() == Op::TypeVector)
                .and_then(|t| t.lit_u32(0));
            let cond = match width {
                None => cond,
                Some(n) => match splats.iter().find(|(w, _)| *w == n) {
                    Some(&(_, id)) => id,
                    None => {
                        let mut splat = Builder::at_end(m, f, h);
                        let made = splat.bool_t().and_then(|b| splat.vec(b, n)).and_then(|t| {
                            splat.ids(Op::CompositeConstruct, t, &vec![cond; n as usize])
                        });
                        let Ok(id) = made else {
                            continue;
                        };
                        splats.push((n, id));
                        id
                    }
                },
            };
            let phi = f.inst(p).clone();
            let value_from = |label: Id| {
                phi.args()
                    .chunks(2)
                    .find(|c| c.get(1) == Some(&label))
                    .map(|c| c[0])
            };
            let (Some(vt), Some(vf)) = (value_from(from_t), value_from(from_f)) else {
                continue;
            };
            // The select chooses where the branch did: without a line of its own (a phi
            // seldom has one), it is at the branch's.
            let unlocated =
                f.location(phi.loc()).line.is_none() && f.location(phi.loc()).debug_line.is_none();
            let loc = if unlocated {
                f.terminator(h).loc()
            } else {
                phi.loc()
            };
            let mut select = Builder::detached_at(m, loc);
            select.ids_as(Op::Select, phi.ty(), phi.result(), &[cond, vt, vf]);
            if let Some(select) = select.take_last() {
                f.replace_inst(p, select);
            }
        }
        // Straight to the merge block; the arms are left with nothing that leads to them.
        f.set_merge(h, None);
        Builder::at_end(m, f, h).branch(merge);
        let _ = mb;
        changed = true;
    }
    changed
}

pub fn if_convert(m: &mut Module) -> bool {
    let sets = ExtSets::of(m);
    let mut gone: FxHashSet<Id> = FxHashSet::default();
    let mut changed = false;
    rewrite::edit_functions(m, |m, f| {
        if convert_function(m, f, &sets) {
            changed = true;
            gone.extend(prune_unreachable_in(m, f));
        }
    });
    forget(m, &gone);
    changed
}

impl Pass for IfConvert {
    fn name(&self) -> &'static str {
        "if-convert"
    }
    fn description(&self) -> &'static str {
        "small selections whose arms only compute values become OpSelect"
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(if_convert(m).into())
    }
}
