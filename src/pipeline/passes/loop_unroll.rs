//! `loop-unroll`: a loop marked `Unroll` whose trip count is a constant is replaced by that
//! many copies of its body, as spirv-opt's `--loop-unroll` does; inner loops first.
//!
//! A loop qualifies when:
//! - its header's `OpLoopMerge` has the `Unroll` control (and not `DontUnroll`);
//! - the header alone leaves it, by a conditional branch whose condition is computed from a
//!   header phi (the induction variable) and constants; that phi starts at a constant and
//!   each iteration computes the next value from it and constants — whatever the ops are,
//!   the trip count is found by evaluating them with the op table's folding rules, up to 256
//!   iterations;
//! - nothing in it returns, kills or is unreachable, and one block branches back to the header;
//! - the copies add at most 8 192 instructions.
//!
//! Each copy is the loop's blocks under fresh ids: the header's phis are the values of the
//! previous copy (the starting values for the first), its `OpLoopMerge` goes and its branch
//! goes straight into the body; the back edge goes to the next copy. A last copy of the header
//! alone computes what the code after the loop reads of it and branches to the merge block.
//! Decorations of the copied values are copied. A marked loop that does not qualify stays, with
//! a note saying why. Folding the copies' constants is left to `ccp` and `simplify`.

use rspirv::dr::Operand;
use spirv::{LoopControl, Op};

use crate::ir::analysis::ConstructKind;
use crate::ir::consts::{Const, Consts, Eval};
use crate::ir::func::Function;
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::rewrite::Builder;
use crate::ir::rewrite::{self, forget, Decorations};
use crate::ir::{Id, Inst, Merge, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Severity};

pub struct LoopUnroll;

const MAX_TRIPS: usize = 256;
const MAX_GROWTH: usize = 8192;

/// What unrolling one loop needs to know.
struct Plan {
    header: usize,
    merge: usize,
    /// The loop's blocks in layout order, the header first.
    blocks: Vec<usize>,
    /// The header's successor inside the loop.
    body: Id,
    /// The block that branches back to the header.
    latch: usize,
    /// The header's phis: (result, value from before the loop, value from the latch).
    phis: Vec<(Id, Id, Id)>,
    trips: usize,
    /// The constant values of induction phis, before each copy and the last header copy.
    states: Vec<FxHashMap<Id, Const>>,
}

fn marked_unroll(merge: &Merge) -> bool {
    match merge {
        Merge::Loop { control, .. } => matches!(
            control.first(),
            Some(Operand::LoopControl(c))
                if c.contains(LoopControl::UNROLL) && !c.contains(LoopControl::DONT_UNROLL)
        ),
        Merge::Selection { .. } => false,
    }
}

/// The values of the induction phis before each iteration and after the last (so one more
/// than the trip count), by evaluating the loop's condition and induction; `Err` says why it
/// cannot tell.
fn trip_count(
    f: &Function,
    consts: &Consts,
    header: usize,
    cond: Id,
    exit_when: bool,
    phis: &[(Id, Id, Id)],
) -> Result<Vec<FxHashMap<Id, Const>>, String> {
    let header_values: FxHashSet<Id> = phis.iter().map(|p| p.0).collect();
    // The values of the phis, iteration by iteration: only those the condition and the
    // inductions read need to be constants.
    let cond_inst = f
        .def_of(cond)
        .filter(|_| f.value(cond).is_some())
        .ok_or_else(|| "the exit condition is not computed in the loop".to_string())?;
    let in_header = |id: Id| {
        f.value(id)
            .is_some_and(|i| f.block(header).insts.contains(&i))
    };
    if !in_header(cond) {
        return Err("the exit condition is not computed in the header".into());
    }
    // Only the inductions the condition reads are followed: another phi's value changes in
    // ways the copies compute.
    let mut state: FxHashMap<Id, Const> = FxHashMap::default();
    for &(r, init, _) in phis {
        if let (true, Some(c)) = (cond_inst.args().contains(&r), consts.of(init)) {
            state.insert(r, c.clone());
        }
    }
    let eval = |inst: &Inst, state: &FxHashMap<Id, Const>| -> Option<Const> {
        let args: Vec<Option<&Const>> = inst
            .args()
            .iter()
            .map(|a| state.get(a).or_else(|| consts.of(*a)))
            .collect();
        match consts.eval(inst, &args) {
            Eval::Const(c) => Some(c),
            Eval::Operand(k) => args.get(k).copied().flatten().cloned(),
            Eval::Unknown => None,
        }
    };
    if let Some(other) = cond_inst
        .args()
        .iter()
        .find(|a| !header_values.contains(a) && consts.of(**a).is_none())
    {
        return Err(format!(
            "its trip count is not a constant: the exit condition reads %{other}, which is neither a header phi nor a constant"
        ));
    }
    let mut states = Vec::new();
    for _ in 0..=MAX_TRIPS {
        let c = eval(cond_inst, &state)
            .ok_or_else(|| "the exit condition is not a constant".to_string())?;
        states.push(state.clone());
        if c.as_bool() == Some(exit_when) {
            return Ok(states);
        }
        // The next values of the phis the condition reads, from this iteration's.
        let mut next = FxHashMap::default();
        for &(r, _, from_latch) in phis {
            if !cond_inst.args().contains(&r) {
                continue;
            }
            let v = match f.def_of(from_latch) {
                Some(inst) if f.value(from_latch).is_some() => {
                    if !inst
                        .args()
                        .iter()
                        .all(|a| header_values.contains(a) || consts.of(*a).is_some())
                    {
                        return Err(
                            "the induction is not computed from header phis and constants".into(),
                        );
                    }
                    eval(inst, &state).ok_or_else(|| "the induction does not fold".to_string())?
                }
                _ => consts
                    .of(from_latch)
                    .cloned()
                    .ok_or_else(|| "the induction does not fold".to_string())?,
            };
            next.insert(r, v);
        }
        state.extend(next);
    }
    Err("it runs more than 256 times".into())
}

/// The loop at `header` (the construct `c`) as a plan, or why it cannot be unrolled.
fn plan(
    f: &Function,
    consts: &Consts,
    sets: &crate::ir::ext_sets::ExtSets,
    c: &crate::ir::analysis::Construct,
) -> Result<Plan, String> {
    let header = c.header;
    let merge = c
        .merge
        .ok_or_else(|| "its merge block is unreachable".to_string())?;
    let merge_label = f.block(merge).label;
    let blocks = c.blocks.clone();
    let inside: FxHashSet<usize> = blocks.iter().copied().collect();
    let cfg = f.cfg();
    let t = f.terminator(header);
    if t.op() != Op::BranchConditional {
        return Err("its header does not end in a conditional branch".into());
    }
    let [cond, on_true, on_false] = t.args()[..] else {
        return Err("its header's branch lacks operands".into());
    };
    let (body, exit_when) = match (on_true == merge_label, on_false == merge_label) {
        (false, true) => (on_true, false),
        (true, false) => (on_false, true),
        _ => return Err("its header does not branch to the merge block and into the loop".into()),
    };
    let mut latch = None;
    for &b in &blocks {
        let term = f.terminator(b);
        if matches!(
            term.op(),
            Op::Return
                | Op::ReturnValue
                | Op::Kill
                | Op::TerminateInvocation
                | Op::Unreachable
                | Op::IgnoreIntersectionKHR
                | Op::TerminateRayKHR
        ) {
            return Err("it returns, kills or ends in unreachable code".into());
        }
        for &s in &cfg.succs[b] {
            if s == header {
                if latch.replace(b).is_some() {
                    return Err("more than one block branches back to the header".into());
                }
                if term.op() != Op::Branch {
                    return Err("the back edge is conditional".into());
                }
            } else if !inside.contains(&s) && b != header {
                return Err("it is left from somewhere other than its header".into());
            }
        }
    }
    let latch = latch.ok_or_else(|| "nothing branches back to its header".to_string())?;
    let preds_outside = cfg.preds[header]
        .iter()
        .filter(|p| !inside.contains(p))
        .count();
    if preds_outside != 1 {
        return Err("its header has more than one predecessor outside it".into());
    }
    let latch_label = f.block(latch).label;
    let mut phis = Vec::new();
    for inst in f.block_insts(header) {
        if inst.op() != Op::Phi {
            continue;
        }
        let (mut init, mut next) = (None, None);
        for pair in inst.args().chunks(2) {
            if pair[1] == latch_label {
                next = Some(pair[0]);
            } else {
                init = Some(pair[0]);
            }
        }
        let (Some(r), Some(init), Some(next)) = (inst.result(), init, next) else {
            return Err("a header phi lacks an incoming value".into());
        };
        phis.push((r, init, next));
    }
    let states = trip_count(f, consts, header, cond, exit_when, &phis)?;
    let trips = states.len() - 1;
    // Debug records are no code: a debug build unrolls what a plain one does.
    let size: usize = blocks
        .iter()
        .map(|&b| f.block_insts(b).filter(|i| !sets.is_debug_only(i)).count() + 2)
        .sum();
    if size.saturating_mul(trips) > MAX_GROWTH {
        return Err("the copies would add more than 8192 instructions".into());
    }
    Ok(Plan {
        header,
        merge,
        blocks,
        body,
        latch,
        phis,
        trips,
        states,
    })
}

/// Unrolls the loop `plan` describes. `None` when the module runs out of ids (nothing
/// changed then).
fn unroll(
    m: &mut Module,
    consts: &mut Consts,
    f: &mut Function,
    plan: &Plan,
    decorations: &mut Decorations,
    gone: &mut FxHashSet<Id>,
) -> Option<()> {
    let header_label = f.block(plan.header).label;
    let merge_label = f.block(plan.merge).label;
    // Ids first, so that running out changes nothing.
    let defined: Vec<Id> = plan
        .blocks
        .iter()
        .flat_map(|&b| {
            std::iter::once(f.block(b).label).chain(f.block_insts(b).filter_map(|i| i.result()))
        })
        .collect();
    let phi_results: FxHashSet<Id> = plan.phis.iter().map(|p| p.0).collect();
    let mut maps: Vec<FxHashMap<Id, Id>> = Vec::with_capacity(plan.trips + 1);
    for k in 0..=plan.trips {
        let mut map = FxHashMap::default();
        for &id in &defined {
            if phi_results.contains(&id) {
                continue;
            }
            // The last copy is the header alone.
            map.insert(id, m.fresh_id()?);
        }
        for &(r, init, next) in &plan.phis {
            // An induction's known value as a constant, so that loops inside, whose bounds
            // it may be, can be unrolled too.
            let known = plan.states[k].get(&r).and_then(|c| {
                let ty = f.def_of(r)?.ty()?;
                consts.materialize(m, ty, c)
            });
            let v = match known {
                Some(c) => c,
                None if k == 0 => init,
                None => maps[k - 1].get(&next).copied().unwrap_or(next),
            };
            map.insert(r, v);
        }
        maps.push(map);
    }
    let mut new_blocks = Vec::new();
    for (k, map) in maps.iter().enumerate() {
        let rename = |id: Id| map.get(&id).copied().unwrap_or(id);
        let copy = |i: &Inst| {
            let result = i.result().map(rename);
            i.clone().renamed(result).with_args_edited(|args| {
                for a in args {
                    *a = rename(*a);
                }
            })
        };
        let last = k == plan.trips;
        for &b in &plan.blocks {
            if last && b != plan.header {
                continue;
            }
            let block = f.block(b);
            let insts: Vec<Inst> = f
                .block_insts(b)
                .filter(|i| !(b == plan.header && i.op() == Op::Phi))
                .map(copy)
                .collect();
            let (merge, terminator) = if b == plan.header {
                let to = if last {
                    merge_label
                } else if plan.body == header_label {
                    // A loop of one block: straight on to the next copy.
                    maps[k + 1][&header_label]
                } else {
                    rename(plan.body)
                };
                let mut on = Builder::detached_at(m, f.terminator(b).loc());
                on.branch(to);
                (None, on.take_terminator())
            } else {
                let mut t = copy(f.terminator(b));
                if b == plan.latch {
                    let next = maps[k + 1][&header_label];
                    t = t.with_args_edited(|a| *a = smallvec::smallvec![next]);
                }
                let merge = block.merge.clone().map(|mut mg| {
                    mg.remap(rename);
                    mg
                });
                (merge, t)
            };
            new_blocks.push((rename(block.label), insts, merge, terminator));
        }
    }
    // Decorations of the copies (a phi's entry maps it to the value it stands for).
    for map in &maps {
        decorations.copy(
            m,
            map.iter()
                .filter(|(old, _)| !phi_results.contains(old))
                .map(|(&old, &new)| (old, new)),
        );
    }
    // What follows the loop reads the last copy's header values; the merge block's phis see
    // the last copy as their predecessor.
    let exit = &maps[plan.trips];
    let exit_label = exit[&header_label];
    let inside: FxHashSet<usize> = plan.blocks.iter().copied().collect();
    let outside_ids: Vec<_> = f
        .layout()
        .filter(|(b, _)| !inside.contains(b))
        .map(|(_, i)| i)
        .collect();
    for i in outside_ids {
        let needs = f
            .inst(i)
            .args()
            .iter()
            .any(|a| exit.contains_key(a) || *a == header_label);
        if !needs {
            continue;
        }
        let is_phi = f.inst(i).op() == Op::Phi;
        f.map_args(i, |a| {
            if a == header_label {
                if is_phi {
                    exit_label
                } else {
                    // The branch of the block before the loop.
                    maps[0][&header_label]
                }
            } else {
                exit.get(&a).copied().unwrap_or(a)
            }
        });
    }
    // A construct before the loop that names the header as its merge block now names the
    // first copy.
    let first = maps[0][&header_label];
    for b in 0..f.blocks().len() {
        let names_header = f.block(b).merge.as_ref().is_some_and(|mg| {
            mg.merge_block() == header_label || mg.continue_target() == Some(header_label)
        });
        if !inside.contains(&b) && names_header {
            let merge = f.block(b).merge.clone().map(|mut mg| {
                mg.remap(|id| if id == header_label { first } else { id });
                mg
            });
            f.set_merge(b, merge);
        }
    }
    // The loop's blocks make way for the copies, where the header was.
    let at = plan.header;
    let old = crate::ir::rewrite::take_blocks(f, |k| inside.contains(&k));
    for block in &old {
        gone.insert(block.label);
        for &i in &block.insts {
            gone.extend(f.inst(i).result());
        }
        f.free_block(block);
    }
    let made: Vec<_> = new_blocks
        .into_iter()
        .map(|(label, insts, merge, t)| f.new_block(label, insts, merge, t))
        .collect();
    crate::ir::rewrite::insert_blocks(f, at, made);
    Some(())
}

pub fn loop_unroll(m: &mut Module, notes: &mut Vec<String>) -> bool {
    let mut decorations = Decorations::of(m);
    let mut gone: FxHashSet<Id> = FxHashSet::default();
    let mut changed = false;
    for k in 0..m.functions().len() {
        if m.functions()[k].is_declaration() {
            continue;
        }
        let any_marked = m.functions()[k]
            .blocks()
            .iter()
            .any(|b| b.merge.as_ref().is_some_and(marked_unroll));
        if !any_marked {
            continue;
        }
        rewrite::with_function(m, k, |m, f| {
            // Why each marked loop was refused; a loop inside one unrolled later is copied, and
            // its copies are tried afresh.
            let mut refused: FxHashMap<Id, String> = FxHashMap::default();
            loop {
                let mut consts = Consts::new(m);
                let sets = crate::ir::ext_sets::ExtSets::of(m);
                let structure = f.structure();
                // Inner loops first: the constructs list outer loops before inner ones.
                let mut next = None;
                for c in structure.constructs.iter().rev() {
                    if c.kind != ConstructKind::Loop {
                        continue;
                    }
                    let label = f.block(c.header).label;
                    let marked = f.block(c.header).merge.as_ref().is_some_and(marked_unroll);
                    if !marked || refused.contains_key(&label) {
                        continue;
                    }
                    match plan(f, &consts, &sets, c) {
                        Ok(p) => {
                            next = Some(p);
                            break;
                        }
                        Err(why) => {
                            refused.insert(label, why);
                        }
                    }
                }
                let Some(p) = next else { break };
                if unroll(m, &mut consts, f, &p, &mut decorations, &mut gone).is_none() {
                    break;
                }
                changed = true;
            }
            let name = m
                .debug_name(f.id())
                .map_or_else(|| format!("%{}", f.id()), str::to_string);
            for b in f.blocks() {
                if let Some(why) = refused.get(&b.label) {
                    notes.push(format!(
                        "{name}: the loop at %{} is marked Unroll but stays: {why}",
                        m.debug_name(b.label)
                            .map_or_else(|| b.label.to_string(), str::to_string)
                    ));
                }
            }
        });
    }
    forget(m, &gone);
    changed
}

impl Pass for LoopUnroll {
    fn name(&self) -> &'static str {
        "loop-unroll"
    }
    fn description(&self) -> &'static str {
        "loops marked Unroll with a constant trip count are replaced by copies of their body"
    }
    fn run(&self, m: &mut Module, cx: &mut PassCx) -> Result<Changed, PassError> {
        let mut notes = Vec::new();
        let changed = loop_unroll(m, &mut notes);
        for n in notes {
            cx.diag(Severity::Note, n);
        }
        Ok(changed.into())
    }
}
