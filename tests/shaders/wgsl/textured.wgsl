// A fragment shader sampling two textures with one sampler and blending by a uniform.
struct Params {
    blend: f32,
    scale: vec2<f32>,
}

@group(0) @binding(0) var base_tex: texture_2d<f32>;
@group(0) @binding(1) var overlay_tex: texture_2d<f32>;
@group(0) @binding(2) var samp: sampler;
@group(0) @binding(3) var<uniform> params: Params;

@fragment
fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    let a = textureSample(base_tex, samp, uv);
    let b = textureSample(overlay_tex, samp, uv * params.scale);
    let m = clamp(params.blend * b.a, 0.0, 1.0);
    return vec4<f32>(mix(a.rgb, b.rgb, m), a.a);
}
