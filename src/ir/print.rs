//! The IR text form: the module in SPIR-V binary order, one instruction per line, written as
//! SPIR-V assembly with friendly names, and laid out by structure — blocks are indented by the
//! structured construct that contains them and annotated with their predecessors. Everything
//! that is not an instruction is a `;` comment, so `parse` reads it back with the assembler and
//! `print(parse(print(m))) == print(m)`. Ops of the IR's own dialect are spelled by name
//! (`%p = qptr.offset %T %base %c16`), not as the `OpExtInst` they are stored as. Attributes
//! analyses attach to an id are `; @…` lines under its definition, which `parse` reads back.

use std::fmt::Write;

use super::func::Function;
use super::inst::{Id, Inst};
use super::module::{Attribute, Module};
use super::names::Names;
use super::spirv::disasm::{generator_text, quote, Context};

/// What a printed line shows, so views can map lines back to the IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineKind {
    Comment,
    Blank,
    /// A module-level instruction.
    Global {
        result: Option<Id>,
    },
    /// `OpFunction` … `OpFunctionEnd`.
    FunctionHeader {
        func: Id,
    },
    Label {
        func: Id,
        block: Id,
    },
    Inst {
        func: Id,
        block: Id,
        result: Option<Id>,
    },
    FunctionEnd {
        func: Id,
    },
}

#[derive(Clone, Debug)]
pub struct Line {
    pub text: String,
    pub kind: LineKind,
}

pub fn print(m: &Module) -> String {
    let mut out = String::new();
    for line in print_lines(m) {
        out.push_str(&line.text);
        out.push('\n');
    }
    out
}

pub fn print_lines(m: &Module) -> Vec<Line> {
    let cx = Context::new(m, Names::for_module(m));
    let mut lines = Vec::with_capacity(m.inst_count() + 32);
    let comment = |lines: &mut Vec<Line>, text: String| {
        lines.push(Line {
            text,
            kind: LineKind::Comment,
        })
    };
    comment(&mut lines, "; shaderstep IR".into());
    comment(
        &mut lines,
        format!("; Version: {}.{}", m.header.version.0, m.header.version.1),
    );
    comment(
        &mut lines,
        format!("; Generator: {}", generator_text(m.header.generator)),
    );
    let global = |lines: &mut Vec<Line>, inst: &Inst| {
        lines.push(Line {
            text: inst_text(&cx, inst),
            kind: LineKind::Global {
                result: inst.result,
            },
        });
        if let Some(text) = attribute_line(m, &cx, inst.result, "") {
            lines.push(Line {
                text,
                kind: LineKind::Comment,
            });
        }
    };
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
            lines.push(Line {
                text: String::new(),
                kind: LineKind::Blank,
            });
            comment(&mut lines, format!("; {title}"));
        }
        for inst in section {
            global(&mut lines, inst);
        }
    }
    for f in m.functions() {
        lines.push(Line {
            text: String::new(),
            kind: LineKind::Blank,
        });
        print_function(m, &cx, f, &mut lines);
    }
    for inst in &m.trailing_debug {
        global(&mut lines, inst);
    }
    lines
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

fn print_function(m: &Module, cx: &Context, f: &Function, lines: &mut Vec<Line>) {
    let func = f.id();
    lines.push(Line {
        text: format!("; function {}", cx.id(func)),
        kind: LineKind::Comment,
    });
    for l in &f.leading_debug {
        lines.push(Line {
            text: inst_text(cx, l),
            kind: LineKind::FunctionHeader { func },
        });
    }
    lines.push(Line {
        text: inst_text(cx, &f.def),
        kind: LineKind::FunctionHeader { func },
    });
    if let Some(text) = attribute_line(m, cx, f.def.result, "") {
        lines.push(Line {
            text,
            kind: LineKind::FunctionHeader { func },
        });
    }
    for p in f.params.iter().chain(&f.prologue_debug) {
        lines.push(Line {
            text: format!("    {}", inst_text(cx, p)),
            kind: LineKind::FunctionHeader { func },
        });
    }
    let cfg = f.cfg();
    let mut open_merges: Vec<Id> = Vec::new();
    for (bi, b) in f.blocks().iter().enumerate() {
        if let Some(pos) = open_merges.iter().position(|m| *m == b.label) {
            open_merges.truncate(pos);
        }
        let indent = "  ".repeat(open_merges.len());
        let mut label = format!("{indent}{} = OpLabel", cx.id(b.label));
        let preds: Vec<String> = cfg.preds[bi]
            .iter()
            .map(|p| cx.id(cfg.labels[*p]))
            .collect();
        let note = if bi == 0 {
            "entry".to_string()
        } else if !cfg.reachable(bi) {
            "unreachable".to_string()
        } else {
            format!("preds {}", preds.join(" "))
        };
        let pad = 40usize.saturating_sub(label.chars().count()).max(1);
        let _ = write!(label, "{}; {note}", " ".repeat(pad));
        lines.push(Line {
            text: label,
            kind: LineKind::Label {
                func,
                block: b.label,
            },
        });
        let body_indent = format!("{indent}    ");
        for inst in f.block_insts(bi) {
            lines.push(Line {
                text: format!("{body_indent}{}", inst_text(cx, inst)),
                kind: LineKind::Inst {
                    func,
                    block: b.label,
                    result: inst.result,
                },
            });
            if let Some(text) = attribute_line(m, cx, inst.result, &body_indent) {
                lines.push(Line {
                    text,
                    kind: LineKind::Inst {
                        func,
                        block: b.label,
                        result: inst.result,
                    },
                });
            }
        }
        if let Some(merge) = &b.merge {
            lines.push(Line {
                text: format!("{body_indent}{}", inst_text(cx, &merge.to_inst())),
                kind: LineKind::Inst {
                    func,
                    block: b.label,
                    result: None,
                },
            });
            open_merges.push(merge.merge_block());
        }
        lines.push(Line {
            text: format!("{body_indent}{}", inst_text(cx, f.terminator(bi))),
            kind: LineKind::Inst {
                func,
                block: b.label,
                result: None,
            },
        });
    }
    lines.push(Line {
        text: "OpFunctionEnd".into(),
        kind: LineKind::FunctionEnd { func },
    });
}
