#version 450
// A workgroup-local inclusive scan with shared memory and barriers.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Values {
    uint values[];
};
shared uint temp[64];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint gid = gl_GlobalInvocationID.x;
    temp[lid] = values[gid];
    barrier();
    for (uint offset = 1u; offset < 64u; offset *= 2u) {
        uint add = 0u;
        if (lid >= offset) {
            add = temp[lid - offset];
        }
        barrier();
        temp[lid] += add;
        barrier();
    }
    values[gid] = temp[lid];
}
