#version 450
// fill_push: y[i] = value for i < n, grid-stride, with its scalars as push
// constants: the user SPIR-V path TestSPIRVSource checks (the built-ins take
// their scalars in a uniform block). Generated into fill_push.spv by go
// generate (kernels_test.go).
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Params { uint n; float value; } p;

void main() {
    uint n = p.n;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
        y[i] = p.value;
        if (n - i <= stride) break;
    }
}
