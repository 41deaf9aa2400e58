//! The IR's analyses and rewrite kit on small functions written in the IR text form: what
//! each computes, that the cache keeps an analysis exactly as long as what it reads is
//! unchanged, and that the kit's edits keep phis, merges, names and decorations right.

use shaderstep::ir::analysis::{CallGraph, ConstructKind, DomTree, PostDomTree, Structure};
use shaderstep::ir::ext_sets::ExtSets;
use shaderstep::ir::fxhash::{FxHashMap, FxHashSet};
use shaderstep::ir::rewrite::{
    clone_body, forget, function_at_mut, join_blocks, merge_into_predecessor, prune_unreachable,
    repair_ssa, restore_function, split_block, Edits, Replacer,
};
use shaderstep::ir::verify::{verify, Level};
use shaderstep::ir::{parse, Function, Id, Inst, Module};
use spirv::Op;

mod common;

const HEAD: &str = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
"#;

const TYPES: &str = r#"%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%ptr = OpTypePointer Function %uint
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_5 = OpConstant %uint 5
%true = OpConstantTrue %bool
"#;

/// A module from OpName lines, the body (functions) and extra types.
fn module(names: &[&str], body: &str) -> Module {
    let mut text = HEAD.to_string();
    for n in names {
        text += &format!("OpName %{n} \"{n}\"\n");
    }
    text += TYPES;
    text += body;
    parse::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The layout position of the block named `name`.
fn block(m: &Module, f: &Function, name: &str) -> usize {
    (0..f.blocks().len())
        .find(|&b| m.debug_name(f.block(b).label) == Some(name))
        .unwrap_or_else(|| panic!("no block {name}"))
}

fn id(m: &Module, name: &str) -> Id {
    m.debug()
        .iter()
        .find_map(|i| match (i.arg(0), i.lits()) {
            (Some(t), [rspirv::dr::Operand::LiteralString(s)]) if s == name => Some(t),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no id {name}"))
}

fn assert_valid(m: &Module) {
    let errors: Vec<_> = verify(m)
        .into_iter()
        .filter(|e| e.level == Level::Error)
        .collect();
    assert!(
        errors.is_empty(),
        "{errors:?}\n{}",
        shaderstep::ir::print::print(m)
    );
}

/// entry → (a diamond: then | else) → merge → loop (header ⇄ body, continue) → exit.
const DIAMOND_LOOP: &str = r#"%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr Function
%c = OpLoad %uint %v
%cond = OpULessThan %bool %c %uint_5
OpSelectionMerge %merge None
OpBranchConditional %cond %then %else
%then = OpLabel
%t = OpIAdd %uint %c %uint_1
OpBranch %merge
%else = OpLabel
OpBranch %merge
%merge = OpLabel
%x = OpPhi %uint %t %then %c %else
OpBranch %header
%header = OpLabel
%i = OpPhi %uint %x %merge %i_next %cont
%more = OpULessThan %bool %i %uint_5
OpLoopMerge %exit %cont None
OpBranchConditional %more %body %exit
%body = OpLabel
%odd = OpBitwiseAnd %uint %i %uint_1
%is_odd = OpIEqual %bool %odd %uint_1
OpSelectionMerge %cont None
OpBranchConditional %is_odd %brk %cont
%brk = OpLabel
OpBranch %exit
%cont = OpLabel
%i_next = OpIAdd %uint %i %uint_1
OpBranch %header
%exit = OpLabel
OpStore %v %i
OpReturn
OpFunctionEnd
"#;

const NAMES: &[&str] = &[
    "main", "entry", "then", "else", "merge", "header", "body", "brk", "cont", "exit", "x", "i",
    "t", "c", "v", "i_next",
];

#[test]
fn dominators_frontiers_and_post_dominators() {
    let m = module(NAMES, DIAMOND_LOOP);
    assert_valid(&m);
    let f = &m.functions()[0];
    let b = |n: &str| block(&m, f, n);
    let dom = f.domtree();
    assert_eq!(dom.idom[b("merge")], Some(b("entry")));
    assert_eq!(dom.idom[b("exit")], Some(b("header")));
    assert!(dom.dominates(b("header"), b("cont")));
    assert!(!dom.dominates(b("then"), b("merge")));
    assert!(dom.dominates(b("body"), b("body")));
    assert!(!dom.strictly_dominates(b("body"), b("body")));
    // The arms of the diamond meet at the merge; the loop body comes back to the header.
    let df = f.frontiers();
    assert_eq!(df.0[b("then")], vec![b("merge")]);
    assert!(df.0[b("cont")].contains(&b("header")));
    assert!(df.0[b("brk")].contains(&b("exit")));
    // Post-dominance: the merge block post-dominates the diamond's header.
    let pd = f.postdom();
    assert!(pd.post_dominates(b("merge"), b("entry")));
    assert!(pd.post_dominates(b("exit"), b("header")));
    assert!(!pd.post_dominates(b("cont"), b("body")));
    assert_eq!(pd.ipdom(b("then")), Some(b("merge")));
    // Control dependence: the arms run because of the entry's branch; the break because of
    // the body's.
    let cd = f.control_deps();
    assert_eq!(cd.0[b("then")], vec![b("entry")]);
    assert!(cd.0[b("brk")].contains(&b("body")));
    assert!(cd.0[b("merge")].is_empty());
}

#[test]
fn the_construct_tree_and_the_loop_nest() {
    let m = module(NAMES, DIAMOND_LOOP);
    let f = &m.functions()[0];
    let b = |n: &str| block(&m, f, n);
    let s: std::sync::Arc<Structure> = f.structure();
    let kinds: Vec<ConstructKind> = s.constructs.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        vec![
            ConstructKind::Selection,
            ConstructKind::Loop,
            ConstructKind::Selection,
            ConstructKind::Continue
        ]
    );
    let sel = &s.constructs[0];
    assert_eq!(sel.blocks, {
        let mut v = vec![b("entry"), b("then"), b("else")];
        v.sort();
        v
    });
    // The body's selection breaks to the loop's merge: that block is outside it, and so is
    // the continue target it names as its own merge.
    let inner = &s.constructs[2];
    assert_eq!(inner.parent, Some(1));
    assert!(!s.contains(2, b("exit")));
    assert!(s.contains(2, b("brk")));
    assert_eq!(s.loop_of(b("brk")), Some(1));
    assert_eq!(s.loop_of(b("exit")), None);
    assert_eq!(s.loop_depth[b("cont")], 1);
    assert_eq!(s.loop_depth[b("merge")], 0);
    assert_eq!(s.constructs[3].header, b("cont"));
    assert_eq!(s.innermost[b("cont")], Some(3));
    assert_eq!(s.loops().count(), 1);
}

#[test]
fn def_use_chains_and_placement() {
    let m = module(NAMES, DIAMOND_LOOP);
    let f = &m.functions()[0];
    let du = f.def_use(&ExtSets::of(&m));
    let i = id(&m, "i");
    let users: Vec<Op> = du.users(i).map(|u| f.inst(u).op()).collect();
    assert_eq!(
        users,
        vec![Op::ULessThan, Op::BitwiseAnd, Op::IAdd, Op::Store]
    );
    let x = f.value(id(&m, "x")).expect("x is defined in the body");
    assert_eq!(du.place(x), Some((block(&m, f, "merge"), 0)));
    // Labels are used by the branches and phis that name them (merge annotations are not
    // uses): the two arms' branches and the loop header's phi.
    let merge_label = f.block(block(&m, f, "merge")).label;
    assert_eq!(du.uses(merge_label).len(), 3);
}

#[test]
fn analyses_stay_cached_until_what_they_read_changes() {
    let mut m = module(NAMES, DIAMOND_LOOP);
    let f = function_at_mut(&mut m, 0);
    let dom = f.domtree();
    let sets = ExtSets::default();
    let _ = f.def_use(&sets);
    assert!(f.has_analysis::<DomTree>());
    // An instruction change keeps the CFG analyses and drops def-use.
    let b = 0;
    let c = f.block_insts(b).nth(1).unwrap().result().unwrap();
    f.append_inst(
        b,
        Inst::with_args(Op::CopyObject, Some(2), Some(1000), vec![c]),
    );
    assert!(f.has_analysis::<DomTree>());
    assert!(!f.has_analysis::<shaderstep::ir::analysis::DefUse>());
    assert!(std::sync::Arc::ptr_eq(&dom, &f.domtree()));
    // A change of a branch target drops them.
    let t = f.block(b).terminator;
    let targets = f.inst(t).args().to_vec();
    f.set_arg(t, 1, targets[2]);
    assert!(!f.has_analysis::<DomTree>());
    assert!(!f.has_analysis::<PostDomTree>());
    // A branch condition is code, not the CFG.
    let _ = f.domtree();
    f.set_arg(t, 0, c);
    assert!(f.has_analysis::<DomTree>());
}

#[test]
fn infinite_loops_still_have_post_dominators() {
    let m = module(
        &["main", "entry", "header", "exit"],
        r#"%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %header
%header = OpLabel
OpLoopMerge %exit %header None
OpBranch %header
%exit = OpLabel
OpReturn
OpFunctionEnd
"#,
    );
    let f = &m.functions()[0];
    let pd = f.postdom();
    let h = block(&m, f, "header");
    assert!(pd.tree.contains(h));
    assert!(pd.tree.contains(0));
    assert!(pd.post_dominates(h, 0));
}

#[test]
fn the_call_graph_orders_callees_first_and_finds_recursion() {
    let m = module(
        &["main", "a", "b", "r"],
        r#"%b = OpFunction %void None %fn
%b_entry = OpLabel
OpReturn
OpFunctionEnd
%r = OpFunction %void None %fn
%r_entry = OpLabel
%r1 = OpFunctionCall %void %r
OpReturn
OpFunctionEnd
%a = OpFunction %void None %fn
%a_entry = OpLabel
%a1 = OpFunctionCall %void %b
%a2 = OpFunctionCall %void %b
OpReturn
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
%m1 = OpFunctionCall %void %a
%m2 = OpFunctionCall %void %r
OpReturn
OpFunctionEnd
"#,
    );
    let cg = CallGraph::new(&m);
    let idx = |n: &str| cg.index(id(&m, n)).unwrap();
    let pos = |n: &str| cg.bottom_up.iter().position(|&f| f == idx(n)).unwrap();
    assert!(pos("b") < pos("a") && pos("a") < pos("main"));
    assert!(cg.recursive[idx("r")]);
    assert!(!cg.recursive[idx("a")]);
    assert_eq!(cg.call_sites[idx("b")], 2);
    assert_eq!(cg.callers[idx("b")], vec![idx("a")]);
    let reach = cg.reachable_from([idx("a")]);
    assert!(reach[idx("b")] && !reach[idx("r")]);
}

#[test]
fn splitting_and_merging_blocks_keep_phis_right() {
    let mut m = module(NAMES, DIAMOND_LOOP);
    let then = block(&m, &m.functions()[0], "then");
    let f = function_at_mut(&mut m, 0);
    // Split "then" after its add: the merge's phi now names the new block.
    let new_label = 2000;
    let nb = split_block(f, then, 1, new_label).expect("a plain block splits");
    assert_eq!(nb, then + 1);
    let merge_phi = f
        .blocks()
        .iter()
        .flat_map(|b| b.insts.iter())
        .map(|&i| f.inst(i))
        .find(|i| i.op() == Op::Phi)
        .unwrap()
        .clone();
    assert!(merge_phi.args().contains(&new_label));
    m.bound = m.bound.max(2001);
    assert_valid(&m);
    // And merged back: the phi names the original block again.
    let f = function_at_mut(&mut m, 0);
    let replaced = merge_into_predecessor(f, then + 1).expect("one predecessor");
    assert!(replaced.is_empty());
    assert_valid(&m);
    // A merge block is not merged away.
    let f = function_at_mut(&mut m, 0);
    let header = (0..f.blocks().len())
        .find(|&b| {
            f.block(b)
                .merge
                .as_ref()
                .is_some_and(|m| m.continue_target().is_some())
        })
        .unwrap();
    assert!(merge_into_predecessor(f, header).is_err());
}

#[test]
fn a_cloned_body_has_fresh_ids_and_its_own_labels() {
    let m = module(NAMES, DIAMOND_LOOP);
    let f = &m.functions()[0];
    let mut next = 5000;
    let mut map = FxHashMap::default();
    let blocks = clone_body(f, &mut map, &mut || {
        next += 1;
        Some(next)
    })
    .unwrap();
    assert_eq!(blocks.len(), f.blocks().len());
    let defined: FxHashSet<Id> = f.defined_ids().collect();
    for b in &blocks {
        assert!(b.label > 5000);
        for i in b.insts.iter().chain(std::iter::once(&b.terminator)) {
            assert!(i.result().is_none_or(|r| r > 5000));
            // Operands defined in the function are renamed; globals are not.
            for a in i.args() {
                assert!(!defined.contains(a), "{a} kept");
            }
        }
        if let Some(mg) = &b.merge {
            assert!(mg.merge_block() > 5000);
        }
    }
}

#[test]
fn replacements_are_recorded_and_names_and_decorations_of_what_goes_leave() {
    let mut m = module(
        &["main", "a", "b", "entry"],
        r#"%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr Function
%a = OpIAdd %uint %uint_1 %uint_1
%b = OpCopyObject %uint %a
OpStore %v %b
OpReturn
OpFunctionEnd
"#,
    );
    let (a, b) = (id(&m, "a"), id(&m, "b"));
    shaderstep::ir::rewrite::append_annotations(
        &mut m,
        [Inst::new(
            Op::Decorate,
            None,
            None,
            vec![
                rspirv::dr::Operand::IdRef(b),
                rspirv::dr::Operand::Decoration(spirv::Decoration::RelaxedPrecision),
            ],
        )],
    );
    let mut r = Replacer::new();
    assert!(r.replace_in(m.functions()[0].id(), b, a));
    assert!(!r.replace(a, b), "a cycle is refused");
    function_at_mut(&mut m, 0).retain_all(|i| i.result() != Some(b));
    r.apply(&mut m, "test");
    // The store takes %a; %b's name and decoration went with it, not onto %a.
    let store = m.functions()[0]
        .body()
        .find(|i| i.op() == Op::Store)
        .unwrap();
    assert_eq!(store.args()[1], a);
    assert!(m.debug_name(b).is_none());
    assert!(m
        .annotations()
        .iter()
        .all(|d| d.arg(0) != Some(a) && d.arg(0) != Some(b)));
    assert_eq!(m.replacements.len(), 1);
    assert_eq!((m.replacements[0].old, m.replacements[0].new), (b, a));
    assert_eq!(m.replacements[0].pass, "test");
    assert_valid(&m);
    // forget drops a decoration group's targets that are gone.
    let gone: FxHashSet<Id> = [a].into_iter().collect();
    forget(&mut m, &gone);
    assert!(m.debug_name(a).is_none());
}

#[test]
fn edits_anchor_to_instructions_not_positions() {
    let mut m = module(NAMES, DIAMOND_LOOP);
    let f = function_at_mut(&mut m, 0);
    // The entry block: the variable, then the load of %c.
    let x = f.block(0).insts[1];
    let c = f.inst(x).result().unwrap();
    let mut e = Edits::new();
    e.insert_after(
        x,
        Inst::with_args(Op::CopyObject, Some(3), Some(3001), vec![c]),
    );
    e.insert_before(x, Inst::with_args(Op::Nop, None, None, vec![]));
    e.insert_after(
        x,
        Inst::with_args(Op::CopyObject, Some(3), Some(3002), vec![c]),
    );
    let before = f.block(0).insts.len();
    e.apply(f);
    let ops: Vec<Option<Id>> = f.block_insts(0).map(|i| i.result()).collect();
    assert_eq!(f.block(0).insts.len(), before + 3);
    let at = ops.iter().position(|r| *r == Some(c)).unwrap();
    assert_eq!(ops[at + 1], Some(3001));
    assert_eq!(ops[at + 2], Some(3002));
    assert_eq!(ops[at - 1], None);
}

#[test]
fn pruning_unreachable_blocks_keeps_named_merges_and_fixes_phis() {
    let mut m = module(
        &["main", "entry", "dead", "merge", "x"],
        r#"%main = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %merge None
OpBranchConditional %true %merge %merge
%dead = OpLabel
%d = OpIAdd %uint %uint_1 %uint_1
OpBranch %merge
%merge = OpLabel
%x = OpPhi %uint %uint_0 %entry %d %dead
OpReturn
OpFunctionEnd
"#,
    );
    assert_valid(&m);
    let f = function_at_mut(&mut m, 0);
    let gone = prune_unreachable(f, &mut |_| 0);
    assert_eq!(f.blocks().len(), 2);
    assert_eq!(gone.len(), 2, "the block and its value");
    let phi = f.body().find(|i| i.op() == Op::Phi).unwrap();
    assert_eq!(phi.args().len(), 2);
    // Their names go with them.
    forget(&mut m, &gone.into_iter().collect());
    assert_valid(&m);
}

#[test]
fn ssa_repair_goes_through_memory_where_dominance_broke() {
    // %t is defined in "then" and used in "merge", which "else" also reaches: invalid SSA,
    // as a CFG change can leave it. The repair stores it and loads it where it is used.
    let mut m = module(
        &["main", "entry", "then", "else", "merge"],
        r#"%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr Function
OpSelectionMerge %merge None
OpBranchConditional %true %then %else
%then = OpLabel
%t = OpIAdd %uint %uint_1 %uint_1
OpBranch %merge
%else = OpLabel
OpBranch %merge
%merge = OpLabel
%u = OpIAdd %uint %t %uint_1
OpStore %v %u
OpReturn
OpFunctionEnd
"#,
    );
    assert!(verify(&m)
        .iter()
        .any(|e| e.message.contains("not dominated")));
    let mut f = shaderstep::ir::Function::clone(&m.functions()[0]);
    let n = repair_ssa(&mut m, &mut f).unwrap();
    assert_eq!(n, 1);
    restore_function(&mut m, 0, std::sync::Arc::new(f));
    assert_valid(&m);
}

/// A function that ends in an infinite loop: what runs before it keeps its ordinary
/// post-dominators (the loop, not the entry, stands for the exit it never reaches), so a
/// loop before it is not control dependent on anything it does not decide.
#[test]
fn post_dominators_before_an_infinite_loop_are_ordinary() {
    let text = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %entry "entry"
OpName %h "h"
OpName %m "m"
OpName %forever "forever"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%true = OpConstantTrue %bool
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %h
%h = OpLabel
OpLoopMerge %m %c None
OpBranchConditional %true %c %m
%c = OpLabel
OpBranch %h
%m = OpLabel
OpBranch %forever
%forever = OpLabel
OpLoopMerge %never %forever None
OpBranch %forever
%never = OpLabel
OpUnreachable
OpFunctionEnd
"#;
    let m = shaderstep::ir::parse::parse(text).unwrap();
    let f = &m.functions()[0];
    let pd = f.postdom();
    let at = |name: &str| block(&m, f, name);
    // The loop's merge post-dominates its header, and the infinite loop everything.
    assert!(pd.post_dominates(at("m"), at("h")));
    assert!(pd.post_dominates(at("forever"), at("entry")));
    let cd = f.control_deps();
    // (The infinite loop depends only on itself: its tie to the exit is a branch it never
    // takes.)
    assert!(
        cd.0[at("forever")].iter().all(|&b| b == at("forever")),
        "{:?}",
        cd.0[at("forever")]
    );
    assert!(cd.0[at("m")].is_empty());
}

/// `join_blocks` (one sweep) joins exactly what `merge_into_predecessor`, block after block,
/// joins: on every test shader after inlining and promotion (many blocks in chains), the two
/// give the same function.
#[test]
fn joining_all_blocks_at_once_is_joining_them_one_by_one() {
    use shaderstep::ir::print::print;
    use shaderstep::pipeline::Pipeline;
    let pipeline = Pipeline::from_names(&[
        "lower",
        "inline",
        "eliminate-dead-functions",
        "sroa",
        "mem2reg",
        "ccp",
        "dead-branch",
    ])
    .unwrap();
    let mut compared = 0;
    for s in common::corpus() {
        let run = pipeline.run(std::sync::Arc::new(s.words.clone()));
        let Some(m) = run.final_module() else {
            continue;
        };
        let (mut one_by_one, mut at_once) = (Module::clone(m), Module::clone(m));
        for k in 0..m.functions().len() {
            if m.functions()[k].is_declaration() {
                continue;
            }
            let f = function_at_mut(&mut one_by_one, k);
            let mut undef = |_| 0;
            prune_unreachable(f, &mut undef);
            let mut b = 1;
            while b < f.blocks().len() {
                if merge_into_predecessor(f, b).is_err() {
                    b += 1;
                }
            }
            let g = function_at_mut(&mut at_once, k);
            prune_unreachable(g, &mut undef);
            join_blocks(g, &mut |_, _, _, _| false);
            compared += 1;
        }
        assert_eq!(
            print(&one_by_one),
            print(&at_once),
            "{}: join_blocks differs",
            s.path.display()
        );
    }
    assert!(compared >= 40, "only {compared} functions compared");
}

/// Debug uses are not uses: a `DebugValue` of a value is one of its `debug_uses`, never one of
/// its `uses`; a record whose operands its grammar does not have stays opaque, a use.
#[test]
fn debug_uses_are_apart_from_uses() {
    let words = shaderstep::ir::spirv::asm::assemble(
        r#"
OpCapability Shader
OpExtension "SPV_KHR_non_semantic_info"
%dbg = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "t.comp"
%src = OpString ""
%s_uint = OpString "uint"
%s_x = OpString "x"
%s_main = OpString "main"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_2 = OpConstant %uint 2
%uint_3 = OpConstant %uint 3
%uint_4 = OpConstant %uint 4
%uint_6 = OpConstant %uint 6
%uint_32 = OpConstant %uint 32
%d_src = OpExtInst %void %dbg DebugSource %file %src
%d_cu = OpExtInst %void %dbg DebugCompilationUnit %uint_1 %uint_4 %d_src %uint_2
%d_uint = OpExtInst %void %dbg DebugTypeBasic %s_uint %uint_32 %uint_6 %uint_0
%d_fnty = OpExtInst %void %dbg DebugTypeFunction %uint_3 %void
%d_main = OpExtInst %void %dbg DebugFunction %s_main %d_fnty %d_src %uint_1 %uint_0 %d_cu %s_main %uint_3 %uint_1
%d_x = OpExtInst %void %dbg DebugLocalVariable %s_x %d_uint %d_src %uint_2 %uint_0 %d_main %uint_4
%d_expr = OpExtInst %void %dbg DebugExpression
%main = OpFunction %void None %fn
%entry = OpLabel
%def = OpExtInst %void %dbg DebugFunctionDefinition %d_main %main
%a = OpIAdd %uint %uint_1 %uint_2
%val = OpExtInst %void %dbg DebugValue %d_x %a %d_expr
%b = OpIMul %uint %a %a
%bad = OpExtInst %void %dbg DebugValue %d_x %b
OpReturn
OpFunctionEnd
"#,
    )
    .unwrap();
    let m = shaderstep::ir::spirv::read::read_words(&words).unwrap();
    let f = &m.functions()[0];
    let du = f.def_use(&ExtSets::of(&m));
    let def = |op: Op| {
        f.body()
            .find(|i| i.op() == op)
            .and_then(|i| i.result())
            .unwrap()
    };
    let (a, b) = (def(Op::IAdd), def(Op::IMul));
    let ops = |uses: &[shaderstep::ir::analysis::Use]| -> Vec<Op> {
        uses.iter().map(|u| f.inst(u.inst).op()).collect()
    };
    assert_eq!(ops(du.uses(a)), vec![Op::IMul, Op::IMul]);
    assert_eq!(ops(du.debug_uses(a)), vec![Op::ExtInst]);
    // The malformed DebugValue (no expression) is opaque: it uses `b`.
    assert_eq!(ops(du.uses(b)), vec![Op::ExtInst]);
    assert!(du.debug_uses(b).is_empty());
    // The function's definition record does not use the function either.
    assert!(!du.is_used(f.id()));
}
