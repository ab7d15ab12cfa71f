package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestWritePrivatesInOrder: the writes of a batch are all made, the
// replaced files whole and the appended line after what the log held;
// one that cannot be made (a folder where a file goes) stops the batch
// there, the writes before it made and those after it not, and leaves no
// temporary file behind.
func TestWritePrivatesInOrder(t *testing.T) {
	dir, d := newDebate(t)
	if err := d.Lock(context.Background(), "test", false); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendPrivate("usage.jsonl", []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	n, err := d.WritePrivates([]PrivateWrite{
		{Name: "transcripts/t.json.gz", Data: []byte("transcript")},
		{Name: "usage.jsonl", Data: []byte("two\n"), Append: true},
		{Name: "answers/k-a.meta", Data: []byte("meta")},
		{Name: "answers/k-a.json", Data: []byte("answer")},
	})
	if err != nil || n != 4 {
		t.Fatalf("WritePrivates: %d written, %v; want 4", n, err)
	}
	for name, want := range map[string]string{
		"transcripts/t.json.gz": "transcript", "usage.jsonl": "one\ntwo\n",
		"answers/k-a.meta": "meta", "answers/k-a.json": "answer",
	} {
		if got, err := d.ReadPrivate(name); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, PrivateDir, "answers", "k-b.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	n, err = d.WritePrivates([]PrivateWrite{
		{Name: "usage.jsonl", Data: []byte("three\n"), Append: true},
		{Name: "answers/k-b.meta", Data: []byte("meta")},
		{Name: "answers/k-b.json", Data: []byte("answer")},
		{Name: "usage.jsonl", Data: []byte("four\n"), Append: true},
	})
	if err == nil || n != 2 {
		t.Errorf("a folder in the way of the third write: %d written, %v; want 2 and an error", n, err)
	}
	if got, _ := d.ReadPrivate("usage.jsonl"); string(got) != "one\ntwo\nthree\n" {
		t.Errorf("usage.jsonl: %q, want the lines before the failed write", got)
	}
	if got, err := d.ReadPrivate("answers/k-b.meta"); err != nil || string(got) != "meta" {
		t.Errorf("the write before the failed one: %q, %v", got, err)
	}
	if tmps, _ := os.ReadDir(filepath.Join(dir, TempDir)); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}
