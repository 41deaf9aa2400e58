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
    m.for_each_inst(|i| n += usize::from(i.op == spirv::Op::Bitcast));
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
