#version 450
#extension GL_ARB_gpu_shader_int64 : require
// 64-bit integers and doubles.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0, std430) buffer Acc {
    uint64_t hashes[];
};
layout(set = 0, binding = 1, std430) buffer Sums {
    double sums[];
};

uint64_t fnv1a(uint64_t h, uint v) {
    for (int i = 0; i < 4; i++) {
        h ^= uint64_t((v >> (8 * i)) & 0xffu);
        h *= 1099511628211UL;
    }
    return h;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    hashes[i] = fnv1a(14695981039346656037UL, i);
    double s = 0.0LF;
    for (int k = 1; k <= 10; k++) {
        s += 1.0LF / double(k * k);
    }
    sums[i] = s * double(i);
}
