package driver

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/moot-dev/moot/internal/model"
	"github.com/moot-dev/moot/store"
)

// TranscriptsDir is the private folder that keeps what each model call
// was sent and what it answered, a gzipped JSON file per call, named by
// the digest of its content and named in turn by the call's line of the
// usage log (Usage.Transcript).
const TranscriptsDir = "calls"

// MaxTranscript bounds, in bytes, what a transcript file may hold once
// unpacked when it is read back.
const MaxTranscript = 64 << 20

// Transcript is one model call as it was made: the messages sent (the
// texts, for embeddings) and what came back.
type Transcript struct {
	Unit     int          `json:"unit"`
	Role     string       `json:"role"`
	Model    string       `json:"model"`
	Messages []TransEntry `json:"messages,omitempty"`
	// Input holds the texts of a request for embeddings.
	Input []string `json:"input,omitempty"`
	// Answer is the model's text as it came, before any check; Error
	// is why the call got no answer.
	Answer string `json:"answer,omitempty"`
	Error  string `json:"error,omitempty"`
}

// TransEntry is one message of a Transcript.
type TransEntry struct {
	Role       string           `json:"role"`
	Content    string           `json:"content,omitempty"`
	ToolCalls  []model.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// entries turns the messages of a request into a transcript's.
func entries(msgs []model.Message) []TransEntry {
	out := make([]TransEntry, len(msgs))
	for i, m := range msgs {
		out[i] = TransEntry{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
	}
	return out
}

// transcriptFile returns the file that keeps t, its secrets masked,
// under TranscriptsDir: its name, named by its content, and its data,
// gzipped; ok is false when none is kept (Options.NoPrompts).
func (r *runner) transcriptFile(t *Transcript) (name string, data []byte, ok bool) {
	if t == nil || r.opts.NoPrompts {
		return "", nil, false
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return "", nil, false
	}
	raw = []byte(r.opts.Mask(string(raw)))
	var b bytes.Buffer
	zw := gzip.NewWriter(&b) // no name and no time in the header: the same call, the same bytes
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return "", nil, false
	}
	sum := sha256.Sum256(raw)
	return TranscriptsDir + "/" + hex.EncodeToString(sum[:12]) + ".json.gz", b.Bytes(), true
}

// ReadTranscript reads the transcript a usage line names.
func ReadTranscript(d *store.Dir, name string) (*Transcript, error) {
	if !strings.HasPrefix(name, TranscriptsDir+"/") || !strings.HasSuffix(name, ".json.gz") || strings.Contains(name[len(TranscriptsDir)+1:], "/") {
		return nil, fmt.Errorf("%q is not the name of a transcript", name)
	}
	raw, err := d.ReadPrivate(name)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, MaxTranscript+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > MaxTranscript {
		return nil, fmt.Errorf("read %s: over %d MB unpacked", name, MaxTranscript>>20)
	}
	var t Transcript
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return &t, nil
}

// errText is the text of err for a transcript, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
