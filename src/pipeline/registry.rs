//! Every pass and preset by name: what `--passes`, `--preset` and `shaderstep passes` use.

use super::pass::Pass;
use super::passes::{
    adce::Adce, assign_types::AssignTypes, block_merge::BlockMerge, ccp::Ccp,
    compact_ids::CompactIds, copy_prop::CopyProp, copy_prop_arrays::CopyPropArrays, dce::Dce,
    dead_branch::DeadBranch, dead_insert::DeadInsert,
    eliminate_dead_functions::EliminateDeadFunctions, fold::Fold, gvn::Gvn, if_convert::IfConvert,
    inline::Inline, lift::Lift, link::Link, local_redundant_load::LocalRedundantLoad,
    loop_unroll::LoopUnroll, lower::Lower, mem2reg::Mem2Reg, merge_return::MergeReturn,
    private_to_local::PrivateToLocal, qptr_analyze::QptrAnalyze, qptr_lift::QptrLift,
    qptr_lower::QptrLower, simplify::Simplify, sroa::Sroa, strip_debug::StripDebug, untype::Untype,
    vector_dce::VectorDce, verify::Verify,
};

pub fn all_passes() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(Lower),
        Box::new(Verify),
        Box::new(Fold),
        Box::new(Simplify),
        Box::new(Dce),
        Box::new(MergeReturn),
        Box::new(Inline { force: false }),
        Box::new(Inline { force: true }),
        Box::new(EliminateDeadFunctions),
        Box::new(PrivateToLocal),
        Box::new(Sroa),
        Box::new(Mem2Reg),
        Box::new(LocalRedundantLoad),
        Box::new(CopyProp),
        Box::new(CopyPropArrays),
        Box::new(Adce),
        Box::new(BlockMerge),
        Box::new(Gvn),
        Box::new(Ccp),
        Box::new(DeadBranch),
        Box::new(IfConvert),
        Box::new(VectorDce),
        Box::new(LoopUnroll),
        Box::new(DeadInsert),
        Box::new(StripDebug),
        Box::new(CompactIds),
        Box::new(Untype),
        Box::new(AssignTypes),
        Box::new(QptrLower),
        Box::new(QptrAnalyze),
        Box::new(QptrLift),
        Box::new(Link),
        Box::new(Lift),
    ]
}

pub fn pass(name: &str) -> Option<Box<dyn Pass>> {
    all_passes().into_iter().find(|p| p.name() == name)
}

pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    pub passes: &'static [&'static str],
}

/// The passes of `O`, then `$tail`: `O` and `O-size` differ only in what follows.
macro_rules! o_passes {
    ($($tail:literal),*) => {
        &[
            "lower",
            // As spirv-opt validates its input first: the passes assume a valid module.
            "verify",
            "inline",
            "eliminate-dead-functions",
            "private-to-local",
            "sroa",
            "mem2reg",
            "local-redundant-load",
            "copy-prop",
            "ccp",
            "dead-branch",
            "simplify",
            "gvn",
            "adce",
            "block-merge",
            "loop-unroll",
            // Again: constants found above (and the unrolled loops' inductions) make more
            // accesses constant, more variables splittable and promotable, more branches dead
            // (as spirv-opt -O repeats them).
            "sroa",
            "mem2reg",
            "local-redundant-load",
            "copy-prop",
            "ccp",
            "dead-branch",
            "simplify",
            "vector-dce",
            "dead-insert",
            "gvn",
            "if-convert",
            "copy-prop-arrays",
            "adce",
            "block-merge",
            $($tail),*
        ]
    };
}

pub static PRESETS: &[Preset] = &[
    Preset {
        name: "roundtrip",
        description: "read into the IR, check it, write it back unchanged",
        passes: &["lower", "verify", "lift"],
    },
    Preset {
        name: "default",
        description: "untyped values and pointers, folding and dead code removal, typed again; keeps debug info",
        passes: &[
            "lower",
            "untype",
            "qptr-lower",
            "fold",
            "dce",
            "qptr-analyze",
            "qptr-lift",
            "assign-types",
            "verify",
            "lift",
        ],
    },
    Preset {
        name: "types",
        description:
            "erase int/float types to bit-vectors and assign them back with fewest bitcasts",
        passes: &["lower", "untype", "assign-types", "lift"],
    },
    Preset {
        name: "qptr",
        description: "lower pointers to untyped qptrs, analyze their usage and lift them back to typed access chains",
        passes: &["lower", "qptr-lower", "qptr-analyze", "qptr-lift", "lift"],
    },
    Preset {
        name: "size",
        description: "remove dead code and debug info, renumber ids densely",
        passes: &[
            "lower",
            "verify",
            "dce",
            "strip-debug",
            "compact-ids",
            "verify",
            "lift",
        ],
    },
    Preset {
        name: "pipeline",
        description: "the stages of a graphics pipeline (--pipeline): fold and remove dead code, link, fold again",
        passes: &["lower", "verify", "fold", "simplify", "dce", "verify", "lift"],
    },
    Preset {
        name: "memory",
        description: "inline, then promote memory to SSA values: variables split, promoted, dead code removed",
        passes: &[
            "lower",
            "verify",
            "inline",
            "eliminate-dead-functions",
            "private-to-local",
            "sroa",
            "mem2reg",
            "local-redundant-load",
            "copy-prop",
            "adce",
            "verify",
            "lift",
        ],
    },
    Preset {
        name: "O",
        description: "optimize for speed and size, as spirv-opt -O: memory to SSA, constants propagated, values numbered, dead code, branches and blocks removed, twice; keeps names",
        passes: o_passes!("verify", "lift"),
    },
    Preset {
        name: "O-size",
        description: "O, then debug info stripped and ids renumbered densely: the smallest module",
        passes: o_passes!("strip-debug", "compact-ids", "verify", "lift"),
    },
    Preset {
        name: "link",
        description: "link several modules: resolve imports against exports, then drop what is no longer used",
        passes: &["lower", "link", "verify", "dce", "verify", "lift"],
    },
];

pub fn preset(name: &str) -> Option<&'static [&'static str]> {
    PRESETS.iter().find(|p| p.name == name).map(|p| p.passes)
}
