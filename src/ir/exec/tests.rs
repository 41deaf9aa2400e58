use super::*;
use crate::ir::spirv::{asm, read};

/// A module assembled from `text`.
pub(crate) fn module(text: &str) -> Module {
    read::read_words(&asm::assemble(text).expect("assembles")).expect("reads")
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A compute shader's declarations: one buffer of words at set 0, binding 0, invocations of
/// four, and the types and constants the tests' bodies use.
pub(crate) const HEAD: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 4 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %buf Block
OpMemberDecorate %buf 0 Offset 0
OpDecorate %arr ArrayStride 4
OpDecorate %data DescriptorSet 0
OpDecorate %data Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%bool = OpTypeBool
%v3uint = OpTypeVector %uint 3
%arr = OpTypeRuntimeArray %uint
%buf = OpTypeStruct %arr
%ptr_buf = OpTypePointer StorageBuffer %buf
%ptr_u = OpTypePointer StorageBuffer %uint
%ptr_in = OpTypePointer Input %v3uint
%ptr_fu = OpTypePointer Function %uint
%data = OpVariable %ptr_buf StorageBuffer
%gid = OpVariable %ptr_in Input
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u3 = OpConstant %uint 3
%u10 = OpConstant %uint 10
"#;

/// Set 0, binding 0 holding `bytes`, over `groups` workgroups.
fn one_buffer(bytes: Vec<u8>, groups: [u32; 3]) -> Inputs {
    Inputs {
        buffers: vec![Buffer {
            set: 0,
            binding: 0,
            element: 0,
            bytes,
        }],
        groups,
        ..Inputs::default()
    }
}

/// `HEAD` then `body`, run on one buffer holding `data`.
fn run_text(body: &str, data: &[u32], groups: [u32; 3]) -> Execution {
    run_module(&format!("{HEAD}{body}"), data, groups)
}

/// A whole module's text, run on one buffer holding `data`.
fn run_module(text: &str, data: &[u32], groups: [u32; 3]) -> Execution {
    run(
        &module(text),
        None,
        &one_buffer(bytes(data), groups),
        &Options::default(),
    )
    .expect("runs")
}

/// data[i] = data[i] * 3 + i, over two workgroups of four.
const AFFINE: &str = r#"%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %id 0
%p = OpAccessChain %ptr_u %data %u0 %i
%x = OpLoad %uint %p
%y = OpIMul %uint %x %u3
%z = OpIAdd %uint %y %i
OpStore %p %z
OpReturn
OpFunctionEnd
"#;

#[test]
fn every_invocation_of_the_dispatch_runs() {
    let e = run_text(AFFINE, &[1, 2, 3, 4, 5, 6, 7, 8, 9], [2, 1, 1]);
    assert_eq!(
        words(&e.buffers[0].bytes),
        [3, 7, 11, 15, 19, 23, 27, 31, 9],
        "eight invocations, the ninth word untouched"
    );
    assert!(e.findings.is_empty(), "{:?}", e.findings);
    assert_eq!(e.invocation_of(5), [5, 0, 0]);
    assert_eq!(e.invocation_number([6, 0, 0]), Some(6));
}

/// A loop summing 0..data[i], with a phi; an index past the buffer's end.
const LOOP: &str = r#"%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %id 0
%p = OpAccessChain %ptr_u %data %u0 %i
%n = OpLoad %uint %p
OpBranch %head
%head = OpLabel
%k = OpPhi %uint %u0 %entry %k1 %body
%s = OpPhi %uint %u0 %entry %s1 %body
%more = OpULessThan %bool %k %n
OpLoopMerge %exit %body None
OpBranchConditional %more %body %exit
%body = OpLabel
%s1 = OpIAdd %uint %s %k
%k1 = OpIAdd %uint %k %u1
OpBranch %head
%exit = OpLabel
OpStore %p %s
%j = OpIAdd %uint %i %u10
%q = OpAccessChain %ptr_u %data %u0 %j
OpStore %q %u1
OpReturn
OpFunctionEnd
"#;

#[test]
fn loops_run_and_out_of_bounds_indices_are_findings() {
    let e = run_text(LOOP, &[3, 4, 0, 10], [1, 1, 1]);
    assert_eq!(words(&e.buffers[0].bytes), [3, 6, 0, 45]);
    let oob: Vec<&Finding> = e
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::OutOfBounds)
        .collect();
    assert_eq!(oob.len(), 1, "{:?}", e.findings);
    assert_eq!(oob[0].count, 4, "every invocation indexes past the end");
}

const DIVIDE: &str = r#"%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %id 0
%p = OpAccessChain %ptr_u %data %u0 %i
%x = OpLoad %uint %p
%q = OpUDiv %uint %u10 %x
OpStore %p %q
OpReturn
OpFunctionEnd
"#;

#[test]
fn division_by_zero_is_a_finding_and_its_result_undefined() {
    let e = run_text(DIVIDE, &[1, 0, 5, 2], [1, 1, 1]);
    let kinds: Vec<&FindingKind> = e.findings.iter().map(|f| &f.kind).collect();
    assert_eq!(
        kinds,
        [&FindingKind::UndefinedResult, &FindingKind::UndefinedOutput],
        "{:?}",
        e.findings
    );
    assert_eq!(e.findings[0].invocation, 1);
    let w = words(&e.buffers[0].bytes);
    assert_eq!((w[0], w[2], w[3]), (10, 2, 5));
}

#[test]
fn the_first_difference_names_the_value_that_changed() {
    let a = run_text(AFFINE, &[1, 2, 3, 4], [1, 1, 1]);
    // The same shader with the add made a subtract, ids kept.
    let b = run_text(
        &AFFINE.replace("OpIAdd", "OpISub"),
        &[1, 2, 3, 4],
        [1, 1, 1],
    );
    let d = first_difference(&a, &b).expect("they differ");
    let m = module(&format!("{HEAD}{AFFINE}"));
    let add = m.functions()[0]
        .insts()
        .find(|i| i.op() == Op::IAdd)
        .and_then(Inst::result);
    assert_eq!(Some(d.id), add, "the add, not the store after it");
    assert_eq!(d.invocation, 1, "invocation 0 adds and subtracts 0");
    assert_eq!((show(&d.value), show(&d.against)), ("7".into(), "5".into()));
    assert!(first_difference(&a, &a).is_none());
}

#[test]
fn a_loop_that_does_not_end_stops_at_the_budget() {
    let body = r#"%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %head
%head = OpLabel
OpLoopMerge %exit %head None
OpBranchConditional %true %head %exit
%exit = OpLabel
OpReturn
OpFunctionEnd
"#;
    let m = module(&format!("{HEAD}%true = OpConstantTrue %bool\n{body}"));
    let inputs = one_buffer(vec![0; 16], [1, 1, 1]);
    let options = Options {
        budget: 10_000,
        ..Options::default()
    };
    let e = run(&m, None, &inputs, &options).expect("runs");
    assert_eq!(e.findings.len(), 1);
    assert_eq!(e.findings[0].kind, FindingKind::Budget);
}

/// Each workgroup reverses its four words through workgroup memory, across a barrier.
const REVERSE: &str = r#"%u2 = OpConstant %uint 2
%u4 = OpConstant %uint 4
%u264 = OpConstant %uint 264
%arr4 = OpTypeArray %uint %u4
%ptr_wg_arr = OpTypePointer Workgroup %arr4
%ptr_wg_u = OpTypePointer Workgroup %uint
%shared = OpVariable %ptr_wg_arr Workgroup
%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %id 0
%l = OpUMod %uint %i %u4
%p = OpAccessChain %ptr_u %data %u0 %i
%x = OpLoad %uint %p
%s = OpAccessChain %ptr_wg_u %shared %l
OpStore %s %x
OpControlBarrier %u2 %u2 %u264
%r = OpISub %uint %u3 %l
%sr = OpAccessChain %ptr_wg_u %shared %r
%y = OpLoad %uint %sr
OpStore %p %y
OpReturn
OpFunctionEnd
"#;

#[test]
fn invocations_wait_for_each_other_at_a_barrier() {
    let e = run_text(REVERSE, &[1, 2, 3, 4, 5, 6, 7, 8], [2, 1, 1]);
    assert_eq!(words(&e.buffers[0].bytes), [4, 3, 2, 1, 8, 7, 6, 5]);
    assert!(e.findings.is_empty(), "{:?}", e.findings);
}

/// Each invocation adds its number plus one to word 8 and keeps what was there before; the
/// order invocations run in is fixed, so what each sees is too.
const ATOMIC: &str = r#"%u8 = OpConstant %uint 8
%u1dev = OpConstant %uint 1
%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %id 0
%n = OpFunctionCall %uint %next %i
%total = OpAccessChain %ptr_u %data %u0 %u8
%old = OpAtomicIAdd %uint %total %u1dev %u0 %n
%p = OpAccessChain %ptr_u %data %u0 %i
OpStore %p %old
OpReturn
OpFunctionEnd
%next = OpFunction %uint None %fn_uu
%a = OpFunctionParameter %uint
%body = OpLabel
%b = OpIAdd %uint %a %u1
OpReturnValue %b
OpFunctionEnd
"#;

#[test]
fn calls_return_values_and_atomics_read_modify_write() {
    let text = ATOMIC.replace("%u8 = ", "%fn_uu = OpTypeFunction %uint %uint\n%u8 = ");
    let e = run_text(&text, &[0; 9], [2, 1, 1]);
    assert_eq!(words(&e.buffers[0].bytes), [0, 1, 3, 6, 10, 15, 21, 28, 36]);
}

const LINEAR: &str = r#"%float = OpTypeFloat 32
%v2 = OpTypeVector %float 2
%m2 = OpTypeMatrix %v2 2
%f1 = OpConstant %float 1
%f2 = OpConstant %float 2
%f3 = OpConstant %float 3
%f4 = OpConstant %float 4
%f5 = OpConstant %float 5
%f6 = OpConstant %float 6
%c0 = OpConstantComposite %v2 %f1 %f2
%c1 = OpConstantComposite %v2 %f3 %f4
%m = OpConstantComposite %m2 %c0 %c1
%v = OpConstantComposite %v2 %f5 %f6
%u2 = OpConstant %uint 2
%main = OpFunction %void None %fn
%entry = OpLabel
%r = OpMatrixTimesVector %v2 %m %v
%r0 = OpCompositeExtract %float %r 0
%r1 = OpCompositeExtract %float %r 1
%d = OpDot %float %v %v
%a = OpConvertFToU %uint %r0
%b = OpConvertFToU %uint %r1
%c = OpConvertFToU %uint %d
%p0 = OpAccessChain %ptr_u %data %u0 %u0
%p1 = OpAccessChain %ptr_u %data %u0 %u1
%p2 = OpAccessChain %ptr_u %data %u0 %u2
OpStore %p0 %a
OpStore %p1 %b
OpStore %p2 %c
OpReturn
OpFunctionEnd
"#;

#[test]
fn matrices_and_dot_products_are_the_folder_rules_composed() {
    let text = LINEAR.replace("LocalSize 4 1 1", "LocalSize 1 1 1");
    let e = run_text(&text, &[0; 3], [1, 1, 1]);
    // Columns (1, 2) and (3, 4) times (5, 6); (5, 6) . (5, 6).
    assert_eq!(words(&e.buffers[0].bytes), [23, 34, 61]);
}

#[test]
fn variables_bound_to_one_binding_are_one_buffer() {
    // %alias is set 0, binding 0 too: the store through it is what %data reads back.
    let text = format!("{HEAD}{AFFINE}")
        .replace(
            "OpDecorate %data Binding 0\n",
            "OpDecorate %data Binding 0\nOpDecorate %alias DescriptorSet 0\nOpDecorate %alias Binding 0\n",
        )
        .replace(
            "%gid = OpVariable %ptr_in Input\n",
            "%gid = OpVariable %ptr_in Input\n%alias = OpVariable %ptr_buf StorageBuffer\n",
        )
        .replace("%p = OpAccessChain %ptr_u %data %u0 %i\n%x = OpLoad %uint %p", "%p = OpAccessChain %ptr_u %alias %u0 %i\n%x = OpLoad %uint %p");
    let e = run_module(&text, &[1, 2, 3, 4], [1, 1, 1]);
    assert_eq!(words(&e.buffers[0].bytes), [3, 7, 11, 15]);
}

#[test]
fn specialization_constants_run_at_their_defaults() {
    // A WorkgroupSize built-in made of spec constants overrides LocalSize: two invocations a
    // group, each adding the spec constant op's 3 + 4.
    let text = format!("{HEAD}{AFFINE}")
        .replace(
            "OpDecorate %gid BuiltIn GlobalInvocationId\n",
            "OpDecorate %gid BuiltIn GlobalInvocationId\nOpDecorate %wgs BuiltIn WorkgroupSize\n",
        )
        .replace(
            "%u10 = OpConstant %uint 10\n",
            "%u10 = OpConstant %uint 10\n%s2 = OpSpecConstant %uint 2\n%wgs = OpSpecConstantComposite %v3uint %s2 %u1 %u1\n%s4 = OpSpecConstant %uint 4\n%s7 = OpSpecConstantOp %uint IAdd %u3 %s4\n",
        )
        .replace("%z = OpIAdd %uint %y %i", "%z = OpIAdd %uint %y %s7");
    let e = run_module(&text, &[1, 2, 3, 4, 5], [2, 1, 1]);
    assert_eq!(e.local_size, [2, 1, 1]);
    assert_eq!(words(&e.buffers[0].bytes), [10, 13, 16, 19, 5]);
}

#[test]
fn invocations_writing_one_word_without_a_barrier_race() {
    // Every invocation stores its id into word 0 after the barrier: nothing orders those
    // stores, within a workgroup or across the two.
    let body = REVERSE
        .replace(
            "%s = OpAccessChain %ptr_wg_u %shared %l\nOpStore %s %x\n",
            "",
        )
        .replace(
            "%sr = OpAccessChain %ptr_wg_u %shared %r\n%y = OpLoad %uint %sr\n",
            "",
        )
        .replace(
            "OpStore %p %y",
            "%w = OpAccessChain %ptr_u %data %u0 %u0\nOpStore %w %i",
        );
    let e = run_text(&body, &[9, 9, 9, 9, 9, 9, 9, 9], [2, 1, 1]);
    let races: Vec<&Finding> = e
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::Race)
        .collect();
    assert_eq!(races.len(), 1, "{:?}", e.findings);
    assert!(races[0].detail.contains("wrote"), "{:?}", races[0]);
    assert_eq!(
        e.contents[0].at(&[0, 0]),
        Some(&Mem::Leaf(None)),
        "a raced word is undefined"
    );
    // (The workgroup-memory accesses of REVERSE, ordered by its barrier, do not race:
    // `invocations_wait_for_each_other_at_a_barrier` finds nothing.)
}

const GEOMETRY: &str = r#"%float = OpTypeFloat 32
%v3 = OpTypeVector %float 3
%f0 = OpConstant %float 0
%f1 = OpConstant %float 1
%f3 = OpConstant %float 3
%f4 = OpConstant %float 4
%x = OpConstantComposite %v3 %f1 %f0 %f0
%y = OpConstantComposite %v3 %f0 %f1 %f0
%a = OpConstantComposite %v3 %f3 %f4 %f0
%u2 = OpConstant %uint 2
%main = OpFunction %void None %fn
%entry = OpLabel
%len = OpExtInst %float %glsl Length %a
%z = OpExtInst %v3 %glsl Cross %x %y
%z2 = OpCompositeExtract %float %z 2
%n = OpExtInst %v3 %glsl Normalize %a
%n1 = OpCompositeExtract %float %n 1
%n1x10 = OpFMul %float %n1 %f4
%r = OpExtInst %v3 %glsl Reflect %a %y
%r1 = OpCompositeExtract %float %r 1
%neg = OpFNegate %float %r1
%p0 = OpAccessChain %ptr_u %data %u0 %u0
%p1 = OpAccessChain %ptr_u %data %u0 %u1
%p2 = OpAccessChain %ptr_u %data %u0 %u2
%w0 = OpConvertFToU %uint %len
%w1 = OpConvertFToU %uint %z2
%w2 = OpConvertFToU %uint %neg
OpStore %p0 %w0
OpStore %p1 %w1
OpStore %p2 %w2
OpReturn
OpFunctionEnd
"#;

#[test]
fn geometric_functions_are_the_folder_rules_composed() {
    let text = format!("{HEAD}{GEOMETRY}")
        .replace(
            "OpMemoryModel Logical GLSL450\n",
            "%glsl = OpExtInstImport \"GLSL.std.450\"\nOpMemoryModel Logical GLSL450\n",
        )
        .replace("LocalSize 4 1 1", "LocalSize 1 1 1");
    let e = run_module(&text, &[0; 3], [1, 1, 1]);
    // |(3, 4, 0)| = 5; x × y = z; (3, 4, 0) reflected on y: (3, -4, 0).
    assert_eq!(words(&e.buffers[0].bytes), [5, 1, 4]);
    assert!(e.findings.is_empty(), "{:?}", e.findings);
}

/// A vector written one component at a time, loaded whole, with its other components never
/// written: the written one stays defined through the load, an insert, a shuffle and an
/// extract; only the unwritten ones are undefined.
#[test]
fn a_partly_written_vector_keeps_its_defined_parts() {
    let body = r#"%v2uint = OpTypeVector %uint 2
%ptr_fv = OpTypePointer Function %v2uint
%ptr_fx = OpTypePointer Function %uint
%undef = OpUndef %v2uint
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr_fv Function
%id = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %id 0
%vx = OpAccessChain %ptr_fx %v %u0
OpStore %vx %i
%whole = OpLoad %v2uint %v
%ins = OpCompositeInsert %v2uint %i %undef 1
%shuf = OpVectorShuffle %v2uint %whole %ins 0 3
%a = OpCompositeExtract %uint %shuf 0
%b = OpCompositeExtract %uint %shuf 1
%sum = OpIAdd %uint %a %b
%p = OpAccessChain %ptr_u %data %u0 %i
OpStore %p %sum
%y = OpCompositeExtract %uint %whole 1
%q = OpIAdd %uint %i %u1
%pq = OpAccessChain %ptr_u %data %u0 %q
OpStore %pq %y
OpReturn
OpFunctionEnd
"#;
    let e = run_text(body, &[0; 8], [1, 1, 1]);
    let whole = e
        .trace
        .iter()
        .find(|ev| ev.invocation == 1 && matches!(ev.value, Value::Partly(_)))
        .expect("a partly defined value");
    assert_eq!(show(&whole.value), "(1, undef)");
    assert!(
        !e.findings
            .iter()
            .any(|f| f.kind == FindingKind::UninitialisedRead),
        "the load of a partly written vector is no finding: {:?}",
        e.findings
    );
    // Invocation 3 wrote 3 + 3 (its own word) and nothing after it; the undefined component
    // stored past each invocation's word is a finding.
    assert_eq!(words(&e.buffers[0].bytes)[3], 6);
    assert!(e
        .findings
        .iter()
        .any(|f| f.kind == FindingKind::UndefinedOutput));
}

/// Types and capabilities the op tests below share: one invocation reads `%in0`, `%in1`, …
/// (the buffer's words) and stores `%o0`, `%o1`, … (words) over them.
const OPS_HEAD: &str = r#"; Version: 1.6
OpCapability Shader
OpCapability Float16
OpCapability Float64
OpCapability Int64
OpCapability DotProduct
OpCapability DotProductInput4x8BitPacked
OpCapability ExpectAssumeKHR
OpCapability IntegerFunctions2INTEL
OpExtension "SPV_KHR_expect_assume"
OpExtension "SPV_INTEL_shader_integer_functions2"
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %data
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %buf Block
OpMemberDecorate %buf 0 Offset 0
OpDecorate %arr ArrayStride 4
OpDecorate %data DescriptorSet 0
OpDecorate %data Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%ulong = OpTypeInt 64 0
%half = OpTypeFloat 16
%float = OpTypeFloat 32
%double = OpTypeFloat 64
%bool = OpTypeBool
%v2uint = OpTypeVector %uint 2
%v2half = OpTypeVector %half 2
%v2float = OpTypeVector %float 2
%m2float = OpTypeMatrix %v2float 2
%arr = OpTypeRuntimeArray %uint
%buf = OpTypeStruct %arr
%ptr_buf = OpTypePointer StorageBuffer %buf
%ptr_u = OpTypePointer StorageBuffer %uint
%data = OpVariable %ptr_buf StorageBuffer
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%u4 = OpConstant %uint 4
%u8 = OpConstant %uint 8
%u30 = OpConstant %uint 30
%f0 = OpConstant %float 0
%f1 = OpConstant %float 1
%f2 = OpConstant %float 2
%f4 = OpConstant %float 4
%true = OpConstantTrue %bool
"#;

/// Runs `types` (more types and constants) and `body` (instructions defining `%o0`…
/// `%o{outs - 1}`, words) on one invocation whose buffer holds `input`, loaded as `%in0`…;
/// the words it stores and its findings.
fn run_ops(types: &str, body: &str, outs: usize, input: &[u32]) -> (Vec<u32>, Vec<Finding>) {
    let mut text = format!("{OPS_HEAD}{types}");
    let n = outs.max(input.len());
    for k in 0..n {
        text += &format!("%k{k} = OpConstant %uint {k}\n");
    }
    text += "%main = OpFunction %void None %fn\n%entry = OpLabel\n";
    for k in 0..input.len() {
        text += &format!(
            "%pin{k} = OpAccessChain %ptr_u %data %u0 %k{k}\n%in{k} = OpLoad %uint %pin{k}\n"
        );
    }
    text += body;
    for k in 0..outs {
        text +=
            &format!("%pout{k} = OpAccessChain %ptr_u %data %u0 %k{k}\nOpStore %pout{k} %o{k}\n");
    }
    text += "OpReturn\nOpFunctionEnd\n";
    let mut data = input.to_vec();
    data.resize(n, 0);
    let e = run_module(&text, &data, [1, 1, 1]);
    (words(&e.buffers[0].bytes), e.findings)
}

#[test]
fn bitcasts_between_component_counts_keep_the_first_component_lowest() {
    let body = r#"%v = OpCompositeConstruct %v2uint %in0 %in1
%d = OpBitcast %double %v
%d3 = OpFAdd %double %d %d1
%w = OpBitcast %v2uint %d3
%o0 = OpCompositeExtract %uint %w 1
%o1 = OpCompositeExtract %uint %w 0
%l = OpBitcast %ulong %v
%hi = OpShiftRightLogical %ulong %l %ul32
%o2 = OpUConvert %uint %hi
%h = OpBitcast %v2half %in2
%h1 = OpCompositeExtract %half %h 1
%f = OpFConvert %float %h1
%o3 = OpBitcast %uint %f
%back = OpBitcast %uint %h
%o4 = OpIAdd %uint %back %u1
"#;
    let types = "%d1 = OpConstant %double 1\n%ul32 = OpConstant %ulong 32\n";
    // (0, 0x40000000) is the double 2.0; plus 1 is 3.0, 0x4008000000000000.
    let (w, findings) = run_ops(types, body, 5, &[0, 0x4000_0000, 0xc000_3c00]);
    assert_eq!(
        w,
        [
            0x4008_0000,
            0,
            0x4000_0000,
            (-2.0f32).to_bits(),
            0xc000_3c01
        ]
    );
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn bit_field_ops_run_on_vectors_with_scalar_offset_and_count() {
    let body = r#"%v = OpCompositeConstruct %v2uint %in0 %in1
%s = OpBitFieldSExtract %v2uint %v %u8 %u4
%o0 = OpCompositeExtract %uint %s 0
%o1 = OpCompositeExtract %uint %s 1
%i = OpBitFieldInsert %v2uint %v %s %u4 %u4
%o2 = OpCompositeExtract %uint %i 0
%r = OpBitReverse %uint %in1
%o3 = OpBitCount %uint %r
%o4 = OpUCountLeadingZerosINTEL %uint %in1
%o5 = OpBitFieldUExtract %uint %in0 %u30 %u4
"#;
    let (w, findings) = run_ops("", body, 6, &[0x0000_0f00, 0x0000_0700]);
    // Bits 8..12: 0xf (sign-extended, -1) and 7; -1's low four bits put at bit 4 of 0xf00.
    assert_eq!(&w[..5], [0xffff_ffff, 7, 0xff0, 3, 21]);
    // A field past bit 31 is undefined: a finding, and so is the word stored from it.
    let kinds: Vec<&FindingKind> = findings.iter().map(|f| &f.kind).collect();
    assert_eq!(
        kinds,
        [&FindingKind::UndefinedResult, &FindingKind::UndefinedOutput],
        "{findings:?}"
    );
    assert!(
        findings[0].detail.contains("OpBitFieldUExtract"),
        "{findings:?}"
    );
}

#[test]
fn float_ops_follow_their_nan_sign_and_rounding_rules() {
    let body = r#"%x = OpBitcast %float %in0
%nan = OpBitcast %float %in1
%r = OpExtInst %float %glsl Round %x
%o0 = OpBitcast %uint %r
%m = OpFMod %float %x %f2
%o1 = OpBitcast %uint %m
%q = OpFRem %float %x %f2
%o2 = OpBitcast %uint %q
%ne = OpFUnordNotEqual %bool %nan %nan
%lt = OpFUnordLessThan %bool %nan %f1
%ord = OpFOrdLessThan %bool %nan %f1
%b0 = OpSelect %uint %ne %u1 %u0
%b1 = OpSelect %uint %lt %u2 %u0
%b2 = OpSelect %uint %ord %u4 %u0
%b01 = OpBitwiseOr %uint %b0 %b1
%o3 = OpBitwiseOr %uint %b01 %b2
%n = OpExtInst %float %glsl NMin %nan %x
%o4 = OpBitcast %uint %n
%c = OpExtInst %float %glsl NClamp %nan %f1 %f2
%o5 = OpBitcast %uint %c
%z = OpQuantizeToF16 %float %big
%o6 = OpBitcast %uint %z
%half_x = OpExtInst %float %glsl Round %f2_5
%o7 = OpBitcast %uint %half_x
"#;
    let types = "%big = OpConstant %float 70000\n%f2_5 = OpConstant %float 2.5\n";
    let (w, findings) = run_ops(types, body, 8, &[(-5.25f32).to_bits(), 0x7fc0_0000]);
    let b = |x: f32| x.to_bits();
    // FMod takes the divisor's sign, FRem the dividend's; NaN is unordered; NMin and NClamp
    // take the number; 70000 is past f16's range.
    assert_eq!(
        &w[..7],
        [
            b(-5.0),
            b(0.75),
            b(-1.25),
            0b011,
            b(-5.25),
            b(1.0),
            b(f32::INFINITY)
        ]
    );
    // Round of exactly 2.5 has no one value: undefined.
    assert!(
        findings
            .iter()
            .any(|f| f.kind == FindingKind::UndefinedResult && f.detail.contains("Round of 2.5")),
        "{findings:?}"
    );
}

#[test]
fn ops_with_struct_results_make_both_members() {
    let types = r#"%carry = OpTypeStruct %uint %uint
%carry2 = OpTypeStruct %v2uint %v2uint
%wide = OpTypeStruct %int %int
%modf = OpTypeStruct %float %float
%frexp = OpTypeStruct %float %int
%u3 = OpConstant %uint 3
%int2 = OpConstant %int 2
"#;
    let body = r#"%c = OpIAddCarry %carry %in0 %u2
%o0 = OpCompositeExtract %uint %c 0
%o1 = OpCompositeExtract %uint %c 1
%v = OpCompositeConstruct %v2uint %in0 %u1
%w = OpCompositeConstruct %v2uint %u3 %u2
%b = OpISubBorrow %carry2 %v %w
%o2 = OpCompositeExtract %uint %b 0 1
%o3 = OpCompositeExtract %uint %b 1 1
%neg = OpBitcast %int %in1
%s = OpSMulExtended %wide %neg %int2
%lo = OpCompositeExtract %int %s 0
%hi = OpCompositeExtract %int %s 1
%o4 = OpBitcast %uint %lo
%o5 = OpBitcast %uint %hi
%x = OpBitcast %float %in2
%m = OpExtInst %modf %glsl ModfStruct %x
%mf = OpCompositeExtract %float %m 0
%mw = OpCompositeExtract %float %m 1
%o6 = OpBitcast %uint %mf
%o7 = OpBitcast %uint %mw
%e = OpExtInst %frexp %glsl FrexpStruct %x
%em = OpCompositeExtract %float %e 0
%ee = OpCompositeExtract %int %e 1
%o8 = OpBitcast %uint %em
%o9 = OpBitcast %uint %ee
"#;
    let (w, findings) = run_ops(
        types,
        body,
        10,
        &[0xffff_ffff, 0x8000_0000, (-6.0f32).to_bits()],
    );
    let b = |x: f32| x.to_bits();
    // 0xffffffff + 2 carries; 1 - 2 (second components) borrows; INT_MIN * 2 = -2^32; -6
    // splits into -0.0 and -6, and into -0.75 * 2^3.
    assert_eq!(
        w,
        [
            1,
            1,
            0xffff_ffff,
            1,
            0,
            0xffff_ffff,
            b(-0.0),
            b(-6.0),
            b(-0.75),
            3
        ]
    );
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn integer_functions_dot_products_and_packing() {
    let body = r#"%o0 = OpExtInst %uint %glsl FindSMsb %in0
%o1 = OpExtInst %uint %glsl FindILsb %in1
%o2 = OpExtInst %uint %glsl FindUMsb %u0
%d = OpSDot %int %in2 %in3 PackedVectorFormat4x8Bit
%o3 = OpBitcast %uint %d
%o4 = OpUDot %uint %in2 %in3 PackedVectorFormat4x8Bit
%v = OpCompositeConstruct %v2float %f1 %fm2
%o5 = OpExtInst %uint %glsl PackHalf2x16 %v
%u = OpExtInst %v2float %glsl UnpackHalf2x16 %o5
%hi = OpCompositeExtract %float %u 1
%o6 = OpBitcast %uint %hi
%o7 = OpExtInst %uint %glsl PackUnorm4x8 %v4
%dv = OpCompositeConstruct %v2uint %in1 %in0
%dd = OpExtInst %double %glsl PackDouble2x32 %dv
%dw = OpExtInst %v2uint %glsl UnpackDouble2x32 %dd
%o8 = OpCompositeExtract %uint %dw 1
%o9 = OpUDotAccSat %uint %in2 %in3 %high PackedVectorFormat4x8Bit
"#;
    let types = r#"%high = OpConstant %uint 0xffffff00
%fm2 = OpConstant %float -2
%v4float = OpTypeVector %float 4
%f0_2 = OpConstant %float 0.2
%v4 = OpConstantComposite %v4float %f1 %f0 %f0_2 %f4
"#;
    // -17: its highest clear bit is 4; 0x50: its lowest set bit 4; bytes (-1, 2, 3, -128)
    // and (-1, 1, 1, 2) dot to 1 + 2 + 3 - 256 signed, 65025 + 5 + 256 unsigned.
    let (w, findings) = run_ops(
        types,
        body,
        10,
        &[(-17i32) as u32, 0x50, 0x8003_02ff, 0x0201_01ff],
    );
    assert_eq!(
        w,
        [
            4,
            4,
            0xffff_ffff,
            (-250i32) as u32,
            65286,
            0xc000_3c00,
            (-2.0f32).to_bits(),
            0xff33_00ff,
            (-17i32) as u32,
            0xffff_ffff
        ],
        "…, and 65286 added to 0xffffff00 saturates"
    );
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn dynamic_indices_logical_copies_and_assumptions() {
    let types = r#"%pa = OpTypeStruct %uint %float
%pb = OpTypeStruct %uint %float
%u99 = OpConstant %uint 99
"#;
    let body = r#"%v = OpCompositeConstruct %v2uint %in0 %in1
%o0 = OpVectorExtractDynamic %uint %v %in2
%ins = OpVectorInsertDynamic %v2uint %v %u99 %u0
%o1 = OpCompositeExtract %uint %ins 0
%o2 = OpCompositeExtract %uint %ins 1
%a = OpCompositeConstruct %pa %in0 %f2
%c = OpCopyLogical %pb %a
%o3 = OpCompositeExtract %uint %c 0
OpAssumeTrueKHR %true
%o4 = OpVectorExtractDynamic %uint %v %in3
%o5 = OpExpectKHR %uint %in1 %u1
"#;
    let (w, findings) = run_ops(types, body, 6, &[7, 8, 1, 2]);
    assert_eq!(&w[..4], [8, 99, 8, 7]);
    assert_eq!(w[5], 8, "ExpectKHR is its value");
    // Index 2 of a two-component vector: undefined.
    assert_eq!(findings.len(), 2, "{findings:?}");
    assert_eq!(findings[0].kind, FindingKind::UndefinedResult);
    assert!(
        findings[0].detail.contains("OpVectorExtractDynamic"),
        "{findings:?}"
    );
}

#[test]
fn matrix_inverse_is_the_folder_rules_composed() {
    // Columns (1, 2) and (3, 4): rows (1 3; 2 4), determinant -2, inverse (-2 1.5; 1 -0.5).
    let types = r#"%f3 = OpConstant %float 3
%c0 = OpConstantComposite %v2float %f1 %f2
%c1 = OpConstantComposite %v2float %f3 %f4
%m = OpConstantComposite %m2float %c0 %c1
%z = OpConstantComposite %v2float %f0 %f0
%singular = OpConstantComposite %m2float %c0 %z
"#;
    let body = r#"%i = OpExtInst %m2float %glsl MatrixInverse %m
%i00 = OpCompositeExtract %float %i 0 0
%i01 = OpCompositeExtract %float %i 0 1
%i10 = OpCompositeExtract %float %i 1 0
%i11 = OpCompositeExtract %float %i 1 1
%o0 = OpBitcast %uint %i00
%o1 = OpBitcast %uint %i01
%o2 = OpBitcast %uint %i10
%o3 = OpBitcast %uint %i11
%det = OpExtInst %float %glsl Determinant %m
%o4 = OpBitcast %uint %det
%s = OpExtInst %m2float %glsl MatrixInverse %singular
%s00 = OpCompositeExtract %float %s 0 0
%o5 = OpBitcast %uint %s00
"#;
    // 3x3: rows (2 0 0; 0 1 2; 0 1 3), inverse (0.5 0 0; 0 3 -2; 0 -1 1). 4x4: rows
    // (1 0 0 1; 0 2 0 0; 0 0 4 0; 0 0 0 8), whose inverse has -1/8 at row 0, column 3.
    let types = format!(
        "{types}{}",
        r#"%v3float = OpTypeVector %float 3
%m3float = OpTypeMatrix %v3float 3
%v4float = OpTypeVector %float 4
%m4float = OpTypeMatrix %v4float 4
%f8 = OpConstant %float 8
%a0 = OpConstantComposite %v3float %f2 %f0 %f0
%a1 = OpConstantComposite %v3float %f0 %f1 %f1
%a2 = OpConstantComposite %v3float %f0 %f2 %f3
%m3 = OpConstantComposite %m3float %a0 %a1 %a2
%b0 = OpConstantComposite %v4float %f1 %f0 %f0 %f0
%b1 = OpConstantComposite %v4float %f0 %f2 %f0 %f0
%b2 = OpConstantComposite %v4float %f0 %f0 %f4 %f0
%b3 = OpConstantComposite %v4float %f1 %f0 %f0 %f8
%m4 = OpConstantComposite %m4float %b0 %b1 %b2 %b3
"#
    );
    let body = format!(
        "{body}{}",
        r#"%i3 = OpExtInst %m3float %glsl MatrixInverse %m3
%i3_11 = OpCompositeExtract %float %i3 1 1
%i3_21 = OpCompositeExtract %float %i3 2 1
%i3_12 = OpCompositeExtract %float %i3 1 2
%o6 = OpBitcast %uint %i3_11
%o7 = OpBitcast %uint %i3_21
%o8 = OpBitcast %uint %i3_12
%i4 = OpExtInst %m4float %glsl MatrixInverse %m4
%i4_30 = OpCompositeExtract %float %i4 3 0
%i4_33 = OpCompositeExtract %float %i4 3 3
%o9 = OpBitcast %uint %i4_30
%o10 = OpBitcast %uint %i4_33
"#
    );
    let (w, findings) = run_ops(&types, &body, 11, &[]);
    let b = |x: f32| x.to_bits();
    assert_eq!(&w[..5], [b(-2.0), b(1.0), b(1.5), b(-0.5), b(-2.0)]);
    assert_eq!(
        &w[6..],
        [b(3.0), b(-2.0), b(-1.0), b(-0.125), b(0.125)],
        "3x3 and 4x4"
    );
    assert_eq!(
        findings[0].kind,
        FindingKind::UndefinedResult,
        "{findings:?}"
    );
    assert!(findings[0].detail.contains("MatrixInverse"), "{findings:?}");
}

#[test]
fn mix_and_refract_are_the_folder_rules_composed() {
    let types = r#"%f3 = OpConstant %float 3
%f025 = OpConstant %float 0.25
%f05 = OpConstant %float 0.5
%f2e = OpConstant %float 2
%x = OpConstantComposite %v2float %f0 %f4
%y = OpConstantComposite %v2float %f4 %f0
%a = OpConstantComposite %v2float %f025 %f05
%i = OpConstantComposite %v2float %f0 %f1
%n = OpConstantComposite %v2float %f0 %f1
%j = OpConstantComposite %v2float %f1 %f0
"#;
    // mix((0, 4), (4, 0), (0.25, 0.5)) = (1, 2). refract((0, 1), (0, 1), 0.5): k = 1,
    // (0, 1) * 0.5 - (0.5 + 1) (0, 1) = (0, -1). refract((1, 0), (0, 1), 2): k = -3, so 0.
    let body = r#"%m = OpExtInst %v2float %glsl FMix %x %y %a
%m0 = OpCompositeExtract %float %m 0
%m1 = OpCompositeExtract %float %m 1
%o0 = OpBitcast %uint %m0
%o1 = OpBitcast %uint %m1
%r = OpExtInst %v2float %glsl Refract %i %n %f05
%r1 = OpCompositeExtract %float %r 1
%o2 = OpBitcast %uint %r1
%t = OpExtInst %v2float %glsl Refract %j %n %f2e
%t0 = OpCompositeExtract %float %t 0
%o3 = OpBitcast %uint %t0
"#;
    let (w, findings) = run_ops(types, body, 4, &[]);
    let b = |x: f32| x.to_bits();
    assert_eq!(w, [b(1.0), b(2.0), b(-1.0), b(0.0)], "{findings:?}");
}

#[test]
fn a_pointer_access_chain_moves_along_the_array_its_base_is_in() {
    // data[0] = *(&data[1] + 2) on a variable pointer: data[3]; one invocation writes.
    let text = HEAD
        .replace(
            "OpCapability Shader\n",
            "OpCapability Shader\nOpCapability VariablePointersStorageBuffer\n",
        )
        .replace(
            "OpDecorate %arr ArrayStride 4\n",
            "OpDecorate %arr ArrayStride 4\nOpDecorate %ptr_u ArrayStride 4\n",
        );
    let body = r#"%u2 = OpConstant %uint 2
%main = OpFunction %void None %fn
%entry = OpLabel
%id = OpLoad %v3uint %gid
%i = OpCompositeExtract %uint %id 0
%first = OpIEqual %bool %i %u0
OpSelectionMerge %end None
OpBranchConditional %first %write %end
%write = OpLabel
%p = OpAccessChain %ptr_u %data %u0 %u1
%q = OpPtrAccessChain %ptr_u %p %u2
%x = OpLoad %uint %q
%o = OpAccessChain %ptr_u %data %u0 %u0
OpStore %o %x
OpBranch %end
%end = OpLabel
OpReturn
OpFunctionEnd
"#;
    let e = run_module(&format!("{text}{body}"), &[0, 10, 20, 30, 40], [1, 1, 1]);
    assert_eq!(words(&e.buffers[0].bytes), [30, 10, 20, 30, 40]);
}

#[test]
fn modf_through_a_pointer_fma_and_smoothstep_run() {
    let types = r#"%ptr_ff = OpTypePointer Function %float
%f25 = OpConstant %float 2.5
%fm25 = OpConstant %float -2.5
%f3 = OpConstant %float 3
%f05 = OpConstant %float 0.5
"#;
    // modf(-2.5) = -0.5 with -2 stored; fma(2.5, 2, 3) = 8; smoothstep(0, 2, 0.5): t = 0.25,
    // 0.0625 * 2.5 = 0.15625; smoothstep(2, 2, x) is undefined.
    let body = r#"%whole = OpVariable %ptr_ff Function
%frac = OpExtInst %float %glsl Modf %fm25 %whole
%w = OpLoad %float %whole
%o0 = OpBitcast %uint %frac
%o1 = OpBitcast %uint %w
%m = OpExtInst %float %glsl Fma %f25 %f2 %f3
%o2 = OpBitcast %uint %m
%s = OpExtInst %float %glsl SmoothStep %f0 %f2 %f05
%o3 = OpBitcast %uint %s
%u = OpExtInst %float %glsl SmoothStep %f2 %f2 %f05
%o4 = OpBitcast %uint %u
"#;
    let (w, findings) = run_ops(types, body, 5, &[]);
    let b = |x: f32| x.to_bits();
    assert_eq!(
        &w[..4],
        [b(-0.5), b(-2.0), b(8.0), b(0.15625)],
        "{findings:?}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f.kind == FindingKind::UndefinedResult && f.detail.contains("SmoothStep")),
        "{findings:?}"
    );
}

#[test]
fn variables_hold_arrays_of_addresses_and_void() {
    // A function variable of two buffer addresses (and one of `void`, which holds nothing):
    // an address stored in element 1 and read back is the same number.
    let text = HEAD
        .replace(
            "OpCapability Shader\n",
            "OpCapability Shader\nOpCapability Int64\nOpCapability PhysicalStorageBufferAddresses\nOpExtension \"SPV_KHR_physical_storage_buffer\"\n",
        )
        .replace(
            "OpMemoryModel Logical GLSL450",
            "OpMemoryModel PhysicalStorageBuffer64 GLSL450",
        );
    let body = r#"%ulong = OpTypeInt 64 0
%psb = OpTypePointer PhysicalStorageBuffer %uint
%u2 = OpConstant %uint 2
%pair = OpTypeArray %psb %u2
%ptr_pair = OpTypePointer Function %pair
%ptr_psb = OpTypePointer Function %psb
%ptr_void = OpTypePointer Function %void
%big = OpConstant %ulong 81985529216486895
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr_pair Function
%nothing = OpVariable %ptr_void Function
%a = OpConvertUToPtr %psb %big
%slot = OpAccessChain %ptr_psb %v %u1
OpStore %slot %a
%b = OpLoad %psb %slot
%n = OpConvertPtrToU %ulong %b
%lo = OpUConvert %uint %n
%o = OpAccessChain %ptr_u %data %u0 %u0
OpStore %o %lo
OpReturn
OpFunctionEnd
"#;
    let e = run_module(&format!("{text}{body}"), &[0, 0], [1, 1, 1]);
    assert_eq!(words(&e.buffers[0].bytes)[0], 81985529216486895u64 as u32);
}
