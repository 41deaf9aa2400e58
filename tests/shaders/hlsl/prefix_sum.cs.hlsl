// Compute shader: RWStructuredBuffer, groupshared memory and a Hillis-Steele scan.
RWStructuredBuffer<uint> values : register(u0);
groupshared uint scratch[256];

[numthreads(256, 1, 1)]
void main(uint3 gid : SV_GroupID, uint3 tid : SV_GroupThreadID) {
    uint base = gid.x * 256;
    scratch[tid.x] = values[base + tid.x];
    GroupMemoryBarrierWithGroupSync();
    for (uint offset = 1; offset < 256; offset <<= 1) {
        uint v = tid.x >= offset ? scratch[tid.x - offset] : 0;
        GroupMemoryBarrierWithGroupSync();
        scratch[tid.x] += v;
        GroupMemoryBarrierWithGroupSync();
    }
    values[base + tid.x] = scratch[tid.x];
}
