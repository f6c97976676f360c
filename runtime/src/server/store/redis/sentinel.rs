//! Redis Sentinel: the store asks the sentinels which node is the primary of
//! a service, and asks again after a failure, so replicas of the MCP server
//! follow a failover to the new primary by themselves.
//!
//! The URL names the sentinels and the service:
//! `redis+sentinel://[user:password@]host:port[,host:port..]/service[/db]`,
//! or `rediss+sentinel://` for TLS to the sentinels and the nodes alike. The
//! user and password are the nodes' ACL user, not the sentinels'.

use redis::sentinel::{SentinelClient, SentinelClientBuilder, SentinelServerType};
use redis::{ConnectionAddr, IntoConnectionInfo, RedisConnectionInfo};

use crate::server::error::RedisUrlError;

/// What a `redis+sentinel://` URL says.
#[derive(Clone)]
pub(super) struct SentinelUrl {
    sentinels: Vec<(String, u16)>,
    service: String,
    tls: bool,
    /// The nodes' user, password and database.
    node: RedisConnectionInfo,
}

/// The port of a sentinel written without one.
const SENTINEL_PORT: u16 = 26379;

impl SentinelUrl {
    /// `None` when `url` is no Sentinel URL; an error when it is one, wrong.
    pub(super) fn parse(url: &str) -> Option<Result<Self, RedisUrlError>> {
        let (tls, rest) = if let Some(rest) = url.strip_prefix("redis+sentinel://") {
            (false, rest)
        } else {
            (true, url.strip_prefix("rediss+sentinel://")?)
        };
        Some(Self::parse_rest(tls, rest))
    }

    fn parse_rest(tls: bool, rest: &str) -> Result<Self, RedisUrlError> {
        let wrong = |why: &str| RedisUrlError(format!("a Sentinel URL {why}"));
        let (authority, path) = rest.split_once('/').ok_or_else(|| wrong("names the service after the hosts"))?;
        let (userinfo, hosts) = match authority.rsplit_once('@') {
            Some((userinfo, hosts)) => (Some(userinfo), hosts),
            None => (None, authority),
        };
        let mut sentinels = Vec::new();
        for host in hosts.split(',').map(str::trim) {
            let authority = http::uri::Authority::try_from(host).map_err(|_| wrong("lists `host:port` sentinels"))?;
            // `http` takes `s1:x` with no port at all: a port written must be a number.
            let port = match authority.as_str().strip_prefix(authority.host()).filter(|rest| !rest.is_empty()) {
                Some(rest) => rest.strip_prefix(':').and_then(|port| port.parse().ok()),
                None => Some(SENTINEL_PORT),
            };
            let port = port.ok_or_else(|| wrong("lists `host:port` sentinels"))?;
            sentinels.push((authority.host().trim_matches(['[', ']']).to_owned(), port));
        }
        let (service, db) = path.split_once('/').unwrap_or((path, ""));
        if service.is_empty() || sentinels.is_empty() {
            return Err(wrong("names its sentinels and the service: redis+sentinel://host:26379/mymaster"));
        }
        // The nodes' user, password and database, read as redis reads a node's URL.
        let (first, _) = &sentinels[0];
        let scheme = if tls { "rediss" } else { "redis" };
        let userinfo = userinfo.map(|userinfo| format!("{userinfo}@")).unwrap_or_default();
        let node = format!("{scheme}://{userinfo}{first}/{db}")
            .into_connection_info()
            .map_err(RedisUrlError::from_redis)?
            .redis_settings()
            .clone();
        Ok(Self { sentinels, service: service.to_owned(), tls, node })
    }

    /// The client that asks the sentinels, with `access`'s CA, client
    /// certificate and sentinel password.
    pub(super) fn client(&self, access: &super::Access) -> Result<SentinelClient, RedisUrlError> {
        let addresses = self.sentinels.iter().map(|(host, port)| match self.tls {
            true => ConnectionAddr::TcpTls { host: host.clone(), port: *port, insecure: false, tls_params: None },
            false => ConnectionAddr::Tcp(host.clone(), *port),
        });
        let mut builder = SentinelClientBuilder::new(addresses, &self.service, SentinelServerType::Master)
            .map_err(RedisUrlError::from_redis)?
            .set_client_to_redis_db(self.node.db());
        if let Some(username) = self.node.username() {
            builder = builder.set_client_to_redis_username(username);
        }
        if let Some(password) = self.node.password() {
            builder = builder.set_client_to_redis_password(password);
        }
        if let Some(password) = &access.sentinel_password {
            builder = builder.set_client_to_sentinel_password(password);
        }
        if self.tls {
            let certificates = || access.certificates();
            builder = builder
                .set_client_to_redis_tls_mode(redis::TlsMode::Secure)
                .set_client_to_sentinel_tls_mode(redis::TlsMode::Secure)
                .set_client_to_redis_certificates(certificates())
                .set_client_to_sentinel_certificates(certificates());
        }
        builder.build().map_err(RedisUrlError::from_redis)
    }

    pub(super) fn is_tls(&self) -> bool {
        self.tls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentinel_url_names_its_sentinels_the_service_and_the_nodes_user() {
        let url = SentinelUrl::parse("redis+sentinel://mcp:p%40ss@s1:26380,[::1],s3/mymaster/2").unwrap().unwrap();
        assert_eq!(url.sentinels, [("s1".to_owned(), 26380), ("::1".to_owned(), 26379), ("s3".to_owned(), 26379)]);
        assert_eq!((url.service.as_str(), url.tls, url.node.db()), ("mymaster", false, 2));
        assert_eq!((url.node.username(), url.node.password()), (Some("mcp"), Some("p@ss")));
        assert!(SentinelUrl::parse("rediss+sentinel://s1/mymaster").unwrap().unwrap().is_tls());
        assert!(SentinelUrl::parse("redis://s1:6379/").is_none(), "a node's URL");
        for wrong in ["redis+sentinel://s1:26379", "redis+sentinel://s1:26379/", "redis+sentinel://s1:x/m"] {
            let err = SentinelUrl::parse(wrong).unwrap().err().unwrap_or_else(|| panic!("{wrong} was taken"));
            assert!(err.to_string().contains("Sentinel URL"), "{err}");
        }
        let err = SentinelUrl::parse("redis+sentinel://mcp:secret@s1:x/m").unwrap().err().unwrap();
        assert!(!err.to_string().contains("secret"), "{err}");
    }
}
