// Package egl is a minimal binding of EGL 1.4/1.5 and the extensions a
// headless compute context needs (EGL_EXT_platform_base,
// EGL_EXT_platform_device, EGL_EXT_device_enumeration, EGL_EXT_device_query,
// EGL_MESA_platform_surfaceless, EGL_KHR_create_context,
// EGL_KHR_surfaceless_context, EGL_KHR_no_config_context), for desktop
// OpenGL and OpenGL ES contexts alike: libEGL.so.1 is
// opened at run time through internal/dl, never linked, so a binary that
// imports this package builds with CGO_ENABLED=0 and starts on a machine
// without EGL.
//
// The binding is built on Linux only; elsewhere the package is empty and the
// OpenGL backend reports that it is not available.
package egl
