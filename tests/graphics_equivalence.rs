//! Vertex and fragment shaders draw the same images after every preset and after pipeline
//! linking: each pair is drawn on lavapipe before and after, with the same vertex data,
//! buffers, textures and push constants, and every colour attachment (32-bit per component, so
//! nothing is rounded away) and storage buffer must come out with the same bytes.
//!
//! The pairs: the real pair of `tests/shaders/pipeline/`, modules with both a vertex and a
//! fragment entry point, every fragment shader of the corpus behind a vertex shader generated
//! from its inputs (half of them constant, so that `vs-first` linking forwards constants), and
//! every vertex shader of the corpus in front of a fragment shader generated from its outputs
//! (which writes each output location to an attachment of its own; for linking, one output is
//! left unread, so that `fs-first` linking removes it). Pairs the harness cannot draw (images
//! other than 2D, storage images, interface blocks…) are listed by name with the reason.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use common::{corpus, debug_builds, glslang, spv_words, temp_dir};
use shaderstep::pipeline::gpu::reflect::{
    covers, difference, mixed, reflect, setup, Scalar, Setup, Stage, Ty, Var, FILLS,
};
use shaderstep::pipeline::gpu::{Gpu, Rendered};
use shaderstep::pipeline::link::LinkOrder;
use shaderstep::pipeline::{Pipeline, StageLink};
use spirv::{ExecutionModel, Op};

/// The presets each pair goes through on its own (stage by stage).
const PRESETS: [&str; 9] = [
    "roundtrip",
    "size",
    "types",
    "qptr",
    "default",
    "memory",
    "pipeline",
    "O",
    "O-size",
];

/// The presets the pairs are linked under, in both orders.
const LINK_PRESETS: [&str; 2] = ["pipeline", "O"];

/// The GLSL name of a type without the array.
fn glsl(ty: &Ty) -> String {
    let prefix = match ty.scalar {
        Scalar::F32 => "",
        Scalar::I32 => "i",
        Scalar::U32 => "u",
    };
    if ty.cols > 1 {
        if ty.cols == ty.comps {
            format!("mat{}", ty.cols)
        } else {
            format!("mat{}x{}", ty.cols, ty.comps)
        }
    } else if ty.comps == 1 {
        match ty.scalar {
            Scalar::F32 => "float",
            Scalar::I32 => "int",
            Scalar::U32 => "uint",
        }
        .into()
    } else {
        format!("{prefix}vec{}", ty.comps)
    }
}

/// The interpolation qualifiers a generated declaration of `v` needs (integers are flat).
fn qualifiers(v: &Var) -> &'static str {
    let int = v.members.is_none() && v.ty.scalar != Scalar::F32;
    match (v.flat || int, v.noperspective) {
        (true, _) => "flat ",
        (false, true) => "noperspective ",
        _ => "",
    }
}

/// GLSL for the value of location `slot` written by the generated vertex shader: varying
/// with the vertex unless `constant`.
fn slot_value(ty: &Ty, slot: u32, constant: bool) -> String {
    let swizzle = &"xyzw"[..ty.comps as usize];
    let base = match ty.scalar {
        Scalar::F32 => {
            let s = if constant { "1.0" } else { "s" };
            format!("vec4(0.13 * {s} + 0.05 * {slot}.0, 0.9 - 0.21 * {s}, 0.31 * {slot}.0 - 0.4, 0.5 + 0.07 * {s})")
        }
        Scalar::I32 => {
            let v = if constant { "1" } else { "gl_VertexIndex" };
            format!("ivec4({v} + {slot}, {slot} - 3, 2 * {v} - {slot}, 7)")
        }
        Scalar::U32 => {
            let v = if constant { "1" } else { "gl_VertexIndex" };
            format!("uvec4({v} + {slot}, {slot} + 3, 2 * {v} + {slot}, 7)")
        }
    };
    let column = Ty {
        cols: 1,
        len: None,
        ..ty.clone()
    };
    format!("{}(({base}).{swizzle})", glsl(&column))
}

/// The value the generated vertex shader writes to a variable (or block member) of `ty` at
/// location `first`.
fn value_of(ty: &Ty, first: u32, constant: bool) -> String {
    let element = |first: u32| {
        if ty.cols > 1 {
            let cols: Vec<String> = (0..ty.cols)
                .map(|c| slot_value(ty, first + c, constant))
                .collect();
            format!("{}({})", glsl(ty), cols.join(", "))
        } else {
            slot_value(ty, first, constant)
        }
    };
    match ty.len {
        Some(l) => {
            let items: Vec<String> = (0..l).map(|i| element(first + i * ty.cols)).collect();
            format!("{}[{l}]({})", glsl(ty), items.join(", "))
        }
        None => element(first),
    }
}

/// The expressions reading each location of a variable (or member) `at` of `ty`.
fn reads_of(ty: &Ty, at: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in 0..ty.len.unwrap_or(1) {
        for c in 0..ty.cols {
            let mut x = at.to_string();
            if ty.len.is_some() {
                x += &format!("[{e}]");
            }
            if ty.cols > 1 {
                x += &format!("[{c}]");
            }
            out.push(x);
        }
    }
    out
}

/// The declaration of variable number `n` as an `inout` ("in"/"out") of the generated shader,
/// with the expression naming each variable or member and its type.
fn declare(n: usize, v: &Var, inout: &str, decls: &mut String) -> Vec<(String, Ty)> {
    let array = |t: &Ty| t.len.map(|l| format!("[{l}]")).unwrap_or_default();
    match &v.members {
        None => {
            *decls += &format!(
                "layout(location = {}) {}{inout} {} v{n}{};\n",
                v.location,
                qualifiers(v),
                glsl(&v.ty),
                array(&v.ty)
            );
            vec![(format!("v{n}"), v.ty.clone())]
        }
        Some(members) => {
            let fields: Vec<String> = members
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    let flat = if t.scalar == Scalar::F32 { "" } else { "flat " };
                    format!("{flat}{} m{j}{};", glsl(t), array(t))
                })
                .collect();
            *decls += &format!(
                "layout(location = {}) {}{inout} Block{n} {{ {} }} b{n};\n",
                v.location,
                qualifiers(v),
                fields.join(" ")
            );
            members
                .iter()
                .enumerate()
                .map(|(j, t)| (format!("b{n}.m{j}"), t.clone()))
                .collect()
        }
    }
}

/// A vertex shader covering most of the viewport with two triangles (six vertices) and writing
/// every input of `fs`; odd-numbered variables get constants.
fn vertex_for(fs: &Stage) -> String {
    let mut decls = String::new();
    let mut body = String::new();
    for (n, v) in fs.inputs.iter().enumerate() {
        let mut slot = v.location;
        for (at, ty) in declare(n, v, "out", &mut decls) {
            body += &format!("    {at} = {};\n", value_of(&ty, slot, n % 2 == 1));
            slot += ty.slots();
        }
    }
    format!(
        "#version 450
{decls}const vec2 corners[6] = vec2[6](vec2(-1, -1), vec2(1, -1), vec2(-1, 1), vec2(-1, 1), vec2(1, -1), vec2(1, 1));
void main() {{
    float s = float(gl_VertexIndex);
    gl_Position = vec4(corners[gl_VertexIndex % 6] * 0.9, 0.0, 1.0);
{body}}}
"
    )
}

/// A fragment shader writing each output location of `vs` (columns, elements and members
/// apart) to an attachment of its own, up to eight; the last variable is left unread with
/// `drop_last`.
fn fragment_for(vs: &Stage, drop_last: bool) -> String {
    let mut decls = String::new();
    let mut body = String::new();
    let mut attachment = 0;
    let read = if drop_last && vs.outputs.len() > 1 {
        vs.outputs.len() - 1
    } else {
        vs.outputs.len()
    };
    for (n, v) in vs.outputs.iter().take(read).enumerate() {
        for (at, ty) in declare(n, v, "in", &mut decls) {
            let column = Ty {
                cols: 1,
                len: None,
                ..ty.clone()
            };
            for x in reads_of(&ty, &at) {
                if attachment == 8 {
                    break;
                }
                decls += &format!(
                    "layout(location = {attachment}) out {} o{attachment};\n",
                    glsl(&column)
                );
                body += &format!("    o{attachment} = {x};\n");
                attachment += 1;
            }
        }
    }
    format!("#version 450\n{decls}void main() {{\n{body}}}\n")
}

struct Pair {
    name: String,
    vs: Vec<u32>,
    fs: Vec<u32>,
    vs_entry: String,
    fs_entry: String,
    stages: (Stage, Stage),
    vertices: u32,
    instances: u32,
    /// Set for the fill the pair is drawn with.
    setup: Setup,
    /// Whether the pair is linked too (modules with one entry point each).
    link: bool,
}

fn draw(gpu: &Gpu, p: &Pair, vs: &[u32], fs: &[u32]) -> Result<Rendered, String> {
    // In this process: the device's own timeout is the limit.
    p.setup
        .draw(
            gpu,
            (vs, &p.vs_entry),
            (fs, &p.fs_entry),
            std::time::Duration::ZERO,
        )
        .map_err(|e| e.to_string())
}

/// Every pair the harness can draw, and the shaders it cannot with why; with `debug`, the
/// GLSL shaders' debug builds too.
fn pairs(debug: bool) -> (Vec<Pair>, Vec<String>) {
    let dir = temp_dir("graphics");
    let mut pairs = Vec::new();
    let (builds, mut skipped) = if debug {
        debug_builds()
    } else {
        Default::default()
    };
    // Linkage modules (imports left to resolve) are not shaders a driver can run.
    // The GLSL shaders' debug builds (`-g`, `-gVS`) are drawn too, named with the flag.
    let mut shaders: Vec<(String, Vec<u32>)> = corpus()
        .into_iter()
        .chain(builds)
        .filter(|s| !s.universal)
        .map(|s| {
            let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shaders/");
            (s.name().trim_start_matches(root).to_string(), s.words)
        })
        .collect();
    // Variants of one source and build keep apart by number.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (name, _) in shaders.iter_mut() {
        let n = seen.entry(name.clone()).or_default();
        *n += 1;
        if *n > 1 {
            *name = format!("{name}#{n}");
        }
    }
    let real = |stem: &str| {
        let path = format!(
            "{}/tests/shaders/pipeline/{stem}",
            env!("CARGO_MANIFEST_DIR")
        );
        shaderstep::pipeline::input::load(std::path::Path::new(&path))
            .unwrap_or_else(|e| panic!("{e}"))
            .words
    };
    let add = |name: String,
               vs: Vec<u32>,
               fs: Vec<u32>,
               link: bool,
               skipped: &mut Vec<String>,
               pairs: &mut Vec<Pair>| {
        let stages = reflect(&vs, ExecutionModel::Vertex)
            .and_then(|v| Ok((v, reflect(&fs, ExecutionModel::Fragment)?)));
        let (vertices, instances) = if name.contains("(generated vertex)") {
            (6, 1)
        } else {
            (12, 2)
        };
        match stages.and_then(|(v, f)| Ok((setup(&v, &f, vertices, instances, mixed)?, v, f))) {
            Ok((setup, v, f)) => pairs.push(Pair {
                name,
                vs,
                fs,
                vs_entry: v.entry.clone(),
                fs_entry: f.entry.clone(),
                stages: (v, f),
                vertices,
                instances,
                setup,
                link,
            }),
            Err(e) => skipped.push(format!("{name}: {e}")),
        }
    };
    add(
        "pipeline/lit.vert + pipeline/lit.frag".into(),
        real("lit.vert"),
        real("lit.frag"),
        true,
        &mut skipped,
        &mut pairs,
    );
    for (n, (name, words)) in shaders.iter().enumerate() {
        let vertex = reflect(words, ExecutionModel::Vertex);
        let fragment = reflect(words, ExecutionModel::Fragment);
        if let (Ok(_), Ok(_)) = (&vertex, &fragment) {
            add(
                format!("{name} (both stages)"),
                words.clone(),
                words.clone(),
                false,
                &mut skipped,
                &mut pairs,
            );
        }
        match fragment {
            Ok(f) => {
                let vs = glslang(&dir, &format!("v{n}.vert"), &vertex_for(&f));
                add(
                    format!("{name} (generated vertex)"),
                    spv_words(&vs),
                    words.clone(),
                    true,
                    &mut skipped,
                    &mut pairs,
                );
            }
            Err(e) if !e.starts_with("no ") => skipped.push(format!("{name}: {e}")),
            Err(_) => {}
        }
        match vertex {
            Ok(v) => {
                for drop_last in [false, true] {
                    if drop_last && v.outputs.len() < 2 {
                        continue;
                    }
                    let fs = glslang(
                        &dir,
                        &format!("f{n}{}.frag", u8::from(drop_last)),
                        &fragment_for(&v, drop_last),
                    );
                    let which = if drop_last {
                        "one output unread"
                    } else {
                        "all outputs read"
                    };
                    add(
                        format!("{name} (generated fragment, {which})"),
                        words.clone(),
                        spv_words(&fs),
                        // Linking is checked where linking has an output to remove.
                        drop_last || v.outputs.len() < 2,
                        &mut skipped,
                        &mut pairs,
                    );
                }
            }
            Err(e) if !e.starts_with("no ") => skipped.push(format!("{name}: {e}")),
            Err(_) => {}
        }
    }
    (pairs, skipped)
}

/// For a preset after which a pair draws differently: the first of its passes after which it
/// does (each prefix of the preset lifted to SPIR-V and drawn), for the failure message.
fn first_pass(gpu: &Gpu, p: &Pair, before: &Rendered, preset: &str) -> String {
    let Ok(pipeline) = Pipeline::preset(preset) else {
        return String::new();
    };
    let names = pipeline.names();
    for k in 2..names.len() {
        let mut prefix = names[..k].to_vec();
        if prefix.last() != Some(&"lift") {
            prefix.push("lift");
        }
        let run = |words: &[u32]| {
            Pipeline::from_names(&prefix)
                .ok()?
                .run(Arc::new(words.to_vec()))
                .output_words()
        };
        let (Some(vs), Some(fs)) = (run(&p.vs), run(&p.fs)) else {
            continue;
        };
        if draw(gpu, p, &vs, &fs).ok().as_ref() != Some(before) {
            return format!(" (from pass {} `{}` on)", k - 1, names[k - 1]);
        }
    }
    String::new()
}

#[test]
fn vertex_and_fragment_shaders_draw_the_same_after_every_preset_and_link() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let (mut pairs, mut skipped) = pairs(true);
    let mut failures = Vec::new();
    let (mut drawn, mut covered, mut preset_checks, mut link_checks) = (0, 0, 0, 0);
    let (mut links_changed, mut debug_drawn, mut gvs_drawn) = (0, 0, 0);
    let mut uncovered = Vec::new();
    for p in &mut pairs {
        // The first fill with which the input draws something (or the last).
        let mut before = None;
        for (fill_name, data) in FILLS {
            let (v, f) = &p.stages;
            p.setup = setup(v, f, p.vertices, p.instances, data).expect("set up once already");
            match draw(&gpu, p, &p.vs, &p.fs) {
                Ok(b) => {
                    let covers = covers(&b);
                    before = Some((b, covers, fill_name));
                    if covers {
                        break;
                    }
                }
                Err(e) => {
                    skipped.push(format!("{}: the input does not draw: {e}", p.name));
                    break;
                }
            }
        }
        let Some((before, covers, fill_name)) = before else {
            continue;
        };
        let p = &*p;
        drawn += 1;
        // Debug builds are named with their flag (`glslang/pbr.g.frag -gVS (…)`).
        debug_drawn += usize::from(p.name.contains(" -g"));
        gvs_drawn += usize::from(p.name.contains(" -gVS"));
        if covers {
            covered += 1;
            if fill_name != FILLS[0].0 {
                eprintln!("{} drawn with {fill_name} data", p.name);
            }
        } else {
            uncovered.push(p.name.clone());
        }
        let mut compare = |what: String, vs: Option<Vec<u32>>, fs: Option<Vec<u32>>| {
            let (Some(vs), Some(fs)) = (vs, fs) else {
                failures.push(format!("{}: {what} failed", p.name));
                return;
            };
            match draw(&gpu, p, &vs, &fs) {
                Ok(after) if after == before => {}
                Ok(after) => failures.push(format!(
                    "{}: after {what} the draw differs: {}{}",
                    p.name,
                    difference(&before, &after).unwrap_or_default(),
                    first_pass(&gpu, p, &before, &what)
                )),
                Err(e) => failures.push(format!("{}: after {what} it does not draw: {e}", p.name)),
            }
        };
        for preset in PRESETS {
            let run = |words: &[u32]| {
                Pipeline::preset(preset)
                    .unwrap()
                    .run(Arc::new(words.to_vec()))
                    .output_words()
            };
            compare(preset.to_string(), run(&p.vs), run(&p.fs));
            preset_checks += 1;
        }
        if !p.link {
            continue;
        }
        for preset in LINK_PRESETS {
            for order in [LinkOrder::FsFirst, LinkOrder::VsFirst] {
                let runs = Pipeline::preset(preset).unwrap().run_stages(
                    vec![
                        (Arc::new(p.vs.clone()), None),
                        (Arc::new(p.fs.clone()), None),
                    ],
                    &StageLink {
                        order,
                        compiled: None,
                        glue: None,
                    },
                );
                if runs.iter().any(|r| {
                    r.steps
                        .iter()
                        .any(|s| s.pass.starts_with("link") && s.changed)
                }) {
                    links_changed += 1;
                }
                // Where linking fails, the step that failed and why.
                let why: Vec<String> = runs
                    .iter()
                    .flat_map(|r| &r.steps)
                    .filter_map(|s| {
                        let said: Vec<&str> =
                            s.diagnostics.iter().map(|d| d.message.as_str()).collect();
                        Some(format!(
                            "{}: {}: {}",
                            s.pass,
                            s.error.as_ref()?,
                            said.join(", ")
                        ))
                    })
                    .collect();
                let mut outputs = runs.iter().map(|r| r.output_words());
                let why = if why.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", why.join("; "))
                };
                compare(
                    format!("linking ({preset}, {order:?}){why}"),
                    outputs.next().flatten(),
                    outputs.next().flatten(),
                );
                link_checks += 1;
            }
        }
    }
    eprintln!(
        "{drawn} vertex+fragment pairs drawn on {} ({covered} cover pixels; {debug_drawn} with a debug build, {gvs_drawn} -gVS): {preset_checks} preset runs, {link_checks} links compared ({links_changed} changed a stage)",
        gpu.name
    );
    for s in &skipped {
        eprintln!("skipped: {s}");
    }
    for s in &uncovered {
        eprintln!("draws nothing (checked all the same): {s}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(drawn >= 30, "only {drawn} pairs could be drawn");
    assert!(
        debug_drawn >= 20 && gvs_drawn >= 10,
        "only {debug_drawn} pairs with a debug build could be drawn ({gvs_drawn} -gVS)"
    );
    assert!(
        covered * 10 >= drawn * 9,
        "only {covered} of {drawn} pairs draw anything"
    );
    assert!(link_checks >= 60, "only {link_checks} links compared");
    assert!(
        links_changed >= 25,
        "only {links_changed} of {link_checks} links removed or forwarded anything"
    );
}

#[test]
fn a_wrong_fragment_shader_is_caught() {
    // The oracle must be able to fail: swap two components of the colour a real pair's fragment
    // half builds.
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let (pairs, _) = pairs(false);
    let p = pairs
        .iter()
        .find(|p| p.name.starts_with("pipeline/lit"))
        .unwrap();
    let mut m = shaderstep::ir::spirv::read::read_words(&p.fs).unwrap();
    let mut found = false;
    for f in shaderstep::ir::rewrite::functions_mut(&mut m) {
        let build = f
            .layout()
            .map(|(_, i)| i)
            .find(|&i| f.inst(i).op() == Op::CompositeConstruct);
        if let Some(build) = build {
            shaderstep::ir::rewrite::edit_args(f, build, |a| a.swap(0, 1));
            found = true;
            break;
        }
    }
    assert!(found);
    let wrong = shaderstep::ir::spirv::write::write_words(&m);
    let before = draw(&gpu, p, &p.vs, &p.fs).unwrap();
    let after = draw(&gpu, p, &p.vs, &wrong).unwrap();
    assert_ne!(before, after);
}
