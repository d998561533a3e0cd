#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// dot(out buf, x buf, y buf, n u32): out[g] = sum of x[i]*y[i] over group g's elements
layout(set = 0, binding = 0) buffer Out { float outv[]; };
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
layout(set = 0, binding = 2) readonly buffer Y { float y[]; };
layout(push_constant) uniform Params { uint n; } p;

bool inputsFit(uint n) { return uint(x.length()) >= n && uint(y.length()) >= n; }
float term(uint i) { return x[i] * y[i]; }

#include "reduce.glsl"
