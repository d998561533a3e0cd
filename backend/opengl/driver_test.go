package opengl

import (
	"testing"

	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAPI(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    API
		wantErr []string // substrings of the error; none: it parses
	}{
		{in: "", want: APIAuto},
		{in: "auto", want: APIAuto},
		{in: "gl", want: APIGL},
		{in: " GLES ", want: APIGLES},
		{in: "Gl", want: APIGL},
		{in: "glse", wantErr: []string{`unknown OpenGL API "glse"`, "accepted: auto, gl, gles", `did you mean "gles"?`}},
		{in: "opengl", wantErr: []string{`"opengl"`, "accepted: auto, gl, gles"}},
		{in: "es", wantErr: []string{`"es"`}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseAPI(tc.in)
			if len(tc.wantErr) == 0 {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				if tc.in != "" {
					back, err := ParseAPI(got.String())
					require.NoError(t, err)
					assert.Equal(t, got, back, "String spells what ParseAPI reads")
				}
				return
			}
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
			assert.Contains(t, errors.Hint(err), EnvAPI)
			for _, s := range tc.wantErr {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
	assert.Equal(t, "API(7)", API(7).String())
}

func TestResolveAPI(t *testing.T) {
	for _, tc := range []struct {
		name    string
		field   API
		env     string
		want    API
		wantErr []string
	}{
		{name: "defaults to auto", want: APIAuto},
		{name: "the environment", env: "gles", want: APIGLES},
		{name: "the field wins", field: APIGL, env: "gles", want: APIGL},
		{name: "the field wins over a malformed variable", field: APIGLES, env: "bogus", want: APIGLES},
		{name: "malformed variable", env: "glse", wantErr: []string{EnvAPI + `="glse"`, "accepted: auto, gl, gles", `did you mean "gles"?`}},
		{name: "malformed field", field: API(9), wantErr: []string{"Driver.API is API(9)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolveAPI(tc.field, tc.env)
			if len(tc.wantErr) == 0 {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
			assert.NotEmpty(t, errors.Hint(err))
			for _, s := range tc.wantErr {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}
