#version 450
// As a DXBC-to-GLSL translator writes it: every register is a uvec4 of raw bits, and every use
// reinterprets them (uintBitsToFloat / floatBitsToUint) for the op at hand.
layout(location = 0) in vec4 v_normal;
layout(location = 1) in vec4 v_light;
layout(location = 2) in vec4 v_color;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform CB0 { uvec4 cb0[4]; };

void main() {
    uvec4 r0, r1, r2;
    r0.xyz = floatBitsToUint(normalize(v_normal.xyz));
    r1.xyz = floatBitsToUint(normalize(v_light.xyz));
    r0.w = floatBitsToUint(dot(uintBitsToFloat(r0.xyz), uintBitsToFloat(r1.xyz)));
    r0.w = floatBitsToUint(max(uintBitsToFloat(r0.w), 0.0));
    r1.x = floatBitsToUint(uintBitsToFloat(r0.w) * uintBitsToFloat(cb0[0].x));
    r1.y = floatBitsToUint(uintBitsToFloat(r0.w) * uintBitsToFloat(cb0[0].y));
    r1.z = floatBitsToUint(uintBitsToFloat(r0.w) * uintBitsToFloat(cb0[0].z));
    r2 = floatBitsToUint(v_color);
    r1.xyz = floatBitsToUint(uintBitsToFloat(r1.xyz) * uintBitsToFloat(r2.xyz)
                             + uintBitsToFloat(cb0[1].xyz));
    r1.w = r2.w;
    o_color = uintBitsToFloat(r1);
}
