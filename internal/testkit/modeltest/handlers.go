package modeltest

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// The roles of moot's requests, as RoleOf names them.
const (
	Proposition = "proposition"
	Opposition  = "opposition"
	Judge       = "judge"
)

// Failf returns a Reply that makes the server report a test failure with
// the formatted message and answer 500 with "X-Should-Retry: false", so
// that a client honouring that header, as moot's does, does not retry it.
// Handlers use it for requests they did not expect.
func Failf(format string, args ...any) Reply {
	return Reply{failure: fmt.Sprintf(format, args...)}
}

// Failure is the message of a reply made by Failf, "" for any other: for
// a fake of another API answering with this package's handlers.
func (r Reply) Failure() string { return r.failure }

// Script returns a Handler that gives the replies in order, one a request.
// A request beyond the last reply fails the test (see Failf). It is safe
// for concurrent use; concurrent requests take replies in arrival order.
func Script(replies ...Reply) Handler {
	var mu sync.Mutex
	next := 0
	return func(req Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(replies) {
			next++
			return Failf("script of %d replies exhausted: unexpected request %d (model %q, role %q)",
				len(replies), next, req.Model, RoleOf(req))
		}
		r := replies[next]
		next++
		return r
	}
}

// RoleOf returns the role a request from moot is for, read from what its
// system (or developer) message says to any model: "arguing for the
// proposition" or "arguing for the opposition" for a debater, "You are the
// judge" for the judge. It returns "" when no such message says either.
// Nothing is added to moot's prompts for the sake of tests: a real model
// gets exactly what the fake does.
func RoleOf(req Request) string {
	for _, m := range req.Messages {
		if m.Role != "system" && m.Role != "developer" {
			continue
		}
		if sub := debaterRe.FindStringSubmatch(m.Content); sub != nil {
			return strings.ToLower(sub[1])
		}
		if judgeRe.MatchString(m.Content) {
			return Judge
		}
	}
	return ""
}

var (
	debaterRe = regexp.MustCompile(`(?i)\barguing for the (proposition|opposition)\b`)
	judgeRe   = regexp.MustCompile(`(?i)\byou are the judge\b`)
)

// Roles returns a Handler that passes each request to the handler of its
// role (see RoleOf). A request for a role without a handler, or without a
// role, fails the test (see Failf).
func Roles(handlers map[string]Handler) Handler {
	known := make([]string, 0, len(handlers))
	for role := range handlers {
		known = append(known, role)
	}
	sort.Strings(known)
	return func(req Request) Reply {
		role := RoleOf(req)
		h := handlers[role]
		if h == nil {
			if role == "" {
				return Failf("request whose system message names no role (want one of %v)", known)
			}
			return Failf("no handler for role %q (have %v)", role, known)
		}
		return h(req)
	}
}

// ByRole is Roles for moot's three standard roles. A nil handler means no
// request for that role is expected.
func ByRole(proposition, opposition, judge Handler) Handler {
	handlers := map[string]Handler{}
	for role, h := range map[string]Handler{Proposition: proposition, Opposition: opposition, Judge: judge} {
		if h != nil {
			handlers[role] = h
		}
	}
	return Roles(handlers)
}
