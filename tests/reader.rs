//! Reader edge cases: the modules rspirv 0.13's loader rejects, byte order, debug-line layout.

mod common;

use common::{normalized_dis, temp_dir, tool, validate, words_to_bytes};
use shaderstep::ir::spirv::{asm, read, write};

/// Assembles with spirv-as (the oracle), reads with our reader, writes, and expects the same words.
fn spirv_as(text: &str, env: &str) -> Vec<u32> {
    let dir = temp_dir("as");
    let src = dir.join("m.spvasm");
    let out = dir.join("m.spv");
    std::fs::write(&src, text).unwrap();
    let res = std::process::Command::new(tool("spirv-as"))
        .args(["--target-env", env])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        res.status.success(),
        "spirv-as: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    read::words_from_bytes(&std::fs::read(&out).unwrap()).unwrap()
}

fn round_trips(words: &[u32]) {
    let m = read::read_words(words).unwrap_or_else(|e| panic!("does not read: {e}"));
    assert_eq!(write::write_words(&m), words, "write(read(x)) != x");
    validate(words, true).unwrap();
}

const SPEC_CONSTANT_OPS: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionModeId %main LocalSizeId %x %y %z
               OpDecorate %a SpecId 0
               OpDecorate %b SpecId 1
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v2uint = OpTypeVector %uint 2
     %v3uint = OpTypeVector %uint 3
          %a = OpSpecConstant %uint 4
          %b = OpSpecConstant %uint 8
          %x = OpSpecConstantOp %uint IAdd %a %b
         %ab = OpSpecConstantComposite %v2uint %a %b
         %ba = OpSpecConstantOp %v2uint VectorShuffle %ab %ab 1 0
          %y = OpSpecConstantOp %uint CompositeExtract %ba 0
          %z = OpConstant %uint 1
       %main = OpFunction %void None %3
          %5 = OpLabel
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn spec_constant_op_with_literal_operands_and_execution_mode_id() {
    let words = spirv_as(SPEC_CONSTANT_OPS, "spv1.3");
    round_trips(&words);
    // Our assembler produces the same instructions (spirv-as numbers every id afresh).
    let ours = asm::assemble(&format!("; Version: 1.3\n{SPEC_CONSTANT_OPS}")).unwrap();
    assert_eq!(normalized_dis(&ours), normalized_dis(&words));
}

#[test]
fn module_level_non_semantic_ext_inst() {
    let text = r#"
               OpCapability Shader
               OpExtension "SPV_KHR_non_semantic_info"
          %1 = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
          %s = OpString "a.comp"
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %uint = OpTypeInt 32 0
    %uint_100 = OpConstant %uint 100
          %9 = OpExtInst %void %1 DebugSource %s
       %main = OpFunction %void None %3
          %5 = OpLabel
               OpReturn
               OpFunctionEnd
"#;
    round_trips(&spirv_as(text, "spv1.3"));
}

#[test]
fn big_endian_binary_reads() {
    let words = spirv_as(SPEC_CONSTANT_OPS, "spv1.3");
    let be: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    let m = read::read_bytes(&be).unwrap();
    assert_eq!(write::write_words(&m), words);
}

#[test]
fn line_info_between_functions_stays_with_the_next_function() {
    let text = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
          %f = OpString "x.comp"
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
               OpLine %f 1 1
       %main = OpFunction %void None %3
          %5 = OpLabel
          %6 = OpFunctionCall %void %g
               OpReturn
               OpFunctionEnd
               OpLine %f 9 1
          %g = OpFunction %void None %3
          %7 = OpLabel
               OpReturn
               OpFunctionEnd
"#;
    round_trips(&spirv_as(text, "spv1.3"));
}

#[test]
fn raw_word_operands_and_hex_floats() {
    let text = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %o
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %o !30 0
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
      %float = OpTypeFloat 32
     %double = OpTypeFloat 64
      %ptr = OpTypePointer Output %float
          %o = OpVariable %ptr Output
        %inf = OpConstant %float 0x1p+128
       %ninf = OpConstant %float -0x1p+128
        %nan = OpConstant %float 0x1.8p+128
       %half = OpConstant %float 0x1.8p-1
         %d1 = OpConstant %double -2.5e-3
       %main = OpFunction %void None %3
          %5 = OpLabel
               OpStore %o %half
               OpReturn
               OpFunctionEnd
"#;
    let reference = spirv_as(text, "spv1.3");
    let ours = asm::assemble(&format!("; Version: 1.3\n{text}")).unwrap();
    assert_eq!(normalized_dis(&ours), normalized_dis(&reference));
    // And our disassembly of special floats reads back to the same bits.
    let m = read::read_words(&ours).unwrap();
    let dis = shaderstep::ir::spirv::disasm::disassemble(&m, &Default::default());
    assert!(
        dis.contains("0x1p+128") && dis.contains("-0x1p+128") && dis.contains("0x1.8p+128"),
        "{dis}"
    );
    assert_eq!(asm::assemble(&dis).unwrap()[5..], ours[5..]);
}

#[test]
fn switch_with_64_bit_selector() {
    let text = r#"
               OpCapability Shader
               OpCapability Int64
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
      %ulong = OpTypeInt 64 0
          %k = OpConstant %ulong 12345678901234
       %main = OpFunction %void None %3
          %5 = OpLabel
               OpSelectionMerge %m None
               OpSwitch %k %m 1 %a 12345678901234 %b
          %a = OpLabel
               OpBranch %m
          %b = OpLabel
               OpBranch %m
          %m = OpLabel
               OpReturn
               OpFunctionEnd
"#;
    let reference = spirv_as(text, "spv1.3");
    round_trips(&reference);
    let ours = asm::assemble(&format!("; Version: 1.3\n{text}")).unwrap();
    assert_eq!(normalized_dis(&ours), normalized_dis(&reference));
}

#[test]
fn fuzzed_prefixes_never_panic() {
    // Every prefix and every single-word corruption of a real module gives Ok or Err, never a panic.
    let words = spirv_as(SPEC_CONSTANT_OPS, "spv1.3");
    let bytes = words_to_bytes(&words);
    for n in 0..bytes.len() {
        let _ = read::read_bytes(&bytes[..n]);
    }
    for i in 0..words.len() {
        for v in [
            0u32,
            1,
            0xffff,
            0x1_0000,
            0xffff_ffff,
            words[i] ^ 0x8000_0000,
        ] {
            let mut w = words.clone();
            w[i] = v;
            let _ = read::read_words(&w);
        }
    }
}

#[test]
fn assembler_errors_have_positions() {
    let cases = [
        (
            "OpCapability Shader\n%x = OpTypeInt 32\n",
            2,
            "missing operand",
        ),
        (
            "OpCapability Frobnicate\n",
            1,
            "'Frobnicate' is not a valid Capability",
        ),
        (
            "OpCapability Shader\nOpName %x \"unterminated\n",
            2,
            "unterminated string",
        ),
        ("OpCapability Shader Shader\n", 1, "too many operands"),
        ("%1 = OpCapability Shader\n", 1, "has no result"),
        ("OpTypeVoid\n", 1, "needs a result id"),
        ("junk\n", 1, "expected an instruction"),
        // One sign only: Rust's number parsers would take a second one.
        (
            "OpCapability Shader\n%f = OpTypeFloat 32\n%c = OpConstant %f --1.5\n",
            3,
            "'--1.5' is not a 32-bit float",
        ),
        (
            "OpCapability Shader\n%i = OpTypeInt 32 1\n%c = OpConstant %i -+5\n",
            3,
            "'-+5' is not an integer",
        ),
        (
            "OpCapability Shader\n%g = OpDecorationGroup\nOpGroupMemberDecorate %g %s -1\n",
            3,
            "'-1' is not a 32-bit unsigned integer",
        ),
    ];
    for (text, line, needle) in cases {
        let e = asm::assemble(text).expect_err(text);
        assert_eq!(e.line, line, "{text}: {e}");
        assert!(e.message.contains(needle), "{text}: {e}");
    }
}

#[test]
fn sections_out_of_order_are_rejected() {
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%void = OpTypeVoid\nOpName %void \"v\"\n";
    let words = asm::assemble(text).unwrap();
    let e = read::read_words(&words).unwrap_err().to_string();
    assert!(
        e.contains("debug instructions must come before types, constants and global variables"),
        "{e}"
    );
}

/// Older spellings of renamed ops, as spirv-dis prints them, assemble to the same words as
/// spirv-as makes of them.
#[test]
fn alias_op_names_assemble_like_spirv_as() {
    let text = r#"
               OpCapability Shader
               OpCapability GroupNonUniformPartitionedNV
               OpCapability DemoteToHelperInvocation
               OpExtension "SPV_NV_shader_subgroup_partitioned"
               OpExtension "SPV_EXT_demote_to_helper_invocation"
               OpExtension "SPV_GOOGLE_hlsl_functionality1"
               OpExtension "SPV_GOOGLE_decorate_string"
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %in
               OpExecutionMode %main OriginUpperLeft
               OpDecorateStringGOOGLE %in UserSemantic "TEXCOORD"
               OpDecorate %in Location 0
               OpDecorate %in Flat
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v4uint = OpTypeVector %uint 4
     %ptr_in = OpTypePointer Input %uint
         %in = OpVariable %ptr_in Input
       %main = OpFunction %void None %3
          %5 = OpLabel
          %v = OpLoad %uint %in
          %p = OpGroupNonUniformPartitionNV %v4uint %v
               OpDemoteToHelperInvocationEXT
               OpReturn
               OpFunctionEnd
"#;
    let ours = asm::assemble(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        normalized_dis(&ours),
        normalized_dis(&spirv_as(text, "vulkan1.1"))
    );
    round_trips(&ours);
}

#[test]
fn texts_that_share_names_give_a_name_the_same_id() {
    use asm::{assemble_sharing, SharedNames};
    let first = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpName %l \"l\"
OpName %a \"a\"
%uint = OpTypeInt 32 0
%l = OpConstant %uint 1
%a = OpConstant %uint 2
%7 = OpConstant %uint 3
";
    // The next print: %l is gone, a numeric id is new.
    let second = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpName %a \"a\"
%uint = OpTypeInt 32 0
%a = OpConstant %uint 2
%7 = OpConstant %uint 3
%9 = OpConstant %uint 4
";
    let mut names = SharedNames::above_ids_of([first, second]);
    let one = assemble_sharing(first, &mut names).unwrap();
    let two = assemble_sharing(second, &mut names).unwrap();
    let id_of = |a: &asm::Assembled, name: &str| {
        a.id_names
            .iter()
            .find(|(_, n)| n.as_str() == name)
            .map(|(&id, _)| id)
            .unwrap_or_else(|| panic!("no %{name}"))
    };
    assert_eq!(id_of(&one, "a"), id_of(&two, "a"));
    assert_eq!(id_of(&one, "uint"), id_of(&two, "uint"));
    assert!(
        id_of(&one, "l") > 9,
        "names are numbered above every numeric id of the texts"
    );
    for a in [&one, &two] {
        let m = read::read_words(&a.words).unwrap();
        assert!(m.global(7).is_some(), "numeric ids keep their number");
    }
    // A string that looks like a huge id leaves no room for names: an error, not a panic.
    let huge = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpName %x \"%4294967294\"\n%uint = OpTypeInt 32 0\n%x = OpConstant %uint 1\n";
    let mut names = SharedNames::above_ids_of([huge]);
    assert!(assemble_sharing(huge, &mut names).is_err());
}

/// A fragment shader whose comments are Latin-1: `glslangValidator -g` embeds them in
/// `OpSource` byte for byte.
const LATIN1_FRAG: &[u8] = b"#version 450
// caf\xe9 cr\xe8me br\xfbl\xe9e: Latin-1, not UTF-8
layout(location = 0) out vec4 color;
void main() {
    color = vec4(1.0); // \xa9 2024
}
";

#[test]
fn strings_that_are_not_utf8_load_and_write_back_byte_for_byte() {
    use shaderstep::ir::{print, spirv::disasm};
    let words = common::glslang_words("latin1.frag", LATIN1_FRAG, &["-g"]);
    validate(&words, false).expect("spirv-val accepts strings that are not UTF-8");
    let m = read::read_words(&words).unwrap_or_else(|e| panic!("does not read: {e}"));
    assert_eq!(write::write_words(&m), words, "write(read(x)) != x");
    assert_eq!(
        read::read_bytes(&write::write_bytes(&m))
            .unwrap()
            .inst_count(),
        m.inst_count()
    );
    // People see U+FFFD where the bytes are not UTF-8, never the escapes.
    let dis = disasm::disassemble(&m, &Default::default());
    let ir = print::print(&m);
    for (what, text) in [("disassembly", &dis), ("IR text", &ir)] {
        // glslang 11 writes a lead byte's "continuation" bytes as 0xff: what is shown is
        // what the module holds.
        assert!(
            text.contains("caf\u{fffd}") && text.contains("Latin-1, not UTF-8"),
            "{what}:\n{text}"
        );
        assert!(
            !text
                .chars()
                .any(|c| u32::from(c) >= shaderstep::ir::strings::ESCAPE),
            "{what} shows an escape"
        );
    }
    // What our disassembler prints assembles and reads (U+FFFD is not the original bytes).
    let again = asm::assemble(&dis).unwrap_or_else(|e| panic!("{e}"));
    read::read_words(&again).unwrap_or_else(|e| panic!("{e}"));
}

/// Bytes that are not UTF-8 in a string rspirv decodes where the reader does not look first
/// (a decoration's parameter), in a name, and a string that holds the escapes' own code points.
#[test]
fn every_string_operand_keeps_its_bytes() {
    let text = r#"
               OpCapability Shader
               OpExtension "SPV_GOOGLE_hlsl_functionality1"
               OpExtension "SPV_GOOGLE_decorate_string"
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %in
               OpExecutionMode %main OriginUpperLeft
               OpName %in "in~~"
               OpName %main "main\u{10FF41}\u{10FFFF}"
               OpDecorateString %in UserSemantic "TEX~COORD~"
               OpDecorate %in Location 0
               OpDecorate %in Flat
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %ptr_in = OpTypePointer Input %uint
         %in = OpVariable %ptr_in Input
       %main = OpFunction %void None %3
          %5 = OpLabel
               OpReturn
               OpFunctionEnd
"#
    .replace("\\u{10FF41}", "\u{10FF41}")
    .replace("\\u{10FFFF}", "\u{10FFFF}");
    let mut words = asm::assemble(&text).unwrap_or_else(|e| panic!("{e}"));
    // `~` becomes a byte that is not UTF-8 on its own.
    for w in &mut words[5..] {
        let mut b = w.to_le_bytes();
        for x in &mut b {
            if *x == b'~' {
                *x = 0xe9;
            }
        }
        *w = u32::from_le_bytes(b);
    }
    let m = read::read_words(&words).unwrap_or_else(|e| panic!("does not read: {e}"));
    assert_eq!(write::write_words(&m), words, "write(read(x)) != x");
    let dis = shaderstep::ir::spirv::disasm::disassemble(&m, &Default::default());
    assert!(dis.contains("\"TEX\u{fffd}COORD\u{fffd}\""), "{dis}");
    assert!(dis.contains("\"main\u{10FF41}\u{10FFFF}\""), "{dis}");
}

/// Word offsets of the instructions of a binary, in order.
fn inst_offsets(words: &[u32]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        out.push(at);
        at += (words[at] >> 16) as usize;
    }
    out
}

/// An operand rspirv cannot decode is reported at its instruction: index, word offset and
/// opcode, also after `OpSpecConstantOp`s whose wrapped op has literal operands.
#[test]
fn operand_errors_name_their_instruction_and_word() {
    let text = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %main "main"
               OpDecorate %a SpecId 0
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v2uint = OpTypeVector %uint 2
          %a = OpSpecConstant %uint 4
         %ab = OpSpecConstantComposite %v2uint %a %a
         %ba = OpSpecConstantOp %v2uint VectorShuffle %ab %ab 1 0
          %y = OpSpecConstantOp %uint CompositeExtract %ba 0
        %ptr = OpTypePointer Function %uint
       %main = OpFunction %void None %3
          %5 = OpLabel
          %v = OpVariable %ptr Function
               OpStore %v %y None
               OpReturn
               OpFunctionEnd
"#;
    let words = asm::assemble(text).unwrap_or_else(|e| panic!("{e}"));
    read::read_words(&words).unwrap_or_else(|e| panic!("{e}"));
    let offsets = inst_offsets(&words);
    let nth = |op: &str| {
        let g = shaderstep::ir::spirv::grammar::core_by_name(op).unwrap();
        1 + offsets
            .iter()
            .position(|&o| words[o] & 0xffff == g.opcode as u32)
            .unwrap()
    };
    let expect = |w: &[u32], index: usize, op: &str, detail: &str| {
        let e = read::read_words(w).expect_err("corrupt");
        assert_eq!(e.index(), Some(index), "{e}");
        let at = format!(
            "instruction #{index} (Op{op}) at word {}",
            offsets[index - 1]
        );
        let msg = e.to_string();
        assert!(
            msg.contains(&at) && msg.contains(detail),
            "{msg}\nwanted: {at}"
        );
    };

    // A string with no nul in its word count (OpName %main "main": the nul word is "main").
    let n = nth("Name");
    let mut w = words.clone();
    w[offsets[n - 1] + 2] = u32::from_le_bytes(*b"abcd");
    w[offsets[n - 1] + 3] = u32::from_le_bytes(*b"efgh");
    expect(&w, n, "Name", "reached word limit");

    // An enumerant that does not exist: OpMemoryModel Logical 999.
    let n = nth("MemoryModel");
    let mut w = words.clone();
    w[offsets[n - 1] + 2] = 999;
    expect(
        &w,
        n,
        "MemoryModel",
        &format!(
            "unknown value 999 for operand kind MemoryModel at word {}",
            offsets[n - 1] + 2
        ),
    );

    // A memory-access mask with bits no flag has, after the hidden OpSpecConstantOps.
    let n = nth("Store");
    let mut w = words.clone();
    w[offsets[n - 1] + 3] = 0x4000_0000;
    expect(&w, n, "Store", "MemoryAccess");

    // An id out of bound and a layout error say where they are too.
    let n = nth("Store");
    let mut w = words.clone();
    w[offsets[n - 1] + 1] = 0x00ff_ffff;
    expect(&w, n, "Store", "invalid id %16777215");
    let n = nth("Function");
    let mut w = words.clone();
    w.insert(offsets[n - 1], (1 << 16) | spirv::Op::Return as u32);
    expect(&w, n, "Return", "only allowed inside a function");
}

/// rspirv's parser, for comparison: every instruction as it decodes it.
fn rspirv_instructions(words: &[u32]) -> Option<Vec<rspirv::dr::Instruction>> {
    struct Collect(Vec<rspirv::dr::Instruction>);
    impl rspirv::binary::Consumer for Collect {
        fn initialize(&mut self) -> rspirv::binary::ParseAction {
            rspirv::binary::ParseAction::Continue
        }
        fn finalize(&mut self) -> rspirv::binary::ParseAction {
            rspirv::binary::ParseAction::Continue
        }
        fn consume_header(&mut self, _: rspirv::dr::ModuleHeader) -> rspirv::binary::ParseAction {
            rspirv::binary::ParseAction::Continue
        }
        fn consume_instruction(
            &mut self,
            inst: rspirv::dr::Instruction,
        ) -> rspirv::binary::ParseAction {
            self.0.push(inst);
            rspirv::binary::ParseAction::Continue
        }
    }
    let mut c = Collect(Vec::new());
    rspirv::binary::parse_words(words, &mut c).ok()?;
    Some(c.0)
}

/// Where our decoder and rspirv's parser must agree, each instruction as comparable text: ids
/// of every kind as ids, strings with our escapes, and an extended instruction's operands as
/// plain words (rspirv reads them all as ids; we read the literals of debug-info sets as such).
fn agreed(op: spirv::Op, ty: Option<u32>, result: Option<u32>, operands: &[Operand]) -> String {
    let ops: Vec<String> = operands
        .iter()
        .map(|o| match (op, o) {
            (_, Operand::IdScope(v) | Operand::IdMemorySemantics(v)) => format!("IdRef({v})"),
            (spirv::Op::ExtInst, Operand::IdRef(v) | Operand::LiteralBit32(v)) => format!("{v}"),
            (_, Operand::LiteralString(s)) => {
                format!("{:?}", shaderstep::ir::strings::escape_utf8(s.clone()))
            }
            (_, o) => format!("{o:?}"),
        })
        .collect();
    format!("{op:?} {ty:?} {result:?} {}", ops.join(" "))
}

use rspirv::dr::Operand;

/// Compares the two decoders on a module; the number of instructions compared (0 when rspirv
/// cannot parse it: `OpSpecConstantOp` with literals, strings that are not UTF-8).
fn compare_decoders(name: &str, words: &[u32]) -> usize {
    let ours = read::instructions(words).unwrap_or_else(|e| panic!("{name}: {e}"));
    let Some(theirs) = rspirv_instructions(words) else {
        return 0;
    };
    assert_eq!(ours.len(), theirs.len(), "{name}: instruction count");
    for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        let a = agreed(a.op(), a.ty(), a.result(), &a.to_operands());
        let b = agreed(b.class.opcode, b.result_type, b.result_id, &b.operands);
        assert_eq!(a, b, "{name}: instruction #{}", k + 1);
    }
    ours.len()
}

fn spv_words(path: &std::path::Path) -> Option<Vec<u32>> {
    read::words_from_bytes(&std::fs::read(path).ok()?).ok()
}

/// Our decoder reads every operand as rspirv's parser does: the test shaders written in
/// assembly, the bundled examples (plain, `-g` and `-gVS`) and, given
/// `SHADERSTEP_DECODE_CORPUS=DIR`, every `.spv` under DIR.
#[test]
fn the_decoder_agrees_with_rspirv() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut modules: Vec<(String, Vec<u32>)> = Vec::new();
    for e in std::fs::read_dir(root.join("tests/shaders/spvasm"))
        .unwrap()
        .flatten()
    {
        if e.path().extension().is_none_or(|x| x != "spvasm") {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap();
        modules.push((
            e.path().display().to_string(),
            asm::assemble(&text).unwrap(),
        ));
    }
    for e in std::fs::read_dir(root.join("assets/examples"))
        .unwrap()
        .flatten()
    {
        if e.path().extension().is_some_and(|x| x == "spv") {
            modules.push((
                e.path().display().to_string(),
                spv_words(&e.path()).unwrap(),
            ));
        }
    }
    let mut dirs: Vec<std::path::PathBuf> = std::env::var_os("SHADERSTEP_DECODE_CORPUS")
        .map(|d| vec![d.into()])
        .unwrap_or_default();
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "spv") {
                if let Some(w) = spv_words(&p) {
                    modules.push((p.display().to_string(), w));
                }
            }
        }
    }
    let (mut compared, mut instructions) = (0, 0);
    for (name, words) in &modules {
        let n = compare_decoders(name, words);
        compared += usize::from(n > 0);
        instructions += n;
    }
    eprintln!(
        "{compared} of {} modules compared, {instructions} instructions",
        modules.len()
    );
    assert!(
        compared >= modules.len() / 2,
        "rspirv parsed too few modules to compare"
    );
}

/// A front end's embedded source text goes from `OpSource` (and the `OpSourceContinued`
/// after it) at the word level; the language, version and file stay, so `OpLine` still names
/// the file, and the module still reads and validates.
#[test]
fn source_text_is_dropped_from_the_words() {
    let text = r##"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
      %file = OpString "a.comp"
               OpSource GLSL 450 %file "#version 450\nvoid main() {"
               OpSourceContinued "}\n"
               OpName %main "main"
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %main = OpFunction %void None %3
          %5 = OpLabel
               OpLine %file 2 1
               OpReturn
               OpFunctionEnd
"##;
    let words = asm::assemble(text).unwrap();
    let stripped = read::without_source_text(words.clone());
    assert!(stripped.len() < words.len());
    let m = read::read_words(&stripped).unwrap();
    let sources: Vec<_> = m
        .debug()
        .iter()
        .filter(|i| matches!(i.op(), spirv::Op::Source | spirv::Op::SourceContinued))
        .collect();
    assert_eq!(sources.len(), 1, "the continuation goes with the text");
    assert_eq!(sources[0].op(), spirv::Op::Source);
    assert_eq!(sources[0].to_operands().len(), 3, "language, version, file");
    validate(&stripped, true).unwrap();
    // Nothing to drop: the same words back.
    assert_eq!(read::without_source_text(stripped.clone()), stripped);
    // Words that do not split into instructions are left for the reader to name.
    let mut broken = words.clone();
    // OpFunctionEnd saying it has a word more than there is.
    *broken.last_mut().unwrap() = 2 << 16 | 56;
    assert_eq!(read::without_source_text(broken.clone()), broken);
}
