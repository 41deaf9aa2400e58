//! Semantic bisect (`:bisect run`, `run --bisect-run`): a test-only pass that turns an integer
//! add into a subtract is found by its name, through the library, the TUI and the command
//! line; a pipeline that keeps the meaning reports every step the same.

mod common;

use std::sync::Arc;

use common::{corpus, shaderstep, temp_dir, words_to_bytes, SwapAddSub};
use shaderstep::app::action::Action;
use shaderstep::app::event_loop::{App, AppEvent};
use shaderstep::ir::Module;
use shaderstep::pipeline::gpu::Gpu;
use shaderstep::pipeline::pass::{Changed, Pass, PassCx, PassError};
use shaderstep::pipeline::registry;
use shaderstep::pipeline::semantic::{bisect_run, bisect_with, Feed, Oracle};
use shaderstep::pipeline::Pipeline;

/// `lower, verify, dce, swap-add-sub, verify, lift`.
fn wrong_pipeline() -> Pipeline {
    let mut p = Pipeline::from_names(&["lower", "verify", "dce", "verify", "lift"]).unwrap();
    p.passes.insert(3, Box::new(SwapAddSub));
    p
}

fn shader(name: &str) -> Vec<u32> {
    corpus()
        .into_iter()
        .find(|s| s.path.to_string_lossy().contains(name))
        .unwrap_or_else(|| panic!("no test shader {name}"))
        .words
}

#[test]
fn the_pass_that_changes_meaning_is_found_by_name() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let run = wrong_pipeline().run(Arc::new(shader("dxbc_loop")));
    assert!(run.ok());
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap();
    let first = b.first.clone().expect("a difference");
    assert_eq!(first.pass, "swap-add-sub");
    assert_eq!(first.step, 3);
    assert!(first.what.contains("set 0 binding"), "{}", first.what);
    assert!(b.summary().contains("3 swap-add-sub"), "{}", b.summary());

    // The same shader through O: nothing differs.
    let run = Pipeline::preset("O")
        .unwrap()
        .run(Arc::new(shader("dxbc_loop")));
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(b.compared >= 30, "{}", b.summary());
    // Steps in the dialect are lifted first: qptr's steps run too.
    let run = Pipeline::preset("qptr")
        .unwrap()
        .run(Arc::new(shader("dxbc_loop")));
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(b.skipped.is_empty(), "{:?}", b.skipped);
}

#[test]
fn bisect_run_in_the_tui_selects_and_marks_the_step() {
    let dir = temp_dir("semantic");
    let path = dir.join("loop.spv");
    std::fs::write(&path, words_to_bytes(&shader("dxbc_loop"))).unwrap();
    let mut app = App::new(vec![path], wrong_pipeline(), (120, 30), false);
    app.handle(AppEvent::Action(Action::BisectRun(
        None,
        Default::default(),
    )));
    app.settle();
    let s = &app.state;
    assert_eq!(s.step, 3, "the first differing step is selected");
    assert!(s.step_has_errors(3), "and marked in the pass list");
    let msg = s
        .status
        .message
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default();
    assert!(
        msg.contains("first step whose results differ: 3 swap-add-sub"),
        "{msg}"
    );
    assert!(
        matches!(
            s.view,
            shaderstep::app::action::ViewMode::Diff | shaderstep::app::action::ViewMode::Split
        ),
        "shown as a diff against the step before"
    );
    // The registry has no such pass: it is test-only.
    assert!(registry::pass("swap-add-sub").is_none());
}

/// Runs `shaderstep ARGS`, which must succeed saying every step computes what the input
/// does; its output.
fn bisects_clean(args: &[&str]) -> String {
    let r = shaderstep(args);
    let out = String::from_utf8_lossy(&r.stdout).into_owned();
    assert!(
        r.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(
        out.contains("every step computes what the input does"),
        "{out}"
    );
    out
}

#[test]
fn run_bisect_run_on_the_command_line() {
    bisects_clean(&[
        "run",
        "assets/examples/cull.comp",
        "--preset",
        "O",
        "--bisect-run",
    ]);
    // Data from a file.
    let dir = temp_dir("semantic-cli");
    let data = dir.join("data.bin");
    std::fs::write(
        &data,
        (0u32..64)
            .flat_map(|i| i.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    // An entry point the module does not have is an error that lists the ones it has.
    let r = shaderstep(&[
        "run",
        "assets/examples/cull.comp",
        "--preset",
        "O",
        "--bisect-run",
        "--entry",
        "nosuch",
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        !r.status.success() && err.contains("no entry point is called 'nosuch' (there are: main)"),
        "{err}"
    );
    let r = shaderstep(&[
        "run",
        "assets/examples/cull.comp",
        "--preset",
        "O",
        "--bisect-run",
        "--bisect-data",
        data.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // A fragment shader alone is drawn behind a vertex stage made for it.
    let out = bisects_clean(&[
        "run",
        "assets/examples/lighting.frag",
        "--preset",
        "O",
        "--bisect-run",
    ]);
    assert!(out.contains("behind a generated vertex stage"), "{out}");
    // With its vertex stage, as a pipeline, it is drawn after every step.
    let out = bisects_clean(&[
        "run",
        "--pipeline",
        "assets/pipeline/lit.vert",
        "assets/pipeline/lit.frag",
        "--preset",
        "O",
        "--link-order",
        "vs-first",
        "--bisect-run",
    ]);
    assert!(out.contains("1 attachment of 24×24"), "{out}");
}

/// Moves the fragment stage's colour output from location 0 to location 1: still valid, but
/// the attachment at location 0 is no longer written.
struct MoveColorOutput;
impl Pass for MoveColorOutput {
    fn name(&self) -> &'static str {
        "move-color-output"
    }
    fn description(&self) -> &'static str {
        "test pass: the fragment stage writes another location"
    }
    fn run(&self, m: &mut Module, _: &mut PassCx) -> Result<Changed, PassError> {
        use rspirv::dr::Operand;
        let fragment = m.entry_points().iter().any(|e| {
            e.lits().first() == Some(&Operand::ExecutionModel(spirv::ExecutionModel::Fragment))
        });
        if !fragment {
            return Ok(Changed::No);
        }
        let outputs: Vec<u32> = m
            .globals()
            .iter()
            .filter(|g| {
                g.op() == spirv::Op::Variable
                    && g.lits().first() == Some(&Operand::StorageClass(spirv::StorageClass::Output))
            })
            .filter_map(|g| g.result())
            .collect();
        let changed = shaderstep::ir::rewrite::edit_annotations(m, |a| {
            let target = a.arg(0).unwrap_or(0);
            (a.op() == spirv::Op::Decorate
                && outputs.contains(&target)
                && a.lits()
                    == [
                        Operand::Decoration(spirv::Decoration::Location),
                        Operand::LiteralBit32(0),
                    ])
            .then(|| a.clone().with_lit(1, Operand::LiteralBit32(1)))
        });
        Ok(changed.into())
    }
}

/// Turns the first GLSL `fract` into `floor`: the vertex stage's `v_debug`, which no fragment
/// stage of the pipeline reads, changes.
struct FractToFloor;
impl Pass for FractToFloor {
    fn name(&self) -> &'static str {
        "fract-to-floor"
    }
    fn description(&self) -> &'static str {
        "test pass: an output nothing reads computes otherwise"
    }
    fn run(&self, m: &mut Module, _: &mut PassCx) -> Result<Changed, PassError> {
        use rspirv::dr::Operand;
        const FRACT: u32 = 10;
        const FLOOR: u32 = 8;
        let mut changed = Changed::No;
        for f in shaderstep::ir::rewrite::functions_mut(m) {
            let fract = f.layout().map(|(_, i)| i).find(|&i| {
                f.inst(i).op() == spirv::Op::ExtInst
                    && f.inst(i).lits().first() == Some(&Operand::LiteralExtInstInteger(FRACT))
            });
            if let Some(i) = fract {
                shaderstep::ir::rewrite::set_lit(f, i, 0, Operand::LiteralExtInstInteger(FLOOR))
                    .unwrap();
                changed = Changed::Yes;
            }
        }
        Ok(changed)
    }
}

#[test]
fn a_graphics_pipeline_is_drawn_after_every_step() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let load = |name: &str| {
        shaderstep::pipeline::input::load(std::path::Path::new(&format!(
            "{}/tests/shaders/pipeline/{name}",
            env!("CARGO_MANIFEST_DIR")
        )))
        .unwrap()
        .words
    };
    let (vs, fs) = (Arc::new(load("lit.vert")), Arc::new(load("lit.frag")));
    // O keeps what the pair draws.
    let o = Pipeline::preset("O").unwrap();
    let (vr, fr) = (o.run(vs.clone()), o.run(fs.clone()));
    let b = shaderstep::pipeline::semantic::bisect(&gpu, &[&vr, &fr], Feed::default(), &|| false)
        .unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(
        b.setup.contains("1 attachment of") && !b.setup.contains("nothing"),
        "{}",
        b.setup
    );
    // A pass that moves the colour output is found, on the fragment stage.
    let mut p = Pipeline::from_names(&["lower", "verify", "dce", "verify", "lift"]).unwrap();
    p.passes.insert(3, Box::new(MoveColorOutput));
    let (vr, fr) = (p.run(vs), p.run(fs));
    let b = shaderstep::pipeline::semantic::bisect(&gpu, &[&vr, &fr], Feed::default(), &|| false)
        .unwrap();
    let first = b.first.clone().expect("a difference");
    assert_eq!(first.pass, "move-color-output", "{}", b.summary());
    assert!(
        first.what.contains("attachment 0") && first.what.contains("(fragment stage)"),
        "{}",
        first.what
    );
    // The fragment stage alone is drawn behind a vertex stage made for it, which feeds every
    // input it reads: the same pass is found.
    let b =
        shaderstep::pipeline::semantic::bisect(&gpu, &[&fr], Feed::default(), &|| false).unwrap();
    assert!(
        b.setup.contains("behind a generated vertex stage") && !b.setup.contains("nothing"),
        "{}",
        b.setup
    );
    let first = b.first.clone().expect("a difference");
    assert_eq!(first.pass, "move-color-output", "{}", b.summary());
    let o = Pipeline::preset("O")
        .unwrap()
        .run(Arc::new(load("lit.frag")));
    let b =
        shaderstep::pipeline::semantic::bisect(&gpu, &[&o], Feed::default(), &|| false).unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    // The vertex stage alone is drawn before a fragment stage made for it, which writes every
    // output to an attachment: a change to an output the pipeline's fragment stage never reads
    // shows there (and not in the pair).
    // (The bundled example's vertex stage: its v_debug takes a `fract`.)
    let bundled = Arc::new(
        shaderstep::pipeline::input::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/pipeline/lit.vert"
        )))
        .unwrap()
        .words,
    );
    let o = Pipeline::preset("O").unwrap().run(bundled.clone());
    let b =
        shaderstep::pipeline::semantic::bisect(&gpu, &[&o], Feed::default(), &|| false).unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(
        b.setup.contains("before a generated fragment stage") && b.setup.contains("4 attachments"),
        "{}",
        b.setup
    );
    let mut p = Pipeline::from_names(&["lower", "verify", "dce", "verify", "lift"]).unwrap();
    p.passes.insert(3, Box::new(FractToFloor));
    let vr = p.run(bundled);
    let b =
        shaderstep::pipeline::semantic::bisect(&gpu, &[&vr], Feed::default(), &|| false).unwrap();
    let first = b.first.clone().expect("a difference");
    assert_eq!(first.pass, "fract-to-floor", "{}", b.summary());
    assert!(first.what.contains("attachment 2"), "{}", first.what);
}

/// Push constants hold a fixed pattern of their own, the same on every run.
#[test]
fn compute_shaders_with_push_constants_run() {
    const PUSH: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
OpDecorate %Push Block
OpMemberDecorate %Push 0 Offset 0
OpMemberDecorate %Push 1 Offset 12
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%v3uint = OpTypeVector %uint 3
%Buf = OpTypeStruct %uint
%pBuf = OpTypePointer StorageBuffer %Buf
%buf = OpVariable %pBuf StorageBuffer
%Push = OpTypeStruct %v3uint %uint
%pPush = OpTypePointer PushConstant %Push
%push = OpVariable %pPush PushConstant
%p_uint = OpTypePointer StorageBuffer %uint
%pc_uint = OpTypePointer PushConstant %uint
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%main = OpFunction %void None %fn
%e = OpLabel
%pp = OpAccessChain %pc_uint %push %u1
%v = OpLoad %uint %pp
%p = OpAccessChain %p_uint %buf %u0
OpStore %p %v
OpReturn
OpFunctionEnd
"#;
    use shaderstep::pipeline::gpu::{push_bytes, Layout};
    let words = shaderstep::ir::spirv::asm::assemble(PUSH).unwrap();
    let layout = Layout::of(&words).unwrap();
    assert_eq!(layout.push, 16);
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let out = gpu
        .run(&words, &layout, [1, 1, 1], |_| vec![0; 64])
        .unwrap();
    assert_eq!(out[0][..4], push_bytes(16)[12..16]);
    // And the bisect runs it.
    let run = Pipeline::preset("O").unwrap().run(Arc::new(words));
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(
        b.setup.contains("16 bytes of push constants"),
        "{}",
        b.setup
    );
}

/// A compute shader that writes no buffer has nothing to compare: it still runs after every
/// step (a driver may crash on one), and the summary says that only that was looked for, not
/// "every step computes the same".
#[test]
fn a_shader_without_outputs_is_run_for_driver_crashes_only() {
    const NOTHING: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%e = OpLabel
OpReturn
OpFunctionEnd
"#;
    let words = shaderstep::ir::spirv::asm::assemble(NOTHING).unwrap();
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let run = Pipeline::preset("O").unwrap().run(Arc::new(words));
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap();
    assert!(b.writes_nothing && b.first.is_none(), "{}", b.summary());
    assert!(
        b.summary().contains("writes no storage buffer or image")
            && !b.summary().contains("computes what the input does"),
        "{}",
        b.summary()
    );
}

/// An array of blocks is as many buffers, each with bytes of its own.
#[test]
fn compute_shaders_with_arrays_of_buffers_run() {
    const ARRAY: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %bufs DescriptorSet 0
OpDecorate %bufs Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%Buf = OpTypeStruct %uint
%arr = OpTypeArray %Buf %u2
%parr = OpTypePointer StorageBuffer %arr
%bufs = OpVariable %parr StorageBuffer
%p_uint = OpTypePointer StorageBuffer %uint
%main = OpFunction %void None %fn
%e = OpLabel
%from = OpAccessChain %p_uint %bufs %u0 %u0
%to = OpAccessChain %p_uint %bufs %u1 %u0
%x = OpLoad %uint %from
OpStore %to %x
OpReturn
OpFunctionEnd
"#;
    use shaderstep::pipeline::gpu::Layout;
    let words = shaderstep::ir::spirv::asm::assemble(ARRAY).unwrap();
    let layout = Layout::of(&words).unwrap();
    assert_eq!(layout.bindings[0].count, 2);
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let out = gpu
        .run_each(&words, &layout, [1, 1, 1], &|_, e| vec![e as u8 + 1; 64])
        .unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!(out[1][..4], [1, 1, 1, 1], "element 1 took element 0's word");
    assert_eq!(out[0][..4], [1, 1, 1, 1]);
    let run = Pipeline::preset("O").unwrap().run(Arc::new(words));
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(b.setup.contains("2 buffers of 16 KiB"), "{}", b.setup);
}

/// A device that gives canned results: the input's runs and a changed step's runs each from
/// their own list (word 0 of every buffer), the last value repeating.
struct Canned {
    input: std::sync::Mutex<Option<Vec<u32>>>,
    input_runs: Vec<u32>,
    step_runs: Vec<u32>,
    calls: std::sync::Mutex<(usize, usize)>,
}

impl shaderstep::pipeline::gpu::Device for Canned {
    fn name(&self) -> &str {
        "canned"
    }
    fn run_buffers(
        &self,
        words: &[u32],
        layout: &shaderstep::pipeline::gpu::Layout,
        _: [u32; 3],
        _: &[Vec<u8>],
        _: std::time::Duration,
    ) -> Result<Vec<Vec<u8>>, shaderstep::pipeline::gpu::DeviceError> {
        let mut input = self.input.lock().unwrap();
        let is_input = input.get_or_insert_with(|| words.to_vec()) == words;
        let mut calls = self.calls.lock().unwrap();
        let (list, n) = if is_input {
            (&self.input_runs, &mut calls.0)
        } else {
            (&self.step_runs, &mut calls.1)
        };
        let value = list[(*n).min(list.len() - 1)];
        *n += 1;
        let mut bytes = value.to_le_bytes().to_vec();
        bytes.extend(7u32.to_le_bytes());
        Ok(layout.slots().iter().map(|_| bytes.clone()).collect())
    }
    fn draw_limited(
        &self,
        _: &shaderstep::pipeline::gpu::Draw,
        _: std::time::Duration,
    ) -> Result<shaderstep::pipeline::gpu::Rendered, shaderstep::pipeline::gpu::DeviceError> {
        Err(shaderstep::pipeline::gpu::DeviceError::Failed(
            "no draws".into(),
        ))
    }
}

#[test]
fn a_difference_is_confirmed_before_a_pass_is_blamed() {
    let run = wrong_pipeline().run(Arc::new(shader("dxbc_loop")));
    let canned = |input_runs: Vec<u32>, step_runs: Vec<u32>| Canned {
        input: Default::default(),
        input_runs,
        step_runs,
        calls: Default::default(),
    };
    // The input's three runs agree; the step differs; the input's next runs show that word
    // varies (a race seen late): nothing is blamed, the word is left out.
    let b = bisect_run(
        &canned(vec![1, 1, 1, 2], vec![2]),
        &run,
        Feed::default(),
        &|| false,
    )
    .unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(b.summary().contains("words vary"), "{}", b.summary());
    // The step differs on one run of three: not blamed either.
    let b = bisect_run(
        &canned(vec![1], vec![2, 1, 1]),
        &run,
        Feed::default(),
        &|| false,
    )
    .unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    // A difference every run shows is blamed.
    let b = bisect_run(&canned(vec![1], vec![2]), &run, Feed::default(), &|| false).unwrap();
    assert_eq!(b.first.expect("a difference").pass, "swap-add-sub");
}

/// A compute shader reading an array of sampled images, a 3D image, a cube array, a texel
/// buffer through a separate sampler, and writing a storage image and a storage texel buffer:
/// it runs, O keeps its meaning, and a pass that changes it is found at a texel of the image.
#[test]
fn compute_shaders_with_images_of_every_shape_run() {
    const IMAGES: &str = r#"#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform sampler2D tex[3];
layout(set = 0, binding = 1) uniform texture3D volume;
layout(set = 0, binding = 2) uniform sampler nearest;
layout(set = 0, binding = 3) uniform samplerCubeArray sky;
layout(set = 0, binding = 4) uniform usamplerBuffer table;
layout(set = 1, binding = 0, rgba32f) uniform image2D result;
layout(set = 1, binding = 1, r32ui) uniform uimageBuffer counts;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    int k = p.x + p.y;
    vec4 a = texelFetch(tex[k % 3], p, 0);
    vec4 b = texture(sampler3D(volume, nearest), vec3(p, 1) / 4.0);
    vec4 c = textureLod(sky, vec4(1.0, 0.5, -0.5, 1.0), 0.0);
    uint t = texelFetch(table, k).x;
    imageStore(result, p, a + b * 2.0 + c * 3.0);
    imageStore(counts, k + 8, uvec4(t + uint(k)));
}
"#;
    use shaderstep::pipeline::gpu::Layout;
    let words = common::glslang_words("images.comp", IMAGES.as_bytes(), &[]);
    let layout = Layout::of(&words).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(layout.bindings.len(), 7, "{:?}", layout.bindings);
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let run = Pipeline::preset("O").unwrap().run(Arc::new(words.clone()));
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(b.summary().contains("images"), "{}", b.summary());
    let run = wrong_pipeline().run(Arc::new(words));
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap_or_else(|e| panic!("{e}"));
    let first = b.first.expect("a difference");
    assert_eq!(first.pass, "swap-add-sub");
    assert!(
        first.what.contains("storage image") || first.what.contains("storage texel buffer"),
        "{}",
        first.what
    );
}

/// A buffer holding a buffer address, and push constants holding another: each gets the
/// address of a real buffer, the shader reads and writes through them, O keeps its meaning
/// and a pass that changes it is found in the buffer behind an address.
#[test]
fn compute_shaders_reading_through_buffer_addresses_run() {
    const ADDRESSES: &str = r#"#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 8) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Values {
    uint v[];
};
layout(set = 0, binding = 0, std430) buffer Table {
    uint count;
    Values values;
};
layout(push_constant) uniform Push {
    Values out_values;
};
void main() {
    uint i = gl_GlobalInvocationID.x;
    out_values.v[i] = values.v[i] + i + count;
}
"#;
    use shaderstep::pipeline::gpu::Layout;
    let words = common::glslang_words("addresses.comp", ADDRESSES.as_bytes(), &[]);
    let layout = Layout::of(&words).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(layout.addresses.bindings, [vec![8]]);
    assert_eq!(layout.addresses.push, [0]);
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let run = Pipeline::preset("O").unwrap().run(Arc::new(words.clone()));
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.first, None, "{}", b.summary());
    let run = wrong_pipeline().run(Arc::new(words));
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap_or_else(|e| panic!("{e}"));
    let first = b.first.expect("a difference");
    assert_eq!(first.pass, "swap-add-sub");
    assert!(
        first.what.contains("the buffer behind address"),
        "{}",
        first.what
    );
}

/// A fragment shader alone that compares against a depth texture, fetches samples of a
/// multisampled one, samples a 3D and a cube texture and writes a storage image: drawn after
/// every step, from the command line.
#[test]
fn a_fragment_shader_with_depth_multisampled_and_storage_images_is_drawn() {
    const FRAG: &str = r#"#version 450
layout(set = 0, binding = 0) uniform sampler2DShadow shadow;
layout(set = 0, binding = 1) uniform sampler2DMS samples;
layout(set = 0, binding = 2) uniform sampler3D volume;
layout(set = 0, binding = 3) uniform samplerCube sky;
layout(set = 0, binding = 4, r32ui) uniform uimage2D hits;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
    float lit = texture(shadow, vec3(uv, 0.5));
    vec4 s = texelFetch(samples, ivec2(uv * 8.0), 2);
    vec4 v = texture(volume, vec3(uv, 0.25));
    vec4 c = texture(sky, vec3(uv, 1.0));
    imageStore(hits, ivec2(uv * 8.0), uvec4(uint(lit * 4.0) + 1u));
    color = s * lit + v + c * 0.5;
}
"#;
    let dir = temp_dir("semantic-images");
    let path = dir.join("images.frag.spv");
    std::fs::write(
        &path,
        words_to_bytes(&common::glslang_words("images.frag", FRAG.as_bytes(), &[])),
    )
    .unwrap();
    let out = bisects_clean(&[
        "run",
        path.to_str().unwrap(),
        "--preset",
        "O",
        "--bisect-run",
    ]);
    assert!(out.contains("behind a generated vertex stage"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A module with two compute entry points runs the one named (`--entry`), else the first.
#[test]
fn the_entry_point_named_is_the_one_run() {
    const TWO: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpEntryPoint GLCompute %other "other"
OpExecutionMode %main LocalSize 1 1 1
OpExecutionMode %other LocalSize 1 1 1
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%u0 = OpConstant %uint 0
%u5 = OpConstant %uint 5
%Buf = OpTypeStruct %uint
%pBuf = OpTypePointer StorageBuffer %Buf
%buf = OpVariable %pBuf StorageBuffer
%p_uint = OpTypePointer StorageBuffer %uint
%main = OpFunction %void None %fn
%e = OpLabel
%p = OpAccessChain %p_uint %buf %u0
OpStore %p %u5
OpReturn
OpFunctionEnd
%other = OpFunction %void None %fn
%e2 = OpLabel
%q = OpAccessChain %p_uint %buf %u0
%x = OpLoad %uint %q
%y = OpIAdd %uint %x %u5
OpStore %q %y
OpReturn
OpFunctionEnd
"#;
    let words = shaderstep::ir::spirv::asm::assemble(TWO).unwrap();
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    // The test pass turns `other`'s add into a subtract: only a run of `other` sees it.
    let run = wrong_pipeline().run(Arc::new(words));
    let b = bisect_run(&gpu, &run, Feed::default(), &|| false).unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    let other = Feed {
        entry: Some("other"),
        ..Feed::default()
    };
    let b = bisect_run(&gpu, &run, other, &|| false).unwrap();
    assert_eq!(b.first.expect("a difference").pass, "swap-add-sub");
}

/// The bisect with `oracle` on `runs`, given a device only when `gpu` is.
fn bisect_on(
    gpu: Option<&Gpu>,
    runs: &[&shaderstep::pipeline::Run],
    oracle: Oracle,
) -> Result<shaderstep::pipeline::semantic::BisectRun, String> {
    let open = || -> Result<&dyn shaderstep::pipeline::gpu::Device, String> {
        match gpu {
            Some(g) => Ok(g),
            None => Err("no driver here: the test gives none".into()),
        }
    };
    let feed = Feed {
        oracle,
        ..Feed::default()
    };
    bisect_with(&open, runs, feed, &|| false)
}

/// A pipeline's vertex and fragment stages given apart are bisected on the interpreter too,
/// their steps side by side: the test pass's subtract in the vertex stage is blamed and
/// named there; `auto` lets the interpreter decide once it draws the input as lavapipe does.
#[test]
fn the_interpreter_bisects_a_vertex_and_a_fragment_stage_together() {
    let vs = common::glslang_words(
        "pair.vert",
        b"#version 450\nlayout(location = 0) in vec4 p;\nlayout(location = 2) out vec2 uv;\n\
          void main() { int k = gl_VertexIndex + 3; gl_Position = vec4(p.xy, 0.5, 1.0);\n\
          uv = p.xy * float(k); }\n",
        &[],
    );
    let fs = common::glslang_words(
        "pair.frag",
        b"#version 450\nlayout(location = 2) in vec2 uv;\nlayout(location = 0) out vec4 c;\n\
          void main() { c = vec4(uv, uv.x * uv.y, 1.0); }\n",
        &[],
    );
    let vs_run = wrong_pipeline().run(Arc::new(vs));
    let fs_run = wrong_pipeline().run(Arc::new(fs));
    let b = bisect_on(None, &[&vs_run, &fs_run], Oracle::Interp).unwrap_or_else(|e| panic!("{e}"));
    let first = b.first.clone().expect("a difference");
    assert_eq!(first.pass, "swap-add-sub", "{}", b.summary());
    assert!(first.what.starts_with("attachment 0"), "{}", first.what);
    let value = first.value.expect("the first differing value");
    assert!(
        value.contains("OpISub") && value.contains("(vertex stage)"),
        "{value}"
    );
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let b =
        bisect_on(Some(&gpu), &[&vs_run, &fs_run], Oracle::Auto).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.first.map(|d| d.pass), Some("swap-add-sub"));
    assert!(
        b.oracle
            .as_deref()
            .is_some_and(|o| o.contains("so it decides")),
        "{:?}",
        b.oracle
    );
}

/// `--oracle interp` needs no driver: the test pass is found on the interpreter alone, named
/// by the value it made differ (the subtract it wrote, or the add it replaced, with both
/// values); O keeps what the shader computes there too.
#[test]
fn the_interpreter_alone_finds_the_pass_and_its_first_differing_value() {
    let run = wrong_pipeline().run(Arc::new(shader("dxbc_loop")));
    let b = bisect_on(None, &[&run], Oracle::Interp).unwrap_or_else(|e| panic!("{e}"));
    let first = b.first.clone().expect("a difference");
    assert_eq!(
        (first.step, first.pass),
        (3, "swap-add-sub"),
        "{}",
        b.summary()
    );
    assert!(first.what.starts_with("set 0 binding"), "{}", first.what);
    let value = first.value.clone().expect("the first differing value");
    assert!(
        value.contains("= OpISub") || value.contains("= OpIAdd"),
        "{value}"
    );
    assert!(
        value.contains(" → ") && value.contains("(invocation "),
        "{value}"
    );
    let summary = b.summary();
    assert!(
        summary.contains("first step whose results differ: 3 swap-add-sub")
            && summary.contains("; first difference: %")
            && summary.contains("the interpreter decides"),
        "{summary}"
    );
    // Without the test pass, every step computes what the input does.
    let run = Pipeline::from_names(&["lower", "verify", "dce", "verify", "lift"])
        .unwrap()
        .run(Arc::new(shader("dxbc_loop")));
    let b = bisect_on(None, &[&run], Oracle::Interp).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(b.setup.starts_with("the interpreter: "), "{}", b.setup);
    // Under O, sroa turns the stores to the vector the loop keeps its state in into loads,
    // inserts and stores of the whole vector, the first load reading a vector partly written:
    // its written parts stay defined, so no step is blamed.
    let o = Pipeline::preset("O")
        .unwrap()
        .run(Arc::new(shader("dxbc_loop")));
    let b = bisect_on(None, &[&o], Oracle::Interp).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.first, None, "{}", b.summary());
}

/// Test pass: renumbers every id (compact-ids), then turns the first add into a subtract, so
/// the step's ids are not the step before's.
struct RenumberThenSwap;
impl Pass for RenumberThenSwap {
    fn name(&self) -> &'static str {
        "renumber-then-swap"
    }
    fn description(&self) -> &'static str {
        "test pass: renumbers ids and changes what the shader computes"
    }
    fn run(&self, m: &mut Module, cx: &mut PassCx) -> Result<Changed, PassError> {
        registry::pass("compact-ids")
            .expect("compact-ids is a pass")
            .run(m, cx)?;
        SwapAddSub.run(m, cx)?;
        Ok(Changed::Yes)
    }
}

/// Across a step that renumbers ids, values are matched as the value history matches them:
/// the first difference is still the subtract, named by the step's own id.
#[test]
fn a_step_that_renumbers_ids_is_compared_value_by_value() {
    // Debug info is stripped first, so that no name holds the ids in place.
    let mut p =
        Pipeline::from_names(&["lower", "verify", "strip-debug", "dce", "verify", "lift"]).unwrap();
    p.passes.insert(4, Box::new(RenumberThenSwap));
    let run = p.run(Arc::new(shader("dxbc_loop")));
    assert!(run.ok());
    let b = bisect_on(None, &[&run], Oracle::Interp).unwrap_or_else(|e| panic!("{e}"));
    let first = b.first.clone().expect("a difference");
    assert_eq!(first.pass, "renumber-then-swap", "{}", b.summary());
    let value = first.value.expect("the first differing value");
    assert!(value.contains("= OpISub"), "{value}");
    assert!(value.contains("ids of step 4"), "{value}");
    // The same for a fragment shader drawn on the interpreter.
    let fragment = common::glslang_words(
        "renumbered.frag",
        b"#version 450\nlayout(location = 0) out vec4 c;\n\
          void main() { int k = int(gl_FragCoord.x) + 3; c = vec4(float(k) * 0.1); }\n",
        &[],
    );
    let run = p.run(Arc::new(fragment));
    let b = bisect_on(None, &[&run], Oracle::Interp).unwrap_or_else(|e| panic!("{e}"));
    let first = b.first.clone().expect("a difference");
    assert_eq!(first.pass, "renumber-then-swap", "{}", b.summary());
    let value = first.value.expect("the first differing value");
    assert!(
        value.contains("= OpISub") && value.contains("renumbered some"),
        "{value}"
    );
}

/// `auto` runs the input on both: where they agree, the interpreter bisects, and the summary
/// says so; the driver oracle names the first differing value too; `both` reports the
/// driver's step and that the interpreter blames the same one.
#[test]
fn the_oracle_is_chosen_on_the_input_and_both_agree_on_the_step() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let run = wrong_pipeline().run(Arc::new(shader("dxbc_loop")));
    let auto = bisect_on(Some(&gpu), &[&run], Oracle::Auto).unwrap();
    assert!(
        auto.summary()
            .contains("the interpreter agrees with the driver on the input, so it decides"),
        "{}",
        auto.summary()
    );
    assert_eq!(auto.first.as_ref().map(|d| d.step), Some(3));
    let driver = bisect_on(Some(&gpu), &[&run], Oracle::Driver).unwrap();
    let d = driver.first.clone().expect("a difference");
    assert_eq!(d.pass, "swap-add-sub");
    assert!(
        d.value
            .as_deref()
            .is_some_and(|v| v.contains("OpISub") || v.contains("OpIAdd")),
        "{}",
        driver.summary()
    );
    assert_eq!(
        driver.oracle, None,
        "the driver alone says nothing of oracles"
    );
    let both = bisect_on(Some(&gpu), &[&run], Oracle::Both).unwrap();
    assert_eq!(both.first.as_ref().map(|d| d.step), Some(d.step));
    assert!(
        both.summary()
            .contains("the interpreter blames the same step"),
        "{}",
        both.summary()
    );
    // O keeps the meaning: auto bisects on the interpreter and finds nothing, every step
    // judged by the interpreter (a vector written a component at a time keeps its defined
    // parts, so sroa's steps read nothing undefined).
    let o = Pipeline::preset("O")
        .unwrap()
        .run(Arc::new(shader("dxbc_loop")));
    let b = bisect_on(Some(&gpu), &[&o], Oracle::Auto).unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(b.setup.starts_with("the interpreter: "), "{}", b.setup);
    assert!(b.driver_judged.is_empty(), "{}", b.summary());
}

/// A fragment shader alone is drawn by the interpreter: `interp` bisects without a driver,
/// `auto` lets the interpreter decide where it draws the input as the driver does, and a
/// miscompiling pass is blamed with its first differing value, in the fragment stage.
#[test]
fn fragment_shaders_are_drawn_by_the_interpreter() {
    let words = shaderstep::pipeline::input::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/shaders/pipeline/lit.frag"
    )))
    .unwrap()
    .words;
    let o = Pipeline::preset("O").unwrap().run(Arc::new(words));
    let b = bisect_on(None, &[&o], Oracle::Interp).unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(
        b.setup.starts_with("the interpreter: ")
            && b.setup.contains("behind a generated vertex stage"),
        "{}",
        b.setup
    );
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let b = bisect_on(Some(&gpu), &[&o], Oracle::Auto).unwrap();
    assert_eq!(b.first, None, "{}", b.summary());
    assert!(
        b.summary()
            .contains("the interpreter draws the input as the driver does, so it decides"),
        "{}",
        b.summary()
    );
    let source = "#version 450\nlayout(location = 0) flat in int k;\n\
        layout(location = 1) in vec2 uv;\nlayout(location = 0) out vec4 c;\n\
        void main() { int m = k + 3; c = vec4(float(m), uv, 1.0); }\n";
    let words = common::glslang_words("planted.frag", source.as_bytes(), &[]);
    let mut p = Pipeline::from_names(&["lower", "verify", "dce", "verify", "lift"]).unwrap();
    p.passes.insert(3, Box::new(SwapAddSub));
    let run = p.run(Arc::new(words));
    for oracle in [Oracle::Interp, Oracle::Driver] {
        let b = bisect_on(Some(&gpu), &[&run], oracle).unwrap();
        let d = b
            .first
            .as_ref()
            .unwrap_or_else(|| panic!("{}", b.summary()));
        assert_eq!(d.pass, "swap-add-sub", "{}", b.summary());
        let value = d.value.as_deref().unwrap_or_default();
        assert!(
            value.contains("OpISub") && value.contains("(fragment stage)"),
            "{oracle:?}: {value}"
        );
    }
}

/// `:bisect run` takes the oracle before the file, and prints it back.
#[test]
fn bisect_run_commands_take_the_oracle() {
    let parse = |s: &str| s.parse::<Action>();
    assert_eq!(
        parse(":bisect run --oracle interp"),
        Ok(Action::BisectRun(None, Oracle::Interp))
    );
    assert_eq!(
        parse(":bisect run --oracle=both data 1.bin"),
        Ok(Action::BisectRun(
            Some(std::path::PathBuf::from("data 1.bin")),
            Oracle::Both
        ))
    );
    assert_eq!(
        parse(":bisect run"),
        Ok(Action::BisectRun(None, Oracle::Auto))
    );
    assert!(parse(":bisect run --oracle gpu")
        .unwrap_err()
        .contains("auto, interp, driver or both"));
    let a = Action::BisectRun(None, Oracle::Driver);
    assert_eq!(a.to_string(), "bisect run --oracle driver");
}

/// A shader the driver refuses: the refusal names what the shader uses that the driver does not
/// offer, instead of the driver's "unknown error".
#[test]
fn a_refused_pipeline_says_what_the_driver_lacks() {
    let dir = common::temp_dir("refused");
    let words = common::glslang_words(
        "partitioned.comp",
        b"#version 450\n\
         #extension GL_NV_shader_subgroup_partitioned : require\n\
         layout(local_size_x = 32) in;\n\
         layout(set = 0, binding = 0) buffer B { uint v[]; } b;\n\
         void main() {\n\
             uint x = b.v[gl_LocalInvocationID.x];\n\
             b.v[gl_LocalInvocationID.x] = subgroupPartitionedAddNV(x, subgroupPartitionNV(x & 3u));\n\
         }\n",
        &["--target-env", "vulkan1.1"],
    );
    let input = dir.join("partitioned.spv");
    std::fs::write(&input, common::words_to_bytes(&words)).unwrap();
    let r = common::shaderstep(&["run", input.to_str().unwrap(), "--bisect-run"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success(), "{err}");
    assert!(
        err.contains("refuses the compute pipeline")
            && err
                .contains("SPV_NV_shader_subgroup_partitioned (VK_NV_shader_subgroup_partitioned)")
            && err.contains("does not offer"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A miscompile whose only effect is in a buffer behind a buffer address: the interpreter
/// oracle compares those buffers too and blames the test pass, with no driver.
#[test]
fn the_interpreter_oracle_sees_buffers_behind_addresses() {
    const SOURCE: &str = r#"#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 1) in;
layout(buffer_reference, std430) buffer Node { uint value[]; };
layout(set = 0, binding = 0, std430) buffer Roots { Node node; };
void main() {
    uint g = gl_WorkGroupID.x;
    node.value[g] = node.value[g] + 5u;
}
"#;
    let words = common::glslang_words(
        "bda-bisect.comp",
        SOURCE.as_bytes(),
        &["--target-env", "vulkan1.2"],
    );
    let run = wrong_pipeline().run(Arc::new(words));
    let b = bisect_on(None, &[&run], Oracle::Interp).unwrap();
    let first = b
        .first
        .as_ref()
        .unwrap_or_else(|| panic!("{}", b.summary()));
    assert_eq!(first.pass, "swap-add-sub", "{}", b.summary());
    assert!(first.what.contains("behind address"), "{}", b.summary());
}
