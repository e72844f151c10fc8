package publish

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// PrivateURL says why u is not a public web address, or "" when it is. A
// v1 reference cites its source by url, and the url must be one anybody
// can open: an absolute http or https address with no credentials whose
// host is neither a local name nor a loopback, private, link-local or
// otherwise non-public address.
//
// The host is read the way resolvers and browsers read it, so that no
// spelling of a private address passes: trailing dots are dropped
// ("localhost."), a host whose last label is a number is an IPv4 address
// in any inet_aton form (127.1, 0x7f.1, 2130706433, 017700000001) or
// refused as malformed, and an IPv6 address is judged by the IPv4 address
// it maps or embeds (::ffff:127.0.0.1). Names are not resolved: a public
// name is taken as public.
func PrivateURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Hostname() == "" {
		return "not an absolute http or https address"
	}
	if parsed.User != nil {
		return "it carries credentials"
	}
	host := strings.TrimRight(strings.ToLower(parsed.Hostname()), ".")
	if host == "" {
		return "not an absolute http or https address"
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		var numeric bool
		addr, numeric, err = parseIPv4Loose(host)
		switch {
		case numeric && err != nil:
			return "a malformed numeric address"
		case !numeric && localName(host):
			return "a local host name"
		case !numeric:
			return ""
		}
	}
	if !publicAddr(addr) {
		return "a private address"
	}
	return ""
}

// localNameSuffixes are the name suffixes that only resolve inside a
// network (RFC 6761, RFC 6762, RFC 8375 and common practice).
var localNameSuffixes = []string{".localhost", ".local", ".internal", ".lan", ".home.arpa", ".localdomain", ".arpa"}

// localName reports whether host (lower case, no trailing dot) names a
// machine of a local network: localhost, a name under a local suffix, or
// a single label, which a resolver completes with the local domain.
func localName(host string) bool {
	if host == "localhost" || !strings.Contains(host, ".") {
		return true
	}
	for _, suffix := range localNameSuffixes {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}

// parseIPv4Loose reads host as the WHATWG URL standard and inet_aton do
// when its last label is a number: one to four parts separated by dots,
// each decimal, octal (a leading 0) or hexadecimal (0x), the last filling
// the bytes the others leave. numeric is false when the last label is not
// a number, so host is a name; a numeric host that is not a valid address
// is an error.
func parseIPv4Loose(host string) (addr netip.Addr, numeric bool, err error) {
	parts := strings.Split(host, ".")
	if !isNumber(parts[len(parts)-1]) {
		return netip.Addr{}, false, nil
	}
	if len(parts) > 4 {
		return netip.Addr{}, true, strconv.ErrSyntax
	}
	var value uint64
	for i, p := range parts {
		n, err := ipv4Part(p)
		if err != nil {
			return netip.Addr{}, true, err
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, true, strconv.ErrRange
			}
			value |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(5-len(parts))) {
			return netip.Addr{}, true, strconv.ErrRange
		}
		value |= n
	}
	return netip.AddrFrom4([4]byte{byte(value >> 24), byte(value >> 16), byte(value >> 8), byte(value)}), true, nil
}

// isNumber reports whether a label is a number as the URL standard's
// "ends in a number" reads it: decimal digits, or 0x and hexadecimal
// digits.
func isNumber(label string) bool {
	digits, base := label, "0123456789"
	if rest, ok := strings.CutPrefix(label, "0x"); ok {
		digits, base = rest, "0123456789abcdef"
	} else if label == "" {
		return false
	}
	for _, c := range digits {
		if !strings.ContainsRune(base, c) {
			return false
		}
	}
	return true
}

// ipv4Part reads one part of a loose IPv4 address: 0x... hexadecimal,
// 0... octal, else decimal; at most 32 bits.
func ipv4Part(p string) (uint64, error) {
	base := 10
	switch {
	case strings.HasPrefix(p, "0x"):
		p, base = p[2:], 16
		if p == "" {
			return 0, nil
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p == "" || strings.ContainsAny(p, "+-_") {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseUint(p, base, 32)
}

// nonPublic are the address ranges that reach no public web server,
// beyond what netip.Addr's predicates name: "this network", shared address
// space (carrier-grade NAT, an operator's inside), IETF protocol
// assignments, the benchmarking network and the reserved 240/4; in IPv6
// the IPv4-compatible block, discard, NAT64 (which reaches any IPv4
// address, private ones included), Teredo and the deprecated site-local
// block. The documentation ranges (192.0.2.0/24, 198.51.100.0/24,
// 203.0.113.0/24, 2001:db8::/32) are left to pass: they are routed
// nowhere, and examples and tests use them as public addresses.
var nonPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "198.18.0.0/15", "240.0.0.0/4",
		"::/96", "100::/64", "64:ff9b::/96", "64:ff9b:1::/48", "2001::/32", "fec0::/10",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// sixToFour is the 6to4 block, whose addresses embed an IPv4 address.
var sixToFour = netip.MustParsePrefix("2002::/16")

// publicAddr reports whether addr is a public unicast address, judging an
// IPv4-mapped or 6to4 address by the IPv4 address inside it.
func publicAddr(addr netip.Addr) bool {
	addr = addr.Unmap()
	if addr.Zone() != "" {
		return false
	}
	if sixToFour.Contains(addr) {
		b := addr.As16()
		return publicAddr(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	}
	if !addr.IsGlobalUnicast() || addr.IsPrivate() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}
