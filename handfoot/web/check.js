/* Check and correct a reading (#/game/ID/check/READING[/N]) before saving it as a round. */
import {api} from "/static/api.js";
import {CODE, KINDS, KIND_ORDER, cardName, cardParts, cardShort, cardText, cardsInText, isRed} from "/static/cards.js";
import {breakdownTable} from "/static/games.js";
import {askConfirm, cardPicker, clearError, closeSheet, h, openSheet, problemText, setBusy, show, teamTotal, toast, total, view} from "/static/ui.js";

/* -- check and correct ------------------------------------------------------------------------------------- */
export async function checkView(gid, rid, roundNo) {
  const [g, original] = await Promise.all([api("GET", `/v1/games/${gid}`), api("GET", `/v1/photos/${rid}`)]);
  let stored = roundNo ? g.rounds.find(r => r.n === roundNo) : null;
  const saveKey = hfSync.newKey();  /* pressing Save again after a dropped answer stores nothing twice */
  const key = `handfoot.corrections.${rid}.${roundNo || "new"}`;
  const saved = roundNo ? null : sessionStorage.getItem(key);  /* a saved round opens as it was saved */
  const st = {
    corrections: saved ? JSON.parse(saved) : (stored ? stored.corrections.slice() : []),
    wentOut: stored ? (stored.layout.went_out || "") : (sessionStorage.getItem(`handfoot.went_out.${rid}`) ?? (original.layout.went_out || "")),
    reading: original,
    round: roundNo || g.next_round,
    views: [], breakdownOpen: false,
  };
  const glance = await import("/static/glance.js");
  const scoreBox = h("div", {class: "totals", id: "round-totals"});
  const noticeBox = h("div", {id: "sync-notice"});
  const notesBox = h("div", {});
  const pilesBox = h("div", {id: "piles"});
  const photosBox = h("div", {class: "photos"});
  const wentOut = h("select", {id: "check-went-out", onchange: () => { st.wentOut = wentOut.value; rescore(); }},
    h("option", {value: ""}, "nobody"), g.teams.map(t => h("option", {value: t}, t)));
  wentOut.value = st.wentOut;
  const undo = h("button", {type: "button", id: "undo-change", onclick: () => { st.corrections.pop(); rescore(); }}, "Undo");
  const save = h("button", {type: "button", class: "primary", id: "save-round", onclick: saveRound},
    roundNo ? `Save round ${roundNo}` : `Save round ${st.round}`);
  const heading = h("h1", {id: "check-heading"}, `Check round ${st.round}`);
  function setRound(n) {  /* the round a new photo will be saved as: the heading and the button say it */
    st.round = n; heading.textContent = `Check round ${n}`; save.textContent = `Save round ${n}`;
  }

  function photoFor(k, notes) {  /* the photo at a glance (glance.js): labelled boxes, outlined piles, note pins */
    st.views[k] = st.views[k] || {};
    return glance.photoView({image: st.reading.images[k], src: original.photos[k], alt: `photo ${k + 1}: ${st.reading.images[k].image}`,
                             notes, view: st.views[k], onCard: editCard, onNote: openNote});
  }
  function openNote(nt) {
    flash(nt.pile.id, true);
    openSheet(`Note ${nt.n}`, h("div", {}, h("p", {}, nt.text), h("p", {class: "muted"}, "Tap a card to correct it:"),
      h("div", {class: "chips"}, nt.pile.cards.map(c => h("button", {type: "button", class: "chip" + (isRed(c.code) ? " red" : ""),
        onclick: () => editCard(nt.pile, c)}, cardShort(c.code)))),
      h("div", {class: "row"}, h("button", {type: "button", onclick: closeSheet}, "Close"))));
  }

  function allPiles() { return st.reading.images.flatMap(im => im.piles); }
  function pileName(p) { return `${p.team}: ${p.label} ${p.cards.map(c => cardShort(c.code)).join(" ")}`; }

  async function rescore() {
    if (!roundNo) sessionStorage.setItem(key, JSON.stringify(st.corrections));
    undo.disabled = st.corrections.length === (stored ? stored.corrections.length : 0);
    try {
      st.reading = await api("POST", `/v1/photos/${rid}/corrections`,
        {corrections: st.corrections, round: st.round, went_out: st.wentOut || null});
      clearError();
    } catch (e) {
      st.corrections.pop();
      if (!roundNo) sessionStorage.setItem(key, JSON.stringify(st.corrections));
      toast(e.message, true);
    }
    render();
  }
  function change(op) { st.corrections.push(op); closeSheet(); rescore(); }

  function editCard(pile, card) {
    const move = h("select", {id: "move-to", "aria-label": "move the card to"},
      h("option", {value: ""}, "Move it to…"),
      allPiles().filter(p => p.id !== pile.id && p.team === pile.team).map(p => h("option", {value: p.id}, pileName(p))),
      h("option", {value: "new:loose"}, `${pile.team}: loose (not scored)`), h("option", {value: "new:left"}, `${pile.team}: cards left in hand`));
    move.addEventListener("change", () => {
      if (!move.value) return;
      if (move.value.startsWith("new:")) {
        st.corrections.push({op: "remove_card", card: card.id});
        change({op: "add_pile", team: pile.team, kind: move.value.slice(4), cards: [card.code]});
      } else change({op: "move_card", card: card.id, to: move.value});
    });
    const del = h("button", {type: "button", class: "danger", onclick: () => change({op: "remove_card", card: card.id})}, "Delete");
    openSheet(`${cardName(card.code)} (${pile.label})`,
      h("div", {}, cardPicker(card.code, (code) => change({op: "set_card", card: card.id, code}), del), move));
  }

  function addCard(pile) {
    openSheet(`Add a card to ${pile.label} ${pile.cards.map(c => cardShort(c.code)).join(" ")}`, cardPicker("", (code) => change({op: "add_card", pile: pile.id, code})));
  }
  function splitPile(pile) {
    const chips = h("div", {class: "chips"}, pile.cards.slice(1).map(c => h("button", {type: "button", class: "chip" + (isRed(c.code) ? " red" : ""),
      onclick: () => change({op: "split_pile", pile: pile.id, at: c.id})}, cardShort(c.code))));
    openSheet("Split: the new pile starts at", h("div", {}, chips, h("button", {type: "button", onclick: closeSheet}, "Cancel")));
  }
  function joinPile(pile) {
    const others = allPiles().filter(p => p.id !== pile.id && p.team === pile.team && p.kind === pile.kind);
    openSheet(`Join ${pile.label} to`, h("div", {},
      others.length ? others.map(p => h("p", {}, h("button", {type: "button", onclick: () => change({op: "join_piles", pile: pile.id, into: p.id})}, pileName(p))))
                    : h("p", {}, "No other pile of this kind in this team."),
      h("button", {type: "button", onclick: closeSheet}, "Cancel")));
  }
  function bookPile(pile) {
    const kind = h("select", {id: "book-kind"}, h("option", {value: ""}, "as its marker card says"),
      ["clean", "dirty", "wild"].map(k => h("option", {value: k}, k)));
    kind.value = pile.book.kind || "";
    const counted = pile.book.cards || null;  /* the book's cards once its wilds were counted */
    const count = h("input", {type: "number", id: "book-count", min: "1", max: "60",
                              value: pile.book.count || (counted ? counted.length : 7)});
    const twos = h("input", {type: "number", id: "book-twos", min: "0", max: "60", placeholder: "not counted",
                             value: counted ? counted.filter(c => cardParts(c).rank === "2").length : null});
    const jokers = h("input", {type: "number", id: "book-jokers", min: "0", max: "60", placeholder: "not counted",
                               value: counted ? counted.filter(c => cardParts(c).rank === "JK").length : null});
    const problem = h("p", {class: "error-box", role: "alert", hidden: true});
    openSheet(`Squared book under ${cardText(pile.cards[0].code)}`, h("div", {},
      h("label", {for: "book-kind"}, "Kind"), kind, h("label", {for: "book-count"}, "Cards in the stack"), count,
      h("p", {class: "muted"}, "Counted its wilds? Their number makes its value exact."),
      h("label", {for: "book-twos"}, "Twos"), twos, h("label", {for: "book-jokers"}, "Jokers"), jokers,
      problem,
      h("div", {class: "row"}, h("button", {type: "button", class: "primary", onclick: () => {
        const wrong = [[count, "Cards in the stack"], [twos, "Twos"], [jokers, "Jokers"]].find(([input]) =>
          input.value !== "" && !(Number.isInteger(+input.value) && +input.value >= +input.min && +input.value <= +input.max));
        if (wrong) {
          problem.textContent = `${wrong[1]}: a whole number from ${wrong[0].min} to ${wrong[0].max}, not ${wrong[0].value}`;
          problem.hidden = false; wrong[0].focus(); return;
        }
        /* the wilds and the marker (a natural on top) must fit in the stack: told here, what was typed kept */
        const stack = +count.value || 7, wilds = (+twos.value || 0) + (+jokers.value || 0);
        const natTop = !["2", "JK"].includes(cardParts(pile.cards[0].code).rank);
        if (wilds + (natTop ? 1 : 0) > stack) {
          problem.textContent = `${wilds} wilds${natTop ? " and the marker card" : ""} do not fit in a stack of ${stack} cards`;
          problem.hidden = false; twos.focus(); return;
        }
        const op = {op: "set_book", pile: pile.id, count: +count.value || 7};
        if (kind.value) op.kind = kind.value;
        if (twos.value !== "" || jokers.value !== "") { op.twos = +twos.value || 0; op.jokers = +jokers.value || 0; }
        change(op);
      }}, "Save"), h("button", {type: "button", onclick: closeSheet}, "Cancel"))));
  }
  function addPile(team) {
    const kind = h("select", {id: "new-kind"}, KINDS.map(([v, l]) => h("option", {value: v}, l)));
    const cards = h("input", {type: "text", id: "new-cards", placeholder: "KH KS KD", autocomplete: "off", autocapitalize: "characters"});
    const problem = h("div", {id: "new-cards-problem"});
    openSheet(`A pile of ${team} the camera missed`, h("div", {},
      h("label", {for: "new-kind"}, "Kind"), kind, h("label", {for: "new-cards"}, "Its cards (e.g. KH KS JK)"), cards,
      problem,
      h("div", {class: "row"}, h("button", {type: "button", class: "primary", onclick: () => {
        /* checked here: a typo keeps the sheet open with what was typed, the wrong code named */
        const codes = cards.value.toUpperCase().split(/[\s,]+/).filter(Boolean);
        const wrong = codes.find(c => !CODE.test(c));
        if (!codes.length || wrong) {
          problem.replaceChildren(h("p", {class: "error-box", role: "alert"}, !codes.length ? "Type the pile's cards, e.g. KH KS JK." :
            `${wrong} is not a card: a rank (A, 2-10, J, Q, K) and a suit (S, H, D, C), or JK for a joker.`));
          cards.setAttribute("aria-invalid", "true");
          cards.focus();
          return;
        }
        change({op: "add_pile", team, kind: kind.value, cards: codes});
      }}, "Add"), h("button", {type: "button", onclick: closeSheet}, "Cancel"))));
  }

  function flash(pileId, stay) {
    const el = document.getElementById(`pile-${pileId}`);
    if (el) { el.classList.remove("flash"); void el.offsetWidth; el.classList.add("flash"); if (!stay) el.scrollIntoView({block: "center"}); }
    for (const r of document.querySelectorAll(`rect[data-card^="${pileId}."]`)) {
      r.classList.add("flash"); setTimeout(() => r.classList.remove("flash"), 1600);
    }
  }

  function pilePanel(p) {
    const bookClass = p.kind === "meld" && p.label.includes("book") ? "book" : p.kind;
    const kindSel = h("select", {"aria-label": `kind of ${p.label}`, onchange: (ev) => change({op: "set_kind", pile: p.id, kind: ev.target.value})},
      KINDS.map(([v, l]) => h("option", {value: v}, l)));
    kindSel.value = p.kind;
    return h("section", {class: `panel pile ${bookClass}`, id: `pile-${p.id}`, "aria-label": `${p.team}: ${p.label}`},
      h("h3", {}, h("span", {}, p.label), h("span", {class: "muted"}, p.kind === "squared_book" ? "top card seen" :
        `${p.cards.length} card${p.cards.length === 1 ? "" : "s"}`)),
      h("p", {class: "verdict"}, cardsInText(p.verdict)),
      p.problems.map(pr => h("p", {class: "problem"}, cardsInText(pr))),
      p.notes.map(n => h("p", {class: "muted"}, "? " + cardsInText(n))),
      h("div", {class: "chips"}, p.cards.map(c => h("button", {type: "button",
        class: "chip" + (isRed(c.code) ? " red" : "") + (c.confidence < 0.5 ? " low" : "") + (c.boxes.length ? "" : " typed"),
        "data-card": c.id, "aria-label": `${cardName(c.code)}: correct it`, onclick: () => editCard(p, c)}, cardShort(c.code)))),
      h("div", {class: "row"}, kindSel,
        h("button", {type: "button", onclick: () => addCard(p)}, "+ card"),
        p.cards.length > 1 ? h("button", {type: "button", onclick: () => splitPile(p)}, "Split") : null,
        h("button", {type: "button", onclick: () => joinPile(p)}, "Join"),
        p.kind === "squared_book" ? h("button", {type: "button", onclick: () => bookPile(p)}, "Book…") : null,
        h("button", {type: "button", class: "danger", onclick: () => change({op: "remove_pile", pile: p.id})}, "Remove")));
  }

  function render() {
    const r = st.reading;
    scoreBox.replaceChildren(...g.teams.map(t => h("div", {class: "total", "data-team": t},
      h("div", {class: "name"}, t), h("div", {class: "points", "data-round-total": t}, r.score.teams[t] ? teamTotal(r.score.teams[t]) : "0"),
      h("div", {class: "muted"}, r.score.teams[t] ? "this round" : "nothing read"))),
      h("details", {class: "breakdown-box", open: st.breakdownOpen, ontoggle: (ev) => { st.breakdownOpen = ev.target.open; }},
        h("summary", {}, "Breakdown"), breakdownTable(r.score, g.teams)));
    const pileNoteText = new Set(allPiles().flatMap(p => p.notes));
    const other = r.notes.filter(n => ![...pileNoteText].some(t => n.endsWith(t)));
    const notes = glance.numberedNotes(r, allPiles(), problemText);  /* numbered as their pins on the photo */
    notesBox.replaceChildren(glance.notesPanel(notes, other, openNote));
    photosBox.replaceChildren(...r.images.map((_, k) => photoFor(k, notes)));
    const byTeam = {};
    for (const p of allPiles()) (byTeam[p.team] = byTeam[p.team] || []).push(p);
    pilesBox.replaceChildren(...g.teams.filter(t => byTeam[t] || true).map(t => h("div", {},
      h("h2", {class: "team-head"}, t),
      (byTeam[t] || []).slice().sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind)).map(pilePanel),
      h("button", {type: "button", onclick: () => addPile(t)}, `+ a pile of ${t} the camera missed`))));
    undo.disabled = st.corrections.length === (stored ? stored.corrections.length : 0);
  }

  /* The game changed (on another phone, or this photo was saved already): say so, show it as it is now, and keep
   * what was typed here unless the player chooses to take the other phone's version. `sameAs`: the round the
   * server named for this photo (the same photo's bytes saved from another reading). */
  function otherPhone(latest, sameAs) {
    const totals = latest.teams.map(t => `${t} ${total(latest.totals[t])}`).join(" · ");
    const savedAs = latest.rounds.find(r => r.photo_reading === rid && r.n !== roundNo)
      || (sameAs && sameAs !== roundNo ? latest.rounds.find(r => r.n === sameAs) : null);
    const theirs = roundNo ? latest.rounds.find(r => r.n === roundNo) : null;
    const lines = [], actions = [];
    let heading = "Changed on another phone";
    if (savedAs) {
      heading = `Already saved as round ${savedAs.n}`;
      lines.push(`This photo is round ${savedAs.n} of the game already; saving it again would count it twice.`);
      actions.push(h("a", {class: "button primary", href: `#/game/${gid}/check/${savedAs.photo_reading}/${savedAs.n}`}, `Correct round ${savedAs.n}`));
      save.disabled = true;
    } else if (roundNo && !theirs) {
      lines.push(`Round ${roundNo} was undone there.`);
      save.disabled = true;
    } else if (roundNo) {
      const mine = (r) => JSON.stringify(r.corrections) + JSON.stringify(r.layout.went_out || null);
      if (stored && mine(theirs) === mine(stored)) { hfSync.note(latest); return; }  /* another round changed */
      const base = stored ? stored.corrections.length : 0;
      const mineNew = st.corrections.slice(base);  /* the changes made on this phone since it opened the round */
      const wentMine = st.wentOut !== (stored ? (stored.layout.went_out || "") : st.wentOut);
      lines.push(`Round ${roundNo} was corrected there: it now scores ` +
        latest.teams.map(t => `${t} ${theirs.score.teams[t] ? teamTotal(theirs.score.teams[t]) : "0"}`).join(" · ") + ".");
      if (mineNew.length || wentMine) lines.push(" Your changes here are not saved yet: add them to theirs, or drop them.");
      const takeTheirs = () => {
        stored = theirs; st.corrections = theirs.corrections.slice(); st.wentOut = theirs.layout.went_out || "";
        wentOut.value = st.wentOut; hfSync.note(latest); noticeBox.replaceChildren(); rescore();
      };
      const addMine = async () => {  /* theirs, then mine: nothing either phone did is lost */
        const merged = theirs.corrections.concat(mineNew);
        const went = wentMine ? st.wentOut : (theirs.layout.went_out || "");
        try {
          st.reading = await api("POST", `/v1/photos/${rid}/corrections`, {corrections: merged, round: st.round, went_out: went || null});
        } catch (e) {
          toast(`Your changes do not fit theirs (${e.message}): here is their version; make your change again`, true);
          takeTheirs();
          return;
        }
        stored = theirs; st.corrections = merged; st.wentOut = went; wentOut.value = went;
        hfSync.note(latest); noticeBox.replaceChildren(); render();
      };
      if (mineNew.length || wentMine) {
        actions.push(h("button", {type: "button", class: "primary", id: "add-mine", onclick: addMine}, "Add my changes to theirs"),
                     h("button", {type: "button", id: "take-theirs", onclick: takeTheirs}, "Drop mine, show theirs"));
      } else actions.push(h("button", {type: "button", class: "primary", id: "take-theirs", onclick: takeTheirs}, "Show their version"));
    } else {
      const was = st.round;
      setRound(latest.next_round);
      if (latest.over) { lines.push("The game is over: no round can be added."); save.disabled = true; }
      else {
        lines.push(st.round !== was ? `Round ${was} was just saved there. If it was this table, leave without saving; ` +
          `otherwise this photo will be saved as round ${st.round}.` : `This photo will be saved as round ${st.round}.`);
        hfSync.note(latest);
      }
    }
    noticeBox.replaceChildren(h("section", {class: "panel notice", role: "alert"},
      h("h2", {}, heading), h("p", {}, ...lines), h("p", {class: "muted"}, `The game now: ${totals}.`),
      h("div", {class: "row"}, actions, h("a", {class: "button", href: `#/game/${gid}`}, "See the game"))));
    noticeBox.scrollIntoView({block: "center"});
  }
  const here = location.hash;
  hfSync.follow(gid, async () => {
    if (location.hash !== here) return;
    try { otherPhone(await fetch(`/v1/games/${gid}`).then(r => r.json())); } catch (e) { /* the next change says it again */ }
  });

  async function saveRound() {
    const asked = st.round;  /* the round the player saw when tapping Save */
    const illegal = st.reading.score.problems.filter(p => p.severity === "illegal");
    const unread = g.teams.filter(t => !st.reading.score.teams[t]);  /* no photo of its side, nothing typed */
    /* a squared dirty or wild book whose wilds are uncounted leaves the round (and the game) a range */
    const ranged = g.teams.filter(t => st.reading.score.teams[t] && !st.reading.score.teams[t].exact);
    const lines = [...illegal.map(problemText),
      ...unread.map(t => `${t}: nothing was read for this team, so it scores 0 this round (add its photo from ` +
                         `Score round, or its piles with "+ a pile of ${t}").`),
      ...ranged.map(t => `${t} scores ${teamTotal(st.reading.score.teams[t])} until the wilds under its squared book are ` +
                         `counted (the book's "Book…" button, below the photo): ` +
                         st.reading.score.teams[t].needs_counting.map(n => cardsInText(n.replace(/\s*\(teams\.[^)]*\)/, ""))).join("; ") + ".")];
    if (lines.length && !(await askConfirm(illegal.length ? `The rules see ${illegal.length} problem${illegal.length === 1 ? "" : "s"}`
                                           : unread.length ? `Nothing read for ${unread.join(" and ")}`
                                           : `A squared book to count`,
        [...lines, "Save the round anyway? You can correct it later."], "Save anyway"))) return;
    if (st.round !== asked || save.disabled) {  /* the game changed while the question was open: the notice says how */
      toast(`Not saved: the game changed on another phone meanwhile`, true);
      noticeBox.scrollIntoView({block: "center"});
      return;
    }
    setBusy(save, true);
    const body = {photo_reading: rid, corrections: st.corrections, went_out: st.wentOut || null};
    try {
      if (roundNo) await api("PUT", `/v1/games/${gid}/rounds/${roundNo}?lenient=true`, body);
      else await api("POST", `/v1/games/${gid}/rounds?lenient=true`, body, saveKey);
      sessionStorage.removeItem(key);
      toast(`Round ${st.round} saved`);
      location.hash = `#/game/${gid}`;
    } catch (e) {
      setBusy(save, false);
      if (e.status === 412 && e.body.game) { toast("Not saved: the game changed on another phone", true); otherPhone(e.body.game); }
      else if (e.status === 409 && e.body.round) {
        toast(`Not saved: this photo is round ${e.body.round} already`, true);
        otherPhone(await api("GET", `/v1/games/${gid}`).catch(() => g), e.body.round);
      } else toast(e.message, true);
    }
  }

  show(
    heading,
    h("p", {class: "muted"}, "Tap a card on the photo or below to change it, move it or delete it."),
    noticeBox, scoreBox,
    h("div", {class: "check-layout"}, h("div", {class: "photos-col"}, photosBox, notesBox), h("div", {}, pilesBox)),
    h("label", {for: "check-went-out"}, "Who went out?"), wentOut,
    h("p", {}, h("a", {class: "button", href: `#/game/${gid}`, onclick: async (ev) => {
      ev.preventDefault();
      const changed = st.corrections.length !== (stored ? stored.corrections.length : 0);
      if (changed && !(await askConfirm("Leave without saving?", ["Your corrections to this round are thrown away."], "Leave"))) return;
      sessionStorage.removeItem(key);
      location.hash = `#/game/${gid}`;
    }}, "Leave without saving")),
    h("div", {class: "sticky-actions"}, save, undo));
  await rescore();
  if (!roundNo && g.rounds.some(r => r.photo_reading === rid)) otherPhone(g);  /* e.g. Back after saving it */
}

