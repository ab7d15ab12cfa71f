package cli

import (
	"testing"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
	"github.com/moot-dev/moot/statemachine/panel"
)

func TestInvokedName(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"moot"}, ""},
		{[]string{"moot", "status", "d"}, "status"},
		{[]string{"moot", "--dir", "x", "check", "d"}, "check"},
		{[]string{"moot", "-dir", "x", "check"}, "check"},
		{[]string{"moot", "--dir=x", "run", "d"}, "run"},
		{[]string{"moot", "-dir=x", "run", "d"}, "run"},
		{[]string{"moot", "--help", "status"}, ""},
		{[]string{"moot", "--version"}, ""},
		{[]string{"moot", "--", "status"}, ""},
		{[]string{"moot", "", "status"}, ""},
		{[]string{"moot", "--dir"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := invokedName(tc.args); got != tc.want {
				t.Errorf("invokedName(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

// TestCommandBuildsWhatIsInvoked checks that a known command invoked by
// args is the one command built, whole, and that help, an unknown
// command, a protocol's command and root flags get the whole tree.
func TestCommandBuildsWhatIsInvoked(t *testing.T) {
	a := &app{io: IO{Protocols: sm.Protocols{dialectic.Protocol{}, panel.Protocol{}}}}
	whole := a.command([]string{"moot", "help"})
	for _, args := range [][]string{{"moot"}, {"moot", "nosuch"}, {"moot", "--help", "run"}, {"moot", "personas"}} {
		if got := len(a.command(args).Commands); got != len(whole.Commands) {
			t.Errorf("%q: %d commands built, want the whole tree's %d", args, got, len(whole.Commands))
		}
	}
	if whole.Command("personas") == nil {
		t.Errorf("the whole tree lacks panel's command personas")
	}
	for _, b := range a.builtins() {
		if b.name == "help" {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			root := a.command([]string{"moot", "--dir", "x", b.name, "d"})
			if len(root.Commands) != 1 || root.Commands[0].Name != b.name {
				t.Fatalf("moot %s: built %d commands, want only %s", b.name, len(root.Commands), b.name)
			}
			got, want := root.Commands[0], whole.Command(b.name)
			if len(got.Flags) != len(want.Flags) || len(got.Commands) != len(want.Commands) || got.CustomHelpTemplate != want.CustomHelpTemplate {
				t.Errorf("moot %s: %d flags and %d commands, want %d and %d as in the whole tree, and the same help",
					b.name, len(got.Flags), len(got.Commands), len(want.Flags), len(want.Commands))
			}
		})
	}
}
