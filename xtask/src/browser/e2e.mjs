// The end-user loop in Chromium (run by `cargo xtask browser`): the widget embedded in a page
// of another origin, then the public portal. Every action in the browser is checked through
// the API afterwards; any alert dialog, page error or console error fails the run.
import http from "node:http";
import assert from "node:assert/strict";
import path from "node:path";
import { chromium } from "playwright-core";

const base = process.env.SOUNDING_BASE;
const key = process.env.SOUNDING_KEY;
const hostPort = Number(process.env.HOST_PORT);
const shots = process.env.SHOTS;
const hostOrigin = `http://127.0.0.1:${hostPort}`;

async function api(op, body, token = key) {
  const response = await fetch(`${base}/v1/${op}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${op}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Waits until the widget's focused element reads `text`. */
async function focusedIs(page, text) {
  await page.waitForFunction(
    (expected) => document.querySelector("[data-sounding-widget]").shadowRoot.activeElement?.textContent === expected,
    text,
  );
}

function step(name) {
  console.log(`browser: ${name}`);
}

// ---- Seed: a public board with ordinary and hostile titles, a roadmap, a signed-in user.
const board = (await api("feedback-boards.create", { name: "Ideas", meta: { isPublic: true } })).data;
await api("teams.update", { name: "Acme", portalSignInUrl: `${hostOrigin}/login` });
const dark = (await api("feedbacks.create", {
  title: "Dark mode",
  text: "Easier on the eyes at night",
  boardId: board.id,
})).data;
await api("feedbacks.create", {
  title: "<script>alert(1)</script>",
  text: '"><img src=x onerror=alert(2)>',
  boardId: board.id,
});
await api("feedbacks.create", { title: '"><img src=x onerror=alert(3)>', boardId: board.id });
await api("feedbacks.create", { title: "Slack integration", text: "Post new feedback to a channel", boardId: board.id });
const roadmap = (await api("roadmaps.create", { name: "Product" })).data;
const stage = (await api("stages.create", { roadmapId: roadmap.id, name: "Up next" })).data;
const ada = await api("public/subscriber.identify", { email: "ada@example.com", name: "Ada Lovelace" });
const token = ada.code;
await api("public/topics.create", { title: "Exports", roadmapId: roadmap.id, stageId: stage.id }, token);

// ---- The team's own site, on another origin, with hostile CSS and a strict CSP of its own.
const hostileCss = `
  * { color: magenta !important; font-family: serif !important; }
  button { background: red !important; font-size: 30px !important; }
  ul, ol { list-style: square !important; }
`;
const host = http.createServer((req, res) => {
  const url = new URL(req.url, hostOrigin);
  if (url.pathname === "/host.css") {
    res.writeHead(200, { "content-type": "text/css" });
    return res.end(hostileCss);
  }
  if (url.pathname !== "/") {
    res.writeHead(204);
    return res.end();
  }
  const pageToken = url.searchParams.get("token") ?? token;
  res.writeHead(200, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy":
      `default-src 'none'; script-src ${base}; connect-src ${base}; style-src 'self'; img-src 'self'`,
  });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme shop</title>
<link rel="stylesheet" href="/host.css"></head><body><h1>Acme shop</h1>
<p>The team's own product page, with the widget added by one script tag.</p>
<button id="host-button" type="button">Host button</button>
<script src="${base}/widget.js" data-token="${pageToken}" data-board-id="${board.id}"></script>
</body></html>`);
});
await new Promise((resolve) => host.listen(hostPort, "127.0.0.1", resolve));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const problems = [];
let exitCode = 0;
try {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const page = await context.newPage();
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    dialog.dismiss();
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    // Refused calls (the 400 and 401 this test provokes, the portal's 404s, the favicon) are
    // logged as "Failed to load resource": each is checked where it happens. Anything else,
    // a CSP violation above all, is a failure.
    const text = message.text();
    if (message.type() === "error" && !text.startsWith("Failed to load resource")) {
      problems.push(`console: ${text}`);
    }
  });

  step("the widget opens from the keyboard, isolated from the page's CSS");
  await page.goto(`${hostOrigin}/`);
  const launcher = page.getByRole("button", { name: "Feedback", exact: true });
  await launcher.focus();
  await page.keyboard.press("Enter");
  const panel = page.getByRole("dialog");
  await panel.waitFor();
  assert.equal(await launcher.getAttribute("aria-expanded"), "true");
  assert.equal(await panel.getByRole("heading", { level: 2 }).textContent(), "Ideas");
  const launcherStyle = await launcher.evaluate((b) => {
    const s = getComputedStyle(b);
    return [s.backgroundColor, s.fontSize];
  });
  assert.deepEqual(launcherStyle, ["rgb(11, 87, 208)", "14px"], "the host page's CSS reached the widget");
  const hostStyle = await page.locator("#host-button").evaluate((b) => getComputedStyle(b).backgroundColor);
  assert.equal(hostStyle, "rgb(255, 0, 0)", "the widget's CSS reached the host page");

  step("hostile titles are text");
  await panel.getByRole("button", { name: "Dark mode", exact: true }).waitFor();
  await panel.getByRole("button", { name: "<script>alert(1)</script>", exact: true }).waitFor();
  await panel.getByRole("button", { name: '"><img src=x onerror=alert(3)>', exact: true }).waitFor();
  assert.equal(await page.locator("[data-sounding-widget] img").count(), 0);

  step("vote, un-vote and vote again; the API agrees each time");
  const voteInfo = async () => (await api("public/feedback-votes.info", { feedbackId: dark.id }, token)).data;
  await panel.getByRole("button", { name: /^Vote for Dark mode/ }).click();
  await panel.getByRole("button", { name: /^Remove your vote for Dark mode \(1 vote\)/ }).waitFor();
  assert.deepEqual([(await voteInfo()).hasVoted, (await voteInfo()).count], [true, 1]);
  await panel.getByRole("button", { name: /^Remove your vote for Dark mode/ }).click();
  await panel.getByRole("button", { name: /^Vote for Dark mode \(0 votes\)/ }).waitFor();
  assert.deepEqual([(await voteInfo()).hasVoted, (await voteInfo()).count], [false, 0]);
  await panel.getByRole("button", { name: /^Vote for Dark mode/ }).click();
  await panel.getByRole("button", { name: /^Remove your vote for Dark mode/ }).waitFor();
  assert.equal((await voteInfo()).hasVoted, true);

  step("after a reload the list still shows the vote");
  await page.reload();
  await page.getByRole("button", { name: "Feedback", exact: true }).click();
  await panel.getByRole("button", { name: /^Remove your vote for Dark mode \(1 vote\)/ }).waitFor();
  const first = panel.getByRole("list", { name: "Feedback" }).getByRole("listitem").first();
  assert.match(await first.textContent(), /Dark mode/, "Top puts the voted item first");

  step("search");
  await panel.getByRole("searchbox", { name: "Search feedback" }).fill("slack");
  await panel.getByRole("button", { name: "Dark mode", exact: true }).waitFor({ state: "detached" });
  await panel.getByRole("button", { name: "Slack integration", exact: true }).waitFor();
  await panel.getByRole("searchbox", { name: "Search feedback" }).fill("");
  await panel.getByRole("button", { name: "Dark mode", exact: true }).waitFor();

  step("focus stays in the panel as views change");
  await panel.getByRole("button", { name: "New", exact: true }).click();
  await focusedIs(page, "New");
  await panel.getByRole("button", { name: "Top", exact: true }).click();
  await focusedIs(page, "Top");

  step("open an item and comment on it");
  await panel.getByRole("button", { name: "Dark mode", exact: true }).click();
  await panel.getByText("Easier on the eyes at night").waitFor();
  await panel.getByRole("textbox", { name: "Add a comment" }).fill("Would love this for the admin too");
  await panel.getByRole("button", { name: "Comment", exact: true }).click();
  await panel.getByRole("status").getByText("Your comment was posted.").waitFor();
  await panel.getByText("Would love this for the admin too").waitFor();
  const comments = (await api("public/feedback-comments.list", { feedbackId: dark.id }, token)).data;
  assert.deepEqual(
    comments.map((c) => [c.text, c.subscriber.name]),
    [["Would love this for the admin too", "Ada Lovelace"]],
  );
  await page.screenshot({ path: path.join(shots, "widget-item.png") });

  step("an error from the API is shown in words");
  await panel.getByRole("button", { name: "← Back" }).click();
  await focusedIs(page, "Dark mode");
  await panel.getByRole("button", { name: "Give feedback" }).click();
  await panel.getByRole("button", { name: "Submit feedback" }).click();
  await panel.getByRole("alert").getByText("Title is required.").waitFor();

  step("submit new feedback");
  await panel.getByRole("textbox", { name: "Title" }).fill("Export to CSV");
  await panel.getByRole("textbox", { name: "Details (optional)" }).fill("Monthly, for the finance team");
  await panel.getByRole("button", { name: "Submit feedback" }).click();
  await panel.getByRole("status").getByText("Thanks! Your feedback was posted.").waitFor();
  await panel.getByRole("button", { name: "Export to CSV", exact: true }).waitFor();
  const created = await api("public/feedbacks.list", { search: "Export to CSV" }, token);
  assert.equal(created.pagination.total, 1);
  assert.equal(created.data[0].subscriber.name, "Ada Lovelace");
  assert.equal(created.data[0].boardId, board.id);
  await page.screenshot({ path: path.join(shots, "widget.png") });

  step("Escape closes the panel and gives focus back");
  await panel.getByRole("button", { name: "Export to CSV", exact: true }).focus();
  await page.keyboard.press("Escape");
  await panel.waitFor({ state: "hidden" });
  assert.equal(
    await page.evaluate(() => document.querySelector("[data-sounding-widget]").shadowRoot.activeElement?.textContent),
    "Feedback",
  );

  step("a bad token is explained, not swallowed");
  const stranger = await context.newPage();
  stranger.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    dialog.dismiss();
  });
  await stranger.goto(`${hostOrigin}/?token=not-a-token`);
  await stranger.getByRole("button", { name: "Feedback", exact: true }).click();
  await stranger.getByRole("alert").getByText(/not signed in, or your session has expired/).waitFor();
  await stranger.close();

  step("the public portal: content, headers and the XSS cases");
  const response = await page.goto(`${base}/p/default`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()["content-security-policy"], /default-src 'none'/);
  await page.getByRole("link", { name: "Dark mode" }).waitFor();
  await page.getByRole("link", { name: "<script>alert(1)</script>" }).waitFor();
  await page.getByRole("link", { name: '"><img src=x onerror=alert(3)>' }).waitFor();
  await page.getByText('"><img src=x onerror=alert(2)>').waitFor();
  assert.equal(await page.locator("img").count(), 0);
  assert.equal(await page.locator("script").count(), 0);
  assert.equal(
    await page.getByRole("link", { name: "Sign in to vote and comment" }).getAttribute("href"),
    `${hostOrigin}/login`,
  );
  await page.screenshot({ path: path.join(shots, "portal.png"), fullPage: true });
  await page.getByRole("link", { name: "Top" }).click();
  const firstTop = page.locator("ol.items > li").first();
  assert.match(await firstTop.textContent(), /Dark mode/);

  await page.getByRole("link", { name: "Dark mode" }).click();
  await page.getByText("Would love this for the admin too").waitFor();
  await page.getByText("Ada Lovelace").waitFor();
  assert.equal(await page.getByText("ada@example.com").count(), 0);
  await page.screenshot({ path: path.join(shots, "portal-item.png"), fullPage: true });

  await page.getByRole("link", { name: "Roadmap" }).click();
  await page.getByRole("heading", { name: "Up next" }).waitFor();
  await page.getByText("Exports").waitFor();
  await page.screenshot({ path: path.join(shots, "portal-roadmap.png"), fullPage: true });

  const missing = await page.goto(`${base}/p/nobody-here`);
  assert.equal(missing.status(), 404);

  assert.deepEqual(problems, [], "the pages raised dialogs or errors");
  console.log("browser: every check passed");
} catch (error) {
  console.error(error);
  if (problems.length) console.error("also seen:", problems);
  exitCode = 1;
} finally {
  await browser.close();
  host.close();
}
process.exit(exitCode);
