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
        .find(|g| g.op == spirv::Op::TypeInt)
        .and_then(|g| g.result)
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
