//! The interpreter (`ir::exec`, run on steps by `pipeline::exec`): it agrees with lavapipe on
//! the project's compute shaders, names a miscompiling pass's first differing value, and the
//! `exec` command prints what it ran.

mod common;

use std::sync::Arc;

use common::{corpus, shaderstep, SwapAddSub};
use shaderstep::ir::exec::{compare_buffer, first_difference, show, FindingKind, Options, Who};
use shaderstep::pipeline::exec::{
    check_draw_driver, check_driver, driver_subgroup_size, harness_inputs, models, run_draw_on,
    run_draw_step, run_step, uses_subgroups,
};
use shaderstep::pipeline::gpu::{Device, Gpu, Layout};
use shaderstep::pipeline::semantic::{driver_words, initial_bytes, GROUPS};
use shaderstep::pipeline::Pipeline;
use spirv::Op;

#[test]
fn a_miscompiling_pass_is_named_by_its_first_differing_value() {
    let words = corpus()
        .into_iter()
        .find(|s| s.path.to_string_lossy().contains("dxbc_loop"))
        .expect("tests/shaders/glslang/dxbc_loop.comp")
        .words;
    let mut p = Pipeline::from_names(&["lower", "verify", "dce", "verify", "lift"]).unwrap();
    p.passes.insert(3, Box::new(SwapAddSub));
    let run = p.run(Arc::new(words));
    assert!(run.ok());
    let options = Options::default();
    let swapped = run
        .steps
        .iter()
        .position(|s| s.pass == "swap-add-sub")
        .expect("the step of the test pass");
    let before = run_step(&run.steps[swapped - 1].module, None, None, &options).unwrap();
    let after = run_step(&run.steps[swapped].module, None, None, &options).unwrap();
    let d = first_difference(&before.execution, &after.execution).expect("a difference");
    let op_of = |m: &shaderstep::ir::Module| {
        m.functions()
            .iter()
            .find_map(|f| f.def_of(d.id))
            .map(|i| i.op())
    };
    assert_eq!(op_of(&before.module), Some(Op::IAdd), "{d:?}");
    assert_eq!(op_of(&after.module), Some(Op::ISub), "{d:?}");
    assert_ne!(show(&d.value), show(&d.against));
    assert!(first_difference(&before.execution, &before.execution).is_none());
}

/// Every compute shader of the project's corpus that the interpreter runs gives, on the
/// harness's inputs, the bytes lavapipe gives, word for word.
#[test]
fn the_interpreter_agrees_with_lavapipe() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let (mut agree, mut refused, mut differ) = (Vec::new(), Vec::new(), Vec::new());
    for s in corpus() {
        let name = s.name();
        let run = Pipeline::from_names(&["lower", "lift"])
            .unwrap()
            .run(Arc::new(s.words));
        let Some(step) = run.final_module() else {
            continue;
        };
        let Ok(words) = driver_words(step) else {
            continue;
        };
        let Ok(layout) = Layout::of_entry(&words, None) else {
            continue;
        };
        let ran = match run_step(step, None, None, &Options::default()) {
            Ok(r) => r,
            Err(why) => {
                refused.push(format!("{name}: {why}"));
                continue;
            }
        };
        // A loop over a buffer's word (a count near 2^30) runs past any budget.
        if ran
            .execution
            .findings
            .iter()
            .any(|f| f.kind == FindingKind::Budget)
        {
            refused.push(format!("{name}: out of budget"));
            continue;
        }
        let inputs = harness_inputs(&words, None, None).unwrap();
        let buffers: Vec<Vec<u8>> = layout
            .slots()
            .iter()
            .map(|(b, e)| initial_bytes(b, *e, None))
            .collect();
        let driver = gpu
            .run_buffers(
                &words,
                &layout,
                GROUPS,
                &buffers,
                std::time::Duration::from_secs(20),
            )
            .unwrap_or_else(|e| panic!("{name}: the driver does not run it: {e:?}"));
        let mut first = None;
        for (b, contents) in ran.execution.buffers.iter().zip(&ran.execution.contents) {
            let k = layout
                .slots()
                .iter()
                .position(|(s, _)| s.set == b.set && s.binding == b.binding)
                .unwrap();
            assert_eq!(inputs.buffers.len(), ran.execution.buffers.len());
            if let Some(what) = compare_buffer(&ran.module, b.set, b.binding, contents, &driver[k])
            {
                first.get_or_insert(format!("set {} binding {}{what}", b.set, b.binding));
            }
        }
        match first {
            None => agree.push(name),
            Some(what) => differ.push(format!("{name}: {what}")),
        }
    }
    eprintln!(
        "agree: {}\nrefused ({}):\n  {}\ndiffer ({}):\n  {}",
        agree.join(", "),
        refused.len(),
        refused.join("\n  "),
        differ.len(),
        differ.join("\n  ")
    );
    assert!(differ.is_empty(), "the interpreter and lavapipe disagree");
    assert!(agree.len() >= 8, "only {} shaders run", agree.len());
}

/// Every vertex and fragment shader of the project's corpus that the interpreter draws gives
/// the attachments lavapipe gives (floats within the interpolation tolerance), drawn alone
/// with the harness's generated partner stage.
#[test]
fn the_interpreter_draws_what_lavapipe_draws() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let (mut agree, mut refused, mut differ) = (Vec::new(), Vec::new(), Vec::new());
    for s in corpus() {
        let name = s.name();
        let run = Pipeline::from_names(&["lower", "lift"])
            .unwrap()
            .run(Arc::new(s.words));
        let Some(step) = run.final_module() else {
            continue;
        };
        let has = models(step);
        if has.contains(&spirv::ExecutionModel::GLCompute) {
            continue;
        }
        let ran = match run_draw_step(step, None, &Options::default()) {
            Ok(r) => r,
            Err(why) => {
                refused.push(format!("{name}: {why}"));
                continue;
            }
        };
        match check_draw_driver(&gpu, &ran) {
            Ok(None) => agree.push(name),
            Ok(Some(what)) => differ.push(format!("{name}: {what}")),
            Err(why) => refused.push(format!("{name}: the driver cannot draw it: {why}")),
        }
    }
    eprintln!(
        "agree: {}\nrefused ({}):\n  {}\ndiffer ({}):\n  {}",
        agree.join(", "),
        refused.len(),
        refused.join("\n  "),
        differ.len(),
        differ.join("\n  ")
    );
    assert!(differ.is_empty(), "the interpreter and lavapipe draw apart");
    assert!(agree.len() >= 6, "only {} shaders drawn", agree.len());
}

/// A fragment shader written here: derivatives (fine and coarse), discard, flat integers, `FragCoord` and a uniform buffer, drawn
/// by the interpreter as lavapipe draws it; a miscompiled step is named by the first value
/// that differs, in the fragment stage.
#[test]
fn fragments_run_in_quads_with_derivatives_and_discard() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let source = "#version 450\n\
        layout(location = 0) in vec2 uv;\n\
        layout(location = 1) flat in int tag;\n\
        layout(location = 0) out vec4 colour;\n\
        layout(binding = 0) uniform U { vec4 tint; int cut; };\n\
        void main() {\n\
          vec2 p = uv * uv * 7.0;\n\
          if (int(gl_FragCoord.x) == cut + 3) discard;\n\
          float edge = dFdxFine(p.x) + dFdyCoarse(p.y) + fwidth(p.x * p.y);\n\
          int k = tag + 2;\n\
          colour = tint * edge + vec4(float(k), gl_FragCoord.xy / 24.0, 1.0);\n\
        }\n";
    let words = common::glslang_words("quads.frag", source.as_bytes(), &[]);
    let mut p = Pipeline::from_names(&["lower", "verify", "dce", "verify", "lift"]).unwrap();
    p.passes.insert(3, Box::new(SwapAddSub));
    let run = p.run(Arc::new(words));
    assert!(run.ok());
    let options = Options::default();
    let input = run_draw_step(&run.steps[1].module, None, &options).unwrap();
    assert_eq!(check_draw_driver(&gpu, &input).unwrap(), None);
    assert!(input.execution.covers());
    let swapped = run
        .steps
        .iter()
        .position(|s| s.pass == "swap-add-sub")
        .unwrap();
    let before = run_draw_on(&run.steps[swapped - 1].module, &input, &options).unwrap();
    let after = run_draw_on(&run.steps[swapped].module, &input, &options).unwrap();
    assert!(first_difference(&before.execution.vertex, &after.execution.vertex).is_none());
    let d = first_difference(&before.execution.fragment, &after.execution.fragment)
        .expect("the swapped add differs");
    let op = before
        .fragment
        .0
        .functions()
        .iter()
        .find_map(|f| f.def_of(d.id))
        .map(|i| i.op());
    assert_eq!(op, Some(Op::IAdd), "{d:?}");
    assert_ne!(before.execution.attachments, after.execution.attachments);
    assert_eq!(
        check_draw_driver(&gpu, &after).unwrap(),
        None,
        "the driver draws the miscompiled step as the interpreter does"
    );
}

/// A vertex shader written here: attributes, a matrix from a uniform buffer, a clip distance
/// and an output block, drawn before the generated fragment stage as lavapipe draws it (its
/// triangles' edges run helper invocations).
#[test]
fn vertices_run_with_attributes_clip_distances_and_blocks() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let source = "#version 450\n\
        layout(location = 0) in vec4 position;\n\
        layout(location = 1) in ivec2 ids;\n\
        layout(binding = 0) uniform U { mat4 m; };\n\
        layout(location = 0) out Block { vec3 normal; flat int id; } o;\n\
        out gl_PerVertex { vec4 gl_Position; float gl_ClipDistance[1]; };\n\
        void main() {\n\
          gl_Position = m * vec4(position.xy, 0.5, 1.0);\n\
          gl_ClipDistance[0] = position.x + 0.5;\n\
          o.normal = normalize(position.xyz + vec3(0.1));\n\
          o.id = ids.x * 3 + gl_VertexIndex;\n\
        }\n";
    let words = common::glslang_words("verts.vert", source.as_bytes(), &[]);
    let run = Pipeline::from_names(&["lower", "lift"])
        .unwrap()
        .run(Arc::new(words));
    let ran = run_draw_step(run.final_module().unwrap(), None, &Options::default()).unwrap();
    assert!(ran.execution.covers());
    assert_eq!(
        ran.execution.vertex.who.len(),
        24,
        "12 vertices, 2 instances"
    );
    let helpers = ran
        .execution
        .fragment
        .who
        .iter()
        .filter(|w| matches!(w, Who::Fragment { helper: true, .. }))
        .count();
    assert!(helpers > 0, "the triangles' edges have helper invocations");
    assert_eq!(check_draw_driver(&gpu, &ran).unwrap(), None);
}

/// Structs between stages: in a vertex shader's output block (nested, and in an array) and
/// as a fragment shader's input; each field at the location Vulkan gives it, fed and read by
/// the generated stage as lavapipe does.
#[test]
fn structs_between_stages_take_a_location_per_field() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let vertex = "#version 450\n\
        layout(location = 0) in vec4 position;\n\
        struct Inner { vec2 uv; float w; };\n\
        struct Outer { Inner inner[2]; vec3 n; };\n\
        layout(location = 1) out Block { float a; Outer outer; } o;\n\
        void main() {\n\
          gl_Position = vec4(position.xy, 0.5, 1.0);\n\
          o.a = position.z;\n\
          o.outer.inner[0] = Inner(position.xy * 2.0, position.w);\n\
          o.outer.inner[1] = Inner(position.yx, float(gl_VertexIndex));\n\
          o.outer.n = position.xyz - 0.25;\n\
        }\n";
    let ran = draw_glsl("structs.vert", vertex);
    // a, inner[0].uv, inner[0].w, inner[1].uv, inner[1].w, n: six attachments.
    assert_eq!(ran.execution.attachments.len(), 6);
    assert_eq!(check_draw_driver(&gpu, &ran).unwrap(), None);
    let fragment = "#version 450\n\
        struct S { vec2 uv; float id; mat2 m; };\n\
        layout(location = 0) in S s;\n\
        layout(location = 0) out vec4 c;\n\
        void main() { c = vec4(s.m * s.uv, s.id, 1.0); }\n";
    let ran = draw_glsl("structs.frag", fragment);
    assert!(ran.execution.covers());
    assert_eq!(check_draw_driver(&gpu, &ran).unwrap(), None);
}

/// Two variables of different types at one binding view the same bytes (HLSL's aliased
/// buffers): a store through one is what the other loads.
#[test]
fn aliased_buffers_share_their_bytes() {
    const SOURCE: &str = r#"#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) buffer Words { uint w[]; };
layout(set = 0, binding = 0, std430) buffer Vecs { vec4 v[]; };
void main() {
    v[1] = vec4(1.0, 2.0, 3.0, 4.0);
    w[0] = w[4] + w[7];
    w[9] = floatBitsToUint(v[0].x);
}
"#;
    let ran = run_glsl("aliased.comp", SOURCE);
    let word = |at: usize| word_at(&ran.execution.buffers[0].bytes, at);
    assert_eq!(word(4), 1.0f32.to_bits());
    assert_eq!(word(0), 1.0f32.to_bits().wrapping_add(4.0f32.to_bits()));
    assert_eq!(word(9), word(0), "the vec4 view sees the word view's store");
    assert_lavapipe_runs(&ran);
}

/// `interpolateAtOffset`, `AtCentroid` and `AtSample` interpolate an input again (a member
/// of an array, through an access chain, too), as lavapipe does. Each input is read one way
/// only: lavapipe 22.3 gives a plain read of an input after `interpolateAtOffset` of it the
/// offset's value (a driver bug; `exec --check-driver` reports it as a disagreement).
#[test]
fn inputs_are_interpolated_again_at_offsets() {
    let fragment = "#version 450\n\
        layout(location = 0) in vec2 uv;\n\
        layout(location = 1) in vec2 st;\n\
        layout(location = 2) in vec4 parts[2];\n\
        layout(location = 0) out vec4 c;\n\
        layout(location = 1) out vec4 d;\n\
        void main() {\n\
          c = vec4(interpolateAtOffset(uv, vec2(0.5, 0.0)), interpolateAtOffset(uv, vec2(-0.5, 0.0)));\n\
          d = interpolateAtOffset(parts[1], vec2(-0.5, 0.125)) + interpolateAtSample(parts[0], 0)\n\
            + vec4(interpolateAtCentroid(st), 0.0, 0.0);\n\
        }\n";
    let ran = draw_glsl("interpolate.frag", fragment);
    let c = &ran.execution.attachments[0].words;
    let pixel = |x: u32, y: u32| ((y * ran.inputs.size.0 + x) * 4) as usize;
    let at = |k: usize| f32::from_bits(c[k].expect("drawn"));
    // Half a pixel right of pixel (4, 4) is half a pixel left of pixel (5, 4).
    let (here, right) = (pixel(4, 4), pixel(5, 4));
    assert!(
        (at(here) - at(right + 2)).abs() < 1e-6,
        "{} {}",
        at(here),
        at(right + 2)
    );
    assert!(at(here) != at(here + 2), "the offsets move the point");
    assert_lavapipe_draws(&ran);
}

/// `textureQueryLod`: the level read is the one level; the LOD computed is the
/// implementation's (Vulkan lets it approximate), so it is undefined and not compared.
#[test]
fn lod_queries_read_the_one_level() {
    let fragment = "#version 450\n\
        layout(location = 0) in vec2 uv;\n\
        layout(binding = 0) uniform sampler2D tex;\n\
        layout(location = 0) out vec4 c;\n\
        void main() { c = vec4(textureQueryLod(tex, uv * 5.0), 1.0, 1.0); }\n";
    let ran = draw_glsl("lod.frag", fragment);
    let c = &ran.execution.attachments[0].words;
    assert_eq!(c[0], Some(0), "level 0");
    assert_eq!(c[1], None, "the computed LOD is the implementation's");
    assert_lavapipe_draws(&ran);
}

/// A texel written with an undefined value (here read outside another image) is undefined
/// after the run, not the bytes it held before.
#[test]
fn texels_written_with_undefined_values_are_undefined() {
    const SOURCE: &str = r#"#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
    int x = int(gl_GlobalInvocationID.x) * 2;
    imageStore(dst, ivec2(x, 0), imageLoad(src, imageSize(src)));
    imageStore(dst, ivec2(x + 1, 0), imageLoad(src, ivec2(0, 0)));
}
"#;
    let ran = run_glsl("undefined-texel.comp", SOURCE);
    // One texel each of the harness's two workgroups.
    assert_eq!(ran.execution.images[1].undefined_texels, vec![0, 2]);
    assert_lavapipe_runs(&ran);
}

/// An array sized by a specialization constant has its default's length in a buffer: the
/// members after it are where the driver puts them.
#[test]
fn arrays_sized_by_spec_constants_take_their_default_length() {
    const SOURCE: &str = r#"#version 450
layout(local_size_x = 1) in;
layout(constant_id = 0) const int N = 3;
layout(set = 0, binding = 0, std430) buffer B { int a[N]; int b[4]; };
void main() {
    b[gl_GlobalInvocationID.x] = a[0] + 400;
}
"#;
    let ran = run_glsl("spec-sized.comp", SOURCE);
    let word = |at: usize| word_at(&ran.execution.buffers[0].bytes, at) as i32;
    let before = |at: usize| word_at(&ran.inputs.buffers[0].bytes, at) as i32;
    // b starts after a's three words.
    assert_eq!(word(3), before(0) + 400);
    assert_eq!(word(4), before(0) + 400);
    assert_lavapipe_runs(&ran);
}

/// A vertex shader whose outputs take more attachments than there are, one leaf each, has
/// them packed four components to an attachment (floats and integers apart), and is drawn
/// as lavapipe draws it.
#[test]
fn many_vertex_outputs_are_packed_into_the_attachments() {
    let vertex = "#version 450\n\
        layout(location = 0) in vec4 p;\n\
        layout(location = 0) out mat3 a;\n\
        layout(location = 3) out mat3 b;\n\
        layout(location = 6) out vec2 c[3];\n\
        layout(location = 9) flat out ivec2 d;\n\
        void main() {\n\
          gl_Position = vec4(p.xy, 0.5, 1.0);\n\
          a = mat3(p.xyz, p.yzw, p.zwx); b = a * 2.0;\n\
          c[0] = p.xy; c[1] = p.zw; c[2] = p.yx - 1.0;\n\
          d = ivec2(gl_VertexIndex, gl_InstanceIndex * 7);\n\
        }\n";
    let ran = draw_glsl("packed.vert", vertex);
    // 24 float components in 6 attachments, 2 integers in a seventh.
    assert_eq!(ran.execution.attachments.len(), 7);
    assert!(ran.execution.covers());
    assert_lavapipe_draws(&ran);
}

/// Images written here, run by the interpreter as lavapipe runs them: sampling with the
/// harness's sampler (nearest, repeat; arrays, gathers, depth comparisons), fetches, sizes;
/// storage images and texel buffers read and written by a compute shader.
#[test]
fn images_are_sampled_read_and_written_as_lavapipe_does() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let fragment = "#version 450\n\
        layout(location = 0) in vec2 uv;\n\
        layout(binding = 0) uniform sampler2D tex;\n\
        layout(binding = 1) uniform sampler2DArray arr;\n\
        layout(binding = 2) uniform sampler2DShadow sh;\n\
        layout(location = 0) out vec4 c;\n\
        void main() {\n\
          vec4 a = texture(tex, uv * 3.0 - 0.3);\n\
          vec4 b = texelFetch(tex, ivec2(gl_FragCoord.xy) & 7, 0);\n\
          vec4 d = textureGather(tex, uv, 1);\n\
          float s = texture(sh, vec3(uv, 0.4));\n\
          c = a + b * 0.5 + d * 0.25 + texture(arr, vec3(uv, 1.0)) + vec4(s)\n\
            + vec4(textureSize(tex, 0), 0, 0);\n\
        }\n";
    let words = common::glslang_words("images.frag", fragment.as_bytes(), &[]);
    let run = Pipeline::from_names(&["lower", "lift"])
        .unwrap()
        .run(Arc::new(words));
    let ran = run_draw_step(run.final_module().unwrap(), None, &Options::default()).unwrap();
    assert!(ran.execution.covers());
    assert_eq!(check_draw_driver(&gpu, &ran).unwrap(), None);
    let compute = "#version 450\n\
        layout(local_size_x = 8, local_size_y = 2) in;\n\
        layout(binding = 0, rgba8) uniform image2D img;\n\
        layout(binding = 1, r32f) uniform readonly image2D src;\n\
        layout(binding = 2, rgba32ui) uniform uimage2D ui;\n\
        layout(binding = 3) uniform samplerBuffer tb;\n\
        layout(binding = 4, std430) buffer B { vec4 o[]; };\n\
        void main() {\n\
          ivec2 p = ivec2(gl_GlobalInvocationID.xy) & 7;\n\
          vec4 v = imageLoad(img, p);\n\
          float f = imageLoad(src, p.yx).x;\n\
          imageStore(img, p, v.bgra * 0.5 + f);\n\
          uvec4 u = imageLoad(ui, p);\n\
          imageStore(ui, p, u * 3u + uvec4(p.x));\n\
          o[gl_GlobalInvocationID.x + p.y * 16] = texelFetch(tb, p.x * 3) + vec4(imageSize(img), 0, 0);\n\
        }\n";
    let words = common::glslang_words("images.comp", compute.as_bytes(), &[]);
    let run = Pipeline::from_names(&["lower", "lift"])
        .unwrap()
        .run(Arc::new(words));
    let ran = run_step(run.final_module().unwrap(), None, None, &Options::default()).unwrap();
    assert_eq!(ran.execution.images.len(), 4);
    assert_ne!(
        ran.execution.images[0].texels, ran.inputs.images[0].texels,
        "the storage image was written"
    );
    assert_eq!(check_driver(&gpu, &ran, None).unwrap(), None);
}

/// Cube maps: a face chosen by the direction's major axis, sampled, compared and sized, in
/// a draw; storage cubes read and written face by face in a dispatch.
#[test]
fn cube_images_are_sampled_and_stored_as_lavapipe_does() {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let fragment = "#version 450\n\
        layout(location = 0) in vec2 uv;\n\
        layout(binding = 0) uniform samplerCube cube;\n\
        layout(binding = 1) uniform samplerCubeArray cubes;\n\
        layout(binding = 2) uniform samplerCubeShadow sh;\n\
        layout(location = 0) out vec4 c;\n\
        void main() {\n\
          vec3 d = vec3(uv * 4.0 - 2.0, uv.x - uv.y * 1.5);\n\
          vec4 a = texture(cube, d) + texture(cube, d.zxy) * 0.5 + texture(cube, -d.yzx) * 0.25;\n\
          vec4 b = texture(cubes, vec4(-d, 1.0));\n\
          float s = texture(sh, vec4(d.yxz, 0.4));\n\
          c = a + b + vec4(s) + vec4(textureSize(cubes, 0), 0);\n\
        }\n";
    let ran = draw_glsl("cube.frag", fragment);
    assert!(ran.execution.covers());
    assert_eq!(check_draw_driver(&gpu, &ran).unwrap(), None);
    let compute = "#version 450\n\
        layout(local_size_x = 8, local_size_y = 6) in;\n\
        layout(binding = 0, rgba32f) uniform imageCube faces;\n\
        layout(binding = 1, r32ui) uniform uimageCubeArray counts;\n\
        layout(binding = 2, std430) buffer B { vec4 o[]; };\n\
        void main() {\n\
          ivec3 p = ivec3(gl_GlobalInvocationID.x, 7 - gl_GlobalInvocationID.x, gl_GlobalInvocationID.y);\n\
          vec4 v = imageLoad(faces, p);\n\
          imageStore(faces, p, v.wzyx + float(p.z));\n\
          uint n = imageLoad(counts, ivec3(p.xy, p.z + 6)).x;\n\
          imageStore(counts, ivec3(p.xy, p.z), uvec4(n * 2u + 1u));\n\
          o[gl_LocalInvocationIndex] = v + vec4(imageSize(faces), imageSize(counts));\n\
        }\n";
    let words = common::glslang_words("cube.comp", compute.as_bytes(), &[]);
    let run = Pipeline::from_names(&["lower", "lift"])
        .unwrap()
        .run(Arc::new(words));
    let ran = run_step(run.final_module().unwrap(), None, None, &Options::default()).unwrap();
    assert_ne!(ran.execution.images[0].texels, ran.inputs.images[0].texels);
    assert_eq!(check_driver(&gpu, &ran, None).unwrap(), None);
}

/// An input attachment is read at the fragment's own pixel: what a pixel writes is the
/// attachment's texel there (checked by hand), as on lavapipe.
#[test]
fn input_attachments_are_read_at_the_fragments_pixel() {
    let fragment = "#version 450\n\
        layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput inp;\n\
        layout(location = 0) out vec4 c;\n\
        void main() { c = subpassLoad(inp) * 2.0 - 0.5; }\n";
    let ran = draw_glsl("attachment.frag", fragment);
    let image = &ran.inputs.images[0];
    let (x, y) = (5u32, 9u32);
    let texel = image.read([i64::from(x), i64::from(y), 0, 0]).unwrap();
    let attachment = &ran.execution.attachments[0];
    let at = ((y * ran.inputs.size.0 + x) * 4) as usize;
    let red = f32::from_bits(attachment.words[at].expect("pixel 5,9 is drawn"));
    let shaderstep::ir::consts::Const::Scalar(shaderstep::ir::ops::fold::Value::Float {
        value,
        ..
    }) = texel[0]
    else {
        panic!("a float texel: {:?}", texel[0]);
    };
    let want = value as f32 * 2.0 - 0.5;
    assert_eq!(red, want);
    assert_lavapipe_draws(&ran);
}

/// A multisampled image holds one value in every sample: fetches of samples it has read it,
/// a sample past the last is undefined, and its sample count is 4.
#[test]
fn multisampled_images_are_fetched_sample_by_sample() {
    let fragment = "#version 450\n\
        layout(binding = 0) uniform sampler2DMS ms;\n\
        layout(binding = 1) uniform isampler2DMSArray msa;\n\
        layout(location = 0) out vec4 c;\n\
        layout(location = 1) out vec4 d;\n\
        void main() {\n\
          ivec2 p = ivec2(gl_FragCoord.xy) & 7;\n\
          c = texelFetch(ms, p, 3) + vec4(texelFetch(msa, ivec3(p, 1), 1)) * 0.5\n\
            + float(textureSamples(ms));\n\
          d = texelFetch(ms, p, 4);\n\
        }\n";
    let ran = draw_glsl("ms.frag", fragment);
    let c = &ran.execution.attachments[0];
    assert!(
        c.words.iter().all(Option::is_some),
        "samples 3 and 1 are defined"
    );
    assert!(
        ran.execution.attachments[1]
            .words
            .iter()
            .any(Option::is_none),
        "sample 4 is undefined"
    );
    assert_lavapipe_draws(&ran);
}

#[test]
fn the_exec_command_prints_outputs_values_and_findings() {
    let dir = common::temp_dir("exec");
    let path = dir.join("div.comp");
    std::fs::write(
        &path,
        "#version 450\nlayout(local_size_x = 4) in;\nlayout(std430, binding = 0) buffer B { uint data[]; };\n\
         void main() {\n  uint i = gl_GlobalInvocationID.x;\n  data[i] = 100u / (i & 1u);\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = shaderstep(&["exec", p, "--invocation", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("2 workgroups of 4x1x1"), "{text}");
    assert!(text.contains("invocation 1,0,0:"), "{text}");
    assert!(text.contains("= 100"), "invocation 1 divides by 1:\n{text}");
    assert!(
        text.contains("undefined result"),
        "invocations 0, 2… divide by 0:\n{text}"
    );
    let out = shaderstep(&["exec", p, "--step", "last", "--against-step", "0", "--json"]);
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(json.contains("\"first_difference\":null"), "{json}");
    assert!(json.contains("\"undefined_behaviour\":[{"), "{json}");
    let out = shaderstep(&["exec", p, "--invocation", "9,0,0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no invocation 9,0,0"));
    let out = shaderstep(&["exec", p, "--pixel", "1,1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("use --invocation"));
}

/// `exec` draws a fragment shader: the attachments, the chosen pixel's values, and with
/// `--json` the invocation named as a pixel.
#[test]
fn the_exec_command_draws_fragment_shaders() {
    let dir = common::temp_dir("exec-frag");
    let path = dir.join("grad.frag");
    std::fs::write(
        &path,
        "#version 450\nlayout(location = 0) out vec4 c;\n\
         void main() {\n  c = vec4(gl_FragCoord.xy * 0.5, dFdx(gl_FragCoord.x), 1.0);\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = shaderstep(&["exec", p, "--pixel", "3,4"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("behind a generated vertex stage"), "{text}");
    assert!(
        text.contains("location 0: 576 of 576 texels drawn"),
        "{text}"
    );
    assert!(
        text.contains("pixel 3,4 = (1.75, 2.25, 1.0, 1.0)"),
        "{text}"
    );
    assert!(text.contains("pixel 3,4 of triangle"), "{text}");
    let out = shaderstep(&["exec", p, "--json", "--vertex", "2"]);
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(json.contains("\"stage\":\"fragment\""), "{json}");
    assert!(json.contains("\"invocation\":\"vertex 2\""), "{json}");
    let out = shaderstep(&["exec", p, "--vertex", "99"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no vertex 99"));
}

/// A vertex and a fragment shader given apart are drawn together (no generated stage), the
/// same step of both; `--against-step` compares the pair at another step, and the driver
/// draws the same pair.
#[test]
fn the_exec_command_draws_a_vertex_and_a_fragment_shader_together() {
    let dir = common::temp_dir("exec-pair");
    let vs = dir.join("lit.vert");
    let fs = dir.join("lit.frag");
    std::fs::write(
        &vs,
        "#version 450\nlayout(location = 0) in vec4 p;\nlayout(location = 3) out vec2 uv;\n\
         void main() { gl_Position = vec4(p.xy, 0.5, 1.0); uv = p.xy * 0.5 + 0.5; }\n",
    )
    .unwrap();
    std::fs::write(
        &fs,
        "#version 450\nlayout(location = 3) in vec2 uv;\nlayout(location = 0) out vec4 c;\n\
         void main() { float k = 2.0; c = vec4(uv * k, uv.x - uv.y, 1.0); }\n",
    )
    .unwrap();
    let (v, f) = (vs.to_str().unwrap(), fs.to_str().unwrap());
    let out = shaderstep(&[
        "exec",
        v,
        f,
        "--step",
        "last",
        "--check-driver",
        "--against-step",
        "0",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("before the fragment shader"), "{text}");
    assert!(!text.contains("generated"), "{text}");
    assert!(text.contains("driver: agrees"), "{text}");
    assert!(text.contains("every value the same"), "{text}");
    let out = shaderstep(&["exec", v, f, "--against", v]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--against-step"));
}

/// Buffer device addresses: a binding holds a pointer, the buffer behind it a pointer to
/// another; loads two hops away, stores and atomics through addresses, and a
/// read-modify-write that races. The interpreter computes what the harness's bytes say
/// (checked by hand here) and what lavapipe computes.
#[test]
fn buffer_addresses_are_followed_as_lavapipe_follows_them() {
    use shaderstep::pipeline::gpu::addresses::pointee_fill;
    const SOURCE: &str = r#"#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 4) in;
layout(buffer_reference) buffer Node;
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Node {
    Node next;
    uint count;
    float f;
    uint value;
    uint pad;
};
layout(set = 0, binding = 0, std430) buffer Roots {
    Node head;
    uint got[8];
};
void main() {
    uint i = gl_GlobalInvocationID.x;
    Node n = head;
    Node m = n.next;
    got[i] = m.value + i;
    atomicAdd(m.count, 1u);
    if (i == 0) {
        m.f = m.f * 2.0;
    }
    // Every invocation adds to one word with no atomics: a race.
    n.pad = n.pad + 1u;
}
"#;
    let ran = run_glsl("bda.comp", SOURCE);
    let word = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    // `head` (offset 0) holds the address of buffer 0, whose `next` (offset 0) holds buffer
    // 1's: the harness writes the buffers' addresses in turn.
    let one = pointee_fill(1);
    let got = &ran.execution.buffers[0].bytes;
    for i in 0..8 {
        assert_eq!(
            word(got, 8 + 4 * i),
            word(&one, 16).wrapping_add(i as u32),
            "got[{i}]"
        );
    }
    // Eight invocations (two workgroups of four) each added one.
    assert_eq!(
        word(&ran.execution.pointees[1], 8),
        word(&one, 8).wrapping_add(8)
    );
    let f = f32::from_bits(word(&one, 12)) * 2.0;
    assert_eq!(word(&ran.execution.pointees[1], 12), f.to_bits());
    let races = ran
        .execution
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::Race)
        .count();
    assert!(races >= 1, "{:?}", ran.execution.findings);
    // `n.pad` (buffer 0, offset 20) is left undefined, and so agrees with anything.
    assert!(ran.execution.undefined_pointee_bytes.contains(&(0, 20)));
    assert_lavapipe_runs(&ran);
}

/// An address made of two words (`uvec2`) and stored through: a shader that makes addresses
/// of integers may read any 8 aligned bytes as one, so the harness puts addresses
/// everywhere, and what is left of one after a 32-bit store still compares.
#[test]
fn addresses_made_of_words_are_stored_through() {
    const SOURCE: &str = r#"#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(local_size_x = 1) in;
layout(buffer_reference, std430) buffer Words { uint w[]; };
layout(set = 0, binding = 0, std430) buffer Roots { uvec2 at; uint done; };
void main() {
    Words words = Words(at);
    words.w[3 + gl_WorkGroupID.x] = 7u;
    done = 1u;
}
"#;
    let ran = run_glsl("bda-uvec2.comp", SOURCE);
    // `at` (offset 0) holds the address of buffer 0.
    for k in 0..2 {
        let at = 12 + 4 * k;
        assert_eq!(ran.execution.pointees[0][at..at + 4], 7u32.to_le_bytes());
    }
    assert_lavapipe_runs(&ran);
}

/// GLSL compiled for Vulkan 1.2 and run on the interpreter as a step.
fn run_glsl(name: &str, source: &str) -> shaderstep::pipeline::exec::Ran {
    let words = common::glslang_words(name, source.as_bytes(), &["--target-env", "vulkan1.2"]);
    let step = shaderstep::ir::spirv::read::read_words(&words).unwrap();
    run_step(&step, None, None, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A vertex or fragment shader written here, lowered and lifted again, drawn on the
/// interpreter as the harness draws it.
fn draw_glsl(name: &str, source: &str) -> shaderstep::pipeline::exec::DrawRan {
    let words = common::glslang_words(name, source.as_bytes(), &[]);
    let run = Pipeline::from_names(&["lower", "lift"])
        .unwrap()
        .run(Arc::new(words));
    run_draw_step(run.final_module().unwrap(), None, &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// That lavapipe computes what the interpreter computed.
fn assert_lavapipe_runs(ran: &shaderstep::pipeline::exec::Ran) {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(check_driver(&gpu, ran, None), Ok(None));
}

/// That lavapipe draws what the interpreter drew.
fn assert_lavapipe_draws(ran: &shaderstep::pipeline::exec::DrawRan) {
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(check_draw_driver(&gpu, ran).unwrap(), None);
}

/// Word `at` (in 4-byte words) of `bytes`.
fn word_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at * 4..at * 4 + 4].try_into().unwrap())
}

/// An array of buffers: each element is its own binding slot, read and written by index, as
/// lavapipe binds them.
#[test]
fn arrays_of_buffers_are_bound_element_by_element() {
    const SOURCE: &str = r#"#version 450
layout(local_size_x = 3) in;
layout(set = 0, binding = 0, std430) buffer Words { uint w[4]; } words[3];
void main() {
    uint i = gl_LocalInvocationID.x;
    if (gl_WorkGroupID.x == 0) {
        words[i].w[0] = words[(i + 1) % 3].w[1] + i;
    }
}
"#;
    let ran = run_glsl("buffer-array.comp", SOURCE);
    let word = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let e = &ran.execution;
    assert_eq!(e.buffers.len(), 3);
    for i in 0..3 {
        let b = &e.buffers[i];
        assert_eq!((b.set, b.binding, b.element), (0, 0, i as u32));
        let next = &ran.inputs.buffers[(i + 1) % 3].bytes;
        assert_eq!(
            word(&b.bytes, 0),
            word(next, 4).wrapping_add(i as u32),
            "element {i}"
        );
    }
    assert_lavapipe_runs(&ran);
}

/// Subgroup operations with lavapipe's subgroup size: uniform and divergent reductions,
/// scans, ballots, shuffles and elections, in `if`s and in a loop whose trip count varies by
/// invocation, so the reconvergence rule is what lavapipe does. The uniform parts are
/// checked by hand too.
#[test]
fn subgroup_operations_reconverge_as_lavapipe_does() {
    const SOURCE: &str = r#"#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) buffer Out { uint sum[64]; uint v[64]; uint elected[8]; } o;
layout(set = 0, binding = 1, std430) buffer In { uint x[]; } data;
void main() {
    uint g = gl_GlobalInvocationID.x;
    uint x = data.x[g] & 15u;
    o.sum[g] = subgroupAdd(x);
    uint r = 0u;
    if (x > 7u) {
        r += subgroupInclusiveAdd(x) * 100u;
    } else {
        r += subgroupBallotBitCount(subgroupBallot(true)) * 10000u;
    }
    for (uint k = 0u; k < (x & 3u); k++) {
        r += subgroupMax(k + x);
    }
    r += subgroupShuffleXor(x, 1u) * 1000000u;
    o.v[g] = r;
    if (subgroupElect()) {
        o.elected[g / gl_SubgroupSize] = gl_SubgroupInvocationID + 100u * gl_SubgroupSize;
    }
}
"#;
    let gpu = Gpu::lavapipe().unwrap_or_else(|e| panic!("{e}"));
    let size = driver_subgroup_size(&gpu).unwrap();
    assert!([4, 8, 16].contains(&size), "lavapipe's SIMD width: {size}");
    let words = common::glslang_words(
        "subgroups.comp",
        SOURCE.as_bytes(),
        &["--target-env", "vulkan1.2"],
    );
    let step = shaderstep::ir::spirv::read::read_words(&words).unwrap();
    assert!(uses_subgroups(&step));
    let options = Options {
        subgroup_size: size,
        ..Options::default()
    };
    let ran = run_step(&step, None, None, &options).unwrap();
    let size = size as usize;
    let word = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let input = &ran.inputs.buffers[1].bytes;
    let x = |g: usize| word(input, 4 * g) & 15;
    let out = &ran.execution.buffers[0].bytes;
    for g in 0..64 {
        let first = g / size * size;
        let sum: u32 = (first..first + size).map(x).sum();
        assert_eq!(word(out, 4 * g), sum, "subgroupAdd at {g}");
    }
    for s in 0..64 / size {
        assert_eq!(
            word(out, 512 + 4 * s),
            100 * size as u32,
            "elected in subgroup {s}"
        );
    }
    assert_eq!(check_driver(&gpu, &ran, None), Ok(None));
}

/// Atomics on texels of storage images (`OpImageTexelPointer`): every invocation adds to one
/// texel, takes the maximum into another and swaps a third; the interpreter's texels are the
/// harness's with those done (checked by hand), and lavapipe's.
#[test]
fn image_atomics_change_texels_as_lavapipe_does() {
    const SOURCE: &str = r#"#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D counts;
layout(set = 0, binding = 1, std430) buffer Out { uint old[8]; } o;
void main() {
    uint g = gl_GlobalInvocationID.x;
    imageAtomicAdd(counts, ivec2(0, 0), 1u);
    imageAtomicMax(counts, ivec2(1, 0), g * 1000u);
    if (g == 3u) {
        o.old[0] = imageAtomicCompSwap(counts, ivec2(2, 0), imageLoad(counts, ivec2(2, 0)).x, 77u);
    }
}
"#;
    let ran = run_glsl("image-atomics.comp", SOURCE);
    let word = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let before = &ran.inputs.images[0].texels;
    let after = &ran.execution.images[0].texels;
    assert_eq!(word(after, 0), word(before, 0).wrapping_add(8));
    assert_eq!(word(after, 4), word(before, 4).max(7000));
    assert_eq!(word(after, 8), 77);
    assert_eq!(word(&ran.execution.buffers[0].bytes, 0), word(before, 8));
    assert_lavapipe_runs(&ran);
}
