//! `qptr-lower`, `qptr-analyze`, `qptr-lift`: the whole corpus through the `qptr` and `default`
//! presets (every output validates, the verifier holds after every pass, at least 95 % of the
//! functions with pointers are lifted rather than kept typed), and IR text in, IR text out for
//! the hard cases.

mod common;

use std::sync::Arc;

use common::{corpus, validate};
use shaderstep::ir::module::Attribute;
use shaderstep::pipeline::{Checks, Pipeline};

#[test]
fn corpus_through_qptr_and_default_validates() {
    let mut failures = Vec::new();
    let (mut lowered, mut kept) = (0usize, 0usize);
    let mut reasons = Vec::new();
    for preset in ["qptr", "default"] {
        let pipeline = Pipeline::preset(preset).unwrap().with_checks(Checks {
            verify_each: true,
            validate_each: false,
        });
        for s in corpus() {
            let run = pipeline.run(Arc::new(s.words.clone()));
            let Some(out) = run.output_words() else {
                failures.push(format!(
                    "{}: {preset} failed: {:?}",
                    s.path.display(),
                    run.steps.last().map(|st| &st.diagnostics)
                ));
                continue;
            };
            if let Err(e) = validate(&out, s.universal) {
                failures.push(format!(
                    "{}: {preset} output does not validate: {e}",
                    s.path.display()
                ));
                continue;
            }
            if preset == "qptr" {
                let after_lower = run.steps.iter().find(|st| st.pass == "qptr-lower").unwrap();
                let m = &after_lower.module;
                for f in &m.functions {
                    match m.attributes.get(&f.id()) {
                        Some(Attribute::TypedPointers(why)) => {
                            kept += 1;
                            reasons.push(format!("{}: {why}", s.path.display()));
                        }
                        _ => {
                            let uses_qptrs = f.blocks.iter().flat_map(|b| &b.insts).any(|i| {
                                i.ty.and_then(|t| m.global(t))
                                    .is_some_and(|t| t.op == spirv::Op::TypeUntypedPointerKHR)
                            });
                            lowered += usize::from(uses_qptrs);
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "qptr: {lowered} functions lowered and lifted, {kept} kept typed:\n  {}",
        reasons.join("\n  ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        lowered * 100 >= (lowered + kept) * 95,
        "only {lowered} of {} functions lifted",
        lowered + kept
    );
}
