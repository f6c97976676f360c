//! The Streamable HTTP headers a client writes: `Forwarded`/`X-Forwarded-*`
//! from a peer, `Origin` against `Host`, and `Last-Event-ID`; and a request
//! to the endpoint with its `Mcp-Session-Id`, `Accept`, `Content-Type`,
//! `Last-Event-ID` and others, answered at once with a status and a body the
//! transport allows.
#![no_main]

use std::net::IpAddr;

use mcp_contract_runtime::server::fuzzing::{self, HttpSession};

#[derive(Debug, arbitrary::Arbitrary)]
struct Request {
    forwarding: Vec<(Header, Vec<u8>)>,
    peer: [u8; 4],
    trusted: Trusted,
    origin: String,
    host: String,
    last_event_id: String,
    endpoint: Option<EndpointRequest>,
}

/// A request to the MCP endpoint of a session server.
#[derive(Debug, arbitrary::Arbitrary)]
struct EndpointRequest {
    post: bool,
    session: Session,
    headers: Vec<(EndpointHeader, Vec<u8>)>,
    body: Body,
}

#[derive(Debug, arbitrary::Arbitrary)]
enum Session {
    None,
    Live,
    Other(Vec<u8>),
}

#[derive(Debug, arbitrary::Arbitrary)]
enum EndpointHeader {
    Accept,
    ContentType,
    LastEventId,
    ProtocolVersion,
    Host,
    Origin,
    Other(Vec<u8>),
}

/// A body the transport reads on, or any bytes.
#[derive(Debug, arbitrary::Arbitrary)]
enum Body {
    Ping(i64),
    ToolsList,
    Initialized,
    Bytes(Vec<u8>),
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
    let Some(endpoint) = request.endpoint else { return };
    let headers: Vec<(Vec<u8>, Vec<u8>)> = endpoint
        .headers
        .into_iter()
        .map(|(name, value)| {
            let name = match name {
                EndpointHeader::Accept => b"accept".to_vec(),
                EndpointHeader::ContentType => b"content-type".to_vec(),
                EndpointHeader::LastEventId => b"last-event-id".to_vec(),
                EndpointHeader::ProtocolVersion => b"mcp-protocol-version".to_vec(),
                EndpointHeader::Host => b"host".to_vec(),
                EndpointHeader::Origin => b"origin".to_vec(),
                EndpointHeader::Other(name) => name,
            };
            (name, value)
        })
        .collect();
    let session = match &endpoint.session {
        Session::None => HttpSession::None,
        Session::Live => HttpSession::Live,
        Session::Other(id) => HttpSession::Other(id),
    };
    let body = match endpoint.body {
        Body::Ping(id) => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).into_bytes(),
        Body::ToolsList => br#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#.to_vec(),
        Body::Initialized => br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(),
        Body::Bytes(bytes) => bytes,
    };
    fuzzing::http_request(endpoint.post, session, &headers, &body);
});
