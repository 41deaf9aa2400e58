//! Partial pipeline state: specialization constants frozen and folded; vertex-fetch prologs and
//! colour-export epilogs for every format the state takes, compiled in (`--state`) or glued at
//! link time (`--link-state`). Every output validates with spirv-val; the steps and their
//! messages are asserted. Shaders are GLSL compiled with glslangValidator at test time.

mod common;

use std::path::Path;
use std::process::Command;

use common::{shaderstep, spv_words, temp_dir, tool, validate};

/// The compiled stage's path, as the command lines here take it.
fn glslang(dir: &Path, name: &str, source: &str) -> String {
    common::glslang(dir, name, source).display().to_string()
}
use shaderstep::ir::spirv::{read::read_words, write::write_words};
use shaderstep::pipeline::link::glue::{self, Placement};
use shaderstep::pipeline::link::state::{Encoding, NumericClass, PipelineState, FORMATS};

fn dis(path: &Path) -> String {
    let r = Command::new(tool("spirv-dis")).arg(path).output().unwrap();
    String::from_utf8_lossy(&r.stdout).into_owned()
}

fn val(path: &Path) {
    let r = Command::new(tool("spirv-val"))
        .args(["--target-env", "vulkan1.1"])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        r.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&r.stderr)
    );
}

const SPEC_VERT: &str = "#version 450
layout(constant_id = 0) const float scale = 1.0;
layout(constant_id = 1) const int count = 2;
layout(constant_id = 2) const bool flip = false;
const int twice = count * 2;
layout(location = 0) in vec3 pos;
layout(location = 0) out vec3 v;
void main() {
    vec3 p = pos * scale;
    for (int i = 0; i < twice; i++) { p = p * 0.5 + 1.0; }
    if (flip) { p = -p; }
    v = p;
    gl_Position = vec4(p, 1.0);
}
";

const SPEC_FRAG: &str = "#version 450
layout(location = 0) in vec3 v;
layout(location = 0) out vec4 color;
void main() { color = vec4(v, 1.0); }
";

#[test]
fn spec_constants_are_frozen_and_what_depends_on_them_folded() {
    let dir = temp_dir("spec");
    let vs = glslang(&dir, "s.vert", SPEC_VERT);
    let fs = glslang(&dir, "s.frag", SPEC_FRAG);
    let state = dir.join("state.toml");
    std::fs::write(
        &state,
        "[specialization]\n0 = 2.5\n1 = 3\n2 = true\n9 = 1\n",
    )
    .unwrap();
    let out = dir.join("out");
    let r = shaderstep(&[
        "run",
        "--pipeline",
        "--preset",
        "pipeline",
        &vs,
        &fs,
        "--state",
        state.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--stats",
        "json",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let stats = String::from_utf8_lossy(&r.stdout);
    let step = stats
        .lines()
        .find(|l| l.contains("s.vert.spv") && l.contains("\"pass\":\"state-spec-constants\""))
        .expect("a state-spec-constants step");
    assert!(step.contains("\"changed\":true"), "{step}");
    assert!(
        step.contains("SpecId 0 %scale = 2.5; SpecId 1 %count = 3; SpecId 2 %flip = true"),
        "{step}"
    );
    assert!(
        step.contains("no stage declares SpecId 9"),
        "an unused SpecId is reported: {step}"
    );
    let vert = out.join("s.vert.spv");
    val(&vert);
    let text = dis(&vert);
    assert!(!text.contains("OpSpecConstant"), "{text}");
    assert!(!text.contains("SpecId"), "{text}");
    assert!(text.contains("OpConstant %float 2.5"), "{text}");
    // twice = count * 2 was an OpSpecConstantOp; frozen, it folds to 6.
    assert!(text.contains("OpConstant %int 6"), "{text}");
    // The branch on `flip` now tests a constant (no pass folds branches yet).
    assert!(text.contains("%flip = OpConstantTrue %bool"), "{text}");
}

#[test]
fn spec_constant_of_the_wrong_kind_is_an_error_naming_the_file() {
    let dir = temp_dir("spec-bad");
    let vs = glslang(&dir, "s.vert", SPEC_VERT);
    let fs = glslang(&dir, "s.frag", SPEC_FRAG);
    let state = dir.join("bad.toml");
    std::fs::write(&state, "[specialization]\n0 = true\n").unwrap();
    let r = shaderstep(&[
        "run",
        "--pipeline",
        &vs,
        &fs,
        "--state",
        state.to_str().unwrap(),
    ]);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains(&format!(
            "{}: specialization constant 0 (%scale, f32) is given a boolean (true)",
            state.display()
        )),
        "{err}"
    );
    std::fs::write(&state, "[specialization]\n1 = 5000000000\n").unwrap();
    let r = shaderstep(&[
        "run",
        "--pipeline",
        &vs,
        &fs,
        "--state",
        state.to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&r.stderr).contains("cannot hold"));
    std::fs::write(&state, "[vertex]\nstride = 4\n").unwrap();
    let r = shaderstep(&[
        "run",
        "--pipeline",
        &vs,
        &fs,
        "--state",
        state.to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&r.stderr).contains("unknown key 'stride'"));
    let r = shaderstep(&["run", &vs, "--state", state.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&r.stderr).contains("use them with --pipeline"));
}

fn glsl_type(class: NumericClass) -> (&'static str, &'static str) {
    match class {
        NumericClass::Float => ("vec4", ""),
        NumericClass::Uint => ("uvec4", "flat "),
        NumericClass::Sint => ("ivec4", "flat "),
    }
}

/// Every vertex format: a shader whose input at location 0 is of the format's class gets a
/// fetch prolog (inline and as glue) that validates, reads the right number of words and uses
/// the conversion the encoding needs.
#[test]
fn vertex_fetch_for_every_attribute_format_validates() {
    let dir = temp_dir("fetch");
    let mut checked = 0;
    for class in [NumericClass::Float, NumericClass::Uint, NumericClass::Sint] {
        let (ty, flat) = glsl_type(class);
        let src = format!(
            "#version 450\nlayout(location = 0) in {ty} a;\nlayout(location = 0) {flat}out {ty} o;\nvoid main() {{ o = a; gl_Position = vec4(0.0); }}\n"
        );
        let path = glslang(&dir, &format!("{ty}.vert"), &src);
        let module = read_words(&spv_words(Path::new(&path))).unwrap();
        for f in FORMATS.iter().filter(|f| f.class() == class) {
            if f.name.contains("srgb") {
                continue;
            }
            let stride = f.words() * 4 + 4;
            let state = PipelineState::parse(&format!(
                "[vertex]\nbindings = [{{ binding = 0, stride = {stride} }}]\nattributes = [{{ location = 0, binding = 0, format = \"{}\", offset = 4 }}]\n",
                f.name
            ))
            .unwrap();
            for placement in [Placement::Inline, Placement::Glue] {
                let mut m = module.clone();
                let done = glue::vertex_fetch(&mut m, &state, placement).unwrap();
                assert_eq!(done.len(), 1, "{}: {done:?}", f.name);
                let out = write_words(&m);
                validate(&out, false).unwrap_or_else(|e| panic!("{} {placement:?}: {e}", f.name));
                let text = common::spirv_dis(&out, &[]);
                assert_eq!(
                    text.matches("OpAccessChain %_ptr_StorageBuffer_uint")
                        .count(),
                    f.words() as usize,
                    "{}",
                    f.name
                );
                let expect = match (f.encoding, f.bits[0]) {
                    (Encoding::Float, 16) => "UnpackHalf2x16",
                    (Encoding::Float, _) => "OpBitcast %float",
                    (Encoding::Unorm, _) => "OpConvertUToF",
                    (Encoding::Snorm, _) => "FMax",
                    (Encoding::Sint, b) if b < 32 => "OpBitFieldSExtract",
                    (Encoding::Uint, b) if b < 32 => "OpBitFieldUExtract",
                    _ => "OpLoad %uint",
                };
                assert!(text.contains(expect), "{}: no {expect} in\n{text}", f.name);
                assert_eq!(
                    text.contains("%vertex_fetch = OpFunction"),
                    placement == Placement::Glue
                );
                assert!(!text.contains("OpDecorate %a Location"), "{text}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 60, "{checked}");
}

/// Every attachment format: the export epilog validates and writes a packed texel of the
/// format's size to a new output at the same location.
#[test]
fn color_export_for_every_attachment_format_validates() {
    let dir = temp_dir("export");
    let mut checked = 0;
    for class in [NumericClass::Float, NumericClass::Uint, NumericClass::Sint] {
        let (ty, _) = glsl_type(class);
        // Two returns: the epilog runs before each.
        let src = format!(
            "#version 450\nlayout(location = 1) out {ty} o;\nvoid main() {{ o = {ty}(1); if (gl_FragCoord.x > 4.0) {{ o = {ty}(2); return; }} o = {ty}(3); }}\n"
        );
        let path = glslang(&dir, &format!("{ty}.frag"), &src);
        let module = read_words(&spv_words(Path::new(&path))).unwrap();
        for f in FORMATS.iter().filter(|f| f.class() == class) {
            if f.words() == 3 {
                continue;
            }
            let state = PipelineState::parse(&format!(
                "[[color]]\nlocation = 1\nformat = \"{}\"\n",
                f.name
            ))
            .unwrap();
            for placement in [Placement::Inline, Placement::Glue] {
                let mut m = module.clone();
                let done = glue::color_export(&mut m, &state, placement).unwrap();
                assert_eq!(done.len(), 1, "{}: {done:?}", f.name);
                let out = write_words(&m);
                validate(&out, false).unwrap_or_else(|e| panic!("{} {placement:?}: {e}", f.name));
                let text = common::spirv_dis(&out, &[]);
                let out_ty = match f.words() {
                    1 => "%_ptr_Output_uint ",
                    2 => "%_ptr_Output_v2uint ",
                    _ => "%_ptr_Output_v4uint ",
                };
                assert!(
                    text.contains(&format!("%color_export_1 = OpVariable {out_ty}")),
                    "{}\n{text}",
                    f.name
                );
                assert!(text.contains("OpDecorate %color_export_1 Location 1"));
                let stores = text.matches("OpStore %color_export_1").count();
                assert_eq!(
                    stores,
                    if placement == Placement::Glue { 1 } else { 2 },
                    "{}",
                    f.name
                );
                if f.name.contains("srgb") {
                    assert!(text.contains("Pow"), "{text}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 70, "{checked}");
}

const LIT_STATE: &str = r#"[vertex]
bindings = [{ binding = 0, stride = 16 }, { binding = 1, stride = 4, rate = "instance" }]
attributes = [
  { location = 0, binding = 0, format = "r32g32b32_sfloat", offset = 0 },
  { location = 1, binding = 1, format = "a2b10g10r10_unorm_pack32", offset = 0 },
]
[[color]]
location = 0
format = "b8g8r8a8_srgb"
[specialization]
0 = 0.25
"#;

const LIT_VERT: &str = "#version 450
layout(location = 0) in vec3 pos;
layout(location = 1) in vec4 tint;
layout(location = 0) out vec4 v_tint;
void main() { v_tint = tint; gl_Position = vec4(pos, 1.0); }
";

const LIT_FRAG: &str = "#version 450
layout(constant_id = 0) const float gain = 1.0;
layout(location = 0) in vec4 v_tint;
layout(location = 0) out vec4 color;
void main() { color = v_tint * gain; }
";

/// `--state partial --link-state full`: the partial half is compiled in as `state-*` steps,
/// the rest is glue in `link-*` steps; a link state that contradicts the partial one, or lacks
/// an attribute a vertex input needs, is an error.
#[test]
fn partial_state_compiles_in_and_link_state_glues_the_rest() {
    let dir = temp_dir("halves");
    let vs = glslang(&dir, "lit.vert", LIT_VERT);
    let fs = glslang(&dir, "lit.frag", LIT_FRAG);
    let full = dir.join("full.toml");
    std::fs::write(&full, LIT_STATE).unwrap();
    let partial = dir.join("partial.toml");
    std::fs::write(&partial, "[specialization]\n0 = 0.25\n").unwrap();
    let out = dir.join("out");
    let r = shaderstep(&[
        "run",
        "--pipeline",
        "--preset",
        "pipeline",
        &vs,
        &fs,
        "--state",
        partial.to_str().unwrap(),
        "--link-state",
        full.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--stats",
        "json",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let stats = String::from_utf8_lossy(&r.stdout);
    let passes: Vec<&str> = stats
        .lines()
        .filter(|l| l.contains("lit.frag.spv"))
        .map(|l| {
            l.split("\"pass\":\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
        })
        .collect();
    let at = |p: &str| {
        passes
            .iter()
            .position(|x| *x == p)
            .unwrap_or_else(|| panic!("{p} in {passes:?}"))
    };
    assert!(at("state-spec-constants") < at("link-interface"));
    assert!(at("link-interface") < at("link-vertex-fetch"));
    assert!(at("link-vertex-fetch") < at("link-color-export"));
    assert!(
        !passes.contains(&"link-spec-constants"),
        "the link state adds no constants"
    );
    for f in ["lit.vert.spv", "lit.frag.spv"] {
        val(&out.join(f));
    }
    let vert = dis(&out.join("lit.vert.spv"));
    assert!(vert.contains("%vertex_fetch = OpFunction"), "{vert}");
    assert!(
        vert.contains("InstanceIndex") && vert.contains("VertexIndex"),
        "{vert}"
    );
    let frag = dis(&out.join("lit.frag.spv"));
    assert!(frag.contains("%color_export = OpFunction"), "{frag}");
    assert!(frag.contains("OpConstant %float 0.25"), "{frag}");

    // Everything in one state: compiled in, no glue functions.
    let out2 = dir.join("out2");
    let r = shaderstep(&[
        "run",
        "--pipeline",
        "--preset",
        "pipeline",
        &vs,
        &fs,
        "--state",
        full.to_str().unwrap(),
        "-o",
        out2.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let vert = dis(&out2.join("lit.vert.spv"));
    val(&out2.join("lit.vert.spv"));
    val(&out2.join("lit.frag.spv"));
    assert!(
        !vert.contains("%vertex_fetch = OpFunction") && vert.contains("VertexIndex"),
        "{vert}"
    );

    // A link state that disagrees with the state compiled in.
    let other = dir.join("other.toml");
    std::fs::write(&other, "[specialization]\n0 = 0.5\n").unwrap();
    let r = shaderstep(&[
        "run",
        "--pipeline",
        &vs,
        &fs,
        "--state",
        partial.to_str().unwrap(),
        "--link-state",
        other.to_str().unwrap(),
    ]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains(&format!(
        "{}: specialization constant 0 is 0.5, but the stages were compiled with 0.25",
        other.display()
    )));

    // A vertex input without an attribute once the state is whole.
    let lacking = dir.join("lacking.toml");
    std::fs::write(
        &lacking,
        "[vertex]\nbindings = [{ binding = 0, stride = 16 }]\nattributes = [{ location = 0, binding = 0, format = \"r32g32b32_sfloat\", offset = 0 }]\n",
    )
    .unwrap();
    let r = shaderstep(&[
        "run",
        "--pipeline",
        &vs,
        &fs,
        "--link-state",
        lacking.to_str().unwrap(),
    ]);
    assert!(!r.status.success());
    assert!(
        String::from_utf8_lossy(&r.stderr)
            .contains("vertex input %tint (location 1) has no attribute in the state"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );

    // A format of the wrong class for the input.
    let wrong = dir.join("wrong.toml");
    std::fs::write(
        &wrong,
        "[vertex]\nbindings = [{ binding = 0, stride = 16 }]\nattributes = [{ location = 1, binding = 0, format = \"r8g8b8a8_uint\", offset = 0 }]\n",
    )
    .unwrap();
    let r = shaderstep(&[
        "run",
        "--pipeline",
        &vs,
        &fs,
        "--state",
        wrong.to_str().unwrap(),
    ]);
    assert!(
        String::from_utf8_lossy(&r.stderr).contains(
            "vertex input %tint (location 1) is f32x4 but attribute format r8g8b8a8_uint gives unsigned integers"
        ),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
}
