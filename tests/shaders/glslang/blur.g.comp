#version 450
// Separable Gaussian blur through shared memory, with debug info (-g).
layout(local_size_x = 128) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform P { int horizontal; } pc;
const int R = 4;
const float W[5] = float[](0.227027, 0.1945946, 0.1216216, 0.054054, 0.016216);
shared vec4 line[128 + 2 * R];

void main() {
    ivec2 size = imageSize(src);
    int i = int(gl_LocalInvocationID.x);
    ivec2 base = pc.horizontal != 0 ? ivec2(gl_WorkGroupID.x * 128u, gl_WorkGroupID.y) : ivec2(gl_WorkGroupID.y, gl_WorkGroupID.x * 128u);
    ivec2 dir = pc.horizontal != 0 ? ivec2(1, 0) : ivec2(0, 1);
    for (int k = i; k < 128 + 2 * R; k += 128) {
        ivec2 p = clamp(base + dir * (k - R), ivec2(0), size - 1);
        line[k] = imageLoad(src, p);
    }
    barrier();
    vec4 sum = line[i + R] * W[0];
    for (int k = 1; k <= R; k++) {
        sum += (line[i + R - k] + line[i + R + k]) * W[k];
    }
    imageStore(dst, base + dir * i, sum);
}
