#version 450
// copy16: the Vulkan backend's device-to-device copy as a compute kernel,
// used for large copies whose offsets and size are multiples of 16 bytes
// (ANYGPU_VULKAN_D2D): d[dst + i] = s[src + i] for i < n, in 16-byte words.
// Generated into copy16.spv by go generate (backend/vulkan/kernels.go).
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) writeonly buffer D { uvec4 d[]; };
layout(set = 0, binding = 1) readonly buffer S { uvec4 s[]; };
layout(push_constant) uniform Params { uint dst; uint src; uint n; } p;

void main() {
    uint n = p.n;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
        d[p.dst + i] = s[p.src + i];
        if (n - i <= stride) break;
    }
}
