// A debug-view fragment shader built around a switch with several cases and a default.
struct Debug {
    mode: i32,
    scale: f32,
}

@group(0) @binding(0) var<uniform> dbg: Debug;

fn heat(t: f32) -> vec3<f32> {
    return clamp(vec3<f32>(t * 3.0, t * 3.0 - 1.0, t * 3.0 - 2.0), vec3<f32>(0.0), vec3<f32>(1.0));
}

@fragment
fn main(@location(0) normal: vec3<f32>, @location(1) uv: vec2<f32>, @location(2) depth: f32) -> @location(0) vec4<f32> {
    var c: vec3<f32>;
    switch dbg.mode {
        case 0: {
            c = normal * 0.5 + 0.5;
        }
        case 1, 2: {
            c = vec3<f32>(uv, 0.0);
        }
        case 3: {
            c = heat(depth * dbg.scale);
        }
        default: {
            c = vec3<f32>(1.0, 0.0, 1.0);
        }
    }
    return vec4<f32>(c, 1.0);
}
