//! The table as documents: JSON (`shaderstep ops --json`) and the markdown reference page
//! (`shaderstep ops --markdown`, checked in as `docs/ops.md`).

use super::{
    all, dialect, glsl, reserved, width_capability, Family, OpInfo, OpSet, Overload, Rule, Slot,
    DIALECT_FEATURE, EXPERIMENTAL, FAMILIES,
};

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn overloads_json(o: &[Overload]) -> String {
    let items: Vec<String> = o
        .iter()
        .map(|o| {
            let widths: Vec<String> = o
                .widths
                .iter()
                .map(|w| match width_capability(o.kind, *w) {
                    Some(c) => format!("{{\"width\":{w},\"capability\":\"{c:?}\"}}"),
                    None => format!("{{\"width\":{w}}}"),
                })
                .collect();
            format!(
                "{{\"kind\":\"{}\",\"vector\":{},\"widths\":[{}]}}",
                o.kind.name(),
                o.vector,
                widths.join(",")
            )
        })
        .collect();
    format!("[{}]", items.join(","))
}

fn rule_name(r: Rule) -> &'static str {
    match r {
        Rule::None => "none",
        Rule::SameType => "same-type",
        Rule::SameShape => "same-shape",
        Rule::Shift => "shift",
        Rule::Compare => "compare",
        Rule::SameCount => "same-count",
        Rule::Resize => "resize",
        Rule::Reduce => "reduce",
        Rule::Select => "select",
    }
}

fn image_json(o: &OpInfo) -> String {
    match o.image {
        Some(a) => format!(
            "{{\"coordinate\":{},\"after_coordinate\":{},\"result\":{}}}",
            json_str(a.coordinate.name()),
            json_str(a.after_coordinate.name()),
            json_str(a.result.name())
        ),
        None => "null".into(),
    }
}

fn version_json(o: &OpInfo) -> String {
    match o.min_version {
        Some((a, b)) => format!("\"{a}.{b}\""),
        None => "null".into(),
    }
}

/// The table as JSON: `{"ops": [{"name", "opcode", "feature_id", "class", "overloads",
/// "attributes", "doc", …}, …], "reserved": [{"name", "opcode"}, …]}`.
pub fn to_json() -> String {
    let ops: Vec<String> = all()
        .iter()
        .map(|o| {
            let attrs: Vec<String> = o.attrs.names().iter().map(|a| json_str(a)).collect();
            let caps: Vec<String> = o
                .capabilities
                .iter()
                .map(|c| json_str(&format!("{c:?}")))
                .collect();
            format!(
                "{{\"name\":{},\"opcode\":{},\"feature_id\":{},\"experimental\":{},\"set\":{},\"class\":\"{}\",\
                 \"overloads\":{},\"result_rule\":\"{}\",\"attributes\":[{}],\"capabilities\":[{}],\
                 \"min_version\":{},\"folds\":{},\"image\":{},\"doc\":{}}}",
                json_str(&o.name),
                o.opcode,
                o.feature_id(),
                o.experimental(),
                json_str(o.set.name()),
                o.class.name(),
                overloads_json(o.overloads),
                rule_name(o.rule),
                attrs.join(","),
                caps.join(","),
                version_json(o),
                o.fold.is_some(),
                image_json(o),
                json_str(o.doc)
            )
        })
        .collect();
    let reserved: Vec<String> = reserved()
        .iter()
        .map(|(opcode, name)| format!("{{\"name\":{},\"opcode\":{opcode}}}", json_str(name)))
        .collect();
    format!(
        "{{\"ops\":[\n{}\n],\n\"reserved\":[{}]}}\n",
        ops.join(",\n"),
        reserved.join(",")
    )
}

fn attrs_md(o: super::Attrs) -> String {
    if o.names().is_empty() {
        "none".to_string()
    } else {
        o.names()
            .iter()
            .map(|a| format!("`{a}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn families_md(out: &mut String, families: &[Family], prefix: &str) {
    for f in families {
        let overloads: Vec<String> = f.overloads.iter().map(ToString::to_string).collect();
        out.push_str(&format!(
            "### {}\n\n{}\n\n- class: `{}`\n- attributes: {}\n- overloads: {}\n- result: {}\n- ops: {}\n\n",
            f.name,
            f.doc,
            f.class.name(),
            attrs_md(f.attrs),
            if overloads.is_empty() {
                "any type".to_string()
            } else {
                overloads.join("; ")
            },
            rule_name(f.rule),
            f.ops
                .iter()
                .map(|o| format!("`{prefix}{o}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
}

/// The table as the markdown reference page (`docs/ops.md`).
pub fn to_markdown() -> String {
    let mut out = String::from(
        "# The op table\n\nGenerated by `shaderstep ops --markdown`; do not edit (a test fails when it is stale).\n\n\
         Opcodes are 32-bit: the top 16 bits are a FeatureID. Bit 15 marks the experimental partition \
         (`0x8000`), whose ops are accepted only with `--experimental` and mark a module that uses them as \
         *preview*. Stable partitions: `0x0000` SPIR-V core ops (their SPIR-V opcodes), `0x0001` GLSL.std.450 \
         (the set's numbers), `0x0002` the shaderstep dialect. Attributes: `pure` (no memory access, no side \
         effect), `reads-memory`, `writes-memory`, `derivative`, `wave`, `barrier`, `terminator`, \
         `commutative`. Overload widths marked with a capability need it declared. Result rules: `same-type` \
         (every value operand has the result type), `same-shape` (same component count and width), `shift` \
         (the base has the result's shape, the shift its component count), `compare` (a bool result with the \
         operands' component count), `same-count` (same component count).\n\n\
         ## SPIR-V families\n\n",
    );
    families_md(&mut out, FAMILIES, "Op");
    out.push_str("## GLSL.std.450 families\n\n");
    families_md(&mut out, glsl::FAMILIES, "");
    out.push_str(&format!(
        "## The shaderstep dialect\n\nExtended instructions of `OpExtInstImport \"{}\"`; the IR text spells \
         them by name: `%r = NAME %Type operands…` for ops that yield a value, `%r = NAME operands…` for \
         the others (their result type is void). Every operand is an id.\n\n",
        super::DIALECT_SET
    ));
    for (feature, slots) in [
        (DIALECT_FEATURE, dialect::STABLE),
        (EXPERIMENTAL, dialect::EXPERIMENTAL),
    ] {
        for (k, slot) in slots.iter().enumerate() {
            let opcode = (u32::from(feature) << 16) | k as u32;
            match slot {
                Slot::Reserved(name) => {
                    out.push_str(&format!("### 0x{opcode:08x} reserved (was `{name}`)\n\n"))
                }
                Slot::Op(d) => {
                    let caps: Vec<String> =
                        d.capabilities.iter().map(|c| format!("`{c:?}`")).collect();
                    out.push_str(&format!(
                        "### `{}` — 0x{opcode:08x}{}\n\n{}\n\n- syntax: `%r = {}{}{}`\n- class: `{}`\n- attributes: {}\n- needs one of: {}\n\n",
                        d.name,
                        if feature == EXPERIMENTAL { " (experimental)" } else { "" },
                        d.doc,
                        d.name,
                        if d.typed { " %Type" } else { "" },
                        d.operands.iter().map(|o| format!(" %{o}")).collect::<String>(),
                        d.class.name(),
                        attrs_md(d.attrs),
                        if caps.is_empty() { "nothing".to_string() } else { caps.join(", ") },
                    ));
                }
            }
        }
    }
    out.push_str(
        "## Image ops\n\nWhat each image op reads besides its image, and what it makes: the coordinate's kind \
         (a `Lod` image operand has it too), the operand after the coordinate (`depth-reference` a float, \
         `component` and `sample` integers, `texel` of the image's sampled type) and the result (`sampled` the \
         image's sampled type, `sampled-or-float` a float when that is not numeric, `sparse-struct` a \
         residency code and texels). `assign-types` reads this for the operands their typing leaves to \
         context.\n\n\
         | op | coordinate | after the coordinate | result |\n|---|---|---|---|\n",
    );
    for o in all() {
        if let Some(a) = o.image {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                o.name,
                a.coordinate.name(),
                a.after_coordinate.name(),
                a.result.name()
            ));
        }
    }
    out.push('\n');
    out.push_str(
        "## Every op\n\n| opcode | op | class | attributes | needs | folds | family |\n|---|---|---|---|---|---|---|\n",
    );
    for o in all() {
        let needs = match o.min_version {
            Some((a, b)) => format!("SPIR-V {a}.{b}"),
            None => String::new(),
        };
        out.push_str(&format!(
            "| 0x{:08x} | `{}` | {} | {} | {} | {} | {} |\n",
            o.opcode,
            o.name,
            o.class.name(),
            o.attrs.names().join(" "),
            needs,
            if o.fold.is_some() { "yes" } else { "" },
            o.family.unwrap_or(match o.set {
                OpSet::Dialect => "dialect",
                _ => "",
            })
        ));
    }
    out
}
