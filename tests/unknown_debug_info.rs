//! Debug info the core does not understand (another `NonSemantic.*` set, a record with fewer
//! operands than its grammar needs) is kept as it was through every preset, and the run says
//! so in one warning.

mod common;

use std::sync::Arc;

use shaderstep::ir::spirv::asm;
use shaderstep::pipeline::pass::Severity;
use shaderstep::pipeline::{registry, Pipeline};

/// A compute shader with instructions of an unknown `NonSemantic.*` set at module level, in
/// `main` and in a function `main` calls; `MALFORMED` marks where the malformed declare goes.
const SHADER: &str = r#"
OpCapability Shader
OpExtension "SPV_KHR_non_semantic_info"
%dbg = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
%foo = OpExtInstImport "NonSemantic.Acme.Probe.3"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "a.comp"
%src = OpString "void main() {}"
%vname = OpString "x"
OpDecorate %buf Block
OpMemberDecorate %buf 0 Offset 0
OpDecorate %data DescriptorSet 0
OpDecorate %data Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%fn_u = OpTypeFunction %uint %uint
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_2 = OpConstant %uint 2
%uint_3 = OpConstant %uint 3
%uint_4 = OpConstant %uint 4
%uint_32 = OpConstant %uint 32
%buf = OpTypeStruct %uint
%ptr_buf = OpTypePointer StorageBuffer %buf
%ptr_u = OpTypePointer StorageBuffer %uint
%ptr_f = OpTypePointer Function %uint
%data = OpVariable %ptr_buf StorageBuffer
%s = OpExtInst %void %dbg DebugSource %file %src
%cu = OpExtInst %void %dbg DebugCompilationUnit %uint_1 %uint_4 %s %uint_2
%tb = OpExtInst %void %dbg DebugTypeBasic %vname %uint_32 %uint_3 %uint_0
%probe_global = OpExtInst %void %foo 7 %uint %s
%twice = OpFunction %uint None %fn_u
%a = OpFunctionParameter %uint
%twice_entry = OpLabel
%probe_callee = OpExtInst %void %foo 2 %a
%d = OpIAdd %uint %a %a
OpReturnValue %d
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpVariable %ptr_f Function
MALFORMED
%p = OpAccessChain %ptr_u %data %uint_0
%v = OpLoad %uint %p
OpStore %x %v
%probe = OpExtInst %void %foo 1 %v %probe_global
%w = OpLoad %uint %x
%y = OpFunctionCall %uint %twice %w
OpStore %p %y
OpReturn
OpFunctionEnd
"#;

/// `(instructions of the unknown set in functions, at module level, malformed declares)` in
/// `words`.
fn records(words: &[u32]) -> (usize, usize, usize) {
    let m = shaderstep::ir::spirv::read::read_words(words).unwrap();
    let import = |name: &str| {
        m.preamble().iter().find_map(|i| {
            matches!(i.lits().first(), Some(rspirv::dr::Operand::LiteralString(s)) if s == name)
                .then_some(i.result())
                .flatten()
        })
    };
    let (probe, dbg) = (
        import("NonSemantic.Acme.Probe.3"),
        import("NonSemantic.Shader.DebugInfo.100"),
    );
    let of = |i: &shaderstep::ir::Inst, set: Option<u32>| {
        i.ext_inst().is_some_and(|(s, _)| Some(s) == set)
    };
    let in_functions = m
        .functions()
        .iter()
        .flat_map(|f| f.body())
        .filter(|i| of(i, probe))
        .count();
    let global = m.globals().iter().filter(|i| of(i, probe)).count();
    let malformed = m
        .functions()
        .iter()
        .flat_map(|f| f.body())
        .filter(|i| of(i, dbg) && i.lit_u32(0) == Some(28) && i.args().len() < 4)
        .count();
    (in_functions, global, malformed)
}

fn check(words: &[u32], valid: bool, malformed: usize) {
    if valid {
        common::validate(words, false).expect("the input is valid");
    }
    for preset in registry::PRESETS.iter().filter(|p| p.name != "link") {
        let run = Pipeline::preset(preset.name)
            .unwrap()
            .run(Arc::new(words.to_vec()));
        assert!(
            run.ok(),
            "{}: {:?}",
            preset.name,
            run.steps.last().map(|s| (&s.error, &s.diagnostics))
        );
        let warnings: Vec<String> = run
            .steps
            .iter()
            .flat_map(|s| &s.diagnostics)
            .filter(|d| d.severity == Severity::Warning && d.message.contains("not understood"))
            .map(|d| d.message.clone())
            .collect();
        assert_eq!(warnings.len(), 1, "{}: {warnings:?}", preset.name);
        assert!(
            warnings[0].contains("NonSemantic.Acme.Probe.3"),
            "{}",
            warnings[0]
        );
        if malformed > 0 {
            assert!(warnings[0].contains("DebugDeclare"), "{}", warnings[0]);
        }
        let out = run.output_words().unwrap();
        if valid {
            if let Err(e) = common::validate(&out, false) {
                panic!("{}: output fails spirv-val:\n{e}", preset.name);
            }
        }
        if preset.name == "O" {
            // `twice` is inlined and goes: its probe comes along into `main`.
            let (in_functions, global, kept) = records(&out);
            assert_eq!((in_functions, global, kept), (2, 1, malformed), "after O");
        }
    }
}

#[test]
fn unknown_non_semantic_set_is_kept_with_one_warning() {
    let words = asm::assemble(&SHADER.replace("MALFORMED", "")).unwrap();
    assert_eq!(records(&words), (2, 1, 0));
    check(&words, true, 0);
}

/// `DebugDeclare` needs a local variable, a variable and an expression: this one has no
/// expression. `spirv-val` cannot parse it, so only the presets are held to keeping it.
#[test]
fn malformed_declare_is_kept_with_one_warning() {
    let words =
        asm::assemble(&SHADER.replace("MALFORMED", "%decl = OpExtInst %void %dbg 28 %tb %x"))
            .unwrap();
    assert_eq!(records(&words), (2, 1, 1));
    check(&words, false, 1);
}
