#pragma shader_stage(fragment)
#version 450
// An edge-detect outline; the stage comes from the pragma because the extension is .glsl.
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform texture2D depth_tex;
layout(set = 0, binding = 1) uniform sampler point_samp;
layout(set = 0, binding = 2) uniform Outline {
    vec4 color;
    vec2 texel;
    float threshold;
} outline;

float depth_at(vec2 uv) {
    return texture(sampler2D(depth_tex, point_samp), uv).r;
}

void main() {
    float c = depth_at(v_uv);
    float dx = abs(depth_at(v_uv + vec2(outline.texel.x, 0.0)) - c);
    float dy = abs(depth_at(v_uv + vec2(0.0, outline.texel.y)) - c);
    float edge = step(outline.threshold, max(dx, dy));
    o_color = vec4(outline.color.rgb, outline.color.a * edge);
}
