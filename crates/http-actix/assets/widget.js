/*
 * Sounding feedback widget (served at /widget.js). One script, no framework, no build step.
 *
 *   <script src="https://feedback.example.com/widget.js"
 *           data-token="<subscriber token from subscriber.identify>"
 *           data-board-id="<board UUID>" async></script>
 *
 * or, to pass the token later:  Sounding.init({ baseUrl, token, boardId, open, container })
 *
 * Everything renders inside a shadow root, so the host page's CSS does not reach it and its
 * CSS does not leak out. Every call goes to the public API with the subscriber token in
 * `Authorization`; the Sounding server must list the page's origin in SOUNDING_CORS_ORIGINS.
 * Text from the API is only ever set with textContent, never parsed as HTML.
 */
(function () {
  "use strict";

  if (window.Sounding && typeof window.Sounding.init === "function") {
    return;
  }

  var currentScript = document.currentScript;
  var PAGE_SIZE = 20;

  var STYLE = [
    ":host{all:initial}",
    "*{box-sizing:border-box}",
    ".root{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2328}",
    "button,input,textarea{font:inherit;color:inherit}",
    ":focus-visible{outline:3px solid #0b57d0;outline-offset:2px}",
    ".launcher{position:fixed;right:20px;bottom:20px;z-index:2147483000;border:0;border-radius:999px;",
    "padding:10px 18px;background:#0b57d0;color:#fff;font-weight:600;cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.2)}",
    ".panel{position:fixed;right:20px;bottom:72px;z-index:2147483001;width:min(400px,calc(100vw - 40px));",
    "height:min(620px,calc(100vh - 100px));display:flex;flex-direction:column;background:#fff;",
    "border:1px solid #d1d9e0;border-radius:12px;box-shadow:0 12px 40px rgba(0,0,0,.25);overflow:hidden}",
    ".panel[hidden]{display:none}",
    ".inline .launcher{display:none}",
    ".inline .panel{position:static;width:100%;height:auto;min-height:420px;box-shadow:none}",
    "header{display:flex;align-items:center;gap:8px;padding:12px 14px;border-bottom:1px solid #d1d9e0}",
    "h2{font-size:16px;margin:0;flex:1;overflow-wrap:anywhere}",
    "h3{font-size:16px;margin:6px 0;overflow-wrap:anywhere}",
    ".icon{border:0;background:none;cursor:pointer;font-size:18px;line-height:1;padding:4px 8px;border-radius:6px}",
    ".icon:hover{background:#f6f8fa}",
    ".error{margin:8px 14px 0;padding:8px 10px;border-radius:8px;background:#ffebe9;color:#82071e;border:1px solid #ff8182}",
    ".notice{margin:8px 14px 0;padding:8px 10px;border-radius:8px;background:#dafbe1;color:#116329;border:1px solid #4ac26b}",
    ".error[hidden],.notice[hidden]{display:none}",
    ".body{flex:1;overflow:auto;padding:10px 14px 14px}",
    ".toolbar{display:flex;gap:6px;align-items:center;flex-wrap:wrap;margin-bottom:8px}",
    ".tab{border:1px solid #d1d9e0;background:#fff;border-radius:999px;padding:3px 12px;cursor:pointer}",
    ".tab[aria-pressed=true]{background:#1f2328;color:#fff;border-color:#1f2328}",
    ".primary{border:0;background:#0b57d0;color:#fff;border-radius:8px;padding:6px 12px;cursor:pointer;font-weight:600}",
    ".primary[disabled]{opacity:.6;cursor:default}",
    ".secondary{border:1px solid #d1d9e0;background:#fff;border-radius:8px;padding:6px 12px;cursor:pointer}",
    ".push{margin-left:auto}",
    "input[type=search],input[type=text],textarea{width:100%;border:1px solid #d1d9e0;border-radius:8px;padding:7px 9px;background:#fff}",
    "textarea{min-height:84px;resize:vertical}",
    "label{display:block;font-weight:600;margin:10px 0 4px}",
    ".sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}",
    "ul,ol{list-style:none;margin:0;padding:0}",
    ".item{display:flex;gap:10px;padding:10px 0;border-top:1px solid #eaeef2}",
    ".vote{min-width:52px;border:1px solid #d1d9e0;background:#fff;border-radius:8px;padding:4px 6px;cursor:pointer;",
    "display:flex;flex-direction:column;align-items:center;align-self:flex-start}",
    ".vote[aria-pressed=true]{background:#ddf4ff;border-color:#0b57d0;color:#0b57d0}",
    ".vote .n{font-weight:700;font-size:15px}",
    ".vote .arrow{font-size:11px}",
    ".open{border:0;background:none;padding:0;text-align:left;cursor:pointer;font-weight:600;overflow-wrap:anywhere}",
    ".open:hover{text-decoration:underline}",
    ".meta{color:#59636e;font-size:12px;display:flex;gap:8px;flex-wrap:wrap;margin-top:2px}",
    ".text{white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0}",
    ".comment{padding:8px 0;border-top:1px solid #eaeef2}",
    ".empty{color:#59636e;padding:12px 0}",
    ".more{width:100%;margin-top:8px}",
    ".row{display:flex;gap:8px;align-items:flex-start;margin:8px 0}",
    ".actions{display:flex;gap:8px;margin-top:10px}"
  ].join("");

  /** An element with attributes and children; strings become text nodes, never HTML. */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    var name;
    for (name in attrs || {}) {
      if (!Object.prototype.hasOwnProperty.call(attrs, name)) continue;
      var value = attrs[name];
      if (value === false || value === null || value === undefined) continue;
      if (name === "text") node.textContent = value;
      else if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function plural(n, one, many) {
    return n + " " + (n === 1 ? one : many);
  }

  function statusLabel(status) {
    var words = String(status || "").replace(/_/g, " ");
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  function day(iso) {
    var at = new Date(iso);
    return isNaN(at.getTime()) ? "" : at.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
  }

  /** Words for a refusal, from the API's JSON error body where it has one. */
  function describe(status, body, retryAfter) {
    var said = body && typeof body.error === "string" ? body.error : "";
    if (status === 429) {
      return "Too many requests: please wait " + (retryAfter ? retryAfter + " seconds" : "a moment") + " and try again.";
    }
    if (status === 401) {
      return "You are not signed in, or your session has expired. Please sign in again.";
    }
    if (status >= 500) {
      return "Sounding had a problem answering (" + status + "). Please try again in a moment.";
    }
    return said ? said.charAt(0).toUpperCase() + said.slice(1) + "." : "The request was refused (" + status + ").";
  }

  function ApiError(message, status) {
    this.message = message;
    this.status = status;
  }

  function client(baseUrl, token) {
    return function call(operation, body) {
      return fetch(baseUrl + "/v1/public/" + operation, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer " + token },
        body: JSON.stringify(body || {}),
        credentials: "omit"
      }).then(
        function (response) {
          return response.text().then(function (raw) {
            var parsed = null;
            try {
              parsed = raw ? JSON.parse(raw) : null;
            } catch (ignored) {
              parsed = null;
            }
            if (!response.ok) {
              throw new ApiError(describe(response.status, parsed, response.headers.get("retry-after")), response.status);
            }
            return parsed;
          });
        },
        function () {
          throw new ApiError("Sounding could not be reached. Check your connection and try again.", 0);
        }
      );
    };
  }

  function Widget(options) {
    var self = this;
    this.call = client(options.baseUrl, options.token);
    this.boardId = options.boardId || null;
    this.sort = "top";
    this.search = "";
    this.items = [];
    this.total = 0;
    this.searchTimer = null;
    // Bumped by each new list: an answer for an older one (a slow search) is dropped.
    this.generation = 0;

    this.host = el("div", { "data-sounding-widget": "" });
    (options.container || document.body).appendChild(this.host);
    var shadow = this.host.attachShadow({ mode: "open" });
    this.shadow = shadow;
    if (shadow.adoptedStyleSheets !== undefined && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
      // A constructed sheet is not an inline style: a host page's CSP does not block it.
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLE);
      shadow.adoptedStyleSheets = [sheet];
    } else {
      shadow.appendChild(el("style", { text: STYLE }));
    }

    this.launcher = el("button", {
      class: "launcher", type: "button", "aria-haspopup": "dialog", "aria-expanded": "false",
      onclick: function () { self.toggle(); }
    }, ["Feedback"]);
    this.title = el("h2", { id: "sounding-title", text: "Feedback" });
    this.error = el("div", { class: "error", role: "alert", hidden: true });
    this.notice = el("div", { class: "notice", role: "status", hidden: true });
    this.body = el("div", { class: "body" });
    this.panel = el("section", {
      class: "panel", role: "dialog", "aria-labelledby": "sounding-title", hidden: true,
      onkeydown: function (event) {
        if (event.key === "Escape" && !options.container) {
          event.stopPropagation();
          self.close();
        }
      }
    }, [
      el("header", {}, [
        this.title,
        options.container ? null : el("button", {
          class: "icon", type: "button", "aria-label": "Close feedback", text: "\u00d7",
          onclick: function () { self.close(); }
        })
      ]),
      this.error,
      this.notice,
      this.body
    ]);
    this.root = el("div", { class: "root" + (options.container ? " inline" : "") }, [this.launcher, this.panel]);
    shadow.appendChild(this.root);

    if (this.boardId) {
      this.call("feedback-boards.list", {}).then(function (reply) {
        (reply.data || []).forEach(function (board) {
          if (board.id === self.boardId) self.title.textContent = board.name;
        });
      }, function () { /* the title stays generic; the list reports errors */ });
    }
    if (options.open || options.container) this.open();
  }

  Widget.prototype.showError = function (error) {
    this.notice.hidden = true;
    this.error.textContent = error && error.message ? error.message : String(error);
    this.error.hidden = false;
  };

  Widget.prototype.showNotice = function (text) {
    this.error.hidden = true;
    this.notice.textContent = text;
    this.notice.hidden = !text;
  };

  Widget.prototype.clearMessages = function () {
    this.error.hidden = true;
    this.notice.hidden = true;
  };

  Widget.prototype.toggle = function () {
    if (this.panel.hidden) this.open();
    else this.close();
  };

  Widget.prototype.open = function () {
    this.panel.hidden = false;
    this.launcher.setAttribute("aria-expanded", "true");
    this.showList("search");
  };

  Widget.prototype.close = function () {
    clearTimeout(this.searchTimer);
    this.generation += 1;
    this.panel.hidden = true;
    this.launcher.setAttribute("aria-expanded", "false");
    this.launcher.focus();
  };

  Widget.prototype.render = function (nodes, focus) {
    this.body.textContent = "";
    var body = this.body;
    nodes.forEach(function (node) { if (node) body.appendChild(node); });
    if (focus) focus.focus();
  };

  /** A vote button for `item`, kept in step with it. */
  Widget.prototype.voteButton = function (item, onChange) {
    var self = this;
    var count = el("span", { class: "n" });
    var button = el("button", { class: "vote", type: "button" }, [el("span", { class: "arrow", "aria-hidden": "true", text: "\u25b2" }), count]);
    function draw() {
      count.textContent = String(item.feedbackVotesCount || 0);
      button.setAttribute("aria-pressed", item.hasVoted ? "true" : "false");
      button.setAttribute("aria-label", (item.hasVoted ? "Remove your vote for " : "Vote for ") + item.title + " (" + plural(item.feedbackVotesCount || 0, "vote", "votes") + ")");
    }
    button.addEventListener("click", function () {
      var voting = !item.hasVoted;
      button.disabled = true;
      self.clearMessages();
      self.call(voting ? "feedback-votes.create" : "feedback-votes.delete", { feedbackId: item.id }).then(function (reply) {
        item.hasVoted = voting;
        item.feedbackVotesCount = reply.totalVotes;
      }, function (error) {
        if (error.status !== 409) {
          self.showError(error);
          return;
        }
        // Already voted elsewhere (another tab): show the vote and count as they are.
        return self.call("feedback-votes.info", { feedbackId: item.id }).then(function (reply) {
          item.hasVoted = reply.data.hasVoted;
          item.feedbackVotesCount = reply.data.count;
        }, function (again) { self.showError(again); });
      }).then(function () {
        button.disabled = false;
        draw();
        if (onChange) onChange();
      });
    });
    draw();
    return button;
  };

  Widget.prototype.itemRow = function (item) {
    var self = this;
    return el("li", { class: "item" }, [
      this.voteButton(item),
      el("div", {}, [
        el("button", { class: "open", type: "button", "data-item": item.id, text: item.title, onclick: function () { self.showItem(item); } }),
        el("div", { class: "meta" }, [
          el("span", { text: statusLabel(item.status) }),
          el("span", { text: plural(item.feedbackCommentsCount || 0, "comment", "comments") })
        ])
      ])
    ]);
  };

  Widget.prototype.fetchPage = function (offset) {
    var query = { sortBy: this.sort === "top" ? "top" : "newest", limit: PAGE_SIZE, offset: offset };
    if (this.boardId) query.boardId = this.boardId;
    if (this.search.trim()) query.search = this.search.trim();
    return this.call("feedbacks.list", query);
  };

  /** The list; `focus` says what gets focus once drawn: "search", "top", "new", "give", or an
   *  item id (its title button, back from that item). */
  Widget.prototype.showList = function (focus) {
    var self = this;
    clearTimeout(this.searchTimer);
    var controls = ["search", "top", "new", "give"];
    var focusItem = focus && controls.indexOf(focus) < 0 ? focus : null;
    var generation = this.generation;
    var list = el("ul", { "aria-label": "Feedback", "aria-busy": "true" });
    var more = el("button", { class: "secondary more", type: "button", hidden: true, text: "Show more" });
    function tab(sort, label) {
      return el("button", {
        class: "tab", type: "button", "aria-pressed": self.sort === sort ? "true" : "false", text: label,
        onclick: function () { self.sort = sort; self.showList(sort); }
      });
    }
    var search = el("input", {
      type: "search", id: "sounding-search", placeholder: "Search feedback", value: this.search, maxlength: "255",
      oninput: function () {
        self.search = search.value;
        clearTimeout(self.searchTimer);
        self.searchTimer = setTimeout(load, 250);
      }
    });
    function load() {
      var mine = ++self.generation;
      generation = mine;
      list.setAttribute("aria-busy", "true");
      self.fetchPage(0).then(function (reply) {
        if (mine !== self.generation) return;
        self.error.hidden = true;
        self.items = reply.data || [];
        self.total = reply.pagination ? reply.pagination.total : self.items.length;
        draw();
        if (focusItem) {
          var row = list.querySelector('[data-item="' + focusItem + '"]');
          if (row) row.focus();
          focusItem = null;
        }
      }, function (error) {
        if (mine !== self.generation) return;
        self.showError(error);
        list.setAttribute("aria-busy", "false");
      });
    }
    function draw() {
      list.textContent = "";
      list.setAttribute("aria-busy", "false");
      if (!self.items.length) {
        list.appendChild(el("li", { class: "empty", text: self.search.trim() ? "Nothing matches your search." : "No feedback yet: be the first." }));
      }
      self.items.forEach(function (item) { list.appendChild(self.itemRow(item)); });
      more.hidden = self.items.length >= self.total;
    }
    more.addEventListener("click", function () {
      more.disabled = true;
      self.fetchPage(self.items.length).then(function (reply) {
        if (generation !== self.generation) return;
        self.items = self.items.concat(reply.data || []);
        self.total = reply.pagination ? reply.pagination.total : self.total;
        draw();
      }, function (error) { self.showError(error); }).then(function () { more.disabled = false; });
    });
    var tabs = { top: tab("top", "Top"), new: tab("new", "New") };
    var give = el("button", { class: "primary push", type: "button", text: "Give feedback", onclick: function () { self.showNew(); } });
    this.render([
      el("div", { class: "toolbar", role: "group", "aria-label": "Sort" }, [tabs.top, tabs.new, give]),
      el("label", { class: "sr", for: "sounding-search", text: "Search feedback" }),
      search,
      list,
      more
    ], { search: search, top: tabs.top, new: tabs.new, give: give }[focus]);
    load();
  };

  Widget.prototype.showItem = function (item) {
    var self = this;
    clearTimeout(this.searchTimer);
    this.generation += 1;
    this.clearMessages();
    var comments = el("ol", { "aria-label": "Comments", "aria-busy": "true" });
    var text = el("textarea", { id: "sounding-comment", "aria-required": "true", maxlength: "10000" });
    var send = el("button", { class: "primary", type: "submit", text: "Comment" });
    var back = el("button", { class: "secondary", type: "button", text: "\u2190 Back", onclick: function () { self.showList(item.id); } });
    var form = el("form", {
      onsubmit: function (event) {
        event.preventDefault();
        if (!text.value.trim()) {
          self.showError({ message: "Write a comment first." });
          text.focus();
          return;
        }
        send.disabled = true;
        self.clearMessages();
        self.call("feedback-comments.create", { feedbackId: item.id, text: text.value }).then(function (reply) {
          text.value = "";
          item.feedbackCommentsCount = (item.feedbackCommentsCount || 0) + 1;
          comments.querySelectorAll(".empty").forEach(function (n) { n.remove(); });
          comments.appendChild(commentRow(reply.data));
          self.showNotice("Your comment was posted.");
        }, function (error) { self.showError(error); }).then(function () { send.disabled = false; });
      }
    }, [
      el("label", { for: "sounding-comment", text: "Add a comment" }),
      text,
      el("div", { class: "actions" }, [send])
    ]);
    function commentRow(comment) {
      return el("li", { class: "comment" }, [
        el("div", { class: "meta" }, [
          el("strong", { text: comment.subscriber && comment.subscriber.name ? comment.subscriber.name : "Someone" }),
          el("span", { text: day(comment.createdAt) })
        ]),
        el("div", { class: "text", text: comment.text })
      ]);
    }
    this.render([
      back,
      el("div", { class: "row" }, [
        this.voteButton(item),
        el("div", {}, [
          el("h3", { text: item.title }),
          el("div", { class: "meta" }, [el("span", { text: statusLabel(item.status) }), el("span", { text: day(item.createdAt) })])
        ])
      ]),
      item.text ? el("div", { class: "text", text: item.text }) : null,
      el("h3", { text: "Comments" }),
      comments,
      form
    ], back);
    this.call("feedback-comments.list", { feedbackId: item.id, limit: 100 }).then(function (reply) {
      comments.setAttribute("aria-busy", "false");
      var found = reply.data || [];
      if (!found.length) comments.appendChild(el("li", { class: "empty", text: "No comments yet." }));
      found.forEach(function (c) { comments.appendChild(commentRow(c)); });
    }, function (error) {
      comments.setAttribute("aria-busy", "false");
      self.showError(error);
    });
  };

  Widget.prototype.showNew = function () {
    var self = this;
    clearTimeout(this.searchTimer);
    this.generation += 1;
    this.clearMessages();
    // Not `required`: the browser would refuse the form itself, and the API says it in words.
    var title = el("input", { type: "text", id: "sounding-new-title", "aria-required": "true", maxlength: "255", autocomplete: "off" });
    var details = el("textarea", { id: "sounding-new-text", maxlength: "50000" });
    var submit = el("button", { class: "primary", type: "submit", text: "Submit feedback" });
    var form = el("form", {
      onsubmit: function (event) {
        event.preventDefault();
        submit.disabled = true;
        self.clearMessages();
        var body = { title: title.value, text: details.value };
        if (self.boardId) body.boardId = self.boardId;
        self.call("feedbacks.create", body).then(function (reply) {
          var created = reply.data || {};
          self.sort = "new";
          self.search = "";
          self.showList("give");
          self.showNotice(created.publishedAt ? "Thanks! Your feedback was posted." : "Thanks! Your feedback will appear once the team approves it.");
        }, function (error) {
          self.showError(error);
          submit.disabled = false;
        });
      }
    }, [
      el("h3", { text: "Give feedback" }),
      el("label", { for: "sounding-new-title", text: "Title" }),
      title,
      el("label", { for: "sounding-new-text", text: "Details (optional)" }),
      details,
      el("div", { class: "actions" }, [
        submit,
        el("button", { class: "secondary", type: "button", text: "Cancel", onclick: function () { self.showList("give"); } })
      ])
    ]);
    this.render([form], title);
  };

  Widget.prototype.destroy = function () {
    this.host.remove();
  };

  function init(options) {
    options = options || {};
    if (!options.token) throw new Error("Sounding.init needs a subscriber token (from subscriber.identify)");
    var baseUrl = String(options.baseUrl || defaultBase()).replace(/\/+$/, "");
    var widget = new Widget({
      baseUrl: baseUrl,
      token: options.token,
      boardId: options.boardId,
      open: !!options.open,
      container: options.container || null
    });
    return {
      open: function () { widget.open(); },
      close: function () { widget.close(); },
      destroy: function () { widget.destroy(); }
    };
  }

  function defaultBase() {
    if (currentScript && currentScript.src) return new URL(currentScript.src).origin;
    return location.origin;
  }

  window.Sounding = { init: init, version: "1" };

  // The script tag itself may carry the settings.
  if (currentScript && currentScript.dataset && currentScript.dataset.token) {
    var data = currentScript.dataset;
    var start = function () {
      init({ baseUrl: data.baseUrl, token: data.token, boardId: data.boardId, open: data.open === "true" });
    };
    if (document.body) start();
    else document.addEventListener("DOMContentLoaded", start);
  }
})();
