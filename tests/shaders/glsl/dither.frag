#version 450
// Ordered dithering with a constant matrix, integer math and gl_FragCoord.
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform Dither {
    float levels;
} dither;

const float BAYER[16] = float[16](
    0.0, 8.0, 2.0, 10.0,
    12.0, 4.0, 14.0, 6.0,
    3.0, 11.0, 1.0, 9.0,
    15.0, 7.0, 13.0, 5.0);

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy) & ivec2(3);
    float threshold = (BAYER[p.y * 4 + p.x] + 0.5) / 16.0;
    vec3 scaled = v_color.rgb * (dither.levels - 1.0);
    vec3 q = floor(scaled) + step(vec3(threshold), fract(scaled));
    o_color = vec4(q / (dither.levels - 1.0), v_color.a);
}
