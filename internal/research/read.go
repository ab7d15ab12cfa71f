package research

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/moot-dev/moot/internal/evidence"
)

// Reader reads web pages into text, carefully: HTTP(S) only, a bounded
// number of redirects, a size and time cap, and no private, loopback or
// link-local address (checked on the address each connection is made to,
// so that neither a redirect nor a DNS answer that changes can get
// around it) unless AllowPrivate.
type Reader struct {
	AllowPrivate bool
	// MaxBytes caps the bytes read of a page; 0 means DefaultMaxPageBytes.
	MaxBytes int64
	// Timeout caps one read, redirects included; 0 means
	// DefaultPageTimeout.
	Timeout time.Duration
	// MaxRedirects caps the redirects followed; 0 means 5.
	MaxRedirects int
	// Now is the clock of the copies' times; nil means time.Now.
	Now func() time.Time
}

// The reader's default caps.
const (
	DefaultMaxPageBytes = 2 << 20
	DefaultPageTimeout  = 20 * time.Second
)

// ErrPrivate is the error of a read refused for its address.
var ErrPrivate = errors.New("the address is private, loopback or link-local (moot reads only public pages unless --research-allow-private)")

// allowed reports whether a connection may be made to ip. An IPv6
// address that carries an IPv4 one through NAT64 is judged by the IPv4
// address it reaches.
func allowed(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.Is6() && nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte(b[12:]))
	}
	return ip.IsValid() && !ip.IsLoopback() && !ip.IsPrivate() && !ip.IsLinkLocalUnicast() &&
		!ip.IsLinkLocalMulticast() && !ip.IsUnspecified() && !ip.IsMulticast() && !ip.IsInterfaceLocalMulticast() &&
		!cgnat.Contains(ip) && !thisNetwork.Contains(ip) && !reserved.Contains(ip)
}

var (
	// cgnat is the shared address space of carrier-grade NAT, private too.
	cgnat = netip.MustParsePrefix("100.64.0.0/10")
	// thisNetwork (0.0.0.0/8) reaches the local host on some systems.
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	// reserved is 240.0.0.0/4, never a public host (its last address is
	// the limited broadcast).
	reserved = netip.MustParsePrefix("240.0.0.0/4")
	// nat64 is the well-known NAT64 prefix, whose addresses stand for the
	// IPv4 address in their last four bytes.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

func (r *Reader) client() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !r.AllowPrivate {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !allowed(ap.Addr()) {
				return ErrPrivate
			}
			return nil
		}
	}
	tr := &http.Transport{
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: r.timeout(),
		// Each read has a transport of its own: no connection outlives it.
		DisableKeepAlives: true,
		// No proxy: a proxy would make the connection, and the address
		// check with it.
		Proxy: nil,
	}
	redirects := r.MaxRedirects
	if redirects <= 0 {
		redirects = 5
	}
	return &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > redirects {
			return fmt.Errorf("more than %d redirects", redirects)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("a redirect to %s: only http and https are read", req.URL.Scheme)
		}
		return nil
	}}
}

func (r *Reader) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return DefaultPageTimeout
}

// Read reads the page at raw and returns it as a source: with its text
// when it was read, else with Error saying why not. A failure is never a
// Go error: an unreadable page is evidence too (of a ground that cannot
// be verified).
func (r *Reader) Read(ctx context.Context, raw string) evidence.Source {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	src := evidence.Source{URL: raw, Fetched: now().UTC()}
	fail := func(format string, args ...any) evidence.Source {
		src.Error = fmt.Sprintf(format, args...)
		src.Text = ""
		return src
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail("not an http(s) URL")
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !r.AllowPrivate && !allowed(ip) {
		return fail("refused: %v", ErrPrivate)
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return fail("%v", err)
	}
	req.Header.Set("User-Agent", "moot (research; +https://github.com/moot-dev/moot)")
	req.Header.Set("Accept", "text/html, text/plain;q=0.9, */*;q=0.1")
	res, err := r.client().Do(req)
	if err != nil {
		if errors.Is(err, ErrPrivate) {
			return fail("refused: %v", ErrPrivate)
		}
		if ctx.Err() != nil {
			return fail("no answer within %s", r.timeout())
		}
		return fail("%s", strings.TrimPrefix(err.Error(), "Get \""+raw+"\": "))
	}
	defer res.Body.Close()
	src.Status = res.StatusCode
	if final := res.Request.URL.String(); final != raw {
		src.FinalURL = final
	}
	limit := r.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxPageBytes
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return fail("the page did not arrive within %s", r.timeout())
		}
		return fail("reading the page: %v", err)
	}
	truncated := int64(len(body)) > limit
	if truncated {
		body = body[:limit]
	}
	if res.StatusCode < 200 || res.StatusCode >= 300 {
		return fail("the server answered %d", res.StatusCode)
	}
	ctype := res.Header.Get("Content-Type")
	if strings.TrimSpace(ctype) == "" {
		// A server that names no type: the content says what it is, so
		// that a binary file is not taken for text.
		ctype = http.DetectContentType(body)
	}
	mt, _, _ := mime.ParseMediaType(ctype)
	if mt == "text/html" || mt == "application/xhtml+xml" || strings.HasPrefix(mt, "text/") {
		body = toUTF8(body, ctype)
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml" || (mt == "" && looksHTML(body)):
		src.Text = htmlText(body)
	case strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "":
		src.Text = string(body)
	default:
		return fail("the page is %s, which moot does not read as text", mt)
	}
	src.Text = strings.TrimSpace(strings.ToValidUTF8(strings.ReplaceAll(src.Text, "\r\n", "\n"), "\uFFFD"))
	if truncated {
		src.Text += "\n\n[moot: the page was cut at " + fmt.Sprint(limit) + " bytes]"
	}
	return src
}

// toUTF8 decodes a page's text into UTF-8: by the charset its header
// names, else as UTF-8 when it is valid UTF-8 (a page cut at the size cap
// may end in part of a character), else by its meta tag or, failing
// that, as Windows-1252, as browsers do. A charset it does not know
// leaves the bytes as they are.
func toUTF8(body []byte, ctype string) []byte {
	var enc encoding.Encoding
	if _, params, err := mime.ParseMediaType(ctype); err == nil && params["charset"] != "" {
		enc, _ = htmlindex.Get(params["charset"])
	} else if !utf8.Valid(body[:fullRunes(body)]) {
		enc, _, _ = charset.DetermineEncoding(body, ctype)
	}
	if enc == nil || enc == encoding.Nop {
		return body
	}
	if name, _ := htmlindex.Name(enc); name == "utf-8" {
		return body
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}

// fullRunes returns the length of b without a character cut short at its
// end.
func fullRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i > len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

func looksHTML(b []byte) bool {
	head := bytes.ToLower(bytes.TrimSpace(b[:min(len(b), 512)]))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}

// minMainText is the least text, in bytes, that a page's marked main
// content must hold to be read alone: less (a stub, a teaser) and the
// whole page is read.
const minMainText = 200

// htmlText returns the text of a page as Markdown: its main content where
// the page marks one (its <main> or role="main", else its one <article>)
// and it holds at least minMainText bytes of text, else the whole of its
// body. Either way what is never the page's text (scripts, styles, forms'
// controls, hidden parts) and the page's own chrome (navigation, sidebars,
// the page's banner and footer) are left out, and links and images keep
// only their text, so that the words of a sentence are the words read.
func htmlText(body []byte) string {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return ""
	}
	drop(doc, false)
	if main := mainContent(doc); main != nil {
		if text := markdown(main); len(text) >= minMainText {
			return text
		}
	}
	return markdown(doc)
}

// markdown converts n to Markdown and tidies it.
func markdown(n *html.Node) string {
	conv := converter.NewConverter(
		converter.WithEscapeMode(converter.EscapeModeDisabled),
		converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()),
	)
	// A link is its text, an image its alternative text: a URL's words
	// would break up the sentence a debater quotes.
	conv.Register.RendererFor("a", converter.TagTypeInline, func(ctx converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
		ctx.RenderChildNodes(ctx, w, n)
		return converter.RenderSuccess
	}, converter.PriorityEarly)
	conv.Register.RendererFor("img", converter.TagTypeInline, func(_ converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
		w.WriteString(strings.TrimSpace(attr(n, "alt")))
		return converter.RenderSuccess
	}, converter.PriorityEarly)
	out, err := conv.ConvertNode(n)
	if err != nil {
		return ""
	}
	return tidy(string(out))
}

// mainContent returns the element a page marks as its main content: its
// first <main> or element of role main, else its <article> when it has
// exactly one; nil when it marks none.
func mainContent(doc *html.Node) *html.Node {
	var main *html.Node
	var articles []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && main == nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch {
			case c.DataAtom == atom.Main || strings.EqualFold(attr(c, "role"), "main"):
				main = c
				return
			case c.DataAtom == atom.Article:
				articles = append(articles, c)
			}
			walk(c)
		}
	}
	walk(doc)
	if main == nil && len(articles) == 1 {
		main = articles[0]
	}
	return main
}

// drop removes from the tree under n what is never a page's text and the
// page's chrome. inContent says n is inside an article or the main
// content, where a <header> or <footer> is the article's own (its title,
// its byline) and is kept.
func drop(n *html.Node, inContent bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && chrome(c, inContent) {
			n.RemoveChild(c)
		} else {
			drop(c, inContent || c.DataAtom == atom.Article || c.DataAtom == atom.Main || strings.EqualFold(attr(c, "role"), "main"))
		}
		c = next
	}
}

// chrome reports whether element c is never text or is part of the
// page's chrome.
func chrome(c *html.Node, inContent bool) bool {
	switch c.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Head, atom.Iframe,
		atom.Object, atom.Embed, atom.Canvas, atom.Button, atom.Select, atom.Input, atom.Textarea,
		atom.Nav, atom.Aside, atom.Dialog:
		return true
	case atom.Header, atom.Footer:
		return !inContent
	}
	if _, hidden := attrOK(c, "hidden"); hidden || strings.EqualFold(attr(c, "aria-hidden"), "true") {
		return true
	}
	switch strings.ToLower(attr(c, "role")) {
	case "navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alert":
		return true
	}
	return false
}

// attr returns the value of n's attribute key, "" when it has none.
func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

// attrOK returns the value of n's attribute key and whether n has it.
func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// tidy trims the end of every line and keeps at most one blank line in a
// row.
func tidy(s string) string {
	var b strings.Builder
	blank := 0
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRightFunc(l, unicode.IsSpace)
		if strings.TrimSpace(l) == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			if blank > 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteString("\n")
			}
		}
		blank = 0
		b.WriteString(l)
	}
	if !utf8.ValidString(b.String()) {
		return strings.ToValidUTF8(b.String(), "\uFFFD")
	}
	return b.String()
}
