// Tables copied to locals and indexed by data, as HLSL code does (glslang stores the constant
// tables into the locals whole); one local is written after the copy. What O does to locals
// indexed by values it cannot know must compute the same.
static const float weights[4] = { 0.125, 0.25, 0.5, 1.0 };
static const int offsets[4] = { 3, -1, 2, 0 };

RWStructuredBuffer<int> data : register(u0);
RWStructuredBuffer<float> result : register(u1);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float w[4] = weights;
    int o[4] = offsets;
    int k = data[id.x % 64] & 3;
    o[1] = k;
    result[id.x] = w[k] * float(o[k] + o[(k + 1) & 3]);
}
