//! Pass tests: IR text in, expected IR text out.

use std::sync::Arc;

use shaderstep::ir::spirv::write;
use shaderstep::ir::{parse, print};
use shaderstep::pipeline::Pipeline;

fn run(passes: &[&str], input: &str) -> String {
    let m = parse::parse(input).unwrap_or_else(|e| panic!("input does not parse: {e}"));
    let pipeline = Pipeline::from_names(passes).unwrap();
    let run = pipeline.run(Arc::new(write::write_words(&m)));
    assert!(
        run.ok(),
        "pipeline failed: {:?}",
        run.steps.last().unwrap().diagnostics
    );
    print::print(run.final_module().unwrap())
}

/// Drops the header comments and blank lines, so expectations list instructions only.
fn body(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with(';'))
        .map(|l| l.split(';').next().unwrap().trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

const WITH_DEBUG: &str = r#"; Version: 1.3
OpCapability Shader
OpExtension "SPV_KHR_non_semantic_info"
%glsl = OpExtInstImport "GLSL.std.450"
%dbg = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "shader.comp"
OpSource GLSL 450 %file "void main() {}"
OpName %main "main"
OpName %x "x"
OpModuleProcessed "client vulkan100"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%f1 = OpConstant %float 1
%uint = OpTypeInt 32 0
%u100 = OpConstant %uint 100
%dsrc = OpExtInst %void %dbg DebugSource %file
OpLine %file 1 1
%main = OpFunction %void None %fn
%entry = OpLabel
OpLine %file 2 1
%x = OpExtInst %float %glsl Sqrt %f1
OpNoLine
OpReturn
OpFunctionEnd
"#;

#[test]
fn strip_debug_removes_all_debug_info() {
    let out = run(&["lower", "strip-debug"], WITH_DEBUG);
    // Named ids are numbered in order of first appearance by the assembler.
    let expected = r#"OpCapability Shader
%1 = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %3 "main"
OpExecutionMode %3 LocalSize 1 1 1
%void = OpTypeVoid
%7 = OpTypeFunction %void
%float = OpTypeFloat 32
%float_1 = OpConstant %float 1
%uint = OpTypeInt 32 0
%uint_100 = OpConstant %uint 100
%3 = OpFunction %void None %7
%13 = OpLabel
    %5 = OpExtInst %float %1 Sqrt %float_1
    OpReturn
OpFunctionEnd"#;
    assert_eq!(body(&out), expected, "\n{out}");
}

#[test]
fn strip_debug_without_debug_info_changes_nothing() {
    let once = run(&["lower", "strip-debug"], WITH_DEBUG);
    let m = parse::parse(&once).unwrap();
    let r = Pipeline::from_names(&["lower", "strip-debug"])
        .unwrap()
        .run(Arc::new(write::write_words(&m)));
    assert!(!r.steps[1].changed);
}

#[test]
fn compact_ids_renumbers_in_definition_order() {
    let input = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %100 "main"
OpExecutionMode %100 LocalSize 1 1 1
%50 = OpTypeVoid
%60 = OpTypeFunction %50
%70 = OpTypeFloat 32
%80 = OpConstant %70 2
%100 = OpFunction %50 None %60
%200 = OpLabel
%300 = OpFMul %70 %80 %80
OpBranch %400
%400 = OpLabel
OpReturn
OpFunctionEnd
"#;
    let out = run(&["lower", "strip-debug", "compact-ids"], input);
    let expected = r#"OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %5 "main"
OpExecutionMode %5 LocalSize 1 1 1
%void = OpTypeVoid
%2 = OpTypeFunction %void
%float = OpTypeFloat 32
%float_2 = OpConstant %float 2
%5 = OpFunction %void None %2
%6 = OpLabel
    %7 = OpFMul %float %float_2 %float_2
    OpBranch %8
%8 = OpLabel
    OpReturn
OpFunctionEnd"#;
    assert_eq!(body(&out), expected, "\n{out}");
    let m = parse::parse(input).unwrap();
    let r = Pipeline::from_names(&["lower", "compact-ids"])
        .unwrap()
        .run(Arc::new(write::write_words(&m)));
    assert_eq!(r.final_module().unwrap().bound, 9);
}

#[test]
fn compact_ids_on_a_compact_module_changes_nothing() {
    let input = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%1 = OpTypeVoid\n";
    let m = parse::parse(input).unwrap();
    let r = Pipeline::from_names(&["lower", "compact-ids"])
        .unwrap()
        .run(Arc::new(write::write_words(&m)));
    assert!(!r.steps[1].changed);
}

#[test]
fn steps_share_unchanged_snapshots() {
    let m = parse::parse(WITH_DEBUG).unwrap();
    let r = Pipeline::preset("roundtrip")
        .unwrap()
        .run(Arc::new(write::write_words(&m)));
    assert_eq!(r.steps.len(), 3);
    assert!(r.steps[0].changed && !r.steps[1].changed && !r.steps[2].changed);
    assert!(Arc::ptr_eq(&r.steps[0].module, &r.steps[1].module));
    assert_eq!(r.steps[0].inst_count, 27);
}

#[test]
fn a_failing_pass_stops_the_pipeline() {
    let bad = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %nowhere
OpFunctionEnd
"#;
    let m = parse::parse(bad).unwrap();
    let r = Pipeline::preset("size")
        .unwrap()
        .run(Arc::new(write::write_words(&m)));
    assert_eq!(r.failed, Some(1));
    assert_eq!(r.steps.len(), 2);
    assert!(r.steps[1].has_errors());
    assert!(r.output_words().is_none());
}

#[test]
fn dce_removes_dead_code_and_keeps_live_code() {
    let input = r#"
OpCapability Shader
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %out
OpExecutionMode %main OriginUpperLeft
OpName %main "main"
OpName %unused_fn "unused_fn"
OpName %scratch "scratch"
OpDecorate %out Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%v2int = OpTypeVector %int 2
%f1 = OpConstant %float 1
%f2 = OpConstant %float 2
%i7 = OpConstant %int 7
%ptr_out = OpTypePointer Output %float
%ptr_fn = OpTypePointer Function %float
%out = OpVariable %ptr_out Output
%unused_fn = OpFunction %void None %fn
%u_entry = OpLabel
OpReturn
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
%scratch = OpVariable %ptr_fn Function
%keep = OpVariable %ptr_fn Function
OpStore %scratch %f1
OpStore %keep %f2
%a = OpFAdd %float %f1 %f2
%b = OpFMul %float %a %a
%c = OpExtInst %float %glsl Sqrt %b
%k = OpLoad %float %keep
OpStore %out %k
OpReturn
OpFunctionEnd
"#;
    let out = run(&["lower", "dce", "verify"], input);
    // Gone: the uncalled function, the write-only %scratch, the %a→%b→%c chain, and the
    // int types and constants nothing refers to any more.
    let expected = r#"OpCapability Shader
%1 = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %3
OpExecutionMode %main OriginUpperLeft
OpName %main "main"
OpDecorate %3 Location 0
%void = OpTypeVoid
%7 = OpTypeFunction %void
%float = OpTypeFloat 32
%float_2 = OpConstant %float 2
%_ptr_Output_float = OpTypePointer Output %float
%_ptr_Function_float = OpTypePointer Function %float
%3 = OpVariable %_ptr_Output_float Output
%main = OpFunction %void None %7
%17 = OpLabel
    %18 = OpVariable %_ptr_Function_float Function
    OpStore %18 %float_2
    %22 = OpLoad %float %18
    OpStore %3 %22
    OpReturn
OpFunctionEnd"#;
    assert_eq!(body(&out), expected, "\n{out}");
}

#[test]
fn dce_keeps_side_effects_and_interfaces() {
    let input = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %spec SpecId 3
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%v3uint = OpTypeVector %uint 3
%ptr_in = OpTypePointer Input %v3uint
%gid = OpVariable %ptr_in Input
%spec = OpSpecConstant %uint 4
%u1 = OpConstant %uint 1
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpLoad %v3uint %gid Volatile
OpControlBarrier %u1 %u1 %u1
OpReturn
OpFunctionEnd
"#;
    let out = run(&["lower", "dce", "verify"], input);
    for kept in [
        "OpLoad %v3uint",
        "OpControlBarrier",
        "OpSpecConstant %uint 4",
        "BuiltIn GlobalInvocationId",
    ] {
        assert!(out.contains(kept), "dce removed `{kept}`:\n{out}");
    }
}

#[test]
fn adce_removes_unused_spec_constants_but_not_built_ins() {
    // As spirv-opt -O: Vulkan ignores specialization entries for ids a shader does not have.
    let input = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpName %main "main"
OpName %unused "unused"
OpDecorate %buf Block
OpMemberDecorate %buf 0 Offset 0
OpDecorate %data DescriptorSet 0
OpDecorate %data Binding 0
OpDecorate %used SpecId 1
OpDecorate %unused SpecId 2
OpDecorate %flag SpecId 3
OpDecorate %wg BuiltIn WorkgroupSize
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%v3uint = OpTypeVector %uint 3
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%used = OpSpecConstant %uint 7
%unused = OpSpecConstant %uint 9
%flag = OpSpecConstantTrue %bool
%wg = OpSpecConstantComposite %v3uint %uint_1 %uint_1 %uint_1
%buf = OpTypeStruct %uint
%ptr_buf = OpTypePointer StorageBuffer %buf
%ptr_sb = OpTypePointer StorageBuffer %uint
%data = OpVariable %ptr_buf StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%p = OpAccessChain %ptr_sb %data %uint_0
OpStore %p %used
OpReturn
OpFunctionEnd
"#;
    let out = run(&["lower", "adce", "verify"], input);
    for kept in [
        "OpSpecConstant %uint 7",
        "SpecId 1",
        "BuiltIn WorkgroupSize",
    ] {
        assert!(out.contains(kept), "adce removed `{kept}`:\n{out}");
    }
    for gone in [
        "OpSpecConstant %uint 9",
        "OpSpecConstantTrue",
        "SpecId 2",
        "SpecId 3",
        "\"unused\"",
    ] {
        assert!(!out.contains(gone), "adce kept `{gone}`:\n{out}");
    }
}

/// An output with an initializer is written by it: it stays in the interface, with its
/// initializer, although no code stores there; an output nothing writes goes. (A fragment
/// shader of SPIRV-Cross's tests drew garbage after O: the semantic bisect found it.)
#[test]
fn adce_keeps_outputs_their_initializer_writes() {
    let input = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %color %unwritten
OpExecutionMode %main OriginUpperLeft
OpName %main "main"
OpName %color "color"
OpName %unwritten "unwritten"
OpDecorate %color Location 0
OpDecorate %unwritten Location 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%float_5 = OpConstant %float 5
%five = OpConstantComposite %v4float %float_5 %float_5 %float_5 %float_5
%ptr_out = OpTypePointer Output %v4float
%color = OpVariable %ptr_out Output %five
%unwritten = OpVariable %ptr_out Output
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"#;
    let out = run(&["lower", "adce", "verify"], input);
    assert!(
        out.contains("OpEntryPoint Fragment %main \"main\" %color\n")
            && out.contains("%color = OpVariable %_ptr_Output_v4float Output %"),
        "{out}"
    );
    assert!(!out.contains("%unwritten"), "{out}");
}

#[test]
fn fold_computes_constants_with_the_op_table_rules() {
    let input = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %out %fout
OpExecutionMode %main OriginUpperLeft
OpName %a "a"
OpDecorate %out Location 0
OpDecorate %fout Location 1
OpDecorate %a RelaxedPrecision
%void = OpTypeVoid
%fn = OpTypeFunction %void
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%bool = OpTypeBool
%ptr = OpTypePointer Output %int
%fptr = OpTypePointer Output %float
%out = OpVariable %ptr Output
%fout = OpVariable %fptr Output
%c0 = OpConstant %int 0
%c2 = OpConstant %int 2
%c3 = OpConstant %int 3
%f1 = OpConstant %float 1
%f4 = OpConstant %float 4
%main = OpFunction %void None %fn
%entry = OpLabel
%a = OpIMul %int %c2 %c3
%b = OpIAdd %int %a %c3
%lt = OpSLessThan %bool %b %c3
%s = OpSelect %int %lt %a %b
%undefined = OpSDiv %int %s %c0
%q = OpFDiv %float %f1 %f4
%n = OpFNegate %float %q
OpStore %out %s
OpStore %out %undefined
OpStore %fout %n
OpReturn
OpFunctionEnd
"#;
    let out = run(&["lower", "fold", "verify"], input);
    let body = body(&out);
    // 2*3 = 6, 6+3 = 9, 9 < 3 is false so the select picks 9; -(1/4) = -0.25.
    assert!(body.contains("%int_9 = OpConstant %int 9"), "{body}");
    assert!(body.contains("OpStore %2 %int_9"), "{body}");
    assert!(
        body.contains("%float_n0_25 = OpConstant %float -0.25"),
        "{body}"
    );
    assert!(body.contains("OpStore %3 %float_n0_25"), "{body}");
    // Division by zero is left for the hardware; it now divides the folded constant.
    assert!(body.contains("OpSDiv %int %int_9 %int_0"), "{body}");
    for gone in [
        "OpIMul",
        "OpIAdd",
        "OpSLessThan",
        "OpSelect",
        "OpFDiv",
        "OpFNegate",
        "RelaxedPrecision",
        "OpName",
    ] {
        assert!(
            !body.contains(gone),
            "{gone} should be folded away:\n{body}"
        );
    }
}

#[test]
fn fold_uses_glsl_rules_and_leaves_undefined_results() {
    let input = r#"
OpCapability Shader
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %out %iout
OpExecutionMode %main OriginUpperLeft
OpDecorate %out Location 0
OpDecorate %iout Location 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%fptr = OpTypePointer Output %float
%iptr = OpTypePointer Output %int
%out = OpVariable %fptr Output
%iout = OpVariable %iptr Output
%f0 = OpConstant %float 0
%f1 = OpConstant %float 1
%f9 = OpConstant %float 9
%fm = OpConstant %float -2.5
%im = OpConstant %int -7
%i3 = OpConstant %int 3
%main = OpFunction %void None %fn
%entry = OpLabel
%s = OpExtInst %float %glsl Sqrt %f9
%c = OpExtInst %float %glsl FClamp %s %f0 %f1
%r = OpExtInst %float %glsl RoundEven %fm
%a = OpExtInst %int %glsl SAbs %im
%m = OpExtInst %int %glsl SMin %a %i3
%sin = OpExtInst %float %glsl Sin %f1
%log = OpExtInst %float %glsl Log %fm
OpStore %out %c
OpStore %out %r
OpStore %out %sin
OpStore %out %log
OpStore %iout %m
OpReturn
OpFunctionEnd
"#;
    let body = body(&run(&["lower", "fold", "verify"], input));
    // sqrt 9 = 3, clamped to 1; RoundEven(-2.5) = -2; |-7| = 7, min(7, 3) = 3; sin 1 as the
    // correctly rounded f32; the log of a negative number is undefined and stays.
    for expected in [
        "OpStore %3 %float_1",
        "OpStore %3 %float_n2",
        "OpStore %4 %int_3",
        "OpStore %3 %float_0_84147096",
        "OpExtInst %float %1 Log %float_n2_5",
    ] {
        assert!(body.contains(expected), "missing `{expected}`:\n{body}");
    }
    for gone in ["Sqrt", "FClamp", "RoundEven", "SAbs", "SMin", "Sin"] {
        assert!(!body.contains(gone), "{gone} should be folded:\n{body}");
    }
}

#[test]
fn dce_asks_the_op_table_about_extended_instructions() {
    // Modf writes its whole part through a pointer: it has an effect even when its result is
    // unused. Fract has none.
    let input = r#"
OpCapability Shader
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %out
OpExecutionMode %main OriginUpperLeft
OpDecorate %out Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%fptr = OpTypePointer Output %float
%lptr = OpTypePointer Function %float
%out = OpVariable %fptr Output
%f = OpConstant %float 1.5
%main = OpFunction %void None %fn
%entry = OpLabel
%whole = OpVariable %lptr Function
%frac = OpExtInst %float %glsl Modf %f %whole
%unused = OpExtInst %float %glsl Fract %f
%w = OpLoad %float %whole
OpStore %out %w
OpReturn
OpFunctionEnd
"#;
    let body = body(&run(&["lower", "dce", "verify"], input));
    assert!(body.contains("Modf"), "dce removed Modf:\n{body}");
    assert!(!body.contains("Fract"), "dce kept an unused Fract:\n{body}");
}

/// A constant decorated `BuiltIn WorkgroupSize` sets the workgroup size although no
/// instruction uses it: removing it as dead would make `LocalSize 1 1 1` the size.
#[test]
fn workgroup_size_builtin_constant_is_kept() {
    let input = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %wgs BuiltIn WorkgroupSize
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%v3uint = OpTypeVector %uint 3
%uint_1 = OpConstant %uint 1
%uint_64 = OpConstant %uint 64
%wgs = OpConstantComposite %v3uint %uint_64 %uint_1 %uint_1
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"#;
    for passes in [
        &["dce"][..],
        &["adce"],
        &["ccp", "gvn", "adce", "block-merge"],
    ] {
        let out = body(&run(passes, input));
        assert!(
            out.contains("BuiltIn WorkgroupSize") && out.contains("%uint_64 %uint_1 %uint_1"),
            "{passes:?} removed the workgroup size:\n{out}"
        );
    }
}

/// `NonUniform` says a descriptor index may differ between invocations; dropping it makes the
/// access undefined. Inlining copies it onto the copies of the callee's values, and a copy
/// that is propagated away hands it to the value that replaces it.
#[test]
fn non_uniform_survives_inlining_and_copy_propagation() {
    let input = r#"
OpCapability Shader
OpCapability ShaderNonUniform
OpCapability SampledImageArrayNonUniformIndexing
OpCapability RuntimeDescriptorArray
OpExtension "SPV_EXT_descriptor_indexing"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %idx %out
OpExecutionMode %main OriginUpperLeft
OpDecorate %idx Location 0
OpDecorate %idx Flat
OpDecorate %out Location 0
OpDecorate %tex DescriptorSet 0
OpDecorate %tex Binding 0
OpDecorate %copy NonUniform
OpDecorate %elem NonUniform
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%v2float = OpTypeVector %float 2
%v4float = OpTypeVector %float 4
%img = OpTypeImage %float 2D 0 0 0 1 Unknown
%simg = OpTypeSampledImage %img
%arr = OpTypeRuntimeArray %simg
%ptr_arr = OpTypePointer UniformConstant %arr
%ptr_simg = OpTypePointer UniformConstant %simg
%ptr_in = OpTypePointer Input %uint
%ptr_out = OpTypePointer Output %v4float
%getfn = OpTypeFunction %v4float %uint
%tex = OpVariable %ptr_arr UniformConstant
%idx = OpVariable %ptr_in Input
%out = OpVariable %ptr_out Output
%f0 = OpConstant %float 0
%uv = OpConstantComposite %v2float %f0 %f0
%get = OpFunction %v4float None %getfn
%i = OpFunctionParameter %uint
%gentry = OpLabel
%copy = OpCopyObject %uint %i
%elem = OpAccessChain %ptr_simg %tex %copy
%s = OpLoad %simg %elem
%r = OpImageSampleExplicitLod %v4float %s %uv Lod %f0
OpReturnValue %r
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
%k = OpLoad %uint %idx
%c = OpFunctionCall %v4float %get %k
OpStore %out %c
OpReturn
OpFunctionEnd
"#;
    let out = body(&run(
        &["inline", "eliminate-dead-functions", "copy-prop", "verify"],
        input,
    ));
    // The copy of %i is gone: the load it copied (%k) takes its NonUniform, and the access
    // chain's copy keeps its own.
    let non_uniform: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("OpDecorate") && l.ends_with("NonUniform"))
        .collect();
    assert_eq!(non_uniform.len(), 2, "{out}");
    let chain = out
        .lines()
        .find(|l| l.contains("OpAccessChain"))
        .expect("the access chain");
    let chain_id = chain.split_whitespace().next().unwrap();
    let index = chain.split_whitespace().last().unwrap();
    for id in [chain_id, index] {
        assert!(
            non_uniform
                .iter()
                .any(|l| l.split_whitespace().nth(1) == Some(id)),
            "{id} is not NonUniform:\n{out}"
        );
    }
}

#[test]
fn loop_unroll_says_why_a_marked_loop_stays() {
    let input =
        std::fs::read_to_string("tests/filetests/loop_unroll/constant_trip_count.ir").unwrap();
    let input = input.split("; ---- output ----").next().unwrap();
    let m = parse::parse(input).unwrap();
    let run = Pipeline::from_names(&["lower", "loop-unroll", "verify", "lift"])
        .unwrap()
        .run(Arc::new(write::write_words(&m)));
    assert!(run.ok());
    let step = run.steps.iter().find(|s| s.pass == "loop-unroll").unwrap();
    let notes: Vec<String> = step.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("main: the loop at %38 is marked Unroll but stays")
            && notes[0].contains("exit condition"),
        "{notes:?}"
    );
    let out = print::print(run.final_module().unwrap());
    assert_eq!(out.matches("OpLoopMerge").count(), 1, "{out}");
}

#[test]
fn adce_drops_interface_variables_nothing_uses() {
    let input = r#"
OpCapability Shader
OpCapability SampleRateShading
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %used %unused %coord %sample %out %unwritten
OpExecutionMode %main OriginUpperLeft
OpName %main "main"
OpName %used "used"
OpName %sample "sample"
OpName %out "out"
OpName %unused "unused"
OpName %unwritten "unwritten"
OpDecorate %used Location 0
OpDecorate %unused Location 1
OpDecorate %coord BuiltIn FragCoord
OpDecorate %sample BuiltIn SampleId
OpDecorate %sample Flat
OpDecorate %out Location 0
OpDecorate %unwritten Location 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%ptr_in = OpTypePointer Input %v4float
%ptr_in_int = OpTypePointer Input %int
%ptr_out = OpTypePointer Output %v4float
%used = OpVariable %ptr_in Input
%unused = OpVariable %ptr_in Input
%coord = OpVariable %ptr_in Input
%sample = OpVariable %ptr_in_int Input
%out = OpVariable %ptr_out Output
%unwritten = OpVariable %ptr_out Output
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpLoad %v4float %used
OpStore %out %v
OpReturn
OpFunctionEnd
"#;
    let out = run(&["lower", "adce", "verify"], input);
    assert!(
        out.contains(r#"OpEntryPoint Fragment %main "main" %used %sample %out"#),
        "{out}"
    );
    for gone in ["\"unused\"", "\"unwritten\"", "FragCoord"] {
        assert!(!out.contains(gone), "adce kept `{gone}`:\n{out}");
    }
    assert!(out.contains("BuiltIn SampleId"), "{out}");
}

#[test]
fn dce_removes_forward_pointers_with_their_unused_pointer_types() {
    let input = r#"; A forward pointer declaration does not keep its pointer type alive: nothing uses the
; pointer type or the struct it points to, so the declaration, the types and their
; decorations go.
; Version: 1.5
OpCapability Shader
OpCapability PhysicalStorageBufferAddresses
OpExtension "SPV_EXT_physical_storage_buffer"
OpMemoryModel PhysicalStorageBuffer64 GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %main "main"
OpName %IntBuf "IntBuf"
OpMemberName %IntBuf 0 "v"
OpMemberDecorate %IntBuf 0 Offset 0
OpDecorate %IntBuf Block
%void = OpTypeVoid
%fn = OpTypeFunction %void
OpTypeForwardPointer %ptr_IntBuf PhysicalStorageBuffer
%int = OpTypeInt 32 1
%IntBuf = OpTypeStruct %int
%ptr_IntBuf = OpTypePointer PhysicalStorageBuffer %IntBuf
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd"#;
    for pass in ["dce", "adce"] {
        let out = body(&run(&["lower", pass, "lift"], input));
        for gone in [
            "OpTypeForwardPointer",
            "OpTypePointer",
            "OpTypeStruct",
            "IntBuf",
        ] {
            assert!(!out.contains(gone), "{pass} left {gone}:\n{out}");
        }
    }
}

#[test]
fn dce_removes_decoration_groups_applied_to_nothing() {
    let input = r#"; Decoration groups: once the variable a group was applied to is gone, the group, its
; decorations and the emptied OpGroupDecorate go too; a group still applied stays.
; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %main "main"
OpDecorate %g_dead Restrict
OpDecorate %g_live NonWritable
%g_dead = OpDecorationGroup
%g_live = OpDecorationGroup
OpGroupDecorate %g_dead %unused
OpGroupDecorate %g_live %data
OpDecorate %buf Block
OpMemberDecorate %buf 0 Offset 0
OpDecorate %data DescriptorSet 0
OpDecorate %data Binding 0
OpDecorate %unused DescriptorSet 0
OpDecorate %unused Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%uint_0 = OpConstant %uint 0
%buf = OpTypeStruct %uint
%ptr_buf = OpTypePointer StorageBuffer %buf
%ptr_sb_uint = OpTypePointer StorageBuffer %uint
%data = OpVariable %ptr_buf StorageBuffer
%unused = OpVariable %ptr_buf StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%p = OpAccessChain %ptr_sb_uint %data %uint_0
%x = OpLoad %uint %p
%y = OpIAdd %uint %x %x
OpStore %p %y
OpReturn
OpFunctionEnd"#;
    for pass in ["dce", "adce"] {
        let out = body(&run(&["lower", pass, "lift"], input));
        // The group of the removed variable goes with its decoration and its OpGroupDecorate.
        assert_eq!(out.matches("OpVariable").count(), 1, "{pass}:\n{out}");
        for gone in ["Restrict", "Binding 1"] {
            assert!(!out.contains(gone), "{pass} left {gone}:\n{out}");
        }
        assert_eq!(
            out.matches("OpDecorationGroup").count(),
            1,
            "{pass}:\n{out}"
        );
        assert_eq!(out.matches("OpGroupDecorate").count(), 1, "{pass}:\n{out}");
        assert!(out.contains("NonWritable"), "{pass}:\n{out}");
    }
}

/// 8- and 16-bit types for storage only: a value is converted to them and stored, and loaded
/// and converted back.
fn narrow_storage(extra_caps: &str) -> String {
    format!(
        r#"; Version: 1.3
OpCapability Shader
OpCapability StorageBuffer8BitAccess
OpCapability StorageBuffer16BitAccess
{extra_caps}OpExtension "SPV_KHR_8bit_storage"
OpExtension "SPV_KHR_16bit_storage"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpMemberDecorate %B 0 Offset 0
OpMemberDecorate %B 1 Offset 2
OpMemberDecorate %B 2 Offset 4
OpDecorate %B Block
OpDecorate %b DescriptorSet 0
OpDecorate %b Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uchar = OpTypeInt 8 0
%half = OpTypeFloat 16
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%B = OpTypeStruct %uchar %half %uint
%pB = OpTypePointer StorageBuffer %B
%pu8 = OpTypePointer StorageBuffer %uchar
%ph = OpTypePointer StorageBuffer %half
%pu = OpTypePointer StorageBuffer %uint
%b = OpVariable %pB StorageBuffer
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%u5 = OpConstant %uint 5
%f15 = OpConstant %float 1.5
%main = OpFunction %void None %fn
%entry = OpLabel
%p0 = OpAccessChain %pu8 %b %u0
%n8 = OpUConvert %uchar %u5
OpStore %p0 %n8
%p1 = OpAccessChain %ph %b %u1
%h = OpFConvert %half %f15
OpStore %p1 %h
%back = OpUConvert %uint %n8
%p2 = OpAccessChain %pu %b %u2
OpStore %p2 %back
OpReturn
OpFunctionEnd
"#
    )
}

/// Without `Int8` and `Float16` a module may have no constant of an 8-bit integer or 16-bit
/// float type (spirv-val: "Cannot form constants of 8- or 16-bit types"): ccp keeps the
/// conversions from 32-bit constants and still folds what is computed from them.
#[test]
fn ccp_makes_no_constants_of_storage_only_narrow_types() {
    let out = run(&["lower", "ccp"], &narrow_storage(""));
    assert!(out.contains("OpUConvert %uint8 %uint_5"), "\n{out}");
    assert!(out.contains("OpFConvert %half %float_1_5"), "\n{out}");
    assert!(!out.contains("OpConstant %uint8"), "\n{out}");
    assert!(!out.contains("OpConstant %half"), "\n{out}");
    // The widening back to 32 bits folds: a 32-bit constant is stored.
    assert!(!out.contains("OpUConvert %uint %"), "\n{out}");
}

/// With the capabilities the same conversions fold to 8- and 16-bit constants.
#[test]
fn ccp_folds_narrow_conversions_when_the_capabilities_allow() {
    let caps = "OpCapability Int8\nOpCapability Float16\n";
    let out = run(&["lower", "ccp"], &narrow_storage(caps));
    assert!(out.contains("OpConstant %uint8 5"), "\n{out}");
    assert!(out.contains("OpConstant %half"), "\n{out}");
    assert!(!out.contains("OpUConvert"), "\n{out}");
    assert!(!out.contains("OpFConvert"), "\n{out}");
}

/// A variable `DebugDeclare` describes and one nothing declares, both getting a phi in a block
/// with no other code (a join that only branches on): each phi's `DebugValue` goes right after
/// the phis. Counting the undeclared variable's phi as a value said put it past the end of the
/// block, and mem2reg panicked on this valid module.
#[test]
fn mem2reg_says_a_declared_variables_phi_value_right_after_the_phis() {
    let out = run(
        &["lower", "mem2reg"],
        PHI_OF_A_DECLARED_AND_AN_UNDECLARED_VARIABLE,
    );
    let lines: Vec<&str> = out.lines().map(str::trim).collect();
    let phi = lines
        .iter()
        .position(|l| l.starts_with("%b = OpPhi"))
        .unwrap_or_else(|| panic!("no phi of b:\n{out}"));
    assert!(
        lines[phi + 1].contains("DebugValue") && lines[phi + 1].contains(" %b "),
        "the value of b is said right after its phi:\n{out}"
    );
    assert!(lines[phi + 2].starts_with("OpBranch"), "\n{out}");
    let o = run(
        &[
            "lower", "verify", "inline", "sroa", "mem2reg", "adce", "verify",
        ],
        PHI_OF_A_DECLARED_AND_AN_UNDECLARED_VARIABLE,
    );
    assert!(o.contains("DebugValue"), "\n{o}");
}

/// Valid for spirv-val (vulkan1.1): `a` has no `DebugDeclare`, `b` has one; both are set in
/// each arm of a selection and read after a block that only branches on.
const PHI_OF_A_DECLARED_AND_AN_UNDECLARED_VARIABLE: &str = r#"OpCapability Shader
OpExtension "SPV_KHR_non_semantic_info"
OpExtension "SPV_KHR_storage_buffer_storage_class"
%dbg = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "phis.comp"
%fname = OpString "main"
%bname = OpString "b"
%tname = OpString "float"
%empty = OpString ""
OpSource GLSL 450 %file
OpName %main "main"
OpName %a "a"
OpName %b "b"
OpName %out "out"
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%bool = OpTypeBool
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%blk = OpTypeStruct %float
%pblk = OpTypePointer StorageBuffer %blk
%pfs = OpTypePointer StorageBuffer %float
%pf = OpTypePointer Function %float
%out = OpVariable %pblk StorageBuffer
%i0 = OpConstant %int 0
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u3 = OpConstant %uint 3
%u4 = OpConstant %uint 4
%u5 = OpConstant %uint 5
%u32 = OpConstant %uint 32
%u100 = OpConstant %uint 100
%f1 = OpConstant %float 1
%f2 = OpConstant %float 2
%dnone = OpExtInst %void %dbg DebugInfoNone
%dsrc = OpExtInst %void %dbg DebugSource %file
%dcu = OpExtInst %void %dbg DebugCompilationUnit %u100 %u5 %dsrc %u1
%dfloat = OpExtInst %void %dbg DebugTypeBasic %tname %u32 %u3 %u0
%dfnty = OpExtInst %void %dbg DebugTypeFunction %u3 %void
%dfn = OpExtInst %void %dbg DebugFunction %fname %dfnty %dsrc %u1 %u1 %dcu %fname %u3 %u1
%dexpr = OpExtInst %void %dbg DebugExpression
%db = OpExtInst %void %dbg DebugLocalVariable %bname %dfloat %dsrc %u4 %u1 %dfn %u4
%main = OpFunction %void None %fn
%entry = OpLabel
%a = OpVariable %pf Function
%b = OpVariable %pf Function
%scope = OpExtInst %void %dbg DebugScope %dfn
%decl = OpExtInst %void %dbg DebugDeclare %db %b %dexpr
%p = OpAccessChain %pfs %out %i0
%x = OpLoad %float %p
%c = OpFOrdLessThan %bool %x %f1
OpSelectionMerge %merge None
OpBranchConditional %c %then %else
%then = OpLabel
OpStore %a %f1
OpStore %b %x
OpBranch %merge
%else = OpLabel
OpStore %a %x
OpStore %b %f2
OpBranch %merge
%merge = OpLabel
OpBranch %next
%next = OpLabel
%la = OpLoad %float %a
%lb = OpLoad %float %b
%s = OpFAdd %float %la %lb
OpStore %p %s
OpReturn
OpFunctionEnd
"#;
