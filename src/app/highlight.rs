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
    SETS[slot(syntax)].get_or_init(|| {
        let mut b = SyntaxSetBuilder::new();
        for src in sources(syntax) {
            b.add(
                SyntaxDefinition::load_from_str(src, true, None).expect("bundled syntax is valid"),
            );
        }
        b.build()
    })
}

fn slot(syntax: Syntax) -> usize {
    match syntax {
        Syntax::Ir | Syntax::Spirv => 0,
        Syntax::Wgsl => 1,
        Syntax::Glsl => 2,
        Syntax::Hlsl => 3,
        Syntax::Driver => 4,
    }
}

fn sources(syntax: Syntax) -> &'static [&'static str] {
    const SPIRV: &str = include_str!("../../assets/syntax/spirv.sublime-syntax");
    match syntax {
        // The IR's grammar includes SPIR-V's.
        Syntax::Ir | Syntax::Spirv => &[
            SPIRV,
            include_str!("../../assets/syntax/shaderstep-ir.sublime-syntax"),
        ],
        Syntax::Wgsl => &[include_str!("../../assets/syntax/wgsl.sublime-syntax")],
        Syntax::Glsl => &[include_str!("../../assets/syntax/glsl.sublime-syntax")],
        Syntax::Hlsl => &[include_str!("../../assets/syntax/hlsl.sublime-syntax")],
        Syntax::Driver => &[include_str!("../../assets/syntax/driver.sublime-syntax")],
    }
}

/// The grammars in the order the highlighter thread compiles them, the IR's first (what the
/// code pane shows first).
pub const GRAMMARS: [Syntax; 5] = [
    Syntax::Ir,
    Syntax::Glsl,
    Syntax::Wgsl,
    Syntax::Hlsl,
    Syntax::Driver,
];

/// Compiles the common patterns of `syntax`'s grammar by highlighting lines that use them:
/// syntect compiles each regex when it is first tried, and the regex engine builds its state
/// machines per thread as lines are matched, so the first lines of a grammar cost milliseconds
/// each on a thread and the next ones about 15 µs.
pub fn warm_up(syntax: Syntax) {
    let sample = match syntax {
        Syntax::Ir | Syntax::Spirv => IR_SAMPLE,
        Syntax::Glsl => GLSL_SAMPLE,
        Syntax::Wgsl => WGSL_SAMPLE,
        Syntax::Hlsl => HLSL_SAMPLE,
        Syntax::Driver => DRIVER_SAMPLE,
    };
    for line in sample.lines() {
        highlight(line, syntax);
        if syntax == Syntax::Ir {
            highlight(line, Syntax::Spirv);
        }
    }
}

/// Lines of each language with its common constructs, for `warm_up`.
const IR_SAMPLE: &str = r#"; shaderstep IR
; Version: 1.3
OpCapability Shader
%2 = OpExtInstImport "GLSL.std.450"
OpEntryPoint Fragment %main "main" %v_uv %out_color
OpExecutionMode %main OriginUpperLeft
; debug
OpName %main "main"
OpDecorate %v_uv Location 1
OpMemberDecorate %Frame 0 Offset 16
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%_ptr_Function_float = OpTypePointer Function %float
%float_0_04 = OpConstant %float 0.04
%284 = OpConstantComposite %v3float %float_0 %float_0 %float_0
%main = OpFunction %void None %4
%6 = OpLabel                            ; entry
    %i = OpVariable %_ptr_Function_uint Function
    %226 = OpAccessChain %_ptr_Function_float %albedo %uint_3
    %180 = OpExtInst %float %2 FClamp %179 %float_0 %float_1
    %12 = OpLoad %v4float %12 Aligned 4 ; "s"
    %40 = OpPhi %int %int_0 %6 %41 %9
    OpLoopMerge %10 %9 None
    OpBranchConditional %43 %8 %10
    OpStore %out_color %12
%10 = OpLabel                           ; preds %5 %9
    OpReturn
OpFunctionEnd"#;

const GLSL_SAMPLE: &str = r#"#version 450
layout(location = 0) out vec4 color; // c
uniform sampler2D tex;
float f(vec3 n) { return max(dot(n, vec3(1.0, 0.5, 2e-3)), 0.0); }
void main() {
    for (int i = 0; i < 4; ++i) { color += texture(tex, v_uv * float(i)); }
    /* block */ if (color.a < 0.5) discard;
}"#;

const WGSL_SAMPLE: &str = r#"@group(0) @binding(1) var<storage, read_write> data: array<f32>;
struct V { @location(0) uv: vec2<f32>, };
@fragment fn main(v: V) -> @location(0) vec4<f32> {
    var x: f32 = 1.0; // c
    for (var i = 0u; i < 4u; i++) { x = x * 0.5; }
    return vec4<f32>(x, v.uv, 1.0);
}"#;

const HLSL_SAMPLE: &str = r#"cbuffer Frame : register(b0) { float4x4 mvp; };
Texture2D tex : register(t0);
float4 main(float2 uv : TEXCOORD0) : SV_Target {
    float4 c = tex.Sample(s, uv) * 2.0f; // c
    [unroll] for (int i = 0; i < 4; i++) { c.rgb += i; }
    return c;
}"#;

const DRIVER_SAMPLE: &str = r#"; x86 assembly of fs_variant_partial
main:
        vmulps  %ymm4, %ymm8, %ymm9
        movl    $<address>, %eax
        jne     .L3
  %12 = fmul <8 x float> %10, %11
  vec4 32 ssa_7 = fadd ssa_5, ssa_6
define void @main(ptr %0) {"#;

/// Lines longer than this are shown plain: highlighting them would cost more than it helps.
const MAX_LINE: usize = 2000;

pub fn highlight(line: &str, kind: Syntax) -> Vec<(TextStyle, Range<usize>)> {
    if line.len() > MAX_LINE {
        return vec![(TextStyle::default(), 0..line.len())];
    }
    let set = syntaxes(kind);
    let scope = match kind {
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
