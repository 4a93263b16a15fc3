//! The portal's HTML. maud escapes every `(value)` it inserts, in text and in attributes; the
//! only raw text here is this module's own. Addresses carrying user input (the search words)
//! are URL-encoded before they are escaped.

use maud::{html, Markup, DOCTYPE};
use sounding_app::portal::{Front, PublicRoadmap};
use sounding_domain::{
    feedback::FeedbackView, feedback_comment::CommentView, page::Paged, team::Team,
    timestamp::Timestamp,
};

/// Characters of an item's text shown in a list.
const EXCERPT_CHARS: usize = 240;

/// How the front page was asked for, for its links.
pub struct FrontView<'a> {
    pub sort_top: bool,
    pub search: &'a str,
    pub page: i64,
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Section {
    Feedback,
    Roadmap,
    None,
}

fn base(team: &Team) -> String {
    format!("/p/{}", team.subdomain)
}

/// A whole page: what every page's `<head>` holds, and `body`.
fn document(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="stylesheet" href="/assets/portal.css";
            }
            body { (body) }
        }
    }
}

fn layout(team: &Team, title: &str, section: Section, body: Markup) -> Markup {
    let base = base(team);
    let current = |s: Section| (section == s).then_some("page");
    let page = html! {
        header.top {
            a.brand href=(base) { (team.name) }
            nav aria-label="Sections" {
                a href=(base) aria-current=[current(Section::Feedback)] { "Feedback" }
                a href={ (base) "/roadmap" } aria-current=[current(Section::Roadmap)] { "Roadmap" }
            }
            @if let Some(url) = &team.portal_sign_in_url {
                a.signin href=(url) rel="nofollow" { "Sign in to vote and comment" }
            }
        }
        main { (body) }
        footer { "Feedback portal powered by Sounding" }
    };
    document(&format!("{title} · {}", team.name), page)
}

/// The front page: boards, search, sort and a page of items.
pub fn front(team: &Team, front: &Front, view: &FrontView<'_>) -> Markup {
    let base = base(team);
    let board_id = front.board.as_ref().map(|b| b.board.id.to_string());
    let link = |board: Option<&str>, top: bool, search: &str, page: i64| {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        if let Some(board) = board {
            query.append_pair("board", board);
        }
        if top {
            query.append_pair("sort", "top");
        }
        if !search.is_empty() {
            query.append_pair("q", search);
        }
        if page > 1 {
            query.append_pair("page", &page.to_string());
        }
        let query = query.finish();
        if query.is_empty() {
            base.clone()
        } else {
            format!("{base}?{query}")
        }
    };
    let board = board_id.as_deref();
    let heading = front
        .board
        .as_ref()
        .map_or("All feedback", |b| b.board.name.as_str());
    let shown_to = front.items.page.offset + front.items.items.len() as i64;
    let body = html! {
        div.columns {
            nav.boards aria-label="Boards" {
                h2 { "Boards" }
                ul {
                    li { a href=(link(None, view.sort_top, "", 1)) aria-current=[board.is_none().then_some("page")] { "All feedback" } }
                    @for b in &front.boards {
                        @let id = b.board.id.to_string();
                        li { a href=(link(Some(&id), view.sort_top, "", 1)) aria-current=[(board == Some(id.as_str())).then_some("page")] { (b.board.name) } }
                    }
                }
            }
            section.list aria-labelledby="list-heading" {
                h1 #list-heading { (heading) }
                @if let Some(b) = &front.board {
                    @if !b.board.description.is_empty() { p.description { (b.board.description) } }
                }
                form.search method="get" action=(base) role="search" {
                    @if let Some(board) = board { input type="hidden" name="board" value=(board); }
                    @if view.sort_top { input type="hidden" name="sort" value="top"; }
                    label for="q" { "Search feedback" }
                    input #q type="search" name="q" value=(view.search) maxlength="255";
                    button type="submit" { "Search" }
                }
                nav.sort aria-label="Sort" {
                    a href=(link(board, true, view.search, 1)) aria-current=[view.sort_top.then_some("page")] { "Top" }
                    a href=(link(board, false, view.search, 1)) aria-current=[(!view.sort_top).then_some("page")] { "New" }
                }
                @if front.items.items.is_empty() {
                    p.empty { @if view.search.is_empty() { "No feedback here yet." } @else { "Nothing matches your search." } }
                } @else {
                    ol.items {
                        @for item in &front.items.items { (item_row(&base, item)) }
                    }
                }
                nav.pages aria-label="Pages" {
                    @if view.page > 1 {
                        a rel="prev" href=(link(board, view.sort_top, view.search, view.page - 1)) { "Newer page" }
                    }
                    @if shown_to < front.items.total {
                        a rel="next" href=(link(board, view.sort_top, view.search, view.page + 1)) { "Next page" }
                    }
                }
            }
        }
    };
    layout(team, heading, Section::Feedback, body)
}

fn item_row(base: &str, view: &FeedbackView) -> Markup {
    let item = &view.feedback;
    html! {
        li.item {
            div.votes aria-label={ (view.vote_count) " votes" } {
                span.count { (view.vote_count) } span.unit { (plural(view.vote_count, "vote", "votes")) }
            }
            div.summary {
                a.title href={ (base) "/feedback/" (item.id) } { (item.title) }
                @if !item.text.is_empty() { p.excerpt { (excerpt(&item.text)) } }
                p.meta {
                    span.status data-status=(item.status.as_str()) { (status_label(item.status.as_str())) }
                    span { (view.comment_count) " " (plural(view.comment_count, "comment", "comments")) }
                    @if let Some(board) = &view.board { span { (board.name) } }
                    (date(item.created_at))
                }
            }
        }
    }
}

/// An item's page: the item and its public comments.
pub fn item(team: &Team, view: &FeedbackView, comments: &Paged<CommentView>) -> Markup {
    let base = base(team);
    let item = &view.feedback;
    let body = html! {
        p.back { a href=(base) { "← All feedback" } }
        article.item-page {
            h1 { (item.title) }
            p.meta {
                span.status data-status=(item.status.as_str()) { (status_label(item.status.as_str())) }
                span { (view.vote_count) " " (plural(view.vote_count, "vote", "votes")) }
                @if let Some(board) = &view.board { span { (board.name) } }
                (date(item.created_at))
            }
            @if !item.text.is_empty() { div.text { (item.text) } }
        }
        section.comments aria-labelledby="comments-heading" {
            h2 #comments-heading { "Comments" }
            @if comments.items.is_empty() {
                p.empty { "No comments yet." }
            } @else {
                ol {
                    @for c in &comments.items {
                        li.comment {
                            p.meta {
                                strong { (c.author.as_ref().map_or("Someone", |a| a.name.as_str())) }
                                (date(c.comment.created_at))
                            }
                            div.text { (c.comment.text) }
                        }
                    }
                }
                @if comments.total > comments.items.len() as i64 {
                    p.more { "Showing the first " (comments.items.len()) " of " (comments.total) " comments." }
                }
            }
        }
    };
    layout(team, &item.title, Section::None, body)
}

/// The public roadmaps, each stage a column of its most voted topics.
pub fn roadmaps(team: &Team, roadmaps: &[PublicRoadmap]) -> Markup {
    let body = html! {
        h1 { "Roadmap" }
        @if roadmaps.is_empty() { p.empty { "No public roadmap yet." } }
        @for r in roadmaps {
            section.roadmap {
                h2 { (r.roadmap.name) }
                @if !r.roadmap.description.is_empty() { p.description { (r.roadmap.description) } }
                div.stages {
                    @for (stage, topics) in &r.stages {
                        section.stage {
                            h3 { (stage.stage.name) " " span.count { (stage.topic_count) } }
                            @if topics.items.is_empty() { p.empty { "Nothing here yet." } }
                            ul {
                                @for t in &topics.items {
                                    li.topic {
                                        span.title { (t.topic.title) }
                                        @if !t.topic.description.is_empty() && t.topic.description != t.topic.title {
                                            span.excerpt { (excerpt(&t.topic.description)) }
                                        }
                                        span.meta {
                                            (t.vote_count) " " (plural(t.vote_count, "vote", "votes")) " · "
                                            (t.comment_count) " " (plural(t.comment_count, "comment", "comments"))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    layout(team, "Roadmap", Section::Roadmap, body)
}

/// A page for a refusal: the status and the API's words for it.
pub fn error(status: u16, message: &str) -> Markup {
    let title = if status == 404 { "Not found" } else { message };
    let page = html! {
        main.error {
            h1 { (status) " · " (title) }
            @if status != 404 { p { (message) } }
            @if status == 404 { p { "There is no such page here." } }
        }
    };
    document(title, page)
}

fn date(at: Timestamp) -> Markup {
    let day = at.as_offset().date();
    html! {
        time datetime=(day) { (day.month()) " " (day.day()) ", " (day.year()) }
    }
}

fn status_label(status: &str) -> String {
    let words = status.replace('_', " ");
    let mut chars = words.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn plural(n: i64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_read_as_words() {
        assert_eq!(status_label("in_review"), "In review");
        assert_eq!(status_label("planned"), "Planned");
    }

    #[test]
    fn excerpts_cut_on_characters() {
        let long = "é".repeat(EXCERPT_CHARS + 5);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(excerpt("short"), "short");
    }
}
