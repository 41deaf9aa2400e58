//! Overlays (`views::help`): the key help and its scrolling, and the op table's entry for the op
//! on the cursor line.

use super::Effect;
use crate::app::action::Action;
use crate::app::state::State;

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Help => {
            s.help.shown = !s.help.shown;
            s.help.scroll = 0;
        }
        Action::ClosePopup => s.popup = None,
        Action::OpInfo => op_info(s),
        Action::Messages => {
            // Why the selected input does not load, first (a compiler's whole output), then
            // the messages, newest first; an error's first line marked `!`.
            let load_error = s.current().and_then(|d| d.error.clone());
            let said = load_error.iter().map(|e| (e.as_str(), true)).chain(
                s.status
                    .messages
                    .iter()
                    .rev()
                    .map(|m| (m.text.as_str(), m.error)),
            );
            let mut lines = Vec::new();
            for (text, error) in said {
                for (k, l) in text.lines().enumerate() {
                    let mark = if k == 0 && error { "!" } else { " " };
                    lines.push(format!("{mark} {l}"));
                }
            }
            if lines.is_empty() {
                lines.push("no messages yet".into());
            }
            s.popup = Some(crate::app::state::Popup {
                title: format!("messages, newest first ({})", s.status.messages.len()),
                lines,
                scroll: 0,
            });
        }
        other => unreachable!("not an action of help: {other:?}"),
    }
    Vec::new()
}

/// Scrolls the information box by `delta` lines (down to its last screenful: the box is as
/// tall as the screen, less its borders).
pub(super) fn scroll_popup(s: &mut State, delta: isize) {
    let rows = usize::from(s.size.1.saturating_sub(2)).max(1);
    if let Some(p) = &mut s.popup {
        let max = p.lines.len().saturating_sub(rows) as isize;
        p.scroll = (p.scroll as isize + delta).clamp(0, max) as usize;
    }
}

/// Scrolls the help by `delta` lines (clamped to its length).
pub(super) fn scroll_help(s: &mut State, delta: isize) {
    let max = s.layout.help_lines.saturating_sub(s.layout.help_rows);
    s.help.scroll = (s.help.scroll as isize + delta).clamp(0, max as isize) as usize;
}

/// The op table entry of the first op on a line of IR or SPIR-V text: a dialect op by name
/// (`qptr.offset`), the instruction of an `OpExtInst` of GLSL.std.450 (`… OpExtInst %float
/// %1 Sqrt …`), or a core opcode.
pub fn op_on_line(text: &str) -> Option<&'static crate::ir::ops::OpInfo> {
    use crate::ir::ops;
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '=' || c == ';')
        .filter(|w| !w.is_empty())
        .collect();
    for (k, w) in words.iter().enumerate() {
        if let Some(d) = ops::dialect_by_name(w) {
            return Some(d);
        }
        if *w == "OpExtInst" {
            // OpExtInst %type %set Name …
            let named = words
                .get(k + 3)
                .and_then(|n| ops::by_name(&format!("{}.{n}", ops::GLSL_SET)));
            return named.or_else(|| ops::by_name(w));
        }
        if w.starts_with("Op") && w.len() > 2 {
            return ops::by_name(w);
        }
    }
    None
}

/// Opens the op table's entry for the first op on the cursor line.
fn op_info(s: &mut State) {
    let text = s.panel.row_text(s.code.cursor).to_string();
    let Some(info) = op_on_line(&text) else {
        s.set_error("no opcode on this line");
        return;
    };
    let overloads: Vec<String> = info
        .overloads
        .iter()
        .map(|o| {
            let caps: Vec<String> = o
                .widths
                .iter()
                .filter_map(|w| {
                    crate::ir::ops::width_capability(o.kind, *w)
                        .map(|c| format!("{}{w} needs {c:?}", &o.kind.name()[..1]))
                })
                .collect();
            if caps.is_empty() {
                o.to_string()
            } else {
                format!("{o}; {}", caps.join(", "))
            }
        })
        .collect();
    let operands: Vec<String> = if !info.operand_names.is_empty() {
        info.operand_names.iter().map(|n| format!("%{n}")).collect()
    } else {
        info.operands
            .iter()
            .map(|(k, q)| {
                let q = match q {
                    rspirv::grammar::OperandQuantifier::One => "",
                    rspirv::grammar::OperandQuantifier::ZeroOrOne => "?",
                    rspirv::grammar::OperandQuantifier::ZeroOrMore => "*",
                };
                format!("{k:?}{q}")
            })
            .collect()
    };
    let mut lines = vec![
        format!(
            "opcode      0x{:08x} (FeatureID 0x{:04x}, {})",
            info.opcode,
            info.feature_id(),
            if info.experimental() {
                "experimental"
            } else {
                "stable"
            }
        ),
        format!("class       {}", info.class.name()),
        format!(
            "attributes  {}",
            if info.attrs.names().is_empty() {
                "none".to_string()
            } else {
                info.attrs.names().join(", ")
            }
        ),
        format!(
            "overloads   {}",
            if overloads.is_empty() {
                "any type".to_string()
            } else {
                overloads.join(" / ")
            }
        ),
        format!("operands    {}", operands.join(" ")),
    ];
    if let Some(image) = info.image {
        lines.push(format!("image       {image}"));
    }
    if !info.capabilities.is_empty() {
        let caps: Vec<String> = info.capabilities.iter().map(|c| format!("{c:?}")).collect();
        lines.push(format!("needs one of {}", caps.join(", ")));
    }
    if let Some((major, minor)) = info.min_version {
        let by = if info.extensions.is_empty() {
            String::new()
        } else {
            format!(" (earlier with {})", info.extensions.join(" or "))
        };
        lines.push(format!("needs       SPIR-V {major}.{minor}{by}"));
    }
    lines.push(format!("set         {}", info.set.name()));
    if let Some(f) = info.family {
        lines.push(format!("family      {f}"));
    }
    lines.push(String::new());
    lines.push(info.doc.to_string());
    s.popup = Some(crate::app::state::Popup {
        title: info.name.clone(),
        lines,
        scroll: 0,
    });
}
