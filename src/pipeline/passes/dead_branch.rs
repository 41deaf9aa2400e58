//! `dead-branch`: branches on constants (what `ccp` leaves, or a shader's `if (false)`) take
//! their one live edge, and the blocks only the dead edges reached go, with their phi entries.
//! The structure stays valid:
//! - a selection (`if`) whose live edge goes into one arm loses its merge annotation: the arm
//!   runs as straight-line code in the enclosing construct, and its blocks' branches to the
//!   old merge block are plain branches there; when the live edge is the merge block itself
//!   the whole construct goes;
//! - a `switch` on a constant likewise, unless a block nested deeper in the live case breaks to
//!   the switch's merge (that break needs the switch): then the switch keeps its merge and only
//!   the live case (`OpSwitch %c %live`);
//! - a loop header whose condition is constant: if it leaves at once (`while (false)`) the loop
//!   goes, its header branching to the merge block; if it always enters (`while (true)`) the
//!   header keeps its `OpLoopMerge` and branches into the body unconditionally;
//! - a conditional break or continue takes its live edge, but a back edge stays (a loop header
//!   needs exactly one, even when it is never taken).
//!
//! Unreachable blocks are then removed (merge blocks and continue targets that headers still
//! name become stubs); `block-merge` joins what is left in a line.

use spirv::Op;

use crate::ir::analysis::ConstructKind;
use crate::ir::consts::{switch_target, Consts};
use crate::ir::func::Function;
use crate::ir::fxhash::FxHashSet;
use crate::ir::rewrite::Builder;
use crate::ir::rewrite::{self, fold_branch, forget, prune_unreachable_in};
use crate::ir::{Id, Merge, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError};

pub struct DeadBranch;

/// The label block `b`'s terminator goes to when its condition or selector is a constant.
fn live_target(f: &Function, consts: &Consts, b: usize) -> Option<Id> {
    let t = f.terminator(b);
    let c = consts.of(*t.args().first()?)?;
    match t.op() {
        Op::BranchConditional => {
            let targets = t.branch_targets();
            Some(if c.as_bool()? {
                targets[0]
            } else {
                *targets.get(1)?
            })
        }
        Op::Switch => switch_target(t, c),
        _ => None,
    }
}

/// Whether a block of the switch construct headed by `b`, nested in a construct inside it,
/// branches to the switch's merge block (a break that needs the switch).
fn nested_break(f: &Function, b: usize, merge: Id) -> bool {
    let s = f.structure();
    let Some(c) = s
        .constructs
        .iter()
        .position(|c| c.header == b && c.kind == ConstructKind::Selection)
    else {
        return true;
    };
    s.constructs[c]
        .blocks
        .iter()
        .any(|&x| s.innermost[x] != Some(c) && f.successors(x).contains(&merge))
}

fn simplify_function(m: &mut Module, f: &mut Function, consts: &Consts) -> bool {
    let mut changed = false;
    for b in 0..f.blocks().len() {
        let Some(live) = live_target(f, consts, b) else {
            continue;
        };
        if f.successors(b).iter().all(|&t| t == live) && f.terminator(b).op() == Op::Branch {
            continue;
        }
        match f.block(b).merge.clone() {
            None => {
                let drops_back_edge = f.successors(b).iter().any(|&t| {
                    t != live
                        && f.block_index(t)
                            .is_some_and(|tb| matches!(f.block(tb).merge, Some(Merge::Loop { .. })))
                });
                if drops_back_edge {
                    continue;
                }
                fold_branch(f, b, live);
            }
            Some(Merge::Selection { merge, .. }) => {
                if f.terminator(b).op() == Op::Switch && live != merge && nested_break(f, b, merge)
                {
                    // Only the live case stays; the switch keeps its merge for the break.
                    if f.successors(b).len() == 1 {
                        continue;
                    }
                    let selector = f.terminator(b).args()[0];
                    let dead: Vec<Id> = f
                        .successors(b)
                        .iter()
                        .copied()
                        .filter(|&t| t != live)
                        .collect();
                    let from = f.block(b).label;
                    Builder::at_end(m, f, b).terminate(Op::Switch, &[selector, live]);
                    for t in dead {
                        if let Some(tb) = f.block_index(t) {
                            crate::ir::rewrite::remove_phi_incoming(f, tb, from);
                        }
                    }
                } else {
                    fold_branch(f, b, live);
                    f.set_merge(b, None);
                }
            }
            Some(Merge::Loop { merge, .. }) => {
                fold_branch(f, b, live);
                if live == merge {
                    f.set_merge(b, None);
                }
            }
        }
        changed = true;
    }
    changed | dissolve_loops_that_never_loop(f)
}

/// A loop whose continue target and merge block no reachable block branches to (its body
/// returns, kills or is unreachable on every path, as a loop around a `return` left by
/// inlining) runs its body at most once and is left by no edge: it loses its `OpLoopMerge`, and
/// the continue target and merge block, stubs only the header named, go as unreachable blocks.
/// No break or continue needs the loop, so its body is straight-line code of the enclosing
/// construct.
fn dissolve_loops_that_never_loop(f: &mut Function) -> bool {
    let cfg = f.cfg();
    let dead: Vec<usize> = (0..f.blocks().len())
        .filter(|&b| cfg.reachable(b))
        .filter(|&b| match &f.block(b).merge {
            Some(Merge::Loop {
                merge,
                continue_target,
                ..
            }) => [merge, continue_target]
                .iter()
                .all(|t| cfg.index.get(t).is_some_and(|&i| !cfg.reachable(i))),
            _ => false,
        })
        .collect();
    for &b in &dead {
        f.set_merge(b, None);
    }
    !dead.is_empty()
}

pub fn dead_branch(m: &mut Module) -> bool {
    let consts = Consts::new(m);
    let mut gone: FxHashSet<Id> = FxHashSet::default();
    let mut changed = false;
    rewrite::edit_functions(m, |m, f| {
        if simplify_function(m, f, &consts) {
            changed = true;
            gone.extend(prune_unreachable_in(m, f));
        }
    });
    forget(m, &gone);
    changed
}

impl Pass for DeadBranch {
    fn name(&self) -> &'static str {
        "dead-branch"
    }
    fn description(&self) -> &'static str {
        "branches on constants take their live edge; the blocks only dead edges reached go"
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(dead_branch(m).into())
    }
}
