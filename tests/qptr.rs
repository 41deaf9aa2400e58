//! `qptr-lower`, `qptr-analyze`, `qptr-lift`: the whole corpus through the `qptr` and `default`
//! presets (every output validates, the verifier holds after every pass, at least 95 % of the
//! functions with pointers are lifted rather than kept typed), and IR text in, IR text out for
//! the hard cases.

mod common;

use std::sync::Arc;

use common::{corpus, validate};
use shaderstep::ir::module::Attribute;
use shaderstep::pipeline::{Checks, Pipeline};

#[test]
fn corpus_through_qptr_and_default_validates() {
    let mut failures = Vec::new();
    let (mut lowered, mut kept) = (0usize, 0usize);
    let mut reasons = Vec::new();
    // Totals over the corpus of each step's counts, by preset and pass.
    let mut totals: Vec<(String, [usize; 4])> = Vec::new();
    for preset in ["qptr", "default"] {
        let pipeline = Pipeline::preset(preset).unwrap().with_checks(Checks {
            verify_each: true,
            validate_each: false,
        });
        for s in corpus() {
            let run = pipeline.run(Arc::new(s.words.clone()));
            let Some(out) = run.output_words() else {
                failures.push(format!(
                    "{}: {preset} failed: {:?}",
                    s.path.display(),
                    run.steps.last().map(|st| &st.diagnostics)
                ));
                continue;
            };
            // Nothing between qptr-analyze and qptr-lift in these presets changes a pointer's
            // use, so a warning that it did is a false alarm (it was, for globals used by
            // several functions, before qptr-lift compared with the union of their uses).
            if preset == "qptr" {
                for st in &run.steps {
                    for d in &st.diagnostics {
                        if d.message.contains("changed since qptr-analyze") {
                            failures.push(format!("{}: {}", s.path.display(), d.message));
                        }
                    }
                }
            }
            if let Err(e) = validate(&out, s.universal) {
                failures.push(format!(
                    "{}: {preset} output does not validate: {e}",
                    s.path.display()
                ));
                continue;
            }
            for st in &run.steps {
                let c = shaderstep::ir::ops::counts(&st.module);
                let key = format!("{preset:>8} {:<13}", st.pass);
                let counts = [c.bitcasts, c.pointer_values, c.qptr_ops, c.qptr_fallbacks];
                match totals.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, row)) => {
                        for (t, v) in row.iter_mut().zip(counts) {
                            *t += v;
                        }
                    }
                    None => totals.push((key, counts)),
                }
            }
            if preset == "qptr" {
                let after_lower = run.steps.iter().find(|st| st.pass == "qptr-lower").unwrap();
                let m = &after_lower.module;
                for f in m.functions() {
                    match m.attributes.get(&f.id()) {
                        Some(Attribute::TypedPointers(why)) => {
                            kept += 1;
                            reasons.push(format!("{}: {why}", s.path.display()));
                        }
                        _ => {
                            let uses_qptrs = f.insts().any(|i| {
                                i.ty()
                                    .and_then(|t| m.global(t))
                                    .is_some_and(|t| t.op() == spirv::Op::TypeUntypedPointerKHR)
                            });
                            lowered += usize::from(uses_qptrs);
                        }
                    }
                }
            }
        }
    }
    eprintln!("corpus totals per step: bitcasts, pointer_values, qptr_ops, qptr_fallbacks");
    for (key, row) in &totals {
        eprintln!(
            "  {key} {:>5} {:>6} {:>5} {:>3}",
            row[0], row[1], row[2], row[3]
        );
    }
    eprintln!(
        "qptr: {lowered} functions lowered and lifted, {kept} kept typed:\n  {}",
        reasons.join("\n  ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        lowered * 100 >= (lowered + kept) * 95,
        "only {lowered} of {} functions lifted",
        lowered + kept
    );
}

use shaderstep::ir::spirv::write;
use shaderstep::ir::{parse, print};
use shaderstep::pipeline::Run;

fn run_text(passes: &[&str], experimental: bool, input: &str) -> Run {
    let m = parse::parse(input).unwrap_or_else(|e| panic!("input does not parse: {e}\n{input}"));
    let run = Pipeline::from_names(passes)
        .unwrap()
        .with_checks(Checks {
            verify_each: true,
            validate_each: false,
        })
        .with_experimental(experimental)
        .run(Arc::new(write::write_words(&m)));
    assert!(
        run.ok(),
        "pipeline failed: {:?}",
        run.steps.last().unwrap().diagnostics
    );
    run
}

fn step_text(run: &Run, pass: &str) -> String {
    run.steps
        .iter()
        .find(|s| s.pass == pass)
        .unwrap_or_else(|| panic!("no step {pass}"))
        .ir_text()
        .to_string()
}

fn validated(run: &Run) -> String {
    let words = run.output_words().unwrap();
    validate(&words, false).unwrap_or_else(|e| {
        panic!(
            "output does not validate: {e}\n{}",
            print::print(run.final_module().unwrap())
        )
    });
    print::print(run.final_module().unwrap())
}

/// An array of structs indexed by the invocation, a nested chain to a member of the element, a
/// runtime array's length, and two members of one element.
const PARTICLES: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 1 1 1
OpName %Particle "Particle"
OpName %Buf "Buf"
OpName %buf "buf"
OpName %elem "elem"
OpName %w "w"
OpName %pos "pos"
OpName %count "count"
OpDecorate %gid BuiltIn GlobalInvocationId
OpMemberDecorate %Particle 0 Offset 0
OpMemberDecorate %Particle 1 Offset 16
OpMemberDecorate %Particle 2 Offset 20
OpDecorate %arr ArrayStride 32
OpMemberDecorate %Buf 0 Offset 0
OpMemberDecorate %Buf 1 Offset 16
OpDecorate %Buf Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%v3uint = OpTypeVector %uint 3
%v4float = OpTypeVector %float 4
%Particle = OpTypeStruct %v4float %float %uint
%arr = OpTypeRuntimeArray %Particle
%Buf = OpTypeStruct %uint %arr
%ptr_buf = OpTypePointer StorageBuffer %Buf
%ptr_particle = OpTypePointer StorageBuffer %Particle
%ptr_v4 = OpTypePointer StorageBuffer %v4float
%ptr_float = OpTypePointer StorageBuffer %float
%ptr_uint = OpTypePointer StorageBuffer %uint
%ptr_in = OpTypePointer Input %v3uint
%buf = OpVariable %ptr_buf StorageBuffer
%gid = OpVariable %ptr_in Input
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %id 0
%elem = OpAccessChain %ptr_particle %buf %c1 %i
%w = OpAccessChain %ptr_float %elem %c1
%pos = OpAccessChain %ptr_v4 %elem %c0
%p = OpLoad %v4float %pos
%x = OpCompositeExtract %float %p 0
OpStore %w %x
%len = OpArrayLength %uint %buf 1
%count = OpAccessChain %ptr_uint %buf %c0
OpStore %count %len
OpReturn
OpFunctionEnd
"#;

#[test]
fn array_of_structs_with_a_dynamic_index_and_nested_chains() {
    let run = run_text(
        &["lower", "qptr-lower", "qptr-analyze", "qptr-lift", "lift"],
        false,
        PARTICLES,
    );
    let lowered = step_text(&run, "qptr-lower");
    // The element is 16 bytes in (after the count) plus 32 per index; its members are +16
    // (w) and +0 (pos) from it. OpArrayLength keeps the typed buffer.
    for expected in [
        "= qptr.buffer_data %_qptr_StorageBuffer %buf",
        "= qptr.offset %_qptr_StorageBuffer %",
        "%elem = qptr.dyn_offset %_qptr_StorageBuffer %",
        " %uint_32",
        "%w = qptr.offset %_qptr_StorageBuffer %elem %uint_16",
        "%pos = qptr.offset %_qptr_StorageBuffer %elem %uint_0",
        "OpArrayLength %uint %buf 1",
    ] {
        assert!(
            lowered.contains(expected),
            "missing `{expected}` in\n{lowered}"
        );
    }
    assert!(!lowered.contains("OpAccessChain"), "{lowered}");
    let analyzed = step_text(&run, "qptr-analyze");
    assert!(
        analyzed.contains("; @usage {+0 {load %v4float}, +16 {store %float}}"),
        "{analyzed}"
    );
    let out = validated(&run);
    for expected in [
        "%w = OpAccessChain %_ptr_StorageBuffer_float %buf %int_1 %",
        "%pos = OpAccessChain %_ptr_StorageBuffer_v4float %buf %int_1 %",
        "%count = OpAccessChain %_ptr_StorageBuffer_uint %buf %int_0",
    ] {
        assert!(out.contains(expected), "missing `{expected}` in\n{out}");
    }
    assert!(!out.contains("qptr"), "{out}");
    assert!(!out.contains("UntypedPointers"), "{out}");
}

#[test]
fn usage_attributes_print_and_parse_back() {
    let run = run_text(&["lower", "qptr-lower", "qptr-analyze"], false, PARTICLES);
    let text = step_text(&run, "qptr-analyze");
    let m = parse::parse(&text).unwrap();
    assert_eq!(print::print(&m), text);
    assert!(m.attributes.len() >= 4, "{:?}", m.attributes);
}

/// A row-major matrix in a uniform block: a dynamically chosen column (not contiguous in
/// memory) and one element of it.
const ROW_MAJOR: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 1 1 1
OpName %main "main"
OpName %ubo "ubo"
OpName %j "j"
OpName %col "col"
OpName %elt "elt"
OpDecorate %gid BuiltIn GlobalInvocationId
OpMemberDecorate %UBO 0 Offset 0
OpMemberDecorate %UBO 0 RowMajor
OpMemberDecorate %UBO 0 MatrixStride 16
OpDecorate %UBO Block
OpDecorate %ubo DescriptorSet 0
OpDecorate %ubo Binding 0
OpMemberDecorate %Out 0 Offset 0
OpMemberDecorate %Out 1 Offset 16
OpDecorate %Out Block
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%v3uint = OpTypeVector %uint 3
%v4float = OpTypeVector %float 4
%mat4 = OpTypeMatrix %v4float 4
%UBO = OpTypeStruct %mat4
%Out = OpTypeStruct %v4float %float
%ptr_ubo = OpTypePointer Uniform %UBO
%ptr_out = OpTypePointer StorageBuffer %Out
%ptr_u_v4 = OpTypePointer Uniform %v4float
%ptr_u_float = OpTypePointer Uniform %float
%ptr_o_v4 = OpTypePointer StorageBuffer %v4float
%ptr_o_float = OpTypePointer StorageBuffer %float
%ptr_in = OpTypePointer Input %v3uint
%ubo = OpVariable %ptr_ubo Uniform
%out = OpVariable %ptr_out StorageBuffer
%gid = OpVariable %ptr_in Input
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c2 = OpConstant %uint 2
%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%j = OpCompositeExtract %uint %id 0
%col = OpAccessChain %ptr_u_v4 %ubo %c0 %j
%v = OpLoad %v4float %col
%elt = OpAccessChain %ptr_u_float %ubo %c0 %j %c2
%e = OpLoad %float %elt
%o0 = OpAccessChain %ptr_o_v4 %out %c0
OpStore %o0 %v
%o1 = OpAccessChain %ptr_o_float %out %c1
OpStore %o1 %e
OpReturn
OpFunctionEnd
"#;

#[test]
fn row_major_matrix_columns_and_elements() {
    let run = run_text(
        &["lower", "qptr-lower", "qptr-analyze", "qptr-lift", "lift"],
        false,
        ROW_MAJOR,
    );
    let lowered = step_text(&run, "qptr-lower");
    // In a row-major matrix column j starts j floats in, and its element 2 is two rows
    // (MatrixStride 16) further.
    assert!(
        lowered.contains("%col = qptr.dyn_offset %_qptr_Uniform %"),
        "{lowered}"
    );
    assert!(lowered.contains(" %j %uint_4"), "{lowered}");
    assert!(
        lowered.contains("%elt = qptr.offset %_qptr_Uniform %"),
        "{lowered}"
    );
    assert!(lowered.contains(" %uint_32"), "{lowered}");
    let out = validated(&run);
    assert!(
        out.contains("%col = OpAccessChain %_ptr_Uniform_v4float %ubo %int_0 %j"),
        "{out}"
    );
    assert!(
        out.contains("%elt = OpAccessChain %_ptr_Uniform_float %ubo %int_0 %j %int_2"),
        "{out}"
    );
}

/// Variable pointers: a select between two elements of a buffer, then a load through it.
const VARIABLE_POINTERS: &str = r#"; Version: 1.3
OpCapability Shader
OpCapability VariablePointersStorageBuffer
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 1 1 1
OpName %main "main"
OpName %pick "pick"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %arr ArrayStride 4
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %Buf Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%v3uint = OpTypeVector %uint 3
%arr = OpTypeRuntimeArray %float
%Buf = OpTypeStruct %arr
%ptr_buf = OpTypePointer StorageBuffer %Buf
%ptr_float = OpTypePointer StorageBuffer %float
%ptr_in = OpTypePointer Input %v3uint
%buf = OpVariable %ptr_buf StorageBuffer
%gid = OpVariable %ptr_in Input
%c0 = OpConstant %uint 0
%c2 = OpConstant %uint 2
%c5 = OpConstant %uint 5
%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%x = OpCompositeExtract %uint %id 0
%odd = OpUGreaterThan %bool %x %c2
%a = OpAccessChain %ptr_float %buf %c0 %c2
%b = OpAccessChain %ptr_float %buf %c0 %c5
%pick = OpSelect %ptr_float %odd %a %b
%v = OpLoad %float %pick
%dst = OpAccessChain %ptr_float %buf %c0 %x
OpStore %dst %v
OpReturn
OpFunctionEnd
"#;

#[test]
fn variable_pointers_are_typed_by_what_is_accessed_through_them() {
    let run = run_text(
        &["lower", "qptr-lower", "qptr-analyze", "qptr-lift", "lift"],
        false,
        VARIABLE_POINTERS,
    );
    let lowered = step_text(&run, "qptr-lower");
    assert!(
        lowered.contains("%pick = OpSelect %_qptr_StorageBuffer"),
        "{lowered}"
    );
    let out = validated(&run);
    assert!(
        out.contains("%pick = OpSelect %_ptr_StorageBuffer_float"),
        "{out}"
    );
}

#[test]
fn a_function_that_indexes_a_variable_pointer_keeps_typed_pointers() {
    let input = VARIABLE_POINTERS.replace(
        "%v = OpLoad %float %pick",
        "%again = OpAccessChain %ptr_float %pick\n%v = OpLoad %float %again",
    );
    let run = run_text(&["lower", "qptr-lower", "qptr-lift", "lift"], false, &input);
    let step = run.steps.iter().find(|s| s.pass == "qptr-lower").unwrap();
    let messages: Vec<String> = step.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        messages,
        ["warning: in %main: %main keeps typed pointers: it indexes into a variable pointer (%pick)"]
    );
    assert!(step
        .ir_text()
        .contains("; @typed-pointers \"it indexes into a variable pointer (%pick)\""));
    // Nothing was lowered, and the output is the input.
    assert!(!step.ir_text().contains("qptr."));
    validated(&run);
}

#[test]
fn a_union_like_load_goes_through_the_member_type_and_a_bitcast() {
    // Already in qptr form: a float member read as a uint.
    let input = r#"; Version: 1.3
OpCapability Shader
OpCapability UntypedPointersKHR
OpExtension "SPV_KHR_untyped_pointers"
%ss = OpExtInstImport "shaderstep.dialect"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpMemberDecorate %Buf 0 Offset 0
OpMemberDecorate %Buf 1 Offset 4
OpDecorate %Buf Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%Buf = OpTypeStruct %float %uint
%ptr_buf = OpTypePointer StorageBuffer %Buf
%buf = OpVariable %ptr_buf StorageBuffer
%q = OpTypeUntypedPointerKHR StorageBuffer
%u0 = OpConstant %uint 0
%u4 = OpConstant %uint 4
%main = OpFunction %void None %fn
%entry = OpLabel
%d = qptr.buffer_data %q %buf
%f = qptr.offset %q %d %u0
%bits = OpLoad %uint %f
%u = qptr.offset %q %d %u4
OpStore %u %bits
OpReturn
OpFunctionEnd
"#;
    let run = run_text(&["lower", "qptr-lift", "lift"], false, input);
    let out = validated(&run);
    assert!(out.contains("OpLoad %float %"), "{out}");
    assert!(out.contains("OpBitcast %uint %"), "{out}");
}

#[test]
fn copy_memory_is_qptr_copy_only_with_experimental_ops() {
    let input = PARTICLES.replace(
        "%len = OpArrayLength %uint %buf 1",
        "%first = OpAccessChain %ptr_particle %buf %c1 %c0\nOpCopyMemory %elem %first\n%len = OpArrayLength %uint %buf 1",
    )
    .replace("OpName %w \"w\"", "OpName %w \"w\"\nOpName %first \"first\"");
    let passes = ["lower", "qptr-lower", "qptr-analyze", "qptr-lift", "lift"];
    let with = run_text(&passes, true, &input);
    let lowered = step_text(&with, "qptr-lower");
    // A particle is 24 bytes of data; its stride of 32 includes padding.
    assert!(
        lowered.contains("= qptr.copy %elem %first %uint_24"),
        "{lowered}"
    );
    let step = with.steps.iter().find(|s| s.pass == "qptr-lower").unwrap();
    assert_eq!(step.preview, vec!["qptr.copy"]);
    let out = validated(&with);
    assert!(out.contains("OpCopyMemory %elem %first"), "{out}");
    assert!(with.steps.last().unwrap().preview.is_empty());

    let without = run_text(&passes, false, &input);
    let lowered = step_text(&without, "qptr-lower");
    assert!(!lowered.contains("qptr.copy"), "{lowered}");
    assert!(lowered.contains("OpLoad %Particle %first"), "{lowered}");
    validated(&without);
}

/// A row-major matrix's column reached by a constant index and then one of its elements (two
/// chains), in a block whose member offsets do not increase with the members; and an element
/// of an array of sampled images (descriptors have no size, so no stride).
const SPLIT_CHAIN_AND_DESCRIPTOR_ARRAY: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 1 1 1
OpName %main "main"
OpName %col "col"
OpName %elt "elt"
OpName %tex "tex"
OpName %buf "buf"
OpDecorate %gid BuiltIn GlobalInvocationId
OpMemberDecorate %Buf 0 Offset 80
OpMemberDecorate %Buf 1 Offset 16
OpMemberDecorate %Buf 1 RowMajor
OpMemberDecorate %Buf 1 MatrixStride 16
OpMemberDecorate %Buf 2 Offset 0
OpDecorate %Buf Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
OpDecorate %tex DescriptorSet 0
OpDecorate %tex Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%v2float = OpTypeVector %float 2
%v3uint = OpTypeVector %uint 3
%v4float = OpTypeVector %float 4
%mat4 = OpTypeMatrix %v4float 4
%Buf = OpTypeStruct %float %mat4 %float
%ptr_buf = OpTypePointer StorageBuffer %Buf
%ptr_v4 = OpTypePointer StorageBuffer %v4float
%ptr_float = OpTypePointer StorageBuffer %float
%image = OpTypeImage %float 2D 0 0 0 1 Unknown
%simage = OpTypeSampledImage %image
%uint_4 = OpConstant %uint 4
%images = OpTypeArray %simage %uint_4
%ptr_images = OpTypePointer UniformConstant %images
%ptr_simage = OpTypePointer UniformConstant %simage
%ptr_in = OpTypePointer Input %v3uint
%buf = OpVariable %ptr_buf StorageBuffer
%tex = OpVariable %ptr_images UniformConstant
%gid = OpVariable %ptr_in Input
%int_0 = OpConstant %int 0
%int_1 = OpConstant %int 1
%int_2 = OpConstant %int 2
%uint_3 = OpConstant %uint 3
%float_0 = OpConstant %float 0
%uv = OpConstantComposite %v2float %float_0 %float_0
%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %id 0
%which = OpBitwiseAnd %uint %i %uint_3
%col = OpAccessChain %ptr_v4 %buf %int_1 %int_1
%elt = OpAccessChain %ptr_float %col %int_2
%v = OpLoad %float %elt
%one = OpAccessChain %ptr_simage %tex %which
%s = OpLoad %simage %one
%texel = OpImageSampleExplicitLod %v4float %s %uv Lod %float_0
%x = OpCompositeExtract %float %texel 0
%sum = OpFAdd %float %v %x
%dst = OpAccessChain %ptr_float %buf %int_0
OpStore %dst %sum
OpReturn
OpFunctionEnd
"#;

#[test]
fn split_row_major_chains_reordered_members_and_descriptor_arrays_are_lifted() {
    let run = run_text(
        &["lower", "qptr-lower", "qptr-analyze", "qptr-lift", "lift"],
        false,
        SPLIT_CHAIN_AND_DESCRIPTOR_ARRAY,
    );
    let lowered = run.steps.iter().find(|s| s.pass == "qptr-lower").unwrap();
    let kept: Vec<&String> = lowered
        .diagnostics
        .iter()
        .map(|d| &d.message)
        .filter(|m| m.contains("keeps typed pointers"))
        .collect();
    assert!(kept.is_empty(), "{kept:?}");
    assert!(step_text(&run, "qptr-lower").contains("qptr."));
    let out = validated(&run);
    // Column 1, element 2 of the row-major matrix at 16: byte 16 + 2 × 16 + 1 × 4 = 52.
    assert!(
        out.contains("%elt = OpAccessChain %_ptr_StorageBuffer_float %buf %int_1 %int_1 %int_2"),
        "{out}"
    );
    // Member 0 sits last (byte 80): found by its offset, not by its position.
    assert!(
        out.contains("OpAccessChain %_ptr_StorageBuffer_float %buf %int_0\n"),
        "{out}"
    );
}

/// Structs of structs that share their member types: alignment and size are computed once per
/// type, not once per path to it (the fuzzer found a module that took hours).
#[test]
fn deeply_shared_struct_types_are_laid_out_quickly() {
    let depth = 40;
    let mut text = String::from(
        "; Version: 1.3\nOpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n",
    );
    text += "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%s0 = OpTypeStruct %float %float\n";
    for k in 1..=depth {
        text += &format!("%s{k} = OpTypeStruct %s{} %s{}\n", k - 1, k - 1);
    }
    text += &format!(
        "%ptr = OpTypePointer Function %s{depth}\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%v = OpVariable %ptr Function\nOpReturn\nOpFunctionEnd\n"
    );
    let m = parse::parse(&text).unwrap();
    let layout = shaderstep::ir::qptr::Layout::new(&m);
    let top = m
        .globals()
        .iter()
        .rev()
        .find(|g| g.op() == spirv::Op::TypeStruct)
        .and_then(|g| g.result())
        .unwrap();
    assert_eq!(layout.align(top), 4);
}

/// Modf and Frexp write through a pointer: they are lowered as a struct result and a store, so
/// their functions keep no typed pointers, and the output validates.
#[test]
fn modf_and_frexp_out_parameters_are_lowered() {
    let s = corpus()
        .into_iter()
        .find(|s| s.path.to_string_lossy().contains("modf_frexp"))
        .unwrap();
    let run = Pipeline::preset("qptr")
        .unwrap()
        .run(Arc::new(s.words.clone()));
    let lowered = run.steps.iter().find(|st| st.pass == "qptr-lower").unwrap();
    let kept: Vec<&String> = lowered
        .diagnostics
        .iter()
        .map(|d| &d.message)
        .filter(|m| m.contains("keeps typed pointers"))
        .collect();
    assert!(kept.is_empty(), "{kept:?}");
    let out = run.output_words().unwrap();
    validate(&out, false).unwrap();
    let text = shaderstep::ir::print::print(run.final_module().unwrap());
    assert!(
        text.contains("ModfStruct") && text.contains("FrexpStruct"),
        "{text}"
    );
}
