//! The driver's own code per step (`shaderstep driver`) and the devices found
//! (`shaderstep drivers`), on Mesa 25's lavapipe (`scripts/lavapipe.sh`) and on the system's.

mod common;

use common::{lavapipe25, shaderstep, temp_dir};

const COMPUTE: &str = "#version 450
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer B { float v[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float unused = v[i] * 3.0;
    v[i] = v[i] * 2.0 + float(i);
}
";

const FRAGMENT: &str = "#version 450
layout(location = 0) in vec4 color;
layout(location = 0) out vec4 outColor;
void main() { outColor = color * 0.5 + vec4(0.25); }
";

const VERTEX: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 0) out vec4 color;
void main() { gl_Position = position * 2.0; color = position.zyxw; }
";

fn write(name: &str, text: &str) -> String {
    let dir = temp_dir("driver");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn driver(args: &[&str]) -> (bool, String, String) {
    let out = shaderstep(args);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The number on the line of `stats` output that starts with `label`.
fn stat(text: &str, label: &str) -> usize {
    text.lines()
        .find(|l| l.starts_with(label))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no '{label}' in:\n{text}"))
}

#[test]
fn a_compute_steps_nir_llvm_assembly_and_counts_come_from_lavapipe_25() {
    let icd = lavapipe25();
    let icd = icd.to_str().unwrap();
    let shader = write("blur.comp", COMPUTE);
    let (ok, nir, err) = driver(&["driver", &shader, "--show", "nir", "--driver", icd]);
    assert!(ok, "{err}");
    assert!(nir.starts_with("// llvmpipe"), "{nir}");
    assert!(nir.contains("Mesa 25"), "{nir}");
    assert!(nir.contains("shader: MESA_SHADER_COMPUTE"), "{nir}");
    assert!(nir.contains("fmul"), "{nir}");
    let (ok, llvm, err) = driver(&["driver", &shader, "--show", "llvm", "--driver", icd]);
    assert!(ok, "{err}");
    assert!(llvm.contains("; ModuleID = 'cs"), "{llvm}");
    assert!(llvm.contains("define "), "{llvm}");
    assert!(
        !llvm.contains("sample_function"),
        "helpers only with --helpers: {llvm}"
    );
    let (ok, asm, err) = driver(&["driver", &shader, "--show", "asm", "--driver", icd]);
    assert!(ok, "{err}");
    assert!(asm.contains("        retq"), "{asm}");
    let (ok, stats, err) = driver(&["driver", &shader, "--show", "stats", "--driver", icd]);
    assert!(ok, "{err}");
    let x86 = stat(&stats, "x86 instructions");
    assert!(x86 > 10, "{stats}");
    assert!(stat(&stats, "LLVM instructions") > 10, "{stats}");
    assert!(stat(&stats, "NIR instructions") > 3, "{stats}");
    // The same count as the assembly's instructions (indented; labels and headers are not).
    let lines = asm.lines().filter(|l| l.starts_with("        ")).count();
    assert_eq!(x86, lines, "{stats}\n{asm}");
    // Read as people read it: no offsets, jumps to labels, no addresses of constants.
    assert!(!asm.contains(":\t"), "{asm}");
    let displacement = |l: &str| {
        let mut words = l.split_whitespace();
        words.next().is_some_and(|m| m.starts_with('j'))
            && words.next().is_some_and(|o| o.parse::<i64>().is_ok())
    };
    assert!(!asm.lines().any(displacement), "{asm}");
    assert!(asm.contains(".L0:"), "{asm}");
}

#[test]
fn lone_fragment_and_vertex_stages_are_compiled_with_a_partner_stage() {
    let icd = lavapipe25();
    let icd = icd.to_str().unwrap();
    let fs = write("tint.frag", FRAGMENT);
    let (ok, nir, err) = driver(&["driver", &fs, "--show", "nir", "--driver", icd]);
    assert!(ok, "{err}");
    assert!(nir.contains("shader: MESA_SHADER_FRAGMENT"), "{nir}");
    let vs = write("move.vert", VERTEX);
    let (ok, nir, err) = driver(&[
        "driver", &vs, "--show", "nir", "--driver", icd, "--step", "0",
    ]);
    assert!(ok, "{err}");
    assert!(nir.contains("shader: MESA_SHADER_VERTEX"), "{nir}");
    assert!(nir.contains("step 0"), "{nir}");
    let (ok, stats, err) = driver(&["driver", &vs, "--show", "stats", "--driver", icd]);
    assert!(ok, "{err}");
    assert!(stat(&stats, "x86 instructions") > 0, "{stats}");
    // The fragment stage made to draw the vertex stage is not counted.
    assert!(!stats.contains("fs_variant"), "{stats}");
}

#[test]
fn a_driver_that_shows_no_code_says_so() {
    // The system's lavapipe (Mesa 22.3): no GALLIVM_DEBUG printing in release builds and no
    // executable properties.
    let shader = write("plain.comp", COMPUTE);
    let (ok, _, err) = driver(&["driver", &shader, "--driver", "Mesa 22"]);
    assert!(!ok);
    assert!(
        err.contains("shows nothing of the code it compiles"),
        "{err}"
    );
    assert!(err.contains("scripts/lavapipe.sh"), "{err}");
    let (ok, _, err) = driver(&["driver", &shader, "--driver", "no-such-gpu"]);
    assert!(!ok);
    assert!(
        err.contains("no Vulkan device named like 'no-such-gpu'"),
        "{err}"
    );
    assert!(
        err.contains("llvmpipe"),
        "the devices found are named: {err}"
    );
    // A file that is not there is named once, with why.
    let (ok, _, err) = driver(&["driver", "/nowhere/gone.comp"]);
    assert!(!ok);
    assert_eq!(err.matches("/nowhere/gone.comp").count(), 1, "{err}");
    assert!(err.contains("cannot read"), "{err}");
    let (ok, _, err) = driver(&["driver", &shader, "--driver", "/nowhere/x_icd.json"]);
    assert!(!ok);
    assert!(
        err.contains("/nowhere/x_icd.json: no such ICD file"),
        "{err}"
    );
}

#[test]
fn drivers_lists_the_devices_and_what_each_shows() {
    let icd = lavapipe25();
    let icd = icd.to_str().unwrap();
    let (ok, list, err) = driver(&["drivers", "--driver", icd]);
    assert!(ok, "{err}");
    assert!(list.contains("Mesa 22.3"), "{list}");
    assert!(list.contains("shows nothing of its code"), "{list}");
    assert!(list.contains("Mesa 25"), "{list}");
    assert!(
        list.contains("shows NIR, LLVM IR and x86 assembly"),
        "{list}"
    );
    assert!(list.contains("subgroup size 8"), "{list}");
    // The chosen one is marked: the ICD file's device.
    let chosen: Vec<&str> = list.lines().filter(|l| l.starts_with('*')).collect();
    assert_eq!(chosen.len(), 1, "{list}");
    let after = list.split(&format!("--driver {icd}")).nth(1).unwrap_or("");
    assert!(after.lines().any(|l| l.starts_with('*')), "{list}");
}

#[test]
fn the_driver_comes_from_the_environment_and_the_config_too() {
    let icd = lavapipe25();
    let dir = temp_dir("driver-config");
    let shader = dir.join("c.comp");
    std::fs::write(&shader, COMPUTE).unwrap();
    std::fs::write(
        dir.join("shaderstep.toml"),
        format!("[driver]\nicd = \"{}\"\n", icd.display()),
    )
    .unwrap();
    let out = shaderstep(&["driver", shader.to_str().unwrap(), "--show", "stats"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("Mesa 25"), "{text}");
    // The environment wins over the config, and the flag over both.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .args(["driver", shader.to_str().unwrap(), "--show", "stats"])
        .env("SHADERSTEP_DRIVER", "Mesa 22")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("Mesa 22"), "{err}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .args(["driver", shader.to_str().unwrap(), "--show", "stats"])
        .args(["--driver", icd.to_str().unwrap()])
        .env("SHADERSTEP_DRIVER", "Mesa 22")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The TUI's `:driver`: each step's code as the driver compiled it, diffed against the step
/// before, through the same replay the screenshots use (the driver from shaderstep.toml).
#[test]
fn the_tui_shows_and_diffs_each_steps_driver_code() {
    let icd = lavapipe25();
    let dir = temp_dir("driver-tui");
    std::fs::write(dir.join("blur.comp"), COMPUTE).unwrap();
    std::fs::write(
        dir.join("shaderstep.toml"),
        format!("[driver]\nicd = \"{}\"\n", icd.display()),
    )
    .unwrap();
    let script = dir.join("driver.replay");
    std::fs::write(
        &script,
        format!(
            "open {}\nsize 120x36\ncmd :step mem2reg\ncmd :driver asm\nsnapshot asm\n\
             key d\nsnapshot diff\ncmd :driver stats\nsnapshot stats\nkey t\nsnapshot ir\n\
             cmd :cost\nsnapshot cost\ncmd :cost\ncmd :compare default\ncmd :driver stats\nsnapshot compared\n",
            dir.join("blur.comp").display()
        ),
    )
    .unwrap();
    let out_dir = dir.join("out");
    let out = shaderstep(&[
        "replay",
        script.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let screen = |name: &str| std::fs::read_to_string(out_dir.join(format!("{name}.txt"))).unwrap();
    let asm = screen("asm");
    assert!(asm.contains("driver x86 after"), "{asm}");
    // Tabs become columns: the offset, the mnemonic, the operands.
    assert!(asm.contains("        pushq   %rbp"), "{asm}");
    // The pass list shows each step's x86 count: which pass changed what the driver runs.
    let row = asm.lines().find(|l| l.contains("* mem2reg")).expect(&asm);
    let pass_list = row.split('│').nth(1).unwrap();
    let figure = pass_list.split_whitespace().last().unwrap();
    assert!(
        figure.starts_with('x') && figure[1..2].parse::<u32>().is_ok(),
        "{row}"
    );
    let diff = screen("diff");
    assert!(diff.contains("driver x86 diff"), "{diff}");
    assert!(diff.contains(" +") || diff.contains(" -"), "{diff}");
    let stats = screen("stats");
    assert!(stats.contains("driver counts"), "{stats}");
    assert!(stats.contains("x86 instructions"), "{stats}");
    // `t`: the IR again.
    let ir = screen("ir");
    assert!(ir.contains("IR diff 6 sroa → 7 mem2reg"), "{ir}");
    assert!(!ir.contains("driver counts"), "{ir}");
    // `:cost`: the driver's x86 of the step against its base's, and a series in the chart.
    let cost = screen("cost");
    assert!(cost.contains("driver x86 ≤"), "{cost}");
    let row = cost
        .lines()
        .find(|l| l.contains("│driver x86 "))
        .expect(&cost);
    let figures: Vec<usize> = row
        .split('│')
        .nth(3)
        .unwrap()
        .split_whitespace()
        .filter_map(|w| w.trim_start_matches('+').parse().ok())
        .collect();
    assert!(
        figures.len() >= 2 && figures[0] > 0 && figures[1] > 0,
        "{row}"
    );
}

#[test]
fn cost_gains_the_drivers_figures_per_step() {
    let icd = lavapipe25();
    let icd = icd.to_str().unwrap();
    let shader = write("costly.comp", COMPUTE);
    let (ok, table, err) = driver(&["cost", &shader, "--driver", icd]);
    assert!(ok, "{err}");
    let header = table.lines().nth(1).unwrap();
    assert!(header.contains("instrs    x86   Δx86"), "{table}");
    // Every step has its x86 count; the last equals `driver --show stats` of the last step.
    let last = table.lines().last().unwrap();
    let x86: usize = last.split_whitespace().nth(3).unwrap().parse().unwrap();
    let (ok, stats, err) = driver(&["driver", &shader, "--show", "stats", "--driver", icd]);
    assert!(ok, "{err}");
    assert_eq!(x86, stat(&stats, "x86 instructions"), "{table}\n{stats}");
    let (ok, json, err) = driver(&["cost", &shader, "--json", "--driver", icd]);
    assert!(ok, "{err}");
    for line in json.lines() {
        assert!(line.contains("\"driver_instructions\":"), "{line}");
        assert!(
            line.contains("\"driver_stats\":{\"x86_instructions\":"),
            "{line}"
        );
    }
    // Without --driver, no driver is asked and the lines are as they were.
    let (ok, plain, _) = driver(&["cost", &shader, "--json"]);
    assert!(ok && !plain.contains("driver_instructions"), "{plain}");
    // A driver that shows no code is refused in words.
    let (ok, _, err) = driver(&["cost", &shader, "--driver", "Mesa 22"]);
    assert!(
        !ok && err.contains("shows nothing of the code it compiles"),
        "{err}"
    );
}

const RAY_QUERY: &str = "#version 460
#extension GL_EXT_ray_query : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(std430, set = 0, binding = 1) buffer B { float t[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    rayQueryEXT q;
    vec3 dir = (i % 2u == 0u) ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0);
    float unused = t[i] * 4.0;
    rayQueryInitializeEXT(q, scene, gl_RayFlagsOpaqueEXT, 0xFF, vec3(float(i) * 0.1, 0.0, 0.0), 0.0, dir, 100.0);
    while (rayQueryProceedEXT(q)) {}
    t[i] = rayQueryGetIntersectionTypeEXT(q, true) == gl_RayQueryCommittedIntersectionTriangleEXT
        ? rayQueryGetIntersectionTEXT(q, true) : -1.0;
}
";

/// The harness builds a scene of two triangles at z = ±1 for ray queries: a ray along z from
/// near the origin hits at distance 1, one along x misses.
#[test]
fn ray_queries_trace_the_harness_scene_on_lavapipe_25() {
    use shaderstep::pipeline::gpu::isolated::Isolated;
    use shaderstep::pipeline::gpu::reflect::Kind;
    use shaderstep::pipeline::gpu::{Device, Driver, Layout};
    let icd = lavapipe25();
    let words = common::glslang_words(
        "rq.comp",
        RAY_QUERY.as_bytes(),
        &["--target-env", "vulkan1.2"],
    );
    let layout = Layout::of_entry(&words, None).unwrap_or_else(|e| panic!("{e}"));
    let slots = layout.slots();
    let at = slots
        .iter()
        .position(|(b, _)| matches!(b.kind, Kind::Buffer { .. }))
        .unwrap();
    assert!(slots
        .iter()
        .any(|(b, _)| b.kind == Kind::AccelerationStructure));
    let buffers: Vec<Vec<u8>> = slots
        .iter()
        .map(|(b, e)| shaderstep::pipeline::semantic::initial_bytes(b, *e, None))
        .collect();
    let worker = Isolated::open_with(
        std::path::PathBuf::from(env!("CARGO_BIN_EXE_shaderstep")),
        false,
        &Driver::Icd(icd.clone()),
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = worker
        .run_buffers(
            &words,
            &layout,
            [1, 1, 1],
            &buffers,
            std::time::Duration::from_secs(30),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let t: Vec<f32> = out[at]
        .chunks(4)
        .take(4)
        .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    assert_eq!(t, [1.0, -1.0, 1.0, -1.0]);
    // Through the bisect, every step on the driver.
    bisects_on_lavapipe_25_saying(
        "rq.comp",
        RAY_QUERY,
        &["llvmpipe, Mesa 25", "a ray-query scene of two triangles"],
    );
}

/// A driver without what a shader needs is named before any pipeline is made: Mesa 22.3 has
/// no ray queries, and no lavapipe has fragment barycentrics (it would abort on them).
#[test]
fn refusals_name_the_extension_the_driver_lacks() {
    let rq = write("rq.comp", RAY_QUERY);
    let (ok, _, err) = driver(&[
        "run",
        &rq,
        "--bisect-run",
        "--oracle",
        "driver",
        "--driver",
        "Mesa 22",
    ]);
    assert!(!ok);
    assert!(
        err.contains("lacks VK_KHR_ray_query (the shader uses SPV_KHR_ray_query)"),
        "{err}"
    );
    let bary = write(
        "bary.frag",
        "#version 450
#extension GL_EXT_fragment_shader_barycentric : require
layout(location = 0) out vec4 o;
void main() { o = vec4(gl_BaryCoordEXT, 1.0); }
",
    );
    for d in ["Mesa 22".to_string(), lavapipe25().display().to_string()] {
        let (ok, _, err) = driver(&[
            "run",
            &bary,
            "--bisect-run",
            "--oracle",
            "driver",
            "--driver",
            &d,
        ]);
        assert!(!ok);
        assert!(
            err.contains("lacks VK_KHR_fragment_shader_barycentric (the shader uses SPV_KHR_fragment_shader_barycentric): not run"),
            "{err}"
        );
        assert!(!err.contains("crashed"), "{err}");
    }
}

/// Indexes an array of four buffers with a word the harness's pattern fills with a float's
/// bits (billions as an index): past the array's end, undefined behaviour on which lavapipe 25
/// segfaults.
const INDEXED_BY_DATA: &str = "#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer B { uint v[]; } bufs[4];
layout(std430, set = 0, binding = 1) buffer I { uint w[]; } ins;
layout(std430, set = 0, binding = 2) buffer O { uint o[]; };
void main() { o[0] = bufs[ins.w[1]].v[0] + 1u; }
";

/// Runs `--bisect-run` with every step on lavapipe 25 on `text` (written as `name`): it must
/// run every step, and what it says hold each of `setup`.
fn bisects_on_lavapipe_25_saying(name: &str, text: &str, setup: &[&str]) {
    let icd = lavapipe25();
    let shader = write(name, text);
    let (ok, said, err) = driver(&[
        "run",
        &shader,
        "--bisect-run",
        "--oracle",
        "driver",
        "--driver",
        icd.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        said.contains("every step computes what the input does"),
        "{said}"
    );
    for s in setup {
        assert!(said.contains(s), "{said}");
    }
}

/// Where the driver crashes on the pattern's values, the bisect runs the shader again with its
/// buffers and push constants zeroed (every index in range) and says so, rather than giving up.
#[test]
fn a_crash_on_the_patterns_values_runs_again_on_zeros() {
    bisects_on_lavapipe_25_saying(
        "indexed.comp",
        INDEXED_BY_DATA,
        &["buffers and push constants zeroed (the driver crashed on the pattern's values)"],
    );
}

/// A lone fragment stage that indexes an array of textures with a flat integer input far past
/// its end (the generated vertex stage's integers are small, but not zero).
const FRAGMENT_INDEXED: &str = "#version 450
layout(location = 0) flat in int which;
layout(set = 0, binding = 0) uniform sampler2D textures[2];
layout(location = 0) out vec4 color;
void main() { color = texture(textures[which * 1000000], vec2(0.5)) + vec4(0.25); }
";

/// A draw the driver crashes on with every fill is drawn again with zeros, its generated
/// vertex stage's integers zero too, and says so.
#[test]
fn a_draw_the_driver_crashes_on_is_drawn_again_on_zeros() {
    bisects_on_lavapipe_25_saying(
        "indexed.frag",
        FRAGMENT_INDEXED,
        &["inputs zero (the driver crashed on the patterns' values)"],
    );
}
