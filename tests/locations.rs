//! Source locations as attributes of instructions (`ir::loc`): what the reader makes of marker
//! ranges, what the writer says again (the fewest markers, none where spirv-val forbids them),
//! the IR text form's `; @loc` lines, and code made where other code stands.

mod common;

use shaderstep::ir::loc::Location;
use shaderstep::ir::spirv::{asm, read, write};
use shaderstep::ir::{parse, print, Function, Inst, Module};
use spirv::Op;

/// `main`: an entry block with a variable, a selection whose merge block has a phi, markers of
/// all three families, repeated ones, and a block that says nothing.
const SHADER: &str = r#"; Version: 1.3
OpCapability Shader
OpExtension "SPV_KHR_non_semantic_info"
%dbg = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "a.comp"
%text = OpString "void main() {}"
%s_main = OpString "main"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%ptr = OpTypePointer Function %uint
%true = OpConstantTrue %bool
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_2 = OpConstant %uint 2
%uint_3 = OpConstant %uint 3
%uint_4 = OpConstant %uint 4
%uint_5 = OpConstant %uint 5
%d_src = OpExtInst %void %dbg DebugSource %file %text
%d_cu = OpExtInst %void %dbg DebugCompilationUnit %uint_1 %uint_4 %d_src %uint_2
%d_fnty = OpExtInst %void %dbg DebugTypeFunction %uint_3 %void
%d_main = OpExtInst %void %dbg DebugFunction %s_main %d_fnty %d_src %uint_1 %uint_0 %d_cu %s_main %uint_3 %uint_1
%d_block = OpExtInst %void %dbg DebugLexicalBlock %d_src %uint_3 %uint_0 %d_main
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr Function
%sc = OpExtInst %void %dbg DebugScope %d_main
%l1 = OpExtInst %void %dbg DebugLine %d_src %uint_1 %uint_1 %uint_0 %uint_0
%l1b = OpExtInst %void %dbg DebugLine %d_src %uint_1 %uint_1 %uint_0 %uint_0
OpLine %file 1 5
OpStore %v %uint_1
%l2 = OpExtInst %void %dbg DebugLine %d_src %uint_2 %uint_2 %uint_0 %uint_0
%l3 = OpExtInst %void %dbg DebugLine %d_src %uint_3 %uint_3 %uint_0 %uint_0
OpSelectionMerge %merge None
OpBranchConditional %true %then %merge
%then = OpLabel
%sc2 = OpExtInst %void %dbg DebugScope %d_block
%l4 = OpExtInst %void %dbg DebugLine %d_src %uint_4 %uint_4 %uint_0 %uint_0
%x = OpLoad %uint %v
OpBranch %merge
%merge = OpLabel
%p = OpPhi %uint %uint_0 %entry %x %then
%sc3 = OpExtInst %void %dbg DebugScope %d_main
%l5 = OpExtInst %void %dbg DebugLine %d_src %uint_5 %uint_5 %uint_0 %uint_0
OpStore %v %p
OpReturn
OpFunctionEnd
"#;

fn module() -> Module {
    read::read_words(&asm::assemble(SHADER).unwrap()).unwrap()
}

/// Each body instruction (terminators included) with its location, in layout order.
fn located(f: &Function) -> Vec<(Inst, Location)> {
    let mut out = Vec::new();
    for b in 0..f.blocks().len() {
        for i in f.block(b).insts.iter().chain([&f.block(b).terminator]) {
            out.push((f.inst(*i).clone(), *f.location_of(*i)));
        }
    }
    out
}

/// The first line of the `DebugLine` in force at `inst`, by its constant's value.
fn line_of(m: &Module, loc: &Location) -> Option<u32> {
    let d = loc.debug_line?;
    m.global(d.lines[0])?.lit_u32(0)
}

#[test]
fn markers_become_each_instructions_location() {
    let m = module();
    let f = &m.functions()[0];
    let body = located(f);
    let ops: Vec<Op> = body.iter().map(|(i, _)| i.op()).collect();
    assert_eq!(
        ops,
        [
            Op::Variable,
            Op::Store,
            Op::BranchConditional,
            Op::Load,
            Op::Branch,
            Op::Phi,
            Op::Store,
            Op::Return
        ],
        "no marker is an instruction of the body"
    );
    let lines: Vec<Option<u32>> = body.iter().map(|(_, l)| line_of(&m, l)).collect();
    // The variable comes before any marker; the branch takes the last line of its block
    // (line 3: line 2 describes nothing); the phi opens a block, where lines start anew.
    assert_eq!(
        lines,
        [
            None,
            Some(1),
            Some(3),
            Some(4),
            Some(4),
            None,
            Some(5),
            Some(5)
        ]
    );
    let store = &body[1].1;
    let op_line = store.line.expect("the OpLine is in force at the store");
    assert_eq!((op_line.line, op_line.column), (1, 5));
    assert!(
        body[2].1.line.is_some(),
        "an OpLine holds to the end of its block"
    );
    assert!(body[3].1.line.is_none(), "and not into the next one");
    // A scope ends with its block, as spirv-opt reads it: the phi, before its block says a
    // scope, has none.
    let scope = |k: usize| body[k].1.scope.map(|s| s.scope);
    assert_eq!(scope(1), scope(2));
    assert_ne!(scope(3), scope(2));
    assert_eq!(scope(4), scope(3));
    assert_eq!(scope(5), None);
    assert_eq!(scope(6), scope(2));
}

/// Two blocks in the same scope, each saying it, as glslang writes a loop.
const SAME_SCOPE_TWICE: &str = r#"; Version: 1.3
OpCapability Shader
OpExtension "SPV_KHR_non_semantic_info"
%dbg = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "a.comp"
%s_main = OpString "main"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%ptr = OpTypePointer Function %uint
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_2 = OpConstant %uint 2
%uint_3 = OpConstant %uint 3
%uint_4 = OpConstant %uint 4
%d_src = OpExtInst %void %dbg DebugSource %file
%d_cu = OpExtInst %void %dbg DebugCompilationUnit %uint_1 %uint_4 %d_src %uint_2
%d_fnty = OpExtInst %void %dbg DebugTypeFunction %uint_3 %void
%d_main = OpExtInst %void %dbg DebugFunction %s_main %d_fnty %d_src %uint_1 %uint_0 %d_cu %s_main %uint_3 %uint_1
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr Function
%sc = OpExtInst %void %dbg DebugScope %d_main
%l1 = OpExtInst %void %dbg DebugLine %d_src %uint_1 %uint_1 %uint_0 %uint_0
OpStore %v %uint_1
OpBranch %next
%next = OpLabel
%sc2 = OpExtInst %void %dbg DebugScope %d_main
%l2 = OpExtInst %void %dbg DebugLine %d_src %uint_2 %uint_2 %uint_0 %uint_0
OpStore %v %uint_2
OpReturn
OpFunctionEnd
"#;

#[test]
fn each_block_says_its_scope_again() {
    let m = read::read_words(&asm::assemble(SAME_SCOPE_TWICE).unwrap()).unwrap();
    let words = write::write_words(&m);
    let text = common::spirv_dis(&words, &["--raw-id", "--no-header"]);
    // spirv-opt (and any reader for which a scope ends with its block) would see the second
    // block's store in no scope if the writer relied on the first block's marker.
    assert_eq!(text.matches("DebugScope").count(), 2, "{text}");
    let again = read::read_words(&words).unwrap();
    for (i, l) in located(&again.functions()[0]) {
        if i.op() == Op::Store {
            assert!(l.scope.is_some(), "a store lost its scope:\n{text}");
        }
    }
    common::validate(&words, true).unwrap();
}

#[test]
fn the_writer_says_each_location_once_and_reads_back_the_same() {
    let m = module();
    let words = write::write_words(&m);
    let again = read::read_words(&words).unwrap();
    let (a, b) = (&m.functions()[0], &again.functions()[0]);
    let (x, y) = (located(a), located(b));
    assert_eq!(x.len(), y.len());
    for ((i, l), (j, k)) in x.iter().zip(&y) {
        assert_eq!(i.op(), j.op());
        assert_eq!(
            l,
            k,
            "the location of {:?} changed through the writer",
            i.op()
        );
    }
    let text = common::spirv_dis(&words, &["--raw-id", "--no-header"]);
    // l1b repeats l1 and l2 describes nothing: neither is said.
    assert_eq!(text.matches("DebugLine").count(), 4, "{text}");
    // The phi's block says its scope after the phi, never before it.
    let body: Vec<&str> = text.lines().collect();
    let phi = body.iter().position(|l| l.contains("OpPhi")).unwrap();
    assert!(
        !body[phi - 1].contains("DebugScope") && !body[phi - 1].contains("DebugLine"),
        "a non-semantic marker before a phi:\n{text}"
    );
    // So is the entry block's: after its variable.
    let var = body.iter().position(|l| l.contains("OpVariable")).unwrap();
    assert!(body[var - 1].contains("OpLabel"), "{text}");
    common::validate(&words, true).unwrap();
    assert_eq!(write::write_words(&again), words, "not a fixed point");
}

#[test]
fn the_text_form_says_locations_in_loc_lines_and_reads_them_back() {
    let m = module();
    let text = print::print(&m);
    // The store's location: scope, DebugLine and OpLine, by the ids the printer names.
    let first = text
        .lines()
        .find(|l| l.contains("; @loc"))
        .expect("a location line")
        .trim()
        .to_string();
    let words: Vec<&str> = first.split_whitespace().collect();
    assert!(
        first.starts_with("; @loc scope %")
            && first.contains(" debug %")
            && first.ends_with(" 1 1 0 0 line %3 1 5"),
        "{first}"
    );
    assert!(
        !text.contains("DebugLine"),
        "markers are not printed: {text}"
    );
    let back = parse::parse(&text).unwrap();
    assert_eq!(print::print(&back), text);
    let (x, y) = (located(&m.functions()[0]), located(&back.functions()[0]));
    // Ids are numbered afresh; the lines are the same.
    for ((i, l), (_, k)) in x.iter().zip(&y) {
        let said = |m: &Module, l: &Location| {
            (
                line_of(m, l),
                l.line.map(|o| (o.line, o.column)),
                l.scope.is_some(),
            )
        };
        assert_eq!(
            said(&m, l),
            said(&back, k),
            "the location of {:?} changed through the text",
            i.op()
        );
    }
    // What a reader is told when a location does not read.
    let (scope, source) = (words[3], words[5]);
    for (bad, says) in [
        (
            format!("; @loc scope {scope} debug {source} 77 77 0 0"),
            "no 32-bit integer constant 77",
        ),
        ("; @loc lines %3 1 1".to_string(), "unknown part `lines`"),
        ("; @loc scope %nowhere".to_string(), "is no id"),
    ] {
        let bad = bad.as_str();
        let broken = text.replacen(&first, bad, 1);
        let e = parse::parse(&broken).expect_err(bad).to_string();
        assert!(e.contains(says), "{bad}: {e}");
        assert!(
            e.starts_with("line "),
            "{bad}: the error names no line: {e}"
        );
    }
}

#[test]
fn code_made_where_other_code_stands_takes_its_location() {
    let mut m = module();
    let id = m.fresh_id().unwrap();
    let f = shaderstep::ir::rewrite::function_at_mut(&mut m, 0);
    // Before the entry block's store: after the variable, which has no location, the store's.
    let load = Inst::with_args(Op::Load, f.def().ty(), Some(id), vec![]);
    let i = f.insert_inst(0, 1, load);
    let store = f.block(0).insts[2];
    assert_eq!(f.location_of(i), f.location_of(store));
    // Appended to the then block: the location in force before its branch.
    let x = f.block(1).insts[0];
    let k = f.append_inst(1, Inst::with_args(Op::Nop, None, None, vec![]));
    assert_eq!(f.location_of(k), f.location_of(x));
    // A replacement keeps the location of what it replaces.
    let before = *f.location_of(x);
    f.replace_inst(x, Inst::with_args(Op::Nop, None, None, vec![]));
    assert_eq!(*f.location_of(x), before);
}

/// `OpenCL.DebugInfo.100` has no `DebugLine`: its scopes go with `OpLine`s.
#[test]
fn opencl_debug_info_scopes_are_read_and_written() {
    let text = r#"; Version: 1.3
OpCapability Shader
%dbg = OpExtInstImport "OpenCL.DebugInfo.100"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "a.hlsl"
%s_main = OpString "main"
%s_clang = OpString "clang"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%d_src = OpExtInst %void %dbg DebugSource %file
%d_cu = OpExtInst %void %dbg DebugCompilationUnit 2 4 %d_src 5
%d_fnty = OpExtInst %void %dbg DebugTypeFunction 0 %void
%d_main = OpExtInst %void %dbg DebugFunction %s_main %d_fnty %d_src 1 1 %d_cu %s_main 0 1 %main
%main = OpFunction %void None %fn
%entry = OpLabel
%sc = OpExtInst %void %dbg DebugScope %d_main
OpLine %file 2 1
OpBranch %next
%next = OpLabel
OpLine %file 3 1
OpReturn
%end = OpExtInst %void %dbg DebugNoScope
OpFunctionEnd
"#;
    let words = asm::assemble(text).unwrap();
    let m = read::read_words(&words).unwrap();
    let f = &m.functions()[0];
    let body = located(f);
    // The scope ends with its block, as spirv-opt reads either flavor.
    assert!(
        body[0].1.scope.is_some(),
        "the entry block's branch is in it"
    );
    assert!(body[1].1.scope.is_none(), "the next block says none");
    assert_eq!(body[1].1.line.map(|l| l.line), Some(3));
    let out = write::write_words(&m);
    let dis = common::spirv_dis(&out, &["--raw-id", "--no-header"]);
    assert_eq!(dis.matches("DebugScope").count(), 1, "{dis}");
    common::validate(&out, true).unwrap();
}
