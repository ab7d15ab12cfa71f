// Package dfquad computes the DF-QuAD gradual semantics of a bipolar argument
// graph (Rago et al. 2016), in which arguments attack and support each other:
// each argument's strength in [0, 1] starts from its base score, is pulled
// down by the aggregated strength of its attackers and up by that of its
// supporters.
//
// As in the belief-graph mode that moot's design notes describe (protocol
// 003), the acyclic part of the graph is evaluated in topological order
// (Kahn's algorithm), and an argument on a cycle, or downstream of one, is
// never evaluated: its strength is not guessed. Edges carry no weight (weight
// 1 in the design's terms), and an attack and a support that aggregate to
// within Tie of each other leave the base score unchanged.
package dfquad

import (
	"fmt"
	"math"
	"slices"
)

// Node is an argument: its base score in [0, 1], and the IDs of the
// arguments that attack and support it. An ID listed twice is two edges and
// counts twice.
type Node struct {
	ID                    string
	Base                  float64
	Attackers, Supporters []string
}

// Result holds the strengths of a graph. Strength maps the ID of every
// evaluated node to its strength. Unevaluated lists, sorted, the nodes on a
// cycle and the nodes whose strength depends on one; they have no strength.
type Result struct {
	Strength    map[string]float64
	Unevaluated []string
}

// Tie is how close the aggregated attack and support must be for Combine to
// treat them as equal and leave the base score as it is, as moot's design
// says.
const Tie = 1e-9

// Aggregate returns the DF-QuAD aggregation of the strengths v:
// 1 - Π(1 - v_i), and 0 for none.
func Aggregate(v []float64) float64 {
	p := 1.0
	for _, s := range v {
		p *= 1 - s
	}
	return 1 - p
}

// Combine returns the DF-QuAD strength of an argument with base score base,
// aggregated attack va and aggregated support vs: base when va and vs are
// equal (within Tie); base - base·(va - vs) when the attack is stronger,
// towards 0; base + (1 - base)·(vs - va) when the support is, towards 1.
func Combine(base, va, vs float64) float64 {
	switch {
	case math.Abs(va-vs) < Tie:
		return base
	case va > vs:
		return base - base*(va-vs)
	default:
		return base + (1-base)*(vs-va)
	}
}

// Strengths evaluates the acyclic part of the graph in topological order:
// σ(a) = Combine(base(a), Aggregate(σ of a's attackers), Aggregate(σ of a's
// supporters)). It returns an error for a base outside [0,1], a duplicate
// ID, or an edge from an unknown node.
func Strengths(nodes []Node) (Result, error) {
	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		if !(n.Base >= 0 && n.Base <= 1) {
			return Result{}, fmt.Errorf("node %q: base %v is outside [0, 1]", n.ID, n.Base)
		}
		if _, dup := index[n.ID]; dup {
			return Result{}, fmt.Errorf("node %q appears twice", n.ID)
		}
		index[n.ID] = i
	}
	// waiting[i] counts node i's incoming edges from nodes not yet
	// evaluated; next[j] lists the nodes that node j attacks or supports.
	waiting := make([]int, len(nodes))
	next := make([][]int, len(nodes))
	for i, n := range nodes {
		for _, edges := range [2]struct {
			kind string
			from []string
		}{{"attacker", n.Attackers}, {"supporter", n.Supporters}} {
			for _, from := range edges.from {
				j, ok := index[from]
				if !ok {
					return Result{}, fmt.Errorf("node %q: %s %q is not a node", n.ID, edges.kind, from)
				}
				next[j] = append(next[j], i)
				waiting[i]++
			}
		}
	}
	var queue []int
	for i := range nodes {
		if waiting[i] == 0 {
			queue = append(queue, i)
		}
	}
	res := Result{Strength: make(map[string]float64, len(nodes))}
	var attack, support []float64
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		n := nodes[i]
		attack, support = attack[:0], support[:0]
		for _, from := range n.Attackers {
			attack = append(attack, res.Strength[from])
		}
		for _, from := range n.Supporters {
			support = append(support, res.Strength[from])
		}
		res.Strength[n.ID] = Combine(n.Base, Aggregate(attack), Aggregate(support))
		for _, k := range next[i] {
			waiting[k]--
			if waiting[k] == 0 {
				queue = append(queue, k)
			}
		}
	}
	for _, n := range nodes {
		if _, ok := res.Strength[n.ID]; !ok {
			res.Unevaluated = append(res.Unevaluated, n.ID)
		}
	}
	slices.Sort(res.Unevaluated)
	return res, nil
}
