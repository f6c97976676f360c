//! Behind a reverse proxy: the client's address, scheme and host as the
//! proxy forwards them (`Forwarded`, else `X-Forwarded-For`/`-Proto`/`-Host`),
//! honoured only from a proxy the server was told to trust. From anyone else
//! those headers are the client's own word, and ignored.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::middleware::Next;
use http::{HeaderMap, HeaderValue, Request, Response, StatusCode, header};

use crate::server::peer::ClientIp;
use crate::server::transport::guard::error_response;
use crate::server::transport::jsonrpc::Rejection;
use crate::server::transport::listener::ClientSlots;

/// The addresses of the proxies whose forwarding headers count: single
/// addresses (`10.0.0.7`, `::1`) and networks (`10.0.0.0/8`, `fd00::/8`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TrustedProxies(Vec<(IpAddr, u8)>);

impl TrustedProxies {
    /// Each entry an address or a network; the first that is neither is refused, named.
    pub(crate) fn parse<S: AsRef<str>>(entries: impl IntoIterator<Item = S>) -> Result<Self, String> {
        let mut networks = Vec::new();
        for entry in entries {
            let entry = entry.as_ref().trim();
            let wrong = || {
                format!("`{entry}` is no proxy address: write an address or a network, e.g. `10.0.0.7` or `10.0.0.0/8`")
            };
            let (address, prefix) = match entry.split_once('/') {
                Some((address, prefix)) => (address, Some(prefix.parse::<u8>().map_err(|_| wrong())?)),
                None => (entry, None),
            };
            let address: IpAddr = address.parse().map_err(|_| wrong())?;
            let bits = if address.is_ipv4() { 32 } else { 128 };
            let prefix = prefix.unwrap_or(bits);
            if prefix > bits {
                return Err(wrong());
            }
            networks.push((address, prefix));
        }
        Ok(Self(networks))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|&(network, prefix)| match (network.to_canonical(), ip) {
            (IpAddr::V4(network), IpAddr::V4(ip)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
                u32::from(network) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(network), IpAddr::V6(ip)) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
                u128::from(network) & mask == u128::from(ip) & mask
            }
            _ => false,
        })
    }
}

/// The scheme the client used, as a trusted proxy forwarded it (`https` when
/// it terminates TLS), for the `Origin` check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ForwardedProto(pub(crate) String);

/// What the proxies in front said of the client.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Forwarded {
    /// The hops, client first, as the proxies appended them.
    pub(crate) chain: Vec<IpAddr>,
    proto: Option<String>,
    host: Option<String>,
}

impl Forwarded {
    /// `Forwarded` (RFC 7239) when present, else the `X-Forwarded-*` headers.
    pub(crate) fn read(headers: &HeaderMap) -> Self {
        let values = |name: &str| -> Vec<String> {
            headers
                .get_all(name)
                .iter()
                .filter_map(|value| value.to_str().ok())
                .flat_map(|value| value.split(','))
                .map(|item| item.trim().to_owned())
                .filter(|item| !item.is_empty())
                .collect()
        };
        let elements = values(header::FORWARDED.as_str());
        if !elements.is_empty() {
            let mut forwarded = Self::default();
            for element in &elements {
                for pair in element.split(';') {
                    let Some((key, value)) = pair.split_once('=') else { continue };
                    let value = value.trim().trim_matches('"');
                    match key.trim().to_ascii_lowercase().as_str() {
                        // `unknown` and obfuscated names (`_hidden`) are no address: the chain stops there.
                        "for" => forwarded.chain.extend(node_address(value)),
                        "proto" => forwarded.proto = Some(value.to_ascii_lowercase()),
                        "host" => forwarded.host = Some(value.to_owned()),
                        _ => {}
                    }
                }
            }
            return forwarded;
        }
        Self {
            chain: values("x-forwarded-for").iter().filter_map(|value| node_address(value)).collect(),
            proto: values("x-forwarded-proto").pop().map(|proto| proto.to_ascii_lowercase()),
            host: values("x-forwarded-host").pop(),
        }
    }

    /// The client: walking from the peer towards the client, the first hop
    /// that is no trusted proxy (the leftmost when all are). Whatever the
    /// client wrote itself, to the left of that, is not believed.
    pub(crate) fn client(&self, peer: IpAddr, trusted: &TrustedProxies) -> IpAddr {
        let mut client = peer;
        for &hop in self.chain.iter().rev() {
            if !trusted.contains(client) {
                break;
            }
            client = hop;
        }
        client
    }
}

/// `192.0.2.60`, `192.0.2.60:4711`, `[2001:db8::1]:4711` or `2001:db8::1`.
fn node_address(value: &str) -> Option<IpAddr> {
    let value = value.trim().trim_matches('"');
    value
        .parse::<IpAddr>()
        .ok()
        .or_else(|| value.parse::<SocketAddr>().ok().map(|addr| addr.ip()))
        .or_else(|| value.strip_prefix('[')?.split(']').next()?.parse().ok())
}

/// What [`resolve`] needs: whom to believe, and the per-client slots.
pub(crate) struct Proxying {
    pub(crate) trusted: Arc<TrustedProxies>,
    pub(crate) clients: Arc<ClientSlots>,
}

/// The outermost middleware: a request from a trusted proxy is taken as the
/// client made it: its address (for the rate limit, the logs, the
/// context), its `Host` (for the `Host` check, rmcp's included) and its scheme
/// (for the `Origin` check). A forwarded client holds one of its
/// `max_connections_per_client` slots while its request is in progress: the
/// proxy's connections are shared by all its clients, so they are not counted.
pub(crate) async fn resolve(
    State(proxying): State<Arc<Proxying>>,
    mut request: Request<Body>,
    next: Next,
) -> Response<Body> {
    let trusted = &proxying.trusted;
    let Some(&ClientIp(peer)) = request.extensions().get::<ClientIp>() else { return next.run(request).await };
    if !trusted.contains(peer) {
        return next.run(request).await;
    }
    let forwarded = Forwarded::read(request.headers());
    let client = forwarded.client(peer, trusted);
    let _slot = if client == peer {
        None
    } else {
        let Some(slot) = proxying.clients.take(client) else {
            tracing::warn!(
                %client,
                "refused a request: the client has as many in progress as `max_connections_per_client` allows"
            );
            let mut response = error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &Rejection::new(None, -32000, "The server has too many requests in progress from this address."),
            );
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            return response;
        };
        Some(slot)
    };
    request.extensions_mut().insert(ClientIp(client));
    if let Some(host) = forwarded.host.and_then(|host| HeaderValue::try_from(host).ok()) {
        request.headers_mut().insert(header::HOST, host);
    }
    if let Some(proto) = forwarded.proto {
        request.extensions_mut().insert(ForwardedProto(proto));
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(http::HeaderName::from_bytes(name.as_bytes()).unwrap(), value.parse().unwrap());
        }
        headers
    }

    #[test]
    fn trusted_proxies_are_addresses_and_networks() {
        let trusted = TrustedProxies::parse(["10.0.0.0/8", "192.168.1.7", "fd00::/8"]).unwrap();
        assert!(trusted.contains(ip("10.1.2.3")));
        assert!(trusted.contains(ip("::ffff:10.1.2.3")), "an IPv4-mapped IPv6 peer is its IPv4 address");
        assert!(trusted.contains(ip("192.168.1.7")));
        assert!(!trusted.contains(ip("192.168.1.8")));
        assert!(trusted.contains(ip("fd12::1")));
        assert!(!trusted.contains(ip("11.0.0.1")));
        assert!(TrustedProxies::parse(["0.0.0.0/0"]).unwrap().contains(ip("203.0.113.9")));
        for wrong in ["10.0.0.0/33", "proxy.internal", "10.0.0.1/x", ""] {
            let err = TrustedProxies::parse([wrong]).expect_err(wrong);
            assert!(err.contains("e.g. `10.0.0.7`"), "{err}");
        }
    }

    #[test]
    fn the_client_is_the_first_hop_no_trusted_proxy_added() {
        let trusted = TrustedProxies::parse(["10.0.0.0/8"]).unwrap();
        // The client forged the first entry; the proxy at 10.0.0.2 appended what it saw.
        let forwarded = Forwarded::read(&headers(&[("x-forwarded-for", "1.2.3.4, 203.0.113.9, 10.0.0.2")]));
        assert_eq!(forwarded.client(ip("10.0.0.1"), &trusted), ip("203.0.113.9"));
        // From an untrusted peer nothing is believed.
        assert_eq!(forwarded.client(ip("198.51.100.1"), &trusted), ip("198.51.100.1"));
        // All trusted: the leftmost.
        let inner = Forwarded::read(&headers(&[("x-forwarded-for", "10.0.0.3")]));
        assert_eq!(inner.client(ip("10.0.0.1"), &trusted), ip("10.0.0.3"));
    }

    #[test]
    fn forwarded_wins_over_the_x_forwarded_headers_and_reads_quoted_ipv6_and_ports() {
        let both = headers(&[
            ("forwarded", r#"for="[2001:db8::1]:4711";proto=HTTPS;host=mcp.example.com, for=10.0.0.2:80"#),
            ("x-forwarded-for", "198.51.100.1"),
            ("x-forwarded-host", "other.example.com"),
        ]);
        let forwarded = Forwarded::read(&both);
        assert_eq!(forwarded.chain, vec![ip("2001:db8::1"), ip("10.0.0.2")]);
        assert_eq!(forwarded.proto.as_deref(), Some("https"));
        assert_eq!(forwarded.host.as_deref(), Some("mcp.example.com"));
        let trusted = TrustedProxies::parse(["10.0.0.0/8"]).unwrap();
        assert_eq!(forwarded.client(ip("10.0.0.1"), &trusted), ip("2001:db8::1"));
        let x = Forwarded::read(&headers(&[("x-forwarded-proto", "https"), ("x-forwarded-host", "mcp.example.com")]));
        assert_eq!((x.proto.as_deref(), x.host.as_deref()), (Some("https"), Some("mcp.example.com")));
        assert!(Forwarded::read(&headers(&[("forwarded", "for=unknown")])).chain.is_empty());
    }
}
