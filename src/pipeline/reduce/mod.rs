//! `reduce`: the smallest shader that still shows what a bisect found — a step whose output
//! spirv-val rejects, a pass that fails, a step whose results differ on the driver or that
//! crashes it, or whatever a command says is interesting (spirv-reduce's convention).
//!
//! Delta debugging over edits that make the module smaller, largest first (see `Edit`): debug
//! info, entry points, calls (deleted or inlined) and functions nothing calls, branches (a
//! conditional branch taken one way: selections lose an arm, loops run once or not at all),
//! blocks merged, operands and values made constants or replaced by operands (or by earlier
//! values of their type), memory made values, stores and unused instructions, interface
//! variables, struct members and array lengths (`types`), decorations, capabilities and
//! extensions. Each kind's chances are tried in chunks that halve
//! until one at a time, on all cores; an edit takes with it what only it used. A candidate is
//! kept only when spirv-val accepts it and it still has the property. Under `differs` no edit
//! brings undefined behaviour in: no `OpUndef` (values become null constants), no store to
//! function, private or workgroup memory that something reads, no divisor made zero, no
//! integer replaced by an operand, no loop cut short that leaves an integer behind.
//!
//! The files: `property` (what is interesting and how a candidate is judged), `driver` (the
//! delta debugging loop and a whole reduction to a file), `apply` (a chunk of edits made, and
//! what they leave unused swept away), `guards` (what keeps `differs` free of undefined
//! behaviour), and one file per kind of reduction, each finding its chances: `declarations`
//! (debug info, interface variables, decorations, capabilities), `functions` (entry points,
//! calls, dead functions), `control_flow` (branches, blocks merged), `constants` (operands and
//! values), `instructions` (unused ones and stores) and `types` (struct members, array
//! lengths).

use spirv::Op;

use crate::ir::{Id, Module};

mod apply;
mod constants;
mod control_flow;
mod declarations;
mod driver;
mod functions;
mod guards;
mod instructions;
mod property;
mod types;

pub use driver::{default_output, reduce, reduce_to_file, start_of, write, Progress, Reduced};
pub use property::{budget_for, prepare, quads_where_differs, step_named, Property, Test};

/// A kind of edit, largest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    DebugInfo,
    EntryPoints,
    Calls,
    Branches,
    Blocks,
    Operands,
    Memory,
    Unused,
    Values,
    Interface,
    Types,
    Decorations,
    Capabilities,
}

impl Edit {
    pub const ALL: [Edit; 13] = [
        Edit::DebugInfo,
        Edit::EntryPoints,
        Edit::Calls,
        Edit::Branches,
        Edit::Blocks,
        Edit::Operands,
        Edit::Memory,
        Edit::Unused,
        Edit::Values,
        Edit::Interface,
        Edit::Types,
        Edit::Decorations,
        Edit::Capabilities,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Edit::DebugInfo => "debug info and names",
            Edit::EntryPoints => "entry points",
            Edit::Calls => "calls",
            Edit::Branches => "branches",
            Edit::Blocks => "blocks merged",
            Edit::Operands => "operands made constant",
            Edit::Memory => "memory made values",
            Edit::Unused => "stores and unused instructions",
            Edit::Values => "values",
            Edit::Interface => "interface variables",
            Edit::Types => "struct members and array lengths",
            Edit::Decorations => "decorations",
            Edit::Capabilities => "capabilities and extensions",
        }
    }
}

/// One place an edit can be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Chance {
    DebugInfo,
    /// The entry point at this position.
    Entry(usize),
    /// The call with this result, in this function.
    Call(Id, Id),
    /// The call with this result, in this function, replaced by the callee's body.
    Inline(Id, Id),
    /// This function, which no entry point and no call names.
    DeadFunction(Id),
    /// Member `k` of this struct type, which nothing reaches.
    Member(Id, u32),
    /// This array type, one element long; indices not constant are allowed (not under
    /// `differs`, where they could then run past its end).
    ShortArray(Id, bool),
    /// The conditional branch ending this block, taken to its true (or false) target.
    Branch(Id, Id, bool),
    /// The loop with this header, run once: its continue target's branch back to the header
    /// goes to the merge block instead, and the header heads a selection.
    LoopOnce(Id, Id),
    /// The `k`th instruction of this op, one without a result (a store, an image write, a
    /// barrier), in this block.
    Plain(Id, Id, Op, usize),
    /// This value, replaced by a null constant.
    Value(Id, Id),
    /// This value, replaced by its operand `k` (of its type).
    Forward(Id, Id, usize),
    /// This value, replaced by an earlier value of its type in its block (`.2`).
    Earlier(Id, Id, Id),
    /// The image instruction with this result, without its optional image operands (an
    /// offset, a bias, a minimum level of detail).
    ImageOperands(Id, Id),
    /// Operand `k` of the instruction with this result, replaced by a null constant (or
    /// `OpUndef` where there is none, except under `differs`).
    Operand(Id, Id, usize),
    /// Operand `k` of the instruction with this result, replaced by the module's first
    /// constant of its type that is not null (a zero may take away what the reduction is
    /// about: `x + 0` computes what `x - 0` does).
    OperandConstant(Id, Id, usize),
    /// Operand `k` of the instruction with this result, replaced by the value of its type
    /// computed last before it in its block (spirv-reduce's operand to dominating id): what
    /// computed the operand may then go.
    Dominating(Id, Id, usize, Id),
    /// Passes of ours that keep what the code computes, in turn (`MEMORY_PASSES`): loads of what
    /// was stored made the values stored, so the memory goes.
    Optimize(&'static [&'static str]),
    /// Everything unused at once (the `dce` pass).
    Dce,
    /// Blocks joined to their only predecessor (the `block-merge` pass).
    MergeBlocks,
    /// This instruction, whose result nothing uses and which has no effect.
    Unused(Id, Id),
    /// This type, constant or global variable, which nothing uses.
    UnusedGlobal(Id),
    /// Every type, constant and global variable nothing uses, and then what only they used.
    UnusedGlobals,
    /// This variable, out of the interface of every entry point.
    Interface(Id),
    /// The annotation at this position.
    Decoration(usize),
    /// The capability or extension at this position of the preamble.
    Preamble(usize),
}

/// Passes of ours that keep what the code computes and take memory away: tried as edits.
/// Each runs alone but for the last: a variable written in parts (a vector's components)
/// is split into its parts first, which alone leaves the module larger.
const MEMORY_PASSES: [&[&str]; 4] = [
    &["mem2reg"],
    &["local-redundant-load"],
    &["copy-prop"],
    &["sroa", "mem2reg", "copy-prop", "dce"],
];

/// The chances of `edit` in `m`, in the order they are tried.
fn chances(m: &Module, edit: Edit, differs: bool) -> Vec<Chance> {
    match edit {
        Edit::DebugInfo => declarations::debug_info(m),
        Edit::EntryPoints => functions::entry_points(m),
        Edit::Calls => functions::calls(m),
        Edit::Branches => control_flow::branches(m, differs),
        Edit::Blocks => control_flow::merged_blocks(),
        Edit::Operands => constants::operands(m, differs),
        Edit::Memory => MEMORY_PASSES.iter().map(|&p| Chance::Optimize(p)).collect(),
        Edit::Unused => instructions::unused(m, differs),
        Edit::Values => {
            let mut out = constants::values(m, differs);
            out.extend(instructions::image_operands(m));
            out
        }
        Edit::Interface => declarations::interface(m),
        Edit::Types => {
            let (members, arrays) = types::chances(m, !differs);
            members
                .into_iter()
                .map(|(s, k)| Chance::Member(s, k))
                .chain(arrays.into_iter().map(|a| Chance::ShortArray(a, !differs)))
                .collect()
        }
        Edit::Decorations => declarations::decorations(m),
        Edit::Capabilities => declarations::capabilities(m),
    }
}

#[cfg(test)]
mod tests {
    use super::apply::apply;
    use super::driver::verified;
    use super::property::command_for;
    use super::*;

    const SHADER: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %in %out
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %in Location 0
               OpDecorate %out Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
        %int = OpTypeInt 32 1
     %in_ptr = OpTypePointer Input %float
    %out_ptr = OpTypePointer Output %float
        %two = OpConstant %float 2
      %int_3 = OpConstant %int 3
         %in = OpVariable %in_ptr Input
        %out = OpVariable %out_ptr Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %x = OpLoad %float %in
          %y = OpFAdd %float %x %two
          %z = OpFMul %float %y %y
          %i = OpConvertFToS %int %z
          %j = OpIMul %int %i %int_3
          %k = OpConvertSToF %float %j
               OpStore %out %k
               OpReturn
               OpFunctionEnd
"#;

    fn module() -> (Module, Id, impl Fn(&Module, &str) -> Id) {
        let words = crate::ir::spirv::asm::assemble(SHADER).unwrap();
        let m = start_of(&words).unwrap();
        let fid = m.functions()[0].id();
        // The value the first instruction of this op makes.
        let value = move |m: &Module, op: &str| {
            m.functions()[0]
                .insts()
                .find(|i| format!("{:?}", i.op()) == op)
                .and_then(|i| i.result())
                .unwrap()
        };
        (m, fid, value)
    }

    /// A loop counting `i` to 4, and `i - 1` used after it (as an index would be).
    const LOOP: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %out
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %out Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
        %int = OpTypeInt 32 1
       %bool = OpTypeBool
    %out_ptr = OpTypePointer Output %float
      %int_0 = OpConstant %int 0
      %int_1 = OpConstant %int 1
      %int_4 = OpConstant %int 4
        %out = OpVariable %out_ptr Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpBranch %header
     %header = OpLabel
          %i = OpPhi %int %int_0 %entry %next %cont
               OpLoopMerge %merge %cont None
               OpBranch %check
      %check = OpLabel
          %c = OpSLessThan %bool %i %int_4
               OpBranchConditional %c %body %merge
       %body = OpLabel
               OpBranch %cont
       %cont = OpLabel
       %next = OpIAdd %int %i %int_1
               OpBranch %header
      %merge = OpLabel
       %last = OpISub %int %i %int_1
          %f = OpConvertSToF %float %last
               OpStore %out %f
               OpReturn
               OpFunctionEnd
"#;

    #[test]
    fn under_differs_a_loop_leaving_an_integer_behind_keeps_its_branches() {
        let words = crate::ir::spirv::asm::assemble(LOOP).unwrap();
        let m = start_of(&words).unwrap();
        let branches = |differs| {
            chances(&m, Edit::Branches, differs)
                .into_iter()
                .filter(|c| matches!(c, Chance::Branch(..)))
                .count()
        };
        assert_eq!(branches(false), 2, "the loop's exit, either way");
        assert_eq!(branches(true), 0);
    }

    #[test]
    fn a_loop_runs_once() {
        let words = crate::ir::spirv::asm::assemble(LOOP).unwrap();
        let m = start_of(&words).unwrap();
        let once: Vec<Chance> = chances(&m, Edit::Branches, false)
            .into_iter()
            .filter(|c| matches!(c, Chance::LoopOnce(..)))
            .collect();
        assert_eq!(once.len(), 1, "{once:?}");
        assert!(
            !chances(&m, Edit::Branches, true)
                .iter()
                .any(|c| matches!(c, Chance::LoopOnce(..))),
            "not a loop that leaves an integer behind, under differs"
        );
        let c = apply(&m, &once, false).unwrap();
        assert!(verified(&c));
        let f = &c.functions()[0];
        assert!(f.blocks().iter().all(|b| b.merge.is_none()), "no loop left");
        let phi = f.insts().find(|i| i.op() == Op::Phi).unwrap();
        assert_eq!(phi.args().len(), 2, "only the entry's value comes in");
    }

    #[test]
    fn a_value_is_replaced_by_its_operand_of_its_type() {
        let (m, fid, value) = module();
        let z = value(&m, "FMul");
        let y = value(&m, "FAdd");
        let chances = chances(&m, Edit::Values, false);
        assert!(chances.contains(&Chance::Forward(fid, z, 0)), "{chances:?}");
        let c = apply(&m, &[Chance::Forward(fid, z, 0)], false).unwrap();
        let f = &c.functions()[0];
        assert!(f.insts().all(|i| i.op() != Op::FMul));
        let convert = f.insts().find(|i| i.op() == Op::ConvertFToS).unwrap();
        assert_eq!(convert.args()[0], y);
        assert!(verified(&c));
    }

    #[test]
    fn integers_are_not_replaced_by_operands_under_differs() {
        let (m, fid, value) = module();
        let j = value(&m, "IMul");
        assert!(chances(&m, Edit::Values, false).contains(&Chance::Forward(fid, j, 0)));
        let under_differs = chances(&m, Edit::Values, true);
        assert!(!under_differs.contains(&Chance::Forward(fid, j, 0)));
        assert!(under_differs
            .iter()
            .any(|c| matches!(c, Chance::Forward(..))));
    }

    /// A sample with a constant offset and a bias.
    const SAMPLE: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %out
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %out Location 0
               OpDecorate %tex DescriptorSet 0
               OpDecorate %tex Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v2float = OpTypeVector %float 2
    %v4float = OpTypeVector %float 4
        %int = OpTypeInt 32 1
      %v2int = OpTypeVector %int 2
      %image = OpTypeImage %float 2D 0 0 0 1 Unknown
    %sampled = OpTypeSampledImage %image
%ptr_sampled = OpTypePointer UniformConstant %sampled
    %out_ptr = OpTypePointer Output %v4float
      %int_1 = OpConstant %int 1
     %offset = OpConstantComposite %v2int %int_1 %int_1
    %float_1 = OpConstant %float 1
         %uv = OpConstantComposite %v2float %float_1 %float_1
        %tex = OpVariable %ptr_sampled UniformConstant
        %out = OpVariable %out_ptr Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %t = OpLoad %sampled %tex
          %c = OpImageSampleImplicitLod %v4float %t %uv Bias|ConstOffset %float_1 %offset
               OpStore %out %c
               OpReturn
               OpFunctionEnd
"#;

    #[test]
    fn an_image_instruction_loses_its_optional_operands() {
        let words = crate::ir::spirv::asm::assemble(SAMPLE).unwrap();
        let m = start_of(&words).unwrap();
        let chances: Vec<Chance> = chances(&m, Edit::Values, false)
            .into_iter()
            .filter(|c| matches!(c, Chance::ImageOperands(..)))
            .collect();
        assert_eq!(chances.len(), 1, "{chances:?}");
        let c = apply(&m, &chances, true).unwrap();
        assert!(verified(&c));
        let sample = c.functions()[0]
            .insts()
            .find(|i| i.op() == Op::ImageSampleImplicitLod)
            .unwrap();
        assert_eq!(sample.args().len(), 2, "the image and the coordinate only");
        // The offset's constants went with it; the bias's stays (the coordinate uses it).
        let ints = c.globals().iter().filter(|g| g.op() == Op::TypeInt).count();
        assert_eq!(ints, 0, "the offset's type went too");
        assert!(c.inst_count() < m.inst_count() - 3);
    }

    fn parts(command: &str) -> Vec<String> {
        let run = command_for(command, std::path::Path::new("/t/c.spv"));
        std::iter::once(run.get_program())
            .chain(run.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn plain_commands_run_without_a_shell_and_others_through_one() {
        assert_eq!(
            parts("./is-it.sh --op Select"),
            ["./is-it.sh", "--op", "Select", "/t/c.spv"]
        );
        assert_eq!(parts("grep -q x | true")[..2], ["sh", "-c"]);
        assert_eq!(parts("A=1 check")[..2], ["sh", "-c"]);
        assert_eq!(parts("check '$HOME'")[..2], ["sh", "-c"]);
    }
}
