/* This phone's camera as the live view's camera: the picture of the back camera (getUserMedia), scaled to the
 * width the server asks (POST /v1/live answers frame_width), sent one JPEG a message over the WebSocket
 * /v1/live/camera; the next frame goes when the server has taken the last (at most FPS a second). The screen is
 * kept awake (Wake Lock) while it sends. It goes on sending while the page shows other views of this phone, and
 * stops when the live view stops (the socket is closed 4410 or 4404) or another phone takes over (4409).
 * An ES module, loaded by app.js with import() when the live view needs it; it uses the page's api.js and ui.js. */
import {api} from "/static/api.js";
import {h} from "/static/ui.js";

const FPS = 10;
const QUALITY = 0.85;
const GONE = {4404: "the live view stopped", 4410: "the live view stopped", 4409: "another phone's camera took over"};
/* why a camera stopped that the phone ended, not the page (its screen turned off or locked, another app took it) */
const WENT_OFF = "the camera went off";

let sender = null;  /* the camera sending now (one per page), or null */
let stoppedWhy = "", stoppedAt = 0;  /* why this page's camera last stopped ("stopped on this phone", ...; "" while
                                         it sends) and when (performance.now()) */

/** Whether this browser can give a page its camera: a secure page (https, or this computer) with mediaDevices. */
export function cameraPossible() {
  return Boolean(window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
}

/** Why this phone cannot give its camera, in words for the page (null when it can). */
export function cameraProblem() {
  if (cameraPossible()) return null;
  if (!window.isSecureContext) {
    return "A phone gives its camera only to a secure page: start handfoot with handfoot serve --https " +
           "(the default with --host 0.0.0.0) and open the https address it prints.";
  }
  return "This browser gives no camera to pages.";
}

/** Whether this page is sending its camera's picture now. */
export function sending() { return sender !== null && !sender.stopped; }

/** Whether the screen is kept awake now (a Wake Lock held while sending). */
export function awake() { return Boolean(sender && sender.wake && !sender.wake.released); }

async function openCamera() {
  if (!cameraPossible()) throw new Error(cameraProblem());
  try {
    return await navigator.mediaDevices.getUserMedia({audio: false,
      video: {facingMode: {ideal: "environment"}, width: {ideal: 1920}, height: {ideal: 1080}}});
  } catch (e) {
    if (e && e.name === "NotAllowedError") throw new Error("The camera was not allowed: allow it for this page in the browser's settings, then try again.");
    if (e && e.name === "NotFoundError") throw new Error("This phone has no camera the browser can use.");
    if (e && e.name === "NotReadableError") throw new Error("The camera is in use by another app: close it, then try again.");
    throw new Error(`The camera could not be opened: ${e && e.message ? e.message : e}`);
  }
}

/** Open this phone's camera, start the live view of game ``game`` on it (POST /v1/live, source browser) and
 *  send its picture. ``split`` and ``deck`` as POST /v1/live takes them. Throws an Error in words. */
export async function startPhoneCamera({game, split, deck}) {
  const stream = await openCamera();  /* asked first: a refusal starts nothing on the server */
  let state;
  try {
    state = await api("POST", "/v1/live", {source: "browser", game, split: split || null, deck: deck || null});
  } catch (e) { for (const t of stream.getTracks()) t.stop(); throw e; }
  send(stream, state.frame_width || 1920);
  return state;
}

/** Send this phone's camera to the live view already waiting for a browser's camera (another phone's, or this
 *  page's before a reload): it takes over. */
export async function usePhoneCamera(frameWidth) {
  const stream = await openCamera();
  send(stream, frameWidth || 1920);
}

/** Stop sending (the camera light goes off, the screen may sleep again). */
export function stopPhoneCamera(why) {
  if (sender) sender.stop(why || "stopped");
}

function send(stream, width) {
  if (sender) sender.stop("replaced");
  const video = document.createElement("video");
  video.muted = true; video.playsInline = true; video.setAttribute("playsinline", "");
  video.className = "camera-source";  /* in the page (Safari draws only a video that is), never seen */
  video.srcObject = stream;
  document.body.append(video);
  const canvas = document.createElement("canvas");
  const me = {stopped: false, frames: 0, socket: null, wake: null, why: "", stream, video};
  sender = me;

  async function keepAwake() {
    if (me.stopped || document.visibilityState !== "visible" || !("wakeLock" in navigator)) return;
    try { me.wake = await navigator.wakeLock.request("screen"); } catch (e) { me.wake = null; }
  }
  document.addEventListener("visibilitychange", keepAwake);
  keepAwake();

  me.stop = (why) => {
    if (me.stopped) return;
    me.stopped = true; me.why = why;
    document.removeEventListener("visibilitychange", keepAwake);
    if (me.wake) me.wake.release().catch(() => {});
    for (const t of stream.getTracks()) t.stop();
    video.remove();
    if (me.socket && me.socket.readyState <= 1) me.socket.close(1000, "stopped");
    if (sender === me) { sender = null; stoppedWhy = why; stoppedAt = performance.now(); }
    document.dispatchEvent(new CustomEvent("handfoot-camera", {detail: {sending: false, why}}));
  };
  for (const t of stream.getVideoTracks()) t.addEventListener("ended", () => me.stop(WENT_OFF));

  function frame() {  /* the picture now, scaled to ``width``, as a JPEG Blob */
    const vw = video.videoWidth, vh = video.videoHeight;
    if (!vw || !vh) return Promise.resolve(null);
    const w = Math.min(width, vw), hh = Math.round(vh * w / vw);
    if (canvas.width !== w || canvas.height !== hh) { canvas.width = w; canvas.height = hh; }
    canvas.getContext("2d").drawImage(video, 0, 0, w, hh);
    return new Promise(done => canvas.toBlob(done, "image/jpeg", QUALITY));
  }

  function connect() {
    if (me.stopped) return;
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/live/camera`);
    ws.binaryType = "arraybuffer";
    me.socket = ws;
    let last = 0;
    async function next() {
      if (me.stopped || ws.readyState !== WebSocket.OPEN) return;
      const wait = last + 1000 / FPS - performance.now();
      if (wait > 0) await new Promise(r => setTimeout(r, wait));
      const blob = await frame();
      if (me.stopped || ws.readyState !== WebSocket.OPEN) return;
      if (!blob) { setTimeout(next, 100); return; }
      last = performance.now();
      ws.send(blob);
    }
    ws.addEventListener("open", next);
    ws.addEventListener("message", () => { me.frames += 1; next(); });  /* taken: the next frame */
    ws.addEventListener("close", (ev) => {
      if (me.stopped) return;
      if (GONE[ev.code]) { me.stop(GONE[ev.code]); return; }
      setTimeout(connect, 1000);  /* Wi-Fi dropped: try again while the camera is on */
    });
  }
  stoppedWhy = "";
  video.play().catch(() => {}).finally(connect);
  document.dispatchEvent(new CustomEvent("handfoot-camera", {detail: {sending: true}}));
}

/* The camera the phone turned off (WENT_OFF) is opened again when the page is back in front, while the live view
 * still waits for a browser's camera (none took over, watching was not stopped): a phone's screen that went dark
 * over the table goes on watching once it is woken, without a tap. A camera that cannot be opened stays off (the
 * note's button says it). */
async function resume() {
  if (document.visibilityState !== "visible" || stoppedWhy !== WENT_OFF || sender) return;
  const st = await api("GET", "/v1/live").catch(() => null);
  if (!st || st.source !== "browser" || !["starting", "reconnecting"].includes(st.status) || stoppedWhy !== WENT_OFF || sender) return;
  await usePhoneCamera(st.frame_width).catch(() => {});
}
document.addEventListener("visibilitychange", resume);
window.addEventListener("pageshow", resume);

/** The live view's line about a browser's camera (state of GET /v1/live whose source is ``browser``): this phone
 *  sends, or it stopped its camera, or another phone sends, or none does, with a button to use this phone's
 *  camera instead. Its ``follow(state)`` takes each new state of the live view, so the line agrees with the
 *  status under the picture; ``stopped()`` says whether the line says this phone stopped its camera, ``sending()``
 *  whether it sends, and ``changed`` (set by the view) is called when the line changes. */
export function cameraNote(state) {
  const note = h("div", {class: "camera-note", id: "camera-note"});
  let current = state, said = null;
  function words() {
    if (sending()) return "sending";
    const waiting = current.status === "starting" || current.status === "reconnecting";
    /* stopped here: said at once, before the server's state says it too (a moment later) */
    if (stoppedWhy === "stopped on this phone" && (waiting || performance.now() - stoppedAt < 3000)) return "stopped";
    if (stoppedWhy === WENT_OFF && (waiting || performance.now() - stoppedAt < 3000)) return "went off";
    return !waiting ? "other" : current.status === "starting" ? "none yet" : "none now";
  }
  function render() {
    if (note.dataset.shown && !note.isConnected) { document.removeEventListener("handfoot-camera", render); return; }
    note.dataset.shown = "1";
    const now = words();
    if (now === said) return;  /* the same line: its button stays under the finger */
    said = now;
    if (note.changed) note.changed();
    if (now === "sending") {
      note.replaceChildren(h("p", {}, "This phone is the camera: keep it above the table, its screen on. ",
        h("button", {type: "button", id: "camera-off", onclick: () => stopPhoneCamera("stopped on this phone")}, "Stop this camera")));
      return;
    }
    note.replaceChildren(h("p", {class: "muted"}, {
        "stopped": "You stopped this phone's camera: the table is not watched until a phone's camera is used again. ",
        "went off": "This phone's camera went off (its screen turned off, or another app took the camera): the table " +
                    "is not watched. It starts again when this page is back on the screen, or: ",
        "none yet": "No phone sends its camera's picture yet. ",
        "none now": "No phone sends its camera's picture now. ",
        "other": "Another phone is the camera; this one follows the scores. "}[now]),
      cameraPossible() ? h("button", {type: "button", id: "camera-use", onclick: async () => {
        try { await usePhoneCamera(current.frame_width); } catch (e) { note.append(h("p", {class: "error-box", role: "alert"}, e.message)); }
      }}, "Use this phone's camera") : h("p", {class: "muted"}, cameraProblem()));
  }
  document.addEventListener("handfoot-camera", render);
  render();
  note.follow = (st) => { current = st; render(); };
  note.stopped = () => words() === "stopped";
  note.sending = sending;
  return note;
}
