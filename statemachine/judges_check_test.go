package statemachine_test

import (
	"testing"

	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
)

func TestRejudgingCheck(t *testing.T) {
	for _, tt := range []struct {
		name  string
		judge sm.Judge
		ok    bool
	}{
		{"a judge with a name and a model", sm.Judge{Name: "o3", Model: "o3"}, true},
		{"no model", sm.Judge{Name: "o3", Model: "  "}, false},
		{"a name no folder may have", sm.Judge{Name: "../o3", Model: "o3"}, false},
		{"no name", sm.Judge{Model: "o3"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := sm.Rejudging{Judge: tt.judge, To: -1}.Check()
			if (err == nil) != tt.ok {
				t.Errorf("Check() = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestRoleModel(t *testing.T) {
	for _, tt := range []struct {
		name, state, role, want string
	}{
		{"stored", "{\n\"moot\": {\"models\": {\"judge\": \"o3\", \"pro\": \"m\"}}\n}\n", "judge", "o3"},
		{"another role", "{\n\"moot\": {\"models\": {\"pro\": \"m\"}}\n}\n", "judge", ""},
		{"no settings", "{\n\"protocol\": \"forum\"\n}\n", "judge", ""},
		{"settings of another shape", "{\n\"moot\": {\"models\": 3}\n}\n", "judge", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			front, _, err := frontmatter.Parse([]byte(tt.state))
			if err != nil {
				t.Fatal(err)
			}
			if got := sm.RoleModel(front, tt.role); got != tt.want {
				t.Errorf("RoleModel(%s) = %q, want %q", tt.role, got, tt.want)
			}
		})
	}
}
