package moderated

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/moot-dev/moot/internal/frontmatter"
	sm "github.com/moot-dev/moot/statemachine"
)

// The output formats of the design for the message, score and derived
// files: Markdown (moot's default), JSON and plain text.
const (
	outMarkdown = "md"
	outJSON     = "json"
	outText     = "txt"
)

var outputFormats = []string{outMarkdown, outJSON, outText}

func validOutputFormat(f string) bool {
	for _, x := range outputFormats {
		if x == f {
			return true
		}
	}
	return false
}

// out is the debate's output format, which is also the extension of its
// message, score and derived files. A debate.md made before the setting
// existed has none and is Markdown.
func (d *debate) out() string {
	if d.st.OutputFormat == "" {
		return outMarkdown
	}
	return d.st.OutputFormat
}

// encodeRecord writes a file of keys and a text in format f: Markdown as
// JSON frontmatter with the text as body; JSON as one object with the text
// under bodyKey after the keys; text as "key: value" lines, nested keys
// joined by dots, then a blank line and the text as it is.
func encodeRecord(f string, obj frontmatter.Object, bodyKey, body string) ([]byte, error) {
	switch f {
	case outJSON:
		all := frontmatter.Object{Fields: append([]frontmatter.Field(nil), obj.Fields...)}
		if _, clash := all.Get(bodyKey); clash {
			return nil, fmt.Errorf("key %q is taken by the text", bodyKey)
		}
		if err := all.SetValue(bodyKey, body); err != nil {
			return nil, err
		}
		raw, err := all.MarshalJSON()
		if err != nil {
			return nil, err
		}
		// Indent the compact object, keeping its key order.
		var b bytes.Buffer
		if err := json.Indent(&b, raw, "", "  "); err != nil {
			return nil, err
		}
		b.WriteByte('\n')
		return b.Bytes(), nil
	case outText:
		var b strings.Builder
		if err := writeHeader(&b, "", obj); err != nil {
			return nil, err
		}
		b.WriteString("\n")
		b.WriteString(body)
		b.WriteString("\n")
		return []byte(b.String()), nil
	}
	return frontmatter.Render(obj, body+"\n")
}

// decodeRecord reads what encodeRecord wrote: the keys, and the text with
// surrounding white space removed.
func decodeRecord(f string, data []byte, bodyKey string) (frontmatter.Object, string, error) {
	switch f {
	case outJSON:
		if err := frontmatter.CheckUTF8(data); err != nil {
			return frontmatter.Object{}, "", err
		}
		var obj frontmatter.Object
		if err := json.Unmarshal(data, &obj); err != nil {
			return obj, "", fmt.Errorf("not a JSON object: %w", frontmatter.JSONError(err))
		}
		if err := frontmatter.CheckDuplicates(data); err != nil {
			return obj, "", err
		}
		var body string
		if err := obj.Decode(bodyKey, &body); err != nil {
			return obj, "", err
		}
		kept := obj.Fields[:0]
		for _, fl := range obj.Fields {
			if fl.Key != bodyKey {
				kept = append(kept, fl)
			}
		}
		obj.Fields = kept
		return obj, strings.TrimSpace(body), nil
	case outText:
		if err := frontmatter.CheckUTF8(data); err != nil {
			return frontmatter.Object{}, "", err
		}
		return readHeader(string(data))
	}
	obj, body, err := frontmatter.Parse(data)
	return obj, strings.TrimSpace(body), err
}

// decodeRecordInto is decodeRecord that also decodes the keys into v, as
// encoding/json decodes the object they make (v takes no bodyKey); an
// error of that decoding is said as frontmatter.JSONError says it. A
// Markdown or JSON record is decoded from its own JSON, not from the keys
// encoded again.
func decodeRecordInto(f string, data []byte, bodyKey string, v any) (frontmatter.Object, string, error) {
	var (
		obj  frontmatter.Object
		raw  []byte
		body string
		err  error
	)
	switch f {
	case outJSON:
		if obj, body, err = decodeRecord(f, data, bodyKey); err == nil {
			raw = data
		}
	case outText:
		if obj, body, err = decodeRecord(f, data, bodyKey); err == nil {
			raw, err = obj.MarshalJSON()
		}
	default:
		obj, raw, body, err = frontmatter.ParseRaw(data)
		body = strings.TrimSpace(body)
	}
	if err != nil {
		return obj, "", err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return obj, "", frontmatter.JSONError(err)
	}
	return obj, body, nil
}

// writeHeader writes obj's keys as "key: value" lines, the keys of a
// nested object after its key and a dot.
func writeHeader(b *strings.Builder, prefix string, obj frontmatter.Object) error {
	for _, fl := range obj.Fields {
		if fl.Key == "" || strings.ContainsAny(fl.Key, ".: \t\r\n") {
			return fmt.Errorf("key %q cannot be a text header key", fl.Key)
		}
		key := prefix + fl.Key
		v := bytes.TrimSpace(fl.Value)
		switch {
		case len(v) > 0 && v[0] == '{':
			var sub frontmatter.Object
			if err := json.Unmarshal(v, &sub); err != nil {
				return fmt.Errorf("key %q: %w", key, err)
			}
			if len(sub.Fields) == 0 {
				fmt.Fprintf(b, "%s: {}\n", key)
				continue
			}
			if err := writeHeader(b, key+".", sub); err != nil {
				return err
			}
		case len(v) > 0 && v[0] == '"':
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("key %q: %w", key, err)
			}
			fmt.Fprintf(b, "%s: %s\n", key, headerString(s))
		default:
			var c bytes.Buffer
			if err := json.Compact(&c, v); err != nil {
				return fmt.Errorf("key %q: %w", key, err)
			}
			fmt.Fprintf(b, "%s: %s\n", key, c.String())
		}
	}
	return nil
}

// headerString writes s as it is unless, so written, it would read back
// as something else: then it is quoted, Go style.
func headerString(s string) string {
	if s == "" || s != strings.TrimSpace(s) || strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }) >= 0 ||
		strings.ContainsAny(s[:1], "\"{[") || json.Valid([]byte(s)) {
		return strconv.Quote(s)
	}
	return s
}

// readHeader reads the "key: value" lines up to the first blank line and
// takes everything after it as the text.
func readHeader(data string) (frontmatter.Object, string, error) {
	data = strings.ReplaceAll(data, "\r\n", "\n")
	head, body, _ := strings.Cut(data, "\n\n")
	var top headerObject
	seen := map[string]bool{}
	for i, line := range strings.Split(head, "\n") {
		if line == "" {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return frontmatter.Object{}, "", fmt.Errorf("line %d: %q is not \"key: value\"", i+1, line)
		}
		if seen[key] {
			return frontmatter.Object{}, "", fmt.Errorf("line %d: key %q is given twice", i+1, key)
		}
		seen[key] = true
		raw, err := headerValue(strings.TrimPrefix(val, " "))
		if err != nil {
			return frontmatter.Object{}, "", fmt.Errorf("line %d: key %q: %w", i+1, key, err)
		}
		if err := top.set(strings.Split(key, "."), raw); err != nil {
			return frontmatter.Object{}, "", fmt.Errorf("line %d: key %q: %w", i+1, key, err)
		}
	}
	obj, err := top.object()
	if err != nil {
		return frontmatter.Object{}, "", err
	}
	return obj, strings.TrimSpace(body), nil
}

// headerValue turns a header value back into JSON: a quoted string, a
// JSON number, literal, object or array as it is, anything else a string.
func headerValue(v string) (json.RawMessage, error) {
	if strings.HasPrefix(v, "\"") {
		s, err := strconv.Unquote(v)
		if err != nil {
			return nil, errors.New("a quoted value that does not end its quote")
		}
		return json.Marshal(s)
	}
	if v != "" && json.Valid([]byte(v)) {
		return json.RawMessage(v), nil
	}
	return json.Marshal(v)
}

// headerObject is an object of a text header being read: its keys in the
// order they first come, each a JSON value as given or an object that
// dotted keys go into. A header's nested objects are built once, at the
// end, not encoded again for each line.
type headerObject struct {
	keys []string
	vals []headerValueNode
}

// headerValueNode is a value of a headerObject: raw JSON, or obj when
// dotted keys have gone into it.
type headerValueNode struct {
	raw json.RawMessage
	obj *headerObject
}

// set sets the value at the dotted path, making nested objects in the
// order their keys first appear; a key given as JSON takes dotted keys
// only if it is an object.
func (o *headerObject) set(path []string, raw json.RawMessage) error {
	if path[0] == "" {
		return errors.New("an empty key")
	}
	i := slices.Index(o.keys, path[0])
	if len(path) == 1 {
		if i < 0 {
			o.keys = append(o.keys, path[0])
			o.vals = append(o.vals, headerValueNode{raw: raw})
		} else {
			o.vals[i] = headerValueNode{raw: raw}
		}
		return nil
	}
	if i < 0 {
		o.keys = append(o.keys, path[0])
		o.vals = append(o.vals, headerValueNode{obj: &headerObject{}})
		i = len(o.keys) - 1
	} else if o.vals[i].obj == nil {
		var sub frontmatter.Object
		if err := json.Unmarshal(o.vals[i].raw, &sub); err != nil {
			return fmt.Errorf("%s is not an object", path[0])
		}
		n := &headerObject{}
		for _, f := range sub.Fields {
			n.keys = append(n.keys, f.Key)
			n.vals = append(n.vals, headerValueNode{raw: f.Value})
		}
		o.vals[i].obj = n
	}
	return o.vals[i].obj.set(path[1:], raw)
}

// object returns o as an Object: its raw values as given, its nested
// objects as compact JSON.
func (o *headerObject) object() (frontmatter.Object, error) {
	var obj frontmatter.Object
	for i, k := range o.keys {
		v := o.vals[i]
		if v.obj != nil {
			sub, err := v.obj.object()
			if err != nil {
				return obj, err
			}
			if v.raw, err = sub.MarshalJSON(); err != nil {
				return obj, err
			}
		}
		obj.Fields = append(obj.Fields, frontmatter.Field{Key: k, Value: v.raw})
	}
	return obj, nil
}

// markdown returns d as Markdown renders it, for README.md, which is
// Markdown whatever the output format.
func (d *debate) markdown() *debate {
	c := *d
	c.st.OutputFormat = outMarkdown
	return &c
}

// The shapes of the derived JSON files.
type (
	jsonParticipant struct {
		Role     string `json:"role"`
		Name     string `json:"name"`
		ID8      string `json:"id8"`
		Position string `json:"position,omitempty"`
	}
	jsonEntry struct {
		Number int    `json:"number"`
		File   string `json:"file"`
		Name   string `json:"participant"`
		Role   string `json:"role"`
		Kind   string `json:"kind"`
		Phase  string `json:"phase"`
		Round  int    `json:"round"`
	}
	jsonStanding struct {
		Name     string   `json:"name"`
		Position string   `json:"position"`
		Scored   int      `json:"statements_scored"`
		Mean     *float64 `json:"mean"`
		Latest   *float64 `json:"latest"`
	}
	jsonScore struct {
		Criteria map[string]Mark `json:"criteria"`
		Order    []string        `json:"criteria_order"`
		Total    float64         `json:"total"`
	}
	jsonStatement struct {
		jsonEntry
		Label   string     `json:"label"`
		Content string     `json:"content"`
		Score   *jsonScore `json:"score,omitempty"`
	}
)

func (d *debate) jsonScores() map[string]jsonStanding {
	out := map[string]jsonStanding{}
	stand := d.standings()
	for _, role := range []string{RoleA, RoleB} {
		p, _ := d.participant(role)
		s := stand[role]
		js := jsonStanding{Name: p.Name, Position: p.Position, Scored: s.Count}
		if s.Count > 0 {
			mean, latest := round2(s.Mean), s.Latest
			js.Mean, js.Latest = &mean, &latest
		}
		out[role] = js
	}
	return out
}

func (d *debate) jsonEntries() []jsonEntry {
	var out []jsonEntry
	for _, s := range d.messagesInOrder() {
		m := d.messages[s.Number]
		out = append(out, jsonEntry{Number: s.Number, File: m.file, Name: d.name(s.Role), Role: fileRole(s.Role), Kind: s.Kind, Phase: s.Phase, Round: s.Round})
	}
	return out
}

// derivedJSON renders the derived files as JSON objects.
func (d *debate) derivedJSON() ([]sm.File, error) {
	var parts []jsonParticipant
	for _, p := range d.st.Participants {
		parts = append(parts, jsonParticipant{Role: fileRole(p.Role), Name: p.Name, ID8: p.id8(), Position: p.Position})
	}
	entries := d.jsonEntries()
	if entries == nil {
		entries = []jsonEntry{}
	}
	index := map[string]any{
		"title": "Debate Index: " + d.motion,
		"metadata": map[string]any{
			"debate": d.st.DebateID, "protocol": Name, "format": d.st.Format, "status": d.progress(),
			"completed_rounds": fmt.Sprintf("%d/%d", d.completedRounds(), d.st.RoundCount),
			"messages":         len(d.messages), "participants": parts,
		},
		"summary":  d.derivedName(SummaryFile),
		"messages": entries,
	}
	if d.st.Transcript {
		index["transcript"] = d.derivedName(TranscriptFile)
	}
	metadata := map[string]any{
		"topic": d.motion, "format": d.st.Format, "round_count": d.st.RoundCount, "completed_rounds": d.completedRounds(),
		"round_summaries": d.st.RoundSummaries, "fact_checker": d.st.FactChecker, "transcript": d.st.Transcript,
		"output_format": d.out(), "started": d.st.Started, "status": d.progress(),
		"messages": len(d.messages), "scores_given": len(d.scores), "criteria": d.st.Criteria, "max_tokens": d.st.MaxTokens,
		"total_rule": "sum of score x weight / sum of weights, 0 to 10; a participant's score is the mean of its statement totals",
		"scores":     d.jsonScores(),
	}
	if len(d.panel) > 0 {
		metadata["judges"], metadata["panel_rule"] = d.panel, d.panelRule()
	}
	summary := map[string]any{"topic": d.motion, "status": d.progress(), "conclusion": nil, "scores": d.jsonScores(),
		"note": "the debate declares no result; the scores are the rubric's"}
	if m, ok := d.conclusion(); ok {
		summary["conclusion"] = m.Content
		summary["conclusion_message"] = m.Number
	}
	files := []struct {
		name string
		v    any
	}{{IndexFile, index}, {MetadataFile, metadata}, {SummaryFile, summary}}
	if d.st.Transcript {
		var stmts []jsonStatement
		for i, e := range entries {
			s, _ := d.slotOf(e.Number)
			st := jsonStatement{jsonEntry: entries[i], Label: d.label(s), Content: d.messages[e.Number].Content}
			if sc, ok := d.scores[e.Number]; ok {
				st.Score = &jsonScore{Criteria: sc.Marks, Order: sc.Names, Total: sc.Total}
			}
			stmts = append(stmts, st)
		}
		if stmts == nil {
			stmts = []jsonStatement{}
		}
		files = append(files, struct {
			name string
			v    any
		}{TranscriptFile, map[string]any{"topic": d.motion, "participants": parts, "statements": stmts, "scores": d.jsonScores()}})
	}
	var out []sm.File
	for _, f := range files {
		data, err := frontmatter.Marshal(f.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.derivedName(f.name), err)
		}
		out = append(out, sm.File{Name: d.derivedName(f.name), Data: data})
	}
	return out, nil
}
