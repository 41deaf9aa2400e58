//! Shaders run on the driver in a worker process (`gpu::isolated`): a driver that crashes or
//! hangs is a result — for the device, the semantic bisect and `run --bisect-run` — and never
//! the end of shaderstep; the next run gets a new worker.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use shaderstep::app::action::Action;
use shaderstep::app::event_loop::{App, AppEvent};
use shaderstep::ir::spirv::asm;
use shaderstep::pipeline::gpu::isolated::Isolated;
use shaderstep::pipeline::gpu::{Device, DeviceError, Layout};
use shaderstep::pipeline::Pipeline;

fn worker() -> Isolated {
    Isolated::open(PathBuf::from(env!("CARGO_BIN_EXE_shaderstep")), true)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A compute shader that spins until its buffer holds a value nothing writes: two nested loops
/// (llvmpipe gives up a loop after 65 535 iterations), an atomic in each so that no compiler
/// may drop them.
const SPIN: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%Buf = OpTypeStruct %uint
%pBuf = OpTypePointer StorageBuffer %Buf
%buf = OpVariable %pBuf StorageBuffer
%p_uint = OpTypePointer StorageBuffer %uint
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%magic = OpConstant %uint 305419896
%main = OpFunction %void None %fn
%e = OpLabel
%p = OpAccessChain %p_uint %buf %u0
OpBranch %h
%h = OpLabel
OpLoopMerge %m %c None
OpBranch %ih
%ih = OpLabel
OpLoopMerge %im %ic None
OpBranch %ibody
%ibody = OpLabel
%x = OpAtomicIAdd %uint %p %u1 %u0 %u0
%idone = OpIEqual %bool %x %magic
OpBranchConditional %idone %im %ic
%ic = OpLabel
OpBranch %ih
%im = OpLabel
OpBranch %c
%c = OpLabel
%y = OpAtomicIAdd %uint %p %u1 %u0 %u0
%done = OpIEqual %bool %y %magic
OpBranchConditional %done %m %h
%m = OpLabel
OpStore %p %u0
OpReturn
OpFunctionEnd
"#;

#[test]
fn a_hang_is_killed_at_the_limit_and_the_next_run_gets_a_new_worker() {
    let words = asm::assemble(SPIN).unwrap();
    let layout = Layout::of(&words).unwrap();
    let d = worker();
    let buffers = vec![vec![1u8; 16]];
    let started = Instant::now();
    // Thousands of workgroups of it: minutes of work.
    let r = d.run_buffers(
        &words,
        &layout,
        [4096, 1, 1],
        &buffers,
        Duration::from_secs(2),
    );
    assert!(
        matches!(r, Err(DeviceError::Hung(_))),
        "{:?}",
        r.map(|b| b.len())
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    // The hung worker is gone; the next run starts another and gets its result.
    let r = d.run_buffers(
        &words,
        &layout,
        [1, 1, 1],
        &buffers,
        Duration::from_secs(20),
    );
    assert!(r.is_ok(), "{:?}", r.map(|b| b.len()));
}

use common::{WildPointer, WILD_POINTER};

#[test]
fn a_driver_crash_is_a_result_and_the_next_run_gets_a_new_worker() {
    let words = asm::assemble(WILD_POINTER).unwrap();
    let layout = Layout::of(&words).unwrap();
    let d = worker();
    let wild = vec![vec![0x5a; 64]];
    let r = d.run_buffers(&words, &layout, [1, 1, 1], &wild, Duration::from_secs(20));
    match r {
        Err(DeviceError::Crashed(how)) => assert!(how.contains("SIG"), "{how}"),
        other => panic!("{:?}", other.map(|b| b.len())),
    }
    runs_spin(&d, Duration::from_secs(20));
}

/// `SPIN` on a buffer that ends its loops at once runs on `d` within `limit`.
fn runs_spin(d: &Isolated, limit: Duration) {
    let spin = asm::assemble(SPIN).unwrap();
    let r = d.run_buffers(
        &spin,
        &Layout::of(&spin).unwrap(),
        [1, 1, 1],
        &[vec![1; 16]],
        limit,
    );
    assert!(r.is_ok(), "{:?}", r.map(|b| b.len()));
}

/// `run --bisect-run` on a shader the driver crashes on says so and goes on with the next
/// input: shaderstep itself ends normally, with status 1.
#[test]
fn run_reports_a_driver_crash_and_carries_on() {
    let dir = common::temp_dir("isolation");
    let crash = dir.join("crash.spv");
    let words = asm::assemble(WILD_POINTER).unwrap();
    std::fs::write(
        &crash,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let spin = dir.join("spin.spvasm");
    std::fs::write(&spin, SPIN).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .args(["run", crash.to_str().unwrap(), spin.to_str().unwrap()])
        .args(["--preset", "O", "--bisect-run"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("the driver crashed (SIG"),
        "{stdout}\n{stderr}"
    );
    // The other input was bisected after the crash.
    assert!(
        stdout.contains("spin.spvasm: every step computes what the input does"),
        "{stdout}"
    );
}

#[test]
fn the_tui_names_the_step_that_crashes_the_driver_and_keeps_running() {
    // The input stores the address's low word instead of reading through it.
    let safe = WILD_POINTER.replace(
        "%v = OpLoad %uint %ptr Aligned 4",
        "%v = OpConvertPtrToU %uint %ptr",
    );
    let dir = common::temp_dir("isolation-tui");
    let path = dir.join("safe.spvasm");
    std::fs::write(&path, &safe).unwrap();
    let mut pipeline = Pipeline::from_names(&["lower", "verify", "lift"]).unwrap();
    pipeline.passes.insert(2, Box::new(WildPointer));
    let mut app = App::new(vec![path], pipeline, (120, 30), false);
    app.handle(AppEvent::Action(Action::BisectRun(
        None,
        Default::default(),
    )));
    app.settle();
    let msg = app
        .state
        .status
        .message
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default();
    assert!(
        msg.contains("first step that crashes the driver") && msg.contains("wild-pointer"),
        "{msg}"
    );
    assert!(msg.contains("SIG"), "{msg}");
    let step = app.state.step;
    assert!(app.state.step_has_errors(step), "the step is marked");
    // Still running: it takes the next action.
    app.handle(AppEvent::Action(Action::BisectRun(
        None,
        Default::default(),
    )));
    app.settle();
    assert!(app.state.status.message.is_some());
}

/// Writes an executable shell script `name` into `dir`.
fn script(dir: &std::path::Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A worker whose driver, loader and layers print to standard output and error (a stand-in
/// that prints before the worker starts, and the Vulkan loader's own debug output): nothing
/// printed is taken for an answer, and a bisect over it runs to its end.
#[test]
fn what_the_driver_prints_is_never_an_answer() {
    let dir = common::temp_dir("isolation-noise");
    let noisy = script(
        &dir,
        "noisy-worker",
        &format!(
            "echo 'a driver stand-in prints this on stdout'\n\
             echo 'and this on stderr' >&2\n\
             printf '\\377\\377\\377\\377 binary noise'\n\
             VK_LOADER_DEBUG=all exec '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_shaderstep")
        ),
    );
    let d = Isolated::open(noisy.clone(), true).unwrap_or_else(|e| panic!("{e}"));
    runs_spin(&d, Duration::from_secs(60));

    let shader = dir.join("spin.spvasm");
    std::fs::write(&shader, SPIN).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .args([
            "run",
            shader.to_str().unwrap(),
            "--preset",
            "O",
            "--bisect-run",
        ])
        .env("SHADERSTEP_GPU_WORKER", &noisy)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("every step computes what the input does"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A worker that writes bytes that are no frame on the answer pipe is stopped at once, not
/// waited for, and the report says what it printed last.
#[test]
fn a_broken_protocol_stops_the_worker_at_once() {
    let dir = common::temp_dir("isolation-garbage");
    let garbage = script(
        &dir,
        "garbage-worker",
        "echo 'about to misbehave' >&2\nprintf 'GARBAGE GARBAGE' >&4\nexec sleep 60\n",
    );
    let started = Instant::now();
    let e = Isolated::open(garbage, true)
        .err()
        .expect("a worker that answers garbage opens no device");
    assert!(
        e.contains("the GPU worker broke the protocol")
            && e.contains("it printed last: about to misbehave"),
        "{e}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
