//! The Streamable HTTP headers a client writes: `Forwarded`/`X-Forwarded-*`
//! from a peer, `Origin` against `Host`, and `Last-Event-ID`.
#![no_main]

use std::net::IpAddr;

use mcp_contract_runtime::server::fuzzing;

#[derive(Debug, arbitrary::Arbitrary)]
struct Request {
    forwarding: Vec<(Header, Vec<u8>)>,
    peer: [u8; 4],
    trusted: Trusted,
    origin: String,
    host: String,
    last_event_id: String,
}

/// The names that count, and others.
#[derive(Debug, arbitrary::Arbitrary)]
enum Header {
    Forwarded,
    XForwardedFor,
    XForwardedProto,
    XForwardedHost,
    Other(Vec<u8>),
}

#[derive(Debug, arbitrary::Arbitrary)]
enum Trusted {
    Nobody,
    Loopback,
    Everyone,
}

libfuzzer_sys::fuzz_target!(|request: Request| {
    let headers: Vec<(Vec<u8>, Vec<u8>)> = request
        .forwarding
        .into_iter()
        .map(|(name, value)| {
            let name = match name {
                Header::Forwarded => b"forwarded".to_vec(),
                Header::XForwardedFor => b"x-forwarded-for".to_vec(),
                Header::XForwardedProto => b"x-forwarded-proto".to_vec(),
                Header::XForwardedHost => b"x-forwarded-host".to_vec(),
                Header::Other(name) => name,
            };
            (name, value)
        })
        .collect();
    let trusted: &[&str] = match request.trusted {
        Trusted::Nobody => &[],
        Trusted::Loopback => &["127.0.0.0/8", "::1"],
        Trusted::Everyone => &["0.0.0.0/0", "::/0"],
    };
    fuzzing::forwarding(&headers, IpAddr::from(request.peer), trusted);
    fuzzing::origin_and_host(&request.origin, &request.host);
    fuzzing::last_event_id(&request.last_event_id);
});
