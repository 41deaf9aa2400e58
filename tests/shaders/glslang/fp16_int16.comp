#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
// 16-bit arithmetic and storage.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) buffer Halfs {
    f16vec4 colors[];
};
layout(set = 0, binding = 1, std430) buffer Shorts {
    int16_t deltas[];
};

void main() {
    uint i = gl_GlobalInvocationID.x;
    f16vec4 c = colors[i];
    float16_t gain = float16_t(1.5);
    c.rgb = clamp(c.rgb * gain, float16_t(0.0), float16_t(1.0));
    int16_t d = deltas[i];
    d = d > int16_t(100) ? int16_t(100) : d - int16_t(1);
    deltas[i] = d;
    colors[i] = c + f16vec4(float16_t(d)) * float16_t(0.001);
}
