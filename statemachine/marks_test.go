package statemachine

import (
	"reflect"
	"testing"
)

// TestConversationMarks: in a role's conversation, what the next prompt
// repeats ends with this prompt's request, and what this one repeats of
// the previous one with the previous request.
func TestConversationMarks(t *testing.T) {
	sys := Message{Role: "system", Content: "rules"}
	first := []Message{sys, {Role: "user", Content: "turn 1"}}
	second := append(append([]Message{}, first...), Message{Role: "assistant", Content: "answer 1"}, Message{Role: "user", Content: "turn 2!"})
	for _, tc := range []struct {
		name string
		msgs []Message
		want []Mark
	}{
		{"none", nil, nil},
		{"the first prompt", first, []Mark{{0, 5}, {1, 6}}},
		{"the second", second, []Mark{{1, 6}, {3, 7}}},
		{"an empty request is not marked", []Message{sys, {Role: "user"}}, []Mark{{0, 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ConversationMarks(tc.msgs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ConversationMarks = %v, want %v", got, tc.want)
			}
		})
	}
	// What the first prompt marks last, the second marks first.
	if a, b := ConversationMarks(first), ConversationMarks(second); a[len(a)-1] != b[0] {
		t.Errorf("the second prompt's first mark %v is not the first's last %v", b[0], a[len(a)-1])
	}
}
