//! Shaders with 8- and 16-bit types for storage only (`GL_EXT_shader_8bit_storage`,
//! `GL_EXT_shader_16bit_storage`: the `StorageBuffer8BitAccess`/`StorageBuffer16BitAccess`
//! capabilities, not `Int8`, `Int16` or `Float16`). Values are converted to and from those
//! types; a module without the arithmetic capabilities may have no constant of them, so no
//! preset may fold a conversion into one. Compiled at test time with glslangValidator; every
//! preset's output goes through spirv-val, and runs on lavapipe as the input does.

mod common;

use std::sync::Arc;

use shaderstep::pipeline::gpu::{Binding, Gpu, Layout, BUFFER_SIZE};
use shaderstep::pipeline::Pipeline;

const PRESETS: [&str; 5] = ["O", "O-size", "memory", "default", "size"];

/// Scalars: constants converted to narrow types and stored, narrow loads widened and computed
/// with, in a loop and in a struct member.
const SCALARS: &str = r#"#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
struct S { uint8_t a; uint b; };
layout(std430, binding = 0) buffer A { uint8_t x8; int8_t y8; float16_t h; uint16_t u16; int16_t i16; uint8_t arr[8]; } a;
layout(std430, binding = 1) buffer B { uint8_t x8; int8_t y8; float16_t h; uint16_t u16; S s; S ss[2]; } b;
layout(std430, binding = 2) buffer C { uint v; int w; float f; uint t; } c;
void main() {
  b.x8 = uint8_t(5);
  b.y8 = int8_t(-3);
  b.h = float16_t(1.5);
  b.u16 = uint16_t(7);
  c.v = uint(a.x8) + 3u;
  c.w = int(a.y8) * 2;
  c.f = float(a.h) + 1.0;
  uint t = 0u;
  for (int i = 0; i < 8; i++) { t += uint(a.arr[i]); a.arr[i] = uint8_t(i); }
  c.t = t + uint(a.u16) + uint(int(a.i16));
  b.s.a = uint8_t(9); b.s.b = 4u;
  b.ss[0].a = b.ss[1].a;
  b.ss[1].b = b.s.b;
}
"#;

/// Vectors, unrolled loops (whose inductions become constants), a zeroed struct with narrow
/// members, and conversions of constants read back at once.
const VECTORS: &str = r#"#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 1) in;
struct S { uint8_t a; uint b; f16vec2 h; };
layout(std430, binding = 0) buffer A { u8vec4 v4; i8vec2 v2; f16vec4 hv; u16vec2 sv; uint8_t arr[8]; S s[2]; } a;
layout(std430, binding = 1) buffer C { uvec4 v; ivec2 w; vec4 f; uint t; uint n; } c;
void main() {
  a.v4 = u8vec4(uvec4(1u, 2u, 3u, 250u));
  a.v2 = i8vec2(ivec2(-1, 7));
  a.hv = f16vec4(vec4(0.5, 1.0, -2.0, 0.0));
  a.sv = u16vec2(uvec2(0u, 0u));
  c.v = uvec4(a.v4) + uvec4(3u);
  c.w = ivec2(a.v2) * 2;
  c.f = vec4(a.hv) + 1.0;
  uint t = 0u;
  [[unroll]] for (int i = 0; i < 8; i++) { a.arr[i] = uint8_t(i * 3); t += uint(a.arr[i]); }
  [[unroll]] for (int i = 0; i < 2; i++) { a.s[i].a = uint8_t(0u); a.s[i].b = 0u; a.s[i].h = f16vec2(vec2(0.0)); }
  c.t = t + uint(a.s[1].a) + uint(a.sv.y);
  uint n = 0u;
  for (uint j = 0u; j < (c.n & 15u); j++) { n += uint(a.arr[j & 7u]) * uint(uint8_t(j)); }
  c.n = n + uint(uint8_t(300u)) + uint(int(int8_t(-5))) + uint(float(float16_t(2.5)));
}
"#;

fn shaders() -> Vec<(&'static str, Vec<u32>)> {
    [("scalars.comp", SCALARS), ("vectors.comp", VECTORS)]
        .into_iter()
        .map(|(name, src)| {
            let words = common::glslang_words(name, src.as_bytes(), &["--target-env", "vulkan1.1"]);
            let dis = common::spirv_dis(&words, &[]);
            assert!(
                dis.contains("OpCapability StorageBuffer8BitAccess")
                    && !dis.contains("OpCapability Int8")
                    && !dis.contains("OpCapability Int16")
                    && !dis.contains("OpCapability Float16"),
                "{name}: the input should declare the storage capabilities only\n{dis}"
            );
            common::validate(&words, false).unwrap_or_else(|e| panic!("{name}: input: {e}"));
            (name, words)
        })
        .collect()
}

fn optimize(name: &str, preset: &str, words: &[u32]) -> Vec<u32> {
    let run = Pipeline::preset(preset)
        .unwrap()
        .run(Arc::new(words.to_vec()));
    assert!(
        run.ok(),
        "{name}: {preset} failed: {:?}",
        run.steps.last().unwrap().diagnostics
    );
    run.output_words().unwrap()
}

#[test]
fn no_preset_makes_constants_of_storage_only_narrow_types() {
    let mut failures = Vec::new();
    for (name, words) in shaders() {
        for preset in PRESETS {
            let out = optimize(name, preset, &words);
            if let Err(e) = common::validate(&out, false) {
                failures.push(format!("{name} after {preset}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Small bytes, different per binding.
fn fill(b: &Binding) -> Vec<u8> {
    (0..BUFFER_SIZE)
        .map(|i| ((i as u32).wrapping_mul(2654435761) >> 24) as u8 % 7 + b.binding as u8)
        .collect()
}

#[test]
fn storage_only_narrow_types_compute_the_same_on_lavapipe() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    for (name, words) in shaders() {
        let layout = Layout::of(&words).unwrap_or_else(|e| panic!("{name}: {e}"));
        let before = gpu
            .run(&words, &layout, [1, 1, 1], fill)
            .unwrap_or_else(|e| panic!("{name}: input does not run: {e}"));
        let data: Vec<Vec<u8>> = layout.bindings.iter().map(fill).collect();
        assert_ne!(before, data, "{name} writes nothing");
        for preset in PRESETS {
            let out = optimize(name, preset, &words);
            match gpu.run(&out, &layout, [1, 1, 1], fill) {
                Ok(after) if after == before => {}
                Ok(_) => failures.push(format!("{name}: after {preset} the buffers differ")),
                Err(e) => failures.push(format!("{name}: output of {preset} does not run: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
