// Pixel shader with Texture2D + SamplerState, a loop and a branch.
Texture2D albedo : register(t0);
Texture2D detail : register(t1);
SamplerState linear_sampler : register(s0);

cbuffer Material : register(b1) {
    float4 tint;
    float detail_scale;
    int octaves;
};

float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
    float4 c = albedo.Sample(linear_sampler, uv) * tint;
    float d = 0.0;
    float amp = 0.5;
    float2 p = uv * detail_scale;
    for (int i = 0; i < octaves; i++) {
        d += detail.Sample(linear_sampler, p).r * amp;
        p *= 2.0;
        amp *= 0.5;
    }
    if (c.a < 0.5) {
        discard;
    }
    return float4(c.rgb * (0.75 + d * 0.5), c.a);
}
