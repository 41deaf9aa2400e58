//! Pipeline linking (`run --pipeline VS FS`): interface checks with exact diagnostics, dead
//! outputs removed with their computation (fs-first), constant outputs forwarded into the next
//! stage (vs-first); every stage's output validates with spirv-val. The stages are GLSL
//! compiled with glslangValidator at test time.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{shaderstep, tool};

/// The compiled stage's path, as the command lines here take it.
fn glslang(dir: &Path, name: &str, source: &str) -> String {
    common::glslang(dir, name, source).display().to_string()
}

fn scratch() -> PathBuf {
    common::temp_dir("pipeline")
}

/// (stage input, step, pass, instructions, diagnostics) for every step of every stage.
fn stats(args: &[&str]) -> Vec<(String, String, usize, Vec<String>)> {
    let mut all = vec!["run", "--pipeline", "--preset", "size", "--stats", "json"];
    all.extend(args);
    let r = shaderstep(&all);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    String::from_utf8_lossy(&r.stdout)
        .lines()
        .map(|l| {
            let text = |k: &str| {
                let key = format!("\"{k}\":\"");
                let start = l.find(&key).unwrap() + key.len();
                l[start..].split('"').next().unwrap().to_string()
            };
            let key = "\"instructions\":";
            let start = l.find(key).unwrap() + key.len();
            let count: usize = l[start..].split(',').next().unwrap().parse().unwrap();
            let messages = l
                .split("\"message\":\"")
                .skip(1)
                .map(|m| m.split('"').next().unwrap().to_string())
                .collect();
            (text("input"), text("pass"), count, messages)
        })
        .collect()
}

const VERT: &str = "#version 450
layout(location = 0) in vec3 pos;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec4 v_unused;
layout(location = 2) out float v_shade;
void main() {
    v_normal = normalize(normal);
    v_unused = vec4(sin(pos) * 3.0 + cos(pos.zxy), 1.0);
    v_shade = 0.5;
    gl_Position = vec4(pos, 1.0);
}
";

const FRAG: &str = "#version 450
layout(location = 0) in vec3 v_normal;
layout(location = 2) in float v_shade;
layout(location = 0) out vec4 color;
void main() {
    color = vec4(v_normal * v_shade, 1.0);
}
";

fn count_at(stats: &[(String, String, usize, Vec<String>)], input: &str, pass: &str) -> usize {
    stats
        .iter()
        .filter(|s| s.0 == input && s.1 == pass)
        .map(|s| s.2)
        .next_back()
        .unwrap_or_else(|| panic!("no step {pass} for {input}"))
}

fn validate_dir(dir: &Path, names: &[&str]) -> Vec<String> {
    names
        .iter()
        .map(|n| {
            let p = dir.join(n);
            let r = Command::new(tool("spirv-val")).arg(&p).output().unwrap();
            assert!(
                r.status.success(),
                "{}: {}",
                p.display(),
                String::from_utf8_lossy(&r.stderr)
            );
            let dis = Command::new(tool("spirv-dis")).arg(&p).output().unwrap();
            String::from_utf8_lossy(&dis.stdout).into_owned()
        })
        .collect()
}

#[test]
fn fs_first_removes_dead_outputs_with_their_computation() {
    let dir = scratch();
    let (vs, fs) = (
        glslang(&dir, "lit.vert", VERT),
        glslang(&dir, "lit.frag", FRAG),
    );
    let s = stats(&[&vs, &fs]);
    let before = count_at(&s, &vs, "link-interface");
    let after = count_at(&s, &vs, "lift");
    assert!(
        before >= after + 12,
        "the vertex stage shrinks by the dead output's computation: {before} → {after}"
    );
    assert!(s.iter().any(|x| x.0 == vs
        && x.1 == "link-dead-outputs"
        && x.3.iter().any(
            |m| m.contains("removed outputs the next stage does not read: %v_unused (location 1)")
        )));
    assert_eq!(
        count_at(&s, &fs, "link-interface"),
        count_at(&s, &fs, "link-dead-outputs"),
        "the fragment stage loses nothing"
    );

    let out = dir.join("out");
    let r = shaderstep(&[
        "run",
        "--pipeline",
        &vs,
        &fs,
        "--preset",
        "size",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let texts = validate_dir(&out, &["lit.vert.spv", "lit.frag.spv"]);
    assert!(
        !texts[0].contains("Sin") && !texts[0].contains("Cos"),
        "{}",
        texts[0]
    );
    // Two inputs and two outputs (v_normal, v_shade) keep their locations; v_unused is gone.
    assert_eq!(texts[0].matches(" Location ").count(), 4, "{}", texts[0]);
    assert!(
        texts[0].contains("Location 2"),
        "v_shade stays: the fragment stage reads it"
    );
}

#[test]
fn vs_first_forwards_constant_outputs_into_the_next_stage() {
    let dir = scratch();
    let (vs, fs) = (
        glslang(&dir, "lit.vert", VERT),
        glslang(&dir, "lit.frag", FRAG),
    );
    let s = stats(&["--link-order", "vs-first", &vs, &fs]);
    assert!(s.iter().any(|x| x.0 == fs
        && x.1 == "link-forward-constants"
        && x.3.iter().any(|m| m.contains(
            "inputs that are constants: %v_shade (location 2) = %float_0_5 from %v_shade"
        ))));
    assert!(count_at(&s, &fs, "link-forward-constants") < count_at(&s, &fs, "link-interface"));
    let out = dir.join("out");
    let r = shaderstep(&[
        "run",
        "--pipeline",
        "--link-order",
        "vs-first",
        &vs,
        &fs,
        "--preset",
        "size",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let texts = validate_dir(&out, &["lit.vert.spv", "lit.frag.spv"]);
    assert!(
        !texts[1].contains("Location 2"),
        "the input is gone: {}",
        texts[1]
    );
    assert!(texts[1].contains("OpConstant %float 0.5"), "{}", texts[1]);
    assert_eq!(
        texts[0].matches(" Location ").count(),
        5,
        "vs-first: the vertex stage was compiled first and keeps its three outputs"
    );
}

/// Links a vertex and a fragment stage whose interfaces differ; returns stderr.
fn mismatch(vs_out: &str, fs_in: &str) -> String {
    let dir = scratch();
    let vs = glslang(
        &dir,
        "m.vert",
        &format!("#version 450\n{vs_out}\nvoid main() {{ gl_Position = vec4(0.0); }}\n"),
    );
    let fs = glslang(
        &dir,
        "m.frag",
        &format!("#version 450\n{fs_in}\nlayout(location = 0) out vec4 color;\nvoid main() {{ color = vec4(1.0); }}\n"),
    );
    let r = shaderstep(&[
        "run",
        "--pipeline",
        &vs,
        &fs,
        "--emit",
        "ir",
        "--preset",
        "size",
    ]);
    String::from_utf8_lossy(&r.stderr).into_owned() + &String::from_utf8_lossy(&r.stdout)
}

#[test]
fn every_mismatch_kind_has_its_diagnostic() {
    let e = mismatch(
        "layout(location = 0) out vec3 a;",
        "layout(location = 0) in vec4 b;",
    );
    assert!(
        e.contains("type mismatch at location 0: output %a is f32x3 but input %b is f32x4"),
        "{e}"
    );
    let e = mismatch(
        "layout(location = 0) out float a[2];",
        "layout(location = 0) in float b[3];",
    );
    assert!(
        e.contains("array size or type mismatch at location 0: output %a is [f32; 2] but input %b is [f32; 3]"),
        "{e}"
    );
    let e = mismatch(
        "layout(location = 0) flat out int a;",
        "layout(location = 0) in flat int b;\nlayout(location = 1) in vec2 c;",
    );
    assert!(
        e.contains("input %c (location 1, f32x2) is not written by the earlier stage"),
        "{e}"
    );
    let e = mismatch(
        "layout(location = 0) out vec2 a;",
        "layout(location = 0) noperspective in vec2 b;",
    );
    assert!(
        e.contains(
            "interpolation differs at location 0: output %a is smooth but input %b is NoPerspective; the later stage's applies"
        ),
        "{e}"
    );
    let e = mismatch(
        "layout(location = 0) out vec4 a;",
        "layout(location = 0) in float b;",
    );
    assert!(
        !e.contains("mismatch") && !e.contains("not written"),
        "an output may have more components than the input reads: {e}"
    );
    let e = mismatch(
        "layout(location = 0) out vec2 a;\nlayout(location = 0, component = 2) out vec2 a2;",
        "layout(location = 0) in vec4 b;",
    );
    assert!(
        !e.contains("mismatch") && !e.contains("not written"),
        "two outputs may write the components of one input: {e}"
    );
    let e = mismatch(
        "layout(location = 0) out vec2 a;\nlayout(location = 0, component = 2) out ivec2 a2;",
        "layout(location = 0) in vec4 b;",
    );
    assert!(
        e.contains("type mismatch at location 0: output %a2 is i32x2 but input %b is f32x4 (location 0 component 2: i32 against f32)"),
        "{e}"
    );
}

#[test]
fn one_stage_is_not_a_pipeline() {
    let r = shaderstep(&["run", "--pipeline", "tests/shaders/pipeline/lit.vert"]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("two inputs or more"));
}

/// The link view's table: every status the link steps produce, at the steps that produce it.
#[test]
fn interface_table_tells_what_linking_did_to_each_slot() {
    use shaderstep::ir::spirv::read::read_words;
    use shaderstep::pipeline::link::stages::{interface_table, RowStatus, Slot};
    use shaderstep::pipeline::link::LinkOrder;
    use shaderstep::pipeline::{Pipeline, StageLink};
    use std::sync::Arc;

    let dir = scratch();
    // Location 3 is read but not written; location 4 disagrees on its type.
    let vs = glslang(
        &dir,
        "t.vert",
        &VERT
            .replace(
                "layout(location = 2) out float v_shade;",
                "layout(location = 2) out float v_shade;\nlayout(location = 4) out vec2 v_uv;",
            )
            .replace("v_shade = 0.5;", "v_shade = 0.5; v_uv = pos.xy;"),
    );
    let fs = glslang(
        &dir,
        "t.frag",
        &FRAG
            .replace(
                "layout(location = 2) in float v_shade;",
                "layout(location = 2) in float v_shade;\nlayout(location = 3) in float v_fog;\nlayout(location = 4) in vec3 v_uv;",
            )
            .replace("v_shade, 1.0)", "v_shade * v_fog + v_uv.x, 1.0)"),
    );
    let load = |p: &str| {
        let words = common::spv_words(Path::new(p));
        let m = read_words(&words).unwrap();
        (Arc::new(words), Some((m, std::time::Duration::ZERO)))
    };
    let status_at = |runs: &[shaderstep::pipeline::Run], pass: &str| {
        let at = |r: &shaderstep::pipeline::Run, p: &str| {
            r.steps.iter().position(|s| s.pass == p).unwrap()
        };
        let first: Vec<_> = runs.iter().map(|r| &*r.steps[0].module).collect();
        let now: Vec<_> = runs
            .iter()
            .map(|r| &*r.steps[at(r, pass).min(r.steps.len() - 1)].module)
            .collect();
        interface_table(&first, &now)
            .into_iter()
            .filter(|r| r.edge == "vs → fs")
            .map(|r| (r.slot, r.status))
            .collect::<Vec<_>>()
    };
    let pipeline = Pipeline::preset("pipeline").unwrap();
    // The mismatch is an error, so the run stops at link-interface: the table shows it there.
    let runs = pipeline.run_stages(vec![load(&vs), load(&fs)], &StageLink::default());
    let rows = status_at(&runs, "link-interface");
    assert!(
        rows.contains(&(Slot::Location(0, 0), RowStatus::Matched)),
        "{rows:?}"
    );
    assert!(
        rows.contains(&(Slot::Location(1, 0), RowStatus::Dead)),
        "{rows:?}"
    );
    assert!(
        rows.contains(&(Slot::Location(3, 0), RowStatus::Unwritten)),
        "{rows:?}"
    );
    assert!(
        rows.contains(&(Slot::Location(4, 0), RowStatus::Mismatch)),
        "{rows:?}"
    );

    // Without the mismatch: vs-first forwards the constant, fs-first removes the dead output.
    let fs_ok = glslang(
        &dir,
        "ok.frag",
        &FRAG.replace("v_shade, 1.0)", "v_shade + 0.25, 1.0)"),
    );
    let vs_ok = glslang(&dir, "ok.vert", VERT);
    let vs_first = StageLink {
        order: LinkOrder::VsFirst,
        ..StageLink::default()
    };
    let runs = pipeline.run_stages(vec![load(&vs_ok), load(&fs_ok)], &vs_first);
    let rows = status_at(&runs, "link-forward-constants");
    assert!(
        rows.contains(&(Slot::Location(2, 0), RowStatus::Constant)),
        "{rows:?}"
    );
    let runs = pipeline.run_stages(vec![load(&vs_ok), load(&fs_ok)], &StageLink::default());
    let rows = status_at(&runs, "link-dead-outputs");
    assert!(
        rows.contains(&(Slot::Location(1, 0), RowStatus::Removed)),
        "{rows:?}"
    );
}

const VS3: &str = "#version 450
layout(location = 0) in vec3 pos;
layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec4 v_unused;
layout(location = 2) out float v_shade;
layout(location = 3) out vec4 v_extra;
void main() {
    v_normal = normalize(pos);
    v_unused = vec4(pos, 1.0);
    v_shade = pos.x * 0.5;
    v_extra = vec4(sin(pos) * cos(pos.yzx), 1.0);
    gl_Position = vec4(pos, 1.0);
}
";

const GS3: &str = "#version 450
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in vec3 g_normal[];
layout(location = 2) in float g_shade[];
layout(location = 3) in vec4 g_extra[];
layout(location = 0) out vec3 f_normal;
layout(location = 1) out vec4 f_dead;
void main() {
    for (int i = 0; i < 3; i++) {
        gl_Position = gl_in[i].gl_Position;
        f_normal = g_normal[i] * g_shade[i];
        f_dead = g_extra[i] * 2.0;
        EmitVertex();
    }
    EndPrimitive();
}
";

const FS3: &str = "#version 450
layout(location = 0) in vec3 f_normal;
layout(location = 0) out vec4 color;
void main() { color = vec4(f_normal, 1.0); }
";

/// Vertex, geometry and fragment stages: per-vertex geometry inputs match the vertex outputs
/// element by element, and fs-first removes dead outputs stage by stage, back to front — the
/// geometry output nobody reads goes, then the geometry input only it read, then the vertex
/// output that fed that input, with its computation.
#[test]
fn vs_gs_fs_remove_dead_outputs_back_to_front() {
    let dir = scratch();
    let vs = glslang(&dir, "t.vert", VS3);
    let gs = glslang(&dir, "t.geom", GS3);
    let fs = glslang(&dir, "t.frag", FS3);
    let s = stats(&[&vs, &gs, &fs]);
    for input in [&vs, &gs, &fs] {
        let link = s
            .iter()
            .find(|x| x.0 == *input && x.1 == "link-interface")
            .unwrap();
        assert!(
            link.3.iter().all(|m| !m.starts_with("error")),
            "per-vertex inputs match: {:?}",
            link.3
        );
    }
    let gs_note = s
        .iter()
        .find(|x| x.0 == gs && x.1 == "link-dead-outputs")
        .unwrap();
    assert!(
        gs_note.3.iter().any(|m| m.contains("%f_dead (location 1)")),
        "{:?}",
        gs_note.3
    );
    assert!(
        gs_note
            .3
            .iter()
            .any(|m| m.contains("inputs no longer read: %g_extra (location 3)")),
        "{:?}",
        gs_note.3
    );
    let vs_note = s
        .iter()
        .find(|x| x.0 == vs && x.1 == "link-dead-outputs")
        .unwrap();
    assert!(
        vs_note
            .3
            .iter()
            .any(|m| m.contains("%v_unused (location 1), %v_extra (location 3)")),
        "{:?}",
        vs_note.3
    );
    let out = dir.join("out");
    let r = shaderstep(&[
        "run",
        "--pipeline",
        &vs,
        &gs,
        &fs,
        "--preset",
        "size",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let texts = validate_dir(&out, &["t.vert.spv", "t.geom.spv", "t.frag.spv"]);
    assert!(
        !texts[0].contains("Sin") && !texts[0].contains("Cos"),
        "{}",
        texts[0]
    );
    // pos in, v_normal and v_shade out.
    assert_eq!(texts[0].matches(" Location ").count(), 3, "{}", texts[0]);
    // g_normal and g_shade in, f_normal out.
    assert_eq!(texts[1].matches(" Location ").count(), 3, "{}", texts[1]);
}

/// An input read whole from two outputs that split its components: neither output is dead.
#[test]
fn fs_first_keeps_outputs_that_write_part_of_an_input() {
    let dir = scratch();
    let vs = glslang(
        &dir,
        "split.vert",
        "#version 450
layout(location = 0) out vec2 a;
layout(location = 0, component = 2) out vec2 b;
layout(location = 1) out float unread;
void main() { a = vec2(1.0, 2.0); b = vec2(3.0, 4.0); unread = 5.0; gl_Position = vec4(0.0); }
",
    );
    let fs = glslang(
        &dir,
        "split.frag",
        "#version 450
layout(location = 0) in vec4 whole;
layout(location = 0) out vec4 color;
void main() { color = whole; }
",
    );
    let s = stats(&["--link-order", "fs-first", &vs, &fs]);
    let removed: Vec<&String> = s
        .iter()
        .filter(|x| x.0 == vs && x.1 == "link-dead-outputs")
        .flat_map(|x| &x.3)
        .collect();
    assert!(removed.iter().any(|m| m.contains("%unread")), "{removed:?}");
    assert!(
        !removed
            .iter()
            .any(|m| m.contains("%a ") || m.contains("%b ")),
        "{removed:?}"
    );
}

/// A fragment input decorated PerVertexKHR is an array of what the vertex stage writes per
/// vertex: it matches a plain output.
#[test]
fn per_vertex_fragment_inputs_match_plain_outputs() {
    let e = mismatch(
        "layout(location = 0) out vec3 a;",
        "#extension GL_EXT_fragment_shader_barycentric : require\nlayout(location = 0) pervertexEXT in vec3 b[];",
    );
    assert!(!e.contains("mismatch") && !e.contains("not written"), "{e}");
}

/// A vertex shader that reads back an output the fragment stage does not read (as real ones
/// do: `gl_Position = outPos` after storing `outPos`), and a computed one it does not read.
const VERT_READ_BACK: &str = "#version 450
layout(location = 0) in vec3 pos;
layout(location = 0) out vec4 outPos;
layout(location = 1) out vec3 outColor;
layout(location = 2) out vec4 outDead;
void main() {
    outPos = vec4(pos * 2.0, 1.0);
    outColor = pos;
    outDead = vec4(sin(pos), 1.0);
    gl_Position = outPos;
}
";

const FRAG_READ_BACK: &str = "#version 450
layout(location = 1) in vec3 inColor;
layout(location = 0) out vec4 color;
void main() { color = vec4(inColor, 1.0); }
";

/// An output its own stage reads back stays (removing it left its load without a pointer:
/// "OpLoad uses %18, which is never defined"); one it only writes goes. Under every preset,
/// with and without `--verify-each` (which checks the link steps too), the outputs validate.
#[test]
fn an_output_the_stage_reads_back_is_kept() {
    let dir = scratch();
    let (vs, fs) = (
        glslang(&dir, "back.vert", VERT_READ_BACK),
        glslang(&dir, "back.frag", FRAG_READ_BACK),
    );
    for preset in ["O", "size", "pipeline"] {
        for checks in [&[][..], &["--verify-each"][..]] {
            let out = dir.join(format!("out-{preset}-{}", checks.len()));
            let mut args = vec!["run", "--pipeline", &vs, &fs, "--preset", preset];
            args.extend(checks);
            args.extend(["-o", out.to_str().unwrap()]);
            let r = shaderstep(&args);
            assert!(
                r.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&r.stderr)
            );
            let texts = validate_dir(&out, &["back.vert.spv", "back.frag.spv"]);
            // pos, outPos, outColor and gl_PerVertex stay; outDead goes (names may not).
            let entry = texts[0]
                .lines()
                .find(|l| l.contains("OpEntryPoint"))
                .unwrap();
            let interface = entry.split('"').nth(2).unwrap().split_whitespace().count();
            assert_eq!(interface, 4, "{preset}: {entry}");
        }
    }
    let s = stats(&[&vs, &fs]);
    assert!(s.iter().any(|x| x.0 == vs
        && x.1 == "link-dead-outputs"
        && x.3.iter().any(|m| m.contains(
            "kept outputs the next stage does not read, as this stage reads them back: %outPos (location 0)"
        ))));
}
