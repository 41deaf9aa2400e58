// Branch-free code with select() and bit reinterpretation, as in packing helpers.
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> packed: array<u32>;

fn pack_unorm(v: vec4<f32>) -> u32 {
    let c = vec4<u32>(clamp(v, vec4<f32>(0.0), vec4<f32>(1.0)) * 255.0 + 0.5);
    return c.x | (c.y << 8u) | (c.z << 16u) | (c.w << 24u);
}

fn sign_bit(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x80000000u) != 0u;
}

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = src[gid.x];
    let flipped = select(v, -v, sign_bit(v.w));
    let biased = select(flipped, flipped + vec4<f32>(0.5), flipped < vec4<f32>(0.0));
    packed[gid.x] = pack_unorm(biased) ^ select(0u, 0xffu, sign_bit(v.x));
}
