#version 450
// The vertex half of a pipeline test: one output the fragment stage reads, one it never reads
// (dead, with the computation only it needs), one always written with the same constant.
layout(location = 0) in vec3 pos;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec4 v_unused;
layout(location = 2) out float v_shade;
void main() {
    v_normal = normalize(normal);
    v_unused = vec4(sin(pos) * 3.0 + cos(pos.zxy), 1.0);
    v_shade = 0.5;
    gl_Position = vec4(pos, 1.0);
}
