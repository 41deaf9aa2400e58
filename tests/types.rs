//! `untype` and `assign-types`: IR text in, IR text out for the hard cases, and the whole corpus
//! through the `types` preset — every output validates and has no more bitcasts than its input.

mod common;

use std::sync::Arc;

use common::{corpus, validate};
use shaderstep::ir::spirv::read;
use shaderstep::pipeline::{Checks, Pipeline};

fn bitcasts(words: &[u32]) -> usize {
    let m = read::read_words(words).unwrap();
    let mut n = 0;
    m.for_each_inst(|i| n += usize::from(i.op() == spirv::Op::Bitcast));
    n
}

#[test]
fn corpus_through_types_validates_with_no_more_bitcasts() {
    let pipeline = Pipeline::preset("types").unwrap().with_checks(Checks {
        verify_each: true,
        validate_each: false,
    });
    let mut failures = Vec::new();
    let (mut before, mut after) = (0, 0);
    for s in corpus() {
        let run = pipeline.run(Arc::new(s.words.clone()));
        let Some(out) = run.output_words() else {
            failures.push(format!(
                "{}: pipeline failed: {:?}",
                s.path.display(),
                run.steps.last().map(|st| &st.diagnostics)
            ));
            continue;
        };
        if let Err(e) = validate(&out, s.universal) {
            failures.push(format!(
                "{}: output does not validate: {e}",
                s.path.display()
            ));
            continue;
        }
        let (b, a) = (bitcasts(&s.words), bitcasts(&out));
        before += b;
        after += a;
        if a > b {
            failures.push(format!("{}: {b} bitcasts in, {a} out", s.path.display()));
        }
    }
    eprintln!("corpus bitcasts: {before} in, {after} out");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

use shaderstep::ir::spirv::write;
use shaderstep::ir::{parse, print};

/// Runs `passes` on IR text and returns the final IR text; the output must validate.
fn run_text(passes: &[&str], input: &str) -> (String, usize) {
    let m = parse::parse(input).unwrap_or_else(|e| panic!("input does not parse: {e}"));
    let pipeline = Pipeline::from_names(passes).unwrap().with_checks(Checks {
        verify_each: true,
        validate_each: false,
    });
    let run = pipeline.run(Arc::new(write::write_words(&m)));
    assert!(
        run.ok(),
        "pipeline failed: {:?}",
        run.steps.last().unwrap().diagnostics
    );
    let out = run.final_module().unwrap();
    let words = write::write_words(out);
    if passes.last() == Some(&"lift") {
        validate(&words, false)
            .unwrap_or_else(|e| panic!("output does not validate: {e}\n{}", print::print(out)));
    }
    (print::print(out), bitcasts(&words))
}

/// The instructions of the text, without comments and blank lines.
fn body(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with(';'))
        .map(|l| l.split(';').next().unwrap().trim())
        .collect::<Vec<_>>()
        .join("\n")
}

const HEAD: &str = r#"; Version: 1.3
OpCapability Shader
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %in_f %in_i %out_f %out_i
OpExecutionMode %main OriginUpperLeft
OpDecorate %in_f Location 0
OpDecorate %in_i Location 1
OpDecorate %in_i Flat
OpDecorate %out_f Location 0
OpDecorate %out_i Location 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%v2float = OpTypeVector %float 2
%v2int = OpTypeVector %int 2
%ptr_in_f = OpTypePointer Input %float
%ptr_in_i = OpTypePointer Input %int
%ptr_out_f = OpTypePointer Output %v2float
%ptr_out_i = OpTypePointer Output %int
%in_f = OpVariable %ptr_in_f Input
%in_i = OpVariable %ptr_in_i Input
%out_f = OpVariable %ptr_out_f Output
%out_i = OpVariable %ptr_out_i Output
%f0 = OpConstant %float 0
%f1 = OpConstant %float 1
%i0 = OpConstant %int 0
%i7 = OpConstant %int 7
%u1065353216 = OpConstant %uint 1065353216
"#;

/// A module around `body` (the entry point's one block). Every `%name =` the text defines gets
/// an `OpName`, so the printed IR speaks the test's names.
fn shader(body: &str) -> String {
    let text = format!(
        "{HEAD}%main = OpFunction %void None %fn\n%entry = OpLabel\n{body}\nOpReturn\nOpFunctionEnd\n"
    );
    named(&text)
}

fn named(text: &str) -> String {
    let names: String = text
        .lines()
        .filter_map(|l| l.trim().split_once(" = ").map(|(n, _)| n.trim()))
        .filter(|n| n.starts_with('%') && !n[1..].chars().all(|c| c.is_ascii_digit()))
        .map(|n| format!("OpName {n} \"{}\"\n", &n[1..]))
        .collect();
    let at = text.find("OpDecorate").unwrap_or(0);
    format!("{}{names}{}", &text[..at], &text[at..])
}

/// The function `name` of the printed IR, instructions only.
fn function(text: &str, name: &str) -> String {
    let start = text
        .find(&format!("%{name} = OpFunction"))
        .unwrap_or_else(|| panic!("no function {name} in\n{text}"));
    let end = start + text[start..].find("OpFunctionEnd").unwrap() + "OpFunctionEnd".len();
    body(&text[start..end])
}

#[test]
fn untype_erases_kinds_merges_constants_and_drops_same_width_bitcasts() {
    let input = shader(
        "%x = OpLoad %float %in_f\n\
         %bits = OpBitcast %uint %x\n\
         %back = OpBitcast %float %bits\n\
         %sum = OpFAdd %float %back %f1\n\
         %one = OpBitcast %float %u1065353216\n\
         %prod = OpFMul %float %sum %one\n\
         %v = OpCompositeConstruct %v2float %prod %f0\n\
         OpStore %out_f %v\n\
         %k = OpLoad %int %in_i\n\
         %m = OpIAdd %int %k %i0\n\
         OpStore %out_i %m",
    );
    let (out, n) = run_text(&["lower", "untype"], &input);
    // 1.0 and the uint with its bits are one constant, 0.0 and 0 another; the bitcasts are
    // gone (%back and %bits are %x, %one is the constant).
    assert_eq!(
        function(&out, "main"),
        "%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpLoad %b32 %in_f
%sum = OpFAdd %b32 %x %b32_0x3f800000
%prod = OpFMul %b32 %sum %b32_0x3f800000
%v = OpCompositeConstruct %v2b32 %prod %b32_0x00000000
OpStore %out_f %v
%k = OpLoad %b32 %in_i
%m = OpIAdd %b32 %k %b32_0x00000000
OpStore %out_i %m
OpReturn
OpFunctionEnd"
    );
    assert_eq!(n, 0);
    assert!(out.contains("%b32 = bits.b32"), "{out}");
    assert!(out.contains("%v2b32 = OpTypeVector %b32 2"), "{out}");
    for gone in [
        "%uint_1065353216",
        "%float_1 ",
        "%int_0 ",
        "OpName %bits",
        "OpName %back",
    ] {
        assert!(!out.contains(gone), "{gone} is still there:\n{out}");
    }
}

const TYPES: &[&str] = &["lower", "untype", "assign-types", "lift"];

#[test]
fn a_float_int_float_round_trip_needs_no_bitcast() {
    // As a translator writes `asfloat(asuint(x) ...)`: the bits never need an int type.
    let input = shader(
        "%x = OpLoad %float %in_f\n\
         %u = OpBitcast %uint %x\n\
         %f = OpBitcast %float %u\n\
         %y = OpFMul %float %f %f1\n\
         %v = OpCompositeConstruct %v2float %y %y\n\
         OpStore %out_f %v\n\
         OpStore %out_i %i0",
    );
    let (out, n) = run_text(TYPES, &input);
    assert_eq!(n, 0, "{out}");
}

#[test]
fn phi_of_mixed_use_costs_one_bitcast_per_foreign_reading() {
    // The phi merges a float (then) and an int (else), and is read as both: whichever kind it
    // takes, one incoming value and one reader need a bitcast; more would be waste.
    let input = shader(
        "%x = OpLoad %float %in_f\n\
         %k = OpLoad %int %in_i\n\
         %c = OpFOrdLessThan %bool %x %f1\n\
         OpSelectionMerge %merge None\n\
         OpBranchConditional %c %then %else\n\
         %then = OpLabel\n\
         %a = OpFMul %float %x %x\n\
         %ab = OpBitcast %int %a\n\
         OpBranch %merge\n\
         %else = OpLabel\n\
         %b = OpIAdd %int %k %i7\n\
         OpBranch %merge\n\
         %merge = OpLabel\n\
         %p = OpPhi %int %ab %then %b %else\n\
         %pf = OpBitcast %float %p\n\
         %s = OpFAdd %float %pf %f1\n\
         %t = OpIMul %int %p %i7\n\
         %v = OpCompositeConstruct %v2float %s %s\n\
         OpStore %out_f %v\n\
         OpStore %out_i %t",
    );
    let (out, n) = run_text(TYPES, &input);
    assert_eq!(n, 2, "{out}");
}

#[test]
fn vector_built_from_an_int_and_a_float_piece() {
    // One piece comes from integer math, the other from float math, and the vector is read as
    // floats: the int piece alone is reinterpreted.
    let input = shader(
        "%x = OpLoad %float %in_f\n\
         %k = OpLoad %int %in_i\n\
         %n = OpIAdd %int %k %i7\n\
         %nf = OpBitcast %float %n\n\
         %v = OpCompositeConstruct %v2float %x %nf\n\
         %w = OpFMul %v2float %v %v\n\
         OpStore %out_f %w\n\
         OpStore %out_i %k",
    );
    let (out, n) = run_text(TYPES, &input);
    assert_eq!(n, 1, "{out}");
    let main = function(&out, "main");
    assert!(main.contains("OpCompositeConstruct %v2float"), "{main}");
}

#[test]
fn constants_take_the_kind_each_reader_wants() {
    // One bit pattern read as an int and as a float is two constants again, not a bitcast.
    let input = shader(
        "%x = OpLoad %float %in_f\n\
         %one = OpBitcast %float %u1065353216\n\
         %y = OpFMul %float %x %one\n\
         %k = OpLoad %int %in_i\n\
         %z = OpIAdd %int %k %u1065353216\n\
         %v = OpCompositeConstruct %v2float %y %y\n\
         OpStore %out_f %v\n\
         OpStore %out_i %z",
    );
    let (out, n) = run_text(TYPES, &input);
    assert_eq!(n, 0, "{out}");
    let main = function(&out, "main");
    // The float reading gets back the module's own 1.0 (interned: same id, same name).
    assert!(main.contains("OpFMul %float %x %f1"), "{main}");
    assert!(main.contains("%int_1065353216"), "{main}");
}

#[test]
fn parameters_and_results_take_the_kind_their_uses_want() {
    // A helper typed with uint parameters and result, but doing float math on them: after
    // untype and assign-types its signature is float and the bitcasts around it are gone.
    let text = named(&format!(
        "{HEAD}%fn_u = OpTypeFunction %uint %uint
%helper = OpFunction %uint None %fn_u
%hp = OpFunctionParameter %uint
%hb = OpLabel
%hf = OpBitcast %float %hp
%hm = OpFMul %float %hf %hf
%hr = OpBitcast %uint %hm
OpReturnValue %hr
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpLoad %float %in_f
%xu = OpBitcast %uint %x
%r = OpFunctionCall %uint %helper %xu
%rf = OpBitcast %float %r
%v = OpCompositeConstruct %v2float %rf %rf
OpStore %out_f %v
OpStore %out_i %i0
OpReturn
OpFunctionEnd
"
    ));
    let (out, n) = run_text(TYPES, &text);
    assert_eq!(n, 0, "{out}");
    let helper = function(&out, "helper");
    assert!(
        helper.starts_with("%helper = OpFunction %float"),
        "{helper}"
    );
    assert!(
        helper.contains("%hp = OpFunctionParameter %float"),
        "{helper}"
    );
}

#[test]
fn spec_constants_keep_their_type() {
    let text = named(
        &format!(
            "{HEAD}%main = OpFunction %void None %fn\n%entry = OpLabel\n\
         %x = OpLoad %float %in_f\n\
         %y = OpFMul %float %x %sf\n\
         %v = OpCompositeConstruct %v2float %y %y\n\
         OpStore %out_f %v\n\
         %z = OpIAdd %int %si %i7\n\
         OpStore %out_i %z\nOpReturn\nOpFunctionEnd\n"
        )
        .replace(
            "%f0 = OpConstant %float 0",
            "%f0 = OpConstant %float 0\n%sf = OpSpecConstant %float 2\n%si = OpSpecConstant %int 3",
        )
        .replace(
            "OpDecorate %in_f Location 0",
            "OpDecorate %in_f Location 0\nOpDecorate %sf SpecId 0\nOpDecorate %si SpecId 1",
        ),
    );
    let (out, n) = run_text(TYPES, &text);
    assert_eq!(n, 0, "{out}");
    assert!(out.contains("%sf = OpSpecConstant %float 2"), "{out}");
    assert!(out.contains("%si = OpSpecConstant %int 3"), "{out}");
}

#[test]
fn assign_types_is_deterministic() {
    let s = corpus()
        .into_iter()
        .find(|s| s.path.to_string_lossy().contains("dxbc_loop"))
        .expect("dxbc_loop in the corpus");
    let pipeline = Pipeline::preset("types").unwrap();
    let a = pipeline.run(Arc::new(s.words.clone())).output_words();
    let b = pipeline.run(Arc::new(s.words.clone())).output_words();
    assert!(a.is_some());
    assert_eq!(a, b);
}

#[test]
fn fold_reads_bit_vector_constants_as_the_op_does() {
    // After untype, 2.0 and 3 are bits; FMul reads them as floats, IAdd as integers.
    let input = shader(
        "%x = OpFMul %float %f1 %f1\n\
         %y = OpFAdd %float %x %f1\n\
         %v = OpCompositeConstruct %v2float %y %y\n\
         OpStore %out_f %v\n\
         %z = OpIAdd %int %i7 %i7\n\
         OpStore %out_i %z",
    );
    let (out, _) = run_text(
        &["lower", "untype", "fold", "dce", "assign-types", "lift"],
        &input,
    );
    let main = function(&out, "main");
    assert!(
        !main.contains("OpFMul") && !main.contains("OpIAdd"),
        "{main}"
    );
    assert!(out.contains("OpConstant %float 2"), "{out}");
    assert!(out.contains("OpConstant %int 14"), "{out}");
}

#[test]
fn sparse_samples_and_texel_pointers_type_their_coordinates() {
    // The op table says what a sparse sample and a texel pointer read, so their coordinates
    // become bits and get their kind back from these ops: the bitcast round trips go, and the
    // output validates.
    let text = r#"; Version: 1.3
OpCapability Shader
OpCapability SparseResidency
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %in_uv %out
OpExecutionMode %main OriginUpperLeft
OpDecorate %in_uv Location 0
OpDecorate %out Location 0
OpDecorate %tex DescriptorSet 0
OpDecorate %tex Binding 0
OpDecorate %img DescriptorSet 0
OpDecorate %img Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%v2float = OpTypeVector %float 2
%v2int = OpTypeVector %int 2
%v2uint = OpTypeVector %uint 2
%v4float = OpTypeVector %float 4
%sparse = OpTypeStruct %int %v4float
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%image = OpTypeImage %float 2D 0 0 0 1 Unknown
%sampled = OpTypeSampledImage %image
%storage = OpTypeImage %uint 2D 0 0 0 2 R32ui
%ptr_tex = OpTypePointer UniformConstant %sampled
%ptr_img = OpTypePointer UniformConstant %storage
%ptr_texel = OpTypePointer Image %uint
%ptr_in = OpTypePointer Input %v2float
%ptr_out = OpTypePointer Output %v4float
%tex = OpVariable %ptr_tex UniformConstant
%img = OpVariable %ptr_img UniformConstant
%in_uv = OpVariable %ptr_in Input
%out = OpVariable %ptr_out Output
%main = OpFunction %void None %fn
%entry = OpLabel
%uv = OpLoad %v2float %in_uv
%bits = OpBitcast %v2uint %uv
%c = OpBitcast %v2float %bits
%t = OpLoad %sampled %tex
%s = OpImageSparseSampleImplicitLod %sparse %t %c
%code = OpCompositeExtract %int %s 0
%resident = OpImageSparseTexelsResident %bool %code
%texel = OpCompositeExtract %v4float %s 1
%k = OpConvertFToS %v2int %uv
%kb = OpBitcast %v2uint %k
%ij = OpBitcast %v2int %kb
%p = OpImageTexelPointer %ptr_texel %img %ij %u0
%old = OpAtomicIAdd %uint %p %u1 %u0 %u1
OpStore %out %texel
OpReturn
OpFunctionEnd
"#;
    let (out, n) = run_text(TYPES, &named(text));
    assert_eq!(n, 0, "{out}");
}
