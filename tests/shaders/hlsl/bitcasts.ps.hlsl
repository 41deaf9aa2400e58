// The register-reinterpreting style of D3D bytecode translators: every value goes through
// asint/asuint/asfloat on its way between "registers".
cbuffer cb0 : register(b0) {
    float4 cb0_0;
    float4 cb0_1;
};

float4 main(float4 v0 : TEXCOORD0, float4 v1 : TEXCOORD1) : SV_Target {
    float4 r0, r1, r2;
    r0.x = asfloat(asint(v0.x) + 0);
    r0.y = asfloat(asuint(v0.y) ^ 0x80000000u);
    r1.xyzw = asfloat(asint(cb0_0.xyzw));
    r0.z = dot(asfloat(asint(r1.xyz)), asfloat(asint(v1.xyz)));
    r0.w = asfloat(asint(r0.z) < asint(cb0_1.x) ? 0xffffffff : 0);
    r2.x = asfloat(asuint(r0.w) & asuint(cb0_1.y));
    r2.y = asfloat(asint(asfloat(asint(v0.z) >> 1)) + 0x1fbd1df5);
    r2.z = asfloat((asuint(v1.w) & 0x007fffffu) | 0x3f800000u) - 1.0;
    r2.w = asfloat(asint(max(asfloat(asint(r0.x)), asfloat(asint(r0.y)))));
    return asfloat(asint(float4(r2.x + r0.z, r2.y, r2.z, r2.w)));
}
