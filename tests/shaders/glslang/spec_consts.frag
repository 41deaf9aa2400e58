#version 450
// Specialization constants: sample count and a feature switch decided at pipeline creation.
layout(constant_id = 0) const int SAMPLES = 4;
layout(constant_id = 1) const bool USE_GAMMA = true;
layout(constant_id = 2) const float BIAS = 0.01;
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform sampler2D shadow_map;

void main() {
    float lit = 0.0;
    for (int i = 0; i < SAMPLES; i++) {
        vec2 off = vec2(float(i % 2), float(i / 2)) / 1024.0;
        lit += texture(shadow_map, v_uv + off).r > 0.5 - BIAS ? 1.0 : 0.0;
    }
    vec3 c = vec3(lit / float(SAMPLES));
    if (USE_GAMMA) {
        c = pow(c, vec3(1.0 / 2.2));
    }
    o_color = vec4(c, 1.0);
}
