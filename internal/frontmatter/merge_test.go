package frontmatter_test

import (
	"strings"
	"testing"

	"github.com/moot-dev/moot/internal/frontmatter"
)

func TestMerge(t *testing.T) {
	type state struct {
		Phase string `json:"phase"`
		Step  int    `json:"step"`
		Note  string `json:"note,omitempty"`
	}
	parse := func(t *testing.T, src string) frontmatter.Object {
		t.Helper()
		front, _, err := frontmatter.Parse([]byte(src + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		return front
	}
	tests := []struct {
		name  string
		front string
		v     any
		keys  []string
		want  string
	}{
		{
			name:  "known keys change in place, unknown keys stay where they are",
			front: `{"phase":"a","moot":{"models":{}},"step":1,"x":true}`,
			v:     state{Phase: "b", Step: 2},
			keys:  []string{"phase", "step"},
			want:  `{"phase":"b","moot":{"models":{}},"step":2,"x":true}`,
		},
		{
			name:  "a key the front lacks is added at the end, in keys order",
			front: `{"moot":1}`,
			v:     state{Phase: "b", Step: 2},
			keys:  []string{"step", "phase"},
			want:  `{"moot":1,"step":2,"phase":"b"}`,
		},
		{
			name:  "only the named keys are written",
			front: `{}`,
			v:     state{Phase: "b", Step: 2, Note: "n"},
			keys:  []string{"phase"},
			want:  `{"phase":"b"}`,
		},
		{
			name:  "a named key v leaves out is null",
			front: `{"note":"old"}`,
			v:     state{Phase: "b"},
			keys:  []string{"note"},
			want:  `{"note":null}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			front := parse(t, tt.front)
			before, _ := front.MarshalJSON()
			got, err := frontmatter.Merge(front, tt.v, tt.keys)
			if err != nil {
				t.Fatal(err)
			}
			b, err := got.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("Merge = %s, want %s", b, tt.want)
			}
			if after, _ := front.MarshalJSON(); string(after) != string(before) {
				t.Errorf("Merge changed its input: %s, was %s", after, before)
			}
		})
	}
	t.Run("a value that is not an object is an error", func(t *testing.T) {
		if _, err := frontmatter.Merge(frontmatter.Object{}, []int{1}, []string{"a"}); err == nil {
			t.Fatal("Merge of a list: no error")
		}
	})
	t.Run("a value json cannot encode is an error", func(t *testing.T) {
		_, err := frontmatter.Merge(frontmatter.Object{}, map[string]any{"c": make(chan int)}, []string{"c"})
		if err == nil || !strings.Contains(err.Error(), "chan") {
			t.Fatalf("Merge of a channel: %v", err)
		}
	})
}

func TestParseInto(t *testing.T) {
	type state struct {
		Phase string `json:"phase"`
		Step  int    `json:"step"`
	}
	tests := []struct {
		name, data string
		want       state
		body, err  string
	}{
		{name: "decodes the frontmatter and keeps unknown keys", data: "{\"phase\":\"a\",\"x\":1,\"step\":2}\n\n# Motion\n\nM.\n",
			want: state{Phase: "a", Step: 2}, body: "# Motion\n\nM.\n"},
		{name: "a file without frontmatter is Parse's error", data: "# Motion\n", err: "frontmatter"},
		{name: "a wrong type names the field", data: "{\"step\":\"two\"}\n", err: "step"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got state
			front, body, err := frontmatter.ParseInto([]byte(tt.data), &got)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseInto error = %v, want one containing %q", err, tt.err)
				}
				if _, _, perr := frontmatter.Parse([]byte(tt.data)); perr != nil && perr.Error() != err.Error() {
					t.Errorf("ParseInto error %q, Parse's is %q", err, perr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || body != tt.body {
				t.Errorf("ParseInto = %+v, %q; want %+v, %q", got, body, tt.want, tt.body)
			}
			if keys(front) != "phase,x,step" {
				t.Errorf("frontmatter keys %s, want phase,x,step", keys(front))
			}
		})
	}
}
