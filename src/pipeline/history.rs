//! A value's history across the steps of a run: where it was created, where a pass rewrote
//! its instruction or moved it to another block, where a pass replaced it by another value
//! (the rewrite kit's `old → new` records, which `compact-ids` also keeps for the ids it
//! renumbers), and where it went. The value followed is the one the user picked; past a
//! replacement the history follows the value that took its place. Steps made outside our
//! passes (`spirv-opt:PASS`, another compiler's dumps: `Step::outside`) keep no records, but a
//! value keeps its id across them where the tool keeps its ids (and the run gives a printed
//! name the same id at every step). There a value that
//! is gone is followed by its debug name where another value has it, else by what its users
//! use in its place, else by its place (a new value of the same opcode and type where it stood
//! in its block), and the history says when it cannot follow.

use super::manager::Run;
use crate::ir::{Id, Inst, Module};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// First defined at this step.
    Created,
    /// Its instruction changed (operands, opcode or type).
    Changed,
    /// Its instruction moved to another block (from, to: labels).
    Moved { from: Id, to: Id },
    /// Replaced everywhere by `by`, which the history follows from here on.
    Replaced { by: Id },
    /// Took the place of `old`, which this step replaced by the value.
    Replaces { old: Id },
    /// Followed by its debug name across an external step (`by`: the value with that name).
    Renamed { by: Id },
    /// Replaced by `by` at an external step, as its users show: each that is still there uses
    /// `by` where it used the value.
    Inferred { by: Id },
    /// Followed by its place across an external step: `by` is a new value with the same
    /// opcode and type where it stood (the same rank among those of its block).
    Placed { by: Id },
    /// Renumbered by an external step that renumbers ids (compacts them, say): `by` is the
    /// id the instruction has now, found by aligning the step with the one before.
    Renumbered { by: Id },
    /// No longer defined, and nothing replaced it.
    Deleted,
    /// Gone at an external step, which records no replacements, and no value has its name
    /// or its place (a value whose function the step deleted is `Deleted`).
    Lost,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub step: usize,
    /// The value the event is about, as it is called after the step.
    pub value: Id,
    pub kind: EventKind,
}

/// Where a value is defined in a module: the function and block (`None` for globals) and
/// its instruction (`None` for a block's label: a block is created, replaced or deleted, never
/// changed as an instruction is).
fn definition(m: &Module, id: Id) -> Option<(Option<Id>, Option<&Inst>)> {
    if let Some(g) = m.global(id) {
        return Some((None, Some(g)));
    }
    for f in m.functions() {
        if f.def().result() == Some(id) {
            return Some((None, Some(f.def())));
        }
        if let Some(p) = f.params().iter().find(|p| p.result() == Some(id)) {
            return Some((None, Some(p)));
        }
        if f.blocks().iter().any(|b| b.label == id) {
            return Some((None, None));
        }
        if let Some(i) = f.value(id) {
            let block = f
                .layout()
                .find(|&(_, at)| at == i)
                .map(|(b, _)| f.block(b).label);
            return Some((block, Some(f.inst(i))));
        }
    }
    None
}

/// The value named `name` in module `m`, if exactly one has that debug name.
fn named(m: &Module, name: &str) -> Option<Id> {
    let mut found = m
        .debug()
        .iter()
        .filter(|i| i.op() == spirv::Op::Name)
        .filter(|i| matches!(i.lits().first(), Some(rspirv::dr::Operand::LiteralString(n)) if n == name))
        .filter_map(|i| i.arg(0));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// Where a value defined in a block stands: its function, its block's label, its opcode and
/// type, and how many instructions of that opcode and type come before it in the block.
fn place(m: &Module, id: Id) -> Option<(Id, Id, spirv::Op, Option<Id>, usize)> {
    let f = m.functions().iter().find(|f| f.value(id).is_some())?;
    let at = f.value(id)?;
    let inst = f.inst(at);
    let block = f.blocks().iter().find(|b| b.insts.contains(&at))?;
    let rank = block
        .insts
        .iter()
        .take_while(|&&i| i != at)
        .filter(|&&i| f.inst(i).op() == inst.op() && f.inst(i).ty() == inst.ty())
        .count();
    Some((f.id(), block.label, inst.op(), inst.ty(), rank))
}

/// The function that defines `id` (its result, a parameter or a value in its body), or that
/// `id` is.
fn function_of(m: &Module, id: Id) -> Option<Id> {
    m.functions()
        .iter()
        .find(|f| {
            f.id() == id
                || f.params().iter().any(|p| p.result() == Some(id))
                || f.value(id).is_some()
        })
        .map(|f| f.id())
}

/// The value that took the place of `id` (gone in `m`) in its users: each instruction of
/// `prev` that used it and is still in `m` (its result, opcode and id operand count) uses one
/// same value there, its other operands unchanged or gone too (an operand order that changed
/// is no evidence), and that value has its type. Users without a result (stores, branches)
/// are not matched.
fn replaced_in_uses(prev: &Module, m: &Module, id: Id) -> Option<Id> {
    let mut by = None;
    for f in prev.functions() {
        let Some(g) = m.functions().iter().find(|g| g.id() == f.id()) else {
            continue;
        };
        for user in f.body().filter(|u| u.id_operands().any(|a| a == id)) {
            let Some(now) = user.result().and_then(|r| g.def_of(r)) else {
                continue;
            };
            if now.op() != user.op() || now.id_operands().count() != user.id_operands().count() {
                continue;
            }
            for (was, is) in user.id_operands().zip(now.id_operands()) {
                if was == id {
                    match by {
                        None => by = Some(is),
                        Some(b) if b != is => return None,
                        Some(_) => {}
                    }
                } else if was != is && definition(m, was).is_some() {
                    return None;
                }
            }
        }
    }
    // The value that took its place has its type.
    let ty = |m: &Module, v: Id| definition(m, v).map(|(_, i)| i.and_then(|i| i.ty()));
    by.filter(|&b| b != id && ty(m, b).is_some_and(|t| Some(t) == ty(prev, id)))
}

/// The new value of `m` that stands where `id` stood in `prev` (see `place`).
fn at_place(prev: &Module, m: &Module, id: Id) -> Option<Id> {
    let (func, label, op, ty, rank) = place(prev, id)?;
    let f = m.functions().iter().find(|f| f.id() == func)?;
    let block = f.blocks().iter().find(|b| b.label == label)?;
    let new = block
        .insts
        .iter()
        .map(|&i| f.inst(i))
        .filter(|i| i.op() == op && i.ty() == ty)
        .nth(rank)?
        .result()?;
    definition(prev, new).is_none().then_some(new)
}

/// Each instruction of `m` in order (globals, then each function: its definition,
/// parameters, and each block's label and body), as its result id and a text in which every
/// id reads the same: what two steps that differ only by numbering have alike.
fn masked_lines(m: &Module) -> (Vec<Option<Id>>, Vec<String>) {
    use std::fmt::Write;
    let mut lines: Vec<(Option<Id>, String)> = Vec::new();
    let text_of = |i: &Inst| {
        let mut text = format!("{:?}", i.op());
        for o in i.operands() {
            match o {
                crate::ir::Opd::Id(_) => text.push_str(" %"),
                crate::ir::Opd::Lit(l) => {
                    let _ = write!(text, " {l:?}");
                }
            }
        }
        if i.ty().is_some() {
            text.push_str(" :%");
        }
        (i.result(), text)
    };
    lines.extend(m.globals().iter().map(text_of));
    for f in m.functions() {
        lines.push(text_of(f.def()));
        lines.extend(f.params().iter().map(text_of));
        for b in f.blocks() {
            lines.push((Some(b.label), "Label".to_string()));
            lines.extend(b.insts.iter().map(|&i| text_of(f.inst(i))));
        }
    }
    lines.into_iter().unzip()
}

/// How an external step numbered what the step before had, when it renumbered ids (most
/// instructions that align with one of the step before have another id): the two steps'
/// instructions aligned in order with their ids masked, each aligned pair mapping the old
/// result id to the new. `None` when the step kept its ids.
fn renumbering(prev: &Module, m: &Module) -> Option<crate::ir::fxhash::FxHashMap<Id, Id>> {
    let (old_ids, old_texts) = masked_lines(prev);
    let (new_ids, new_texts) = masked_lines(m);
    let diff = super::diff::diff_lines(&old_texts, &new_texts, false);
    let mut map = crate::ir::fxhash::FxHashMap::default();
    let (mut kept, mut moved) = (0usize, 0usize);
    for l in &diff.lines {
        let (Some(o), Some(n)) = (l.old, l.new) else {
            continue;
        };
        if let (Some(a), Some(b)) = (old_ids[o], new_ids[n]) {
            if a == b {
                kept += 1;
            } else {
                moved += 1;
            }
            map.insert(a, b);
        }
    }
    (moved > kept).then_some(map)
}

/// The history of `value` over every step of `run`, in step order.
pub fn history(run: &Run, value: Id) -> Vec<Event> {
    let mut events = Vec::new();
    let mut current = value;
    // The definition at the step before: block and instruction.
    let mut before: Option<(Option<Id>, Option<Inst>)> = None;
    for (k, step) in run.steps.iter().enumerate() {
        let m = &step.module;
        let came_from = current;
        // Replaced (or renumbered): one record per value and step, its end already resolved.
        let replaced = before
            .as_ref()
            .and_then(|_| step.replacements.iter().find(|r| r.old == current))
            .map(|r| r.new);
        if let Some(by) = replaced {
            events.push(Event {
                step: k,
                value: by,
                kind: EventKind::Replaced { by },
            });
            current = by;
        }
        // Others this step replaced by the value (not when the value is itself the one
        // that took ours: those are about other values), listed after its own events.
        let took_places: Vec<Event> = step
            .replacements
            .iter()
            .filter(|r| replaced.is_none() && r.new == current && r.old != came_from)
            .map(|r| Event {
                step: k,
                value: current,
                kind: EventKind::Replaces { old: r.old },
            })
            .collect();
        let mut now = definition(m, current);
        // An external step that renumbers every id: the value is followed to its new id, even
        // where its old id names another value now. A value whose definition stayed as it
        // was kept its id.
        let unchanged = match (&before, &now) {
            (Some((_, Some(a))), Some((_, Some(b)))) => same_inst(a, b),
            _ => false,
        };
        // (The alignment is made only for a step where the value followed changed.)
        if step.outside && before.is_some() && !unchanged {
            if let Some(map) = renumbering(&run.steps[k - 1].module, m) {
                match map.get(&current) {
                    Some(&by) if by != current => {
                        events.push(Event {
                            step: k,
                            value: by,
                            kind: EventKind::Renumbered { by },
                        });
                        current = by;
                        now = definition(m, current);
                    }
                    Some(_) => {}
                    // Not aligned with any: what has its id now is another value.
                    None => now = None,
                }
            }
        }
        if now.is_none() && before.is_some() {
            // Gone without a record: followed by name across an external step, or deleted.
            if step.outside {
                let prev = &run.steps[k - 1].module;
                let followed = prev
                    .debug_name(current)
                    .and_then(|n| named(m, n))
                    .map(|by| (by, EventKind::Renamed { by }))
                    .or_else(|| {
                        replaced_in_uses(prev, m, current)
                            .map(|by| (by, EventKind::Inferred { by }))
                    })
                    .or_else(|| {
                        at_place(prev, m, current).map(|by| (by, EventKind::Placed { by }))
                    });
                match followed {
                    Some((other, kind)) => {
                        events.push(Event {
                            step: k,
                            value: other,
                            kind,
                        });
                        current = other;
                        now = definition(m, current);
                    }
                    None => {
                        // A value of a function the step deleted went with it.
                        let kind = if function_of(prev, current)
                            .is_some_and(|f| !m.functions().iter().any(|g| g.id() == f))
                        {
                            EventKind::Deleted
                        } else {
                            EventKind::Lost
                        };
                        events.push(Event {
                            step: k,
                            value: current,
                            kind,
                        });
                        break;
                    }
                }
            } else {
                // The end: a later step that defines the id again (compact-ids renumbers
                // everything) defines another value.
                events.push(Event {
                    step: k,
                    value: current,
                    kind: EventKind::Deleted,
                });
                break;
            }
        }
        match (&before, &now) {
            (None, Some(_)) => events.push(Event {
                step: k,
                value: current,
                kind: EventKind::Created,
            }),
            (Some((b0, i0)), Some((b1, i1))) => {
                // After a replacement (or a rename) the definitions compared are of two
                // values: neither a move nor a change.
                let replaced_here = current != came_from;
                if b0 != b1 && !replaced_here {
                    if let (Some(from), Some(to)) = (b0, b1) {
                        events.push(Event {
                            step: k,
                            value: current,
                            kind: EventKind::Moved {
                                from: *from,
                                to: *to,
                            },
                        });
                    }
                }
                let same = match (i0, i1) {
                    (Some(a), Some(b)) => same_inst(a, b),
                    (a, b) => a.is_none() && b.is_none(),
                };
                if !replaced_here && !same {
                    events.push(Event {
                        step: k,
                        value: current,
                        kind: EventKind::Changed,
                    });
                }
            }
            _ => {}
        }
        events.extend(took_places);
        before = now.map(|(b, i)| (b, i.cloned()));
    }
    events
}

/// Ids of step `from` to those the later step `to` has for them: `renamed` composed over each
/// step between (most keep their ids: only renamings are listed).
pub fn renamed_between(run: &Run, from: usize, to: usize) -> crate::ir::fxhash::FxHashMap<Id, Id> {
    let mut out: crate::ir::fxhash::FxHashMap<Id, Id> = Default::default();
    for k in from + 1..=to {
        let m = renamed(run, k);
        if m.is_empty() {
            continue;
        }
        for v in out.values_mut() {
            if let Some(&n) = m.get(v) {
                *v = n;
            }
        }
        for (a, b) in m {
            out.entry(a).or_insert(b);
        }
    }
    out
}

/// The values step `k` of `run` renamed: each id of step `k - 1` that step `k` calls by
/// another id, mapped to that id. Only renamings count, not merges: a replacement whose new
/// value was already there (a value replaced by an equal one) keeps both ids, as two values.
/// Our passes record renamings (`compact-ids`); across an external step a value gone is
/// followed as `history` follows it (its debug name, what its users use in its place, its
/// place), where the id that takes its place is a new one. Comparing two steps value by value
/// (the semantic bisect's first differing value) goes through this map.
pub fn renamed(run: &Run, k: usize) -> crate::ir::fxhash::FxHashMap<Id, Id> {
    let mut out = crate::ir::fxhash::FxHashMap::default();
    let (Some(prev), Some(step)) = (
        k.checked_sub(1).and_then(|j| run.steps.get(j)),
        run.steps.get(k),
    ) else {
        return out;
    };
    let (prev, m) = (&prev.module, &step.module);
    if step.outside {
        if let Some(map) = renumbering(prev, m) {
            out.extend(map.into_iter().filter(|(a, b)| a != b));
            return out;
        }
        for f in prev.functions() {
            for id in f.body().filter_map(|i| i.result()) {
                if definition(m, id).is_some() {
                    continue;
                }
                let by = prev
                    .debug_name(id)
                    .and_then(|n| named(m, n))
                    .or_else(|| replaced_in_uses(prev, m, id))
                    .or_else(|| at_place(prev, m, id));
                if let Some(by) = by.filter(|&b| definition(prev, b).is_none()) {
                    out.insert(id, by);
                }
            }
        }
        return out;
    }
    // A renaming: the old id is gone (or names another renamed value now) and the new one
    // is new (or was another renamed value's).
    let olds: crate::ir::fxhash::FxHashSet<Id> = step.replacements.iter().map(|r| r.old).collect();
    let news: crate::ir::fxhash::FxHashSet<Id> = step.replacements.iter().map(|r| r.new).collect();
    for r in &step.replacements {
        let gone = definition(m, r.old).is_none() || news.contains(&r.old);
        let fresh = definition(prev, r.new).is_none() || olds.contains(&r.new);
        if gone && fresh {
            out.insert(r.old, r.new);
        }
    }
    out
}

/// Whether two definitions of one value are the same instruction (ids compared as they are:
/// a renumbering shows as a replacement, not a change).
fn same_inst(a: &Inst, b: &Inst) -> bool {
    a.op() == b.op() && a.ty() == b.ty() && a.operands().eq(b.operands())
}
