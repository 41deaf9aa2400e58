//! Vertex-fetch and colour-export glue against the fixed-function pipeline, on lavapipe: the
//! same triangles drawn once with Vulkan's vertex input state and colour attachment format,
//! and once with the stages shaderstep glued (storage buffers in, a packed `uint` texel out)
//! must give the same bytes, for every attribute and attachment format pairing below (float,
//! normalized and integer ones), with the glue generated at link time (`--link-state`) and
//! compiled in (`--state`).

mod common;

use std::path::Path;
use std::process::Command;

use ash::vk;
use common::{glslang, spv_words as words, temp_dir};
use shaderstep::pipeline::gpu::{Attachment, Descriptor, Draw, Gpu, Resource, Setup};
use shaderstep::pipeline::link::state::{Encoding, Format};

fn vk_format(name: &str) -> vk::Format {
    match name {
        "r32g32_sfloat" => vk::Format::R32G32_SFLOAT,
        "r32g32b32_sfloat" => vk::Format::R32G32B32_SFLOAT,
        "r32g32b32a32_sfloat" => vk::Format::R32G32B32A32_SFLOAT,
        "r16g16_sfloat" => vk::Format::R16G16_SFLOAT,
        "r16g16_snorm" => vk::Format::R16G16_SNORM,
        "r16g16b16a16_sfloat" => vk::Format::R16G16B16A16_SFLOAT,
        "r16g16b16a16_unorm" => vk::Format::R16G16B16A16_UNORM,
        "r16g16b16a16_snorm" => vk::Format::R16G16B16A16_SNORM,
        "r16g16b16a16_uint" => vk::Format::R16G16B16A16_UINT,
        "r16g16_sint" => vk::Format::R16G16_SINT,
        "r8g8_unorm" => vk::Format::R8G8_UNORM,
        "r8g8b8a8_unorm" => vk::Format::R8G8B8A8_UNORM,
        "r8g8b8a8_snorm" => vk::Format::R8G8B8A8_SNORM,
        "r8g8b8a8_srgb" => vk::Format::R8G8B8A8_SRGB,
        "r8g8b8a8_uint" => vk::Format::R8G8B8A8_UINT,
        "r8g8b8a8_sint" => vk::Format::R8G8B8A8_SINT,
        "b8g8r8a8_unorm" => vk::Format::B8G8R8A8_UNORM,
        "a2b10g10r10_unorm_pack32" => vk::Format::A2B10G10R10_UNORM_PACK32,
        "r32_uint" => vk::Format::R32_UINT,
        "r32g32_uint" => vk::Format::R32G32_UINT,
        "r32g32b32a32_sint" => vk::Format::R32G32B32A32_SINT,
        "r32g32b32a32_uint" => vk::Format::R32G32B32A32_UINT,
        other => panic!("no Vulkan format for {other}"),
    }
}

/// A small deterministic generator, so failures reproduce.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn unit(&mut self) -> f32 {
        (self.next() % 10_000) as f32 / 10_000.0
    }
}

fn f16_bits(x: f32) -> u16 {
    shaderstep::ir::number::f64_to_f16(f64::from(x))
}

/// Bytes of one attribute in `format`: positions from `values` (float formats and snorm take
/// them as numbers), other normalized and integer formats take random bits.
fn encode(format: &Format, values: &[f32], rng: &mut Lcg) -> Vec<u8> {
    let mut words = vec![0u32; format.words() as usize];
    for (i, &bits) in format.bits.iter().enumerate() {
        let channel = format.channels[i] as usize;
        let v = values.get(channel).copied().unwrap_or(0.5);
        let raw: u32 = match (format.encoding, bits) {
            (Encoding::Float, 32) => v.to_bits(),
            (Encoding::Float, 16) => u32::from(f16_bits(v)),
            (Encoding::Snorm, b) if !values.is_empty() => {
                let max = ((1u32 << (b - 1)) - 1) as f32;
                ((v * max).round() as i32 as u32) & ((1u32 << b) - 1)
            }
            (_, 32) => rng.next(),
            (_, b) => rng.next() & ((1u32 << b) - 1),
        };
        let (w, off) = format.place(i);
        words[w as usize] |= raw << off;
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

struct Case {
    /// Integer attributes and attachment (`VERT_INT`/`FRAG_INT`) rather than float ones.
    int: bool,
    pos: &'static str,
    color: &'static str,
    tint: &'static str,
    target: &'static str,
}

const VERT: &str = "#version 450
layout(location = 0) in vec2 pos;
layout(location = 1) in vec4 color;
layout(location = 2) in vec4 tint;
layout(location = 0) out vec4 v_color;
void main() {
    v_color = color * tint;
    gl_Position = vec4(pos + vec2(float(gl_InstanceIndex) * 0.25, 0.0), 0.0, 1.0);
}
";

const FRAG: &str = "#version 450
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 color;
void main() { color = v_color * 1.25 - vec4(0.1); }
";

const VERT_INT: &str = "#version 450
layout(location = 0) in vec2 pos;
layout(location = 1) in uvec4 color;
layout(location = 2) in ivec4 tint;
layout(location = 0) flat out uvec4 v_color;
void main() {
    v_color = (color & 0x7fu) + uvec4(abs(tint) & 0x7f);
    gl_Position = vec4(pos + vec2(float(gl_InstanceIndex) * 0.25, 0.0), 0.0, 1.0);
}
";

const FRAG_INT: &str = "#version 450
layout(location = 0) flat in uvec4 v_color;
layout(location = 0) out uvec4 color;
void main() { color = v_color + uvec4(gl_FragCoord.xy, 1, 2) % 8u; }
";

const VERTICES: u32 = 12;
const INSTANCES: u32 = 3;

fn draw_case(gpu: &Gpu, dir: &Path, case: &Case, n: usize) {
    let (pos_f, color_f, tint_f, target) = (
        Format::by_name(case.pos).unwrap(),
        Format::by_name(case.color).unwrap(),
        Format::by_name(case.tint).unwrap(),
        Format::by_name(case.target).unwrap(),
    );
    let mut rng = Lcg(n as u64 + 7);
    // Binding 0 interleaves position and colour; binding 1 holds one tint per instance.
    let pos_bytes = pos_f.words() * 4;
    let stride0 = pos_bytes + color_f.words() * 4;
    let stride1 = tint_f.words() * 4;
    let mut vb0 = Vec::new();
    for _ in 0..VERTICES {
        let p = [rng.unit() * 1.6 - 0.9, rng.unit() * 1.8 - 0.9];
        vb0.extend(encode(&pos_f, &p, &mut rng));
        let c = [rng.unit(), rng.unit(), rng.unit(), rng.unit()];
        let values: &[f32] = if color_f.encoding == Encoding::Float {
            &c
        } else {
            &[]
        };
        vb0.extend(encode(&color_f, values, &mut rng));
    }
    let mut vb1 = Vec::new();
    for _ in 0..INSTANCES {
        let t = [rng.unit(), rng.unit(), rng.unit(), rng.unit()];
        let values: &[f32] = if tint_f.encoding == Encoding::Float {
            &t
        } else {
            &[]
        };
        vb1.extend(encode(&tint_f, values, &mut rng));
    }
    let state = format!(
        "[vertex]\nbuffer_set = 0\nbindings = [{{ binding = 0, stride = {stride0} }}, {{ binding = 1, stride = {stride1}, rate = \"instance\" }}]\nattributes = [\n  {{ location = 0, binding = 0, format = \"{}\", offset = 0 }},\n  {{ location = 1, binding = 0, format = \"{}\", offset = {pos_bytes} }},\n  {{ location = 2, binding = 1, format = \"{}\", offset = 0 }},\n]\n[[color]]\nlocation = 0\nformat = \"{}\"\n",
        case.pos, case.color, case.tint, case.target
    );
    let case_dir = dir.join(format!("case{n}"));
    std::fs::create_dir_all(&case_dir).unwrap();
    let (vert, frag) = if case.int {
        (VERT_INT, FRAG_INT)
    } else {
        (VERT, FRAG)
    };
    let vs = glslang(&case_dir, "p.vert", vert);
    let fs = glslang(&case_dir, "p.frag", frag);
    let state_path = case_dir.join("state.toml");
    std::fs::write(&state_path, &state).unwrap();

    let size = (32, 32);
    let fixed = gpu
        .draw(&Draw {
            vs: &words(&vs),
            fs: &words(&fs),
            vs_entry: "",
            fs_entry: "",
            size,
            setup: &Setup {
                vertex_buffers: vec![
                    (0, stride0, false, vb0.clone()),
                    (1, stride1, true, vb1.clone()),
                ],
                attributes: vec![
                    (0, 0, vk_format(case.pos), 0),
                    (1, 0, vk_format(case.color), pos_bytes),
                    (2, 1, vk_format(case.tint), 0),
                ],
                colors: vec![Some(Attachment {
                    format: vk_format(case.target),
                    texel_bytes: target.size_bits() / 8,
                    mask: vk::ColorComponentFlags::RGBA,
                })],
                vertices: VERTICES,
                instances: INSTANCES,
                ..Default::default()
            },
        })
        .unwrap_or_else(|e| panic!("fixed-function draw of {}: {e}", case.target))
        .colors
        .remove(0);
    assert!(
        fixed.iter().any(|b| *b != 0),
        "the triangles cover something"
    );

    for flag in ["--link-state", "--state"] {
        let out = case_dir.join(flag.trim_start_matches('-'));
        let r = Command::new(env!("CARGO_BIN_EXE_shaderstep"))
            .args(["run", "--pipeline", "--preset", "pipeline"])
            .arg(&vs)
            .arg(&fs)
            .arg(flag)
            .arg(&state_path)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let export = match target.words() {
            1 => "r32_uint",
            2 => "r32g32_uint",
            _ => "r32g32b32a32_uint",
        };
        let glued = gpu
            .draw(&Draw {
                vs: &words(&out.join("p.vert.spv")),
                fs: &words(&out.join("p.frag.spv")),
                vs_entry: "",
                fs_entry: "",
                size,
                setup: &Setup {
                    descriptors: [vb0.clone(), vb1.clone()]
                        .into_iter()
                        .enumerate()
                        .map(|(binding, bytes)| Descriptor {
                            set: 0,
                            binding: binding as u32,
                            elements: vec![Resource::Buffer {
                                storage: true,
                                bytes,
                            }],
                        })
                        .collect(),
                    colors: vec![Some(Attachment {
                        format: vk_format(export),
                        texel_bytes: target.words() * 4,
                        mask: vk::ColorComponentFlags::RGBA,
                    })],
                    vertices: VERTICES,
                    instances: INSTANCES,
                    ..Default::default()
                },
            })
            .unwrap_or_else(|e| panic!("glued draw: {e}"))
            .colors
            .remove(0);
        // Vulkan lets an implementation pick either neighbour when it converts a float to a
        // normalized value or a half float, and approximate sRGB encoding. lavapipe rounds
        // 8-bit unorm/snorm to nearest as the glue does, so those must match exactly; for its
        // sRGB curve, half floats and 10-bit unorm, which pick the other neighbour for some
        // values, one step either way is allowed (the counts are printed).
        let tolerance = u32::from(match target.encoding {
            Encoding::Srgb => true,
            Encoding::Float => target.bits[0] == 16,
            Encoding::Unorm | Encoding::Snorm => target.bits[0] > 8,
            Encoding::Uint | Encoding::Sint => false,
        });
        let texel_words = target.words() as usize;
        let comps = target.bits.len();
        // Component `i` of the image: texel i / comps, component i % comps, as its bits.
        let value = |img: &[u8], i: usize| {
            let (t, c) = (i / comps, i % comps);
            let (w, off) = target.place(c);
            let at = (t * texel_words + w as usize) * 4;
            let word = u32::from_le_bytes(img[at..at + 4].try_into().unwrap());
            let bits = target.bits[c];
            if bits == 32 {
                word
            } else {
                (word >> off) & ((1 << bits) - 1)
            }
        };
        let count = fixed.len() / (texel_words * 4) * comps;
        let differing: Vec<usize> = (0..count)
            .filter(|&i| value(&fixed, i).abs_diff(value(&glued, i)) > tolerance)
            .collect();
        if tolerance > 0 {
            let near = (0..count)
                .filter(|&i| value(&fixed, i) != value(&glued, i))
                .count();
            eprintln!(
                "{} with {flag}: {near} of {count} components one step apart",
                case.target
            );
        }
        assert!(
            differing.is_empty(),
            "{} {} {} → {} with {flag}: {} of {count} components differ, first at {} (fixed {:#x}, glue {:#x})",
            case.pos,
            case.color,
            case.tint,
            case.target,
            differing.len(),
            differing[0],
            value(&fixed, differing[0]),
            value(&glued, differing[0])
        );
    }
}

#[test]
fn glue_draws_the_same_image_as_fixed_function_fetch_and_export() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let dir = temp_dir("image");
    let cases = [
        Case {
            int: false,
            pos: "r32g32_sfloat",
            color: "r8g8b8a8_unorm",
            tint: "r8g8b8a8_unorm",
            target: "r8g8b8a8_unorm",
        },
        Case {
            int: false,
            pos: "r16g16_snorm",
            color: "a2b10g10r10_unorm_pack32",
            tint: "b8g8r8a8_unorm",
            target: "r8g8b8a8_srgb",
        },
        Case {
            int: false,
            pos: "r16g16_sfloat",
            color: "r16g16b16a16_unorm",
            tint: "r8g8b8a8_snorm",
            target: "r16g16b16a16_sfloat",
        },
        Case {
            int: false,
            pos: "r32g32b32_sfloat",
            color: "r8g8_unorm",
            tint: "r16g16b16a16_snorm",
            target: "a2b10g10r10_unorm_pack32",
        },
        Case {
            int: false,
            pos: "r32g32_sfloat",
            color: "r16g16b16a16_sfloat",
            tint: "r32g32b32a32_sfloat",
            target: "b8g8r8a8_unorm",
        },
        Case {
            int: false,
            pos: "r32g32_sfloat",
            color: "r8g8b8a8_unorm",
            tint: "r16g16b16a16_unorm",
            target: "r8g8b8a8_snorm",
        },
        Case {
            int: false,
            pos: "r32g32_sfloat",
            color: "r8g8b8a8_snorm",
            tint: "r8g8b8a8_unorm",
            target: "r32g32b32a32_sfloat",
        },
        Case {
            int: true,
            pos: "r32g32_sfloat",
            color: "r8g8b8a8_uint",
            tint: "r16g16_sint",
            target: "r8g8b8a8_uint",
        },
        Case {
            int: true,
            pos: "r32g32_sfloat",
            color: "r16g16b16a16_uint",
            tint: "r8g8b8a8_sint",
            target: "r16g16b16a16_uint",
        },
        Case {
            int: true,
            pos: "r32g32_sfloat",
            color: "r32g32_uint",
            tint: "r32g32b32a32_sint",
            target: "r32g32b32a32_uint",
        },
    ];
    for (n, case) in cases.iter().enumerate() {
        draw_case(&gpu, &dir, case, n);
    }
}
