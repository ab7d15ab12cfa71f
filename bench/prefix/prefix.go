// Package prefix measures how well a debate's prompts suit a provider's
// prompt cache. Providers cache the longest prefix a prompt shares with an
// earlier one, so what counts is how much of each call's prompt repeats,
// from its first byte, the prompt of the same role's previous call: that
// share is what a prefix cache can serve, the rest is billed in full.
//
// The benchmark in this package's tests runs scripted debates through
// moot and reports that share for every call:
//
//	go test ./bench/prefix -run Share -v
package prefix

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Message is one chat message of a prompt.
type Message struct {
	Role    string
	Content string
}

// Call is one request to a model: the role that made it and its messages.
type Call struct {
	Role     string
	Messages []Message
}

// Text lays the messages out as one string, each message's role before
// its content, as a chat template does: two prompts whose messages differ
// in role differ in text.
func Text(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("<|")
		b.WriteString(m.Role)
		b.WriteString("|>\n")
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// Common returns the length in bytes of the longest common prefix of a
// and b.
func Common(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// Row is the measure of one call.
type Row struct {
	Role string
	// N counts the role's calls from 1.
	N int
	// Bytes is the prompt's length and Prefix how many of its first bytes
	// repeat the role's previous prompt, whose length is Prev (both 0 for
	// a role's first call).
	Bytes, Prefix, Prev int
}

// Share is the part of the prompt that repeats the role's previous one,
// from 0 to 1.
func (r Row) Share() float64 {
	if r.Bytes == 0 {
		return 0
	}
	return float64(r.Prefix) / float64(r.Bytes)
}

// Kept is the part of the role's previous prompt that this one repeats
// from its start, from 0 to 1: 1 when the prompt only adds to the
// previous one, so that what Share lacks is new text, not text moved.
func (r Row) Kept() float64 {
	if r.Prev == 0 {
		return 0
	}
	return float64(r.Prefix) / float64(r.Prev)
}

// Measure returns a row for every call, in the order of calls, each
// compared with the previous call of the same role.
func Measure(calls []Call) []Row {
	last := map[string]string{}
	count := map[string]int{}
	rows := make([]Row, 0, len(calls))
	for _, c := range calls {
		text := Text(c.Messages)
		count[c.Role]++
		r := Row{Role: c.Role, N: count[c.Role], Bytes: len(text)}
		if prev, ok := last[c.Role]; ok {
			r.Prefix, r.Prev = Common(prev, text), len(prev)
		}
		last[c.Role] = text
		rows = append(rows, r)
	}
	return rows
}

// Summary sums up the shares of the rows of calls from a role's call
// From on.
type Summary struct {
	From        int
	Calls       int
	Min, Median float64
	// Worst is the row whose share is Min.
	Worst Row
}

// Summarize sums up the rows of calls from each role's call from on.
func Summarize(rows []Row, from int) Summary {
	s := Summary{From: from}
	var shares []float64
	for _, r := range rows {
		if r.N < from {
			continue
		}
		if len(shares) == 0 || r.Share() < s.Min {
			s.Min, s.Worst = r.Share(), r
		}
		shares = append(shares, r.Share())
	}
	s.Calls = len(shares)
	if len(shares) == 0 {
		return s
	}
	sort.Float64s(shares)
	m := len(shares) / 2
	s.Median = shares[m]
	if len(shares)%2 == 0 {
		s.Median = (shares[m-1] + shares[m]) / 2
	}
	return s
}

// Print writes the rows as a table, then the summary of calls from each
// role's call from on.
func Print(w io.Writer, title string, rows []Row, from int) Summary {
	fmt.Fprintf(w, "%s\n%-32s %4s %8s %8s %7s %7s\n", title, "role", "call", "bytes", "prefix", "share", "kept")
	for _, r := range rows {
		fmt.Fprintf(w, "%-32s %4d %8d %8d %6.1f%% %6.1f%%\n", r.Role, r.N, r.Bytes, r.Prefix, 100*r.Share(), 100*r.Kept())
	}
	s := Summarize(rows, from)
	fmt.Fprintf(w, "%s: from each role's call %d on, %d calls: min %.1f%% (%s call %d), median %.1f%%\n",
		title, from, s.Calls, 100*s.Min, s.Worst.Role, s.Worst.N, 100*s.Median)
	return s
}
