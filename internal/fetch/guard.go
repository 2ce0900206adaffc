package fetch

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"syscall"

	"golang.org/x/net/idna"
)

// ErrPrivate is matched (errors.Is) by every refusal of the SSRF guard: the
// address or host name is not a public one. The refusal is permanent: no
// request was sent, and asking again gets the same answer; only
// Config.AllowPrivate lifts it.
var ErrPrivate = errors.New("private address (use --allow-private)")

// blockedError reports an address or host name the SSRF guard refused.
type blockedError struct {
	addr string // the address or host name refused
	why  string // the range or rule it fell under
}

func (e *blockedError) Error() string {
	return "refused to connect to " + e.addr + " (" + e.why + ")"
}

// Is makes errors.Is(err, ErrPrivate) hold.
func (e *blockedError) Is(target error) bool { return target == ErrPrivate }

// reservedRanges are refused in addition to the ranges netip.Addr classifies
// itself (loopback, private, link-local, multicast, unspecified).
var reservedRanges = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // includes 255.255.255.255
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/32"), "Teredo"}, // its client's IPv4 address, obfuscated, may be any
	{netip.MustParsePrefix("2001:2::/48"), "benchmarking"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

// Translation prefixes whose addresses carry an IPv4 address; they are
// refused when the embedded address is.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052, IPv4 in the last 32 bits
	siit      = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765 IPv4-translated, last 32 bits
	sixToFour = netip.MustParsePrefix("2002::/16")       // RFC 3056, IPv4 in bits 16-47
)

// blockedAddr reports whether a is an address the crawler must not connect
// to, and the range it falls in. Invalid addresses are blocked.
func blockedAddr(a netip.Addr) (why string, blocked bool) {
	a = a.WithZone("")
	if a.Is4In6() {
		a = a.Unmap()
	}
	switch {
	case !a.IsValid():
		return "invalid address", true
	case a.IsUnspecified():
		return "unspecified", true
	case a.IsLoopback():
		return "loopback", true
	case a.IsPrivate():
		return "private", true
	case a.IsLinkLocalUnicast():
		return "link-local", true
	case a.IsMulticast():
		return "multicast", true
	}
	for _, r := range reservedRanges {
		if r.prefix.Contains(a) {
			return r.why, true
		}
	}
	if a.Is6() {
		b := a.As16()
		var v4 netip.Addr
		switch {
		case nat64.Contains(a), siit.Contains(a):
			v4 = netip.AddrFrom4([4]byte(b[12:16]))
		case sixToFour.Contains(a):
			v4 = netip.AddrFrom4([4]byte(b[2:6]))
		}
		if v4.IsValid() {
			if why, bad := blockedAddr(v4); bad {
				return "embeds " + why + " IPv4 address", true
			}
		}
	}
	return "", false
}

// checkHost checks a host name or IP literal that someone else will resolve
// (a proxy, or a Dial override): IP literals by range, and names that
// resolve to loopback by convention ("localhost", "*.localhost") or that a
// resolver may read as an IPv4 address in another notation ("2130706433",
// "0x7f.1") are refused.
func checkHost(host string) error {
	h := strings.ToLower(strings.TrimRight(host, "."))
	if a, err := netip.ParseAddr(h); err == nil {
		if why, bad := blockedAddr(a); bad {
			return &blockedError{addr: host, why: why}
		}
		return nil
	}
	if !isASCII(h) {
		// A proxy may map compatibility forms ("ｌｏｃａｌｈｏｓｔ") the
		// way IDNA lookup does; check the name it would look up.
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return &blockedError{addr: host, why: "invalid host name"}
		}
		h = strings.ToLower(strings.TrimRight(a, "."))
		if a, err := netip.ParseAddr(h); err == nil {
			if why, bad := blockedAddr(a); bad {
				return &blockedError{addr: host, why: why}
			}
			return nil
		}
	}
	switch {
	case h == "":
		return &blockedError{addr: host, why: "empty host"}
	case h == "localhost" || strings.HasSuffix(h, ".localhost"):
		return &blockedError{addr: host, why: "localhost name"}
	case endsInNumber(h):
		return &blockedError{addr: host, why: "numeric host name"}
	}
	return nil
}

// endsInNumber reports whether the last label of h is a decimal or 0x-hex
// number: WHATWG URL hosts and inet_aton read such names as IPv4 addresses,
// and no public DNS name has a numeric top-level label.
func endsInNumber(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if strings.HasPrefix(last, "0x") {
		last = last[2:]
		for i := 0; i < len(last); i++ {
			c := last[i]
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
		return true
	}
	if last == "" {
		return false
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// controlDial is a net.Dialer ControlContext function: it sees every
// resolved address the dialer is about to connect to, before any packet is
// sent, and refuses blocked ones.
func controlDial(_ context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &blockedError{addr: address, why: "unparsable address"}
	}
	if why, bad := blockedAddr(ap.Addr()); bad {
		return &blockedError{addr: ap.Addr().String(), why: why}
	}
	return nil
}
