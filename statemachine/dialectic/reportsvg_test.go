package dialectic_test

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/moot-dev/moot/statemachine/dialectic"
)

// TestGraphEscapesDebateText checks that what a debater wrote reaches the
// argument graph as the same characters and never as markup, in a node's
// lines and in its tooltip, while moot's own scores keep their sign.
func TestGraphEscapesDebateText(t *testing.T) {
	an := dialectic.Analyze(loadDir(t, hostileDir))
	hostile := `a+b <b>bold</b> & "q" 'r'`
	an.Args[0].Title = hostile
	svg := dialectic.GraphSVG(an)
	if strings.Contains(svg, "<b>") {
		t.Fatalf("a title's <b> reached the graph as markup:\n%s", svg)
	}
	var texts []string
	dec := xml.NewDecoder(strings.NewReader(svg))
	inTitle := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the graph is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inTitle = tok.Name.Local == "title" || tok.Name.Local == "text"
		case xml.EndElement:
			inTitle = false
		case xml.CharData:
			if inTitle {
				texts = append(texts, string(tok))
			}
		}
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, an.Args[0].ID+": "+hostile) {
		t.Errorf("no tooltip reads %q:\n%s", an.Args[0].ID+": "+hostile, all)
	}
	if !strings.Contains(all, `a+b <b>bold</b> & "q"`) {
		t.Errorf("no node line reads the title's first words:\n%s", all)
	}
	if !strings.Contains(svg, `">+0.30</tspan>`) {
		t.Errorf("a node's score lost its plain '+':\n%s", svg)
	}
}
