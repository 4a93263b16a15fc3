//! Name resolution that refuses non-public addresses at connect time.
//!
//! Checking a target's URL when it is subscribed is not enough: its name may later resolve to
//! a private address (DNS rebinding, or simply a name pointing inside the network). Filtering
//! the addresses the connector is handed closes that gap, because the connection is made to
//! exactly the addresses checked here.

use std::{net::SocketAddr, sync::Arc};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use sounding_domain::webhook::{is_public, TargetPolicy};

/// Every resolved address of the target was loopback, private, link-local or reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("target resolves only to non-public addresses")]
pub struct NonPublicTarget;

/// The name resolved to no address at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("target name resolves to no address")]
pub struct NoAddress;

/// The operating system's resolver (`getaddrinfo` on tokio's blocking pool), as reqwest's
/// own default does, without pulling in another DNS implementation.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// Wraps a resolver and drops the addresses the target policy forbids.
pub struct FilteringResolver {
    inner: Arc<dyn Resolve>,
    policy: TargetPolicy,
}

impl FilteringResolver {
    pub fn new(inner: Arc<dyn Resolve>, policy: TargetPolicy) -> Self {
        Self { inner, policy }
    }
}

impl Resolve for FilteringResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let resolving = self.inner.resolve(name);
        let allow_private = self.policy.allow_private;
        Box::pin(async move {
            let all: Vec<SocketAddr> = resolving.await?.collect();
            if all.is_empty() {
                return Err(Box::new(NoAddress) as _);
            }
            let kept: Vec<SocketAddr> = all
                .into_iter()
                .filter(|addr| allow_private || is_public(addr.ip()))
                .collect();
            if kept.is_empty() {
                return Err(Box::new(NonPublicTarget) as _);
            }
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::*;

    struct Fixed(Vec<IpAddr>);

    impl Resolve for Fixed {
        fn resolve(&self, _: Name) -> Resolving {
            let addrs: Vec<SocketAddr> = self.0.iter().map(|ip| SocketAddr::new(*ip, 0)).collect();
            Box::pin(async move { Ok(Box::new(addrs.into_iter()) as Addrs) })
        }
    }

    async fn resolve(ips: &[&str], allow_private: bool) -> Result<Vec<IpAddr>, String> {
        let inner = Fixed(ips.iter().map(|ip| ip.parse().unwrap()).collect());
        let filtering = FilteringResolver::new(Arc::new(inner), TargetPolicy { allow_private });
        let name: Name = "hooks.test".parse().unwrap();
        match filtering.resolve(name).await {
            Ok(addrs) => Ok(addrs.map(|addr| addr.ip()).collect()),
            Err(error) => Err(error.to_string()),
        }
    }

    #[tokio::test]
    async fn strict_policy_keeps_only_public_addresses() {
        let kept = resolve(
            &["10.0.0.1", "93.184.216.34", "::1", "169.254.169.254"],
            false,
        )
        .await;
        assert_eq!(kept, Ok(vec!["93.184.216.34".parse().unwrap()]));
    }

    #[tokio::test]
    async fn strict_policy_refuses_a_name_with_only_private_addresses() {
        let refused = resolve(&["127.0.0.1", "10.0.0.1", "::ffff:192.168.1.1"], false).await;
        assert_eq!(
            refused,
            Err("target resolves only to non-public addresses".into())
        );
        let empty = resolve(&[], false).await;
        assert_eq!(empty, Err("target name resolves to no address".into()));
    }

    #[tokio::test]
    async fn connections_drop_6to4_and_teredo_forms_of_private_addresses() {
        let kept = resolve(
            &[
                "2002:7f00:1::1",                       // 6to4 of 127.0.0.1
                "2001:0:4136:e378:8000:63bf:f5ff:fffe", // Teredo, client 10.0.0.1
                "2002:808:808::1",                      // 6to4 of 8.8.8.8
                "2001:0:4136:e378:8000:63bf:f7f7:fbfb", // Teredo, client 8.8.4.4
            ],
            false,
        )
        .await;
        assert_eq!(
            kept,
            Ok(vec![
                "2002:808:808::1".parse().unwrap(),
                "2001:0:4136:e378:8000:63bf:f7f7:fbfb".parse().unwrap(),
            ])
        );
    }

    #[tokio::test]
    async fn allowing_private_targets_keeps_everything() {
        let kept = resolve(&["127.0.0.1", "10.0.0.1"], true).await.unwrap();
        assert_eq!(kept.len(), 2);
    }
}

/// The `HostResolver` port on the operating system's resolver, for checking a webhook target
/// at subscription. Bounded in time: a slow resolver must not hold a request.
#[derive(Debug, Clone, Copy)]
pub struct SystemHostResolver {
    pub timeout: std::time::Duration,
}

impl Default for SystemHostResolver {
    fn default() -> Self {
        Self {
            timeout: std::time::Duration::from_secs(2),
        }
    }
}

#[async_trait::async_trait]
impl sounding_domain::ports::HostResolver for SystemHostResolver {
    async fn resolve(&self, host: &str) -> Vec<std::net::IpAddr> {
        let lookup = tokio::net::lookup_host((host, 0));
        match tokio::time::timeout(self.timeout, lookup).await {
            Ok(Ok(addrs)) => addrs.map(|a| a.ip()).collect(),
            _ => Vec::new(),
        }
    }
}
