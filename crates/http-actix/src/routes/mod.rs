//! The route table: every operation, served by POST under both `/v1` and `/api/v1`
//! (decisions §1), the OpenAPI document under each prefix, and the health endpoints.
//! Authentication and rate limiting wrap the API prefixes only.

pub mod api_keys;
pub mod automation;
pub mod document_reactions;
pub mod documents;
pub mod fallback;
pub mod feedback_boards;
pub mod feedback_comments;
pub mod feedback_csv;
pub mod feedback_merge;
pub mod feedback_votes;
pub mod feedbacks;
pub mod health;
pub mod notifications;
pub mod roadmaps;
pub mod stages;
pub mod subscribers;
pub mod subscribers_admin;
pub mod tags;
pub mod teams;
pub mod topic_comments;
pub mod topic_votes;
pub mod topics;
pub mod users;

use actix_web::{middleware::from_fn, web, FromRequest, Handler, Responder};

use crate::{
    auth::middleware::resolve_caller, cors, openapi, rate_limit, request_metrics::RouteName,
};

/// Every operation of the API: its name (the path after the prefix) and what serves it.
fn operations(cfg: &mut web::ServiceConfig) {
    operation(cfg, "teams.info", teams::info);
    operation(cfg, "teams.update", teams::update);
    operation(cfg, "public/subscriber.identify", subscribers::identify);
    operation(cfg, "public/subscriber.info", subscribers::info);
    operation(cfg, "public/subscriber.logout", subscribers::logout);
    operation(cfg, "feedback-boards.create", feedback_boards::create);
    operation(cfg, "feedback-boards.list", feedback_boards::list);
    operation(cfg, "feedback-boards.info", feedback_boards::info);
    operation(cfg, "feedback-boards.update", feedback_boards::update);
    operation(cfg, "feedback-boards.delete", feedback_boards::delete);
    operation(
        cfg,
        "public/feedback-boards.list",
        feedback_boards::public_list,
    );
    operation(cfg, "feedbacks.create", feedbacks::create);
    operation(cfg, "feedbacks.update", feedbacks::update);
    operation(cfg, "feedbacks.list", feedbacks::list);
    operation(cfg, "feedbacks.info", feedbacks::info);
    operation(cfg, "feedbacks.publish", feedbacks::publish);
    operation(cfg, "feedbacks.archive", feedbacks::archive);
    operation(cfg, "feedbacks.restore", feedbacks::restore);
    operation(cfg, "feedbacks.delete", feedbacks::delete);
    operation(cfg, "public/feedbacks.list", feedbacks::public_list);
    operation(cfg, "public/feedbacks.create", feedbacks::public_create);
    operation(cfg, "public/feedbacks.info", feedbacks::public_info);
    operation(cfg, "public/feedbacks.update", feedbacks::public_update);
    operation(cfg, "public/feedbacks.delete", feedbacks::public_delete);
    operation(cfg, "public/feedbacks.subscribe", feedbacks::subscribe);
    operation(cfg, "public/feedbacks.unsubscribe", feedbacks::unsubscribe);
    operation(cfg, "feedback-comments.create", feedback_comments::create);
    operation(cfg, "feedback-comments.list", feedback_comments::list);
    operation(cfg, "feedback-comments.update", feedback_comments::update);
    operation(cfg, "feedback-comments.delete", feedback_comments::delete);
    operation(
        cfg,
        "public/feedback-comments.create",
        feedback_comments::public_create,
    );
    operation(
        cfg,
        "public/feedback-comments.list",
        feedback_comments::public_list,
    );
    operation(cfg, "public/feedback-votes.create", feedback_votes::create);
    operation(cfg, "public/feedback-votes.delete", feedback_votes::delete);
    operation(cfg, "public/feedback-votes.info", feedback_votes::info);
    operation(cfg, "feedbacks.vote", feedback_votes::vote);
    operation(cfg, "feedbacks.unvote", feedback_votes::unvote);
    operation(cfg, "roadmaps.create", roadmaps::create);
    operation(cfg, "roadmaps.list", roadmaps::list);
    operation(cfg, "roadmaps.info", roadmaps::info);
    operation(cfg, "roadmaps.update", roadmaps::update);
    operation(cfg, "roadmaps.delete", roadmaps::delete);
    operation(cfg, "stages.create", stages::create);
    operation(cfg, "stages.update", stages::update);
    operation(cfg, "stages.delete", stages::delete);
    operation(cfg, "public/stages.list", stages::public_list);
    operation(cfg, "public/stages.info", stages::public_info);
    operation(cfg, "topics.create", topics::create);
    operation(cfg, "topics.list", topics::list);
    operation(cfg, "topics.update", topics::update);
    operation(cfg, "topics.delete", topics::delete);
    operation(cfg, "public/topics.create", topics::public_create);
    operation(cfg, "public/topics.info", topics::public_info);
    operation(cfg, "public/topics.subscribe", topics::subscribe);
    operation(cfg, "public/topics.unsubscribe", topics::unsubscribe);
    operation(cfg, "public/topic-comments.create", topic_comments::create);
    operation(cfg, "public/topic-comments.list", topic_comments::list);
    operation(cfg, "topic-comments.list", topic_comments::team_list);
    operation(cfg, "topic-comments.update", topic_comments::update);
    operation(cfg, "topic-comments.delete", topic_comments::delete);
    operation(cfg, "public/topic-votes.create", topic_votes::create);
    operation(cfg, "public/topic-votes.delete", topic_votes::delete);
    operation(cfg, "public/topic-votes.info", topic_votes::info);
    operation(cfg, "topics.vote", topic_votes::vote);
    operation(cfg, "topics.unvote", topic_votes::unvote);
    operation(cfg, "automation.subscribe", automation::subscribe);
    operation(cfg, "automation.unsubscribe", automation::unsubscribe);
    operation(cfg, "zapier.subscribe", automation::zapier_subscribe);
    operation(cfg, "zapier.unsubscribe", automation::zapier_unsubscribe);
    operation(cfg, "automation.list", automation::list);
    operation(cfg, "automation.deliveries", automation::deliveries);
    operation(cfg, "automation.redeliver", automation::redeliver);
    operation(cfg, "feedbacks.export", feedback_csv::export);
    operation(cfg, "feedbacks.import", feedback_csv::import);
    operation(cfg, "public/notifications.list", notifications::list);
    operation(
        cfg,
        "public/notifications.markRead",
        notifications::mark_read,
    );
    operation(cfg, "documents.create", documents::create);
    operation(cfg, "documents.list", documents::list);
    operation(cfg, "documents.info", documents::info);
    operation(cfg, "documents.update", documents::update);
    operation(cfg, "documents.publish", documents::publish);
    operation(cfg, "documents.unpublish", documents::unpublish);
    operation(cfg, "documents.delete", documents::delete);
    operation(cfg, "public/documents.list", documents::public_list);
    operation(
        cfg,
        "public/document-reactions.create",
        document_reactions::create,
    );
    operation(
        cfg,
        "public/document-reactions.delete",
        document_reactions::delete,
    );
    operation(cfg, "tags.create", tags::create);
    operation(cfg, "tags.list", tags::list);
    operation(cfg, "tags.update", tags::update);
    operation(cfg, "tags.delete", tags::delete);
    operation(cfg, "feedbacks.merge", feedback_merge::merge);
    operation(cfg, "feedbacks.count", feedback_merge::count);
    operation(cfg, "subscribers.list", subscribers_admin::list);
    operation(cfg, "subscribers.info", subscribers_admin::info);
    operation(cfg, "subscribers.update", subscribers_admin::update);
    operation(cfg, "subscribers.delete", subscribers_admin::delete);
    operation(cfg, "users.list", users::list);
    operation(cfg, "users.create", users::create);
    operation(cfg, "users.update", users::update);
    operation(cfg, "users.delete", users::delete);
    operation(cfg, "api-keys.list", api_keys::list);
    operation(cfg, "api-keys.create", api_keys::create);
    operation(cfg, "api-keys.delete", api_keys::delete);
}

fn operation<F, Args>(cfg: &mut web::ServiceConfig, name: &'static str, handler: F)
where
    F: Handler<Args>,
    Args: FromRequest + 'static,
    F::Output: Responder + 'static,
{
    cfg.service(
        web::resource(format!("/{name}"))
            .app_data(RouteName(name))
            .route(web::post().to(handler))
            .default_service(web::to(fallback::post_only)),
    );
}

/// One API prefix: the operations and the OpenAPI document, authenticated and rate limited.
fn api_scope(cfg: &mut web::ServiceConfig, prefix: &str) {
    cfg.service(
        web::scope(prefix)
            .configure(operations)
            .service(
                web::resource("/openapi.json")
                    .route(web::get().to(openapi::serve))
                    .default_service(web::to(fallback::get_only)),
            )
            .default_service(web::to(fallback::unknown_operation))
            // The last wrap runs first: authenticate, then count against the caller's bucket.
            .wrap(from_fn(rate_limit::enforce))
            .wrap(from_fn(resolve_caller))
            // Outermost: a preflight is answered before authentication and the rate limit.
            .wrap(from_fn(cors::grant_public_operations)),
    );
}

/// Where the operations are served (decisions §1).
pub const PREFIXES: [&str; 2] = ["/v1", "/api/v1"];

/// The operation a path (or a route's pattern) names under either prefix: `feedbacks.create`
/// for `/v1/feedbacks.create` and `/api/v1/feedbacks.create`.
pub(crate) fn operation_name(path: &str) -> Option<&str> {
    PREFIXES
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix)?.strip_prefix('/'))
        .filter(|name| !name.is_empty())
}

/// Every route of the application.
pub fn configure(cfg: &mut web::ServiceConfig) {
    for prefix in PREFIXES {
        api_scope(cfg, prefix);
    }
    crate::portal::configure(cfg);
    crate::assets::configure(cfg);
    cfg.service(
        web::resource("/healthz")
            .app_data(RouteName("/healthz"))
            .route(web::get().to(health::healthz))
            .default_service(web::to(fallback::get_only)),
    )
    .service(
        web::resource("/readyz")
            .app_data(RouteName("/readyz"))
            .route(web::get().to(health::readyz))
            .default_service(web::to(fallback::get_only)),
    );
}
