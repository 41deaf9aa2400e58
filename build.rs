//! Links the `shaderstep` binary as a position-dependent executable on Linux: a build runs it
//! once per shader, so start-up is most of its time on small shaders, and a PIE's run-time
//! relocations of its own data were a third of that (measured with `perf stat`/callgrind on
//! `shaderstep run --preset memory` of a 200-instruction shader: 2.7 ms → 2.1 ms).

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
