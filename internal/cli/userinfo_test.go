package cli

import "testing"

func TestWithoutUserinfo(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://user:hunter2@r.openai.azure.com", "https://***@r.openai.azure.com"},
		{"http://key@127.0.0.1:8080/v1", "http://***@127.0.0.1:8080/v1"},
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"not a url", "not a url"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			if got := withoutUserinfo(tt.in); got != tt.want {
				t.Errorf("withoutUserinfo(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
