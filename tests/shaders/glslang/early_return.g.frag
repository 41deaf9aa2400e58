#version 450
// Early returns from helpers and from main, ternaries that become phis or selects.
layout(location = 0) in vec3 v_n;
layout(location = 1) in float v_depth;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform Fog { vec4 color; float start; float end; } fog;

float fog_factor(float d) {
    if (d <= fog.start) {
        return 0.0;
    }
    if (d >= fog.end) {
        return 1.0;
    }
    return (d - fog.start) / (fog.end - fog.start);
}

void main() {
    float f = fog_factor(v_depth);
    if (f >= 1.0) {
        o_color = fog.color;
        return;
    }
    vec3 n = normalize(v_n);
    float light = n.y > 0.0 ? n.y : 0.2 * abs(n.y);
    vec3 c = vec3(light) * (n.x < 0.0 ? vec3(0.9, 0.9, 1.0) : vec3(1.0, 0.95, 0.9));
    o_color = vec4(mix(c, fog.color.rgb, f), 1.0);
}
