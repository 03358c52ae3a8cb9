/* A round from photos (#/game/ID/round): the photos sent, read and scored. */
import {ApiError, api} from "/static/api.js";
import {keptCheckOffer} from "/static/drafts.js";
import {deckChoice, errorBox, fmt, h, setBusy, show, toast} from "/static/ui.js";

/* Where an older page kept on this phone that game `gid`'s photos are read as negatives (its round page's box
   ticked): now the game's own `negative`, set from it once (negativeSetting). */
export const negativeKey = (gid) => `handfoot.negative.${gid}`;
/* Whether game `g`'s cards are printed light on dark: the game's setting, or what this phone kept before it was one
   (a new game of the same teams takes it over: newgame.js). */
export const negativeOf = (g) => Boolean(g.negative || localStorage.getItem(negativeKey(g.id)));

/* The game `g`'s light-print setting (PUT /v1/games/{id}/negative) on its round page's box `box`, which every phone
   shows as the game has it: {set(on) (the setting sent, with If-Match: the game's version this phone saw; resolves
   true once the game has it; `quiet`: a failure leaves the box and says nothing), changed(latest) (the game as another
   phone left it: the box follows, said)}. A value this phone kept before the setting was the game's is sent once
   (quietly: the box shows it meanwhile), then forgotten. `said(error)` shows an error. */
function negativeSetting(gid, g, box, said) {
  async function set(on, quiet = false, tries = 2) {
    try {
      g.negative = (await api("PUT", `/v1/games/${gid}/negative`, {negative: on})).negative;
      box.checked = g.negative;
      return g.negative === on;
    } catch (e) {
      const now = e.status === 412 && e.body.game;  /* the game changed on another phone first (412: nothing set) */
      if (now) hfSync.note(now);
      if (now && now.negative === on) { g.negative = on; return true; }  /* set there too */
      /* changed otherwise (a round saved, the box ticked and unticked): set as asked, on the game as it is now */
      if (now && tries > 1) return set(on, quiet, tries - 1);
      if (!quiet) { box.checked = g.negative; said(e); }
      return false;
    }
  }
  const key = negativeKey(gid);
  if (localStorage.getItem(key)) {  /* kept by this phone before: the game's from now on */
    if (g.negative) localStorage.removeItem(key);
    else set(true, true).then(done => { if (done) localStorage.removeItem(key); });
  }
  return {set, changed(latest) {
    if (latest.negative === g.negative) return;
    g.negative = latest.negative; box.checked = latest.negative;
    toast(`Another phone ${g.negative ? "ticked" : "unticked"} "Our cards are light print on dark": this game's photos ` +
          `are read ${g.negative ? "as their negatives" : "as photographed"}`);
  }};
}

/* -- a round: photos in ------------------------------------------------------------------------------------ */
export async function roundView(gid) {
  const g = await api("GET", `/v1/games/${gid}`);
  if (g.over) { location.hash = `#/game/${gid}`; return; }
  const sections = g.teams.map((t, k) => h("fieldset", {class: "panel", "data-team": t},
    h("legend", {}, h("strong", {}, t)),
    h("label", {for: `table-${k}`}, "Photos of the table (one or more)"),
    h("input", {type: "file", id: `table-${k}`, name: "table", accept: "image/*", multiple: true}),
    h("label", {for: `hands-${k}`}, "Photos of hands and feet still held (optional)"),
    h("input", {type: "file", id: `hands-${k}`, name: "hands", accept: "image/*", multiple: true}),
    h("label", {for: `left-${k}`}, "Or type the cards still held (optional)"),
    h("input", {type: "text", id: `left-${k}`, name: "left", placeholder: "KH 7C 4S", autocomplete: "off", maxlength: "400"})));
  const wentOut = h("select", {id: "went-out"}, h("option", {value: ""}, "nobody"), g.teams.map(t => h("option", {value: t}, t)));
  const decks = await api("GET", "/v1/decks").catch(() => []);
  const chosen = g.deck || "";
  const deck = decks.length ? deckChoice(decks, chosen, "deck", "Read this game's photos with (kept for its next rounds)") : null;
  /* a deck printed light on dark (gold on black) is read as its negative: the game's setting, every phone's box and
     reading; a deck chosen above reads as it learned (a learned black deck reads negatives itself) */
  const negative = h("input", {type: "checkbox", id: "negative", checked: negativeOf(g) ? "" : null,
    onchange: () => light.set(negative.checked)});
  const negativeBox = h("label", {class: "check", for: "negative"}, negative,
    " Our cards are light print on dark (e.g. gold on black): read this game's photos as negatives, on every phone" +
    (deck ? " (with the stock card reader; a deck learned reads as it learned)" : ""));
  const status = h("div", {"aria-live": "polite", class: "status"});
  const light = negativeSetting(gid, g, negative, (e) => status.replaceChildren(errorBox(e)));
  hfSync.follow(gid, async () => {  /* the setting changed on another phone: this box shows it */
    try { light.changed(await api("GET", `/v1/games/${gid}`)); } catch (e) { /* the next change says it again */ }
  });
  const go = h("button", {type: "submit", class: "primary", id: "read-cards"}, "Read the cards");
  /* what is sent changed (a photo added, cards typed, who went out): another reading, not the one a key was sent for */
  const form = h("form", {onsubmit: (ev) => { ev.preventDefault(); upload(); }, onchange: () => { key = hfSync.newKey(); }},
    h("p", {class: "muted"}, `Round ${g.next_round} · opening minimum ${fmt(g.next_minimum)}. Photograph each team's melds and books from above, close enough that the corner indices are clear.`),
    h("p", {}, "No photo, or one the camera cannot read? ", h("a", {class: "button", href: `#/game/${gid}/type`, id: "type-round"}, "Type the cards instead")),
    sections, h("label", {for: "went-out"}, "Who went out?"), wentOut,
    deck, negativeBox,
    h("div", {class: "sticky-actions"}, status, go, h("a", {class: "button", href: `#/game/${gid}`}, "Cancel")));
  show(h("h1", {}, `Round ${g.next_round}`), keptCheckOffer(g), form);
  let key = hfSync.newKey();  /* one reading per press of "Read the cards"; the same key again after a dropped answer */

  /* An error naming a team's typed cards ("team Us, cards left: ..."): that field marked, in view and focused, so
   * the sticky bar with the message does not hide it. */
  function showTyped(error) {
    const named = /^team (.+?), cards left:/.exec(error);
    const sec = named && [...form.querySelectorAll("fieldset[data-team]")].find(s => s.dataset.team === named[1]);
    if (!sec) return;
    const input = sec.querySelector("input[name=left]");
    input.setAttribute("aria-invalid", "true");
    input.scrollIntoView({block: "center"});
    input.focus({preventScroll: true});
  }

  /* flip: read the photos once the other way (as negatives when the box is unticked, as photographed when ticked); the
     game's setting follows only when that finds cards (a picture of no cards flips nothing) */
  async function upload(flip = false) {
    for (const input of form.querySelectorAll("input[aria-invalid]")) input.removeAttribute("aria-invalid");
    const data = new FormData();
    const photoTeams = [], handTeams = [], shrunk = [];
    setBusy(go, true);  /* a second tap while large photos are made smaller sends nothing twice */
    const limits = await api("GET", "/v1/health").catch(() => null);
    const add = async (field, f) => {
      const sent = await fitted(f, limits);
      if (sent !== f) shrunk.push(`${f.name} (${(f.size / 1e6).toFixed(1)} MB)`);
      data.append(field, sent, sent.name);
    };
    for (const sec of form.querySelectorAll("fieldset[data-team]")) {
      const team = sec.dataset.team;
      for (const f of sec.querySelector("input[name=table]").files) { await add("photos", f); photoTeams.push(team); }
      for (const f of sec.querySelector("input[name=hands]").files) { await add("hands", f); handTeams.push(team); }
      const typed = sec.querySelector("input[name=left]").value.trim();
      if (typed) data.append("left", `${team}:${typed}`);
    }
    if (!photoTeams.length) {  /* said, and the focus on the first team's photos: where to add one */
      setBusy(go, false); status.replaceChildren(errorBox(new Error("Add at least one photo of the table.")));
      const first = form.querySelector("input[name=table]");
      first.scrollIntoView({block: "center"}); first.focus({preventScroll: true});
      return;
    }
    data.append("teams", photoTeams.join(","));
    if (handTeams.length) data.append("hand_teams", handTeams.join(","));
    data.append("rules", g.rules);
    if (Object.keys(g.house_rules).length) data.append("house_rules", JSON.stringify(g.house_rules));
    data.append("round", String(g.next_round));
    if (wentOut.value) data.append("went_out", wentOut.value);
    const asNegative = flip ? !negative.checked : negative.checked;
    if (deck && deck.value) data.append("deck", deck.value);
    else if (asNegative) data.append("negative", "true");
    if (deck && deck.value !== (g.deck || "")) api("PUT", `/v1/games/${gid}/deck`, {deck: deck.value || null}).catch(() => {});
    const bar = h("div", {});
    const label = h("p", {}, shrunk.length ? `Sending the photos (${shrunk.join(", ")} made smaller to send)…` : "Sending the photos…");
    status.replaceChildren(label, h("div", {class: "progress", role: "progressbar", "aria-label": "upload"}, bar));
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/v1/photos");
    xhr.setRequestHeader("Idempotency-Key", key);
    xhr.upload.onprogress = (ev) => { if (ev.lengthComputable) bar.style.width = `${Math.round(100 * ev.loaded / ev.total)}%`; };
    xhr.upload.onload = () => {
      bar.style.width = "100%";
      label.replaceChildren(h("span", {class: "spinner", "aria-hidden": "true"}), " Reading the cards… (a few seconds a photo)");
    };
    xhr.onerror = () => {  /* the server away: said by the line at the top (sync.js), the photos still chosen here */
      setBusy(go, false); hfSync.unreachable(true); status.replaceChildren(errorBox(new ApiError(0, {error: hfSync.UNREACHABLE})));
    };
    xhr.onload = () => {
      hfSync.back();
      const wait = xhr.status === 409 && xhr.getResponseHeader("Retry-After");
      if (wait) {  /* the same photos sent before (their answer lost) are still being read: their answer is waited for */
        label.replaceChildren(h("span", {class: "spinner", "aria-hidden": "true"}),
                              " Still reading the photos you sent before (their answer was lost on the way)…");
        setTimeout(() => upload(flip), Math.min(+wait || 2, 10) * 1000);
        return;
      }
      setBusy(go, false);
      key = hfSync.newKey();
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch (e) { body = {error: `the server answered ${xhr.status}`}; }
      if (xhr.status === 201) {
        if (flip) { negative.checked = asNegative; light.set(asNegative); }  /* read so: the game's cards are so */
        sessionStorage.setItem(`handfoot.went_out.${body.id}`, wentOut.value);
        sessionStorage.setItem(`handfoot.round.${body.id}`, String(g.next_round));  /* the round it was read for */
        location.hash = `#/game/${gid}/check/${body.id}`;
      } else if (xhr.status === 503) {
        const wait = xhr.getResponseHeader("Retry-After") || "a few";
        status.replaceChildren(errorBox(new Error(`${body.error} (try again in ${wait} seconds)`)));
      } else {  /* every photo that cannot be read named at once (errors: one each), else the one error */
        const errors = body.errors || [body.error || `the server answered ${xhr.status}`];
        status.replaceChildren(errors.length === 1 ? errorBox(new Error(errors[0]))
          : h("div", {class: "error-box", role: "alert", id: "photo-errors"}, h("p", {}, `${errors.length} photos cannot be read:`),
              h("ul", {}, errors.map(e => h("li", {}, e)))));
        const unread = /no cards found/.test(body.error || "");  /* a photo the camera cannot read: the ways round it */
        if (unread || /too small to read/.test(body.error || ""))
          status.append(h("p", {}, "Another photo, or ", h("a", {href: `#/game/${gid}/type`}, "type the cards instead"), "."));
        if (unread && flip)  /* read the other way too: nothing there either, the game's setting left as it was */
          status.append(h("p", {id: "read-both-ways"}, `Read ${asNegative ? "as light print on dark" : "as photographed"} ` +
            "too: no cards found either way. Is it a photo of the cards, close enough and lit?"));
        else if (unread && !negative.checked && !(deck && deck.value))  /* a dark deck's close-up: one tap reads its negative */
          status.append(h("p", {}, h("button", {type: "button", class: "primary", id: "read-negative",
            onclick: () => upload(true)}, "Read them as light print on dark")));
        else if (unread && negative.checked && !(deck && deck.value))  /* the game reads negatives: a light deck's photo */
          status.append(h("p", {id: "negative-said"}, "This game reads its photos as light print on dark (the box " +
            "above, for every phone): are these cards printed dark on light? ",
            h("button", {type: "button", id: "read-positive", onclick: () => upload(true)}, "Read them as photographed")));
        if (unread && !(deck && deck.value))  /* read with a deck learned: a photo with no card found teaches it nothing */
          status.append(h("p", {}, h("a", {class: "button", id: "teach-deck", href: `#/game/${gid}/teach`}, "Teach handfoot your deck")));
        showTyped(body.error || "");
      }
    };
    xhr.send(data);
  }
}


/* The longest side a photo too large for the server is shrunk to: the camera reads at most 2560 px of it. */
const FIT_SIDE = 4096;

/* `file` as sent: itself, or, when its file is larger than the server takes (`limits`: /v1/health's photo_bytes),
 * a JPEG of it at most FIT_SIDE px long that fits; itself again when the browser cannot decode it or the JPEG does
 * not fit (the server then names it too large). */
async function fitted(file, limits) {
  if (!limits || file.size <= limits.photo_bytes || !window.createImageBitmap) return file;
  let img = null;
  try {
    img = await createImageBitmap(file);
    const scale = Math.min(1, FIT_SIDE / Math.max(img.width, img.height));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(img.width * scale); canvas.height = Math.round(img.height * scale);
    canvas.getContext("2d").drawImage(img, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise(done => canvas.toBlob(done, "image/jpeg", 0.9));
    return blob && blob.size <= limits.photo_bytes
      ? new File([blob], file.name.replace(/\.[^.]*$/, "") + ".jpg", {type: "image/jpeg"}) : file;
  } catch (e) { return file; }
  finally { if (img && img.close) img.close(); }
}
