//! `reduce`: a test-only pass that miscompiles, breaks validity or fails on one pattern, hidden
//! in a real test shader, is found by the bisect and the shader reduced to a fifth or less of
//! its instructions, still showing it; under `differs` the result has no `OpUndef` and reads no
//! memory it did not write; a command property works as spirv-reduce's does.

mod common;

use common::{corpus, shaderstep, temp_dir, words_to_bytes, SwapAddSub, WildPointer};
use shaderstep::ir::Module;
use shaderstep::pipeline::gpu::Gpu;
use shaderstep::pipeline::pass::{Changed, Pass, PassCx, PassError};
use shaderstep::pipeline::reduce::{prepare, reduce, Property, Reduced};
use shaderstep::pipeline::Pipeline;
use spirv::Op;

/// Turns the first float multiply into an integer one: spirv-val rejects the result.
struct BreakFMul;
impl Pass for BreakFMul {
    fn name(&self) -> &'static str {
        "break-fmul"
    }
    fn description(&self) -> &'static str {
        "test pass: makes the module invalid"
    }
    fn run(&self, m: &mut Module, _: &mut PassCx) -> Result<Changed, PassError> {
        for f in shaderstep::ir::rewrite::functions_mut(m) {
            let mul = f
                .layout()
                .map(|(_, i)| i)
                .find(|&i| f.inst(i).op() == Op::FMul);
            if let Some(mul) = mul {
                let (ty, operands) = (f.inst(mul).ty(), f.inst(mul).to_operands());
                shaderstep::ir::rewrite::rewrite_inst(f, mul, Op::IMul, ty, operands);
                return Ok(Changed::Yes);
            }
        }
        Ok(Changed::No)
    }
}

/// Fails on a module that divides floats.
struct FailOnFDiv;
impl Pass for FailOnFDiv {
    fn name(&self) -> &'static str {
        "fail-on-fdiv"
    }
    fn description(&self) -> &'static str {
        "test pass: fails on a pattern"
    }
    fn run(&self, m: &mut Module, _: &mut PassCx) -> Result<Changed, PassError> {
        if m.functions()
            .iter()
            .any(|f| f.insts().any(|i| i.op() == Op::FDiv))
        {
            return Err(PassError("cannot divide floats".into()));
        }
        Ok(Changed::No)
    }
}

/// `lower, verify, dce, PASS, verify, lift`.
fn with(pass: Box<dyn Pass>) -> Pipeline {
    let mut p = Pipeline::from_names(&["lower", "verify", "dce", "verify", "lift"]).unwrap();
    p.passes.insert(3, pass);
    p
}

fn shader(name: &str) -> Vec<u32> {
    corpus()
        .into_iter()
        .find(|s| s.path.to_string_lossy().contains(name))
        .unwrap_or_else(|| panic!("no test shader {name}"))
        .words
}

/// `shaderstep reduce ARGS`, which must succeed: what it printed.
fn reduced(args: &[&str]) -> String {
    let r = shaderstep(&[&["reduce"], args].concat());
    let out = String::from_utf8_lossy(&r.stdout).into_owned();
    assert!(
        r.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&r.stderr)
    );
    out
}

fn start(words: &[u32]) -> Module {
    shaderstep::pipeline::reduce::start_of(words).unwrap()
}

/// Reduces `words` for `test`: to a fifth of its instructions or fewer, still with the
/// property, valid.
fn to_a_fifth(test: &shaderstep::pipeline::reduce::Test, words: &[u32]) -> Reduced {
    let reduced = reduce(test, start(words), &mut |_| {}, &|| false).unwrap();
    assert!(
        reduced.after * 5 <= reduced.before,
        "{} → {}",
        reduced.before,
        reduced.after
    );
    assert!(
        test.holds(&reduced.words).unwrap(),
        "it still has the property"
    );
    // The candidate itself is valid (an invalid step is the pass's output).
    common::validate(&reduced.words, false).unwrap();
    reduced
}

/// Reduces `input` for `test`, judged on the interpreter: to half its instructions or fewer,
/// the result confirmed on the driver, valid.
fn halved_on_the_interpreter(test: &shaderstep::pipeline::reduce::Test, input: Module) {
    let before = input.inst_count();
    let reduced = reduce(test, input, &mut |_| {}, &|| false).unwrap_or_else(|e| panic!("{e}"));
    let judged = reduced.judged.clone().unwrap_or_default();
    assert!(
        judged.contains("the result confirmed on the driver"),
        "{judged}"
    );
    assert!(
        reduced.after * 2 <= before,
        "{before} → {} instructions",
        reduced.after
    );
    common::validate(&reduced.words, false).unwrap();
}

fn scratch(tag: &str) -> std::path::PathBuf {
    temp_dir(tag).join("candidate.spv")
}

/// Whether a function variable without an initializer is loaded in a module where nothing
/// stores to it: a read of memory nothing wrote.
fn reads_unwritten(m: &Module) -> bool {
    m.functions().iter().any(|f| {
        f.insts()
            .filter(|i| i.op() == Op::Variable && i.args().is_empty())
            .filter_map(|v| v.result())
            .any(|v| {
                let stored = f.insts().any(|i| i.op() == Op::Store && i.args()[0] == v);
                let loaded = f.insts().any(|i| i.op() == Op::Load && i.args()[0] == v);
                loaded && !stored
            })
    })
}

/// The `differs` test of `words` under `pipeline`, whose bisect must find swap-add-sub.
fn differs_at_swap_add_sub<'a>(
    pipeline: &'a Pipeline,
    gpu: &'a Gpu,
    words: &[u32],
    tag: &str,
) -> shaderstep::pipeline::reduce::Test<'a> {
    let test = prepare(
        pipeline,
        Property::Differs,
        None,
        words,
        Some(gpu),
        scratch(tag),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(test.step, Some(3), "the bisect finds swap-add-sub");
    test
}

#[test]
fn a_miscompile_is_reduced_to_a_fifth_and_still_differs() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let words = shader("loops");
    let pipeline = with(Box::new(SwapAddSub));
    let test = differs_at_swap_add_sub(&pipeline, &gpu, &words, "reduce-differs");
    // The swapped add makes an index negative: the step differs where the interpreter finds
    // the values undefined, which only the driver can judge.
    let oracle = test.oracle.clone().unwrap_or_default();
    assert!(!test.interpreter, "{oracle}");
    assert!(
        oracle.contains("only where values are undefined"),
        "{oracle}"
    );
    let reduced = to_a_fifth(&test, &words);
    let out = shaderstep::ir::spirv::read::read_words(&reduced.words).unwrap();
    let mut undef = false;
    out.for_each_inst(|i| undef |= i.op() == Op::Undef);
    assert!(!undef, "no OpUndef under differs");
    assert!(!reads_unwritten(&out), "no read of memory nothing wrote");
}

/// A miscompile with nothing undefined about it: candidates are judged on the interpreter
/// (no driver compile each), and the driver confirms the result.
#[test]
fn a_miscompile_is_judged_on_the_interpreter_and_confirmed_on_the_driver() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let words = shader("scan.comp");
    let pipeline = with(Box::new(SwapAddSub));
    let test = differs_at_swap_add_sub(&pipeline, &gpu, &words, "reduce-differs-interp");
    assert!(test.interpreter, "{:?}", test.oracle);
    halved_on_the_interpreter(&test, start(&words));
}

/// A fragment shader whose miscompile shows only on the right of the framebuffer: its
/// candidates are drawn only in four quads where the input's step differs (a few fragments
/// rather than the whole draw), and the driver confirms the result on the whole draw.
#[test]
fn a_draw_is_judged_on_the_quads_where_it_differs() {
    use shaderstep::ir::exec::Options;
    use shaderstep::pipeline::exec::run_draw_step;
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let source = "#version 450\n\
        layout(location = 0) in vec2 uv;\n\
        layout(location = 0) out vec4 colour;\n\
        layout(binding = 0) uniform U { vec4 tint; int base; };\n\
        void main() {\n\
          vec4 c = tint * uv.x + vec4(uv.y, 0.5, 0.25, 1.0);\n\
          c.xy = c.xy * 3.0 - uv;\n\
          if (gl_FragCoord.x > 16.0) {\n\
            int k = base + int(gl_FragCoord.y);\n\
            c.z = float(k);\n\
          }\n\
          colour = c;\n\
        }\n";
    let words = common::glslang_words("right.frag", source.as_bytes(), &[]);
    let pipeline = with(Box::new(SwapAddSub));
    let test = differs_at_swap_add_sub(&pipeline, &gpu, &words, "reduce-draw-quads");
    assert!(test.interpreter, "{:?}", test.oracle);
    let quads = test.quads_of.expect("a draw is judged on quads");
    assert!(
        quads.iter().all(|&[x, _]| x >= 16),
        "only pixels that differ: {quads:?}"
    );
    // Those quads are all that is drawn: far fewer fragments, the rest left clear.
    let input = start(&words);
    let whole = run_draw_step(&input, None, &Options::default()).unwrap();
    let options = Options {
        only_quads_of: Some(quads),
        ..Options::default()
    };
    let some = run_draw_step(&input, None, &options).unwrap();
    let executed = |r: &shaderstep::pipeline::exec::DrawRan| r.execution.fragment.executed;
    assert!(
        executed(&some) * 10 < executed(&whole),
        "{} of {} instructions",
        executed(&some),
        executed(&whole)
    );
    let (w, _) = whole.inputs.size;
    let texel = |r: &shaderstep::pipeline::exec::DrawRan, [x, y]: [u32; 2]| {
        let at = ((y * w + x) * 4) as usize;
        r.execution.attachments[0].words[at..at + 4].to_vec()
    };
    for q in quads {
        assert_eq!(texel(&some, q), texel(&whole, q), "drawn as the whole draw");
    }
    assert_eq!(texel(&some, [0, 0]), vec![Some(0); 4], "not drawn: clear");
    halved_on_the_interpreter(&test, input);
}

#[test]
fn an_invalid_step_is_reduced_and_stays_invalid() {
    let words = shader("pbr");
    let pipeline = with(Box::new(BreakFMul));
    let test = prepare(
        &pipeline,
        Property::Invalid,
        Some("break-fmul"),
        &words,
        None,
        scratch("reduce-invalid"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    to_a_fifth(&test, &words);
}

#[test]
fn a_failing_pass_is_reduced_with_the_same_error() {
    let words = shader("pbr");
    let pipeline = with(Box::new(FailOnFDiv));
    let test = prepare(
        &pipeline,
        Property::Fails,
        None,
        &words,
        None,
        scratch("reduce-fails"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(test
        .error
        .as_deref()
        .unwrap_or("")
        .contains("cannot divide floats"));
    let reduced = to_a_fifth(&test, &words);
    let out = shaderstep::ir::spirv::read::read_words(&reduced.words).unwrap();
    let mut divides = false;
    out.for_each_inst(|i| divides |= i.op() == Op::FDiv);
    assert!(divides);
}

/// Errors before any work: a pass the pipeline does not have, an input without the property,
/// a command that cannot run.
#[test]
fn what_cannot_be_reduced_is_said_first() {
    let words = shader("pbr");
    let pipeline = with(Box::new(FailOnFDiv));
    let e = prepare(
        &pipeline,
        Property::Invalid,
        Some("gvn"),
        &words,
        None,
        scratch("r1"),
    )
    .err()
    .unwrap();
    assert!(e.contains("no pass 'gvn'"), "{e}");
    let e = prepare(
        &pipeline,
        Property::Invalid,
        Some("verify"),
        &words,
        None,
        scratch("r2"),
    )
    .err()
    .unwrap();
    assert!(e.contains("does not have the property"), "{e}");
    let e = prepare(
        &pipeline,
        Property::Command("no-such-tool --flag".into()),
        None,
        &words,
        None,
        scratch("r3"),
    )
    .err()
    .unwrap();
    assert!(e.contains("cannot run 'no-such-tool --flag'"), "{e}");
    // A command the input does not satisfy: the message shows how it was run.
    let e = prepare(
        &pipeline,
        Property::Command("grep -q NoSuchText \"$1\" && true".into()),
        None,
        &words,
        None,
        scratch("r4"),
    )
    .err()
    .unwrap();
    assert!(
        e.contains("does not exit 0 on the input")
            && e.contains("it ran: sh -c 'grep -q NoSuchText \"$1\" && true' sh ")
            && e.contains("candidate.spv"),
        "{e}"
    );
}

/// An output that exists is not overwritten unless asked; the default output takes the next
/// free name.
#[test]
fn an_existing_output_is_kept() {
    let dir = temp_dir("reduce-keep");
    let input = dir.join("pbr.spv");
    std::fs::write(&input, words_to_bytes(&shader("pbr"))).unwrap();
    let taken = dir.join("taken.spv");
    std::fs::write(&taken, b"mine").unwrap();
    let r = shaderstep(&[
        "reduce",
        input.to_str().unwrap(),
        "--until",
        "true",
        "-o",
        taken.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        !r.status.success() && err.contains("exists: --force overwrites it"),
        "{err}"
    );
    assert_eq!(std::fs::read(&taken).unwrap(), b"mine");
    assert_eq!(
        shaderstep::pipeline::reduce::default_output(&input),
        dir.join("pbr.reduced.spv")
    );
    std::fs::write(dir.join("pbr.reduced.spv"), b"earlier").unwrap();
    assert_eq!(
        shaderstep::pipeline::reduce::default_output(&input),
        dir.join("pbr.reduced-2.spv")
    );
    // A reduced shader reduced again counts on from its own name.
    assert_eq!(
        shaderstep::pipeline::reduce::default_output(&dir.join("pbr.reduced.spv")),
        dir.join("pbr.reduced-2.spv")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `shaderstep reduce --until 'COMMAND'`: the command gets the candidate's path last and exits
/// 0 while it is interesting; the result and its assembly are written.
#[test]
fn a_command_says_what_is_interesting() {
    let dir = temp_dir("reduce-cli");
    let input = dir.join("pbr.spv");
    std::fs::write(&input, words_to_bytes(&shader("pbr"))).unwrap();
    // The command names the candidate as `$1`, as a shell script would (it is not also
    // appended); it also notes every candidate spirv-val rejects: it should see none, and
    // every candidate it sees is a `.spv` file.
    let invalid = dir.join("invalid.log");
    let until = format!(
        "case \"$1\" in *.spv) ;; *) echo \"$1\" >> {0};; esac; \
         spirv-val \"$1\" >/dev/null 2>&1 || echo \"$1\" >> {0}; \
         spirv-dis \"$1\" | grep -q OpImageSampleImplicitLod",
        invalid.display()
    );
    let out = reduced(&[input.to_str().unwrap(), "--until", &until]);
    let reduced = dir.join("pbr.reduced.spv");
    let asm = std::fs::read_to_string(dir.join("pbr.reduced.spvasm")).unwrap();
    assert!(asm.contains("OpImageSampleImplicitLod"), "{asm}");
    assert!(
        out.contains("instructions") && out.contains("candidates tried"),
        "{out}"
    );
    let words = common::spv_words(&reduced);
    common::validate(&words, false).unwrap();
    assert!(words.len() * 5 < shader("pbr").len(), "{out}");
    assert!(
        !invalid.exists(),
        "the command was given invalid candidates, or ones not named .spv: {}",
        std::fs::read_to_string(&invalid).unwrap_or_default()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A call whose callee holds what is interesting cannot be deleted: it is inlined, so the
/// reduced shader is one function. (The script asks for a `Pow` an entry point reaches, so a
/// callee left uncalled does not do; functions nothing calls are taken away.)
#[test]
fn a_call_that_must_stay_is_inlined() {
    let dir = temp_dir("reduce-inline");
    let input = dir.join("phong.spv");
    std::fs::write(&input, words_to_bytes(&shader("phong"))).unwrap();
    let script = dir.join("interesting.sh");
    // No `#!` line: the kernel will not run it, the shell does (as spirv-reduce's would).
    std::fs::write(
        &script,
        "spirv-opt --eliminate-dead-functions \"$1\" -o - | spirv-dis - | grep -q ' Pow '\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    reduced(&[input.to_str().unwrap(), "--until", script.to_str().unwrap()]);
    let asm = std::fs::read_to_string(dir.join("phong.reduced.spvasm")).unwrap();
    assert!(asm.contains(" Pow "), "{asm}");
    assert_eq!(asm.matches("OpFunction ").count(), 1, "{asm}");
    assert!(!asm.contains("OpFunctionCall"), "{asm}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Struct members nothing reaches are taken out (the others renumbered) and arrays nothing
/// indexes past the first element made one long: what stays of `Light` is the member and the
/// array type the script asks for.
#[test]
fn unreached_members_go_and_arrays_shorten() {
    let dir = temp_dir("reduce-types");
    let input = common::glslang(
        &dir,
        "lights.comp",
        "#version 450\n\
         layout(local_size_x = 1) in;\n\
         struct Light { vec4 color; float power; vec4 dir; int kind; };\n\
         layout(set = 0, binding = 0) uniform Params { vec4 a; Light lights[8]; float scale; } p;\n\
         layout(set = 0, binding = 1) buffer Out { float v[]; } o;\n\
         void main() { o.v[0] = p.lights[0].power * p.scale + p.lights[0].color.x; }\n",
    );
    let script = dir.join("interesting.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nspirv-dis \"$1\" > \"$1.txt\" || exit 1\n\
         grep -q 'OpMemberName %Light [0-9]* \"power\"' \"$1.txt\" && grep -q 'OpTypeArray %Light' \"$1.txt\"\n",
    )
    .unwrap();
    let until = format!("sh {}", script.display());
    let out_path = dir.join("small.spv");
    let out = reduced(&[
        input.to_str().unwrap(),
        "--until",
        &until,
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let asm = std::fs::read_to_string(dir.join("small.spvasm")).unwrap();
    assert!(out.contains("struct members and array lengths"), "{out}");
    assert_eq!(asm.matches("OpMemberName %Light").count(), 1, "{asm}");
    let light = asm
        .lines()
        .find(|l| l.contains("%Light = OpTypeStruct"))
        .unwrap_or_else(|| panic!("{asm}"));
    assert_eq!(light.split_whitespace().count(), 4, "one member: {light}");
    let array = asm
        .lines()
        .find(|l| l.contains("OpTypeArray %Light"))
        .unwrap_or_else(|| panic!("{asm}"));
    assert!(array.ends_with("_1"), "one element long: {array}");
    common::validate(&common::spv_words(&out_path), false).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A step that crashes the driver, in the worker process: found and the input reduced to
/// what still runs before it.
#[test]
fn a_driver_crash_is_reduced_in_the_worker() {
    use shaderstep::pipeline::gpu::isolated::Isolated;
    let worker = Isolated::open(
        std::path::PathBuf::from(env!("CARGO_BIN_EXE_shaderstep")),
        true,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let words = shader("loops");
    let pipeline = with(Box::new(WildPointer));
    let test = prepare(
        &pipeline,
        Property::Crash,
        None,
        &words,
        Some(&worker),
        scratch("reduce-crash"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(test.step, Some(3), "the bisect finds wild-pointer");
    to_a_fifth(&test, &words);
}

/// `:reduce` in the TUI after `:bisect`: the first invalid step is what the input is reduced
/// for; the result is written beside the input and opened as an input of its own.
#[test]
fn the_tui_reduces_for_what_the_bisect_found_and_opens_the_result() {
    use shaderstep::app::action::Action;
    use shaderstep::app::event_loop::{App, AppEvent};
    use shaderstep::app::state::{Against, Rows};
    let dir = temp_dir("reduce-tui");
    let input = dir.join("pbr.spv");
    std::fs::write(&input, words_to_bytes(&shader("pbr"))).unwrap();
    let mut app = App::new(
        vec![input.clone()],
        with(Box::new(BreakFMul)),
        (120, 30),
        false,
    );
    // Nothing found yet: said, nothing started.
    app.handle(AppEvent::Action(Action::Reduce(None)));
    let msg = app
        .state
        .status
        .message
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default();
    assert!(msg.contains("run :bisect"), "{msg}");
    app.handle(AppEvent::Action(Action::Bisect));
    app.settle();
    app.handle(AppEvent::Action(Action::Reduce(None)));
    app.settle();
    let msg = app
        .state
        .status
        .message
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default();
    assert!(
        msg.contains("instructions") && msg.contains("reduced.spv"),
        "{msg}"
    );
    // Its progress was shown, not kept: :messages has the outcome.
    let progress: Vec<&str> = app
        .state
        .status
        .messages
        .iter()
        .map(|m| m.text.as_str())
        .filter(|t| t.ends_with("(Esc stops)"))
        .collect();
    assert!(progress.is_empty(), "{progress:?}");
    app.settle();
    assert_eq!(app.state.docs.len(), 2);
    let current = &app.state.docs[app.state.doc];
    assert!(current.abs.to_string_lossy().ends_with("pbr.reduced.spv"));
    let reduced = common::spv_words(&dir.join("pbr.reduced.spv"));
    common::validate(&reduced, false).unwrap();
    assert!(reduced.len() * 5 < shader("pbr").len());
    // The reduced shader's step against the original's same step: most lines are gone.
    app.handle(AppEvent::Action(Action::DiffInput(None)));
    let key = app.state.panel.key.clone().expect("a diff is shown");
    assert_eq!(
        key.against.0,
        Against::Input(0),
        "{:?}",
        app.state.status.message
    );
    match &app.state.panel.rows {
        Rows::Diff { added, removed, .. } => {
            assert!(*removed > 5 * *added.max(&1), "+{added} -{removed}")
        }
        Rows::Text { .. } => panic!("no diff shown"),
    }
    app.handle(AppEvent::Action(Action::DiffInput(Some("off".into()))));
    assert_eq!(app.state.diff.against, Against::Steps);
    let _ = std::fs::remove_dir_all(&dir);
}
