package dialectic

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ID is a parsed argument id.
type ID struct {
	Side     Side
	Exchange int
	Letter   byte // 'a', 'b' or 'c' in the opening, 0 otherwise
}

// String formats the id as it is written in files.
func (id ID) String() string {
	var buf [24]byte
	return string(id.appendTo(buf[:0]))
}

// appendTo appends the id as String spells it to b: the side, "_", the
// exchange with at least three digits and, in the opening, the letter. It
// is written out by hand, not with fmt, as every read of a debate spells
// each id several times.
func (id ID) appendTo(b []byte) []byte {
	if id.Exchange < 0 {
		// Not an id of any debate; spelled as fmt's %03d would.
		b = fmt.Appendf(b, "%s_%03d", id.Side, id.Exchange)
	} else {
		b = append(b, id.Side...)
		b = append(b, '_')
		switch {
		case id.Exchange < 10:
			b = append(b, '0', '0')
		case id.Exchange < 100:
			b = append(b, '0')
		}
		b = strconv.AppendInt(b, int64(id.Exchange), 10)
	}
	if Opening(id.Exchange) {
		b = utf8.AppendRune(b, rune(id.Letter))
	}
	return b
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

// splitID splits s as "prop" or "opp", "_", three to five digits and an
// optional letter a to c, the shape of an argument id. Every read of a
// debate parses every id, so this is done by hand rather than with a
// regexp, which would also be compiled at every start.
func splitID(s string) (side Side, digits string, letter byte, ok bool) {
	switch {
	case strings.HasPrefix(s, "prop_"):
		side, s = Prop, s[len("prop_"):]
	case strings.HasPrefix(s, "opp_"):
		side, s = Opp, s[len("opp_"):]
	default:
		return "", "", 0, false
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	digits, s = s[:n], s[n:]
	if n < 3 || n > 5 {
		return "", "", 0, false
	}
	if len(s) == 1 && s[0] >= 'a' && s[0] <= 'c' {
		letter, s = s[0], ""
	}
	if s != "" {
		return "", "", 0, false
	}
	return side, digits, letter, true
}

// ParseID parses an argument id. Only the canonical spelling is accepted,
// so an id is also always a safe file name.
func ParseID(s string) (ID, error) {
	side, digits, letter, ok := splitID(s)
	if !ok {
		return ID{}, fmt.Errorf("%q is not an argument id (like prop_000a or opp_003)", truncate(s, 40))
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return ID{}, fmt.Errorf("%q is not an argument id", s)
	}
	id := ID{Side: side, Exchange: n, Letter: letter}
	var buf [24]byte
	if string(id.appendTo(buf[:0])) != s {
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
