#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// reduce_sum(out buf, x buf, n u32): out[g] = sum of group g's elements of x
layout(set = 0, binding = 0) buffer Out { float outv[]; };
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
layout(push_constant) uniform Params { uint n; } p;

bool inputsFit(uint n) { return uint(x.length()) >= n; }
float term(uint i) { return x[i]; }

#include "reduce.glsl"
