#version 450
// Tone-mapping operators chosen by a switch with fallthrough; separate texture and sampler.
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform texture2D hdr;
layout(set = 0, binding = 1) uniform sampler samp;
layout(set = 0, binding = 2) uniform Params {
    int op;
    float exposure;
    float white;
} params;

vec3 reinhard(vec3 c) { return c / (1.0 + c); }
vec3 uncharted(vec3 x) {
    const float A = 0.15, B = 0.50, C = 0.10, D = 0.20, E = 0.02, F = 0.30;
    return ((x * (A * x + C * B) + D * E) / (x * (A * x + B) + D * F)) - E / F;
}

void main() {
    vec3 c = texture(sampler2D(hdr, samp), v_uv).rgb * params.exposure;
    vec3 outc;
    switch (params.op) {
    case 0:
        outc = c;
        break;
    case 1:
        c *= 1.2;
        // fallthrough
    case 2:
        outc = reinhard(c);
        break;
    case 3:
        outc = uncharted(c) / uncharted(vec3(params.white));
        break;
    default:
        outc = vec3(1.0, 0.0, 1.0);
        break;
    }
    o_color = vec4(pow(outc, vec3(1.0 / 2.2)), 1.0);
}
