#version 450
// Mixed-use registers: a value chosen on one path from float math and on the other from integer
// math (a phi of mixed use), and a vector whose components come from an int and a float.
layout(location = 0) flat in uvec4 v_bits;
layout(location = 0) out uvec4 o_bits;

void main() {
    uvec4 r0 = v_bits;
    uvec4 r1;
    if (r0.w != 0u) {
        r1.x = floatBitsToUint(uintBitsToFloat(r0.x) * 2.0);
    } else {
        r1.x = r0.x << 1;
    }
    r1.y = floatBitsToUint(uintBitsToFloat(r1.x) + 1.0);
    r1.z = r1.x ^ 0x80000000u;
    r1.w = uint(int(r0.y) + 7);
    uvec2 pair = uvec2(r1.w, floatBitsToUint(uintBitsToFloat(r0.z) * 0.25));
    o_bits = uvec4(r1.yz, pair ^ uvec2(3u));
}
