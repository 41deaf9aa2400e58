#version 450
// Particle update with shared-memory reduction, barriers and atomics.
layout(local_size_x = 64) in;

struct Particle {
    vec4 pos_life;
    vec4 vel_mass;
};

layout(set = 0, binding = 0, std430) buffer Particles {
    Particle particles[];
};

layout(set = 0, binding = 1, std430) buffer Stats {
    uint alive;
    uint max_speed_bits;
    float total_energy;
} stats;

layout(set = 0, binding = 2, std140) uniform Sim {
    vec4 gravity_dt;
    uint count;
} sim;

shared float energy[64];

void main() {
    uint id = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationID.x;
    float e = 0.0;
    if (id < sim.count) {
        Particle p = particles[id];
        if (p.pos_life.w > 0.0) {
            p.vel_mass.xyz += sim.gravity_dt.xyz * sim.gravity_dt.w;
            p.pos_life.xyz += p.vel_mass.xyz * sim.gravity_dt.w;
            p.pos_life.w -= sim.gravity_dt.w;
            float speed = length(p.vel_mass.xyz);
            atomicAdd(stats.alive, 1u);
            atomicMax(stats.max_speed_bits, floatBitsToUint(speed));
            e = 0.5 * p.vel_mass.w * speed * speed;
            particles[id] = p;
        }
    }
    energy[lid] = e;
    barrier();
    for (uint stride = 32u; stride > 0u; stride >>= 1) {
        if (lid < stride) {
            energy[lid] += energy[lid + stride];
        }
        barrier();
    }
    if (lid == 0u) {
        stats.total_energy += energy[0];
    }
}
