// Point lights from a storage buffer of structs, with continue and an early exit.
struct Light {
    position: vec3<f32>,
    radius: f32,
    color: vec3<f32>,
    intensity: f32,
}

struct Frame {
    light_count: u32,
    ambient: f32,
}

@group(0) @binding(0) var<storage, read> lights: array<Light>;
@group(0) @binding(1) var<uniform> frame: Frame;

fn attenuate(d: f32, r: f32) -> f32 {
    let x = clamp(1.0 - (d / r) * (d / r), 0.0, 1.0);
    return x * x;
}

@fragment
fn main(@location(0) world: vec3<f32>, @location(1) normal: vec3<f32>) -> @location(0) vec4<f32> {
    let n = normalize(normal);
    var total = vec3<f32>(frame.ambient);
    for (var i = 0u; i < frame.light_count; i = i + 1u) {
        let light = lights[i];
        let to_light = light.position - world;
        let d = length(to_light);
        if (d > light.radius) {
            continue;
        }
        let ndl = max(dot(n, to_light / d), 0.0);
        total = total + light.color * light.intensity * ndl * attenuate(d, light.radius);
        if (all(total > vec3<f32>(4.0))) {
            break;
        }
    }
    return vec4<f32>(total, 1.0);
}
