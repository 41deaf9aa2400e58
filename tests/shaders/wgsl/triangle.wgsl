// A vertex shader that builds a triangle from the vertex index, with a uniform transform.
struct Transform {
    mvp: mat4x4<f32>,
    tint: vec4<f32>,
}

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@group(0) @binding(0) var<uniform> xf: Transform;

@vertex
fn main(@builtin(vertex_index) vi: u32) -> VsOut {
    var corners = array<vec2<f32>, 3>(
        vec2<f32>(0.0, 0.5),
        vec2<f32>(-0.5, -0.5),
        vec2<f32>(0.5, -0.5),
    );
    var colors = array<vec3<f32>, 3>(
        vec3<f32>(1.0, 0.0, 0.0),
        vec3<f32>(0.0, 1.0, 0.0),
        vec3<f32>(0.0, 0.0, 1.0),
    );
    var out: VsOut;
    out.pos = xf.mvp * vec4<f32>(corners[vi % 3u], 0.0, 1.0);
    out.color = vec4<f32>(colors[vi % 3u], 1.0) * xf.tint;
    return out;
}
