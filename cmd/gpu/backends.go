package main

// The gpu tool links every backend.
import _ "github.com/anygpu/gpu/backend/all"
