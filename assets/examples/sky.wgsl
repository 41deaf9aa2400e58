// A procedural sky: a vertex stage is elsewhere; this is the fragment stage with helpers.
struct Sky {
    sun_dir: vec3<f32>,
    turbidity: f32,
    zenith: vec3<f32>,
    horizon_blend: f32,
}

@group(0) @binding(0) var<uniform> sky: Sky;

fn rayleigh(cos_theta: f32) -> f32 {
    return 0.75 * (1.0 + cos_theta * cos_theta);
}

fn mie(cos_theta: f32, g: f32) -> f32 {
    let g2 = g * g;
    return (1.0 - g2) / pow(1.0 + g2 - 2.0 * g * cos_theta, 1.5);
}

@fragment
fn main(@location(0) dir: vec3<f32>) -> @location(0) vec4<f32> {
    let d = normalize(dir);
    let cos_theta = dot(d, normalize(sky.sun_dir));
    let up = clamp(d.y, 0.0, 1.0);
    let base = mix(vec3<f32>(0.9, 0.85, 0.8), sky.zenith, pow(up, sky.horizon_blend));
    let glow = vec3<f32>(1.0, 0.9, 0.7) * mie(cos_theta, 0.76) * 0.02 * sky.turbidity;
    return vec4<f32>(base * rayleigh(cos_theta) + glow, 1.0);
}
