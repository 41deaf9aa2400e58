#version 450
// A translated loop: the counter and the accumulator live in one register, read as int for the
// compare and as float for the math; the trip count arrives as raw bits in a constant buffer.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
layout(set = 0, binding = 1) uniform CB0 { uvec4 cb0; };

void main() {
    uvec4 r0;
    r0.x = 0u;
    r0.y = floatBitsToUint(0.0);
    r0.z = gl_GlobalInvocationID.x;
    while (int(r0.x) < int(cb0.x)) {
        r0.w = data[r0.z + r0.x];
        r0.y = floatBitsToUint(uintBitsToFloat(r0.y) + uintBitsToFloat(r0.w) * uintBitsToFloat(cb0.y));
        r0.x = uint(int(r0.x) + 1);
    }
    // Results go past the inputs, so no invocation reads what another writes.
    data[r0.z + 2048u] = floatBitsToUint(uintBitsToFloat(r0.y) * 0.5);
}
