//! A mutation fuzzer for the inputs shaderstep reads, on the stable toolchain (cargo-fuzz
//! needs nightly): seeds from the test shaders and bundled examples, mutated at random
//! (bit flips, interesting words, spliced and repeated chunks, deleted and duplicated tokens),
//! fed to one target until the time is up. A panic is a finding: the input is saved under
//! `target/fuzz-findings/` and the run goes on. Errors are fine; panics and hangs are not.
//!
//! ```text
//! cargo run --profile fuzz --example fuzz -- TARGET [SECONDS] [SEED]
//! ```
//!
//! TARGET: `reader` (SPIR-V binaries: read, print, verify, disassemble, then the `O` and
//! `default` presets), `debug` (the same, for binaries with debug info mutated where it is,
//! or with some records dropped: `tests/common/debug_mutations.rs`), `asm` (SPIR-V
//! assembly), `ir` (the IR text parser), `state` (pipeline state TOML), or `all` (each in
//! turn). The `fuzz` profile is `release` with overflow checks
//! and debug assertions, so arithmetic overflow is found too.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use shaderstep::ir::spirv::{asm, disasm, read};
use shaderstep::ir::{parse, print, verify};
use shaderstep::pipeline::link::state::PipelineState;
use shaderstep::pipeline::Pipeline;

#[path = "../tests/common/debug_mutations.rs"]
mod debug_mutations;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const INTERESTING: [u32; 12] = [
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0xffff,
    0x1_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn files_with(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_with(&p, exts, out);
        } else if p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)) {
            out.push(p);
        }
    }
}

/// Text seeds: SPIR-V assembly of the tests, and the IR text of each.
fn text_seeds() -> Vec<String> {
    let mut paths = Vec::new();
    files_with(
        &root().join("tests/shaders/spvasm"),
        &["spvasm"],
        &mut paths,
    );
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

/// Binary seeds: every test shader and bundled example that loads, as SPIR-V.
fn binary_seeds() -> Vec<Vec<u32>> {
    let mut paths = Vec::new();
    files_with(
        &root().join("tests/shaders"),
        &["spvasm", "wgsl", "comp", "frag", "vert", "glsl"],
        &mut paths,
    );
    files_with(
        &root().join("assets"),
        &["frag", "vert", "wgsl", "comp"],
        &mut paths,
    );
    paths.sort();
    paths
        .iter()
        .filter_map(|p| shaderstep::pipeline::input::load(p).ok())
        .map(|l| l.words)
        .collect()
}

/// Seeds with debug info: the bundled examples' `-gVS` builds, and every binary seed that
/// has any.
fn debug_seeds() -> Vec<Vec<u32>> {
    let mut paths = Vec::new();
    files_with(&root().join("assets"), &["spv"], &mut paths);
    paths.sort();
    let mut out: Vec<Vec<u32>> = paths
        .iter()
        .filter_map(|p| shaderstep::pipeline::input::load(p).ok())
        .map(|l| l.words)
        .collect();
    out.extend(binary_seeds());
    let mut probe = Rng(1);
    out.retain(|w| debug_mutations::mutate(w, &mut |n| probe.below(n)).is_some());
    out
}

fn state_seeds() -> Vec<String> {
    let mut paths = Vec::new();
    files_with(&root().join("assets"), &["toml"], &mut paths);
    files_with(&root().join("tests"), &["toml"], &mut paths);
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

fn mutate_words(seed: &[u32], other: &[u32], rng: &mut Rng) -> Vec<u32> {
    let mut w = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        if w.is_empty() {
            break;
        }
        let i = rng.below(w.len());
        match rng.below(7) {
            0 => w[i] ^= 1 << rng.below(32),
            1 => w[i] = INTERESTING[rng.below(INTERESTING.len())],
            2 => w[i] = w[i].wrapping_add(rng.below(5) as u32).wrapping_sub(2),
            // The word count half of an instruction's first word.
            3 => w[i] = (w[i] & 0xffff) | ((rng.below(12) as u32) << 16),
            4 => {
                let n = rng.below(8).min(w.len() - i);
                let chunk: Vec<u32> = w[i..i + n].to_vec();
                let at = rng.below(w.len());
                w.splice(at..at, chunk);
            }
            5 if !other.is_empty() => {
                let j = rng.below(other.len());
                let n = rng.below(16).min(other.len() - j);
                let at = rng.below(w.len());
                w.splice(at..at, other[j..j + n].iter().copied());
            }
            _ => {
                let n = rng.below(8).min(w.len() - i);
                w.drain(i..i + n);
            }
        }
    }
    if rng.below(8) == 0 {
        let n = rng.below(w.len() + 1);
        w.truncate(n);
    }
    w
}

fn mutate_text(seed: &str, other: &str, rng: &mut Rng) -> String {
    let mut toks: Vec<String> = seed
        .split_inclusive(|c: char| c.is_whitespace())
        .map(str::to_string)
        .collect();
    let others: Vec<&str> = other.split_inclusive(|c: char| c.is_whitespace()).collect();
    const WORDS: [&str; 14] = [
        "%1 ",
        "-",
        "--1 ",
        "0x1p+1024 ",
        "4294967296 ",
        "-0x8000000000000000 ",
        "\"",
        "\n",
        "= ",
        "OpNop ",
        "1.5e999 ",
        "[",
        "]",
        "0x1.fffffffffffffffffffffffp+1 ",
    ];
    for _ in 0..1 + rng.below(4) {
        if toks.is_empty() {
            break;
        }
        let i = rng.below(toks.len());
        match rng.below(6) {
            0 => {
                toks.remove(i);
            }
            1 => {
                let t = toks[i].clone();
                toks.insert(i, t);
            }
            2 => toks[i] = WORDS[rng.below(WORDS.len())].to_string(),
            3 if !others.is_empty() => toks[i] = others[rng.below(others.len())].to_string(),
            4 => {
                let mut b = toks[i].clone().into_bytes();
                if !b.is_empty() {
                    let k = rng.below(b.len());
                    b[k] = b[k].wrapping_add(1 + rng.below(3) as u8);
                }
                toks[i] = String::from_utf8_lossy(&b).into_owned();
            }
            _ => {
                let j = rng.below(toks.len());
                toks.swap(i, j);
            }
        }
    }
    toks.concat()
}

struct Findings {
    dir: PathBuf,
    count: usize,
}

impl Findings {
    fn record(&mut self, target: &str, bytes: &[u8], what: &str) {
        self.count += 1;
        let _ = std::fs::create_dir_all(&self.dir);
        let path = self.dir.join(format!("{target}-{}", self.count));
        let _ = std::fs::write(&path, bytes);
        eprintln!("{target}: {what}: saved {}", path.display());
    }
}

fn run_reader(words: &[u32], presets: &[Pipeline]) {
    if let Ok(m) = read::read_words(words) {
        let _ = print::print(&m);
        let _ = verify::verify(&m);
        let _ = disasm::disassemble(&m, &Default::default());
        for p in presets {
            let _ = p.run(Arc::new(words.to_vec()));
        }
    }
}

/// Every pass on its own, on whatever reads (the presets stop at the first verify that fails).
fn run_passes(words: &[u32]) {
    if let Ok(m) = read::read_words(words) {
        let _ = parse::parse(&print::print(&m));
        for pass in shaderstep::pipeline::registry::all_passes() {
            let mut copy = m.clone();
            let mut cx = shaderstep::pipeline::PassCx::new(Arc::new(words.to_vec()));
            let _ = pass.run(&mut copy, &mut cx);
        }
    }
}

fn fuzz(target: &str, budget: Duration, rng: &mut Rng, findings: &mut Findings) -> usize {
    let start = Instant::now();
    let mut runs = 0;
    let words_as_bytes =
        |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|x| x.to_le_bytes()).collect() };
    match target {
        "reader" => {
            let seeds = binary_seeds();
            let presets = [
                Pipeline::preset("O").unwrap(),
                Pipeline::preset("default").unwrap(),
            ];
            while start.elapsed() < budget {
                let s = &seeds[rng.below(seeds.len())];
                let o = &seeds[rng.below(seeds.len())];
                let input = mutate_words(s, o, rng);
                let t = Instant::now();
                let r = catch_unwind(AssertUnwindSafe(|| run_reader(&input, &presets)));
                if r.is_err() {
                    findings.record(target, &words_as_bytes(&input), "panic");
                } else if t.elapsed() > Duration::from_secs(5) {
                    findings.record(target, &words_as_bytes(&input), "slow (over 5 s)");
                }
                runs += 1;
            }
        }
        "debug" => {
            let seeds = debug_seeds();
            let presets = [
                Pipeline::preset("O").unwrap(),
                Pipeline::preset("default").unwrap(),
            ];
            while start.elapsed() < budget {
                let s = &seeds[rng.below(seeds.len())];
                // Mostly broken debug info; now and then a valid module with records dropped.
                let mutant = if rng.below(4) == 0 {
                    debug_mutations::drop_records(s, &mut |n| rng.below(n))
                } else {
                    debug_mutations::mutate(s, &mut |n| rng.below(n))
                };
                let Some((input, _)) = mutant else {
                    continue;
                };
                let t = Instant::now();
                let r = catch_unwind(AssertUnwindSafe(|| {
                    run_reader(&input, &presets);
                    run_passes(&input);
                }));
                if r.is_err() {
                    findings.record(target, &words_as_bytes(&input), "panic");
                } else if t.elapsed() > Duration::from_secs(5) {
                    findings.record(target, &words_as_bytes(&input), "slow (over 5 s)");
                }
                runs += 1;
            }
        }
        "asm" | "ir" => {
            let seeds: Vec<String> = if target == "asm" {
                text_seeds()
            } else {
                text_seeds()
                    .iter()
                    .filter_map(|t| asm::assemble(t).ok())
                    .filter_map(|w| read::read_words(&w).ok())
                    .map(|m| print::print(&m))
                    .collect()
            };
            while start.elapsed() < budget {
                let s = &seeds[rng.below(seeds.len())];
                let o = &seeds[rng.below(seeds.len())];
                let input = mutate_text(s, o, rng);
                let r = catch_unwind(AssertUnwindSafe(|| {
                    if target == "asm" {
                        let _ = asm::assemble(&input);
                    } else if let Ok(m) = parse::parse(&input) {
                        // What parses must print and parse again.
                        let _ = parse::parse(&print::print(&m));
                    }
                }));
                if r.is_err() {
                    findings.record(target, input.as_bytes(), "panic");
                }
                runs += 1;
            }
        }
        "state" => {
            let seeds = state_seeds();
            while start.elapsed() < budget {
                let s = &seeds[rng.below(seeds.len())];
                let o = &seeds[rng.below(seeds.len())];
                let input = mutate_text(s, o, rng);
                let r = catch_unwind(AssertUnwindSafe(|| {
                    if let Ok(st) = PipelineState::parse(&input) {
                        let _ = format!("{st:?}");
                    }
                }));
                if r.is_err() {
                    findings.record(target, input.as_bytes(), "panic");
                }
                runs += 1;
            }
        }
        other => {
            eprintln!("unknown target '{other}': reader, debug, asm, ir, state or all");
            std::process::exit(2);
        }
    }
    runs
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = args.first().map_or("all", String::as_str).to_string();
    let seconds: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(60);
    let seed: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    // Panics are findings, reported once each by `record`, not by the default hook.
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map_or(String::new(), |l| format!("{}:{}", l.file(), l.line()));
        eprintln!("panic at {at}");
    }));
    let mut findings = Findings {
        dir: root().join("target/fuzz-findings"),
        count: 0,
    };
    let mut rng = Rng(seed | 1);
    let targets: Vec<&str> = if target == "all" {
        vec!["reader", "debug", "asm", "ir", "state"]
    } else {
        vec![target.as_str()]
    };
    let per = Duration::from_secs(seconds) / targets.len() as u32;
    for t in targets {
        let runs = fuzz(t, per, &mut rng, &mut findings);
        println!("{t}: {runs} inputs in {:.0} s", per.as_secs_f64());
    }
    println!("{} finding(s) in target/fuzz-findings", findings.count);
    if findings.count > 0 {
        std::process::exit(1);
    }
}
