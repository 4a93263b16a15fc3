//! The browser's static files, compiled into the binary: the embeddable widget
//! (`GET /widget.js`) and the portal's stylesheet (`GET /assets/portal.css`).

use actix_web::{http::header, web, HttpResponse};

use crate::routes::fallback;

const WIDGET: &str = include_str!("../assets/widget.js");
const PORTAL_CSS: &str = include_str!("../assets/portal.css");

/// Routes for the static files; GET only.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/widget.js")
            .route(web::get().to(widget))
            .default_service(web::to(fallback::get_only)),
    )
    .service(
        web::resource("/assets/portal.css")
            .route(web::get().to(portal_css))
            .default_service(web::to(fallback::get_only)),
    );
}

async fn widget() -> HttpResponse {
    asset("text/javascript; charset=utf-8", WIDGET)
}

async fn portal_css() -> HttpResponse {
    asset("text/css; charset=utf-8", PORTAL_CSS)
}

fn asset(content_type: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        // Short: a new release's file reaches pages within minutes.
        .insert_header((header::CACHE_CONTROL, "public, max-age=300"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        // Public files, loaded by other sites' pages (and with `crossorigin` for integrity).
        .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
        .insert_header(("cross-origin-resource-policy", "cross-origin"))
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bar: the whole widget under 40 KB, uncompressed.
    #[test]
    fn the_widget_stays_small() {
        assert!(
            WIDGET.len() < 40 * 1024,
            "widget.js is {} bytes",
            WIDGET.len()
        );
    }
}
