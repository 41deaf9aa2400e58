//! Verifier checks that come from the op table, one wrong thing per case, each with its exact
//! message: operand counts (core, GLSL.std.450 and dialect ops), overloads, SPIR-V versions,
//! capabilities (of ops, of widths, of enumerant operands, implied ones), the experimental
//! partition, result-type rules, and operand types checked against `spirv-val`.

mod common;

use shaderstep::ir::spirv::{asm, read};
use shaderstep::ir::verify::{self, Level, Options};
use shaderstep::ir::{parse, print};

/// A compute module of `version` with `caps` declared (besides Shader), the GLSL.std.450 and
/// dialect imports, common types and constants, and `body` as the main function's block.
fn module(version: &str, caps: &[&str], globals: &str, body: &str) -> String {
    let caps: String = caps.iter().map(|c| format!("OpCapability {c}\n")).collect();
    format!(
        r#"; Version: {version}
OpCapability Shader
{caps}%glsl = OpExtInstImport "GLSL.std.450"
%ss = OpExtInstImport "shaderstep.dialect"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %vf "vf"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%v2float = OpTypeVector %float 2
%v4float = OpTypeVector %float 4
%v2bool = OpTypeVector %bool 2
%f1 = OpConstant %float 1
%i1 = OpConstant %int 1
%u3 = OpConstant %uint 3
%vf = OpConstantComposite %v2float %f1 %f1
{globals}
%main = OpFunction %void None %fn
%entry = OpLabel
{body}
OpReturn
OpFunctionEnd
"#
    )
}

fn messages_with(text: &str, options: Options) -> Vec<String> {
    let m = parse::parse(text).unwrap_or_else(|e| panic!("test IR does not parse: {e}\n{text}"));
    verify::verify_with(&m, &options)
        .into_iter()
        .map(|e| e.message)
        .collect()
}

fn messages(text: &str) -> Vec<String> {
    messages_with(text, Options::default())
}

/// The module has exactly one error, and this is it.
fn expect_only(text: &str, message: &str) {
    assert_eq!(messages(text), vec![message.to_string()], "\n{text}");
}

#[test]
fn a_module_using_every_kind_of_op_correctly_is_valid() {
    let text = module(
        "1.3",
        &["GroupNonUniformArithmetic"],
        "%b32 = bits.b32\n%bone = OpConstant %b32 0x3f800000",
        "%a = OpExtInst %float %glsl Sqrt %f1\n\
         %b = OpExtInst %float %glsl FClamp %a %f1 %f1\n\
         %c = OpFAdd %float %a %b\n\
         %d = OpIAdd %int %i1 %u3\n\
         %e = OpFOrdLessThan %v2bool %vf %vf\n\
         %g = OpGroupNonUniformIAdd %int %u3 Reduce %i1\n\
         %h = OpFMul %b32 %bone %bone\n\
         %k = OpShiftLeftLogical %int %i1 %u3",
    );
    assert_eq!(messages(&text), Vec::<String>::new());
}

#[test]
fn glsl_instruction_with_the_wrong_operand_count() {
    expect_only(
        &module("1.3", &[], "", "%x = OpExtInst %float %glsl Sqrt %f1 %f1"),
        "GLSL.std.450.Sqrt takes 1 operand, not 2",
    );
    expect_only(
        &module("1.3", &[], "", "%x = OpExtInst %float %glsl FClamp %f1 %f1"),
        "GLSL.std.450.FClamp takes 3 operands, not 2",
    );
}

#[test]
fn dialect_op_with_the_wrong_operand_count() {
    expect_only(
        &module(
            "1.3",
            &[],
            "%q = OpTypeUntypedPointerKHR Function",
            "%x = OpExtInst %q %ss qptr.offset %f1",
        )
        .replace(
            "OpCapability Shader",
            "OpCapability Shader\nOpCapability UntypedPointersKHR",
        ),
        "qptr.offset takes 2 operands (base, offset), not 1",
    );
}

#[test]
fn glsl_overload_the_instruction_does_not_have() {
    expect_only(
        &module(
            "1.3",
            &["Float64"],
            "%double = OpTypeFloat 64\n%d1 = OpConstant %double 1",
            "%x = OpExtInst %double %glsl Sin %d1",
        ),
        "GLSL.std.450.Sin has no f64 overload (it takes f16|f32 (scalar or vector))",
    );
}

#[test]
fn op_newer_than_the_modules_version() {
    expect_only(
        &module(
            "1.0",
            &["GroupNonUniformArithmetic"],
            "",
            "%g = OpGroupNonUniformIAdd %int %u3 Reduce %i1",
        ),
        "OpGroupNonUniformIAdd needs SPIR-V 1.3; the module is 1.0",
    );
    // An extension that brought the op earlier makes it valid.
    expect_only(
        &module("1.0", &[], "", "%g = OpCopyLogical %v2float %vf"),
        "OpCopyLogical needs SPIR-V 1.4; the module is 1.0",
    );
    let text = module(
        "1.5",
        &["DemoteToHelperInvocation"],
        "",
        "OpDemoteToHelperInvocation",
    );
    expect_only(
        &text,
        "OpDemoteToHelperInvocation needs SPIR-V 1.6 (or the extension SPV_EXT_demote_to_helper_invocation); the module is 1.5",
    );
    let with_ext = text.replace(
        "%glsl =",
        "OpExtension \"SPV_EXT_demote_to_helper_invocation\"\n%glsl =",
    );
    assert_eq!(messages(&with_ext), Vec::<String>::new());
}

#[test]
fn op_without_its_capability() {
    assert_eq!(
        messages(&module("1.3", &[], "", "%g = OpGroupNonUniformIAdd %int %u3 Reduce %i1")),
        [
            "OpGroupNonUniformIAdd needs one of the capabilities GroupNonUniformArithmetic, \
             GroupNonUniformClustered, GroupNonUniformPartitionedEXT, which the module does not declare",
            "OpGroupNonUniformIAdd operand Reduce needs one of the capabilities Kernel, \
             GroupNonUniformArithmetic, GroupNonUniformBallot, which the module does not declare",
        ]
    );
    expect_only(
        &module("1.3", &[], "", "%x = OpDPdx %float %f1")
            .replace("OpCapability Shader", "OpCapability Kernel")
            .replace(
                "OpMemoryModel Logical GLSL450",
                "OpMemoryModel Logical OpenCL",
            )
            .replace("OpEntryPoint GLCompute", "OpEntryPoint Kernel"),
        "OpDPdx needs capability Shader, which the module does not declare",
    );
}

#[test]
fn enumerant_operand_without_its_capability() {
    let text = module(
        "1.3",
        &[],
        "%ptr_in = OpTypePointer Input %int\n%sid = OpVariable %ptr_in Input",
        "",
    )
    .replace(
        "OpName %vf \"vf\"",
        "OpName %vf \"vf\"\nOpDecorate %sid BuiltIn SampleId",
    );
    expect_only(
        &text,
        "OpDecorate operand SampleId needs capability SampleRateShading, which the module does not declare",
    );
}

#[test]
fn implied_capabilities_count_as_declared() {
    // Geometry implies Shader, which implies Matrix: a module declaring only Geometry may use
    // matrix types and Shader-only ops.
    let text = module(
        "1.3",
        &[],
        "%mat2 = OpTypeMatrix %v2float 2",
        "%x = OpDPdx %float %f1",
    )
    .replace("OpCapability Shader", "OpCapability Geometry");
    assert_eq!(messages(&text), Vec::<String>::new());
}

#[test]
fn width_without_its_capability_on_a_bit_vector() {
    // bits.b16 read as a float needs Float16; declaring Int16 alone permits the type, not the op.
    expect_only(
        &module(
            "1.3",
            &["Int16"],
            "%b16 = bits.b16\n%h = OpConstant %b16 0x3c00",
            "%x = OpFMul %b16 %h %h",
        ),
        "OpFMul on b16 needs capability Float16, which the module does not declare",
    );
}

#[test]
fn experimental_op_without_the_flag() {
    let text = module(
        "1.3",
        &["UntypedPointersKHR"],
        "%q = OpTypeUntypedPointerKHR Function\n%ptr_f = OpTypePointer Function %v4float",
        "%a = OpVariable %ptr_f Function\n%b = OpVariable %ptr_f Function\n%n = OpConstant %uint 16",
    );
    // Constants cannot live in a block: move %n out.
    let text = text
        .replace("\n%n = OpConstant %uint 16", "")
        .replace(
            "%vf = OpConstantComposite",
            "%n = OpConstant %uint 16\n%vf = OpConstantComposite",
        )
        .replace("OpReturn", "%c = qptr.copy %a %b %n\nOpReturn");
    assert_eq!(
        messages(&text),
        vec!["qptr.copy is an experimental op (FeatureID 0x8000); pass --experimental to use it"]
    );
    assert_eq!(
        messages_with(&text, Options { experimental: true }),
        Vec::<String>::new()
    );
}

#[test]
fn result_rules() {
    assert_eq!(
        messages(&module(
            "1.3",
            &[],
            "%v2int = OpTypeVector %int 2",
            "%x = OpIAdd %v2int %i1 %u3"
        )),
        [
            "OpIAdd operand %int_1 is an i32; the result is 2 × i32",
            "OpIAdd operand %uint_3 is an i32; the result is 2 × i32",
        ]
    );
    expect_only(
        &module("1.3", &[], "", "%x = OpFOrdLessThan %bool %vf %vf"),
        "OpFOrdLessThan gives %bool; it must give a vector of 2 bools",
    );
    expect_only(
        &module("1.3", &[], "", "%x = OpConvertFToS %int %vf"),
        "OpConvertFToS operand %vf has 2 components; the result 1",
    );
    // The shift amount may differ in width and signedness, not in component count.
    expect_only(
        &module(
            "1.3",
            &[],
            "%v2uint = OpTypeVector %uint 2\n%vu = OpConstantComposite %v2uint %u3 %u3",
            "%x = OpShiftLeftLogical %int %i1 %vu",
        )
        .replace("OpName %vf \"vf\"", "OpName %vf \"vf\"\nOpName %vu \"vu\""),
        "OpShiftLeftLogical operand %vu is 2 × i32; the result is an i32",
    );
    expect_only(
        &module("1.3", &[], "", "%x = OpExtInst %float %glsl FMin %f1 %i1"),
        "GLSL.std.450.FMin operand %int_1 has type %int, the result %float",
    );
}

#[test]
fn dialect_ops_print_and_parse_back_by_name() {
    let text = module(
        "1.3",
        &["UntypedPointersKHR"],
        "%q = OpTypeUntypedPointerKHR Function\n%ptr_f = OpTypePointer Function %v4float\n%n = OpConstant %uint 16\n%b32 = bits.b32\n%v4b32 = OpTypeVector %b32 4\n%c = OpConstant %b32 0xbf800000",
        "%a = OpVariable %ptr_f Function\n%p = qptr.offset %q %a %n\n%y = OpLoad %v4b32 %p",
    );
    let m = parse::parse(&text).unwrap();
    let printed = print::print(&m);
    for spelled in [
        "= qptr.offset %_qptr_Function %",
        "%b32 = bits.b32",
        "%v4b32 = OpTypeVector %b32 4",
        "%b32_0xbf800000 = OpConstant %b32 0xbf800000",
    ] {
        assert!(printed.contains(spelled), "{spelled} not in\n{printed}");
    }
    let again = print::print(&parse::parse(&printed).unwrap());
    assert_eq!(printed, again);
}

#[test]
fn dialect_text_errors_are_clear() {
    let bad = |body: &str| {
        let text = module("1.3", &[], "%q = OpTypeUntypedPointerKHR Function", body);
        parse::parse(&text).unwrap_err().message
    };
    assert_eq!(
        bad("%p = qptr.offset %q %f1"),
        "qptr.offset: missing operand 'offset'"
    );
    assert_eq!(
        bad("%p = qptr.offset %q %f1 %f1 %f1"),
        "too many operands for qptr.offset (it takes 2): unexpected '%f1'"
    );
    let no_import = module("1.3", &[], "", "%p = qptr.buffer_data %float %f1")
        .replace("%ss = OpExtInstImport \"shaderstep.dialect\"\n", "");
    assert_eq!(
        parse::parse(&no_import).unwrap_err().message,
        "qptr.buffer_data needs `OpExtInstImport \"shaderstep.dialect\"` before it"
    );
}

/// A SPIR-V 1.3 compute module in assembly with `body` as its entry block: assembled by our
/// assembler, so `spirv-val` and our verifier read the same binary.
fn spv_module(body: &str) -> Vec<u32> {
    let text = format!(
        r#"; Version: 1.3
OpCapability Shader
OpCapability Int64
OpCapability Float64
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %vf "vf"
OpName %vi "vi"
OpName %vb "vb"
OpName %pair "pair"
OpName %arr "arr"
OpName %m2x3 "m2x3"
OpName %mat "mat"
OpName %p "p"
OpName %v3 "v3"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%float = OpTypeFloat 32
%double = OpTypeFloat 64
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%long = OpTypeInt 64 1
%ulong = OpTypeInt 64 0
%v2float = OpTypeVector %float 2
%v2int = OpTypeVector %int 2
%v2bool = OpTypeVector %bool 2
%float_1 = OpConstant %float 1
%double_1 = OpConstant %double 1
%int_1 = OpConstant %int 1
%uint_1 = OpConstant %uint 1
%long_1 = OpConstant %long 1
%true = OpConstantTrue %bool
%vf = OpConstantComposite %v2float %float_1 %float_1
%vi = OpConstantComposite %v2int %int_1 %int_1
%vb = OpConstantComposite %v2bool %true %true
%v3float = OpTypeVector %float 3
%v4float = OpTypeVector %float 4
%m2x3 = OpTypeMatrix %v3float 2
%pair = OpTypeStruct %float %int
%uint_2 = OpConstant %uint 2
%arr = OpTypeArray %float %uint_2
%v3 = OpConstantComposite %v3float %float_1 %float_1 %float_1
%mat = OpConstantComposite %m2x3 %v3 %v3
%p = OpConstantComposite %pair %float_1 %int_1
%main = OpFunction %void None %fn
%entry = OpLabel
{body}
OpReturn
OpFunctionEnd
"#
    );
    asm::assemble(&text).unwrap_or_else(|e| panic!("does not assemble: {e}\n{text}"))
}

/// Our verifier's errors (not warnings) on a binary.
fn verifier_errors(words: &[u32]) -> Vec<String> {
    let m = read::read_words(words).expect("reads");
    verify::verify(&m)
        .into_iter()
        .filter(|e| e.level == Level::Error)
        .map(|e| e.message)
        .collect()
}

#[test]
fn operand_types_spirv_val_rejects_are_errors() {
    // (instruction, our error): spirv-val rejects each module, and we say why.
    let cases = [
        // The issue's case: integer arithmetic on a float.
        (
            "%x = OpIAdd %int %float_1 %int_1",
            "OpIAdd operand %float_1 is an f32, not an integer",
        ),
        (
            "%x = OpSNegate %int %float_1",
            "OpSNegate operand %float_1 is an f32, not an integer",
        ),
        (
            "%x = OpUDiv %uint %int_1 %uint_1",
            "OpUDiv operand %int_1 is a signed i32, not an unsigned integer",
        ),
        (
            "%x = OpBitwiseAnd %int %uint_1 %float_1",
            "OpBitwiseAnd operand %float_1 is an f32, not an integer",
        ),
        (
            "%x = OpShiftLeftLogical %int %int_1 %float_1",
            "OpShiftLeftLogical operand %float_1 is an f32, not an integer",
        ),
        (
            "%x = OpFOrdLessThan %bool %float_1 %int_1",
            "OpFOrdLessThan operand %int_1 is an i32, not a float",
        ),
        (
            "%x = OpIEqual %bool %int_1 %float_1",
            "OpIEqual operand %float_1 is an f32, not an integer",
        ),
        (
            "%x = OpIsNan %bool %int_1",
            "OpIsNan operand %int_1 is an i32, not a float",
        ),
        (
            "%x = OpConvertFToS %float %float_1",
            "OpConvertFToS gives %float, an f32; it gives integers",
        ),
        (
            "%x = OpConvertFToU %int %float_1",
            "OpConvertFToU gives %int, a signed i32; it gives unsigned integers",
        ),
        (
            "%x = OpConvertSToF %float %float_1",
            "OpConvertSToF operand %float_1 is an f32, not an integer",
        ),
        (
            "%x = OpUConvert %uint %int_1",
            "OpUConvert operand %int_1 is an i32; the result is an i32: a conversion changes the width",
        ),
        (
            "%x = OpFConvert %float %float_1",
            "OpFConvert operand %float_1 is an f32; the result is an f32: a conversion changes the width",
        ),
        (
            "%x = OpQuantizeToF16 %float %double_1",
            "OpQuantizeToF16 operand %double_1 has type %double, the result %float",
        ),
        (
            "%x = OpSelect %float %vb %float_1 %float_1",
            "OpSelect condition %vb is 2 × bool; the result is an f32: a vector condition needs a \
             vector result of its component count",
        ),
        (
            "%x = OpSelect %float %int_1 %float_1 %float_1",
            "OpSelect operand %int_1 is an i32, not a bool",
        ),
        (
            "%x = OpSelect %float %true %float_1 %int_1",
            "OpSelect operand %int_1 is an i32, not a float",
        ),
        (
            "%x = OpAny %bool %true",
            "OpAny operand %true is a bool; it takes vectors",
        ),
        (
            "%x = OpAll %v2bool %vb",
            "OpAll gives %v2bool, 2 × bool; it gives a scalar",
        ),
        (
            "%x = OpDot %double %vf %vf",
            "OpDot operand %vf is 2 × f32; the result is an f64",
        ),
        (
            "%x = OpDot %float %vf %vi",
            "OpDot operand %vi is 2 × i32, not a float",
        ),
        (
            "%x = OpCopyObject %float %int_1",
            "OpCopyObject operand %int_1 has type %int, the result %float",
        ),
        (
            "%x = OpExtInst %int %glsl FindUMsb %float_1",
            "GLSL.std.450.FindUMsb operand %float_1 is an f32, not an integer",
        ),
        // Composites: index paths, parts, shuffles.
        (
            "%x = OpCompositeExtract %int %p 0",
            "OpCompositeExtract gives a %int; the path reaches a %float of %pair",
        ),
        (
            "%x = OpCompositeExtract %float %p 2",
            "OpCompositeExtract index 2 is out of %pair, which has 2 members",
        ),
        (
            "%x = OpCompositeExtract %float %mat 1 3",
            "OpCompositeExtract index 3 is out of %v3float, which has 3 components",
        ),
        (
            "%x = OpCompositeExtract %float %float_1 0",
            "OpCompositeExtract index 0 goes into %float, which is not a composite",
        ),
        (
            "%x = OpCompositeInsert %pair %int_1 %p 0",
            "OpCompositeInsert inserts a %int; the path reaches a %float of %pair",
        ),
        (
            "%x = OpCompositeConstruct %pair %float_1",
            "OpCompositeConstruct of %pair has 1 parts; it has 2 members",
        ),
        (
            "%x = OpCompositeConstruct %arr %float_1 %int_1",
            "OpCompositeConstruct of %arr: part %int_1 is a %int, where a %float goes",
        ),
        (
            "%x = OpCompositeConstruct %v4float %vf %float_1",
            "OpCompositeConstruct of %v4float gives it 3 components; it has 4",
        ),
        (
            "%x = OpCompositeConstruct %v3float %vi %float_1",
            "OpCompositeConstruct of %v3float: part %vi is a %v2int, not of its component type %float",
        ),
        (
            "%x = OpVectorShuffle %v3float %vf %vf 0 1",
            "OpVectorShuffle gives %v3float, 3 components, from 2 indices",
        ),
        (
            "%x = OpVectorShuffle %v2float %vf %vf 0 4",
            "OpVectorShuffle index 4 is out of the 4 components of its vectors",
        ),
        (
            "%x = OpVectorShuffle %v2float %vf %vi 0 1",
            "OpVectorShuffle of %v2float and %v2int gives %v2float: the component types differ",
        ),
        // Matrices and bit fields.
        (
            "%x = OpMatrixTimesVector %v3float %mat %v3",
            "OpMatrixTimesVector of %m2x3 and %v3float cannot give %v3float: the shapes do not agree",
        ),
        (
            "%x = OpVectorTimesScalar %v3float %vf %float_1",
            "OpVectorTimesScalar of %v2float and %float cannot give %v3float: the shapes do not agree",
        ),
        (
            "%x = OpTranspose %m2x3 %mat",
            "OpTranspose of %m2x3 cannot give %m2x3: the shapes do not agree",
        ),
        (
            "%x = OpBitFieldInsert %int %int_1 %uint_1 %uint_1 %uint_1",
            "OpBitFieldInsert operand %uint_1 has type %uint, the result %int",
        ),
        (
            "%x = OpBitFieldUExtract %int %int_1 %float_1 %uint_1",
            "OpBitFieldUExtract offset or count %float_1 is a %float, not an integer scalar",
        ),
    ];
    for (body, ours) in cases {
        let words = spv_module(body);
        assert!(
            common::validate(&words, true).is_err(),
            "spirv-val accepts `{body}`: the verifier must too"
        );
        let errors = verifier_errors(&words);
        assert!(
            errors.iter().any(|e| e == ours),
            "`{body}`: expected the error '{ours}', got {errors:#?}"
        );
    }
}

#[test]
fn operand_types_spirv_val_accepts_are_not_errors() {
    // Never stricter than spirv-val: signedness may differ where it lets it, widths where it
    // lets them, and a scalar condition selects whole values.
    let cases = [
        "%x = OpIAdd %int %uint_1 %int_1",
        "%x = OpSNegate %uint %int_1",
        "%x = OpNot %uint %int_1",
        "%x = OpBitwiseXor %uint %int_1 %uint_1",
        "%x = OpShiftLeftLogical %int %int_1 %long_1",
        "%x = OpIEqual %bool %int_1 %uint_1",
        "%x = OpFOrdLessThan %v2bool %vf %vf",
        "%x = OpIsInf %v2bool %vf",
        "%x = OpConvertFToS %uint %double_1",
        "%x = OpConvertUToF %double %int_1",
        "%x = OpConvertSToF %v2float %vi",
        "%x = OpSConvert %long %uint_1",
        "%x = OpUConvert %ulong %int_1",
        "%x = OpFConvert %double %float_1",
        "%x = OpQuantizeToF16 %float %float_1",
        "%x = OpSelect %float %true %float_1 %float_1",
        "%x = OpSelect %v2float %vb %vf %vf",
        "%x = OpAny %bool %vb",
        "%x = OpDot %float %vf %vf",
        "%x = OpCopyObject %v2float %vf",
        "%x = OpExtInst %uint %glsl FindUMsb %int_1",
        "%x = OpExtInst %uint %glsl FindSMsb %int_1",
        "%x = OpExtInst %int %glsl SAbs %uint_1",
        "%x = OpCompositeExtract %float %mat 1 2",
        "%x = OpCompositeExtract %v3float %mat 0",
        "%x = OpCompositeInsert %pair %int_1 %p 1",
        "%x = OpCompositeConstruct %pair %float_1 %int_1",
        "%x = OpCompositeConstruct %v4float %vf %vf",
        "%x = OpCompositeConstruct %v4float %float_1 %vf %float_1",
        "%x = OpCompositeConstruct %m2x3 %v3 %v3",
        "%x = OpVectorShuffle %v3float %vf %v3 0 4 0xFFFFFFFF",
        "%x = OpMatrixTimesVector %v3float %mat %vf",
        "%x = OpVectorTimesMatrix %v2float %v3 %mat",
        "%x = OpMatrixTimesScalar %m2x3 %mat %float_1",
        "%x = OpVectorTimesScalar %v3float %v3 %float_1",
        "%x = OpOuterProduct %m2x3 %v3 %vf",
        "%x = OpBitFieldInsert %int %int_1 %int_1 %uint_1 %int_1",
        "%x = OpBitFieldSExtract %v2int %vi %uint_1 %long_1",
    ];
    for body in cases {
        let words = spv_module(body);
        if let Err(e) = common::validate(&words, true) {
            panic!("spirv-val rejects `{body}`: {e}");
        }
        assert_eq!(verifier_errors(&words), Vec::<String>::new(), "`{body}`");
    }
}
