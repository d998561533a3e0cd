package errors_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/errors"
)

// The tables were written from lists of every code the native headers
// define (name, value, versions that have it), kept in testdata/*.tsv: a
// table must hold exactly the codes of its list. When a new CUDA or NVRTC
// adds codes, add them to the list and the table together.

// nativeTable is one native code table as the tests see it.
type nativeTable struct {
	name     string
	backend  string
	prefix   string   // every name starts with it
	success  string   // name of the value-0 success code
	facts    string   // testdata file listing every code: name, value, versions
	internal []string // the only codes allowed in category Internal
	codes    func() []errors.Code
	lookup   func(int64) (errors.Code, bool)
	from     func(int64, string) error
}

var nativeTables = []nativeTable{
	{
		name: "CUresult", backend: "cuda", prefix: "CUDA_ERROR_", success: "CUDA_SUCCESS",
		facts:    "testdata/cuda-result-codes.tsv",
		internal: []string{"CUDA_ERROR_OPERATING_SYSTEM", "CUDA_ERROR_UNKNOWN"},
		codes:    errors.CUDACodes, lookup: errors.CUDACode, from: errors.FromCUDA,
	},
	{
		name: "nvrtcResult", backend: "nvrtc", prefix: "NVRTC_ERROR_", success: "NVRTC_SUCCESS",
		facts:    "testdata/nvrtc-result-codes.tsv",
		internal: []string{"NVRTC_ERROR_INTERNAL_ERROR"},
		codes:    errors.NVRTCCodes, lookup: errors.NVRTCCode, from: errors.FromNVRTC,
	},
}

// readFacts reads a code list: lines "name<TAB>value<TAB>versions" after a
// header line, '#' lines being comments.
func readFacts(t *testing.T, path string) map[string]int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]int64{}
	header := true
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if header {
			header = false
			continue
		}
		f := strings.Split(line, "\t")
		require.GreaterOrEqual(t, len(f), 2, "line %q", line)
		v, err := strconv.ParseInt(f[1], 10, 64)
		require.NoError(t, err, "line %q", line)
		out[f[0]] = v
	}
	require.NotEmpty(t, out)
	return out
}

func TestCodeTables(t *testing.T) {
	for _, tab := range nativeTables {
		t.Run(tab.name, func(t *testing.T) {
			codes := tab.codes()
			want := readFacts(t, tab.facts)
			got := map[string]int64{}
			for _, c := range codes {
				got[c.Name] = c.Value
			}
			assert.Equal(t, want, got, "the table holds exactly the codes of %s", tab.facts)

			values := map[int64]string{}
			names := map[string]bool{}
			for i, c := range codes {
				if i > 0 {
					assert.Less(t, codes[i-1].Value, c.Value, "codes are sorted by value and unique")
				}
				if prev, dup := values[c.Value]; dup {
					t.Errorf("value %d used by %s and %s", c.Value, prev, c.Name)
				}
				values[c.Value] = c.Name
				assert.False(t, names[c.Name], "duplicate name %s", c.Name)
				names[c.Name] = true

				got, ok := tab.lookup(c.Value)
				require.True(t, ok, "lookup of %s", c.Name)
				assert.Equal(t, c, got)
			}
			for _, name := range tab.internal {
				assert.True(t, names[name], "allowed-internal code %s is in the table", name)
			}
			assert.True(t, names[tab.success], "success code %s is in the table", tab.success)
		})
	}
}

func TestCodeEntries(t *testing.T) {
	for _, tab := range nativeTables {
		for _, c := range tab.codes() {
			t.Run(c.Name, func(t *testing.T) {
				// Name.
				if c.Value == 0 {
					assert.Equal(t, tab.success, c.Name)
				} else {
					assert.True(t, strings.HasPrefix(c.Name, tab.prefix), "name starts with %s", tab.prefix)
				}
				assert.Equal(t, strings.ToUpper(c.Name), c.Name, "name is upper case")
				assert.Equal(t, c.Name, c.String())

				// Category: None exactly for success, Internal only where allowed.
				assert.Equal(t, c.Value == 0, c.Category == errors.None, "None iff success")
				assert.Equal(t, c.Value == 0, c.IsSuccess())
				assert.Equal(t, contains(tab.internal, c.Name), c.Category == errors.Internal,
					"category %v: Internal only for codes that really are internal", c.Category)
				if c.Value == 0 {
					return
				}
				assert.Contains(t, errors.Categories(), c.Category, "a known category")

				// Flags are consistent with each other and the category.
				assert.False(t, c.Fatal && c.Retryable, "fatal codes are not retryable")
				if c.Category == errors.DeviceLost {
					assert.True(t, c.Fatal, "a lost device is fatal")
				}

				checkText(t, "message", c.Msg)
				checkText(t, "hint", c.Hint)
				assert.NotEqual(t, c.Msg, c.Hint)
				assert.NotEqual(t, c.Category.DefaultHint(), c.Hint, "hint specific to the code")
				assert.GreaterOrEqual(t, len(c.Hint), 20, "hint says something useful")

				// FromX fills an *Error from the entry.
				err := tab.from(c.Value, "op")
				require.Error(t, err)
				var e *errors.Error
				require.True(t, errors.As(err, &e))
				assert.Equal(t, errors.Error{
					Backend: tab.backend, Op: "op", Code: c.Value, Name: c.Name,
					Category: c.Category, Retryable: c.Retryable, Fatal: c.Fatal,
					Msg: c.Msg, Hint: c.Hint,
				}, *e)
				assert.ErrorIs(t, err, c.Category)
				assert.Equal(t, c.Category, errors.CategoryOf(err))
				assert.Equal(t, c.Fatal, errors.IsFatal(err))
				assert.Equal(t, c.Retryable, errors.IsRetryable(err))
				assert.Equal(t, c.Hint, errors.Hint(err))
				assert.Equal(t, tab.backend+": op: "+c.Msg+" ("+c.Name+"): "+c.Hint, err.Error())
			})
		}
	}
}

// checkText requires s to be a lower-case phrase: not empty, no leading
// capital (an acronym such as "NVRTC" or "GPU" may start it), no trailing full
// stop, a single line without surrounding spaces.
func checkText(t *testing.T, what, s string) {
	t.Helper()
	require.NotEmpty(t, s, what)
	first, _, _ := strings.Cut(s, " ")
	r, _ := utf8.DecodeRuneInString(first)
	acronym := len(first) > 1 && strings.ToUpper(first) == first
	assert.True(t, !unicode.IsUpper(r) || acronym, "%s %q starts lower-case", what, s)
	assert.False(t, strings.HasSuffix(s, "."), "%s %q has no trailing full stop", what, s)
	assert.NotContains(t, s, "\n", what)
	assert.Equal(t, strings.TrimSpace(s), s, what)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestCodeSpotChecks(t *testing.T) {
	tests := []struct {
		name      string
		lookup    func(int64) (errors.Code, bool)
		value     int64
		wantName  string
		cat       errors.Category
		retryable bool
		fatal     bool
	}{
		{"cuda out of memory", errors.CUDACode, 2, "CUDA_ERROR_OUT_OF_MEMORY", errors.OutOfMemory, true, false},
		{"cuda invalid value", errors.CUDACode, 1, "CUDA_ERROR_INVALID_VALUE", errors.InvalidArgument, false, false},
		{"cuda stub library", errors.CUDACode, 34, "CUDA_ERROR_STUB_LIBRARY", errors.Unavailable, false, false},
		{"cuda no device", errors.CUDACode, 100, "CUDA_ERROR_NO_DEVICE", errors.Unavailable, false, false},
		{"cuda no binary", errors.CUDACode, 209, "CUDA_ERROR_NO_BINARY_FOR_GPU", errors.Compilation, false, false},
		{"cuda ecc", errors.CUDACode, 214, "CUDA_ERROR_ECC_UNCORRECTABLE", errors.DeviceLost, false, true},
		{"cuda not found", errors.CUDACode, 500, "CUDA_ERROR_NOT_FOUND", errors.InvalidArgument, false, false},
		{"cuda not ready", errors.CUDACode, 600, "CUDA_ERROR_NOT_READY", errors.Timeout, true, false},
		{"cuda illegal address", errors.CUDACode, 700, "CUDA_ERROR_ILLEGAL_ADDRESS", errors.Execution, false, true},
		{"cuda out of resources", errors.CUDACode, 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", errors.Launch, false, false},
		{"cuda launch timeout", errors.CUDACode, 702, "CUDA_ERROR_LAUNCH_TIMEOUT", errors.Timeout, false, true},
		{"cuda context destroyed", errors.CUDACode, 709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", errors.DeviceLost, false, true},
		{"cuda assert", errors.CUDACode, 710, "CUDA_ERROR_ASSERT", errors.Execution, false, true},
		{"cuda hardware stack", errors.CUDACode, 714, "CUDA_ERROR_HARDWARE_STACK_ERROR", errors.Execution, false, true},
		{"cuda illegal instruction", errors.CUDACode, 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", errors.Execution, false, true},
		{"cuda misaligned", errors.CUDACode, 716, "CUDA_ERROR_MISALIGNED_ADDRESS", errors.Execution, false, true},
		{"cuda address space", errors.CUDACode, 717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", errors.Execution, false, true},
		{"cuda invalid pc", errors.CUDACode, 718, "CUDA_ERROR_INVALID_PC", errors.Execution, false, true},
		{"cuda launch failed", errors.CUDACode, 719, "CUDA_ERROR_LAUNCH_FAILED", errors.Execution, false, true},
		{"cuda not supported", errors.CUDACode, 801, "CUDA_ERROR_NOT_SUPPORTED", errors.NotSupported, false, false},
		{"cuda timeout", errors.CUDACode, 909, "CUDA_ERROR_TIMEOUT", errors.Timeout, true, false},
		{"cuda unknown", errors.CUDACode, 999, "CUDA_ERROR_UNKNOWN", errors.Internal, false, false},
		{"nvrtc out of memory", errors.NVRTCCode, 1, "NVRTC_ERROR_OUT_OF_MEMORY", errors.OutOfMemory, true, false},
		{"nvrtc invalid option", errors.NVRTCCode, 5, "NVRTC_ERROR_INVALID_OPTION", errors.InvalidArgument, false, false},
		{"nvrtc compilation", errors.NVRTCCode, 6, "NVRTC_ERROR_COMPILATION", errors.Compilation, false, false},
		{"nvrtc builtins", errors.NVRTCCode, 7, "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE", errors.Unavailable, false, false},
		{"nvrtc internal", errors.NVRTCCode, 11, "NVRTC_ERROR_INTERNAL_ERROR", errors.Internal, false, false},
		{"nvrtc cancelled", errors.NVRTCCode, 16, "NVRTC_ERROR_CANCELLED", errors.Timeout, false, false},
		{"nvrtc time trace", errors.NVRTCCode, 17, "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED", errors.InvalidArgument, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := tt.lookup(tt.value)
			require.True(t, ok)
			assert.Equal(t, tt.wantName, c.Name)
			assert.Equal(t, tt.value, c.Value)
			assert.Equal(t, tt.cat, c.Category)
			assert.Equal(t, tt.retryable, c.Retryable, "retryable")
			assert.Equal(t, tt.fatal, c.Fatal, "fatal")
		})
	}
}

func TestCodeHintsMentionTheFix(t *testing.T) {
	// A few hints whose whole point is a specific remedy.
	tests := []struct {
		lookup func(int64) (errors.Code, bool)
		value  int64
		want   []string
	}{
		{errors.CUDACode, 34, []string{"LD_LIBRARY_PATH", "ANYGPU_CUDA_LIBRARY", "libcuda.so.1"}},
		{errors.CUDACode, 2, []string{"smaller batch"}},
		{errors.CUDACode, 700, []string{"restart the process"}},
		{errors.CUDACode, 209, []string{"sm_XX"}},
		{errors.NVRTCCode, 6, []string{"errors.LogOf"}},
		{errors.NVRTCCode, 7, []string{"libnvrtc-builtins"}},
	}
	for _, tt := range tests {
		c, ok := tt.lookup(tt.value)
		require.True(t, ok)
		for _, w := range tt.want {
			assert.Contains(t, c.Hint, w, c.Name)
		}
	}
}

func TestFromSuccessIsNil(t *testing.T) {
	assert.NoError(t, errors.FromCUDA(0, "alloc"))
	assert.NoError(t, errors.FromNVRTC(0, "compile"))
	assert.Nil(t, errors.FromCUDA(0, "alloc"), "untyped nil, not a nil *Error")
}

func TestFromUnknownCode(t *testing.T) {
	tests := []struct {
		from     func(int64, string) error
		lookup   func(int64) (errors.Code, bool)
		value    int64
		backend  string
		wantName string
	}{
		{errors.FromCUDA, errors.CUDACode, 12345, "cuda", "CUDA_ERROR_UNKNOWN_CODE_12345"},
		{errors.FromCUDA, errors.CUDACode, -1, "cuda", "CUDA_ERROR_UNKNOWN_CODE_-1"},
		{errors.FromCUDA, errors.CUDACode, 9, "cuda", "CUDA_ERROR_UNKNOWN_CODE_9"},
		{errors.FromNVRTC, errors.NVRTCCode, 18, "nvrtc", "NVRTC_ERROR_UNKNOWN_CODE_18"},
	}
	for _, tt := range tests {
		t.Run(tt.wantName, func(t *testing.T) {
			_, ok := tt.lookup(tt.value)
			require.False(t, ok, "value is not in the table")

			err := tt.from(tt.value, "probe")
			require.Error(t, err)
			var e *errors.Error
			require.True(t, errors.As(err, &e))
			assert.Equal(t, tt.backend, e.Backend)
			assert.Equal(t, "probe", e.Op)
			assert.Equal(t, tt.value, e.Code)
			assert.Equal(t, tt.wantName, e.Name)
			assert.Equal(t, errors.Internal, e.Category)
			assert.False(t, e.Retryable)
			assert.False(t, e.Fatal)
			checkText(t, "message", e.Msg)
			assert.Contains(t, e.Hint, "report")
			assert.ErrorIs(t, err, errors.Internal)
		})
	}
}

func TestCodesReturnsCopies(t *testing.T) {
	a := errors.CUDACodes()
	a[0].Name = "CHANGED"
	a[1].Category = errors.Closed
	b := errors.CUDACodes()
	assert.Equal(t, "CUDA_SUCCESS", b[0].Name)
	assert.Equal(t, errors.InvalidArgument, b[1].Category)
	c, _ := errors.CUDACode(1)
	assert.Equal(t, errors.InvalidArgument, c.Category)
}
