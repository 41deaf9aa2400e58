//! The IR text form: the module in SPIR-V binary order, one instruction per line, written as
//! SPIR-V assembly with friendly names, and laid out by structure — blocks are indented by the
//! structured construct that contains them and annotated with their predecessors. Everything
//! that is not an instruction is a `;` comment, so `parse` reads it back with the assembler and
//! `print(parse(print(m))) == print(m)`. Ops of the IR's own dialect are spelled by name
//! (`%p = qptr.offset %T %base %c16`), not as the `OpExtInst` they are stored as. Attributes
//! analyses attach to an id are `; @…` lines under its definition, which `parse` reads back.

use std::fmt::Write;

use super::func::{Function, MarkerIds};
use super::inst::{Id, Inst};
use super::listing::{Listing, ListingBuilder};
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
        ("annotations", &m.annotations),
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
    out.push(
        format!("{indent}{}", inst_text(cx, inst)),
        inst.result,
        ids,
        &[],
    );
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

fn inst_text(cx: &Context, inst: &Inst) -> String {
    let body = cx
        .dialect_body(inst)
        .unwrap_or_else(|| cx.format_body(inst));
    match inst.result {
        Some(r) => format!("{} = {body}", cx.id(r)),
        None => body,
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
        out.push(format!("    {}", inst_text(cx, p)), p.result, ids, &[]);
    }
    let cfg = f.cfg();
    let mut open_merges: Vec<Id> = Vec::new();
    let mut markers = MarkerIds::new(m.bound);
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
        // With the location markers that say where each instruction is.
        f.for_each_written_in(bi, &mut markers, &mut |inst| {
            inst_line(out, m, cx, inst, &body_indent, ids)
        });
        if let Some(merge) = &b.merge {
            open_merges.push(merge.merge_block());
        }
    }
    for l in &f.epilogue_debug {
        inst_line(out, m, cx, l, "", ids);
    }
    out.note("OpFunctionEnd".into());
    out.leave_function(cx.names.get(func));
}
