package dialectic

import (
	"fmt"
	"regexp"
	"strconv"
)

// ID is a parsed argument id.
type ID struct {
	Side     Side
	Exchange int
	Letter   byte // 'a', 'b' or 'c' in the opening, 0 otherwise
}

// String formats the id as it is written in files.
func (id ID) String() string {
	if Opening(id.Exchange) {
		return fmt.Sprintf("%s_%03d%c", id.Side, id.Exchange, id.Letter)
	}
	return fmt.Sprintf("%s_%03d", id.Side, id.Exchange)
}

// Less orders ids by exchange, then proposition before opposition, then
// letter: the order moot lists and writes them in.
func (id ID) Less(o ID) bool {
	if id.Exchange != o.Exchange {
		return id.Exchange < o.Exchange
	}
	if id.Side != o.Side {
		return id.Side == Prop
	}
	return id.Letter < o.Letter
}

// ArgumentIDs lists the ids side gives in exchange.
func ArgumentIDs(exchange int, side Side) []string {
	if Opening(exchange) {
		return []string{
			ID{side, 0, 'a'}.String(),
			ID{side, 0, 'b'}.String(),
			ID{side, 0, 'c'}.String(),
		}
	}
	return []string{ID{Side: side, Exchange: exchange}.String()}
}

// ExchangeIDs lists every id of exchange, proposition first.
func ExchangeIDs(exchange int) []string {
	return append(ArgumentIDs(exchange, Prop), ArgumentIDs(exchange, Opp)...)
}

var idPattern = regexp.MustCompile(`^(prop|opp)_([0-9]{3,5})([a-c]?)$`)

// ParseID parses an argument id. Only the canonical spelling is accepted,
// so an id is also always a safe file name.
func ParseID(s string) (ID, error) {
	m := idPattern.FindStringSubmatch(s)
	if m == nil {
		return ID{}, fmt.Errorf("%q is not an argument id (like prop_000a or opp_003)", truncate(s, 40))
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return ID{}, fmt.Errorf("%q is not an argument id", s)
	}
	id := ID{Side: Side(m[1]), Exchange: n}
	if m[3] != "" {
		id.Letter = m[3][0]
	}
	if id.String() != s {
		return ID{}, fmt.Errorf("%q is not an argument id (the canonical form is %s)", s, canonicalHint(id))
	}
	return id, nil
}

func canonicalHint(id ID) string {
	if Opening(id.Exchange) && id.Letter == 0 {
		return fmt.Sprintf("%s_000a, %s_000b or %s_000c", id.Side, id.Side, id.Side)
	}
	if !Opening(id.Exchange) {
		id.Letter = 0
	}
	return id.String()
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
