//! The allow-list of a confined program's network: `host:port`, `*.domain:port`,
//! `address:port`, `cidr:port` (IPv6 in brackets), and the addresses no name may lead to
//! unless the list names them.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// Why an entry of the allow-list could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleError {
    /// No `:port` at the end.
    #[error(
        "`{0}` names no port; write `host:port` (`api.github.com:443`, `10.1.2.0/24:5432`, \
         `[::1]:8080`)"
    )]
    NoPort(String),
    /// The port is not a number from 1 to 65535.
    #[error("`{0}` has no valid port (1 to 65535) after its last `:`")]
    BadPort(String),
    /// The host part is not a name, an address, or a range.
    #[error(
        "`{0}` is not a host name (letters, digits, `-` and `.`), `*.domain`, an IP address or \
         a CIDR range"
    )]
    BadHost(String),
    /// A range whose prefix is longer than its address has bits.
    #[error(
        "`{0}` has a prefix length the address cannot have (at most 32 for IPv4, 128 for IPv6)"
    )]
    BadPrefix(String),
}

/// A range of addresses: an address and how many of its leading bits are fixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Net {
    addr: IpAddr,
    prefix: u8,
}

impl Net {
    const fn v4(a: u8, b: u8, c: u8, d: u8, prefix: u8) -> Net {
        Net {
            addr: IpAddr::V4(Ipv4Addr::new(a, b, c, d)),
            prefix,
        }
    }

    const fn v6(segments: [u16; 8], prefix: u8) -> Net {
        let [a, b, c, d, e, f, g, h] = segments;
        Net {
            addr: IpAddr::V6(Ipv6Addr::new(a, b, c, d, e, f, g, h)),
            prefix,
        }
    }

    /// `addr/prefix` (`prefix` none: the address alone); `None` when the prefix is longer
    /// than the address has bits.
    fn new(addr: IpAddr, prefix: Option<u8>) -> Option<Net> {
        let (_, width) = bits(addr);
        let prefix = prefix.unwrap_or(width);
        (prefix <= width).then_some(Net { addr, prefix })
    }

    /// Whether `ip` is in the range (an IPv4 range holds no IPv6 address, and back).
    pub(crate) fn contains(&self, ip: IpAddr) -> bool {
        let ((net, width), (ip, ip_width)) = (bits(self.addr), bits(ip));
        width == ip_width && masked(net, width, self.prefix) == masked(ip, width, self.prefix)
    }

    /// Whether every address of `self` is in `outer`.
    fn within(&self, outer: &Net) -> bool {
        self.prefix >= outer.prefix && outer.contains(self.addr)
    }
}

/// An address as a number and how many bits it has: IPv4 and IPv6 ranges are the same
/// arithmetic on them.
fn bits(addr: IpAddr) -> (u128, u8) {
    match addr {
        IpAddr::V4(v4) => (u128::from(v4.to_bits()), 32),
        IpAddr::V6(v6) => (v6.to_bits(), 128),
    }
}

fn masked(bits: u128, width: u8, prefix: u8) -> u128 {
    let prefix = prefix.min(width);
    if prefix == 0 {
        return 0;
    }
    bits >> (width - prefix)
}

impl fmt::Display for Net {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

/// The blocks no name may resolve to, and no address of a range that is not inside them may
/// reach: each with what it is. An entry reaches an address of one only when the entry's own
/// range lies inside that block (`127.0.0.1:8080`, `10.1.2.0/24:5432`), so `0.0.0.0/0:443`
/// opens no loopback and no metadata service.
const SPECIAL: &[(Net, &str)] = &[
    (
        Net::v4(0, 0, 0, 0, 8),
        "an unspecified (\"this network\") address",
    ),
    (Net::v4(10, 0, 0, 0, 8), "a private address"),
    (
        Net::v4(100, 64, 0, 0, 10),
        "a shared (carrier-grade NAT) address",
    ),
    (Net::v4(127, 0, 0, 0, 8), "a loopback address"),
    (
        Net::v4(169, 254, 169, 254, 32),
        "the cloud metadata address",
    ),
    (Net::v4(169, 254, 0, 0, 16), "a link-local address"),
    (Net::v4(172, 16, 0, 0, 12), "a private address"),
    (Net::v4(192, 0, 0, 0, 24), "an IETF protocol address"),
    (Net::v4(192, 168, 0, 0, 16), "a private address"),
    (Net::v4(198, 18, 0, 0, 15), "a benchmarking address"),
    (Net::v4(224, 0, 0, 0, 4), "a multicast address"),
    (Net::v4(240, 0, 0, 0, 4), "a reserved or broadcast address"),
    (
        Net::v6([0, 0, 0, 0, 0, 0, 0, 0], 128),
        "the unspecified address",
    ),
    (
        Net::v6([0, 0, 0, 0, 0, 0, 0, 1], 128),
        "the loopback address",
    ),
    (
        Net::v6([0, 0, 0, 0, 0, 0, 0, 0], 96),
        "an IPv4-compatible address",
    ),
    (
        Net::v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48),
        "a local NAT64 address",
    ),
    (
        Net::v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64),
        "a discard-only address",
    ),
    (
        Net::v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 32),
        "a Teredo address",
    ),
    (
        Net::v6([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254], 128),
        "the cloud metadata address",
    ),
    (
        Net::v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7),
        "a unique local (private) address",
    ),
    (
        Net::v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10),
        "a link-local address",
    ),
    (
        Net::v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10),
        "a site-local address",
    ),
    (
        Net::v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8),
        "a multicast address",
    ),
];

/// The address a connection to `ip` really reaches, where the kernel or the network
/// translates it: an IPv4-mapped IPv6 address is its IPv4 address; a NAT64 (`64:ff9b::/96`)
/// or 6to4 (`2002::/16`) one stands for the IPv4 address it embeds.
pub(crate) fn effective(ip: IpAddr) -> IpAddr {
    let IpAddr::V6(v6) = ip else { return ip };
    if let Some(v4) = v6.to_ipv4_mapped() {
        return IpAddr::V4(v4);
    }
    let bits = v6.to_bits();
    if Net::v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96).contains(ip) {
        return IpAddr::V4(Ipv4Addr::from_bits(bits as u32));
    }
    if Net::v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16).contains(ip) {
        return IpAddr::V4(Ipv4Addr::from_bits((bits >> 80) as u32));
    }
    ip
}

/// The special block `ip` is in (see [`SPECIAL`]), with what it is; `None` for an ordinary
/// public address. Translated forms count as what they reach.
pub(crate) fn special(ip: IpAddr) -> Option<(Net, &'static str)> {
    let reached = effective(ip);
    SPECIAL
        .iter()
        .find(|(net, _)| net.contains(reached))
        .map(|(net, what)| (*net, *what))
}

/// What an entry's host part is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Host {
    /// A name, lower case, without a trailing dot.
    Name(String),
    /// `*.domain`: any name below `domain` (not `domain` itself), lower case.
    Below(String),
    /// An address or a range of them.
    Range(Net),
}

/// One entry of an [`AllowList`]: a host (a name, `*.domain`, an address, a CIDR range) and a
/// port.
///
/// ```
/// use toolwright_std::egress::HostRule;
///
/// let rule: HostRule = "api.github.com:443".parse()?;
/// assert_eq!(rule.to_string(), "api.github.com:443");
/// assert!("10.1.2.0/24:5432".parse::<HostRule>().is_ok());
/// assert!("[::1]:8080".parse::<HostRule>().is_ok());
/// assert!("api.github.com".parse::<HostRule>().is_err());
/// # Ok::<(), toolwright_std::egress::RuleError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRule {
    host: Host,
    port: u16,
}

impl FromStr for HostRule {
    type Err = RuleError;

    fn from_str(text: &str) -> Result<HostRule, RuleError> {
        let entry = text.trim();
        let (host, port) = entry
            .rsplit_once(':')
            .ok_or_else(|| RuleError::NoPort(entry.to_owned()))?;
        // `::1:443` without brackets is ambiguous: IPv6 takes brackets.
        if host.contains(':') && !(host.starts_with('[') && host.ends_with(']')) {
            return Err(RuleError::BadHost(entry.to_owned()));
        }
        let port = match port.parse::<u16>() {
            // Digits only, as written back (`+443` and `0443` are typos, not ports).
            Ok(number) if number > 0 && number.to_string() == port => number,
            _ => return Err(RuleError::BadPort(entry.to_owned())),
        };
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        Ok(HostRule {
            host: parse_host(host, entry)?,
            port,
        })
    }
}

fn parse_host(host: &str, entry: &str) -> Result<Host, RuleError> {
    let bad = || RuleError::BadHost(entry.to_owned());
    // A range of either family, or one address: the range of its every bit.
    let (addr, prefix) = match host.split_once('/') {
        Some((addr, prefix)) => {
            let addr: IpAddr = addr.parse().map_err(|_| bad())?;
            (addr, Some(prefix.parse::<u8>().map_err(|_| bad())?))
        }
        None => match host.parse::<IpAddr>() {
            Ok(addr) => (addr, None),
            Err(_) => return parse_name(host).ok_or_else(bad),
        },
    };
    Net::new(addr, prefix)
        .map(Host::Range)
        .ok_or_else(|| RuleError::BadPrefix(entry.to_owned()))
}

/// A name, or `*.domain`.
fn parse_name(host: &str) -> Option<Host> {
    match host.strip_prefix("*.") {
        Some(domain) => normal_name(domain).map(Host::Below),
        None => normal_name(host).map(Host::Name),
    }
}

/// A host name in the one form names are compared in: lower case, no trailing dot; `None`
/// for anything else than letters, digits, `-` and `_` in labels of 1 to 63 bytes (253 in
/// all), or for a name that reads as a number (`127.1`, `0x7f.1`: some resolvers take those
/// for addresses).
pub(crate) fn normal_name(name: &str) -> Option<String> {
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    if name.is_empty() || name.len() > 253 {
        return None;
    }
    let label_ok = |label: &str| {
        (1..=63).contains(&label.len())
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    if !name.split('.').all(label_ok) {
        return None;
    }
    // The last label of a real name is not numeric; `0x7f` is numeric to inet_aton.
    let last = name.rsplit('.').next().unwrap_or_default();
    let numeric = last.bytes().all(|b| b.is_ascii_digit())
        || (last.starts_with("0x") && last[2..].bytes().all(|b| b.is_ascii_hexdigit()));
    (!numeric).then_some(name)
}

impl fmt::Display for HostRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            Host::Name(name) => write!(f, "{name}:{}", self.port),
            Host::Below(domain) => write!(f, "*.{domain}:{}", self.port),
            Host::Range(net) => {
                let single = net.prefix == if net.addr.is_ipv4() { 32 } else { 128 };
                match (net.addr, single) {
                    (IpAddr::V4(addr), true) => write!(f, "{addr}:{}", self.port),
                    (IpAddr::V6(addr), true) => write!(f, "[{addr}]:{}", self.port),
                    (IpAddr::V4(_), false) => write!(f, "{net}:{}", self.port),
                    (IpAddr::V6(_), false) => write!(f, "[{net}]:{}", self.port),
                }
            }
        }
    }
}

/// The hosts a confined program may reach through its proxy: `host:port` entries (see
/// [`HostRule`]). Empty, it reaches nothing.
///
/// A name is matched as the program asked for it (the `CONNECT` target or the URL's host,
/// never a TLS server name), then resolved by the proxy, which connects only to an address
/// it checked: one that is private, loopback, link-local, the metadata service, multicast,
/// unspecified or reserved (also in an IPv4-mapped, NAT64 or 6to4 form) is refused unless an
/// entry names it or a range inside its block. An address the program asks for directly
/// must be in an entry's range.
///
/// ```
/// use toolwright_std::egress::AllowList;
///
/// let list =
///     AllowList::parse(["api.github.com:443", "*.pythonhosted.org:443", "10.1.2.0/24:5432"])?;
/// assert_eq!(list.rules().len(), 3);
/// assert!(list.allows_name("files.pythonhosted.org", 443));
/// assert!(!list.allows_name("pythonhosted.org", 443));
/// assert!(!list.allows_name("api.github.com", 80));
/// assert!(list.allows_address("10.1.2.7".parse()?, 5432));
/// assert!(!list.allows_address("127.0.0.1".parse()?, 5432));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    rules: Vec<HostRule>,
}

impl AllowList {
    /// Reads every entry.
    ///
    /// # Errors
    ///
    /// The first entry that is not `host:port` ([`RuleError`] says how).
    pub fn parse<I, S>(entries: I) -> Result<AllowList, RuleError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let rules = entries
            .into_iter()
            .map(|entry| entry.as_ref().parse())
            .collect::<Result<Vec<_>, _>>()?;
        Ok(AllowList { rules })
    }

    /// The entries, as given.
    pub fn rules(&self) -> &[HostRule] {
        &self.rules
    }

    /// Whether the name `host` (any case, a trailing dot or not) is listed with `port`.
    pub fn allows_name(&self, host: &str, port: u16) -> bool {
        let Some(host) = normal_name(host) else {
            return false;
        };
        self.rules.iter().any(|rule| {
            rule.port == port
                && match &rule.host {
                    Host::Name(name) => *name == host,
                    Host::Below(domain) => host
                        .strip_suffix(domain.as_str())
                        .is_some_and(|rest| rest.len() > 1 && rest.ends_with('.')),
                    Host::Range(_) => false,
                }
        })
    }

    /// Whether an entry's range holds `ip` (as it is reached: an IPv4-mapped, NAT64 or 6to4
    /// form as its IPv4 address) with `port`, and, for a special address, lies inside its
    /// block.
    pub fn allows_address(&self, ip: IpAddr, port: u16) -> bool {
        let reached = effective(ip);
        let block = special(reached).map(|(net, _)| net);
        self.rules.iter().any(|rule| {
            let Host::Range(net) = &rule.host else {
                return false;
            };
            rule.port == port
                && net.contains(reached)
                && block.is_none_or(|block| net.within(&block))
        })
    }

    /// Whether a name `host` resolved to `ip` may be reached on `port`: an ordinary address,
    /// or a special one an entry names (see [`AllowList::allows_address`]).
    pub(crate) fn allows_resolved(&self, ip: IpAddr, port: u16) -> bool {
        special(ip).is_none() || self.allows_address(ip, port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn entries_parse_and_print_back() {
        for entry in [
            "api.github.com:443",
            "*.example.com:443",
            "10.1.2.0/24:5432",
            "127.0.0.1:8080",
            "[::1]:443",
            "[fd00::/8]:80",
        ] {
            assert_eq!(entry.parse::<HostRule>().unwrap().to_string(), entry);
        }
        assert_eq!(
            "API.GitHub.com.:443"
                .parse::<HostRule>()
                .unwrap()
                .to_string(),
            "api.github.com:443"
        );
    }

    #[test]
    fn malformed_entries_are_refused() {
        for (entry, kind) in [
            ("api.github.com", "port"),
            ("api.github.com:", "port"),
            ("api.github.com:0", "port"),
            ("api.github.com:65536", "port"),
            ("api.github.com:+443", "port"),
            ("api.github.com:0443", "port"),
            ("::1:443", "host"),
            ("exa mple.com:443", "host"),
            ("*:443", "host"),
            ("*.*.com:443", "host"),
            ("a..b:443", "host"),
            ("-a.com:443", "host"),
            ("127.1:443", "host"),
            ("0x7f.1:443", "host"),
            ("10.0.0.0/33:443", "prefix"),
            ("[::/129]:443", "prefix"),
            ("http://x.com:443", "host"),
            (":443", "host"),
        ] {
            let error = entry.parse::<HostRule>().unwrap_err();
            let matches = match kind {
                "port" => matches!(error, RuleError::NoPort(_) | RuleError::BadPort(_)),
                "host" => matches!(error, RuleError::BadHost(_)),
                _ => matches!(error, RuleError::BadPrefix(_)),
            };
            assert!(matches, "{entry}: {error:?}");
        }
        let long = format!("{}.com:443", "a".repeat(64));
        assert!(long.parse::<HostRule>().is_err());
    }

    #[test]
    fn a_range_holds_addresses_of_its_own_family_only() {
        // `/0` masks every bit away: only the family tells these apart.
        let list = AllowList::parse(["0.0.0.0/0:443"]).unwrap();
        assert!(list.allows_address(ip("93.184.216.34"), 443));
        assert!(!list.allows_address(ip("2606:2800:220:1::1"), 443));
        let list = AllowList::parse(["[::/0]:443"]).unwrap();
        assert!(list.allows_address(ip("2606:2800:220:1::1"), 443));
        assert!(!list.allows_address(ip("93.184.216.34"), 443));
        // The address alone is the range of its every bit.
        let list = AllowList::parse(["192.0.2.7:443", "[2001:db8::7]:443"]).unwrap();
        assert!(list.allows_address(ip("192.0.2.7"), 443));
        assert!(!list.allows_address(ip("192.0.2.6"), 443));
        assert!(list.allows_address(ip("2001:db8::7"), 443));
        assert!(!list.allows_address(ip("2001:db8::6"), 443));
        assert!("[::/128]:443".parse::<HostRule>().is_ok());
        assert!("0.0.0.0/32:443".parse::<HostRule>().is_ok());
    }

    #[test]
    fn names_match_exactly_or_below_a_domain() {
        let list = AllowList::parse(["api.github.com:443", "*.example.com:443"]).unwrap();
        assert!(list.allows_name("API.github.com.", 443));
        assert!(!list.allows_name("api.github.com", 80));
        assert!(!list.allows_name("evilapi.github.com", 443));
        assert!(!list.allows_name("api.github.com.evil.net", 443));
        assert!(list.allows_name("a.b.example.com", 443));
        assert!(!list.allows_name("example.com", 443));
        assert!(!list.allows_name("evilexample.com", 443));
        assert!(!list.allows_name("127.0.0.1", 443));
    }

    #[test]
    fn special_addresses_need_an_entry_inside_their_block() {
        let list = AllowList::parse(["0.0.0.0/0:443", "[::/0]:443", "127.0.0.1:8080"]).unwrap();
        assert!(list.allows_address(ip("93.184.216.34"), 443));
        for refused in [
            "127.0.0.1",
            "10.0.0.1",
            "169.254.169.254",
            "169.254.1.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fd00:ec2::254",
            "fc00::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::",
            "::127.0.0.1",
        ] {
            assert!(!list.allows_address(ip(refused), 443), "{refused}");
            assert!(!list.allows_resolved(ip(refused), 443), "{refused}");
        }
        assert!(list.allows_address(ip("127.0.0.1"), 8080));
        assert!(list.allows_address(ip("::ffff:127.0.0.1"), 8080));
        assert!(!list.allows_address(ip("127.0.0.2"), 8080));
        let private = AllowList::parse(["10.1.2.0/24:5432"]).unwrap();
        assert!(private.allows_address(ip("10.1.2.9"), 5432));
        assert!(!private.allows_address(ip("10.1.3.9"), 5432));
        assert!(private.allows_resolved(ip("10.1.2.9"), 5432));
        assert!(!private.allows_resolved(ip("10.1.3.9"), 5432));
        assert!(private.allows_resolved(ip("93.184.216.34"), 5432));
    }
}
