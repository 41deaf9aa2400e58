// Value noise with integer hashing: bitcasts, shifts and xors, fbm over octaves.
fn hash(p: vec2<u32>) -> u32 {
    var h = p.x * 0x8da6b343u ^ p.y * 0xd8163841u;
    h = (h ^ (h >> 13u)) * 0x2c1b3c6du;
    return h ^ (h >> 16u);
}

fn to_unit(h: u32) -> f32 {
    // The high mantissa bits of a float in [1, 2).
    return bitcast<f32>((h >> 9u) | 0x3f800000u) - 1.0;
}

fn value_noise(p: vec2<f32>) -> f32 {
    let i = vec2<u32>(bitcast<u32>(i32(floor(p.x))), bitcast<u32>(i32(floor(p.y))));
    let f = fract(p);
    let u = f * f * (3.0 - 2.0 * f);
    let a = to_unit(hash(i));
    let b = to_unit(hash(i + vec2<u32>(1u, 0u)));
    let c = to_unit(hash(i + vec2<u32>(0u, 1u)));
    let d = to_unit(hash(i + vec2<u32>(1u, 1u)));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}

@fragment
fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    var sum = 0.0;
    var amp = 0.5;
    var p = uv * 8.0;
    for (var o = 0; o < 5; o = o + 1) {
        sum = sum + value_noise(p) * amp;
        p = p * 2.0;
        amp = amp * 0.5;
    }
    return vec4<f32>(vec3<f32>(sum), 1.0);
}
