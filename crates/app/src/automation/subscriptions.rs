//! `automation.subscribe|unsubscribe|list|deliveries|redeliver` (team API key; admin role to
//! change, any role to read).

use sounding_domain::text::parse_given;
use sounding_domain::{
    access::{AdminArea, KeyHolder, Need},
    event::EventKind,
    page::{PageRequest, Paged},
    ports::{Clock, Conflict, HostResolver, StoreError, WebhookStore},
    webhook::{
        check_target_url, is_public, new_secret, Delivery, DeliveryQuery, DeliveryStatus,
        TargetPolicy, WebhookSubscription,
    },
    DeliveryId, DomainError, Entity, WebhookId,
};

use crate::error::{AppError, AppResult};

/// Deliveries per page when the caller does not say.
pub const DEFAULT_DELIVERIES_LIMIT: i64 = 20;

/// What `subscribe` came to: the team's one subscription of that target and event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscribed {
    /// The subscription as stored; its secret is the one made when it was created.
    pub webhook: WebhookSubscription,
    /// `false` when the team already had it: its secret was shown when it was made, and is
    /// not shown again (docs/decisions.md).
    pub created: bool,
}

/// Subscribes a target to an event. Unless private targets are allowed, a host name that
/// resolves to any non-public address is refused now; one that does not resolve yet is
/// accepted, and every connection checks the addresses again. Subscribing again to the same
/// (normalised) target and event returns the existing subscription instead of doubling every
/// delivery.
pub async fn subscribe(
    webhooks: &dyn WebhookStore,
    resolver: &dyn HostResolver,
    clock: &dyn Clock,
    caller: &KeyHolder,
    policy: TargetPolicy,
    target_url: Option<&str>,
    event: Option<&str>,
) -> AppResult<Subscribed> {
    caller.require(Need::Admin(AdminArea::Automation))?;
    let target = target_url.ok_or_else(|| AppError::invalid("target_url is required"))?;
    let url = check_target_url(target, policy)?;
    let event = EventKind::parse(event.ok_or_else(|| AppError::invalid("event is required"))?)?;
    if !policy.allow_private {
        if let Some(url::Host::Domain(host)) = url.host() {
            let addresses = resolver.resolve(host).await;
            if addresses.iter().any(|ip| !is_public(*ip)) {
                return Err(AppError::invalid(
                    "target_url resolves to a private, loopback or reserved address",
                ));
            }
        }
    }
    let webhook = WebhookSubscription {
        id: WebhookId::new(),
        team_id: caller.team_id,
        target_url: url.to_string(),
        event,
        secret: new_secret(),
        created_at: clock.now(),
    };
    let stored = webhooks.insert_webhook(&webhook).await?;
    Ok(Subscribed {
        created: stored.id == webhook.id,
        webhook: stored,
    })
}

/// Which subscription `automation.unsubscribe` names: by id, or by target and event.
#[derive(Debug, Clone, Default)]
pub struct Unsubscribe {
    /// The subscription's id (a UUID); when given, the target and event are not read.
    pub id: Option<String>,
    /// The target URL as subscribed (compared after normalisation); needs `event`.
    pub target_url: Option<String>,
    /// The event name, such as `new_feedback`; required with `target_url`.
    pub event: Option<String>,
}

/// Removes the subscriptions named; the ids removed.
pub async fn unsubscribe(
    webhooks: &dyn WebhookStore,
    caller: &KeyHolder,
    which: Unsubscribe,
) -> AppResult<Vec<WebhookId>> {
    caller.require(Need::Admin(AdminArea::Automation))?;
    let targets: Vec<WebhookId> = match (which.id.as_deref(), which.target_url.as_deref()) {
        (Some(raw), _) => vec![WebhookId::parse("id", raw)?],
        (None, Some(url)) => {
            let event = EventKind::parse(
                which
                    .event
                    .as_deref()
                    .ok_or_else(|| AppError::invalid("event is required with target_url"))?,
            )?;
            let url = url.trim();
            webhooks
                .webhooks(caller.team_id)
                .await?
                .into_iter()
                .filter(|w| w.event == event && same_url(&w.target_url, url))
                .map(|w| w.id)
                .collect()
        }
        (None, None) => return Err(AppError::invalid("id or target_url is required")),
    };
    let mut removed = Vec::with_capacity(targets.len());
    for id in targets {
        if webhooks.delete_webhook(caller.team_id, id).await? {
            removed.push(id);
        }
    }
    if removed.is_empty() {
        return Err(AppError::not_found(Entity::Webhook));
    }
    Ok(removed)
}

/// Target URLs compare after the normalisation `subscribe` stored them with.
fn same_url(stored: &str, given: &str) -> bool {
    stored == given
        || url::Url::parse(given)
            .map(|u| u.as_str() == stored)
            .unwrap_or(false)
}

/// `automation.list`: the team's subscriptions. Any key, read-only included.
pub async fn list_webhooks(
    webhooks: &dyn WebhookStore,
    caller: &KeyHolder,
) -> AppResult<Vec<WebhookSubscription>> {
    caller.require(Need::Read)?;
    Ok(webhooks.webhooks(caller.team_id).await?)
}

/// The body of `automation.deliveries`, as the client sends it.
#[derive(Debug, Clone, Default)]
pub struct DeliveryListInput {
    /// One subscription's deliveries.
    pub id: Option<String>,
    /// `pending`, `delivered` or `failed`; every status when absent.
    pub status: Option<String>,
    /// Page size, 1 to 100 (more is clamped to 100); 20 when absent.
    pub limit: Option<i64>,
    /// Deliveries to skip, 0 or more; 0 when absent.
    pub offset: Option<i64>,
}

/// `automation.deliveries`: a page of the team's deliveries, optionally of one subscription
/// or status. Any key, read-only included; 400 for a malformed id, status or page.
pub async fn list_deliveries(
    webhooks: &dyn WebhookStore,
    caller: &KeyHolder,
    input: DeliveryListInput,
) -> AppResult<Paged<Delivery>> {
    caller.require(Need::Read)?;
    let query = DeliveryQuery {
        webhook_id: input
            .id
            .as_deref()
            .map(|raw| WebhookId::parse("id", raw))
            .transpose()?,
        status: parse_given(input.status.as_deref(), DeliveryStatus::parse)?,
        page: PageRequest::new(input.limit, input.offset, DEFAULT_DELIVERIES_LIMIT)?,
    };
    Ok(webhooks.deliveries(caller.team_id, &query).await?)
}

/// Queues a delivery again, due now.
pub async fn redeliver(
    webhooks: &dyn WebhookStore,
    clock: &dyn Clock,
    caller: &KeyHolder,
    delivery_id: Option<&str>,
) -> AppResult<DeliveryId> {
    caller.require(Need::Admin(AdminArea::Automation))?;
    let id = DeliveryId::parse_required("deliveryId", delivery_id)?;
    match webhooks.redeliver(caller.team_id, id, clock.now()).await {
        Ok(true) => Ok(id),
        Ok(false) => Err(AppError::not_found(Entity::Delivery)),
        Err(StoreError::Conflict(Conflict::DeliveryInFlight)) => {
            Err(AppError::Domain(DomainError::Conflict(
                "The delivery is being attempted right now; redeliver it once that attempt ends"
                    .into(),
            )))
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Fixed;
    use sounding_domain::{
        access::Role,
        ports::{MockHostResolver, MockWebhookStore},
    };

    fn resolving_to(address: &'static str) -> MockHostResolver {
        let mut resolver = MockHostResolver::new();
        resolver
            .expect_resolve()
            .withf(|host| host == "hooks.test")
            .returning(move |_| vec![address.parse().unwrap()]);
        resolver
    }

    #[tokio::test]
    async fn a_name_resolving_to_a_private_address_is_refused_and_nothing_stored() {
        let mut store = MockWebhookStore::new();
        store.expect_insert_webhook().never();
        for address in ["10.0.0.1", "127.0.0.1", "169.254.169.254", "::1"] {
            let err = subscribe(
                &store,
                &resolving_to(address),
                &Fixed,
                &KeyHolder::sample(Role::Admin, false),
                TargetPolicy::default(),
                Some("https://hooks.test/x"),
                Some("new_feedback"),
            )
            .await
            .unwrap_err();
            assert_eq!(
                err,
                AppError::invalid("target_url resolves to a private, loopback or reserved address"),
                "{address}"
            );
        }
    }

    #[tokio::test]
    async fn a_public_or_unresolved_name_is_accepted() {
        for resolver in [resolving_to("93.184.216.34"), {
            let mut none = MockHostResolver::new();
            none.expect_resolve().returning(|_| Vec::new());
            none
        }] {
            let mut store = MockWebhookStore::new();
            store
                .expect_insert_webhook()
                .times(1)
                .returning(|w| Ok(w.clone()));
            let Subscribed { webhook, created } = subscribe(
                &store,
                &resolver,
                &Fixed,
                &KeyHolder::sample(Role::Admin, false),
                TargetPolicy::default(),
                Some("https://hooks.test/x"),
                Some("new_feedback"),
            )
            .await
            .unwrap();
            assert_eq!(webhook.target_url, "https://hooks.test/x");
            assert!(webhook.secret.starts_with("whsec_"));
            assert!(created);
        }
    }
}
