// Storage texture loads and atomics into a histogram, with a nested loop.
@group(0) @binding(0) var img: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 64>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(img);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    var acc = 0.0;
    for (var dy = 0; dy < 2; dy = dy + 1) {
        for (var dx = 0; dx < 2; dx = dx + 1) {
            let p = min(vec2<i32>(gid.xy) + vec2<i32>(dx, dy), vec2<i32>(size) - vec2<i32>(1));
            acc = acc + dot(textureLoad(img, p, 0).rgb, vec3<f32>(0.2126, 0.7152, 0.0722));
        }
    }
    let bin = u32(clamp(acc * 0.25, 0.0, 0.999) * 64.0);
    atomicAdd(&bins[bin], 1u);
}
