use super::*;
use crate::ir::spirv::{asm, read};

fn module(text: &str) -> Module {
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

const HEAD: &str = r#"; Version: 1.3
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

fn run_text(body: &str, data: &[u32], groups: [u32; 3]) -> Execution {
    let m = module(&format!("{HEAD}{body}"));
    let inputs = Inputs {
        buffers: vec![Buffer {
            set: 0,
            binding: 0,
            bytes: bytes(data),
        }],
        push_constants: Vec::new(),
        groups,
    };
    run(&m, None, &inputs, &Options::default()).expect("runs")
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
    let inputs = Inputs {
        buffers: vec![Buffer {
            set: 0,
            binding: 0,
            bytes: vec![0; 16],
        }],
        push_constants: Vec::new(),
        groups: [1, 1, 1],
    };
    let options = Options {
        budget: 10_000,
        ..Options::default()
    };
    let e = run(&m, None, &inputs, &options).expect("runs");
    assert_eq!(e.findings.len(), 1);
    assert_eq!(e.findings[0].kind, FindingKind::Budget);
}
