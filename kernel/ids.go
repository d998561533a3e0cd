package kernel

// The thread and group indices and sizes of the running thread, all uint32.
// X varies fastest. A translated kernel reads them from the launch: the
// block of a Launch is the group size, its grid the number of groups. Outside
// a translated kernel they return 0.

// ThreadX is the thread's x index within its group (0 ≤ ThreadX < GroupSizeX).
func ThreadX() uint32 { return 0 }

// ThreadY is the thread's y index within its group.
func ThreadY() uint32 { return 0 }

// ThreadZ is the thread's z index within its group.
func ThreadZ() uint32 { return 0 }

// ThreadIndex is the thread's linear index within its group, x fastest:
// ThreadX + GroupSizeX*(ThreadY + GroupSizeY*ThreadZ).
func ThreadIndex() uint32 { return 0 }

// GroupX is the group's x index within the grid.
func GroupX() uint32 { return 0 }

// GroupY is the group's y index within the grid.
func GroupY() uint32 { return 0 }

// GroupZ is the group's z index within the grid.
func GroupZ() uint32 { return 0 }

// GroupSizeX is the number of threads of a group along x (the launch's block).
func GroupSizeX() uint32 { return 0 }

// GroupSizeY is the number of threads of a group along y.
func GroupSizeY() uint32 { return 0 }

// GroupSizeZ is the number of threads of a group along z.
func GroupSizeZ() uint32 { return 0 }

// GridX is the number of groups along x (the launch's grid).
func GridX() uint32 { return 0 }

// GridY is the number of groups along y.
func GridY() uint32 { return 0 }

// GridZ is the number of groups along z.
func GridZ() uint32 { return 0 }

// GlobalX is GroupX*GroupSizeX + ThreadX: the thread's x index in the launch.
func GlobalX() uint32 { return 0 }

// GlobalY is GroupY*GroupSizeY + ThreadY.
func GlobalY() uint32 { return 0 }

// GlobalZ is GroupZ*GroupSizeZ + ThreadZ.
func GlobalZ() uint32 { return 0 }

// Barrier waits until every thread of the group reaches it, and makes the
// group's writes to shared arrays and buffers visible to the whole group.
// Every thread of a group must reach the same Barrier: it may sit inside
// loops and ifs only where their conditions are the same for the whole
// group (they depend on parameters, constants, group indices and sizes).
func Barrier() {}

// Shared returns the work-group shared array of type T (an array of a
// constant size, such as [256]float32 or [16][17]float32). Every thread of a
// group sees the same array; its contents start undefined. Call it at the
// top level of a kernel, in a declaration: tile := kernel.Shared[[256]float32]().
func Shared[T any]() *T { return new(T) }
