#version 450
// Dynamically indexed local arrays and gl_FragCoord.
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform Palette {
    vec4 colors[8];
    int count;
} pal;

void main() {
    vec4 local[8];
    for (int i = 0; i < 8; i++) {
        local[i] = pal.colors[(i + pal.count) & 7];
    }
    ivec2 p = ivec2(gl_FragCoord.xy) / 16;
    int idx = (p.x + p.y * 3) % 8;
    vec4 c = local[idx];
    float checker = float((p.x ^ p.y) & 1);
    o_color = mix(c, local[7 - idx], checker * 0.25);
}
