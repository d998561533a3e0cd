package cuda

// LaunchCopiesArgs tells the root package that Launch is done with its
// argument slice when it returns: the values are copied into the stream's
// parameter block, which cuLaunchKernel copies before it returns. The root
// package then passes the arguments in reused memory, allocating nothing per
// launch.
func (s *stream) LaunchCopiesArgs() bool { return true }
