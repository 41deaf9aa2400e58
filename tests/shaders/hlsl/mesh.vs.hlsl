// Vertex shader with a constant buffer and a struct input/output.
cbuffer Camera : register(b0) {
    float4x4 view_proj;
    float4x4 model;
    float3 eye;
    float time;
};

struct VSIn {
    float3 pos : POSITION;
    float3 normal : NORMAL;
    float2 uv : TEXCOORD0;
};

struct VSOut {
    float4 pos : SV_Position;
    float3 normal : NORMAL;
    float2 uv : TEXCOORD0;
    float fade : TEXCOORD1;
};

VSOut main(VSIn input) {
    VSOut o;
    float4 world = mul(model, float4(input.pos, 1.0));
    world.y += sin(time + world.x) * 0.1;
    o.pos = mul(view_proj, world);
    o.normal = normalize(mul((float3x3)model, input.normal));
    o.uv = input.uv;
    o.fade = saturate(1.0 - length(world.xyz - eye) / 100.0);
    return o;
}
