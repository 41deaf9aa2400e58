#version 450
// Color grading with out parameters, a switch and early returns in helpers.
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform texture2D scene;
layout(set = 0, binding = 1) uniform sampler samp;
layout(set = 0, binding = 2) uniform Grade {
    int mode;
    float saturation;
    float contrast;
} grade;

void to_luma_chroma(vec3 c, out float luma, out vec3 chroma) {
    luma = dot(c, vec3(0.2126, 0.7152, 0.0722));
    chroma = c - vec3(luma);
}

vec3 apply_contrast(vec3 c, float k) {
    if (k == 1.0) {
        return c;
    }
    return clamp((c - 0.5) * k + 0.5, 0.0, 1.0);
}

void main() {
    vec3 c = texture(sampler2D(scene, samp), v_uv).rgb;
    float luma;
    vec3 chroma;
    to_luma_chroma(c, luma, chroma);
    switch (grade.mode) {
    case 0:
        c = vec3(luma) + chroma * grade.saturation;
        break;
    case 1:
        c = vec3(luma);
        break;
    default:
        c = vec3(1.0) - c;
        break;
    }
    o_color = vec4(apply_contrast(c, grade.contrast), 1.0);
}
