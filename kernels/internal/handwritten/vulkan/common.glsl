// Shared by the built-in kernels of the Vulkan backend (kernels/dialect_spirv.go).
//
// The work-group size is specialization constants 0, 1 and 2, so one SPIR-V
// module runs with any block size (the backend builds a pipeline per block).
// Buffers bind at set 0, bindings 0..n-1 in argument order; scalars are a
// push-constant block packed as backend.PackScalars lays them out.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

// skip1D: one-dimensional ops use the x dimension only; work items whose y
// or z index (of the thread or of the group) is not zero do nothing.
bool skip1D() {
    return gl_WorkGroupID.y != 0u || gl_WorkGroupID.z != 0u ||
           gl_LocalInvocationID.y != 0u || gl_LocalInvocationID.z != 0u;
}

// first1D and stride1D: thread t of group g handles i = c*G*B + g*B + t.
uint first1D() { return gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x; }
uint stride1D() { return gl_NumWorkGroups.x * gl_WorkGroupSize.x; }

// fits reports whether rows*cols elements fit in len, without overflow.
bool fits(uint len, uint rows, uint cols) { return rows == 0u || cols <= len / rows; }
