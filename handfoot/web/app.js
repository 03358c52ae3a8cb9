/* handfoot's page (an ES module, the router; each view a module): games, rounds from photos, checking and correcting
 * a reading in taps.
 * Plain JavaScript over the /v1 API (docs/api.md); no build step, nothing loaded from outside this server.
 * Views are hash routes: #/ (games), #/new[/ID] (one like game ID), #/game/ID (#/game/ID/teach: at its panel that
 * teaches the deck), #/game/ID/round, #/game/ID/check/READING[/N],
 * #/game/ID/type[/N] (a round typed in),
 * #/live[/GAME] (a camera watching the table). */
import {checkView} from "/static/check.js";
import {gameView, homeView} from "/static/games.js";
import {newGameView} from "/static/newgame.js";
import {liveView} from "/static/live.js";
import {roundView} from "/static/round.js";
import {typedView} from "/static/typed.js";
import {closeSheet, errorBox, h, leaving, show, view} from "/static/ui.js";

/* -- settings: large type, dark mode -------------------------------------------------------------------------- */
function applySettings() {
  const large = localStorage.getItem("handfoot.large") === "1";
  const stored = localStorage.getItem("handfoot.dark");
  const dark = stored === null ? matchMedia("(prefers-color-scheme: dark)").matches : stored === "1";
  document.documentElement.classList.toggle("large", large);
  document.documentElement.classList.toggle("dark", dark);
  document.getElementById("large-type").setAttribute("aria-pressed", String(large));
  document.getElementById("dark-mode").setAttribute("aria-pressed", String(dark));
}
document.getElementById("large-type").addEventListener("click", () => {
  localStorage.setItem("handfoot.large", document.documentElement.classList.contains("large") ? "0" : "1");
  applySettings();
});
document.getElementById("dark-mode").addEventListener("click", () => {
  localStorage.setItem("handfoot.dark", document.documentElement.classList.contains("dark") ? "0" : "1");
  applySettings();
});

/* -- router ------------------------------------------------------------------------------------------------ */
export async function route() {
  closeSheet();
  leaving();
  hfSync.stop();
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  show(h("p", {class: "muted"}, h("span", {class: "spinner", "aria-hidden": "true"}), " Loading…"));
  try {
    if (parts.length === 0) await homeView();
    else if (parts[0] === "new") await newGameView(parts[1] || null);
    else if (parts[0] === "game" && (parts.length === 2 || parts[2] === "teach")) await gameView(parts[1]);
    else if (parts[0] === "game" && parts[2] === "round") await roundView(parts[1]);
    else if (parts[0] === "game" && parts[2] === "type") await typedView(parts[1], parts[3] ? +parts[3] : null);
    else if (parts[0] === "game" && parts[2] === "check") await checkView(parts[1], parts[3], parts[4] ? +parts[4] : null);
    else if (parts[0] === "live") await liveView(parts[1] || null);
    else show(h("h1", {}, "Not found"), h("p", {}, h("a", {href: "#/"}, "All games")));
  } catch (e) {
    if (e.status === 0) unloaded();
    else show(h("h1", {}, "Something went wrong"), errorBox(e), h("p", {}, h("a", {href: "#/"}, "All games")));
  }
  view.focus({preventScroll: true});
}
/* A view that could not load because the server cannot be reached (said by sync.js's line): said so, with Try
   again, and loaded again by itself once the server answers (sync.js's "handfoot-reachable"), if still on screen. */
function unloaded() {
  const here = location.hash;
  const again = () => {
    document.removeEventListener("handfoot-reachable", again);
    if (location.hash === here && document.getElementById("view-unloaded")) route();
  };
  show(h("h1", {id: "view-unloaded"}, "Not loaded yet"),
    h("p", {class: "error-box", role: "alert"}, "This page could not load: the line at the top says why. It loads by itself once it has gone."),
    h("div", {class: "row"}, h("button", {type: "button", class: "primary", id: "load-again", onclick: again}, "Try again"),
      h("a", {class: "button", href: "#/"}, "All games")));
  document.addEventListener("handfoot-reachable", again);
}
window.addEventListener("hashchange", route);
/* a control focused by a key is never left under the view's sticky bar of actions, which a line of status makes
   taller than the page's scroll padding (style.css) leaves room for: once the browser has scrolled it into view, the
   page scrolls on until it shows above the bar */
document.addEventListener("focusin", (ev) => requestAnimationFrame(() => {
  const el = ev.target, bar = view.querySelector(".sticky-actions");
  if (!bar || !view.contains(el) || el === view || !el.matches(":focus-visible")
      || !(el.compareDocumentPosition(bar) & Node.DOCUMENT_POSITION_FOLLOWING)) return;
  const r = el.getBoundingClientRect(), top = bar.getBoundingClientRect().top;
  if (r.bottom > top && r.top < innerHeight) scrollBy(0, r.bottom - top + 8);
}));
/* while this phone's camera sends the table (camera.js), every view shows it in the bar, a tap from the live view */
document.addEventListener("handfoot-camera", (ev) => { document.getElementById("camera-on").hidden = !ev.detail.sending; });

applySettings();
route();
