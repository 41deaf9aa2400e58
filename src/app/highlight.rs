//! Syntax highlighting with syntect, using our own grammars and theme from `assets/`. The
//! grammars are line-oriented, so any line is highlighted from a fresh state: callers
//! highlight only the rows on screen and cache the result. It makes data (`TextStyle` per
//! byte range), which the views turn into terminal styles.

use std::ops::Range;
use std::sync::OnceLock;

use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme, ThemeSet};
use syntect::parsing::{SyntaxDefinition, SyntaxSet, SyntaxSetBuilder};

use crate::app::state::{Syntax, TextStyle};

fn theme() -> &'static Theme {
    static T: OnceLock<Theme> = OnceLock::new();
    T.get_or_init(|| {
        ThemeSet::load_from_reader(&mut std::io::Cursor::new(
            &include_bytes!("../../assets/themes/shaderstep.tmTheme")[..],
        ))
        .expect("bundled theme is valid")
    })
}

/// The grammars one syntax needs, loaded the first time it is highlighted: loading all of them
/// took 45 ms, most of the first frame's fixed cost, when the IR view needs two small ones.
fn syntaxes(syntax: Syntax) -> &'static SyntaxSet {
    static SETS: [OnceLock<SyntaxSet>; 5] = [const { OnceLock::new() }; 5];
    const SPIRV: &str = include_str!("../../assets/syntax/spirv.sublime-syntax");
    let (slot, sources): (usize, &[&str]) = match syntax {
        // The IR's grammar includes SPIR-V's.
        Syntax::Ir | Syntax::Spirv => (
            0,
            &[
                SPIRV,
                include_str!("../../assets/syntax/shaderstep-ir.sublime-syntax"),
            ],
        ),
        Syntax::Wgsl => (
            1,
            &[include_str!("../../assets/syntax/wgsl.sublime-syntax")],
        ),
        Syntax::Glsl => (
            2,
            &[include_str!("../../assets/syntax/glsl.sublime-syntax")],
        ),
        Syntax::Hlsl => (
            3,
            &[include_str!("../../assets/syntax/hlsl.sublime-syntax")],
        ),
        Syntax::Driver => (
            4,
            &[include_str!("../../assets/syntax/driver.sublime-syntax")],
        ),
    };
    SETS[slot].get_or_init(|| {
        let mut b = SyntaxSetBuilder::new();
        for src in sources {
            b.add(
                SyntaxDefinition::load_from_str(src, true, None).expect("bundled syntax is valid"),
            );
        }
        b.build()
    })
}

/// Compiles every grammar's patterns on a thread of its own (syntect compiles a grammar's
/// regexes when it first highlights with it: tens of milliseconds), so that the first frame
/// showing a shader's source or the source pane does not wait for it.
pub fn warm_up() {
    let _ = std::thread::Builder::new()
        .name("shaderstep-highlight-warm-up".into())
        .spawn(|| {
            for syntax in [
                Syntax::Ir,
                Syntax::Spirv,
                Syntax::Glsl,
                Syntax::Wgsl,
                Syntax::Hlsl,
                Syntax::Driver,
            ] {
                highlight("float x = 1.0; // %1 = OpFMul %float %2 %3", syntax);
            }
        });
}

/// Lines longer than this are shown plain: highlighting them would cost more than it helps.
const MAX_LINE: usize = 2000;

pub fn highlight(line: &str, syntax: Syntax) -> Vec<(TextStyle, Range<usize>)> {
    if line.len() > MAX_LINE {
        return vec![(TextStyle::default(), 0..line.len())];
    }
    let set = syntaxes(syntax);
    let scope = match syntax {
        Syntax::Ir => "source.shaderstep-ir",
        Syntax::Spirv => "source.spirv",
        Syntax::Wgsl => "source.wgsl",
        Syntax::Glsl => "source.glsl",
        Syntax::Hlsl => "source.hlsl",
        Syntax::Driver => "source.driver",
    };
    let syntax = set
        .find_syntax_by_scope(syntect::parsing::Scope::new(scope).expect("valid scope"))
        .expect("bundled syntax");
    let mut h = HighlightLines::new(syntax, theme());
    let Ok(parts) = h.highlight_line(line, set) else {
        return vec![(TextStyle::default(), 0..line.len())];
    };
    let mut out = Vec::with_capacity(parts.len());
    let mut pos = 0;
    for (style, text) in parts {
        let s = TextStyle {
            fg: Some((style.foreground.r, style.foreground.g, style.foreground.b)),
            bold: style.font_style.contains(FontStyle::BOLD),
            italic: style.font_style.contains(FontStyle::ITALIC),
        };
        out.push((s, pos..pos + text.len()));
        pos += text.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn color_of(line: &str, word: &str, kind: Syntax) -> Option<(u8, u8, u8)> {
        let start = line.find(word).unwrap();
        highlight(line, kind)
            .into_iter()
            .find(|(_, r)| r.contains(&start))
            .and_then(|(s, _)| s.fg)
    }

    #[test]
    fn distinct_scopes_get_distinct_colours() {
        let line = r#"%main_1 = OpLoad %v4float %12 Aligned 4 ; "s""#;
        let k = Syntax::Spirv;
        let names = color_of(line, "%main_1", k);
        let opcode = color_of(line, "OpLoad", k);
        let ty = color_of(line, "%v4float", k);
        let num_id = color_of(line, "%12", k);
        let lit = color_of(line, "4 ", k);
        let comment = color_of(line, "; ", k);
        let all = [names, opcode, ty, num_id, lit, comment];
        for (i, a) in all.iter().enumerate() {
            assert!(a.is_some());
            for b in &all[i + 1..] {
                assert_ne!(a, b, "two scopes share a colour in {all:?}");
            }
        }
        let s = r#"OpName %x "a \"q\" b""#;
        assert_ne!(color_of(s, "\"a", k), color_of(s, "OpName", k));
    }

    #[test]
    fn source_languages_are_coloured() {
        for (line, syntax, a, b) in [
            (
                "@fragment fn main() -> vec4<f32> { return x; }",
                Syntax::Wgsl,
                "fn",
                "vec4",
            ),
            (
                "layout(location = 0) out vec4 color; // c",
                Syntax::Glsl,
                "out",
                "// c",
            ),
            (
                "float4 main() : SV_Target { return 1.0f; }",
                Syntax::Hlsl,
                "float4",
                "1.0f",
            ),
        ] {
            let (ca, cb) = (color_of(line, a, syntax), color_of(line, b, syntax));
            assert!(
                ca.is_some() && cb.is_some() && ca != cb,
                "{line}: {ca:?} {cb:?}"
            );
        }
    }

    #[test]
    fn ir_annotations_are_comments() {
        let line = "%5 = OpLabel                            ; preds %3 %4";
        let asm = "        vmulps  %ymm4, %ymm8, %ymm9";
        assert_ne!(
            color_of(asm, "vmulps", Syntax::Driver),
            color_of(asm, "%ymm4", Syntax::Driver)
        );
        let c = color_of(line, "; preds", Syntax::Ir);
        assert_ne!(c, color_of(line, "OpLabel", Syntax::Ir));
    }
}
