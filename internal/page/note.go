package page

import (
	"bytes"
	"html/template"
	"sync"

	"github.com/moot-dev/moot/internal/escape"
)

// NoteMarkdown is note as the quote a markdown report opens with.
func NoteMarkdown(note string) string {
	return "> **Scripted.** " + escape.Markdown(note)
}

// InsertNote puts note, a sentence that the report must not be read
// without (such as builtin.Note), as a quote under the first line of md,
// a markdown report that opens with its "# title" line; at the top when
// it has none. An empty note changes nothing.
func InsertNote(md []byte, note string) []byte {
	if note == "" {
		return md
	}
	quote := []byte(NoteMarkdown(note) + "\n\n")
	if !bytes.HasPrefix(md, []byte("# ")) {
		return append(quote, md...)
	}
	end := bytes.IndexByte(md, '\n')
	if end < 0 {
		return append(append(append([]byte(nil), md...), "\n\n"...), quote...)
	}
	rest := bytes.TrimLeft(md[end:], "\n")
	out := make([]byte, 0, len(md)+len(quote)+2)
	out = append(out, md[:end]...)
	out = append(out, "\n\n"...)
	out = append(out, quote...)
	return append(out, rest...)
}

// noteHTML is the note as report.html shows it, boxed so that no reader
// misses it. It is parsed on first use.
var noteHTML = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("note").Parse("\n" + `<p class="scripted" style="border:2px solid #b45309;background:#fffbeb;padding:.6em 1em;border-radius:6px"><strong>Scripted.</strong> {{.}}</p>` + "\n"))
})

// InsertNoteHTML puts note, as InsertNote does, right after the first
// </h1> of page, a report.html, or after its <body>, or at the top.
func InsertNoteHTML(page []byte, note string) []byte {
	if note == "" {
		return page
	}
	var p bytes.Buffer
	// The template is moot's own and note a string: it cannot fail.
	_ = noteHTML().Execute(&p, note)
	at := 0
	for _, after := range []string{"</h1>", "<body>"} {
		if i := bytes.Index(page, []byte(after)); i >= 0 {
			at = i + len(after)
			break
		}
	}
	out := make([]byte, 0, len(page)+p.Len())
	out = append(out, page[:at]...)
	out = append(out, p.Bytes()...)
	return append(out, page[at:]...)
}
