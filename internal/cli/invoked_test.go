package cli

import "testing"

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

// TestOnlyInvokedKeepsTheInvokedCommand checks that the command args
// invoke keeps its flags and subcommands, and that help, an unknown
// command and root flags leave the whole tree.
func TestOnlyInvokedKeepsTheInvokedCommand(t *testing.T) {
	count := func(args []string) (invoked, others int) {
		root := (&app{}).command()
		onlyInvoked(root, args)
		for _, c := range root.Commands {
			n := len(c.Flags) + len(c.Commands)
			if len(args) > 1 && c.HasName(args[len(args)-1]) {
				invoked += n
			} else {
				others += n
			}
		}
		return invoked, others
	}
	if inv, others := count([]string{"moot", "run"}); inv == 0 || others != 0 {
		t.Errorf("moot run: run keeps %d flags and commands, the others %d; want some and none", inv, others)
	}
	for _, args := range [][]string{{"moot", "help"}, {"moot", "nosuch"}, {"moot", "--help", "run"}} {
		if _, others := count(args); others == 0 {
			t.Errorf("%q: the other commands lost their flags", args)
		}
	}
}
