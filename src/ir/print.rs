//! The IR text form: the module in SPIR-V binary order, one instruction per line, written as
//! SPIR-V assembly with friendly names, and laid out by structure — blocks are indented by the
//! structured construct that contains them and annotated with their predecessors. Everything
//! that is not an instruction is a `;` comment, so `parse` reads it back with the assembler and
//! `print(parse(print(m))) == print(m)`. Ops of the IR's own dialect are spelled by name
//! (`%p = qptr.offset %T %base %c16`), not as the `OpExtInst` they are stored as. Attributes
//! analyses attach to an id are `; @…` lines under its definition, which `parse` reads back.
//! Source locations are `; @loc …` lines above the instructions they hold for, through the end
//! of the block (see `LocationText`), instead of the markers a binary says them with.

use std::fmt::Write;

use super::debug::DebugSets;
use super::func::Function;
use super::inst::{Id, Inst};
use super::listing::{Listing, ListingBuilder};
use super::loc::Location;
use super::module::{Attribute, Module};
use super::names::Names;
use super::spirv::disasm::{quote, version_and_generator, Context};

pub fn print(m: &Module) -> String {
    listing(m).text()
}

/// The IR text form, with what each line holds.
pub fn listing(m: &Module) -> Listing {
    let cx = Context::new(m, Names::for_module(m));
    let mut out = ListingBuilder::for_module(m, m.inst_count() + 32);
    out.note("; shaderstep IR".into());
    version_and_generator(&mut out, m);
    let mut ids = Vec::new();
    for (title, section) in [
        ("", m.preamble.as_slice()),
        ("", &m.entry_points),
        ("", &m.execution_modes),
        ("debug", &m.debug),
        ("annotations", m.annotations()),
        ("types, constants, global variables", m.globals()),
    ] {
        if section.is_empty() {
            continue;
        }
        if !title.is_empty() {
            out.note(String::new());
            out.note(format!("; {title}"));
        }
        for inst in section {
            inst_line(&mut out, m, &cx, inst, "", &mut ids);
        }
    }
    for f in m.functions() {
        out.note(String::new());
        print_function(m, &cx, f, &mut out, &mut ids);
    }
    for inst in &m.trailing_debug {
        inst_line(&mut out, m, &cx, inst, "", &mut ids);
    }
    out.finish()
}

/// The line of one instruction, and the `; @…` line of its attribute if it has one.
fn inst_line(
    out: &mut ListingBuilder,
    m: &Module,
    cx: &Context,
    inst: &Inst,
    indent: &str,
    ids: &mut Vec<Id>,
) {
    out.line_info(m, inst);
    ids.clear();
    cx.body_ids(inst, ids);
    let mut line = String::with_capacity(indent.len() + 96);
    line.push_str(indent);
    write_inst(cx, inst, &mut line);
    out.push(line, inst.result, ids, &[]);
    if let Some(text) = attribute_line(m, cx, inst.result, indent) {
        out.push(text, None, &[], &[]);
    }
}

/// The `; @…` line of an id's attribute, if it has one.
fn attribute_line(m: &Module, cx: &Context, id: Option<Id>, indent: &str) -> Option<String> {
    let a = m.attributes.get(&id?)?;
    Some(match a {
        Attribute::QptrUsage(u) => format!("{indent}; @usage {}", u.text(&|id| cx.names.get(id))),
        Attribute::TypedPointers(why) => format!("{indent}; @typed-pointers {}", quote(why)),
    })
}

/// An instruction's text, appended to `s`.
fn write_inst(cx: &Context, inst: &Inst, s: &mut String) {
    if let Some(r) = inst.result {
        cx.push_id(s, r);
        s.push_str(" = ");
    }
    if !cx.write_dialect_body(inst, s) {
        cx.write_body(inst, s);
    }
}

fn print_function(
    m: &Module,
    cx: &Context,
    f: &Function,
    out: &mut ListingBuilder,
    ids: &mut Vec<Id>,
) {
    let func = f.id();
    out.enter_function(func);
    out.note(format!("; function {}", cx.id(func)));
    for l in &f.leading_debug {
        inst_line(out, m, cx, l, "", ids);
    }
    inst_line(out, m, cx, &f.def, "", ids);
    // Parameters carry no attribute lines (`parse` would not read them back there).
    for p in f.params.iter().chain(&f.prologue_debug) {
        out.line_info(m, p);
        ids.clear();
        cx.body_ids(p, ids);
        let mut line = String::with_capacity(96);
        line.push_str("    ");
        write_inst(cx, p, &mut line);
        out.push(line, p.result, ids, &[]);
    }
    let cfg = f.cfg();
    let mut open_merges: Vec<Id> = Vec::new();
    let locs = LocationText::of(m);
    for (bi, b) in f.blocks().iter().enumerate() {
        if let Some(pos) = open_merges.iter().position(|m| *m == b.label) {
            open_merges.truncate(pos);
        }
        out.enter_block(b.label);
        let indent = "  ".repeat(open_merges.len());
        let mut label = format!("{indent}{} = OpLabel", cx.id(b.label));
        let preds: Vec<Id> = cfg.preds[bi].iter().map(|p| cfg.labels[*p]).collect();
        let note = if bi == 0 {
            "entry".to_string()
        } else if !cfg.reachable(bi) {
            "unreachable".to_string()
        } else {
            let names: Vec<String> = preds.iter().map(|p| cx.id(*p)).collect();
            format!("preds {}", names.join(" "))
        };
        let pad = 40usize.saturating_sub(label.chars().count()).max(1);
        let _ = write!(label, "{}; {note}", " ".repeat(pad));
        let mentioned = if bi == 0 || !cfg.reachable(bi) {
            &[][..]
        } else {
            &preds[..]
        };
        out.push(label, Some(b.label), &[], mentioned);
        let body_indent = format!("{indent}    ");
        // A `; @loc` line wherever the location changes (each block starts with none).
        let mut said = Location::default();
        let mut at = |out: &mut ListingBuilder, inst: &Inst| {
            let loc = f.location(inst.loc);
            // The `; @loc` line shows the source line it says.
            out.set_source(crate::ir::debug::source_line(m, &locs.sets, loc));
            out.set_scope(loc.scope.map(|sc| (sc.scope, sc.inlined_at)));
            if *loc != said {
                out.note(format!("{body_indent}; @loc {}", locs.text(cx, loc)));
                said = *loc;
            }
        };
        for &i in &b.insts {
            let inst = f.inst(i);
            at(out, inst);
            out.set_inst(i);
            inst_line(out, m, cx, inst, &body_indent, ids);
        }
        let t = f.terminator(bi);
        at(out, t);
        if let Some(merge) = &b.merge {
            inst_line(out, m, cx, &merge.to_inst(), &body_indent, ids);
            open_merges.push(merge.merge_block());
        }
        out.set_inst(b.terminator);
        inst_line(out, m, cx, t, &body_indent, ids);
    }
    for l in &f.epilogue_debug {
        inst_line(out, m, cx, l, "", ids);
    }
    out.note("OpFunctionEnd".into());
    out.leave_function(cx.names.get(func));
}

/// How a location reads in the text form: `; @loc` and its parts, each present when the
/// location has it —
/// `scope %scope [at %inlined]` (`DebugScope`), `debug %source L1 L2 C1 C2` (`DebugLine`:
/// its line and column constants by value when each names the module's first 32-bit integer
/// constant of that value, else by id), `line %file L C` (`OpLine`) — or `none`. A scope or
/// line of another set or result type than the module's first debug set and `OpTypeVoid` says
/// so (`set %set type %ty`).
pub struct LocationText {
    pub sets: DebugSets,
    /// The set and result type a part that does not say them has.
    pub set: Option<Id>,
    pub void: Option<Id>,
    /// Each 32-bit integer constant that is the first of its value, with the value.
    values: std::collections::HashMap<Id, u32>,
}

impl LocationText {
    pub fn of(m: &Module) -> Self {
        let sets = DebugSets::of(m);
        let set = m
            .preamble
            .iter()
            .filter(|i| i.op == spirv::Op::ExtInstImport)
            .filter_map(|i| i.result)
            .find(|&r| sets.flavor(r).is_some());
        let void = m
            .globals()
            .iter()
            .find(|g| g.op == spirv::Op::TypeVoid)
            .and_then(|g| g.result);
        LocationText {
            sets,
            set,
            void,
            values: int_constants(m)
                .into_iter()
                .map(|(v, id)| (id, v))
                .collect(),
        }
    }

    pub fn text(&self, cx: &Context, loc: &Location) -> String {
        let mut parts = Vec::new();
        let origin = |set: Id, ty: Id| {
            if Some(set) == self.set && Some(ty) == self.void {
                String::new()
            } else {
                format!(" set {} type {}", cx.id(set), cx.id(ty))
            }
        };
        if let Some(s) = &loc.scope {
            let at = s
                .inlined_at
                .map(|i| format!(" at {}", cx.id(i)))
                .unwrap_or_default();
            parts.push(format!(
                "scope {}{at}{}",
                cx.id(s.scope),
                origin(s.set, s.ty)
            ));
        }
        if let Some(d) = &loc.debug_line {
            let n = |id: Id| match self.values.get(&id) {
                Some(v) => v.to_string(),
                None => cx.id(id),
            };
            parts.push(format!(
                "debug {} {} {} {} {}{}",
                cx.id(d.source),
                n(d.lines[0]),
                n(d.lines[1]),
                n(d.columns[0]),
                n(d.columns[1]),
                origin(d.set, d.ty)
            ));
        }
        if let Some(l) = &loc.line {
            parts.push(format!("line {} {} {}", cx.id(l.file), l.line, l.column));
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(" ")
        }
    }
}

/// The module's 32-bit integer constants by value: the first of each value.
pub fn int_constants(m: &Module) -> std::collections::HashMap<u32, Id> {
    let ints: Vec<Id> = m
        .globals()
        .iter()
        .filter(|g| g.op == spirv::Op::TypeInt && g.lit_u32(0) == Some(32))
        .filter_map(|g| g.result)
        .collect();
    let mut out = std::collections::HashMap::new();
    for g in m.globals() {
        if g.op == spirv::Op::Constant && g.ty.is_some_and(|t| ints.contains(&t)) {
            if let (Some(v), Some(r)) = (g.lit_u32(0), g.result) {
                out.entry(v).or_insert(r);
            }
        }
    }
    out
}
