//! `--verify-each` and `--validate-each`: passes written here to corrupt the module are caught,
//! by name, at the step they run.

mod common;

use std::sync::Arc;

use rspirv::dr::Operand;
use shaderstep::ir::spirv::{asm, read};
use shaderstep::ir::Module;
use shaderstep::pipeline::registry;
use shaderstep::pipeline::{Changed, Checks, Pass, PassCx, PassError, Pipeline};

const SHADER: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %out
OpExecutionMode %main OriginUpperLeft
OpDecorate %out Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%ptr = OpTypePointer Output %float
%out = OpVariable %ptr Output
%f2 = OpConstant %float 2
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpFMul %float %f2 %f2
OpStore %out %x
OpReturn
OpFunctionEnd
"#;

/// Makes the first store store an id that is defined nowhere.
struct CorruptIds;
impl Pass for CorruptIds {
    fn name(&self) -> &'static str {
        "corrupt-ids"
    }
    fn description(&self) -> &'static str {
        "test pass: breaks an IR invariant"
    }
    fn run(&self, m: &mut Module, _: &mut PassCx) -> Result<Changed, PassError> {
        let bound = m.bound;
        let f = shaderstep::ir::rewrite::function_at_mut(m, 0);
        let store = f.block(0).insts.clone();
        let store = store
            .into_iter()
            .find(|&i| f.inst(i).op() == spirv::Op::Store)
            .unwrap();
        f.set_arg(store, 1, bound - 1 + 1000);
        m.bound += 1001;
        Ok(Changed::Yes)
    }
}

/// Drops the fragment entry point's `OriginUpperLeft`: the IR is still well-formed (the
/// verifier has no rule about execution modes), the SPIR-V is not.
struct DropOrigin;
impl Pass for DropOrigin {
    fn name(&self) -> &'static str {
        "drop-origin"
    }
    fn description(&self) -> &'static str {
        "test pass: emits invalid SPIR-V"
    }
    fn run(&self, m: &mut Module, _: &mut PassCx) -> Result<Changed, PassError> {
        shaderstep::ir::rewrite::retain_execution_modes(m, |_| false);
        Ok(Changed::Yes)
    }
}

fn pipeline(middle: Box<dyn Pass>, checks: Checks) -> Pipeline {
    let passes = vec![
        registry::pass("lower").unwrap(),
        registry::pass("dce").unwrap(),
        middle,
        registry::pass("strip-debug").unwrap(),
        registry::pass("lift").unwrap(),
    ];
    Pipeline {
        passes,
        checks,
        experimental: false,
        keep_exports: false,
        snapshots: true,
        external: None,
        dumps: None,
    }
}

fn input() -> Arc<Vec<u32>> {
    Arc::new(asm::assemble(SHADER).unwrap())
}

#[test]
fn verify_each_names_the_pass_that_broke_the_ir() {
    let run = pipeline(
        Box::new(CorruptIds),
        Checks {
            verify_each: true,
            validate_each: false,
        },
    )
    .run(input());
    assert_eq!(run.failed, Some(2));
    let step = &run.steps[2];
    assert_eq!(
        step.error.as_deref(),
        Some("pass 'corrupt-ids' broke the IR: 1 verifier error")
    );
    assert!(
        step.diagnostics
            .iter()
            .any(|d| d.message.contains("which is never defined")),
        "{:?}",
        step.diagnostics
    );
    // Without the check the broken module flows on to the end.
    let unchecked = pipeline(Box::new(CorruptIds), Checks::default()).run(input());
    assert!(unchecked.ok());
}

#[test]
fn validate_each_names_the_first_pass_whose_output_is_invalid() {
    common::tool("spirv-val");
    let checks = Checks {
        verify_each: true,
        validate_each: true,
    };
    let run = pipeline(Box::new(DropOrigin), checks).run(input());
    assert_eq!(
        run.failed,
        Some(2),
        "{:?}",
        run.steps.last().unwrap().diagnostics
    );
    let error = run.steps[2].error.clone().unwrap();
    assert!(
        error.starts_with("the output of pass 'drop-origin' does not validate (vulkan1.1): error: line 3: Fragment execution model entry points require either an OriginUpperLeft or OriginLowerLeft execution mode."),
        "{error}"
    );
    assert!(run.steps[2]
        .diagnostics
        .iter()
        .any(|d| d.message.starts_with("spirv-val: error")));
    // Every earlier step validated.
    assert!(run.steps[..2].iter().all(|s| s.error.is_none()));
}

#[test]
fn valid_pipelines_pass_both_checks() {
    common::tool("spirv-val");
    let checks = Checks {
        verify_each: true,
        validate_each: true,
    };
    let run = Pipeline::preset("size")
        .unwrap()
        .with_checks(checks)
        .run(input());
    assert!(run.ok(), "{:?}", run.steps.last().unwrap().diagnostics);
    let out = run.output_words().unwrap();
    assert!(read::read_words(&out).is_ok());
}

#[test]
fn validate_each_without_spirv_val_says_how_to_install_it() {
    let dir = common::temp_dir("noval");
    let path = dir.join("s.spvasm");
    std::fs::write(&path, SHADER).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .args([
            "run",
            path.to_str().unwrap(),
            "--validate-each",
            "--emit",
            "ir",
        ])
        .env("PATH", &dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "spirv-val is not installed: install it with `apt-get install -y spirv-tools`"
        ),
        "{err}"
    );
    assert!(err.contains("pass 'lower' failed"), "{err}");
}

/// Edits the first OpStore's operands with `f`.
struct MangleStore(&'static str, fn(&mut Vec<Operand>));
impl Pass for MangleStore {
    fn name(&self) -> &'static str {
        self.0
    }
    fn description(&self) -> &'static str {
        "test pass: malformed operands"
    }
    fn run(&self, m: &mut Module, _: &mut PassCx) -> Result<Changed, PassError> {
        let f = shaderstep::ir::rewrite::function_at_mut(m, 0);
        let store = f.block(0).insts.clone();
        let store = store
            .into_iter()
            .find(|&i| f.inst(i).op() == spirv::Op::Store)
            .unwrap();
        let mut ops = f.inst(store).to_operands();
        (self.1)(&mut ops);
        let (op, ty) = (f.inst(store).op(), f.inst(store).ty());
        shaderstep::ir::rewrite::rewrite_inst(f, store, op, ty, ops);
        Ok(Changed::Yes)
    }
}

#[test]
fn verify_checks_operand_count_and_kinds_against_the_grammar() {
    let checks = Checks {
        verify_each: true,
        validate_each: false,
    };
    let cases: [(MangleStore, &str); 2] = [
        (
            MangleStore("drop-operand", |ops| drop(ops.pop())),
            "OpStore is missing operand 2 (IdRef)",
        ),
        (
            MangleStore("literal-pointer", |ops| ops[0] = Operand::LiteralBit32(7)),
            "OpStore operand 1 should be IdRef, not LiteralBit32",
        ),
    ];
    for (pass, message) in cases {
        let name = pass.0;
        let run = pipeline(Box::new(pass), checks).run(input());
        assert_eq!(run.failed, Some(2), "{name}");
        assert_eq!(
            run.steps[2].error.as_deref(),
            Some(format!("pass '{name}' broke the IR: 1 verifier error").as_str())
        );
        assert!(
            run.steps[2]
                .diagnostics
                .iter()
                .any(|d| d.message == message),
            "{name}: {:?}",
            run.steps[2].diagnostics
        );
    }
}

/// A run whose last verified step is followed by a pass that broke the module writes
/// nothing: `check_output` runs the verifier when no step has seen the final module.
#[test]
fn no_output_is_written_unverified() {
    let unchecked = pipeline(Box::new(CorruptIds), Checks::default()).run(input());
    assert!(unchecked.ok());
    let error = unchecked
        .check_output(Checks::default(), false)
        .expect_err("the final module is broken");
    assert!(
        error.starts_with(
            "the result after 'lift' does not pass the verifier, so nothing is written (1 error)"
        ),
        "{error}"
    );
    let clean = pipeline(Box::new(DropOrigin), Checks::default()).run(input());
    assert_eq!(clean.check_output(Checks::default(), false), Ok(()));
}

/// A run continued from a broken module (as pipeline linking continues each stage after its
/// link steps) keeps the failure of the `lower` that took it over, so the run has failed.
#[test]
fn a_continued_run_keeps_a_failure_at_its_first_step() {
    let checks = Checks {
        verify_each: true,
        validate_each: false,
    };
    let mut first = pipeline(Box::new(CorruptIds), Checks::default()).run(input());
    let broken = (**first.final_module().unwrap()).clone();
    let rest = Pipeline::from_names(&["lower", "dce", "lift"])
        .unwrap()
        .with_checks(checks)
        .run_decoded(input(), Some((broken, std::time::Duration::ZERO)));
    assert_eq!(rest.failed, Some(0));
    let before = first.steps.len();
    first.append(rest);
    assert_eq!(first.failed, Some(before));
    assert_eq!(first.steps[before].pass, "lower");
    assert!(!first.ok());
}
