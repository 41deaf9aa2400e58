//! What the printers know about each line: the function, block and value it holds, the values
//! it uses, and the source line in effect, for the IR text and for the disassembly alike.

use shaderstep::ir::listing::Listing;
use shaderstep::ir::spirv::disasm::{self, DisasmOptions};
use shaderstep::ir::{parse, print, Module};

const SHADER: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "a.comp"
OpName %main "main"
OpName %double "double"
OpName %x "x"
OpName %twice "twice"
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%fn = OpTypeFunction %void
%fn_u = OpTypeFunction %uint %uint
%uint_2 = OpConstant %uint 2
%double = OpFunction %uint None %fn_u
%x = OpFunctionParameter %uint
%d_entry = OpLabel
OpLine %file 7 3
%twice = OpIMul %uint %x %uint_2
OpReturnValue %twice
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
%r = OpFunctionCall %uint %double %uint_2
OpBranch %next
%next = OpLabel
%s = OpIAdd %uint %r %r
OpReturn
OpFunctionEnd
"#;

fn module() -> Module {
    parse::parse(SHADER).unwrap_or_else(|e| panic!("{e}"))
}

fn id_named(m: &Module, name: &str) -> u32 {
    (1..m.bound)
        .find(|&id| m.debug_name(id) == Some(name))
        .unwrap_or_else(|| panic!("no id named {name}"))
}

/// Every check, on either printer's listing.
fn check(m: &Module, l: &Listing) {
    let twice = id_named(m, "twice");
    let x = id_named(m, "x");
    let double = id_named(m, "double");
    let main = id_named(m, "main");

    // The line defining %twice: in %double, its block, using %x, on source line 7.
    let row = l.def_row(twice).expect("a line defines %twice");
    assert!(l.lines[row].contains("OpIMul"), "{}", l.lines[row]);
    let info = l.info(row);
    assert_eq!(info.func, Some(double));
    assert!(info.block.is_some());
    assert!(info.uses.contains(&x), "{:?}", info.uses);
    let (_, line) = info.source.expect("an OpLine is in effect");
    assert_eq!(line, 7);

    // %x is named, used by the multiplication only, and defined by the parameter line.
    let uses = l.use_rows(x);
    assert_eq!(uses.len(), 2, "{uses:?}");
    assert!(l.lines[uses[0]].contains("OpName"), "{}", l.lines[uses[0]]);
    assert_eq!(uses[1], row);
    assert!(l.lines[l.def_row(x).unwrap()].contains("OpFunctionParameter"));

    // Functions: both, by id and by printed name, their lines from header to end.
    let f = l.function(double).expect("%double has lines");
    assert_eq!(f.name, "double");
    assert!(f.rows.contains(&row));
    let g = l.function_named("main").expect("%main has lines");
    assert_eq!(g.id, main);
    assert!(!g.rows.contains(&row));
    assert!(l.lines[g.rows.end - 1].trim() == "OpFunctionEnd");
    // Lines of %main hold %main; lines outside any function hold none.
    for r in g.rows.clone() {
        if l.info(r).def.is_some() {
            assert_eq!(l.info(r).func, Some(main), "{}", l.lines[r]);
        }
    }
    let uint = m
        .globals()
        .iter()
        .find(|g| g.op() == spirv::Op::TypeInt)
        .and_then(|g| g.result())
        .unwrap();
    assert_eq!(l.info(l.def_row(uint).unwrap()).func, None);

    // Tokens: the second token of `%s = OpIAdd %uint %r %r` is the result type.
    let s = l
        .lines
        .iter()
        .position(|t| t.contains("OpIAdd"))
        .expect("the add is printed");
    let ids: Vec<u32> = l.info(s).text_ids().collect();
    assert_eq!(ids.len(), 4, "{ids:?}");
    assert_eq!(ids[2], ids[3], "both operands are %r");
    assert_eq!(l.id_of_token(s, "%uint", 1, 4), Some(uint));
}

#[test]
fn the_ir_listing_knows_what_each_line_holds() {
    let m = module();
    let l = print::listing(&m);
    assert_eq!(l.text(), print::print(&m));
    check(&m, &l);
}

#[test]
fn the_disassembly_listing_knows_what_each_line_holds() {
    let m = module();
    let l = disasm::listing(&m, &DisasmOptions::default());
    assert_eq!(l.text(), disasm::disassemble(&m, &DisasmOptions::default()));
    check(&m, &l);
}

#[test]
fn a_plain_listing_knows_nothing() {
    let l = Listing::plain("fn main() {\n  return;\n}\n");
    assert_eq!(l.len(), 3);
    assert_eq!(l.info(1).def, None);
    assert_eq!(l.info(1).func, None);
    assert!(l.functions.is_empty());
    assert!(!l.is_recorded());
}

/// A `-gVS` build says its lines with `DebugLine` (operands: the `DebugSource`, whose file is
/// an `OpString`, and constants): the line is in effect until `DebugNoLine`, the next
/// `DebugLine` or the end of the block, in both printers.
const DEBUG_LINES: &str = r#"; Version: 1.3
OpCapability Shader
OpExtension "SPV_KHR_non_semantic_info"
%dbg = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "b.comp"
%text = OpString "void main() {}"
OpName %main "main"
OpName %a "a"
OpName %b "b"
OpName %c "c"
OpName %d "d"
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%fn = OpTypeFunction %void
%uint_0 = OpConstant %uint 0
%uint_2 = OpConstant %uint 2
%uint_12 = OpConstant %uint 12
%uint_13 = OpConstant %uint 13
%src = OpExtInst %void %dbg DebugSource %file %text
%main = OpFunction %void None %fn
%entry = OpLabel
%l1 = OpExtInst %void %dbg DebugLine %src %uint_12 %uint_12 %uint_0 %uint_0
%a = OpIAdd %uint %uint_2 %uint_2
%l2 = OpExtInst %void %dbg DebugLine %src %uint_13 %uint_13 %uint_0 %uint_0
%b = OpIMul %uint %a %a
%l3 = OpExtInst %void %dbg DebugNoLine
%c = OpISub %uint %b %a
%l4 = OpExtInst %void %dbg DebugLine %src %uint_12 %uint_12 %uint_0 %uint_0
OpBranch %next
%next = OpLabel
%d = OpIAdd %uint %c %c
OpReturn
OpFunctionEnd
"#;

fn check_debug_lines(m: &Module, l: &Listing) {
    let file = m
        .debug()
        .iter()
        .find(|i| i.op() == spirv::Op::String)
        .and_then(|i| i.result())
        .unwrap();
    let source = |name: &str| l.info(l.def_row(id_named(m, name)).unwrap()).source;
    assert_eq!(source("a"), Some((file, 12)));
    assert_eq!(source("b"), Some((file, 13)));
    assert_eq!(source("c"), None, "DebugNoLine ends the line");
    assert_eq!(source("d"), None, "a block's end ends the line");
    let branch = l.lines.iter().position(|t| t.contains("OpBranch")).unwrap();
    assert_eq!(l.info(branch).source, Some((file, 12)));
}

#[test]
fn both_listings_follow_debug_line() {
    let m = parse::parse(DEBUG_LINES).unwrap_or_else(|e| panic!("{e}"));
    check_debug_lines(&m, &print::listing(&m));
    check_debug_lines(&m, &disasm::listing(&m, &DisasmOptions::default()));
}

#[test]
fn debug_source_embeds_the_text() {
    let m = parse::parse(DEBUG_LINES).unwrap_or_else(|e| panic!("{e}"));
    let texts = shaderstep::ir::debug::source_texts(&m);
    assert_eq!(texts.len(), 1);
    assert_eq!(texts[0].1, "void main() {}");
}
