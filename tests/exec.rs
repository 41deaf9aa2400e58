//! The interpreter (`ir::exec`, run on steps by `pipeline::exec`): it agrees with lavapipe on
//! the project's compute shaders, names a miscompiling pass's first differing value, and the
//! `exec` command prints what it ran.

mod common;

use std::sync::Arc;

use common::{corpus, shaderstep, SwapAddSub};
use shaderstep::ir::exec::{compare_buffer, first_difference, show, FindingKind, Options};
use shaderstep::pipeline::exec::{harness_inputs, run_step};
use shaderstep::pipeline::gpu::{Device, Gpu, Layout};
use shaderstep::pipeline::semantic::{driver_words, initial_bytes, GROUPS};
use shaderstep::pipeline::Pipeline;
use spirv::Op;

#[test]
fn a_miscompiling_pass_is_named_by_its_first_differing_value() {
    let words = corpus()
        .into_iter()
        .find(|s| s.path.to_string_lossy().contains("dxbc_loop"))
        .expect("tests/shaders/glslang/dxbc_loop.comp")
        .words;
    let mut p = Pipeline::from_names(&["lower", "verify", "dce", "verify", "lift"]).unwrap();
    p.passes.insert(3, Box::new(SwapAddSub));
    let run = p.run(Arc::new(words));
    assert!(run.ok());
    let options = Options::default();
    let swapped = run
        .steps
        .iter()
        .position(|s| s.pass == "swap-add-sub")
        .expect("the step of the test pass");
    let before = run_step(&run.steps[swapped - 1].module, None, None, &options).unwrap();
    let after = run_step(&run.steps[swapped].module, None, None, &options).unwrap();
    let d = first_difference(&before.execution, &after.execution).expect("a difference");
    let op_of = |m: &shaderstep::ir::Module| {
        m.functions()
            .iter()
            .find_map(|f| f.def_of(d.id))
            .map(|i| i.op())
    };
    assert_eq!(op_of(&before.module), Some(Op::IAdd), "{d:?}");
    assert_eq!(op_of(&after.module), Some(Op::ISub), "{d:?}");
    assert_ne!(show(&d.value), show(&d.against));
    assert!(first_difference(&before.execution, &before.execution).is_none());
}

/// Every compute shader of the project's corpus that the interpreter runs gives, on the
/// harness's inputs, the bytes lavapipe gives, word for word.
#[test]
fn the_interpreter_agrees_with_lavapipe() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let (mut agree, mut refused, mut differ) = (Vec::new(), Vec::new(), Vec::new());
    for s in corpus() {
        let name = s.name();
        let run = Pipeline::from_names(&["lower", "lift"])
            .unwrap()
            .run(Arc::new(s.words));
        let Some(step) = run.final_module() else {
            continue;
        };
        let Ok(words) = driver_words(step) else {
            continue;
        };
        let Ok(layout) = Layout::of_entry(&words, None) else {
            continue;
        };
        let ran = match run_step(step, None, None, &Options::default()) {
            Ok(r) => r,
            Err(why) => {
                refused.push(format!("{name}: {why}"));
                continue;
            }
        };
        // A loop over a buffer's word (a count near 2^30) runs past any budget.
        if ran
            .execution
            .findings
            .iter()
            .any(|f| f.kind == FindingKind::Budget)
        {
            refused.push(format!("{name}: out of budget"));
            continue;
        }
        let inputs = harness_inputs(&words, None, None).unwrap();
        let buffers: Vec<Vec<u8>> = layout
            .slots()
            .iter()
            .map(|(b, e)| initial_bytes(b, *e, None))
            .collect();
        let driver = gpu
            .run_buffers(
                &words,
                &layout,
                GROUPS,
                &buffers,
                std::time::Duration::from_secs(20),
            )
            .unwrap_or_else(|e| panic!("{name}: the driver does not run it: {e:?}"));
        let mut first = None;
        for (b, contents) in ran.execution.buffers.iter().zip(&ran.execution.contents) {
            let k = layout
                .slots()
                .iter()
                .position(|(s, _)| s.set == b.set && s.binding == b.binding)
                .unwrap();
            assert_eq!(inputs.buffers.len(), ran.execution.buffers.len());
            if let Some(what) = compare_buffer(&ran.module, b.set, b.binding, contents, &driver[k])
            {
                first.get_or_insert(format!("set {} binding {}{what}", b.set, b.binding));
            }
        }
        match first {
            None => agree.push(name),
            Some(what) => differ.push(format!("{name}: {what}")),
        }
    }
    eprintln!(
        "agree: {}\nrefused ({}):\n  {}\ndiffer ({}):\n  {}",
        agree.join(", "),
        refused.len(),
        refused.join("\n  "),
        differ.len(),
        differ.join("\n  ")
    );
    assert!(differ.is_empty(), "the interpreter and lavapipe disagree");
    assert!(agree.len() >= 8, "only {} shaders run", agree.len());
}

#[test]
fn the_exec_command_prints_outputs_values_and_findings() {
    let dir = common::temp_dir("exec");
    let path = dir.join("div.comp");
    std::fs::write(
        &path,
        "#version 450\nlayout(local_size_x = 4) in;\nlayout(std430, binding = 0) buffer B { uint data[]; };\n\
         void main() {\n  uint i = gl_GlobalInvocationID.x;\n  data[i] = 100u / (i & 1u);\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = shaderstep(&["exec", p, "--invocation", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("2 workgroups of 4x1x1"), "{text}");
    assert!(text.contains("invocation 1,0,0:"), "{text}");
    assert!(text.contains("= 100"), "invocation 1 divides by 1:\n{text}");
    assert!(
        text.contains("undefined result"),
        "invocations 0, 2… divide by 0:\n{text}"
    );
    let out = shaderstep(&["exec", p, "--step", "last", "--against-step", "0", "--json"]);
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(json.contains("\"first_difference\":null"), "{json}");
    assert!(json.contains("\"undefined_behaviour\":[{"), "{json}");
    let out = shaderstep(&["exec", p, "--invocation", "9,0,0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no invocation 9,0,0"));
}
