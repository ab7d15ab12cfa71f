package human

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/statemachine/dialectic"
)

// The schemas of the other protocols' calls are theirs alone; these have
// their shapes.
var (
	forumScore = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"score":     map[string]any{"type": "integer", "minimum": 0, "maximum": 10},
			"reasoning": map[string]any{"type": "string"},
		},
		"required": []string{"score", "reasoning"}, "additionalProperties": false,
	}
	forumVerdict = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"winner": map[string]any{"type": "string", "enum": []string{"Ada", "Brook"}},
			"scores": map[string]any{
				"type":       "object",
				"properties": map[string]any{"Ada": map[string]any{"type": "integer"}, "Brook": map[string]any{"type": "integer"}},
				"required":   []string{"Ada", "Brook"},
			},
		},
		"required": []string{"winner", "scores"},
	}
	refineSkeptic = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"critique": map[string]any{"type": "string"},
			"previous": map[string]any{"type": "array", "items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"id": map[string]any{"type": "string"}, "status": map[string]any{"type": "string", "enum": []string{"resolved", "open"}}, "note": map[string]any{"type": "string"},
				},
				"required": []string{"id", "status", "note"},
			}},
			"points": map[string]any{"type": "array", "items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"severity": map[string]any{"type": "string", "enum": []string{"major", "minor"}}, "text": map[string]any{"type": "string"},
				},
				"required": []string{"severity", "text"},
			}},
			"score": map[string]any{"type": "integer", "minimum": 1, "maximum": 10},
			"ready": map[string]any{"type": "boolean"},
		},
		"required": []string{"critique", "previous", "points", "score", "ready"},
	}
	refineJudge = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"score":         map[string]any{"type": "integer"},
			"criteria":      map[string]any{"type": "object", "properties": map[string]any{"clarity": map[string]any{"type": "integer"}, "depth": map[string]any{"type": "integer"}}, "required": []string{"clarity", "depth"}},
			"justification": map[string]any{"type": "string"},
			"would_benefit": map[string]any{"type": "boolean"},
		},
		"required": []string{"score", "criteria", "justification", "would_benefit"},
	}
	moderatedRubric = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"logic": map[string]any{"type": "object", "properties": map[string]any{
				"score": map[string]any{"type": "number"}, "justification": map[string]any{"type": "string"},
			}, "required": []string{"score", "justification"}},
			"evidence": map[string]any{"type": "object", "properties": map[string]any{
				"score": map[string]any{"type": "number"}, "justification": map[string]any{"type": "string"},
			}, "required": []string{"score", "justification"}},
		},
		"required": []string{"logic", "evidence"},
	}
	panelReact = map[string]any{
		"type":       "object",
		"properties": map[string]any{"reply_to": map[string]any{"type": "string"}, "text": map[string]any{"type": "string"}},
		"required":   []string{"reply_to", "text"},
	}
	tags = map[string]any{
		"type":       "object",
		"properties": map[string]any{"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}},
		"required":   []any{"tags"},
	}
)

const rebuttal = `{"title": "Subsidies <b>keep</b> growers afloat", "claim": "Cutting them pushes growers out.",
 "grounds": [{"source": "A survey", "content": "Most earn little.\n\nSubsidies are a third of it.", "relevance": "It pays."},
  {"source": "Records", "content": "Plots were sold.", "relevance": "What comes next."}],
 "warrant": "Harm to those helped.", "backing": null, "qualifier": "mostly",
 "attacks": [{"target_id": "opp_000a", "attack_type": "grounds_attack", "content": "One district only."}],
 "defends": []}`

// same reports whether two JSON texts hold the same value.
func same(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("the answer is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("the wanted answer is not JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	opening := `{"arguments": [` + rebuttal + `,` + rebuttal + `,` + rebuttal + `]}`
	tests := []struct {
		name   string
		schema map[string]any
		answer string
	}{
		{"dialectic rebuttal", dialectic.RebuttalSchema([]string{"opp_000a", "opp_000b"}, []string{"prop_000a"}), rebuttal},
		{"dialectic opening", dialectic.OpeningSchema(), opening},
		{"dialectic judgment", dialectic.JudgmentSchema([]string{"prop_001", "opp_001"}, []string{"prop_000a"}), `{"scores": [{"argument_id": "prop_001", "score": 0.3, "reasoning": "Better."},
			{"argument_id": "opp_001", "score": -0.3, "reasoning": "Worse."}],
			"rescores": [{"argument_id": "prop_000a", "old_score": 0.1, "new_score": -0.2, "reasoning": "Answered."}]}`},
		{"dialectic judgment without rescores", dialectic.JudgmentSchema([]string{"prop_001"}, nil), `{"scores": [{"argument_id": "prop_001", "score": 0, "reasoning": "Even."}], "rescores": []}`},
		{"forum score", forumScore, `{"score": 7, "reasoning": "Clear,\nand brief."}`},
		{"forum verdict", forumVerdict, `{"winner": "Brook", "scores": {"Ada": 5, "Brook": 8}}`},
		{"refine skeptic", refineSkeptic, `{"critique": "Thin.", "previous": [{"id": "p1", "status": "open", "note": "Still there."}],
			"points": [{"severity": "major", "text": "No numbers."}, {"severity": "minor", "text": "Typos."}], "score": 4, "ready": false}`},
		{"refine judge", refineJudge, `{"score": 6, "criteria": {"clarity": 7, "depth": 5}, "justification": "Fair.", "would_benefit": true}`},
		{"moderated rubric", moderatedRubric, `{"logic": {"score": 7.5, "justification": "Sound."}, "evidence": {"score": 6, "justification": "Some."}}`},
		{"panel reaction", panelReact, `{"reply_to": "Mara", "text": "I disagree."}`},
		{"list of text", tags, `{"tags": ["one", "two words"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := sm.Call{Role: "proposition", Schema: tt.schema}
			form, err := Fill(c, []byte(tt.answer))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(c, form)
			if err != nil {
				t.Fatalf("%v\nin the form:\n%s", err, form)
			}
			same(t, got, []byte(tt.answer))
			// Handed in as JSON, the answer is taken as it is.
			got, kind, err := Read(c, []byte(tt.answer))
			if err != nil || kind != KindJSON {
				t.Fatalf("Read of the JSON: %v, %s", err, kind)
			}
			same(t, got, []byte(tt.answer))
			// And in its draft, after what the role sees.
			draft := Draft("a test", sm.Call{Role: "proposition", Schema: tt.schema, Messages: []sm.Message{
				{Role: "system", Content: "## title\nNot the form.\n" + Marker + " in the text"}}}, []string{"an error"}, form)
			got, kind, err = Read(c, []byte(draft))
			if err != nil || kind != KindForm {
				t.Fatalf("Read of the draft: %v, %s", err, kind)
			}
			same(t, got, []byte(tt.answer))
		})
	}
}

func TestText(t *testing.T) {
	c := sm.Call{Role: "judge"}
	form, err := Fill(c, []byte("Ada\n\nwins."))
	if err != nil {
		t.Fatal(err)
	}
	got, kind, err := Read(c, []byte(Draft("t", c, nil, form)))
	if err != nil || kind != KindForm || string(got) != "Ada\n\nwins." {
		t.Fatalf("got %q, %s, %v", got, kind, err)
	}
	// A text answer that looks like JSON is still text.
	got, kind, err = Read(c, []byte(`{"a": 1}`))
	if err != nil || kind != KindForm || string(got) != `{"a": 1}` {
		t.Fatalf("got %q, %s, %v", got, kind, err)
	}
}

// TestParse pins the form's format with forms written by hand.
func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		schema map[string]any
		form   string
		want   string
	}{
		{"rebuttal", dialectic.RebuttalSchema([]string{"opp_000a", "opp_000b"}, []string{"prop_000a"}), `# Your answer
<!-- hints are left out -->
## title
  Subsidies <b>keep</b> growers afloat  

## claim
Cutting them pushes growers out.

## grounds
- source: A survey
  content: Most earn little.

  Subsidies are a third of it.
  relevance: It pays.
-   source: Records
    content: Plots were sold.
    relevance: What comes next.
- source:
  content:
  relevance:

## warrant
Harm to those helped.

## backing (optional)

## qualifier (optional)
mostly

## attacks
- target_id: opp_000a
  attack_type: Grounds_Attack
  content: One district only.

## defends
- target_id:
  defense_type:
  content:
`, rebuttal},
		{"judgment", dialectic.JudgmentSchema([]string{"prop_001", "opp_001"}, []string{"prop_000a"}), `## scores
- argument_id: prop_001
  score: +0.3
  reasoning: Better.
- argument_id: opp_001
  score: -0.3
  reasoning: Worse.
## rescores
`, `{"scores": [{"argument_id": "prop_001", "score": 0.3, "reasoning": "Better."}, {"argument_id": "opp_001", "score": -0.3, "reasoning": "Worse."}], "rescores": []}`},
		{"verdict", forumVerdict, "## winner\nada\n\n## scores\nAda: 8/10\nBrook: 6\n", `{"winner": "Ada", "scores": {"Ada": 8, "Brook": 6}}`},
		{"yes and no", refineJudge, "## score\n6\n## criteria\nclarity: 7\n- depth: 5\n## justification\nFair.\n## would_benefit\nYes\n",
			`{"score": 6, "criteria": {"clarity": 7, "depth": 5}, "justification": "Fair.", "would_benefit": true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(sm.Call{Schema: tt.schema}, tt.form)
			if err != nil {
				t.Fatal(err)
			}
			same(t, got, []byte(tt.want))
		})
	}
}

// TestFormShape: the judge's form has a row per argument to score and
// lists the ids it may rescore; the verdict's scores are FIELD: VALUE
// lines.
func TestFormShape(t *testing.T) {
	c := sm.Call{Role: "judge", Schema: dialectic.JudgmentSchema([]string{"prop_002", "opp_002"}, []string{"prop_000a", "opp_001"}),
		Rows:    map[string][]string{"scores.argument_id": {"prop_002", "opp_002"}},
		Choices: map[string][]string{"rescores.argument_id": {"prop_000a", "opp_001"}}}
	form, err := Form(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		Marker + "\n# Your answer\n",
		"## scores\n",
		"- argument_id: prop_002\n  score: \n  reasoning: \n- argument_id: opp_002\n",
		"argument_id: one of prop_000a, opp_001;",
		"## rescores\n",
	} {
		if !strings.Contains(form, want) {
			t.Errorf("the form lacks %q:\n%s", want, form)
		}
	}
	// Left as it is, the form says what is missing.
	_, err = Parse(c, form)
	if err == nil || !strings.Contains(err.Error(), "scores item 1, score: a number is needed") {
		t.Errorf("got %v", err)
	}
	verdict, err := Form(sm.Call{Schema: forumVerdict})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(verdict, "## winner\n<!-- one of Ada, Brook -->\n") || !strings.Contains(verdict, "\nAda: \nBrook: \n") {
		t.Errorf("verdict form:\n%s", verdict)
	}
	text, err := Form(sm.Call{})
	if err != nil || !strings.HasPrefix(text, formHead) {
		t.Errorf("text form %q, %v", text, err)
	}
}

func TestParseErrors(t *testing.T) {
	reb := dialectic.RebuttalSchema([]string{"opp_000a", "opp_000b"}, []string{"prop_000a"})
	full := func(replace, with string) string {
		form, err := Fill(sm.Call{Schema: reb}, []byte(rebuttal))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(form, replace) {
			t.Fatalf("the form lacks %q", replace)
		}
		return strings.Replace(form, replace, with, 1)
	}
	tests := []struct {
		name   string
		schema map[string]any
		form   string
		want   []string
	}{
		{"unknown section", reb, full("## warrant\n", "## warant\n"), []string{
			`unknown section "## warant" (the sections are title, claim, grounds, warrant, backing, qualifier, attacks, defends)`,
			`warrant: the section "## warrant" is missing`}},
		{"section twice", reb, full("## claim\n", "## title\nAgain\n## claim\n"), []string{"title: the section is there twice"}},
		{"text before the first section", reb, strings.Replace(full("", ""), "# Your answer", "# Your answer\nstray words", 1),
			[]string{`text before the first section ("stray words")`}},
		{"a line of no field", reb, full("- source: A survey", "source A survey"), []string{
			`grounds: "source A survey" belongs to no field: begin a line with one of source, content, relevance followed by ":"`}},
		{"a field twice", reb, full("  relevance: It pays.", "  relevance: It pays.\n  source: Again"), []string{
			`grounds item 1: source is given twice: begin the next item with "- "`}},
		{"wrong choice", reb, full("attack_type: grounds_attack", "attack_type: ground_attack"), []string{
			`attacks item 1, attack_type: "ground_attack" is not one of claim_attack, grounds_attack, warrant_attack, backing_attack`}},
		{"not a number", forumScore, "## score\nseven\n## reasoning\nok\n", []string{`score: "seven" is not a number`}},
		{"not whole", forumScore, "## score\n7.5\n## reasoning\nok\n", []string{`score: "7.5" is not a whole number`}},
		{"no number", forumScore, "## score\n\n## reasoning\nok\n", []string{`score: a number is needed`}},
		{"not yes or no", refineJudge, "## score\n6\n## criteria\nclarity: 7\ndepth: 5\n## justification\nok\n## would_benefit\nperhaps\n",
			[]string{`would_benefit: "perhaps" is not yes or no`}},
		{"list item without dash", tags, "## tags\none\n", []string{`tags: "one" is not in a list item: begin each item with "- "`}},
		{"empty text", nil, formHead + "<!-- nothing -->\n\n", []string{"the answer is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(sm.Call{Schema: tt.schema}, tt.form)
			if err == nil {
				t.Fatalf("no error for:\n%s", tt.form)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestReadNotJSON: what is not JSON and has no marker is taken as a
// form; JSON that is not valid is taken as a form too, and fails as one.
func TestReadNotJSON(t *testing.T) {
	_, kind, err := Read(sm.Call{Schema: forumScore}, []byte(`{"score": 7,`))
	if kind != KindForm || err == nil {
		t.Fatalf("got %s, %v", kind, err)
	}
	var fe *FormError
	if !bytes.Contains([]byte(err.Error()), []byte("the form cannot be read")) || !errorsAs(err, &fe) {
		t.Errorf("got %v", err)
	}
}

func errorsAs(err error, fe **FormError) bool {
	e, ok := err.(*FormError)
	*fe = e
	return ok
}

// TestFormEmptyList: a list its schema bounds to no items (an opening's
// attacks and defences, which attack and defend nothing) shows no blank
// item and says to leave it empty, and reads back as an empty list.
func TestFormEmptyList(t *testing.T) {
	c := sm.Call{Schema: dialectic.OpeningSchema()}
	form, err := Form(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(form, "none here: leave it empty -->") != 6 || strings.Contains(form, "- target_id:") {
		t.Errorf("the opening's form offers attacks or defences:\n%s", form)
	}
	opening := `{"arguments": [` + strings.Repeat(openingArgument+",", 2) + openingArgument + `]}`
	filled, err := Fill(c, []byte(opening))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(c, string(filled))
	if err != nil {
		t.Fatal(err)
	}
	same(t, got, []byte(opening))
}

const openingArgument = `{"title": "Subsidies keep growers afloat", "claim": "Cutting them pushes growers out.",
	"grounds": [{"source": "FAO 2023", "content": "Prices fell.", "relevance": "Incomes."}],
	"warrant": "Income keeps farms.", "backing": null, "qualifier": null, "attacks": [], "defends": []}`
