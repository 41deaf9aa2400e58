//! Verifier tests: IR text that breaks one invariant each, and the error it must produce.

use shaderstep::ir::{parse, verify};

const HEAD: &str = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %out
OpExecutionMode %main OriginUpperLeft
OpDecorate %out Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%fn_f = OpTypeFunction %float %float
%ptr_out = OpTypePointer Output %float
%ptr_fn_int = OpTypePointer Function %int
%out = OpVariable %ptr_out Output
%f1 = OpConstant %float 1
%i1 = OpConstant %int 1
%true = OpConstantTrue %bool
"#;

fn errors(body: &str) -> Vec<String> {
    let text = format!("{HEAD}{body}");
    let m = parse::parse(&text).unwrap_or_else(|e| panic!("test IR does not parse: {e}\n{text}"));
    verify::verify(&m)
        .into_iter()
        .map(|e| e.to_string())
        .collect()
}

fn expect_error(body: &str, needle: &str) {
    let errs = errors(body);
    assert!(
        errs.iter().any(|e| e.contains(needle)),
        "expected an error containing '{needle}', got {errs:#?}"
    );
}

const GOOD: &str = r#"
%main = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %merge None
OpBranchConditional %true %then %merge
%then = OpLabel
%x = OpFAdd %float %f1 %f1
OpBranch %merge
%merge = OpLabel
%p = OpPhi %float %x %then %f1 %entry
OpStore %out %p
OpReturn
OpFunctionEnd
"#;

#[test]
fn valid_module_has_no_errors() {
    assert_eq!(errors(GOOD), Vec::<String>::new());
}

#[test]
fn use_not_dominated_by_definition() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %merge None
OpBranchConditional %true %then %merge
%then = OpLabel
%x = OpFAdd %float %f1 %f1
OpBranch %merge
%merge = OpLabel
OpStore %out %x
OpReturn
OpFunctionEnd
"#,
        "is not dominated by its definition",
    );
}

#[test]
fn use_before_definition_in_block() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
%y = OpFAdd %float %x %f1
%x = OpFAdd %float %f1 %f1
OpStore %out %y
OpReturn
OpFunctionEnd
"#,
        "use of %",
    );
}

#[test]
fn phi_with_a_block_that_is_not_a_predecessor() {
    let body = GOOD.replace(
        "%p = OpPhi %float %x %then %f1 %entry",
        "%p = OpPhi %float %x %then %f1 %merge",
    );
    expect_error(&body, "which is not a predecessor");
}

#[test]
fn phi_after_other_instructions() {
    let body = GOOD.replace(
        "%p = OpPhi %float %x %then %f1 %entry",
        "%z = OpFAdd %float %f1 %f1\n%p = OpPhi %float %x %then %f1 %entry",
    );
    expect_error(&body, "OpPhi after a non-phi instruction");
}

#[test]
fn phi_of_mixed_types() {
    let body = GOOD.replace(
        "%p = OpPhi %float %x %then %f1 %entry",
        "%p = OpPhi %float %x %then %i1 %entry",
    );
    expect_error(&body, "has type");
}

#[test]
fn branch_to_a_block_of_another_function() {
    expect_error(
        r#"
%other = OpFunction %void None %fn
%o_entry = OpLabel
OpReturn
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %o_entry
OpFunctionEnd
"#,
        "which is not a block of this function",
    );
}

#[test]
fn selection_merge_before_unconditional_branch() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %merge None
OpBranch %merge
%merge = OpLabel
OpReturn
OpFunctionEnd
"#,
        "OpSelectionMerge must be followed by OpBranchConditional or OpSwitch",
    );
}

#[test]
fn two_headers_share_a_merge_block() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %merge None
OpBranchConditional %true %a %merge
%a = OpLabel
OpSelectionMerge %merge None
OpBranchConditional %true %b %merge
%b = OpLabel
OpBranch %merge
%merge = OpLabel
OpReturn
OpFunctionEnd
"#,
        "is already the merge block of header",
    );
}

#[test]
fn header_does_not_dominate_merge() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %m1 None
OpBranchConditional %true %h %m1
%h = OpLabel
OpSelectionMerge %m2 None
OpBranchConditional %true %m2 %m1
%m1 = OpLabel
OpBranch %m2
%m2 = OpLabel
OpReturn
OpFunctionEnd
"#,
        "header does not dominate its merge block",
    );
}

#[test]
fn loop_header_does_not_dominate_continue_target() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %m None
OpBranchConditional %true %loop %cont
%loop = OpLabel
OpLoopMerge %m %cont None
OpBranch %cont
%cont = OpLabel
OpBranch %m
%m = OpLabel
OpReturn
OpFunctionEnd
"#,
        "loop header does not dominate its continue target",
    );
}

#[test]
fn undefined_id() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
OpStore %out %nowhere
OpReturn
OpFunctionEnd
"#,
        "which is never defined",
    );
}

#[test]
fn result_type_that_is_not_a_type() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpFAdd %f1 %f1 %f1
OpReturn
OpFunctionEnd
"#,
        "which is not a type",
    );
}

#[test]
fn load_of_the_wrong_type() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr_fn_int Function
%x = OpLoad %float %v
OpReturn
OpFunctionEnd
"#,
        "OpLoad of %",
    );
}

#[test]
fn store_of_the_wrong_type() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
OpStore %out %i1
OpReturn
OpFunctionEnd
"#,
        "OpStore of a",
    );
}

#[test]
fn float_arithmetic_on_an_int() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpFAdd %float %f1 %i1
OpReturn
OpFunctionEnd
"#,
        "OpFAdd operand",
    );
}

#[test]
fn return_value_of_the_wrong_type() {
    expect_error(
        r#"
%f = OpFunction %float None %fn_f
%a = OpFunctionParameter %float
%fe = OpLabel
OpReturnValue %i1
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"#,
        "from a function returning",
    );
}

#[test]
fn branch_on_a_float() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %m None
OpBranchConditional %f1 %m %m
%m = OpLabel
OpReturn
OpFunctionEnd
"#,
        "is not a bool",
    );
}

#[test]
fn call_with_too_few_arguments() {
    expect_error(
        r#"
%f = OpFunction %float None %fn_f
%a = OpFunctionParameter %float
%fe = OpLabel
OpReturnValue %a
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
%r = OpFunctionCall %float %f
OpReturn
OpFunctionEnd
"#,
        "passes 0 arguments; it takes 1",
    );
}

#[test]
fn id_defined_twice() {
    expect_error(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpFAdd %float %f1 %f1
%x = OpFAdd %float %f1 %f1
OpReturn
OpFunctionEnd
"#,
        "is defined more than once",
    );
}

#[test]
fn all_errors_are_collected() {
    let errs = errors(
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
OpStore %out %i1
%x = OpFAdd %float %f1 %i1
OpReturn
OpFunctionEnd
"#,
    );
    assert!(errs.len() >= 2, "{errs:#?}");
}

#[test]
fn result_of_a_kind_the_op_does_not_give() {
    // A float op giving an int: an error (spirv-val rejects it), said once — not again as a
    // missing overload.
    let m = parse::parse(&format!(
        "{HEAD}{}",
        r#"
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpFAdd %int %i1 %i1
OpReturn
OpFunctionEnd
"#
    ))
    .unwrap();
    let errs = verify::verify(&m);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert_eq!(errs[0].level, verify::Level::Error);
    assert!(
        errs[0]
            .to_string()
            .ends_with("OpFAdd gives %int, an i32; it gives floats"),
        "{errs:#?}"
    );
}

#[test]
fn width_without_its_capability() {
    let errs = errors(
        r#"
%half = OpTypeFloat 16
%h1 = OpConstant %half 1
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpFMul %half %h1 %h1
%c = OpFOrdLessThan %bool %h1 %x
OpReturn
OpFunctionEnd
"#,
    );
    let msg = "OpFMul on f16 needs capability Float16, which the module does not declare";
    assert!(errs.iter().any(|e| e.ends_with(msg)), "{errs:#?}");
    // Comparisons are checked on their operands' type.
    assert!(
        errs.iter().any(|e| e.ends_with(
            "OpFOrdLessThan on f16 needs capability Float16, which the module does not declare"
        )),
        "{errs:#?}"
    );
    // Declaring the capability makes the same code valid.
    let with_cap = format!("{HEAD}%half = OpTypeFloat 16\n%h1 = OpConstant %half 1\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%x = OpFMul %half %h1 %h1\nOpReturn\nOpFunctionEnd\n")
        .replacen("OpCapability Shader", "OpCapability Shader\nOpCapability Float16", 1);
    let m = parse::parse(&with_cap).unwrap();
    assert_eq!(verify::verify(&m), vec![]);
}

#[test]
fn vectors_have_2_3_4_8_or_16_components() {
    // The fuzzer's find: a vector of 4294967294 floats sent vector-dce through every component.
    for n in [1u32, 5, 4_294_967_294] {
        expect_error(
            &format!("%v = OpTypeVector %float {n}\n{GOOD}"),
            &format!("a vector has 2, 3, 4, 8 or 16 components, not {n}"),
        );
    }
    assert!(errors(&format!("%v = OpTypeVector %float 3\n{GOOD}")).is_empty());
}

#[test]
fn integers_and_floats_have_a_width() {
    // The fuzzer's find: `OpTypeInt 0 1` sent ccp's constant folding shifting by 64.
    for (ty, w) in [
        ("OpTypeInt", "0 1"),
        ("OpTypeInt", "65 0"),
        ("OpTypeFloat", "0"),
    ] {
        let width = w.split(' ').next().unwrap();
        expect_error(
            &format!("%t = {ty} {w}\n{GOOD}"),
            &format!("{ty} of width {width}: widths are 1 to 64 bits"),
        );
    }
}
