// A workgroup sum reduction with workgroup memory, barriers and an atomic total.
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> count: atomic<u32>;

var<workgroup> scratch: array<f32, 128>;

@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>) {
    var v = 0.0;
    if (gid.x < arrayLength(&input)) {
        v = input[gid.x];
    }
    scratch[lid] = v;
    workgroupBarrier();
    var stride = 64u;
    loop {
        if (stride == 0u) {
            break;
        }
        if (lid < stride) {
            scratch[lid] = scratch[lid] + scratch[lid + stride];
        }
        workgroupBarrier();
        stride = stride / 2u;
    }
    if (lid == 0u) {
        partial[wid.x] = scratch[0];
        atomicAdd(&count, 1u);
    }
}
