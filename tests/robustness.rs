//! No input makes the assembler, the IR parser or the reader panic: deterministic mutation
//! sweeps over real text and binaries (a stand-in for the fuzz targets DESIGN §8 asks for,
//! which need a nightly toolchain we do not have here).

use std::panic::catch_unwind;

/// Mutations per corpus file (raise it to search harder: `ROBUSTNESS_ITERATIONS=20000`).
fn iterations() -> usize {
    std::env::var("ROBUSTNESS_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(800)
}
use std::path::Path;

use shaderstep::ir::spirv::{asm, read};
use shaderstep::ir::{parse, print};

fn corpus_texts() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/spvasm");
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "spvasm"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    out.sort();
    out
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "%",
    "=",
    "\"",
    ";",
    "\n",
    " ",
    "Op",
    "OpFAdd",
    "OpLabel",
    "OpFunctionEnd",
    "!",
    "!4294967296",
    "0x",
    "0x1p+999999",
    "-",
    "1e400",
    "18446744073709551616",
    "%0",
    "%4294967295",
    "|",
    "None",
    "OpSpecConstantOp",
    "VectorShuffle",
    "\\",
    "é",
    "ß%",
];

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(chars.len() + 1);
        match rng.below(3) {
            0 if !chars.is_empty() => {
                let end = (at + 1 + rng.below(8)).min(chars.len());
                chars.drain(at.min(chars.len())..end);
            }
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                for (k, c) in piece.chars().enumerate() {
                    chars.insert((at + k).min(chars.len()), c);
                }
            }
            _ => chars.truncate(at),
        }
    }
    chars.into_iter().collect()
}

#[test]
fn assembler_and_parser_never_panic_on_mutated_text() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for text in corpus_texts() {
        for _ in 0..iterations() {
            let m = mutate(&text, &mut rng);
            let r = catch_unwind(|| {
                let _ = asm::assemble(&m);
                let _ = parse::parse(&m);
            });
            assert!(r.is_ok(), "panic on input:\n{m}");
        }
    }
}

#[test]
fn reader_never_panics_on_mutated_binaries() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for text in corpus_texts() {
        let words = asm::assemble(&text).unwrap();
        for _ in 0..iterations() {
            let mut w = words.clone();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(w.len());
                w[i] = match rng.below(4) {
                    0 => rng.next() as u32,
                    1 => w[i] ^ (1 << rng.below(32)),
                    2 => w[i].wrapping_add(1),
                    _ => 0xffff_ffff,
                };
            }
            if rng.below(4) == 0 {
                let n = rng.below(w.len());
                w.truncate(n);
            }
            let r = catch_unwind(|| {
                if let Ok(m) = read::read_words(&w) {
                    // Whatever reads must also print and verify without panicking.
                    let _ = print::print(&m);
                    let _ = shaderstep::ir::verify::verify(&m);
                    let _ = shaderstep::ir::spirv::disasm::disassemble(&m, &Default::default());
                    // Every pass, even on a module verify would reject.
                    for pass in shaderstep::pipeline::registry::all_passes() {
                        let mut copy = m.clone();
                        let mut cx =
                            shaderstep::pipeline::PassCx::new(std::sync::Arc::new(w.clone()));
                        let _ = pass.run(&mut copy, &mut cx);
                    }
                }
            });
            assert!(r.is_ok(), "panic on words {w:?}");
        }
    }
}

/// Arrays too large for any layout: qptr's sizes do not overflow (a debug build panics on
/// overflow), the passes leave what they cannot size as it was.
#[test]
fn huge_arrays_do_not_overflow_layout_sizes() {
    let text = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %arr ArrayStride 4294967295
OpDecorate %outer ArrayStride 16
OpMemberDecorate %buf 0 Offset 0
OpDecorate %buf Block
OpDecorate %data DescriptorSet 0
OpDecorate %data Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%uint_0 = OpConstant %uint 0
%big = OpConstant %uint 4294967295
%arr = OpTypeArray %uint %big
%outer = OpTypeArray %arr %big
%buf = OpTypeStruct %outer
%ptr_buf = OpTypePointer StorageBuffer %buf
%ptr_u = OpTypePointer StorageBuffer %uint
%data = OpVariable %ptr_buf StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%p = OpAccessChain %ptr_u %data %uint_0 %uint_0 %uint_0
OpStore %p %uint_0
OpReturn
OpFunctionEnd
"#;
    let words = asm::assemble(text).unwrap();
    for preset in ["qptr", "default"] {
        let r = catch_unwind(|| {
            shaderstep::pipeline::Pipeline::preset(preset)
                .unwrap()
                .run(std::sync::Arc::new(words.clone()))
        });
        assert!(r.is_ok(), "{preset} panicked on huge arrays");
    }
}

#[path = "common/debug_mutations.rs"]
mod debug_mutations;

mod common;

/// The committed `-gVS` builds (`NonSemantic.Shader.DebugInfo.100`) of the bundled examples.
fn debug_seeds() -> Vec<(String, Vec<u32>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples");
    let mut out: Vec<(String, Vec<u32>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.to_string_lossy().contains(".gVS.") && p.extension().is_some_and(|x| x == "spv")
        })
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            let words = bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            (p.file_name().unwrap().to_string_lossy().into_owned(), words)
        })
        .collect();
    out.sort();
    out
}

/// Debug info the core does not understand, or that is somewhere it should not be, never makes
/// the reader, the printers, the verifier, a pass or the `O` preset panic.
#[test]
fn debug_info_mutations_never_panic() {
    let seeds = debug_seeds();
    assert!(!seeds.is_empty(), "no -gVS builds in assets/examples");
    let o = shaderstep::pipeline::Pipeline::preset("O").unwrap();
    let mut rng = Rng(0x51_7cc1_b727_220a);
    // Fewer than the word sweeps: each mutant goes through every pass and `O`.
    let per_seed = iterations() / 12;
    for (name, words) in &seeds {
        let m = read::read_words(words).unwrap();
        assert_eq!(
            shaderstep::ir::debug::not_understood(&m),
            Vec::<String>::new(),
            "{name}: glslang's debug info is understood"
        );
        for n in 0..per_seed {
            let Some((w, what)) = debug_mutations::mutate(words, &mut |k| rng.below(k)) else {
                panic!("{name} has no debug info to mutate");
            };
            let r = catch_unwind(std::panic::AssertUnwindSafe(|| {
                if let Ok(m) = read::read_words(&w) {
                    let text = print::print(&m);
                    let _ = parse::parse(&text);
                    let _ = shaderstep::ir::verify::verify(&m);
                    let _ = shaderstep::ir::spirv::disasm::disassemble(&m, &Default::default());
                    for pass in shaderstep::pipeline::registry::all_passes() {
                        let mut copy = m.clone();
                        let mut cx =
                            shaderstep::pipeline::PassCx::new(std::sync::Arc::new(w.clone()));
                        let _ = pass.run(&mut copy, &mut cx);
                    }
                    let run = o.run(std::sync::Arc::new(w.clone()));
                    let _ = run.output_words();
                }
            }));
            assert!(r.is_ok(), "{name}, mutant {n} ({what}) panicked");
        }
    }
}

/// A valid `-gVS` build with some of its functions' debug records dropped (a declare, a value,
/// a scope or a line: still valid) comes out of every preset valid. Which variables a declare
/// describes, and where a scope or line stops, are what the passes that move debug info read;
/// the sweeps only ever see builds where every variable has its declare.
#[test]
fn a_valid_build_with_debug_records_dropped_stays_valid_through_every_preset() {
    let seeds = debug_seeds();
    assert!(!seeds.is_empty(), "no -gVS builds in assets/examples");
    let presets: Vec<_> = shaderstep::pipeline::registry::PRESETS
        .iter()
        .filter(|p| p.name != "link")
        .map(|p| {
            (
                p.name,
                shaderstep::pipeline::Pipeline::preset(p.name).unwrap(),
            )
        })
        .collect();
    let mut rng = Rng(0x0d5c_a1ab_1e5e_ed01);
    // Each mutant goes through every preset and spirv-val: a few per seed by default.
    let per_seed = (iterations() / 64).max(1);
    for (name, words) in &seeds {
        for n in 0..per_seed {
            let (w, what) = debug_mutations::drop_records(words, &mut |k| rng.below(k))
                .unwrap_or_else(|| panic!("{name} has no debug records in its functions"));
            if let Err(e) = common::validate(&w, false) {
                panic!("{name}, mutant {n} ({what}) is not valid: the mutation is wrong\n{e}");
            }
            for (preset, p) in &presets {
                let run = p.run(std::sync::Arc::new(w.clone()));
                assert!(
                    run.ok(),
                    "{name}, mutant {n} ({what}), {preset}: {:?}",
                    run.steps.last().map(|s| (&s.error, &s.diagnostics))
                );
                let out = run.output_words().unwrap();
                if let Err(e) = common::validate(&out, false) {
                    panic!("{name}, mutant {n} ({what}), {preset}: output fails spirv-val\n{e}");
                }
            }
        }
    }
}
