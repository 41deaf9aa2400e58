#version 450
// A full-screen triangle from gl_VertexIndex alone, with an output block.
layout(location = 0) out VsOut {
    vec2 uv;
    vec3 ray;
} vs_out;
layout(set = 0, binding = 0) uniform Camera {
    mat4 inv_view_proj;
} cam;

void main() {
    vec2 pos = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    vs_out.uv = pos;
    vec4 clip = vec4(pos * 2.0 - 1.0, 1.0, 1.0);
    vec4 world = cam.inv_view_proj * clip;
    vs_out.ray = world.xyz / world.w;
    gl_Position = clip;
}
