#version 450
// A vertex stage for `--pipeline`: position and normal come from vertex buffers (the state's
// attributes), the tint from a per-instance buffer; v_debug is read by no fragment stage.
layout(location = 0) in vec3 pos;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec4 tint;
layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec4 v_tint;
layout(location = 2) out vec4 v_debug;
layout(location = 3) out float v_ambient;
void main() {
    v_normal = normalize(normal);
    v_tint = tint;
    v_debug = vec4(fract(pos * 17.0), 1.0);
    v_ambient = 0.2;
    gl_Position = vec4(pos, 1.0);
}
