//! Steps read as shading languages: `run --emit glsl|hlsl|msl|wgsl` and `--print-after-all
//! --as glsl` on shaders glslang compiles here (a compute, a vertex and a fragment shader);
//! the GLSL written is compiled back by glslang; a module SPIRV-Cross cannot read is an error
//! naming the cause, never a crash.

mod common;

use common::{glslang, shaderstep, temp_dir, tool};

const COMPUTE: &str = "#version 450
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer Data { float v[]; };
float twice(float x) { return x * 2.0; }
void main() {
    uint i = gl_GlobalInvocationID.x;
    float acc = 0.0;
    for (int k = 0; k < 4; k++) { acc += twice(v[i] + float(k)); }
    v[i] = acc;
}
";

const VERTEX: &str = "#version 450
layout(location = 0) in vec3 pos;
layout(location = 0) out vec3 colour;
layout(set = 0, binding = 0) uniform Camera { mat4 view_proj; } cam;
void main() {
    colour = pos * 0.5 + 0.5;
    gl_Position = cam.view_proj * vec4(pos, 1.0);
}
";

const FRAGMENT: &str = "#version 450
layout(location = 0) in vec3 colour;
layout(location = 0) out vec4 out_colour;
layout(set = 0, binding = 1) uniform texture2D image;
layout(set = 0, binding = 2) uniform sampler linear;
void main() {
    vec4 t = texture(sampler2D(image, linear), colour.xy);
    out_colour = t.a > 0.5 ? vec4(colour, 1.0) * t : vec4(0.0);
}
";

fn text(args: &[&str]) -> String {
    let r = shaderstep(args);
    assert!(
        r.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    String::from_utf8(r.stdout).unwrap()
}

/// glslang compiles `glsl` (written for `what`) as a `stage` shader, in `dir`.
fn compiles_back(dir: &std::path::Path, stage: &str, glsl: &str, what: &str) {
    let back = dir.join(format!("back.{stage}"));
    std::fs::write(&back, glsl).unwrap();
    let r = std::process::Command::new(tool("glslangValidator"))
        .args(["-V", "--quiet", "-o"])
        .arg(dir.join("back.spv"))
        .arg(&back)
        .output()
        .unwrap();
    assert!(
        r.status.success(),
        "{what}: glslang rejects the GLSL written: {}\n{glsl}",
        String::from_utf8_lossy(&r.stdout)
    );
}

#[test]
fn every_language_is_written_and_glsl_compiles_back() {
    let dir = temp_dir("decompile");
    for (name, source, stage) in [
        ("c.comp", COMPUTE, "comp"),
        ("v.vert", VERTEX, "vert"),
        ("f.frag", FRAGMENT, "frag"),
    ] {
        let spv = glslang(&dir, name, source);
        let spv = spv.to_str().unwrap();
        let glsl = text(&["run", spv, "--preset", "O", "--emit", "glsl"]);
        assert!(glsl.starts_with("#version 450"), "{glsl}");
        compiles_back(&dir, stage, &glsl, name);
        let hlsl = text(&["run", spv, "--preset", "O", "--emit", "hlsl"]);
        assert!(
            hlsl.contains("SPIRV_Cross_Input") || hlsl.contains("void main"),
            "{hlsl}"
        );
        let msl = text(&["run", spv, "--emit", "msl"]);
        assert!(msl.contains("#include <metal_stdlib>"), "{msl}");
        let wgsl = text(&["run", spv, "--emit", "wgsl"]);
        assert!(wgsl.contains("fn main"), "{wgsl}");
    }
    // WGSL has no combined image and sampler: naga says so, in one line naming itself.
    let combined = FRAGMENT
        .replace(
            "layout(set = 0, binding = 1) uniform texture2D image;\nlayout(set = 0, binding = 2) uniform sampler linear;",
            "layout(set = 0, binding = 1) uniform sampler2D tex;",
        )
        .replace("sampler2D(image, linear)", "tex");
    let spv = glslang(&dir, "combined.frag", &combined);
    let r = shaderstep(&["run", spv.to_str().unwrap(), "--emit", "wgsl"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(
        err.contains("combined.frag.spv: naga does not read this step"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn print_after_all_prints_each_step_as_glsl() {
    let dir = temp_dir("decompile-print");
    let spv = glslang(&dir, "c.comp", COMPUTE);
    let out = text(&[
        "run",
        spv.to_str().unwrap(),
        "--preset",
        "O",
        "--print-after-all",
        "--as",
        "glsl",
    ]);
    let headers: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("// *** GLSL after pass "))
        .collect();
    assert!(headers.len() > 20, "{out}");
    // Before inlining the helper is there; after, it is gone.
    let steps: Vec<&str> = out.split("// *** GLSL after pass ").collect();
    assert!(steps[1].contains("float twice(float x)"), "{}", steps[1]);
    assert!(
        !steps.last().unwrap().contains("twice("),
        "{}",
        steps.last().unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_module_the_decompilers_cannot_read_is_an_error_not_a_crash() {
    // A header and an instruction that claims more words than there are.
    let words = [0x0723_0203u32, 0x0001_0000, 0, 10, 0, 0x0010_0011];
    for lang in shaderstep::pipeline::decompile::Lang::ALL {
        let r = shaderstep::pipeline::decompile::decompile_words(&words, lang);
        let e = r.expect_err("not a module");
        assert!(!e.is_empty(), "{lang:?}: the cause is said");
    }
}

#[test]
fn a_step_that_no_longer_needs_variable_pointers_is_written() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/spvasm");
    let folded = root.join("variable_pointers_folded.spvasm");
    let folded = folded.to_str().unwrap();
    // The input selects a pointer: GLSL cannot say it, and SPIRV-Cross says why.
    let r = shaderstep(&["run", folded, "--emit", "glsl"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        !r.status.success() && err.contains("VariablePointers"),
        "{err}"
    );
    // Once O folds the select, the capability no instruction needs is left out of what
    // SPIRV-Cross reads, and glslang compiles what it writes.
    let glsl = text(&["run", folded, "--preset", "O", "--emit", "glsl"]);
    let dir = temp_dir("decompile-variable-pointers");
    compiles_back(&dir, "comp", &glsl, "variable_pointers_folded.spvasm");
    // A select on a value read stays: still the same error, after O too.
    let kept = root.join("variable_pointers_kept.spvasm");
    let r = shaderstep(&[
        "run",
        kept.to_str().unwrap(),
        "--preset",
        "O",
        "--emit",
        "glsl",
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        !r.status.success() && err.contains("VariablePointers"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The TUI never decompiles on its own thread: `:view glsl` asks the decompiler job for the
/// step shown (and those either side), the pane says the step is being written until the
/// answer comes, then shows it; a step already answered is not asked again.
#[test]
fn the_tui_asks_for_the_steps_shown_and_shows_them_when_answered() {
    use shaderstep::app::action::{Action, Answer, Answered, StepRef};
    use shaderstep::app::update::{update, Effect};
    use shaderstep::pipeline::decompile::Lang;
    let dir = temp_dir("decompile-tui");
    glslang(&dir, "c.comp", COMPUTE);
    // The SPIR-V alone: its steps have no source step in front.
    std::fs::remove_file(dir.join("c.comp")).unwrap();
    let mut app = common::open_dir(&dir, "O");
    let s = &mut app.state;
    update(s, Action::Step(StepRef::Name("mem2reg".into())));
    let step = s.step;
    let effects = update(s, Action::ViewLang(Lang::Glsl));
    let (asked, shown) = effects
        .iter()
        .find_map(|e| match e {
            Effect::Decompile { asked, shown } => Some((asked.clone(), shown.clone())),
            _ => None,
        })
        .expect("the step shown is asked for");
    assert_eq!(shown.len(), 1, "the selected step, no diff");
    assert!(
        asked.len() >= 2,
        "and the steps either side: {}",
        asked.len()
    );
    assert_eq!(asked[0].0, shown[0].0);
    shaderstep::app::derive::refresh_panel(s);
    assert!(
        s.panel
            .row_text(0)
            .contains("SPIRV-Cross is writing this step as GLSL"),
        "{}",
        s.panel.row_text(0)
    );
    // Asked once: the same view again asks nothing more.
    let again = update(s, Action::Resize(120, 40));
    assert!(!again.iter().any(|e| matches!(e, Effect::Decompile { .. })));
    let answer = Answered::Decompiled {
        hash: shown[0].0,
        lang: Lang::Glsl,
        result: Ok("#version 450\nvoid main()\n{\n}\n".into()),
    };
    update(s, Action::Answer(Answer::new(answer)));
    shaderstep::app::derive::refresh_panel(s);
    assert_eq!(s.step, step);
    assert_eq!(s.panel.row_text(0), "#version 450");
    let _ = std::fs::remove_dir_all(&dir);
}
