//! Filetests: one file per case under `tests/filetests/<pass>/`, IR text in, expected IR text
//! out (Cranelift's filetests, in our text form). A file is
//!
//! ```text
//! ; run: sroa, mem2reg          (optional: the passes; the directory's name otherwise)
//! ; …what the case is about…
//! <the input module, IR text>
//! ; ---- output ----
//! <the functions the passes leave, as `print` writes them, comments dropped>
//! ```
//!
//! `; run: pressure` runs no pass: the output is the functions with the register pressure after
//! each instruction (`pipeline::cost::annotated`), their peaks and the module's.
//!
//! Every input must validate with `spirv-val`, the passes run with `--verify-each`, and every
//! output must validate too. `SHADERSTEP_BLESS=1 cargo test --test filetests` rewrites the
//! expected output of the cases that differ (read the diff before committing it).

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use shaderstep::ir::spirv::write;
use shaderstep::ir::{parse, print};
use shaderstep::pipeline::{Checks, Pipeline};

const SEPARATOR: &str = "; ---- output ----";

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else if path.extension().is_some_and(|e| e == "ir") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The function bodies of a printed module: from the first function on, comment lines and
/// trailing comments dropped; `; @…` lines (locations, attributes) are IR and stay.
fn functions(text: &str) -> String {
    let ir = |l: &str| l.trim_start().starts_with("; @");
    text.lines()
        .skip_while(|l| !l.starts_with("; function"))
        .filter(|l| !l.trim().is_empty() && (!l.starts_with(';') || ir(l)))
        .map(|l| match ir(l) {
            true => l.trim_end(),
            false => l.split(" ;").next().unwrap_or(l).trim_end(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs one case; `Err` says what went wrong (a diff for a wrong output).
fn run_case(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (input, expected) = match text.split_once(SEPARATOR) {
        Some((i, e)) => (i, e.trim()),
        None => (text.as_str(), ""),
    };
    let dir_pass = path
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let passes: Vec<String> = input
        .lines()
        .find_map(|l| l.strip_prefix("; run:"))
        .map(|l| l.split(',').map(|p| p.trim().to_string()).collect())
        .unwrap_or_else(|| vec![dir_pass]);
    let m = parse::parse(input).map_err(|e| format!("the input does not parse: {e}"))?;
    let words = write::write_words(&m);
    common::validate(&words, false).map_err(|e| format!("the input does not validate: {e}"))?;
    // `; run: pressure`: no pass; the output is the lowered module's functions, each line
    // after the pressure after it (`cost::annotated`).
    let pressure = passes == ["pressure"];
    let mut names = vec!["lower"];
    if !pressure {
        names.extend(passes.iter().map(String::as_str));
    }
    let pipeline = Pipeline::from_names(&names)
        .map_err(|e| e.to_string())?
        .with_checks(Checks {
            verify_each: true,
            validate_each: false,
        });
    let run = pipeline.run(Arc::new(words));
    if let Some(f) = run.failed {
        let diags: Vec<String> = run.steps[f]
            .diagnostics
            .iter()
            .map(|d| d.to_string())
            .collect();
        return Err(format!("the passes failed:\n{}", diags.join("\n")));
    }
    let out = run.final_module().expect("steps");
    common::validate(&write::write_words(out), false)
        .map_err(|e| format!("the output does not validate: {e}\n{}", print::print(out)))?;
    let got = if pressure {
        // Trimmed as the expected output is read.
        shaderstep::pipeline::cost::annotated(out)
            .trim()
            .to_string()
    } else {
        functions(&print::print(out))
    };
    if got == expected {
        return Ok(());
    }
    if std::env::var_os("SHADERSTEP_BLESS").is_some() {
        let blessed = format!(
            "{}{SEPARATOR}\n{got}\n",
            input.trim_end().to_string() + "\n"
        );
        std::fs::write(path, blessed).map_err(|e| e.to_string())?;
        return Ok(());
    }
    Err(format!("the output differs:\n{}", diff(expected, &got)))
}

/// A line diff: `-` expected, `+` got (longest common subsequence, fine at filetest sizes).
fn diff(a: &str, b: &str) -> String {
    let (x, y): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut lcs = vec![vec![0usize; y.len() + 1]; x.len() + 1];
    for i in (0..x.len()).rev() {
        for j in (0..y.len()).rev() {
            lcs[i][j] = if x[i] == y[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < x.len() || j < y.len() {
        if i < x.len() && j < y.len() && x[i] == y[j] {
            out += &format!("  {}\n", x[i]);
            i += 1;
            j += 1;
        } else if j < y.len() && (i == x.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out += &format!("+ {}\n", y[j]);
            j += 1;
        } else {
            out += &format!("- {}\n", x[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let cases = files(&root);
    assert!(cases.len() >= 20, "only {} filetests found", cases.len());
    let mut failures = Vec::new();
    for path in &cases {
        if let Err(e) = run_case(path) {
            failures.push(format!(
                "{}: {e}",
                path.strip_prefix(&root).unwrap_or(path).display()
            ));
        }
    }
    eprintln!("{} filetests", cases.len());
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}
