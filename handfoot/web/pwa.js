/* The page as an app: registers the service worker (/sw.js: the shell kept, the "cannot be reached" page when the
 * server is away). Browsers register one only on a secure page (https, or this computer). An ES module. */
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", {scope: "/"}).catch((e) => {
    /* a certificate a phone accepted only for now cannot serve a worker: the page works without it */
    console.info(`handfoot: no offline page (${e && e.message ? e.message : e})`);
  });
}
