#version 450
// Functions with in, out and inout parameters (glslang passes them through pointers).
layout(location = 0) in vec4 v_color;
layout(location = 1) flat in int v_mode;
layout(location = 0) out vec4 o_color;

void split(in vec4 c, out vec3 rgb, out float a) {
    rgb = c.rgb;
    a = c.a;
}

void brighten(inout vec3 rgb, float k) {
    rgb = clamp(rgb * k, 0.0, 1.0);
}

bool is_dark(vec3 rgb, out float luma) {
    luma = dot(rgb, vec3(0.2126, 0.7152, 0.0722));
    return luma < 0.25;
}

void main() {
    vec3 rgb;
    float a;
    split(v_color, rgb, a);
    float luma;
    if (is_dark(rgb, luma)) {
        brighten(rgb, 2.0);
    } else if (v_mode == 2) {
        brighten(rgb, 0.5);
    }
    if (a < 0.01) {
        discard;
    }
    o_color = vec4(rgb, a * luma);
}
