//! A value's history across the steps of `O`: a load promoted by mem2reg, a value replaced by
//! gvn, a value deleted by adce, ids renumbered by compact-ids; and across spirv-opt's own
//! steps, which record nothing: a value keeps its id, and one that is gone is followed by its
//! place or said to be lost.

mod common;

use std::sync::Arc;

use shaderstep::ir::spirv::write;
use shaderstep::ir::{parse, Id, Module};
use shaderstep::pipeline::external::ExternalTool;
use shaderstep::pipeline::history::{history, Event, EventKind};
use shaderstep::pipeline::{Pipeline, Run};

const SHADER: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %main "main"
OpName %x "x"
OpName %l "l"
OpName %a "a"
OpName %b "b"
OpName %dead "dead"
OpDecorate %buf Block
OpMemberDecorate %buf 0 Offset 0
OpMemberDecorate %buf 1 Offset 4
OpDecorate %data DescriptorSet 0
OpDecorate %data Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%buf = OpTypeStruct %float %float
%ptr_buf = OpTypePointer StorageBuffer %buf
%ptr_sb_float = OpTypePointer StorageBuffer %float
%ptr_fn_float = OpTypePointer Function %float
%data = OpVariable %ptr_buf StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr_fn_float Function
%p0 = OpAccessChain %ptr_sb_float %data %uint_0
%x = OpLoad %float %p0
OpStore %v %x
%l = OpLoad %float %v
%a = OpFAdd %float %l %l
%b = OpFAdd %float %l %l
%dead = OpFMul %float %a %a
%s = OpFAdd %float %a %b
%p1 = OpAccessChain %ptr_sb_float %data %uint_1
OpStore %p1 %s
OpReturn
OpFunctionEnd
"#;

fn module() -> Module {
    parse::parse(SHADER).unwrap_or_else(|e| panic!("{e}"))
}

fn id(m: &Module, name: &str) -> Id {
    (1..m.bound)
        .find(|&i| m.debug_name(i) == Some(name))
        .unwrap_or_else(|| panic!("no value named {name}"))
}

fn run(preset: &str) -> Run {
    let m = module();
    let run = Pipeline::from_flags(None, preset)
        .unwrap()
        .with_snapshots(true)
        .run(Arc::new(write::write_words(&m)));
    assert!(run.ok(), "{preset} failed");
    run
}

/// The events of `events`, as (pass, kind), for messages.
fn show(run: &Run, events: &[Event]) -> String {
    events
        .iter()
        .map(|e| format!("{} {}: {:?}", e.step, run.steps[e.step].pass, e.kind))
        .collect::<Vec<_>>()
        .join("\n")
}

fn at<'a>(run: &Run, events: &'a [Event], pass: &str) -> Vec<&'a EventKind> {
    events
        .iter()
        .filter(|e| run.steps[e.step].pass == pass)
        .map(|e| &e.kind)
        .collect()
}

#[test]
fn a_load_promoted_by_mem2reg_is_replaced_by_the_stored_value() {
    let m = module();
    let run = run("O");
    let events = history(&run, id(&m, "l"));
    let x = id(&m, "x");
    assert_eq!(
        events.first().map(|e| &e.kind),
        Some(&EventKind::Created),
        "{}",
        show(&run, &events)
    );
    assert!(
        at(&run, &events, "mem2reg").contains(&&EventKind::Replaced { by: x }),
        "{}",
        show(&run, &events)
    );
}

#[test]
fn a_value_gvn_finds_again_is_replaced_by_the_first() {
    let m = module();
    let run = run("O");
    let (a, b) = (id(&m, "a"), id(&m, "b"));
    let of_b = history(&run, b);
    assert!(
        at(&run, &of_b, "gvn").contains(&&EventKind::Replaced { by: a }),
        "{}",
        show(&run, &of_b)
    );
    // And the value that stays says what it took the place of.
    let of_a = history(&run, a);
    assert!(
        at(&run, &of_a, "gvn").contains(&&EventKind::Replaces { old: b }),
        "{}",
        show(&run, &of_a)
    );
}

#[test]
fn an_unused_value_is_deleted_by_adce_and_stays_deleted() {
    // O-size renumbers every id at the end: the deleted value's id then names another value,
    // which is not the deleted one coming back.
    let m = module();
    for preset in ["O", "O-size"] {
        let run = run(preset);
        let events = history(&run, id(&m, "dead"));
        assert_eq!(
            events.last().map(|e| (run.steps[e.step].pass, &e.kind)),
            Some(("adce", &EventKind::Deleted)),
            "{preset}: {}",
            show(&run, &events)
        );
    }
}

#[test]
fn compact_ids_renumbering_is_followed() {
    let m = module();
    let run = run("O-size");
    let a = id(&m, "a");
    let events = history(&run, a);
    let renumbered: Vec<&Event> = events
        .iter()
        .filter(|e| run.steps[e.step].pass == "compact-ids")
        .collect();
    let [e] = renumbered.as_slice() else {
        panic!("one renumbering expected:\n{}", show(&run, &events));
    };
    let EventKind::Replaced { by } = e.kind else {
        panic!("{}", show(&run, &events));
    };
    // The value it follows is the sum's operand in the final module.
    let last = run.final_module().unwrap();
    let f = &last.functions()[0];
    assert!(f.def_of(by).is_some(), "%{by} is not defined at the end");
    assert!(
        !events
            .iter()
            .any(|e| e.step > renumbered[0].step && e.kind == EventKind::Deleted),
        "{}",
        show(&run, &events)
    );
}

/// `spirv-opt -O`'s own passes as steps, on the shader above.
fn external_run() -> Run {
    common::tool("spirv-opt");
    let tool = ExternalTool::parse("spirv-opt -O", None).unwrap();
    let run = Pipeline::external(tool).run(Arc::new(write::write_words(&module())));
    assert!(run.ok(), "spirv-opt -O failed");
    assert!(run.steps.len() > 5, "spirv-opt -O runs many passes");
    run
}

#[test]
fn a_value_keeps_its_id_across_an_external_tool_s_steps() {
    // spirv-opt prints names (%a), which the run numbers the same at every step: numbering
    // them in order of appearance would give %a another id once %l's name is gone.
    let run = external_run();
    for k in 1..run.steps.len() {
        let (before, after) = (&run.steps[k - 1].module, &run.steps[k].module);
        for i in 1..before.bound.min(after.bound) {
            if let (Some(a), Some(b)) = (before.debug_name(i), after.debug_name(i)) {
                assert_eq!(a, b, "%{i} at step {k} ({})", run.steps[k].pass);
            }
        }
    }
    // So the history of %a follows %a: it changes (its operand %l becomes %x) but is never
    // lost, and it is %a at every step.
    let a = id(&run.steps[0].module, "a");
    let events = history(&run, a);
    assert!(
        events
            .iter()
            .all(|e| !matches!(e.kind, EventKind::Lost | EventKind::Deleted)),
        "{}",
        show(&run, &events)
    );
    assert!(
        events.iter().any(|e| e.kind == EventKind::Changed),
        "{}",
        show(&run, &events)
    );
    for e in &events {
        assert_eq!(
            run.steps[e.step].module.debug_name(e.value),
            Some("a"),
            "{}",
            show(&run, &events)
        );
    }
}

/// A run of two steps: `before`, then `after` as an external tool's pass printed it.
fn external_steps(before: &str, after: &str) -> Run {
    let module = |text: &str| {
        let words = shaderstep::ir::spirv::asm::assemble(text).unwrap_or_else(|e| panic!("{e:?}"));
        Arc::new(shaderstep::ir::spirv::read::read_words(&words).unwrap())
    };
    let mut run = Run::default();
    run.push_step(
        "input",
        module(before),
        true,
        Default::default(),
        Vec::new(),
    );
    run.push_outside_step(
        "spirv-opt:fold",
        module(after),
        true,
        Default::default(),
        Vec::new(),
    );
    run
}

/// A compute shader's header and the start of its `main` (%1, its entry block %6): uint %4,
/// the constant 1 as %5.
const MAIN: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %1 \"main\"
OpExecutionMode %1 LocalSize 1 1 1
%2 = OpTypeVoid
%3 = OpTypeFunction %2
%4 = OpTypeInt 32 0
%5 = OpConstant %4 1
%1 = OpFunction %2 None %3
%6 = OpLabel
";

#[test]
fn a_value_gone_at_an_external_step_is_followed_by_its_place_or_lost() {
    let before = format!(
        "{MAIN}%7 = OpIAdd %4 %5 %5\n%8 = OpIMul %4 %7 %5\n%9 = OpIMul %4 %8 %8\nOpReturn\nOpFunctionEnd\n"
    );
    let before = before.as_str();
    // The tool rewrote the second multiplication as a new value where it stood.
    let rewritten = before.replace("%9 = OpIMul %4 %8 %8", "%10 = OpIMul %4 %8 %5");
    let run = external_steps(before, &rewritten);
    let events = history(&run, 9);
    assert_eq!(
        events.last().map(|e| &e.kind),
        Some(&EventKind::Placed { by: 10 }),
        "{}",
        show(&run, &events)
    );
    // Where nothing new stands, it is lost (and a value that was there already is not it).
    let gone = before.replace("%9 = OpIMul %4 %8 %8\n", "");
    let run = external_steps(before, &gone);
    let events = history(&run, 9);
    assert_eq!(
        events.last().map(|e| &e.kind),
        Some(&EventKind::Lost),
        "{}",
        show(&run, &events)
    );
}

/// A tool that renumbers every id (as `spirv-opt --compact-ids` or a compiler that writes
/// each pass's module afresh): a value is followed to its new id, even where its old id names
/// another value now, and a change after is said of the new id.
#[test]
fn a_value_renumbered_at_an_external_step_is_followed_by_alignment() {
    let before = format!(
        "{MAIN}%7 = OpIAdd %4 %5 %5\n%8 = OpIMul %4 %7 %5\n%9 = OpISub %4 %8 %7\nOpReturn\nOpFunctionEnd\n"
    );
    // The function's ids renumbered: %7 is now %17, and the old %8 and %9 are %7 and %8.
    let renumbered = before
        .replace("%7 = OpIAdd %4 %5 %5", "%17 = OpIAdd %4 %5 %5")
        .replace("%8 = OpIMul %4 %7 %5", "%7 = OpIMul %4 %17 %5")
        .replace("%9 = OpISub %4 %8 %7", "%8 = OpISub %4 %7 %17")
        .replace("%1 = OpFunction", "%11 = OpFunction")
        .replace("%6 = OpLabel", "%16 = OpLabel")
        .replace("GLCompute %1 ", "GLCompute %11 ")
        .replace("OpExecutionMode %1 ", "OpExecutionMode %11 ");
    let run = external_steps(&before, &renumbered);
    for (old, new) in [(7, 17), (8, 7), (9, 8)] {
        let events = history(&run, old);
        assert_eq!(
            events.last().map(|e| (e.step, &e.kind)),
            Some((1, &EventKind::Renumbered { by: new })),
            "%{old}: {}",
            show(&run, &events)
        );
    }
    let renamed = shaderstep::pipeline::history::renamed(&run, 1);
    assert_eq!(renamed.get(&8), Some(&7));
}

#[test]
fn a_value_of_a_function_an_external_step_deleted_is_deleted() {
    let with_helper = format!(
        "{MAIN}OpReturn\nOpFunctionEnd\n%20 = OpFunction %2 None %3\n%21 = OpLabel\n%22 = OpIAdd %4 %5 %5\nOpReturn\nOpFunctionEnd\n"
    );
    let with_helper = with_helper.as_str();
    let without = with_helper
        .split("%20 = OpFunction")
        .next()
        .unwrap()
        .to_string();
    let run = external_steps(with_helper, &without);
    for value in [22, 20] {
        let events = history(&run, value);
        assert_eq!(
            events.last().map(|e| (e.step, &e.kind)),
            Some((1, &EventKind::Deleted)),
            "%{value}: {}",
            show(&run, &events)
        );
    }
}

#[test]
fn a_value_gone_at_an_external_step_is_followed_by_what_its_users_use_instead() {
    let before = format!(
        "{MAIN}%7 = OpIAdd %4 %5 %5\n%8 = OpIMul %4 %7 %5\n%9 = OpIMul %4 %7 %8\nOpReturn\nOpFunctionEnd\n"
    );
    // The tool folded %7 away: both its users use the constant where they used it.
    let folded = before
        .replace("%7 = OpIAdd %4 %5 %5\n", "")
        .replace("%8 = OpIMul %4 %7 %5", "%8 = OpIMul %4 %5 %5")
        .replace("%9 = OpIMul %4 %7 %8", "%9 = OpIMul %4 %5 %8");
    let run = external_steps(&before, &folded);
    let events = history(&run, 7);
    assert_eq!(
        events.last().map(|e| &e.kind),
        Some(&EventKind::Inferred { by: 5 }),
        "{}",
        show(&run, &events)
    );
    // Users that disagree, or whose other operands moved, are no evidence.
    let disagree = folded.replace("%9 = OpIMul %4 %5 %8", "%9 = OpIMul %4 %8 %8");
    let run = external_steps(&before, &disagree);
    let events = history(&run, 7);
    assert!(
        !matches!(
            events.last().map(|e| &e.kind),
            Some(EventKind::Inferred { .. })
        ),
        "{}",
        show(&run, &events)
    );
}

/// A step shares with the step before the functions its pass left as they were: dce removes
/// dead code from `main` only, so the step after it holds `helper` as the step before did (one
/// copy), and `main` anew. Memory for the steps of a large module is then what passes change.
#[test]
fn steps_share_the_functions_a_pass_did_not_change() {
    let text = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %main "main"
               OpName %helper "helper"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %uint1 = OpConstant %uint 1
     %helper = OpFunction %void None %fn
         %h0 = OpLabel
               OpReturn
               OpFunctionEnd
       %main = OpFunction %void None %fn
         %m0 = OpLabel
       %dead = OpIAdd %uint %uint1 %uint1
       %call = OpFunctionCall %void %helper
               OpReturn
               OpFunctionEnd
"#;
    let words = shaderstep::ir::spirv::asm::assemble(text).unwrap();
    let run = Pipeline::from_names(&["dce"])
        .unwrap()
        .with_snapshots(true)
        .run(Arc::new(words));
    assert!(run.ok());
    let at = |step: usize, name: &str| {
        let m = &run.steps[step].module;
        let f = m
            .functions()
            .iter()
            .find(|f| m.debug_name(f.id()) == Some(name))
            .unwrap_or_else(|| panic!("no {name} in step {step}"));
        Arc::clone(f)
    };
    let dce = run.steps.iter().position(|s| s.pass == "dce").unwrap();
    assert!(run.steps[dce].changed, "dce removed nothing");
    assert!(Arc::ptr_eq(&at(dce - 1, "helper"), &at(dce, "helper")));
    assert!(!Arc::ptr_eq(&at(dce - 1, "main"), &at(dce, "main")));
    assert!(at(dce, "main").inst_count() < at(dce - 1, "main").inst_count());
}
