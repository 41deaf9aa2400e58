// Matrix work in a compute shader: transposes, products and a storage matrix array.
struct Bones {
    mats: array<mat4x4<f32>, 64>,
}

@group(0) @binding(0) var<storage, read> bones: Bones;
@group(0) @binding(1) var<storage, read_write> normals: array<mat3x3<f32>>;

fn normal_matrix(m: mat4x4<f32>) -> mat3x3<f32> {
    let m3 = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz);
    // For rotation-and-uniform-scale transforms the inverse transpose is a rescale.
    let s = dot(m3[0], m3[0]);
    return transpose(transpose(m3)) * (1.0 / s);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= 64u) {
        return;
    }
    let m = bones.mats[i] * bones.mats[(i + 1u) % 64u];
    normals[i] = normal_matrix(m);
}
