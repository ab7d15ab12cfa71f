package dialectic

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/moot-dev/moot/templates"
)

// TemplateError is a template that cannot produce a prompt: it names a
// field no prompt has, or fails when executed.
type TemplateError struct {
	// File is the template's file (see templates.Set.File).
	File string
	// Problem says what is wrong, with the line where that is known.
	Problem string
}

func (e *TemplateError) Error() string {
	return fmt.Sprintf("template %s: %s\n  a template may use %s", e.File, e.Problem, Fields())
}

// promptTemplates are the templates Validate executes, each with the kinds
// of prompt it is rendered for.
var promptTemplates = []string{
	"debater-system.md", "debater-opening.md", "debater-rebuttal.md",
	"judge-system.md", "judge.md", "repair.md",
}

// Validate checks every template of t before a run asks any model: each
// must use only fields a prompt has, and must execute for both sides, for
// the judge and for a repair, against a debate that has definitions, a
// scope, earlier arguments and scores. The error is a *TemplateError.
func Validate(t *templates.Set) error {
	for _, name := range promptTemplates {
		tmpl, err := t.Parse(name)
		if err != nil {
			return &TemplateError{File: t.File(name), Problem: err.Error()}
		}
		if p := unknownField(tmpl); p != "" {
			return &TemplateError{File: t.File(name), Problem: p}
		}
		for _, v := range samples() {
			if _, err := t.Render(name, v); err != nil {
				return &TemplateError{File: t.File(name), Problem: execProblem(err)}
			}
		}
	}
	return nil
}

// execProblem is the part of a template's execution error that says
// where and what.
func execProblem(err error) string {
	var ee template.ExecError
	if errors.As(err, &ee) {
		return ee.Err.Error()
	}
	return err.Error()
}

// samples are representative values of every prompt's data: each side's
// debater with arguments on both sides, the judge with new arguments and
// an index of earlier ones, and a repair.
func samples() []data {
	m := data{
		Motion:      "This house would tax sugar.",
		Definitions: []Definition{{Term: "sugar", Meaning: "added sugars"}},
		Scope:       "Rich countries only.",
		Exchange:    2,
	}
	arg := func(id, side string, x int) argumentView {
		return argumentView{ID: id, SideName: side, Exchange: x, Title: "A title", Body: "A body."}
	}
	prop, opp := m, m
	prop.Side, prop.Opponent = "proposition", "opposition"
	opp.Side, opp.Opponent = "opposition", "proposition"
	prop.Own, prop.Others = []argumentView{arg("prop_001", "proposition", 1)}, []argumentView{arg("opp_001", "opposition", 1)}
	opp.Own, opp.Others = prop.Others, prop.Own
	prop.Earlier = []argumentView{arg("prop_001", "proposition", 1), arg("opp_001", "opposition", 1)}
	opp.Earlier = prop.Earlier
	judge := m
	judge.Arguments = []argumentView{arg("prop_002", "proposition", 2), arg("opp_002", "opposition", 2)}
	judge.Index = []indexEntry{{ID: "prop_001", SideName: "proposition", Exchange: 1, Title: "A title", Claim: "A claim.", Score: "+0.10"}}
	judge.IDs = []string{"prop_002", "opp_002"}
	focused := judge
	focused.Focused = true
	focused.Rest = []indexEntry{{ID: "opp_001", SideName: "opposition", Exchange: 1, Title: "A title", Claim: "A claim.", Score: "-0.10"}}
	repair := data{Errors: []string{"grounds: is required"}}
	opening := prop
	opening.Exchange, opening.Own, opening.Others, opening.Earlier = 0, nil, nil, nil
	return []data{prop, opp, opening, judge, focused, repair}
}

// Fields lists the fields a template may use, as a person would write
// them, grouped by what they belong to.
func Fields() string {
	names := func(v any) string {
		t := reflect.TypeOf(v)
		var out []string
		for i := range t.NumField() {
			out = append(out, "."+t.Field(i).Name)
		}
		return strings.Join(out, " ")
	}
	return strings.Join([]string{
		".Motion .Scope .Exchange",
		".Definitions (each " + names(Definition{}) + ")",
		".Side .Opponent (debaters)",
		".Earlier .Own .Others (debaters) and .Arguments (judge), each " + names(argumentView{}),
		".Index .Rest (judge), each " + names(indexEntry{}),
		".Focused (judge)",
		".IDs (judge)",
		".Errors (repair)",
	}, "; ")
}

// knownFields is every field name of the data prompts are rendered with.
func knownFields() []string {
	var out []string
	for _, v := range []any{data{}, argumentView{}, indexEntry{}, Definition{}} {
		t := reflect.TypeOf(v)
		for i := range t.NumField() {
			out = append(out, t.Field(i).Name)
		}
	}
	return out
}

// unknownField describes the first field a template names that no prompt
// data has, or returns "".
func unknownField(t *template.Template) string {
	known := knownFields()
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		var found string
		walk(tt.Tree.Root, func(n parse.Node, idents []string) bool {
			for _, id := range idents {
				if !slices.Contains(known, id) {
					loc, _ := tt.Tree.ErrorContext(n)
					found = fmt.Sprintf("%s: {{%s}} is not a field a template may use", loc, n)
					return false
				}
			}
			return true
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// walk calls visit with every node that names fields, and the names,
// until visit returns false.
func walk(n parse.Node, visit func(parse.Node, []string) bool) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *parse.ListNode:
		if n == nil {
			return true
		}
		for _, c := range n.Nodes {
			if !walk(c, visit) {
				return false
			}
		}
	case *parse.ActionNode:
		return walk(n.Pipe, visit)
	case *parse.IfNode:
		return walk(n.Pipe, visit) && walk(n.List, visit) && walk(n.ElseList, visit)
	case *parse.RangeNode:
		return walk(n.Pipe, visit) && walk(n.List, visit) && walk(n.ElseList, visit)
	case *parse.WithNode:
		return walk(n.Pipe, visit) && walk(n.List, visit) && walk(n.ElseList, visit)
	case *parse.TemplateNode:
		return walk(n.Pipe, visit)
	case *parse.PipeNode:
		if n == nil {
			return true
		}
		for _, c := range n.Cmds {
			if !walk(c, visit) {
				return false
			}
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			if !walk(a, visit) {
				return false
			}
		}
	case *parse.FieldNode:
		return visit(n, n.Ident)
	case *parse.ChainNode:
		return walk(n.Node, visit) && visit(n, n.Field)
	case *parse.VariableNode:
		return visit(n, n.Ident[1:])
	}
	return true
}
