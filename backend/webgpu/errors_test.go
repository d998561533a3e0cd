package webgpu

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/errors"
)

// tableSpec is what each native table must hold: the enum's values from
// webgpu.h (wgpu-native 29), none missing.
var tableSpecs = []struct {
	table   *errors.CodeTable
	prefix  string
	values  []int64
	success string
}{
	{errorTypes, "WGPUErrorType_", []int64{1, 2, 3, 4, 5}, "WGPUErrorType_NoError"},
	{deviceLostReasons, "WGPUDeviceLostReason_", []int64{1, 2, 3, 4}, ""},
	{mapAsyncStatuses, "WGPUMapAsyncStatus_", []int64{1, 2, 3, 4}, "WGPUMapAsyncStatus_Success"},
	{workDoneStatuses, "WGPUQueueWorkDoneStatus_", []int64{1, 2, 3}, "WGPUQueueWorkDoneStatus_Success"},
	{requestAdapterStatuses, "WGPURequestAdapterStatus_", []int64{1, 2, 3, 4}, "WGPURequestAdapterStatus_Success"},
	{requestDeviceStatuses, "WGPURequestDeviceStatus_", []int64{1, 2, 3}, "WGPURequestDeviceStatus_Success"},
	{popErrorScopeStatuses, "WGPUPopErrorScopeStatus_", []int64{1, 2, 3}, "WGPUPopErrorScopeStatus_Success"},
}

func TestCodeTables(t *testing.T) {
	require.Len(t, codeTables, len(tableSpecs), "every table is specified")
	for _, spec := range tableSpecs {
		t.Run(spec.prefix, func(t *testing.T) {
			codes := spec.table.Codes()
			var values []int64
			for _, c := range codes {
				values = append(values, c.Value)
				assert.True(t, strings.HasPrefix(c.Name, spec.prefix), "name %s", c.Name)
				assert.NotEmpty(t, c.Msg, c.Name)
				assert.True(t, unicode.IsLower([]rune(c.Msg)[0]), "message of %s is lower-case: %q", c.Name, c.Msg)
				assert.NotEmpty(t, c.Hint, c.Name)
				assert.False(t, c.Fatal && c.Retryable, "%s is fatal and retryable", c.Name)
				err := spec.table.Err(c.Value, "op")
				if c.Name == spec.success {
					assert.Equal(t, errors.None, c.Category, c.Name)
					assert.NoError(t, err)
					continue
				}
				require.Error(t, err, c.Name)
				assert.NotEqual(t, errors.None, c.Category, c.Name)
				assert.Equal(t, c.Category, errors.CategoryOf(err), c.Name)
				assert.True(t, errors.Is(err, c.Category), c.Name)
				assert.Equal(t, c.Fatal, errors.IsFatal(err), c.Name)
				assert.Equal(t, c.Hint, errors.Hint(err), c.Name)
				msg := err.Error()
				assert.True(t, strings.HasPrefix(msg, "webgpu: op: "), msg)
				assert.Contains(t, msg, "("+c.Name+")")
			}
			assert.Equal(t, spec.values, values, "values of %s", spec.prefix)

			unknown := spec.table.Err(99, "op")
			require.Error(t, unknown)
			assert.Equal(t, errors.Internal, errors.CategoryOf(unknown))
			assert.Contains(t, unknown.Error(), "99")
		})
	}
}

func TestNativeErr(t *testing.T) {
	err := nativeErr(errorTypes, 2, "launch axpy", "wgpu.(*CommandEncoder).TryFinish: Validation Error\n\nCaused by:\n  In wgpuCommandEncoderFinish\n    In a dispatch command, indirect:false\n      Compute pipeline must be set\n", errors.Launch)
	require.Error(t, err)
	assert.Equal(t, errors.Launch, errors.CategoryOf(err))
	assert.Equal(t, "webgpu: launch axpy: validation error: in wgpuCommandEncoderFinish: in a dispatch command, indirect:false: compute pipeline must be set (WGPUErrorType_Validation): "+errors.Hint(err), err.Error())

	oom := nativeErr(errorTypes, 3, "alloc 1.0 GiB", "Out of Memory Error\nCaused by:\n  Not enough memory left.", errors.None)
	assert.Equal(t, errors.OutOfMemory, errors.CategoryOf(oom))
	assert.True(t, errors.IsRetryable(oom))
	assert.Contains(t, oom.Error(), "out of memory: not enough memory left. (WGPUErrorType_OutOfMemory)")

	assert.NoError(t, nativeErr(mapAsyncStatuses, 1, "read", "", errors.None))
	lost := nativeErr(deviceLostReasons, 1, "device lost", "", errors.None)
	assert.Equal(t, errors.DeviceLost, errors.CategoryOf(lost))
	assert.True(t, errors.IsFatal(lost))
}

func TestCondense(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Validation Error", ""},
		{"wgpu.(*Device).TryCreateBuffer: Validation Error\n\nCaused by:\n  In wgpuDeviceCreateBuffer\n    Buffer size 2147483648 is greater than the maximum buffer size (268435456)\n",
			"in wgpuDeviceCreateBuffer: buffer size 2147483648 is greater than the maximum buffer size (268435456)"},
		{"Validation Error\n\nCaused by:\n  In wgpuDeviceCreateShaderModule, label = 'broken'\n    \nShader 'broken' parsing error: no definition in scope for identifier: `x`\n  ┌─ wgsl:1:56\n  │\n1 │ fn f() { x }\n",
			"in wgpuDeviceCreateShaderModule, label = 'broken': shader 'broken' parsing error: no definition in scope for identifier: `x`: at wgsl:1:56"},
		{"WGSL is fine", "WGSL is fine"},
	} {
		assert.Equal(t, tc.want, condense(tc.in), "condense(%q)", tc.in)
	}
	assert.LessOrEqual(t, len(condense(strings.Repeat("word ", 1000))), 2010)
}
